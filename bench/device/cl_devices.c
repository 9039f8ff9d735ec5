/* Prints every OpenCL platform the ICD loader shows and each of its
 * devices, one line each, so that a test run on the device machine says
 * first which driver and which device it measured.  run_tests.py reads
 * the "platforms:" count to refuse a run where Kiln is not the only
 * platform (another vendor's ICD would answer piglit's tests).
 * Exit status: 0 with at least one device, 1 otherwise. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

static void info_platform(cl_platform_id p, cl_platform_info what, const char *label)
{
   char buf[1024] = "";
   if (clGetPlatformInfo(p, what, sizeof(buf) - 1, buf, NULL) != CL_SUCCESS)
      snprintf(buf, sizeof(buf), "<query failed>");
   printf("  %s: %s\n", label, buf);
}

static void info_device(cl_device_id d, cl_device_info what, const char *label)
{
   char buf[1024] = "";
   if (clGetDeviceInfo(d, what, sizeof(buf) - 1, buf, NULL) != CL_SUCCESS)
      snprintf(buf, sizeof(buf), "<query failed>");
   printf("    %s: %s\n", label, buf);
}

int main(void)
{
   cl_platform_id platforms[16];
   cl_uint np = 0;
   cl_int err = clGetPlatformIDs(16, platforms, &np);
   if (err != CL_SUCCESS) {
      printf("platforms: 0 (clGetPlatformIDs returns %d)\n", (int)err);
      return 1;
   }
   printf("platforms: %u\n", (unsigned)np);
   int devices = 0;
   for (cl_uint i = 0; i < np && i < 16; i++) {
      printf("platform %u\n", (unsigned)i);
      info_platform(platforms[i], CL_PLATFORM_NAME, "name");
      info_platform(platforms[i], CL_PLATFORM_VERSION, "version");
      cl_device_id dev[16];
      cl_uint nd = 0;
      err = clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 16, dev, &nd);
      if (err != CL_SUCCESS) {
         printf("  devices: 0 (clGetDeviceIDs returns %d)\n", (int)err);
         continue;
      }
      printf("  devices: %u\n", (unsigned)nd);
      for (cl_uint j = 0; j < nd && j < 16; j++) {
         cl_device_type type = 0;
         clGetDeviceInfo(dev[j], CL_DEVICE_TYPE, sizeof(type), &type, NULL);
         printf("  device %u (%s)\n", (unsigned)j,
                (type & CL_DEVICE_TYPE_GPU) ? "GPU" :
                (type & CL_DEVICE_TYPE_CPU) ? "CPU" :
                (type & CL_DEVICE_TYPE_ACCELERATOR) ? "accelerator" : "other");
         info_device(dev[j], CL_DEVICE_NAME, "name");
         info_device(dev[j], CL_DEVICE_VERSION, "version");
         info_device(dev[j], CL_DRIVER_VERSION, "driver");
         devices++;
      }
   }
   return devices > 0 ? 0 : 1;
}
