/* Program binaries (OpenCL 1.1 §5.6.1 clCreateProgramWithBinary, §5.6.5
 * CL_PROGRAM_BINARIES): a binary round trip gives the same kernels and
 * results; malformed binaries of every kind give CL_INVALID_BINARY (or, for
 * corrupt device code, a failed build), never a crash.  The container is
 * include/kiln/binary_format.h. */
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kk.h"

extern char **environ;

static const char *source =
   "__constant int table[4] = {3, 5, 7, 11};\n"
   "int helper(int x) { return x * table[x & 3]; }\n"
   "__kernel void first(__global int *o, int add)\n"
   "{ int i = get_global_id(0); o[i] = helper(i) + add; }\n"
   "__kernel __attribute__((reqd_work_group_size(8, 1, 1)))\n"
   "void second(__global const float *in, __global float *o, __local float *tmp)\n"
   "{\n"
   "  __local float stat[8];\n"
   "  int l = get_local_id(0), g = get_global_id(0);\n"
   "  tmp[l] = in[g]; stat[l] = in[g] * 2.0f;\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  o[g] = tmp[7 - l] + stat[l];\n"
   "}\n";

#define N 64

static unsigned char *get_binary(cl_program p, size_t *size)
{
   size_t sz = 0;
   REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(sz), &sz, NULL));
   REQUIRE(sz > 0);
   unsigned char *bin = malloc(sz);
   REQUIRE(bin);
   unsigned char *bins[1] = {bin};
   REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bins), bins, NULL));
   *size = sz;
   return bin;
}

/* Runs both kernels of the program and checks their results. */
static void run_program(const struct kt_env *env, cl_program p, const char *what)
{
   cl_kernel k1 = kk_kernel(p, "first"), k2 = kk_kernel(p, "second");
   cl_int out[N];
   cl_float in[N], fo[N];
   for (int i = 0; i < N; i++)
      in[i] = (float)i * 0.5f;
   cl_mem m = kk_buffer_in(env, sizeof(out), NULL);
   cl_mem fin = kk_buffer_in(env, sizeof(in), in), fout = kk_buffer_in(env, sizeof(fo), NULL);
   cl_int add = 1000;
   KK_ARG(k1, 0, m);
   KK_ARG(k1, 1, add);
   size_t n = N, l = 8;
   KK_RUN(env, k1, 1, NULL, &n, NULL);
   kk_read(env, m, sizeof(out), out);
   static const int table[4] = {3, 5, 7, 11};
   for (int i = 0; i < N; i++)
      CHECK(out[i] == i * table[i & 3] + 1000, " %s: first: out[%d] = %d", what, i, out[i]);
   KK_ARG(k2, 0, fin);
   KK_ARG(k2, 1, fout);
   KK_LOCAL(k2, 2, 8 * sizeof(float));
   KK_RUN(env, k2, 1, NULL, &n, &l);
   kk_read(env, fout, sizeof(fo), fo);
   for (int i = 0; i < N; i++) {
      int base = i & ~7, li = i & 7;
      float want = in[base + 7 - li] + in[i] * 2.0f;
      CHECK(fo[i] == want, " %s: second: out[%d] = %g, expected %g", what, i, fo[i], want);
   }
   /* Metadata survives: the required work-group size and __local usage. */
   size_t cwgs[3] = {0, 0, 0};
   CHECK_OK(clGetKernelWorkGroupInfo(k2, env->device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                     sizeof(cwgs), cwgs, NULL));
   CHECK(cwgs[0] == 8 && cwgs[1] == 1 && cwgs[2] == 1, " %s: reqd size %zux%zux%zu", what,
         cwgs[0], cwgs[1], cwgs[2]);
   cl_ulong lm = 0;
   CHECK_OK(clGetKernelWorkGroupInfo(k2, env->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(lm), &lm,
                                     NULL));
   CHECK(lm >= 64, " %s: local mem %llu < 8 floats static + 8 floats argument", what,
         (unsigned long long)lm);
   cl_uint nargs = 0;
   CHECK_OK(clGetKernelInfo(k2, CL_KERNEL_NUM_ARGS, sizeof(nargs), &nargs, NULL));
   CHECK(nargs == 3);
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseMemObject(fin));
   CHECK_OK(clReleaseMemObject(fout));
   CHECK_OK(clReleaseKernel(k1));
   CHECK_OK(clReleaseKernel(k2));
}

/* Creates from a binary; returns the program or NULL, the error and the
 * binary status through the pointers. */
static cl_program from_binary(const struct kt_env *env, const unsigned char *bin, size_t size,
                              cl_int *err, cl_int *status)
{
   *status = 12345;
   *err = 12345;
   return clCreateProgramWithBinary(env->context, 1, &env->device, &size, &bin, status, err);
}

static void round_trip(const struct kt_env *env)
{
   cl_program p = kk_build(env, source, "-DUNUSED_MACRO=1");
   run_program(env, p, "from source");
   size_t size;
   unsigned char *bin = get_binary(p, &size);

   cl_int err, st;
   cl_program q = from_binary(env, bin, size, &err, &st);
   CHECK(q && err == CL_SUCCESS, " clCreateProgramWithBinary: %s", kt_err_name(err));
   CHECK(st == CL_SUCCESS, " binary_status %s", kt_err_name(st));
   REQUIRE(q);
   /* Not executable before clBuildProgram (1.1). */
   cl_int e2 = 0;
   CHECK(!clCreateKernel(q, "first", &e2));
   CHECK_ERR(e2, CL_INVALID_PROGRAM_EXECUTABLE);
   CHECK_OK(clBuildProgram(q, 1, &env->device, NULL, NULL, NULL));
   CHECK(kk_build_status(q, env->device) == CL_BUILD_SUCCESS);
   run_program(env, q, "from binary");
   cl_uint nk = 0;
   CHECK_OK(clCreateKernelsInProgram(q, 0, NULL, &nk));
   CHECK(nk == 2, " %u kernels in the program from a binary", nk);
   cl_uint ndev = 0;
   CHECK_OK(clGetProgramInfo(q, CL_PROGRAM_NUM_DEVICES, sizeof(ndev), &ndev, NULL));
   CHECK(ndev == 1);

   /* The binary of the binary is the same binary. */
   size_t size2;
   unsigned char *bin2 = get_binary(q, &size2);
   CHECK(size2 == size, " binary of a binary: %zu bytes, original %zu", size2, size);
   if (size2 == size)
      CHECK(kt_same(bin2, bin, size, "binary of a binary"));
   free(bin2);

   /* A second build of the binary program works and runs again. */
   CHECK_OK(clBuildProgram(q, 0, NULL, NULL, NULL, NULL));
   run_program(env, q, "from binary, built twice");
   CHECK_OK(clReleaseProgram(q));

   /* The binary outlives its source program and works in a new context. */
   CHECK_OK(clReleaseProgram(p));
   cl_context ctx2 = kt_context(env);
   struct kt_env env2 = *env;
   env2.context = ctx2;
   env2.queue = kt_queue(env, ctx2, 0);
   const unsigned char *cbin = bin;
   q = clCreateProgramWithBinary(ctx2, 1, &env->device, &size, &cbin, NULL, &err);
   CHECK(q && err == CL_SUCCESS, " binary in a second context: %s", kt_err_name(err));
   if (q) {
      CHECK_OK(clBuildProgram(q, 0, NULL, NULL, NULL, NULL));
      run_program(&env2, q, "from binary in a second context");
      CHECK_OK(clReleaseProgram(q));
   }
   CHECK_OK(clReleaseCommandQueue(env2.queue));
   CHECK_OK(clReleaseContext(ctx2));
   free(bin);
}

static void create_errors(const struct kt_env *env, const unsigned char *bin, size_t size)
{
   cl_int err, st[1];
   CHECK(!clCreateProgramWithBinary(env->context, 0, &env->device, &size, &bin, st, &err));
   CHECK_ERR(err, CL_INVALID_VALUE);
   CHECK(!clCreateProgramWithBinary(env->context, 1, NULL, &size, &bin, st, &err));
   CHECK_ERR(err, CL_INVALID_VALUE);
   CHECK(!clCreateProgramWithBinary(env->context, 1, &env->device, NULL, &bin, st, &err));
   CHECK_ERR(err, CL_INVALID_VALUE);
   CHECK(!clCreateProgramWithBinary(env->context, 1, &env->device, &size, NULL, st, &err));
   CHECK_ERR(err, CL_INVALID_VALUE);
   const unsigned char *nullbin = NULL;
   st[0] = 12345;
   CHECK(!clCreateProgramWithBinary(env->context, 1, &env->device, &size, &nullbin, st, &err));
   CHECK_ERR(err, CL_INVALID_VALUE);
   CHECK(st[0] == CL_INVALID_VALUE, " binary_status %s for a NULL binary", kt_err_name(st[0]));
   size_t zero = 0;
   st[0] = 12345;
   CHECK(!clCreateProgramWithBinary(env->context, 1, &env->device, &zero, &bin, st, &err));
   CHECK_ERR(err, CL_INVALID_VALUE);
   CHECK(st[0] == CL_INVALID_VALUE, " binary_status %s for length 0", kt_err_name(st[0]));
   cl_device_id bogus = (cl_device_id)(uintptr_t)&err;
   CHECK(!clCreateProgramWithBinary(env->context, 1, &bogus, &size, &bin, st, &err));
   CHECK_ERR(err, CL_INVALID_DEVICE);
   CHECK(!clCreateProgramWithBinary(NULL, 1, &env->device, &size, &bin, st, &err));
   CHECK_ERR(err, CL_INVALID_CONTEXT);
}

/* A binary that must be rejected at creation. */
static void expect_invalid(const struct kt_env *env, const unsigned char *bin, size_t size,
                           const char *what)
{
   cl_int err, st;
   cl_program p = from_binary(env, bin, size, &err, &st);
   if (p || err != CL_INVALID_BINARY || st != CL_INVALID_BINARY) {
      KT_FAIL("%s: program %p, errcode %s, binary_status %s; expected NULL and "
              "CL_INVALID_BINARY twice", what, (void *)p, kt_err_name(err), kt_err_name(st));
      if (p)
         clReleaseProgram(p);
   }
}

static uint32_t rd32(const unsigned char *p)
{
   return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const unsigned char *p)
{
   return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}
static void wr32(unsigned char *p, uint32_t v)
{
   for (int i = 0; i < 4; i++)
      p[i] = (unsigned char)(v >> (8 * i));
}
static void wr64(unsigned char *p, uint64_t v)
{
   wr32(p, (uint32_t)v);
   wr32(p + 4, (uint32_t)(v >> 32));
}

struct section {
   uint32_t type;
   size_t header; /* offset of the section header */
   size_t data;
   uint64_t size;
};

static int sections(const unsigned char *bin, size_t size, struct section *out, int max)
{
   REQUIRE(size >= 16 && !memcmp(bin, "KILNBIN", 8));
   uint32_t n = rd32(bin + 12);
   size_t pos = 16;
   int k = 0;
   for (uint32_t i = 0; i < n && k < max; i++) {
      REQUIRE(pos + 16 <= size);
      out[k].type = rd32(bin + pos);
      out[k].header = pos;
      out[k].size = rd64(bin + pos + 8);
      out[k].data = pos + 16;
      pos += 16 + out[k].size;
      pos = (pos + 7) & ~(size_t)7;
      k++;
   }
   REQUIRE(pos == size, " sections end at %zu of %zu", pos, size);
   return k;
}

static const struct section *find(const struct section *s, int n, uint32_t type)
{
   for (int i = 0; i < n; i++)
      if (s[i].type == type)
         return &s[i];
   return NULL;
}

static void malformed(const struct kt_env *env, const unsigned char *bin, size_t size)
{
   unsigned char *b = malloc(size + 64);
   REQUIRE(b);
   char what[128];

   /* Random bytes, of many lengths; and random bytes behind a good magic. */
   for (unsigned seed = 1; seed <= 200; seed++) {
      size_t len = 1 + (seed * 7919u) % (size + 32);
      kt_fill(b, len, seed);
      snprintf(what, sizeof(what), "random bytes (%zu, seed %u)", len, seed);
      expect_invalid(env, b, len, what);
      if (len > 16) {
         memcpy(b, "KILNBIN", 8);
         wr32(b + 8, 1);
         snprintf(what, sizeof(what), "random bytes after a good header (%zu, seed %u)", len,
                  seed);
         expect_invalid(env, b, len, what);
      }
   }

   /* Every truncation of a real binary. */
   for (size_t len = 1; len < size; len++) {
      snprintf(what, sizeof(what), "binary truncated to %zu of %zu bytes", len, size);
      expect_invalid(env, bin, len, what);
   }

   /* Each byte of the magic and of the version flipped. */
   for (int i = 0; i < 12; i++) {
      memcpy(b, bin, size);
      b[i] ^= 0x20;
      snprintf(what, sizeof(what), "header byte %d flipped", i);
      expect_invalid(env, b, size, what);
   }
   memcpy(b, bin, size);
   wr32(b + 8, 1);
   expect_invalid(env, b, size, "version 1 (before checksums)");
   wr32(b + 8, 3);
   expect_invalid(env, b, size, "version 3");
   wr32(b + 8, 0);
   expect_invalid(env, b, size, "version 0");
   wr32(b + 8, 0xffffffffu);
   expect_invalid(env, b, size, "version 0xffffffff");

   struct section s[16];
   int ns = sections(bin, size, s, 16);
   REQUIRE(find(s, ns, 1) && find(s, ns, 4) && find(s, ns, 5),
           " a real binary has TARGET, OBJECT and KERNELS");

   /* Section counts: more than present, and enormous. */
   memcpy(b, bin, size);
   wr32(b + 12, (uint32_t)ns + 1);
   expect_invalid(env, b, size, "one section more than present");
   wr32(b + 12, 0xffffffffu);
   expect_invalid(env, b, size, "num_sections 0xffffffff");
   wr32(b + 12, 0);
   expect_invalid(env, b, size, "num_sections 0");

   /* Each section's size made huge, or one past the end. */
   static const uint64_t huge[] = {
      0xffffffffffffffffull, 0x8000000000000000ull, 0xfffffffffffffff0ull,
      0x100000000ull, 0xffffffffull,
   };
   for (int i = 0; i < ns; i++) {
      for (size_t h = 0; h < sizeof(huge) / sizeof(huge[0]); h++) {
         memcpy(b, bin, size);
         wr64(b + s[i].header + 8, huge[h]);
         snprintf(what, sizeof(what), "section %d (type %u) size 0x%llx", i, s[i].type,
                  (unsigned long long)huge[h]);
         expect_invalid(env, b, size, what);
      }
      memcpy(b, bin, size);
      wr64(b + s[i].header + 8, size - s[i].data + 1);
      snprintf(what, sizeof(what), "section %d (type %u) one byte past the end", i, s[i].type);
      expect_invalid(env, b, size, what);
   }

   /* A required section missing: its type changed to an unknown one. */
   static const uint32_t required[] = {1, 4, 5};
   for (int r = 0; r < 3; r++) {
      memcpy(b, bin, size);
      wr32(b + find(s, ns, required[r])->header, 99);
      snprintf(what, sizeof(what), "section type %u missing", required[r]);
      expect_invalid(env, b, size, what);
   }

   /* An object section of size 0. */
   {
      const struct section *o = find(s, ns, 4);
      size_t n = 0;
      memcpy(b, bin, o->header);
      n = o->header;
      wr32(b + n, 4);
      wr32(b + n + 4, 0);
      wr64(b + n + 8, 0);
      n += 16;
      size_t after = (o->data + o->size + 7) & ~(size_t)7;
      memcpy(b + n, bin + after, size - after);
      n += size - after;
      expect_invalid(env, b, n, "empty OBJECT section");
   }

   /* The target of another device. */
   {
      const struct section *t = find(s, ns, 1);
      REQUIRE(t->size > 0);
      memcpy(b, bin, size);
      b[t->data] ^= 0x01;
      expect_invalid(env, b, size, "TARGET of another CPU (first byte changed)");
      memcpy(b, bin, size);
      b[t->data + t->size - 1] ^= 0x01;
      expect_invalid(env, b, size, "TARGET of another CPU (last byte changed)");
   }

   /* The kernel table: every 4-byte word set to 0xffffffff in turn, which
    * hits the counts, string lengths and argument kinds/offsets.  Each is
    * either rejected or, where the word is an unchecked field, accepted
    * (then the program must still build or fail cleanly). */
   {
      const struct section *k = find(s, ns, 5);
      int accepted = 0;
      for (size_t off = 0; off + 4 <= k->size; off += 4) {
         memcpy(b, bin, size);
         wr32(b + k->data + off, 0xffffffffu);
         cl_int err, st;
         cl_program p = from_binary(env, b, size, &err, &st);
         if (p) {
            accepted++;
            CHECK(err == CL_SUCCESS && st == CL_SUCCESS);
            cl_int be = clBuildProgram(p, 0, NULL, NULL, NULL, NULL);
            CHECK(be == CL_SUCCESS || be == CL_INVALID_BINARY || be == CL_BUILD_PROGRAM_FAILURE,
                  " KERNELS word at %zu: build %s", off, kt_err_name(be));
            CHECK_OK(clReleaseProgram(p));
         } else {
            CHECK(err == CL_INVALID_BINARY && st == CL_INVALID_BINARY,
                  " KERNELS word at %zu: errcode %s, status %s", off, kt_err_name(err),
                  kt_err_name(st));
         }
      }
      /* The first word is the kernel count: never acceptable. */
      memcpy(b, bin, size);
      wr32(b + k->data, 3);
      expect_invalid(env, b, size, "3 kernels announced, 2 present");
      wr32(b + k->data, 1);
      expect_invalid(env, b, size, "1 kernel announced, 2 present");
      (void)accepted;
   }
   free(b);
}

/* Corrupt device code inside a well-formed container: creation may accept
 * it (the container is fine), but building it must fail cleanly with
 * CL_INVALID_BINARY or CL_BUILD_PROGRAM_FAILURE.  Run in a child process so
 * that a crash is reported rather than fatal. */
static int corrupt_object_child(unsigned seed)
{
   struct kt_env env;
   kt_setup(&env, 0);
   cl_program p = kk_build(&env, source, NULL);
   size_t size;
   unsigned char *bin = get_binary(p, &size);
   struct section s[16];
   int ns = sections(bin, size, s, 16);
   const struct section *o = find(s, ns, 4);
   REQUIRE(o);
   unsigned char *obj = bin + o->data;
   if (seed == 0) {
      /* Not an object file at all. */
      kt_fill(obj, o->size, 99);
   } else if (seed == 1) {
      /* The object truncated in the middle: everything past half zeroed. */
      memset(obj + o->size / 2, 0, o->size - o->size / 2);
   } else {
      /* Scattered bit flips past the ELF header. */
      uint32_t x = seed * 2654435761u;
      for (int i = 0; i < 64; i++) {
         x ^= x << 13;
         x ^= x >> 17;
         x ^= x << 5;
         size_t at = 64 + x % (o->size - 64);
         obj[at] ^= (unsigned char)(1u << (x >> 29));
      }
   }
   cl_int err, st;
   cl_program q = from_binary(&env, bin, size, &err, &st);
   if (q) {
      cl_int be = clBuildProgram(q, 0, NULL, NULL, NULL, NULL);
      CHECK(be == CL_INVALID_BINARY || be == CL_BUILD_PROGRAM_FAILURE || be == CL_SUCCESS,
            " corrupt object (seed %u): build %s", seed, kt_err_name(be));
      if (be == CL_SUCCESS && seed <= 1) {
         /* Then the kernels it promises must be there and run. */
         cl_int ke = 0;
         cl_kernel k = clCreateKernel(q, "first", &ke);
         cl_int re = ke;
         if (k) {
            cl_mem m = kk_buffer_in(&env, N * sizeof(cl_int), NULL);
            cl_int add = 0;
            KK_ARG(k, 0, m);
            KK_ARG(k, 1, add);
            size_t n = N;
            re = clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &n, NULL, 0, NULL, NULL);
            CHECK_OK(clFinish(env.queue));
            CHECK_OK(clReleaseMemObject(m));
            CHECK_OK(clReleaseKernel(k));
         }
         CHECK(ke == CL_SUCCESS && re == CL_SUCCESS,
               "object seed %u (%s): clBuildProgram accepted it; then clCreateKernel "
                   "%s, clEnqueueNDRangeKernel %s", seed,
                   seed ? "second half of the ELF zeroed" : "random bytes",
                   kt_err_name(ke), kt_err_name(re));
      }
      CHECK_OK(clReleaseProgram(q));
   } else {
      CHECK(err == CL_INVALID_BINARY && st == CL_INVALID_BINARY, " errcode %s, status %s",
            kt_err_name(err), kt_err_name(st));
   }
   CHECK_OK(clReleaseProgram(p));
   free(bin);
   kt_teardown(&env);
   return kt_result();
}

static void corrupt_object(void)
{
   /* Seeds 0 and 1 are gross corruptions; a scattered flip can land in code
    * and run (it is never executed here, only loaded). */
   for (unsigned seed = 0; seed < 6; seed++) {
      char arg[32];
      snprintf(arg, sizeof(arg), "%u", seed);
      char *argv[] = {"/proc/self/exe", "--corrupt-object", arg, NULL};
      pid_t pid;
      REQUIRE(posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ) == 0);
      int ws = 0;
      REQUIRE(waitpid(pid, &ws, 0) == pid);
      if (WIFSIGNALED(ws))
         KT_FAIL("corrupt OBJECT section (seed %u): crashed with signal %d while loading", seed,
                 WTERMSIG(ws));
      else
         CHECK(WEXITSTATUS(ws) == 0, " corrupt OBJECT section (seed %u): child exit %d", seed,
               WEXITSTATUS(ws));
   }
}

int main(int argc, char **argv)
{
   if (argc == 3 && !strcmp(argv[1], "--corrupt-object"))
      return corrupt_object_child((unsigned)atoi(argv[2]));
   struct kt_env env;
   kt_setup(&env, 0);
   round_trip(&env);
   cl_program p = kk_build(&env, source, NULL);
   size_t size;
   unsigned char *bin = get_binary(p, &size);
   create_errors(&env, bin, size);
   malformed(&env, bin, size);
   free(bin);
   CHECK_OK(clReleaseProgram(p));
   kt_teardown(&env);
   corrupt_object();
   return kt_result();
}
