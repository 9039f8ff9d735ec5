/* OpenCL C → PTX through the compiler's one pipeline (kiln_llvm_build,
 * kiln_llvm_compile + kiln_llvm_link) for ir "nvptx", whose target entry
 * is src/llvm/nvptx: the .entry parameter lists the
 * CUDA driver relies on (nvptx_abi.h), the kernel descriptions core lays
 * the argument buffer out from, the refusals, and — where NVIDIA's ptxas
 * is installed (KILN_PTXAS, else /usr/local/cuda/bin/ptxas, else PATH) —
 * that ptxas accepts every PTX for sm_90.  CI has no ptxas: that part is
 * then skipped, and says so once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <CL/cl.h>

#include "kiln/kernel_info.h"
#include "kiln/printf.h"
#include "llvm/nvptx/nvptx_abi.h"
#include "llvm/compiler.h"
#include "llvm/nvptx/nvptx_constant.h"
#include "llvm/nvptx/nvptx_target.h"

#define EXTENSIONS                                                                           \
   "-all,+cl_khr_fp64,+cl_khr_int64_base_atomics,+cl_khr_int64_extended_atomics,"            \
   "+cl_khr_global_int32_base_atomics,+cl_khr_global_int32_extended_atomics,"                \
   "+cl_khr_local_int32_base_atomics,+cl_khr_local_int32_extended_atomics,"                  \
   "+cl_khr_byte_addressable_store"

static const struct kiln_compile_target cl12 = {
   .ir = "nvptx",
   .processor = "sm_90",
   .opencl_version = 120,
   .cl_ext = EXTENSIONS,
};

static char ptxas[4096];
/* `ptxas --help`, which lists the -arch values this ptxas compiles for
 * (CUDA 13 has dropped sm_50 to sm_72; CUDA 12 lacks sm_110). */
static char *ptxas_help;

static void find_ptxas(void)
{
   const char *env = getenv("KILN_PTXAS");
   if (env && *env) {
      snprintf(ptxas, sizeof(ptxas), "%s", env);
      return;
   }
   if (access("/usr/local/cuda/bin/ptxas", X_OK) == 0) {
      snprintf(ptxas, sizeof(ptxas), "/usr/local/cuda/bin/ptxas");
      return;
   }
   const char *path = getenv("PATH");
   while (path && *path) {
      const char *end = strchr(path, ':');
      size_t len = end ? (size_t)(end - path) : strlen(path);
      snprintf(ptxas, sizeof(ptxas), "%.*s/ptxas", (int)len, path);
      if (len && access(ptxas, X_OK) == 0)
         return;
      path = end ? end + 1 : NULL;
   }
   ptxas[0] = 0;
}

static int group_setup(void **state)
{
   (void)state;
   find_ptxas();
   if (ptxas[0]) {
      printf("ptxas: %s\n", ptxas);
      char cmd[4200];
      snprintf(cmd, sizeof(cmd), "'%s' --help 2>&1", ptxas);
      FILE *p = popen(cmd, "r");
      size_t cap = 1 << 16, len = 0;
      ptxas_help = calloc(1, cap);
      if (!p || !ptxas_help)
         return -1;
      size_t got;
      while (len + 1 < cap && (got = fread(ptxas_help + len, 1, cap - 1 - len, p)) > 0)
         len += got;
      pclose(p);
   }
   else
      printf("ptxas not found (KILN_PTXAS, /usr/local/cuda/bin, PATH): "
             "the PTX is checked by pattern only\n");
   return 0;
}

static struct kiln_build_output build_sm(const char *src, const char *options, const char *sm,
                                         enum kiln_build_status want)
{
   struct kiln_build_output out;
   struct kiln_compile_target target = cl12;
   target.processor = sm;
   enum kiln_build_status st = kiln_llvm_build(src, strlen(src), options, &target, &out);
   if (st != want || getenv("KILN_TEST_DUMP"))
      fprintf(stderr, "status %d, log:\n%s\nPTX:\n%s\n", st, out.log ? out.log : "(none)",
              st == KILN_BUILD_OK && out.object ? (const char *)out.object : "(none)");
   assert_int_equal(st, want);
   assert_non_null(out.log);
   if (st == KILN_BUILD_OK) {
      /* PTX text, NUL-terminated one byte past object_size: a C string
       * cuModuleLoadDataEx takes as it is. */
      assert_non_null(out.object);
      assert_true(out.object_size > 0);
      assert_int_equal(((const char *)out.object)[out.object_size], 0);
      assert_int_equal(strlen(out.object), out.object_size);
      assert_non_null(out.bitcode);
      assert_non_null(out.target_id);
   }
   return out;
}

static struct kiln_build_output build(const char *src, const char *options)
{
   return build_sm(src, options, "sm_90", KILN_BUILD_OK);
}

static int group_teardown(void **state)
{
   (void)state;
   free(ptxas_help);
   return 0;
}

/* Whether this ptxas compiles for arch. */
static bool ptxas_knows(const char *arch)
{
   char quoted[32];
   snprintf(quoted, sizeof(quoted), "'%s'", arch);
   return ptxas[0] && ptxas_help && strstr(ptxas_help, quoted);
}

/* Has ptxas compile the PTX for arch; fails the test when it refuses.
 * Nothing to do without ptxas, or for an arch this one does not know. */
static void check_ptxas(const struct kiln_build_output *out, const char *arch)
{
   if (!ptxas_knows(arch)) {
      if (ptxas[0])
         printf("ptxas does not know %s: not checked\n", arch);
      return;
   }
   char dir[] = "/tmp/kiln-nvptx-XXXXXX";
   assert_non_null(mkdtemp(dir));
   char in[64], obj[64];
   snprintf(in, sizeof(in), "%s/k.ptx", dir);
   snprintf(obj, sizeof(obj), "%s/k.cubin", dir);
   FILE *f = fopen(in, "wb");
   assert_non_null(f);
   assert_int_equal(fwrite(out->object, 1, out->object_size, f), out->object_size);
   fclose(f);
   char arch_flag[32];
   snprintf(arch_flag, sizeof(arch_flag), "-arch=%s", arch);
   pid_t pid = fork();
   assert_true(pid >= 0);
   if (pid == 0) {
      execl(ptxas, ptxas, arch_flag, in, "-o", obj, (char *)NULL);
      _exit(127);
   }
   int status = 0;
   assert_int_equal(waitpid(pid, &status, 0), pid);
   if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      fprintf(stderr, "ptxas %s rejected:\n%s\n", arch_flag, (const char *)out->object);
   unlink(in);
   unlink(obj);
   rmdir(dir);
   assert_true(WIFEXITED(status));
   assert_int_equal(WEXITSTATUS(status), 0);
}

/* The text of `.entry name(` up to its `)`, one parameter a line. */
static char *entry_params(const char *ptx, const char *name)
{
   char head[256];
   snprintf(head, sizeof(head), ".entry %s(", name);
   const char *p = strstr(ptx, head);
   if (!p)
      fprintf(stderr, "no '%s' in:\n%s\n", head, ptx);
   assert_non_null(p);
   p += strlen(head);
   const char *end = strchr(p, ')');
   assert_non_null(end);
   return strndup(p, (size_t)(end - p));
}

/* Checks that the entry's parameters are exactly `types` (".u64",
 * ".f32", ".b8 [12]" for a 12-byte aggregate ...), in order, named
 * <kernel>_param_<i>. */
static void expect_params(const char *ptx, const char *kernel, const char *const *types,
                          unsigned n)
{
   char *params = entry_params(ptx, kernel);
   const char *p = params;
   for (unsigned i = 0; i < n; i++) {
      char name[256];
      snprintf(name, sizeof(name), "%s_param_%u", kernel, i);
      const char *decl = strstr(p, ".param");
      if (!decl)
         fprintf(stderr, "%s: parameter %u missing in (%s)\n", kernel, i, params);
      assert_non_null(decl);
      const char *nl = strchr(decl, '\n');
      char *line = strndup(decl, nl ? (size_t)(nl - decl) : strlen(decl));
      char *named = strstr(line, name);
      bool ok = named && named[strlen(name)] != '_' &&
                (named[strlen(name)] < '0' || named[strlen(name)] > '9');
      /* The type is the first word after .param; an aggregate is
       * ".align A .b8 name[size]". */
      const char *type = types[i];
      if (!strncmp(type, ".b8 [", 5)) {
         char want[300];
         snprintf(want, sizeof(want), "%s%s", name, type + 4);
         ok = ok && strstr(line, ".b8") && strstr(line, want);
      } else {
         char want[64];
         snprintf(want, sizeof(want), ".param %s ", type);
         ok = ok && !strncmp(line, want, strlen(want));
      }
      if (!ok)
         fprintf(stderr, "%s: parameter %u is '%s', expected %s\n", kernel, i, line, type);
      free(line);
      assert_true(ok);
      p = nl ? nl : decl + 6;
   }
   if (strstr(p, ".param"))
      fprintf(stderr, "%s: more parameters than %u in (%s)\n", kernel, n, params);
   assert_null(strstr(p, ".param"));
   free(params);
}

static const struct kiln_kernel_info *kernel(const struct kiln_build_output *out,
                                             const char *name)
{
   for (unsigned i = 0; i < out->num_kernels; i++)
      if (!strcmp(out->kernels[i].name, name))
         return &out->kernels[i];
   fail_msg("no kernel %s", name);
   return NULL;
}

static void expect_arg(const struct kiln_kernel_info *k, unsigned i, enum kiln_arg_kind kind,
                       uint32_t size, uint32_t offset)
{
   assert_true(i < k->num_args);
   assert_int_equal(k->args[i].kind, kind);
   assert_int_equal(k->args[i].size, size);
   assert_int_equal(k->args[i].offset, offset);
}

/* The body of the PTX function `name` (.entry or .func), for searching. */
static char *function_text(const char *ptx, const char *name)
{
   char *params = entry_params(ptx, name);
   free(params);
   char head[256];
   snprintf(head, sizeof(head), ".entry %s(", name);
   const char *p = strstr(ptx, head);
   const char *next = strstr(p + 1, ".entry ");
   return strndup(p, next ? (size_t)(next - p) : strlen(p));
}

static void test_saxpy(void **state)
{
   (void)state;
   struct kiln_build_output out =
      build("kernel void saxpy(global float *y, global const float *x, float a, uint n)\n"
            "{\n"
            "   size_t i = get_global_id(0);\n"
            "   if (i < n)\n"
            "      y[i] = a * x[i] + y[i];\n"
            "}\n",
            "");
   const char *ptx = out.object;
   assert_non_null(strstr(ptx, ".version 7.8"));
   assert_non_null(strstr(ptx, ".target sm_90"));
   assert_non_null(strstr(ptx, ".address_size 64"));
   static const char *const params[] = {".u64", ".u64", ".f32", ".u32",
                                        ".u64", ".u64", ".u64", ".u32"};
   expect_params(ptx, "saxpy", params, 8);
   /* Nothing of __local: no dynamic shared memory; and the hidden values
    * the kernel reads only through get_global_id leave no shared copy. */
   assert_null(strstr(ptx, ".shared"));
   assert_null(strstr(ptx, ".func")); /* everything inlined */
   assert_non_null(strstr(ptx, "fma.rn.f32"));
   /* get_global_id(0) includes the offset: the hidden parameter is read. */
   assert_non_null(strstr(ptx, "[saxpy_param_4]"));

   assert_int_equal(out.num_kernels, 1);
   const struct kiln_kernel_info *k = kernel(&out, "saxpy");
   assert_int_equal(k->num_args, 4);
   expect_arg(k, 0, KILN_ARG_GLOBAL, 8, 0);
   expect_arg(k, 1, KILN_ARG_GLOBAL, 8, 8);
   expect_arg(k, 2, KILN_ARG_VALUE, 4, 16);
   expect_arg(k, 3, KILN_ARG_VALUE, 4, 20);
   assert_int_equal(k->args_size, 24);
   assert_string_equal(out.target_id, "nvptx:" KILN_NVPTX_TRIPLE ":sm_90:+ptx78");
   check_ptxas(&out, "sm_90");
   kiln_build_output_fini(&out);
}

static const char local_src[] =
   "kernel void reduce(global float *out, local float *scratch, global const float *in,\n"
   "                   local int *count)\n"
   "{\n"
   "   local float tile[64];\n"
   "   size_t l = get_local_id(0);\n"
   "   scratch[l] = in[get_global_id(0)];\n"
   "   tile[l & 63] = scratch[l];\n"
   "   if (l == 0)\n"
   "      *count = 0;\n"
   "   barrier(CLK_LOCAL_MEM_FENCE);\n"
   "   atomic_inc(count);\n"
   "   for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {\n"
   "      if (l < s)\n"
   "         scratch[l] += scratch[l + s];\n"
   "      barrier(CLK_LOCAL_MEM_FENCE);\n"
   "   }\n"
   "   if (l == 0)\n"
   "      out[get_group_id(0)] = scratch[0] + tile[3] + (float)*count;\n"
   "}\n";

static void check_local(const struct kiln_build_output *out)
{
   const char *ptx = out->object;
   static const char *const params[] = {".u64", ".u32", ".u64", ".u32",
                                        ".u64", ".u64", ".u64", ".u32"};
   expect_params(ptx, "reduce", params, 8);
   assert_non_null(strstr(ptx, ".extern .shared .align 128 .b8 " KILN_NVPTX_DYNAMIC_SMEM "[]"));
   assert_non_null(strstr(ptx, "bar.sync"));
   assert_non_null(strstr(ptx, "atom.shared.add.u32"));
   /* The static __local array: an ordinary .shared variable. */
   assert_non_null(strstr(ptx, ".shared .align 4 .b8"));

   const struct kiln_kernel_info *k = kernel(out, "reduce");
   assert_int_equal(k->num_args, 4);
   expect_arg(k, 0, KILN_ARG_GLOBAL, 8, 0);
   expect_arg(k, 1, KILN_ARG_LOCAL, 4, 8);
   expect_arg(k, 2, KILN_ARG_GLOBAL, 8, 16);
   expect_arg(k, 3, KILN_ARG_LOCAL, 4, 24);
   assert_int_equal(k->args[1].address_qualifier, CL_KERNEL_ARG_ADDRESS_LOCAL);
   assert_int_equal(k->args_size, 28);
   assert_int_equal(k->local_mem_size, 64 * sizeof(float));
   check_ptxas(out, "sm_90");
}

static void test_local_args(void **state)
{
   (void)state;
   struct kiln_build_output out = build(local_src, "");
   check_local(&out);
   kiln_build_output_fini(&out);
}

/* Without optimisation the kernel body stays a function the entry calls:
 * the ABI must not depend on inlining. */
static void test_local_args_unoptimized(void **state)
{
   (void)state;
   struct kiln_build_output out = build(local_src, "-cl-opt-disable");
   check_local(&out);
   kiln_build_output_fini(&out);
}

static const char ids_src[] =
   "static ulong helper(uint d) { return get_global_id(d) * 1000 + get_global_offset(d); }\n"
   "kernel void ids(global ulong *o)\n"
   "{\n"
   "   size_t i = (get_global_id(1) - get_global_offset(1)) * get_global_size(0)\n"
   "              + get_global_id(0) - get_global_offset(0);\n"
   "   o[i * 6 + 0] = get_global_offset(0);\n"
   "   o[i * 6 + 1] = get_global_offset(1);\n"
   "   o[i * 6 + 2] = get_global_offset(2);\n"
   "   o[i * 6 + 3] = get_work_dim();\n"
   "   o[i * 6 + 4] = helper(0);\n"
   "   o[i * 6 + 5] = get_global_offset(3) + get_global_id(7);\n"
   "}\n";

static void check_ids(const struct kiln_build_output *out)
{
   const char *ptx = out->object;
   static const char *const params[] = {".u64", ".u64", ".u64", ".u64", ".u32"};
   expect_params(ptx, "ids", params, 5);
   /* Every hidden parameter is read (offsets x, y, z, then work_dim). */
   char *body = function_text(ptx, "ids");
   for (int i = 1; i <= 4; i++) {
      char ref[64];
      snprintf(ref, sizeof(ref), "[ids_param_%d]", i);
      if (!strstr(body, ref))
         fprintf(stderr, "%s not read in:\n%s\n", ref, body);
      assert_non_null(strstr(body, ref));
   }
   assert_non_null(strstr(body, "ld.param.u32"));
   free(body);
   assert_null(strstr(ptx, ".extern .shared"));
   check_ptxas(out, "sm_90");
}

static void test_offset_and_work_dim(void **state)
{
   (void)state;
   struct kiln_build_output out = build(ids_src, "");
   check_ids(&out);
   /* Once inlined, the hidden values come straight from the parameters. */
   assert_null(strstr(out.object, ".shared"));
   kiln_build_output_fini(&out);

   /* Not inlined: helper() reads the per-block copies the entry stores. */
   out = build(ids_src, "-cl-opt-disable");
   check_ids(&out);
   assert_non_null(strstr(out.object, "__kiln_nvptx_global_offset"));
   assert_non_null(strstr(out.object, "st.shared"));
   kiln_build_output_fini(&out);
}

static void test_double_and_atomics64(void **state)
{
   (void)state;
   struct kiln_build_output out =
      build("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
            "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
            "#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\n"
            "kernel void dbl(global double *d, global long *c, global ulong *u,\n"
            "                local long *l, double scale)\n"
            "{\n"
            "   size_t i = get_global_id(0);\n"
            "   d[i] = sqrt(d[i]) * scale + exp(d[i + 1]);\n"
            "   atom_add(c, (long)i);\n"
            "   atom_min(c + 1, -(long)i);\n"
            "   atom_max(u, (ulong)i);\n"
            "   atom_cmpxchg(c + 2, 0L, 5L);\n"
            "   atom_xchg(u + 1, 7UL);\n"
            "   atom_inc(l);\n"
            "   barrier(CLK_LOCAL_MEM_FENCE);\n"
            "   u[2 + i] = atom_dec(l);\n"
            "}\n",
            "");
   const char *ptx = out.object;
   static const char *const params[] = {".u64", ".u64", ".u64", ".u32", ".f64",
                                        ".u64", ".u64", ".u64", ".u32"};
   expect_params(ptx, "dbl", params, 9);
   assert_non_null(strstr(ptx, "sqrt.rn.f64"));
   assert_non_null(strstr(ptx, "atom.global.add.u64"));
   assert_non_null(strstr(ptx, "atom.global.min.s64"));
   assert_non_null(strstr(ptx, "atom.global.max.u64"));
   assert_non_null(strstr(ptx, "atom.global.cas.b64"));
   assert_non_null(strstr(ptx, "atom.global.exch.b64"));
   assert_non_null(strstr(ptx, "atom.shared.add.u64"));
   assert_non_null(strstr(ptx, ".extern .shared"));

   const struct kiln_kernel_info *k = kernel(&out, "dbl");
   expect_arg(k, 3, KILN_ARG_LOCAL, 4, 24);
   expect_arg(k, 4, KILN_ARG_VALUE, 8, 32);
   assert_int_equal(k->args_size, 40);
   check_ptxas(&out, "sm_90");
   kiln_build_output_fini(&out);
}

/* OpenCL C 3.0 for the CUDA device (src/pipe/cuda/cuda_caps.h,
 * cuda_kernel_caps; core appends the features to the extensions): every
 * C11 atomic on every type and named space, with orders and scopes only
 * known at run time, so that each fence branch of
 * src/llvm/builtins/cl30_nvptx.cl reaches the PTX (and ptxas). */
static const struct kiln_compile_target cl30 = {
   .ir = "nvptx",
   .processor = "sm_90",
   .opencl_version = 300,
   .image_support = true,
   .cl_ext = EXTENSIONS ",+cl_khr_3d_image_writes,+__opencl_c_int64,+__opencl_c_images,"
                        "+__opencl_c_3d_image_writes,+__opencl_c_fp64,"
                        "+__opencl_c_atomic_order_acq_rel,+__opencl_c_atomic_order_seq_cst,"
                        "+__opencl_c_atomic_scope_device",
};

static const char cl30_atomics_src[] =
   "#define OPS(AS, A, T, p) \\\n"
   "  atomic_init(p, (T)1); atomic_store(p, (T)2); atomic_store_explicit(p, (T)3, o);\\\n"
   "  atomic_store_explicit(p, (T)4, o, s); r += (long)atomic_load(p);\\\n"
   "  r += (long)atomic_load_explicit(p, o) + (long)atomic_load_explicit(p, o, s);\\\n"
   "  r += (long)atomic_exchange(p, (T)5) + (long)atomic_exchange_explicit(p, (T)6, o, s);\\\n"
   "  { T e = (T)6; r += atomic_compare_exchange_strong(p, &e, (T)7);\\\n"
   "    r += atomic_compare_exchange_weak_explicit(p, &e, (T)8, o, f, s); }\n"
   "#define INT_OPS(AS, A, T, p) OPS(AS, A, T, p) \\\n"
   "  r += (long)atomic_fetch_add(p, (T)1) + (long)atomic_fetch_sub_explicit(p, (T)1, o);\\\n"
   "  r += (long)atomic_fetch_or_explicit(p, (T)1, o, s) + (long)atomic_fetch_xor(p, (T)1);\\\n"
   "  r += (long)atomic_fetch_and(p, (T)1) + (long)atomic_fetch_min_explicit(p, (T)1, o, s);\\\n"
   "  r += (long)atomic_fetch_max(p, (T)1);\n"
   "kernel void c11(global atomic_int *gi, global atomic_uint *gu, global atomic_long *gl,\n"
   "                global atomic_ulong *gul, global atomic_float *gf, global atomic_double *gd,\n"
   "                global atomic_flag *gfl, global long *out, int oi, int fi, int si)\n"
   "{\n"
   "  local atomic_int li; local atomic_long ll; local atomic_float lf; local atomic_flag lfl;\n"
   "  memory_order o = (memory_order)oi, f = (memory_order)fi;\n"
   "  memory_scope s = (memory_scope)si;\n"
   "  long r = 0;\n"
   "  INT_OPS(global, atomic_int, int, gi) INT_OPS(global, atomic_uint, uint, gu)\n"
   "  INT_OPS(global, atomic_long, long, gl) INT_OPS(global, atomic_ulong, ulong, gul)\n"
   "  OPS(global, atomic_float, float, gf) OPS(global, atomic_double, double, gd)\n"
   "  INT_OPS(local, atomic_int, int, &li) INT_OPS(local, atomic_long, long, &ll)\n"
   "  OPS(local, atomic_float, float, &lf)\n"
   "  r += atomic_flag_test_and_set(gfl) + atomic_flag_test_and_set_explicit(&lfl, o, s);\n"
   "  atomic_flag_clear_explicit(gfl, o); atomic_flag_clear(&lfl);\n"
   "  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, o, s);\n"
   "  work_group_barrier(CLK_LOCAL_MEM_FENCE, s); work_group_barrier(CLK_GLOBAL_MEM_FENCE);\n"
   "  out[get_global_linear_id()] = r + ctz(r) + (long)get_local_linear_id() +\n"
   "                                (long)get_enqueued_local_size(0);\n"
   "}\n"
   /* Fixed orders: fences exactly where the order needs them. */
   "kernel void fixed(global atomic_int *g, global int *out)\n"
   "{\n"
   "  out[0] = atomic_fetch_add_explicit(g, 1, memory_order_relaxed, memory_scope_device);\n"
   "  out[1] = atomic_fetch_add_explicit(g, 2, memory_order_seq_cst, memory_scope_work_group);\n"
   "}\n";

static void test_cl30_atomics(void **state)
{
   (void)state;
   struct kiln_build_output out;
   assert_int_equal(kiln_llvm_build(cl30_atomics_src, strlen(cl30_atomics_src), "-cl-std=CL3.0",
                                    &cl30, &out),
                    KILN_BUILD_OK);
   const char *ptx = out.object;
   if (getenv("KILN_TEST_DUMP"))
      fprintf(stderr, "PTX:\n%s\n", ptx);
   /* No call left: every function is defined (the check for undefined
    * ones would have failed the build) and inlined. */
   char *c11 = function_text(ptx, "c11");
   assert_null(strstr(c11, "call.uni"));
   static const char *const want[] = {
      "atom.global.add.u32", "atom.global.add.u64", "atom.global.cas.b32", "atom.global.cas.b64",
      "atom.global.exch.b32", "atom.global.exch.b64", "atom.global.min.s32",
      "atom.global.min.u32", "atom.global.max.s64", "atom.global.max.u64",
      "atom.global.or.b32", "atom.global.xor.b64", "atom.global.and.b32", "atom.shared.add.u32",
      "atom.shared.add.u64", "atom.shared.cas.b32", "atom.shared.exch.b32",
      "ld.volatile.global.u32", "ld.volatile.global.u64", "ld.volatile.shared.u32",
      "st.volatile.global.u32", "st.volatile.shared.u64",
      "membar.cta", "membar.gl", "membar.sys", "bar.sync",
   };
   for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
      if (!strstr(c11, want[i]))
         fail_msg("no %s in c11's PTX", want[i]);
   free(c11);
   /* relaxed: no fence; seq_cst at work-group scope: membar.cta on both
    * sides of its atom, nothing at device scope. */
   char *fixed = function_text(ptx, "fixed");
   const char *first = strstr(fixed, "atom.global.add.u32");
   assert_non_null(first);
   const char *second = strstr(first + 1, "atom.global.add.u32");
   assert_non_null(second);
   const char *cta = strstr(fixed, "membar.cta");
   assert_true(cta && cta > first && cta < second);
   assert_non_null(strstr(second, "membar.cta"));
   assert_null(strstr(fixed, "membar.gl"));
   free(fixed);
   check_ptxas(&out, "sm_90");
   kiln_build_output_fini(&out);
}

/* libclc's wrong special values, fixed at the call (nvptx_math.c): ldexp
 * on float in double (no flush below FLT_MIN), fract's result signed from
 * its argument's sign bit for ±0 and ±inf, sinpi of an integer too. */
static const char *entry_body(const char *ptx, const char *name)
{
   char head[64];
   snprintf(head, sizeof(head), ".entry %s(", name);
   const char *p = strstr(ptx, head);
   assert_non_null(p);
   return p;
}

static void test_libclc_fixes(void **state)
{
   (void)state;
   struct kiln_build_output out =
      build("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
            "kernel void ld(global float *o, global int *n) { o[0] = ldexp(o[0], n[0]); }\n"
            "kernel void ld4(global float4 *o, int n) { o[0] = ldexp(o[0], n); }\n"
            "kernel void fr(global float *o) { float ip; o[0] = fract(o[0], &ip); }\n"
            "kernel void sp(global double *o) { o[0] = sinpi(o[0]); }\n"
            "kernel void nt(global float *o) { o[0] = native_tan(o[0]); }\n"
            "kernel void vh(global float *o, global half *h) { vstore_half_rtp(o[0], 0, h); }\n"
            "kernel void nn(global double *o, global float *f, global uint *c)\n"
            "{ o[0] = nan(0UL); f[0] = nan(c[0]); }\n",
            "");
   const char *ptx = out.object;
   const char *ld = entry_body(ptx, "ld"), *ld4 = entry_body(ptx, "ld4");
   const char *fr = entry_body(ptx, "fr"), *sp = entry_body(ptx, "sp");
   const char *nt = entry_body(ptx, "nt"), *vh = entry_body(ptx, "vh");
   /* Entries in order of the source: each check stays inside its kernel. */
   assert_true(ld < ld4 && ld4 < fr && fr < sp && sp < nt && nt < vh);
   const char *hit = strstr(ld, "cvt.rn.f32.f64");
   assert_true(hit && hit < ld4);
   hit = strstr(ld4, "mul.rn.f64");
   assert_true(hit && hit < fr);
   hit = strstr(fr, "-2147483648"); /* the sign bit, kept */
   assert_true(hit && hit < sp);
   hit = strstr(sp, "cvt.rzi.f64.f64"); /* trunc: is x an integer */
   assert_true(hit && hit < nt);
   /* native_tan: reduced by pi/2 (rint), no sin.approx/cos.approx. */
   hit = strstr(nt, "cvt.rni.f32.f32");
   assert_true(hit && hit < vh);
   hit = strstr(nt, "sin.approx");
   assert_true(!hit || hit > vh);
   assert_non_null(strstr(vh, "0f33800000")); /* 2^-24, the smallest half */
   /* nan(0) is a quiet NaN, not libclc's infinity; a run-time code goes
    * into the significand under the quiet bit (0x7fc00000). */
   const char *nn = entry_body(ptx, "nn");
   assert_true(vh < nn);
   assert_non_null(strstr(nn, "9221120237041090560")); /* 0x7ff8000000000000 */
   assert_null(strstr(nn, "9218868437227405312"));     /* 0x7ff0000000000000 */
   assert_non_null(strstr(nn, "2143289344"));
   check_ptxas(&out, "sm_90");
   kiln_build_output_fini(&out);

   /* ldexp on double: n is clamped to +-2200 before libclc adds it to
    * the exponent in 32 bits (an n near INT_MAX wrapped to 0). */
   out = build("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
               "kernel void ldd(global double *o, global int *n) { o[0] = ldexp(o[0], n[0]); }\n",
               "");
   assert_non_null(strstr(out.object, "2200"));
   assert_non_null(strstr(out.object, "-2200"));
   check_ptxas(&out, "sm_90");
   kiln_build_output_fini(&out);

   /* ldexp on float8 loaded from memory: the extension to double stays
    * an instruction of its own; LLVM 19 folded it into the loads as
    * `ld.global.v2.f32 {%fd..}`, which ptxas refuses (CTS ldexp). */
   out = build("kernel void l8(global float8 *o, global float8 *a, global int8 *n)\n"
               "{ size_t i = get_global_id(0); o[i] = ldexp(a[i], n[i]); }\n",
               "");
   ptx = out.object;
   assert_non_null(strstr(ptx, "cvt.f64.f32"));
   for (const char *p = strstr(ptx, "ld.global"); p; p = strstr(p + 1, "ld.global")) {
      const char *eol = strchr(p, '\n');
      const char *fd = strstr(p, "%fd");
      assert_true(!fd || (eol && fd > eol));
   }
   check_ptxas(&out, "sm_90");
   kiln_build_output_fini(&out);

   /* cospi's zero result is +0 (select on a compare with 0), tanpi's
    * sign is flipped for odd integers (x / 2 truncated), acospi and
    * frexp of NaN pass the NaN (an unordered compare). */
   out = build("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
               "kernel void cp(global float *o) { o[0] = cospi(o[0]); }\n"
               "kernel void tp(global float *o) { o[0] = tanpi(o[0]); }\n"
               "kernel void ap(global double *o) { o[0] = acospi(o[0]); }\n"
               "kernel void fx(global double *o, global int *e) { o[0] = frexp(o[0], e); }\n"
               "kernel void sh(global double *o) { o[0] = sinh(o[0]); }\n",
               "");
   ptx = out.object;
   const char *cp = entry_body(ptx, "cp"), *tp = entry_body(ptx, "tp");
   const char *ap = entry_body(ptx, "ap"), *fx = entry_body(ptx, "fx");
   assert_true(cp < tp && tp < ap && ap < fx);
   hit = strstr(cp, "setp.eq.f32");
   assert_true(hit && hit < tp);
   hit = strstr(tp, "cvt.rzi.f32.f32");
   assert_true(hit && hit < ap);
   hit = strstr(ap, "setp.nan.f64");
   assert_true(hit && hit < fx);
   const char *sh = entry_body(ptx, "sh");
   hit = strstr(fx, "setp.nan.f64");
   assert_true(fx < sh && hit && hit < sh);
   /* sinh's table index, (int)|x|, is computed from 0 for a NaN: the
    * compare comes first (INT_MIN on the GPU, a faulting load). */
   hit = strstr(sh, "setp.nan.f64");
   const char *cvt = strstr(sh, "cvt.rzi.s32.f64");
   assert_true(hit && cvt && hit < cvt);
   check_ptxas(&out, "sm_90");
   kiln_build_output_fini(&out);
}

/* __constant arguments are cl_mem buffers: global memory, which ld.const
 * cannot read.  Program-scope constants move to .global with them. */
static void test_constant(void **state)
{
   (void)state;
   struct kiln_build_output out =
      build("constant float table[4] = {1.0f, 2.0f, 3.0f, 4.0f};\n"
            "static float pick(constant float *p, uint i) { return p[i & 3]; }\n"
            "kernel void cst(global float *o, constant float *c, constant int *idx)\n"
            "{\n"
            "   size_t i = get_global_id(0);\n"
            "   constant float *p = idx[1] ? c : table;\n"
            "   o[i] = c[i] + pick(table, idx[0]) + p[2] + vload4(0, c).w;\n"
            "}\n",
            "");
   const char *ptx = out.object;
   static const char *const params[] = {".u64", ".u64", ".u64", ".u64", ".u64", ".u64", ".u32"};
   expect_params(ptx, "cst", params, 7);
   assert_null(strstr(ptx, ".const"));
   assert_null(strstr(ptx, "ld.const"));
   assert_non_null(strstr(ptx, ".global .align 4 .b8 table[16]"));
   /* Loads through __constant pointers may use the read-only cache. */
   assert_non_null(strstr(ptx, "ld.global.nc.f32"));
   assert_non_null(strstr(ptx, "ld.global.nc.u32"));
   const struct kiln_kernel_info *k = kernel(&out, "cst");
   expect_arg(k, 1, KILN_ARG_CONSTANT, 8, 8);
   expect_arg(k, 2, KILN_ARG_CONSTANT, 8, 16);
   assert_int_equal(k->args[1].address_qualifier, CL_KERNEL_ARG_ADDRESS_CONSTANT);
   check_ptxas(&out, "sm_90");
   kiln_build_output_fini(&out);
}

/* The substitution skips quoted strings and comments. */
static void test_constant_text(void **state)
{
   (void)state;
   char text[] = "@t = addrspace(4) constant [13 x i8] c\"addrspace(4)\"\n"
                 "; addrspace(4)\n"
                 "define void @f(ptr addrspace(4) %p, ptr addrspace(42) %q) {\n";
   assert_int_equal(kiln_nvptx_constant_rewrite_text(text), 2);
   assert_string_equal(text, "@t = addrspace(1) constant [13 x i8] c\"addrspace(4)\"\n"
                             "; addrspace(4)\n"
                             "define void @f(ptr addrspace(1) %p, ptr addrspace(42) %q) {\n");
}

/* By-value aggregates and vectors are PTX byte arrays of their size;
 * reqd_work_group_size becomes .reqntid; a kernel called from another
 * keeps its own entry. */
static void test_values_and_attributes(void **state)
{
   (void)state;
   struct kiln_build_output out =
      build("typedef struct { float a; int b; char c; } S;\n"
            "kernel __attribute__((reqd_work_group_size(64, 2, 1)))\n"
            "void inner(global float *o, S s, float4 v, char c, local float *t)\n"
            "{\n"
            "   t[get_local_id(0)] = s.a + v.w;\n"
            "   barrier(CLK_LOCAL_MEM_FENCE);\n"
            "   o[get_global_id(0)] = t[0] + s.b + s.c + c;\n"
            "}\n"
            "kernel void outer(global float *o, local float *t)\n"
            "{\n"
            "   S s = {1.0f, 2, 3};\n"
            "   inner(o, s, (float4)(1.0f), 4, t);\n"
            "}\n",
            "");
   const char *ptx = out.object;
   static const char *const inner[] = {".u64", ".b8 [12]", ".b8 [16]", ".u8", ".u32",
                                       ".u64", ".u64", ".u64", ".u32"};
   expect_params(ptx, "inner", inner, 9);
   static const char *const outer[] = {".u64", ".u32", ".u64", ".u64", ".u64", ".u32"};
   expect_params(ptx, "outer", outer, 6);
   char *text = function_text(ptx, "inner");
   assert_non_null(strstr(text, ".reqntid 64, 2, 1"));
   free(text);
   /* get_global_id after a barrier still reads the parameter, not a
    * shared copy of it. */
   assert_null(strstr(ptx, "__kiln_nvptx_global_offset"));
   assert_null(strstr(ptx, "__kiln_nvptx_work_dim"));

   const struct kiln_kernel_info *k = kernel(&out, "inner");
   expect_arg(k, 0, KILN_ARG_GLOBAL, 8, 0);
   expect_arg(k, 1, KILN_ARG_VALUE, 12, 8);
   expect_arg(k, 2, KILN_ARG_VALUE, 16, 32);
   expect_arg(k, 3, KILN_ARG_VALUE, 1, 48);
   expect_arg(k, 4, KILN_ARG_LOCAL, 4, 52);
   assert_int_equal(k->reqd_work_group_size[0], 64);
   assert_int_equal(k->reqd_work_group_size[1], 2);
   check_ptxas(&out, "sm_90");
   kiln_build_output_fini(&out);
}

static void expect_refused(const char *src, const char *message)
{
   struct kiln_build_output out = build_sm(src, "", "sm_90", KILN_BUILD_FAILED);
   if (!strstr(out.log, message))
      fprintf(stderr, "log lacks '%s':\n%s\n", message, out.log);
   assert_non_null(strstr(out.log, message));
   assert_null(out.object);
   assert_null(out.kernels);
   kiln_build_output_fini(&out);
}

static void test_refusals(void **state)
{
   (void)state;
   expect_refused("kernel void p(global int *o, constant char *f) { printf(f, o[0]); }\n",
                  "error: printf: the format must be a string literal");
   expect_refused("void missing(void);\n"
                  "kernel void u(global int *o) { missing(); }\n",
                  "error: undefined function 'missing'");
   expect_refused("kernel void s(global int *o) { o[0] = ; }\n", "input.cl:1:39: error: expected expression");

   struct kiln_build_output out = build_sm("kernel void k(void) {}\n", "", "sm_10",
                                           KILN_BUILD_FAILED);
   assert_non_null(strstr(out.log, "Kiln does not compile for NVIDIA GPU 'sm_10'"));
   kiln_build_output_fini(&out);
   out = build_sm("kernel void k(void) {}\n", "-cl-no-such-option", "sm_90",
                  KILN_BUILD_INVALID_OPTIONS);
   assert_non_null(strstr(out.log, "invalid build options"));
   kiln_build_output_fini(&out);
   struct kiln_compile_target checked = cl12;
   checked.bounds_check = true;
   assert_int_equal(kiln_llvm_build("kernel void k(void) {}", 22, "", &checked, &out),
                    KILN_BUILD_FAILED);
   assert_non_null(strstr(out.log, "KILN_CHECK=bounds"));
   kiln_build_output_fini(&out);
}

/* native_* math (libclc implements it with llvm.sin, llvm.exp2 ...,
 * which the NVPTX code generator cannot select: LLVM aborted the process
 * with "Cannot select: fsin" or ended it over "no libcall available for
 * fexp2") becomes PTX's approximate instructions; an intrinsic nothing
 * can compile is a build error, not an abort. */
static void test_native_math(void **state)
{
   (void)state;
   struct kiln_build_output out =
      build("kernel void nat(global float *o, global float4 *v)\n"
            "{\n"
            "   size_t i = get_global_id(0);\n"
            "   float x = o[i], y = o[i + 1];\n"
            "   o[i] = native_sin(x) + native_cos(y) + native_tan(x) + native_exp(x)\n"
            "          + native_exp2(y) + native_exp10(x) + native_log(x) + native_log2(y)\n"
            "          + native_log10(x) + native_powr(x, y) + half_sin(x) + half_exp(y);\n"
            "   v[i] = native_sin(v[i]) + native_exp2(v[i + 1]) + native_log(v[i + 2]);\n"
            "}\n",
            "");
   const char *ptx = out.object;
   assert_non_null(strstr(ptx, "sin.approx.f32"));
   assert_non_null(strstr(ptx, "cos.approx.f32"));
   assert_non_null(strstr(ptx, "ex2.approx.f32"));
   assert_non_null(strstr(ptx, "lg2.approx.f32"));
   check_ptxas(&out, "sm_90");
   kiln_build_output_fini(&out);

   /* Clang's builtins make the same intrinsics: approximated under
    * -cl-fast-relaxed-math (afn) ... */
   out = build("kernel void b(global float *o) { o[0] = __builtin_sinf(o[1]) + "
               "__builtin_expf(o[2]); }\n",
               "-cl-fast-relaxed-math");
   assert_non_null(strstr(out.object, "sin.approx.f32"));
   assert_non_null(strstr(out.object, "ex2.approx.f32"));
   kiln_build_output_fini(&out);
   /* ... otherwise (and for double, always) refused with a log line. */
   expect_refused("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                  "kernel void b(global double *d) { d[0] = __builtin_sin(d[1]); }\n",
                  "error: 'b' uses llvm.sin.f64, which LLVM's NVPTX code generator cannot "
                  "compile");
   expect_refused("kernel void c(global float *o) { o[0] = __builtin_log2f(o[1]); }\n",
                  "uses llvm.log2.f32");
}

/* The size in bytes of each .param of the entry, by name. */
static unsigned param_size(const char *params, const char *name)
{
   char want[300];
   snprintf(want, sizeof(want), " %s", name);
   for (const char *p = strstr(params, ".param"); p; p = strstr(p + 1, ".param")) {
      const char *nl = strchr(p, '\n');
      size_t len = nl ? (size_t)(nl - p) : strlen(p);
      char *line = strndup(p, len);
      char *at = strstr(line, want);
      char after = at ? at[strlen(want)] : 'x';
      unsigned size = 0;
      if (at && (after == 0 || after == '[' || after == ',' || after == ' ')) {
         if (after == '[')
            size = (unsigned)strtoul(at + strlen(want) + 1, NULL, 10);
         else if (strstr(line, "8 "))
            size = 1;
         else if (strstr(line, "16 "))
            size = 2;
         else if (strstr(line, "32 "))
            size = 4;
         else if (strstr(line, "64 "))
            size = 8;
      }
      free(line);
      if (size)
         return size;
   }
   fail_msg("no parameter %s in (%s)", name, params);
   return 0;
}

/* Every ld.param of the kernel reads inside its parameter. */
static void expect_param_loads_in_bounds(const char *ptx, const char *kernel)
{
   char *params = entry_params(ptx, kernel);
   char *body = function_text(ptx, kernel);
   unsigned loads = 0;
   for (const char *p = strstr(body, "ld.param."); p; p = strstr(p + 1, "ld.param.")) {
      const char *t = p + strlen("ld.param.");
      unsigned lanes = 1;
      if (!strncmp(t, "v2.", 3) || !strncmp(t, "v4.", 3)) {
         lanes = (unsigned)(t[1] - '0');
         t += 3;
      }
      while (*t >= 'a' && *t <= 'z')
         t++;
      unsigned bytes = lanes * (unsigned)strtoul(t, NULL, 10) / 8;
      const char *open = strchr(t, '['), *close = open ? strchr(open, ']') : NULL;
      assert_non_null(close);
      char name[256];
      size_t n = strcspn(open + 1, "+]");
      snprintf(name, sizeof(name), "%.*s", (int)n, open + 1);
      unsigned offset = open[1 + n] == '+' ? (unsigned)strtoul(open + 2 + n, NULL, 10) : 0;
      unsigned size = param_size(params, name);
      if (offset + bytes > size)
         fprintf(stderr, "%s: %.*s reads %u bytes at %u of a %u-byte parameter\n", kernel,
                 (int)(close - p + 1), p, bytes, offset, size);
      assert_true(offset + bytes <= size);
      loads++;
   }
   assert_true(loads > 0);
   free(params);
   free(body);
}

/* By-value vectors of 8- and 16-bit elements: LLVM 19 loaded a char2
 * .param [2] as one u32 and took .y from bytes 2-3 (0 on the H100); they
 * are integer (or 32-bit word) parameters of the same size now. */
static void test_small_vector_args(void **state)
{
   (void)state;
   struct kiln_build_output out =
      build("kernel void sv(global char *o, char2 a, char3 b, char4 c, uchar2 d, short2 e,\n"
            "                 char8 f, char16 g, short3 h, ushort8 u)\n"
            "{\n"
            "   o[0] = a.x; o[1] = a.y; o[2] = b.x; o[3] = b.z; o[4] = c.x; o[5] = c.w;\n"
            "   o[6] = d.y; o[7] = e.y; o[8] = f.s7; o[9] = g.sf; o[10] = h.z; o[11] = u.s5;\n"
            "}\n",
            "");
   const char *ptx = out.object;
   static const char *const params[] = {".u64", ".u16", ".u32", ".u32", ".u16", ".u32",
                                        ".u64", ".b8 [16]", ".u64", ".b8 [16]",
                                        ".u64", ".u64", ".u64", ".u32"};
   expect_params(ptx, "sv", params, 14);
   expect_param_loads_in_bounds(ptx, "sv");
   /* The argument buffer core lays out is unchanged. */
   const struct kiln_kernel_info *k = kernel(&out, "sv");
   expect_arg(k, 1, KILN_ARG_VALUE, 2, 8);
   expect_arg(k, 2, KILN_ARG_VALUE, 4, 12);
   expect_arg(k, 4, KILN_ARG_VALUE, 2, 20);
   expect_arg(k, 7, KILN_ARG_VALUE, 16, 48);
   expect_arg(k, 8, KILN_ARG_VALUE, 8, 64);
   check_ptxas(&out, "sm_90");
   kiln_build_output_fini(&out);

   /* Not inlined: the body still gets the vectors. */
   out = build("kernel void sv2(global char *o, char2 a) { o[0] = a.x; o[1] = a.y; }\n",
               "-cl-opt-disable");
   static const char *const p2[] = {".u64", ".u16", ".u64", ".u64", ".u64", ".u32"};
   expect_params(out.object, "sv2", p2, 6);
   expect_param_loads_in_bounds(out.object, "sv2");
   check_ptxas(&out, "sm_90");
   kiln_build_output_fini(&out);
}

/* §6.12.1: sizes and group counts of a dimension >= 3 are 1 (libclc's
 * were 0).  Constant indices fold: the store lands at 1 + 2 + 4 + 8 ints
 * (0 + 0 + 0 + 0 before). */
static void test_sizes_beyond_dims(void **state)
{
   (void)state;
   struct kiln_build_output out =
      build("kernel void sz(global int *o, uint d)\n"
            "{\n"
            "   o[get_local_size(3) + 2 * get_global_size(4) + 4 * get_num_groups(3)\n"
            "     + 8 * (get_local_id(3) + 1)\n"
            "     + get_group_id(4) + get_global_id(3) + get_global_offset(6)] = 1;\n"
            "   o[64 + get_global_id(0)] = get_local_size(d) + get_global_size(d)\n"
            "                             + get_num_groups(d);\n"
            "}\n",
            "");
   const char *ptx = out.object;
   char *body = function_text(ptx, "sz");
   if (!strstr(body, "+60], "))
      fprintf(stderr, "no store at [o+60] in:\n%s\n", body);
   assert_non_null(strstr(body, "+60], "));
   free(body);
   check_ptxas(&out, "sm_90");
   kiln_build_output_fini(&out);
}

/* §7.5.1: odd functions keep the sign of a zero (libclc's nvptx sin(-0)
 * was +0 on the H100).  With a constant -0 the whole call folds away. */
static void test_signed_zeros(void **state)
{
   (void)state;
   struct kiln_build_output out =
      build("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
            "kernel void sz(global float *o, global double *d)\n"
            "{\n"
            "   o[0] = sin(-0.0f);\n"
            "   d[0] = sin(-0.0);\n"
            "   o[1] = tan(o[2]) + erf(o[3]) + expm1(o[4]);\n"
            "}\n",
            "");
   const char *ptx = out.object;
   char *body = function_text(ptx, "sz");
   /* The stored -0 constants (float and double bit patterns). */
   assert_non_null(strstr(body, "-2147483648"));
   assert_non_null(strstr(body, "-9223372036854775808"));
   /* The runtime calls compare their argument with zero. */
   assert_non_null(strstr(body, "setp.eq.f32"));
   free(body);
   check_ptxas(&out, "sm_90");
   kiln_build_output_fini(&out);

   out = build("kernel void s(global float *o) { o[0] = sin(-0.0f); }\n", "");
   body = function_text(out.object, "s");
   /* Nothing of the polynomial is left: the result is the constant. */
   assert_null(strstr(body, "fma.rn"));
   assert_non_null(strstr(body, "-2147483648"));
   free(body);
   kiln_build_output_fini(&out);
}

/* Built-ins libclc's nvptx library lacks (undefined functions before):
 * mad_hi of every integer type, smoothstep with scalar double edges. */
static void test_missing_builtins(void **state)
{
   (void)state;
   struct kiln_build_output out =
      build("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
            "kernel void mh(global int *i, global uint *u, global long4 *l, global uchar16 *c,\n"
            "               global ulong *m, global short2 *s, global double4 *d)\n"
            "{\n"
            "   i[0] = mad_hi(i[1], i[2], i[3]);\n"
            "   u[0] = mad_hi(u[1], u[2], u[3]);\n"
            "   l[0] = mad_hi(l[1], l[2], l[3]);\n"
            "   c[0] = mad_hi(c[1], c[2], c[3]);\n"
            "   m[0] = mad_hi(m[1], m[2], m[3]);\n"
            "   s[0] = mad_hi(s[1], s[2], s[3]);\n"
            "   d[0] = smoothstep(0.5, 2.0, d[1]);\n"
            "}\n",
            "");
   const char *ptx = out.object;
   assert_non_null(strstr(ptx, "mul.hi.s32"));
   assert_non_null(strstr(ptx, "mul.hi.u32"));
   assert_non_null(strstr(ptx, "mul.hi.s64"));
   assert_non_null(strstr(ptx, "mul.hi.u64"));
   check_ptxas(&out, "sm_90");
   kiln_build_output_fini(&out);
}

/* The 3-component async copies and prefetch, which libclc 19 lacks
 * (the CTS's basic async_copy/prefetch tests), come from Kiln's async.cl:
 * each work-item copies its share (a loop striding by the group size),
 * in T4-sized steps, and nothing is left undefined. */
static void test_async_vec3(void **state)
{
   (void)state;
   struct kiln_build_output out =
      build("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
            "kernel void a3(global const char3 *src, global char3 *dst, local char3 *l,\n"
            "               global double3 *d, local double3 *ld, int n)\n"
            "{\n"
            "   event_t e = async_work_group_copy(l, src, (size_t)n, 0);\n"
            "   wait_group_events(1, &e);\n"
            "   e = async_work_group_strided_copy(dst, l, (size_t)n, 3, 0);\n"
            "   e = async_work_group_strided_copy(ld, d, (size_t)n, 2, e);\n"
            "   e = async_work_group_copy(d, ld, (size_t)n, e);\n"
            "   wait_group_events(1, &e);\n"
            "   prefetch(src, 4);\n"
            "   prefetch(d, 4);\n"
            "}\n",
            "");
   const char *ptx = out.object;
   assert_null(strstr(ptx, "async_work_group"));
   assert_null(strstr(ptx, "prefetch"));
   assert_non_null(strstr(ptx, "%ntid.x")); /* the group size it strides by */
   check_ptxas(&out, "sm_90");
   kiln_build_output_fini(&out);
}

/* Relational operators on short2/ushort2 (-1 or 0 per lane): LLVM 19's
 * code generator has no pattern for the v2i16 compare it would form
 * ("Cannot select: v2i16 = setcc"); Kiln compares lane by lane. */
static void test_short2_compares(void **state)
{
   (void)state;
   struct kiln_build_output out =
      build("kernel void c(global short2 *a, global ushort2 *u, global short2 *o)\n"
            "{\n"
            "   size_t i = get_global_id(0);\n"
            "   o[3 * i] = !a[i];\n"
            "   o[3 * i + 1] = u[i] < u[i + 1];\n"
            "   o[3 * i + 2] = a[i] >= a[i + 1];\n"
            "}\n",
            "");
   const char *ptx = out.object;
   assert_non_null(strstr(ptx, "setp.eq.s16"));
   assert_non_null(strstr(ptx, "setp.lt.u16"));
   assert_non_null(strstr(ptx, "setp.ge.s16"));
   check_ptxas(&out, "sm_90");
   kiln_build_output_fini(&out);
}

/* Images are Kiln's image functions over a descriptor (image.cl for
 * nvptx64, linked before libclc): kernels with every kind of image and
 * sampler build, and nothing is left undefined. */
static void test_images(void **state)
{
   (void)state;
   struct kiln_compile_target t = cl12;
   t.image_support = true;
   static const char src[] =
      "const sampler_t lin = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;\n"
      "kernel void img(read_only image2d_t a, write_only image2d_t b, sampler_t s,\n"
      "                read_only image3d_t c, read_only image1d_buffer_t d,\n"
      "                read_only image2d_array_t e, global float4 *o)\n"
      "{\n"
      "   int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
      "   float4 v = read_imagef(a, s, p) + read_imagef(a, lin, (float2)(0.25f, 0.5f));\n"
      "   v += read_imagef(c, s, (int4)(p, 1, 0)) + read_imagef(d, p.x);\n"
      "   v += read_imagef(e, s, (float4)(0.5f, 0.5f, 1.0f, 0.0f));\n"
      "   write_imagef(b, p, v);\n"
      "   write_imageui(b, p, read_imageui(a, s, p));\n"
      "   o[0] = (float4)(get_image_width(a), get_image_height(c), get_image_depth(c),\n"
      "                   get_image_array_size(e));\n"
      "}\n";
   struct kiln_build_output out = {0};
   assert_int_equal(kiln_llvm_build(src, sizeof(src) - 1, "", &t, &out), KILN_BUILD_OK);
   const struct kiln_kernel_info *k = kernel(&out, "img");
   assert_int_equal(k->args[0].kind, KILN_ARG_IMAGE2D);
   assert_int_equal(k->args[2].kind, KILN_ARG_SAMPLER);
   assert_int_equal(k->args[3].kind, KILN_ARG_IMAGE3D);
   /* An image is the address of its descriptor. */
   assert_int_equal(k->args[0].size, 8);
   const char *ptx = out.object;
   assert_null(strstr(ptx, "read_image"));
   assert_null(strstr(ptx, ".extern .func"));
   check_ptxas(&out, "sm_90");
   kiln_build_output_fini(&out);
}

/* libclc-19's saturating conversions from floating point give INT_MIN and
 * worse for NaN, and its rounded integer-to-float ones are a step off:
 * LLVM's fpto[su]i.sat and PTX's cvt.r[zmp] replace them. */
static void test_conversions(void **state)
{
   (void)state;
   struct kiln_build_output out =
      build("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
            "kernel void cv(global float *f, global int *i, global uint *u, global long *l,\n"
            "               global double *d, global ulong *m)\n"
            "{\n"
            "   i[0] = convert_int_sat(NAN) + 77;\n"
            "   l[0] = convert_long_sat_rtp(d[0]);\n"
            "   f[1] = convert_float_rtz(i[1]);\n"
            "   f[2] = convert_float_rtn(u[2]);\n"
            "   float2 v = convert_float2_rtp(l[3] ? (long2)(l[4], l[5]) : (long2)(1, 2));\n"
            "   f[3] = v.x + v.y;\n"
            "   d[1] = convert_double_rtz(m[0]);\n"
            "   f[4] = convert_float_rtn(d[2]);\n"
            "}\n",
            "");
   const char *ptx = out.object;
   if (!strstr(ptx, "cvt.rz.f64.u64"))
      fprintf(stderr, "%s\n", ptx);
   assert_non_null(strstr(ptx, ", 77;")); /* NaN saturates to 0 */
   assert_non_null(strstr(ptx, "cvt.rpi.f64.f64"));
   assert_non_null(strstr(ptx, "cvt.rz.f32.s32"));
   assert_non_null(strstr(ptx, "cvt.rm.f32.u32"));
   assert_non_null(strstr(ptx, "cvt.rp.f32.s64"));
   assert_non_null(strstr(ptx, "cvt.rz.f64.u64"));
   assert_non_null(strstr(ptx, "cvt.rm.f32.f64"));
   check_ptxas(&out, "sm_90");
   kiln_build_output_fini(&out);
}

/* vload16 of char at an address that is not a multiple of 4: LLVM's
 * code generator made it one ld.v4.u32 (an illegal address on the GPU). */
static void test_unaligned_byte_vectors(void **state)
{
   (void)state;
   struct kiln_build_output out =
      build("kernel void v(global char *in, global char16 *out, local uchar *l)\n"
            "{\n"
            "   out[0] = vload16(0, in + 1);\n"
            "   l[get_local_id(0)] = in[2];\n"
            "   barrier(CLK_LOCAL_MEM_FENCE);\n"
            "   out[1] = as_char16(vload16(0, l + 3));\n"
            "}\n",
            "");
   const char *ptx = out.object;
   if (strstr(ptx, ".v4.u32\t{") || strstr(ptx, ".v4.b32\t{"))
      fprintf(stderr, "%s\n", ptx);
   assert_null(strstr(ptx, "ld.global.v4.u32"));
   assert_null(strstr(ptx, "ld.shared.v4.u32"));
   assert_null(strstr(ptx, "ld.global.v4.b32"));
   assert_null(strstr(ptx, "ld.shared.v4.b32"));
   check_ptxas(&out, "sm_90");
   kiln_build_output_fini(&out);
}

/* libclc-19 saturates 0 - INT_MIN to INT_MIN and gets mad_sat(long) wrong
 * near the limits: Kiln's definitions replace them (folded here). */
static void test_saturation(void **state)
{
   (void)state;
   struct kiln_build_output out =
      build("kernel void sat(global int *i, global long *l, global ulong *u)\n"
            "{\n"
            "   i[0] = sub_sat(0, (int)0x80000000);\n"
            "   l[0] = mad_sat(-1L, 0L, -9223372036854775807L);\n"
            "   l[1] = mad_sat(3037000500L, 3037000500L, -9000000000000000000L);\n"
            "   u[0] = mad_sat(0x10000000000UL, 0x1000000UL, 0UL);\n"
            "}\n",
            "");
   const char *ptx = out.object;
   if (!strstr(ptx, "2147483647"))
      fprintf(stderr, "%s\n", ptx);
   assert_non_null(strstr(ptx, "2147483647"));
   assert_non_null(strstr(ptx, "-9223372036854775807"));
   /* 3037000500^2 overflows a long, the sum does not. */
   assert_non_null(strstr(ptx, "223372037000250000"));
   assert_true(strstr(ptx, "-1;") || strstr(ptx, "18446744073709551615")); /* 2^64: ULONG_MAX */
   kiln_build_output_fini(&out);
}

/* Build options reach the front end as for amdgcn; -Werror does not turn
 * the libclc triple difference into an error. */
static void test_options(void **state)
{
   (void)state;
   struct kiln_build_output out =
      build("kernel void k(global float *o, float a)\n"
            "{\n"
            "#ifndef SCALE\n"
            "#error SCALE undefined\n"
            "#endif\n"
            "   o[get_global_id(0)] = a * SCALE / o[1];\n"
            "}\n",
            "-Werror -DSCALE=3.0f -cl-fast-relaxed-math -cl-denorms-are-zero");
   assert_string_equal(out.log, "");
   assert_non_null(strstr(out.object, ".ftz.f32"));
   check_ptxas(&out, "sm_90");
   kiln_build_output_fini(&out);
}

/* Every sm the table lists compiles; newer-than-LLVM ones get sm_90 PTX. */
static void test_targets(void **state)
{
   (void)state;
   const char *src = "kernel void k(global int *o) { o[get_global_id(0)] = 1; }\n";
   for (unsigned i = 0; kiln_nvptx_target_at(i); i++) {
      const struct kiln_nvptx_target *t = kiln_nvptx_target_at(i);
      assert_ptr_equal(kiln_nvptx_target_find(t->sm), t);
      struct kiln_build_output out = build_sm(src, "", t->sm, KILN_BUILD_OK);
      char want[64];
      snprintf(want, sizeof(want), ".target %s\n", t->llvm_cpu);
      assert_non_null(strstr(out.object, want));
      snprintf(want, sizeof(want), ".version %u.%u\n", t->ptx / 10, t->ptx % 10);
      assert_non_null(strstr(out.object, want));
      /* For the device's own sm: an sm_90 PTX must compile for sm_120. */
      check_ptxas(&out, t->sm);
      kiln_build_output_fini(&out);
   }
   const struct kiln_nvptx_target *b = kiln_nvptx_target_find("sm_120");
   assert_non_null(b);
   assert_string_equal(b->llvm_cpu, "sm_90");
   char name[16];
   kiln_nvptx_sm_name(9, 0, name, sizeof(name));
   assert_string_equal(name, "sm_90");
   assert_null(kiln_nvptx_target_find("sm_91"));
}

/* clCompileProgram + clLinkProgram: two objects, one calling the other's
 * function, give the PTX one build would, with the same target id; a
 * symbol no input defines is a link error. */
static void test_compile_link(void **state)
{
   (void)state;
   static const char lib_src[] = "float twice(float x) { return x * x + 0.5f; }\n";
   static const char main_src[] =
      "float twice(float x);\n"
      "kernel void use(global float *o) { o[get_global_id(0)] = twice(o[0]); }\n";
   struct kiln_build_output lib, main_obj, linked;
   assert_int_equal(kiln_llvm_compile(lib_src, strlen(lib_src), "", NULL, 0, &cl12, &lib),
                    KILN_BUILD_OK);
   assert_int_equal(
      kiln_llvm_compile(main_src, strlen(main_src), "", NULL, 0, &cl12, &main_obj),
      KILN_BUILD_OK);
   assert_string_equal(lib.target_id, "nvptx:" KILN_NVPTX_TRIPLE ":sm_90:+ptx78");
   assert_null(lib.object);
   struct kiln_bitcode in[2] = {{.data = lib.bitcode, .size = lib.bitcode_size},
                                {.data = main_obj.bitcode, .size = main_obj.bitcode_size}};
   enum kiln_build_status st = kiln_llvm_link(in, 2, "", &cl12, &linked);
   if (st)
      fprintf(stderr, "%s\n", linked.log);
   assert_int_equal(st, KILN_BUILD_OK);
   assert_string_equal(linked.target_id, lib.target_id);
   static const char *const params[] = {".u64", ".u64", ".u64", ".u64", ".u32"};
   expect_params(linked.object, "use", params, 5);
   assert_int_equal(strlen(linked.object), linked.object_size);
   /* The library's function is inlined into the entry. */
   assert_non_null(strstr(linked.object, "fma.rn.f32"));
   assert_null(strstr(linked.object, ".func"));
   assert_int_equal(linked.num_kernels, 1);
   check_ptxas(&linked, "sm_90");
   kiln_build_output_fini(&linked);

   /* Without the library, twice() is unresolved. */
   assert_int_equal(kiln_llvm_link(in + 1, 1, "", &cl12, &linked), KILN_BUILD_FAILED);
   if (!strstr(linked.log, "unresolved symbol 'twice'"))
      fprintf(stderr, "%s\n", linked.log);
   assert_non_null(strstr(linked.log, "unresolved symbol 'twice'"));
   assert_null(linked.object);
   kiln_build_output_fini(&linked);
   kiln_build_output_fini(&lib);
   kiln_build_output_fini(&main_obj);
}

/* The target id names the PTX, not the device: a Blackwell (sm_120) gets
 * sm_90's PTX, so the two share binaries and cache entries; sm_90a's
 * arch-specific PTX is its own. */
static void test_target_ids(void **state)
{
   (void)state;
   struct kiln_compile_target t = cl12;
   char *id = NULL;
   t.processor = "sm_120";
   assert_int_equal(kiln_llvm_target_id(&t, &id), KILN_BUILD_OK);
   assert_string_equal(id, "nvptx:" KILN_NVPTX_TRIPLE ":sm_90:+ptx78");
   free(id);
   t.processor = "sm_90a";
   assert_int_equal(kiln_llvm_target_id(&t, &id), KILN_BUILD_OK);
   assert_string_equal(id, "nvptx:" KILN_NVPTX_TRIPLE ":sm_90a:+ptx80");
   free(id);
   t.processor = "sm_86";
   assert_int_equal(kiln_llvm_target_id(&t, &id), KILN_BUILD_OK);
   assert_string_equal(id, "nvptx:" KILN_NVPTX_TRIPLE ":sm_86:+ptx78");
   free(id);
   t.processor = "sm_91";
   assert_int_equal(kiln_llvm_target_id(&t, &id), KILN_BUILD_FAILED);
   assert_null(id);
   /* The builtins id names libclc's nvptx64 file. */
   t.processor = "sm_90";
   char *b = kiln_llvm_builtins_id(&t);
   assert_non_null(b);
   assert_non_null(strstr(b, "nvptx64--nvidiacl.bc"));
   free(b);
}

/* KILN_DUMP keeps an nvptx build's files, the PTX as .ptx. */
static void test_dump(void **state)
{
   (void)state;
   char dir[] = "/tmp/kiln-nvptx-dump-XXXXXX";
   assert_non_null(mkdtemp(dir));
   setenv("KILN_DUMP", dir, 1);
   struct kiln_build_output out =
      build("kernel void d(global int *o) { o[get_global_id(0)] = 3; }\n", "");
   unsetenv("KILN_DUMP");
   const char *want[] = {".cl", ".ll", ".opt.ll", ".ptx", ".log"};
   bool seen[5] = {false};
   char ptx[4096] = "";
   DIR *d = opendir(dir);
   assert_non_null(d);
   for (struct dirent *e; (e = readdir(d));) {
      const char *dot = strchr(e->d_name, '.');
      for (int i = 0; dot && i < 5; i++)
         if (!strcmp(dot, want[i])) {
            seen[i] = true;
            if (i == 3)
               snprintf(ptx, sizeof(ptx), "%s/%s", dir, e->d_name);
         }
   }
   closedir(d);
   for (int i = 0; i < 5; i++) {
      if (!seen[i])
         fprintf(stderr, "no kiln-*%s in %s\n", want[i], dir);
      assert_true(seen[i]);
   }
   /* The .ptx file is the object, byte for byte. */
   FILE *f = fopen(ptx, "rb");
   assert_non_null(f);
   char *text = calloc(1, out.object_size + 2);
   assert_non_null(text);
   assert_int_equal(fread(text, 1, out.object_size + 1, f), out.object_size);
   fclose(f);
   assert_string_equal(text, out.object);
   assert_non_null(strstr(text, ".entry d("));
   free(text);
   kiln_build_output_fini(&out);
   char cmd[128];
   snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
   assert_int_equal(system(cmd), 0);
}

/* The bytes of the PTX global `name` (".b8 name[N] = {1, 2, ...}"). */
static unsigned char *ptx_bytes(const char *ptx, const char *name, size_t *size)
{
   char head[256];
   snprintf(head, sizeof(head), "%s[", name);
   const char *p = strstr(ptx, head);
   if (!p)
      fprintf(stderr, "no global %s in:\n%s\n", name, ptx);
   assert_non_null(p);
   char *end;
   unsigned long n = strtoul(p + strlen(head), &end, 10);
   assert_true(n > 0);
   p = strchr(end, '{');
   assert_non_null(p);
   unsigned char *b = calloc(1, n);
   assert_non_null(b);
   /* LLVM leaves out trailing zeros: they are the calloc's. */
   for (unsigned long i = 0; i < n && *p != '}'; i++) {
      b[i] = (unsigned char)strtoul(p + 1, &end, 10);
      assert_true(end != p + 1);
      p = end;
   }
   assert_int_equal(*p, '}');
   *size = n;
   return b;
}

static bool has_bytes(const unsigned char *b, size_t n, const char *s)
{
   size_t len = strlen(s) + 1; /* with its NUL */
   for (size_t i = 0; i + len <= n; i++)
      if (!memcmp(b + i, s, len))
         return true;
   return false;
}

/* printf: records appended to the buffer of a fifth hidden parameter with
 * one 64-bit atomic add, the format table a global the driver finds by
 * name; no vprintf, nothing unresolved, and ptxas takes it, optimised or
 * not. */
static void test_printf(void **state)
{
   (void)state;
   static const char src[] =
      "kernel void p(global float4 *v, int n)\n"
      "{\n"
      "   printf(\"n=%d f=%f\\n\", n, v[0].x);\n"
      "   printf(\"%v4f|%s|%v2hhd|%ld\\n\", v[1], \"lit\", (char2)(1, -2), (long)n);\n"
      "}\n"
      "kernel void q(global int *o) { o[get_global_id(0)] = 1; }\n";
   const char *const options[] = {"", "-cl-opt-disable"};
   for (unsigned o = 0; o < 2; o++) {
      struct kiln_build_output out = build(src, options[o]);
      const char *ptx = out.object;
      static const char *const p_params[] = {".u64", ".u32", ".u64", ".u64",
                                             ".u64", ".u32", ".u64"};
      expect_params(ptx, "p", p_params, 7);
      /* Every kernel of a printing program gets the parameter. */
      static const char *const q_params[] = {".u64", ".u64", ".u64", ".u64", ".u32", ".u64"};
      expect_params(ptx, "q", q_params, 6);
      assert_null(strstr(ptx, "vprintf"));
      assert_null(strstr(ptx, "printf,"));
      assert_null(strstr(ptx, ".extern .func"));
      assert_non_null(strstr(ptx, "atom.add.u64") ? strstr(ptx, "atom.add.u64")
                                                   : strstr(ptx, "atom.global.add.u64"));
      if (!o) {
         char *body = function_text(ptx, "p");
         assert_non_null(strstr(body, "[p_param_6]")); /* the buffer, read */
         free(body);
      }
      assert_non_null(strstr(ptx, ".visible .global .align 8 .b8 " KILN_PRINTF_TABLE_SYM "["));
      size_t n;
      unsigned char *t = ptx_bytes(ptx, KILN_PRINTF_TABLE_SYM, &n);
      const struct kiln_printf_table *table = (const void *)t;
      assert_true(n >= sizeof(*table));
      assert_int_equal(table->magic, KILN_PRINTF_TABLE_MAGIC);
      assert_int_equal(table->size, n);
      assert_int_equal(table->num_entries, 3); /* two formats and "lit" */
      assert_true(has_bytes(t, n, "n=%d f=%f\n"));
      assert_true(has_bytes(t, n, "%v4f|%s|%v2hhd|%ld\n"));
      assert_true(has_bytes(t, n, "lit"));
      free(t);
      check_ptxas(&out, "sm_90");
      kiln_build_output_fini(&out);
   }
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_saxpy),
      cmocka_unit_test(test_async_vec3),
      cmocka_unit_test(test_short2_compares),
      cmocka_unit_test(test_local_args),
      cmocka_unit_test(test_local_args_unoptimized),
      cmocka_unit_test(test_offset_and_work_dim),
      cmocka_unit_test(test_double_and_atomics64),
      cmocka_unit_test(test_libclc_fixes),
      cmocka_unit_test(test_constant),
      cmocka_unit_test(test_constant_text),
      cmocka_unit_test(test_values_and_attributes),
      cmocka_unit_test(test_refusals),
      cmocka_unit_test(test_printf),
      cmocka_unit_test(test_options),
      cmocka_unit_test(test_native_math),
      cmocka_unit_test(test_small_vector_args),
      cmocka_unit_test(test_sizes_beyond_dims),
      cmocka_unit_test(test_signed_zeros),
      cmocka_unit_test(test_missing_builtins),
      cmocka_unit_test(test_images),
      cmocka_unit_test(test_saturation),
      cmocka_unit_test(test_unaligned_byte_vectors),
      cmocka_unit_test(test_conversions),
      cmocka_unit_test(test_targets),
      cmocka_unit_test(test_compile_link),
      cmocka_unit_test(test_target_ids),
      cmocka_unit_test(test_dump),
      cmocka_unit_test(test_cl30_atomics),
   };
   return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
