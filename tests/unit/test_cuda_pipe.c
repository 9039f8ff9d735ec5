/* The CUDA pipe driver (src/pipe/cuda) and its winsys over the fake
 * libcuda (fake_cuda.c): discovery and caps from device attributes,
 * device memory reached only through transfers, fills, rectangles,
 * fences and their device times, module loads and their JIT logs, the
 * kernel parameters a launch hands CUDA (cuda_abi.h), and failures:
 * out of memory at every allocation, launch errors, a kernel fault that
 * fails its fence and loses the device while another keeps working. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "fake_cuda.h"
#include "kiln/image.h"
#include "kiln/kernel_info.h"
#include "kiln/printf.h"
#include "pipe/cuda/cuda_abi.h"
#include "pipe/cuda/cuda_screen.h"
#include "util/log.h"

static struct pipe_screen *screens[4];
static unsigned num_screens;

static uint64_t now_ns(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void define_kernels(void);

static int setup_devices(unsigned n)
{
   fake_cuda_reset();
   for (unsigned i = 0; i < n; i++)
      fake_cuda_add_device(i ? "NVIDIA H100 PCIe" : FAKE_CUDA_H100);
   define_kernels();
   num_screens = cuda_screen_probe(screens, 4);
   return num_screens == n ? 0 : -1;
}

static int setup_none(void **state)
{
   (void)state;
   return setup_devices(0);
}

static int setup_one(void **state)
{
   (void)state;
   return setup_devices(1);
}

static int setup_two(void **state)
{
   (void)state;
   return setup_devices(2);
}

static int teardown(void **state)
{
   (void)state;
   for (unsigned i = 0; i < num_screens; i++)
      screens[i]->destroy(screens[i]);
   num_screens = 0;
   /* Everything the driver made, it released; no context left pushed;
    * no queued copy touched a freed staging buffer. */
   return fake_cuda_check_clean();
}

/* Flushes ctx and waits for the fence: its result. */
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

/* ---- kernels the fake "runs" ---- */

/* saxpy(float a, global float *x, global float *y) + hidden parameters. */
static const unsigned saxpy_params[] = {4, 8, 8, 8, 8, 8, 4};

static void run_saxpy(const struct fake_cuda_launch *l)
{
   float a;
   uint64_t x, y, offset;
   uint32_t dim;
   fake_cuda_param(l, 0, &a, 4);
   fake_cuda_param(l, 1, &x, 8);
   fake_cuda_param(l, 2, &y, 8);
   fake_cuda_param(l, 3, &offset, 8);
   fake_cuda_param(l, 6, &dim, 4);
   size_t n = (size_t)l->grid[0] * l->block[0];
   float *X = fake_cuda_ptr(x, (offset + n) * 4), *Y = fake_cuda_ptr(y, (offset + n) * 4);
   if (!X || !Y || dim != 1)
      return; /* the test sees y unchanged */
   for (size_t i = offset; i < offset + n; i++)
      Y[i] = a * X[i] + Y[i];
}

static struct kiln_arg_info saxpy_args[] = {
   {.kind = KILN_ARG_VALUE, .size = 4, .offset = 0},
   {.kind = KILN_ARG_GLOBAL, .size = 8, .offset = 8},
   {.kind = KILN_ARG_GLOBAL, .size = 8, .offset = 16},
};
static struct kiln_kernel_info saxpy_meta = {
   .name = "saxpy", .num_args = 3, .args = saxpy_args, .args_size = 24};

/* layout(global p, int v, local l1, global null, local l2, struct s12,
 * sampler s): every kind of argument, to check the parameters. */
static const unsigned layout_params[] = {8, 4, 4, 8, 4, 12, 4, 8, 8, 8, 4};
static struct kiln_arg_info layout_args[] = {
   {.kind = KILN_ARG_GLOBAL, .size = 8, .offset = 0},
   {.kind = KILN_ARG_VALUE, .size = 4, .offset = 8},
   {.kind = KILN_ARG_LOCAL, .size = 4, .offset = 12},
   {.kind = KILN_ARG_GLOBAL, .size = 8, .offset = 16},
   {.kind = KILN_ARG_LOCAL, .size = 4, .offset = 24},
   {.kind = KILN_ARG_VALUE, .size = 12, .offset = 28},
   {.kind = KILN_ARG_SAMPLER, .size = 4, .offset = 40},
};
static struct kiln_kernel_info layout_meta = {
   .name = "layout", .num_args = 7, .args = layout_args, .args_size = 44};

static const unsigned empty_params[] = {8, 8, 8, 4};
static struct kiln_kernel_info empty_meta = {.name = "empty", .num_args = 0, .args_size = 0};

/* img(image2d_t) + hidden parameters: what a kernel sees of an image
 * argument is the address of its descriptor in device memory. */
static const unsigned img_params[] = {8, 8, 8, 8, 4};
static struct kiln_arg_info img_args[] = {
   {.kind = KILN_ARG_IMAGE2D, .size = 8, .offset = 0},
};
static struct kiln_kernel_info img_meta = {
   .name = "img", .num_args = 1, .args = img_args, .args_size = 8};
static struct kiln_image_desc img_seen;
static uint64_t img_seen_address;
static uint32_t img_seen_texel;

static void run_img(const struct fake_cuda_launch *l)
{
   fake_cuda_param(l, 0, &img_seen_address, 8);
   const struct kiln_image_desc *d = fake_cuda_ptr(img_seen_address, sizeof(*d));
   if (!d)
      return;
   img_seen = *d;
   const uint32_t *texel = fake_cuda_ptr(d->data + d->row_pitch, 4); /* (0, 1) */
   img_seen_texel = texel ? *texel : 0;
}

static struct fake_cuda_kernel *layout_kernel, *bad_kernel;

static void define_kernels(void)
{
   fake_cuda_define_kernel("saxpy", 7, saxpy_params, run_saxpy);
   layout_kernel = fake_cuda_define_kernel("layout", 11, layout_params, NULL);
   layout_kernel->static_shared = 1024;
   layout_kernel->max_threads = 768;
   layout_kernel->local_bytes = 48;
   fake_cuda_define_kernel("empty", 4, empty_params, NULL);
   fake_cuda_define_kernel("img", 5, img_params, run_img);
   bad_kernel = fake_cuda_define_kernel("bad", 4, empty_params, NULL);
   bad_kernel->fault = CUDA_ERROR_ILLEGAL_ADDRESS;
}

static const char ptx[] = "//\n.version 8.0\n.target sm_90\n.address_size 64\n"
                          ".visible .entry saxpy(\n) {}\n.visible .entry layout(\n) {}\n"
                          ".visible .entry empty(\n) {}\n.visible .entry bad(\n) {}\n"
                          ".visible .entry img(\n) {}\n";

static void *load(struct pipe_screen *s, const char *name, void **program)
{
   char *error = NULL;
   /* Without the NUL: the driver must terminate the text itself. */
   *program = s->program_create(s, ptx, sizeof(ptx) - 1, &error);
   assert_non_null(*program);
   assert_null(error);
   void *k = s->get_kernel(s, *program, name, &error);
   assert_non_null(k);
   assert_null(error);
   return k;
}

/* ---- discovery and caps ---- */

static void test_discovery(void **state)
{
   (void)state;
   assert_int_equal(num_screens, 2);
   assert_string_equal(screens[0]->driver_name, "cuda");
   assert_string_equal(screens[0]->caps.name, FAKE_CUDA_H100);
   assert_string_equal(screens[1]->caps.name, "NVIDIA H100 PCIe");
   /* One primary context per device, retained once. */
   assert_int_equal(fake_cuda.devices[0].primary_refs, 1);
   assert_int_equal(fake_cuda.devices[1].primary_refs, 1);
   assert_int_equal(fake_cuda_ctx_depth(), 0);
}

static void test_caps(void **state)
{
   (void)state;
   const struct pipe_caps *c = &screens[0]->caps;
   assert_int_equal(c->type, CL_DEVICE_TYPE_GPU);
   assert_int_equal(c->vendor_id, 0x10de);
   assert_int_equal(c->max_compute_units, 132);
   assert_int_equal(c->max_clock_frequency, 1980);
   assert_string_equal(c->ir_target, "sm_90");
   assert_string_equal(c->ir, "nvptx");
   assert_true(c->compiler_available);
   /* The extensions the nvptx compiler builds, in both lists. */
   assert_non_null(strstr(c->extensions, "cl_khr_int64_base_atomics"));
   assert_non_null(strstr(c->clang_extensions, "+cl_khr_int64_base_atomics"));
   assert_non_null(strstr(c->extensions, "cl_khr_fp64"));
   assert_non_null(strstr(c->clang_extensions, "+cl_khr_fp64"));
   assert_int_equal(c->global_mem_size, 80ull << 30);
   assert_int_equal(c->max_mem_alloc_size, 20ull << 30);
   assert_int_equal(c->max_work_group_size, 1024);
   assert_int_equal(c->max_work_item_sizes[0], 1024);
   assert_int_equal(c->max_work_item_sizes[2], 64);
   assert_int_equal(c->local_mem_size, 232448);
   assert_int_equal(c->global_mem_cache_size, 52428800);
   assert_int_equal(c->max_constant_buffer_size, 65536);
   assert_true(c->error_correction);
   assert_false(c->host_unified_memory);
   /* Linear images through Kiln's image functions. */
   assert_true(c->image_support);
   assert_non_null(strstr(c->extensions, "cl_khr_3d_image_writes"));
   assert_int_equal(c->address_bits, 64);
   assert_non_null(strstr(c->extensions, "cl_khr_fp64"));
   assert_true(c->queue_properties & CL_QUEUE_PROFILING_ENABLE);

   /* Another GPU's own numbers, not a template: an Ada card without ECC
    * and with less opt-in shared memory. */
   for (unsigned i = 0; i < num_screens; i++)
      screens[i]->destroy(screens[i]);
   num_screens = 0;
   fake_cuda_reset();
   struct fake_cuda_device *d = fake_cuda_add_device("NVIDIA L4");
   fake_cuda_set_attr(d, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 58);
   fake_cuda_set_attr(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 8);
   fake_cuda_set_attr(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 9);
   fake_cuda_set_attr(d, CU_DEVICE_ATTRIBUTE_ECC_ENABLED, 0);
   fake_cuda_set_attr(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 101376);
   d->has_attr[CU_DEVICE_ATTRIBUTE_CLOCK_RATE] = false; /* CUDA 13 may drop it */
   d->total_mem = 24ull << 30;
   struct pipe_screen *l4;
   assert_int_equal(cuda_screen_probe(&l4, 1), 1);
   assert_int_equal(l4->caps.max_compute_units, 58);
   assert_string_equal(l4->caps.ir_target, "sm_89");
   assert_false(l4->caps.error_correction);
   assert_int_equal(l4->caps.local_mem_size, 101376);
   assert_int_equal(l4->caps.max_clock_frequency, 0);
   assert_int_equal(l4->caps.global_mem_size, 24ull << 30);
   assert_string_equal(l4->caps.ir, "nvptx");
   l4->destroy(l4);

   /* A Kepler (sm_35): no PTX from Kiln for it, so no compiler. */
   fake_cuda_reset();
   d = fake_cuda_add_device("Tesla K80");
   fake_cuda_set_attr(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 3);
   fake_cuda_set_attr(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 5);
   struct pipe_screen *k80;
   assert_int_equal(cuda_screen_probe(&k80, 1), 1);
   assert_string_equal(k80->caps.ir_target, "sm_35");
   assert_string_equal(k80->caps.ir, "");
   assert_false(k80->caps.compiler_available);
   k80->destroy(k80);
}

/* ---- memory and copies ---- */

static void test_buffers(void **state)
{
   (void)state;
   struct pipe_screen *s = screens[0];
   struct pipe_context *ctx = s->context_create(s);
   assert_non_null(ctx);
   struct pipe_resource *a = s->resource_create(s, 4096), *b = s->resource_create(s, 4096);
   assert_non_null(a);
   assert_non_null(b);
   assert_int_equal(fake_cuda_used(0), 8192);
   /* Device memory: the host never sees it directly. */
   assert_null(s->resource_host_pointer(s, a));
   assert_false(a->user_memory);

   unsigned char in[4096], out[4096];
   for (unsigned i = 0; i < sizeof(in); i++)
      in[i] = (unsigned char)(i * 7);
   ctx->buffer_write(ctx, a, 0, sizeof(in), in);
   ctx->resource_copy_region(ctx, b, 100, a, 200, 1000);
   memset(out, 0, sizeof(out));
   ctx->buffer_read(ctx, b, 100, 1000, out);
   assert_int_equal(finish(ctx), PIPE_FENCE_SIGNALLED);
   assert_memory_equal(out, in + 200, 1000);
   /* Nothing recorded since: no fence needed. */
   struct pipe_fence *f = (struct pipe_fence *)1;
   ctx->flush(ctx, &f);
   assert_null(f);

   s->resource_destroy(s, a);
   s->resource_destroy(s, b);
   ctx->destroy(ctx);
   assert_int_equal(fake_cuda_used(0), 0);
}

/* A thread with no context current: the first call leaves the device's
 * context current (depth 1: no push and pop around later calls); a call
 * for the second device pushes over it and pops back; destroying a
 * screen takes its context off the thread.  depth[]: after the first
 * device's first and second call, after the second device's call, after
 * the second device's call with the first device's context gone. */
static void *context_calls(void *arg)
{
   int *depth = arg;
   struct pipe_resource *a = screens[0]->resource_create(screens[0], 256);
   depth[0] = a ? fake_cuda_ctx_depth() : -1;
   struct pipe_resource *b = screens[0]->resource_create(screens[0], 256);
   depth[1] = b ? fake_cuda_ctx_depth() : -1;
   struct pipe_resource *c = screens[1]->resource_create(screens[1], 256);
   depth[2] = c ? fake_cuda_ctx_depth() : -1;
   depth[3] = fake_cuda_used(0) == 512 && fake_cuda_used(1) == 256;
   screens[0]->resource_destroy(screens[0], a);
   screens[0]->resource_destroy(screens[0], b);
   screens[1]->resource_destroy(screens[1], c);
   return NULL;
}

static void test_context_stays_current(void **state)
{
   (void)state;
   int depth[4] = {-2, -2, -2, -2};
   pthread_t t;
   assert_int_equal(pthread_create(&t, NULL, context_calls, depth), 0);
   assert_int_equal(pthread_join(t, NULL), 0);
   assert_int_equal(depth[0], 1);
   assert_int_equal(depth[1], 1);
   assert_int_equal(depth[2], 1);
   assert_int_equal(depth[3], 1);
   assert_int_equal(fake_cuda_used(0), 0);
   assert_int_equal(fake_cuda_used(1), 0);
   /* On this thread too; the teardown's screen_destroy takes it off
    * again (fake_cuda_check_clean asks depth 0). */
   struct pipe_resource *a = screens[1]->resource_create(screens[1], 256);
   assert_non_null(a);
   assert_int_equal(fake_cuda_ctx_depth(), 1);
   screens[1]->resource_destroy(screens[1], a);
}

static void test_fills(void **state)
{
   (void)state;
   struct pipe_screen *s = screens[0];
   struct pipe_context *ctx = s->context_create(s);
   struct pipe_resource *r = s->resource_create(s, 8192);
   unsigned char p128[128];
   for (unsigned i = 0; i < sizeof(p128); i++)
      p128[i] = (unsigned char)(i * 13 + 1);
   static const unsigned char zeros[32];
   static const unsigned char p2[2] = {0x12, 0x34}, p4[4] = {1, 2, 3, 4},
                              p8[8] = {9, 8, 7, 6, 5, 4, 3, 2};
   static const unsigned char p16[16] = {1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 3};
   const struct {
      const unsigned char *p;
      size_t size, offset, bytes;
   } fills[] = {
      {p128, 1, 3, 1},     {p2, 2, 64, 1000},  {p4, 4, 128, 4096},  {p8, 8, 8, 8},
      {p8, 8, 256, 4000},  {p16, 16, 32, 1600}, {zeros, 32, 64, 2048}, {p128, 128, 0, 128},
      {p128, 128, 1024, 128 * 37},
   };
   for (size_t t = 0; t < sizeof(fills) / sizeof(fills[0]); t++) {
      unsigned char before[8192], after[8192];
      ctx->buffer_read(ctx, r, 0, sizeof(before), before);
      assert_int_equal(finish(ctx), PIPE_FENCE_SIGNALLED);
      ctx->clear_buffer(ctx, r, fills[t].offset, fills[t].bytes, fills[t].p, fills[t].size);
      ctx->buffer_read(ctx, r, 0, sizeof(after), after);
      assert_int_equal(finish(ctx), PIPE_FENCE_SIGNALLED);
      for (size_t i = 0; i < sizeof(after); i++) {
         bool in = i >= fills[t].offset && i < fills[t].offset + fills[t].bytes;
         unsigned char want =
            in ? fills[t].p[(i - fills[t].offset) % fills[t].size] : before[i];
         if (after[i] != want)
            fail_msg("fill %zu: byte %zu is %u, not %u", t, i, after[i], want);
      }
   }
   s->resource_destroy(s, r);
   ctx->destroy(ctx);
}

/* The bytes a rectangle copy must give, done the slow way. */
static void rect_model(unsigned char *dst, const struct pipe_rect *d, const unsigned char *src,
                       const struct pipe_rect *sr, const size_t region[3])
{
   for (size_t z = 0; z < region[2]; z++)
      for (size_t y = 0; y < region[1]; y++)
         memcpy(dst + d->offset + y * d->row_pitch + z * d->slice_pitch,
                src + sr->offset + y * sr->row_pitch + z * sr->slice_pitch, region[0]);
}

static void check_rects(bool refuse_3d)
{
   struct pipe_screen *s = screens[0];
   struct pipe_context *ctx = s->context_create(s);
   struct pipe_resource *r = s->resource_create(s, 4096), *r2 = s->resource_create(s, 4096);
   unsigned char zero[4096] = {0}, host[4096], model[4096], model2[4096], out[4096];
   for (unsigned i = 0; i < sizeof(host); i++)
      host[i] = (unsigned char)(i * 31 + 5);
   ctx->buffer_write(ctx, r, 0, 4096, zero);
   ctx->buffer_write(ctx, r2, 0, 4096, zero);
   memset(model, 0, sizeof(model));
   memset(model2, 0, sizeof(model2));

   /* Slices that are not a whole number of rows on the device side, a
    * tight host side. */
   const size_t region[3] = {16, 4, 3};
   struct pipe_rect d = {100, 64, 64 * 5 + 16}, h = {0, 20, 20 * 4};
   if (refuse_3d)
      fake_cuda_fail("cuMemcpy3DAsync", CUDA_ERROR_INVALID_VALUE);
   ctx->buffer_write_rect(ctx, r, &d, host, &h, region);
   rect_model(model, &d, host, &h, region);

   /* Device to device, whole rows of a 2D region. */
   const size_t region2[3] = {40, 5, 1};
   struct pipe_rect from = {64, 64, 0}, to = {3, 48, 0};
   if (refuse_3d)
      fake_cuda_fail("cuMemcpy3DAsync", CUDA_ERROR_INVALID_VALUE);
   ctx->resource_copy_rect(ctx, r2, &to, r, &from, region2);

   /* Read back a 3D box whose slices are whole rows. */
   const size_t region3[3] = {8, 2, 2};
   struct pipe_rect sbox = {164, 64, 128}, hbox = {0, 8, 16};
   unsigned char box[64] = {0}, box_model[64] = {0};
   if (refuse_3d)
      fake_cuda_fail("cuMemcpy3DAsync", CUDA_ERROR_INVALID_VALUE);
   ctx->buffer_read_rect(ctx, r, &sbox, box, &hbox, region3);

   ctx->buffer_read(ctx, r, 0, 4096, out);
   assert_int_equal(finish(ctx), PIPE_FENCE_SIGNALLED);
   assert_memory_equal(out, model, 4096);
   rect_model(model2, &to, model, &from, region2);
   rect_model(box_model, &hbox, model, &sbox, region3);
   assert_memory_equal(box, box_model, sizeof(box));
   ctx->buffer_read(ctx, r2, 0, 4096, out);
   assert_int_equal(finish(ctx), PIPE_FENCE_SIGNALLED);
   assert_memory_equal(out, model2, 4096);
   s->resource_destroy(s, r);
   s->resource_destroy(s, r2);
   ctx->destroy(ctx);
}

static void test_rects(void **state)
{
   (void)state;
   check_rects(false);
}

static void test_rects_row_fallback(void **state)
{
   (void)state;
   /* CUDA refusing a geometry (cuMemcpy3D's pitch rules) is no error:
    * the driver copies row by row. */
   check_rects(true);
}

static void test_transfers(void **state)
{
   (void)state;
   struct pipe_screen *s = screens[0];
   struct pipe_context *ctx = s->context_create(s);
   struct pipe_resource *r = s->resource_create(s, 1 << 20);
   static unsigned char in[1 << 20];
   for (unsigned i = 0; i < sizeof(in); i++)
      in[i] = (unsigned char)(i ^ (i >> 8));
   ctx->buffer_write(ctx, r, 0, sizeof(in), in);

   /* READ waits for the write and shows the bytes. */
   struct pipe_transfer *t;
   unsigned char *p = ctx->transfer_map(ctx, r, 4096, 8192, PIPE_MAP_READ, &t);
   assert_non_null(p);
   assert_memory_equal(p, in + 4096, 8192);
   ctx->transfer_unmap(ctx, t);

   /* The staging buffer is kept: a second map pins nothing new. */
   unsigned allocs = fake_cuda.allocs;
   p = ctx->transfer_map(ctx, r, 0, 100, PIPE_MAP_WRITE | PIPE_MAP_DISCARD, &t);
   assert_non_null(p);
   assert_int_equal(fake_cuda.allocs, allocs);
   memset(p, 0xab, 100);
   ctx->transfer_unmap(ctx, t);

   /* WRITE without DISCARD: what the host leaves alone keeps its bytes. */
   p = ctx->transfer_map(ctx, r, 1000, 50, PIPE_MAP_WRITE, &t);
   p[0] = 0x77;
   ctx->transfer_unmap(ctx, t);

   /* Two maps at once: the second gets a buffer of its own. */
   struct pipe_transfer *t2;
   unsigned char *p1 = ctx->transfer_map(ctx, r, 0, 16, PIPE_MAP_READ, &t);
   unsigned char *p2 = ctx->transfer_map(ctx, r, 16, 16, PIPE_MAP_READ | PIPE_MAP_WRITE, &t2);
   assert_ptr_not_equal(p1, p2);
   p2[0] = 0x55;
   ctx->transfer_unmap(ctx, t2);
   ctx->transfer_unmap(ctx, t);

   static unsigned char out[1 << 20], want[1 << 20];
   memcpy(want, in, sizeof(want));
   memset(want, 0xab, 100);
   want[1000] = 0x77;
   want[16] = 0x55;
   ctx->buffer_read(ctx, r, 0, sizeof(out), out);
   assert_int_equal(finish(ctx), PIPE_FENCE_SIGNALLED);
   assert_memory_equal(out, want, sizeof(out));
   s->resource_destroy(s, r);
   ctx->destroy(ctx);
}

static void test_user_memory(void **state)
{
   (void)state;
   struct pipe_screen *s = screens[0];
   struct pipe_context *ctx = s->context_create(s);
   unsigned char *host = aligned_alloc(4096, 65536);
   memset(host, 1, 65536);
   struct pipe_resource *u = s->resource_from_user_memory(s, host, 65536);
   assert_non_null(u);
   assert_true(u->user_memory);
   assert_ptr_equal(s->resource_host_pointer(s, u), host);
   /* The same pages again: CUDA refuses, core will keep a copy. */
   assert_null(s->resource_from_user_memory(s, host + 4096, 4096));

   /* Device work on it lands in the host's pages. */
   struct pipe_resource *d = s->resource_create(s, 4096);
   unsigned char pattern = 0x3c;
   ctx->clear_buffer(ctx, d, 0, 4096, &pattern, 1);
   ctx->resource_copy_region(ctx, u, 8192, d, 0, 4096);
   struct pipe_transfer *t;
   unsigned char *p = ctx->transfer_map(ctx, u, 8192, 4096, PIPE_MAP_READ, &t);
   assert_ptr_equal(p, host + 8192); /* mapped in place */
   assert_int_equal(p[0], 0x3c);
   assert_int_equal(p[4095], 0x3c);
   assert_int_equal(host[8191], 1);
   ctx->transfer_unmap(ctx, t);
   assert_int_equal(finish(ctx), PIPE_FENCE_SIGNALLED);
   s->resource_destroy(s, d);
   s->resource_destroy(s, u);
   ctx->destroy(ctx);
   free(host);
}

/* ---- fences ---- */

/* Registered user memory released while a copy from its pages is still
 * queued on a stream (core may drop an object's last reference on one
 * queue's thread while another queue copies from the same pages): the
 * copy runs before the pages are unregistered.  On real GPUs the other
 * order faulted the context (CUDA_ERROR_LAUNCH_FAILED, exec_images12_api). */
static void test_unregister_under_copy(void **state)
{
   (void)state;
   struct pipe_screen *s = screens[0];
   struct pipe_context *ctx = s->context_create(s);
   unsigned char *host = aligned_alloc(4096, 65536);
   memset(host, 7, 65536);
   struct pipe_resource *u = s->resource_from_user_memory(s, host, 65536);
   struct pipe_resource *d = s->resource_create(s, 65536);
   assert_non_null(u);
   assert_non_null(d);
   ctx->buffer_write(ctx, d, 0, 65536, host); /* queued, not yet run */
   s->resource_destroy(s, u);                  /* pages unregistered */
   assert_int_equal(finish(ctx), PIPE_FENCE_SIGNALLED);
   assert_int_equal(fake_cuda.use_after_free, 0);
   unsigned char back[16];
   ctx->buffer_read(ctx, d, 65536 - 16, 16, back);
   assert_int_equal(finish(ctx), PIPE_FENCE_SIGNALLED);
   assert_int_equal(back[15], 7);
   s->resource_destroy(s, d);
   ctx->destroy(ctx);
   free(host);
}

static void test_fence_wait(void **state)
{
   (void)state;
   struct pipe_screen *s = screens[0];
   struct pipe_context *ctx = s->context_create(s);
   struct pipe_resource *r = s->resource_create(s, 64);
   unsigned char v = 9;
   fake_cuda.hold = true; /* the GPU is busy */
   ctx->clear_buffer(ctx, r, 0, 64, &v, 1);
   struct pipe_fence *f;
   ctx->flush(ctx, &f);
   assert_non_null(f);
   assert_int_equal(s->fence_wait(s, f, 0), PIPE_FENCE_BUSY);
   uint64_t t0 = now_ns();
   assert_int_equal(s->fence_wait(s, f, 3000000), PIPE_FENCE_BUSY);
   assert_true(now_ns() - t0 >= 3000000); /* it did wait out the timeout */
   fake_cuda.hold = false;
   assert_int_equal(s->fence_wait(s, f, 1000000000), PIPE_FENCE_SIGNALLED);
   assert_int_equal(s->fence_wait(s, f, 0), PIPE_FENCE_SIGNALLED);
   s->fence_destroy(s, f);

   /* A flush with nothing new still fences the work in flight: core
    * orders the queue's next command behind it. */
   fake_cuda.hold = true;
   ctx->clear_buffer(ctx, r, 0, 64, &v, 1);
   struct pipe_fence *busy, *again;
   ctx->flush(ctx, &busy);
   ctx->flush(ctx, &again);
   assert_non_null(again);
   assert_int_equal(s->fence_wait(s, again, 0), PIPE_FENCE_BUSY);
   fake_cuda.hold = false;
   assert_int_equal(s->fence_wait(s, again, PIPE_TIMEOUT_INFINITE), PIPE_FENCE_SIGNALLED);
   s->fence_destroy(s, again);
   s->fence_destroy(s, busy);
   /* Once the stream is idle there is nothing to wait for. */
   ctx->flush(ctx, &again);
   assert_null(again);

   /* Two contexts (queues) are two streams, fenced separately. */
   struct pipe_context *ctx2 = s->context_create(s);
   fake_cuda.hold = true;
   ctx->clear_buffer(ctx, r, 0, 64, &v, 1);
   struct pipe_fence *f1, *f2;
   ctx->flush(ctx, &f1);
   ctx2->clear_buffer(ctx2, r, 0, 64, &v, 1);
   ctx2->flush(ctx2, &f2);
   assert_int_equal(s->fence_wait(s, f2, 0), PIPE_FENCE_BUSY);
   fake_cuda.hold = false;
   assert_int_equal(s->fence_wait(s, f2, PIPE_TIMEOUT_INFINITE), PIPE_FENCE_SIGNALLED);
   assert_int_equal(s->fence_wait(s, f1, PIPE_TIMEOUT_INFINITE), PIPE_FENCE_SIGNALLED);
   s->fence_destroy(s, f1);
   s->fence_destroy(s, f2);
   ctx2->destroy(ctx2);
   s->resource_destroy(s, r);
   ctx->destroy(ctx);
}

static void test_fence_times(void **state)
{
   (void)state;
   struct pipe_screen *s = screens[0];
   struct pipe_context *ctx = s->context_create(s);
   void *program, *k = load(s, "empty", &program);
   fake_cuda.launch_ns = 2000000; /* 2 ms on the device */
   struct pipe_grid_info g = {.kernel = k, .work_dim = 1, .global_size = {64, 1, 1},
                              .local_size = {64, 1, 1}, .info = &empty_meta};
   uint64_t before = now_ns();
   assert_int_equal(ctx->launch_grid(ctx, &g), CL_SUCCESS);
   struct pipe_fence *f;
   ctx->flush(ctx, &f);
   uint64_t start, end;
   assert_false(s->fence_times(s, f, &start, &end)); /* not signalled yet */
   assert_int_equal(s->fence_wait(s, f, PIPE_TIMEOUT_INFINITE), PIPE_FENCE_SIGNALLED);
   uint64_t after = now_ns();
   assert_true(s->fence_times(s, f, &start, &end));
   /* On the host's clock (the fake's device clock is 7 s off it), around
    * the 2 ms launch; cuEventElapsedTime's float and the calibration's
    * midpoint cost a few microseconds. */
   const uint64_t slack = 100000;
   assert_true(start + slack >= before);
   assert_true(end <= after + slack);
   assert_true(end - start >= 1990000);
   assert_true(end - start <= after - before + slack);
   s->fence_destroy(s, f);
   s->program_destroy(s, program);
   ctx->destroy(ctx);
}

/* ---- programs and launches ---- */

static void test_module_load_failure(void **state)
{
   (void)state;
   struct pipe_screen *s = screens[0];
   fake_cuda.module_error = CUDA_ERROR_INVALID_PTX;
   fake_cuda.jit_log = "ptxas application ptx input, line 9; error   : Unknown symbol 'foo'";
   char *error = NULL;
   assert_null(s->program_create(s, ptx, sizeof(ptx) - 1, &error));
   assert_non_null(error);
   assert_non_null(strstr(error, "CUDA_ERROR_INVALID_PTX"));
   assert_non_null(strstr(error, "line 9; error   : Unknown symbol 'foo'"));
   free(error);

   /* No log from the JIT: the error still says what CUDA said. */
   fake_cuda.jit_log = NULL;
   fake_cuda.module_error = CUDA_ERROR_NO_BINARY_FOR_GPU;
   error = NULL;
   assert_null(s->program_create(s, ptx, sizeof(ptx) - 1, &error));
   assert_non_null(error);
   assert_non_null(strstr(error, "cuModuleLoadDataEx"));
   free(error);

   /* A kernel the module lacks. */
   fake_cuda.module_error = CUDA_SUCCESS;
   void *program = s->program_create(s, ptx, sizeof(ptx) - 1, &error);
   assert_non_null(program);
   assert_null(s->get_kernel(s, program, "nope", &error));
   assert_non_null(error);
   assert_non_null(strstr(error, "nope"));
   free(error);
   s->program_destroy(s, program);
}

static void test_kernel_info(void **state)
{
   (void)state;
   struct pipe_screen *s = screens[0];
   void *program, *k = load(s, "layout", &program);
   struct pipe_kernel_info ki;
   s->get_kernel_info(s, k, &layout_meta, &ki);
   assert_int_equal(ki.max_work_group_size, 768); /* registers limit it */
   assert_int_equal(ki.preferred_work_group_size_multiple, 32);
   assert_int_equal(ki.private_mem_size, 48);
   assert_int_equal(ki.static_local_mem_size, 1024);
   s->program_destroy(s, program);
}

static void test_saxpy(void **state)
{
   (void)state;
   struct pipe_screen *s = screens[0];
   struct pipe_context *ctx = s->context_create(s);
   void *program, *k = load(s, "saxpy", &program);
   enum { N = 1024 };
   float x[N], y[N], out[N];
   for (int i = 0; i < N; i++) {
      x[i] = (float)i;
      y[i] = 1.0f;
   }
   struct pipe_resource *rx = s->resource_create(s, sizeof(x));
   struct pipe_resource *ry = s->resource_create(s, sizeof(y) + 256);
   ctx->buffer_write(ctx, rx, 0, sizeof(x), x);
   ctx->buffer_write(ctx, ry, 256, sizeof(y), y);
   unsigned char args[24] = {0};
   float a = 2.0f;
   memcpy(args, &a, 4);
   struct pipe_binding b[2] = {
      {.arg = 1, .kind = PIPE_BIND_GLOBAL, .res = rx, .offset = 0},
      {.arg = 2, .kind = PIPE_BIND_GLOBAL, .res = ry, .offset = 256},
   };
   /* The second half of the range, through the global offset. */
   struct pipe_grid_info g = {.kernel = k, .work_dim = 1, .global_offset = {N / 2, 0, 0},
                              .global_size = {N / 2, 1, 1}, .local_size = {128, 1, 1},
                              .args = args, .args_size = sizeof(args), .info = &saxpy_meta,
                              .bindings = b, .num_bindings = 2};
   assert_int_equal(ctx->launch_grid(ctx, &g), CL_SUCCESS);
   ctx->buffer_read(ctx, ry, 256, sizeof(out), out);
   assert_int_equal(finish(ctx), PIPE_FENCE_SIGNALLED);
   for (int i = 0; i < N; i++)
      assert_true(out[i] == (i < N / 2 ? 1.0f : 2.0f * (float)i + 1.0f));
   s->resource_destroy(s, rx);
   s->resource_destroy(s, ry);
   s->program_destroy(s, program);
   ctx->destroy(ctx);
}

/* Small reads go through the context's pinned staging buffer and wait
 * for the work before them, so the flush after one needs no fence (no
 * CUDA event); a timed context, a failed copy and a large read still get
 * one, and a read while a map holds the staging buffer reads directly. */
static void test_staged_read(void **state)
{
   (void)state;
   struct pipe_screen *s = screens[0];
   struct pipe_context *ctx = s->context_create(s);
   ctx->timed = false; /* as core sets it for a queue without profiling */
   void *program, *k = load(s, "saxpy", &program);
   enum { N = 4096, BIG = (512 << 10) };
   static float x[N], y[N], out[N];
   for (int i = 0; i < N; i++) {
      x[i] = (float)i;
      y[i] = 1.0f;
   }
   struct pipe_resource *rx = s->resource_create(s, sizeof(x));
   struct pipe_resource *ry = s->resource_create(s, BIG);
   ctx->buffer_write(ctx, rx, 0, sizeof(x), x);
   ctx->buffer_write(ctx, ry, 0, sizeof(y), y);
   assert_int_equal(finish(ctx), PIPE_FENCE_SIGNALLED);
   unsigned char args[24] = {0};
   float a = 2.0f;
   memcpy(args, &a, 4);
   struct pipe_binding b[2] = {
      {.arg = 1, .kind = PIPE_BIND_GLOBAL, .res = rx},
      {.arg = 2, .kind = PIPE_BIND_GLOBAL, .res = ry},
   };
   struct pipe_grid_info g = {.kernel = k, .work_dim = 1, .global_size = {N, 1, 1},
                              .local_size = {128, 1, 1}, .args = args,
                              .args_size = sizeof(args), .info = &saxpy_meta,
                              .bindings = b, .num_bindings = 2};
   /* The device makes no progress of its own: only the read's wait runs
    * the launch. */
   fake_cuda.hold = true;
   assert_int_equal(ctx->launch_grid(ctx, &g), CL_SUCCESS);
   unsigned records = fake_cuda.event_records;
   ctx->buffer_read(ctx, ry, 0, sizeof(out), out);
   for (int i = 0; i < N; i++)
      assert_true(out[i] == 2.0f * (float)i + 1.0f);
   struct pipe_fence *f = (struct pipe_fence *)1;
   ctx->flush(ctx, &f);
   assert_null(f);
   assert_int_equal(fake_cuda.event_records, records);

   /* A timed context's fence carries the device times: it stays. */
   ctx->timed = true;
   assert_int_equal(ctx->launch_grid(ctx, &g), CL_SUCCESS);
   ctx->buffer_read(ctx, ry, 0, sizeof(out), out);
   ctx->flush(ctx, &f);
   assert_non_null(f);
   assert_int_equal(s->fence_wait(s, f, PIPE_TIMEOUT_INFINITE), PIPE_FENCE_SIGNALLED);
   uint64_t t0, t1;
   assert_true(s->fence_times(s, f, &t0, &t1));
   s->fence_destroy(s, f);
   ctx->timed = false;

   /* A copy that fails fails the fence of its flush. */
   fake_cuda_fail("cuMemcpyDtoHAsync", CUDA_ERROR_INVALID_VALUE);
   ctx->buffer_read(ctx, ry, 0, 64, out);
   assert_int_equal(finish(ctx), CL_OUT_OF_RESOURCES);

   /* Larger reads go straight to the host memory, behind a fence. */
   static unsigned char big[BIG];
   assert_int_equal(ctx->launch_grid(ctx, &g), CL_SUCCESS);
   ctx->buffer_read(ctx, ry, 0, BIG, big);
   ctx->flush(ctx, &f);
   assert_non_null(f);
   assert_int_equal(s->fence_wait(s, f, PIPE_TIMEOUT_INFINITE), PIPE_FENCE_SIGNALLED);
   s->fence_destroy(s, f);
   memcpy(out, big, sizeof(out));
   for (int i = 0; i < N; i++)
      assert_true(out[i] == 3.0f * 2.0f * (float)i + 1.0f);

   /* A map holds the staging buffer: a small read meanwhile is direct,
    * and the map's bytes stay the map's. */
   struct pipe_transfer *t;
   float *m = ctx->transfer_map(ctx, ry, 0, 16, PIPE_MAP_READ | PIPE_MAP_WRITE, &t);
   assert_non_null(m);
   m[0] = -1.0f;
   float second[4];
   ctx->buffer_read(ctx, ry, 16, sizeof(second), second);
   assert_int_equal(finish(ctx), PIPE_FENCE_SIGNALLED);
   assert_true(second[0] == 3.0f * 2.0f * 4.0f + 1.0f);
   assert_true(m[0] == -1.0f);
   ctx->transfer_unmap(ctx, t);
   ctx->buffer_read(ctx, ry, 0, 4, second);
   assert_int_equal(finish(ctx), PIPE_FENCE_SIGNALLED);
   assert_true(second[0] == -1.0f);
   fake_cuda.hold = false;

   s->resource_destroy(s, rx);
   s->resource_destroy(s, ry);
   s->program_destroy(s, program);
   ctx->destroy(ctx);
}

static void test_image_binding(void **state)
{
   (void)state;
   struct pipe_screen *s = screens[0];
   assert_true(s->caps.image_support);
   struct pipe_context *ctx = s->context_create(s);
   void *program, *k = load(s, "img", &program);
   size_t used = fake_cuda_used(0);
   struct pipe_resource *r = s->resource_create(s, 4096);
   uint32_t pattern[1024];
   for (int i = 0; i < 1024; i++)
      pattern[i] = 0x01000000u + (uint32_t)i;
   ctx->buffer_write(ctx, r, 0, sizeof(pattern), pattern);
   struct pipe_image_view view = {
      .type = CL_MEM_OBJECT_IMAGE2D, .format = {CL_RGBA, CL_UNORM_INT8}, .elem_size = 4,
      .width = 8, .height = 4, .depth = 1, .row_pitch = 64};
   unsigned char args[8] = {0};
   struct pipe_binding b = {.arg = 0, .kind = PIPE_BIND_IMAGE, .res = r, .offset = 256,
                            .image = &view};
   struct pipe_grid_info g = {.kernel = k, .work_dim = 1, .global_size = {1, 1, 1},
                              .local_size = {1, 1, 1}, .args = args, .args_size = sizeof(args),
                              .info = &img_meta, .bindings = &b, .num_bindings = 1};
   uint64_t first = 0;
   for (int i = 0; i < 2; i++) {
      memset(&img_seen, 0, sizeof(img_seen));
      assert_int_equal(ctx->launch_grid(ctx, &g), CL_SUCCESS);
      assert_int_equal(finish(ctx), PIPE_FENCE_SIGNALLED);
      assert_int_equal(img_seen.width, 8);
      assert_int_equal(img_seen.height, 4);
      assert_int_equal(img_seen.depth, 1);
      assert_int_equal(img_seen.row_pitch, 64);
      assert_int_equal(img_seen.slice_pitch, 0);
      assert_int_equal(img_seen.channel_order, CL_RGBA);
      assert_int_equal(img_seen.channel_type, CL_UNORM_INT8);
      assert_int_equal(img_seen.elem_size, 4);
      /* Texel (0, 1): 256 + 64 bytes into the buffer. */
      assert_int_equal(img_seen_texel, pattern[(256 + 64) / 4]);
      if (!i)
         first = img_seen_address;
   }
   /* The descriptor was written once and is reused. */
   assert_int_equal(img_seen_address, first);
   size_t with_one = fake_cuda_used(0);
   /* Another view of the same memory gets its own. */
   view.width = 4;
   assert_int_equal(ctx->launch_grid(ctx, &g), CL_SUCCESS);
   assert_int_equal(finish(ctx), PIPE_FENCE_SIGNALLED);
   assert_int_equal(img_seen.width, 4);
   assert_int_not_equal(img_seen_address, first);
   assert_true(fake_cuda_used(0) > with_one);
   /* A failed descriptor allocation fails the launch, nothing leaks. */
   view.width = 2;
   fake_cuda_fail("cuMemAlloc", CUDA_ERROR_OUT_OF_MEMORY);
   assert_int_equal(ctx->launch_grid(ctx, &g), CL_MEM_OBJECT_ALLOCATION_FAILURE);
   /* The descriptors go with the resource. */
   s->resource_destroy(s, r);
   assert_int_equal(fake_cuda_used(0), used);
   s->program_destroy(s, program);
   ctx->destroy(ctx);
}

static void test_launch_parameters(void **state)
{
   (void)state;
   struct pipe_screen *s = screens[0];
   struct pipe_context *ctx = s->context_create(s);
   void *program, *k = load(s, "layout", &program);
   struct pipe_resource *r = s->resource_create(s, 4096);
   unsigned char args[44];
   memset(args, 0xee, sizeof(args));
   int32_t v = -5;
   memcpy(args + 8, &v, 4);
   const unsigned char st[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
   memcpy(args + 28, st, 12);
   unsigned char core_copy[44];
   memcpy(core_copy, args, sizeof(args));
   struct pipe_binding b[] = {
      {.arg = 0, .kind = PIPE_BIND_GLOBAL, .res = r, .offset = 256},
      {.arg = 2, .kind = PIPE_BIND_LOCAL, .local_size = 100},
      {.arg = 3, .kind = PIPE_BIND_GLOBAL, .res = NULL},
      {.arg = 4, .kind = PIPE_BIND_LOCAL, .local_size = 64},
      {.arg = 6, .kind = PIPE_BIND_SAMPLER, .sampler_bits = 0x12},
   };
   struct pipe_grid_info g = {.kernel = k, .work_dim = 2, .global_offset = {5, 7, 0},
                              .global_size = {64, 32, 1}, .local_size = {16, 8, 1},
                              .args = args, .args_size = sizeof(args), .info = &layout_meta,
                              .bindings = b, .num_bindings = 5};
   unsigned launches = fake_cuda.num_launches;
   assert_int_equal(ctx->launch_grid(ctx, &g), CL_SUCCESS);
   assert_int_equal(fake_cuda.num_launches, launches + 1);
   /* Core's buffer is core's: the driver wrote into its own copy. */
   assert_memory_equal(args, core_copy, sizeof(args));

   const struct fake_cuda_launch *l = &fake_cuda.launches[launches % FAKE_CUDA_MAX_LAUNCHES];
   assert_int_equal(l->grid[0], 4);
   assert_int_equal(l->grid[1], 4);
   assert_int_equal(l->grid[2], 1);
   assert_int_equal(l->block[0], 16);
   assert_int_equal(l->block[1], 8);
   assert_int_equal(l->block[2], 1);
   /* __local 100 bytes at 0, 64 at 128 (128-aligned, for a long16 or
    * double16 pointee): 192 of dynamic shared memory; the static 1 KiB is
    * CUDA's to add. */
   assert_int_equal(l->shared_bytes, 192);
   uint64_t p64;
   uint32_t p32;
   fake_cuda_param(l, 0, &p64, 8);
   assert_true(p64 == 0x100000000000ull + 256); /* the fake's first allocation + offset */
   int32_t pv;
   fake_cuda_param(l, 1, &pv, 4);
   assert_int_equal(pv, -5);
   fake_cuda_param(l, 2, &p32, 4);
   assert_int_equal(p32, 0);
   fake_cuda_param(l, 3, &p64, 8);
   assert_true(p64 == 0);
   fake_cuda_param(l, 4, &p32, 4);
   assert_int_equal(p32, 128);
   unsigned char pst[12];
   fake_cuda_param(l, 5, pst, 12);
   assert_memory_equal(pst, st, 12);
   fake_cuda_param(l, 6, &p32, 4);
   assert_int_equal(p32, 0x12);
   /* Hidden: global offset x, y, z and work_dim. */
   fake_cuda_param(l, 7, &p64, 8);
   assert_true(p64 == 5);
   fake_cuda_param(l, 8, &p64, 8);
   assert_true(p64 == 7);
   fake_cuda_param(l, 9, &p64, 8);
   assert_true(p64 == 0);
   fake_cuda_param(l, 10, &p32, 4);
   assert_int_equal(p32, 2);
   assert_int_equal(l->max_dynamic_shared, 49152 - 1024); /* no opt-in needed */

   /* 60 KB of __local: past the default, the kernel opts in (the second
    * argument at the next 128-byte boundary, 60032). */
   struct pipe_binding big[] = {{.arg = 2, .kind = PIPE_BIND_LOCAL, .local_size = 60001},
                                {.arg = 4, .kind = PIPE_BIND_LOCAL, .local_size = 4}};
   g.bindings = big;
   g.num_bindings = 2;
   assert_int_equal(ctx->launch_grid(ctx, &g), CL_SUCCESS);
   l = &fake_cuda.launches[(fake_cuda.num_launches - 1) % FAKE_CUDA_MAX_LAUNCHES];
   assert_int_equal(l->shared_bytes, 60032 + 4);
   assert_int_equal(l->max_dynamic_shared, 232448 - 1024);
   /* Past the opt-in maximum: refused before CUDA sees it. */
   big[0].local_size = 232448;
   launches = fake_cuda.num_launches;
   assert_int_equal(ctx->launch_grid(ctx, &g), CL_OUT_OF_RESOURCES);
   assert_int_equal(fake_cuda.num_launches, launches);

   /* A grid beyond CUDA's 65535 blocks in y. */
   g.bindings = b;
   g.num_bindings = 5;
   g.global_size[1] = 8ull * 70000;
   assert_int_equal(ctx->launch_grid(ctx, &g), CL_OUT_OF_RESOURCES);
   assert_int_equal(fake_cuda.num_launches, launches);

   assert_int_equal(finish(ctx), PIPE_FENCE_SIGNALLED);
   s->resource_destroy(s, r);
   s->program_destroy(s, program);
   ctx->destroy(ctx);
}

static void test_launch_error(void **state)
{
   (void)state;
   struct pipe_screen *s = screens[0];
   struct pipe_context *ctx = s->context_create(s);
   void *program, *k = load(s, "empty", &program);
   struct pipe_grid_info g = {.kernel = k, .work_dim = 1, .global_size = {256, 1, 1},
                              .local_size = {256, 1, 1}, .info = &empty_meta};
   /* Too many registers for the block: CUDA refuses this launch only. */
   fake_cuda_fail("cuLaunchKernel", CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
   assert_int_equal(ctx->launch_grid(ctx, &g), CL_OUT_OF_RESOURCES);
   assert_int_equal(ctx->launch_grid(ctx, &g), CL_SUCCESS);
   assert_int_equal(finish(ctx), PIPE_FENCE_SIGNALLED);

   /* A copy CUDA refused while recording fails the fence of its flush,
    * and only that one. */
   struct pipe_resource *r = s->resource_create(s, 64);
   fake_cuda_fail("cuMemcpyDtoDAsync", CUDA_ERROR_INVALID_VALUE);
   ctx->resource_copy_region(ctx, r, 0, r, 32, 32);
   assert_int_equal(finish(ctx), CL_OUT_OF_RESOURCES);
   ctx->resource_copy_region(ctx, r, 0, r, 32, 32);
   assert_int_equal(finish(ctx), PIPE_FENCE_SIGNALLED);
   s->resource_destroy(s, r);
   s->program_destroy(s, program);
   ctx->destroy(ctx);
}

static void test_illegal_address(void **state)
{
   (void)state;
   struct pipe_screen *s0 = screens[0], *s1 = screens[1];
   struct pipe_context *c0 = s0->context_create(s0), *c0b = s0->context_create(s0);
   struct pipe_context *c1 = s1->context_create(s1);
   struct pipe_resource *r0 = s0->resource_create(s0, 256), *r1 = s1->resource_create(s1, 256);
   void *program, *k = load(s0, "bad", &program);
   unsigned char v = 1;
   c0b->clear_buffer(c0b, r0, 0, 256, &v, 1);
   struct pipe_fence *fb;
   c0b->flush(c0b, &fb);

   /* The launch itself is accepted: the fault comes out of the event
    * that follows it. */
   struct pipe_grid_info g = {.kernel = k, .work_dim = 1, .global_size = {32, 1, 1},
                              .local_size = {32, 1, 1}, .info = &empty_meta};
   assert_int_equal(c0->launch_grid(c0, &g), CL_SUCCESS);
   struct pipe_fence *f;
   c0->flush(c0, &f);
   assert_non_null(f);
   assert_int_equal(s0->fence_wait(s0, f, PIPE_TIMEOUT_INFINITE), CL_OUT_OF_RESOURCES);
   assert_int_equal(s0->fence_wait(s0, f, 0), CL_OUT_OF_RESOURCES);
   uint64_t a, b;
   assert_false(s0->fence_times(s0, f, &a, &b));
   s0->fence_destroy(s0, f);

   /* CUDA makes the fault sticky: the device is lost.  Later work fails
    * quickly (no hang, no crash), also on the device's other queues. */
   assert_int_equal(s0->fence_wait(s0, fb, PIPE_TIMEOUT_INFINITE), CL_OUT_OF_RESOURCES);
   s0->fence_destroy(s0, fb);
   assert_null(s0->resource_create(s0, 64));
   c0->clear_buffer(c0, r0, 0, 256, &v, 1);
   assert_int_equal(finish(c0), CL_OUT_OF_RESOURCES);
   assert_int_equal(c0->launch_grid(c0, &g), CL_OUT_OF_RESOURCES);

   /* The other GPU keeps working. */
   unsigned char in[256], out[256];
   for (unsigned i = 0; i < 256; i++)
      in[i] = (unsigned char)i;
   c1->buffer_write(c1, r1, 0, 256, in);
   c1->buffer_read(c1, r1, 0, 256, out);
   assert_int_equal(finish(c1), PIPE_FENCE_SIGNALLED);
   assert_memory_equal(in, out, 256);

   /* Teardown of the lost device still releases everything (teardown()
    * checks). */
   s0->resource_destroy(s0, r0);
   s1->resource_destroy(s1, r1);
   s0->program_destroy(s0, program);
   c0->destroy(c0);
   c0b->destroy(c0b);
   c1->destroy(c1);
}

/* ---- out of memory at every allocation ---- */

/* Everything a queue does, each step checked for a clean failure; true
 * when all of it worked. */
static bool scenario(void)
{
   struct pipe_screen *s;
   if (cuda_screen_probe(&s, 1) != 1)
      return false;
   bool ok = false;
   struct pipe_context *ctx = s->context_create(s);
   struct pipe_resource *r = ctx ? s->resource_create(s, 1 << 16) : NULL;
   struct pipe_resource *r2 = r ? s->resource_create(s, 1 << 16) : NULL;
   static unsigned char host[1 << 16];
   struct pipe_resource *u = r2 ? s->resource_from_user_memory(s, host, sizeof(host)) : NULL;
   char *error = NULL;
   void *program = u ? s->program_create(s, ptx, sizeof(ptx) - 1, &error) : NULL;
   void *k = program ? s->get_kernel(s, program, "saxpy", &error) : NULL;
   if (!k) {
      /* program_create says why unless host memory ran out. */
      if (u && !program)
         assert_non_null(error);
      free(error);
      goto out;
   }
   unsigned char data[256] = {1, 2, 3};
   ctx->buffer_write(ctx, r, 0, sizeof(data), data);
   const unsigned char pat[8] = {1, 2, 3, 4, 5, 6, 7, 8};
   ctx->clear_buffer(ctx, r2, 0, 4096, pat, 8);
   struct pipe_transfer *t;
   unsigned char *p = ctx->transfer_map(ctx, r, 0, 256, PIPE_MAP_READ | PIPE_MAP_WRITE, &t);
   if (!p)
      goto out;
   p[0] = 9;
   ctx->transfer_unmap(ctx, t);
   unsigned char args[24] = {0};
   struct pipe_binding b[2] = {{.arg = 1, .kind = PIPE_BIND_GLOBAL, .res = r},
                               {.arg = 2, .kind = PIPE_BIND_GLOBAL, .res = u}};
   struct pipe_grid_info g = {.kernel = k, .work_dim = 1, .global_size = {64, 1, 1},
                              .local_size = {64, 1, 1}, .args = args, .args_size = 24,
                              .info = &saxpy_meta, .bindings = b, .num_bindings = 2};
   if (ctx->launch_grid(ctx, &g))
      goto out;
   struct pipe_fence *f = NULL;
   ctx->flush(ctx, &f);
   int st = f ? s->fence_wait(s, f, PIPE_TIMEOUT_INFINITE) : PIPE_FENCE_SIGNALLED;
   uint64_t a, e;
   bool times = f && st == PIPE_FENCE_SIGNALLED && s->fence_times(s, f, &a, &e);
   if (f)
      s->fence_destroy(s, f);
   ok = st == PIPE_FENCE_SIGNALLED && times;
out:
   if (program)
      s->program_destroy(s, program);
   if (u)
      s->resource_destroy(s, u);
   if (r2)
      s->resource_destroy(s, r2);
   if (r)
      s->resource_destroy(s, r);
   if (ctx)
      ctx->destroy(ctx);
   s->destroy(s);
   return ok;
}

static void test_oom_everywhere(void **state)
{
   (void)state;
   unsigned failed = 0;
   for (unsigned n = 1;; n++) {
      fake_cuda_reset_h100s(1);
      define_kernels();
      fake_cuda.oom_at = n;
      bool ok = scenario();
      assert_int_equal(fake_cuda_check_clean(), 0);
      if (fake_cuda.allocs < n) {
         /* The injection was never reached: everything must work. */
         assert_true(ok);
         break;
      }
      failed += !ok;
      assert_true(n < 100);
   }
   /* Streams, events, memory of three kinds, modules, staging: many
    * allocations failed, and each was survived. */
   assert_true(failed >= 8);
}

/* ---- printf ---- */

/* printk(global char *str) + hidden parameters + the printf buffer. */
static const unsigned printk_params[] = {8, 8, 8, 8, 4, 8};
static struct kiln_arg_info printk_args[] = {{.kind = KILN_ARG_GLOBAL, .size = 8, .offset = 0}};
static struct kiln_kernel_info printk_meta = {
   .name = "printk", .num_args = 1, .args = printk_args, .args_size = 8};

/* The table the compiler would emit (include/kiln/printf.h) for
 *   printf("%d: %v4hlf %s\n", i, (float4)(i, 0.5, -1, 2), "lit");
 *   printf("[%s]\n", str);
 * entry 0 the first format, 1 "lit", 2 the second format. */
static size_t printk_table(unsigned char *t)
{
   static const char f0[] = "%d: %v4hlf %s\n", lit[] = "lit", f2[] = "[%s]\n";
   uint32_t at = 12 + 3 * 4;
   memset(t, 0, 256);
   uint32_t *w = (uint32_t *)(void *)t;
   w[0] = KILN_PRINTF_TABLE_MAGIC;
   w[1] = 3;
   /* Entry 0: record 48 bytes; int at 16, float4 at 24, string id at 40. */
   w[3] = at;
   uint32_t e0[] = {48, 3, 1 | 4 << 8 | 1 << 16, 16, 2 | 4 << 8 | 4 << 16, 24,
                    4 | 4 << 8 | 1 << 16, 40};
   memcpy(t + at, e0, sizeof(e0));
   memcpy(t + at + sizeof(e0), f0, sizeof(f0));
   at += (uint32_t)((sizeof(e0) + sizeof(f0) + 3) / 4 * 4);
   w[4] = at;
   uint32_t e1[] = {0, 0};
   memcpy(t + at, e1, sizeof(e1));
   memcpy(t + at + sizeof(e1), lit, sizeof(lit));
   at += (uint32_t)((sizeof(e1) + sizeof(lit) + 3) / 4 * 4);
   w[5] = at;
   uint32_t e2[] = {24, 1, 3 | 8 << 8 | 1 << 16, 16};
   memcpy(t + at, e2, sizeof(e2));
   memcpy(t + at + sizeof(e2), f2, sizeof(f2));
   at += (uint32_t)((sizeof(e2) + sizeof(f2) + 3) / 4 * 4);
   w[2] = at;
   return at;
}

/* What the compiled kernel does: per work-item, from the last to the
 * first (the driver prints in work-item order), a record of entry 0, and
 * from work-item 0 one of entry 2; one atomic add per record, drop_at
 * where one does not fit. */
static unsigned printk_launches;
static void run_printk(const struct fake_cuda_launch *l)
{
   uint64_t str, address;
   fake_cuda_param(l, 0, &str, 8);
   fake_cuda_param(l, 5, &address, 8);
   struct kiln_printf_buffer *b = fake_cuda_ptr(address, KILN_PRINTF_BUFFER_DATA);
   assert_non_null(b);
   /* A fresh header every launch. */
   assert_int_equal(b->used, 0);
   assert_true(b->drop_at == UINT64_MAX);
   unsigned n = l->grid[0] * l->block[0];
   for (unsigned k = 0; k <= n; k++) {
      unsigned item = k < n ? n - 1 - k : 0;
      uint32_t size = k < n ? 48 : 24;
      uint64_t off = b->used;
      b->used += size;
      if (off + size > b->capacity) {
         if (off < b->drop_at)
            b->drop_at = off;
         continue;
      }
      unsigned char *r = fake_cuda_ptr(address + KILN_PRINTF_BUFFER_DATA + off, size);
      assert_non_null(r);
      uint32_t head[2] = {size, k < n ? 0u : 2u};
      uint64_t id = item;
      memcpy(r, head, 8);
      memcpy(r + 8, &id, 8);
      if (k < n) {
         int32_t i = (int32_t)item;
         float v[4] = {(float)item, 0.5f, -1.0f, 2.0f};
         uint32_t lit = 1;
         memcpy(r + 16, &i, 4);
         memcpy(r + 24, v, 16);
         memcpy(r + 40, &lit, 4);
      } else {
         memcpy(r + 16, &str, 8);
      }
   }
   printk_launches++;
}

/* stdout into a file while a test looks at what the driver prints. */
static int saved_stdout = -1;
static FILE *captured;
static long captured_until;

static void capture_begin(void)
{
   fflush(stdout);
   captured = tmpfile();
   assert_non_null(captured);
   captured_until = 0;
   saved_stdout = dup(1);
   assert_true(saved_stdout >= 0);
   assert_true(dup2(fileno(captured), 1) >= 0);
}

/* What was printed since capture_begin (or the last capture_text). */
static char *capture_text(void)
{
   fflush(stdout);
   struct stat st;
   assert_int_equal(fstat(fileno(captured), &st), 0);
   size_t size = (size_t)(st.st_size - captured_until);
   char *text = calloc(1, size + 1);
   assert_non_null(text);
   assert_int_equal(pread(fileno(captured), text, size, captured_until), (ssize_t)size);
   captured_until = st.st_size;
   assert_int_equal(strlen(text), size);
   return text;
}

static void capture_end(void)
{
   fflush(stdout);
   dup2(saved_stdout, 1);
   close(saved_stdout);
   fclose(captured);
}

static void test_printf(void **state)
{
   (void)state;
   struct pipe_screen *s = screens[0];
   assert_int_equal(s->caps.printf_buffer_size, KILN_PRINTF_BUFFER_DEFAULT);
   fake_cuda_define_kernel("printk", 6, printk_params, run_printk);
   unsigned char table[256];
   size_t size = printk_table(table);
   char text[4096];
   int len = snprintf(text, sizeof(text),
                      "//\n.version 7.8\n.target sm_90\n.address_size 64\n"
                      ".visible .global .align 8 .b8 " KILN_PRINTF_TABLE_SYM "[%zu] = {",
                      size);
   for (size_t i = 0; i < size; i++)
      len += snprintf(text + len, sizeof(text) - (size_t)len, "%s%u", i ? ", " : "", table[i]);
   len += snprintf(text + len, sizeof(text) - (size_t)len,
                   "};\n.visible .entry printk(\n) {}\n");
   char *error = NULL;
   void *program = s->program_create(s, text, (size_t)len, &error);
   assert_non_null(program);
   assert_null(error);
   void *k = s->get_kernel(s, program, "printk", &error);
   assert_non_null(k);

   static const char str[] = "from device memory";
   struct pipe_resource *rs = s->resource_create(s, sizeof(str));
   struct pipe_context *ctx = s->context_create(s);
   ctx->buffer_write(ctx, rs, 0, sizeof(str), str);
   unsigned char args[8] = {0};
   struct pipe_binding b = {.arg = 0, .kind = PIPE_BIND_GLOBAL, .res = rs};
   struct pipe_grid_info g = {.kernel = k, .work_dim = 1, .global_size = {4, 1, 1},
                              .local_size = {2, 1, 1}, .args = args, .args_size = 8,
                              .info = &printk_meta, .bindings = &b, .num_bindings = 1};
   capture_begin();
   printk_launches = 0;
   assert_int_equal(ctx->launch_grid(ctx, &g), CL_SUCCESS);
   struct pipe_fence *f = NULL;
   ctx->flush(ctx, &f);
   assert_non_null(f);
   /* Nothing before the fence is seen signalled. */
   char *before = capture_text();
   int st = s->fence_wait(s, f, PIPE_TIMEOUT_INFINITE);
   char *after = capture_text();
   s->fence_destroy(s, f);
   /* A second launch starts from an empty buffer (the kept one). */
   g.global_size[0] = 2;
   assert_int_equal(ctx->launch_grid(ctx, &g), CL_SUCCESS);
   assert_int_equal(finish(ctx), PIPE_FENCE_SIGNALLED);
   char *second = capture_text();
   capture_end();

   assert_int_equal(st, PIPE_FENCE_SIGNALLED);
   assert_int_equal(printk_launches, 2);
   assert_string_equal(before, "");
   assert_string_equal(after, "0: 0.000000,0.500000,-1.000000,2.000000 lit\n"
                              "[from device memory]\n"
                              "1: 1.000000,0.500000,-1.000000,2.000000 lit\n"
                              "2: 2.000000,0.500000,-1.000000,2.000000 lit\n"
                              "3: 3.000000,0.500000,-1.000000,2.000000 lit\n");
   assert_string_equal(second, "0: 0.000000,0.500000,-1.000000,2.000000 lit\n"
                               "[from device memory]\n"
                               "1: 1.000000,0.500000,-1.000000,2.000000 lit\n");
   free(before);
   free(after);
   free(second);
   s->resource_destroy(s, rs);
   s->program_destroy(s, program);
   ctx->destroy(ctx);
}

/* A program without the table passes no printf buffer: the saxpy launch
 * of test_saxpy checks the parameters CUDA gets; here, a launch of a
 * printing kernel whose fence is destroyed unwaited prints nothing and
 * leaks nothing, and a failed launch frees its buffer. */
static void test_printf_unwaited(void **state)
{
   (void)state;
   struct pipe_screen *s = screens[0];
   fake_cuda_define_kernel("printk", 6, printk_params, run_printk);
   unsigned char table[256];
   size_t size = printk_table(table);
   char text[4096];
   int len = snprintf(text, sizeof(text),
                      "//\n.version 7.8\n.target sm_90\n.address_size 64\n"
                      ".visible .global .align 8 .b8 " KILN_PRINTF_TABLE_SYM "[%zu] = {",
                      size);
   for (size_t i = 0; i < size; i++)
      len += snprintf(text + len, sizeof(text) - (size_t)len, "%s%u", i ? ", " : "", table[i]);
   len += snprintf(text + len, sizeof(text) - (size_t)len,
                   "};\n.visible .entry printk(\n) {}\n");
   char *error = NULL;
   void *program = s->program_create(s, text, (size_t)len, &error);
   assert_non_null(program);
   void *k = s->get_kernel(s, program, "printk", &error);
   assert_non_null(k);
   struct pipe_context *ctx = s->context_create(s);
   unsigned char args[8] = {0};
   struct pipe_grid_info g = {.kernel = k, .work_dim = 1, .global_size = {2, 1, 1},
                              .local_size = {2, 1, 1}, .args = args, .args_size = 8,
                              .info = &printk_meta};
   capture_begin();
   printk_launches = 0;
   fake_cuda_fail("cuLaunchKernel", CUDA_ERROR_INVALID_VALUE);
   assert_int_equal(ctx->launch_grid(ctx, &g), CL_OUT_OF_RESOURCES);
   assert_int_equal(ctx->launch_grid(ctx, &g), CL_SUCCESS);
   struct pipe_fence *f = NULL;
   ctx->flush(ctx, &f);
   assert_non_null(f);
   s->fence_destroy(s, f);
   /* Launched and never waited for, then the queue goes. */
   assert_int_equal(ctx->launch_grid(ctx, &g), CL_SUCCESS);
   ctx->destroy(ctx);
   char *out = capture_text();
   capture_end();
   /* The refused launch prints nothing; the others print once done,
    * waited for by fence_destroy and by the queue's destruction. */
   assert_int_equal(printk_launches, 2);
   assert_string_equal(out, "0: 0.000000,0.500000,-1.000000,2.000000 lit\n"
                            "[(null)]\n"
                            "1: 1.000000,0.500000,-1.000000,2.000000 lit\n"
                            "0: 0.000000,0.500000,-1.000000,2.000000 lit\n"
                            "[(null)]\n"
                            "1: 1.000000,0.500000,-1.000000,2.000000 lit\n");
   free(out);
   s->program_destroy(s, program);
}

static void test_error_log(void **state)
{
   (void)state;
   char path[] = "/tmp/kiln-cuda-log-XXXXXX";
   int fd = mkstemp(path);
   assert_true(fd >= 0);
   close(fd);
   setenv("KILN_DEBUG", "pipe", 1);
   setenv("KILN_LOG", path, 1);
   kiln_log_reset();
   struct pipe_screen *s = screens[0];
   fake_cuda.oom_at = fake_cuda.allocs + 1;
   assert_null(s->resource_create(s, 4096));
   unsetenv("KILN_DEBUG");
   unsetenv("KILN_LOG");
   kiln_log_reset();
   FILE *f = fopen(path, "r");
   assert_non_null(f);
   char text[4096] = {0};
   size_t n = fread(text, 1, sizeof(text) - 1, f);
   fclose(f);
   unlink(path);
   assert_true(n > 0);
   assert_non_null(strstr(text, "cuMemAlloc failed with CUDA_ERROR_OUT_OF_MEMORY"));
}

int main(void)
{
   unsetenv("KILN_DEBUG");
   unsetenv("KILN_LOG");
   const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_discovery, setup_two, teardown),
      cmocka_unit_test_setup_teardown(test_caps, setup_one, teardown),
      cmocka_unit_test_setup_teardown(test_buffers, setup_one, teardown),
      cmocka_unit_test_setup_teardown(test_context_stays_current, setup_two, teardown),
      cmocka_unit_test_setup_teardown(test_fills, setup_one, teardown),
      cmocka_unit_test_setup_teardown(test_rects, setup_one, teardown),
      cmocka_unit_test_setup_teardown(test_rects_row_fallback, setup_one, teardown),
      cmocka_unit_test_setup_teardown(test_transfers, setup_one, teardown),
      cmocka_unit_test_setup_teardown(test_user_memory, setup_one, teardown),
      cmocka_unit_test_setup_teardown(test_unregister_under_copy, setup_one, teardown),
      cmocka_unit_test_setup_teardown(test_fence_wait, setup_one, teardown),
      cmocka_unit_test_setup_teardown(test_fence_times, setup_one, teardown),
      cmocka_unit_test_setup_teardown(test_module_load_failure, setup_one, teardown),
      cmocka_unit_test_setup_teardown(test_kernel_info, setup_one, teardown),
      cmocka_unit_test_setup_teardown(test_saxpy, setup_one, teardown),
      cmocka_unit_test_setup_teardown(test_staged_read, setup_one, teardown),
      cmocka_unit_test_setup_teardown(test_launch_parameters, setup_one, teardown),
      cmocka_unit_test_setup_teardown(test_image_binding, setup_one, teardown),
      cmocka_unit_test_setup_teardown(test_launch_error, setup_one, teardown),
      cmocka_unit_test_setup_teardown(test_illegal_address, setup_two, teardown),
      cmocka_unit_test_setup_teardown(test_oom_everywhere, setup_none, teardown),
      cmocka_unit_test_setup_teardown(test_error_log, setup_one, teardown),
      cmocka_unit_test_setup_teardown(test_printf, setup_one, teardown),
      cmocka_unit_test_setup_teardown(test_printf_unwaited, setup_one, teardown),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
