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

#endif
