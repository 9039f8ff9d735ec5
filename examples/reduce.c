/* Example: a work-group tree reduction in __local memory with barriers,
 * on the Kiln platform's default device (the CPU unless KILN_DEVICES puts
 * another device first), checked against the host. */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 110
#endif
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *source =
   "__kernel void partial_sums(__global const uint *in, __global uint *out,\n"
   "                           __local uint *scratch)\n"
   "{\n"
   "   uint l = get_local_id(0);\n"
   "   scratch[l] = in[get_global_id(0)];\n"
   "   barrier(CLK_LOCAL_MEM_FENCE);\n"
   "   for (uint s = get_local_size(0) / 2; s > 0; s /= 2) {\n"
   "      if (l < s)\n"
   "         scratch[l] += scratch[l + s];\n"
   "      barrier(CLK_LOCAL_MEM_FENCE);\n"
   "   }\n"
   "   if (l == 0)\n"
   "      out[get_group_id(0)] = scratch[0];\n"
   "}\n";

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
   enum { N = 1 << 22, WG = 256 };
   cl_int err = CL_SUCCESS;
   cl_platform_id platform = find_kiln();
   cl_device_id dev;
   if (!platform || clGetDeviceIDs(platform, CL_DEVICE_TYPE_DEFAULT, 1, &dev, NULL)) {
      fprintf(stderr, "reduce: no Kiln device\n");
      return 1;
   }
   cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
   cl_command_queue q = err ? NULL : clCreateCommandQueue(ctx, dev, 0, &err);
   cl_program prog = err ? NULL : clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
   if (!err)
      err = clBuildProgram(prog, 1, &dev, NULL, NULL, NULL);
   cl_uint *in = malloc(N * sizeof(cl_uint)), *sums = malloc(N / WG * sizeof(cl_uint));
   if (err || !in || !sums) {
      fprintf(stderr, "reduce: set-up failed (%d)\n", err);
      return 1;
   }
   unsigned long long expect = 0;
   for (cl_uint i = 0; i < N; i++) {
      in[i] = i % 1000;
      expect += in[i];
   }
   cl_mem bin = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, N * sizeof(cl_uint), in, &err);
   cl_mem bout = err ? NULL : clCreateBuffer(ctx, 0, N / WG * sizeof(cl_uint), NULL, &err);
   cl_kernel k = err ? NULL : clCreateKernel(prog, "partial_sums", &err);
   size_t global = N, local = WG;
   if (err || (err = clSetKernelArg(k, 0, sizeof(bin), &bin)) ||
       (err = clSetKernelArg(k, 1, sizeof(bout), &bout)) ||
       (err = clSetKernelArg(k, 2, WG * sizeof(cl_uint), NULL)) ||
       (err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL)) ||
       (err = clEnqueueReadBuffer(q, bout, CL_TRUE, 0, N / WG * sizeof(cl_uint), sums, 0, NULL, NULL))) {
      fprintf(stderr, "reduce: failed with %d\n", err);
      return 1;
   }
   unsigned long long total = 0;
   for (int g = 0; g < N / WG; g++)
      total += sums[g];
   if (total != expect) {
      fprintf(stderr, "reduce: sum %llu, expected %llu\n", total, expect);
      return 1;
   }
   printf("reduce: %d elements in work-groups of %d: sum %llu, correct\n", N, WG, total);
   clReleaseKernel(k);
   clReleaseMemObject(bin);
   clReleaseMemObject(bout);
   clReleaseProgram(prog);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
   free(in);
   free(sums);
   return 0;
}
