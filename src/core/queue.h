/* Command queues.  Commands are events (core/event.h); a queue orders
 * them (in-order: each waits for the one before; out-of-order: only for
 * their wait lists and the last barrier) and counts those not yet
 * complete so clFinish can wait for them. */
#ifndef KILN_CORE_QUEUE_H
#define KILN_CORE_QUEUE_H

#include <pthread.h>
#include <stdatomic.h>

#include "core/object.h"
#include "core/props.h"

struct _cl_command_queue {
   struct kiln_object obj;
   cl_context context;
   cl_device_id device;
   /* Where the queue's commands record their work (a stream, a ring),
    * used by its executor only. */
   struct pipe_context *pipe;
   struct kiln_executor *executor; /* core/executor.h */
   /* END of its last command that completed through a fence (the
    * executor's completer thread only): profiling of devices without
    * clocks. */
   uint64_t last_end;
   _Atomic cl_command_queue_properties properties;
   /* clCreateCommandQueueWithProperties' list (CL_QUEUE_PROPERTIES_ARRAY). */
   struct kiln_props props;

   pthread_mutex_t lock;
   pthread_cond_t idle;        /* signalled when outstanding drops to 0 */
   unsigned outstanding;       /* commands enqueued, not yet complete */
   /* Of those, the ones handed to the executor (their dependencies met):
    * while there are any, the queue makes progress on its own.  Counted
    * up without the lock (kiln_queue_command_ready, once per launch);
    * down, and read, under it: a count that grows meanwhile only keeps a
    * throttled enqueue waiting for a completion that will come. */
   atomic_uint ready;
   /* Back-pressure: threads waiting in kiln_queue_add_command for the
    * queue to drain, and their wake-up. */
   unsigned throttled;
   pthread_cond_t drained;
   cl_event last;              /* in-order: the previous command */
   cl_event barrier;           /* out-of-order: everything waits for it */
   /* Out-of-order: the incomplete commands since the barrier, which
    * markers and the next barrier wait for, linked through the events
    * (event.h: since_prev/since_next); a command leaves the list when it
    * completes, so enqueue and completion cost the same whatever the
    * number of pending commands. */
   cl_event since_head, since_tail;
   unsigned num_since_barrier;
   /* An on-device queue (CL_QUEUE_ON_DEVICE): kernels enqueue to it, the
    * host cannot (every host entry point but retain, release and info
    * takes it for no queue).  device_size is its CL_QUEUE_SIZE. */
   bool on_device;
   cl_uint device_size;
};

/* Back-pressure: past this many incomplete commands, of which some are
 * ready to run, an enqueue waits until the queue has drained to half of
 * it (as GPU drivers block on a full ring).  Commands waiting for user
 * events or other queues do not hold the application back: they may be
 * waiting for it. */
#define KILN_QUEUE_MAX_PENDING 4096

/* The events a command waits for (the application's wait list), and
 * whether the enqueuing thread waits for the command right after (a
 * blocking transfer or map): then it may run it itself
 * (kiln_executor_push). */
struct kiln_wait_list {
   cl_uint num;
   const cl_event *events;
   bool blocking;
};

/* How a new command orders itself against the queue's earlier ones. */
enum kiln_queue_order {
   KILN_ORDER_COMMAND, /* in-order: after the previous; OOO: after the barrier */
   KILN_ORDER_MARKER,  /* after every earlier command */
   KILN_ORDER_BARRIER, /* after every earlier command, and before every later one */
};

cl_int kiln_queue_create(cl_context ctx, cl_device_id dev, cl_command_queue_properties props,
                         cl_command_queue *out);

/* An on-device queue of size bytes, taking *list (CL_QUEUE_PROPERTIES_ARRAY)
 * before any other thread can see it.  With make_default, the context's
 * default device queue for dev: the existing one, retained, where there
 * is one (clCreateCommandQueueWithProperties, 3.0 5.1), and then
 * *existed is true and *list not taken. */
cl_int kiln_queue_create_on_device(cl_context ctx, cl_device_id dev,
                                   cl_command_queue_properties props, cl_uint size,
                                   bool make_default, const struct kiln_props *list,
                                   cl_command_queue *out, bool *existed);
/* clSetDefaultDeviceCommandQueue: q (an on-device queue of dev) becomes
 * the default. */
void kiln_queue_set_default_on_device(cl_context ctx, cl_device_id dev, cl_command_queue q);
/* The context's default device queue for dev, NULL where none: the handle
 * a kernel's get_default_queue() returns (never dereferenced by the
 * device, so no reference is taken). */
cl_command_queue kiln_queue_default_on_device(cl_context ctx, cl_device_id dev);
/* pipe_grid_info::device_queue_size: the CL_QUEUE_SIZE of the on-device
 * queue whose handle this is, 0 for anything else. */
uint32_t kiln_queue_on_device_size(void *handle);

/* A host command-queue: NULL for anything else, an on-device queue
 * included (every host command's CL_INVALID_COMMAND_QUEUE). */
static inline cl_command_queue kiln_queue_from(cl_command_queue q)
{
   cl_command_queue h = (cl_command_queue)kiln_object_lookup(q, KILN_TYPE_QUEUE);
   return h && !h->on_device ? h : NULL;
}

/* A queue of either kind (retain, release, clGetCommandQueueInfo). */
static inline cl_command_queue kiln_any_queue_from(cl_command_queue q)
{
   return (cl_command_queue)kiln_object_lookup(q, KILN_TYPE_QUEUE);
}

static inline bool kiln_queue_in_order(cl_command_queue q)
{
   return !(atomic_load(&q->properties) & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
}

/* Adds the queue's ordering edges and the wait list's to a new command
 * event (and counts it as outstanding).  Call before kiln_event_submit.
 * CL_OUT_OF_HOST_MEMORY, with neither the queue nor ev changed, when the
 * edges cannot be allocated. */
cl_int kiln_queue_add_command(cl_command_queue q, cl_event ev, enum kiln_queue_order order,
                              struct kiln_wait_list wait);

/* Called by a command event once it completed or failed. */
void kiln_queue_command_done(cl_command_queue q, cl_event ev);
/* Called by a command event as it goes to the executor. */
void kiln_queue_command_ready(cl_command_queue q, cl_event ev);

/* Commands are handed to the device as soon as they are enqueued, so a
 * flush has nothing left to do; clFinish waits for all of them. */
cl_int kiln_queue_flush(cl_command_queue q);
cl_int kiln_queue_finish(cl_command_queue q);

/* Before a wait for ev, a command of an in-order queue (a blocking read
 * or map, clWaitForEvents): the commands up to ev run on this thread
 * where no other thread runs them, and what went to the device is
 * completed here, as clFinish does; no wake-up of the queue's threads.
 * Does nothing for other events. */
void kiln_queue_help(cl_event ev);

#endif
