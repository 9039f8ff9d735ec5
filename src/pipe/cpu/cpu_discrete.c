/* The CPU driver's discrete test mode (KILN_DEVICES=cpu-discrete): the
 * CPU device made to look like a GPU to core, so that every CI run goes
 * through the paths a GPU needs without one.  Its memory is not shown to
 * the host (no host pointers, no user-memory import: core stages, copies
 * and migrates), and a context does nothing as work is recorded: a thread
 * of its own does it in order, KILN_CPU_DISCRETE_DELAY_US (default 50)
 * microseconds after picking each piece up, and flush hands back fences
 * that signal when it is done. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pipe/cpu/cpu_context.h"
#include "pipe/cpu/cpu_screen.h"
#include "util/alloc.h"

enum op_kind { OP_WRITE, OP_READ, OP_COPY, OP_CLEAR, OP_LAUNCH };

struct op {
   enum op_kind kind;
   uint64_t seq;
   struct pipe_resource *dst, *src;
   size_t dst_offset, src_offset, size;
   const void *host_src;
   void *host_dst;
   unsigned char pattern[128];
   size_t pattern_size;
   struct cpu_launch *launch;
   struct op *next;
};

/* What fences of a context look at; outlives the context while fences
 * of it exist. */
struct timeline {
   pthread_mutex_t lock;
   pthread_cond_t cond;
   uint64_t done;            /* every op up to this one is finished */
   uint64_t error_seq;       /* the last op that failed, and how */
   int error;
   unsigned refs;
};

struct cpu_discrete_queue {
   struct timeline *tl;
   pthread_t thread;
   pthread_cond_t work; /* with tl->lock */
   struct op *head, *tail;
   uint64_t recorded;   /* seq of the last op recorded */
   uint64_t flushed;    /* seq of the last op a fence covers */
   bool quit;
};

struct pipe_fence {
   struct timeline *tl;
   uint64_t first, last; /* the ops it covers */
};

static struct cpu_discrete_queue *queue_of(struct pipe_context *ctx)
{
   return ((struct cpu_context *)ctx)->discrete;
}

static void timeline_unref(struct timeline *tl)
{
   pthread_mutex_lock(&tl->lock);
   bool last = --tl->refs == 0;
   pthread_mutex_unlock(&tl->lock);
   if (last) {
      pthread_mutex_destroy(&tl->lock);
      pthread_cond_destroy(&tl->cond);
      kiln_free(tl);
   }
}

static unsigned delay_us(void)
{
   const char *s = getenv("KILN_CPU_DISCRETE_DELAY_US");
   return s ? (unsigned)strtoul(s, NULL, 10) : 50;
}

static int run_op(struct pipe_context *ctx, struct op *op)
{
   switch (op->kind) {
   case OP_WRITE:
      cpu_buffer_write(ctx, op->dst, op->dst_offset, op->size, op->host_src);
      return 0;
   case OP_READ:
      cpu_buffer_read(ctx, op->src, op->src_offset, op->size, op->host_dst);
      return 0;
   case OP_COPY:
      cpu_resource_copy_region(ctx, op->dst, op->dst_offset, op->src, op->src_offset, op->size);
      return 0;
   case OP_CLEAR:
      cpu_clear_buffer(ctx, op->dst, op->dst_offset, op->size, op->pattern, op->pattern_size);
      return 0;
   case OP_LAUNCH: {
      int err = cpu_launch_run(ctx, op->launch);
      cpu_launch_free(op->launch);
      return err;
   }
   }
   return 0;
}

static void *queue_main(void *arg)
{
   struct pipe_context *ctx = arg;
   struct cpu_discrete_queue *q = queue_of(ctx);
   struct timeline *tl = q->tl;
   unsigned delay = delay_us();
   pthread_mutex_lock(&tl->lock);
   for (;;) {
      while (!q->head && !q->quit)
         pthread_cond_wait(&q->work, &tl->lock);
      if (!q->head)
         break;
      struct op *op = q->head;
      q->head = op->next;
      if (!q->head)
         q->tail = NULL;
      pthread_mutex_unlock(&tl->lock);
      if (delay)
         usleep(delay);
      int err = run_op(ctx, op);
      pthread_mutex_lock(&tl->lock);
      if (err) {
         tl->error = err;
         tl->error_seq = op->seq;
      }
      tl->done = op->seq;
      pthread_cond_broadcast(&tl->cond);
      kiln_free(op);
   }
   pthread_mutex_unlock(&tl->lock);
   return NULL;
}

static struct op *op_new(enum op_kind kind)
{
   struct op *op = kiln_calloc(1, sizeof(*op));
   if (op)
      op->kind = kind;
   return op;
}

/* Queues op; without memory for it, the work is done here and now
 * (what the immediate mode does anyway). */
static void record(struct pipe_context *ctx, struct op *op)
{
   struct cpu_discrete_queue *q = queue_of(ctx);
   pthread_mutex_lock(&q->tl->lock);
   op->seq = ++q->recorded;
   if (q->tail)
      q->tail->next = op;
   else
      q->head = op;
   q->tail = op;
   pthread_cond_signal(&q->work);
   pthread_mutex_unlock(&q->tl->lock);
}

static void wait_idle(struct cpu_discrete_queue *q)
{
   pthread_mutex_lock(&q->tl->lock);
   while (q->tl->done < q->recorded)
      pthread_cond_wait(&q->tl->cond, &q->tl->lock);
   pthread_mutex_unlock(&q->tl->lock);
}

static void d_buffer_write(struct pipe_context *ctx, struct pipe_resource *dst, size_t offset,
                           size_t size, const void *src)
{
   struct op *op = op_new(OP_WRITE);
   if (!op) {
      wait_idle(queue_of(ctx));
      cpu_buffer_write(ctx, dst, offset, size, src);
      return;
   }
   op->dst = dst;
   op->dst_offset = offset;
   op->size = size;
   op->host_src = src;
   record(ctx, op);
}

static void d_buffer_read(struct pipe_context *ctx, struct pipe_resource *src, size_t offset,
                          size_t size, void *dst)
{
   struct op *op = op_new(OP_READ);
   if (!op) {
      wait_idle(queue_of(ctx));
      cpu_buffer_read(ctx, src, offset, size, dst);
      return;
   }
   op->src = src;
   op->src_offset = offset;
   op->size = size;
   op->host_dst = dst;
   record(ctx, op);
}

static void d_copy(struct pipe_context *ctx, struct pipe_resource *dst, size_t dst_offset,
                   struct pipe_resource *src, size_t src_offset, size_t size)
{
   struct op *op = op_new(OP_COPY);
   if (!op) {
      wait_idle(queue_of(ctx));
      cpu_resource_copy_region(ctx, dst, dst_offset, src, src_offset, size);
      return;
   }
   op->dst = dst;
   op->dst_offset = dst_offset;
   op->src = src;
   op->src_offset = src_offset;
   op->size = size;
   record(ctx, op);
}

static void d_clear(struct pipe_context *ctx, struct pipe_resource *res, size_t offset,
                    size_t size, const void *pattern, size_t pattern_size)
{
   struct op *op = op_new(OP_CLEAR);
   if (!op || pattern_size > sizeof(op->pattern)) {
      kiln_free(op);
      wait_idle(queue_of(ctx));
      cpu_clear_buffer(ctx, res, offset, size, pattern, pattern_size);
      return;
   }
   op->dst = res;
   op->dst_offset = offset;
   op->size = size;
   memcpy(op->pattern, pattern, pattern_size);
   op->pattern_size = pattern_size;
   record(ctx, op);
}

static int d_launch(struct pipe_context *ctx, const struct pipe_grid_info *info)
{
   struct op *op = op_new(OP_LAUNCH);
   if (!op || !(op->launch = cpu_launch_bind(info))) {
      kiln_free(op);
      return CL_OUT_OF_HOST_MEMORY;
   }
   record(ctx, op);
   return CL_SUCCESS;
}

static void d_flush(struct pipe_context *ctx, struct pipe_fence **fence)
{
   struct cpu_discrete_queue *q = queue_of(ctx);
   if (!fence)
      return;
   pthread_mutex_lock(&q->tl->lock);
   struct pipe_fence *f = NULL;
   if (q->tl->done < q->recorded && (f = kiln_malloc(sizeof(*f)))) {
      f->tl = q->tl;
      f->first = q->flushed + 1;
      f->last = q->recorded;
      q->tl->refs++;
   }
   q->flushed = q->recorded;
   pthread_mutex_unlock(&q->tl->lock);
   if (!f)
      wait_idle(q); /* done already, or no memory for a fence */
   *fence = f;
}

/* A staging copy, as a GPU driver gives for memory the host cannot see. */
struct pipe_transfer {
   struct pipe_resource *res;
   size_t offset, size;
   unsigned flags;
   unsigned char data[];
};

static void *d_transfer_map(struct pipe_context *ctx, struct pipe_resource *res, size_t offset,
                            size_t size, unsigned flags, struct pipe_transfer **transfer)
{
   wait_idle(queue_of(ctx));
   struct pipe_transfer *t = kiln_malloc(sizeof(*t) + (size ? size : 1));
   if (!t)
      return NULL;
   t->res = res;
   t->offset = offset;
   t->size = size;
   t->flags = flags;
   if (!(flags & PIPE_MAP_DISCARD))
      cpu_buffer_read(ctx, res, offset, size, t->data);
   *transfer = t;
   return t->data;
}

static void d_transfer_unmap(struct pipe_context *ctx, struct pipe_transfer *t)
{
   /* The queue is idle (one thread records at a time, and map waited). */
   if (t->flags & PIPE_MAP_WRITE)
      cpu_buffer_write(ctx, t->res, t->offset, t->size, t->data);
   kiln_free(t);
}

static bool init_context(struct pipe_context *ctx)
{
   struct cpu_discrete_queue *q = kiln_calloc(1, sizeof(*q));
   struct timeline *tl = kiln_calloc(1, sizeof(*tl));
   if (!q || !tl) {
      kiln_free(q);
      kiln_free(tl);
      return false;
   }
   pthread_mutex_init(&tl->lock, NULL);
   pthread_condattr_t attr;
   pthread_condattr_init(&attr);
   pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
   pthread_cond_init(&tl->cond, &attr);
   pthread_condattr_destroy(&attr);
   pthread_cond_init(&q->work, NULL);
   tl->refs = 1;
   q->tl = tl;
   ((struct cpu_context *)ctx)->discrete = q;
   if (pthread_create(&q->thread, NULL, queue_main, ctx)) {
      ((struct cpu_context *)ctx)->discrete = NULL;
      pthread_cond_destroy(&q->work);
      timeline_unref(tl);
      kiln_free(q);
      return false;
   }
   ctx->buffer_write = d_buffer_write;
   ctx->buffer_read = d_buffer_read;
   ctx->resource_copy_region = d_copy;
   ctx->clear_buffer = d_clear;
   ctx->launch_grid = d_launch;
   ctx->flush = d_flush;
   ctx->transfer_map = d_transfer_map;
   ctx->transfer_unmap = d_transfer_unmap;
   return true;
}

static struct pipe_context *d_context_create(struct pipe_screen *screen)
{
   struct pipe_context *ctx = cpu_context_create(screen);
   if (ctx && !init_context(ctx)) {
      ctx->destroy(ctx);
      return NULL;
   }
   return ctx;
}

static struct pipe_context *d_context_create_on_units(struct pipe_screen *screen,
                                                     const unsigned *units, unsigned num_units)
{
   struct pipe_context *ctx = cpu_context_create_on_units(screen, units, num_units);
   if (ctx && !init_context(ctx)) {
      ctx->destroy(ctx);
      return NULL;
   }
   return ctx;
}

void cpu_discrete_fini_context(struct pipe_context *ctx)
{
   struct cpu_discrete_queue *q = queue_of(ctx);
   pthread_mutex_lock(&q->tl->lock);
   q->quit = true;
   pthread_cond_signal(&q->work);
   pthread_mutex_unlock(&q->tl->lock);
   pthread_join(q->thread, NULL); /* it finishes what was recorded first */
   pthread_cond_destroy(&q->work);
   timeline_unref(q->tl);
   kiln_free(q);
}

static int d_fence_wait(struct pipe_screen *screen, struct pipe_fence *f, uint64_t timeout_ns)
{
   (void)screen;
   struct timeline *tl = f->tl;
   struct timespec until;
   clock_gettime(CLOCK_MONOTONIC, &until);
   if (timeout_ns != PIPE_TIMEOUT_INFINITE) {
      uint64_t ns = (uint64_t)until.tv_nsec + timeout_ns % 1000000000u;
      until.tv_sec += (time_t)(timeout_ns / 1000000000u + ns / 1000000000u);
      until.tv_nsec = (long)(ns % 1000000000u);
   }
   pthread_mutex_lock(&tl->lock);
   int r = PIPE_FENCE_SIGNALLED;
   while (tl->done < f->last) {
      if (!timeout_ns) {
         r = PIPE_FENCE_BUSY;
         break;
      }
      if (timeout_ns == PIPE_TIMEOUT_INFINITE)
         pthread_cond_wait(&tl->cond, &tl->lock);
      else if (pthread_cond_timedwait(&tl->cond, &tl->lock, &until) == ETIMEDOUT &&
               tl->done < f->last) {
         r = PIPE_FENCE_BUSY;
         break;
      }
   }
   if (r == PIPE_FENCE_SIGNALLED && tl->error && tl->error_seq >= f->first &&
       tl->error_seq <= f->last)
      r = tl->error < 0 ? tl->error : CL_OUT_OF_RESOURCES;
   pthread_mutex_unlock(&tl->lock);
   return r;
}

static void d_fence_destroy(struct pipe_screen *screen, struct pipe_fence *f)
{
   (void)screen;
   timeline_unref(f->tl);
   kiln_free(f);
}

static void *no_host_pointer(struct pipe_screen *screen, struct pipe_resource *res)
{
   (void)screen;
   (void)res;
   return NULL;
}

static struct pipe_resource *no_user_memory(struct pipe_screen *screen, void *ptr, size_t size)
{
   (void)screen;
   (void)ptr;
   (void)size;
   return NULL;
}

void cpu_discrete_init_screen(struct pipe_screen *screen)
{
   struct pipe_caps *c = &screen->caps;
   size_t n = strlen(c->name);
   snprintf(c->name + n, sizeof(c->name) - n, " (discrete test mode)");
   c->host_unified_memory = false;
   c->svm_capabilities = 0; /* its memory is not the host's */
   c->execution_capabilities &= ~(cl_device_exec_capabilities)CL_EXEC_NATIVE_KERNEL;
   screen->driver_name = "cpu-discrete";
   /* Its contexts record (sub-devices' too). */
   screen->context_create = d_context_create;
   if (screen->context_create_on_units)
      screen->context_create_on_units = d_context_create_on_units;
   screen->resource_host_pointer = no_host_pointer;
   screen->resource_from_user_memory = no_user_memory;
   screen->fence_wait = d_fence_wait;
   screen->fence_destroy = d_fence_destroy;
}
