#include "core/executor.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/device.h"
#include "core/event.h"
#include "core/queue.h"
#include "util/alloc.h"
#include "util/log.h"
#include "util/spin.h"
#include "util/tls.h"

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
};

static bool deferred_fences(void);

/* Set on executor and completer threads: event callbacks run there, and
 * an enqueue from a callback must never wait for these threads. */
static _Thread_local bool on_executor_thread KILN_TLS_MODEL;

bool kiln_executor_on_thread(void)
{
   return on_executor_thread;
}

static cl_int final_status(cl_event ev, cl_int err)
{
   if (!err && ev->ops->done)
      err = ev->ops->done(ev);
   if (err)
      kiln_log(KILN_LOG_QUEUE, "command 0x%x failed with %d", ev->type, err);
   return err ? (err < 0 ? err : CL_OUT_OF_RESOURCES) : CL_COMPLETE;
}

static void drop_ref(struct kiln_executor *ex)
{
   /* Called with ex->lock held. */
   bool last = --ex->refs == 0;
   pthread_mutex_unlock(&ex->lock);
   if (last) {
      pthread_mutex_destroy(&ex->lock);
      pthread_cond_destroy(&ex->wake);
      pthread_cond_destroy(&ex->wake_completer);
      kiln_free(ex);
   }
}

/* Completes f's event; f stays on ex->flying until then, so that a
 * command behind it cannot complete first (run_command). */
static void finish_flight(struct kiln_executor *ex, struct in_flight *f)
{
   int r = f->result;
   struct pipe_screen *screen = ex->device->screen;
   cl_event ev = f->ev;
   uint64_t start, end;
   /* Device times cost the driver queries: only for profiling queues. */
   if (ev->profiling && f->fence && screen->fence_times &&
       screen->fence_times(screen, f->fence, &start, &end)) {
      /* The device clock is mapped onto the host's with some error: keep
       * QUEUED <= SUBMIT <= START <= END (the spec's order) regardless. */
      if (start < ev->times[KILN_PROF_SUBMIT])
         start = ev->times[KILN_PROF_SUBMIT];
      ev->times[KILN_PROF_START] = start;
      ev->times[KILN_PROF_END] = end < start ? start : end;
   } else {
      /* Host times: recorded at START, ended now.  The device ran the
       * queue's work in order, so the command cannot have started before
       * the previous one ended. */
      cl_command_queue q = ev->queue;
      if (ev->times[KILN_PROF_START] < q->last_end)
         ev->times[KILN_PROF_START] = q->last_end;
      ev->times[KILN_PROF_END] = kiln_device_timestamp(ex->device);
   }
   ev->queue->last_end = ev->times[KILN_PROF_END];
   if (f->fence)
      screen->fence_destroy(screen, f->fence);
   kiln_event_complete(ev, final_status(ev, f->err ? f->err : r < 0 ? r : CL_SUCCESS));
}

/* How long a command stays in flight before the completer takes it (with
 * polling on): a clFinish right behind the enqueue takes it first and
 * completes it on its own thread, with no hand-over to the completer and
 * back, and a launch's fence does not signal sooner anyway (a GPU's
 * launch latency is several microseconds). */
#define COMPLETER_GRACE_NS 2000u

/* Whether the completer's condition holds (ex->lock held or not: a hint
 * when not).  *wait_ns: how long the grace period still runs. */
static bool completer_may_take(struct kiln_executor *ex, uint64_t *wait_ns)
{
   *wait_ns = 0;
   if (!atomic_load_explicit(&ex->num_flying, memory_order_relaxed) ||
       atomic_load_explicit(&ex->completing, memory_order_relaxed) ||
       atomic_load_explicit(&ex->finishers, memory_order_relaxed))
      return false;
   if (!kiln_spin_ns())
      return true; /* no polling: no grace either */
   uint64_t at = atomic_load_explicit(&ex->oldest_flown_ns, memory_order_relaxed);
   uint64_t now = kiln_monotonic_ns();
   if (now - at >= COMPLETER_GRACE_NS)
      return true;
   *wait_ns = COMPLETER_GRACE_NS - (now - at);
   return false;
}

static bool completer_poll(void *arg)
{
   struct kiln_executor *ex = arg;
   uint64_t wait_ns;
   return completer_may_take(ex, &wait_ns) ||
          atomic_load_explicit(&ex->quit, memory_order_relaxed);
}

/* Nothing is or will be in flight (ex->lock held). */
static bool completer_done(struct kiln_executor *ex)
{
   return !ex->flying && ex->quit && !ex->head && !ex->executor_started;
}

/* Makes a fence for the flights that need one (the oldest does, and none
 * after it has a fence), as a flight of its own at the end of the list
 * (ex->lock held, released meanwhile).  False when another thread records
 * into the pipe context: it will hand out a fence or the context soon. */
static bool add_fence(struct kiln_executor *ex, struct pipe_context *p)
{
   if (ex->running || ex->head)
      return false;
   ex->running = true;
   atomic_store(&ex->fencing, true);
   pthread_mutex_unlock(&ex->lock);
   struct pipe_fence *fence = NULL;
   p->flush(p, &fence);
   /* The newest flight takes the fence when it is a launch that needs one
    * (the usual case: no allocation), else a flight of the fence's own. */
   struct in_flight *tail = ex->flying_tail;
   struct in_flight *g = !fence ? NULL : tail->needs_fence ? tail : kiln_calloc(1, sizeof(*g));
   if (!g && fence) {
      /* No memory to track it: the work it covers is done once it is. */
      p->screen->fence_wait(p->screen, fence, PIPE_TIMEOUT_INFINITE);
      p->screen->fence_destroy(p->screen, fence);
   }
   pthread_mutex_lock(&ex->lock);
   ex->running = false;
   atomic_store(&ex->fencing, false);
   if (ex->head && ex->asleep)
      pthread_cond_signal(&ex->wake);
   if (g) {
      /* Nothing was added meanwhile (only the thread that records adds):
       * it covers every flight up to it. */
      g->fence = fence;
      g->needs_fence = false;
      if (g != tail) {
         g->flown_ns = tail->flown_ns;
         tail->next = g;
         ex->flying_tail = g;
         atomic_fetch_add_explicit(&ex->num_flying, 1, memory_order_relaxed);
      }
      if (!ex->first_fenced)
         ex->first_fenced = g;
   } else {
      /* No fence (the context's work is all complete) or waited for
       * above: what needed one is done. */
      for (struct in_flight *f = ex->flying; f; f = f->next)
         f->needs_fence = false;
   }
   return true;
}

/* Waits for the oldest flight's fence (or the fence of the first later
 * flight that has one, when it needs one) and completes its event (ex->lock
 * held, released meanwhile; nobody else completing).  False when nothing
 * could be done: the oldest needs a fence that only the thread recording
 * into the context can make now. */
static bool complete_oldest(struct kiln_executor *ex)
{
   struct pipe_screen *screen = ex->device->screen;
   struct in_flight *f = ex->flying;
   struct pipe_fence *fence = f->fence;
   if (f->needs_fence) {
      struct in_flight *g = ex->first_fenced;
      if (!g) {
         struct pipe_context *p = f->ev->queue->pipe;
         atomic_store_explicit(&ex->completing, true, memory_order_relaxed);
         bool made = add_fence(ex, p);
         atomic_store_explicit(&ex->completing, false, memory_order_relaxed);
         return made; /* and the caller comes back for f */
      }
      fence = g->fence;
   }
   atomic_store_explicit(&ex->completing, true, memory_order_relaxed);
   pthread_mutex_unlock(&ex->lock);
   /* One pipe context's fences signal in the order they were made:
    * sleep on the oldest.  (A fence covering f is waited for again when
    * its own flight comes: fence_wait then returns what it found.) */
   f->result = fence ? screen->fence_wait(screen, fence, PIPE_TIMEOUT_INFINITE) : 0;
   if (f->ev) {
      finish_flight(ex, f);
   } else if (f->fence) {
      screen->fence_destroy(screen, f->fence); /* a fence of add_fence's */
   }
   pthread_mutex_lock(&ex->lock);
   ex->flying = f->next;
   if (!ex->flying)
      ex->flying_tail = NULL;
   else
      atomic_store_explicit(&ex->oldest_flown_ns, ex->flying->flown_ns, memory_order_relaxed);
   if (ex->first_fenced == f) {
      /* Each flight is passed over here once at most. */
      struct in_flight *g = f->next;
      while (g && !g->fence)
         g = g->next;
      ex->first_fenced = g;
   }
   /* After its event completed (release: a command that sees 0 next
    * sees that completion too). */
   atomic_fetch_sub_explicit(&ex->num_flying, 1, memory_order_release);
   atomic_store_explicit(&ex->completing, false, memory_order_relaxed);
   kiln_free(f);
   return true;
}

static bool recorder_done(void *arg)
{
   struct kiln_executor *ex = arg;
   return !atomic_load_explicit(&ex->running, memory_order_relaxed) &&
          !atomic_load_explicit(&ex->queued, memory_order_relaxed);
}

static void *completer_main(void *arg)
{
   struct kiln_executor *ex = arg;
   on_executor_thread = true;
   pthread_mutex_lock(&ex->lock);
   for (;;) {
      uint64_t wait_ns;
      if (!completer_may_take(ex, &wait_ns) && !completer_done(ex)) {
         /* Back-to-back commands fly within microseconds of each other:
          * look for the next before sleeping, so that fly() need not
          * wake us (a futex round trip per command). */
         pthread_mutex_unlock(&ex->lock);
         kiln_spin_until(completer_poll, ex);
         pthread_mutex_lock(&ex->lock);
      }
      while (!completer_may_take(ex, &wait_ns) && !completer_done(ex)) {
         ex->completer_asleep = true;
         if (wait_ns) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += (long)wait_ns;
            if (ts.tv_nsec >= 1000000000l) {
               ts.tv_sec++;
               ts.tv_nsec -= 1000000000l;
            }
            pthread_cond_timedwait(&ex->wake_completer, &ex->lock, &ts);
         } else {
            pthread_cond_wait(&ex->wake_completer, &ex->lock);
         }
         ex->completer_asleep = false;
      }
      if (!completer_may_take(ex, &wait_ns))
         break; /* done */
      if (!complete_oldest(ex)) {
         /* The oldest needs a fence and another thread records: it is
          * done within microseconds, or sleeps in a long command (a map
          * waiting for the device), so poll, then nap. */
         pthread_mutex_unlock(&ex->lock);
         if (!kiln_spin_until(recorder_done, ex)) {
            struct timespec nap = {0, 100000};
            nanosleep(&nap, NULL);
         }
         pthread_mutex_lock(&ex->lock);
      }
   }
   drop_ref(ex);
   return NULL;
}

/* Hands a recorded, flushed command to the completer (fence NULL: one
 * with no device work, queued behind those in flight, or with
 * needs_fence, one whose work a later fence covers).  Called by the thread
 * that records into the queue's pipe context. */
static void fly(struct kiln_executor *ex, cl_event ev, struct pipe_fence *fence, cl_int err,
                bool needs_fence)
{
   struct pipe_screen *screen = ex->device->screen;
   struct in_flight *f = kiln_malloc(sizeof(*f));
   if (!f && needs_fence) {
      /* Nothing to track it with: fence it after all. */
      ev->queue->pipe->flush(ev->queue->pipe, &fence);
      needs_fence = false;
   }
   if (!f) {
      /* No memory to track it: wait here instead. */
      int r = fence ? screen->fence_wait(screen, fence, PIPE_TIMEOUT_INFINITE) : 0;
      if (fence)
         screen->fence_destroy(screen, fence);
      kiln_event_complete(ev, final_status(ev, err ? err : r < 0 ? r : CL_SUCCESS));
      return;
   }
   f->ev = ev;
   f->fence = fence;
   f->err = err;
   f->next = NULL;
   f->flown_ns = kiln_spin_ns() ? kiln_monotonic_ns() : 0;
   f->needs_fence = needs_fence;
   /* Later commands of the same queue may now be recorded behind it: the
    * device runs a context's work in order.  Before the completer sees
    * ev, which may complete and free it at once.  (A failed command's
    * dependents wait for its failure instead.) */
   if (!err)
      kiln_event_release_queue_dependents(ev);
   pthread_mutex_lock(&ex->lock);
   if (!ex->completer_started) {
      pthread_t t;
      if (!pthread_create(&t, NULL, completer_main, ex)) {
         pthread_detach(t);
         ex->completer_started = true;
         ex->refs++;
      }
   }
   bool started = ex->completer_started;
   if (started) {
      if (ex->flying_tail) {
         ex->flying_tail->next = f;
      } else {
         ex->flying = f;
         atomic_store_explicit(&ex->oldest_flown_ns, f->flown_ns, memory_order_relaxed);
      }
      ex->flying_tail = f;
      if (fence && !ex->first_fenced)
         ex->first_fenced = f;
      atomic_fetch_add_explicit(&ex->num_flying, 1, memory_order_relaxed);
      if (ex->completer_asleep)
         pthread_cond_signal(&ex->wake_completer);
   }
   pthread_mutex_unlock(&ex->lock);
   if (!started) {
      /* No completer thread, so nothing is in flight either. */
      if (needs_fence)
         ev->queue->pipe->flush(ev->queue->pipe, &fence);
      f->fence = fence;
      f->result = fence ? screen->fence_wait(screen, fence, PIPE_TIMEOUT_INFINITE) : 0;
      finish_flight(ex, f);
      kiln_free(f);
   }
}

/* Called by whoever runs the queue's commands, the only thread that adds
 * to flying: a 0 stays 0 until it adds one. */
static bool in_flight(struct kiln_executor *ex)
{
   return atomic_load_explicit(&ex->num_flying, memory_order_acquire) != 0;
}

/* Records ev into its queue's pipe context and hands it to the device.
 * settle: the caller waits for ev next (clFinish running the queue on its
 * own thread), so if nothing is in flight it waits for ev's fence here
 * rather than through the completer thread (two wake-ups fewer). */
static void run_command(struct kiln_executor *ex, cl_event ev, bool settle)
{
   struct pipe_context *p = ev->queue->pipe;
   ev->times[KILN_PROF_START] = kiln_device_timestamp(ev->queue->device);
   kiln_event_set_state(ev, CL_RUNNING);
   /* Device times cost the driver work (a CUDA event more per launch):
    * only profiling queues ask for them. */
   p->timed = ev->profiling;
   cl_int err = ev->ops->run(ev);
   /* A launch nobody waits for by itself, on a device whose launches only
    * queue work, needs no fence (a CUDA event) of its own: the context's
    * next fence covers it, whoever makes it (complete_oldest). */
   if (ex && !err && !settle && ev->unobserved && ev->ops->records_only &&
       ex->device->caps->launch_records_async && deferred_fences()) {
      p->flush(p, NULL);
      fly(ex, ev, NULL, CL_SUCCESS, true);
      return;
   }
   struct pipe_fence *fence = NULL;
   p->flush(p, &fence);
   /* Events complete in the order their commands ran: the completer's,
    * once anything is on it (ex->flying keeps a command until its event
    * has completed). */
   if (ex && (fence || in_flight(ex))) {
      if (settle && fence && !in_flight(ex)) {
         struct in_flight f = {ev, fence, err, 0, 0, NULL};
         f.result = p->screen->fence_wait(p->screen, fence, PIPE_TIMEOUT_INFINITE);
         finish_flight(ex, &f);
         return;
      }
      fly(ex, ev, fence, err, false);
      return;
   }
   if (fence) {
      /* No executor: settle it here. */
      int r = p->screen->fence_wait(p->screen, fence, PIPE_TIMEOUT_INFINITE);
      p->screen->fence_destroy(p->screen, fence);
      if (!err && r < 0)
         err = r;
   }
   kiln_event_complete(ev, final_status(ev, err));
}

/* Takes every ready command (ex->lock held). */
static cl_event take_batch(struct kiln_executor *ex)
{
   cl_event batch = ex->head;
   ex->head = ex->tail = NULL;
   atomic_store_explicit(&ex->queued, false, memory_order_relaxed);
   ex->running = true;
   return batch;
}

static void run_batch(struct kiln_executor *ex, cl_event batch)
{
   while (batch) {
      /* ev may complete and be freed by run_command. */
      cl_event next = batch->next_ready;
      run_command(ex, batch, false);
      batch = next;
   }
}

static bool work_or_quit(void *arg)
{
   struct kiln_executor *ex = arg;
   return atomic_load_explicit(&ex->queued, memory_order_relaxed) ||
          atomic_load_explicit(&ex->quit, memory_order_relaxed);
}

static void *executor_main(void *arg)
{
   struct kiln_executor *ex = arg;
   on_executor_thread = true;
   bool polled = false;
   pthread_mutex_lock(&ex->lock);
   for (;;) {
      if (ex->head && !ex->running) {
         cl_event batch = take_batch(ex);
         pthread_mutex_unlock(&ex->lock);
         /* ex->device stays valid while a command of it is queued or runs. */
         run_batch(ex, batch);
         pthread_mutex_lock(&ex->lock);
         ex->running = false;
         polled = false;
         continue;
      }
      if (!ex->head && ex->quit)
         break;
      if (!polled) {
         /* The next command of a program that enqueues back to back
          * comes within microseconds: look for it before sleeping.  (A
          * clFinish running a batch on its own thread makes this return
          * at once: then sleep until it hands the queue back.) */
         pthread_mutex_unlock(&ex->lock);
         kiln_spin_until(work_or_quit, ex);
         pthread_mutex_lock(&ex->lock);
         polled = true;
         continue;
      }
      ex->asleep = true;
      pthread_cond_wait(&ex->wake, &ex->lock);
      ex->asleep = false;
      polled = false;
   }
   /* Stopped: let the completer drain what is in flight and leave. */
   ex->executor_started = false;
   pthread_cond_signal(&ex->wake_completer);
   drop_ref(ex);
   return NULL;
}

struct kiln_executor *kiln_executor_create(cl_device_id dev)
{
   struct kiln_executor *ex = kiln_calloc(1, sizeof(*ex));
   if (!ex)
      return NULL;
   ex->device = dev;
   ex->refs = 1;
   atomic_init(&ex->num_flying, 0);
   pthread_mutex_init(&ex->lock, NULL);
   pthread_cond_init(&ex->wake, NULL);
   pthread_cond_init(&ex->wake_completer, NULL);
   return ex;
}

static pthread_once_t direct_once = PTHREAD_ONCE_INIT;
static bool direct_on = true;

static void direct_init(void)
{
   const char *env = getenv("KILN_DIRECT_LAUNCH");
   direct_on = !env || !(!strcmp(env, "0") || !strcasecmp(env, "off") ||
                         !strcasecmp(env, "no") || !strcasecmp(env, "false"));
}

/* KILN_DIRECT_LAUNCH (docs/env.md): launches may be recorded on the
 * thread that makes them ready (on by default; off, every command goes
 * through the executor thread, to compare the two on a GPU). */
static bool direct_launches(void)
{
   pthread_once(&direct_once, direct_init);
   return direct_on;
}

static pthread_once_t shared_once = PTHREAD_ONCE_INIT;
static bool shared_on = true;

static void shared_init(void)
{
   const char *env = getenv("KILN_SHARED_FENCES");
   shared_on = !env || !(!strcmp(env, "0") || !strcasecmp(env, "off") ||
                         !strcasecmp(env, "no") || !strcasecmp(env, "false"));
}

/* KILN_SHARED_FENCES (docs/env.md): launches nobody waits for by
 * themselves may share a later fence (on by default; off, every command
 * gets one of its own, to compare the two on a GPU). */
static bool deferred_fences(void)
{
   pthread_once(&shared_once, shared_init);
   return shared_on;
}

/* Starts the executor thread if it is not running (ex->lock held);
 * false when no thread could be started. */
static bool start_executor(struct kiln_executor *ex)
{
   if (ex->executor_started)
      return true;
   pthread_t t;
   if (pthread_create(&t, NULL, executor_main, ex))
      return false;
   pthread_detach(t);
   ex->executor_started = true;
   ex->refs++;
   return true;
}

/* Runs ev, which may only record (kiln_command_ops::records_only), on the
 * calling thread, which took the queue (ex->running) with nothing queued
 * ahead of ev; then hands the queue back, with what was pushed meanwhile
 * going to the executor thread. */
static void run_here(struct kiln_executor *ex, cl_event ev)
{
   bool was = on_executor_thread;
   /* Callbacks run here now: an enqueue from one must not wait for the
    * queue to drain (queue.c, throttle). */
   on_executor_thread = true;
   run_command(ex, ev, false);
   pthread_mutex_lock(&ex->lock);
   while (ex->head && !start_executor(ex)) {
      /* No thread for the rest: run it here rather than never. */
      cl_event batch = take_batch(ex);
      pthread_mutex_unlock(&ex->lock);
      run_batch(ex, batch);
      pthread_mutex_lock(&ex->lock);
   }
   ex->running = false;
   if (ex->head && ex->asleep)
      pthread_cond_signal(&ex->wake);
   on_executor_thread = was;
   /* ev may have completed and its queue gone meanwhile (this thread may
    * be another queue's completer): ex lived on through this reference. */
   drop_ref(ex);
}

static bool not_fencing(void *arg)
{
   struct kiln_executor *ex = arg;
   return !atomic_load_explicit(&ex->fencing, memory_order_acquire);
}

void kiln_executor_push(struct kiln_executor *ex, cl_event ev)
{
   ev->next_ready = NULL;
   /* A launch that only records (a CUDA stream's) goes to the device from
    * this thread when nothing of the queue is ahead of it and nobody else
    * records: no hand-over to the executor thread, whose wake-up or
    * polling would cost more than the launch (docs/design.md, "Executor:
    * the launch path").  Commands that may wait (maps, host copies) and
    * devices that run work as they record it (the CPU) keep going through
    * the executor, so that an enqueue never runs the work itself. */
   bool here = ev->ops && ev->ops->records_only && ex->device->caps->launch_records_async &&
               direct_launches();
   /* A fence for shared flights takes the context for a moment
    * (add_fence): wait for it rather than handing over (a while: the
    * thread making it may have lost its processor). */
   if (here && atomic_load_explicit(&ex->fencing, memory_order_acquire))
      kiln_spin_until(not_fencing, ex);
   pthread_mutex_lock(&ex->lock);
   if (here && !ex->head && !ex->running && !ex->quit) {
      ex->running = true;
      ex->refs++; /* dropped by run_here */
      pthread_mutex_unlock(&ex->lock);
      run_here(ex, ev);
      return;
   }
   if (!start_executor(ex)) {
      /* No thread could be started: run it here rather than never. */
      pthread_mutex_unlock(&ex->lock);
      run_command(NULL, ev, false);
      return;
   }
   if (ex->tail)
      ex->tail->next_ready = ev;
   else
      ex->head = ev;
   ex->tail = ev;
   atomic_store_explicit(&ex->queued, true, memory_order_relaxed);
   /* Polling or running a batch (which ends with a look for more), the
    * executor needs no signal; nor does it while a clFinish runs the
    * queue (which hands over what is left when it returns). */
   if (ex->asleep && !ex->running)
      pthread_cond_signal(&ex->wake);
   pthread_mutex_unlock(&ex->lock);
}

void kiln_executor_help(struct kiln_executor *ex, cl_event last)
{
   if (!ex)
      return;
   bool was = on_executor_thread;
   bool ran_last = false;
   pthread_mutex_lock(&ex->lock);
   /* While this thread may complete flights, the completer leaves them:
    * no hand-over to it and back. */
   atomic_fetch_add_explicit(&ex->finishers, 1, memory_order_relaxed);
   while (!kiln_event_finished(last)) {
      if (!ran_last && ex->head && !ex->running && !ex->quit) {
         cl_event batch = take_batch(ex);
         pthread_mutex_unlock(&ex->lock);
         /* Callbacks run here now: an enqueue from one must not wait for
          * the queue to drain (queue.c, throttle). */
         on_executor_thread = true;
         while (batch && !ran_last) {
            cl_event next = batch->next_ready;
            ran_last = batch == last;
            run_command(ex, batch, ran_last);
            batch = next;
         }
         on_executor_thread = was;
         pthread_mutex_lock(&ex->lock);
         if (batch) {
            /* Commands after last: back to the front, for the executor. */
            cl_event tail = batch;
            while (tail->next_ready)
               tail = tail->next_ready;
            tail->next_ready = ex->head;
            if (!ex->head)
               ex->tail = tail;
            ex->head = batch;
            atomic_store_explicit(&ex->queued, true, memory_order_relaxed);
         }
         ex->running = false;
         if (ex->head && ex->asleep)
            pthread_cond_signal(&ex->wake);
         continue;
      }
      if (ex->flying && !atomic_load_explicit(&ex->completing, memory_order_relaxed)) {
         /* What went to the device ahead of last (launches recorded on
          * the enqueuing thread, kiln_executor_push): wait for it here. */
         on_executor_thread = true;
         bool done = complete_oldest(ex);
         on_executor_thread = was;
         if (done)
            continue;
      }
      /* Another thread records or completes the queue's commands: wait
       * for last as usual. */
      break;
   }
   atomic_fetch_sub_explicit(&ex->finishers, 1, memory_order_relaxed);
   if (ex->flying && ex->completer_asleep)
      pthread_cond_signal(&ex->wake_completer);
   pthread_mutex_unlock(&ex->lock);
}

void kiln_executor_stop(struct kiln_executor *ex)
{
   if (!ex)
      return;
   pthread_mutex_lock(&ex->lock);
   atomic_store(&ex->quit, true);
   pthread_cond_signal(&ex->wake);
   pthread_cond_signal(&ex->wake_completer);
   drop_ref(ex);
}
