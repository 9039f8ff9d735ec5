/* Contexts: a set of devices sharing memory objects, programs and events. */
#ifndef KILN_CORE_CONTEXT_H
#define KILN_CORE_CONTEXT_H

#include <pthread.h>
#include <stdatomic.h>

#include "core/object.h"

typedef void(CL_CALLBACK *kiln_context_notify_fn)(const char *errinfo, const void *private_info,
                                                  size_t cb, void *user_data);

/* clSetContextDestructorCallback (3.0): run when the context goes away,
 * most recent first. */
struct kiln_svm_block;

struct kiln_context_callback {
   void(CL_CALLBACK *fn)(cl_context context, void *user_data);
   void *user_data;
   struct kiln_context_callback *next;
};

struct _cl_context {
   struct kiln_object obj;
   cl_platform_id platform;
   cl_uint num_devices;
   cl_device_id *devices;
   /* Copy of the application's list including the terminating 0, or
    * NULL with num_properties 0 when it passed NULL. */
   cl_context_properties *properties;
   size_t num_properties;
   kiln_context_notify_fn notify;
   void *notify_data;
   pthread_mutex_t lock; /* guards callbacks */
   struct kiln_context_callback *callbacks; /* most recent first */
   /* clSVMAlloc's allocations, sorted by address (core/svm.c). */
   pthread_mutex_t svm_lock;
   struct kiln_svm_block *svm_blocks;
   size_t svm_count, svm_capacity;
   /* Per devices[i]: its default on-device queue, or NULL (core/queue.c).
    * Held weakly (the queue holds the context), changed under lock, read
    * without it by every launch: a queue that goes away clears its slot. */
   _Atomic(cl_command_queue) *default_device_queues;
};

cl_int kiln_context_create(cl_platform_id platform, const cl_context_properties *properties,
                           size_t num_properties, cl_uint num_devices,
                           const cl_device_id *devices, kiln_context_notify_fn notify,
                           void *notify_data, cl_context *out);

static inline cl_context kiln_context_from(cl_context c)
{
   return (cl_context)kiln_object_lookup(c, KILN_TYPE_CONTEXT);
}

bool kiln_context_has_device(cl_context ctx, cl_device_id dev);

/* Adds a destructor callback; CL_OUT_OF_HOST_MEMORY on failure. */
cl_int kiln_context_add_destructor_callback(cl_context ctx,
                                            void(CL_CALLBACK *fn)(cl_context, void *),
                                            void *user_data);

/* Reports an error through the application's pfn_notify, if any. */
void kiln_context_notify(cl_context ctx, const char *errinfo);

#endif
