#include "api/api.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

cl_int kiln_api_fail(const char *func, cl_int err, const char *fmt, ...)
{
   if (kiln_log_enabled(KILN_LOG_API)) {
      char msg[512];
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(msg, sizeof(msg), fmt, ap);
      va_end(ap);
      kiln_log(KILN_LOG_API, "%s returns %d: %s", func, err, msg);
   }
   return err;
}

cl_int kiln_info(const void *data, size_t size, size_t param_value_size, void *param_value,
                 size_t *param_value_size_ret)
{
   if (param_value) {
      if (param_value_size < size)
         return kiln_api_fail("clGet*Info", CL_INVALID_VALUE,
                              "param_value_size %zu < %zu needed", param_value_size, size);
      if (size)
         memcpy(param_value, data, size);
   }
   if (param_value_size_ret)
      *param_value_size_ret = size;
   return CL_SUCCESS;
}

cl_int kiln_api_unsupported(const char *func)
{
   kiln_log(KILN_LOG_WARN, "%s is not implemented yet; returning CL_INVALID_OPERATION", func);
   return CL_INVALID_OPERATION;
}
