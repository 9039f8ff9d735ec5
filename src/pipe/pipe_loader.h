/* Finds the devices of every pipe driver that KILN_DEVICES allows. */
#ifndef KILN_PIPE_LOADER_H
#define KILN_PIPE_LOADER_H

#include "pipe/pipe.h"

#define PIPE_LOADER_MAX_SCREENS 16
#define PIPE_LOADER_MAX_DEVICES PIPE_LOADER_MAX_SCREENS

/* Fills screens[] with up to max screens; returns how many.  KILN_DEVICES
 * is a comma-separated list of driver names (cpu, amdgpu, cuda), "all" or
 * "none"; unset means all drivers that find a device.  Only the drivers
 * this build has (meson -Ddrivers) probe; naming another one warns. */
unsigned pipe_loader_probe(struct pipe_screen **screens, unsigned max);

#endif
