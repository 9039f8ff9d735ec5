/* Images through CUDA arrays and texture/surface objects
 * (src/pipe/cuda/cuda_image.c) over the fake libcuda: which images get an
 * array and which stay linear, the handles a launch passes (struct
 * kiln_image_hw), the texture settings each sampler gets, the copies that
 * keep the array and the linear texels equal (linear -> array before a
 * launch, array -> linear after a launch that writes it), falling back to
 * the linear path when the array cannot be made, KILN_CUDA_IMAGES=linear,
 * and that every array and object made is destroyed with its resource. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fake_cuda.h"
#include "kiln/image.h"
#include "kiln/kernel_info.h"
#include "pipe/cuda/cuda_screen.h"

static struct pipe_screen *screen;

/* copy(read_only image src, sampler s, write_only image dst) + hidden
 * parameters.  The fake "runs" it as a texture-and-surface kernel would:
 * it reads src's array (through the texture object of the sampler it was
 * given) and writes every byte inverted into dst's array (through its
 * surface object); with no handles it works on the linear texels. */
static const unsigned copy_params[] = {8, 4, 8, 8, 8, 8, 4};
static struct kiln_arg_info copy_args[] = {
   {.kind = KILN_ARG_IMAGE2D, .size = 8, .offset = 0,
    .access_qualifier = CL_KERNEL_ARG_ACCESS_READ_ONLY},
   {.kind = KILN_ARG_SAMPLER, .size = 4, .offset = 8},
   {.kind = KILN_ARG_IMAGE2D, .size = 8, .offset = 16,
    .access_qualifier = CL_KERNEL_ARG_ACCESS_WRITE_ONLY},
};
static struct kiln_kernel_info copy_meta = {
   .name = "copy", .num_args = 3, .args = copy_args, .args_size = 24};

static struct kiln_image_hw seen_src, seen_dst;
static uint32_t seen_bits;
static unsigned copy_runs;
static bool copy_via_linear; /* a run found no handles and used linear memory */

/* The texels of a linear image (width x rows, row pitch) as bytes. */
static bool linear_bytes(const struct kiln_image_desc *d, unsigned char *out)
{
   size_t row = (size_t)d->width * (size_t)d->elem_size;
   for (int y = 0; y < d->height * d->depth; y++) {
      const unsigned char *p = fake_cuda_ptr(d->data + (uint64_t)y * d->row_pitch, row);
      if (!p)
         return false;
      memcpy(out + (size_t)y * row, p, row);
   }
   return true;
}

static void run_copy(const struct fake_cuda_launch *l)
{
   uint64_t src, dst;
   fake_cuda_param(l, 0, &src, 8);
   fake_cuda_param(l, 1, &seen_bits, 4);
   fake_cuda_param(l, 2, &dst, 8);
   const struct kiln_image_hw *s = fake_cuda_ptr(src, sizeof(*s));
   const struct kiln_image_hw *d = fake_cuda_ptr(dst, sizeof(*d));
   if (!s || !d)
      return;
   seen_src = *s;
   seen_dst = *d;
   copy_runs++;
   unsigned char texels[4096];
   size_t n = (size_t)s->desc.width * (size_t)s->desc.elem_size * (size_t)s->desc.height;
   uint64_t tex = s->tex[KILN_SAMPLER_INDEX(seen_bits)];
   CUarray src_array = NULL;
   if (tex && fake_cuda_tex_info(tex, &src_array, NULL)) {
      size_t size;
      const void *p = fake_cuda_array_bytes(src_array, &size, NULL);
      if (!p || size != n)
         return;
      memcpy(texels, p, n);
   } else {
      copy_via_linear = true;
      if (!linear_bytes(&s->desc, texels))
         return;
   }
   for (size_t i = 0; i < n; i++)
      texels[i] = (unsigned char)~texels[i];
   CUarray dst_array = d->surface ? fake_cuda_surf_array(d->surface) : NULL;
   if (dst_array) {
      size_t size;
      unsigned char *p = fake_cuda_array_bytes(dst_array, &size, NULL);
      if (p && size == n)
         memcpy(p, texels, n);
      return;
   }
   copy_via_linear = true;
   size_t row = (size_t)d->desc.width * (size_t)d->desc.elem_size;
   for (int y = 0; y < d->desc.height; y++) {
      unsigned char *p = fake_cuda_ptr(d->desc.data + (uint64_t)y * d->desc.row_pitch, row);
      if (p)
         memcpy(p, texels + (size_t)y * row, row);
   }
}

static const char ptx[] = "//\n.version 8.0\n.target sm_90\n.address_size 64\n"
                          ".visible .entry copy(\n) {}\n";

static int setup(void **state)
{
   (void)state;
   fake_cuda_reset_h100s(1);
   fake_cuda_define_kernel("copy", 7, copy_params, run_copy);
   copy_runs = 0;
   copy_via_linear = false;
   return cuda_screen_probe(&screen, 1) == 1 ? 0 : -1;
}

static int setup_no_images(void **state)
{
   int r = setup(state);
   screen->destroy(screen);
   fake_cuda.no_images = true;
   return r || cuda_screen_probe(&screen, 1) != 1 ? -1 : 0;
}

/* The default (no KILN_CUDA_IMAGES) is the linear path until the texture
 * path passes on a GPU (docs/cuda.md). */
static int setup_env_linear(void **state)
{
   unsetenv("KILN_CUDA_IMAGES");
   int r = setup(state);
   setenv("KILN_CUDA_IMAGES", "texture", 1);
   return r;
}

static int teardown(void **state)
{
   (void)state;
   screen->destroy(screen);
   /* Every array and object the driver made, it destroyed. */
   return fake_cuda_check_clean();
}

static int finish(struct pipe_context *ctx)
{
   struct pipe_fence *f = NULL;
   ctx->flush(ctx, &f);
   if (!f)
      return PIPE_FENCE_SIGNALLED;
   int r = ctx->screen->fence_wait(ctx->screen, f, PIPE_TIMEOUT_INFINITE);
   ctx->screen->fence_destroy(ctx->screen, f);
   return r;
}

static void *load(void **program)
{
   char *error = NULL;
   *program = screen->program_create(screen, ptx, sizeof(ptx) - 1, &error);
   assert_non_null(*program);
   void *k = screen->get_kernel(screen, *program, "copy", &error);
   assert_non_null(k);
   return k;
}

/* An 8x4 image of 4-byte texels in rows of 48 bytes (16 of padding, which
 * the array must not get), at byte 256 of its resource. */
enum { W = 8, H = 4, PITCH = 48, AT = 256, BYTES = AT + PITCH * H };

struct scene {
   struct pipe_context *ctx;
   void *program, *kernel;
   struct pipe_resource *src, *dst;
   struct pipe_image_view sview, dview;
   struct pipe_binding b[3];
   unsigned char args[24];
   struct pipe_grid_info g;
   unsigned char pattern[BYTES];
};

static void scene_init(struct scene *sc, cl_channel_order order, cl_channel_type type,
                       cl_mem_object_type image_type, uint32_t sampler)
{
   memset(sc, 0, sizeof(*sc));
   sc->ctx = screen->context_create(screen);
   assert_non_null(sc->ctx);
   sc->kernel = load(&sc->program);
   sc->src = screen->resource_create(screen, BYTES);
   sc->dst = screen->resource_create(screen, BYTES);
   for (int i = 0; i < BYTES; i++)
      sc->pattern[i] = (unsigned char)(i * 7 + 3);
   sc->ctx->buffer_write(sc->ctx, sc->src, 0, BYTES, sc->pattern);
   sc->ctx->buffer_write(sc->ctx, sc->dst, 0, BYTES, sc->pattern);
   struct pipe_image_view v = {.type = image_type, .format = {order, type}, .elem_size = 4,
                               .width = W, .height = H, .depth = 1, .row_pitch = PITCH};
   sc->sview = sc->dview = v;
   sc->b[0] = (struct pipe_binding){.arg = 0, .kind = PIPE_BIND_IMAGE, .res = sc->src,
                                    .offset = AT, .image = &sc->sview};
   sc->b[1] = (struct pipe_binding){.arg = 1, .kind = PIPE_BIND_SAMPLER, .sampler_bits = sampler};
   sc->b[2] = (struct pipe_binding){.arg = 2, .kind = PIPE_BIND_IMAGE, .res = sc->dst,
                                    .offset = AT, .image = &sc->dview};
   sc->g = (struct pipe_grid_info){.kernel = sc->kernel, .work_dim = 2,
                                   .global_size = {W, H, 1}, .local_size = {W, H, 1},
                                   .args = sc->args, .args_size = sizeof(sc->args),
                                   .info = &copy_meta, .bindings = sc->b, .num_bindings = 3};
}

static void scene_fini(struct scene *sc)
{
   screen->resource_destroy(screen, sc->src);
   screen->resource_destroy(screen, sc->dst);
   screen->program_destroy(screen, sc->program);
   sc->ctx->destroy(sc->ctx);
}

/* dst's linear bytes hold src's texels inverted, and its padding and the
 * bytes around the image are as they were. */
static void check_inverted(struct scene *sc, const unsigned char *src_bytes)
{
   unsigned char out[BYTES];
   sc->ctx->buffer_read(sc->ctx, sc->dst, 0, BYTES, out);
   assert_int_equal(finish(sc->ctx), PIPE_FENCE_SIGNALLED);
   for (int i = 0; i < BYTES; i++) {
      int in = i - AT;
      bool texel = in >= 0 && in % PITCH < W * 4;
      unsigned char want = texel ? (unsigned char)~src_bytes[i] : sc->pattern[i];
      if (out[i] != want)
         fail_msg("byte %d: %#x, not %#x", i, out[i], want);
   }
}

static void test_texture_and_surface(void **state)
{
   (void)state;
   struct scene sc;
   uint32_t bits = KILN_SAMPLER_NORMALIZED | KILN_SAMPLER_ADDRESS_CLAMP |
                   KILN_SAMPLER_FILTER_LINEAR;
   scene_init(&sc, CL_RGBA, CL_UNORM_INT8, CL_MEM_OBJECT_IMAGE2D, bits);
   assert_int_equal(sc.ctx->launch_grid(sc.ctx, &sc.g), CL_SUCCESS);
   assert_int_equal(finish(sc.ctx), PIPE_FENCE_SIGNALLED);
   assert_int_equal(copy_runs, 1);
   assert_false(copy_via_linear);
   /* The linear descriptor is still there, in front. */
   assert_int_equal(seen_src.desc.width, W);
   assert_int_equal(seen_src.desc.row_pitch, PITCH);
   assert_int_equal(seen_src.desc.channel_type, CL_UNORM_INT8);
   /* A read-only image has texture objects for every sampler and no
    * surface; a write-only one the reverse. */
   assert_int_equal(seen_src.surface, 0);
   assert_int_equal(seen_dst.tex[KILN_SAMPLER_INDEX(bits)], 0);
   assert_int_not_equal(seen_dst.surface, 0);
   for (unsigned i = 0; i < KILN_IMAGE_HW_SAMPLERS; i++)
      assert_int_not_equal(seen_src.tex[i], 0);
   /* The sampler's settings: CLAMP is the border (colour 0), LINEAR
    * filters, normalized coordinates; UNORM reads as floats. */
   CUarray array;
   CUDA_TEXTURE_DESC t;
   assert_true(fake_cuda_tex_info(seen_src.tex[KILN_SAMPLER_INDEX(bits)], &array, &t));
   assert_int_equal(t.addressMode[0], CU_TR_ADDRESS_MODE_BORDER);
   assert_int_equal(t.addressMode[2], CU_TR_ADDRESS_MODE_BORDER);
   assert_int_equal(t.filterMode, CU_TR_FILTER_MODE_LINEAR);
   assert_int_equal(t.flags, CU_TRSF_NORMALIZED_COORDINATES);
   for (int i = 0; i < 4; i++)
      assert_true(t.borderColor[i] == 0.0f);
   /* Unnormalized REPEAT (undefined) clamps; normalized REPEAT wraps,
    * MIRRORED_REPEAT mirrors; NEAREST points. */
   assert_true(fake_cuda_tex_info(seen_src.tex[KILN_SAMPLER_INDEX(KILN_SAMPLER_ADDRESS_REPEAT)],
                                  NULL, &t));
   assert_int_equal(t.addressMode[0], CU_TR_ADDRESS_MODE_CLAMP);
   assert_int_equal(t.filterMode, CU_TR_FILTER_MODE_POINT);
   assert_int_equal(t.flags, 0);
   assert_true(fake_cuda_tex_info(
      seen_src.tex[KILN_SAMPLER_INDEX(KILN_SAMPLER_NORMALIZED | KILN_SAMPLER_ADDRESS_REPEAT)],
      NULL, &t));
   assert_int_equal(t.addressMode[1], CU_TR_ADDRESS_MODE_WRAP);
   assert_true(fake_cuda_tex_info(
      seen_src.tex[KILN_SAMPLER_INDEX(KILN_SAMPLER_NORMALIZED |
                                      KILN_SAMPLER_ADDRESS_MIRRORED_REPEAT)],
      NULL, &t));
   assert_int_equal(t.addressMode[0], CU_TR_ADDRESS_MODE_MIRROR);
   /* Equal settings share one object: 12 distinct ones, not 20. */
   assert_int_equal(fake_cuda.tex_created, 12);
   assert_int_equal(fake_cuda.surf_created, 1);
   /* The array: 4 channels of unsigned 8 bits, writable, 8x4, holding
    * the texels without the rows' padding. */
   CUDA_ARRAY3D_DESCRIPTOR ad;
   size_t size;
   const unsigned char *bytes = fake_cuda_array_bytes(array, &size, &ad);
   assert_non_null(bytes);
   assert_int_equal(ad.Format, CU_AD_FORMAT_UNSIGNED_INT8);
   assert_int_equal(ad.NumChannels, 4);
   assert_int_equal(ad.Width, W);
   assert_int_equal(ad.Height, H);
   assert_int_equal(ad.Depth, 0);
   assert_int_equal(ad.Flags, CUDA_ARRAY3D_SURFACE_LDST);
   assert_int_equal(size, W * 4 * H);
   for (int y = 0; y < H; y++)
      assert_memory_equal(bytes + y * W * 4, sc.pattern + AT + y * PITCH, W * 4);
   /* What the kernel wrote through the surface is in dst's linear
    * memory: host -> linear -> array -> kernel -> array -> linear -> host. */
   check_inverted(&sc, sc.pattern);
   scene_fini(&sc);
}

static void test_copies_only_when_changed(void **state)
{
   (void)state;
   struct scene sc;
   scene_init(&sc, CL_R, CL_FLOAT, CL_MEM_OBJECT_IMAGE2D, KILN_SAMPLER_FILTER_NEAREST);
   assert_int_equal(sc.ctx->launch_grid(sc.ctx, &sc.g), CL_SUCCESS);
   assert_int_equal(finish(sc.ctx), PIPE_FENCE_SIGNALLED);
   /* src and dst to their arrays, dst back. */
   assert_int_equal(fake_cuda.array_copies, 3);
   /* Nothing changed src: a second launch copies only dst back (dst's
    * array is what the first launch wrote, so it is not copied in). */
   assert_int_equal(sc.ctx->launch_grid(sc.ctx, &sc.g), CL_SUCCESS);
   assert_int_equal(finish(sc.ctx), PIPE_FENCE_SIGNALLED);
   assert_int_equal(fake_cuda.array_copies, 4);
   /* The host writes src: the next launch sees the new texels. */
   unsigned char changed[BYTES];
   for (int i = 0; i < BYTES; i++)
      changed[i] = (unsigned char)(i * 13 + 1);
   size_t region[3] = {W * 4, H, 1};
   struct pipe_rect d = {.offset = AT, .row_pitch = PITCH};
   struct pipe_rect h = {.offset = 0, .row_pitch = PITCH};
   sc.ctx->buffer_write_rect(sc.ctx, sc.src, &d, changed + AT, &h, region);
   memcpy(sc.pattern + AT, changed + AT, BYTES - AT);
   /* dst's bytes outside its texels are the original pattern still. */
   unsigned char orig[BYTES];
   for (int i = 0; i < BYTES; i++)
      orig[i] = (unsigned char)(i * 7 + 3);
   assert_int_equal(sc.ctx->launch_grid(sc.ctx, &sc.g), CL_SUCCESS);
   assert_int_equal(finish(sc.ctx), PIPE_FENCE_SIGNALLED);
   assert_int_equal(fake_cuda.array_copies, 6);
   memcpy(sc.pattern, orig, sizeof(orig));
   check_inverted(&sc, changed);
   /* The array's format: one float channel. */
   CUarray array;
   assert_true(fake_cuda_tex_info(seen_src.tex[0], &array, NULL));
   CUDA_ARRAY3D_DESCRIPTOR ad;
   assert_non_null(fake_cuda_array_bytes(array, NULL, &ad));
   assert_int_equal(ad.Format, CU_AD_FORMAT_FLOAT);
   assert_int_equal(ad.NumChannels, 1);
   scene_fini(&sc);
}

/* Integer formats read as integers and never filter. */
static void test_integer_format(void **state)
{
   (void)state;
   struct scene sc;
   uint32_t bits = KILN_SAMPLER_ADDRESS_CLAMP_TO_EDGE | KILN_SAMPLER_FILTER_LINEAR;
   scene_init(&sc, CL_RG, CL_UNSIGNED_INT16, CL_MEM_OBJECT_IMAGE2D, bits);
   assert_int_equal(sc.ctx->launch_grid(sc.ctx, &sc.g), CL_SUCCESS);
   assert_int_equal(finish(sc.ctx), PIPE_FENCE_SIGNALLED);
   CUarray array;
   CUDA_TEXTURE_DESC t;
   assert_true(fake_cuda_tex_info(seen_src.tex[KILN_SAMPLER_INDEX(bits)], &array, &t));
   assert_int_equal(t.filterMode, CU_TR_FILTER_MODE_POINT);
   assert_int_equal(t.flags, CU_TRSF_READ_AS_INTEGER);
   assert_int_equal(t.addressMode[0], CU_TR_ADDRESS_MODE_CLAMP);
   CUDA_ARRAY3D_DESCRIPTOR ad;
   assert_non_null(fake_cuda_array_bytes(array, NULL, &ad));
   assert_int_equal(ad.Format, CU_AD_FORMAT_UNSIGNED_INT16);
   assert_int_equal(ad.NumChannels, 2);
   /* Without LINEAR the settings are the same: one object serves both. */
   assert_int_equal(seen_src.tex[KILN_SAMPLER_INDEX(bits)],
                    seen_src.tex[KILN_SAMPLER_INDEX(KILN_SAMPLER_ADDRESS_CLAMP_TO_EDGE)]);
   assert_int_equal(fake_cuda.tex_created, 6);
   check_inverted(&sc, sc.pattern);
   scene_fini(&sc);
}

/* Formats and types the texture units do not map exactly stay linear:
 * no array, no handles, the kernel works on the linear texels. */
static void expect_linear(cl_channel_order order, cl_channel_type type, cl_mem_object_type t)
{
   struct scene sc;
   unsigned arrays = fake_cuda.arrays_created;
   copy_via_linear = false;
   scene_init(&sc, order, type, t, KILN_SAMPLER_FILTER_NEAREST);
   assert_int_equal(sc.ctx->launch_grid(sc.ctx, &sc.g), CL_SUCCESS);
   assert_int_equal(finish(sc.ctx), PIPE_FENCE_SIGNALLED);
   assert_true(copy_via_linear);
   assert_int_equal(fake_cuda.arrays_created, arrays);
   assert_int_equal(seen_dst.surface, 0);
   for (unsigned i = 0; i < KILN_IMAGE_HW_SAMPLERS; i++)
      assert_int_equal(seen_src.tex[i], 0);
   check_inverted(&sc, sc.pattern);
   scene_fini(&sc);
}

static void test_linear_formats(void **state)
{
   (void)state;
   expect_linear(CL_BGRA, CL_UNORM_INT8, CL_MEM_OBJECT_IMAGE2D);
   expect_linear(CL_ARGB, CL_UNORM_INT8, CL_MEM_OBJECT_IMAGE2D);
   expect_linear(CL_INTENSITY, CL_FLOAT, CL_MEM_OBJECT_IMAGE2D);
   expect_linear(CL_LUMINANCE, CL_FLOAT, CL_MEM_OBJECT_IMAGE2D);
   expect_linear(CL_RGBA, CL_UNORM_INT_101010, CL_MEM_OBJECT_IMAGE2D);
   expect_linear(CL_RGBA, CL_UNORM_INT8, CL_MEM_OBJECT_IMAGE1D_BUFFER);
   assert_int_equal(fake_cuda.arrays_created, 0);
}

/* cuArray3DCreate out of memory: the image keeps its linear path (its
 * linear texels exist already), and the launch succeeds. */
static void test_array_out_of_memory(void **state)
{
   (void)state;
   fake_cuda_fail("cuArray3DCreate", CUDA_ERROR_OUT_OF_MEMORY);
   struct scene sc;
   scene_init(&sc, CL_RGBA, CL_FLOAT, CL_MEM_OBJECT_IMAGE2D, KILN_SAMPLER_FILTER_NEAREST);
   sc.dview.elem_size = sc.sview.elem_size = 16;
   sc.sview.width = sc.dview.width = 2;
   assert_int_equal(sc.ctx->launch_grid(sc.ctx, &sc.g), CL_SUCCESS);
   assert_int_equal(finish(sc.ctx), PIPE_FENCE_SIGNALLED);
   /* src got none; dst (the second) got one. */
   for (unsigned i = 0; i < KILN_IMAGE_HW_SAMPLERS; i++)
      assert_int_equal(seen_src.tex[i], 0);
   assert_int_not_equal(seen_dst.surface, 0);
   assert_int_equal(fake_cuda.arrays_created, 1);
   assert_true(copy_via_linear);
   check_inverted(&sc, sc.pattern);
   /* And it stays that way, without asking again. */
   assert_int_equal(sc.ctx->launch_grid(sc.ctx, &sc.g), CL_SUCCESS);
   assert_int_equal(finish(sc.ctx), PIPE_FENCE_SIGNALLED);
   assert_int_equal(fake_cuda.arrays_created, 1);
   assert_int_equal(seen_src.tex[0], 0);
   scene_fini(&sc);
}

/* Texture objects that cannot be made: no handles, the linear path. */
static void test_texture_object_failure(void **state)
{
   (void)state;
   struct scene sc;
   scene_init(&sc, CL_RGBA, CL_UNORM_INT8, CL_MEM_OBJECT_IMAGE2D, KILN_SAMPLER_FILTER_NEAREST);
   fake_cuda_fail("cuTexObjectCreate", CUDA_ERROR_OUT_OF_MEMORY);
   assert_int_equal(sc.ctx->launch_grid(sc.ctx, &sc.g), CL_SUCCESS);
   assert_int_equal(finish(sc.ctx), PIPE_FENCE_SIGNALLED);
   for (unsigned i = 0; i < KILN_IMAGE_HW_SAMPLERS; i++)
      assert_int_equal(seen_src.tex[i], 0);
   assert_true(copy_via_linear);
   check_inverted(&sc, sc.pattern);
   scene_fini(&sc);
}

/* 1D arrays keep a layer per row in linear memory; CUDA's layered 1D
 * array has no height.  2D arrays and 3D images copy slice by slice. */
static void test_array_geometry(void **state)
{
   (void)state;
   struct scene sc;
   scene_init(&sc, CL_RGBA, CL_UNORM_INT8, CL_MEM_OBJECT_IMAGE1D_ARRAY,
              KILN_SAMPLER_FILTER_NEAREST);
   copy_args[0].kind = copy_args[2].kind = KILN_ARG_IMAGE1D_ARRAY;
   assert_int_equal(sc.ctx->launch_grid(sc.ctx, &sc.g), CL_SUCCESS);
   assert_int_equal(finish(sc.ctx), PIPE_FENCE_SIGNALLED);
   CUarray array;
   assert_true(fake_cuda_tex_info(seen_src.tex[0], &array, NULL));
   CUDA_ARRAY3D_DESCRIPTOR ad;
   const unsigned char *bytes = fake_cuda_array_bytes(array, NULL, &ad);
   assert_int_equal(ad.Width, W);
   assert_int_equal(ad.Height, 0);
   assert_int_equal(ad.Depth, H);
   assert_int_equal(ad.Flags, CUDA_ARRAY3D_SURFACE_LDST | CUDA_ARRAY3D_LAYERED);
   for (int y = 0; y < H; y++)
      assert_memory_equal(bytes + y * W * 4, sc.pattern + AT + y * PITCH, W * 4);
   check_inverted(&sc, sc.pattern);
   scene_fini(&sc);

   /* A 2D array of 2 layers of 8x2, slices of 2 rows. */
   scene_init(&sc, CL_RGBA, CL_UNORM_INT8, CL_MEM_OBJECT_IMAGE2D_ARRAY,
              KILN_SAMPLER_FILTER_NEAREST);
   copy_args[0].kind = copy_args[2].kind = KILN_ARG_IMAGE2D_ARRAY;
   sc.sview.height = sc.dview.height = 2;
   sc.sview.depth = sc.dview.depth = 2;
   sc.sview.array_size = sc.dview.array_size = 2;
   sc.sview.slice_pitch = sc.dview.slice_pitch = 2 * PITCH;
   assert_int_equal(sc.ctx->launch_grid(sc.ctx, &sc.g), CL_SUCCESS);
   assert_int_equal(finish(sc.ctx), PIPE_FENCE_SIGNALLED);
   assert_true(fake_cuda_tex_info(seen_src.tex[0], &array, NULL));
   bytes = fake_cuda_array_bytes(array, NULL, &ad);
   assert_int_equal(ad.Height, 2);
   assert_int_equal(ad.Depth, 2);
   assert_int_equal(ad.Flags, CUDA_ARRAY3D_SURFACE_LDST | CUDA_ARRAY3D_LAYERED);
   for (int y = 0; y < H; y++)
      assert_memory_equal(bytes + y * W * 4, sc.pattern + AT + y * PITCH, W * 4);
   scene_fini(&sc);
   copy_args[0].kind = copy_args[2].kind = KILN_ARG_IMAGE2D;
}

/* The default (KILN_CUDA_IMAGES unset), and a libcuda without texture
 * objects: no arrays at all. */
static void test_linear_only(void **state)
{
   (void)state;
   struct scene sc;
   scene_init(&sc, CL_RGBA, CL_UNORM_INT8, CL_MEM_OBJECT_IMAGE2D, KILN_SAMPLER_FILTER_NEAREST);
   assert_int_equal(sc.ctx->launch_grid(sc.ctx, &sc.g), CL_SUCCESS);
   assert_int_equal(finish(sc.ctx), PIPE_FENCE_SIGNALLED);
   assert_true(copy_via_linear);
   assert_int_equal(fake_cuda.arrays_created, 0);
   assert_int_equal(seen_dst.surface, 0);
   check_inverted(&sc, sc.pattern);
   scene_fini(&sc);
}

int main(void)
{
   setenv("KILN_CUDA_IMAGES", "texture", 1);
   const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_texture_and_surface, setup, teardown),
      cmocka_unit_test_setup_teardown(test_copies_only_when_changed, setup, teardown),
      cmocka_unit_test_setup_teardown(test_integer_format, setup, teardown),
      cmocka_unit_test_setup_teardown(test_linear_formats, setup, teardown),
      cmocka_unit_test_setup_teardown(test_array_out_of_memory, setup, teardown),
      cmocka_unit_test_setup_teardown(test_texture_object_failure, setup, teardown),
      cmocka_unit_test_setup_teardown(test_array_geometry, setup, teardown),
      cmocka_unit_test_setup_teardown(test_linear_only, setup_env_linear, teardown),
      cmocka_unit_test_setup_teardown(test_linear_only, setup_no_images, teardown),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
