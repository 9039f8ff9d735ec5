/* cmdbuf_bench: the cost per command of N small kernel launches enqueued
 * one by one (clEnqueueNDRangeKernel) against the same launches replayed
 * from a finalized command buffer (cl_khr_command_buffer), on every
 * platform whose CPU device offers the extension.  Kernels are tiny on
 * purpose: the figure is the driver's overhead per command.
 *
 *   cmdbuf_bench [--commands N] [--runs R] [--global G] [--platform SUBSTR]
 *
 * Each run times N launches from the first enqueue to clFinish; the median
 * of R runs (after a warm-up) is reported.  The kernel chain is the same
 * both ways (every launch increments one buffer, in order), and the
 * result is checked.
 */
#undef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "kiln/cl_command_buffer.h"

static const char *src = "kernel void inc(global int *x) { x[get_global_id(0)] += 1; }\n";

static double now_s(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
   double x = *(const double *)a, y = *(const double *)b;
   return x < y ? -1 : x > y;
}

#define OK(expr)                                                               \
   do {                                                                        \
      cl_int e_ = (expr);                                                      \
      if (e_ != CL_SUCCESS) {                                                  \
         fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #expr, e_);   \
         return -1;                                                            \
      }                                                                        \
   } while (0)

struct fns {
   kiln_clCreateCommandBufferKHR_fn create;
   kiln_clFinalizeCommandBufferKHR_fn finalize;
   kiln_clReleaseCommandBufferKHR_fn release;
   kiln_clEnqueueCommandBufferKHR_fn enqueue;
   kiln_clCommandNDRangeKernelKHR_fn ndrange;
};

static int check(cl_command_queue q, cl_mem m, size_t global, int want)
{
   int *got = malloc(global * sizeof(int));
   OK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, global * sizeof(int), got, 0, NULL, NULL));
   for (size_t i = 0; i < global; i++)
      if (got[i] != want) {
         fprintf(stderr, "wrong result at %zu: %d, expected %d\n", i, got[i], want);
         free(got);
         return -1;
      }
   free(got);
   return 0;
}

static int bench_platform(cl_platform_id plat, int commands, int runs, size_t global)
{
   char name[256];
   clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof(name), name, NULL);
   cl_device_id dev;
   if (clGetDeviceIDs(plat, CL_DEVICE_TYPE_CPU, 1, &dev, NULL) != CL_SUCCESS) {
      printf("%-12s no CPU device\n", name);
      return 0;
   }
   char ext[4096] = "";
   clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof(ext), ext, NULL);
   if (!strstr(ext, "cl_khr_command_buffer")) {
      printf("%-12s no cl_khr_command_buffer: skipped\n", name);
      return 0;
   }
   struct fns f = {
      (kiln_clCreateCommandBufferKHR_fn)clGetExtensionFunctionAddressForPlatform(
         plat, "clCreateCommandBufferKHR"),
      (kiln_clFinalizeCommandBufferKHR_fn)clGetExtensionFunctionAddressForPlatform(
         plat, "clFinalizeCommandBufferKHR"),
      (kiln_clReleaseCommandBufferKHR_fn)clGetExtensionFunctionAddressForPlatform(
         plat, "clReleaseCommandBufferKHR"),
      (kiln_clEnqueueCommandBufferKHR_fn)clGetExtensionFunctionAddressForPlatform(
         plat, "clEnqueueCommandBufferKHR"),
      (kiln_clCommandNDRangeKernelKHR_fn)clGetExtensionFunctionAddressForPlatform(
         plat, "clCommandNDRangeKernelKHR"),
   };
   if (!f.create || !f.finalize || !f.release || !f.enqueue || !f.ndrange) {
      printf("%-12s entry points missing: skipped\n", name);
      return 0;
   }
   cl_int err;
   cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
   OK(err);
   cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
   OK(err);
   cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
   OK(err);
   OK(clBuildProgram(prog, 1, &dev, NULL, NULL, NULL));
   cl_kernel k = clCreateKernel(prog, "inc", &err);
   OK(err);
   cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, global * sizeof(int), NULL, &err);
   OK(err);
   int zero = 0;
   OK(clEnqueueFillBuffer(q, m, &zero, sizeof(zero), 0, global * sizeof(int), 0, NULL, NULL));
   OK(clSetKernelArg(k, 0, sizeof(m), &m));

   cl_command_buffer_khr cb = f.create(1, &q, NULL, &err);
   OK(err);
   for (int i = 0; i < commands; i++)
      OK(f.ndrange(cb, NULL, NULL, k, 1, NULL, &global, NULL, 0, NULL, NULL, NULL));
   OK(f.finalize(cb));

   double *te = malloc(runs * sizeof(double)), *tr = malloc(runs * sizeof(double));
   int total = 0;
   for (int r = -1; r < runs; r++) { /* r = -1: warm-up */
      OK(clFinish(q));
      double t0 = now_s();
      for (int i = 0; i < commands; i++)
         OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL));
      OK(clFinish(q));
      double t1 = now_s();
      OK(f.enqueue(0, NULL, cb, 0, NULL, NULL));
      OK(clFinish(q));
      double t2 = now_s();
      total += 2 * commands;
      if (r >= 0) {
         te[r] = (t1 - t0) / commands;
         tr[r] = (t2 - t1) / commands;
      }
   }
   if (check(q, m, global, total))
      return -1;
   qsort(te, runs, sizeof(double), cmp_double);
   qsort(tr, runs, sizeof(double), cmp_double);
   double e = te[runs / 2], rp = tr[runs / 2];
   printf("%-12s %8d %8zu %14.2f %14.2f %8.2fx\n", name, commands, global, e * 1e6, rp * 1e6,
          e / rp);
   free(te);
   free(tr);
   f.release(cb);
   clReleaseMemObject(m);
   clReleaseKernel(k);
   clReleaseProgram(prog);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
   return 0;
}

int main(int argc, char **argv)
{
   int commands = 1000, runs = 5;
   size_t global = 64;
   const char *only = NULL;
   for (int i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "--commands") && i + 1 < argc)
         commands = atoi(argv[++i]);
      else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
         runs = atoi(argv[++i]);
      else if (!strcmp(argv[i], "--global") && i + 1 < argc)
         global = (size_t)atol(argv[++i]);
      else if (!strcmp(argv[i], "--platform") && i + 1 < argc)
         only = argv[++i];
      else {
         fprintf(stderr, "usage: %s [--commands N] [--runs R] [--global G] [--platform SUBSTR]\n",
                 argv[0]);
         return 2;
      }
   }
   if (commands < 1 || runs < 1 || global < 1)
      return 2;
   cl_platform_id plats[16];
   cl_uint n = 0;
   if (clGetPlatformIDs(16, plats, &n) != CL_SUCCESS || !n) {
      fprintf(stderr, "no OpenCL platform\n");
      return 1;
   }
   printf("%-12s %8s %8s %14s %14s %9s\n", "platform", "commands", "global", "enqueue us/cmd",
          "replay us/cmd", "ratio");
   int rc = 0;
   for (cl_uint i = 0; i < n; i++) {
      char name[256];
      clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof(name), name, NULL);
      if (only && !strcasestr(name, only))
         continue;
      if (bench_platform(plats[i], commands, runs, global))
         rc = 1;
   }
   return rc;
}
