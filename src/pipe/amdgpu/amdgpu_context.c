/* AMDGPU contexts: one ring per context (per queue).  A launch is one IB
 * with its own kernarg BO, submitted at once and not waited for; the IB
 * starts by waiting for the ring's previous dispatch, so launches of a
 * context run in order.  Host-side work (reads, writes, copies, fills,
 * maps) goes through the GTT mapping after waiting for the context's
 * launches, which keeps the recorded order without GPU copy packets. */
#include <string.h>

#include "kiln/kernel_info.h"
#include "pipe/amdgpu/amdgpu_dispatch.h"
#include "pipe/amdgpu/amdgpu_queue.h"
#include "pipe/amdgpu/amdgpu_screen.h"
#include "pipe/pipe_util.h"
#include "util/alloc.h"
#include "util/log.h"
#include "winsys/amdgpu/amdgpu_winsys.h"

#define IB_BYTES 4096u

struct amdgpu_context {
   struct pipe_context base;
   struct amdgpu_queue *q;
   /* A host-side step that could not wait for the GPU (hung, lost): it
    * was skipped, and the next fence fails with this. */
   cl_int error;
};

static struct amdgpu_context *amdgpu_context(struct pipe_context *c)
{
   return (struct amdgpu_context *)c;
}

/* The context's launches have ended: the host may touch their memory. */
static bool host_sync(struct amdgpu_context *c)
{
   if (c->error)
      return false;
   c->error = amdgpu_queue_idle(c->q);
   return !c->error;
}

static char *host(struct pipe_resource *res)
{
   return amdgpu_resource(res)->cpu;
}

static void buffer_write(struct pipe_context *ctx, struct pipe_resource *dst, size_t offset,
                         size_t size, const void *src)
{
   if (host_sync(amdgpu_context(ctx)))
      memcpy(host(dst) + offset, src, size);
}

static void buffer_read(struct pipe_context *ctx, struct pipe_resource *src, size_t offset,
                        size_t size, void *dst)
{
   if (host_sync(amdgpu_context(ctx)))
      memcpy(dst, host(src) + offset, size);
}

static void copy_region(struct pipe_context *ctx, struct pipe_resource *dst, size_t dst_offset,
                        struct pipe_resource *src, size_t src_offset, size_t size)
{
   if (host_sync(amdgpu_context(ctx)))
      memmove(host(dst) + dst_offset, host(src) + src_offset, size);
}

static void clear_buffer(struct pipe_context *ctx, struct pipe_resource *res, size_t offset,
                         size_t size, const void *pattern, size_t pattern_size)
{
   if (!host_sync(amdgpu_context(ctx)))
      return;
   char *p = host(res) + offset;
   for (size_t done = 0; done < size; done += pattern_size)
      memcpy(p + done, pattern, pattern_size);
}

/* GTT is host-visible: a map is the resource's own bytes once the GPU is
 * done with them, and an unmap has nothing to write back (the next IB
 * invalidates the GPU's caches).  The transfer handle is the resource. */
static void *transfer_map(struct pipe_context *ctx, struct pipe_resource *res, size_t offset,
                          size_t size, unsigned flags, struct pipe_transfer **transfer)
{
   (void)size, (void)flags;
   if (!host_sync(amdgpu_context(ctx)))
      return NULL;
   *transfer = (struct pipe_transfer *)res;
   return host(res) + offset;
}

static void transfer_unmap(struct pipe_context *ctx, struct pipe_transfer *transfer)
{
   (void)ctx, (void)transfer;
}

static void flush(struct pipe_context *ctx, struct pipe_fence **fence)
{
   struct amdgpu_context *c = amdgpu_context(ctx);
   /* Launches went to the GPU when recorded: only the fence is new. */
   if (!fence)
      return;
   if (amdgpu_queue_fence(c->q, c->error, fence)) {
      /* No memory for a fence: the work is complete when this returns. */
      *fence = NULL;
      amdgpu_queue_idle(c->q);
      return;
   }
   c->error = CL_SUCCESS;
}

static void destroy(struct pipe_context *ctx)
{
   struct amdgpu_context *c = amdgpu_context(ctx);
   amdgpu_queue_release(c->q);
   kiln_free(c);
}

/* Adds bo to bos[0..*n) unless it is there. */
static void add_bo(struct amdgpu_ws_bo **bos, unsigned *n, struct amdgpu_ws_bo *bo)
{
   for (unsigned k = 0; k < *n; k++)
      if (bos[k] == bo)
         return;
   bos[(*n)++] = bo;
}

static int launch_grid(struct pipe_context *ctx, const struct pipe_grid_info *grid)
{
   struct amdgpu_context *c = amdgpu_context(ctx);
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
      if (local > ctx->screen->caps.max_work_group_size)
         return CL_INVALID_WORK_GROUP_SIZE;
      /* Core refuses these at enqueue (caps.max_grid_*); the packet and
       * the implicit arguments would wrap them. */
      if (groups > UINT32_MAX || grid->global_size[d] > UINT32_MAX ||
          grid->global_offset[d] > UINT32_MAX)
         return CL_OUT_OF_RESOURCES;
      l.local[d] = (uint32_t)local;
      l.groups[d] = (uint32_t)groups;
   }

   /* The launch's own BOs, the ring's until the launch ends: IB, kernarg
    * (the dispatch packet, then the kernarg segment) and scratch for
    * private memory (VRAM for this launch alone; a per-context scratch
    * kept between launches is an optimisation to come). */
   struct amdgpu_ws_bo *own[AMDGPU_QUEUE_MAX_OWN] = {NULL, NULL, NULL};
   struct amdgpu_ws_bo *kernarg = NULL, *ib = NULL, *scratch = NULL;
   uint64_t scratch_bytes = 0;
   amdgpu_scratch_size(s->isa.gfx_level, desc, ctx->screen->caps.max_compute_units,
                       &l.tmpring_size, &scratch_bytes);
   if (scratch_bytes) {
      err = amdgpu_ws_bo_create(s->ws, scratch_bytes, 65536, AMDGPU_WS_VRAM, false, &scratch);
      if (err)
         return err;
      l.scratch_va = scratch->va;
   }
   struct amdgpu_ws_bo **bos = kiln_calloc(grid->num_bindings + 3, sizeof(*bos));
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
   /* Addresses and __local offsets go into the driver's own kernarg
    * copy: core's argument buffer is not touched. */
   if (!err)
      err = amdgpu_kernarg_build(grid, desc, (uint32_t)ctx->screen->caps.local_mem_size,
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
      /* Residency: exactly the buffers bound, known from the bindings. */
      for (uint32_t i = 0; i < grid->num_bindings; i++)
         if (grid->bindings[i].res)
            add_bo(bos, &n, amdgpu_resource(grid->bindings[i].res)->bo);
   }
   struct pm4_buf b = {.dw = icpu, .cap = IB_BYTES / 4};
   if (!err) {
      amdgpu_emit_dispatch(&b, &l);
      if (b.overflow)
         err = CL_OUT_OF_RESOURCES;
   }
   unsigned num_own = 0;
   if (!err) {
      own[num_own++] = ib;
      own[num_own++] = kernarg;
      if (scratch)
         own[num_own++] = scratch;
      err = amdgpu_queue_submit(c->q, ib, b.n, bos, n, own, num_own);
   }
   kiln_free(bos);
   if (err) {
      amdgpu_ws_bo_destroy(s->ws, ib);
      amdgpu_ws_bo_destroy(s->ws, kernarg);
      amdgpu_ws_bo_destroy(s->ws, scratch);
   }
   return err;
}

struct pipe_context *amdgpu_context_create(struct pipe_screen *screen)
{
   struct amdgpu_context *c = kiln_calloc(1, sizeof(*c));
   if (!c)
      return NULL;
   if (amdgpu_queue_create(amdgpu_screen(screen), &c->q)) {
      kiln_free(c);
      return NULL;
   }
   struct pipe_context *p = &c->base;
   p->screen = screen;
   p->destroy = destroy;
   p->buffer_write = buffer_write;
   p->buffer_read = buffer_read;
   p->resource_copy_region = copy_region;
   p->buffer_write_rect = pipe_util_buffer_write_rect;
   p->buffer_read_rect = pipe_util_buffer_read_rect;
   p->resource_copy_rect = pipe_util_resource_copy_rect;
   p->clear_buffer = clear_buffer;
   p->launch_grid = launch_grid;
   p->flush = flush;
   p->transfer_map = transfer_map;
   p->transfer_unmap = transfer_unmap;
   return p;
}
