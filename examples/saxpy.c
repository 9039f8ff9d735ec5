/* Example: y = a*x + y on the default device of the Kiln platform (the
 * CPU unless KILN_DEVICES puts another device first),
 * through the system ICD loader, checked against the host. */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 110
#endif
#include <CL/cl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *source =
   "__kernel void saxpy(__global float *y, __global const float *x, float a)\n"
   "{\n"
   "   size_t i = get_global_id(0);\n"
   "   y[i] = a * x[i] + y[i];\n"
   "}\n";

static int fail(const char *what, cl_int err)
{
   fprintf(stderr, "saxpy: %s failed with %d\n", what, err);
   return 1;
}

static cl_platform_id find_kiln(void)
{
   cl_platform_id ids[16];
   cl_uint n = 0;
   if (clGetPlatformIDs(16, ids, &n))
      return NULL;
   for (cl_uint i = 0; i < n && i < 16; i++) {
      char name[64] = "";
      clGetPlatformInfo(ids[i], CL_PLATFORM_NAME, sizeof(name), name, NULL);
      if (!strcmp(name, "Kiln"))
         return ids[i];
   }
   return NULL;
}

int main(void)
{
   enum { N = 1 << 20 };
   cl_platform_id platform = find_kiln();
   if (!platform)
      return fail("finding the Kiln platform", CL_INVALID_PLATFORM);
   cl_device_id dev;
   cl_int err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_DEFAULT, 1, &dev, NULL);
   if (err)
      return fail("clGetDeviceIDs", err);
   char name[256] = "";
   clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof(name), name, NULL);

   cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
   cl_command_queue q = err ? NULL : clCreateCommandQueue(ctx, dev, 0, &err);
   if (err)
      return fail("creating a context and queue", err);
   cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
   if (err || (err = clBuildProgram(prog, 1, &dev, NULL, NULL, NULL))) {
      char log[4096] = "";
      clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
      fprintf(stderr, "%s", log);
      return fail("building the program", err);
   }
   float *x = malloc(N * sizeof(float)), *y = malloc(N * sizeof(float));
   if (!x || !y)
      return fail("malloc", CL_OUT_OF_HOST_MEMORY);
   for (int i = 0; i < N; i++) {
      x[i] = (float)i;
      y[i] = 1.0f;
   }
   cl_mem bx = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof(float), x, &err);
   cl_mem by = err ? NULL : clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, N * sizeof(float), y, &err);
   cl_kernel k = err ? NULL : clCreateKernel(prog, "saxpy", &err);
   if (err)
      return fail("creating buffers and the kernel", err);
   float a = 2.0f;
   size_t global = N;
   if ((err = clSetKernelArg(k, 0, sizeof(by), &by)) || (err = clSetKernelArg(k, 1, sizeof(bx), &bx)) ||
       (err = clSetKernelArg(k, 2, sizeof(a), &a)) ||
       (err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL)) ||
       (err = clEnqueueReadBuffer(q, by, CL_TRUE, 0, N * sizeof(float), y, 0, NULL, NULL)))
      return fail("running saxpy", err);
   for (int i = 0; i < N; i++)
      if (y[i] != 2.0f * (float)i + 1.0f) {
         fprintf(stderr, "saxpy: y[%d] = %g, expected %g\n", i, y[i], 2.0 * i + 1.0);
         return 1;
      }
   printf("saxpy: %d elements on \"%s\": correct\n", N, name);
   clReleaseKernel(k);
   clReleaseMemObject(bx);
   clReleaseMemObject(by);
   clReleaseProgram(prog);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
   free(x);
   free(y);
   return 0;
}
