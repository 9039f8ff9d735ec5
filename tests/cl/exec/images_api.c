/* The OpenCL 1.1 image and sampler API (5.2.4-5.2.8, 5.5): creation with
 * every flag and host-pointer form, pitches, the spec's error codes,
 * clGetSupportedImageFormats, clGetImageInfo, reads and writes of
 * sub-regions with host pitches, copies between images and with buffers,
 * maps, samplers and their info, and clSetKernelArg's checks of image and
 * sampler arguments.  Data is random and checked against what the host
 * computes. */
#include "kt.h"

#include <stdlib.h>
#include <string.h>

static const cl_image_format rgba8 = {CL_RGBA, CL_UNORM_INT8};
static const cl_image_format rgba32f = {CL_RGBA, CL_FLOAT};
static const cl_image_format r16 = {CL_R, CL_UNSIGNED_INT16};

static void required_formats(const struct kt_env *env)
{
   static const cl_image_format need[] = {
      {CL_RGBA, CL_UNORM_INT8},    {CL_RGBA, CL_UNORM_INT16},    {CL_RGBA, CL_SIGNED_INT8},
      {CL_RGBA, CL_SIGNED_INT16},  {CL_RGBA, CL_SIGNED_INT32},   {CL_RGBA, CL_UNSIGNED_INT8},
      {CL_RGBA, CL_UNSIGNED_INT16}, {CL_RGBA, CL_UNSIGNED_INT32}, {CL_RGBA, CL_HALF_FLOAT},
      {CL_RGBA, CL_FLOAT},         {CL_BGRA, CL_UNORM_INT8},
   };
   const cl_mem_flags flags[] = {CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY, CL_MEM_READ_WRITE};
   const cl_mem_object_type types[] = {CL_MEM_OBJECT_IMAGE2D, CL_MEM_OBJECT_IMAGE3D};
   for (int t = 0; t < 2; t++)
      for (int f = 0; f < 3; f++) {
         cl_uint n = 0;
         CHECK_OK(clGetSupportedImageFormats(env->context, flags[f], types[t], 0, NULL, &n));
         cl_image_format *list = calloc(n + 1, sizeof(*list));
         cl_uint n2 = 0;
         CHECK_OK(clGetSupportedImageFormats(env->context, flags[f], types[t], n, list, &n2));
         CHECK(n2 == n, "count %u then %u", n, n2);
         for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
            bool found = false;
            for (cl_uint j = 0; j < n; j++)
               found |= list[j].image_channel_order == need[i].image_channel_order &&
                        list[j].image_channel_data_type == need[i].image_channel_data_type;
            CHECK(found, "minimum format order 0x%x type 0x%x missing", need[i].image_channel_order,
                  need[i].image_channel_data_type);
         }
         /* Every listed format can be created. */
         for (cl_uint j = 0; j < n; j++) {
            cl_int err;
            cl_mem m = t ? clCreateImage3D(env->context, flags[f], &list[j], 3, 2, 2, 0, 0, NULL, &err)
                         : clCreateImage2D(env->context, flags[f], &list[j], 3, 2, 0, NULL, &err);
            CHECK(m && err == CL_SUCCESS, "listed format 0x%x/0x%x: %s",
                  list[j].image_channel_order, list[j].image_channel_data_type, kt_err_name(err));
            if (m)
               clReleaseMemObject(m);
         }
         /* A short array gets only what fits. */
         cl_image_format two[3] = {{0, 0}, {0, 0}, {0xdead, 0xbeef}};
         CHECK_OK(clGetSupportedImageFormats(env->context, flags[f], types[t], 2, two, NULL));
         CHECK(two[2].image_channel_order == 0xdead, "wrote past num_entries");
         free(list);
      }
   cl_uint n;
   CHECK_ERR(clGetSupportedImageFormats(NULL, 0, CL_MEM_OBJECT_IMAGE2D, 0, NULL, &n),
             CL_INVALID_CONTEXT);
   CHECK_ERR(clGetSupportedImageFormats(env->context, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
                                        CL_MEM_OBJECT_IMAGE2D, 0, NULL, &n),
             CL_INVALID_VALUE);
   CHECK_ERR(clGetSupportedImageFormats(env->context, 0, CL_MEM_OBJECT_BUFFER, 0, NULL, &n),
             CL_INVALID_VALUE);
   cl_image_format one;
   CHECK_ERR(clGetSupportedImageFormats(env->context, 0, CL_MEM_OBJECT_IMAGE2D, 0, &one, &n),
             CL_INVALID_VALUE);
}

static cl_int create2d_err(const struct kt_env *env, cl_mem_flags flags, const cl_image_format *f,
                           size_t w, size_t h, size_t rp, void *host)
{
   cl_int err = 12345;
   cl_mem m = clCreateImage2D(env->context, flags, f, w, h, rp, host, &err);
   if (m)
      clReleaseMemObject(m);
   if ((m != NULL) != (err == CL_SUCCESS))
      KT_FAIL("clCreateImage2D returned %p with %s", (void *)m, kt_err_name(err));
   return err;
}

static cl_int create3d_err(const struct kt_env *env, cl_mem_flags flags, const cl_image_format *f,
                           size_t w, size_t h, size_t d, size_t rp, size_t sp, void *host)
{
   cl_int err = 12345;
   cl_mem m = clCreateImage3D(env->context, flags, f, w, h, d, rp, sp, host, &err);
   if (m)
      clReleaseMemObject(m);
   if ((m != NULL) != (err == CL_SUCCESS))
      KT_FAIL("clCreateImage3D returned %p with %s", (void *)m, kt_err_name(err));
   return err;
}

static void creation_errors(const struct kt_env *env)
{
   char host[4096];
   size_t w2 = 0, h2 = 0, w3 = 0, d3 = 0;
   clGetDeviceInfo(env->device, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof(w2), &w2, NULL);
   clGetDeviceInfo(env->device, CL_DEVICE_IMAGE2D_MAX_HEIGHT, sizeof(h2), &h2, NULL);
   clGetDeviceInfo(env->device, CL_DEVICE_IMAGE3D_MAX_WIDTH, sizeof(w3), &w3, NULL);
   clGetDeviceInfo(env->device, CL_DEVICE_IMAGE3D_MAX_DEPTH, sizeof(d3), &d3, NULL);
   CHECK(w2 >= 8192 && h2 >= 8192 && w3 >= 2048 && d3 >= 2048, "limits %zu %zu %zu %zu", w2, h2,
         w3, d3);

   cl_int err;
   CHECK(!clCreateImage2D(NULL, 0, &rgba8, 4, 4, 0, NULL, &err) && err == CL_INVALID_CONTEXT,
         "NULL context: %s", kt_err_name(err));
   CHECK_ERR(create2d_err(env, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, &rgba8, 4, 4, 0, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(create2d_err(env, (cl_mem_flags)1 << 40, &rgba8, 4, 4, 0, NULL), CL_INVALID_VALUE);
   CHECK_ERR(create2d_err(env, CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, &rgba8, 4, 4, 0, host),
             CL_INVALID_VALUE);
   /* Descriptors: NULL, unknown enums, combinations 5.2.4.1 forbids. */
   CHECK_ERR(create2d_err(env, 0, NULL, 4, 4, 0, NULL), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
   const cl_image_format bad[] = {
      {0x1234, CL_UNORM_INT8},        {CL_RGBA, 0x1234},           {CL_RGB, CL_UNORM_INT8},
      {CL_RGBA, CL_UNORM_SHORT_565},  {CL_BGRA, CL_FLOAT},         {CL_ARGB, CL_UNORM_INT16},
      {CL_INTENSITY, CL_SIGNED_INT8}, {CL_LUMINANCE, CL_UNSIGNED_INT32},
   };
   for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
      CHECK_ERR(create2d_err(env, 0, &bad[i], 4, 4, 0, NULL), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
      CHECK_ERR(create3d_err(env, 0, &bad[i], 4, 4, 2, 0, 0, NULL),
                CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
   }
   /* Sizes and pitches. */
   CHECK_ERR(create2d_err(env, 0, &rgba8, 0, 4, 0, NULL), CL_INVALID_IMAGE_SIZE);
   CHECK_ERR(create2d_err(env, 0, &rgba8, 4, 0, 0, NULL), CL_INVALID_IMAGE_SIZE);
   CHECK_ERR(create2d_err(env, 0, &rgba8, w2 + 1, 1, 0, NULL), CL_INVALID_IMAGE_SIZE);
   CHECK_ERR(create2d_err(env, 0, &rgba8, 1, h2 + 1, 0, NULL), CL_INVALID_IMAGE_SIZE);
   CHECK_ERR(create2d_err(env, 0, &rgba8, 4, 4, 16, NULL), CL_INVALID_IMAGE_SIZE);
   CHECK_ERR(create2d_err(env, CL_MEM_USE_HOST_PTR, &rgba8, 4, 4, 12, host), CL_INVALID_IMAGE_SIZE);
   CHECK_ERR(create2d_err(env, CL_MEM_USE_HOST_PTR, &rgba8, 4, 4, 18, host), CL_INVALID_IMAGE_SIZE);
   CHECK_ERR(create2d_err(env, CL_MEM_USE_HOST_PTR, &rgba8, 4, 4, 20, host), CL_SUCCESS);
   CHECK_ERR(create3d_err(env, 0, &rgba8, 4, 4, 1, 0, 0, NULL), CL_INVALID_IMAGE_SIZE);
   CHECK_ERR(create3d_err(env, 0, &rgba8, 4, 4, d3 + 1, 0, 0, NULL), CL_INVALID_IMAGE_SIZE);
   CHECK_ERR(create3d_err(env, 0, &rgba8, 4, 4, 2, 0, 64, NULL), CL_INVALID_IMAGE_SIZE);
   CHECK_ERR(create3d_err(env, CL_MEM_COPY_HOST_PTR, &rgba8, 4, 4, 2, 16, 60, host),
             CL_INVALID_IMAGE_SIZE);
   CHECK_ERR(create3d_err(env, CL_MEM_COPY_HOST_PTR, &rgba8, 4, 4, 2, 20, 90, host),
             CL_INVALID_IMAGE_SIZE); /* not a multiple of the row pitch */
   CHECK_ERR(create3d_err(env, CL_MEM_COPY_HOST_PTR, &rgba8, 4, 4, 2, 20, 100, host), CL_SUCCESS);
   /* Host pointers. */
   CHECK_ERR(create2d_err(env, CL_MEM_USE_HOST_PTR, &rgba8, 4, 4, 0, NULL), CL_INVALID_HOST_PTR);
   CHECK_ERR(create2d_err(env, CL_MEM_COPY_HOST_PTR, &rgba8, 4, 4, 0, NULL), CL_INVALID_HOST_PTR);
   CHECK_ERR(create2d_err(env, CL_MEM_ALLOC_HOST_PTR, &rgba8, 4, 4, 0, host), CL_INVALID_HOST_PTR);
   CHECK_ERR(create2d_err(env, 0, &rgba8, 4, 4, 0, host), CL_INVALID_HOST_PTR);
   CHECK_ERR(create2d_err(env, CL_MEM_ALLOC_HOST_PTR, &rgba8, 4, 4, 0, NULL), CL_SUCCESS);
}

static void info(const struct kt_env *env)
{
   static uint8_t host[40 * 3 * 2];
   cl_int err;
   cl_mem a = clCreateImage2D(env->context, CL_MEM_USE_HOST_PTR, &rgba8, 9, 3, 40, host, &err);
   cl_mem b = clCreateImage3D(env->context, CL_MEM_READ_ONLY, &r16, 5, 4, 3, 0, 0, NULL, &err);
   REQUIRE(a && b, "images");
   cl_image_format f;
   size_t v;
   CHECK_OK(clGetImageInfo(a, CL_IMAGE_FORMAT, sizeof(f), &f, NULL));
   CHECK(f.image_channel_order == CL_RGBA && f.image_channel_data_type == CL_UNORM_INT8, "format");
#define EXPECT(img, name, want)                                                          \
   do {                                                                                  \
      size_t sz = 0;                                                                     \
      CHECK_OK(clGetImageInfo(img, name, sizeof(v), &v, &sz));                           \
      CHECK(v == (want) && sz == sizeof(size_t), #name " %zu, want %zu", v, (size_t)(want)); \
   } while (0)
   EXPECT(a, CL_IMAGE_ELEMENT_SIZE, 4);
   EXPECT(a, CL_IMAGE_ROW_PITCH, 40);
   EXPECT(a, CL_IMAGE_SLICE_PITCH, 0);
   EXPECT(a, CL_IMAGE_WIDTH, 9);
   EXPECT(a, CL_IMAGE_HEIGHT, 3);
   EXPECT(a, CL_IMAGE_DEPTH, 0);
   EXPECT(b, CL_IMAGE_ELEMENT_SIZE, 2);
   EXPECT(b, CL_IMAGE_ROW_PITCH, 10);
   EXPECT(b, CL_IMAGE_SLICE_PITCH, 40);
   EXPECT(b, CL_IMAGE_DEPTH, 3);
   cl_mem_object_type t;
   CHECK_OK(clGetMemObjectInfo(a, CL_MEM_TYPE, sizeof(t), &t, NULL));
   CHECK(t == CL_MEM_OBJECT_IMAGE2D, "type 0x%x", t);
   CHECK_OK(clGetMemObjectInfo(b, CL_MEM_TYPE, sizeof(t), &t, NULL));
   CHECK(t == CL_MEM_OBJECT_IMAGE3D, "type 0x%x", t);
   void *hp = NULL;
   CHECK_OK(clGetMemObjectInfo(a, CL_MEM_HOST_PTR, sizeof(hp), &hp, NULL));
   CHECK(hp == host, "host ptr");
   CHECK_ERR(clGetImageInfo(a, CL_IMAGE_FORMAT, 1, &f, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clGetImageInfo(a, 0x7777, sizeof(v), &v, NULL), CL_INVALID_VALUE);
   cl_mem buf = kt_buffer(env->context, 0, 64, NULL);
   CHECK_ERR(clGetImageInfo(buf, CL_IMAGE_WIDTH, sizeof(v), &v, NULL), CL_INVALID_MEM_OBJECT);
   CHECK_ERR(clGetImageInfo(NULL, CL_IMAGE_WIDTH, sizeof(v), &v, NULL), CL_INVALID_MEM_OBJECT);
   /* Buffer calls refuse images. */
   char tmp[64];
   CHECK_ERR(clEnqueueReadBuffer(env->queue, a, CL_TRUE, 0, 4, tmp, 0, NULL, NULL),
             CL_INVALID_MEM_OBJECT);
   cl_buffer_region r = {0, 4};
   CHECK(!clCreateSubBuffer(a, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err) &&
            err == CL_INVALID_MEM_OBJECT,
         "sub-buffer of an image: %s", kt_err_name(err));
   clReleaseMemObject(a), clReleaseMemObject(b), clReleaseMemObject(buf);
}

/* Reference: element (x, y, z) of a tightly packed host copy. */
static uint8_t *at(uint8_t *base, size_t elem, const size_t dims[3], size_t x, size_t y, size_t z)
{
   return base + ((z * dims[1] + y) * dims[0] + x) * elem;
}

static void read_write(const struct kt_env *env)
{
   /* A 3D image with padded host pitches, USE_HOST_PTR and COPY_HOST_PTR. */
   const size_t dims[3] = {7, 5, 4}, elem = 16;
   const size_t rp = 7 * 16 + 32, sp = rp * 5 + rp;
   uint8_t *user = malloc(sp * 4), *packed = malloc(7 * 5 * 4 * 16);
   kt_fill(user, sp * 4, 1);
   for (size_t z = 0; z < 4; z++)
      for (size_t y = 0; y < 5; y++)
         memcpy(at(packed, elem, dims, 0, y, z), user + z * sp + y * rp, 7 * 16);
   for (int use = 0; use < 2; use++) {
      cl_int err;
      cl_mem im = clCreateImage3D(env->context, use ? CL_MEM_USE_HOST_PTR : CL_MEM_COPY_HOST_PTR,
                                  &rgba32f, 7, 5, 4, rp, sp, user, &err);
      REQUIRE(im, "image: %s", kt_err_name(err));
      size_t ip = 0;
      clGetImageInfo(im, CL_IMAGE_ROW_PITCH, sizeof(ip), &ip, NULL);
      /* Both keep the application's pitch (docs/images.md: the current
       * CTS's clGetInfo checks this for COPY_HOST_PTR too). */
      CHECK(ip == rp, "row pitch %zu", ip);
      /* A sub-box read into a host layout with its own pitches. */
      size_t origin[3] = {2, 1, 1}, region[3] = {4, 3, 2};
      size_t hrp = 4 * 16 + 8, hsp = hrp * 3 + 16;
      uint8_t *out = calloc(1, hsp * 2);
      CHECK_OK(clEnqueueReadImage(env->queue, im, CL_TRUE, origin, region, hrp, hsp, out, 0, NULL,
                                  NULL));
      bool ok = true;
      for (size_t z = 0; z < 2; z++)
         for (size_t y = 0; y < 3; y++)
            ok &= !memcmp(out + z * hsp + y * hrp, at(packed, elem, dims, 2, 1 + y, 1 + z), 4 * 16);
      CHECK(ok, "read of a sub-box (%s)", use ? "USE_HOST_PTR" : "COPY_HOST_PTR");
      /* Write a box, read the whole image back tightly. */
      uint8_t *src = malloc(4 * 3 * 2 * 16);
      kt_fill(src, 4 * 3 * 2 * 16, 7 + use);
      CHECK_OK(clEnqueueWriteImage(env->queue, im, CL_TRUE, origin, region, 0, 0, src, 0, NULL,
                                   NULL));
      uint8_t *want = malloc(7 * 5 * 4 * 16), *got = malloc(7 * 5 * 4 * 16);
      memcpy(want, packed, 7 * 5 * 4 * 16);
      for (size_t z = 0; z < 2; z++)
         for (size_t y = 0; y < 3; y++)
            memcpy(at(want, elem, dims, 2, 1 + y, 1 + z), src + (z * 3 + y) * 4 * 16, 4 * 16);
      size_t zero[3] = {0, 0, 0};
      CHECK_OK(clEnqueueReadImage(env->queue, im, CL_TRUE, zero, dims, 0, 0, got, 0, NULL, NULL));
      CHECK(!memcmp(got, want, 7 * 5 * 4 * 16), "whole image after a box write");
      cl_bool unified = CL_FALSE;
      CHECK_OK(clGetDeviceInfo(env->device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof(unified),
                               &unified, NULL));
      if (use && unified) {
         /* USE_HOST_PTR on a device that shares host memory: the
          * application's memory is the image (a device with memory of its
          * own keeps a copy, synchronised at map and unmap). */
         bool same = true;
         for (size_t z = 0; z < 4; z++)
            for (size_t y = 0; y < 5; y++)
               same &= !memcmp(user + z * sp + y * rp, at(want, elem, dims, 0, y, z), 7 * 16);
         CHECK(same, "USE_HOST_PTR memory holds the written data");
      }
      /* Errors (5.2.6 order). */
      uint8_t one[16];
      size_t big[3] = {8, 1, 1}, o1[3] = {7, 0, 0}, r1[3] = {1, 1, 1}, r0[3] = {0, 1, 1};
      CHECK_ERR(clEnqueueReadImage(NULL, im, CL_TRUE, zero, r1, 0, 0, one, 0, NULL, NULL),
                CL_INVALID_COMMAND_QUEUE);
      CHECK_ERR(clEnqueueReadImage(env->queue, NULL, CL_TRUE, zero, r1, 0, 0, one, 0, NULL, NULL),
                CL_INVALID_MEM_OBJECT);
      CHECK_ERR(clEnqueueReadImage(env->queue, im, CL_TRUE, zero, big, 0, 0, one, 0, NULL, NULL),
                CL_INVALID_VALUE);
      CHECK_ERR(clEnqueueReadImage(env->queue, im, CL_TRUE, o1, r1, 0, 0, one, 0, NULL, NULL),
                CL_INVALID_VALUE);
      CHECK_ERR(clEnqueueReadImage(env->queue, im, CL_TRUE, zero, r0, 0, 0, one, 0, NULL, NULL),
                CL_INVALID_VALUE);
      CHECK_ERR(clEnqueueReadImage(env->queue, im, CL_TRUE, zero, r1, 0, 0, NULL, 0, NULL, NULL),
                CL_INVALID_VALUE);
      CHECK_ERR(clEnqueueReadImage(env->queue, im, CL_TRUE, zero, r1, 8, 0, one, 0, NULL, NULL),
                CL_INVALID_VALUE);
      CHECK_ERR(clEnqueueWriteImage(env->queue, im, CL_TRUE, zero, r1, 0, 0, one, 1, NULL, NULL),
                CL_INVALID_EVENT_WAIT_LIST);
      clReleaseMemObject(im);
      free(out), free(src), free(want), free(got);
   }
   /* 2D: z must be 0, depth 1, slice pitch 0. */
   cl_int err;
   cl_mem im2 = clCreateImage2D(env->context, 0, &rgba8, 4, 4, 0, NULL, &err);
   uint8_t px[64];
   size_t zero[3] = {0, 0, 0}, r2[3] = {2, 2, 2}, oz[3] = {0, 0, 1}, r1[3] = {2, 2, 1};
   CHECK_ERR(clEnqueueReadImage(env->queue, im2, CL_TRUE, zero, r2, 0, 0, px, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueReadImage(env->queue, im2, CL_TRUE, oz, r1, 0, 0, px, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueReadImage(env->queue, im2, CL_TRUE, zero, r1, 0, 64, px, 0, NULL, NULL),
             CL_INVALID_VALUE);
   /* An image of another context. */
   cl_context other = kt_context(env);
   cl_mem im_other = clCreateImage2D(other, 0, &rgba8, 4, 4, 0, NULL, &err);
   CHECK_ERR(clEnqueueReadImage(env->queue, im_other, CL_TRUE, zero, r1, 0, 0, px, 0, NULL, NULL),
             CL_INVALID_CONTEXT);
   clReleaseMemObject(im_other);
   clReleaseContext(other);
   clReleaseMemObject(im2);
   free(user), free(packed);
}

static void copies(const struct kt_env *env)
{
   const size_t n2 = 6 * 5 * 2;
   uint16_t a[6 * 5], b[6 * 5 * 3];
   kt_fill(a, sizeof(a), 3);
   kt_fill(b, sizeof(b), 4);
   cl_int err;
   cl_mem ia = clCreateImage2D(env->context, CL_MEM_COPY_HOST_PTR, &r16, 6, 5, 0, a, &err);
   cl_mem ib = clCreateImage3D(env->context, CL_MEM_COPY_HOST_PTR, &r16, 6, 5, 3, 0, 0, b, &err);
   cl_mem ic = clCreateImage2D(env->context, 0, &rgba8, 6, 5, 0, NULL, &err);
   REQUIRE(ia && ib && ic, "images");
   /* 2D -> slice 2 of 3D, at an offset. */
   size_t so[3] = {1, 1, 0}, dof[3] = {2, 0, 2}, reg[3] = {4, 3, 1};
   CHECK_OK(clEnqueueCopyImage(env->queue, ia, ib, so, dof, reg, 0, NULL, NULL));
   for (size_t y = 0; y < 3; y++)
      for (size_t x = 0; x < 4; x++)
         b[(2 * 5 + y) * 6 + 2 + x] = a[(1 + y) * 6 + 1 + x];
   uint16_t got[6 * 5 * 3];
   size_t zero[3] = {0, 0, 0}, all3[3] = {6, 5, 3};
   CHECK_OK(clEnqueueReadImage(env->queue, ib, CL_TRUE, zero, all3, 0, 0, got, 0, NULL, NULL));
   CHECK(!memcmp(got, b, sizeof(b)), "2D to 3D copy");
   /* Within one image, disjoint boxes copy; overlapping ones are refused. */
   size_t s2[3] = {0, 0, 0}, d2[3] = {0, 0, 1}, r2[3] = {6, 5, 1};
   CHECK_OK(clEnqueueCopyImage(env->queue, ib, ib, s2, d2, r2, 0, NULL, NULL));
   memcpy(b + 30, b, 60);
   CHECK_OK(clEnqueueReadImage(env->queue, ib, CL_TRUE, zero, all3, 0, 0, got, 0, NULL, NULL));
   CHECK(!memcmp(got, b, sizeof(b)), "3D slice copy within one image");
   size_t d3[3] = {1, 1, 0}, r3[3] = {3, 3, 1};
   CHECK_ERR(clEnqueueCopyImage(env->queue, ia, ia, zero, d3, r3, 0, NULL, NULL),
             CL_MEM_COPY_OVERLAP);
   CHECK_ERR(clEnqueueCopyImage(env->queue, ia, ic, zero, zero, r3, 0, NULL, NULL),
             CL_IMAGE_FORMAT_MISMATCH);
   size_t r4[3] = {7, 1, 1};
   CHECK_ERR(clEnqueueCopyImage(env->queue, ia, ia, zero, zero, r4, 0, NULL, NULL),
             CL_INVALID_VALUE);
   size_t r5[3] = {1, 1, 2};
   CHECK_ERR(clEnqueueCopyImage(env->queue, ia, ib, zero, zero, r5, 0, NULL, NULL),
             CL_INVALID_VALUE);

   /* Image -> buffer at an offset, buffer -> image. */
   cl_mem buf = kt_buffer(env->context, 0, 4096, NULL);
   size_t io[3] = {1, 2, 1}, ir[3] = {5, 3, 2};
   CHECK_OK(clEnqueueCopyImageToBuffer(env->queue, ib, buf, io, ir, 100, 0, NULL, NULL));
   uint16_t packed[5 * 3 * 2];
   for (size_t z = 0; z < 2; z++)
      for (size_t y = 0; y < 3; y++)
         for (size_t x = 0; x < 5; x++)
            packed[(z * 3 + y) * 5 + x] = b[((1 + z) * 5 + 2 + y) * 6 + 1 + x];
   uint16_t back[5 * 3 * 2];
   CHECK_OK(clEnqueueReadBuffer(env->queue, buf, CL_TRUE, 100, sizeof(back), back, 0, NULL, NULL));
   CHECK(!memcmp(back, packed, sizeof(back)), "image to buffer");
   uint16_t fresh[6 * 5];
   kt_fill(fresh, sizeof(fresh), 9);
   CHECK_OK(clEnqueueWriteBuffer(env->queue, buf, CL_TRUE, 0, sizeof(fresh), fresh, 0, NULL, NULL));
   size_t all2[3] = {6, 5, 1};
   CHECK_OK(clEnqueueCopyBufferToImage(env->queue, buf, ia, 0, zero, all2, 0, NULL, NULL));
   uint16_t got2[6 * 5];
   CHECK_OK(clEnqueueReadImage(env->queue, ia, CL_TRUE, zero, all2, 0, 0, got2, 0, NULL, NULL));
   CHECK(!memcmp(got2, fresh, sizeof(fresh)), "buffer to image");
   CHECK_ERR(clEnqueueCopyImageToBuffer(env->queue, ia, buf, zero, all2, 4096 - 59, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueCopyImageToBuffer(env->queue, buf, buf, zero, all2, 0, 0, NULL, NULL),
             CL_INVALID_MEM_OBJECT);
   CHECK_ERR(clEnqueueCopyBufferToImage(env->queue, ia, ia, 0, zero, all2, 0, NULL, NULL),
             CL_INVALID_MEM_OBJECT);
   CHECK_ERR(clEnqueueCopyBufferToImage(env->queue, buf, ia, 4096 - 59, zero, all2, 0, NULL, NULL),
             CL_INVALID_VALUE);
   (void)n2;
   clReleaseMemObject(buf);
   clReleaseMemObject(ia), clReleaseMemObject(ib), clReleaseMemObject(ic);
}

static void maps(const struct kt_env *env)
{
   uint8_t host[6 * 4 * 3 * 4];
   kt_fill(host, sizeof(host), 11);
   cl_int err;
   cl_mem im = clCreateImage3D(env->context, CL_MEM_COPY_HOST_PTR, &rgba8, 6, 4, 3, 0, 0, host, &err);
   REQUIRE(im, "image");
   size_t origin[3] = {1, 2, 1}, region[3] = {3, 2, 2}, rp = 0, sp = 0;
   uint8_t *p = clEnqueueMapImage(env->queue, im, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, origin,
                                  region, &rp, &sp, 0, NULL, NULL, &err);
   REQUIRE(p && !err, "map: %s", kt_err_name(err));
   CHECK(rp >= 3 * 4 && sp >= rp * 2, "pitches %zu %zu", rp, sp);
   bool ok = true;
   for (size_t z = 0; z < 2; z++)
      for (size_t y = 0; y < 2; y++)
         ok &= !memcmp(p + z * sp + y * rp, host + (((1 + z) * 4 + 2 + y) * 6 + 1) * 4, 3 * 4);
   CHECK(ok, "mapped data");
   cl_uint count = 0;
   clGetMemObjectInfo(im, CL_MEM_MAP_COUNT, sizeof(count), &count, NULL);
   CHECK(count == 1, "map count %u", count);
   for (size_t z = 0; z < 2; z++)
      for (size_t y = 0; y < 2; y++)
         memset(p + z * sp + y * rp, 0x5a, 3 * 4);
   CHECK_OK(clEnqueueUnmapMemObject(env->queue, im, p, 0, NULL, NULL));
   for (size_t z = 0; z < 2; z++)
      for (size_t y = 0; y < 2; y++)
         memset(host + (((1 + z) * 4 + 2 + y) * 6 + 1) * 4, 0x5a, 3 * 4);
   uint8_t got[sizeof(host)];
   size_t zero[3] = {0, 0, 0}, all[3] = {6, 4, 3};
   CHECK_OK(clEnqueueReadImage(env->queue, im, CL_TRUE, zero, all, 0, 0, got, 0, NULL, NULL));
   CHECK(!memcmp(got, host, sizeof(host)), "data written through a map");
   CHECK(!clEnqueueMapImage(env->queue, im, CL_TRUE, CL_MAP_READ, origin, region, NULL, &sp, 0,
                            NULL, NULL, &err) && err == CL_INVALID_VALUE,
         "NULL row pitch: %s", kt_err_name(err));
   CHECK(!clEnqueueMapImage(env->queue, im, CL_TRUE, CL_MAP_READ, origin, region, &rp, NULL, 0,
                            NULL, NULL, &err) && err == CL_INVALID_VALUE,
         "NULL slice pitch for 3D: %s", kt_err_name(err));
   size_t big[3] = {6, 4, 3};
   CHECK(!clEnqueueMapImage(env->queue, im, CL_TRUE, CL_MAP_READ, origin, big, &rp, &sp, 0, NULL,
                            NULL, &err) && err == CL_INVALID_VALUE,
         "region out of bounds: %s", kt_err_name(err));
   clReleaseMemObject(im);

   /* USE_HOST_PTR 2D: the map is the application's memory; slice pitch 0. */
   uint8_t user[4 * 24];
   kt_fill(user, sizeof(user), 12);
   cl_mem u = clCreateImage2D(env->context, CL_MEM_USE_HOST_PTR, &rgba8, 5, 4, 24, user, &err);
   REQUIRE(u, "USE_HOST_PTR image");
   size_t o2[3] = {2, 1, 0}, r2[3] = {2, 2, 1};
   sp = 77;
   uint8_t *q = clEnqueueMapImage(env->queue, u, CL_TRUE, CL_MAP_READ, o2, r2, &rp, &sp, 0, NULL,
                                  NULL, &err);
   CHECK(q == user + 24 + 8 && rp == 24 && sp == 0, "USE_HOST_PTR map %p (host %p) %zu %zu",
         (void *)q, (void *)user, rp, sp);
   if (q)
      CHECK_OK(clEnqueueUnmapMemObject(env->queue, u, q, 0, NULL, NULL));
   clFinish(env->queue);
   clReleaseMemObject(u);
}

static void samplers(const struct kt_env *env)
{
   cl_int err;
   cl_sampler s = clCreateSampler(env->context, CL_TRUE, CL_ADDRESS_MIRRORED_REPEAT,
                                  CL_FILTER_LINEAR, &err);
   REQUIRE(s && !err, "sampler: %s", kt_err_name(err));
   cl_uint refs;
   cl_context ctx;
   cl_bool norm;
   cl_addressing_mode am;
   cl_filter_mode fm;
   CHECK_OK(clRetainSampler(s));
   CHECK_OK(clGetSamplerInfo(s, CL_SAMPLER_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
   CHECK(refs == 2, "refs %u", refs);
   CHECK_OK(clReleaseSampler(s));
   CHECK_OK(clGetSamplerInfo(s, CL_SAMPLER_CONTEXT, sizeof(ctx), &ctx, NULL));
   CHECK(ctx == env->context, "context");
   CHECK_OK(clGetSamplerInfo(s, CL_SAMPLER_NORMALIZED_COORDS, sizeof(norm), &norm, NULL));
   CHECK(norm == CL_TRUE, "normalized");
   CHECK_OK(clGetSamplerInfo(s, CL_SAMPLER_ADDRESSING_MODE, sizeof(am), &am, NULL));
   CHECK(am == CL_ADDRESS_MIRRORED_REPEAT, "addressing 0x%x", am);
   CHECK_OK(clGetSamplerInfo(s, CL_SAMPLER_FILTER_MODE, sizeof(fm), &fm, NULL));
   CHECK(fm == CL_FILTER_LINEAR, "filter 0x%x", fm);
   CHECK_ERR(clGetSamplerInfo(s, CL_SAMPLER_FILTER_MODE, 1, &fm, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clGetSamplerInfo(s, 0x7777, sizeof(fm), &fm, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clGetSamplerInfo(NULL, CL_SAMPLER_FILTER_MODE, sizeof(fm), &fm, NULL),
             CL_INVALID_SAMPLER);
   CHECK(!clCreateSampler(NULL, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err) &&
            err == CL_INVALID_CONTEXT,
         "NULL context: %s", kt_err_name(err));
   CHECK(!clCreateSampler(env->context, CL_TRUE, 0x1234, CL_FILTER_NEAREST, &err) &&
            err == CL_INVALID_VALUE,
         "bad addressing: %s", kt_err_name(err));
   CHECK(!clCreateSampler(env->context, CL_TRUE, CL_ADDRESS_CLAMP, 0x1234, &err) &&
            err == CL_INVALID_VALUE,
         "bad filter: %s", kt_err_name(err));

   /* Kernel arguments: images for image parameters of the right
    * dimension, samplers for samplers, nothing else. */
   const char *src = "kernel void k(read_only image2d_t a, sampler_t s, write_only image3d_t b,"
                     " global int *o) { o[0] = get_image_width(a) + get_image_depth(b); }";
   cl_program p = clCreateProgramWithSource(env->context, 1, &src, NULL, &err);
   REQUIRE_OK(clBuildProgram(p, 1, &env->device, NULL, NULL, NULL));
   cl_kernel k = clCreateKernel(p, "k", &err);
   REQUIRE(k, "kernel");
   cl_mem i2 = clCreateImage2D(env->context, 0, &rgba8, 3, 2, 0, NULL, &err);
   cl_mem i3 = clCreateImage3D(env->context, 0, &rgba8, 3, 2, 5, 0, 0, NULL, &err);
   cl_mem buf = kt_buffer(env->context, 0, 16, NULL);
   CHECK_ERR(clSetKernelArg(k, 0, sizeof(cl_mem), &buf), CL_INVALID_MEM_OBJECT);
   CHECK_ERR(clSetKernelArg(k, 0, sizeof(cl_mem), &i3), CL_INVALID_MEM_OBJECT);
   CHECK_ERR(clSetKernelArg(k, 0, sizeof(cl_mem), NULL), CL_INVALID_MEM_OBJECT);
   CHECK_ERR(clSetKernelArg(k, 0, 4, &i2), CL_INVALID_ARG_SIZE);
   CHECK_ERR(clSetKernelArg(k, 1, sizeof(cl_sampler), &buf), CL_INVALID_SAMPLER);
   CHECK_ERR(clSetKernelArg(k, 1, sizeof(cl_sampler), NULL), CL_INVALID_SAMPLER);
   CHECK_ERR(clSetKernelArg(k, 1, 4, &s), CL_INVALID_ARG_SIZE);
   CHECK_ERR(clSetKernelArg(k, 2, sizeof(cl_mem), &i2), CL_INVALID_MEM_OBJECT);
   CHECK_ERR(clSetKernelArg(k, 3, sizeof(cl_mem), &i2), CL_INVALID_MEM_OBJECT);
   CHECK_OK(clSetKernelArg(k, 0, sizeof(cl_mem), &i2));
   CHECK_OK(clSetKernelArg(k, 1, sizeof(cl_sampler), &s));
   CHECK_OK(clSetKernelArg(k, 2, sizeof(cl_mem), &i3));
   CHECK_OK(clSetKernelArg(k, 3, sizeof(cl_mem), &buf));
   /* The sampler may go: the argument keeps its value. */
   CHECK_OK(clReleaseSampler(s));
   CHECK_OK(clEnqueueTask(env->queue, k, 0, NULL, NULL));
   int r = 0;
   CHECK_OK(clEnqueueReadBuffer(env->queue, buf, CL_TRUE, 0, sizeof(r), &r, 0, NULL, NULL));
   CHECK(r == 8, "get_image_width + get_image_depth = %d", r);
   /* An image released while set as an argument is no argument anymore. */
   CHECK_OK(clReleaseMemObject(i3));
   CHECK_ERR(clEnqueueTask(env->queue, k, 0, NULL, NULL), CL_INVALID_KERNEL_ARGS);
   clReleaseKernel(k);
   clReleaseProgram(p);
   clReleaseMemObject(i2), clReleaseMemObject(buf);
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   cl_bool images = CL_FALSE;
   REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images, NULL));
   REQUIRE(images, "the device must support images");
   required_formats(&env);
   creation_errors(&env);
   info(&env);
   read_write(&env);
   copies(&env);
   maps(&env);
   samplers(&env);
   clFinish(env.queue);
   kt_teardown(&env);
   return kt_result();
}
