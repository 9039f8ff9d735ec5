/* clCreateSampler, clRetain/ReleaseSampler, clGetSamplerInfo (5.5). */
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
      return API_FAIL_HANDLE(param_name >= CL_SAMPLER_REFERENCE_COUNT &&
                                param_name <= CL_SAMPLER_FILTER_MODE,
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
   default:
      return API_FAIL(CL_INVALID_VALUE, "unknown param_name 0x%x", param_name);
   }
}
