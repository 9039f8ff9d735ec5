/* clCreateContext, clCreateContextFromType, clRetain/ReleaseContext,
 * clGetContextInfo, clSetContextDestructorCallback. */
#include <string.h>

#include "api/api.h"
#include "api/icd.h"
#include "core/context.h"
#include "core/device.h"
#include "core/platform.h"
#include "pipe/pipe_loader.h"

/* Checks the properties list; sets *count to its length including the
 * terminating 0 (0 for NULL).  Errors as in clCreateContext. */
static cl_int parse_properties(const cl_context_properties *props, size_t *count,
                               const char *func)
{
   *count = 0;
   if (!props)
      return CL_SUCCESS;
   size_t n = 0;
   while (props[n])
      n += 2;
   /* The spec lists CL_INVALID_PLATFORM before CL_INVALID_PROPERTY: every
    * platform value is checked before names are judged. */
   for (size_t i = 0; i < n; i += 2)
      if (props[i] == CL_CONTEXT_PLATFORM && !kiln_platform_from((cl_platform_id)props[i + 1]))
         return kiln_api_fail(func, CL_INVALID_PLATFORM, "CL_CONTEXT_PLATFORM %p",
                              (void *)props[i + 1]);
   bool have_platform = false;
   for (size_t i = 0; i < n; i += 2) {
      if (props[i] != CL_CONTEXT_PLATFORM)
         return kiln_api_fail(func, CL_INVALID_PROPERTY, "unknown property 0x%lx",
                              (unsigned long)props[i]);
      if (have_platform)
         return kiln_api_fail(func, CL_INVALID_PROPERTY, "CL_CONTEXT_PLATFORM given twice");
      have_platform = true;
   }
   *count = n + 1;
   return CL_SUCCESS;
}

CL_API_ENTRY cl_context CL_API_CALL clCreateContext(
   const cl_context_properties *properties, cl_uint num_devices, const cl_device_id *devices,
   void(CL_CALLBACK *pfn_notify)(const char *, const void *, size_t, void *), void *user_data,
   cl_int *errcode_ret)
{
   cl_platform_id platform = kiln_api_platform();
   size_t nprops;
   cl_int err = parse_properties(properties, &nprops, __func__);
   if (err)
      API_FAIL_RET(errcode_ret, err, "bad properties");
   if (!devices)
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "devices is NULL");
   if (!num_devices)
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "num_devices is 0");
   if (!pfn_notify && user_data)
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "user_data without pfn_notify");
   for (cl_uint i = 0; i < num_devices; i++)
      if (!kiln_device_from(devices[i]))
         API_FAIL_RET(errcode_ret, CL_INVALID_DEVICE, "devices[%u] = %p is not a device", i,
                      (void *)devices[i]);

   cl_context ctx = NULL;
   err = kiln_context_create(platform, properties, nprops, num_devices, devices, pfn_notify,
                             user_data, &ctx);
   if (err)
      API_FAIL_RET(errcode_ret, err, "out of host memory");
   kiln_set_error(errcode_ret, CL_SUCCESS);
   return ctx;
}

CL_API_ENTRY cl_context CL_API_CALL clCreateContextFromType(
   const cl_context_properties *properties, cl_device_type device_type,
   void(CL_CALLBACK *pfn_notify)(const char *, const void *, size_t, void *), void *user_data,
   cl_int *errcode_ret)
{
   cl_platform_id platform = kiln_api_platform();
   size_t nprops;
   cl_int err = parse_properties(properties, &nprops, __func__);
   if (err)
      API_FAIL_RET(errcode_ret, err, "bad properties");
   if (!pfn_notify && user_data)
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "user_data without pfn_notify");

   cl_uint num_devices = 0;
   err = clGetDeviceIDs(platform, device_type, 0, NULL, &num_devices);
   if (err)
      API_FAIL_RET(errcode_ret, err, "no device of type 0x%llx", (unsigned long long)device_type);
   cl_device_id devices[PIPE_LOADER_MAX_DEVICES];
   if (num_devices > PIPE_LOADER_MAX_DEVICES)
      num_devices = PIPE_LOADER_MAX_DEVICES;
   clGetDeviceIDs(platform, device_type, num_devices, devices, NULL);

   cl_context ctx = NULL;
   err = kiln_context_create(platform, properties, nprops, num_devices, devices, pfn_notify,
                             user_data, &ctx);
   if (err)
      API_FAIL_RET(errcode_ret, err, "out of host memory");
   kiln_set_error(errcode_ret, CL_SUCCESS);
   return ctx;
}

CL_API_ENTRY cl_int CL_API_CALL clRetainContext(cl_context context)
{
   cl_context ctx = kiln_context_from(context);
   if (!ctx)
      return API_FAIL(CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
   kiln_object_retain(&ctx->obj);
   return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseContext(cl_context context)
{
   cl_context ctx = kiln_context_from(context);
   if (!ctx)
      return API_FAIL(CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
   kiln_object_release(&ctx->obj);
   return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clGetContextInfo(cl_context context, cl_context_info param_name,
                                                 size_t param_value_size, void *param_value,
                                                 size_t *param_value_size_ret)
{
   cl_context ctx = kiln_context_from(context);
   if (!ctx)
      return API_FAIL(CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
   switch (param_name) {
   case CL_CONTEXT_REFERENCE_COUNT:
      INFO_VALUE(cl_uint, kiln_object_refcount(&ctx->obj));
   case CL_CONTEXT_DEVICES:
      INFO_ARRAY(ctx->devices, ctx->num_devices);
   case CL_CONTEXT_PROPERTIES:
      INFO_ARRAY(ctx->properties, ctx->num_properties);
   case CL_CONTEXT_NUM_DEVICES: /* 1.1 */
      INFO_VALUE(cl_uint, ctx->num_devices);
   default:
      return API_FAIL(CL_INVALID_VALUE, "unknown param_name 0x%x", param_name);
   }
}

/* OpenCL 3.0 (5.4): called when the context is destroyed, after every
 * object made in it is gone. */
CL_API_ENTRY cl_int CL_API_CALL clSetContextDestructorCallback(
   cl_context context, void(CL_CALLBACK *pfn_notify)(cl_context, void *), void *user_data)
{
   cl_context ctx = kiln_context_from(context);
   if (!ctx)
      return API_FAIL(CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
   if (!pfn_notify)
      return API_FAIL(CL_INVALID_VALUE, "pfn_notify is NULL");
   cl_int err = kiln_context_add_destructor_callback(ctx, pfn_notify, user_data);
   return err ? API_FAIL(err, "out of host memory") : CL_SUCCESS;
}
