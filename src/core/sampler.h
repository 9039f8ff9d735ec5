/* Sampler objects (5.5): immutable addressing, filter and coordinate
 * modes, passed to kernels as their CLK_* bits (include/kiln/image.h). */
#ifndef KILN_CORE_SAMPLER_H
#define KILN_CORE_SAMPLER_H

#include "core/object.h"
#include "core/props.h"

struct _cl_sampler {
   struct kiln_object obj;
   cl_context context;
   cl_bool normalized_coords;
   cl_addressing_mode addressing_mode;
   cl_filter_mode filter_mode;
   /* clCreateSamplerWithProperties' list (CL_SAMPLER_PROPERTIES). */
   struct kiln_props props;
};

static inline cl_sampler kiln_sampler_from(cl_sampler s)
{
   return (cl_sampler)kiln_object_lookup(s, KILN_TYPE_SAMPLER);
}

cl_int kiln_sampler_create(cl_context ctx, cl_bool normalized, cl_addressing_mode addressing,
                           cl_filter_mode filter, cl_sampler *out);

/* The value a kernel's sampler_t argument carries. */
uint32_t kiln_sampler_bits(cl_sampler s);

#endif
