/* The image descriptor of drivers whose kernels read images as linear
 * memory through Kiln's image functions (src/llvm/builtins/image.cl):
 * the CPU, and NVIDIA GPUs, where the descriptor lives in device memory. */
#ifndef KILN_PIPE_IMAGE_H
#define KILN_PIPE_IMAGE_H

#include <stdint.h>

#include "kiln/image.h"
#include "pipe/pipe.h"

/* The descriptor of view, whose element (0, 0, 0) is at device address
 * data. */
static inline struct kiln_image_desc pipe_image_desc(const struct pipe_image_view *iv,
                                                     uint64_t data)
{
   return (struct kiln_image_desc){
      .data = data,
      .row_pitch = iv->row_pitch,
      .slice_pitch = iv->slice_pitch,
      .width = (int32_t)iv->width,
      .height = (int32_t)iv->height,
      .depth = (int32_t)iv->depth,
      .channel_order = (int32_t)iv->format.image_channel_order,
      .channel_type = (int32_t)iv->format.image_channel_data_type,
      .elem_size = (int32_t)iv->elem_size,
   };
}

/* The image limits of such drivers: not the hardware's but what keeps an
 * image's byte offsets and a kernel's argument buffer (max_parameter_size)
 * in range: 128 image arguments of 8 bytes fill 1024 bytes.  OpenCL 1.2's
 * minimums: 2048 images per array (laid out like a 3D image, hence the 3D
 * depth), 65536 pixels per 1D image buffer, which is limited by its buffer
 * alone (the largest pixel, 16 bytes, of the largest buffer) up to
 * max_buffer_pixels (widths are ints in the descriptor).  Needs
 * caps->max_mem_alloc_size. */
static inline void pipe_image_linear_caps(struct pipe_caps *c, size_t max_buffer_pixels)
{
   c->image_support = true;
   c->max_read_image_args = 128;
   c->max_write_image_args = 64;
   c->max_samplers = 16;
   c->image2d_max_width = c->image2d_max_height = 16384;
   c->image3d_max_width = c->image3d_max_height = c->image3d_max_depth = 2048;
   c->image_max_array_size = 2048;
   c->image_max_buffer_size = c->max_mem_alloc_size / 16;
   if (c->image_max_buffer_size > max_buffer_pixels)
      c->image_max_buffer_size = max_buffer_pixels;
   if (c->image_max_buffer_size < 65536)
      c->image_max_buffer_size = 65536;
}

#endif
