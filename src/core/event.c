#include "core/event.h"

#include <stdlib.h>

#include "core/context.h"
#include "core/device.h"
#include "core/executor.h"
#include "core/queue.h"

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
      free(cb);
   }
   free(ev->dependents);
   free(ev->dependents_propagate);
   pthread_mutex_destroy(&ev->lock);
   pthread_cond_destroy(&ev->done);
   if (ev->queue)
      kiln_object_unref(&ev->queue->obj);
   kiln_object_unref(&ev->context->obj);
   kiln_object_free(ev);
}

static cl_int event_alloc(cl_context ctx, cl_command_queue q, cl_command_type type,
                          cl_event *out)
{
   cl_event ev = kiln_object_alloc(sizeof(*ev));
   if (!ev)
      return CL_OUT_OF_HOST_MEMORY;
   ev->context = ctx;
   ev->queue = q;
   ev->type = type;
   pthread_mutex_init(&ev->lock, NULL);
   pthread_cond_init(&ev->done, NULL);
   kiln_object_ref(&ctx->obj);
   if (q)
      kiln_object_ref(&q->obj);
   if (!kiln_object_init(&ev->obj, KILN_TYPE_EVENT, event_destroy)) {
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
   cl_event ev;
   cl_int err = event_alloc(q->context, q, type, &ev);
   if (err)
      return err;
   ev->ops = ops;
   ev->payload = payload;
   ev->profiling = (atomic_load(&q->properties) & CL_QUEUE_PROFILING_ENABLE) != 0;
   atomic_store(&ev->status, CL_QUEUED);
   ev->pending = 1; /* held until kiln_event_submit */
   ev->times[KILN_PROF_QUEUED] = now(ev);
   /* The in-flight reference, dropped when the command completes. */
   kiln_object_ref(&ev->obj);
   *out = ev;
   return CL_SUCCESS;
}

cl_int kiln_event_create_user(cl_context ctx, cl_event *out)
{
   cl_event ev;
   cl_int err = event_alloc(ctx, NULL, CL_COMMAND_USER, &ev);
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
   pthread_mutex_lock(&ev->lock);
   if (status < 0 && propagate)
      ev->dep_failed = true;
   bool ready = --ev->pending == 0;
   bool failed = ev->dep_failed;
   pthread_mutex_unlock(&ev->lock);
   if (!ready)
      return;
   if (failed) {
      kiln_event_complete(ev, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
      return;
   }
   atomic_store(&ev->status, CL_SUBMITTED);
   ev->times[KILN_PROF_SUBMIT] = now(ev);
   kiln_executor_push(ev->queue->device, ev);
}

void kiln_event_depend(cl_event ev, cl_event dep, bool propagate)
{
   if (dep == ev)
      return;
   pthread_mutex_lock(&dep->lock);
   cl_int status = kiln_event_status(dep);
   if (status > CL_COMPLETE) {
      if (dep->num_dependents == dep->cap_dependents) {
         unsigned cap = dep->cap_dependents ? dep->cap_dependents * 2 : 4;
         cl_event *d = realloc(dep->dependents, cap * sizeof(*d));
         bool *p = d ? realloc(dep->dependents_propagate, cap * sizeof(*p)) : NULL;
         if (d)
            dep->dependents = d;
         if (p)
            dep->dependents_propagate = p;
         if (!d || !p) {
            /* Cannot record the edge (out of memory): the command fails
             * rather than run out of order.  Waiting here instead could
             * deadlock, as the caller may hold its queue's lock. */
            pthread_mutex_unlock(&dep->lock);
            status = CL_OUT_OF_HOST_MEMORY;
            propagate = true;
            goto completed;
         }
         dep->cap_dependents = cap;
      }
      dep->dependents[dep->num_dependents] = ev;
      dep->dependents_propagate[dep->num_dependents++] = propagate;
      pthread_mutex_lock(&ev->lock);
      ev->pending++;
      pthread_mutex_unlock(&ev->lock);
      pthread_mutex_unlock(&dep->lock);
      return;
   }
   pthread_mutex_unlock(&dep->lock);
completed:
   if (status < 0 && propagate) {
      pthread_mutex_lock(&ev->lock);
      ev->dep_failed = true;
      pthread_mutex_unlock(&ev->lock);
   }
}

void kiln_event_submit(cl_event ev)
{
   event_dependency_done(ev, CL_COMPLETE, false);
}

bool kiln_event_complete(cl_event ev, cl_int status)
{
   cl_ulong t = now(ev);
   pthread_mutex_lock(&ev->lock);
   if (kiln_event_status(ev) <= CL_COMPLETE) {
      pthread_mutex_unlock(&ev->lock);
      return false;
   }
   /* Timestamps of commands that never ran collapse onto the end time, so
    * QUEUED <= SUBMIT <= START <= END still holds. */
   for (int i = KILN_PROF_SUBMIT; i <= KILN_PROF_END; i++)
      if (!ev->times[i] || i == KILN_PROF_END)
         ev->times[i] = t;
   atomic_store(&ev->status, status);
   cl_event *deps = ev->dependents;
   bool *props = ev->dependents_propagate;
   unsigned ndeps = ev->num_dependents;
   ev->dependents = NULL;
   ev->dependents_propagate = NULL;
   ev->num_dependents = ev->cap_dependents = 0;
   struct kiln_event_callback *cbs = ev->callbacks;
   ev->callbacks = NULL;
   pthread_cond_broadcast(&ev->done);
   pthread_mutex_unlock(&ev->lock);

   if (ev->ops && ev->ops->cleanup)
      ev->ops->cleanup(ev);

   /* Callbacks in registration order (they were pushed at the head). */
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
      free(rev);
      rev = next;
   }

   for (unsigned i = 0; i < ndeps; i++)
      event_dependency_done(deps[i], status, props[i]);
   free(deps);
   free(props);

   if (ev->queue)
      kiln_queue_command_done(ev->queue, ev);
   kiln_object_unref(&ev->obj); /* the in-flight reference */
   return true;
}

cl_int kiln_event_wait(cl_event ev)
{
   pthread_mutex_lock(&ev->lock);
   while (kiln_event_status(ev) > CL_COMPLETE)
      pthread_cond_wait(&ev->done, &ev->lock);
   cl_int status = kiln_event_status(ev);
   pthread_mutex_unlock(&ev->lock);
   return status;
}

cl_int kiln_event_add_callback(cl_event ev, void(CL_CALLBACK *fn)(cl_event, cl_int, void *),
                               void *user_data)
{
   struct kiln_event_callback *cb = malloc(sizeof(*cb));
   if (!cb)
      return CL_OUT_OF_HOST_MEMORY;
   cb->fn = fn;
   cb->user_data = user_data;
   pthread_mutex_lock(&ev->lock);
   cl_int status = kiln_event_status(ev);
   if (status > CL_COMPLETE) {
      cb->next = ev->callbacks;
      ev->callbacks = cb;
      pthread_mutex_unlock(&ev->lock);
      return CL_SUCCESS;
   }
   pthread_mutex_unlock(&ev->lock);
   fn(ev, status, user_data);
   free(cb);
   return CL_SUCCESS;
}
