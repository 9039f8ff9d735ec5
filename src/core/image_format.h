/* The image formats of OpenCL 1.1 (tables 5.4 and 5.5): which channel
 * order / data type pairs are valid descriptors, how large an element is,
 * and the list Kiln's devices support (every valid pair: the CPU device
 * converts all of them in software, src/llvm/builtins/image.cl). */
#ifndef KILN_CORE_IMAGE_FORMAT_H
#define KILN_CORE_IMAGE_FORMAT_H

#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>

/* Whether fmt names a known order and type that 5.2.4.1 allows together
 * (CL_INVALID_IMAGE_FORMAT_DESCRIPTOR otherwise). */
bool kiln_image_format_valid(const cl_image_format *fmt);

/* Bytes per element of a valid format. */
size_t kiln_image_format_size(const cl_image_format *fmt);

/* Whether a device with image support can create images of fmt. */
bool kiln_image_format_supported(const cl_image_format *fmt);

/* The supported formats, in a fixed order; returns how many there are and
 * copies at most max of them to out (which may be NULL). */
cl_uint kiln_image_formats_list(cl_image_format *out, cl_uint max);

#endif
