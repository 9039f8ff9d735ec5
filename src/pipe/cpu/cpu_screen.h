/* The CPU pipe driver: the host processor as an OpenCL device. */
#ifndef KILN_PIPE_CPU_SCREEN_H
#define KILN_PIPE_CPU_SCREEN_H

#include "pipe/pipe.h"

struct pipe_screen *cpu_screen_create(void);

/* Driver-internal: shared by the files of src/pipe/cpu. */
void cpu_screen_init_resource_functions(struct pipe_screen *screen);
void *cpu_resource_data(struct pipe_resource *res);
struct pipe_context *cpu_context_create(struct pipe_screen *screen);

#endif
