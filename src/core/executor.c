#include "core/executor.h"

#include <pthread.h>
#include <stdlib.h>

#include "core/device.h"
#include "core/event.h"
#include "util/log.h"
#include "util/alloc.h"

struct kiln_executor {
   cl_device_id device;
   pthread_t thread;
   pthread_mutex_t lock;
   pthread_cond_t wake;
   cl_event head, tail;
   bool quit; /* the device is gone: exit once head is empty */
};

static void *executor_main(void *arg)
{
   struct kiln_executor *ex = arg;
   for (;;) {
      pthread_mutex_lock(&ex->lock);
      while (!ex->head && !ex->quit)
         pthread_cond_wait(&ex->wake, &ex->lock);
      if (!ex->head) {
         /* Stopped: the thread owns ex and is the last to touch it. */
         pthread_mutex_unlock(&ex->lock);
         pthread_mutex_destroy(&ex->lock);
         pthread_cond_destroy(&ex->wake);
         kiln_free(ex);
         return NULL;
      }
      cl_event ev = ex->head;
      ex->head = ev->next_ready;
      if (!ex->head)
         ex->tail = NULL;
      pthread_mutex_unlock(&ex->lock);

      /* ex->device stays valid while a command of it is queued or runs. */
      ev->times[KILN_PROF_START] = kiln_device_timestamp(ex->device);
      kiln_event_set_state(ev, CL_RUNNING);
      cl_int err = ev->ops->run(ev);
      if (err)
         kiln_log(KILN_LOG_QUEUE, "command 0x%x failed with %d", ev->type, err);
      kiln_event_complete(ev, err ? (err < 0 ? err : CL_OUT_OF_RESOURCES) : CL_COMPLETE);
   }
   return NULL;
}

static struct kiln_executor *executor_get(cl_device_id dev)
{
   pthread_mutex_lock(&dev->exec_lock);
   struct kiln_executor *ex = dev->executor;
   if (!ex && (ex = kiln_calloc(1, sizeof(*ex)))) {
      ex->device = dev;
      pthread_mutex_init(&ex->lock, NULL);
      pthread_cond_init(&ex->wake, NULL);
      /* The thread lives as long as the device (kiln_executor_stop). */
      if (pthread_create(&ex->thread, NULL, executor_main, ex)) {
         pthread_mutex_destroy(&ex->lock);
         pthread_cond_destroy(&ex->wake);
         kiln_free(ex);
         ex = NULL;
      } else {
         pthread_detach(ex->thread);
         dev->executor = ex;
      }
   }
   pthread_mutex_unlock(&dev->exec_lock);
   return ex;
}

void kiln_executor_push(cl_device_id dev, cl_event ev)
{
   struct kiln_executor *ex = executor_get(dev);
   if (!ex) {
      /* No thread could be started: run it here rather than never. */
      ev->times[KILN_PROF_START] = kiln_device_timestamp(dev);
      kiln_event_set_state(ev, CL_RUNNING);
      cl_int err = ev->ops->run(ev);
      kiln_event_complete(ev, err ? (err < 0 ? err : CL_OUT_OF_RESOURCES) : CL_COMPLETE);
      return;
   }
   ev->next_ready = NULL;
   pthread_mutex_lock(&ex->lock);
   if (ex->tail)
      ex->tail->next_ready = ev;
   else
      ex->head = ev;
   ex->tail = ev;
   pthread_cond_signal(&ex->wake);
   pthread_mutex_unlock(&ex->lock);
}

void kiln_executor_stop(cl_device_id dev)
{
   pthread_mutex_lock(&dev->exec_lock);
   struct kiln_executor *ex = dev->executor;
   dev->executor = NULL;
   pthread_mutex_unlock(&dev->exec_lock);
   if (!ex)
      return;
   pthread_mutex_lock(&ex->lock);
   ex->quit = true;
   pthread_cond_signal(&ex->wake);
   pthread_mutex_unlock(&ex->lock);
}
