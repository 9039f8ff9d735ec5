#include "core/sampler.h"

#include "core/context.h"
#include "kiln/image.h"

static void sampler_destroy(struct kiln_object *obj)
{
   cl_sampler s = (cl_sampler)obj;
   kiln_props_fini(&s->props);
   kiln_object_unref(&s->context->obj);
   kiln_object_free(s);
}

cl_int kiln_sampler_create(cl_context ctx, cl_bool normalized, cl_addressing_mode addressing,
                           cl_filter_mode filter, cl_sampler *out)
{
   cl_sampler s = kiln_object_alloc(sizeof(*s));
   if (!s)
      return CL_OUT_OF_HOST_MEMORY;
   s->context = ctx;
   s->normalized_coords = normalized ? CL_TRUE : CL_FALSE;
   s->addressing_mode = addressing;
   s->filter_mode = filter;
   kiln_object_ref(&ctx->obj);
   if (!kiln_object_init(&s->obj, KILN_TYPE_SAMPLER, sampler_destroy)) {
      sampler_destroy(&s->obj);
      return CL_OUT_OF_HOST_MEMORY;
   }
   *out = s;
   return CL_SUCCESS;
}

uint32_t kiln_sampler_bits(cl_sampler s)
{
   uint32_t bits = s->normalized_coords ? KILN_SAMPLER_NORMALIZED : 0;
   switch (s->addressing_mode) {
   case CL_ADDRESS_CLAMP_TO_EDGE: bits |= KILN_SAMPLER_ADDRESS_CLAMP_TO_EDGE; break;
   case CL_ADDRESS_CLAMP: bits |= KILN_SAMPLER_ADDRESS_CLAMP; break;
   case CL_ADDRESS_REPEAT: bits |= KILN_SAMPLER_ADDRESS_REPEAT; break;
   case CL_ADDRESS_MIRRORED_REPEAT: bits |= KILN_SAMPLER_ADDRESS_MIRRORED_REPEAT; break;
   default: break;
   }
   bits |= s->filter_mode == CL_FILTER_LINEAR ? KILN_SAMPLER_FILTER_LINEAR
                                              : KILN_SAMPLER_FILTER_NEAREST;
   return bits;
}
