/* OpenCL C 1.2 image builtins (§6.12.14) on Kiln's devices: image1d_t,
 * image1d_buffer_t, image1d_array_t and image2d_array_t arguments, their
 * reads (with a sampler, float and integer coordinates; without one, as
 * for image2d_t and image3d_t), writes and queries, the array layer's
 * rounding and clamping, and a 1D image buffer seen through its buffer.
 * Every result is checked against a host reference of §8's rules. */
#undef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#include "kk.h"

static const char *src =
   "kernel void read_1d(read_only image1d_t img, sampler_t s, global const float *c,\n"
   "                    global float4 *out)\n"
   "{ size_t i = get_global_id(0); out[i] = read_imagef(img, s, c[i]); }\n"
   "kernel void read_1da(read_only image1d_array_t img, sampler_t s, global const float2 *c,\n"
   "                     global float4 *out)\n"
   "{ size_t i = get_global_id(0); out[i] = read_imagef(img, s, c[i]); }\n"
   "kernel void read_2da(read_only image2d_array_t img, sampler_t s, global const float4 *c,\n"
   "                     global float4 *out)\n"
   "{ size_t i = get_global_id(0); out[i] = read_imagef(img, s, c[i]); }\n"
   "kernel void read_2da_int(read_only image2d_array_t img, sampler_t s, global const int4 *c,\n"
   "                         global float4 *out)\n"
   "{ size_t i = get_global_id(0); out[i] = read_imagef(img, s, c[i]); }\n"
   /* Every texel without a sampler, in storage order. */
   "kernel void fetch_1d(read_only image1d_t img, global uint4 *out)\n"
   "{ int x = get_global_id(0); out[x] = read_imageui(img, x); }\n"
   "kernel void fetch_1db(read_only image1d_buffer_t img, global uint4 *out)\n"
   "{ int x = get_global_id(0); out[x] = read_imageui(img, x); }\n"
   "kernel void fetch_1da(read_only image1d_array_t img, global uint4 *out)\n"
   "{ int x = get_global_id(0), l = get_global_id(1);\n"
   "  out[l * get_global_size(0) + x] = read_imageui(img, (int2)(x, l)); }\n"
   "kernel void fetch_2d(read_only image2d_t img, global uint4 *out)\n"
   "{ int x = get_global_id(0), y = get_global_id(1);\n"
   "  out[y * get_global_size(0) + x] = read_imageui(img, (int2)(x, y)); }\n"
   "kernel void fetch_2da(read_only image2d_array_t img, global uint4 *out)\n"
   "{ int x = get_global_id(0), y = get_global_id(1), l = get_global_id(2);\n"
   "  out[(l * get_global_size(1) + y) * get_global_size(0) + x] =\n"
   "     read_imageui(img, (int4)(x, y, l, 0)); }\n"
   "kernel void fetch_3d(read_only image3d_t img, global uint4 *out)\n"
   "{ int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);\n"
   "  out[(z * get_global_size(1) + y) * get_global_size(0) + x] =\n"
   "     read_imageui(img, (int4)(x, y, z, 0)); }\n"
   "kernel void fetch_f_1da(read_only image1d_array_t img, global float4 *out)\n"
   "{ int x = get_global_id(0), l = get_global_id(1);\n"
   "  out[l * get_global_size(0) + x] = read_imagef(img, (int2)(x, l)); }\n"
   "kernel void fetch_i_2da(read_only image2d_array_t img, global int4 *out)\n"
   "{ int x = get_global_id(0), y = get_global_id(1), l = get_global_id(2);\n"
   "  out[(l * get_global_size(1) + y) * get_global_size(0) + x] =\n"
   "     read_imagei(img, (int4)(x, y, l, 0)); }\n"
   /* Writes of a value made from the coordinate. */
   "uint4 val(int x, int y, int l) { return (uint4)(x, y, l, x * 7 + y * 3 + l * 11); }\n"
   "kernel void write_1d(write_only image1d_t img)\n"
   "{ int x = get_global_id(0); write_imageui(img, x, val(x, 0, 0)); }\n"
   "kernel void write_1db(write_only image1d_buffer_t img)\n"
   "{ int x = get_global_id(0); write_imageui(img, x, val(x, 0, 0)); }\n"
   "kernel void write_1da(write_only image1d_array_t img)\n"
   "{ int x = get_global_id(0), l = get_global_id(1);\n"
   "  write_imageui(img, (int2)(x, l), val(x, 0, l)); }\n"
   "kernel void write_2da(write_only image2d_array_t img)\n"
   "{ int x = get_global_id(0), y = get_global_id(1), l = get_global_id(2);\n"
   "  write_imageui(img, (int4)(x, y, l, 0), val(x, y, l)); }\n"
   "kernel void write_f_1d(write_only image1d_t img, global const float4 *v)\n"
   "{ int x = get_global_id(0); write_imagef(img, x, v[x]); }\n"
   /* Queries. */
   "kernel void q_1d(read_only image1d_t img, global int *o)\n"
   "{ o[0] = get_image_width(img); o[1] = get_image_channel_data_type(img);\n"
   "  o[2] = get_image_channel_order(img); }\n"
   "kernel void q_1db(write_only image1d_buffer_t img, global int *o)\n"
   "{ o[0] = get_image_width(img); o[1] = get_image_channel_data_type(img);\n"
   "  o[2] = get_image_channel_order(img); }\n"
   "kernel void q_1da(read_only image1d_array_t img, global int *o)\n"
   "{ o[0] = get_image_width(img); o[1] = get_image_channel_data_type(img);\n"
   "  o[2] = get_image_channel_order(img); o[3] = (int)get_image_array_size(img); }\n"
   "kernel void q_2da(write_only image2d_array_t img, global int *o)\n"
   "{ o[0] = get_image_width(img); o[1] = get_image_channel_data_type(img);\n"
   "  o[2] = get_image_channel_order(img); o[3] = (int)get_image_array_size(img);\n"
   "  o[4] = get_image_height(img); int2 d = get_image_dim(img); o[5] = d.x; o[6] = d.y; }\n";

static const cl_image_format rgba_u32 = {CL_RGBA, CL_UNSIGNED_INT32};
static const cl_image_format rgba_f = {CL_RGBA, CL_FLOAT};

static cl_mem image(const struct kt_env *env, cl_mem_object_type type, const cl_image_format *f,
                    size_t w, size_t h, size_t d, size_t layers, cl_mem buffer, void *host)
{
   cl_image_desc dsc;
   memset(&dsc, 0, sizeof(dsc));
   dsc.image_type = type;
   dsc.image_width = w;
   dsc.image_height = h;
   dsc.image_depth = d;
   dsc.image_array_size = layers;
   dsc.buffer = buffer;
   cl_int err;
   cl_mem m = clCreateImage(env->context, host ? CL_MEM_COPY_HOST_PTR : 0, f, &dsc, host, &err);
   REQUIRE(m, "image type 0x%x: %s", type, kt_err_name(err));
   return m;
}

/* ---- host reference of §8 for RGBA float images, one layer ---- */

struct ref {
   const float *data; /* W x H texels of 4 floats, the layer */
   int w, h;
};

static void texel(const struct ref *r, int x, int y, bool border_outside, float out[4])
{
   if (x < 0 || y < 0 || x >= r->w || y >= r->h) {
      /* CLAMP: RGBA has alpha, so the border is (0, 0, 0, 0).  Only
       * CLAMP asks for it here. */
      (void)border_outside;
      out[0] = out[1] = out[2] = out[3] = 0;
      return;
   }
   memcpy(out, r->data + 4 * ((size_t)y * r->w + x), 16);
}

static float wrap_u(float s, int n, unsigned addr, bool norm)
{
   if (norm && addr == CL_ADDRESS_REPEAT)
      return (s - floorf(s)) * n;
   return norm ? s * n : s;
}

static int fix_index(int i, int n, unsigned addr, bool norm)
{
   if (norm && addr == CL_ADDRESS_REPEAT) {
      if (i < 0)
         i += n;
      if (i > n - 1)
         i -= n;
      return i;
   }
   if (addr == CL_ADDRESS_CLAMP_TO_EDGE)
      return i < 0 ? 0 : i > n - 1 ? n - 1 : i;
   return i < -1 ? -1 : i > n ? n : i; /* CLAMP: the border */
}

/* Sample at (s, t); dims 1 samples one row at its centre. */
static void sample(const struct ref *r, int dims, float s, float t, unsigned addr, bool norm,
                   bool linear, float out[4])
{
   float u = wrap_u(s, r->w, addr, norm);
   float v = dims == 2 ? wrap_u(t, r->h, addr, norm) : 0.5f;
   if (!linear) {
      int x = fix_index((int)floorf(u), r->w, addr, norm);
      int y = dims == 2 ? fix_index((int)floorf(v), r->h, addr, norm) : 0;
      texel(r, x, y, true, out);
      return;
   }
   float fu = floorf(u - 0.5f), fv = floorf(v - 0.5f);
   float a = (u - 0.5f) - fu, b = (v - 0.5f) - fv;
   int x0 = fix_index((int)fu, r->w, addr, norm), x1 = fix_index((int)fu + 1, r->w, addr, norm);
   int y0 = 0, y1 = 0;
   if (dims == 2) {
      y0 = fix_index((int)fv, r->h, addr, norm);
      y1 = fix_index((int)fv + 1, r->h, addr, norm);
   } else {
      b = 0;
   }
   float t00[4], t10[4], t01[4], t11[4];
   texel(r, x0, y0, true, t00);
   texel(r, x1, y0, true, t10);
   texel(r, x0, y1, true, t01);
   texel(r, x1, y1, true, t11);
   for (int c = 0; c < 4; c++)
      out[c] = (1 - a) * (1 - b) * t00[c] + a * (1 - b) * t10[c] + (1 - a) * b * t01[c] +
               a * b * t11[c];
}

static bool close4(const float *got, const float *want)
{
   for (int c = 0; c < 4; c++)
      if (fabsf(got[c] - want[c]) > 1e-5f * (1 + fabsf(want[c])))
         return false;
   return true;
}

static int layer_of(float c, int n)
{
   float r = rintf(c);
   return r < 0 ? 0 : r > n - 1 ? n - 1 : (int)r;
}

struct mode {
   cl_bool norm;
   cl_addressing_mode addr;
   cl_filter_mode filter;
};

static const struct mode modes[] = {
   {CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST},
   {CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST},
   {CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_NEAREST},
   {CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_LINEAR},
   {CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_LINEAR},
   {CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR},
};

/* Sampled float reads of 1D, 1D array and 2D array images in every mode
 * above, at coordinates inside, outside and between texels, with layer
 * coordinates that round up, down and clamp at both ends. */
static void sampled(const struct kt_env *env, cl_program p)
{
   enum { W = 7, H = 5, L = 3, N = 24 };
   static float data[L][H][W][4];
   for (int l = 0; l < L; l++)
      for (int y = 0; y < H; y++)
         for (int x = 0; x < W; x++)
            for (int c = 0; c < 4; c++)
               data[l][y][x][c] = (float)((l * 37 + y * 11 + x * 5 + c * 3) % 17) / 4.0f - 1.0f;
   cl_mem img1 = image(env, CL_MEM_OBJECT_IMAGE1D, &rgba_f, W, 0, 0, 0, NULL, data[1][2]);
   /* The 1D array: layer l is row 0 of data's layer l; packed here. */
   static float rows[L][W][4];
   for (int l = 0; l < L; l++)
      memcpy(rows[l], data[l][0], sizeof(rows[l]));
   cl_mem img1a = image(env, CL_MEM_OBJECT_IMAGE1D_ARRAY, &rgba_f, W, 0, 0, L, NULL, rows);
   cl_mem img2a = image(env, CL_MEM_OBJECT_IMAGE2D_ARRAY, &rgba_f, W, H, 0, L, NULL, data);
   cl_kernel k1 = kk_kernel(p, "read_1d"), k1a = kk_kernel(p, "read_1da"),
             k2a = kk_kernel(p, "read_2da"), k2i = kk_kernel(p, "read_2da_int");
   cl_mem out = kk_buffer_in(env, N * 16, NULL);
   for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
      const struct mode *md = &modes[m];
      cl_int err;
      cl_sampler s = clCreateSampler(env->context, md->norm, md->addr, md->filter, &err);
      REQUIRE(s, "sampler: %s", kt_err_name(err));
      float cs[N][4];
      for (int i = 0; i < N; i++) {
         /* x from below 0 to past the end; y likewise; a layer from -1.2
          * to 3.4, through x.4 and x.6. */
         float fx = -1.3f + i * 0.41f, fy = -0.8f + i * 0.29f;
         if (md->norm)
            fx /= W, fy /= H;
         cs[i][0] = fx, cs[i][1] = fy, cs[i][2] = -1.2f + i * 0.2f, cs[i][3] = 0;
      }
      float got[N][4], want[4];
      size_t n = N;
      /* 1D */
      float c1[N];
      for (int i = 0; i < N; i++)
         c1[i] = cs[i][0];
      cl_mem cb = kk_buffer_in(env, sizeof(c1), c1);
      KK_ARG(k1, 0, img1);
      KK_ARG(k1, 1, s);
      KK_ARG(k1, 2, cb);
      KK_ARG(k1, 3, out);
      KK_RUN(env, k1, 1, NULL, &n, NULL);
      kk_read(env, out, sizeof(got), got);
      struct ref r1 = {data[1][2][0], W, 1};
      for (int i = 0; i < N; i++) {
         sample(&r1, 1, c1[i], 0, md->addr, md->norm, md->filter == CL_FILTER_LINEAR, want);
         CHECK(close4(got[i], want), "1D mode %zu at %g: (%g %g %g %g), want (%g %g %g %g)", m,
               c1[i], got[i][0], got[i][1], got[i][2], got[i][3], want[0], want[1], want[2],
               want[3]);
      }
      clReleaseMemObject(cb);
      /* 1D array: (x, layer) */
      float c2[N][2];
      for (int i = 0; i < N; i++)
         c2[i][0] = cs[i][0], c2[i][1] = cs[i][2];
      cb = kk_buffer_in(env, sizeof(c2), c2);
      KK_ARG(k1a, 0, img1a);
      KK_ARG(k1a, 1, s);
      KK_ARG(k1a, 2, cb);
      KK_ARG(k1a, 3, out);
      KK_RUN(env, k1a, 1, NULL, &n, NULL);
      kk_read(env, out, sizeof(got), got);
      for (int i = 0; i < N; i++) {
         int l = layer_of(c2[i][1], L);
         struct ref r = {rows[l][0], W, 1};
         sample(&r, 1, c2[i][0], 0, md->addr, md->norm, md->filter == CL_FILTER_LINEAR, want);
         CHECK(close4(got[i], want), "1D array mode %zu at (%g, %g): (%g %g %g %g), want layer %d "
               "(%g %g %g %g)", m, c2[i][0], c2[i][1], got[i][0], got[i][1], got[i][2],
               got[i][3], l, want[0], want[1], want[2], want[3]);
      }
      clReleaseMemObject(cb);
      /* 2D array: (x, y, layer) */
      cb = kk_buffer_in(env, sizeof(cs), cs);
      KK_ARG(k2a, 0, img2a);
      KK_ARG(k2a, 1, s);
      KK_ARG(k2a, 2, cb);
      KK_ARG(k2a, 3, out);
      KK_RUN(env, k2a, 1, NULL, &n, NULL);
      kk_read(env, out, sizeof(got), got);
      for (int i = 0; i < N; i++) {
         int l = layer_of(cs[i][2], L);
         struct ref r = {data[l][0][0], W, H};
         sample(&r, 2, cs[i][0], cs[i][1], md->addr, md->norm, md->filter == CL_FILTER_LINEAR,
                want);
         CHECK(close4(got[i], want), "2D array mode %zu at (%g, %g, %g): (%g %g %g %g), want "
               "layer %d (%g %g %g %g)", m, cs[i][0], cs[i][1], cs[i][2], got[i][0], got[i][1],
               got[i][2], got[i][3], l, want[0], want[1], want[2], want[3]);
      }
      clReleaseMemObject(cb);
      /* Integer coordinates (unnormalized samplers only): the layer
       * clamps, x and y follow the addressing mode. */
      if (!md->norm && md->filter == CL_FILTER_NEAREST) {
         int ci[N][4];
         for (int i = 0; i < N; i++)
            ci[i][0] = i % 9 - 1, ci[i][1] = i % 7 - 1, ci[i][2] = i % 6 - 1, ci[i][3] = 0;
         cb = kk_buffer_in(env, sizeof(ci), ci);
         KK_ARG(k2i, 0, img2a);
         KK_ARG(k2i, 1, s);
         KK_ARG(k2i, 2, cb);
         KK_ARG(k2i, 3, out);
         KK_RUN(env, k2i, 1, NULL, &n, NULL);
         kk_read(env, out, sizeof(got), got);
         for (int i = 0; i < N; i++) {
            int l = ci[i][2] < 0 ? 0 : ci[i][2] > L - 1 ? L - 1 : ci[i][2];
            struct ref r = {data[l][0][0], W, H};
            int x = fix_index(ci[i][0], W, md->addr, false), y = fix_index(ci[i][1], H, md->addr,
                                                                          false);
            texel(&r, x, y, true, want);
            CHECK(close4(got[i], want), "2D array int mode %zu at (%d, %d, %d)", m, ci[i][0],
                  ci[i][1], ci[i][2]);
         }
         clReleaseMemObject(cb);
      }
      clReleaseSampler(s);
   }
   clReleaseMemObject(out);
   clReleaseKernel(k1);
   clReleaseKernel(k1a);
   clReleaseKernel(k2a);
   clReleaseKernel(k2i);
   clReleaseMemObject(img1);
   clReleaseMemObject(img1a);
   clReleaseMemObject(img2a);
}

/* Reads without a sampler give every texel exactly, for every type;
 * writes land where the coordinate says. */
static void fetch_and_write(const struct kt_env *env, cl_program p)
{
   enum { W = 6, H = 4, L = 3 };
   static uint32_t host[L * H * W * 4], got[L * H * W * 4];
   kt_fill(host, sizeof(host), 42);
   struct {
      cl_mem_object_type type;
      const char *fetch, *write;
      size_t w, h, d, layers, global[3];
   } t[] = {
      {CL_MEM_OBJECT_IMAGE1D, "fetch_1d", "write_1d", W, 0, 0, 0, {W, 1, 1}},
      {CL_MEM_OBJECT_IMAGE1D_ARRAY, "fetch_1da", "write_1da", W, 0, 0, L, {W, L, 1}},
      {CL_MEM_OBJECT_IMAGE2D, "fetch_2d", NULL, W, H, 0, 0, {W, H, 1}},
      {CL_MEM_OBJECT_IMAGE2D_ARRAY, "fetch_2da", "write_2da", W, H, 0, L, {W, H, L}},
      {CL_MEM_OBJECT_IMAGE3D, "fetch_3d", NULL, W, H, L, 0, {W, H, L}},
   };
   cl_mem out = kk_buffer_in(env, sizeof(got), NULL);
   for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
      cl_mem img = image(env, t[i].type, &rgba_u32, t[i].w, t[i].h, t[i].d, t[i].layers, NULL,
                         host);
      size_t n = t[i].global[0] * t[i].global[1] * t[i].global[2];
      cl_kernel k = kk_kernel(p, t[i].fetch);
      KK_ARG(k, 0, img);
      KK_ARG(k, 1, out);
      KK_RUN(env, k, 3, NULL, t[i].global, NULL);
      kk_read(env, out, n * 16, got);
      CHECK(kt_same(got, host, n * 16, t[i].fetch), "");
      clReleaseKernel(k);
      if (t[i].write) {
         k = kk_kernel(p, t[i].write);
         KK_ARG(k, 0, img);
         KK_RUN(env, k, 3, NULL, t[i].global, NULL);
         size_t origin[3] = {0, 0, 0};
         CHECK_OK(clEnqueueReadImage(env->queue, img, CL_TRUE, origin, t[i].global, 0, 0, got, 0,
                                     NULL, NULL));
         bool ok = true;
         for (size_t z = 0; z < t[i].global[2]; z++)
            for (size_t y = 0; y < t[i].global[1]; y++)
               for (size_t x = 0; x < t[i].global[0]; x++) {
                  /* y is the layer of a 1D array. */
                  size_t yy = t[i].type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 0 : y;
                  size_t ll = t[i].type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? y : z;
                  const uint32_t *v = got + 4 * ((z * t[i].global[1] + y) * t[i].global[0] + x);
                  ok &= v[0] == x && v[1] == yy && v[2] == ll && v[3] == x * 7 + yy * 3 + ll * 11;
               }
         CHECK(ok, "%s wrote the wrong texels", t[i].write);
         clReleaseKernel(k);
      }
      clReleaseMemObject(img);
   }
   /* Float and signed reads without a sampler convert as §8.3 says. */
   static const cl_image_format u8 = {CL_RGBA, CL_UNORM_INT8}, s16 = {CL_RGBA, CL_SIGNED_INT16};
   unsigned char bytes[W * L * 4];
   kt_fill(bytes, sizeof(bytes), 7);
   cl_mem img = image(env, CL_MEM_OBJECT_IMAGE1D_ARRAY, &u8, W, 0, 0, L, NULL, bytes);
   cl_kernel k = kk_kernel(p, "fetch_f_1da");
   KK_ARG(k, 0, img);
   KK_ARG(k, 1, out);
   size_t g2[2] = {W, L};
   KK_RUN(env, k, 2, NULL, g2, NULL);
   float f[W * L * 4];
   kk_read(env, out, sizeof(f), f);
   bool ok = true;
   for (size_t i = 0; i < W * L * 4; i++)
      ok &= fabsf(f[i] - bytes[i] / 255.0f) < 1e-6f;
   CHECK(ok, "UNORM_INT8 1D array read without a sampler");
   clReleaseKernel(k);
   clReleaseMemObject(img);
   int16_t shorts[W * H * L * 4];
   kt_fill(shorts, sizeof(shorts), 8);
   img = image(env, CL_MEM_OBJECT_IMAGE2D_ARRAY, &s16, W, H, 0, L, NULL, shorts);
   k = kk_kernel(p, "fetch_i_2da");
   KK_ARG(k, 0, img);
   KK_ARG(k, 1, out);
   size_t g3[3] = {W, H, L};
   KK_RUN(env, k, 3, NULL, g3, NULL);
   int32_t iv[W * H * L * 4];
   kk_read(env, out, sizeof(iv), iv);
   ok = true;
   for (size_t i = 0; i < W * H * L * 4; i++)
      ok &= iv[i] == shorts[i];
   CHECK(ok, "SIGNED_INT16 2D array read without a sampler");
   clReleaseKernel(k);
   clReleaseMemObject(img);
   /* write_imagef to a 1D UNORM_INT8 image rounds and saturates. */
   img = image(env, CL_MEM_OBJECT_IMAGE1D, &u8, W, 0, 0, 0, NULL, NULL);
   float v[W][4];
   for (int x = 0; x < W; x++)
      for (int c = 0; c < 4; c++)
         v[x][c] = (x * 4 + c) / 20.0f - 0.1f;
   cl_mem vb = kk_buffer_in(env, sizeof(v), v);
   k = kk_kernel(p, "write_f_1d");
   KK_ARG(k, 0, img);
   KK_ARG(k, 1, vb);
   size_t g1 = W;
   KK_RUN(env, k, 1, NULL, &g1, NULL);
   unsigned char wb[W * 4];
   size_t o[3] = {0, 0, 0}, r[3] = {W, 1, 1};
   CHECK_OK(clEnqueueReadImage(env->queue, img, CL_TRUE, o, r, 0, 0, wb, 0, NULL, NULL));
   ok = true;
   for (int x = 0; x < W; x++)
      for (int c = 0; c < 4; c++) {
         float s = v[x][c] < 0 ? 0 : v[x][c] > 1 ? 1 : v[x][c];
         ok &= wb[x * 4 + c] == (unsigned char)rintf(s * 255.0f);
      }
   CHECK(ok, "write_imagef to a 1D UNORM_INT8 image");
   clReleaseMemObject(vb);
   clReleaseKernel(k);
   clReleaseMemObject(img);
   clReleaseMemObject(out);
}

/* A 1D image buffer reads what the host put in its buffer and its writes
 * show in the buffer; clSetKernelArg takes only the right image type. */
static void image_buffer(const struct kt_env *env, cl_program p)
{
   enum { W = 32 };
   uint32_t host[W * 4], got[W * 4];
   kt_fill(host, sizeof(host), 9);
   cl_mem buf = kk_buffer_in(env, sizeof(host), host);
   cl_mem img = image(env, CL_MEM_OBJECT_IMAGE1D_BUFFER, &rgba_u32, W, 0, 0, 0, buf, NULL);
   cl_mem out = kk_buffer_in(env, sizeof(got), NULL);
   cl_kernel k = kk_kernel(p, "fetch_1db");
   KK_ARG(k, 0, img);
   KK_ARG(k, 1, out);
   size_t n = W;
   KK_RUN(env, k, 1, NULL, &n, NULL);
   kk_read(env, out, sizeof(got), got);
   CHECK(kt_same(got, host, sizeof(host), "1D image buffer read"), "");
   /* A 1D image is not a 1D image buffer, nor a buffer an image. */
   cl_mem img1 = image(env, CL_MEM_OBJECT_IMAGE1D, &rgba_u32, W, 0, 0, 0, NULL, NULL);
   CHECK_ERR(clSetKernelArg(k, 0, sizeof(img1), &img1), CL_INVALID_MEM_OBJECT);
   CHECK_ERR(clSetKernelArg(k, 0, sizeof(buf), &buf), CL_INVALID_MEM_OBJECT);
   /* A read_only argument takes no CL_MEM_WRITE_ONLY image, a write_only
    * one no CL_MEM_READ_ONLY image. */
   cl_image_desc dsc;
   memset(&dsc, 0, sizeof(dsc));
   dsc.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER;
   dsc.image_width = W;
   dsc.buffer = buf;
   cl_int err;
   cl_mem wo = clCreateImage(env->context, CL_MEM_WRITE_ONLY, &rgba_u32, &dsc, NULL, &err);
   cl_mem ro = clCreateImage(env->context, CL_MEM_READ_ONLY, &rgba_u32, &dsc, NULL, &err);
   REQUIRE(wo && ro, "images: %s", kt_err_name(err));
   CHECK_ERR(clSetKernelArg(k, 0, sizeof(wo), &wo), CL_INVALID_ARG_VALUE);
   CHECK_ERR(clSetKernelArg(k, 0, sizeof(ro), &ro), CL_SUCCESS);
   clReleaseKernel(k);
   k = kk_kernel(p, "write_1db");
   CHECK_ERR(clSetKernelArg(k, 0, sizeof(ro), &ro), CL_INVALID_ARG_VALUE);
   CHECK_ERR(clSetKernelArg(k, 0, sizeof(wo), &wo), CL_SUCCESS);
   clReleaseKernel(k);
   clReleaseMemObject(wo);
   clReleaseMemObject(ro);
   k = kk_kernel(p, "write_1db");
   KK_ARG(k, 0, img);
   KK_RUN(env, k, 1, NULL, &n, NULL);
   kk_read(env, buf, sizeof(got), got);
   bool ok = true;
   for (uint32_t x = 0; x < W; x++)
      ok &= got[4 * x] == x && got[4 * x + 1] == 0 && got[4 * x + 3] == x * 7;
   CHECK(ok, "1D image buffer writes do not show in the buffer");
   clReleaseKernel(k);
   clReleaseMemObject(img1);
   clReleaseMemObject(out);
   clReleaseMemObject(img);
   clReleaseMemObject(buf);
}

static void queries(const struct kt_env *env, cl_program p)
{
   static const cl_image_format f = {CL_BGRA, CL_UNORM_INT8};
   cl_mem buf = kk_buffer_in(env, 64 * 4, NULL);
   cl_mem imgs[4] = {
      image(env, CL_MEM_OBJECT_IMAGE1D, &f, 13, 0, 0, 0, NULL, NULL),
      image(env, CL_MEM_OBJECT_IMAGE1D_BUFFER, &f, 17, 0, 0, 0, buf, NULL),
      image(env, CL_MEM_OBJECT_IMAGE1D_ARRAY, &f, 19, 0, 0, 5, NULL, NULL),
      image(env, CL_MEM_OBJECT_IMAGE2D_ARRAY, &f, 23, 3, 0, 6, NULL, NULL),
   };
   const char *names[4] = {"q_1d", "q_1db", "q_1da", "q_2da"};
   const int want[4][7] = {
      {13, CL_UNORM_INT8, CL_BGRA, -1, -1, -1, -1},
      {17, CL_UNORM_INT8, CL_BGRA, -1, -1, -1, -1},
      {19, CL_UNORM_INT8, CL_BGRA, 5, -1, -1, -1},
      {23, CL_UNORM_INT8, CL_BGRA, 6, 3, 23, 3},
   };
   cl_mem out = kk_buffer_in(env, 7 * sizeof(int), NULL);
   for (int i = 0; i < 4; i++) {
      int init[7] = {-1, -1, -1, -1, -1, -1, -1}, got[7];
      CHECK_OK(clEnqueueWriteBuffer(env->queue, out, CL_TRUE, 0, sizeof(init), init, 0, NULL,
                                    NULL));
      cl_kernel k = kk_kernel(p, names[i]);
      KK_ARG(k, 0, imgs[i]);
      KK_ARG(k, 1, out);
      size_t one = 1;
      KK_RUN(env, k, 1, NULL, &one, NULL);
      kk_read(env, out, sizeof(got), got);
      for (int j = 0; j < 7; j++)
         CHECK(got[j] == want[i][j], "%s: o[%d] = %d, want %d", names[i], j, got[j], want[i][j]);
      clReleaseKernel(k);
      clReleaseMemObject(imgs[i]);
   }
   clReleaseMemObject(out);
   clReleaseMemObject(buf);
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   cl_bool images = CL_FALSE;
   clGetDeviceInfo(env.device, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images, NULL);
   if (!images) {
      printf("no image support: skipped\n");
      kt_teardown(&env);
      return 77;
   }
   /* The 1.2 builtins are declared for OpenCL C 1.2 programs only, which
    * a device reporting OpenCL C 1.1 refuses to build. */
   char cver[64] = "";
   clGetDeviceInfo(env.device, CL_DEVICE_OPENCL_C_VERSION, sizeof(cver), cver, NULL);
   if (strncmp(cver, "OpenCL C 1.", 11) == 0 && cver[11] < '2') {
      printf("%s device: skipped\n", cver);
      kt_teardown(&env);
      return 77;
   }
   cl_program p = kk_build(&env, src, "-cl-std=CL1.2");
   sampled(&env, p);
   fetch_and_write(&env, p);
   image_buffer(&env, p);
   queries(&env, p);
   clReleaseProgram(p);
   kt_teardown(&env);
   return kt_result();
}
