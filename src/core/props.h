/* OpenCL 3.0 property lists (clCreateBufferWithProperties,
 * clCreateCommandQueueWithProperties, clCreateSamplerWithProperties,
 * clCreatePipe): the object keeps the application's list exactly as given
 * so that CL_MEM_PROPERTIES, CL_QUEUE_PROPERTIES_ARRAY and
 * CL_SAMPLER_PROPERTIES can return it unchanged (3.0 asks for the same
 * values in the same order, and size 0 when NULL was passed). */
#ifndef KILN_CORE_PROPS_H
#define KILN_CORE_PROPS_H

#include <CL/cl.h>
#include <stddef.h>

struct kiln_props {
   cl_properties *list; /* NULL when the application passed NULL */
   size_t count;        /* entries, the terminating 0 included */
};

/* Number of entries of a 0-terminated list, the 0 included (0 for NULL). */
size_t kiln_props_count(const cl_properties *src);
/* Copies src (NULL allowed) into p; CL_OUT_OF_HOST_MEMORY on failure. */
cl_int kiln_props_copy(struct kiln_props *p, const cl_properties *src);
void kiln_props_fini(struct kiln_props *p);

#endif
