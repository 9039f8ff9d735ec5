/* The CPU driver's context: work runs as it is recorded (transfers are
 * memcpy on the calling thread, launches fan out to the worker pool), so
 * flush hands back no fence.  A sub-device's context owns a worker pool
 * of its own, one thread per compute unit, pinned to its CPUs; a root
 * device's shares the screen's.  The discrete test mode replaces these
 * slots with recording ones (cpu_discrete.c). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pipe/cpu/cpu_context.h"
#include "pipe/cpu/cpu_screen.h"
#include "pipe/cpu/cpu_tpool.h"
#include "pipe/pipe_util.h"
#include "util/alloc.h"
#include "winsys/sw/sw_winsys.h"

struct cpu_tpool *cpu_context_tpool(struct pipe_context *pctx)
{
   struct cpu_context *ctx = (struct cpu_context *)pctx;
   if (!ctx->num_cpus)
      return cpu_screen_tpool(pctx->screen);
   pthread_mutex_lock(&ctx->tpool_lock);
   if (!ctx->tpool)
      ctx->tpool = cpu_tpool_create(ctx->num_cpus, ctx->cpus, ctx->num_cpus, cpu_tpool_pinned());
   struct cpu_tpool *pool = ctx->tpool;
   pthread_mutex_unlock(&ctx->tpool_lock);
   return pool;
}

void cpu_buffer_write(struct pipe_context *ctx, struct pipe_resource *dst, size_t offset,
                             size_t size, const void *src)
{
   (void)ctx;
   memcpy((char *)cpu_resource_data(dst) + offset, src, size);
}

void cpu_buffer_read(struct pipe_context *ctx, struct pipe_resource *src, size_t offset,
                            size_t size, void *dst)
{
   (void)ctx;
   memcpy(dst, (char *)cpu_resource_data(src) + offset, size);
}

void cpu_resource_copy_region(struct pipe_context *ctx, struct pipe_resource *dst,
                                     size_t dst_offset, struct pipe_resource *src,
                                     size_t src_offset, size_t size)
{
   (void)ctx;
   /* memmove: the API forbids overlap, but sub-buffers of one buffer make
    * aliasing easy to get wrong and this costs nothing. */
   memmove((char *)cpu_resource_data(dst) + dst_offset,
           (char *)cpu_resource_data(src) + src_offset, size);
}

void cpu_clear_buffer(struct pipe_context *ctx, struct pipe_resource *res, size_t offset,
                             size_t size, const void *pattern, size_t pattern_size)
{
   (void)ctx;
   char *p = (char *)cpu_resource_data(res) + offset;
   if (!size)
      return;
   if (pattern_size == 1) {
      memset(p, *(const char *)pattern, size);
      return;
   }
   /* Write one pattern, then double the filled part each step. */
   memcpy(p, pattern, pattern_size);
   size_t done = pattern_size;
   while (done < size) {
      size_t n = done < size - done ? done : size - done;
      memcpy(p + done, p, n);
      done += n;
   }
}

static void cpu_flush(struct pipe_context *ctx, struct pipe_fence **fence)
{
   (void)ctx; /* every call above is complete when it returns */
   if (fence)
      *fence = NULL;
}

static void *cpu_transfer_map(struct pipe_context *ctx, struct pipe_resource *res, size_t offset,
                              size_t size, unsigned flags, struct pipe_transfer **transfer)
{
   (void)ctx;
   (void)size;
   (void)flags;
   *transfer = NULL;
   return (char *)cpu_resource_data(res) + offset;
}

static void cpu_transfer_unmap(struct pipe_context *ctx, struct pipe_transfer *transfer)
{
   (void)ctx;
   (void)transfer;
}

static void cpu_context_destroy(struct pipe_context *pctx)
{
   struct cpu_context *ctx = (struct cpu_context *)pctx;
   if (ctx->discrete)
      cpu_discrete_fini_context(pctx);
   cpu_tpool_destroy(ctx->tpool);
   sw_winsys_free(ctx->inline_arena);
   pthread_mutex_destroy(&ctx->tpool_lock);
   kiln_free(ctx->cpus);
   kiln_free(ctx);
}

struct pipe_context *cpu_context_create(struct pipe_screen *screen)
{
   struct cpu_context *cctx = kiln_calloc(1, sizeof(*cctx));
   if (!cctx)
      return NULL;
   struct pipe_context *ctx = &cctx->base;
   pthread_mutex_init(&cctx->tpool_lock, NULL);
   atomic_flag_clear(&cctx->inline_busy);
   ctx->screen = screen;
   ctx->destroy = cpu_context_destroy;
   ctx->buffer_write = cpu_buffer_write;
   ctx->buffer_read = cpu_buffer_read;
   ctx->resource_copy_region = cpu_resource_copy_region;
   ctx->clear_buffer = cpu_clear_buffer;
   ctx->buffer_write_rect = pipe_util_buffer_write_rect;
   ctx->buffer_read_rect = pipe_util_buffer_read_rect;
   ctx->resource_copy_rect = pipe_util_resource_copy_rect;
   ctx->flush = cpu_flush;
   ctx->launch_grid = cpu_launch_grid_now;
   ctx->transfer_map = cpu_transfer_map;
   ctx->transfer_unmap = cpu_transfer_unmap;
   return ctx;
}

struct pipe_context *cpu_context_create_on_units(struct pipe_screen *screen, const unsigned *units,
                                                 unsigned num_units)
{
   if (!num_units)
      return NULL;
   int *cpus = kiln_malloc(num_units * sizeof(*cpus));
   if (!cpus)
      return NULL;
   for (unsigned i = 0; i < num_units; i++) {
      if (units[i] >= screen->topology.num_units) {
         kiln_free(cpus);
         return NULL;
      }
      cpus[i] = screen->topology.units[units[i]].os_id;
   }
   struct cpu_context *ctx = (struct cpu_context *)cpu_context_create(screen);
   if (!ctx) {
      kiln_free(cpus);
      return NULL;
   }
   ctx->cpus = cpus;
   ctx->num_cpus = num_units;
   return &ctx->base;
}
