/* §6.11.13 image functions and the §8 addressing, filtering and
 * conversion rules, for the CPU device.
 *
 * An image argument points to a struct kiln_image_desc that core builds
 * at launch (include/kiln/image.h); a sampler is its CLK_* bits carried
 * in the pointer value.  OpenCL C cannot look inside image2d_t or
 * sampler_t, so the few functions that turn them into a descriptor
 * pointer or the bits are written in IR (image_glue.ll).
 *
 * The descriptor and the pixel data are reached through private (address
 * space 0) pointers on purpose: the image code clamps every coordinate
 * before it touches memory, so KILN_CHECK=bounds (which instruments only
 * __global, __constant and __local accesses) has nothing to check here and
 * no image access is mistaken for one outside the launch's buffers.
 *
 * Results the spec leaves undefined (integer reads with LINEAR, REPEAT or
 * MIRRORED_REPEAT with unnormalized coordinates, a read function that does
 * not match the channel type, out-of-range writes, coordinates out of range
 * with CLK_ADDRESS_NONE) never read or write outside the image: they give
 * the edge texel or the border colour, and a write out of range is
 * dropped. */
#include "kiln_cl.h"
#include "kiln/image.h"

#pragma OPENCL EXTENSION cl_khr_3d_image_writes : enable

typedef struct kiln_image_desc desc_t;

/* image_glue.ll */
OVL const desc_t *__kiln_image(read_only image2d_t img);
OVL const desc_t *__kiln_image(write_only image2d_t img);
OVL const desc_t *__kiln_image(read_only image3d_t img);
OVL const desc_t *__kiln_image(write_only image3d_t img);
OVL const desc_t *__kiln_image(read_only image1d_t img);
OVL const desc_t *__kiln_image(write_only image1d_t img);
OVL const desc_t *__kiln_image(read_only image1d_buffer_t img);
OVL const desc_t *__kiln_image(write_only image1d_buffer_t img);
OVL const desc_t *__kiln_image(read_only image1d_array_t img);
OVL const desc_t *__kiln_image(write_only image1d_array_t img);
OVL const desc_t *__kiln_image(read_only image2d_array_t img);
OVL const desc_t *__kiln_image(write_only image2d_array_t img);
#ifdef __opencl_c_read_write_images
OVL const desc_t *__kiln_image(read_write image2d_t img);
OVL const desc_t *__kiln_image(read_write image3d_t img);
OVL const desc_t *__kiln_image(read_write image1d_t img);
OVL const desc_t *__kiln_image(read_write image1d_buffer_t img);
OVL const desc_t *__kiln_image(read_write image1d_array_t img);
OVL const desc_t *__kiln_image(read_write image2d_array_t img);
#endif
uint __kiln_sampler_bits(sampler_t s);

/* Helpers are external (OpenCL C 1.1 has no static functions), hence
 * the prefix; always_inline keeps them out of the kernels. */
#define INLINE __attribute__((always_inline))
/* The per-format load and store of one texel stay out of line: the
 * channel type and order are known only at launch, so inlined each read
 * or write brings a switch over every format (~250 IR lines); a kernel
 * with a hundred reads (darktable's locallaplacian.cl) then spent ~10 s
 * in O3's LICM and the code generator.  RGBA float, the format of every
 * darktable image, keeps an inline fast path (one compare, one load), so
 * only the other formats pay the call.  The addressing, which a constant
 * sampler folds, stays inline. */
#define OUTLINE __attribute__((noinline))

/* ---- element storage ---- */

INLINE uchar *__kiln_img_texel_ptr(const desc_t *d, int x, int y, int z)
{
   return (uchar *)d->data + (ulong)z * d->slice_pitch + (ulong)y * d->row_pitch +
          (ulong)x * (ulong)d->elem_size;
}

INLINE int __kiln_img_num_channels(int order)
{
   switch (order) {
   case CLK_RG:
   case CLK_RA:
      return 2;
   case CLK_RGB:
      return 3;
   case CLK_RGBA:
   case CLK_BGRA:
   case CLK_ARGB:
      return 4;
   default:
      return 1;
   }
}

INLINE bool __kiln_img_has_alpha(int order)
{
   return order == CLK_A || order == CLK_RA || order == CLK_RGBA || order == CLK_BGRA ||
          order == CLK_ARGB || order == CLK_INTENSITY;
}

/* Storage-order channels (c.s0 is the first in memory) to (r, g, b, a):
 * missing colour channels read 0, a missing alpha `one` (§8.3). */
#define SWIZZLE_IN(T, c, order, one)                                                \
   switch (order) {                                                                \
   case CLK_R: return (T)(c.s0, 0, 0, one);                                        \
   case CLK_A: return (T)(0, 0, 0, c.s0);                                          \
   case CLK_RG: return (T)(c.s0, c.s1, 0, one);                                    \
   case CLK_RA: return (T)(c.s0, 0, 0, c.s1);                                      \
   case CLK_RGB: return (T)(c.s0, c.s1, c.s2, one);                                \
   case CLK_BGRA: return (T)(c.s2, c.s1, c.s0, c.s3);                              \
   case CLK_ARGB: return (T)(c.s1, c.s2, c.s3, c.s0);                              \
   case CLK_INTENSITY: return (T)(c.s0, c.s0, c.s0, c.s0);                         \
   case CLK_LUMINANCE: return (T)(c.s0, c.s0, c.s0, one);                          \
   default: return c;                                                              \
   }

/* (r, g, b, a) to storage order; INTENSITY and LUMINANCE store red. */
#define SWIZZLE_OUT(T, v, order)                                                    \
   switch (order) {                                                                \
   case CLK_A: return (T)(v.s3, 0, 0, 0);                                          \
   case CLK_RA: return (T)(v.s0, v.s3, 0, 0);                                      \
   case CLK_BGRA: return (T)(v.s2, v.s1, v.s0, v.s3);                              \
   case CLK_ARGB: return (T)(v.s3, v.s0, v.s1, v.s2);                              \
   default: return v;                                                              \
   }

INLINE float4 __kiln_img_swizzle_in_f(float4 c, int order) { SWIZZLE_IN(float4, c, order, 1.0f) }
INLINE int4 __kiln_img_swizzle_in_i(int4 c, int order) { SWIZZLE_IN(int4, c, order, 1) }
INLINE float4 __kiln_img_swizzle_out_f(float4 v, int order) { SWIZZLE_OUT(float4, v, order) }
INLINE int4 __kiln_img_swizzle_out_i(int4 v, int order) { SWIZZLE_OUT(int4, v, order) }

/* Channel i of an element as float (§8.3.1: normalized integers to [0, 1]
 * or [-1, 1]; integer types, which read_imagef may not read, by value). */
INLINE float __kiln_img_load_chan_f(const uchar *p, int type, int i)
{
   switch (type) {
   case CLK_UNORM_INT8: return (float)p[i] / 255.0f;
   case CLK_UNORM_INT16: return (float)((const ushort *)p)[i] / 65535.0f;
   case CLK_SNORM_INT8: return fmax(-1.0f, (float)((const char *)p)[i] / 127.0f);
   case CLK_SNORM_INT16: return fmax(-1.0f, (float)((const short *)p)[i] / 32767.0f);
   case CLK_HALF_FLOAT: return vload_half(i, (const half *)p);
   case CLK_FLOAT: return ((const float *)p)[i];
   case CLK_SIGNED_INT8: return (float)((const char *)p)[i];
   case CLK_SIGNED_INT16: return (float)((const short *)p)[i];
   case CLK_SIGNED_INT32: return (float)((const int *)p)[i];
   case CLK_UNSIGNED_INT8: return (float)p[i];
   case CLK_UNSIGNED_INT16: return (float)((const ushort *)p)[i];
   case CLK_UNSIGNED_INT32: return (float)((const uint *)p)[i];
   default: return 0.0f;
   }
}

/* Channel i as a 32-bit integer: signed types sign-extend, unsigned ones
 * zero-extend (read_imageui reads the bits back as uint). */
INLINE int __kiln_img_load_chan_i(const uchar *p, int type, int i)
{
   switch (type) {
   case CLK_SIGNED_INT8: return ((const char *)p)[i];
   case CLK_SIGNED_INT16: return ((const short *)p)[i];
   case CLK_SIGNED_INT32: return ((const int *)p)[i];
   case CLK_UNSIGNED_INT8: return p[i];
   case CLK_UNSIGNED_INT16: return ((const ushort *)p)[i];
   case CLK_UNSIGNED_INT32: return ((const int *)p)[i];
   default: return 0;
   }
}

OUTLINE float4 __kiln_img_load_f_any(const desc_t *d, int x, int y, int z)
{
   const uchar *p = __kiln_img_texel_ptr(d, x, y, z);
   float4 c = (float4)(0.0f);
   switch (d->channel_type) {
   case CLK_UNORM_SHORT_565: {
      uint v = *(const ushort *)p;
      c = (float4)((v >> 11) & 31, (v >> 5) & 63, v & 31, 0) / (float4)(31.0f, 63.0f, 31.0f, 1.0f);
      break;
   }
   case CLK_UNORM_SHORT_555: {
      uint v = *(const ushort *)p;
      c = (float4)((v >> 10) & 31, (v >> 5) & 31, v & 31, 0) / 31.0f;
      break;
   }
   case CLK_UNORM_INT_101010: {
      uint v = *(const uint *)p;
      c = (float4)((v >> 20) & 1023, (v >> 10) & 1023, v & 1023, 0) / 1023.0f;
      break;
   }
   default: {
      int n = __kiln_img_num_channels(d->channel_order);
      c.s0 = __kiln_img_load_chan_f(p, d->channel_type, 0);
      if (n > 1)
         c.s1 = __kiln_img_load_chan_f(p, d->channel_type, 1);
      if (n > 2)
         c.s2 = __kiln_img_load_chan_f(p, d->channel_type, 2);
      if (n > 3)
         c.s3 = __kiln_img_load_chan_f(p, d->channel_type, 3);
   }
   }
   return __kiln_img_swizzle_in_f(c, d->channel_order);
}

INLINE float4 __kiln_img_load_f(const desc_t *d, int x, int y, int z)
{
   if (d->channel_type == CLK_FLOAT && d->channel_order == CLK_RGBA)
      return vload4(0, (const float *)__kiln_img_texel_ptr(d, x, y, z));
   return __kiln_img_load_f_any(d, x, y, z);
}

OUTLINE int4 __kiln_img_load_i(const desc_t *d, int x, int y, int z)
{
   const uchar *p = __kiln_img_texel_ptr(d, x, y, z);
   int n = __kiln_img_num_channels(d->channel_order);
   int4 c = (int4)(0);
   c.s0 = __kiln_img_load_chan_i(p, d->channel_type, 0);
   if (n > 1)
      c.s1 = __kiln_img_load_chan_i(p, d->channel_type, 1);
   if (n > 2)
      c.s2 = __kiln_img_load_chan_i(p, d->channel_type, 2);
   if (n > 3)
      c.s3 = __kiln_img_load_chan_i(p, d->channel_type, 3);
   return __kiln_img_swizzle_in_i(c, d->channel_order);
}

/* §8.3.1.2: round to nearest even and saturate (NaN becomes 0). */
INLINE void __kiln_img_store_chan_f(uchar *p, int type, int i, float v)
{
   switch (type) {
   case CLK_UNORM_INT8: p[i] = convert_uchar_sat_rte(v * 255.0f); break;
   case CLK_UNORM_INT16: ((ushort *)p)[i] = convert_ushort_sat_rte(v * 65535.0f); break;
   case CLK_SNORM_INT8: ((char *)p)[i] = convert_char_sat_rte(v * 127.0f); break;
   case CLK_SNORM_INT16: ((short *)p)[i] = convert_short_sat_rte(v * 32767.0f); break;
   case CLK_HALF_FLOAT: vstore_half_rte(v, i, (half *)p); break;
   case CLK_FLOAT: ((float *)p)[i] = v; break;
   default: break; /* write_imagef to an integer image: undefined, dropped */
   }
}

/* write_imagei/ui: saturate to the channel's range (§8.3.2, §8.3.3). */
INLINE void __kiln_img_store_chan_i(uchar *p, int type, int i, int v, bool from_signed)
{
   uint u = as_uint(v);
   switch (type) {
   case CLK_SIGNED_INT8: ((char *)p)[i] = from_signed ? convert_char_sat(v) : convert_char_sat(u); break;
   case CLK_SIGNED_INT16: ((short *)p)[i] = from_signed ? convert_short_sat(v) : convert_short_sat(u); break;
   case CLK_SIGNED_INT32: ((int *)p)[i] = v; break;
   case CLK_UNSIGNED_INT8: p[i] = from_signed ? convert_uchar_sat(v) : convert_uchar_sat(u); break;
   case CLK_UNSIGNED_INT16: ((ushort *)p)[i] = from_signed ? convert_ushort_sat(v) : convert_ushort_sat(u); break;
   case CLK_UNSIGNED_INT32: ((uint *)p)[i] = u; break;
   default: break;
   }
}

OUTLINE void __kiln_img_store_f_any(const desc_t *d, int x, int y, int z, float4 v)
{
   uchar *p = __kiln_img_texel_ptr(d, x, y, z);
   switch (d->channel_type) {
   case CLK_UNORM_SHORT_565: {
      uint4 c = min(convert_uint4_sat_rte(v * (float4)(31.0f, 63.0f, 31.0f, 0.0f)),
                    (uint4)(31, 63, 31, 0));
      *(ushort *)p = (ushort)((c.x << 11) | (c.y << 5) | c.z);
      return;
   }
   case CLK_UNORM_SHORT_555: {
      uint4 c = convert_uint4_sat_rte(v * 31.0f);
      c = min(c, (uint4)31);
      *(ushort *)p = (ushort)((c.x << 10) | (c.y << 5) | c.z);
      return;
   }
   case CLK_UNORM_INT_101010: {
      uint4 c = min(convert_uint4_sat_rte(v * 1023.0f), (uint4)1023);
      *(uint *)p = (c.x << 20) | (c.y << 10) | c.z;
      return;
   }
   }
   float4 c = __kiln_img_swizzle_out_f(v, d->channel_order);
   int n = __kiln_img_num_channels(d->channel_order);
   __kiln_img_store_chan_f(p, d->channel_type, 0, c.s0);
   if (n > 1)
      __kiln_img_store_chan_f(p, d->channel_type, 1, c.s1);
   if (n > 2)
      __kiln_img_store_chan_f(p, d->channel_type, 2, c.s2);
   if (n > 3)
      __kiln_img_store_chan_f(p, d->channel_type, 3, c.s3);
}

INLINE void __kiln_img_store_f(const desc_t *d, int x, int y, int z, float4 v)
{
   if (d->channel_type == CLK_FLOAT && d->channel_order == CLK_RGBA)
      vstore4(v, 0, (float *)__kiln_img_texel_ptr(d, x, y, z));
   else
      __kiln_img_store_f_any(d, x, y, z, v);
}

OUTLINE void __kiln_img_store_i(const desc_t *d, int x, int y, int z, int4 v, bool from_signed)
{
   uchar *p = __kiln_img_texel_ptr(d, x, y, z);
   int4 c = __kiln_img_swizzle_out_i(v, d->channel_order);
   int n = __kiln_img_num_channels(d->channel_order);
   __kiln_img_store_chan_i(p, d->channel_type, 0, c.s0, from_signed);
   if (n > 1)
      __kiln_img_store_chan_i(p, d->channel_type, 1, c.s1, from_signed);
   if (n > 2)
      __kiln_img_store_chan_i(p, d->channel_type, 2, c.s2, from_signed);
   if (n > 3)
      __kiln_img_store_chan_i(p, d->channel_type, 3, c.s3, from_signed);
}

/* ---- addressing (§8.2) ---- */

/* floor'ed coordinate to int without undefined conversions: NaN and
 * values beyond [lo, hi] become lo or hi. */
INLINE int __kiln_img_to_index(float f, int lo, int hi)
{
   return (int)fmin(fmax(f, (float)lo), (float)hi);
}

INLINE bool __kiln_img_inside(int4 i, int4 size)
{
   return all(i >= (int4)0 && i < size);
}

/* The texel a nearest lookup takes along one axis of n texels; -1 or n
 * stand for the border (CLAMP, and NONE out of range). */
INLINE int __kiln_img_nearest_axis(float s, int n, uint bits)
{
   uint mode = bits & KILN_SAMPLER_ADDRESS_MASK;
   bool norm = bits & KILN_SAMPLER_NORMALIZED;
   if (norm && mode == KILN_SAMPLER_ADDRESS_REPEAT) {
      float u = (s - floor(s)) * n;
      int i = __kiln_img_to_index(floor(u), 0, n);
      return i > n - 1 ? i - n : i;
   }
   if (norm && mode == KILN_SAMPLER_ADDRESS_MIRRORED_REPEAT) {
      float m = fabs(s - 2.0f * rint(0.5f * s));
      return min(__kiln_img_to_index(floor(m * n), 0, n), n - 1);
   }
   int i = __kiln_img_to_index(floor(norm ? s * n : s), -1, n);
   /* CLAMP_TO_EDGE, and the undefined unnormalized REPEAT/MIRRORED. */
   if (mode != KILN_SAMPLER_ADDRESS_CLAMP && mode != KILN_SAMPLER_ADDRESS_NONE)
      i = clamp(i, 0, n - 1);
   return i;
}

/* The two texels and the weight of the second for LINEAR. */
INLINE int2 __kiln_img_linear_axis(float s, int n, uint bits, float *a)
{
   uint mode = bits & KILN_SAMPLER_ADDRESS_MASK;
   bool norm = bits & KILN_SAMPLER_NORMALIZED;
   float u;
   if (norm && mode == KILN_SAMPLER_ADDRESS_REPEAT)
      u = (s - floor(s)) * n;
   else if (norm && mode == KILN_SAMPLER_ADDRESS_MIRRORED_REPEAT)
      u = fabs(s - 2.0f * rint(0.5f * s)) * n;
   else
      u = norm ? s * n : s;
   float f = floor(u - 0.5f);
   *a = (u - 0.5f) - f;
   int i0 = __kiln_img_to_index(f, -1, n), i1 = __kiln_img_to_index(f + 1.0f, -1, n);
   if (norm && mode == KILN_SAMPLER_ADDRESS_REPEAT) {
      if (i0 < 0)
         i0 += n;
      if (i1 > n - 1)
         i1 -= n;
      i0 = clamp(i0, 0, n - 1);
      i1 = clamp(i1, 0, n - 1);
   } else if (mode != KILN_SAMPLER_ADDRESS_CLAMP && mode != KILN_SAMPLER_ADDRESS_NONE) {
      /* CLAMP_TO_EDGE; MIRRORED_REPEAT's max(i0, 0), min(i1, n - 1);
       * the undefined unnormalized REPEAT/MIRRORED. */
      i0 = clamp(i0, 0, n - 1);
      i1 = clamp(i1, 0, n - 1);
   }
   return (int2)(i0, i1);
}

INLINE float4 __kiln_img_border_f(const desc_t *d)
{
   return (float4)(0.0f, 0.0f, 0.0f, __kiln_img_has_alpha(d->channel_order) ? 0.0f : 1.0f);
}

INLINE int4 __kiln_img_border_i(const desc_t *d)
{
   return (int4)(0, 0, 0, __kiln_img_has_alpha(d->channel_order) ? 0 : 1);
}

INLINE int4 __kiln_img_image_size(const desc_t *d)
{
   return (int4)(d->width, d->height, d->depth, 1);
}

INLINE float4 __kiln_img_texel_f(const desc_t *d, int4 i)
{
   return __kiln_img_inside(i, __kiln_img_image_size(d)) ? __kiln_img_load_f(d, i.x, i.y, i.z) : __kiln_img_border_f(d);
}

INLINE int4 __kiln_img_texel_i(const desc_t *d, int4 i)
{
   return __kiln_img_inside(i, __kiln_img_image_size(d)) ? __kiln_img_load_i(d, i.x, i.y, i.z) : __kiln_img_border_i(d);
}

INLINE int4 __kiln_img_nearest_index(const desc_t *d, uint bits, float4 c, bool three_d)
{
   return (int4)(__kiln_img_nearest_axis(c.x, d->width, bits), __kiln_img_nearest_axis(c.y, d->height, bits),
                 three_d ? __kiln_img_nearest_axis(c.z, d->depth, bits) : 0, 0);
}

/* Integer coordinates (§6.11.13: unnormalized, NEAREST; CLAMP_TO_EDGE
 * clamps, CLAMP and NONE give the border outside). */
INLINE int4 __kiln_img_int_index(const desc_t *d, uint bits, int4 c, bool three_d)
{
   if (!three_d)
      c.z = 0;
   c.w = 0;
   if ((bits & KILN_SAMPLER_ADDRESS_MASK) == KILN_SAMPLER_ADDRESS_CLAMP_TO_EDGE ||
       (bits & KILN_SAMPLER_ADDRESS_MASK) >= KILN_SAMPLER_ADDRESS_REPEAT)
      c = clamp(c, (int4)0, __kiln_img_image_size(d) - 1);
   return c;
}

INLINE float4 __kiln_img_sample_f(const desc_t *d, uint bits, float4 c, bool three_d)
{
   if (!(bits & KILN_SAMPLER_FILTER_LINEAR))
      return __kiln_img_texel_f(d, __kiln_img_nearest_index(d, bits, c, three_d));
   float a, b, g = 0.0f;
   int2 x = __kiln_img_linear_axis(c.x, d->width, bits, &a);
   int2 y = __kiln_img_linear_axis(c.y, d->height, bits, &b);
   float4 r = (1 - a) * (1 - b) * __kiln_img_texel_f(d, (int4)(x.s0, y.s0, 0, 0)) +
              a * (1 - b) * __kiln_img_texel_f(d, (int4)(x.s1, y.s0, 0, 0)) +
              (1 - a) * b * __kiln_img_texel_f(d, (int4)(x.s0, y.s1, 0, 0)) +
              a * b * __kiln_img_texel_f(d, (int4)(x.s1, y.s1, 0, 0));
   if (!three_d)
      return r;
   int2 z = __kiln_img_linear_axis(c.z, d->depth, bits, &g);
   r = (1 - a) * (1 - b) * (1 - g) * __kiln_img_texel_f(d, (int4)(x.s0, y.s0, z.s0, 0)) +
       a * (1 - b) * (1 - g) * __kiln_img_texel_f(d, (int4)(x.s1, y.s0, z.s0, 0)) +
       (1 - a) * b * (1 - g) * __kiln_img_texel_f(d, (int4)(x.s0, y.s1, z.s0, 0)) +
       a * b * (1 - g) * __kiln_img_texel_f(d, (int4)(x.s1, y.s1, z.s0, 0)) +
       (1 - a) * (1 - b) * g * __kiln_img_texel_f(d, (int4)(x.s0, y.s0, z.s1, 0)) +
       a * (1 - b) * g * __kiln_img_texel_f(d, (int4)(x.s1, y.s0, z.s1, 0)) +
       (1 - a) * b * g * __kiln_img_texel_f(d, (int4)(x.s0, y.s1, z.s1, 0)) +
       a * b * g * __kiln_img_texel_f(d, (int4)(x.s1, y.s1, z.s1, 0));
   return r;
}

/* Integer reads never filter (LINEAR is undefined for them). */
INLINE int4 __kiln_img_sample_i(const desc_t *d, uint bits, float4 c, bool three_d)
{
   return __kiln_img_texel_i(d, __kiln_img_nearest_index(d, bits, c, three_d));
}

INLINE bool __kiln_img_write_inside(const desc_t *d, int4 c, bool three_d)
{
   if (!three_d)
      c.z = 0;
   c.w = 0;
   return __kiln_img_inside(c, __kiln_img_image_size(d));
}

/* ---- CUDA arrays (nvptx: KILN_IMAGE_HW) ----
 *
 * On NVIDIA GPUs an image argument is a struct kiln_image_hw: the linear
 * descriptor and, where the driver mirrors the image in a CUDA array
 * (src/pipe/cuda/cuda_image.c), a texture object per sampler and a
 * surface object.  A read with a sampler whose texture object is there
 * goes through the texture unit (addressing, filtering and conversion in
 * hardware); a write to an image with a surface object encodes the texel
 * here and stores it with sust.  Everything else is the software path
 * above, on the linear texels, which the driver keeps equal to the array
 * at every launch.  The handles are uniform, so the branch costs nothing
 * but a load.  image_hw_nvptx.ll has the instructions. */
#define HW_1D 0
#define HW_1DA 1
#define HW_2D 2
#define HW_2DA 3
#define HW_3D 4
#define HW_NONE 5 /* 1D image buffers: always linear */

#ifdef KILN_IMAGE_HW
#define HW_TEX_DECL(T, t, dim) T __kiln_hw_tex_##t##_##dim(ulong h, float x, float y, float z, int layer);
#define HW_TEX_DECLS(T, t) \
   HW_TEX_DECL(T, t, 1d) HW_TEX_DECL(T, t, 1da) HW_TEX_DECL(T, t, 2d) HW_TEX_DECL(T, t, 2da) \
   HW_TEX_DECL(T, t, 3d)
HW_TEX_DECLS(float4, f)
HW_TEX_DECLS(int4, i)
HW_TEX_DECLS(uint4, u)
#define HW_SUST_DECL(n, dim) void __kiln_hw_sust_##n##_##dim(ulong h, int x, int y, int z, uint4 v);
#define HW_SUST_DECLS(n) \
   HW_SUST_DECL(n, 1d) HW_SUST_DECL(n, 1da) HW_SUST_DECL(n, 2d) HW_SUST_DECL(n, 2da) \
   HW_SUST_DECL(n, 3d)
HW_SUST_DECLS(1)
HW_SUST_DECLS(2)
HW_SUST_DECLS(4)
HW_SUST_DECLS(8)
HW_SUST_DECLS(16)

INLINE ulong __kiln_hw_tex(const desc_t *d, uint bits)
{
   /* Bits no valid sampler has (addressing mode 0xe) read in software. */
   uint i = KILN_SAMPLER_INDEX(bits);
   return i < KILN_IMAGE_HW_SAMPLERS ? ((const struct kiln_image_hw *)d)->tex[i] : 0;
}

INLINE ulong __kiln_hw_surface(const desc_t *d)
{
   return ((const struct kiln_image_hw *)d)->surface;
}

/* The channels an order lacks: 0, and alpha 1 (§8.3); the texture unit's
 * border colour is 0 in all four. */
INLINE float4 __kiln_hw_fix_f(const desc_t *d, float4 v)
{
   if (d->channel_order == CLK_R)
      return (float4)(v.x, 0.0f, 0.0f, 1.0f);
   if (d->channel_order == CLK_RG)
      return (float4)(v.x, v.y, 0.0f, 1.0f);
   return v;
}

INLINE int4 __kiln_hw_fix_i(const desc_t *d, int4 v)
{
   if (d->channel_order == CLK_R)
      return (int4)(v.x, 0, 0, 1);
   if (d->channel_order == CLK_RG)
      return (int4)(v.x, v.y, 0, 1);
   return v;
}

INLINE uint4 __kiln_hw_fix_u(const desc_t *d, uint4 v)
{
   return as_uint4(__kiln_hw_fix_i(d, as_int4(v)));
}

/* A sample at c (x, y, z or the array's layer coordinate in y or z, as
 * the read functions take them). */
#define HW_SAMPLE(T, t)                                                                    \
   INLINE T __kiln_hw_sample_##t(ulong h, const desc_t *d, int dim, float4 c)             \
   {                                                                                      \
      switch (dim) {                                                                      \
      case HW_1D:                                                                         \
         return __kiln_hw_tex_##t##_1d(h, c.x, 0.0f, 0.0f, 0);                            \
      case HW_1DA:                                                                        \
         return __kiln_hw_tex_##t##_1da(h, c.x, 0.0f, 0.0f,                              \
                                        __kiln_img_to_index(rint(c.y), 0, d->height - 1)); \
      case HW_2D:                                                                         \
         return __kiln_hw_tex_##t##_2d(h, c.x, c.y, 0.0f, 0);                             \
      case HW_2DA:                                                                        \
         return __kiln_hw_tex_##t##_2da(h, c.x, c.y, 0.0f,                                \
                                        __kiln_img_to_index(rint(c.z), 0, d->depth - 1)); \
      default:                                                                            \
         return __kiln_hw_tex_##t##_3d(h, c.x, c.y, c.z, 0);                              \
      }                                                                                   \
   }
HW_SAMPLE(float4, f)
HW_SAMPLE(int4, i)
HW_SAMPLE(uint4, u)

/* Integer coordinates: the texel's centre, unnormalized (the only
 * samplers §6.11.13 allows with them); the layer is rounded there. */
INLINE float4 __kiln_hw_centre(int4 c, int dim)
{
   float4 f = convert_float4(c) + 0.5f;
   if (dim == HW_1DA)
      f.y = (float)c.y;
   if (dim == HW_2DA)
      f.z = (float)c.z;
   return f;
}

/* The texel v as the image stores it, through the software encoder. */
INLINE uint4 __kiln_hw_encode_f(const desc_t *d, float4 v)
{
   uint4 px = 0;
   desc_t one = *d;
   one.data = (ulong)&px;
   __kiln_img_store_f(&one, 0, 0, 0, v);
   return px;
}

INLINE uint4 __kiln_hw_encode_i(const desc_t *d, int4 v, bool from_signed)
{
   uint4 px = 0;
   desc_t one = *d;
   one.data = (ulong)&px;
   __kiln_img_store_i(&one, 0, 0, 0, v, from_signed);
   return px;
}

#define HW_SUST_DIMS(n)                                                                    \
   switch (dim) {                                                                         \
   case HW_1D:                                                                            \
      __kiln_hw_sust_##n##_1d(h, x, i.y, i.z, px);                                        \
      return;                                                                             \
   case HW_1DA:                                                                           \
      __kiln_hw_sust_##n##_1da(h, x, i.y, i.z, px);                                       \
      return;                                                                             \
   case HW_2D:                                                                            \
      __kiln_hw_sust_##n##_2d(h, x, i.y, i.z, px);                                        \
      return;                                                                             \
   case HW_2DA:                                                                           \
      __kiln_hw_sust_##n##_2da(h, x, i.y, i.z, px);                                       \
      return;                                                                             \
   default:                                                                               \
      __kiln_hw_sust_##n##_3d(h, x, i.y, i.z, px);                                        \
      return;                                                                             \
   }

/* Stores texel px at storage coordinate i (inside the image). */
INLINE void __kiln_hw_put(const desc_t *d, ulong h, int dim, int4 i, uint4 px)
{
   int x = i.x * d->elem_size; /* surfaces take x in bytes */
   switch (d->elem_size) {
   case 1:
      HW_SUST_DIMS(1)
   case 2:
      HW_SUST_DIMS(2)
   case 4:
      HW_SUST_DIMS(4)
   case 8:
      HW_SUST_DIMS(8)
   default:
      HW_SUST_DIMS(16)
   }
}

/* In a read or write function: the hardware path where the image has it. */
#define HW_READ(T, t, FIX, d, bits, dim, cf)                                               \
   if ((dim) != HW_NONE) {                                                                \
      ulong h_ = __kiln_hw_tex(d, bits);                                                  \
      if (h_)                                                                             \
         return FIX(d, __kiln_hw_sample_##t(h_, d, dim, cf));                              \
   }
#define HW_READ_INT(T, t, FIX, d, bits, dim, ci)                                           \
   if ((dim) != HW_NONE && !((bits) & KILN_SAMPLER_NORMALIZED)) {                         \
      ulong h_ = __kiln_hw_tex(d, bits);                                                  \
      if (h_)                                                                             \
         return FIX(d, __kiln_hw_sample_##t(h_, d, dim, __kiln_hw_centre(ci, dim)));       \
   }
#define HW_WRITE(d, dim, i, ENCODE)                                                        \
   if ((dim) != HW_NONE) {                                                                \
      ulong h_ = __kiln_hw_surface(d);                                                    \
      if (h_) {                                                                           \
         __kiln_hw_put(d, h_, dim, i, ENCODE);                                            \
         return;                                                                          \
      }                                                                                   \
   }
#else
#define HW_READ(T, t, FIX, d, bits, dim, cf)
#define HW_READ_INT(T, t, FIX, d, bits, dim, ci)
#define HW_WRITE(d, dim, i, ENCODE)
#endif

/* ---- the builtins ---- */

#define READS(IMG, CI, CF, THREE_D, TOI, TOF, DIM)                                       \
   OVL float4 read_imagef(read_only IMG img, sampler_t s, CI c)                         \
   {                                                                                    \
      const desc_t *d = __kiln_image(img);                                              \
      uint bits = __kiln_sampler_bits(s);                                               \
      HW_READ_INT(float4, f, __kiln_hw_fix_f, d, bits, DIM, TOI)                        \
      return __kiln_img_texel_f(d, __kiln_img_int_index(d, bits, TOI, THREE_D));        \
   }                                                                                    \
   OVL float4 read_imagef(read_only IMG img, sampler_t s, CF c)                         \
   {                                                                                    \
      const desc_t *d = __kiln_image(img);                                              \
      uint bits = __kiln_sampler_bits(s);                                               \
      HW_READ(float4, f, __kiln_hw_fix_f, d, bits, DIM, TOF)                            \
      return __kiln_img_sample_f(d, bits, TOF, THREE_D);                                \
   }                                                                                    \
   OVL int4 read_imagei(read_only IMG img, sampler_t s, CI c)                           \
   {                                                                                    \
      const desc_t *d = __kiln_image(img);                                              \
      uint bits = __kiln_sampler_bits(s);                                               \
      HW_READ_INT(int4, i, __kiln_hw_fix_i, d, bits, DIM, TOI)                          \
      return __kiln_img_texel_i(d, __kiln_img_int_index(d, bits, TOI, THREE_D));        \
   }                                                                                    \
   OVL int4 read_imagei(read_only IMG img, sampler_t s, CF c)                           \
   {                                                                                    \
      const desc_t *d = __kiln_image(img);                                              \
      uint bits = __kiln_sampler_bits(s);                                               \
      HW_READ(int4, i, __kiln_hw_fix_i, d, bits, DIM, TOF)                              \
      return __kiln_img_sample_i(d, bits, TOF, THREE_D);                                \
   }                                                                                    \
   OVL uint4 read_imageui(read_only IMG img, sampler_t s, CI c)                         \
   {                                                                                    \
      const desc_t *d = __kiln_image(img);                                              \
      uint bits = __kiln_sampler_bits(s);                                               \
      HW_READ_INT(uint4, u, __kiln_hw_fix_u, d, bits, DIM, TOI)                         \
      return as_uint4(__kiln_img_texel_i(d, __kiln_img_int_index(d, bits, TOI, THREE_D))); \
   }                                                                                    \
   OVL uint4 read_imageui(read_only IMG img, sampler_t s, CF c)                         \
   {                                                                                    \
      const desc_t *d = __kiln_image(img);                                              \
      uint bits = __kiln_sampler_bits(s);                                               \
      HW_READ(uint4, u, __kiln_hw_fix_u, d, bits, DIM, TOF)                             \
      return as_uint4(__kiln_img_sample_i(d, bits, TOF, THREE_D));                      \
   }

READS(image2d_t, int2, float2, false, (int4)(c, 0, 0), (float4)(c, 0.0f, 0.0f), HW_2D)
READS(image3d_t, int4, float4, true, c, c, HW_3D)

#define WRITES(ACC, IMG, CI, THREE_D, TOI, DIM)                                         \
   OVL void write_imagef(ACC IMG img, CI c, float4 v)                                   \
   {                                                                                    \
      const desc_t *d = __kiln_image(img);                                              \
      int4 i = TOI;                                                                     \
      if (!__kiln_img_write_inside(d, i, THREE_D))                                      \
         return;                                                                        \
      HW_WRITE(d, DIM, i, __kiln_hw_encode_f(d, v))                                     \
      __kiln_img_store_f(d, i.x, i.y, i.z, v);                                          \
   }                                                                                    \
   OVL void write_imagei(ACC IMG img, CI c, int4 v)                                     \
   {                                                                                    \
      const desc_t *d = __kiln_image(img);                                              \
      int4 i = TOI;                                                                     \
      if (!__kiln_img_write_inside(d, i, THREE_D))                                      \
         return;                                                                        \
      HW_WRITE(d, DIM, i, __kiln_hw_encode_i(d, v, true))                               \
      __kiln_img_store_i(d, i.x, i.y, i.z, v, true);                                    \
   }                                                                                    \
   OVL void write_imageui(ACC IMG img, CI c, uint4 v)                                   \
   {                                                                                    \
      const desc_t *d = __kiln_image(img);                                              \
      int4 i = TOI;                                                                     \
      if (!__kiln_img_write_inside(d, i, THREE_D))                                      \
         return;                                                                        \
      HW_WRITE(d, DIM, i, __kiln_hw_encode_i(d, as_int4(v), false))                     \
      __kiln_img_store_i(d, i.x, i.y, i.z, as_int4(v), false);                          \
   }

WRITES(write_only, image2d_t, int2, false, ((int4)(c, 0, 0)), HW_2D)
WRITES(write_only, image3d_t, int4, true, (c * (int4)(1, 1, 1, 0)), HW_3D)

#define QUERIES(ACC, IMG)                                                                \
   OVL int get_image_width(ACC IMG img) { return __kiln_image(img)->width; }            \
   OVL int get_image_height(ACC IMG img) { return __kiln_image(img)->height; }          \
   OVL int get_image_channel_data_type(ACC IMG img)                                     \
   {                                                                                    \
      return __kiln_image(img)->channel_type;                                           \
   }                                                                                    \
   OVL int get_image_channel_order(ACC IMG img)                                         \
   {                                                                                    \
      return __kiln_image(img)->channel_order;                                          \
   }

QUERIES(read_only, image2d_t)
QUERIES(write_only, image2d_t)
QUERIES(read_only, image3d_t)
QUERIES(write_only, image3d_t)

OVL int get_image_depth(read_only image3d_t img) { return __kiln_image(img)->depth; }
OVL int get_image_depth(write_only image3d_t img) { return __kiln_image(img)->depth; }

OVL int2 get_image_dim(read_only image2d_t img)
{
   const desc_t *d = __kiln_image(img);
   return (int2)(d->width, d->height);
}
OVL int2 get_image_dim(write_only image2d_t img)
{
   const desc_t *d = __kiln_image(img);
   return (int2)(d->width, d->height);
}
OVL int4 get_image_dim(read_only image3d_t img)
{
   const desc_t *d = __kiln_image(img);
   return (int4)(d->width, d->height, d->depth, 0);
}
OVL int4 get_image_dim(write_only image3d_t img)
{
   const desc_t *d = __kiln_image(img);
   return (int4)(d->width, d->height, d->depth, 0);
}

/* ---- OpenCL 1.2 (§6.12.14): 1D images, 1D image buffers, 1D and 2D
 * arrays, and the reads without a sampler ----
 *
 * Core lays every type out as (x, y, z) storage (include/kiln/image.h):
 * a 1D image is width x 1 x 1, a 1D array width x layers x 1 (a layer per
 * row), a 2D array width x height x layers (a layer per slice).  So
 * integer-coordinate reads and writes are the 2D and 3D code with the
 * layer in y or z; a sampled read with float coordinates filters inside
 * one layer only, so it samples a one-layer view of the image.  A 1D
 * sample is a 2D sample of a one-row image at y = 0.5, the row's centre
 * for normalized and unnormalized coordinates alike, where LINEAR gives
 * the row weight 1 and the border weight 0.
 *
 * The layer: §8.4 rounds a float array index to the nearest integer and
 * clamps it to [0, layers - 1]; integer indices are clamped the same way,
 * so an out-of-range layer never reads outside the image. */

/* Reads without a sampler behave as CLK_NORMALIZED_COORDS_FALSE |
 * CLK_ADDRESS_NONE | CLK_FILTER_NEAREST (§6.12.14.3). */
#define KILN_NO_SAMPLER (KILN_SAMPLER_ADDRESS_NONE | KILN_SAMPLER_FILTER_NEAREST)

INLINE int __kiln_img_layer_i(int c, int n)
{
   return clamp(c, 0, n - 1);
}

INLINE int __kiln_img_layer_f(float c, int n)
{
   return __kiln_img_to_index(rint(c), 0, n - 1);
}

/* One layer of an array as an image of its own: a row of a 1D array, a
 * slice of a 2D array. */
INLINE desc_t __kiln_img_layer_view(const desc_t *d, int layer, bool array2d)
{
   desc_t v = *d;
   if (array2d) {
      v.data += (ulong)layer * d->slice_pitch;
      v.depth = 1;
   } else {
      v.data += (ulong)layer * d->row_pitch;
      v.height = 1;
   }
   return v;
}

/* Per type: the storage texel an integer coordinate names (IDX) and
 * the float and integer samples at a float coordinate (SF, SI). */
#define IDX_1D(d, bits, c) __kiln_img_int_index(d, bits, (int4)(c, 0, 0, 0), false)
#define IDX_1DA(d, bits, c) \
   __kiln_img_int_index(d, bits, (int4)(c.x, __kiln_img_layer_i(c.y, d->height), 0, 0), false)
#define IDX_2D(d, bits, c) __kiln_img_int_index(d, bits, (int4)(c, 0, 0), false)
#define IDX_2DA(d, bits, c) \
   __kiln_img_int_index(d, bits, (int4)(c.xy, __kiln_img_layer_i(c.z, d->depth), 0), true)
#define IDX_3D(d, bits, c) __kiln_img_int_index(d, bits, c, true)

INLINE float4 __kiln_img_sample_f_1d(const desc_t *d, uint bits, float c)
{
   return __kiln_img_sample_f(d, bits, (float4)(c, 0.5f, 0.0f, 0.0f), false);
}
INLINE int4 __kiln_img_sample_i_1d(const desc_t *d, uint bits, float c)
{
   return __kiln_img_sample_i(d, bits, (float4)(c, 0.5f, 0.0f, 0.0f), false);
}
INLINE float4 __kiln_img_sample_f_1da(const desc_t *d, uint bits, float2 c)
{
   desc_t v = __kiln_img_layer_view(d, __kiln_img_layer_f(c.y, d->height), false);
   return __kiln_img_sample_f(&v, bits, (float4)(c.x, 0.5f, 0.0f, 0.0f), false);
}
INLINE int4 __kiln_img_sample_i_1da(const desc_t *d, uint bits, float2 c)
{
   desc_t v = __kiln_img_layer_view(d, __kiln_img_layer_f(c.y, d->height), false);
   return __kiln_img_sample_i(&v, bits, (float4)(c.x, 0.5f, 0.0f, 0.0f), false);
}
INLINE float4 __kiln_img_sample_f_2da(const desc_t *d, uint bits, float4 c)
{
   desc_t v = __kiln_img_layer_view(d, __kiln_img_layer_f(c.z, d->depth), true);
   return __kiln_img_sample_f(&v, bits, (float4)(c.xy, 0.0f, 0.0f), false);
}
INLINE int4 __kiln_img_sample_i_2da(const desc_t *d, uint bits, float4 c)
{
   desc_t v = __kiln_img_layer_view(d, __kiln_img_layer_f(c.z, d->depth), true);
   return __kiln_img_sample_i(&v, bits, (float4)(c.xy, 0.0f, 0.0f), false);
}

/* Reads with a sampler, integer and float coordinates. */
#define READS12(IMG, CI, CF, IDX, SF, SI, DIM, CI4, CF4)                                 \
   OVL float4 read_imagef(read_only IMG img, sampler_t s, CI c)                           \
   {                                                                                      \
      const desc_t *d = __kiln_image(img);                                                \
      uint bits = __kiln_sampler_bits(s);                                                 \
      HW_READ_INT(float4, f, __kiln_hw_fix_f, d, bits, DIM, CI4)                          \
      return __kiln_img_texel_f(d, IDX(d, bits, c));                                      \
   }                                                                                      \
   OVL int4 read_imagei(read_only IMG img, sampler_t s, CI c)                             \
   {                                                                                      \
      const desc_t *d = __kiln_image(img);                                                \
      uint bits = __kiln_sampler_bits(s);                                                 \
      HW_READ_INT(int4, i, __kiln_hw_fix_i, d, bits, DIM, CI4)                            \
      return __kiln_img_texel_i(d, IDX(d, bits, c));                                      \
   }                                                                                      \
   OVL uint4 read_imageui(read_only IMG img, sampler_t s, CI c)                           \
   {                                                                                      \
      const desc_t *d = __kiln_image(img);                                                \
      uint bits = __kiln_sampler_bits(s);                                                 \
      HW_READ_INT(uint4, u, __kiln_hw_fix_u, d, bits, DIM, CI4)                           \
      return as_uint4(__kiln_img_texel_i(d, IDX(d, bits, c)));                            \
   }                                                                                      \
   OVL float4 read_imagef(read_only IMG img, sampler_t s, CF c)                           \
   {                                                                                      \
      const desc_t *d = __kiln_image(img);                                                \
      uint bits = __kiln_sampler_bits(s);                                                 \
      HW_READ(float4, f, __kiln_hw_fix_f, d, bits, DIM, CF4)                              \
      return SF(d, bits, c);                                                              \
   }                                                                                      \
   OVL int4 read_imagei(read_only IMG img, sampler_t s, CF c)                             \
   {                                                                                      \
      const desc_t *d = __kiln_image(img);                                                \
      uint bits = __kiln_sampler_bits(s);                                                 \
      HW_READ(int4, i, __kiln_hw_fix_i, d, bits, DIM, CF4)                                \
      return SI(d, bits, c);                                                              \
   }                                                                                      \
   OVL uint4 read_imageui(read_only IMG img, sampler_t s, CF c)                           \
   {                                                                                      \
      const desc_t *d = __kiln_image(img);                                                \
      uint bits = __kiln_sampler_bits(s);                                                 \
      HW_READ(uint4, u, __kiln_hw_fix_u, d, bits, DIM, CF4)                               \
      return as_uint4(SI(d, bits, c));                                                    \
   }

/* Reads without a sampler (integer coordinates only). */
#define READS_NO_SAMPLER(ACC, IMG, CI, IDX)                                               \
   OVL float4 read_imagef(ACC IMG img, CI c)                                              \
   {                                                                                      \
      const desc_t *d = __kiln_image(img);                                                \
      return __kiln_img_texel_f(d, IDX(d, KILN_NO_SAMPLER, c));                           \
   }                                                                                      \
   OVL int4 read_imagei(ACC IMG img, CI c)                                                \
   {                                                                                      \
      const desc_t *d = __kiln_image(img);                                                \
      return __kiln_img_texel_i(d, IDX(d, KILN_NO_SAMPLER, c));                           \
   }                                                                                      \
   OVL uint4 read_imageui(ACC IMG img, CI c)                                              \
   {                                                                                      \
      const desc_t *d = __kiln_image(img);                                                \
      return as_uint4(__kiln_img_texel_i(d, IDX(d, KILN_NO_SAMPLER, c)));                 \
   }

READS12(image1d_t, int, float, IDX_1D, __kiln_img_sample_f_1d, __kiln_img_sample_i_1d, HW_1D,
        ((int4)(c, 0, 0, 0)), ((float4)(c, 0.0f, 0.0f, 0.0f)))
READS12(image1d_array_t, int2, float2, IDX_1DA, __kiln_img_sample_f_1da, __kiln_img_sample_i_1da,
        HW_1DA, ((int4)(c, 0, 0)), ((float4)(c, 0.0f, 0.0f)))
READS12(image2d_array_t, int4, float4, IDX_2DA, __kiln_img_sample_f_2da, __kiln_img_sample_i_2da,
        HW_2DA, c, c)
READS_NO_SAMPLER(read_only, image1d_t, int, IDX_1D)
READS_NO_SAMPLER(read_only, image1d_buffer_t, int, IDX_1D)
READS_NO_SAMPLER(read_only, image1d_array_t, int2, IDX_1DA)
READS_NO_SAMPLER(read_only, image2d_t, int2, IDX_2D)
READS_NO_SAMPLER(read_only, image2d_array_t, int4, IDX_2DA)
READS_NO_SAMPLER(read_only, image3d_t, int4, IDX_3D)

/* Writes: the coordinate in storage form; out of range (a layer
 * included) is dropped. */
WRITES(write_only, image1d_t, int, false, ((int4)(c, 0, 0, 0)), HW_1D)
WRITES(write_only, image1d_buffer_t, int, false, ((int4)(c, 0, 0, 0)), HW_NONE)
WRITES(write_only, image1d_array_t, int2, false, ((int4)(c, 0, 0)), HW_1DA)
WRITES(write_only, image2d_array_t, int4, true, (c * (int4)(1, 1, 1, 0)), HW_2DA)

QUERIES(read_only, image1d_t)
QUERIES(write_only, image1d_t)
QUERIES(read_only, image1d_buffer_t)
QUERIES(write_only, image1d_buffer_t)
QUERIES(read_only, image1d_array_t)
QUERIES(write_only, image1d_array_t)
QUERIES(read_only, image2d_array_t)
QUERIES(write_only, image2d_array_t)

OVL size_t get_image_array_size(read_only image1d_array_t img) { return __kiln_image(img)->height; }
OVL size_t get_image_array_size(write_only image1d_array_t img) { return __kiln_image(img)->height; }
OVL size_t get_image_array_size(read_only image2d_array_t img) { return __kiln_image(img)->depth; }
OVL size_t get_image_array_size(write_only image2d_array_t img) { return __kiln_image(img)->depth; }

OVL int2 get_image_dim(read_only image2d_array_t img)
{
   const desc_t *d = __kiln_image(img);
   return (int2)(d->width, d->height);
}
OVL int2 get_image_dim(write_only image2d_array_t img)
{
   const desc_t *d = __kiln_image(img);
   return (int2)(d->width, d->height);
}

/* ---- read_write images (OpenCL C 2.0; 3.0's __opencl_c_read_write_images,
 * which only the CPU device's library is compiled with) ----
 *
 * A read_write argument is the same descriptor as a read_only or
 * write_only one, so its functions are the same code: the sampler-less
 * reads (§6.15.15.3: the only reads a read_write image has), the writes
 * and the queries.  A write followed by a read of the same texel in one
 * work-item is a store and a load of the same host memory in program
 * order; atomic_work_item_fence(CLK_IMAGE_MEM_FENCE, ...), which the spec
 * asks for between them, is a compiler fence at work-item scope and a
 * thread fence beyond (atomic_c11.cl). */
#ifdef __opencl_c_read_write_images
READS_NO_SAMPLER(read_write, image1d_t, int, IDX_1D)
READS_NO_SAMPLER(read_write, image1d_buffer_t, int, IDX_1D)
READS_NO_SAMPLER(read_write, image1d_array_t, int2, IDX_1DA)
READS_NO_SAMPLER(read_write, image2d_t, int2, IDX_2D)
READS_NO_SAMPLER(read_write, image2d_array_t, int4, IDX_2DA)
READS_NO_SAMPLER(read_write, image3d_t, int4, IDX_3D)

WRITES(read_write, image1d_t, int, false, ((int4)(c, 0, 0, 0)), HW_1D)
WRITES(read_write, image1d_buffer_t, int, false, ((int4)(c, 0, 0, 0)), HW_NONE)
WRITES(read_write, image1d_array_t, int2, false, ((int4)(c, 0, 0)), HW_1DA)
WRITES(read_write, image2d_t, int2, false, ((int4)(c, 0, 0)), HW_2D)
WRITES(read_write, image2d_array_t, int4, true, (c * (int4)(1, 1, 1, 0)), HW_2DA)
WRITES(read_write, image3d_t, int4, true, (c * (int4)(1, 1, 1, 0)), HW_3D)

QUERIES(read_write, image1d_t)
QUERIES(read_write, image1d_buffer_t)
QUERIES(read_write, image1d_array_t)
QUERIES(read_write, image2d_t)
QUERIES(read_write, image2d_array_t)
QUERIES(read_write, image3d_t)

OVL int get_image_depth(read_write image3d_t img) { return __kiln_image(img)->depth; }
OVL size_t get_image_array_size(read_write image1d_array_t img) { return __kiln_image(img)->height; }
OVL size_t get_image_array_size(read_write image2d_array_t img) { return __kiln_image(img)->depth; }

OVL int2 get_image_dim(read_write image2d_t img)
{
   const desc_t *d = __kiln_image(img);
   return (int2)(d->width, d->height);
}
OVL int2 get_image_dim(read_write image2d_array_t img)
{
   const desc_t *d = __kiln_image(img);
   return (int2)(d->width, d->height);
}
OVL int4 get_image_dim(read_write image3d_t img)
{
   const desc_t *d = __kiln_image(img);
   return (int4)(d->width, d->height, d->depth, 0);
}
#endif
