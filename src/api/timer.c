/* clGetDeviceAndHostTimer, clGetHostTimer (OpenCL 2.1 and 3.0, 4.4):
 * the host timer is CLOCK_MONOTONIC, the clock every Kiln device's
 * profiling timestamps are already on (pipe_screen::get_timestamp), so a
 * pair taken together is directly comparable with event profiling. */
#include <time.h>

#include "api/api.h"
#include "api/timer.h"
#include "core/device.h"

static cl_ulong host_now(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (cl_ulong)ts.tv_sec * 1000000000ull + (cl_ulong)ts.tv_nsec;
}

cl_ulong kiln_api_host_timer_resolution(void)
{
   struct timespec res;
   if (clock_getres(CLOCK_MONOTONIC, &res) != 0)
      return 1;
   cl_ulong ns = (cl_ulong)res.tv_sec * 1000000000ull + (cl_ulong)res.tv_nsec;
   return ns ? ns : 1;
}

CL_API_ENTRY cl_int CL_API_CALL clGetDeviceAndHostTimer(cl_device_id device,
                                                        cl_ulong *device_timestamp,
                                                        cl_ulong *host_timestamp)
{
   cl_device_id dev = kiln_device_from(device);
   if (!dev)
      return API_FAIL(CL_INVALID_DEVICE, "%p is not a device", (void *)device);
   if (!device_timestamp || !host_timestamp)
      return API_FAIL(CL_INVALID_VALUE, "device_timestamp %p, host_timestamp %p",
                      (void *)device_timestamp, (void *)host_timestamp);
   /* The host time is the middle of the device read, so that the pair
    * is as close to simultaneous as the two reads allow. */
   cl_ulong before = host_now();
   cl_ulong d = kiln_device_timestamp(dev);
   cl_ulong after = host_now();
   *device_timestamp = d;
   *host_timestamp = before + (after - before) / 2;
   return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clGetHostTimer(cl_device_id device, cl_ulong *host_timestamp)
{
   if (!kiln_device_from(device))
      return API_FAIL(CL_INVALID_DEVICE, "%p is not a device", (void *)device);
   if (!host_timestamp)
      return API_FAIL(CL_INVALID_VALUE, "host_timestamp is NULL");
   *host_timestamp = host_now();
   return CL_SUCCESS;
}
