/* cl_khr_fp16's read_imageh and write_imageh (OpenCL 1.2 §9.5.8.1), for
 * the CPU device only (image.cl is also compiled for NVIDIA GPUs, which
 * have no half).
 *
 * read_imageh is read_imagef rounded to half (round to nearest even): a
 * normalized format's value, a half image's texel (exact) or a float
 * image's texel, and a filtered sample, computed in float as
 * read_imagef's.  write_imageh widens the colour exactly and writes it as
 * write_imagef does, so a half image stores the same bits back. */
#include "kiln_cl.h"

#pragma OPENCL EXTENSION cl_khr_3d_image_writes : enable

#define READ_H(IMG, CI, CF) \
  OVL half4 read_imageh(read_only IMG img, sampler_t s, CI c) { \
     return convert_half4(read_imagef(img, s, c)); } \
  OVL half4 read_imageh(read_only IMG img, sampler_t s, CF c) { \
     return convert_half4(read_imagef(img, s, c)); }
#define READ_H_NO_SAMPLER(IMG, CI) \
  OVL half4 read_imageh(read_only IMG img, CI c) { return convert_half4(read_imagef(img, c)); }
#define WRITE_H(IMG, CI) \
  OVL void write_imageh(write_only IMG img, CI c, half4 v) { write_imagef(img, c, convert_float4(v)); }

READ_H(image1d_t, int, float)
READ_H(image2d_t, int2, float2)
READ_H(image3d_t, int4, float4)
READ_H(image1d_array_t, int2, float2)
READ_H(image2d_array_t, int4, float4)
READ_H_NO_SAMPLER(image1d_t, int)
READ_H_NO_SAMPLER(image1d_buffer_t, int)
READ_H_NO_SAMPLER(image1d_array_t, int2)
READ_H_NO_SAMPLER(image2d_t, int2)
READ_H_NO_SAMPLER(image2d_array_t, int4)
READ_H_NO_SAMPLER(image3d_t, int4)
WRITE_H(image1d_t, int)
WRITE_H(image1d_buffer_t, int)
WRITE_H(image1d_array_t, int2)
WRITE_H(image2d_t, int2)
WRITE_H(image2d_array_t, int4)
WRITE_H(image3d_t, int4)

/* read_write images (the CPU library is compiled with the feature). */
#ifdef __opencl_c_read_write_images
#define READ_H_RW(IMG, CI) \
  OVL half4 read_imageh(read_write IMG img, CI c) { return convert_half4(read_imagef(img, c)); }
#define WRITE_H_RW(IMG, CI) \
  OVL void write_imageh(read_write IMG img, CI c, half4 v) { write_imagef(img, c, convert_float4(v)); }
READ_H_RW(image1d_t, int)
READ_H_RW(image1d_buffer_t, int)
READ_H_RW(image1d_array_t, int2)
READ_H_RW(image2d_t, int2)
READ_H_RW(image2d_array_t, int4)
READ_H_RW(image3d_t, int4)
WRITE_H_RW(image1d_t, int)
WRITE_H_RW(image1d_buffer_t, int)
WRITE_H_RW(image1d_array_t, int2)
WRITE_H_RW(image2d_t, int2)
WRITE_H_RW(image2d_array_t, int4)
WRITE_H_RW(image3d_t, int4)
#endif
