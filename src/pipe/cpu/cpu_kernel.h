/* The CPU driver's loaded kernels (cpu_compute.c) as the device-side
 * enqueue run-time (cpu_devq.c) uses them: found by name in the program
 * of the kernel that enqueues, made runnable, and launched. */
#ifndef KILN_PIPE_CPU_KERNEL_H
#define KILN_PIPE_CPU_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pipe/pipe.h"

struct cpu_kernel;
struct cpu_program;
struct cpu_devq;

struct cpu_program *cpu_kernel_program(const struct cpu_kernel *k);
/* The kernel of p called name, compiled and linked where it was not
 * (cpu_code.h); NULL where p has none or it cannot be compiled. */
struct cpu_kernel *cpu_program_ready_kernel(struct cpu_program *p, const char *name);
/* __local bytes of the kernel's own (include/kiln/cpu_abi.h,
 * KILN_LOCAL_PREFIX). */
uint64_t cpu_kernel_local_size(const struct cpu_kernel *k);
/* What CL_KERNEL_WORK_GROUP_SIZE and the preferred multiple would say
 * of the kernel on screen. */
void cpu_kernel_limits(struct pipe_screen *screen, const struct cpu_kernel *k,
                       struct pipe_kernel_info *out);
/* Runs every work-group of grid (args bound, local_mem_size bytes of
 * __local memory per group) on ctx's pool; the groups' device-side
 * enqueues go to dq (NULL: none may).  CL_SUCCESS or a CL error. */
int cpu_kernel_run(struct pipe_context *ctx, const struct cpu_kernel *k,
                   const struct pipe_grid_info *grid, const void *args, size_t local_mem_size,
                   struct cpu_devq *dq);

#endif
