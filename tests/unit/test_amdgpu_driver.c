/* The amdgpu pipe driver alone, through pipe.h (no core): screens made by
 * amdgpu_screen_probe over the fake libdrm, kernels compiled by src/llvm,
 * and the contract of pipe.h v2 checked where the fake can see it:
 * launches are submitted without waiting and run (fake.execute) only when
 * a fence is found signalled; host reads, writes, fills, copies and maps
 * wait for the context's launches; each context has its own ring; the
 * driver writes buffer addresses and __local offsets into its own kernarg
 * copy from the bindings; CL_MEM_USE_HOST_PTR memory is a userptr BO;
 * per-kernel limits come from the code object.
 *
 * amdgpu_drm_load is wrapped at link time to hand out fake_drm.c. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fake_drm.h"
#include "kiln/kernel_info.h"
#include "llvm/compiler.h"
#include "pipe/amdgpu/amdgpu_caps.h"
#include "pipe/amdgpu/amdgpu_pm4.h"
#include "pipe/amdgpu/amdgpu_screen.h"
#include "pipe/pipe.h"
#include "util/alloc.h"

struct amdgpu_drm *__wrap_amdgpu_drm_load(void);
void __wrap_amdgpu_drm_unload(struct amdgpu_drm *drm);

struct amdgpu_drm *__wrap_amdgpu_drm_load(void)
{
   return (struct amdgpu_drm *)fake_drm_table();
}

void __wrap_amdgpu_drm_unload(struct amdgpu_drm *drm)
{
   (void)drm;
}

static const char *src =
   "__kernel void fill(__global uint *p, uint v) { p[get_global_id(0)] = v; }\n"
   "__kernel void locals(__global int *o, __local int *a, __local int *b)\n"
   "{ __local int s[100]; int l = get_local_id(0); s[l] = l; a[l] = l; b[l] = l;\n"
   "  barrier(CLK_LOCAL_MEM_FENCE); o[get_global_id(0)] = s[l] + a[l] + b[l]; }\n"
   "__kernel void priv(__global const int *idx, __global int *out)\n"
   "{ int buf[256]; int i = get_global_id(0);\n"
   "  for (int k = 0; k < 256; k++) buf[k] = i * k + idx[k];\n"
   "  out[i] = buf[idx[i] & 255]; }\n";

struct gpu {
   struct pipe_screen *screen;
   struct kiln_build_output out;
   void *program;
};

static struct gpu gpus[2]; /* gfx900, gfx1100 */

static const struct kiln_kernel_info *meta(const struct gpu *g, const char *name)
{
   for (unsigned i = 0; i < g->out.num_kernels; i++)
      if (!strcmp(g->out.kernels[i].name, name))
         return &g->out.kernels[i];
   fail_msg("no kernel %s", name);
   return NULL;
}

static void *kernel(struct gpu *g, const char *name)
{
   char *error = NULL;
   void *k = g->screen->get_kernel(g->screen, g->program, name, &error);
   assert_non_null(k);
   return k;
}

/* The "GPU" runs fill: p[i] = v for the launch's global size, at the
 * address the kernarg holds (which must be in a live BO). */
static unsigned bad_addresses;

static void run_fill(const struct fake_submit *s)
{
   struct fake_dispatch d;
   assert_true(fake_submit_dispatch(s, &d));
   assert_non_null(d.kernarg);
   uint64_t p;
   uint32_t v;
   memcpy(&p, d.kernarg, 8);
   memcpy(&v, d.kernarg + 8, 4);
   uint32_t *mem = fake_drm_va_to_cpu(p, (uint64_t)d.global[0] * 4);
   if (!mem) {
      bad_addresses++;
      return;
   }
   for (uint32_t i = 0; i < d.global[0]; i++)
      mem[i] = v;
}

static void launch_fill(struct gpu *g, struct pipe_context *ctx, struct pipe_resource *res,
                        size_t offset, uint32_t n, uint32_t v)
{
   const struct kiln_kernel_info *info = meta(g, "fill");
   uint8_t *args = calloc(1, info->args_size);
   memcpy(args + info->args[1].offset, &v, 4);
   struct pipe_binding b = {.arg = 0, .kind = PIPE_BIND_GLOBAL, .res = res, .offset = offset};
   struct pipe_grid_info grid = {
      .kernel = kernel(g, "fill"),
      .work_dim = 1,
      .global_size = {n, 1, 1},
      .local_size = {n < 64 ? n : 64, 1, 1},
      .args = args,
      .args_size = info->args_size,
      .info = info,
      .bindings = &b,
      .num_bindings = 1,
   };
   assert_int_equal(ctx->launch_grid(ctx, &grid), CL_SUCCESS);
   /* Core may reuse its argument buffer at once. */
   memset(args, 0xee, info->args_size);
   free(args);
}

static unsigned live_bos(void)
{
   unsigned n = 0;
   for (unsigned i = 0; i < FAKE_MAX_BOS; i++)
      n += fake.bos[i].live;
   return n;
}

static int setup(void **state)
{
   (void)state;
   fake.execute = run_fill;
   bad_addresses = 0;
   return 0;
}

/* Launches are recorded: submitted, not waited for.  The fence of a
 * flush covers them; they "run" when it is found signalled. */
static void test_launch_does_not_wait(void **state)
{
   (void)state;
   struct gpu *g = &gpus[0];
   struct pipe_screen *s = g->screen;
   struct pipe_context *ctx = s->context_create(s);
   assert_non_null(ctx);
   struct pipe_resource *r = s->resource_create(s, 4096);
   assert_non_null(r);
   unsigned bos = live_bos(), submits = fake.num_submits, ran = fake.executed;
   launch_fill(g, ctx, r, 0, 256, 0x11111111);
   launch_fill(g, ctx, r, 1024, 256, 0x22222222);
   assert_int_equal(fake.num_submits, submits + 2);
   assert_int_equal(fake.executed, ran); /* nobody waited */
   /* Each launch's IB and kernarg live until its fence. */
   assert_int_equal(live_bos(), bos + 4);
   /* Each IB first waits for the ring's earlier dispatches. */
   const struct fake_submit *sub = &fake.submits[submits + 1];
   assert_int_equal(PM4_PKT3_OPCODE(sub->ib[0]), PM4_EVENT_WRITE);
   assert_int_equal(sub->ib[1], EVENT_TYPE(EVENT_CS_PARTIAL_FLUSH) | EVENT_INDEX(4));
   struct pipe_fence *f = NULL;
   ctx->flush(ctx, &f);
   assert_non_null(f);
   assert_int_equal(fake.executed, ran);
   assert_int_equal(s->fence_wait(s, f, PIPE_TIMEOUT_INFINITE), PIPE_FENCE_SIGNALLED);
   assert_int_equal(fake.executed, ran + 2);
   assert_int_equal(bad_addresses, 0);
   assert_int_equal(live_bos(), bos);
   const uint32_t *m = s->resource_host_pointer(s, r);
   assert_int_equal(m[0], 0x11111111);
   assert_int_equal(m[255], 0x11111111);
   assert_int_equal(m[256], 0x22222222);
   assert_int_equal(m[511], 0x22222222);
   s->fence_destroy(s, f);
   /* Nothing new: the flush's work has ended already. */
   f = (struct pipe_fence *)1;
   ctx->flush(ctx, &f);
   assert_null(f);
   s->resource_destroy(s, r);
   ctx->destroy(ctx);
}

/* Host-side work is in order with the launches before it. */
static void test_host_access_waits(void **state)
{
   (void)state;
   struct gpu *g = &gpus[1];
   struct pipe_screen *s = g->screen;
   struct pipe_context *ctx = s->context_create(s);
   struct pipe_resource *r = s->resource_create(s, 4096), *r2 = s->resource_create(s, 4096);
   uint32_t got[4] = {0};
   launch_fill(g, ctx, r, 0, 64, 0x41414141);
   ctx->buffer_read(ctx, r, 0, sizeof(got), got);
   assert_int_equal(got[0], 0x41414141);
   assert_int_equal(got[3], 0x41414141);

   launch_fill(g, ctx, r, 0, 64, 0x42424242);
   struct pipe_transfer *t = NULL;
   const uint32_t *p = ctx->transfer_map(ctx, r, 16, 16, PIPE_MAP_READ, &t);
   assert_non_null(p);
   assert_int_equal(p[0], 0x42424242);
   ctx->transfer_unmap(ctx, t);

   /* A write after a launch lands after it. */
   launch_fill(g, ctx, r, 0, 64, 0x43434343);
   const uint32_t mine = 7;
   ctx->buffer_write(ctx, r, 8, 4, &mine);
   launch_fill(g, ctx, r2, 0, 64, 0x44444444);
   ctx->resource_copy_region(ctx, r2, 0, r, 0, 16);
   ctx->buffer_read(ctx, r2, 0, sizeof(got), got);
   assert_int_equal(got[0], 0x43434343);
   assert_int_equal(got[2], 7);
   const uint32_t pat = 0x5a5a5a5a;
   launch_fill(g, ctx, r2, 0, 64, 0x45454545);
   ctx->clear_buffer(ctx, r2, 4, 8, &pat, 4);
   ctx->buffer_read(ctx, r2, 0, sizeof(got), got);
   assert_int_equal(got[0], 0x45454545);
   assert_int_equal(got[1], 0x5a5a5a5a);
   assert_int_equal(got[2], 0x5a5a5a5a);
   assert_int_equal(got[3], 0x45454545);

   /* Rectangles, row by row. */
   uint8_t host[4 * 8];
   for (unsigned i = 0; i < sizeof(host); i++)
      host[i] = (uint8_t)i;
   const struct pipe_rect d = {.offset = 100, .row_pitch = 16}, h = {.offset = 0, .row_pitch = 8};
   const size_t region[3] = {8, 4, 1};
   ctx->buffer_write_rect(ctx, r, &d, host, &h, region);
   uint8_t back[sizeof(host)] = {0};
   ctx->buffer_read_rect(ctx, r, &d, back, &h, region);
   assert_memory_equal(back, host, sizeof(host));
   assert_int_equal(((const uint8_t *)s->resource_host_pointer(s, r))[100 + 16 + 3], 8 + 3);
   assert_int_equal(bad_addresses, 0);
   s->resource_destroy(s, r);
   s->resource_destroy(s, r2);
   ctx->destroy(ctx);
}

/* Two contexts are two rings: a fence of one waits for its own work. */
static void test_context_per_ring(void **state)
{
   (void)state;
   struct gpu *g = &gpus[0];
   struct pipe_screen *s = g->screen;
   int contexts = fake.contexts;
   struct pipe_context *a = s->context_create(s), *b = s->context_create(s);
   assert_int_equal(fake.contexts, contexts + 2);
   struct pipe_resource *ra = s->resource_create(s, 4096), *rb = s->resource_create(s, 4096);
   unsigned submits = fake.num_submits, ran = fake.executed;
   launch_fill(g, a, ra, 0, 64, 1);
   launch_fill(g, b, rb, 0, 64, 2);
   assert_ptr_not_equal(fake.submits[submits].ctx, fake.submits[submits + 1].ctx);
   struct pipe_fence *fb = NULL, *fa = NULL;
   b->flush(b, &fb);
   assert_int_equal(s->fence_wait(s, fb, PIPE_TIMEOUT_INFINITE), PIPE_FENCE_SIGNALLED);
   assert_int_equal(fake.executed, ran + 1);
   assert_true(fake.submits[submits + 1].executed);
   assert_false(fake.submits[submits].executed);
   a->flush(a, &fa);
   /* A context may go before its fence. */
   a->destroy(a);
   assert_int_equal(s->fence_wait(s, fa, PIPE_TIMEOUT_INFINITE), PIPE_FENCE_SIGNALLED);
   assert_int_equal(fake.executed, ran + 2);
   s->fence_destroy(s, fa);
   s->fence_destroy(s, fb);
   b->destroy(b);
   assert_int_equal(fake.contexts, contexts);
   s->resource_destroy(s, ra);
   s->resource_destroy(s, rb);
}

/* Bindings: the driver writes the resource's address plus the offset,
 * 0 for a NULL buffer, and __local offsets after the kernel's own LDS. */
static void test_bindings(void **state)
{
   (void)state;
   for (unsigned which = 0; which < 2; which++) {
      struct gpu *g = &gpus[which];
      struct pipe_screen *s = g->screen;
      struct pipe_context *ctx = s->context_create(s);
      struct pipe_resource *r = s->resource_create(s, 8192);
      const struct kiln_kernel_info *info = meta(g, "locals");
      uint8_t *args = calloc(1, info->args_size);
      const struct pipe_binding b[3] = {
         {.arg = 0, .kind = PIPE_BIND_GLOBAL, .res = r, .offset = 256},
         {.arg = 1, .kind = PIPE_BIND_LOCAL, .local_size = 100},
         {.arg = 2, .kind = PIPE_BIND_LOCAL, .local_size = 64},
      };
      struct pipe_grid_info grid = {
         .kernel = kernel(g, "locals"),
         .work_dim = 1,
         .global_size = {64, 1, 1},
         .local_size = {16, 1, 1},
         .args = args,
         .args_size = info->args_size,
         .info = info,
         .bindings = b,
         .num_bindings = 3,
      };
      fake.execute = NULL;
      unsigned submits = fake.num_submits;
      assert_int_equal(ctx->launch_grid(ctx, &grid), CL_SUCCESS);
      const struct fake_submit *sub = &fake.submits[submits];
      struct fake_dispatch d;
      assert_true(fake_submit_dispatch(sub, &d));
      assert_non_null(d.kernarg);
      struct pipe_kernel_info ki;
      s->get_kernel_info(s, grid.kernel, info, &ki);
      assert_int_equal(ki.static_local_mem_size, 400);
      uint64_t va;
      uint32_t la, lb, lds;
      memcpy(&va, d.kernarg + info->args[0].offset, 8);
      memcpy(&la, d.kernarg + info->args[1].offset, 4);
      memcpy(&lb, d.kernarg + info->args[2].offset, 4);
      memcpy(&lds, d.packet + 28, 4);
      const uint8_t *mem = s->resource_host_pointer(s, r);
      assert_ptr_equal(fake_drm_va_to_cpu(va, 4), mem + 256);
      assert_int_equal(la, 512); /* 400 bytes of s[], aligned to 128 */
      assert_int_equal(lb, 640); /* 512 + 100, aligned */
      assert_int_equal(lds, 640 + 64);
      /* The buffer is resident in the submission. */
      bool listed = false;
      for (unsigned i = 0; i < sub->num_bos; i++)
         listed |= fake_drm_va_to_cpu(sub->bo_va[i], 1) == mem;
      assert_true(listed);

      /* A NULL buffer argument. */
      const struct pipe_binding nb[3] = {
         {.arg = 0, .kind = PIPE_BIND_GLOBAL},
         b[1],
         b[2],
      };
      grid.bindings = nb;
      assert_int_equal(ctx->launch_grid(ctx, &grid), CL_SUCCESS);
      assert_true(fake_submit_dispatch(&fake.submits[submits + 1], &d));
      memcpy(&va, d.kernarg + info->args[0].offset, 8);
      assert_int_equal(va, 0);
      /* Too much __local memory fails while recording. */
      const struct pipe_binding big[3] = {b[0], {.arg = 1, .kind = PIPE_BIND_LOCAL,
                                                  .local_size = 64 << 10}, b[2]};
      grid.bindings = big;
      assert_int_equal(ctx->launch_grid(ctx, &grid), CL_OUT_OF_RESOURCES);
      /* A binding the metadata disagrees with. */
      const struct pipe_binding wrong[1] = {{.arg = 1, .kind = PIPE_BIND_GLOBAL, .res = r}};
      grid.bindings = wrong;
      grid.num_bindings = 1;
      assert_int_equal(ctx->launch_grid(ctx, &grid), CL_INVALID_KERNEL);
      free(args);
      struct pipe_fence *f = NULL;
      ctx->flush(ctx, &f);
      assert_int_equal(s->fence_wait(s, f, PIPE_TIMEOUT_INFINITE), PIPE_FENCE_SIGNALLED);
      s->fence_destroy(s, f);
      ctx->destroy(ctx);
      s->resource_destroy(s, r);
      fake.execute = run_fill;
   }
}

/* Per-kernel limits from the code object. */
static void test_kernel_info(void **state)
{
   (void)state;
   for (unsigned which = 0; which < 2; which++) {
      struct gpu *g = &gpus[which];
      struct pipe_kernel_info ki;
      g->screen->get_kernel_info(g->screen, kernel(g, "fill"), meta(g, "fill"), &ki);
      assert_int_equal(ki.preferred_work_group_size_multiple, which ? 32 : 64);
      assert_int_equal(ki.max_work_group_size, 256);
      assert_int_equal(ki.private_mem_size, 0);
      assert_int_equal(ki.static_local_mem_size, 0);
      g->screen->get_kernel_info(g->screen, kernel(g, "priv"), meta(g, "priv"), &ki);
      assert_true(ki.private_mem_size >= 1024);
      /* reqd_work_group_size caps it. */
      struct kiln_kernel_info m = *meta(g, "fill");
      m.reqd_work_group_size[0] = 8;
      m.reqd_work_group_size[1] = 4;
      m.reqd_work_group_size[2] = 1;
      g->screen->get_kernel_info(g->screen, kernel(g, "fill"), &m, &ki);
      assert_int_equal(ki.max_work_group_size, 32);
   }
}

/* CL_MEM_USE_HOST_PTR: the application's bytes are the GPU's (userptr),
 * from anywhere in a page; without the import, NULL (core copies). */
static void test_user_memory(void **state)
{
   (void)state;
   struct gpu *g = &gpus[0];
   struct pipe_screen *s = g->screen;
   uint32_t *host = aligned_alloc(4096, 3 * 4096);
   memset(host, 0, 3 * 4096);
   uint32_t *mine = host + 5; /* not page aligned */
   struct pipe_resource *r = s->resource_from_user_memory(s, mine, 4096);
   assert_non_null(r);
   assert_true(r->user_memory);
   assert_ptr_equal(s->resource_host_pointer(s, r), mine);
   struct pipe_context *ctx = s->context_create(s);
   launch_fill(g, ctx, r, 8, 256, 0x41414141);
   struct pipe_fence *f = NULL;
   ctx->flush(ctx, &f);
   assert_int_equal(s->fence_wait(s, f, PIPE_TIMEOUT_INFINITE), PIPE_FENCE_SIGNALLED);
   s->fence_destroy(s, f);
   assert_int_equal(bad_addresses, 0);
   assert_int_equal(mine[1], 0);
   assert_int_equal(mine[2], 0x41414141);
   assert_int_equal(mine[257], 0x41414141);
   assert_int_equal(mine[258], 0);
   s->resource_destroy(s, r);
   ctx->destroy(ctx);

   /* libdrm without amdgpu_create_bo_from_user_mem (the fake's table is
    * one structure: refilling it changes what the screen sees). */
   fake.no_userptr = true;
   fake_drm_table();
   assert_null(s->resource_from_user_memory(s, mine, 4096));
   fake.no_userptr = false;
   fake_drm_table();
   free(host);
}

/* A GPU that does not finish: a short wait is BUSY, "forever" fails after
 * KILN_AMDGPU_TIMEOUT_MS (10 ms here). */
static void test_fence_timeout(void **state)
{
   (void)state;
   struct gpu *g = &gpus[1];
   struct pipe_screen *s = g->screen;
   struct pipe_context *ctx = s->context_create(s);
   struct pipe_resource *r = s->resource_create(s, 4096);
   launch_fill(g, ctx, r, 0, 64, 9);
   struct pipe_fence *f = NULL;
   ctx->flush(ctx, &f);
   assert_non_null(f);
   fake.fence_never_signals = true;
   assert_int_equal(s->fence_wait(s, f, 1000), PIPE_FENCE_BUSY);
   assert_int_equal(s->fence_wait(s, f, PIPE_TIMEOUT_INFINITE), CL_OUT_OF_RESOURCES);
   /* A read that cannot wait is skipped, and the next fence says so. */
   uint32_t got = 1234;
   ctx->buffer_read(ctx, r, 0, 4, &got);
   assert_int_equal(got, 1234);
   struct pipe_fence *f2 = NULL;
   ctx->flush(ctx, &f2);
   assert_non_null(f2);
   assert_int_equal(s->fence_wait(s, f2, 0), CL_OUT_OF_RESOURCES);
   fake.fence_never_signals = false;
   assert_int_equal(s->fence_wait(s, f, PIPE_TIMEOUT_INFINITE), PIPE_FENCE_SIGNALLED);
   s->fence_destroy(s, f);
   s->fence_destroy(s, f2);
   s->resource_destroy(s, r);
   ctx->destroy(ctx);
}

/* Destroying a context with launches in flight waits for them and
 * returns every BO. */
static void test_destroy_in_flight(void **state)
{
   (void)state;
   struct gpu *g = &gpus[0];
   struct pipe_screen *s = g->screen;
   unsigned bos = live_bos();
   struct pipe_context *ctx = s->context_create(s);
   struct pipe_resource *r = s->resource_create(s, 4096);
   unsigned ran = fake.executed;
   launch_fill(g, ctx, r, 0, 64, 3);
   launch_fill(g, ctx, r, 0, 64, 4);
   ctx->destroy(ctx);
   assert_int_equal(fake.executed, ran + 2);
   assert_int_equal(((const uint32_t *)s->resource_host_pointer(s, r))[0], 4);
   s->resource_destroy(s, r);
   assert_int_equal(live_bos(), bos);
}

int main(void)
{
   fake_drm_reset();
   fake_drm_add_gpu(141, 0x01, "Radeon RX Vega 64"); /* gfx900 */
   fake_drm_add_gpu(145, 0x01, NULL);                /* gfx1100 */
   struct pipe_screen *list[2];
   if (amdgpu_screen_probe(list, 2) != 2) {
      fprintf(stderr, "the faked GPUs are not screens\n");
      return 1;
   }
   for (unsigned i = 0; i < 2; i++) {
      struct gpu *g = &gpus[i];
      g->screen = list[i];
      struct kiln_compile_target t = {.opencl_version = 110, .cl_ext = AMDGPU_CLANG_EXTENSIONS};
      if (kiln_llvm_build_amdgpu(src, strlen(src), "", &t, list[i]->caps.ir_target, &g->out) !=
          KILN_BUILD_OK) {
         fprintf(stderr, "%s\n", g->out.log);
         return 1;
      }
      char *error = NULL;
      g->program = list[i]->program_create(list[i], g->out.object, g->out.object_size, &error);
      if (!g->program) {
         fprintf(stderr, "program_create: %s\n", error ? error : "no memory");
         return 1;
      }
   }
   const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_launch_does_not_wait, setup),
      cmocka_unit_test_setup(test_host_access_waits, setup),
      cmocka_unit_test_setup(test_context_per_ring, setup),
      cmocka_unit_test_setup(test_bindings, setup),
      cmocka_unit_test_setup(test_kernel_info, setup),
      cmocka_unit_test_setup(test_user_memory, setup),
      cmocka_unit_test_setup(test_fence_timeout, setup),
      cmocka_unit_test_setup(test_destroy_in_flight, setup),
   };
   int failed = cmocka_run_group_tests(tests, NULL, NULL);
   for (unsigned i = 0; i < 2; i++) {
      gpus[i].screen->program_destroy(gpus[i].screen, gpus[i].program);
      kiln_build_output_fini(&gpus[i].out);
      gpus[i].screen->destroy(gpus[i].screen);
   }
   if (!failed && (fake_drm_live() || fake.bad_handles)) {
      fprintf(stderr, "the driver left %u fake objects (%u bad handles)\n", fake_drm_live(),
              fake.bad_handles);
      return 1;
   }
   return failed;
}
