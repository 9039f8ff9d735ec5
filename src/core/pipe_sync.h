/* Synchronous work on a device, for what cannot wait for a command:
 * creating a memory object from host data, and migrating bytes between
 * devices (core/mem_sync.c).  It goes through the device's own utility
 * pipe context (device->pipe), one caller at a time. */
#ifndef KILN_CORE_PIPE_SYNC_H
#define KILN_CORE_PIPE_SYNC_H

#include "core/object.h"
#include "pipe/pipe.h"

/* Flushes p and waits for everything recorded in it: CL_SUCCESS or the
 * error the device reported for that work. */
cl_int kiln_pipe_finish(struct pipe_context *p);

/* Copies between host memory and [offset, offset+size) of res (a
 * resource of dev's screen) and waits until done. */
cl_int kiln_device_write_sync(cl_device_id dev, struct pipe_resource *res, size_t offset,
                              size_t size, const void *src);
cl_int kiln_device_read_sync(cl_device_id dev, struct pipe_resource *res, size_t offset,
                             size_t size, void *dst);

/* The resource's bytes in host memory, or NULL where the host cannot
 * see them. */
static inline void *kiln_resource_host_pointer(struct pipe_resource *res)
{
   struct pipe_screen *s = res->screen;
   return s->resource_host_pointer ? s->resource_host_pointer(s, res) : NULL;
}

#endif
