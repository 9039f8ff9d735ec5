/* The commands of a queue that went to the device (flights), and the
 * completer thread that waits for their fences and completes their
 * events in the order they ran (docs/design.md, "Executor: the launch
 * path"): the grace it leaves a clFinish, shared fences. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "core/device.h"
#include "core/event.h"
#include "core/executor_priv.h"
#include "core/queue.h"
#include "util/alloc.h"
#include "util/env.h"
#include "util/log.h"
#include "util/spin.h"

/* Completed flights' records an executor keeps for the next ones: as
 * many as its queue may have commands, so that a stream of launches
 * allocates none once it has run as far ahead of the device as it will
 * (a record is a few dozen bytes; the events it tracked took far more). */
#define KILN_SPARE_FLIGHTS KILN_QUEUE_MAX_PENDING

cl_int kiln_flight_status(cl_event ev, cl_int err)
{
   if (!err && ev->ops->done)
      err = ev->ops->done(ev);
   if (err)
      kiln_log(KILN_LOG_QUEUE, "command 0x%x failed with %d", ev->type, err);
   return err ? (err < 0 ? err : CL_OUT_OF_RESOURCES) : CL_COMPLETE;
}

/* Completes f's event; f stays on ex->flying until then, so that a
 * command behind it cannot complete first (run_command). */
void kiln_flight_finish(struct kiln_executor *ex, struct in_flight *f)
{
   int r = f->result;
   struct pipe_screen *screen = ex->device->screen;
   cl_event ev = f->ev;
   uint64_t start, end;
   /* Device times cost the driver queries: only for profiling queues. */
   if (ev->profiling && f->fence && screen->fence_times &&
       screen->fence_times(screen, f->fence, &start, &end)) {
      /* The device clock is mapped onto the host's with some error (the
       * CUDA driver's anchor is the middle of a record and a wait): keep
       * QUEUED <= SUBMIT <= START <= END (the spec's order) regardless,
       * and END no later than now, when the command is seen done (a
       * mapped END past it came after clFinish returned, under ASan). */
      uint64_t now = kiln_device_timestamp(ex->device);
      if (end > now)
         end = now;
      if (start > end)
         start = end;
      if (start < ev->times[KILN_PROF_SUBMIT])
         start = ev->times[KILN_PROF_SUBMIT];
      ev->times[KILN_PROF_START] = start;
      ev->times[KILN_PROF_END] = end < start ? start : end;
   } else if (ev->timed) {
      /* Host times: recorded at START, ended now.  The device ran the
       * queue's work in order, so the command cannot have started before
       * the previous one ended. */
      cl_command_queue q = ev->queue;
      if (ev->times[KILN_PROF_START] < q->last_end)
         ev->times[KILN_PROF_START] = q->last_end;
      ev->times[KILN_PROF_END] = kiln_device_timestamp(ex->device);
   }
   if (ev->timed)
      ev->queue->last_end = ev->times[KILN_PROF_END];
   if (f->fence)
      screen->fence_destroy(screen, f->fence);
   kiln_event_complete(ev, kiln_flight_status(ev, f->err ? f->err : r < 0 ? r : CL_SUCCESS));
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

/* Flushes p with a fence for the flights that need one and hangs it on
 * the newest flight, or on a flight of its own at the end of the list.
 * wait: the caller waits for that fence next, so where the pipe can wait
 * for its work without one (pipe_context::finish), it does, and the flush
 * then needs no fence.  The caller records into p (ex->running is its);
 * ex->lock not held on entry, held on return. */
static void fence_flights(struct kiln_executor *ex, struct pipe_context *p, bool wait)
{
   struct pipe_fence *fence = NULL;
   if (wait && p->finish)
      p->finish(p);
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
}

/* Makes a fence for the flights that need one (the oldest does, and none
 * after it has a fence), as add_fence's caller, which does not record
 * (ex->lock held, released meanwhile); wait: as fence_flights'.  False
 * when another thread records into the pipe context: it will hand out a
 * fence or the context soon. */
static bool add_fence(struct kiln_executor *ex, struct pipe_context *p, bool wait)
{
   if (ex->running || ex->head)
      return false;
   ex->running = true;
   atomic_store(&ex->fencing, true);
   pthread_mutex_unlock(&ex->lock);
   fence_flights(ex, p, wait);
   ex->running = false;
   atomic_store(&ex->fencing, false);
   if (ex->head && ex->asleep)
      pthread_cond_signal(&ex->wake);
   return true;
}

void kiln_flight_fence_shared(struct kiln_executor *ex, struct pipe_context *p)
{
   pthread_mutex_lock(&ex->lock);
   /* The newest flight stays while it needs a fence: the completer
    * cannot complete it without one, and cannot make one while we
    * record (add_fence). */
   bool need = ex->flying_tail && ex->flying_tail->needs_fence;
   pthread_mutex_unlock(&ex->lock);
   if (!need)
      return;
   fence_flights(ex, p, false);
   if (ex->completer_asleep)
      pthread_cond_signal(&ex->wake_completer);
   pthread_mutex_unlock(&ex->lock);
}

/* Waits for the oldest flight's fence (or the fence of the first later
 * flight that has one, when it needs one) and completes its event (ex->lock
 * held, released meanwhile; nobody else completing).  False when nothing
 * could be done: the oldest needs a fence that only the thread recording
 * into the context can make now. */
bool kiln_flight_complete_oldest(struct kiln_executor *ex, bool finisher)
{
   struct pipe_screen *screen = ex->device->screen;
   struct in_flight *f = ex->flying;
   /* What completes now: f alone, or, where f waits for a later fence,
    * every flight up to the one that brings it (first_fenced): they
    * share its result, so one wait and one pass of the lock serve them
    * all (docs/performance.md, "Where the rest of a back-to-back launch
    * goes"). */
   struct in_flight *last = f;
   if (f->needs_fence) {
      last = ex->first_fenced;
      if (!last) {
         struct pipe_context *p = f->ev->queue->pipe;
         atomic_store_explicit(&ex->completing, true, memory_order_relaxed);
         /* A finisher (clFinish, a wait) waits for the fence at once;
          * the completer does too, but another thread may be waiting to
          * record behind it, which a stream-wide wait would hold up. */
         bool made = add_fence(ex, p, finisher);
         atomic_store_explicit(&ex->completing, false, memory_order_relaxed);
         return made; /* and the caller comes back for f */
      }
   }
   struct pipe_fence *fence = last->fence;
   atomic_store_explicit(&ex->completing, true, memory_order_relaxed);
   pthread_mutex_unlock(&ex->lock);
   /* One pipe context's fences signal in the order they were made:
    * sleep on the oldest. */
   int r = fence ? screen->fence_wait(screen, fence, PIPE_TIMEOUT_INFINITE) : 0;
   /* The flights up to last stay linked while only this thread removes
    * them (the recording thread appends behind last): no lock needed to
    * walk them.  Between f and last none has a fence of its own; those
    * without device work (no needs_fence) end with no error. */
   unsigned n = 0;
   struct in_flight *x = f, *next;
   for (;; x = next) {
      /* last->next is the recording thread's to write meanwhile. */
      next = x == last ? NULL : x->next;
      x->result = x == last || x->needs_fence ? r : 0;
      if (x->ev)
         kiln_flight_finish(ex, x);
      else if (x->fence)
         screen->fence_destroy(screen, x->fence); /* a fence of add_fence's */
      n++;
      if (!next)
         break;
   }
   pthread_mutex_lock(&ex->lock);
   ex->flying = last->next;
   if (!ex->flying)
      ex->flying_tail = NULL;
   else
      atomic_store_explicit(&ex->oldest_flown_ns, ex->flying->flown_ns, memory_order_relaxed);
   if (ex->first_fenced == last) {
      /* Each flight is passed over here once at most. */
      struct in_flight *g = last->next;
      while (g && !g->fence)
         g = g->next;
      ex->first_fenced = g;
   }
   /* After their events completed (release: a command that sees 0 next
    * sees those completions too). */
   atomic_fetch_sub_explicit(&ex->num_flying, n, memory_order_release);
   atomic_store_explicit(&ex->completing, false, memory_order_relaxed);
   last->next = NULL;
   for (x = f; x; x = next) {
      next = x->next;
      if (ex->num_spare_flights < KILN_SPARE_FLIGHTS) {
         x->next = ex->spare_flights;
         ex->spare_flights = x;
         ex->num_spare_flights++;
      } else {
         kiln_free(x);
      }
   }
   return true;
}

static void *completer_main(void *arg)
{
   struct kiln_executor *ex = arg;
   kiln_executor_mark_thread();
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
         ex->completer_napping = wait_ns != 0;
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
      if (!kiln_flight_complete_oldest(ex, false)) {
         /* The oldest needs a fence and another thread records: a series
          * of launches, a long command (a map waiting for the device,
          * which gives the fence first: kiln_flight_fence_shared wakes
          * us) or one launch.  Nap until the recorder lets go of the
          * context, which wakes us (completer_wants_context), rather than
          * poll: polling reads the executor's fields while the recorder
          * writes them, a cache line handed over and back per launch of
          * a series. */
         if (!ex->first_fenced) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 100000;
            if (ts.tv_nsec >= 1000000000l) {
               ts.tv_sec++;
               ts.tv_nsec -= 1000000000l;
            }
            ex->completer_asleep = true;
            ex->completer_napping = true;
            ex->completer_wants_context = true;
            pthread_cond_timedwait(&ex->wake_completer, &ex->lock, &ts);
            ex->completer_wants_context = false;
            ex->completer_asleep = false;
         }
      }
   }
   kiln_executor_unref(ex);
   return NULL;
}

/* Hands a recorded, flushed command to the completer (fence NULL: one
 * with no device work, queued behind those in flight, or with
 * needs_fence, one whose work a later fence covers).  Called by the thread
 * that records into the queue's pipe context. */
void kiln_flight_fly(struct kiln_executor *ex, cl_event ev, struct pipe_fence *fence,
                     cl_int err, bool needs_fence)
{
   struct pipe_screen *screen = ex->device->screen;
   /* Later commands of the same queue may now be recorded behind it: the
    * device runs a context's work in order.  Before the completer sees
    * ev, which may complete and free it at once.  (A failed command's
    * dependents wait for its failure instead.) */
   if (!err)
      kiln_event_release_queue_dependents(ev);
   uint64_t flown_ns = kiln_spin_ns() ? kiln_monotonic_ns() : 0;
   pthread_mutex_lock(&ex->lock);
   /* A record that an earlier flight left (kiln_flight_complete_oldest),
    * taken under the lock that the list's append needs anyway: no
    * malloc and free per command. */
   struct in_flight *f = ex->spare_flights;
   if (f) {
      ex->spare_flights = f->next;
      ex->num_spare_flights--;
   } else {
      f = kiln_malloc(sizeof(*f));
   }
   if (!f)
      pthread_mutex_unlock(&ex->lock);
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
      kiln_event_complete(ev, kiln_flight_status(ev, err ? err : r < 0 ? r : CL_SUCCESS));
      return;
   }
   f->ev = ev;
   f->fence = fence;
   f->err = err;
   f->next = NULL;
   f->flown_ns = flown_ns;
   f->needs_fence = needs_fence;
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
      /* What the completer can do now that it could not before: take
       * this flight, the first in flight, or, with its fence, the
       * flights before it that wait for one. */
      bool news = !ex->flying_tail || (fence && !ex->first_fenced);
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
      /* A flight behind others that brings no fence changes nothing for
       * a completer napping until the oldest's grace ends or the thread
       * that records lets it make a fence: it looks again by itself, and
       * the recorder does not pay a wake-up (a futex call, about 1 µs)
       * every few launches of a long series.  Asleep without a timeout,
       * it is told of every flight. */
      if (ex->completer_asleep && (news || !ex->completer_napping))
         pthread_cond_signal(&ex->wake_completer);
   }
   pthread_mutex_unlock(&ex->lock);
   if (!started) {
      /* No completer thread, so nothing is in flight either. */
      if (needs_fence)
         ev->queue->pipe->flush(ev->queue->pipe, &fence);
      f->fence = fence;
      f->result = fence ? screen->fence_wait(screen, fence, PIPE_TIMEOUT_INFINITE) : 0;
      kiln_flight_finish(ex, f);
      kiln_free(f);
   }
}

static pthread_once_t shared_once = PTHREAD_ONCE_INIT;
static bool shared_on = true;

static void shared_init(void)
{
   const char *env = getenv("KILN_SHARED_FENCES");
   shared_on = !kiln_env_off(env);
}

/* KILN_SHARED_FENCES (docs/env.md): launches nobody waits for by
 * themselves may share a later fence (on by default; off, every command
 * gets one of its own, to compare the two on a GPU). */
bool kiln_flights_shared(void)
{
   pthread_once(&shared_once, shared_init);
   return shared_on;
}
