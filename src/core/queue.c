#include "core/queue.h"

#include <stdlib.h>

#include "core/context.h"
#include "core/device.h"
#include "core/command.h"
#include "core/event.h"
#include "core/executor.h"
#include "util/alloc.h"
#include "util/spin.h"

/* The slot of dev's default on-device queue in ctx; NULL for a device
 * not in the context. */
static _Atomic(cl_command_queue) *default_slot(cl_context ctx, cl_device_id dev)
{
   for (cl_uint i = 0; i < ctx->num_devices; i++)
      if (ctx->devices[i] == dev)
         return &ctx->default_device_queues[i];
   return NULL;
}

static void queue_destroy(struct kiln_object *obj)
{
   cl_command_queue q = (cl_command_queue)obj;
   if (q->on_device) {
      pthread_mutex_lock(&q->context->lock);
      _Atomic(cl_command_queue) *slot = default_slot(q->context, q->device);
      if (slot && atomic_load(slot) == q)
         atomic_store(slot, NULL);
      pthread_mutex_unlock(&q->context->lock);
   }
   pthread_mutex_destroy(&q->lock);
   pthread_cond_destroy(&q->idle);
   pthread_cond_destroy(&q->drained);
   /* Pending commands hold the queue, so these are all complete (and the
    * list of commands since the barrier is empty). */
   if (q->last)
      kiln_object_unref(&q->last->obj);
   if (q->barrier)
      kiln_object_unref(&q->barrier->obj);
   kiln_executor_stop(q->executor);
   if (q->pipe)
      q->pipe->destroy(q->pipe);
   kiln_props_fini(&q->props);
   kiln_object_unref(&q->context->obj);
   kiln_object_free(q);
}

cl_int kiln_queue_create(cl_context ctx, cl_device_id dev, cl_command_queue_properties props,
                         cl_command_queue *out)
{
   cl_command_queue q = kiln_object_alloc(sizeof(*q));
   if (!q)
      return CL_OUT_OF_HOST_MEMORY;
   q->context = ctx;
   q->device = dev;
   atomic_init(&q->properties, props);
   kiln_mutex_init_spinning(&q->lock);
   pthread_cond_init(&q->idle, NULL);
   pthread_cond_init(&q->drained, NULL);
   kiln_object_ref(&ctx->obj);
   q->pipe = kiln_device_create_pipe(dev);
   q->executor = kiln_executor_create(dev);
   if (!q->pipe || !q->executor || !kiln_object_init(&q->obj, KILN_TYPE_QUEUE, queue_destroy)) {
      queue_destroy(&q->obj);
      return CL_OUT_OF_HOST_MEMORY;
   }
   *out = q;
   return CL_SUCCESS;
}

cl_int kiln_queue_create_on_device(cl_context ctx, cl_device_id dev,
                                   cl_command_queue_properties props, cl_uint size,
                                   bool make_default, const struct kiln_props *list,
                                   cl_command_queue *out, bool *existed)
{
   *existed = false;
   /* The lock is held across the creation so that two threads asking for
    * the default at once get the same queue. */
   pthread_mutex_lock(&ctx->lock);
   _Atomic(cl_command_queue) *slot = default_slot(ctx, dev);
   cl_command_queue def = slot ? atomic_load(slot) : NULL;
   if (make_default && def) {
      kiln_object_retain(&def->obj);
      *out = def;
      *existed = true;
      pthread_mutex_unlock(&ctx->lock);
      return CL_SUCCESS;
   }
   cl_int err = kiln_queue_create(ctx, dev, props, out);
   if (!err) {
      (*out)->on_device = true;
      (*out)->device_size = size;
      (*out)->props = *list;
      if (make_default && slot)
         atomic_store(slot, *out);
   }
   pthread_mutex_unlock(&ctx->lock);
   return err;
}

void kiln_queue_set_default_on_device(cl_context ctx, cl_device_id dev, cl_command_queue q)
{
   pthread_mutex_lock(&ctx->lock);
   _Atomic(cl_command_queue) *slot = default_slot(ctx, dev);
   if (slot)
      atomic_store(slot, q);
   pthread_mutex_unlock(&ctx->lock);
}

cl_command_queue kiln_queue_default_on_device(cl_context ctx, cl_device_id dev)
{
   /* Without the lock: the context's devices never change, and the
    * handle is only passed on. */
   _Atomic(cl_command_queue) *slot = default_slot(ctx, dev);
   return slot ? atomic_load(slot) : NULL;
}

uint32_t kiln_queue_on_device_size(void *handle)
{
   /* The object registry tells a live queue from any other value a
    * kernel may hold. */
   cl_command_queue q = kiln_any_queue_from(handle);
   return q && q->on_device ? q->device_size : 0;
}

/* Replaces *slot (holding a reference) with ev. */
static void set_ref(cl_event *slot, cl_event ev)
{
   if (ev)
      kiln_object_ref(&ev->obj);
   if (*slot)
      kiln_object_unref(&(*slot)->obj);
   *slot = ev;
}

static void since_add(cl_command_queue q, cl_event ev)
{
   ev->since_prev = q->since_tail;
   ev->since_next = NULL;
   if (q->since_tail)
      q->since_tail->since_next = ev;
   else
      q->since_head = ev;
   q->since_tail = ev;
   ev->in_since = true;
   q->num_since_barrier++;
}

static void since_remove(cl_command_queue q, cl_event ev)
{
   if (!ev->in_since)
      return;
   if (ev->since_prev)
      ev->since_prev->since_next = ev->since_next;
   else
      q->since_head = ev->since_next;
   if (ev->since_next)
      ev->since_next->since_prev = ev->since_prev;
   else
      q->since_tail = ev->since_prev;
   ev->since_prev = ev->since_next = NULL;
   ev->in_since = false;
   q->num_since_barrier--;
}

/* Waits (q->lock held) while the queue is full of commands of which some
 * are running or about to: they complete without the application's help.
 * Never on an executor's thread, where a callback may enqueue: those
 * threads are what drains the queue. */
static void throttle(cl_command_queue q)
{
   if (q->outstanding < KILN_QUEUE_MAX_PENDING || !atomic_load(&q->ready) ||
       kiln_executor_on_thread())
      return;
   q->throttled++;
   while (q->outstanding > KILN_QUEUE_MAX_PENDING / 2 && atomic_load(&q->ready))
      pthread_cond_wait(&q->drained, &q->lock);
   q->throttled--;
}

cl_int kiln_queue_add_command(cl_command_queue q, cl_event ev, enum kiln_queue_order order,
                              struct kiln_wait_list wait)
{
   ev->enqueuer_waits = wait.blocking;
   if (wait.blocking)
      ev->enqueuer = pthread_self();
   pthread_mutex_lock(&q->lock);
   throttle(q);
   bool in_order = kiln_queue_in_order(q);
   /* Every edge is reserved before the first is added: a command is
    * either refused with nothing changed, or fully ordered. */
   unsigned edges = wait.num;
   if (in_order)
      edges += q->last != NULL;
   else
      edges += (q->barrier != NULL) + (order != KILN_ORDER_COMMAND ? q->num_since_barrier : 0);
   if (kiln_event_reserve_edges(ev, edges)) {
      pthread_mutex_unlock(&q->lock);
      return CL_OUT_OF_HOST_MEMORY;
   }
   if (in_order) {
      if (q->last)
         kiln_event_depend(ev, q->last, false);
      set_ref(&q->last, ev);
   } else {
      if (q->barrier)
         kiln_event_depend(ev, q->barrier, false);
      if (order != KILN_ORDER_COMMAND)
         for (cl_event e = q->since_head; e; e = e->since_next)
            kiln_event_depend(ev, e, false);
      if (order == KILN_ORDER_BARRIER) {
         set_ref(&q->barrier, ev);
         while (q->since_head)
            since_remove(q, q->since_head);
      } else {
         since_add(q, ev);
      }
   }
   for (cl_uint i = 0; i < wait.num; i++)
      kiln_event_depend(ev, wait.events[i], true);
   q->outstanding++;
   pthread_mutex_unlock(&q->lock);
   return CL_SUCCESS;
}

void kiln_queue_command_done(cl_command_queue q, cl_event ev)
{
   pthread_mutex_lock(&q->lock);
   /* Completed events need not be remembered for ordering. */
   if (q->last == ev)
      set_ref(&q->last, NULL);
   if (q->barrier == ev)
      set_ref(&q->barrier, NULL);
   since_remove(q, ev);
   if (ev->ready) {
      ev->ready = false;
      atomic_fetch_sub(&q->ready, 1);
   }
   if (--q->outstanding == 0)
      pthread_cond_broadcast(&q->idle);
   if (q->throttled && (q->outstanding <= KILN_QUEUE_MAX_PENDING / 2 || !atomic_load(&q->ready)))
      pthread_cond_broadcast(&q->drained);
   pthread_mutex_unlock(&q->lock);
}

void kiln_queue_command_ready(cl_command_queue q, cl_event ev)
{
   /* ev->ready is read when ev completes, which the executor's lock
    * orders after this (kiln_executor_push). */
   ev->ready = true;
   atomic_fetch_add(&q->ready, 1);
}

cl_int kiln_queue_flush(cl_command_queue q)
{
   (void)q;
   return CL_SUCCESS;
}

void kiln_queue_help(cl_event ev)
{
   /* ev holds its queue.  Out of order, commands ahead of ev in the
    * executor need not be ones ev waits for. */
   if (ev->queue && kiln_queue_in_order(ev->queue))
      kiln_executor_help(ev->queue->executor, ev);
}

cl_int kiln_queue_finish(cl_command_queue q)
{
   /* Waits for the commands enqueued before this call, not those other
    * threads add meanwhile. */
   pthread_mutex_lock(&q->lock);
   if (!q->outstanding) {
      pthread_mutex_unlock(&q->lock);
      return CL_SUCCESS;
   }
   if (kiln_queue_in_order(q) && !q->since_head && !q->barrier) {
      /* In order (and nothing left from out-of-order days): the last
       * command finishes after every earlier one (each waits for the one
       * before).  None: the last has finished, and with it the rest;
       * their completion is still being counted. */
      cl_event last = q->last;
      if (last)
         kiln_object_ref(&last->obj);
      pthread_mutex_unlock(&q->lock);
      if (!last)
         return CL_SUCCESS;
      /* The queue's ready commands up to the last run here if its
       * executor is not at them already: no wake-up either way.  (Their
       * callbacks then run on this thread, before it returns, which a
       * clFinish waited for anyway.) */
      kiln_executor_help(q->executor, last);
      kiln_event_wait_finished(last);
      kiln_object_unref(&last->obj);
      return CL_SUCCESS;
   }
   pthread_mutex_unlock(&q->lock);
   /* Out of order: a marker orders after exactly those commands. */
   cl_event marker;
   cl_int err = kiln_enqueue_sync(q, CL_COMMAND_MARKER, KILN_ORDER_MARKER,
                                  (struct kiln_wait_list){0, NULL}, &marker);
   if (err) {
      /* No memory for a marker: wait for everything instead. */
      pthread_mutex_lock(&q->lock);
      while (q->outstanding)
         pthread_cond_wait(&q->idle, &q->lock);
      pthread_mutex_unlock(&q->lock);
      return CL_SUCCESS;
   }
   kiln_event_wait(marker);
   kiln_object_release(&marker->obj);
   return CL_SUCCESS;
}
