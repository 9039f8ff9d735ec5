/* Image commands of cl_khr_command_buffer, and clEnqueueFillImage, through
 * the ICD loader: for several formats a recorded chain fill -> image copy
 * -> image-to-buffer -> buffer-to-image linked by sync points, replayed
 * many times with new source data in between, checked pixel by pixel
 * against a host model; fills checked against pixels worked out by hand
 * (rounding ties, saturation, channel orders); every recording error the
 * spec lists for these commands; released images kept alive by a
 * recorded command buffer. */
#undef CL_TARGET_OPENCL_VERSION /* clEnqueueFillImage, ...ForPlatform are 1.2 */
#define CL_TARGET_OPENCL_VERSION 120
#include <stdlib.h>
#include <string.h>

#include "kiln/cl_command_buffer.h"
#include "kk.h"

/* The header names the version it declares (usable at a 1.2 target). */
_Static_assert(KILN_CL_KHR_COMMAND_BUFFER_EXTENSION_VERSION == 36872u,
               "cl_khr_command_buffer 0.9.8 is (9 << 12) | 8");

static struct {
   kiln_clCreateCommandBufferKHR_fn create;
   kiln_clFinalizeCommandBufferKHR_fn finalize;
   kiln_clReleaseCommandBufferKHR_fn release;
   kiln_clEnqueueCommandBufferKHR_fn enqueue;
   kiln_clCommandCopyImageKHR_fn copy_image;
   kiln_clCommandCopyImageToBufferKHR_fn image_to_buffer;
   kiln_clCommandCopyBufferToImageKHR_fn buffer_to_image;
   kiln_clCommandFillImageKHR_fn fill_image;
} F;

/* Replays overlap: several are enqueued before the first ends. */
static const cl_command_buffer_properties_khr simultaneous[3] = {
   CL_COMMAND_BUFFER_FLAGS_KHR, CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR, 0};

static void lookup_all(cl_platform_id p)
{
#define LOOK(field, name)                                                      \
   F.field = (void *)clGetExtensionFunctionAddressForPlatform(p, name);          \
   REQUIRE(F.field != NULL, "%s not found", name)
   LOOK(create, "clCreateCommandBufferKHR");
   LOOK(finalize, "clFinalizeCommandBufferKHR");
   LOOK(release, "clReleaseCommandBufferKHR");
   LOOK(enqueue, "clEnqueueCommandBufferKHR");
   LOOK(copy_image, "clCommandCopyImageKHR");
   LOOK(image_to_buffer, "clCommandCopyImageToBufferKHR");
   LOOK(buffer_to_image, "clCommandCopyBufferToImageKHR");
   LOOK(fill_image, "clCommandFillImageKHR");
#undef LOOK
}

/* A format, a fill colour for it and the pixel that colour must become,
 * worked out by hand from 5.3.5 / 8.3 (round to nearest even, saturate,
 * channel order). */
struct fmt_case {
   const char *name;
   cl_image_format fmt;
   size_t elem;
   union {
      float f[4];
      cl_int i[4];
      cl_uint u[4];
   } color;
   unsigned char pixel[16];
};

static struct fmt_case cases[8];
static unsigned num_cases;

static void add_case(const char *name, cl_channel_order o, cl_channel_type t, size_t elem,
                     const void *color, const void *pixel)
{
   struct fmt_case *c = &cases[num_cases++];
   c->name = name;
   c->fmt.image_channel_order = o;
   c->fmt.image_channel_data_type = t;
   c->elem = elem;
   memcpy(&c->color, color, 16);
   memcpy(c->pixel, pixel, elem);
}

static void make_cases(void)
{
   /* 0.5 * 255 = 127.5 ties to 128; 0.25 * 255 = 63.75 -> 64. */
   const float c1[4] = {0.5f, 0.25f, 1.5f, -1.0f};
   const unsigned char p_rgba8[4] = {128, 64, 255, 0};
   add_case("RGBA UNORM_INT8", CL_RGBA, CL_UNORM_INT8, 4, c1, p_rgba8);
   const unsigned char p_bgra8[4] = {255, 64, 128, 0};
   add_case("BGRA UNORM_INT8", CL_BGRA, CL_UNORM_INT8, 4, c1, p_bgra8);
   const float c2[4] = {0.5f, -3.0f, 7.0f, 9.0f};
   add_case("R FLOAT", CL_R, CL_FLOAT, 4, c2, &c2[0]);
   /* half, ties to even: 1 + 2^-11 lies between 0x3c00 and 0x3c01 ->
    * 0x3c00; 1 + 3 * 2^-11 between 0x3c01 and 0x3c02 -> 0x3c02; 65520
    * between the largest half 0x7bff and 2^16 -> infinity; 2^-25 half the
    * smallest subnormal -> 0. */
   const float c_half[4] = {1.0f + 0x1p-11f, 1.0f + 0x3p-11f, 65520.0f, 0x1p-25f};
   const cl_ushort p_half[4] = {0x3c00, 0x3c02, 0x7c00, 0x0000};
   add_case("RGBA HALF_FLOAT", CL_RGBA, CL_HALF_FLOAT, 8, c_half, p_half);
   /* 565: r 0.5*31 = 15.5 -> 16, g 0.25*63 = 15.75 -> 16, b saturates
    * to 31. */
   const cl_ushort p_565 = (cl_ushort)(16 << 11 | 16 << 5 | 31);
   add_case("RGB UNORM_SHORT_565", CL_RGB, CL_UNORM_SHORT_565, 2, c1, &p_565);
   const cl_int c3[4] = {-40000, 1234, 5, 6};
   const cl_short p_rg16[2] = {-32768, 1234};
   add_case("RG SIGNED_INT16", CL_RG, CL_SIGNED_INT16, 4, c3, p_rg16);
   const cl_uint c4[4] = {7, 8, 9, 0xdeadbeefu};
   const cl_uint p_ra32[2] = {7, 0xdeadbeefu};
   add_case("RA UNSIGNED_INT32", CL_RA, CL_UNSIGNED_INT32, 8, c4, p_ra32);
   /* -0.5 * 32767 = -16383.5 ties to the even -16384. */
   const float c5[4] = {-0.5f, 1, 1, 1};
   const cl_short p_int16 = -16384;
   add_case("INTENSITY SNORM_INT16", CL_INTENSITY, CL_SNORM_INT16, 2, c5, &p_int16);
}

enum { W = 13, H = 7, D = 3 };

/* Host model of an image: tight rows of w * elem bytes. */
struct model {
   size_t w, h, d, elem;
   unsigned char *px;
};

static unsigned char *at(struct model *m, size_t x, size_t y, size_t z)
{
   return m->px + ((z * m->h + y) * m->w + x) * m->elem;
}

static void model_fill(struct model *m, const size_t *o, const size_t *r,
                       const unsigned char *pixel)
{
   for (size_t z = 0; z < r[2]; z++)
      for (size_t y = 0; y < r[1]; y++)
         for (size_t x = 0; x < r[0]; x++)
            memcpy(at(m, o[0] + x, o[1] + y, o[2] + z), pixel, m->elem);
}

static void model_copy(struct model *dst, const size_t *dorg, struct model *src,
                       const size_t *sorg, const size_t *r)
{
   for (size_t z = 0; z < r[2]; z++)
      for (size_t y = 0; y < r[1]; y++)
         memmove(at(dst, dorg[0], dorg[1] + y, dorg[2] + z),
                 at(src, sorg[0], sorg[1] + y, sorg[2] + z), r[0] * src->elem);
}

static cl_mem image(cl_context ctx, const cl_image_format *f, size_t w, size_t h, size_t d,
                    void *host)
{
   cl_int err;
   cl_mem_flags flags = CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0);
   cl_mem m = d > 1 ? clCreateImage3D(ctx, flags, f, w, h, d, 0, 0, host, &err)
                    : clCreateImage2D(ctx, flags, f, w, h, 0, host, &err);
   REQUIRE(m != NULL, "image creation: %s", kt_err_name(err));
   return m;
}

static void read_image(const struct kt_env *env, cl_mem img, struct model *m)
{
   size_t o[3] = {0, 0, 0}, r[3] = {m->w, m->h, m->d};
   REQUIRE_OK(clEnqueueReadImage(env->queue, img, CL_TRUE, o, r, 0, 0, m->px, 0, NULL, NULL));
}

static void check_image(const struct kt_env *env, cl_mem img, struct model *want,
                        const char *what)
{
   struct model got = *want;
   size_t size = want->w * want->h * want->d * want->elem;
   got.px = malloc(size);
   REQUIRE(got.px);
   read_image(env, img, &got);
   for (size_t z = 0; z < want->d; z++)
      for (size_t y = 0; y < want->h; y++)
         for (size_t x = 0; x < want->w; x++)
            if (memcmp(at(&got, x, y, z), at(want, x, y, z), want->elem)) {
               KT_FAIL("%s: pixel (%zu, %zu, %zu) differs", what, x, y, z);
               free(got.px);
               return;
            }
   free(got.px);
}

/* One format: images A (source), B (copy destination), C (from the
 * buffer) of W x H (x D when three_d), a staging buffer.  Recorded:
 *   s1 = fill A's box
 *   s2 = copy A's box -> B (waits s1)
 *   s3 = A -> buffer at offset (waits s1)
 *   s4 = buffer -> C (waits s3)
 * Replayed after new data is written to A, several times, then 50 times
 * in a row; every image checked against the model each round. */
static void chain(const struct kt_env *env, const struct fmt_case *fc, bool three_d)
{
   const size_t d = three_d ? D : 1, e = fc->elem;
   const size_t total = W * H * d * e;
   char what[96];
   struct model ma = {W, H, d, e, calloc(1, total)}, mb = ma, mc = ma;
   mb.px = calloc(1, total);
   mc.px = calloc(1, total);
   REQUIRE(ma.px && mb.px && mc.px);
   kt_fill(ma.px, total, 1);
   kt_fill(mb.px, total, 2);
   kt_fill(mc.px, total, 3);
   cl_mem a = image(env->context, &fc->fmt, W, H, d, ma.px);
   cl_mem b = image(env->context, &fc->fmt, W, H, d, mb.px);
   cl_mem c = image(env->context, &fc->fmt, W, H, d, mc.px);
   const size_t off = 3 * e;
   cl_mem buf = kt_buffer(env->context, 0, total + off, NULL);

   size_t fo[3] = {2, 1, three_d ? 1 : 0}, fr[3] = {5, 4, three_d ? 2 : 1};
   size_t so[3] = {1, 0, 0}, dorg[3] = {6, 2, three_d ? 1 : 0};
   size_t cr[3] = {7, 5, three_d ? 2 : 1};
   size_t all_o[3] = {0, 0, 0}, all[3] = {W, H, d};
   cl_int err;
   cl_command_buffer_khr cb = F.create(1, &env->queue, simultaneous, &err);
   REQUIRE_OK(err);
   cl_sync_point_khr s1 = 0, s2 = 0, s3 = 0, s4 = 0;
   CHECK_OK(F.fill_image(cb, NULL, NULL, a, &fc->color, fo, fr, 0, NULL, &s1, NULL));
   CHECK_OK(F.copy_image(cb, NULL, NULL, a, b, so, dorg, cr, 1, &s1, &s2, NULL));
   CHECK_OK(F.image_to_buffer(cb, NULL, NULL, a, buf, all_o, all, off, 1, &s1, &s3, NULL));
   CHECK_OK(F.buffer_to_image(cb, NULL, NULL, buf, c, off, all_o, all, 1, &s3, &s4, NULL));
   CHECK(s1 && s2 && s3 && s4 && s1 != s2 && s3 != s4, "sync points %u %u %u %u", s1, s2, s3,
         s4);
   REQUIRE_OK(F.finalize(cb));

   for (unsigned round = 0; round < 4; round++) {
      unsigned replays = round == 3 ? 50 : 1;
      /* New source data, then the model of what the replay makes of it. */
      kt_fill(ma.px, total, 10 + round);
      CHECK_OK(clEnqueueWriteImage(env->queue, a, CL_TRUE, all_o, all, 0, 0, ma.px, 0, NULL,
                                   NULL));
      model_fill(&ma, fo, fr, fc->pixel);
      model_copy(&mb, dorg, &ma, so, cr);
      memcpy(mc.px, ma.px, total);
      for (unsigned i = 0; i < replays; i++)
         CHECK_OK(F.enqueue(0, NULL, cb, 0, NULL, NULL));
      CHECK_OK(clFinish(env->queue));
      snprintf(what, sizeof(what), "%s %s round %u: A", fc->name, three_d ? "3D" : "2D", round);
      check_image(env, a, &ma, what);
      what[strlen(what) - 1] = 'B';
      check_image(env, b, &mb, what);
      what[strlen(what) - 1] = 'C';
      check_image(env, c, &mc, what);
   }
   unsigned char *bytes = malloc(total);
   REQUIRE(bytes);
   REQUIRE_OK(clEnqueueReadBuffer(env->queue, buf, CL_TRUE, off, total, bytes, 0, NULL, NULL));
   snprintf(what, sizeof(what), "%s buffer", fc->name);
   CHECK(kt_same(bytes, ma.px, total, what));
   free(bytes);

   CHECK_OK(F.release(cb));
   clReleaseMemObject(a);
   clReleaseMemObject(b);
   clReleaseMemObject(c);
   clReleaseMemObject(buf);
   free(ma.px);
   free(mb.px);
   free(mc.px);
}

/* clEnqueueFillImage alone: the same pixels, a box of a 3D image, the
 * rest untouched; then its errors in the spec's order. */
static void enqueue_fill(const struct kt_env *env, const struct fmt_case *fc)
{
   const size_t total = W * H * D * fc->elem;
   struct model m = {W, H, D, fc->elem, malloc(total)};
   REQUIRE(m.px);
   kt_fill(m.px, total, 7);
   cl_mem img = image(env->context, &fc->fmt, W, H, D, m.px);
   size_t o[3] = {W - 4, 2, 1}, r[3] = {4, H - 2, 2};
   cl_event ev = NULL;
   CHECK_OK(clEnqueueFillImage(env->queue, img, &fc->color, o, r, 0, NULL, &ev));
   REQUIRE(ev);
   cl_command_type type = 0;
   CHECK_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL));
   CHECK(type == CL_COMMAND_FILL_IMAGE, "command type 0x%x", type);
   CHECK_OK(clWaitForEvents(1, &ev));
   clReleaseEvent(ev);
   model_fill(&m, o, r, fc->pixel);
   char what[64];
   snprintf(what, sizeof(what), "clEnqueueFillImage %s", fc->name);
   check_image(env, img, &m, what);
   clReleaseMemObject(img);
   free(m.px);
}

static void enqueue_fill_errors(const struct kt_env *env)
{
   const cl_image_format f = {CL_RGBA, CL_UNORM_INT8};
   cl_mem img = image(env->context, &f, W, H, 1, NULL);
   cl_context other = kt_context(env);
   cl_mem foreign = image(other, &f, W, H, 1, NULL);
   cl_mem buf = kt_buffer(env->context, 0, 64, NULL);
   float color[4] = {1, 0, 0, 1};
   size_t o[3] = {0, 0, 0}, r[3] = {W, H, 1}, big[3] = {W + 1, H, 1}, deep[3] = {W, H, 2};
   size_t zero[3] = {W, 0, 1}, late[3] = {1, 0, 0}, one[3] = {W, H, 1};
   CHECK_ERR(clEnqueueFillImage(NULL, img, color, o, r, 0, NULL, NULL),
             CL_INVALID_COMMAND_QUEUE);
   CHECK_ERR(clEnqueueFillImage(env->queue, foreign, color, o, r, 0, NULL, NULL),
             CL_INVALID_CONTEXT);
   CHECK_ERR(clEnqueueFillImage(env->queue, buf, color, o, r, 0, NULL, NULL),
             CL_INVALID_MEM_OBJECT);
   CHECK_ERR(clEnqueueFillImage(env->queue, NULL, color, o, r, 0, NULL, NULL),
             CL_INVALID_MEM_OBJECT);
   CHECK_ERR(clEnqueueFillImage(env->queue, img, NULL, o, r, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueFillImage(env->queue, img, color, NULL, r, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueFillImage(env->queue, img, color, o, NULL, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueFillImage(env->queue, img, color, o, big, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueFillImage(env->queue, img, color, o, deep, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueFillImage(env->queue, img, color, o, zero, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueFillImage(env->queue, img, color, late, one, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueFillImage(env->queue, img, color, o, r, 1, NULL, NULL),
             CL_INVALID_EVENT_WAIT_LIST);
   cl_event bogus = (cl_event)buf;
   CHECK_ERR(clEnqueueFillImage(env->queue, img, color, o, r, 1, &bogus, NULL),
             CL_INVALID_EVENT_WAIT_LIST);
   cl_event foreign_ev = kt_user_event(other);
   CHECK_ERR(clEnqueueFillImage(env->queue, img, color, o, r, 1, &foreign_ev, NULL),
             CL_INVALID_CONTEXT);
   CHECK_OK(clSetUserEventStatus(foreign_ev, CL_COMPLETE));
   clReleaseEvent(foreign_ev);
   clReleaseMemObject(img);
   clReleaseMemObject(foreign);
   clReleaseMemObject(buf);
   clReleaseContext(other);
}

/* Every recording error of the image commands: the common ones (queue,
 * command buffer, finalized, sync points, properties, mutable handle),
 * then clEnqueue*Image's (context, object kind, format, region, overlap,
 * buffer size). */
static void record_errors(const struct kt_env *env)
{
   const cl_image_format f = {CL_RGBA, CL_UNORM_INT8}, g = {CL_RGBA, CL_FLOAT};
   cl_mem a = image(env->context, &f, W, H, 1, NULL);
   cl_mem b = image(env->context, &f, W, H, 1, NULL);
   cl_mem other_fmt = image(env->context, &g, W, H, 1, NULL);
   cl_context other = kt_context(env);
   cl_mem foreign = image(other, &f, W, H, 1, NULL);
   cl_mem foreign_buf = kt_buffer(other, 0, W * H * 4, NULL);
   cl_mem buf = kt_buffer(env->context, 0, W * H * 4, NULL);
   cl_mem small = kt_buffer(env->context, 0, W * H * 4 - 1, NULL);
   float color[4] = {0, 1, 0, 1};
   size_t o[3] = {0, 0, 0}, r[3] = {W, H, 1}, big[3] = {W, H + 1, 1}, deep[3] = {2, 2, 2};
   size_t zero[3] = {0, 1, 1}, z1[3] = {0, 0, 1}, half[3] = {W / 2, H, 1}, o2[3] = {3, 0, 0};
   cl_int err;
   cl_command_buffer_khr cb = F.create(1, &env->queue, NULL, &err);
   REQUIRE_OK(err);
   cl_sync_point_khr sp = 0, bad_sp = 99;
   const cl_command_properties_khr props[3] = {0x1234, 1, 0};
   cl_mutable_command_khr mh;

   /* Common checks, on each of the four commands. */
   CHECK_ERR(F.copy_image(cb, env->queue, NULL, a, b, o, o, r, 0, NULL, NULL, NULL),
             CL_INVALID_COMMAND_QUEUE);
   CHECK_ERR(F.fill_image(cb, env->queue, NULL, a, color, o, r, 0, NULL, NULL, NULL),
             CL_INVALID_COMMAND_QUEUE);
   CHECK_ERR(F.copy_image(NULL, NULL, NULL, a, b, o, o, r, 0, NULL, NULL, NULL),
             CL_INVALID_COMMAND_BUFFER_KHR);
   CHECK_ERR(F.image_to_buffer(NULL, NULL, NULL, a, buf, o, r, 0, 0, NULL, NULL, NULL),
             CL_INVALID_COMMAND_BUFFER_KHR);
   CHECK_ERR(F.buffer_to_image((cl_command_buffer_khr)buf, NULL, NULL, buf, a, 0, o, r, 0, NULL,
                               NULL, NULL),
             CL_INVALID_COMMAND_BUFFER_KHR);
   CHECK_ERR(F.fill_image(cb, NULL, NULL, a, color, o, r, 1, NULL, NULL, NULL),
             CL_INVALID_SYNC_POINT_WAIT_LIST_KHR);
   CHECK_ERR(F.copy_image(cb, NULL, NULL, a, b, o, o, r, 0, &sp, NULL, NULL),
             CL_INVALID_SYNC_POINT_WAIT_LIST_KHR);
   CHECK_ERR(F.image_to_buffer(cb, NULL, NULL, a, buf, o, r, 0, 1, &bad_sp, NULL, NULL),
             CL_INVALID_SYNC_POINT_WAIT_LIST_KHR);
   CHECK_ERR(F.buffer_to_image(cb, NULL, NULL, buf, a, 0, o, r, 1, &bad_sp, NULL, NULL),
             CL_INVALID_SYNC_POINT_WAIT_LIST_KHR);
   CHECK_ERR(F.copy_image(cb, NULL, props, a, b, o, o, r, 0, NULL, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(F.fill_image(cb, NULL, NULL, a, color, o, r, 0, NULL, NULL, &mh), CL_INVALID_VALUE);

   /* Objects: another context, the wrong kind, NULL. */
   CHECK_ERR(F.copy_image(cb, NULL, NULL, foreign, b, o, o, r, 0, NULL, NULL, NULL),
             CL_INVALID_CONTEXT);
   CHECK_ERR(F.copy_image(cb, NULL, NULL, a, foreign, o, o, r, 0, NULL, NULL, NULL),
             CL_INVALID_CONTEXT);
   CHECK_ERR(F.image_to_buffer(cb, NULL, NULL, a, foreign_buf, o, r, 0, 0, NULL, NULL, NULL),
             CL_INVALID_CONTEXT);
   CHECK_ERR(F.buffer_to_image(cb, NULL, NULL, buf, foreign, 0, o, r, 0, NULL, NULL, NULL),
             CL_INVALID_CONTEXT);
   CHECK_ERR(F.fill_image(cb, NULL, NULL, foreign, color, o, r, 0, NULL, NULL, NULL),
             CL_INVALID_CONTEXT);
   CHECK_ERR(F.copy_image(cb, NULL, NULL, buf, b, o, o, r, 0, NULL, NULL, NULL),
             CL_INVALID_MEM_OBJECT);
   CHECK_ERR(F.copy_image(cb, NULL, NULL, a, NULL, o, o, r, 0, NULL, NULL, NULL),
             CL_INVALID_MEM_OBJECT);
   CHECK_ERR(F.image_to_buffer(cb, NULL, NULL, a, b, o, r, 0, 0, NULL, NULL, NULL),
             CL_INVALID_MEM_OBJECT);
   CHECK_ERR(F.buffer_to_image(cb, NULL, NULL, a, b, 0, o, r, 0, NULL, NULL, NULL),
             CL_INVALID_MEM_OBJECT);
   CHECK_ERR(F.fill_image(cb, NULL, NULL, buf, color, o, r, 0, NULL, NULL, NULL),
             CL_INVALID_MEM_OBJECT);

   /* Formats, regions, overlap, sizes. */
   CHECK_ERR(F.copy_image(cb, NULL, NULL, a, other_fmt, o, o, r, 0, NULL, NULL, NULL),
             CL_IMAGE_FORMAT_MISMATCH);
   CHECK_ERR(F.copy_image(cb, NULL, NULL, a, b, o, o, NULL, 0, NULL, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(F.copy_image(cb, NULL, NULL, a, b, NULL, o, r, 0, NULL, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(F.copy_image(cb, NULL, NULL, a, b, o, o, big, 0, NULL, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(F.copy_image(cb, NULL, NULL, a, b, o, o2, r, 0, NULL, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(F.copy_image(cb, NULL, NULL, a, b, o, o, deep, 0, NULL, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(F.copy_image(cb, NULL, NULL, a, b, o, z1, half, 0, NULL, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(F.copy_image(cb, NULL, NULL, a, a, o, o2, half, 0, NULL, NULL, NULL),
             CL_MEM_COPY_OVERLAP);
   CHECK_ERR(F.fill_image(cb, NULL, NULL, a, NULL, o, r, 0, NULL, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(F.fill_image(cb, NULL, NULL, a, color, o, zero, 0, NULL, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(F.fill_image(cb, NULL, NULL, a, color, o, NULL, 0, NULL, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(F.image_to_buffer(cb, NULL, NULL, a, small, o, r, 0, 0, NULL, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(F.image_to_buffer(cb, NULL, NULL, a, buf, o, r, 1, 0, NULL, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(F.buffer_to_image(cb, NULL, NULL, small, a, 0, o, r, 0, NULL, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(F.buffer_to_image(cb, NULL, NULL, buf, a, 0, o, big, 0, NULL, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(F.image_to_buffer(cb, NULL, NULL, a, buf, o, NULL, 0, 0, NULL, NULL, NULL),
             CL_INVALID_VALUE);
   /* A copy within one image that does not overlap is fine. */
   CHECK_OK(F.copy_image(cb, NULL, NULL, a, a, o, o2, (size_t[3]){3, H, 1}, 0, NULL, &sp,
                         NULL));
   CHECK(sp == 1, "first recorded command has sync point %u", sp);

   /* Finalized: no more recording. */
   CHECK_OK(F.finalize(cb));
   CHECK_ERR(F.copy_image(cb, NULL, NULL, a, b, o, o, r, 0, NULL, NULL, NULL),
             CL_INVALID_OPERATION);
   CHECK_ERR(F.image_to_buffer(cb, NULL, NULL, a, buf, o, r, 0, 0, NULL, NULL, NULL),
             CL_INVALID_OPERATION);
   CHECK_ERR(F.buffer_to_image(cb, NULL, NULL, buf, a, 0, o, r, 0, NULL, NULL, NULL),
             CL_INVALID_OPERATION);
   CHECK_ERR(F.fill_image(cb, NULL, NULL, a, color, o, r, 0, NULL, NULL, NULL),
             CL_INVALID_OPERATION);
   CHECK_OK(F.release(cb));
   cl_mem all[] = {a, b, other_fmt, foreign, foreign_buf, buf, small};
   for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
      clReleaseMemObject(all[i]);
   clReleaseContext(other);
}

/* The application releases its images right after recording: the command
 * buffer keeps them alive (docs/command_buffer.md), so replays still
 * work and write the buffer the application kept. */
static void released_images(const struct kt_env *env)
{
   const struct fmt_case *fc = &cases[0];
   const size_t total = W * H * fc->elem;
   unsigned char *host = malloc(total), *want = malloc(total), *got = malloc(total);
   REQUIRE(host && want && got);
   kt_fill(host, total, 21);
   cl_mem a = image(env->context, &fc->fmt, W, H, 1, host);
   cl_mem b = image(env->context, &fc->fmt, W, H, 1, NULL);
   cl_mem buf = kt_buffer(env->context, 0, total, NULL);
   size_t o[3] = {0, 0, 0}, r[3] = {W, H, 1}, fo[3] = {1, 1, 0}, fr[3] = {2, 3, 1};
   cl_int err;
   cl_command_buffer_khr cb = F.create(1, &env->queue, simultaneous, &err);
   REQUIRE_OK(err);
   cl_sync_point_khr s1, s2, s3;
   CHECK_OK(F.copy_image(cb, NULL, NULL, a, b, o, o, r, 0, NULL, &s1, NULL));
   CHECK_OK(F.fill_image(cb, NULL, NULL, b, &fc->color, fo, fr, 1, &s1, &s2, NULL));
   CHECK_OK(F.image_to_buffer(cb, NULL, NULL, b, buf, o, r, 0, 1, &s2, &s3, NULL));
   CHECK_OK(F.finalize(cb));
   CHECK_OK(clReleaseMemObject(a));
   CHECK_OK(clReleaseMemObject(b));
   for (int i = 0; i < 3; i++)
      CHECK_OK(F.enqueue(0, NULL, cb, 0, NULL, NULL));
   CHECK_OK(clFinish(env->queue));
   struct model m = {W, H, 1, fc->elem, want};
   memcpy(want, host, total);
   model_fill(&m, fo, fr, fc->pixel);
   CHECK_OK(clEnqueueReadBuffer(env->queue, buf, CL_TRUE, 0, total, got, 0, NULL, NULL));
   CHECK(kt_same(got, want, total, "released images"));
   CHECK_OK(F.release(cb));
   clReleaseMemObject(buf);
   free(host);
   free(want);
   free(got);
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   cl_bool images = CL_FALSE;
   REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images,
                              NULL));
   if (!images) {
      printf("SKIP: the device has no images\n");
      kt_teardown(&env);
      return 77;
   }
   lookup_all(env.platform);
   make_cases();
   for (unsigned i = 0; i < num_cases; i++) {
      chain(&env, &cases[i], false);
      enqueue_fill(&env, &cases[i]);
   }
   chain(&env, &cases[0], true);
   chain(&env, &cases[6], true);
   enqueue_fill_errors(&env);
   record_errors(&env);
   released_images(&env);
   kt_teardown(&env);
   return kt_result();
}
