/* A queue's executor (core/executor.h): the executor thread, launches
 * recorded on the thread that makes them ready, clFinish running and
 * completing the queue's commands itself.  What went to the device and
 * its completion: completer.c. */
#include "core/executor.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/device.h"
#include "core/event.h"
#include "core/executor_priv.h"
#include "core/queue.h"
#include "util/alloc.h"
#include "util/env.h"
#include "util/log.h"
#include "util/spin.h"
#include "util/tls.h"

/* Set on executor and completer threads: event callbacks run there, and
 * an enqueue from a callback must never wait for these threads. */
static _Thread_local bool on_executor_thread KILN_TLS_MODEL;

bool kiln_executor_on_thread(void)
{
   return on_executor_thread;
}

void kiln_executor_mark_thread(void)
{
   on_executor_thread = true;
}

void kiln_executor_unref(struct kiln_executor *ex)
{
   /* Called with ex->lock held. */
   bool last = --ex->refs == 0;
   pthread_mutex_unlock(&ex->lock);
   if (last) {
      for (struct in_flight *f = ex->spare_flights, *next; f; f = next) {
         next = f->next;
         kiln_free(f);
      }
      pthread_mutex_destroy(&ex->lock);
      pthread_cond_destroy(&ex->wake);
      pthread_cond_destroy(&ex->wake_completer);
      kiln_free(ex);
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
   if (ev->timed)
      ev->times[KILN_PROF_START] = kiln_device_timestamp(ev->queue->device);
   kiln_event_set_state(ev, CL_RUNNING);
   /* Device times cost the driver work (a CUDA event more per launch):
    * only profiling queues ask for them. */
   p->timed = ev->profiling;
   /* A command that may wait for the device (a read into host memory, a
    * map): the launches before it that share a fence get one now, or the
    * completer could take them only after this command (docs/design.md).
    * Not when the caller waits for this command next: it completes them
    * itself afterwards, and a blocking read on an in-order queue is done
    * only once they are (a CUDA event less per read). */
   if (ex && !settle && !ev->ops->records_only && kiln_flights_shared())
      kiln_flight_fence_shared(ex, p);
   cl_int err = ev->ops->run(ev);
   /* A launch nobody waits for by itself, on a device whose launches only
    * queue work, needs no fence (a CUDA event) of its own: the context's
    * next fence covers it, whoever makes it (complete_oldest). */
   if (ex && !err && !settle && ev->unobserved && ev->ops->records_only &&
       ex->device->caps->launch_records_async && kiln_flights_shared()) {
      p->flush(p, NULL);
      kiln_flight_fly(ex, ev, NULL, CL_SUCCESS, true);
      return;
   }
   /* clFinish running a launch nobody holds the event of, queued (the
    * queue was busy at its enqueue), with nothing left in flight: it
    * waits for the stream itself, as add_fence does for it, rather than
    * for an event it would record only to wait for it; the flush then
    * needs no fence. */
   if (ex && settle && !err && ev->unobserved && ev->ops->records_only && p->finish &&
       !in_flight(ex))
      p->finish(p);
   struct pipe_fence *fence = NULL;
   p->flush(p, &fence);
   /* Events complete in the order their commands ran: the completer's,
    * once anything is on it (ex->flying keeps a command until its event
    * has completed). */
   if (ex && (fence || in_flight(ex))) {
      if (settle && fence && !in_flight(ex)) {
         struct in_flight f = {ev, fence, err, 0, 0, NULL};
         f.result = p->screen->fence_wait(p->screen, fence, PIPE_TIMEOUT_INFINITE);
         kiln_flight_finish(ex, &f);
         return;
      }
      kiln_flight_fly(ex, ev, fence, err, false);
      return;
   }
   if (fence) {
      /* No executor: settle it here. */
      int r = p->screen->fence_wait(p->screen, fence, PIPE_TIMEOUT_INFINITE);
      p->screen->fence_destroy(p->screen, fence);
      if (!err && r < 0)
         err = r;
   }
   kiln_event_complete(ev, kiln_flight_status(ev, err));
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

/* The executor whose batch the calling thread runs (executor_main):
 * commands its batch makes ready go on ex->follow, not ex->head. */
static _Thread_local struct kiln_executor *batch_of KILN_TLS_MODEL;

/* Runs a batch on the executor thread, then what it made ready meanwhile
 * (ex->follow): on an in-order queue, a command that went to the device
 * makes the next one ready (kiln_flight_fly), which then runs at once
 * instead of waiting for the next batch, with no ex->lock taken for the
 * push nor for taking it (docs/design.md, "Executor: the launch path").
 * Running them before ex->head keeps every order Kiln promises: a ready
 * command of an in-order queue has everything before it on the device or
 * complete, so none on ex->head comes after one of ex->follow, and an
 * out-of-order queue's ready commands may run in any order.
 * Only on devices whose launches only record (a GPU's series of launches,
 * each made ready when the one before went to the device), which it was
 * made for.  On the CPU, whose commands complete on this thread, the
 * measurements on the 2-core VM could not tell it from noise (kiln_bench's
 * kernel + blocking read row is 0.9 or 3 µs depending on which thread
 * takes the kernel, and the machine's load), so the CPU keeps the path
 * it had. */
static void run_batch(struct kiln_executor *ex, cl_event batch)
{
   if (ex->device->caps->launch_records_async)
      batch_of = ex;
   while (batch) {
      /* ev may complete and be freed by run_command. */
      cl_event next = batch->next_ready;
      run_command(ex, batch, false);
      batch = next;
      if (!batch && ex->follow) {
         batch = ex->follow;
         ex->follow = ex->follow_tail = NULL;
      }
   }
   batch_of = NULL;
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
         /* A completer napping until the context is free may make the
          * fence for the flights that need one now (add_fence).  Only
          * then: woken in its grace, it would only nap again. */
         if (ex->completer_wants_context && ex->flying && !ex->first_fenced && !ex->head)
            pthread_cond_signal(&ex->wake_completer);
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
   kiln_executor_unref(ex);
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
   kiln_mutex_init_spinning(&ex->lock);
   pthread_cond_init(&ex->wake, NULL);
   pthread_cond_init(&ex->wake_completer, NULL);
   return ex;
}

static pthread_once_t direct_once = PTHREAD_ONCE_INIT;
static bool direct_on = true;

static void direct_init(void)
{
   const char *env = getenv("KILN_DIRECT_LAUNCH");
   direct_on = !kiln_env_off(env);
}

/* KILN_DIRECT_LAUNCH (docs/env.md): launches may be recorded on the
 * thread that makes them ready (on by default; off, every command goes
 * through the executor thread, to compare the two on a GPU). */
static bool direct_launches(void)
{
   pthread_once(&direct_once, direct_init);
   return direct_on;
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

/* Runs ev, which only records (kiln_command_ops::records_only) or which
 * the calling thread waits for next (a blocking transfer or map), on the
 * calling thread, which took the queue (ex->running) with nothing queued
 * ahead of ev; then hands the queue back, with what was pushed meanwhile
 * going to the executor thread.  settle: as run_command's. */
static void run_here(struct kiln_executor *ex, cl_event ev, bool settle)
{
   bool was = on_executor_thread;
   /* Callbacks run here now: an enqueue from one must not wait for the
    * queue to drain (queue.c, throttle). */
   on_executor_thread = true;
   run_command(ex, ev, settle);
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
   else if (!ex->head && ex->completer_wants_context && ex->flying && !ex->first_fenced)
      pthread_cond_signal(&ex->wake_completer); /* as executor_main does */
   on_executor_thread = was;
   /* ev may have completed and its queue gone meanwhile (this thread may
    * be another queue's completer): ex lived on through this reference. */
   kiln_executor_unref(ex);
}

static bool not_fencing(void *arg)
{
   struct kiln_executor *ex = arg;
   return !atomic_load_explicit(&ex->fencing, memory_order_acquire);
}

/* Launches of the queue are still in flight: the launch being enqueued
 * is one of a series.  Recorded by the executor thread, it overlaps this
 * thread's enqueue of the next one; recorded here, the two alternate
 * (the completer's fences take the context now and then, which sends
 * the launches after them to the executor anyway).  On an H200 behind a
 * 16-core Xeon, back-to-back launches cost 6.4-6.9 µs through the
 * executor and 6.8-7.6 µs with launches taken here whenever they could be
 * (docs/performance.md, "Where a back-to-back launch goes"). */
static bool queue_busy(struct kiln_executor *ex)
{
   return atomic_load_explicit(&ex->num_flying, memory_order_relaxed) != 0;
}

void kiln_executor_push(struct kiln_executor *ex, cl_event ev)
{
   ev->next_ready = NULL;
   if (batch_of == ex) {
      /* Made ready by the batch this thread runs: next in it (run_batch). */
      if (ex->follow_tail)
         ex->follow_tail->next_ready = ev;
      else
         ex->follow = ev;
      ex->follow_tail = ev;
      return;
   }
   /* A launch that only records (a CUDA stream's) goes to the device from
    * this thread when nothing of the queue is ahead of it or in flight
    * (queue_busy) and nobody else records: no hand-over to the executor
    * thread, whose wake-up or polling would cost more than the launch
    * (docs/design.md, "Executor: the launch path").  Commands that may
    * wait (maps, host copies) and devices that run work as they record
    * it (the CPU) keep going through the executor, so that an enqueue
    * never runs the work of a command that does not block it. */
   bool here = ev->ops && ev->ops->records_only && ex->device->caps->launch_records_async &&
               direct_launches() && !queue_busy(ex);
   /* A blocking read, write or map that is ready while its enqueue runs,
    * on a device whose launches only record: the enqueuing thread would
    * only wait for the executor thread to run it (a hand-over each way),
    * so it runs it, and on an in-order queue completes what went to the
    * device before it too, as clFinish does (kiln_executor_help), counted
    * as a finisher throughout so that the completer does not take those
    * flights in between.  (On the CPU device, whose launches run on the
    * executor, the waiting thread's kiln_queue_help already runs such a
    * read, and this path measured slower: 3.3-4.3 against 1.2-3.6 µs for
    * kiln_bench's kernel + blocking read on the 2-core VM.) */
   bool waits = ev->enqueuer_waits && !on_executor_thread &&
                pthread_equal(ev->enqueuer, pthread_self());
   here |= waits && ex->device->caps->launch_records_async;
   /* A fence for shared flights takes the context for a moment
    * (add_fence): wait for it rather than handing over (a while: the
    * thread making it may have lost its processor). */
   if (here && atomic_load_explicit(&ex->fencing, memory_order_acquire))
      kiln_spin_until(not_fencing, ex);
   pthread_mutex_lock(&ex->lock);
   if (here && !ex->head && !ex->running && !ex->quit) {
      ex->running = true;
      ex->refs++; /* dropped by run_here */
      bool settle = waits && kiln_queue_in_order(ev->queue);
      if (settle)
         atomic_fetch_add_explicit(&ex->finishers, 1, memory_order_relaxed);
      pthread_mutex_unlock(&ex->lock);
      run_here(ex, ev, settle);
      if (settle) {
         /* ex lives on: the caller holds ev, which holds its queue. */
         kiln_executor_help(ex, ev);
         atomic_fetch_sub_explicit(&ex->finishers, 1, memory_order_relaxed);
      }
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
         bool done = kiln_flight_complete_oldest(ex, true);
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
   kiln_executor_unref(ex);
}
