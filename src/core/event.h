/* Events: the commands of a queue, and user events.
 *
 * A command moves through the execution model's states: CL_QUEUED when
 * enqueued, CL_SUBMITTED once everything it waits for has completed and it
 * is handed to its device's executor, CL_RUNNING while it executes, then
 * CL_COMPLETE or a negative error.  A command whose explicit wait list
 * holds a failed event never runs: it fails with
 * CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, and so do its dependants.
 *
 * Lifetime: an in-flight command holds an internal reference on itself
 * until it completes, so dropping the application's reference (or never
 * asking for it) is safe.
 */
#ifndef KILN_CORE_EVENT_H
#define KILN_CORE_EVENT_H

#include <pthread.h>

#include "core/object.h"
#include "core/trace.h"

struct kiln_event_callback {
   cl_int type; /* CL_SUBMITTED, CL_RUNNING or CL_COMPLETE */
   void(CL_CALLBACK *fn)(cl_event event, cl_int status, void *user_data);
   void *user_data;
   struct kiln_event_callback *next;
};

/* What an event does when it runs; payloads live in core/command.h. */
struct kiln_command_ops {
   /* Executes on the device's executor: records the command's work into
    * its queue's pipe context (ev->queue->pipe), which may finish it later
    * (the executor completes the event when the flush's fence signals).
    * Returns CL_SUCCESS or an error, which becomes the event's (negative)
    * status. */
   cl_int (*run)(cl_event ev);
   /* Drops the command's references; called once it completed or failed. */
   void (*cleanup)(cl_event ev);
   /* KILN_TRACE only: kernel name, sizes, bytes (core/trace.h).  Optional. */
   void (*describe)(cl_event ev, struct kiln_trace_info *info);
   /* Optional: once the device finished the work run recorded, a last
    * word on its status (a kernel's out-of-bounds report). */
   cl_int (*done)(cl_event ev);
   /* run only records work into the pipe context and never waits for the
    * device (a kernel launch): on a device whose launches only record
    * (pipe_caps::launch_records_async) it may run on the thread that makes
    * the command ready, the enqueuing one included (core/executor.h). */
   bool records_only;
};

/* "waiter starts only after the event whose list holds this edge".  The
 * waiter allocates its edges before it is linked anywhere (see
 * kiln_event_reserve_edges), so recording a dependency never needs memory
 * and an enqueue either fails cleanly or orders its command correctly. */
struct kiln_event_edge {
   cl_event waiter;
   bool propagate; /* the waiter fails if this event fails */
   struct kiln_event_edge *next;
};

enum kiln_profile { KILN_PROF_QUEUED, KILN_PROF_SUBMIT, KILN_PROF_START, KILN_PROF_END };

struct _cl_event {
   struct kiln_object obj;
   cl_context context;
   cl_command_queue queue; /* NULL for user events */
   cl_command_type type;

   pthread_mutex_t lock;
   pthread_cond_t done; /* broadcast when settled, and when finished */
   /* Complete and its command's references dropped. */
   atomic_bool settled;
   /* Settled, its callbacks run and its dependants told (what clFinish
    * waits for on the queue's last command). */
   atomic_bool finished;
   /* Threads waiting on done.  A waiter counts itself before it looks at
    * the flag it waits for, and a completion sets the flag before it
    * looks at the count (both sequentially consistent): one of them sees
    * the other, so a completion with no sleeper takes no lock. */
   atomic_uint sleepers;
   _Atomic cl_int status;
   cl_ulong times[4];
   bool profiling;
   /* Its times are read: profiling, KILN_TRACE or KILN_LOG=queue.  Else
    * none is taken, which saves a launch four clock reads. */
   bool timed;

   /* Events still awaited, +1 while being enqueued; atomic, so that a
    * dependency that completes needs no lock on its waiter.  dep_failed
    * (an explicit dependency failed) is set before the count drops. */
   atomic_uint pending;
   bool on_device;    /* its work went to its queue's pipe context */
   atomic_bool dep_failed;
   /* A callback was ever registered: a state change without one takes no
    * lock (kiln_event_set_state; set and read sequentially consistent,
    * against the status, as sleepers above). */
   atomic_bool has_callbacks;
   /* Edges of the events waiting for this one, in the order they were
    * added (they belong to the waiters). */
   struct kiln_event_edge *dependents, *dependents_last;
   /* This event's own edges, listed by the events it waits for: in
    * inline_edges when they fit (an in-order queue's command waits for one
    * event), else allocated. */
   struct kiln_event_edge *edges;
   unsigned num_edges, cap_edges;
   struct kiln_event_edge inline_edges[2];
   struct kiln_event_callback *callbacks;

   const struct kiln_command_ops *ops;
   void *payload; /* owned by the command; freed by ops->cleanup */
   cl_event next_ready; /* executor's FIFO link */
   /* Its queue's list of commands since the barrier (out-of-order queues;
    * under the queue's lock). */
   cl_event since_prev, since_next;
   bool in_since;
   bool ready; /* handed to the executor: counted in its queue's ready */
   /* Nobody outside Kiln holds the event (the application passed no event
    * pointer to the enqueue): only its queue's order and clFinish can
    * wait for it, so a later fence of its queue may cover its work
    * (core/executor.c) instead of one of its own. */
   bool unobserved;
   /* A blocking command's enqueuing thread, which waits for it next
    * (kiln_wait_list.blocking): if it is ready while that thread enqueues
    * it, it runs there (kiln_executor_push). */
   bool enqueuer_waits;
   pthread_t enqueuer;
};

static inline cl_event kiln_event_from(cl_event e)
{
   return (cl_event)kiln_object_lookup(e, KILN_TYPE_EVENT);
}

/* A command event of queue q, in state CL_QUEUED, not yet submitted:
 * reserve edges, add its dependencies with kiln_event_depend, then
 * kiln_event_submit (or kiln_event_abandon). */
cl_int kiln_event_create_command(cl_command_queue q, cl_command_type type,
                                 const struct kiln_command_ops *ops, void *payload,
                                 cl_event *out);
/* The same, with the payload (set ev->payload to it) in the event's own
 * block: extra zeroed bytes at *block, aligned like max_align_t, which
 * live as long as the event (the payload's cleanup must not free them).
 * observed false for a command whose event the application did not ask
 * for (_cl_event.unobserved): its handle stays out of the registry
 * (kiln_object_init_unlisted), as nobody can name it. */
cl_int kiln_event_create_command_with(cl_command_queue q, cl_command_type type,
                                      const struct kiln_command_ops *ops, bool observed,
                                      size_t extra, void **block, cl_event *out);
cl_int kiln_event_create_user(cl_context ctx, cl_event *out);

/* Room for n dependencies of a command not yet submitted: called once,
 * before its first kiln_event_depend.  CL_OUT_OF_HOST_MEMORY, with nothing
 * changed, when there is no memory for it. */
cl_int kiln_event_reserve_edges(cl_event ev, unsigned n);

/* ev will not start before dep completes.  When propagate is set and dep
 * fails, ev fails too (explicit wait lists); implicit ordering edges
 * (in-order queues) do not propagate.  Uses one reserved edge; cannot
 * fail. */
void kiln_event_depend(cl_event ev, cl_event dep, bool propagate);

/* Ends the construction of a command: it runs as soon as its dependencies
 * have completed. */
void kiln_event_submit(cl_event ev);

/* Undoes kiln_event_create_command for a command that could not be
 * enqueued (no dependency added): cleans its payload up and drops the
 * event, whose handle the application never saw. */
void kiln_event_abandon(cl_event ev);

/* Completes ev with status (CL_COMPLETE or negative): wakes waiters, runs
 * callbacks, releases dependants.  For user events and the executor.
 * False if ev had already completed (nothing is done then). */
bool kiln_event_complete(cl_event ev, cl_int status);

/* ev's work went to its device in its queue's pipe context: the commands
 * of the same queue that wait only for it may be recorded behind it now,
 * before it completes, since the device runs a context's work in order.
 * (A failure of ev then no longer stops them: the device reports it on
 * their fences too, or they run on what ev left.) */
void kiln_event_release_queue_dependents(cl_event ev);

/* Blocks until ev completed; returns its final status. */
cl_int kiln_event_wait(cl_event ev);
/* Blocks until ev completed, its callbacks ran and its dependants heard
 * of it. */
void kiln_event_wait_finished(cl_event ev);
static inline bool kiln_event_finished(cl_event ev)
{
   return atomic_load(&ev->finished);
}

/* Registers a callback for the status type (CL_SUBMITTED, CL_RUNNING,
 * CL_COMPLETE; 1.2 §5.9); runs it at once if ev is already there. */
cl_int kiln_event_add_callback(cl_event ev, cl_int type,
                               void(CL_CALLBACK *fn)(cl_event, cl_int, void *),
                               void *user_data);

/* Moves a command to CL_SUBMITTED or CL_RUNNING and runs the callbacks
 * registered for that status (on the calling thread, no lock held). */
void kiln_event_set_state(cl_event ev, cl_int state);

static inline cl_int kiln_event_status(cl_event ev)
{
   return atomic_load(&ev->status);
}

#endif
