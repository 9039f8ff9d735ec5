#include "fake_cuda_cl.h"

#include <stdio.h>

#include "fake_cuda.h"

int fake_cuda_cl_open(unsigned gpus, cl_platform_id *platform, cl_device_id *devices,
                      cl_uint count)
{
   fake_cuda_reset_h100s(gpus);
   cl_platform_id p = NULL;
   cl_uint n = 0;
   cl_int err = clGetPlatformIDs(1, &p, NULL);
   if (err == CL_SUCCESS)
      err = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, count, devices, &n);
   if (err != CL_SUCCESS || n != count) {
      fprintf(stderr, "Kiln's platform over %u fake GPU(s): %u device(s), not %u (error %d)\n",
              gpus, n, count, err);
      return -1;
   }
   if (platform)
      *platform = p;
   return 0;
}
