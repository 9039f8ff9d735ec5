/* AMDGPU contexts: each launch is one IB on the compute ring with its own
 * kernarg BO, submitted and waited for before launch_grid returns (no
 * pipelining yet: simple, and buffers are then idle for host access). */
#include <string.h>

#include "kiln/kernel_info.h"
#include "pipe/amdgpu/amdgpu_dispatch.h"
#include "pipe/amdgpu/amdgpu_screen.h"
#include "util/alloc.h"
#include "util/log.h"
#include "winsys/amdgpu/amdgpu_winsys.h"

#define IB_BYTES 4096u


static void *host(struct pipe_resource *res)
{
   return ((struct amdgpu_resource *)res)->cpu;
}

static void buffer_write(struct pipe_context *ctx, struct pipe_resource *dst, size_t offset,
                         size_t size, const void *src)
{
   (void)ctx;
   memcpy((char *)host(dst) + offset, src, size);
}

static void buffer_read(struct pipe_context *ctx, struct pipe_resource *src, size_t offset,
                        size_t size, void *dst)
{
   (void)ctx;
   memcpy(dst, (const char *)host(src) + offset, size);
}

static void copy_region(struct pipe_context *ctx, struct pipe_resource *dst, size_t dst_offset,
                        struct pipe_resource *src, size_t src_offset, size_t size)
{
   (void)ctx;
   memmove((char *)host(dst) + dst_offset, (const char *)host(src) + src_offset, size);
}

static void clear_buffer(struct pipe_context *ctx, struct pipe_resource *res, size_t offset,
                         size_t size, const void *pattern, size_t pattern_size)
{
   (void)ctx;
   char *p = (char *)host(res) + offset;
   for (size_t done = 0; done < size; done += pattern_size)
      memcpy(p + done, pattern, pattern_size);
}

static void flush(struct pipe_context *ctx)
{
   (void)ctx; /* every launch has ended when it returns */
}

static void destroy(struct pipe_context *ctx)
{
   kiln_free(ctx);
}

/* The buffers the kernel's pointer arguments lie in: what the kernel
 * must find resident.  *n counts them without duplicates. */
static cl_int arg_bos(struct amdgpu_screen *s, const struct pipe_grid_info *grid,
                      struct amdgpu_ws_bo **bos, unsigned *n)
{
   const struct kiln_kernel_info *info = grid->info;
   for (uint32_t i = 0; i < info->num_args; i++) {
      const struct kiln_arg_info *a = &info->args[i];
      if (a->kind != KILN_ARG_GLOBAL && a->kind != KILN_ARG_CONSTANT)
         continue;
      uint64_t va;
      memcpy(&va, (const char *)grid->args + a->offset, sizeof(va));
      if (!va)
         continue; /* a NULL buffer argument */
      struct amdgpu_resource *r = amdgpu_screen_find_resource(s, va);
      if (!r)
         return CL_INVALID_MEM_OBJECT;
      bool seen = false;
      for (unsigned k = 0; k < *n; k++)
         seen |= bos[k] == r->bo;
      if (!seen)
         bos[(*n)++] = r->bo;
   }
   return CL_SUCCESS;
}

static int launch_grid(struct pipe_context *ctx, const struct pipe_grid_info *grid)
{
   struct amdgpu_screen *s = amdgpu_screen(ctx->screen);
   const struct amdgpu_kernel *k = grid->kernel;
   const struct amdgpu_kernel_desc *desc = k->desc;
   cl_int err = amdgpu_launch_supported(desc);
   if (err) {
      kiln_log(KILN_LOG_WARN, "amdgpu: kernel '%s' needs inputs the AMDGPU dispatch does not "
                              "provide (queue pointer, dispatch id)",
               desc->name);
      return err;
   }
   if (!grid->info || desc->kernarg_align > AMDGPU_DISPATCH_PACKET_SIZE)
      return CL_INVALID_KERNEL;
   struct amdgpu_launch l = {
      .gfx_level = s->isa.gfx_level,
      .desc = desc,
      .code_va = k->program->code->va + desc->code_offset,
   };
   for (int d = 0; d < 3; d++) {
      uint64_t local = grid->local_size[d] ? grid->local_size[d] : 1;
      uint64_t groups = grid->global_size[d] / local;
      if (local > ctx->screen->caps.max_work_group_size || groups > UINT32_MAX)
         return CL_INVALID_WORK_GROUP_SIZE;
      l.local[d] = (uint32_t)local;
      l.groups[d] = (uint32_t)groups;
   }

   /* The kernarg BO: the dispatch packet, then the kernarg segment. */
   struct amdgpu_ws_bo *kernarg = NULL, *ib = NULL;
   /* Scratch for private memory: VRAM for this launch alone (launches
    * are serial; keeping it between launches is an optimisation to come). */
   struct amdgpu_ws_bo *scratch = NULL;
   uint64_t scratch_bytes = 0;
   amdgpu_scratch_size(s->isa.gfx_level, desc, ctx->screen->caps.max_compute_units,
                       &l.tmpring_size, &scratch_bytes);
   if (scratch_bytes) {
      err = amdgpu_ws_bo_create(s->ws, scratch_bytes, 65536, AMDGPU_WS_VRAM, false, &scratch);
      if (err)
         return err;
      l.scratch_va = scratch->va;
   }
   struct amdgpu_ws_bo **bos = kiln_calloc(grid->info->num_args + 3, sizeof(*bos));
   if (!bos) {
      amdgpu_ws_bo_destroy(s->ws, scratch);
      return CL_OUT_OF_HOST_MEMORY;
   }
   void *kcpu = NULL, *icpu = NULL;
   err = amdgpu_ws_bo_create(s->ws, AMDGPU_DISPATCH_PACKET_SIZE + desc->kernarg_size, 256,
                             AMDGPU_WS_GTT, true, &kernarg);
   if (!err)
      err = amdgpu_ws_bo_map(s->ws, kernarg, &kcpu);
   if (!err)
      err = amdgpu_ws_bo_create(s->ws, IB_BYTES, 256, AMDGPU_WS_GTT, true, &ib);
   if (!err)
      err = amdgpu_ws_bo_map(s->ws, ib, &icpu);
   if (!err)
      err = amdgpu_kernarg_build(grid->info, desc, grid, (uint32_t)ctx->screen->caps.local_mem_size,
                                 (uint8_t *)kcpu + AMDGPU_DISPATCH_PACKET_SIZE, &l.lds_bytes);
   unsigned n = 0;
   if (!err) {
      l.dispatch_va = kernarg->va;
      l.kernarg_va = kernarg->va + AMDGPU_DISPATCH_PACKET_SIZE;
      amdgpu_dispatch_packet(kcpu, grid, desc, l.lds_bytes, l.code_va, l.kernarg_va);
      bos[n++] = kernarg;
      bos[n++] = k->program->code;
      if (scratch)
         bos[n++] = scratch;
      err = arg_bos(s, grid, bos, &n);
   }
   struct pm4_buf b = {.dw = icpu, .cap = IB_BYTES / 4};
   if (!err) {
      amdgpu_emit_dispatch(&b, &l);
      if (b.overflow)
         err = CL_OUT_OF_RESOURCES;
   }
   uint64_t seq = 0;
   if (!err)
      err = amdgpu_ws_submit(s->ws, ib, b.n, bos, n, &seq);
   if (!err) {
      bool timed_out = false;
      err = amdgpu_ws_fence_wait(s->ws, seq, s->fence_timeout_ns, &timed_out);
      if (timed_out)
         kiln_log(KILN_LOG_WARN, "amdgpu: kernel '%s' did not end within KILN_AMDGPU_TIMEOUT_MS",
                  desc->name);
   }
   amdgpu_ws_bo_destroy(s->ws, ib);
   amdgpu_ws_bo_destroy(s->ws, kernarg);
   amdgpu_ws_bo_destroy(s->ws, scratch);
   kiln_free(bos);
   return err;
}

struct pipe_context *amdgpu_context_create(struct pipe_screen *screen)
{
   struct pipe_context *c = kiln_calloc(1, sizeof(*c));
   if (!c)
      return NULL;
   c->screen = screen;
   c->destroy = destroy;
   c->buffer_write = buffer_write;
   c->buffer_read = buffer_read;
   c->resource_copy_region = copy_region;
   c->clear_buffer = clear_buffer;
   c->launch_grid = launch_grid;
   c->flush = flush;
   return c;
}
