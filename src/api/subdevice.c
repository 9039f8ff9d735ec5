/* clCreateSubDevices, clRetainDevice, clReleaseDevice (OpenCL 1.2).
 *
 * Root devices live as long as the process: retaining and releasing them
 * succeeds and changes nothing.  Sub-devices are counted like any other
 * object; contexts hold the devices they were made with, so a released
 * sub-device lives on while anything made on it does. */
#include "api/api.h"
#include "core/device.h"
#include "core/device_partition.h"
#include "api/icd.h"
#include "util/alloc.h"

CL_API_ENTRY cl_int CL_API_CALL clCreateSubDevices(cl_device_id in_device,
                                                   const cl_device_partition_property *properties,
                                                   cl_uint num_devices, cl_device_id *out_devices,
                                                   cl_uint *num_devices_ret)
{
   kiln_api_platform();
   cl_device_id dev = kiln_device_from(in_device);
   if (!dev)
      return API_FAIL(CL_INVALID_DEVICE, "%p is not a device", (void *)in_device);
   struct kiln_partition plan;
   cl_int err = kiln_device_partition(dev, properties, &plan);
   if (err)
      return API_FAIL(err, "properties %p cannot partition the device (%s)",
                      (const void *)properties,
                      err == CL_DEVICE_PARTITION_FAILED ? "too few compute units"
                      : err == CL_INVALID_DEVICE_PARTITION_COUNT ? "bad counts"
                                                                 : "invalid or unsupported");
   if (out_devices && num_devices < plan.num_groups) {
      kiln_partition_free(&plan);
      return API_FAIL(CL_INVALID_VALUE, "num_devices %u < the %u sub-devices of the partition",
                      num_devices, plan.num_groups);
   }
   if (out_devices) {
      for (unsigned g = 0; g < plan.num_groups; g++) {
         unsigned *units = kiln_malloc(plan.size[g] * sizeof(unsigned));
         err = units ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
         if (units) {
            for (unsigned i = 0; i < plan.size[g]; i++)
               units[i] = plan.units[plan.first[g] + i];
            err = kiln_device_create_sub(dev, units, plan.size[g], properties, plan.num_props,
                                         &out_devices[g]);
         }
         if (err) {
            /* All or nothing: the application gets no handle to free. */
            while (g--)
               kiln_object_release(&out_devices[g]->obj);
            kiln_partition_free(&plan);
            return API_FAIL(err, "cannot create sub-device %u", g);
         }
      }
   }
   if (num_devices_ret)
      *num_devices_ret = plan.num_groups;
   kiln_partition_free(&plan);
   return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clRetainDevice(cl_device_id device)
{
   kiln_api_platform();
   cl_device_id dev = kiln_device_from(device);
   if (!dev)
      return API_FAIL(CL_INVALID_DEVICE, "%p is not a device", (void *)device);
   if (dev->parent)
      kiln_object_retain(&dev->obj);
   return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseDevice(cl_device_id device)
{
   kiln_api_platform();
   cl_device_id dev = kiln_device_from(device);
   if (!dev)
      return API_FAIL(CL_INVALID_DEVICE, "%p is not a device", (void *)device);
   if (dev->parent)
      kiln_object_release(&dev->obj);
   return CL_SUCCESS;
}
