/* The CPU driver's pipe context, shared by its immediate mode
 * (cpu_context.c) and its discrete test mode (cpu_discrete.c). */
#ifndef KILN_PIPE_CPU_CONTEXT_H
#define KILN_PIPE_CPU_CONTEXT_H

#include <pthread.h>
#include <stdatomic.h>

#include "pipe/pipe.h"

struct cpu_discrete_queue;

struct cpu_context {
   struct pipe_context base;
   /* Sub-devices only (num_cpus > 0): OS CPU numbers, and the pool,
    * started on the first launch.  Launches come from the executor (or
    * the discrete mode's thread), or from the application's threads when
    * no executor could start: hence the lock. */
   int *cpus;
   unsigned num_cpus;
   pthread_mutex_t tpool_lock;
   struct cpu_tpool *tpool;
   /* The __local arena of the work-groups a launch runs on the thread
    * that records it (cpu_tpool.h), taken with inline_busy: launches of
    * one context come from one thread at a time, except where no
    * executor could start, and then the others use the workers. */
   atomic_flag inline_busy;
   char *inline_arena;
   size_t inline_arena_size;
   /* Discrete test mode: the work recorded and not yet done. */
   struct cpu_discrete_queue *discrete;
};

/* The immediate versions of the transfer slots. */
void cpu_buffer_write(struct pipe_context *ctx, struct pipe_resource *dst, size_t offset,
                      size_t size, const void *src);
void cpu_buffer_read(struct pipe_context *ctx, struct pipe_resource *src, size_t offset,
                     size_t size, void *dst);
void cpu_resource_copy_region(struct pipe_context *ctx, struct pipe_resource *dst,
                              size_t dst_offset, struct pipe_resource *src, size_t src_offset,
                              size_t size);
void cpu_clear_buffer(struct pipe_context *ctx, struct pipe_resource *res, size_t offset,
                      size_t size, const void *pattern, size_t pattern_size);

#endif
