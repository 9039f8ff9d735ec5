/* Finds the devices of every pipe driver that KILN_DEVICES allows. */
#ifndef KILN_PIPE_LOADER_H
#define KILN_PIPE_LOADER_H

#include "pipe/pipe.h"

#define PIPE_LOADER_MAX_SCREENS 16
#define PIPE_LOADER_MAX_DEVICES PIPE_LOADER_MAX_SCREENS

/* Fills screens[] with up to max screens; returns how many.  KILN_DEVICES
 * is a comma-separated list of driver names (cpu, amdgpu, cuda) or "all";
 * unset means all drivers that find a device. */
unsigned pipe_loader_probe(struct pipe_screen **screens, unsigned max);

#endif
