/* The CUDA pipe driver on a real NVIDIA GPU, through its C interface
 * (src/pipe/pipe.h), with hand-written PTX that follows cuda_abi.h: what
 * the fake libcuda cannot show (the real driver's ABI, JIT, timings).
 * Exits 77 (skipped) where libcuda.so.1 or a GPU is missing.
 *
 *   cuda_device_smoke            checks, then the fault test (loses GPU 0)
 *   cuda_device_smoke bench      also launch latency and saxpy bandwidth */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kiln/kernel_info.h"
#include "pipe/cuda/cuda_abi.h"
#include "pipe/cuda/cuda_screen.h"
#include "winsys/cuda/cuda_api.h"

static int failures;
#define CHECK(cond, ...)                                                                      \
   do {                                                                                       \
      if (!(cond)) {                                                                          \
         failures++;                                                                          \
         printf("FAIL %s:%d: ", __FILE__, __LINE__);                                          \
         printf(__VA_ARGS__);                                                                 \
         printf("\n");                                                                        \
      }                                                                                       \
   } while (0)

static uint64_t now_ns(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Parameters per cuda_abi.h: the arguments, then global offset x/y/z
 * (u64) and work_dim (u32). */
static const char ptx[] =
   ".version 7.0\n"
   ".target sm_70\n"
   ".address_size 64\n"
   ".extern .shared .align 16 .b8 dyn[];\n"
   "\n"
   ".visible .entry saxpy(.param .f32 a, .param .u64 x, .param .u64 y,\n"
   "   .param .u64 ox, .param .u64 oy, .param .u64 oz, .param .u32 dim)\n"
   "{\n"
   "   .reg .b32 %r<6>;\n"
   "   .reg .b64 %rd<8>;\n"
   "   .reg .f32 %f<5>;\n"
   "   ld.param.f32 %f1, [a];\n"
   "   ld.param.u64 %rd1, [x];\n"
   "   ld.param.u64 %rd2, [y];\n"
   "   ld.param.u64 %rd3, [ox];\n"
   "   mov.u32 %r1, %ctaid.x;\n"
   "   mov.u32 %r2, %ntid.x;\n"
   "   mov.u32 %r3, %tid.x;\n"
   "   mad.wide.u32 %rd4, %r1, %r2, %rd3;\n"
   "   cvt.u64.u32 %rd5, %r3;\n"
   "   add.u64 %rd4, %rd4, %rd5;\n"
   "   shl.b64 %rd4, %rd4, 2;\n"
   "   add.u64 %rd6, %rd1, %rd4;\n"
   "   add.u64 %rd7, %rd2, %rd4;\n"
   "   ld.global.f32 %f2, [%rd6];\n"
   "   ld.global.f32 %f3, [%rd7];\n"
   "   fma.rn.f32 %f4, %f1, %f2, %f3;\n"
   "   st.global.f32 [%rd7], %f4;\n"
   "   ret;\n"
   "}\n"
   "\n"
   /* reverse(global uint *buf, local a, local b): reverses each
    * work-group's values through __local b (after a's bytes). */
   ".visible .entry reverse(.param .u64 buf, .param .u32 la, .param .u32 lb,\n"
   "   .param .u64 ox, .param .u64 oy, .param .u64 oz, .param .u32 dim)\n"
   "{\n"
   "   .reg .b32 %r<12>;\n"
   "   .reg .b64 %rd<6>;\n"
   "   ld.param.u64 %rd1, [buf];\n"
   "   ld.param.u32 %r1, [lb];\n"
   "   mov.u32 %r2, %ctaid.x;\n"
   "   mov.u32 %r3, %ntid.x;\n"
   "   mov.u32 %r4, %tid.x;\n"
   "   mad.lo.u32 %r5, %r2, %r3, %r4;\n"
   "   mul.wide.u32 %rd2, %r5, 4;\n"
   "   add.u64 %rd3, %rd1, %rd2;\n"
   "   ld.global.u32 %r6, [%rd3];\n"
   "   mov.u64 %rd4, dyn;\n"
   "   cvt.u32.u64 %r7, %rd4;\n"
   "   add.u32 %r7, %r7, %r1;\n"
   "   shl.b32 %r8, %r4, 2;\n"
   "   add.u32 %r8, %r7, %r8;\n"
   "   st.shared.u32 [%r8], %r6;\n"
   "   bar.sync 0;\n"
   "   sub.u32 %r9, %r3, %r4;\n"
   "   sub.u32 %r9, %r9, 1;\n"
   "   shl.b32 %r9, %r9, 2;\n"
   "   add.u32 %r9, %r7, %r9;\n"
   "   ld.shared.u32 %r10, [%r9];\n"
   "   st.global.u32 [%rd3], %r10;\n"
   "   ret;\n"
   "}\n"
   "\n"
   /* dims(global uint *out): out[0..3] = offsets x y z, work_dim. */
   ".visible .entry dims(.param .u64 out,\n"
   "   .param .u64 ox, .param .u64 oy, .param .u64 oz, .param .u32 dim)\n"
   "{\n"
   "   .reg .b32 %r<2>;\n"
   "   .reg .b64 %rd<6>;\n"
   "   ld.param.u64 %rd1, [out];\n"
   "   ld.param.u64 %rd2, [ox];\n"
   "   ld.param.u64 %rd3, [oy];\n"
   "   ld.param.u64 %rd4, [oz];\n"
   "   ld.param.u32 %r1, [dim];\n"
   "   st.global.u64 [%rd1], %rd2;\n"
   "   st.global.u64 [%rd1+8], %rd3;\n"
   "   st.global.u64 [%rd1+16], %rd4;\n"
   "   st.global.u32 [%rd1+24], %r1;\n"
   "   ret;\n"
   "}\n"
   "\n"
   ".visible .entry empty(.param .u64 ox, .param .u64 oy, .param .u64 oz, .param .u32 dim)\n"
   "{\n"
   "   ret;\n"
   "}\n"
   "\n"
   ".visible .entry empty0()\n"
   "{\n"
   "   ret;\n"
   "}\n"
   "\n"
   ".visible .entry fault(.param .u64 ox, .param .u64 oy, .param .u64 oz, .param .u32 dim)\n"
   "{\n"
   "   .reg .b32 %r1;\n"
   "   .reg .b64 %rd1;\n"
   "   mov.u64 %rd1, 16;\n"
   "   mov.u32 %r1, 1;\n"
   "   st.global.u32 [%rd1], %r1;\n"
   "   ret;\n"
   "}\n";

static struct kiln_arg_info saxpy_args[] = {
   {.kind = KILN_ARG_VALUE, .size = 4, .offset = 0},
   {.kind = KILN_ARG_GLOBAL, .size = 8, .offset = 8},
   {.kind = KILN_ARG_GLOBAL, .size = 8, .offset = 16},
};
static struct kiln_kernel_info saxpy_meta = {.num_args = 3, .args = saxpy_args, .args_size = 24};
static struct kiln_arg_info reverse_args[] = {
   {.kind = KILN_ARG_GLOBAL, .size = 8, .offset = 0},
   {.kind = KILN_ARG_LOCAL, .size = 4, .offset = 8},
   {.kind = KILN_ARG_LOCAL, .size = 4, .offset = 12},
};
static struct kiln_kernel_info reverse_meta = {.num_args = 3, .args = reverse_args,
                                               .args_size = 16};
static struct kiln_arg_info dims_args[] = {{.kind = KILN_ARG_GLOBAL, .size = 8, .offset = 0}};
static struct kiln_kernel_info dims_meta = {.num_args = 1, .args = dims_args, .args_size = 8};
static struct kiln_kernel_info empty_meta = {.num_args = 0};

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

static void *kernel(struct pipe_screen *s, void *program, const char *name)
{
   char *error = NULL;
   void *k = s->get_kernel(s, program, name, &error);
   CHECK(k, "get_kernel %s: %s", name, error ? error : "?");
   free(error);
   return k;
}

static void check_copies(struct pipe_screen *s, struct pipe_context *ctx)
{
   enum { SIZE = 1 << 20 };
   unsigned char *in = malloc(SIZE), *out = malloc(SIZE), *model = malloc(SIZE);
   for (unsigned i = 0; i < SIZE; i++)
      in[i] = (unsigned char)(i * 7 + (i >> 9));
   struct pipe_resource *a = s->resource_create(s, SIZE), *b = s->resource_create(s, SIZE);
   CHECK(a && b, "resource_create");
   CHECK(!s->resource_host_pointer(s, a), "device memory is not host-visible");
   ctx->buffer_write(ctx, a, 0, SIZE, in);
   ctx->resource_copy_region(ctx, b, 0, a, 0, SIZE);
   memcpy(model, in, SIZE);

   /* Fills of every pattern size, at odd places. */
   static const size_t sizes[] = {1, 2, 4, 8, 16, 32, 64, 128};
   for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
      unsigned char pat[128];
      for (size_t k = 0; k < sizes[i]; k++)
         pat[k] = (unsigned char)(0x40 + i * 16 + k);
      size_t off = 4096 * (i + 1) + sizes[i] * 3, n = sizes[i] * (1000 + i);
      ctx->clear_buffer(ctx, b, off, n, pat, sizes[i]);
      for (size_t k = 0; k < n; k++)
         model[off + k] = pat[k % sizes[i]];
   }
   /* A rectangle whose slices are not whole rows, both ways. */
   const size_t region[3] = {40, 7, 5};
   struct pipe_rect d = {200000, 100, 100 * 9 + 24}, h = {0, 48, 48 * 8};
   unsigned char host[48 * 8 * 5];
   for (unsigned i = 0; i < sizeof(host); i++)
      host[i] = (unsigned char)(i * 13);
   ctx->buffer_write_rect(ctx, b, &d, host, &h, region);
   for (size_t z = 0; z < region[2]; z++)
      for (size_t y = 0; y < region[1]; y++)
         memcpy(model + d.offset + y * d.row_pitch + z * d.slice_pitch,
                host + y * h.row_pitch + z * h.slice_pitch, region[0]);
   struct pipe_rect d2 = {300000, 64, 64 * 7}, s2 = {200000, 100, 100 * 9 + 24};
   ctx->resource_copy_rect(ctx, b, &d2, b, &s2, region);
   for (size_t z = 0; z < region[2]; z++)
      for (size_t y = 0; y < region[1]; y++)
         memcpy(model + d2.offset + y * d2.row_pitch + z * d2.slice_pitch,
                model + s2.offset + y * s2.row_pitch + z * s2.slice_pitch, region[0]);
   unsigned char back[48 * 8 * 5];
   memset(back, 0, sizeof(back));
   ctx->buffer_read_rect(ctx, b, &d2, back, &h, region);
   ctx->buffer_read(ctx, b, 0, SIZE, out);
   CHECK(finish(ctx) == PIPE_FENCE_SIGNALLED, "copies fence");
   size_t bad = 0;
   for (size_t i = 0; i < SIZE; i++)
      bad += out[i] != model[i];
   CHECK(!bad, "%zu bytes differ after copies, fills and rects", bad);
   for (size_t z = 0; z < region[2]; z++)
      for (size_t y = 0; y < region[1]; y++)
         CHECK(!memcmp(back + y * h.row_pitch + z * h.slice_pitch,
                       model + d2.offset + y * d2.row_pitch + z * d2.slice_pitch, region[0]),
               "read_rect row %zu slice %zu", y, z);

   /* Maps through staging. */
   struct pipe_transfer *t;
   unsigned char *p = ctx->transfer_map(ctx, b, 12345, 1000, PIPE_MAP_READ | PIPE_MAP_WRITE, &t);
   CHECK(p && !memcmp(p, model + 12345, 1000), "transfer_map READ");
   if (p) {
      p[0] ^= 0xff;
      model[12345] ^= 0xff;
      ctx->transfer_unmap(ctx, t);
   }
   ctx->buffer_read(ctx, b, 12345, 1, out);
   CHECK(finish(ctx) == PIPE_FENCE_SIGNALLED && out[0] == model[12345], "transfer_unmap WRITE");

   /* Application memory imported. */
   unsigned char *user = aligned_alloc(4096, 1 << 16);
   memset(user, 0x11, 1 << 16);
   struct pipe_resource *u = s->resource_from_user_memory(s, user, 1 << 16);
   CHECK(u, "resource_from_user_memory");
   if (u) {
      ctx->resource_copy_region(ctx, u, 100, a, 0, 1000);
      CHECK(finish(ctx) == PIPE_FENCE_SIGNALLED && !memcmp(user + 100, in, 1000) &&
               user[99] == 0x11,
            "copy into user memory");
      s->resource_destroy(s, u);
   }
   free(user);
   s->resource_destroy(s, a);
   s->resource_destroy(s, b);
   free(in);
   free(out);
   free(model);
}

static void check_kernels(struct pipe_screen *s, struct pipe_context *ctx, void *program)
{
   /* saxpy over the second half, through the global offset. */
   enum { N = 1 << 16 };
   float *x = malloc(N * 4), *y = malloc(N * 4), *out = malloc(N * 4);
   for (int i = 0; i < N; i++) {
      x[i] = (float)i;
      y[i] = 1.0f;
   }
   struct pipe_resource *rx = s->resource_create(s, N * 4), *ry = s->resource_create(s, N * 4);
   ctx->buffer_write(ctx, rx, 0, N * 4, x);
   ctx->buffer_write(ctx, ry, 0, N * 4, y);
   unsigned char args[24] = {0};
   float a = 3.0f;
   memcpy(args, &a, 4);
   struct pipe_binding b[2] = {{.arg = 1, .kind = PIPE_BIND_GLOBAL, .res = rx},
                               {.arg = 2, .kind = PIPE_BIND_GLOBAL, .res = ry}};
   struct pipe_grid_info g = {.kernel = kernel(s, program, "saxpy"), .work_dim = 1,
                              .global_offset = {N / 2}, .global_size = {N / 2, 1, 1},
                              .local_size = {256, 1, 1}, .args = args, .args_size = 24,
                              .info = &saxpy_meta, .bindings = b, .num_bindings = 2};
   CHECK(ctx->launch_grid(ctx, &g) == CL_SUCCESS, "saxpy launch");
   ctx->buffer_read(ctx, ry, 0, N * 4, out);
   CHECK(finish(ctx) == PIPE_FENCE_SIGNALLED, "saxpy fence");
   int bad = 0;
   for (int i = 0; i < N; i++)
      bad += out[i] != (i < N / 2 ? 1.0f : 3.0f * (float)i + 1.0f);
   CHECK(!bad, "saxpy: %d wrong", bad);

   struct pipe_kernel_info ki;
   s->get_kernel_info(s, g.kernel, &saxpy_meta, &ki);
   printf("saxpy: max work-group %zu, multiple %zu, private %llu, static local %llu\n",
          ki.max_work_group_size, ki.preferred_work_group_size_multiple,
          (unsigned long long)ki.private_mem_size, (unsigned long long)ki.static_local_mem_size);
   CHECK(ki.max_work_group_size == 1024 && ki.preferred_work_group_size_multiple == 32,
         "kernel info");

   /* __local arguments as dynamic shared memory: b after a's 40 bytes;
    * then 50 KB for a, past the 48 KB default (opt-in). */
   uint32_t *vals = malloc(N * 4), *rev = malloc(N * 4);
   for (int i = 0; i < N; i++)
      vals[i] = (uint32_t)i;
   for (int pass = 0; pass < 2; pass++) {
      ctx->buffer_write(ctx, rx, 0, N * 4, vals);
      struct pipe_binding lb[3] = {
         {.arg = 0, .kind = PIPE_BIND_GLOBAL, .res = rx},
         {.arg = 1, .kind = PIPE_BIND_LOCAL, .local_size = pass ? 50000 : 40},
         {.arg = 2, .kind = PIPE_BIND_LOCAL, .local_size = 256 * 4},
      };
      unsigned char rargs[16] = {0};
      struct pipe_grid_info rg = {.kernel = kernel(s, program, "reverse"), .work_dim = 1,
                                  .global_size = {N, 1, 1}, .local_size = {256, 1, 1},
                                  .args = rargs, .args_size = 16, .info = &reverse_meta,
                                  .bindings = lb, .num_bindings = 3};
      CHECK(ctx->launch_grid(ctx, &rg) == CL_SUCCESS, "reverse launch (pass %d)", pass);
      ctx->buffer_read(ctx, rx, 0, N * 4, rev);
      CHECK(finish(ctx) == PIPE_FENCE_SIGNALLED, "reverse fence (pass %d)", pass);
      bad = 0;
      for (int i = 0; i < N; i++)
         bad += rev[i] != (uint32_t)((i / 256) * 256 + 255 - i % 256);
      CHECK(!bad, "reverse: %d wrong (pass %d)", bad, pass);
   }

   /* The hidden parameters. */
   struct pipe_binding db = {.arg = 0, .kind = PIPE_BIND_GLOBAL, .res = rx};
   unsigned char dargs[8] = {0};
   struct pipe_grid_info dg = {.kernel = kernel(s, program, "dims"), .work_dim = 3,
                               .global_offset = {5, 6, 7}, .global_size = {1, 1, 1},
                               .local_size = {1, 1, 1}, .args = dargs, .args_size = 8,
                               .info = &dims_meta, .bindings = &db, .num_bindings = 1};
   CHECK(ctx->launch_grid(ctx, &dg) == CL_SUCCESS, "dims launch");
   uint64_t d[4] = {0};
   ctx->buffer_read(ctx, rx, 0, 32, d);
   CHECK(finish(ctx) == PIPE_FENCE_SIGNALLED, "dims fence");
   CHECK(d[0] == 5 && d[1] == 6 && d[2] == 7 && (uint32_t)d[3] == 3,
         "hidden parameters %llu %llu %llu %u", (unsigned long long)d[0],
         (unsigned long long)d[1], (unsigned long long)d[2], (unsigned)d[3]);

   s->resource_destroy(s, rx);
   s->resource_destroy(s, ry);
   free(x);
   free(y);
   free(out);
   free(vals);
   free(rev);
}

static void check_times(struct pipe_screen *s, struct pipe_context *ctx, void *program)
{
   /* A launch of a few ms: its device times on the host clock lie between
    * the host's stamps around it. */
   enum { N = 1 << 26 };
   struct pipe_resource *rx = s->resource_create(s, (size_t)N * 4);
   struct pipe_resource *ry = s->resource_create(s, (size_t)N * 4);
   unsigned char z = 0;
   ctx->clear_buffer(ctx, rx, 0, (size_t)N * 4, &z, 1);
   ctx->clear_buffer(ctx, ry, 0, (size_t)N * 4, &z, 1);
   CHECK(finish(ctx) == PIPE_FENCE_SIGNALLED, "clear");
   unsigned char args[24] = {0};
   struct pipe_binding b[2] = {{.arg = 1, .kind = PIPE_BIND_GLOBAL, .res = rx},
                               {.arg = 2, .kind = PIPE_BIND_GLOBAL, .res = ry}};
   struct pipe_grid_info g = {.kernel = kernel(s, program, "saxpy"), .work_dim = 1,
                              .global_size = {N, 1, 1}, .local_size = {256, 1, 1},
                              .args = args, .args_size = 24, .info = &saxpy_meta,
                              .bindings = b, .num_bindings = 2};
   uint64_t before = now_ns();
   for (int i = 0; i < 10; i++)
      ctx->launch_grid(ctx, &g);
   struct pipe_fence *f;
   ctx->flush(ctx, &f);
   CHECK(s->fence_wait(s, f, 0) == PIPE_FENCE_BUSY, "10 big launches still busy at once");
   int polls = 0;
   while (s->fence_wait(s, f, 100000) == PIPE_FENCE_BUSY)
      polls++;
   uint64_t after = now_ns();
   uint64_t start = 0, end = 0;
   CHECK(s->fence_times(s, f, &start, &end), "fence_times");
   printf("10 saxpy of %d: host %.1f us, device %.1f us (start %+.1f us after the host's, "
          "end %+.1f us before), %d polls; %.0f GB/s\n",
          N, (after - before) / 1e3, (end - start) / 1e3, ((double)start - before) / 1e3,
          ((double)after - end) / 1e3, polls, 10.0 * 3 * 4 * N / (double)(end - start));
   CHECK(start + 50000 >= before && end <= after + 50000 && end > start,
         "device times outside the host's window");
   s->fence_destroy(s, f);
   s->resource_destroy(s, rx);
   s->resource_destroy(s, ry);
}

static void bench(struct pipe_screen *s, struct pipe_context *ctx, void *program)
{
   /* As core records for a queue without profiling: no start events. */
   ctx->timed = false;
   struct pipe_grid_info g = {.kernel = kernel(s, program, "empty"), .work_dim = 1,
                              .global_size = {32, 1, 1}, .local_size = {32, 1, 1},
                              .info = &empty_meta};
   for (int i = 0; i < 100; i++)
      ctx->launch_grid(ctx, &g);
   finish(ctx);
   enum { LAUNCHES = 20000, TRIPS = 2000 };
   uint64_t t0 = now_ns();
   for (int i = 0; i < LAUNCHES; i++)
      ctx->launch_grid(ctx, &g);
   uint64_t t1 = now_ns();
   finish(ctx);
   uint64_t t2 = now_ns();
   for (int i = 0; i < TRIPS; i++) {
      ctx->launch_grid(ctx, &g);
      finish(ctx);
   }
   uint64_t t3 = now_ns();
   printf("empty kernel: %.2f us per launch enqueued back to back (%.2f us to drain), "
          "%.2f us launch+flush+wait round trip\n",
          (t1 - t0) / 1e3 / LAUNCHES, (t2 - t0) / 1e3 / LAUNCHES, (t3 - t2) / 1e3 / TRIPS);
   enum { SIZE = 16 << 10 };
   struct pipe_resource *r = s->resource_create(s, SIZE);
   unsigned char *host = malloc(SIZE);
   if (r && host) {
      uint64_t t4 = 0;
      for (int i = -100; i < TRIPS; i++) {
         if (!i)
            t4 = now_ns();
         ctx->launch_grid(ctx, &g);
         ctx->buffer_read(ctx, r, 0, SIZE, host);
         finish(ctx);
      }
      printf("empty kernel + 16 KiB read: %.2f us launch+read+flush+wait round trip\n",
             (now_ns() - t4) / 1e3 / TRIPS);
   }
   if (r)
      s->resource_destroy(s, r);
   free(host);
}

/* The ways a launch followed by a blocking read of 16 KiB into host
 * memory can go through the driver API, each timed as a round trip:
 * which one Kiln's blocking read should take (docs/performance.md). */
static void bench_raw_read(struct cuda_api *api, CUfunction f, CUstream st, void **params)
{
   enum { SIZE = 16 << 10, TRIPS = 2000 };
   CUdeviceptr d = 0;
   void *pinned = NULL;
   unsigned char *pageable = malloc(SIZE);
   CUevent e1 = NULL, e2 = NULL;
   if (!pageable || api->cuMemAlloc(&d, SIZE) || api->cuMemHostAlloc(&pinned, SIZE, 0) ||
       api->cuEventCreate(&e1, CU_EVENT_DISABLE_TIMING) ||
       api->cuEventCreate(&e2, CU_EVENT_DISABLE_TIMING)) {
      printf("raw CUDA read: set-up failed\n");
      failures++;
      goto out;
   }
   static const char *const names[] = {
      "launch, DtoHAsync to pageable (returns when done)",
      "launch, DtoHAsync to pageable, cuStreamSynchronize",
      "launch, DtoHAsync to pinned, cuStreamSynchronize, memcpy",
      "launch, DtoHAsync to pinned, event, cuEventSynchronize, memcpy",
      "launch, event, DtoHAsync to pageable, event, 2x cuEventSynchronize",
      "launch, event, DtoHAsync to pinned, event, 2x cuEventSynchronize, memcpy",
      "launch, event, cuEventSynchronize (no read)",
   };
   for (int v = 0; v < 7; v++) {
      uint64_t t0 = 0;
      for (int i = -100; i < TRIPS; i++) {
         if (!i)
            t0 = now_ns();
         api->cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, st, params, NULL);
         if (v >= 4)
            api->cuEventRecord(e1, st);
         void *to = v == 0 || v == 1 || v == 4 ? (void *)pageable : pinned;
         if (v != 6)
            api->cuMemcpyDtoHAsync(to, d, SIZE, st);
         if (v == 1 || v == 2)
            api->cuStreamSynchronize(st);
         if (v == 3 || v == 4 || v == 5)
            api->cuEventRecord(e2, st);
         if (v >= 4)
            api->cuEventSynchronize(e1);
         if (v >= 3 && v != 6)
            api->cuEventSynchronize(e2);
         if (v == 2 || v == 3 || v == 5)
            memcpy(pageable, pinned, SIZE);
      }
      uint64_t t1 = now_ns();
      printf("raw read round trip, %s: %.2f us\n", names[v], (t1 - t0) / 1e3 / TRIPS);
   }
out:
   if (e1)
      api->cuEventDestroy(e1);
   if (e2)
      api->cuEventDestroy(e2);
   if (pinned)
      api->cuMemFreeHost(pinned);
   if (d)
      api->cuMemFree(d);
   free(pageable);
}

/* What makes a cuLaunchKernel back to back cheaper or dearer: its
 * parameters (none, four through kernelParams, the same four packed
 * through `extra`), a context push and pop around each, a cuEventRecord
 * every 16 launches (a shared fence). */
static void bench_raw_variants(struct cuda_api *api, CUcontext c, CUmodule mod, CUfunction f,
                               CUstream st, void **params)
{
   enum { LAUNCHES = 20000 };
   CUfunction f0 = NULL;
   CUevent ev = NULL;
   if (api->cuModuleGetFunction(&f0, mod, "empty0") ||
       api->cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING)) {
      printf("raw CUDA variants: set-up failed\n");
      failures++;
      return;
   }
   struct {
      uint64_t o[3];
      uint32_t dim;
   } packed = {{0, 0, 0}, 1};
   /* The size the kernel's parameters take (3 x u64 + u32), not the
    * struct's 32: with 32, every launch fails (CUDA error 701), fast. */
   size_t size = 28;
   void *extra[] = {(void *)1 /* CU_LAUNCH_PARAM_BUFFER_POINTER */, &packed,
                    (void *)2 /* CU_LAUNCH_PARAM_BUFFER_SIZE */, &size,
                    (void *)0 /* CU_LAUNCH_PARAM_END */};
   static const char *const names[] = {
      "no parameters", "4 parameters through kernelParams", "4 parameters through extra",
      "context push + pop around each", "cuEventRecord every 16 launches",
   };
   for (int v = 0; v < 5; v++) {
      uint64_t t0 = 0;
      unsigned errors = 0;
      for (int i = -200; i < LAUNCHES; i++) {
         if (!i)
            t0 = now_ns();
         CUresult r;
         if (v == 3) {
            CUcontext old;
            api->cuCtxPushCurrent(c);
            r = api->cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, st, params, NULL);
            api->cuCtxPopCurrent(&old);
         } else if (v == 0) {
            r = api->cuLaunchKernel(f0, 1, 1, 1, 32, 1, 1, 0, st, NULL, NULL);
         } else {
            r = api->cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, st, v == 2 ? NULL : params,
                                    v == 2 ? extra : NULL);
         }
         errors += r != CUDA_SUCCESS;
         if (v == 4 && i % 16 == 15)
            api->cuEventRecord(ev, st);
      }
      uint64_t t1 = now_ns();
      CHECK(!errors && api->cuStreamSynchronize(st) == CUDA_SUCCESS,
            "raw launches (%s): %u failed", names[v], errors);
      printf("raw cuLaunchKernel back to back, %s: %.2f us\n", names[v],
             (t1 - t0) / 1e3 / LAUNCHES);
   }
   api->cuEventDestroy(ev);
}

/* The floor under any driver's launch path: the same empty kernel
 * launched through the CUDA driver API alone (one stream, no events, no
 * context switch per launch), back to back and launch +
 * cuStreamSynchronize round trips.  Kiln's rows above minus these are
 * what Kiln itself costs per launch. */
static void bench_raw(void)
{
   struct cuda_api *api = cuda_api_load();
   if (!api)
      return;
   CUdevice dev;
   CUcontext c = NULL;
   CUmodule mod = NULL;
   CUfunction f = NULL;
   CUstream st = NULL;
   if (api->cuInit(0) || api->cuDeviceGet(&dev, 0) || api->cuDevicePrimaryCtxRetain(&c, dev) ||
       api->cuCtxPushCurrent(c) || api->cuModuleLoadDataEx(&mod, ptx, 0, NULL, NULL) ||
       api->cuModuleGetFunction(&f, mod, "empty") || api->cuStreamCreate(&st, 1)) {
      printf("raw CUDA launch: set-up failed\n");
      failures++;
      goto out;
   }
   uint64_t ox = 0, oy = 0, oz = 0;
   uint32_t dim = 1;
   void *params[] = {&ox, &oy, &oz, &dim};
   enum { LAUNCHES = 20000, TRIPS = 2000 };
   for (int i = 0; i < 100; i++)
      api->cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, st, params, NULL);
   api->cuStreamSynchronize(st);
   uint64_t t0 = now_ns();
   for (int i = 0; i < LAUNCHES; i++)
      api->cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, st, params, NULL);
   uint64_t t1 = now_ns();
   CHECK(api->cuStreamSynchronize(st) == CUDA_SUCCESS, "raw launches");
   uint64_t t2 = now_ns();
   for (int i = 0; i < TRIPS; i++) {
      api->cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, st, params, NULL);
      api->cuStreamSynchronize(st);
   }
   uint64_t t3 = now_ns();
   printf("raw CUDA driver API, same kernel: %.2f us per cuLaunchKernel back to back (%.2f us "
          "to drain), %.2f us launch+cuStreamSynchronize round trip\n",
          (t1 - t0) / 1e3 / LAUNCHES, (t2 - t0) / 1e3 / LAUNCHES, (t3 - t2) / 1e3 / TRIPS);
   bench_raw_variants(api, c, mod, f, st, params);
   bench_raw_read(api, f, st, params);
out:
   if (st)
      api->cuStreamDestroy(st);
   if (mod)
      api->cuModuleUnload(mod);
   if (c) {
      api->cuCtxPopCurrent(&c);
      api->cuDevicePrimaryCtxRelease(dev);
   }
   cuda_api_unload(api);
}

static void check_fault(struct pipe_screen **screens, unsigned n, void *program)
{
   struct pipe_screen *s = screens[0];
   struct pipe_context *ctx = s->context_create(s);
   struct pipe_grid_info g = {.kernel = kernel(s, program, "fault"), .work_dim = 1,
                              .global_size = {1, 1, 1}, .local_size = {1, 1, 1},
                              .info = &empty_meta};
   CHECK(ctx->launch_grid(ctx, &g) == CL_SUCCESS, "the faulting launch is accepted");
   struct pipe_fence *f;
   ctx->flush(ctx, &f);
   int r = s->fence_wait(s, f, PIPE_TIMEOUT_INFINITE);
   CHECK(r == CL_OUT_OF_RESOURCES, "faulting kernel: fence says %d", r);
   s->fence_destroy(s, f);
   struct pipe_resource *res = s->resource_create(s, 64);
   CHECK(!res, "the lost device allocates nothing");
   if (res)
      s->resource_destroy(s, res);
   ctx->destroy(ctx);
   /* Another GPU, where there is one, keeps working. */
   if (n > 1) {
      struct pipe_context *c1 = screens[1]->context_create(screens[1]);
      struct pipe_resource *r1 = screens[1]->resource_create(screens[1], 4096);
      unsigned char in[4096], out[4096];
      memset(in, 0x5a, sizeof(in));
      c1->buffer_write(c1, r1, 0, 4096, in);
      c1->buffer_read(c1, r1, 0, 4096, out);
      CHECK(finish(c1) == PIPE_FENCE_SIGNALLED && !memcmp(in, out, 4096), "GPU 1 after GPU 0 faulted");
      screens[1]->resource_destroy(screens[1], r1);
      c1->destroy(c1);
   }
}

int main(int argc, char **argv)
{
   bool do_bench = argc > 1 && !strcmp(argv[1], "bench");
   struct pipe_screen *screens[16];
   unsigned n = cuda_screen_probe(screens, 16);
   if (!n) {
      printf("no CUDA device: skipped\n");
      return 77;
   }
   for (unsigned i = 0; i < n; i++) {
      const struct pipe_caps *c = &screens[i]->caps;
      printf("device %u: %s, %s, %u CUs, %u MHz, %.1f GiB (max alloc %.1f GiB), local %llu, "
             "L2 %llu, ECC %d, max wg %zu (%zu %zu %zu)\n",
             i, c->name, c->ir_target, c->max_compute_units, c->max_clock_frequency,
             c->global_mem_size / 1073741824.0, c->max_mem_alloc_size / 1073741824.0,
             (unsigned long long)c->local_mem_size, (unsigned long long)c->global_mem_cache_size,
             c->error_correction, c->max_work_group_size, c->max_work_item_sizes[0],
             c->max_work_item_sizes[1], c->max_work_item_sizes[2]);
   }
   struct pipe_screen *s = screens[0];
   struct pipe_context *ctx = s->context_create(s);
   char *error = NULL;
   void *program = s->program_create(s, ptx, sizeof(ptx) - 1, &error);
   CHECK(program, "program_create: %s", error ? error : "?");
   free(error);
   /* A JIT error reaches the build log. */
   static const char broken[] = ".version 7.0\n.target sm_70\n.address_size 64\n"
                                ".visible .entry oops() { mov.u32 %r1, 1; ret; }\n";
   error = NULL;
   CHECK(!s->program_create(s, broken, sizeof(broken) - 1, &error) && error,
         "broken PTX must fail with a log");
   if (error)
      printf("JIT log of broken PTX: %s\n", error);
   free(error);
   if (program) {
      check_copies(s, ctx);
      check_kernels(s, ctx, program);
      check_times(s, ctx, program);
      if (do_bench) {
         bench(s, ctx, program);
         bench_raw();
      }
   }
   ctx->destroy(ctx);
   if (program)
      check_fault(screens, n, program);
   if (program)
      s->program_destroy(s, program);
   for (unsigned i = 0; i < n; i++)
      screens[i]->destroy(screens[i]);
   printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
   return failures ? 1 : 0;
}
