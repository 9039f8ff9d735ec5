/* What an image or sampler kernel argument is on the CPU device: the
 * contract between core, which builds it at launch (src/core/ndrange.c),
 * and the builtins library, which reads it (src/llvm/builtins/image.cl).
 * This header is included by both C and OpenCL C.
 *
 * An image argument's slot holds the address of one struct
 * kiln_image_desc, which lives as long as the launch.  A sampler
 * argument's slot holds the sampler's CLK_* bits as an integer (the
 * same value program-scope samplers get from
 * __translate_sampler_initializer), never an address. */
#ifndef KILN_IMAGE_H
#define KILN_IMAGE_H

#ifdef __OPENCL_C_VERSION__
typedef ulong kiln_u64;
typedef int kiln_i32;
#else
#include <stdint.h>
typedef uint64_t kiln_u64;
typedef int32_t kiln_i32;
#endif

struct kiln_image_desc {
   kiln_u64 data;        /* address of element (0, 0, 0) */
   kiln_u64 row_pitch;   /* bytes */
   kiln_u64 slice_pitch; /* bytes; 0 for 2D images */
   kiln_i32 width, height, depth; /* depth 1 for 2D images */
   kiln_i32 channel_order;        /* CL_R ... (equal to CLK_R ...) */
   kiln_i32 channel_type;         /* CL_SNORM_INT8 ... */
   kiln_i32 elem_size;            /* bytes per element */
};

/* Sampler bits, as Clang's opencl-c-base.h defines CLK_*. */
#define KILN_SAMPLER_NORMALIZED 0x1
#define KILN_SAMPLER_ADDRESS_MASK 0xe
#define KILN_SAMPLER_ADDRESS_NONE 0x0
#define KILN_SAMPLER_ADDRESS_CLAMP_TO_EDGE 0x2
#define KILN_SAMPLER_ADDRESS_CLAMP 0x4
#define KILN_SAMPLER_ADDRESS_REPEAT 0x6
#define KILN_SAMPLER_ADDRESS_MIRRORED_REPEAT 0x8
#define KILN_SAMPLER_FILTER_NEAREST 0x10
#define KILN_SAMPLER_FILTER_LINEAR 0x20

/* The CUDA driver's image argument (src/pipe/cuda/cuda_image.c): the
 * linear descriptor, which is always valid, followed by the handles of
 * the image's CUDA array, which the nvptx image functions use instead
 * where they are not 0.  A launch makes both views hold the same texels
 * (docs/cuda.md, "Images").
 * - surface: a surface object for write_image* (0: writes go to data);
 * - tex[KILN_SAMPLER_INDEX(bits)]: the texture object that samples the
 *   array as a sampler with those bits does (0: read data in software). */
#define KILN_IMAGE_HW_SAMPLERS 20
/* 0..19: normalized (1) + addressing mode (0, 2, ..., 8) + 10 for LINEAR. */
#define KILN_SAMPLER_INDEX(bits) \
   (((bits) & 0x1) + ((bits) & 0xe) + (((bits) & KILN_SAMPLER_FILTER_LINEAR) ? 10 : 0))

struct kiln_image_hw {
   struct kiln_image_desc desc;
   kiln_u64 surface;
   kiln_u64 tex[KILN_IMAGE_HW_SAMPLERS];
};

#endif
