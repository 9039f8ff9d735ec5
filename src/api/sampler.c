/* clCreateSampler(WithProperties), clRetain/ReleaseSampler,
 * clGetSamplerInfo (5.5). */
#include "api/api.h"
#include "core/context.h"
#include "core/device.h"
#include "core/sampler.h"

CL_API_ENTRY cl_sampler CL_API_CALL clCreateSampler(cl_context context, cl_bool normalized_coords,
                                                    cl_addressing_mode addressing_mode,
                                                    cl_filter_mode filter_mode,
                                                    cl_int *errcode_ret)
{
   cl_context ctx = kiln_context_from(context);
   if (!ctx)
      API_FAIL_RET(errcode_ret, CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
   bool addressing_ok = addressing_mode == CL_ADDRESS_NONE ||
                        addressing_mode == CL_ADDRESS_CLAMP_TO_EDGE ||
                        addressing_mode == CL_ADDRESS_CLAMP ||
                        addressing_mode == CL_ADDRESS_REPEAT ||
                        addressing_mode == CL_ADDRESS_MIRRORED_REPEAT;
   bool filter_ok = filter_mode == CL_FILTER_NEAREST || filter_mode == CL_FILTER_LINEAR;
   if (!addressing_ok || !filter_ok)
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE,
                   "normalized_coords %u, addressing_mode 0x%x, filter_mode 0x%x",
                   normalized_coords, addressing_mode, filter_mode);
   bool images = false;
   for (cl_uint i = 0; i < ctx->num_devices; i++)
      images |= ctx->devices[i]->caps->image_support;
   if (!images)
      API_FAIL_RET(errcode_ret, CL_INVALID_OPERATION, "no device of the context has images");
   cl_sampler s = NULL;
   cl_int err = kiln_sampler_create(ctx, normalized_coords, addressing_mode, filter_mode, &s);
   if (err)
      API_FAIL_RET(errcode_ret, err, "out of host memory");
   kiln_set_error(errcode_ret, CL_SUCCESS);
   return s;
}

/* OpenCL 2.0's form: the same three modes as a property list, each at
 * most once, with 2.0's defaults (normalized, clamp, nearest).  The mip
 * filter properties belong to cl_khr_mipmap_image, which no device has. */
CL_API_ENTRY cl_sampler CL_API_CALL clCreateSamplerWithProperties(
   cl_context context, const cl_sampler_properties *sampler_properties, cl_int *errcode_ret)
{
   cl_context ctx = kiln_context_from(context);
   if (!ctx)
      API_FAIL_RET(errcode_ret, CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
   cl_bool normalized = CL_TRUE;
   cl_addressing_mode addressing = CL_ADDRESS_CLAMP;
   cl_filter_mode filter = CL_FILTER_NEAREST;
   bool seen[3] = {false, false, false};
   for (size_t i = 0; sampler_properties && sampler_properties[i]; i += 2) {
      cl_sampler_properties name = sampler_properties[i], value = sampler_properties[i + 1];
      int which = name == CL_SAMPLER_NORMALIZED_COORDS ? 0
                : name == CL_SAMPLER_ADDRESSING_MODE  ? 1
                : name == CL_SAMPLER_FILTER_MODE      ? 2
                                                      : -1;
      if (which < 0)
         API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "unknown sampler property 0x%llx",
                      (unsigned long long)name);
      if (seen[which])
         API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "sampler property 0x%llx given twice",
                      (unsigned long long)name);
      seen[which] = true;
      if (which == 0) {
         if (value != CL_TRUE && value != CL_FALSE)
            API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "CL_SAMPLER_NORMALIZED_COORDS %llu",
                         (unsigned long long)value);
         normalized = (cl_bool)value;
      } else if (which == 1) {
         addressing = (cl_addressing_mode)value;
         if (value != addressing) /* out of the enum's range: invalid below */
            addressing = 0;
      } else {
         filter = (cl_filter_mode)value;
         if (value != filter)
            filter = 0;
      }
   }
   struct kiln_props copy;
   if (kiln_props_copy(&copy, sampler_properties))
      API_FAIL_RET(errcode_ret, CL_OUT_OF_HOST_MEMORY, "out of host memory");
   cl_sampler s = clCreateSampler(context, normalized, addressing, filter, errcode_ret);
   if (!s) {
      kiln_props_fini(&copy);
      return NULL;
   }
   s->props = copy; /* no other thread has the handle yet */
   return s;
}

CL_API_ENTRY cl_int CL_API_CALL clRetainSampler(cl_sampler sampler)
{
   cl_sampler s = kiln_sampler_from(sampler);
   if (!s)
      return API_FAIL(CL_INVALID_SAMPLER, "%p is not a sampler", (void *)sampler);
   kiln_object_retain(&s->obj);
   return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseSampler(cl_sampler sampler)
{
   cl_sampler s = kiln_sampler_from(sampler);
   if (!s)
      return API_FAIL(CL_INVALID_SAMPLER, "%p is not a sampler", (void *)sampler);
   kiln_object_release(&s->obj);
   return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clGetSamplerInfo(cl_sampler sampler, cl_sampler_info param_name,
                                                 size_t param_value_size, void *param_value,
                                                 size_t *param_value_size_ret)
{
   cl_sampler s = kiln_sampler_from(sampler);
   if (!s)
      return API_FAIL_HANDLE((param_name >= CL_SAMPLER_REFERENCE_COUNT &&
                                 param_name <= CL_SAMPLER_FILTER_MODE) ||
                                param_name == CL_SAMPLER_PROPERTIES,
                             param_name, CL_INVALID_SAMPLER, sampler, "a sampler");
   switch (param_name) {
   case CL_SAMPLER_REFERENCE_COUNT:
      INFO_VALUE(cl_uint, kiln_object_refcount(&s->obj));
   case CL_SAMPLER_CONTEXT:
      INFO_VALUE(cl_context, s->context);
   case CL_SAMPLER_NORMALIZED_COORDS:
      INFO_VALUE(cl_bool, s->normalized_coords);
   case CL_SAMPLER_ADDRESSING_MODE:
      INFO_VALUE(cl_addressing_mode, s->addressing_mode);
   case CL_SAMPLER_FILTER_MODE:
      INFO_VALUE(cl_filter_mode, s->filter_mode);
   case CL_SAMPLER_PROPERTIES: /* 3.0 */
      INFO_ARRAY(s->props.list, s->props.count);
   default:
      return API_FAIL(CL_INVALID_VALUE, "unknown param_name 0x%x", param_name);
   }
}
