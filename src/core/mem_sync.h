/* Where a memory object's current bytes are (core/mem.h), and moving
 * them to the device that is about to use them.  Called by commands as
 * they run on their device's executor, never at enqueue time. */
#ifndef KILN_CORE_MEM_SYNC_H
#define KILN_CORE_MEM_SYNC_H

#include "core/mem.h"

#define KILN_ACCESS_READ 0x1
#define KILN_ACCESS_WRITE 0x2

/* Index of dev's storage in a root's store[]: the first device of ctx
 * with dev's screen. */
unsigned kiln_mem_slot(cl_context ctx, cl_device_id dev);

/* Creates root's storage for slot if it has none (root->lock held):
 * the application's memory where the device imports it (USE_HOST_PTR),
 * a new resource otherwise.  CL_MEM_OBJECT_ALLOCATION_FAILURE when the
 * device has no memory left. */
cl_int kiln_mem_storage_create(cl_mem root, unsigned slot);

/* For a command of dev recorded into p: makes dev's copy of mem current
 * (allocating it, and recording or doing the copy from where the bytes
 * are), and with KILN_ACCESS_WRITE the only current one.  Returns the
 * resource and the offset of mem's first byte in it. */
cl_int kiln_mem_acquire(cl_mem mem, cl_device_id dev, struct pipe_context *p, unsigned access,
                        struct pipe_resource **res, size_t *offset);

/* The data movement of map and unmap commands for mapping m of mem. */
cl_int kiln_mem_map_run(cl_mem mem, const struct kiln_mapping *m, cl_device_id dev,
                        struct pipe_context *p);
cl_int kiln_mem_unmap_run(cl_mem mem, const struct kiln_mapping *m, cl_device_id dev,
                          struct pipe_context *p);

#endif
