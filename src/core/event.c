#include "core/event.h"

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/context.h"
#include "core/device.h"
#include "core/executor.h"
#include "core/queue.h"
#include "util/alloc.h"
#include "util/log.h"
#include "util/spin.h"

static cl_ulong now(cl_event ev)
{
   cl_device_id dev = ev->queue ? ev->queue->device : ev->context->devices[0];
   return kiln_device_timestamp(dev);
}

static void event_destroy(struct kiln_object *obj)
{
   cl_event ev = (cl_event)obj;
   for (struct kiln_event_callback *cb = ev->callbacks, *next; cb; cb = next) {
      next = cb->next;
      kiln_free(cb);
   }
   if (ev->edges != ev->inline_edges)
      kiln_free(ev->edges);
   pthread_mutex_destroy(&ev->lock);
   pthread_cond_destroy(&ev->done);
   /* A command's event holds its queue, which holds the context. */
   if (ev->queue)
      kiln_object_unref(&ev->queue->obj);
   else
      kiln_object_unref(&ev->context->obj);
   kiln_object_free(ev);
}

/* listed: the application may get the handle (kiln_object_init_unlisted).
 * extra: bytes after the event for its payload (kiln_event_create_command_with),
 * with room to align them like max_align_t (objects are aligned like a
 * pointer only). */
static cl_int event_alloc(cl_context ctx, cl_command_queue q, cl_command_type type, bool listed,
                          size_t extra, cl_event *out)
{
   if (extra)
      extra += _Alignof(max_align_t) - 1;
   cl_event ev = kiln_object_alloc(sizeof(*ev) + extra);
   if (!ev)
      return CL_OUT_OF_HOST_MEMORY;
   ev->context = ctx;
   ev->queue = q;
   ev->type = type;
   kiln_mutex_init_spinning(&ev->lock);
   pthread_cond_init(&ev->done, NULL);
   /* One count per launch on a line the executor's thread also writes
    * costs a cache miss on each side: the queue's reference is enough. */
   if (q)
      kiln_object_ref(&q->obj);
   else
      kiln_object_ref(&ctx->obj);
   if (!listed)
      kiln_object_init_unlisted(&ev->obj, KILN_TYPE_EVENT, event_destroy);
   else if (!kiln_object_init(&ev->obj, KILN_TYPE_EVENT, event_destroy)) {
      event_destroy(&ev->obj);
      return CL_OUT_OF_HOST_MEMORY;
   }
   *out = ev;
   return CL_SUCCESS;
}

cl_int kiln_event_create_command(cl_command_queue q, cl_command_type type,
                                 const struct kiln_command_ops *ops, void *payload,
                                 cl_event *out)
{
   cl_int err = kiln_event_create_command_with(q, type, ops, true, 0, NULL, out);
   if (!err)
      (*out)->payload = payload;
   return err;
}

cl_int kiln_event_create_command_with(cl_command_queue q, cl_command_type type,
                                      const struct kiln_command_ops *ops, bool observed,
                                      size_t extra, void **block, cl_event *out)
{
   cl_event ev;
   cl_int err = event_alloc(q->context, q, type, observed, extra, &ev);
   if (err)
      return err;
   if (extra) {
      uintptr_t at = (uintptr_t)(ev + 1);
      *block = (void *)((at + _Alignof(max_align_t) - 1) & ~(uintptr_t)(_Alignof(max_align_t) - 1));
   }
   ev->ops = ops;
   ev->unobserved = !observed;
   ev->profiling = (atomic_load(&q->properties) & CL_QUEUE_PROFILING_ENABLE) != 0;
   atomic_store(&ev->status, CL_QUEUED);
   atomic_init(&ev->pending, 1); /* held until kiln_event_submit */
   ev->timed = ev->profiling || kiln_trace_enabled() || kiln_log_enabled(KILN_LOG_QUEUE);
   if (ev->timed)
      ev->times[KILN_PROF_QUEUED] = now(ev);
   /* The in-flight reference, dropped when the command completes. */
   kiln_object_ref(&ev->obj);
   *out = ev;
   return CL_SUCCESS;
}

cl_int kiln_event_create_user(cl_context ctx, cl_event *out)
{
   cl_event ev;
   cl_int err = event_alloc(ctx, NULL, CL_COMMAND_USER, true, 0, &ev);
   if (err)
      return err;
   atomic_store(&ev->status, CL_SUBMITTED);
   /* Held until clSetUserEventStatus completes it. */
   kiln_object_ref(&ev->obj);
   *out = ev;
   return CL_SUCCESS;
}

/* One of ev's dependencies finished with status. */
static void event_dependency_done(cl_event ev, cl_int status, bool propagate)
{
   if (status < 0 && propagate)
      atomic_store_explicit(&ev->dep_failed, true, memory_order_relaxed);
   /* Release: this dependency's failure is seen by whoever takes the
    * count to 0; acquire: that thread sees the others' too. */
   if (atomic_fetch_sub_explicit(&ev->pending, 1, memory_order_acq_rel) != 1)
      return;
   if (atomic_load_explicit(&ev->dep_failed, memory_order_relaxed)) {
      kiln_event_complete(ev, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
      return;
   }
   if (ev->timed)
      ev->times[KILN_PROF_SUBMIT] = now(ev);
   kiln_event_set_state(ev, CL_SUBMITTED);
   kiln_queue_command_ready(ev->queue, ev);
   kiln_executor_push(ev->queue->executor, ev);
}

cl_int kiln_event_reserve_edges(cl_event ev, unsigned n)
{
   if (!n)
      return CL_SUCCESS;
   struct kiln_event_edge *e = ev->inline_edges;
   if (n > sizeof(ev->inline_edges) / sizeof(ev->inline_edges[0]) &&
       !(e = kiln_calloc(n, sizeof(*e))))
      return CL_OUT_OF_HOST_MEMORY;
   if (ev->edges != ev->inline_edges)
      kiln_free(ev->edges);
   ev->edges = e;
   ev->num_edges = 0;
   ev->cap_edges = n;
   return CL_SUCCESS;
}

void kiln_event_depend(cl_event ev, cl_event dep, bool propagate)
{
   if (dep == ev)
      return;
   pthread_mutex_lock(&dep->lock);
   cl_int status = kiln_event_status(dep);
   if (status > CL_COMPLETE && dep->on_device && dep->queue == ev->queue) {
      /* Recorded behind dep in the same pipe context: ordered already
       * (kiln_event_release_queue_dependents). */
      pthread_mutex_unlock(&dep->lock);
      return;
   }
   if (status > CL_COMPLETE) {
      /* The caller reserved an edge for every dependency it adds. */
      assert(ev->num_edges < ev->cap_edges);
      struct kiln_event_edge *e = &ev->edges[ev->num_edges++];
      e->waiter = ev;
      e->propagate = propagate;
      e->next = NULL;
      if (dep->dependents_last)
         dep->dependents_last->next = e;
      else
         dep->dependents = e;
      dep->dependents_last = e;
      /* Before dep can tell ev (its lock is held): ev's own +1 keeps the
       * count above 0 until kiln_event_submit. */
      atomic_fetch_add_explicit(&ev->pending, 1, memory_order_relaxed);
      pthread_mutex_unlock(&dep->lock);
      return;
   }
   pthread_mutex_unlock(&dep->lock);
   if (status < 0 && propagate)
      atomic_store_explicit(&ev->dep_failed, true, memory_order_relaxed);
}

void kiln_event_submit(cl_event ev)
{
   event_dependency_done(ev, CL_COMPLETE, false);
}

void kiln_event_abandon(cl_event ev)
{
   if (ev->ops && ev->ops->cleanup)
      ev->ops->cleanup(ev);
   kiln_object_release(&ev->obj);
   kiln_object_unref(&ev->obj); /* the in-flight reference */
}

/* Runs a detached list of callbacks in registration order (they were
 * pushed at the head), then frees it. */
static void run_callbacks(cl_event ev, struct kiln_event_callback *cbs, cl_int status)
{
   struct kiln_event_callback *rev = NULL;
   while (cbs) {
      struct kiln_event_callback *next = cbs->next;
      cbs->next = rev;
      rev = cbs;
      cbs = next;
   }
   while (rev) {
      struct kiln_event_callback *next = rev->next;
      rev->fn(ev, status, rev->user_data);
      kiln_free(rev);
      rev = next;
   }
}

void kiln_event_set_state(cl_event ev, cl_int state)
{
   /* A callback registered meanwhile is either in the list taken here or
    * sees the new status and runs at once: kiln_event_add_callback sets
    * has_callbacks before it reads the status, this stores the status
    * before it reads has_callbacks (all sequentially consistent), so
    * at least one of them sees the other; the list itself is only read
    * under the lock. */
   atomic_store(&ev->status, state);
   if (!atomic_load(&ev->has_callbacks))
      return;
   pthread_mutex_lock(&ev->lock);
   atomic_store(&ev->status, state);
   struct kiln_event_callback *due = NULL, **keep = &ev->callbacks;
   for (struct kiln_event_callback *cb = ev->callbacks, *next; cb; cb = next) {
      next = cb->next;
      if (cb->type >= state) { /* CL_SUBMITTED 2 > CL_RUNNING 1 */
         *keep = next;
         cb->next = due; /* reversed here, reversed back when run */
         due = cb;
      } else {
         keep = &cb->next;
      }
   }
   pthread_mutex_unlock(&ev->lock);
   /* due is in registration order now; run_callbacks reverses: flip it. */
   struct kiln_event_callback *rev = NULL;
   while (due) {
      struct kiln_event_callback *next = due->next;
      due->next = rev;
      rev = due;
      due = next;
   }
   run_callbacks(ev, rev, state);
}

/* After a flag a waiter may sleep for was set (sequentially consistent):
 * wakes the waiters, if any (event.h, sleepers). */
static void wake_sleepers(cl_event ev)
{
   if (!atomic_load(&ev->sleepers))
      return;
   pthread_mutex_lock(&ev->lock);
   pthread_cond_broadcast(&ev->done);
   pthread_mutex_unlock(&ev->lock);
}

bool kiln_event_complete(cl_event ev, cl_int status)
{
   cl_ulong t = ev->timed ? now(ev) : 0;
   pthread_mutex_lock(&ev->lock);
   if (kiln_event_status(ev) <= CL_COMPLETE) {
      pthread_mutex_unlock(&ev->lock);
      return false;
   }
   /* Timestamps of commands that never ran collapse onto the end time, so
    * QUEUED <= SUBMIT <= START <= END still holds.  END is now unless the
    * executor took it from the device. */
   for (int i = KILN_PROF_SUBMIT; i <= KILN_PROF_END; i++)
      if (!ev->times[i])
         ev->times[i] = t;
   atomic_store(&ev->status, status);
   bool traced = kiln_trace_enabled() && ev->queue;
   struct kiln_event_edge *deps = ev->dependents;
   ev->dependents = ev->dependents_last = NULL;
   struct kiln_event_callback *cbs = ev->callbacks;
   ev->callbacks = NULL;
   pthread_mutex_unlock(&ev->lock);

   if (traced)
      kiln_trace_command(ev, status); /* before cleanup drops the payload */
   if (ev->queue && kiln_log_enabled(KILN_LOG_QUEUE))
      kiln_log(KILN_LOG_QUEUE,
               "event %p (command 0x%x) on queue %p: status %d, waited %.3f ms, ran %.3f ms", (void *)ev,
               ev->type, (void *)ev->queue, status,
               (double)(ev->times[KILN_PROF_START] - ev->times[KILN_PROF_QUEUED]) / 1e6,
               (double)(ev->times[KILN_PROF_END] - ev->times[KILN_PROF_START]) / 1e6);
   if (ev->ops && ev->ops->cleanup)
      ev->ops->cleanup(ev);
   /* Waiters (blocking calls, clWaitForEvents) return only now that the
    * command let go of its memory objects: a buffer released after a
    * blocking read is gone when the application looks, which a GPU's
    * memory needs when a loop allocates and frees.  Its status was public
    * first, so a destructor that runs in the cleanup sees it complete. */
   atomic_store(&ev->settled, true);
   wake_sleepers(ev);

   /* Whatever is left (CL_SUBMITTED/CL_RUNNING ones of a command that
    * failed before it got there too) hears the final status. */
   run_callbacks(ev, cbs, status);

   /* An edge lives in its waiter, which may complete and go away as soon
    * as it has been told: read the edge before telling. */
   while (deps) {
      struct kiln_event_edge *next = deps->next;
      cl_event waiter = deps->waiter;
      bool propagate = deps->propagate;
      event_dependency_done(waiter, status, propagate);
      deps = next;
   }

   atomic_store(&ev->finished, true);
   wake_sleepers(ev);

   if (ev->queue)
      kiln_queue_command_done(ev->queue, ev);
   kiln_object_unref(&ev->obj); /* the in-flight reference */
   return true;
}

void kiln_event_release_queue_dependents(cl_event ev)
{
   /* Unlink the edges of same-queue waiters first: once told, a waiter
    * may complete and free its edges before ev completes. */
   struct kiln_event_edge *released = NULL, **rtail = &released;
   pthread_mutex_lock(&ev->lock);
   ev->on_device = true;
   struct kiln_event_edge **pp = &ev->dependents, *last = NULL;
   while (*pp) {
      struct kiln_event_edge *e = *pp;
      if (e->waiter->queue == ev->queue) {
         *pp = e->next;
         e->next = NULL;
         *rtail = e;
         rtail = &e->next;
      } else {
         last = e;
         pp = &e->next;
      }
   }
   ev->dependents_last = last;
   pthread_mutex_unlock(&ev->lock);
   while (released) {
      struct kiln_event_edge *next = released->next;
      event_dependency_done(released->waiter, CL_COMPLETE, false);
      released = next;
   }
}

static bool is_settled(void *ev)
{
   return atomic_load(&((cl_event)ev)->settled);
}

static bool is_finished(void *ev)
{
   return atomic_load(&((cl_event)ev)->finished);
}

/* Polls a while (a short command completes within microseconds), then
 * sleeps until flag is set. */
static void wait_for(cl_event ev, bool (*flag)(void *))
{
   if (kiln_spin_until(flag, ev))
      return;
   pthread_mutex_lock(&ev->lock);
   /* Counted before the flag is read (event.h, sleepers). */
   atomic_fetch_add(&ev->sleepers, 1);
   while (!flag(ev))
      pthread_cond_wait(&ev->done, &ev->lock);
   atomic_fetch_sub(&ev->sleepers, 1);
   pthread_mutex_unlock(&ev->lock);
}

cl_int kiln_event_wait(cl_event ev)
{
   wait_for(ev, is_settled);
   return kiln_event_status(ev);
}

void kiln_event_wait_finished(cl_event ev)
{
   wait_for(ev, is_finished);
}

cl_int kiln_event_add_callback(cl_event ev, cl_int type,
                               void(CL_CALLBACK *fn)(cl_event, cl_int, void *),
                               void *user_data)
{
   struct kiln_event_callback *cb = kiln_malloc(sizeof(*cb));
   if (!cb)
      return CL_OUT_OF_HOST_MEMORY;
   cb->type = type;
   cb->fn = fn;
   cb->user_data = user_data;
   pthread_mutex_lock(&ev->lock);
   /* Before the status is read (kiln_event_set_state). */
   atomic_store(&ev->has_callbacks, true);
   cl_int status = kiln_event_status(ev);
   if (status > type) {
      cb->next = ev->callbacks;
      ev->callbacks = cb;
      pthread_mutex_unlock(&ev->lock);
      return CL_SUCCESS;
   }
   pthread_mutex_unlock(&ev->lock);
   fn(ev, status, user_data);
   kiln_free(cb);
   return CL_SUCCESS;
}
