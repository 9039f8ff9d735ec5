#include "core/queue.h"

#include <stdlib.h>

#include "core/context.h"
#include "core/device.h"
#include "core/command.h"
#include "core/event.h"
#include "util/alloc.h"

static void queue_destroy(struct kiln_object *obj)
{
   cl_command_queue q = (cl_command_queue)obj;
   pthread_mutex_destroy(&q->lock);
   pthread_cond_destroy(&q->idle);
   /* Pending commands hold the queue, so these are all complete. */
   if (q->last)
      kiln_object_unref(&q->last->obj);
   if (q->barrier)
      kiln_object_unref(&q->barrier->obj);
   for (unsigned i = 0; i < q->num_since_barrier; i++)
      kiln_object_unref(&q->since_barrier[i]->obj);
   kiln_free(q->since_barrier);
   if (q->pipe)
      q->pipe->destroy(q->pipe);
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
   pthread_mutex_init(&q->lock, NULL);
   pthread_cond_init(&q->idle, NULL);
   kiln_object_ref(&ctx->obj);
   q->pipe = kiln_device_create_pipe(dev);
   if (!q->pipe || !kiln_object_init(&q->obj, KILN_TYPE_QUEUE, queue_destroy)) {
      queue_destroy(&q->obj);
      return CL_OUT_OF_HOST_MEMORY;
   }
   *out = q;
   return CL_SUCCESS;
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

/* Drops completed events from since_barrier; true if there is room. */
static bool prune_since_barrier(cl_command_queue q)
{
   unsigned kept = 0;
   for (unsigned i = 0; i < q->num_since_barrier; i++) {
      cl_event e = q->since_barrier[i];
      if (kiln_event_status(e) > CL_COMPLETE)
         q->since_barrier[kept++] = e;
      else
         kiln_object_unref(&e->obj);
   }
   q->num_since_barrier = kept;
   if (kept < q->cap_since_barrier)
      return true;
   unsigned cap = q->cap_since_barrier ? q->cap_since_barrier * 2 : 16;
   cl_event *list = kiln_realloc(q->since_barrier, cap * sizeof(*list));
   if (!list)
      return false;
   q->since_barrier = list;
   q->cap_since_barrier = cap;
   return true;
}

cl_int kiln_queue_add_command(cl_command_queue q, cl_event ev, enum kiln_queue_order order,
                              struct kiln_wait_list wait)
{
   pthread_mutex_lock(&q->lock);
   bool in_order = kiln_queue_in_order(q);
   /* Without room to remember the command, order it like a barrier:
    * more ordering than asked for is always correct. */
   if (!in_order && !prune_since_barrier(q))
      order = KILN_ORDER_BARRIER;
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
         for (unsigned i = 0; i < q->num_since_barrier; i++)
            kiln_event_depend(ev, q->since_barrier[i], false);
      if (order == KILN_ORDER_BARRIER) {
         set_ref(&q->barrier, ev);
         for (unsigned i = 0; i < q->num_since_barrier; i++)
            kiln_object_unref(&q->since_barrier[i]->obj);
         q->num_since_barrier = 0;
      } else {
         kiln_object_ref(&ev->obj);
         q->since_barrier[q->num_since_barrier++] = ev;
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
   /* A released out-of-order queue must not be kept alive by completed
    * commands it still lists (they hold the queue in turn). */
   for (unsigned i = 0; i < q->num_since_barrier; i++)
      if (q->since_barrier[i] == ev) {
         q->since_barrier[i] = q->since_barrier[--q->num_since_barrier];
         kiln_object_unref(&ev->obj);
         break;
      }
   if (--q->outstanding == 0)
      pthread_cond_broadcast(&q->idle);
   pthread_mutex_unlock(&q->lock);
}

cl_int kiln_queue_flush(cl_command_queue q)
{
   (void)q;
   return CL_SUCCESS;
}

cl_int kiln_queue_finish(cl_command_queue q)
{
   /* Waits for the commands enqueued before this call, not those other
    * threads add meanwhile: a marker orders after exactly those. */
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
