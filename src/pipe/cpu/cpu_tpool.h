/* Worker threads that run the work-groups of a launch. */
#ifndef KILN_PIPE_CPU_TPOOL_H
#define KILN_PIPE_CPU_TPOOL_H

#include "kiln/cpu_abi.h"
#include "pipe/pipe.h"

struct cpu_tpool;

/* Each worker's stack.  Work-group functions run on it, with their
 * private arrays and, for kernels with barriers, a copy of the values
 * kept across a barrier for every work-item (include/kiln/cpu_abi.h,
 * __kiln_stack_<k>).  CPU_WORKER_STACK_RESERVE of it is kept for what that
 * measure leaves out: the worker's own frames, register spills, the C
 * library functions kernels call; launches needing more than the rest
 * are refused at enqueue (docs/design.md, "Launch limits"). */
#define CPU_WORKER_STACK_SIZE (64u << 20)
#define CPU_WORKER_STACK_RESERVE (1u << 20)

/* num_threads workers; with num_cpus, each may run only on cpus[] (OS
 * CPU numbers), and with one_each worker i only on cpus[i % num_cpus]. */
struct cpu_tpool *cpu_tpool_create(unsigned num_threads, const int *cpus, unsigned num_cpus,
                                   bool one_each);
/* KILN_CPU_PIN (docs/env.md): whether each worker keeps to a CPU of its
 * own (on by default). */
bool cpu_tpool_pinned(void);
void cpu_tpool_destroy(struct cpu_tpool *pool);
/* How many workers pool has. */
unsigned cpu_tpool_size(const struct cpu_tpool *pool);
/* The calling thread's share of a launch: where its work-groups find
 * their __local memory (an arena it owns while the launch runs; grown as
 * needed, freed by its owner).  A launch that is handed one runs its
 * first work-groups on the calling thread and hands the rest to the
 * workers only once they take longer than CPU_TPOOL_INLINE_NS
 * (cpu_tpool.c); the caller then only waits, so no more groups run at
 * once than there are workers. */
struct cpu_tpool_caller {
   char **arena;
   size_t *arena_size;
};

/* Runs every work-group of info with fn on the bound argument buffer
 * args, each group with local_mem_size bytes of __local memory; returns
 * when all finished (one launch at a time per pool).  With caller (NULL:
 * the workers run every group), the calling thread runs the first groups;
 * it must have the stack a work-group of fn needs (cpu_tpool_stack_left).
 * -1 if a worker could not allocate the __local arena.  printf_buffer
 * (NULL for programs without printf) goes to every group's context, as
 * does device_enqueue (kiln_wg_ctx::device_enqueue). */
int cpu_tpool_launch(struct cpu_tpool *pool, kiln_wg_fn fn, const struct pipe_grid_info *info,
                     const void *args, size_t local_mem_size, void *printf_buffer,
                     void *device_enqueue, const struct cpu_tpool_caller *caller);

/* Bytes of stack left below the caller's frame on the calling thread (0
 * when the thread's stack cannot be found out). */
size_t cpu_tpool_stack_left(void);

#endif
