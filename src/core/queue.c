#include "core/queue.h"

#include <stdlib.h>

#include "core/context.h"

static void queue_destroy(struct kiln_object *obj)
{
   cl_command_queue q = (cl_command_queue)obj;
   pthread_mutex_destroy(&q->lock);
   pthread_cond_destroy(&q->idle);
   free(q->since_barrier);
   kiln_object_unref(&q->context->obj);
   free(q);
}

cl_int kiln_queue_create(cl_context ctx, cl_device_id dev, cl_command_queue_properties props,
                         cl_command_queue *out)
{
   cl_command_queue q = calloc(1, sizeof(*q));
   if (!q)
      return CL_OUT_OF_HOST_MEMORY;
   q->context = ctx;
   q->device = dev;
   atomic_init(&q->properties, props);
   pthread_mutex_init(&q->lock, NULL);
   pthread_cond_init(&q->idle, NULL);
   kiln_object_ref(&ctx->obj);
   if (!kiln_object_init(&q->obj, KILN_TYPE_QUEUE, queue_destroy)) {
      queue_destroy(&q->obj);
      return CL_OUT_OF_HOST_MEMORY;
   }
   *out = q;
   return CL_SUCCESS;
}

cl_int kiln_queue_flush(cl_command_queue q)
{
   (void)q;
   return CL_SUCCESS;
}

cl_int kiln_queue_finish(cl_command_queue q)
{
   pthread_mutex_lock(&q->lock);
   while (q->outstanding)
      pthread_cond_wait(&q->idle, &q->lock);
   pthread_mutex_unlock(&q->lock);
   return CL_SUCCESS;
}
