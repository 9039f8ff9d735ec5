/* Shared virtual memory: the context's allocation table and the SVM
 * commands.  Every device that reports SVM runs kernels in the
 * application's address space (the CPU device), so an allocation is host
 * memory, an SVM pointer is passed to kernels as it is (core/ndrange.c),
 * and the commands run on the queue's executor thread once the device
 * finished the work before them. */
#include "core/svm.h"

#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "core/device.h"
#include "core/event.h"
#include "core/pipe_sync.h"
#include "core/queue.h"
#include "core/trace.h"
#include "util/alloc.h"

cl_device_svm_capabilities kiln_context_svm_caps(cl_context ctx)
{
   cl_device_svm_capabilities caps = 0;
   for (cl_uint i = 0; i < ctx->num_devices; i++)
      caps |= ctx->devices[i]->caps->svm_capabilities;
   return caps;
}

/* Index of the first block whose start is above p (svm_lock held). */
static size_t upper_bound(cl_context ctx, const char *p)
{
   size_t lo = 0, hi = ctx->svm_count;
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (ctx->svm_blocks[mid].ptr <= p)
         lo = mid + 1;
      else
         hi = mid;
   }
   return lo;
}

void *kiln_svm_alloc(cl_context ctx, cl_svm_mem_flags flags, size_t size, size_t alignment)
{
   /* A cache line at least, a page for anything large: the device's
    * vector loads and the host's streaming copies like both. */
   if (alignment < 128)
      alignment = size >= 65536 ? 4096 : 128;
   char *ptr = kiln_aligned_alloc(alignment, size);
   if (!ptr)
      return NULL;
   pthread_mutex_lock(&ctx->svm_lock);
   if (ctx->svm_count == ctx->svm_capacity) {
      size_t cap = ctx->svm_capacity ? ctx->svm_capacity * 2 : 16;
      struct kiln_svm_block *b = kiln_realloc(ctx->svm_blocks, cap * sizeof(*b));
      if (!b) {
         pthread_mutex_unlock(&ctx->svm_lock);
         kiln_free(ptr);
         return NULL;
      }
      ctx->svm_blocks = b;
      ctx->svm_capacity = cap;
   }
   size_t at = upper_bound(ctx, ptr);
   memmove(&ctx->svm_blocks[at + 1], &ctx->svm_blocks[at],
           (ctx->svm_count - at) * sizeof(*ctx->svm_blocks));
   ctx->svm_blocks[at] = (struct kiln_svm_block){ptr, size, flags};
   ctx->svm_count++;
   pthread_mutex_unlock(&ctx->svm_lock);
   return ptr;
}

void kiln_svm_free(cl_context ctx, void *ptr)
{
   if (!ptr)
      return;
   pthread_mutex_lock(&ctx->svm_lock);
   size_t at = upper_bound(ctx, ptr);
   bool found = at > 0 && ctx->svm_blocks[at - 1].ptr == ptr;
   if (found) {
      memmove(&ctx->svm_blocks[at - 1], &ctx->svm_blocks[at],
              (ctx->svm_count - at) * sizeof(*ctx->svm_blocks));
      ctx->svm_count--;
   }
   pthread_mutex_unlock(&ctx->svm_lock);
   /* Not an allocation of this context: freeing it would corrupt the
    * heap, and clSVMFree has no way to report the mistake. */
   if (found)
      kiln_free(ptr);
}

bool kiln_svm_find(cl_context ctx, const void *ptr, size_t size, struct kiln_svm_block *out)
{
   const char *p = ptr;
   pthread_mutex_lock(&ctx->svm_lock);
   size_t at = upper_bound(ctx, p);
   bool found = false;
   if (at > 0) {
      const struct kiln_svm_block *b = &ctx->svm_blocks[at - 1];
      size_t off = (size_t)(p - b->ptr);
      found = off < b->size && size <= b->size - off;
      if (found && out)
         *out = *b;
   }
   pthread_mutex_unlock(&ctx->svm_lock);
   return found;
}

void kiln_svm_release_all(cl_context ctx)
{
   for (size_t i = 0; i < ctx->svm_count; i++)
      kiln_free(ctx->svm_blocks[i].ptr);
   kiln_free(ctx->svm_blocks);
   ctx->svm_blocks = NULL;
   ctx->svm_count = ctx->svm_capacity = 0;
}

/* ---- Commands ---- */

struct svm_command {
   char *dst;
   const char *src; /* memcpy */
   size_t size;
   size_t pattern_size; /* fill: the pattern is in pattern[] */
   unsigned char pattern[128];
   /* free */
   kiln_svm_free_fn free_fn;
   void *user_data;
   cl_uint num_ptrs;
   void **ptrs;
};

static void svm_cleanup(cl_event ev)
{
   struct svm_command *c = ev->payload;
   if (!c)
      return;
   kiln_free(c->ptrs);
   kiln_free(c);
   ev->payload = NULL;
}

/* The device's earlier work first: it may read or write the same memory. */
static cl_int svm_wait_device(cl_event ev)
{
   return kiln_pipe_finish(ev->queue->pipe);
}

static cl_int memcpy_run(cl_event ev)
{
   struct svm_command *c = ev->payload;
   cl_int err = svm_wait_device(ev);
   if (!err)
      memcpy(c->dst, c->src, c->size);
   return err;
}

void kiln_svm_fill_host(void *dst, const void *pattern, size_t pattern_size, size_t size)
{
   char *d = dst;
   if (pattern_size == 1) {
      memset(d, *(const unsigned char *)pattern, size);
      return;
   }
   /* One pattern, then doubling copies of what is already filled. */
   size_t done = size < pattern_size ? size : pattern_size;
   memcpy(d, pattern, done);
   while (done < size) {
      size_t n = size - done < done ? size - done : done;
      memcpy(d + done, d, n);
      done += n;
   }
}

static cl_int fill_run(cl_event ev)
{
   struct svm_command *c = ev->payload;
   cl_int err = svm_wait_device(ev);
   if (!err)
      kiln_svm_fill_host(c->dst, c->pattern, c->pattern_size, c->size);
   return err;
}

static cl_int free_run(cl_event ev)
{
   struct svm_command *c = ev->payload;
   cl_int err = svm_wait_device(ev);
   if (err)
      return err;
   if (c->free_fn)
      c->free_fn(ev->queue, c->num_ptrs, c->ptrs, c->user_data);
   else
      for (cl_uint i = 0; i < c->num_ptrs; i++)
         kiln_svm_free(ev->queue->context, c->ptrs[i]);
   return CL_SUCCESS;
}

static void svm_describe(cl_event ev, struct kiln_trace_info *info)
{
   const struct svm_command *c = ev->payload;
   info->bytes = c->size;
}

static const struct kiln_command_ops memcpy_ops = {memcpy_run, svm_cleanup, svm_describe, NULL};
static const struct kiln_command_ops fill_ops = {fill_run, svm_cleanup, svm_describe, NULL};
static const struct kiln_command_ops free_ops = {free_run, svm_cleanup, NULL, NULL};

cl_int kiln_enqueue_svm_memcpy(cl_command_queue q, void *dst, const void *src, size_t size,
                               struct kiln_wait_list wait, cl_event *out)
{
   struct svm_command *c = kiln_calloc(1, sizeof(*c));
   if (!c)
      return CL_OUT_OF_HOST_MEMORY;
   c->dst = dst;
   c->src = src;
   c->size = size;
   return kiln_enqueue_command(q, CL_COMMAND_SVM_MEMCPY, &memcpy_ops, c, KILN_ORDER_COMMAND,
                               wait, out);
}

cl_int kiln_enqueue_svm_fill(cl_command_queue q, void *dst, const void *pattern,
                             size_t pattern_size, size_t size, struct kiln_wait_list wait,
                             cl_event *out)
{
   struct svm_command *c = kiln_calloc(1, sizeof(*c));
   if (!c)
      return CL_OUT_OF_HOST_MEMORY;
   c->dst = dst;
   c->size = size;
   c->pattern_size = pattern_size;
   memcpy(c->pattern, pattern, pattern_size);
   return kiln_enqueue_command(q, CL_COMMAND_SVM_MEMFILL, &fill_ops, c, KILN_ORDER_COMMAND,
                               wait, out);
}

cl_int kiln_enqueue_svm_free(cl_command_queue q, cl_uint num, void *ptrs[], kiln_svm_free_fn fn,
                             void *user_data, struct kiln_wait_list wait, cl_event *out)
{
   struct svm_command *c = kiln_calloc(1, sizeof(*c));
   /* The list is the application's: it may reuse it once this returns. */
   void **copy = kiln_malloc((num ? num : 1) * sizeof(void *));
   if (!c || !copy) {
      kiln_free(c);
      kiln_free(copy);
      return CL_OUT_OF_HOST_MEMORY;
   }
   if (num)
      memcpy(copy, ptrs, num * sizeof(void *));
   c->free_fn = fn;
   c->user_data = user_data;
   c->num_ptrs = num;
   c->ptrs = copy;
   return kiln_enqueue_command(q, CL_COMMAND_SVM_FREE, &free_ops, c, KILN_ORDER_COMMAND, wait,
                               out);
}
