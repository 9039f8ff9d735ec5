/* The CPU pipe driver: the host processor as an OpenCL device. */
#ifndef KILN_PIPE_CPU_SCREEN_H
#define KILN_PIPE_CPU_SCREEN_H

#include "pipe/pipe.h"

struct pipe_screen *cpu_screen_create(void);

#endif
