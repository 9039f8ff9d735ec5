/* The CPU pipe driver: the host processor as an OpenCL device. */
#ifndef KILN_PIPE_CPU_SCREEN_H
#define KILN_PIPE_CPU_SCREEN_H

#include "pipe/pipe.h"

/* discrete: the discrete test mode (cpu_discrete.c). */
struct pipe_screen *cpu_screen_create(bool discrete);

/* Driver-internal: shared by the files of src/pipe/cpu. */
void cpu_screen_init_resource_functions(struct pipe_screen *screen);
void *cpu_resource_data(struct pipe_resource *res);
struct pipe_context *cpu_context_create(struct pipe_screen *screen);
struct pipe_context *cpu_context_create_on_units(struct pipe_screen *screen, const unsigned *units,
                                                 unsigned num_units);
void cpu_screen_init_compute_functions(struct pipe_screen *screen);
/* Launches: bound (addresses, __local offsets and image descriptors
 * written into a copy of the arguments), then run on the context's pool.
 * cpu_launch_grid_now does both at once. */
struct cpu_launch;
struct cpu_launch *cpu_launch_bind(const struct pipe_grid_info *info);
int cpu_launch_run(struct pipe_context *ctx, const struct cpu_launch *l);
void cpu_launch_free(struct cpu_launch *l);
int cpu_launch_grid_now(struct pipe_context *ctx, const struct pipe_grid_info *info);
/* Discrete test mode (KILN_DEVICES=cpu-discrete): memory the host is not
 * shown, work done later by a thread of each context (cpu_discrete.c). */
void cpu_discrete_fini_context(struct pipe_context *ctx);
void cpu_discrete_init_screen(struct pipe_screen *screen);
/* The worker pool, started on first use; NULL if no thread could start. */
struct cpu_tpool *cpu_screen_tpool(struct pipe_screen *screen);
/* The pool a context's launches use: the screen's, or a sub-device's own
 * (its compute units only).  NULL if no thread could start. */
struct cpu_tpool *cpu_context_tpool(struct pipe_context *ctx);

#endif
