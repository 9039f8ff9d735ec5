/* The CUDA pipe driver: an NVIDIA GPU as an OpenCL device, through
 * src/winsys/cuda (the CUDA driver API, libcuda.so.1 loaded at run time). */
#ifndef KILN_PIPE_CUDA_SCREEN_H
#define KILN_PIPE_CUDA_SCREEN_H

#include "pipe/pipe.h"

/* Adds a screen per NVIDIA GPU CUDA lists (none, silently, without one or
 * without libcuda.so.1); returns how many. */
unsigned cuda_screen_probe(struct pipe_screen **screens, unsigned max);

#endif
