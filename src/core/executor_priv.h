/* Private to src/core: the executor's state, shared by
 * executor.c (the executor thread, commands recorded on the enqueuing
 * thread, clFinish's help) and completer.c (commands in flight, their
 * fences and the completer thread). */
#ifndef KILN_CORE_EXECUTOR_PRIV_H
#define KILN_CORE_EXECUTOR_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/executor.h"
#include "pipe/pipe.h"

/* A command whose work went to the device and is not known to be done. */
struct in_flight {
   cl_event ev;
   struct pipe_fence *fence; /* NULL: nothing of its own on the device */
   cl_int err;               /* while recording it */
   int result; /* of fence_wait, once no longer busy */
   uint64_t flown_ns; /* when it was handed over (kiln_monotonic_ns) */
   /* Its work is on the device without a fence of its own (a launch
    * nobody waits for by itself, event.h's unobserved): the first later
    * flight with a fence covers it, or complete_oldest makes one. */
   bool needs_fence;
   struct in_flight *next;
};

/* Up to two threads per queue, started by its first command: the
 * executor records ready commands into the queue's pipe context and
 * flushes each; the completer waits for the fences of those that went to
 * the device and completes their events, in the order they ran.  Devices
 * that finish work as they record it (the CPU) hand back no fence, and
 * their commands complete on the executor at once unless earlier ones are
 * still in flight (a marker behind a device copy ends after it).  Per
 * queue, so that a command that never ends (a kernel spinning for ever)
 * holds back its own queue only.
 *
 * Launch latency (docs/design.md, "Executor"): the executor takes every
 * ready command at once (a batch) and runs them without the lock; a
 * command completing on it makes the next one of an in-order queue ready
 * without a wake-up.  Once idle it polls for new commands a while
 * (util/spin.h) before it sleeps, and a push signals it only when it
 * sleeps.  clFinish may run the queue's ready commands on the calling
 * thread when no other thread runs them (kiln_executor_help): "running"
 * makes whoever runs a batch the only user of the pipe context. */
struct kiln_executor {
   cl_device_id device;
   pthread_mutex_t lock;
   pthread_cond_t wake, wake_completer;
   cl_event head, tail;
   atomic_bool queued;  /* head != NULL, for pollers */
   /* A thread records into the queue's pipe context (runs a batch, a
    * launch on its enqueuing thread, or a fence for flights that need
    * one): nobody else may.  Atomic for the completer's polling. */
   atomic_bool running;
   atomic_bool fencing; /* running, taken by complete_oldest for a fence */
   bool asleep;         /* the executor thread waits on wake */
   bool completer_asleep; /* the completer waits on wake_completer */
   struct in_flight *flying, *flying_tail;
   /* The oldest flight with a fence (NULL: none), which covers the
    * needs_fence flights before it. */
   struct in_flight *first_fenced;
   atomic_uint num_flying; /* on flying, for run_command without the lock */
   /* flying->flown_ns, for the completer's polling without the lock. */
   atomic_uint_fast64_t oldest_flown_ns;
   /* A thread completes the oldest flight (the completer, or a clFinish
    * in kiln_executor_help): nobody else may. */
   atomic_bool completing;
   /* Threads in kiln_executor_help, which complete flights themselves:
    * the completer leaves them alone meanwhile. */
   atomic_uint finishers;
   bool executor_started, completer_started;
   unsigned refs; /* the queue's and each live thread's; the last frees ex */
   atomic_bool quit; /* the queue is gone: exit once nothing is left */
   /* (Fields added since the launch-path work come last, so that those
    * above, which threads poll, keep the cache lines they shared: moved
    * up, kiln_bench's kernel + blocking read row over the fake libcuda
    * lost ~0.3-0.9 µs on the 2-core VM.) */
   /* Commands made ready by the batch the executor thread runs, which
    * runs them next (run_batch); only that thread touches them. */
   cl_event follow, follow_tail;
   /* Records of completed flights, for the next ones (kiln_flight_fly),
    * freed with the executor (completer.c, KILN_SPARE_FLIGHTS). */
   struct in_flight *spare_flights;
   unsigned num_spare_flights;
   /* The completer waits on wake_completer (completer_asleep) with a
    * timeout (the oldest flight's grace, or a nap while the recording
    * thread holds the context): it looks again by itself. */
   bool completer_napping;
   /* ... the nap while another thread recorded and the oldest flight
    * needed a fence (add_fence): the recorder wakes it when it stops. */
   bool completer_wants_context;
};

/* executor.c */
/* Marks the calling thread as one of an executor's (callbacks run there;
 * kiln_executor_on_thread). */
void kiln_executor_mark_thread(void);
/* Drops a reference (ex->lock held, released); the last frees ex. */
void kiln_executor_unref(struct kiln_executor *ex);

/* completer.c */
/* The final status of a command whose work ended with err. */
cl_int kiln_flight_status(cl_event ev, cl_int err);
/* Completes f's event with its times and f->result (f stays on the list
 * until then). */
void kiln_flight_finish(struct kiln_executor *ex, struct in_flight *f);
/* Hands a recorded, flushed command to the completer (starting it);
 * called by the thread that records into the queue's pipe context. */
void kiln_flight_fly(struct kiln_executor *ex, cl_event ev, struct pipe_fence *fence,
                     cl_int err, bool needs_fence);
/* Completes the oldest flight (ex->lock held, released meanwhile);
 * false when it needs a fence that only the thread recording can make
 * now.  finisher: the caller waits for the queue's commands (clFinish,
 * kiln_executor_help), not the completer thread. */
bool kiln_flight_complete_oldest(struct kiln_executor *ex, bool finisher);
/* KILN_SHARED_FENCES: launches nobody waits for by themselves may share
 * a later fence. */
bool kiln_flights_shared(void);
/* Called by the thread that records (ex->running is its), before a
 * command that may wait for the device or take long: a fence now for the
 * launches in flight that share one, so that their completion does not
 * wait for this command to end (ex->lock not held). */
void kiln_flight_fence_shared(struct kiln_executor *ex, struct pipe_context *p);

#endif
