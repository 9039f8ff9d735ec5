/* Kernels compiled at their first use on the CPU device (issue 19,
 * docs/design.md): clBuildProgram, clCreateKernel and the metadata
 * queries compile nothing; a launch or a work-group query compiles that
 * kernel only, once, also when two threads launch it at once; program
 * binaries hold every kernel's code (a program from one compiles nothing)
 * and the compile cache keeps the kernels compiled before a release.
 * The count of compiles comes from llvm/cpu/cpu_code.h. */
#include "kiln_test.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/program_cache.h"
#include "llvm/cpu/cpu_code.h"

/* Three kernels sharing a helper, a __constant table and a program-scope
 * variable (OpenCL C 3.0): every kernel's object reaches the one
 * definition of `counter` in the program's common object. */
static const char *source =
   "constant int table[4] = {10, 20, 30, 40};\n"
   "global int counter;\n"
   "int helper(int x) { return table[x & 3] + x; }\n"
   "kernel void add(global int *a) {\n"
   "   size_t i = get_global_id(0);\n"
   "   a[i] = helper((int)i);\n"
   "}\n"
   "kernel void set(int v) { counter = v; }\n"
   "kernel void get(global int *o) {\n"
   "   local int l[64];\n"
   "   l[get_local_id(0)] = counter + (int)get_local_id(0);\n"
   "   barrier(CLK_LOCAL_MEM_FENCE);\n"
   "   o[get_global_id(0)] = l[get_local_size(0) - 1 - get_local_id(0)];\n"
   "}\n";

static const char *options = "-cl-std=CL3.0";

static cl_program build(cl_context ctx)
{
   cl_device_id dev = kt_device();
   cl_int err;
   cl_program p = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_int_equal(clBuildProgram(p, 1, &dev, options, NULL, NULL), CL_SUCCESS);
   return p;
}

static cl_kernel kernel(cl_program p, const char *name)
{
   cl_int err;
   cl_kernel k = clCreateKernel(p, name, &err);
   assert_int_equal(err, CL_SUCCESS);
   return k;
}

static void run(cl_command_queue q, cl_kernel k, size_t n, size_t local)
{
   assert_int_equal(clEnqueueNDRangeKernel(q, k, 1, NULL, &n, local ? &local : NULL, 0, NULL,
                                           NULL),
                    CL_SUCCESS);
   assert_int_equal(clFinish(q), CL_SUCCESS);
}

/* Runs add, set(v) and get, checking what they wrote. */
static void run_all(cl_context ctx, cl_program p, int v)
{
   cl_command_queue q = kt_queue(ctx, 0);
   cl_int err;
   cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64 * sizeof(int), NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   cl_kernel add = kernel(p, "add"), set = kernel(p, "set"), get = kernel(p, "get");
   assert_int_equal(clSetKernelArg(add, 0, sizeof(buf), &buf), CL_SUCCESS);
   assert_int_equal(clSetKernelArg(set, 0, sizeof(int), &v), CL_SUCCESS);
   assert_int_equal(clSetKernelArg(get, 0, sizeof(buf), &buf), CL_SUCCESS);
   int out[64];
   run(q, add, 64, 0);
   assert_int_equal(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL),
                    CL_SUCCESS);
   for (int i = 0; i < 64; i++)
      assert_int_equal(out[i], (i & 3) * 10 + 10 + i);
   run(q, set, 1, 0);
   run(q, get, 64, 64);
   assert_int_equal(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL),
                    CL_SUCCESS);
   for (int i = 0; i < 64; i++)
      assert_int_equal(out[i], v + 63 - i);
   clReleaseKernel(add);
   clReleaseKernel(set);
   clReleaseKernel(get);
   clReleaseMemObject(buf);
   clReleaseCommandQueue(q);
}

static void test_first_use(void **state)
{
   (void)state;
   kiln_program_cache_use(NULL, 0);
   cl_device_id dev = kt_device();
   cl_context ctx = kt_context();
   unsigned long before = kiln_cpu_code_compiles();
   cl_program p = build(ctx);
   /* Everything clCreateKernel and the metadata queries report without
    * compiled code. */
   cl_kernel ks[3];
   cl_uint n = 0;
   assert_int_equal(clCreateKernelsInProgram(p, 3, ks, &n), CL_SUCCESS);
   assert_int_equal(n, 3);
   char name[64];
   cl_uint nargs;
   for (int i = 0; i < 3; i++) {
      assert_int_equal(clGetKernelInfo(ks[i], CL_KERNEL_FUNCTION_NAME, sizeof(name), name, NULL),
                       CL_SUCCESS);
      assert_int_equal(clGetKernelInfo(ks[i], CL_KERNEL_NUM_ARGS, sizeof(nargs), &nargs, NULL),
                       CL_SUCCESS);
      assert_int_equal(nargs, 1);
      cl_kernel_arg_address_qualifier aq;
      assert_int_equal(clGetKernelArgInfo(ks[i], 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER,
                                          sizeof(aq), &aq, NULL),
                       CL_SUCCESS);
   }
   size_t names_size;
   assert_int_equal(clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &names_size),
                    CL_SUCCESS);
   assert_int_equal(kiln_cpu_code_compiles(), before);

   /* A work-group query needs the compiled code (its stack): that kernel
    * only. */
   cl_kernel get = kernel(p, "get");
   size_t wg;
   assert_int_equal(clGetKernelWorkGroupInfo(get, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg),
                                             &wg, NULL),
                    CL_SUCCESS);
   assert_true(wg >= 64);
   assert_int_equal(kiln_cpu_code_compiles(), before + 1);
   clReleaseKernel(get);

   /* Launches compile the other two, once each. */
   run_all(ctx, p, 5);
   assert_int_equal(kiln_cpu_code_compiles(), before + 3);
   run_all(ctx, p, 7);
   assert_int_equal(kiln_cpu_code_compiles(), before + 3);
   for (int i = 0; i < 3; i++)
      clReleaseKernel(ks[i]);
   clReleaseProgram(p);
   clReleaseContext(ctx);
}

/* A binary taken after one launch holds every kernel's code. */
static void test_binary(void **state)
{
   (void)state;
   kiln_program_cache_use(NULL, 0);
   cl_device_id dev = kt_device();
   cl_context ctx = kt_context();
   unsigned long before = kiln_cpu_code_compiles();
   cl_program p = build(ctx);
   cl_command_queue q = kt_queue(ctx, 0);
   cl_kernel set = kernel(p, "set");
   int v = 3;
   assert_int_equal(clSetKernelArg(set, 0, sizeof(v), &v), CL_SUCCESS);
   run(q, set, 1, 0);
   clReleaseKernel(set);
   clReleaseCommandQueue(q);
   assert_int_equal(kiln_cpu_code_compiles(), before + 1);

   size_t size;
   assert_int_equal(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, NULL),
                    CL_SUCCESS);
   assert_int_equal(kiln_cpu_code_compiles(), before + 3);
   unsigned char *bin = malloc(size);
   assert_non_null(bin);
   unsigned char *bins[1] = {bin};
   assert_int_equal(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bins), bins, NULL),
                    CL_SUCCESS);
   /* Asked again: the same bytes, nothing compiled. */
   size_t again;
   assert_int_equal(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(again), &again, NULL),
                    CL_SUCCESS);
   assert_int_equal(again, size);
   assert_int_equal(kiln_cpu_code_compiles(), before + 3);
   clReleaseProgram(p);

   cl_int status, err;
   const unsigned char *cbin = bin;
   cl_program from = clCreateProgramWithBinary(ctx, 1, &dev, &size, &cbin, &status, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_int_equal(clBuildProgram(from, 1, &dev, NULL, NULL, NULL), CL_SUCCESS);
   run_all(ctx, from, 11);
   assert_int_equal(kiln_cpu_code_compiles(), before + 3);
   clReleaseProgram(from);
   free(bin);
   clReleaseContext(ctx);
}

/* A binary of a program none of whose kernels ran: compiled when asked. */
static void test_binary_unlaunched(void **state)
{
   (void)state;
   kiln_program_cache_use(NULL, 0);
   cl_device_id dev = kt_device();
   cl_context ctx = kt_context();
   unsigned long before = kiln_cpu_code_compiles();
   cl_program p = build(ctx);
   size_t size;
   assert_int_equal(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, NULL),
                    CL_SUCCESS);
   unsigned char *bin = malloc(size);
   unsigned char *bins[1] = {bin};
   assert_int_equal(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bins), bins, NULL),
                    CL_SUCCESS);
   assert_int_equal(kiln_cpu_code_compiles(), before + 3);
   clReleaseProgram(p);
   cl_int status, err;
   const unsigned char *cbin = bin;
   cl_program from = clCreateProgramWithBinary(ctx, 1, &dev, &size, &cbin, &status, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_int_equal(clBuildProgram(from, 1, &dev, NULL, NULL, NULL), CL_SUCCESS);
   run_all(ctx, from, 2);
   assert_int_equal(kiln_cpu_code_compiles(), before + 3);
   clReleaseProgram(from);
   free(bin);
   clReleaseContext(ctx);
}

/* The cache entry gains the kernels compiled before the release. */
static void test_cache(void **state)
{
   (void)state;
   char dir[] = "/tmp/kiln-test-lazy-XXXXXX";
   assert_non_null(mkdtemp(dir));
   kiln_program_cache_use(dir, 1 << 26);
   cl_context ctx = kt_context();
   unsigned long before = kiln_cpu_code_compiles();
   cl_program p = build(ctx);
   cl_command_queue q = kt_queue(ctx, 0);
   cl_kernel set = kernel(p, "set");
   int v = 9;
   assert_int_equal(clSetKernelArg(set, 0, sizeof(v), &v), CL_SUCCESS);
   run(q, set, 1, 0);
   clReleaseKernel(set);
   assert_int_equal(kiln_cpu_code_compiles(), before + 1);
   clReleaseProgram(p);

   /* From the cache: set is there already, the others compile. */
   p = build(ctx);
   set = kernel(p, "set");
   assert_int_equal(clSetKernelArg(set, 0, sizeof(v), &v), CL_SUCCESS);
   run(q, set, 1, 0);
   clReleaseKernel(set);
   assert_int_equal(kiln_cpu_code_compiles(), before + 1);
   run_all(ctx, p, 4);
   assert_int_equal(kiln_cpu_code_compiles(), before + 3);
   clReleaseProgram(p);

   /* And now all three are. */
   p = build(ctx);
   run_all(ctx, p, 6);
   assert_int_equal(kiln_cpu_code_compiles(), before + 3);
   clReleaseProgram(p);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
   kiln_program_cache_use(NULL, 0);
   char cmd[128];
   snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
   assert_int_equal(system(cmd), 0);
}

struct launcher {
   cl_context ctx;
   cl_program p;
   pthread_barrier_t *go;
   int out[64];
   cl_int err;
};

static void *launch_add(void *arg)
{
   struct launcher *l = arg;
   cl_int err;
   cl_command_queue q = clCreateCommandQueue(l->ctx, kt_device(), 0, &err);
   cl_mem buf = clCreateBuffer(l->ctx, CL_MEM_READ_WRITE, sizeof(l->out), NULL, &err);
   cl_kernel k = clCreateKernel(l->p, "add", &err);
   clSetKernelArg(k, 0, sizeof(buf), &buf);
   size_t n = 64;
   pthread_barrier_wait(l->go);
   l->err = clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, NULL);
   if (!l->err)
      l->err = clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof(l->out), l->out, 0, NULL, NULL);
   clReleaseKernel(k);
   clReleaseMemObject(buf);
   clReleaseCommandQueue(q);
   return NULL;
}

/* Two threads launch a kernel not yet compiled at the same moment: one
 * compile, both run it. */
static void test_concurrent_first_launch(void **state)
{
   (void)state;
   kiln_program_cache_use(NULL, 0);
   cl_context ctx = kt_context();
   unsigned long before = kiln_cpu_code_compiles();
   cl_program p = build(ctx);
   pthread_barrier_t go;
   pthread_barrier_init(&go, NULL, 2);
   struct launcher a = {ctx, p, &go, {0}, -1}, b = {ctx, p, &go, {0}, -1};
   pthread_t ta, tb;
   assert_int_equal(pthread_create(&ta, NULL, launch_add, &a), 0);
   assert_int_equal(pthread_create(&tb, NULL, launch_add, &b), 0);
   pthread_join(ta, NULL);
   pthread_join(tb, NULL);
   pthread_barrier_destroy(&go);
   assert_int_equal(a.err, CL_SUCCESS);
   assert_int_equal(b.err, CL_SUCCESS);
   for (int i = 0; i < 64; i++) {
      assert_int_equal(a.out[i], (i & 3) * 10 + 10 + i);
      assert_int_equal(b.out[i], (i & 3) * 10 + 10 + i);
   }
   assert_int_equal(kiln_cpu_code_compiles(), before + 1);
   clReleaseProgram(p);
   clReleaseContext(ctx);
}

/* Errors of the program still end clBuildProgram, with the log. */
static void test_build_errors(void **state)
{
   (void)state;
   kiln_program_cache_use(NULL, 0);
   cl_device_id dev = kt_device();
   cl_context ctx = kt_context();
   const char *bad[] = {
      /* Recursion: found before any kernel is compiled. */
      "int f(int x) { return x ? f(x - 1) : 0; }\n"
      "kernel void k(global int *o) { o[0] = f(o[1]); }\n",
      /* More __local memory than the device has. */
      "kernel void k(global int *o) { local int big[1 << 24]; big[o[0]] = 1;"
      " o[1] = big[o[2]]; }\n",
   };
   const char *want[] = {"recurs", "CL_DEVICE_LOCAL_MEM_SIZE"};
   for (int i = 0; i < 2; i++) {
      cl_int err;
      cl_program p = clCreateProgramWithSource(ctx, 1, &bad[i], NULL, &err);
      assert_int_equal(err, CL_SUCCESS);
      assert_int_equal(clBuildProgram(p, 1, &dev, NULL, NULL, NULL), CL_BUILD_PROGRAM_FAILURE);
      char log[4096];
      assert_int_equal(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof(log), log,
                                             NULL),
                       CL_SUCCESS);
      if (!strstr(log, want[i]))
         fail_msg("log of program %d lacks '%s': %s", i, want[i], log);
      clReleaseProgram(p);
   }
   clReleaseContext(ctx);
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_first_use),
      cmocka_unit_test(test_binary),
      cmocka_unit_test(test_binary_unlaunched),
      cmocka_unit_test(test_cache),
      cmocka_unit_test(test_concurrent_first_launch),
      cmocka_unit_test(test_build_errors),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
