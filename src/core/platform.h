/* The one Kiln platform and the devices its pipe drivers found. */
#ifndef KILN_CORE_PLATFORM_H
#define KILN_CORE_PLATFORM_H

#include "core/object.h"
#include "kiln/cl_version.h"

struct _cl_platform_id {
   struct kiln_object obj;
   cl_uint num_devices;
   cl_device_id *devices;
};

/* The platform, created on first use (devices probed once per process). */
cl_platform_id kiln_platform_get(void);

/* Validates a handle; NULL when it is not the Kiln platform. */
static inline cl_platform_id kiln_platform_from(cl_platform_id p)
{
   return (cl_platform_id)kiln_object_lookup(p, KILN_TYPE_PLATFORM);
}

#define KILN_PLATFORM_NAME "Kiln"
#define KILN_PLATFORM_VENDOR "The Kiln project"
#define KILN_PLATFORM_ICD_SUFFIX "KILN"
#define KILN_PLATFORM_EXTENSIONS "cl_khr_icd cl_khr_command_buffer"
#define KILN_OPENCL_VERSION "OpenCL " KILN_CL_VERSION_STRING " Kiln " KILN_VERSION
/* 3.0 (4.2): the newest OpenCL C 1.x the device compiles, which is 1.2
 * on every Kiln device; 3.0 is in CL_DEVICE_OPENCL_C_ALL_VERSIONS. */
#define KILN_OPENCL_C_VERSION "OpenCL C 1.2 "

#endif
