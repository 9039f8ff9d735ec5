/* A device: one pipe screen of one driver. */
#ifndef KILN_CORE_DEVICE_H
#define KILN_CORE_DEVICE_H

#include <pthread.h>

#include "core/object.h"
#include "pipe/pipe.h"

struct _cl_device_id {
   struct kiln_object obj;
   cl_platform_id platform;
   struct pipe_screen *screen;
   const struct pipe_caps *caps;
   /* clang's -cl-ext list: the driver's, plus the OpenCL C features
    * (core/device_version.h). */
   char clang_ext[sizeof(((struct pipe_caps *)0)->clang_extensions) + 512];
   /* The device's utility context, for synchronous work outside commands
    * (core/pipe_sync.h), under util_lock.  Queues have their own. */
   struct pipe_context *pipe;
   pthread_mutex_t util_lock;

   /* Compute units this device runs on: indices into screen->topology
    * (all of them for a root device; none when the driver cannot
    * partition). */
   unsigned num_units;
   unsigned *units;
   /* Sub-devices (clCreateSubDevices) only: the device they were made
    * from (retained: kiln_device_retain_implicit), their own caps (the parent's with
    * their number of compute units), and the properties they were made
    * with, terminating 0 included (CL_DEVICE_PARTITION_TYPE). */
   cl_device_id parent;
   struct pipe_caps sub_caps;
   cl_device_partition_property *partition;
   size_t partition_len;
};

cl_device_id kiln_device_create(cl_platform_id platform, struct pipe_screen *screen);
/* A sub-device of parent running on units[] (topology indices, kiln_malloc'd;
 * taken over, also on failure).  One application reference; freed when
 * that and the implicit ones (contexts, sub-devices) are gone. */
cl_int kiln_device_create_sub(cl_device_id parent, unsigned *units, unsigned num_units,
                              const cl_device_partition_property *props, size_t num_props,
                              cl_device_id *out);
/* Devices live as long as the process; tests make and drop extra ones.
 * Only for a device with no queue left. */
void kiln_device_destroy(cl_device_id dev);

/* The implicit retain of clCreateContext (and of a sub-device on its
 * parent): an application reference, so the handle stays valid (e.g. from
 * CL_CONTEXT_DEVICES) after the application released its own.  Counted in
 * CL_DEVICE_REFERENCE_COUNT; nothing for root devices. */
static inline void kiln_device_retain_implicit(cl_device_id dev)
{
   if (dev->parent)
      kiln_object_retain(&dev->obj);
}
static inline void kiln_device_release_implicit(cl_device_id dev)
{
   if (dev->parent)
      kiln_object_release(&dev->obj);
}

/* The root device a (sub-)device was partitioned from, or dev itself. */
static inline cl_device_id kiln_device_root(cl_device_id dev)
{
   while (dev->parent)
      dev = dev->parent;
   return dev;
}

static inline cl_device_id kiln_device_from(cl_device_id d)
{
   return (cl_device_id)kiln_object_lookup(d, KILN_TYPE_DEVICE);
}

/* A new pipe context for a queue of dev (on its compute units for a
 * sub-device); NULL when out of memory. */
struct pipe_context *kiln_device_create_pipe(cl_device_id dev);

/* Host-monotonic nanoseconds from the device's clock (profiling). */
static inline cl_ulong kiln_device_timestamp(cl_device_id dev)
{
   return dev->screen->get_timestamp(dev->screen);
}

#endif
