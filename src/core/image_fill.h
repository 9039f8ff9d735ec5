/* Image fills (clEnqueueFillImage, clCommandFillImageKHR): the fill colour
 * converted once to one pixel of the image's format, then written over a
 * region of the image's pixel layout (x in bytes, rows of row_pitch,
 * slices of slice_pitch: how every image type, 1D and array types
 * included, is stored), one row at a time from a row of repeated pixels
 * built before the command runs. */
#ifndef KILN_CORE_IMAGE_FILL_H
#define KILN_CORE_IMAGE_FILL_H

#include <stddef.h>

#include "core/command.h"

struct pipe_context;
struct pipe_resource;

/* The largest pixel of any format: four 32-bit channels. */
#define KILN_IMAGE_MAX_PIXEL 16

/* Converts fill_color to one pixel of fmt as write_imagef/i/ui would
 * store it (5.3.5 of OpenCL 1.2): a float4 for normalized and float
 * formats (rounded to nearest even and saturated; NaN becomes 0), an
 * int4 for signed and a uint4 for unsigned integer formats (saturated),
 * placed in the channels of the format's order.  Returns the pixel's size
 * in bytes, 0 for a format it does not know. */
size_t kiln_image_fill_pixel(const cl_image_format *fmt, const void *fill_color,
                             unsigned char pixel[KILN_IMAGE_MAX_PIXEL]);

/* A row of count pixels (kiln_malloc'd; NULL when out of memory). */
unsigned char *kiln_image_fill_row(const unsigned char *pixel, size_t pixel_size, size_t count);

/* Writes row (bytes_region[0] bytes) into each row of the rectangle r,
 * bytes_region[1] rows by bytes_region[2] slices, of res at base. */
void kiln_image_fill_run(struct pipe_context *p, struct pipe_resource *res, size_t base,
                         const struct kiln_rect *r, const size_t bytes_region[3],
                         const unsigned char *row);

/* The command clEnqueueFillImage enqueues: pixel (pixel_size bytes) over
 * r / bytes_region of img, which it holds until the command completes. */
cl_int kiln_enqueue_fill_image(cl_command_queue q, cl_mem img, const unsigned char *pixel,
                               size_t pixel_size, const struct kiln_rect *r,
                               const size_t bytes_region[3], struct kiln_wait_list wait,
                               cl_event *ev);

#endif
