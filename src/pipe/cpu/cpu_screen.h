/* The CPU pipe driver: the host processor as an OpenCL device. */
#ifndef KILN_PIPE_CPU_SCREEN_H
#define KILN_PIPE_CPU_SCREEN_H

#include "pipe/pipe.h"

struct pipe_screen *cpu_screen_create(void);

/* Driver-internal: shared by the files of src/pipe/cpu. */
void cpu_screen_init_resource_functions(struct pipe_screen *screen);
void *cpu_resource_data(struct pipe_resource *res);
struct pipe_context *cpu_context_create(struct pipe_screen *screen);
struct pipe_context *cpu_context_create_on_units(struct pipe_screen *screen, const unsigned *units,
                                                 unsigned num_units);
void cpu_screen_init_compute_functions(struct pipe_screen *screen);
int cpu_launch_grid(struct pipe_context *ctx, const struct pipe_grid_info *info);
/* The worker pool, started on first use; NULL if no thread could start. */
struct cpu_tpool *cpu_screen_tpool(struct pipe_screen *screen);
/* The pool a context's launches use: the screen's, or a sub-device's own
 * (its compute units only).  NULL if no thread could start. */
struct cpu_tpool *cpu_context_tpool(struct pipe_context *ctx);

#endif
