/* Argument checks shared by the image entry points (api/image_transfer.c,
 * api/image_fill.c) and the command-buffer commands that record the same
 * image transfers (api/command_buffer_record.c), so both answer alike.
 *
 * Every image is a pixel layout in its resource: x in pixels, y in rows
 * of row_pitch bytes, z in slices of slice_pitch bytes.  An axis an image
 * type does not use has extent 1 (a 2D image has depth 1), so "origin +
 * region inside width x height x depth" is the whole bounds rule for
 * every type stored that way, 1D and array types included. */
#ifndef KILN_API_IMAGE_CHECK_H
#define KILN_API_IMAGE_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "core/command.h"

/* The queue, the contexts of the memory objects and of the wait list
 * (CL_INVALID_CONTEXT second), then the objects themselves: images where
 * image[i], buffers elsewhere (CL_INVALID_MEM_OBJECT).  Sets *qp and
 * out[]. */
cl_int kiln_api_image_check_objects(cl_command_queue command_queue, cl_uint num_mems,
                                    const cl_mem *mems, const bool *image, cl_uint num_events,
                                    const cl_event *wait_list, cl_command_queue *qp, cl_mem *out,
                                    const char *func);

/* origin and region not NULL, no zero extent, origin + region inside img
 * (CL_INVALID_VALUE otherwise). */
bool kiln_image_region_ok(cl_mem img, const size_t *origin, const size_t *region);

/* The bytes of origin/region in the image's resource: x in bytes, the
 * image's pitches, and the region with its width in bytes. */
void kiln_image_rect(cl_mem img, const size_t *origin, const size_t *region, struct kiln_rect *r,
                     size_t bytes_region[3]);

/* Two images with the same channel order and data type
 * (CL_IMAGE_FORMAT_MISMATCH otherwise). */
bool kiln_image_formats_match(cl_mem a, cl_mem b);

/* Whether the boxes origin a + region and origin b + region meet (a copy
 * within one image: CL_MEM_COPY_OVERLAP). */
bool kiln_image_boxes_meet(const size_t *a, const size_t *b, const size_t *region);

/* The tightly packed bytes of region in img (the buffer side of an image
 * <-> buffer copy); the image's dimensions bound each factor, so the
 * product of a valid region cannot wrap. */
size_t kiln_image_region_bytes(cl_mem img, const size_t *region);

/* What 1.2 asks of the device that runs a command on img: images at all
 * (CL_INVALID_OPERATION), the image's format (CL_IMAGE_FORMAT_NOT_SUPPORTED),
 * its dimensions (CL_INVALID_IMAGE_SIZE).  A context may hold devices with and without
 * images. */
cl_int kiln_api_image_device_check(cl_device_id dev, cl_mem img, const char *func);

#endif
