/* Device-side enqueue on the CPU device (include/kiln/devq_abi.h): the
 * state of one host launch, the commands its kernels enqueue, and the
 * run-time functions the JIT defines for kernels.
 *
 * Children are deferred: a command a kernel enqueues runs once the launch
 * that enqueued it has finished all its work-groups (valid for every
 * kernel_enqueue_flags_t, OpenCL C 3.0 6.15.16.4), and once every event
 * of its wait list is complete.  The host launch returns, and so its
 * cl_event completes, only after every descendant completed; a failed
 * descendant fails it. */
#ifndef KILN_PIPE_CPU_DEVQ_H
#define KILN_PIPE_CPU_DEVQ_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "llvm/cpu/jit.h"
#include "pipe/pipe.h"

struct cpu_kernel;
struct devq_cmd;
struct devq_event;
struct devq_slab;
struct devq_queue;

/* On the stack of the launch (cpu_devq_init): costs nothing until a
 * kernel enqueues or makes an event. */
struct cpu_devq {
   struct pipe_context *ctx;
   struct cpu_program *program;
   void *default_queue;
   pthread_mutex_t lock;
   /* Commands not run yet, in enqueue order. */
   struct devq_cmd *head, *tail;
   /* The command whose work-groups run now (its children's parent);
    * NULL: the host launch. */
   struct devq_cmd *current;
   /* The on-device queues the launch's kernels enqueued to, each with its
    * CL_QUEUE_SIZE and the bytes of its commands not yet complete. */
   struct devq_queue *queues;
   unsigned num_queues, queues_cap;
   uint32_t (*queue_size)(void *handle);
   /* Events, in slabs made as needed (cpu_devq.c). */
   struct devq_slab *slabs;
   unsigned num_slabs;
   struct devq_event *free_events;
   int error; /* the first failure of a descendant */
   /* KILN_CHECK=bounds: the host launch's table, whose __global and
    * __constant objects the descendants may reach (through captures), and
    * where a descendant's violation is reported. */
   struct kiln_bounds *host_bounds;
};

void cpu_devq_init(struct cpu_devq *dq, struct pipe_context *ctx, const struct cpu_kernel *k,
                   const struct pipe_grid_info *grid);
/* After the host launch's groups: runs its descendants to completion;
 * CL_SUCCESS or the error that fails the launch.  Frees what dq holds. */
int cpu_devq_finish(struct cpu_devq *dq);

/* The run-time functions, for the JIT to define. */
extern const struct kiln_jit_symbol cpu_devq_symbols[];
extern const unsigned cpu_devq_num_symbols;

#endif
