/* OpenCL C → LLVM module through the in-process Clang of clc_frontend.cpp,
 * compiled for the host as the CPU device will. */
#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <llvm-c/Core.h>

#include "llvm/build_options.h"
#include "llvm/clc_frontend.h"
#include "llvm/target.h"

static struct kiln_llvm_host host;
static struct kiln_clc_target target;

struct build {
   enum kiln_clc_status status;
   LLVMContextRef context;
   LLVMModuleRef module;
   char *log;
};

static int group_setup(void **state)
{
   (void)state;
   if (!kiln_llvm_host_query(&host))
      return -1;
   target = (struct kiln_clc_target){
      .triple = host.triple,
      .cpu = host.cpu,
      .features = host.features,
      .opencl_version = 110,
   };
   return 0;
}

static int group_teardown(void **state)
{
   (void)state;
   kiln_llvm_host_fini(&host);
   return 0;
}

static void build_fini(struct build *b)
{
   if (b->module)
      LLVMDisposeModule(b->module);
   if (b->context)
      LLVMContextDispose(b->context);
   free(b->log);
   memset(b, 0, sizeof(*b));
}

/* No cmocka asserts: the concurrency test calls this from other threads. */
static struct build compile_for(const struct kiln_clc_target *t, const char *source,
                                const char *options)
{
   struct build b = {0};
   struct kiln_build_options opts;
   char reason[KILN_BUILD_OPTIONS_REASON_SIZE];
   if (kiln_build_options_parse(options, KILN_CL_STD_1_1, false, &opts, reason,
                                sizeof(reason)) != KILN_BUILD_OPTIONS_OK) {
      fprintf(stderr, "options '%s' rejected: %s\n", options, reason);
      b.status = KILN_CLC_OUT_OF_MEMORY; /* anything but OK or BUILD_FAILURE */
      kiln_build_options_fini(&opts);
      return b;
   }
   b.context = LLVMContextCreate();
   b.status = kiln_clc_compile(source, source ? strlen(source) : 0, &opts, t,
                               b.context, &b.module, &b.log);
   kiln_build_options_fini(&opts);
   return b;
}

static struct build compile(const char *source, const char *options)
{
   return compile_for(&target, source, options);
}

static void expect_ok(struct build *b)
{
   if (b->status != KILN_CLC_OK)
      fail_msg("build failed (%d):\n%s", b->status, b->log ? b->log : "(no log)");
   assert_non_null(b->module);
   assert_non_null(b->log);
}

static void expect_failure(struct build *b)
{
   assert_int_equal(b->status, KILN_CLC_BUILD_FAILURE);
   assert_null(b->module);
   assert_non_null(b->log);
   assert_true(strlen(b->log) > 0);
}

static void expect_log(const struct build *b, const char *part)
{
   if (!strstr(b->log, part))
      fail_msg("log lacks \"%s\":\n%s", part, b->log);
}

/* get_global_id, float4 math, every address space of a kernel argument. */
static const char vec_kernel[] =
   "kernel void saxpy4(global float4 *y, global const float4 *x, float a,\n"
   "                   local float4 *scratch, constant float *c)\n"
   "{\n"
   "   size_t i = get_global_id(0);\n"
   "   scratch[get_local_id(0)] = x[i];\n"
   "   barrier(CLK_LOCAL_MEM_FENCE);\n"
   "   float4 v = mad((float4)(a), scratch[get_local_id(0)], y[i]);\n"
   "   y[i] = v + c[0] * dot(x[i], normalize(v));\n"
   "}\n";

static LLVMValueRef function_metadata(struct build *b, LLVMValueRef fn, const char *kind)
{
   unsigned want = LLVMGetMDKindIDInContext(b->context, kind, (unsigned)strlen(kind));
   size_t n;
   LLVMValueMetadataEntry *entries = LLVMGlobalCopyAllMetadata(fn, &n);
   LLVMValueRef node = NULL;
   for (size_t i = 0; i < n; i++) {
      if (LLVMValueMetadataEntriesGetKind(entries, (unsigned)i) == want)
         node = LLVMMetadataAsValue(b->context,
                                    LLVMValueMetadataEntriesGetMetadata(entries, (unsigned)i));
   }
   LLVMDisposeValueMetadataEntries(entries);
   return node;
}

static void test_compile_vector_kernel(void **state)
{
   (void)state;
   struct build b = compile(vec_kernel, NULL);
   expect_ok(&b);
   assert_string_equal(LLVMGetTarget(b.module), host.triple);

   LLVMValueRef k = LLVMGetNamedFunction(b.module, "saxpy4");
   assert_non_null(k);
   assert_false(LLVMIsDeclaration(k));
   assert_int_equal(LLVMGetFunctionCallConv(k), LLVMSPIRKERNELCallConv);
   /* Builtins stay external, Itanium-mangled, for the builtin library. */
   LLVMValueRef gid = LLVMGetNamedFunction(b.module, "_Z13get_global_idj");
   assert_non_null(gid);
   assert_true(LLVMIsDeclaration(gid));

   /* §5.7.x clSetKernelArg needs each argument's address space: on x86 every
    * pointer is addrspace(0), so only this metadata tells local from global. */
   LLVMValueRef as = function_metadata(&b, k, "kernel_arg_addr_space");
   assert_non_null(as);
   assert_int_equal(LLVMGetMDNodeNumOperands(as), 5);
   LLVMValueRef ops[5];
   LLVMGetMDNodeOperands(as, ops);
   const unsigned long long expected[5] = {1, 1, 0, 3, 2};
   for (int i = 0; i < 5; i++)
      assert_int_equal(LLVMConstIntGetZExtValue(ops[i]), expected[i]);

   /* -cl-kernel-arg-info is always on: argument names are there. */
   assert_non_null(function_metadata(&b, k, "kernel_arg_name"));
   assert_non_null(function_metadata(&b, k, "kernel_arg_type"));
   build_fini(&b);
}

/* The later pipeline optimises; clang must not have marked functions
 * optnone/noinline, nor optimised anything away already. */
static void test_ir_is_left_for_the_optimiser(void **state)
{
   (void)state;
   static const char src[] =
      "float sq(float x) { return x * x; }\n"
      "kernel void k(global float *p) { p[0] = sq(p[1]); }\n";
   const char *options[] = {NULL, "-cl-opt-disable"};
   unsigned optnone = LLVMGetEnumAttributeKindForName("optnone", 7);
   unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", 8);
   for (int i = 0; i < 2; i++) {
      struct build b = compile(src, options[i]);
      expect_ok(&b);
      LLVMValueRef k = LLVMGetNamedFunction(b.module, "k");
      assert_non_null(k);
      assert_null(LLVMGetEnumAttributeAtIndex(k, LLVMAttributeFunctionIndex, optnone));
      /* No inlining happened, and none is forbidden. */
      LLVMValueRef sq = LLVMGetNamedFunction(b.module, "sq");
      assert_non_null(sq);
      assert_null(LLVMGetEnumAttributeAtIndex(sq, LLVMAttributeFunctionIndex, noinline));
      assert_null(LLVMGetEnumAttributeAtIndex(sq, LLVMAttributeFunctionIndex, optnone));
      build_fini(&b);
   }
}

static void test_error_location(void **state)
{
   (void)state;
   struct build b = compile("kernel void k(global int *p)\n"
                            "{\n"
                            "    p[0] = undeclared;\n"
                            "}\n",
                            NULL);
   expect_failure(&b);
   expect_log(&b, "input.cl:3:12: error: use of undeclared identifier 'undeclared'");
   expect_log(&b, "1 error generated.");
   build_fini(&b);
}

static const char warning_src[] =
   "int f(int x) { if (x) return 1; }\n"
   "kernel void k(global int *p) { p[0] = f(p[1]); }\n";

static void test_warning_is_logged(void **state)
{
   (void)state;
   struct build b = compile(warning_src, NULL);
   expect_ok(&b);
   expect_log(&b, "input.cl:1:");
   expect_log(&b, "warning:");
   build_fini(&b);
}

static void test_werror(void **state)
{
   (void)state;
   struct build b = compile(warning_src, "-Werror");
   expect_failure(&b);
   expect_log(&b, "input.cl:1:");
   expect_log(&b, "error:");
   expect_log(&b, "-Werror");
   build_fini(&b);
}

static void test_no_warnings(void **state)
{
   (void)state;
   struct build b = compile(warning_src, "-w");
   expect_ok(&b);
   assert_null(strstr(b.log, "warning"));
   build_fini(&b);
   /* -w silences, so there is nothing left for -Werror to promote. */
   b = compile(warning_src, "-w -Werror");
   expect_ok(&b);
   build_fini(&b);
}

static const char define_src[] =
   "#if !defined(FLAG) || FLAG != 1\n"
   "#error FLAG missing\n"
   "#endif\n"
   "#if VALUE != 42\n"
   "#error VALUE missing\n"
   "#endif\n"
   "kernel void k(global int *p) { p[0] = VALUE + SQ(p[1]) + STR[0]; }\n";

static void test_defines(void **state)
{
   (void)state;
   struct build b = compile(define_src,
                            "-DFLAG -D VALUE=42 -D \"SQ(x)=((x)*(x))\" -DSTR=\\\"ab\\\"");
   expect_ok(&b);
   build_fini(&b);

   b = compile(define_src, NULL);
   expect_failure(&b);
   expect_log(&b, "input.cl:2:2: error: FLAG missing");
   build_fini(&b);
}

static void test_include_dir(void **state)
{
   (void)state;
   char dir[] = "/tmp/kiln-clc-XXXXXX";
   assert_non_null(mkdtemp(dir));
   char path[sizeof(dir) + 32];
   snprintf(path, sizeof(path), "%s/kiln_inc.h", dir);
   FILE *f = fopen(path, "w");
   assert_non_null(f);
   fputs("#define FROM_HEADER 7\n", f);
   fclose(f);

   static const char src[] = "#include <kiln_inc.h>\n"
                             "kernel void k(global int *p) { p[0] = FROM_HEADER; }\n";
   char options[sizeof(dir) + 16];
   snprintf(options, sizeof(options), "-I \"%s\"", dir);
   struct build b = compile(src, options);
   expect_ok(&b);
   build_fini(&b);

   b = compile(src, NULL);
   expect_failure(&b);
   expect_log(&b, "input.cl:1:10: fatal error: 'kiln_inc.h' file not found");
   build_fini(&b);

   unlink(path);
   rmdir(dir);
}

static const char version_src[] =
   "#if __OPENCL_C_VERSION__ != EXPECT || __OPENCL_VERSION__ != 110\n"
   "#error wrong version\n"
   "#endif\n"
   "kernel void k(global float4 *p) { p[get_global_id(0)] *= 2.0f; }\n";

static void test_cl_std(void **state)
{
   (void)state;
   struct build b = compile(version_src, "-cl-std=CL1.0 -DEXPECT=100");
   expect_ok(&b);
   assert_non_null(LLVMGetNamedFunction(b.module, "k"));
   build_fini(&b);

   b = compile(version_src, "-DEXPECT=110");
   expect_ok(&b);
   build_fini(&b);

   b = compile(version_src, "-cl-std=CL1.1 -DEXPECT=110");
   expect_ok(&b);
   build_fini(&b);
}

/* Every option the parser accepts is one cc1 understands. */
static void test_every_option_reaches_clang(void **state)
{
   (void)state;
   static const char src[] =
      "#ifndef __FAST_RELAXED_MATH__\n"
      "#error no fast relaxed math\n"
      "#endif\n"
      "kernel void k(global float *p) { p[0] = sin(p[1]) * 0.5 + M_PI; }\n";
   struct build b = compile(src,
      "-cl-opt-disable -cl-single-precision-constant -cl-denorms-are-zero "
      "-cl-strict-aliasing -cl-mad-enable -cl-no-signed-zeros "
      "-cl-unsafe-math-optimizations -cl-finite-math-only -cl-fast-relaxed-math "
      "-w -Werror -cl-kernel-arg-info -cl-std=CL1.1 -DX=1 -I/nonexistent");
   expect_ok(&b);
   build_fini(&b);

   b = compile(src, NULL);
   expect_failure(&b);
   expect_log(&b, "no fast relaxed math");
   build_fini(&b);
}

static void test_extensions_follow_the_device(void **state)
{
   (void)state;
   static const char src[] =
      "#ifndef cl_khr_fp64\n"
      "#error no fp64\n"
      "#endif\n"
      "#ifdef cl_khr_fp16\n"
      "#error fp16 not reported\n"
      "#endif\n"
      "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
      "kernel void k(global double *p) { p[0] = p[1] * 2.0; }\n";
   struct kiln_clc_target t = target;
   t.cl_ext = "-all,+cl_khr_fp64";
   struct build b = compile_for(&t, src, NULL);
   expect_ok(&b);
   build_fini(&b);

   t.cl_ext = "-all";
   b = compile_for(&t, src, NULL);
   expect_failure(&b);
   expect_log(&b, "input.cl:2:2: error: no fp64");
   build_fini(&b);
}

static void test_image_support_macro(void **state)
{
   (void)state;
   static const char src[] = "#ifndef __IMAGE_SUPPORT__\n#error no images\n#endif\n";
   struct kiln_clc_target t = target;
   t.image_support = true;
   struct build b = compile_for(&t, src, NULL);
   expect_ok(&b);
   build_fini(&b);
   b = compile(src, NULL);
   expect_failure(&b);
   build_fini(&b);
}

static void test_empty_source(void **state)
{
   (void)state;
   struct build b = compile("", NULL);
   expect_ok(&b);
   build_fini(&b);
   b = compile(NULL, NULL);
   expect_ok(&b);
   build_fini(&b);
}

/* The text is source[0..size): whatever follows is not read, and no NUL
 * needs to end it (clCreateProgramWithSource passes lengths). */
static void test_source_length(void **state)
{
   (void)state;
   static const char text[] = "kernel void k(global int *p) { p[0] = 1; }@@ garbage";
   struct build b = {0};
   struct kiln_build_options opts = {.cl_std = KILN_CL_STD_1_1};
   b.context = LLVMContextCreate();
   b.status = kiln_clc_compile(text, strlen(text) - strlen("@@ garbage"), &opts, &target,
                               b.context, &b.module, &b.log);
   expect_ok(&b);
   assert_non_null(LLVMGetNamedFunction(b.module, "k"));
   build_fini(&b);

   b.context = LLVMContextCreate();
   b.status = kiln_clc_compile(text, strlen(text), &opts, &target, b.context, &b.module,
                               &b.log);
   expect_failure(&b);
   expect_log(&b, "input.cl:1:43: error: expected identifier");
   build_fini(&b);
}

/* A bad target is Kiln's bug, not the user's, but it must still fail with
 * a log rather than crash. */
static void test_bad_target(void **state)
{
   (void)state;
   struct kiln_clc_target t = target;
   t.triple = "nonsense-unknown-nothing";
   struct build b = compile_for(&t, vec_kernel, NULL);
   expect_failure(&b);
   expect_log(&b, "error:");
   build_fini(&b);

   t = target;
   t.triple = NULL;
   b = compile_for(&t, vec_kernel, NULL);
   expect_failure(&b);
   expect_log(&b, "kiln:");
   build_fini(&b);
}

/* The GPU targets' builds go through the same code; they must be linked in
 * and registered. */
static void test_gpu_targets(void **state)
{
   (void)state;
   const struct kiln_clc_target gpus[] = {
      {.triple = "amdgcn-mesa-mesa3d", .cpu = "gfx1030"},
      {.triple = "nvptx64-nvidia-cuda", .cpu = "sm_70"},
   };
   for (size_t i = 0; i < 2; i++) {
      struct build b = compile_for(&gpus[i], vec_kernel, NULL);
      expect_ok(&b);
      LLVMValueRef k = LLVMGetNamedFunction(b.module, "saxpy4");
      assert_non_null(k);
      assert_non_null(function_metadata(&b, k, "kernel_arg_addr_space"));
      build_fini(&b);
   }
}

#define THREADS 4
#define BUILDS_PER_THREAD 6

struct worker {
   pthread_t thread;
   int id;
   int ok;       /* successful builds whose module had the right kernel */
   int failed;   /* failed builds whose log pointed at the right line */
};

static void *worker_main(void *arg)
{
   struct worker *w = arg;
   for (int i = 0; i < BUILDS_PER_THREAD; i++) {
      char src[512];
      char name[32];
      snprintf(name, sizeof(name), "k_%d_%d", w->id, i);
      if (i % 3 == 2) {
         /* A failing build among the good ones: its diagnostics must land in
          * its own log and nowhere else. */
         snprintf(src, sizeof(src), "kernel void %s(global int *p)\n{\n  p[0] = nope_%d;\n}\n",
                  name, w->id);
         struct build b = compile(src, NULL);
         char want[64];
         snprintf(want, sizeof(want), "input.cl:3:10: error: use of undeclared identifier 'nope_%d'",
                  w->id);
         bool others = false;
         for (int t = 0; t < THREADS && b.log; t++) {
            char other[16];
            snprintf(other, sizeof(other), "nope_%d'", t);
            others |= t != w->id && strstr(b.log, other);
         }
         if (b.status == KILN_CLC_BUILD_FAILURE && b.log && strstr(b.log, want) &&
             !others && strstr(b.log, "1 error generated."))
            w->failed++;
         build_fini(&b);
      } else {
         snprintf(src, sizeof(src), "%s", vec_kernel);
         memcpy(strstr(src, "saxpy4"), "SAXPYX", 6);
         char options[64];
         snprintf(options, sizeof(options), "-D SAXPYX=%s -cl-mad-enable", name);
         struct build b = compile(src, options);
         if (b.status == KILN_CLC_OK && LLVMGetNamedFunction(b.module, name) &&
             LLVMGetFunctionCallConv(LLVMGetNamedFunction(b.module, name)) ==
                LLVMSPIRKERNELCallConv)
            w->ok++;
         build_fini(&b);
      }
   }
   return NULL;
}

static void test_concurrent_builds(void **state)
{
   (void)state;
   struct worker workers[THREADS];
   for (int i = 0; i < THREADS; i++) {
      workers[i] = (struct worker){.id = i};
      assert_int_equal(pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]), 0);
   }
   for (int i = 0; i < THREADS; i++)
      assert_int_equal(pthread_join(workers[i].thread, NULL), 0);
   for (int i = 0; i < THREADS; i++) {
      assert_int_equal(workers[i].ok, BUILDS_PER_THREAD * 2 / 3);
      assert_int_equal(workers[i].failed, BUILDS_PER_THREAD / 3);
   }
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_compile_vector_kernel),
      cmocka_unit_test(test_ir_is_left_for_the_optimiser),
      cmocka_unit_test(test_error_location),
      cmocka_unit_test(test_warning_is_logged),
      cmocka_unit_test(test_werror),
      cmocka_unit_test(test_no_warnings),
      cmocka_unit_test(test_defines),
      cmocka_unit_test(test_include_dir),
      cmocka_unit_test(test_cl_std),
      cmocka_unit_test(test_every_option_reaches_clang),
      cmocka_unit_test(test_extensions_follow_the_device),
      cmocka_unit_test(test_image_support_macro),
      cmocka_unit_test(test_empty_source),
      cmocka_unit_test(test_source_length),
      cmocka_unit_test(test_bad_target),
      cmocka_unit_test(test_gpu_targets),
      cmocka_unit_test(test_concurrent_builds),
   };
   return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
