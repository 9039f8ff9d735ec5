/* A device: one pipe screen of one driver. */
#ifndef KILN_CORE_DEVICE_H
#define KILN_CORE_DEVICE_H

#include <pthread.h>

#include "core/object.h"
#include "pipe/pipe.h"

struct kiln_executor;

struct _cl_device_id {
   struct kiln_object obj;
   cl_platform_id platform;
   struct pipe_screen *screen;
   const struct pipe_caps *caps;
   /* Used only by the executor thread, which runs one command at a time. */
   struct pipe_context *pipe;
   pthread_mutex_t exec_lock;
   struct kiln_executor *executor; /* started on first command */
};

cl_device_id kiln_device_create(cl_platform_id platform, struct pipe_screen *screen);
/* Devices live as long as the process; tests make and drop extra ones.
 * Only for a device with no command in flight: an executor it started
 * stays, idle (it touches the device only to run commands). */
void kiln_device_destroy(cl_device_id dev);

static inline cl_device_id kiln_device_from(cl_device_id d)
{
   return (cl_device_id)kiln_object_lookup(d, KILN_TYPE_DEVICE);
}

/* Host-monotonic nanoseconds from the device's clock (profiling). */
static inline cl_ulong kiln_device_timestamp(cl_device_id dev)
{
   return dev->screen->get_timestamp(dev->screen);
}

#endif
