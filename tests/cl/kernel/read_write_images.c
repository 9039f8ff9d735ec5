/* Read-write images (OpenCL 3.0's optional __opencl_c_read_write_images)
 * on a device that reports them (Kiln's CPU device): the queries agree
 * (CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS >= 64, the feature in
 * CL_DEVICE_OPENCL_C_FEATURES, clGetSupportedImageFormats with
 * CL_MEM_KERNEL_READ_AND_WRITE listing at least 3.0's minimum formats for
 * every image type); read_write arguments of every image type read,
 * write and read again the same texel in one kernel with
 * atomic_work_item_fence(CLK_IMAGE_MEM_FENCE) between (read_image{f,i,ui}
 * and, with cl_khr_fp16, read_imageh/write_imageh; through a function
 * taking the image too), checked against a host model of the format's
 * conversions (rounding, saturation, missing channels) and against the
 * image's contents after the kernel; the image queries on read_write
 * images; another work-item's write seen after
 * work_group_barrier(CLK_IMAGE_MEM_FENCE); CL_KERNEL_ARG_ACCESS_QUALIFIER;
 * and the refusals (read_write in OpenCL C 1.2, a sampler read of a
 * read_write image).  A device without the feature must report 0 and no
 * formats, and refuse read_write. */
#undef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#include "kk.h"

#define CL30 "-cl-std=CL3.0"
#define FEATURE "__opencl_c_read_write_images"

/* ---- image types ---- */

struct itype {
   const char *tag, *cl, *coord; /* kernel name part, OpenCL C type, coordinate */
   cl_mem_object_type type;
   size_t size[3]; /* global size: width, then height or layers, then depth or layers */
   const char *queries; /* OpenCL C statements filling o[3..] */
   int nq;              /* values the queries kernel writes */
};

static const struct itype types[] = {
   {"1d", "image1d_t", "x", CL_MEM_OBJECT_IMAGE1D, {37, 1, 1}, "", 3},
   {"1db", "image1d_buffer_t", "x", CL_MEM_OBJECT_IMAGE1D_BUFFER, {41, 1, 1}, "", 3},
   {"1da", "image1d_array_t", "(int2)(x, y)", CL_MEM_OBJECT_IMAGE1D_ARRAY, {13, 5, 1},
    "o[3] = (int)get_image_array_size(img);", 4},
   {"2d", "image2d_t", "(int2)(x, y)", CL_MEM_OBJECT_IMAGE2D, {13, 7, 1},
    "o[3] = get_image_height(img); int2 d = get_image_dim(img); o[4] = d.x; o[5] = d.y;", 6},
   {"2da", "image2d_array_t", "(int4)(x, y, z, 0)", CL_MEM_OBJECT_IMAGE2D_ARRAY, {9, 5, 3},
    "o[3] = get_image_height(img); o[4] = (int)get_image_array_size(img);"
    " int2 d = get_image_dim(img); o[5] = d.x; o[6] = d.y;",
    7},
   {"3d", "image3d_t", "(int4)(x, y, z, 0)", CL_MEM_OBJECT_IMAGE3D, {7, 5, 3},
    "o[3] = get_image_height(img); o[4] = get_image_depth(img);"
    " int4 d = get_image_dim(img); o[5] = d.x; o[6] = d.y; o[7] = d.z; o[8] = d.w;",
    9},
};
#define NTYPES (sizeof(types) / sizeof(types[0]))

/* ---- what a kernel does: read, write a new value, fence, read back
 * (in a function that takes the read_write image), then write once more
 * from what it read back ---- */

struct variant {
   const char *tag, *vec, *read, *write, *update, *next, *out; /* out: the value as 4 x 32 bits */
};

static const struct variant variants[] = {
   {"f", "float4", "read_imagef", "write_imagef", "v * 0.5f + 0.25f", "r + 1.0f", "r"},
   {"i", "int4", "read_imagei", "write_imagei", "v * -3 + (int4)(1, -2, 3, -4)", "r + 1", "r"},
   {"ui", "uint4", "read_imageui", "write_imageui", "v * 3u + (uint4)(1, 2, 3, 4)", "r + 1u",
    "r"},
   {"h", "half4", "read_imageh", "write_imageh", "v * (half)0.5 + (half)0.25", "r + (half)1",
    "convert_float4(r)"},
};
enum { V_F, V_I, V_UI, V_H };

static char *program_source(bool half)
{
   size_t cap = 64 << 10, n = 0;
   char *s = malloc(cap);
   REQUIRE(s, "out of memory");
   if (half)
      n += (size_t)snprintf(s + n, cap - n, "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n");
   for (size_t t = 0; t < NTYPES; t++) {
      const struct itype *it = &types[t];
      for (size_t v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
         if ((v == V_H) != half)
            continue;
         const struct variant *va = &variants[v];
         n += (size_t)snprintf(
            s + n, cap - n,
            "__attribute__((noinline)) %s bump_%s_%s(read_write %s img, int x, int y, int z)\n"
            "{ %s v = %s(img, %s);\n"
            "  %s(img, %s, %s);\n"
            "  atomic_work_item_fence(CLK_IMAGE_MEM_FENCE, memory_order_acq_rel,\n"
            "                         memory_scope_work_item);\n"
            "  return %s(img, %s); }\n"
            "kernel void rw_%s_%s(read_write %s img, global float4 *out)\n"
            "{ int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);\n"
            "  size_t i = (z * get_global_size(1) + y) * get_global_size(0) + x;\n"
            "  %s r = bump_%s_%s(img, x, y, z);\n"
            "  out[i] = as_float4(%s);\n"
            "  %s(img, %s, %s); }\n",
            va->vec, va->tag, it->tag, it->cl, va->vec, va->read, it->coord, va->write,
            it->coord, va->update, va->read, it->coord, va->tag, it->tag, it->cl, va->vec,
            va->tag, it->tag, va->out, va->write, it->coord, va->next);
      }
      if (!half && it->type == CL_MEM_OBJECT_IMAGE2D)
         n += (size_t)snprintf(
            s + n, cap - n,
            /* Another work-item's texel of the group, after a barrier. */
            "kernel void rw_barrier(read_write image2d_t img, global uint4 *out)\n"
            "{ int x = get_global_id(0), y = get_global_id(1);\n"
            "  int lx = get_local_id(0), ly = get_local_id(1);\n"
            "  int nx = x - lx + (lx + 1) %% (int)get_local_size(0);\n"
            "  int ny = y - ly + (ly + 1) %% (int)get_local_size(1);\n"
            "  write_imageui(img, (int2)(x, y), (uint4)(x, y, x * y, 7));\n"
            "  work_group_barrier(CLK_IMAGE_MEM_FENCE);\n"
            "  out[y * get_global_size(0) + x] = read_imageui(img, (int2)(nx, ny)); }\n");
      if (!half)
         n += (size_t)snprintf(
            s + n, cap - n,
            "kernel void q_%s(read_write %s img, global int *o)\n"
            "{ o[0] = get_image_width(img); o[1] = get_image_channel_data_type(img);\n"
            "  o[2] = get_image_channel_order(img); %s }\n",
            it->tag, it->cl, it->queries);
      REQUIRE(n < cap, "source buffer too small");
   }
   return s;
}

/* ---- formats and the host model of their conversions (§8.3) ---- */

struct fmt {
   cl_image_format f;
   int channels; /* 1 (R) or 4 (RGBA) */
   size_t chan_size;
   int variant; /* the read/write functions the format is tested with */
};

static const struct fmt formats[] = {
   {{CL_RGBA, CL_FLOAT}, 4, 4, V_F},
   {{CL_R, CL_UNORM_INT8}, 1, 1, V_F},
   {{CL_RGBA, CL_SIGNED_INT16}, 4, 2, V_I},
   {{CL_RGBA, CL_UNSIGNED_INT32}, 4, 4, V_UI},
   {{CL_R, CL_UNSIGNED_INT8}, 1, 1, V_UI},
   {{CL_RGBA, CL_FLOAT}, 4, 4, V_H},
   {{CL_R, CL_FLOAT}, 1, 4, V_H},
};

/* A texel as the kernel sees it: four 32-bit lanes (float or int). */
union px {
   float f[4];
   int32_t i[4];
   uint32_t u[4];
};

static union px decode(const struct fmt *fm, const uint8_t *p)
{
   union px v;
   memset(&v, 0, sizeof(v));
   bool is_float = fm->variant == V_F || fm->variant == V_H;
   for (int c = 0; c < fm->channels; c++) {
      switch (fm->f.image_channel_data_type) {
      case CL_FLOAT: memcpy(&v.f[c], p + 4 * c, 4); break;
      case CL_UNORM_INT8: v.f[c] = (float)p[c] / 255.0f; break;
      case CL_SIGNED_INT16: {
         int16_t s;
         memcpy(&s, p + 2 * c, 2);
         v.i[c] = s;
         break;
      }
      case CL_UNSIGNED_INT32: memcpy(&v.u[c], p + 4 * c, 4); break;
      case CL_UNSIGNED_INT8: v.u[c] = p[c]; break;
      }
   }
   if (fm->channels == 1) { /* (r, 0, 0, 1) */
      if (is_float)
         v.f[3] = 1.0f;
      else
         v.i[3] = 1;
   }
   return v;
}

static void encode(const struct fmt *fm, union px v, uint8_t *p)
{
   for (int c = 0; c < fm->channels; c++) {
      switch (fm->f.image_channel_data_type) {
      case CL_FLOAT: memcpy(p + 4 * c, &v.f[c], 4); break;
      case CL_UNORM_INT8: {
         float t = rintf(v.f[c] * 255.0f);
         p[c] = (uint8_t)(t < 0 ? 0 : t > 255 ? 255 : t);
         break;
      }
      case CL_SIGNED_INT16: {
         int32_t x = v.i[c];
         int16_t s = (int16_t)(x < -32768 ? -32768 : x > 32767 ? 32767 : x);
         memcpy(p + 2 * c, &s, 2);
         break;
      }
      case CL_UNSIGNED_INT32: memcpy(p + 4 * c, &v.u[c], 4); break;
      case CL_UNSIGNED_INT8: p[c] = (uint8_t)(v.u[c] > 255 ? 255 : v.u[c]); break;
      }
   }
}

/* The kernel's update and next steps, on the host. */
static union px step(int variant, union px v, bool next)
{
   static const int32_t ki[4] = {1, -2, 3, -4};
   static const uint32_t ku[4] = {1, 2, 3, 4};
   union px r;
   for (int c = 0; c < 4; c++) {
      switch (variant) {
      case V_F:
      case V_H: /* exact in half too: the values are multiples of 1/16 */
         r.f[c] = next ? v.f[c] + 1.0f : v.f[c] * 0.5f + 0.25f;
         break;
      case V_I: r.i[c] = next ? v.i[c] + 1 : v.i[c] * -3 + ki[c]; break;
      default: r.u[c] = next ? v.u[c] + 1u : v.u[c] * 3u + ku[c]; break;
      }
   }
   return r;
}

/* Texel i's initial bytes: values the conversions keep exact where the
 * test needs it (floats k/8 in [-4, 4]), saturating where it checks that
 * (SIGNED_INT16 beyond +-10923 times -3, UNSIGNED_INT8 times 3). */
static void initial(const struct fmt *fm, size_t i, uint8_t *p)
{
   unsigned h = (unsigned)(i * 2654435761u);
   for (int c = 0; c < fm->channels; c++) {
      unsigned r = (h >> (c * 5)) ^ (unsigned)(c * 977 + i);
      switch (fm->f.image_channel_data_type) {
      case CL_FLOAT: {
         float f = (float)((int)(r % 65) - 32) / 8.0f;
         memcpy(p + 4 * c, &f, 4);
         break;
      }
      case CL_UNORM_INT8:
      case CL_UNSIGNED_INT8: p[c] = (uint8_t)r; break;
      case CL_SIGNED_INT16: {
         int16_t s = (int16_t)((int)(r % 30001) - 15000);
         memcpy(p + 2 * c, &s, 2);
         break;
      }
      case CL_UNSIGNED_INT32: {
         uint32_t u = r * 2246822519u;
         memcpy(p + 4 * c, &u, 4);
         break;
      }
      }
   }
}

static cl_mem make_image(const struct kt_env *env, const struct itype *it, const struct fmt *fm,
                         cl_mem_flags flags, const void *host, cl_mem *buffer)
{
   size_t elem = (size_t)fm->channels * fm->chan_size;
   size_t count = it->size[0] * it->size[1] * it->size[2];
   cl_image_desc d;
   memset(&d, 0, sizeof(d));
   d.image_type = it->type;
   d.image_width = it->size[0];
   cl_int err;
   *buffer = NULL;
   switch (it->type) {
   case CL_MEM_OBJECT_IMAGE1D_BUFFER:
      *buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0),
                               count * elem, (void *)host, &err);
      REQUIRE(*buffer, "clCreateBuffer: %s", kt_err_name(err));
      d.buffer = *buffer;
      host = NULL;
      break;
   case CL_MEM_OBJECT_IMAGE1D_ARRAY: d.image_array_size = it->size[1]; break;
   case CL_MEM_OBJECT_IMAGE2D: d.image_height = it->size[1]; break;
   case CL_MEM_OBJECT_IMAGE2D_ARRAY:
      d.image_height = it->size[1];
      d.image_array_size = it->size[2];
      break;
   case CL_MEM_OBJECT_IMAGE3D:
      d.image_height = it->size[1];
      d.image_depth = it->size[2];
      break;
   default: break;
   }
   cl_mem m = clCreateImage(env->context, flags | (host ? CL_MEM_COPY_HOST_PTR : 0), &fm->f, &d,
                            (void *)host, &err);
   REQUIRE(m, "clCreateImage(%s): %s", it->cl, kt_err_name(err));
   return m;
}

static const char *fmt_name(const struct fmt *fm)
{
   static char buf[64];
   snprintf(buf, sizeof(buf), "order 0x%x type 0x%x", fm->f.image_channel_order,
            fm->f.image_channel_data_type);
   return buf;
}

/* One kernel on one image: the value read back after the fence and the
 * image's final contents, against the model. */
static void run_one(const struct kt_env *env, cl_program p, const struct itype *it,
                    const struct fmt *fm)
{
   const struct variant *va = &variants[fm->variant];
   size_t elem = (size_t)fm->channels * fm->chan_size;
   size_t count = it->size[0] * it->size[1] * it->size[2];
   uint8_t *init = malloc(count * elem), *got_img = malloc(count * elem),
           *want_img = malloc(count * elem);
   union px *got = malloc(count * sizeof(union px)), *want = malloc(count * sizeof(union px));
   REQUIRE(init && got_img && want_img && got && want, "out of memory");
   for (size_t i = 0; i < count; i++) {
      initial(fm, i, init + i * elem);
      /* The texel the kernel writes, then reads back through the format. */
      uint8_t tmp[16];
      encode(fm, step(fm->variant, decode(fm, init + i * elem), false), tmp);
      want[i] = decode(fm, tmp);
      encode(fm, step(fm->variant, want[i], true), want_img + i * elem);
   }
   cl_mem buffer;
   cl_mem img = make_image(env, it, fm, CL_MEM_READ_WRITE, init, &buffer);
   cl_mem out = kk_buffer_in(env, count * sizeof(union px), NULL);
   char name[64];
   snprintf(name, sizeof(name), "rw_%s_%s", va->tag, it->tag);
   cl_kernel k = kk_kernel(p, name);
   KK_ARG(k, 0, img);
   KK_ARG(k, 1, out);
   KK_RUN(env, k, 3, NULL, it->size, NULL);
   kk_read(env, out, count * sizeof(union px), got);
   size_t origin[3] = {0, 0, 0};
   REQUIRE_OK(clEnqueueReadImage(env->queue, img, CL_TRUE, origin, it->size, 0, 0, got_img, 0,
                                 NULL, NULL));
   int bad = 0;
   for (size_t i = 0; i < count && bad < 4; i++) {
      if (memcmp(&got[i], &want[i], sizeof(union px))) {
         KT_FAIL("%s %s (%s) texel %zu read back after the write: %08x %08x %08x %08x, "
                 "expected %08x %08x %08x %08x",
                 name, it->cl, fmt_name(fm), i, got[i].u[0], got[i].u[1], got[i].u[2],
                 got[i].u[3], want[i].u[0], want[i].u[1], want[i].u[2], want[i].u[3]);
         bad++;
      }
      if (memcmp(got_img + i * elem, want_img + i * elem, elem)) {
         KT_FAIL("%s %s (%s) texel %zu: the image holds other bytes than the last write", name,
                 it->cl, fmt_name(fm), i);
         bad++;
      }
   }
   CHECK_OK(clReleaseKernel(k));
   CHECK_OK(clReleaseMemObject(out));
   CHECK_OK(clReleaseMemObject(img));
   if (buffer)
      CHECK_OK(clReleaseMemObject(buffer));
   free(init);
   free(got_img);
   free(want_img);
   free(got);
   free(want);
}

static void queries(const struct kt_env *env, cl_program p)
{
   const struct fmt *fm = &formats[2]; /* RGBA SIGNED_INT16 */
   for (size_t t = 0; t < NTYPES; t++) {
      const struct itype *it = &types[t];
      cl_mem buffer;
      cl_mem img = make_image(env, it, fm, CL_MEM_READ_WRITE, NULL, &buffer);
      cl_mem out = kk_buffer_in(env, 16 * sizeof(cl_int), NULL);
      char name[32];
      snprintf(name, sizeof(name), "q_%s", it->tag);
      cl_kernel k = kk_kernel(p, name);
      KK_ARG(k, 0, img);
      KK_ARG(k, 1, out);
      size_t one = 1;
      KK_RUN(env, k, 1, NULL, &one, NULL);
      cl_int o[16];
      kk_read(env, out, sizeof(o), o);
      const size_t *s = it->size;
      cl_int w = (cl_int)s[0], h = (cl_int)s[1], d = (cl_int)s[2];
      cl_int want[16] = {w, CL_SIGNED_INT16, CL_RGBA};
      switch (it->type) {
      case CL_MEM_OBJECT_IMAGE1D_ARRAY: want[3] = h; break;
      case CL_MEM_OBJECT_IMAGE2D: want[3] = h, want[4] = w, want[5] = h; break;
      case CL_MEM_OBJECT_IMAGE2D_ARRAY:
         want[3] = h, want[4] = d, want[5] = w, want[6] = h;
         break;
      case CL_MEM_OBJECT_IMAGE3D:
         want[3] = h, want[4] = d, want[5] = w, want[6] = h, want[7] = d, want[8] = 0;
         break;
      default: break;
      }
      for (int i = 0; i < it->nq; i++)
         CHECK(o[i] == want[i], " %s query %d: %d, expected %d", name, i, o[i], want[i]);
      /* The argument's access qualifier (kernel arg info is kept by the
       * build's -cl-kernel-arg-info). */
      cl_kernel_arg_access_qualifier q = 0;
      CHECK_OK(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof(q), &q, NULL));
      CHECK(q == CL_KERNEL_ARG_ACCESS_READ_WRITE, " %s: access qualifier 0x%x", name, q);
      CHECK_OK(clReleaseKernel(k));
      CHECK_OK(clReleaseMemObject(out));
      CHECK_OK(clReleaseMemObject(img));
      if (buffer)
         CHECK_OK(clReleaseMemObject(buffer));
   }
}

/* Writes of one work-item read by another of its group after
 * work_group_barrier(CLK_IMAGE_MEM_FENCE). */
static void barrier_run(const struct kt_env *env, cl_program p)
{
   const struct fmt *fm = &formats[3]; /* RGBA UNSIGNED_INT32 */
   static const struct itype it = {"2d", "image2d_t", "", CL_MEM_OBJECT_IMAGE2D, {16, 8, 1}, "", 0};
   size_t count = 16 * 8, local[2] = {8, 4};
   cl_mem buffer;
   cl_mem img = make_image(env, &it, fm, CL_MEM_READ_WRITE, NULL, &buffer);
   cl_mem out = kk_buffer_in(env, count * 16, NULL);
   cl_kernel k = kk_kernel(p, "rw_barrier");
   KK_ARG(k, 0, img);
   KK_ARG(k, 1, out);
   KK_RUN(env, k, 2, NULL, it.size, local);
   cl_uint got[16 * 8][4];
   kk_read(env, out, sizeof(got), got);
   int bad = 0;
   for (cl_uint y = 0; y < 8; y++)
      for (cl_uint x = 0; x < 16 && bad < 4; x++) {
         cl_uint nx = x - x % 8 + (x % 8 + 1) % 8, ny = y - y % 4 + (y % 4 + 1) % 4;
         cl_uint *g = got[y * 16 + x], want[4] = {nx, ny, nx * ny, 7};
         if (memcmp(g, want, sizeof(want))) {
            KT_FAIL("rw_barrier (%u, %u) read (%u, %u): %u %u %u %u", x, y, nx, ny, g[0], g[1],
                    g[2], g[3]);
            bad++;
         }
      }
   CHECK_OK(clReleaseKernel(k));
   CHECK_OK(clReleaseMemObject(out));
   CHECK_OK(clReleaseMemObject(img));
}

/* clSetKernelArg: images of any kernel access (CL_MEM_READ_WRITE, also
 * READ_ONLY and WRITE_ONLY: the API lists no error for a read_write
 * argument, only for read_only/write_only ones) and of the right type;
 * an image of another type is CL_INVALID_MEM_OBJECT. */
static void set_arg(const struct kt_env *env, cl_program p)
{
   const struct fmt *fm = &formats[3];
   cl_kernel k = kk_kernel(p, "q_2d");
   static const cl_mem_flags flags[] = {CL_MEM_READ_WRITE, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY};
   for (size_t f = 0; f < 3; f++) {
      cl_mem buffer;
      cl_mem img = make_image(env, &types[3], fm, flags[f], NULL, &buffer);
      CHECK_OK(clSetKernelArg(k, 0, sizeof(img), &img));
      CHECK_OK(clReleaseMemObject(img));
   }
   cl_mem buffer;
   cl_mem img3 = make_image(env, &types[5], fm, CL_MEM_READ_WRITE, NULL, &buffer);
   CHECK_ERR(clSetKernelArg(k, 0, sizeof(img3), &img3), CL_INVALID_MEM_OBJECT);
   CHECK_OK(clReleaseMemObject(img3));
   CHECK_OK(clReleaseKernel(k));
}

static bool has_feature(cl_device_id dev)
{
   size_t size = 0;
   REQUIRE_OK(clGetDeviceInfo(dev, CL_DEVICE_OPENCL_C_FEATURES, 0, NULL, &size));
   cl_name_version *v = malloc(size ? size : 1);
   REQUIRE(v, "out of memory");
   REQUIRE_OK(clGetDeviceInfo(dev, CL_DEVICE_OPENCL_C_FEATURES, size, v, NULL));
   bool found = false;
   for (size_t i = 0; i < size / sizeof(*v); i++)
      found |= !strcmp(v[i].name, FEATURE);
   free(v);
   return found;
}

/* 3.0's minimum list for reading and writing in one kernel (5.3.2.2),
 * for every image type, and nothing the read and the write lists lack. */
static void formats_query(const struct kt_env *env, bool supported)
{
   static const cl_channel_type min_types[] = {
      CL_UNORM_INT8,    CL_SIGNED_INT8,    CL_SIGNED_INT16,   CL_SIGNED_INT32, CL_UNSIGNED_INT8,
      CL_UNSIGNED_INT16, CL_UNSIGNED_INT32, CL_HALF_FLOAT,    CL_FLOAT,
   };
   static const cl_mem_object_type itypes[] = {
      CL_MEM_OBJECT_IMAGE1D,       CL_MEM_OBJECT_IMAGE1D_BUFFER, CL_MEM_OBJECT_IMAGE1D_ARRAY,
      CL_MEM_OBJECT_IMAGE2D,       CL_MEM_OBJECT_IMAGE2D_ARRAY,  CL_MEM_OBJECT_IMAGE3D,
   };
   for (size_t t = 0; t < sizeof(itypes) / sizeof(itypes[0]); t++) {
      cl_uint n = 0, nr = 0, nw = 0;
      CHECK_OK(clGetSupportedImageFormats(env->context, CL_MEM_KERNEL_READ_AND_WRITE, itypes[t],
                                          0, NULL, &n));
      CHECK_OK(clGetSupportedImageFormats(env->context, CL_MEM_READ_ONLY, itypes[t], 0, NULL,
                                          &nr));
      CHECK_OK(clGetSupportedImageFormats(env->context, CL_MEM_WRITE_ONLY, itypes[t], 0, NULL,
                                          &nw));
      if (!supported) {
         CHECK(n == 0, " type 0x%x: %u read-write formats on a device without them", itypes[t], n);
         continue;
      }
      cl_image_format *rw = calloc(n + 1, sizeof(*rw)), *r = calloc(nr + 1, sizeof(*r)),
                      *w = calloc(nw + 1, sizeof(*w));
      REQUIRE(rw && r && w, "out of memory");
      CHECK_OK(clGetSupportedImageFormats(env->context,
                                          CL_MEM_READ_WRITE | CL_MEM_KERNEL_READ_AND_WRITE,
                                          itypes[t], n, rw, NULL));
      CHECK_OK(clGetSupportedImageFormats(env->context, CL_MEM_READ_ONLY, itypes[t], nr, r, NULL));
      CHECK_OK(clGetSupportedImageFormats(env->context, CL_MEM_WRITE_ONLY, itypes[t], nw, w, NULL));
      for (int o = 0; o < 2; o++)
         for (size_t m = 0; m < sizeof(min_types) / sizeof(min_types[0]); m++) {
            cl_image_format want = {o ? CL_RGBA : CL_R, min_types[m]};
            bool found = false;
            for (cl_uint i = 0; i < n; i++)
               found |= !memcmp(&rw[i], &want, sizeof(want));
            CHECK(found, " type 0x%x: read-write format (0x%x, 0x%x) missing", itypes[t],
                  want.image_channel_order, want.image_channel_data_type);
         }
      for (cl_uint i = 0; i < n; i++) {
         bool in_r = false, in_w = false;
         for (cl_uint j = 0; j < nr; j++)
            in_r |= !memcmp(&rw[i], &r[j], sizeof(rw[i]));
         for (cl_uint j = 0; j < nw; j++)
            in_w |= !memcmp(&rw[i], &w[j], sizeof(rw[i]));
         CHECK(in_r && in_w, " type 0x%x: read-write format (0x%x, 0x%x) not readable and writable",
               itypes[t], rw[i].image_channel_order, rw[i].image_channel_data_type);
      }
      free(rw);
      free(r);
      free(w);
   }
}

/* read_write is OpenCL C 2.0's (3.0 with the feature): a 1.2 program may
 * not use it, a sampler read of a read_write image does not compile, and
 * a 3.0 program on a device without the feature may not use it. */
static void refusals(const struct kt_env *env, bool supported)
{
   static const char *rw = "kernel void k(read_write image2d_t img)\n"
                           "{ write_imagef(img, (int2)(0, 0), read_imagef(img, (int2)(1, 1))); }\n";
   static const char *sampled =
      "kernel void k(read_write image2d_t img, sampler_t s, global float4 *o)\n"
      "{ o[0] = read_imagef(img, s, (int2)(0, 0)); }\n";
   cl_program p = NULL;
   CHECK_ERR(kk_try_build(env, rw, "-cl-std=CL1.2", &p), CL_BUILD_PROGRAM_FAILURE);
   if (p)
      CHECK_OK(clReleaseProgram(p));
   p = NULL;
   CHECK_ERR(kk_try_build(env, rw, CL30, &p), supported ? CL_SUCCESS : CL_BUILD_PROGRAM_FAILURE);
   if (p)
      CHECK_OK(clReleaseProgram(p));
   p = NULL;
   CHECK_ERR(kk_try_build(env, sampled, CL30, &p), CL_BUILD_PROGRAM_FAILURE);
   if (p)
      CHECK_OK(clReleaseProgram(p));
}

static bool has_extension(cl_device_id dev, const char *name)
{
   char ext[4096] = "";
   REQUIRE_OK(clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof(ext), ext, NULL));
   return strstr(ext, name) != NULL;
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   char ver[128] = "";
   REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_VERSION, sizeof(ver), ver, NULL));
   int major = 0, minor = 0;
   REQUIRE(sscanf(ver, "OpenCL %d.%d", &major, &minor) == 2, " '%s'", ver);
   cl_bool images = CL_FALSE;
   REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images, NULL));
   if (major < 3 || !images) {
      printf("SKIP: an OpenCL %d.%d device%s\n", major, minor, images ? "" : " without images");
      kt_teardown(&env);
      return kt_result();
   }
   cl_uint max_rw = kt_device_uint(env.device, CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS);
   bool feature = has_feature(env.device);
   cl_device_type type = 0;
   REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_TYPE, sizeof(type), &type, NULL));
   /* Kiln's CPU device has them; the CUDA device does not (docs/cuda.md). */
   if (type & CL_DEVICE_TYPE_CPU)
      CHECK(feature, " the CPU device lacks " FEATURE);
   CHECK(feature == (max_rw != 0), " " FEATURE " %s but CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS %u",
         feature ? "listed" : "not listed", max_rw);
   CHECK(!feature || max_rw >= 64, " CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS %u < 64", max_rw);
   formats_query(&env, feature);
   refusals(&env, feature);
   if (feature) {
      char *src = program_source(false);
      cl_program p = kk_build(&env, src, CL30 " -cl-kernel-arg-info");
      free(src);
      for (size_t t = 0; t < NTYPES; t++)
         for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++)
            if (formats[f].variant != V_H)
               run_one(&env, p, &types[t], &formats[f]);
      queries(&env, p);
      barrier_run(&env, p);
      set_arg(&env, p);
      CHECK_OK(clReleaseProgram(p));
      if (has_extension(env.device, "cl_khr_fp16")) {
         src = program_source(true);
         p = kk_build(&env, src, CL30);
         free(src);
         for (size_t t = 0; t < NTYPES; t++)
            for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++)
               if (formats[f].variant == V_H)
                  run_one(&env, p, &types[t], &formats[f]);
         CHECK_OK(clReleaseProgram(p));
      }
   }
   kt_teardown(&env);
   return kt_result();
}
