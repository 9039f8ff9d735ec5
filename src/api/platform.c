/* clGetPlatformIDs, clGetPlatformInfo, clIcdGetPlatformIDsKHR. */
#include <string.h>

#include "api/api.h"
#include "api/icd.h"
#include "api/timer.h"
#include "core/device_version.h"
#include "core/platform.h"

CL_API_ENTRY cl_int CL_API_CALL clGetPlatformIDs(cl_uint num_entries, cl_platform_id *platforms,
                                                 cl_uint *num_platforms)
{
   if ((num_entries == 0 && platforms) || (!platforms && !num_platforms))
      return API_FAIL(CL_INVALID_VALUE, "num_entries %u, platforms %p, num_platforms %p",
                      num_entries, (void *)platforms, (void *)num_platforms);
   cl_platform_id p = kiln_api_platform();
   if (platforms)
      platforms[0] = p;
   if (num_platforms)
      *num_platforms = 1;
   return CL_SUCCESS;
}

/* cl_khr_icd: how the loader enumerates Kiln's platforms. */
KILN_EXPORT CL_API_ENTRY cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint num_entries,
                                                       cl_platform_id *platforms,
                                                       cl_uint *num_platforms)
{
   return clGetPlatformIDs(num_entries, platforms, num_platforms);
}

CL_API_ENTRY cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id platform,
                                                  cl_platform_info param_name,
                                                  size_t param_value_size, void *param_value,
                                                  size_t *param_value_size_ret)
{
   /* A NULL platform selects Kiln's (implementation-defined in 1.1). */
   cl_platform_id p = kiln_api_platform();
   if (platform && platform != p)
      return API_FAIL(CL_INVALID_PLATFORM, "%p is not a Kiln platform", (void *)platform);

   switch (param_name) {
   case CL_PLATFORM_PROFILE:
      INFO_STRING("FULL_PROFILE");
   case CL_PLATFORM_VERSION:
      INFO_STRING(KILN_OPENCL_VERSION);
   case CL_PLATFORM_NAME:
      INFO_STRING(KILN_PLATFORM_NAME);
   case CL_PLATFORM_VENDOR:
      INFO_STRING(KILN_PLATFORM_VENDOR);
   case CL_PLATFORM_EXTENSIONS:
      INFO_STRING(KILN_PLATFORM_EXTENSIONS);
   case CL_PLATFORM_NUMERIC_VERSION: /* 3.0 */
      INFO_VALUE(cl_version, CL_MAKE_VERSION(KILN_CL_VERSION_MAJOR, KILN_CL_VERSION_MINOR, 0));
   case CL_PLATFORM_EXTENSIONS_WITH_VERSION: { /* 3.0 */
      cl_name_version v[8];
      size_t n = kiln_extensions_with_version(KILN_PLATFORM_EXTENSIONS, v, 8);
      INFO_ARRAY(v, n < 8 ? n : 8);
   }
   case CL_PLATFORM_HOST_TIMER_RESOLUTION: /* 2.1 and 3.0: api/timer.c */
      INFO_VALUE(cl_ulong, kiln_api_host_timer_resolution());
   case CL_PLATFORM_ICD_SUFFIX_KHR:
      INFO_STRING(KILN_PLATFORM_ICD_SUFFIX);
   default:
      return API_FAIL(CL_INVALID_VALUE, "unknown param_name 0x%x", param_name);
   }
}
