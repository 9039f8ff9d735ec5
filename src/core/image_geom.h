/* Image geometry that does not depend on the entry point asking: the
 * largest extents a context's devices allow, and the storage layout
 * (extents, pitches) of a new image.  The API (src/api/image_create.c)
 * checks the application's descriptor against these. */
#ifndef KILN_CORE_IMAGE_GEOM_H
#define KILN_CORE_IMAGE_GEOM_H

#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/mem.h"

/* Whether any device of ctx supports images. */
bool kiln_context_has_images(cl_context ctx);

/* Whether any device of ctx takes read_write image arguments
 * (CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS > 0). */
bool kiln_context_has_read_write_images(cl_context ctx);

/* The largest extents any image-capable device of ctx allows for an image
 * of type (0 when none supports images): width, then height or a 1D
 * array's layer count, then depth or a 2D array's layer count. */
void kiln_context_image_max(cl_context ctx, cl_mem_object_type type, size_t max[3]);

/* The storage geometry of a new image of type with extent (in the terms
 * of struct _cl_mem: extent[1] is a 1D array's layer count, extent[2] a
 * 2D array's) and elem-byte elements.  row_pitch and slice_pitch are the
 * application's, given with a host pointer (0: tight); pass 0 for both
 * without one.  A 1D array stores a layer per row, so its storage row
 * pitch is the layer (slice) pitch.  The extents must be within the
 * device limits (kiln_context_image_max), so the products fit. */
void kiln_image_geom_init(struct kiln_image_geom *g, cl_mem_object_type type,
                          const size_t extent[3], size_t elem, size_t row_pitch,
                          size_t slice_pitch);

#endif
