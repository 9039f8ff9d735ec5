/* Image reads and writes in kernels (OpenCL 1.1 §6.11.13, §8) against a
 * reference computed here on the host: every supported format, 2D and 3D,
 * every addressing mode, both filters, normalized and unnormalized
 * coordinates (where the spec defines the result), float and integer
 * coordinates, samplers as arguments and as program-scope constants,
 * write_image{f,i,ui} for every format (3D through
 * cl_khr_3d_image_writes), and the get_image_* queries. */
#include "kk.h"

#include <math.h>

#define SAMPLES 96

static const char *source =
   "#pragma OPENCL EXTENSION cl_khr_3d_image_writes : enable\n"
   "kernel void rd2f(read_only image2d_t im, sampler_t s, global const float4 *c, global float4 *o)\n"
   "{ int i = get_global_id(0); o[i] = read_imagef(im, s, c[i].xy); }\n"
   "kernel void rd2i(read_only image2d_t im, sampler_t s, global const float4 *c, global int4 *o)\n"
   "{ int i = get_global_id(0); o[i] = read_imagei(im, s, c[i].xy); }\n"
   "kernel void rd2u(read_only image2d_t im, sampler_t s, global const float4 *c, global uint4 *o)\n"
   "{ int i = get_global_id(0); o[i] = read_imageui(im, s, c[i].xy); }\n"
   "kernel void rd3f(read_only image3d_t im, sampler_t s, global const float4 *c, global float4 *o)\n"
   "{ int i = get_global_id(0); o[i] = read_imagef(im, s, c[i]); }\n"
   "kernel void rd3i(read_only image3d_t im, sampler_t s, global const float4 *c, global int4 *o)\n"
   "{ int i = get_global_id(0); o[i] = read_imagei(im, s, c[i]); }\n"
   "kernel void rd3u(read_only image3d_t im, sampler_t s, global const float4 *c, global uint4 *o)\n"
   "{ int i = get_global_id(0); o[i] = read_imageui(im, s, c[i]); }\n"
   /* Integer coordinates. */
   "kernel void ri2f(read_only image2d_t im, sampler_t s, global const int4 *c, global float4 *o)\n"
   "{ int i = get_global_id(0); o[i] = read_imagef(im, s, c[i].xy); }\n"
   "kernel void ri2i(read_only image2d_t im, sampler_t s, global const int4 *c, global int4 *o)\n"
   "{ int i = get_global_id(0); o[i] = read_imagei(im, s, c[i].xy); }\n"
   "kernel void ri2u(read_only image2d_t im, sampler_t s, global const int4 *c, global uint4 *o)\n"
   "{ int i = get_global_id(0); o[i] = read_imageui(im, s, c[i].xy); }\n"
   "kernel void ri3f(read_only image3d_t im, sampler_t s, global const int4 *c, global float4 *o)\n"
   "{ int i = get_global_id(0); o[i] = read_imagef(im, s, c[i]); }\n"
   "kernel void ri3i(read_only image3d_t im, sampler_t s, global const int4 *c, global int4 *o)\n"
   "{ int i = get_global_id(0); o[i] = read_imagei(im, s, c[i]); }\n"
   "kernel void ri3u(read_only image3d_t im, sampler_t s, global const int4 *c, global uint4 *o)\n"
   "{ int i = get_global_id(0); o[i] = read_imageui(im, s, c[i]); }\n"
   /* Writes: one work-item per element, values from a buffer. */
   "kernel void wr2f(write_only image2d_t im, global const float4 *v)\n"
   "{ int x = get_global_id(0), y = get_global_id(1);\n"
   "  write_imagef(im, (int2)(x, y), v[y * get_image_width(im) + x]); }\n"
   "kernel void wr2i(write_only image2d_t im, global const int4 *v)\n"
   "{ int x = get_global_id(0), y = get_global_id(1);\n"
   "  write_imagei(im, (int2)(x, y), v[y * get_image_width(im) + x]); }\n"
   "kernel void wr2u(write_only image2d_t im, global const uint4 *v)\n"
   "{ int x = get_global_id(0), y = get_global_id(1);\n"
   "  write_imageui(im, (int2)(x, y), v[y * get_image_width(im) + x]); }\n"
   "kernel void wr3f(write_only image3d_t im, global const float4 *v)\n"
   "{ int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);\n"
   "  int4 d = get_image_dim(im);\n"
   "  write_imagef(im, (int4)(x, y, z, 0), v[(z * d.y + y) * d.x + x]); }\n"
   "kernel void wr3i(write_only image3d_t im, global const int4 *v)\n"
   "{ int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);\n"
   "  write_imagei(im, (int4)(x, y, z, 0), v[(z * get_image_height(im) + y) * get_image_width(im) + x]); }\n"
   "kernel void wr3u(write_only image3d_t im, global const uint4 *v)\n"
   "{ int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);\n"
   "  write_imageui(im, (int4)(x, y, z, 0), v[(z * get_image_height(im) + y) * get_image_width(im) + x]); }\n"
   /* Queries. */
   "kernel void q2(read_only image2d_t a, write_only image2d_t b, global int *o)\n"
   "{ int2 d = get_image_dim(a); o[0] = get_image_width(a); o[1] = get_image_height(a);\n"
   "  o[2] = d.x; o[3] = d.y; o[4] = get_image_channel_data_type(a);\n"
   "  o[5] = get_image_channel_order(a); o[6] = get_image_width(b); o[7] = get_image_channel_order(b); }\n"
   "kernel void q3(read_only image3d_t a, write_only image3d_t b, global int *o)\n"
   "{ int4 d = get_image_dim(a); o[0] = get_image_width(a); o[1] = get_image_height(a);\n"
   "  o[2] = get_image_depth(a); o[3] = d.x; o[4] = d.y; o[5] = d.z; o[6] = d.w;\n"
   "  o[7] = get_image_channel_data_type(a); o[8] = get_image_channel_order(a);\n"
   "  o[9] = get_image_depth(b); o[10] = get_image_channel_data_type(b); }\n"
   /* A program-scope sampler. */
   "const sampler_t ps = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;\n"
   "kernel void rdconst(read_only image2d_t im, global const float4 *c, global float4 *o)\n"
   "{ int i = get_global_id(0); o[i] = read_imagef(im, ps, c[i].xy); }\n";

/* ---- host reference: storage ---- */

static unsigned order_channels(cl_channel_order o)
{
   switch (o) {
   case CL_RG: case CL_RA: return 2;
   case CL_RGB: return 3;
   case CL_RGBA: case CL_BGRA: case CL_ARGB: return 4;
   default: return 1;
   }
}

/* For r, g, b, a: the storage channel, or -1 for 0, -2 for 1. */
static void order_map(cl_channel_order o, int map[4])
{
   static const struct { cl_channel_order o; int m[4]; } t[] = {
      {CL_R, {0, -1, -1, -2}},     {CL_A, {-1, -1, -1, 0}},     {CL_RG, {0, 1, -1, -2}},
      {CL_RA, {0, -1, -1, 1}},     {CL_RGB, {0, 1, 2, -2}},     {CL_RGBA, {0, 1, 2, 3}},
      {CL_BGRA, {2, 1, 0, 3}},     {CL_ARGB, {1, 2, 3, 0}},     {CL_INTENSITY, {0, 0, 0, 0}},
      {CL_LUMINANCE, {0, 0, 0, -2}},
   };
   for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
      if (t[i].o == o)
         memcpy(map, t[i].m, sizeof(t[i].m));
}

static size_t type_bytes(cl_channel_type t)
{
   switch (t) {
   case CL_SNORM_INT8: case CL_UNORM_INT8: case CL_SIGNED_INT8: case CL_UNSIGNED_INT8: return 1;
   case CL_SIGNED_INT32: case CL_UNSIGNED_INT32: case CL_FLOAT: case CL_UNORM_INT_101010: return 4;
   default: return 2;
   }
}

static bool is_packed(cl_channel_type t)
{
   return t == CL_UNORM_SHORT_565 || t == CL_UNORM_SHORT_555 || t == CL_UNORM_INT_101010;
}

static size_t elem_bytes(cl_image_format f)
{
   return is_packed(f.image_channel_data_type)
             ? type_bytes(f.image_channel_data_type)
             : type_bytes(f.image_channel_data_type) * order_channels(f.image_channel_order);
}

static bool has_alpha(cl_channel_order o)
{
   return o == CL_A || o == CL_RA || o == CL_RGBA || o == CL_BGRA || o == CL_ARGB ||
          o == CL_INTENSITY;
}

enum kind { KIND_F, KIND_I, KIND_U };

static enum kind kind_of(cl_channel_type t)
{
   if (t == CL_SIGNED_INT8 || t == CL_SIGNED_INT16 || t == CL_SIGNED_INT32)
      return KIND_I;
   if (t == CL_UNSIGNED_INT8 || t == CL_UNSIGNED_INT16 || t == CL_UNSIGNED_INT32)
      return KIND_U;
   return KIND_F;
}

static float half_to_float(uint16_t h)
{
   int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
   float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY)
                                              : ldexpf((float)(m | 1024), e - 25);
   return s ? -v : v;
}

/* Round to nearest even, by hand (no F16C needed). */
static uint16_t float_to_half(float f)
{
   uint32_t x;
   memcpy(&x, &f, 4);
   uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
   float a = fabsf(f);
   if (isnan(f))
      return sign | 0x7e00;
   if (a >= 65520.0f)
      return sign | 0x7c00;
   if (a < ldexpf(1, -14)) { /* subnormal: multiples of 2^-24 */
      float q = rintf(a * ldexpf(1, 24));
      return sign | (uint16_t)q;
   }
   int e;
   float m = frexpf(a, &e); /* a = m * 2^e, m in [0.5, 1) */
   float q = rintf(m * 2048.0f); /* 11 significant bits */
   if (q == 2048.0f) {
      q = 1024.0f;
      e++;
   }
   if (e - 1 + 15 >= 31)
      return sign | 0x7c00;
   return sign | (uint16_t)(((e - 1 + 15) << 10) | ((int)q - 1024));
}

static float ch_f(const uint8_t *p, cl_channel_type t, int i)
{
   switch (t) {
   case CL_UNORM_INT8: return p[i] / 255.0f;
   case CL_UNORM_INT16: return ((const uint16_t *)p)[i] / 65535.0f;
   case CL_SNORM_INT8: return fmaxf(-1.0f, ((const int8_t *)p)[i] / 127.0f);
   case CL_SNORM_INT16: return fmaxf(-1.0f, ((const int16_t *)p)[i] / 32767.0f);
   case CL_HALF_FLOAT: return half_to_float(((const uint16_t *)p)[i]);
   case CL_FLOAT: return ((const float *)p)[i];
   default: return 0;
   }
}

static int32_t ch_i(const uint8_t *p, cl_channel_type t, int i)
{
   switch (t) {
   case CL_SIGNED_INT8: return ((const int8_t *)p)[i];
   case CL_SIGNED_INT16: return ((const int16_t *)p)[i];
   case CL_SIGNED_INT32: return ((const int32_t *)p)[i];
   case CL_UNSIGNED_INT8: return p[i];
   case CL_UNSIGNED_INT16: return ((const uint16_t *)p)[i];
   default: return ((const int32_t *)p)[i];
   }
}

/* Element at p as (r, g, b, a): floats in f, integers in n. */
static void ref_texel(const uint8_t *p, cl_image_format f, float out_f[4], int32_t out_i[4])
{
   float cf[4] = {0};
   int32_t ci[4] = {0};
   cl_channel_type t = f.image_channel_data_type;
   if (t == CL_UNORM_SHORT_565) {
      uint16_t v = *(const uint16_t *)p;
      cf[0] = (v >> 11) / 31.0f, cf[1] = ((v >> 5) & 63) / 63.0f, cf[2] = (v & 31) / 31.0f;
   } else if (t == CL_UNORM_SHORT_555) {
      uint16_t v = *(const uint16_t *)p;
      cf[0] = ((v >> 10) & 31) / 31.0f, cf[1] = ((v >> 5) & 31) / 31.0f, cf[2] = (v & 31) / 31.0f;
   } else if (t == CL_UNORM_INT_101010) {
      uint32_t v = *(const uint32_t *)p;
      cf[0] = ((v >> 20) & 1023) / 1023.0f, cf[1] = ((v >> 10) & 1023) / 1023.0f;
      cf[2] = (v & 1023) / 1023.0f;
   } else {
      for (unsigned c = 0; c < order_channels(f.image_channel_order); c++) {
         if (kind_of(t) == KIND_F)
            cf[c] = ch_f(p, t, (int)c);
         else
            ci[c] = ch_i(p, t, (int)c);
      }
   }
   int map[4];
   order_map(f.image_channel_order, map);
   for (int k = 0; k < 4; k++) {
      out_f[k] = map[k] >= 0 ? cf[map[k]] : map[k] == -2 ? 1.0f : 0.0f;
      out_i[k] = map[k] >= 0 ? ci[map[k]] : map[k] == -2 ? 1 : 0;
   }
}

/* ---- host reference: addressing (§8.2) ---- */

struct img {
   cl_image_format f;
   int dims[3]; /* depth 1 for 2D */
   size_t elem;
   uint8_t *data; /* tightly packed */
};

static bool in_image(const struct img *im, const int i[3])
{
   for (int d = 0; d < 3; d++)
      if (i[d] < 0 || i[d] >= im->dims[d])
         return false;
   return true;
}

static void fetch(const struct img *im, const int i[3], float f[4], int32_t n[4])
{
   if (!in_image(im, i)) {
      bool a = has_alpha(im->f.image_channel_order);
      for (int k = 0; k < 4; k++)
         f[k] = 0, n[k] = 0;
      f[3] = a ? 0.0f : 1.0f;
      n[3] = a ? 0 : 1;
      return;
   }
   size_t off = (((size_t)i[2] * im->dims[1] + i[1]) * im->dims[0] + i[0]) * im->elem;
   ref_texel(im->data + off, im->f, f, n);
}

static int clampi(int v, int lo, int hi)
{
   return v < lo ? lo : v > hi ? hi : v;
}

static int nearest(float s, int n, cl_addressing_mode am, bool norm)
{
   if (norm && am == CL_ADDRESS_REPEAT) {
      int i = (int)floorf((s - floorf(s)) * n);
      return i > n - 1 ? i - n : i;
   }
   if (norm && am == CL_ADDRESS_MIRRORED_REPEAT) {
      float sp = fabsf(s - 2.0f * rintf(0.5f * s));
      int i = (int)floorf(sp * n);
      return i < n - 1 ? i : n - 1;
   }
   float u = norm ? s * n : s;
   int i = (int)floorf(u);
   if (am == CL_ADDRESS_CLAMP_TO_EDGE)
      return clampi(i, 0, n - 1);
   return clampi(i, -1, n); /* CLAMP: -1 and n are the border */
}

static void linear(float s, int n, cl_addressing_mode am, bool norm, int i[2], float *a)
{
   float u = norm ? s * n : s;
   if (norm && am == CL_ADDRESS_REPEAT)
      u = (s - floorf(s)) * n;
   if (norm && am == CL_ADDRESS_MIRRORED_REPEAT)
      u = fabsf(s - 2.0f * rintf(0.5f * s)) * n;
   i[0] = (int)floorf(u - 0.5f);
   i[1] = i[0] + 1;
   *a = (u - 0.5f) - floorf(u - 0.5f);
   if (norm && am == CL_ADDRESS_REPEAT) {
      if (i[0] < 0)
         i[0] += n;
      if (i[1] > n - 1)
         i[1] -= n;
   } else if (am == CL_ADDRESS_MIRRORED_REPEAT || am == CL_ADDRESS_CLAMP_TO_EDGE) {
      i[0] = clampi(i[0], 0, n - 1);
      i[1] = clampi(i[1], 0, n - 1);
   } else {
      i[0] = clampi(i[0], -1, n);
      i[1] = clampi(i[1], -1, n);
   }
}

static void ref_sample(const struct img *im, bool three_d, const float c[4], bool norm,
                       cl_addressing_mode am, cl_filter_mode fm, float f[4], int32_t n[4])
{
   if (fm == CL_FILTER_NEAREST) {
      int i[3] = {nearest(c[0], im->dims[0], am, norm), nearest(c[1], im->dims[1], am, norm),
                  three_d ? nearest(c[2], im->dims[2], am, norm) : 0};
      fetch(im, i, f, n);
      return;
   }
   int ix[2], iy[2], iz[2] = {0, 0};
   float w[3] = {0, 0, 0};
   linear(c[0], im->dims[0], am, norm, ix, &w[0]);
   linear(c[1], im->dims[1], am, norm, iy, &w[1]);
   if (three_d)
      linear(c[2], im->dims[2], am, norm, iz, &w[2]);
   for (int k = 0; k < 4; k++)
      f[k] = 0, n[k] = 0;
   for (int z = 0; z < (three_d ? 2 : 1); z++)
      for (int y = 0; y < 2; y++)
         for (int x = 0; x < 2; x++) {
            float wt = (x ? w[0] : 1 - w[0]) * (y ? w[1] : 1 - w[1]) *
                       (three_d ? (z ? w[2] : 1 - w[2]) : 1.0f);
            int i[3] = {ix[x], iy[y], iz[z]};
            float tf[4];
            int32_t tn[4];
            fetch(im, i, tf, tn);
            for (int k = 0; k < 4; k++)
               f[k] += wt * tf[k];
         }
}

/* ---- test data ---- */

static uint32_t rng = 12345;
static uint32_t rnd(void)
{
   rng = rng * 1664525u + 1013904223u;
   return rng >> 8;
}
static float rndf(float lo, float hi)
{
   return lo + (hi - lo) * (float)(rnd() & 0xffff) / 65535.0f;
}

static void fill_image(struct img *im)
{
   size_t n = (size_t)im->dims[0] * im->dims[1] * im->dims[2];
   size_t bytes = n * im->elem;
   im->data = malloc(bytes);
   for (size_t i = 0; i < bytes; i++)
      im->data[i] = (uint8_t)rnd();
   cl_channel_type t = im->f.image_channel_data_type;
   size_t chans = im->elem / type_bytes(t);
   if (t == CL_FLOAT)
      for (size_t i = 0; i < n * chans; i++)
         ((float *)im->data)[i] = rndf(-1.5f, 1.5f);
   if (t == CL_HALF_FLOAT)
      for (size_t i = 0; i < n * chans; i++)
         ((uint16_t *)im->data)[i] = float_to_half(rndf(-4.0f, 4.0f));
}

static const cl_addressing_mode modes[] = {CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE,
                                           CL_ADDRESS_CLAMP, CL_ADDRESS_REPEAT,
                                           CL_ADDRESS_MIRRORED_REPEAT};
static const char *mode_name(cl_addressing_mode m)
{
   switch (m) {
   case CL_ADDRESS_NONE: return "NONE";
   case CL_ADDRESS_CLAMP_TO_EDGE: return "CLAMP_TO_EDGE";
   case CL_ADDRESS_CLAMP: return "CLAMP";
   case CL_ADDRESS_REPEAT: return "REPEAT";
   default: return "MIRRORED_REPEAT";
   }
}

/* Coordinates whose result the spec defines for this sampler. */
static void make_coords(const struct img *im, bool three_d, bool norm, cl_addressing_mode am,
                        float (*c)[4])
{
   for (int s = 0; s < SAMPLES; s++)
      for (int d = 0; d < 4; d++) {
         int n = im->dims[d < 3 ? d : 0];
         float v;
         if (d == 3 || (d == 2 && !three_d))
            v = 0;
         else if (am == CL_ADDRESS_NONE) /* out of range is undefined */
            v = rndf(0.5f, n - 0.5f);
         else
            v = rndf(-1.7f * n, 2.7f * n);
         /* Some exact texel edges and centres. */
         if (s % 8 == 1 && d < 3)
            v = (float)(int)rndf(-1, (float)n + 1) + (s % 16 == 1 ? 0.5f : 0.0f);
         c[s][d] = norm ? v / n : v;
      }
}

static struct {
   unsigned combos, checked, failed;
} stats;

static bool close_f(float got, float want, bool exact)
{
   if (isnan(want))
      return isnan(got);
   if (exact)
      return got == want;
   return fabsf(got - want) <= 1e-4f * fmaxf(1.0f, fabsf(want));
}

static void check_reads(const struct kt_env *env, cl_program p, struct img *im, bool three_d,
                        cl_mem image)
{
   enum kind k = kind_of(im->f.image_channel_data_type);
   const char *suffix = k == KIND_F ? "f" : k == KIND_I ? "i" : "u";
   char name[16];
   snprintf(name, sizeof(name), "rd%c%s", three_d ? '3' : '2', suffix);
   cl_kernel kf = kk_kernel(p, name);
   snprintf(name, sizeof(name), "ri%c%s", three_d ? '3' : '2', suffix);
   cl_kernel ki = kk_kernel(p, name);
   cl_int err;
   cl_mem cbuf = clCreateBuffer(env->context, CL_MEM_READ_ONLY, SAMPLES * 16, NULL, &err);
   cl_mem obuf = clCreateBuffer(env->context, CL_MEM_WRITE_ONLY, SAMPLES * 16, NULL, &err);
   REQUIRE(cbuf && obuf, "buffers");
   for (int norm = 0; norm < 2; norm++)
      for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
         for (int lin = 0; lin < 2; lin++) {
            cl_addressing_mode am = modes[m];
            cl_filter_mode fm = lin ? CL_FILTER_LINEAR : CL_FILTER_NEAREST;
            /* Undefined: unnormalized REPEAT/MIRRORED, LINEAR integer reads. */
            if (!norm && (am == CL_ADDRESS_REPEAT || am == CL_ADDRESS_MIRRORED_REPEAT))
               continue;
            if (lin && k != KIND_F)
               continue;
            cl_sampler s = clCreateSampler(env->context, norm ? CL_TRUE : CL_FALSE, am, fm, &err);
            REQUIRE(s && !err, "clCreateSampler: %s", kt_err_name(err));
            float c[SAMPLES][4];
            make_coords(im, three_d, norm, am, c);
            REQUIRE_OK(clEnqueueWriteBuffer(env->queue, cbuf, CL_TRUE, 0, sizeof(c), c, 0, NULL,
                                            NULL));
            KK_ARG(kf, 0, image);
            KK_ARG(kf, 1, s);
            KK_ARG(kf, 2, cbuf);
            KK_ARG(kf, 3, obuf);
            size_t g = SAMPLES;
            KK_RUN(env, kf, 1, NULL, &g, NULL);
            union {
               float f[SAMPLES][4];
               int32_t n[SAMPLES][4];
            } got;
            kk_read(env, obuf, sizeof(got), &got);
            stats.combos++;
            unsigned bad = 0;
            for (int i = 0; i < SAMPLES; i++) {
               float wf[4];
               int32_t wn[4];
               ref_sample(im, three_d, c[i], norm, am, fm, wf, wn);
               for (int q = 0; q < 4; q++) {
                  stats.checked++;
                  bool ok = k == KIND_F ? close_f(got.f[i][q], wf[q], !lin) : got.n[i][q] == wn[q];
                  if (!ok && bad++ < 2)
                     KT_FAIL("%s %s order 0x%x type 0x%x %s %s %s coord (%g, %g, %g) ch %d: "
                             "got %g/%d want %g/%d",
                             three_d ? "3D" : "2D", "float coords",
                             im->f.image_channel_order, im->f.image_channel_data_type,
                             norm ? "normalized" : "unnormalized", mode_name(am),
                             lin ? "LINEAR" : "NEAREST", c[i][0], c[i][1], c[i][2], q,
                             got.f[i][q], got.n[i][q], wf[q], wn[q]);
               }
            }
            stats.failed += bad;
            /* Integer coordinates: unnormalized NEAREST, no repeat modes. */
            if (!norm && !lin) {
               int32_t ic[SAMPLES][4];
               for (int i = 0; i < SAMPLES; i++)
                  for (int d = 0; d < 4; d++)
                     ic[i][d] = (d == 3 || (d == 2 && !three_d)) ? 0 : (int32_t)floorf(c[i][d]);
               REQUIRE_OK(clEnqueueWriteBuffer(env->queue, cbuf, CL_TRUE, 0, sizeof(ic), ic, 0,
                                               NULL, NULL));
               KK_ARG(ki, 0, image);
               KK_ARG(ki, 1, s);
               KK_ARG(ki, 2, cbuf);
               KK_ARG(ki, 3, obuf);
               KK_RUN(env, ki, 1, NULL, &g, NULL);
               kk_read(env, obuf, sizeof(got), &got);
               stats.combos++;
               for (int i = 0; i < SAMPLES; i++) {
                  float fc[4] = {(float)ic[i][0], (float)ic[i][1], (float)ic[i][2], 0};
                  float wf[4];
                  int32_t wn[4];
                  ref_sample(im, three_d, fc, false, am, CL_FILTER_NEAREST, wf, wn);
                  for (int q = 0; q < 4; q++) {
                     stats.checked++;
                     bool ok = k == KIND_F ? close_f(got.f[i][q], wf[q], true)
                                           : got.n[i][q] == wn[q];
                     if (!ok && bad++ < 2)
                        KT_FAIL("%s int coords order 0x%x type 0x%x %s (%d, %d, %d) ch %d: "
                                "got %g/%d want %g/%d",
                                three_d ? "3D" : "2D", im->f.image_channel_order,
                                im->f.image_channel_data_type, mode_name(am), ic[i][0],
                                ic[i][1], ic[i][2], q, got.f[i][q], got.n[i][q], wf[q], wn[q]);
                  }
               }
            }
            CHECK_OK(clReleaseSampler(s));
         }
   clReleaseMemObject(cbuf);
   clReleaseMemObject(obuf);
   clReleaseKernel(kf);
   clReleaseKernel(ki);
}

/* ---- writes: the host's conversion of (r, g, b, a) to one element ---- */

static uint32_t sat_rte(float v, float scale, float lo, float hi)
{
   if (isnan(v))
      return 0;
   float x = rintf(v * scale);
   x = x < lo ? lo : x > hi ? hi : x;
   return (uint32_t)(int32_t)x;
}

static void ref_store(uint8_t *p, cl_image_format f, const float vf[4], const int32_t vn[4])
{
   cl_channel_type t = f.image_channel_data_type;
   if (t == CL_UNORM_SHORT_565) {
      *(uint16_t *)p = (uint16_t)(sat_rte(vf[0], 31, 0, 31) << 11 | sat_rte(vf[1], 63, 0, 63) << 5 |
                                  sat_rte(vf[2], 31, 0, 31));
      return;
   }
   if (t == CL_UNORM_SHORT_555) {
      *(uint16_t *)p = (uint16_t)(sat_rte(vf[0], 31, 0, 31) << 10 | sat_rte(vf[1], 31, 0, 31) << 5 |
                                  sat_rte(vf[2], 31, 0, 31));
      return;
   }
   if (t == CL_UNORM_INT_101010) {
      *(uint32_t *)p = sat_rte(vf[0], 1023, 0, 1023) << 20 | sat_rte(vf[1], 1023, 0, 1023) << 10 |
                       sat_rte(vf[2], 1023, 0, 1023);
      return;
   }
   /* Storage channel c takes the colour the order maps to it; INTENSITY
    * and LUMINANCE store red. */
   int map[4];
   order_map(f.image_channel_order, map);
   for (unsigned c = 0; c < order_channels(f.image_channel_order); c++) {
      int src = 0;
      for (int k = 3; k >= 0; k--)
         if (map[k] == (int)c)
            src = k;
      float x = vf[src];
      int32_t n = vn[src];
      switch (t) {
      case CL_UNORM_INT8: p[c] = (uint8_t)sat_rte(x, 255, 0, 255); break;
      case CL_UNORM_INT16: ((uint16_t *)p)[c] = (uint16_t)sat_rte(x, 65535, 0, 65535); break;
      case CL_SNORM_INT8: ((int8_t *)p)[c] = (int8_t)sat_rte(x, 127, -128, 127); break;
      case CL_SNORM_INT16: ((int16_t *)p)[c] = (int16_t)sat_rte(x, 32767, -32768, 32767); break;
      case CL_HALF_FLOAT: ((uint16_t *)p)[c] = float_to_half(x); break;
      case CL_FLOAT: ((float *)p)[c] = x; break;
      case CL_SIGNED_INT8: ((int8_t *)p)[c] = (int8_t)clampi(n, -128, 127); break;
      case CL_SIGNED_INT16: ((int16_t *)p)[c] = (int16_t)clampi(n, -32768, 32767); break;
      case CL_SIGNED_INT32: ((int32_t *)p)[c] = n; break;
      case CL_UNSIGNED_INT8: p[c] = (uint8_t)((uint32_t)n > 255 ? 255 : (uint32_t)n); break;
      case CL_UNSIGNED_INT16: ((uint16_t *)p)[c] = (uint16_t)((uint32_t)n > 65535 ? 65535 : (uint32_t)n); break;
      default: ((uint32_t *)p)[c] = (uint32_t)n; break;
      }
   }
}

static void check_writes(const struct kt_env *env, cl_program p, cl_image_format f, bool three_d)
{
   int dims[3] = {7, 3, three_d ? 3 : 1};
   size_t n = (size_t)dims[0] * dims[1] * dims[2], elem = elem_bytes(f);
   enum kind k = kind_of(f.image_channel_data_type);
   float (*vf)[4] = malloc(n * 16);
   int32_t (*vn)[4] = malloc(n * 16);
   for (size_t i = 0; i < n; i++)
      for (int c = 0; c < 4; c++) {
         vf[i][c] = f.image_channel_data_type == CL_FLOAT || f.image_channel_data_type == CL_HALF_FLOAT
                       ? rndf(-70000.0f, 70000.0f) / (rnd() % 2 ? 1.0f : 60000.0f)
                       : rndf(-1.3f, 1.3f);
         /* Unsigned writes take uint values: large ones must saturate. */
         vn[i][c] = k == KIND_U ? (int32_t)(rnd() % 3 ? rnd() % 70000 : rnd() << 8)
                                : (int32_t)(rnd() % 140000) - 70000;
      }
   cl_int err;
   cl_mem im = three_d ? clCreateImage3D(env->context, CL_MEM_WRITE_ONLY, &f, dims[0], dims[1],
                                          dims[2], 0, 0, NULL, &err)
                       : clCreateImage2D(env->context, CL_MEM_WRITE_ONLY, &f, dims[0], dims[1], 0,
                                         NULL, &err);
   REQUIRE(im && !err, "create image: %s", kt_err_name(err));
   cl_mem vb = kk_buffer_in(env, n * 16, k == KIND_F ? (void *)vf : (void *)vn);
   const char *suffix = k == KIND_F ? "f" : k == KIND_I ? "i" : "u";
   char name[16];
   snprintf(name, sizeof(name), "wr%c%s", three_d ? '3' : '2', suffix);
   cl_kernel kw = kk_kernel(p, name);
   KK_ARG(kw, 0, im);
   KK_ARG(kw, 1, vb);
   size_t g[3] = {(size_t)dims[0], (size_t)dims[1], (size_t)dims[2]};
   KK_RUN(env, kw, three_d ? 3 : 2, NULL, g, NULL);
   uint8_t *got = malloc(n * elem), *want = malloc(n * elem);
   size_t origin[3] = {0, 0, 0}, region[3] = {g[0], g[1], g[2]};
   REQUIRE_OK(clEnqueueReadImage(env->queue, im, CL_TRUE, origin, region, 0, 0, got, 0, NULL,
                                 NULL));
   for (size_t i = 0; i < n; i++)
      ref_store(want + i * elem, f, vf[i], vn[i]);
   stats.combos++;
   unsigned bad = 0;
   for (size_t i = 0; i < n; i++) {
      stats.checked++;
      /* The padding bits of the packed formats are undefined. */
      size_t cmp = elem;
      uint8_t g0[16], w0[16];
      memcpy(g0, got + i * elem, elem);
      memcpy(w0, want + i * elem, elem);
      if (f.image_channel_data_type == CL_UNORM_SHORT_555)
         g0[1] &= 0x7f, w0[1] &= 0x7f;
      if (f.image_channel_data_type == CL_UNORM_INT_101010)
         g0[3] &= 0x3f, w0[3] &= 0x3f;
      bool ok = is_packed(f.image_channel_data_type) ? !memcmp(g0, w0, elem)
                                                     : !memcmp(got + i * elem, want + i * elem, cmp);
      if (!ok && bad++ < 2)
         KT_FAIL("write %s order 0x%x type 0x%x element %zu: value (%g %g %g %g)/(%d %d %d %d), "
                 "first bytes got %02x%02x want %02x%02x",
                 three_d ? "3D" : "2D", f.image_channel_order, f.image_channel_data_type, i,
                 vf[i][0], vf[i][1], vf[i][2], vf[i][3], vn[i][0], vn[i][1], vn[i][2], vn[i][3],
                 got[i * elem], elem > 1 ? got[i * elem + 1] : 0, want[i * elem],
                 elem > 1 ? want[i * elem + 1] : 0);
   }
   stats.failed += bad;
   free(got), free(want), free(vf), free(vn);
   clReleaseKernel(kw);
   clReleaseMemObject(vb);
   clReleaseMemObject(im);
}

static void check_queries(const struct kt_env *env, cl_program p)
{
   cl_image_format f = {CL_RA, CL_SNORM_INT16}, g = {CL_BGRA, CL_UNORM_INT8};
   cl_int err;
   cl_mem a = clCreateImage2D(env->context, 0, &f, 9, 5, 0, NULL, &err);
   cl_mem b = clCreateImage2D(env->context, 0, &g, 3, 2, 0, NULL, &err);
   cl_mem c = clCreateImage3D(env->context, 0, &f, 4, 6, 7, 0, 0, NULL, &err);
   cl_mem d = clCreateImage3D(env->context, 0, &g, 2, 3, 5, 0, 0, NULL, &err);
   REQUIRE(a && b && c && d, "images");
   cl_mem o = kk_buffer_in(env, 64, NULL);
   cl_kernel k2 = kk_kernel(p, "q2"), k3 = kk_kernel(p, "q3");
   KK_ARG(k2, 0, a);
   KK_ARG(k2, 1, b);
   KK_ARG(k2, 2, o);
   size_t one = 1;
   KK_RUN(env, k2, 1, NULL, &one, NULL);
   int r[16];
   kk_read(env, o, sizeof(r), r);
   int want2[8] = {9, 5, 9, 5, CL_SNORM_INT16, CL_RA, 3, CL_BGRA};
   CHECK(!memcmp(r, want2, sizeof(want2)), "2D queries: %d %d %d %d 0x%x 0x%x %d 0x%x", r[0],
         r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
   KK_ARG(k3, 0, c);
   KK_ARG(k3, 1, d);
   KK_ARG(k3, 2, o);
   KK_RUN(env, k3, 1, NULL, &one, NULL);
   kk_read(env, o, sizeof(r), r);
   int want3[11] = {4, 6, 7, 4, 6, 7, 0, CL_SNORM_INT16, CL_RA, 5, CL_UNORM_INT8};
   CHECK(!memcmp(r, want3, sizeof(want3)), "3D queries: %d %d %d %d %d %d %d 0x%x 0x%x %d 0x%x",
         r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10]);
   clReleaseKernel(k2), clReleaseKernel(k3);
   clReleaseMemObject(a), clReleaseMemObject(b), clReleaseMemObject(c), clReleaseMemObject(d);
   clReleaseMemObject(o);
}

/* The program-scope sampler (normalized, REPEAT, LINEAR) matches the
 * reference like an argument would. */
static void check_const_sampler(const struct kt_env *env, cl_program p)
{
   cl_image_format f = {CL_RGBA, CL_UNORM_INT16};
   struct img im = {f, {6, 5, 1}, 8, NULL};
   fill_image(&im);
   cl_int err;
   cl_mem image = clCreateImage2D(env->context, CL_MEM_COPY_HOST_PTR, &f, 6, 5, 0, im.data, &err);
   REQUIRE(image, "image: %s", kt_err_name(err));
   float c[SAMPLES][4];
   make_coords(&im, false, true, CL_ADDRESS_REPEAT, c);
   cl_mem cb = kk_buffer_in(env, sizeof(c), c), ob = kk_buffer_in(env, sizeof(c), NULL);
   cl_kernel k = kk_kernel(p, "rdconst");
   KK_ARG(k, 0, image);
   KK_ARG(k, 1, cb);
   KK_ARG(k, 2, ob);
   size_t g = SAMPLES;
   KK_RUN(env, k, 1, NULL, &g, NULL);
   float got[SAMPLES][4];
   kk_read(env, ob, sizeof(got), got);
   unsigned bad = 0;
   for (int i = 0; i < SAMPLES; i++) {
      float wf[4];
      int32_t wn[4];
      ref_sample(&im, false, c[i], true, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR, wf, wn);
      for (int q = 0; q < 4; q++)
         if (!close_f(got[i][q], wf[q], false) && bad++ < 2)
            KT_FAIL("program-scope sampler: (%g, %g) ch %d got %g want %g", c[i][0], c[i][1], q,
                    got[i][q], wf[q]);
   }
   free(im.data);
   clReleaseKernel(k);
   clReleaseMemObject(cb), clReleaseMemObject(ob), clReleaseMemObject(image);
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   cl_bool images = CL_FALSE;
   REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images, NULL));
   REQUIRE(images, "the device must support images");
   cl_program p = kk_build(&env, source, NULL);
   for (int three_d = 0; three_d < 2; three_d++) {
      cl_mem_object_type type = three_d ? CL_MEM_OBJECT_IMAGE3D : CL_MEM_OBJECT_IMAGE2D;
      cl_uint nf = 0;
      REQUIRE_OK(clGetSupportedImageFormats(env.context, CL_MEM_READ_WRITE, type, 0, NULL, &nf));
      REQUIRE(nf >= 11, "%u formats", nf);
      cl_image_format *fmts = malloc(nf * sizeof(*fmts));
      REQUIRE_OK(clGetSupportedImageFormats(env.context, CL_MEM_READ_WRITE, type, nf, fmts, NULL));
      for (cl_uint i = 0; i < nf; i++) {
         struct img im = {fmts[i], {5, 4, three_d ? 3 : 1}, elem_bytes(fmts[i]), NULL};
         fill_image(&im);
         cl_int err;
         cl_mem image =
            three_d ? clCreateImage3D(env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                      &fmts[i], 5, 4, 3, 0, 0, im.data, &err)
                    : clCreateImage2D(env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                      &fmts[i], 5, 4, 0, im.data, &err);
         REQUIRE(image && !err, "image of order 0x%x type 0x%x: %s", fmts[i].image_channel_order,
                 fmts[i].image_channel_data_type, kt_err_name(err));
         check_reads(&env, p, &im, three_d, image);
         check_writes(&env, p, fmts[i], three_d);
         clReleaseMemObject(image);
         free(im.data);
      }
      free(fmts);
   }
   check_queries(&env, p);
   check_const_sampler(&env, p);
   printf("%u launches, %u values checked, %u mismatches\n", stats.combos, stats.checked,
          stats.failed);
   clReleaseProgram(p);
   kt_teardown(&env);
   return kt_result();
}
