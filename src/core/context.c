#include "core/context.h"
#include "core/device.h"
#include "core/svm.h"
#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

static void context_destroy(struct kiln_object *obj)
{
   cl_context ctx = (cl_context)obj;
   /* 3.0: in reverse order of registration, once every object of the
    * context (each holds it) is gone, before the devices are let go. */
   for (struct kiln_context_callback *cb = ctx->callbacks, *next; cb; cb = next) {
      next = cb->next;
      cb->fn(ctx, cb->user_data);
      kiln_free(cb);
   }
   kiln_svm_release_all(ctx);
   pthread_mutex_destroy(&ctx->svm_lock);
   pthread_mutex_destroy(&ctx->lock);
   for (cl_uint i = 0; i < ctx->num_devices; i++)
      kiln_device_release_implicit(ctx->devices[i]);
   kiln_free(ctx->devices);
   kiln_free(ctx->default_device_queues);
   kiln_free(ctx->properties);
   kiln_object_free(ctx);
}

cl_int kiln_context_create(cl_platform_id platform, const cl_context_properties *properties,
                           size_t num_properties, cl_uint num_devices,
                           const cl_device_id *devices, kiln_context_notify_fn notify,
                           void *notify_data, cl_context *out)
{
   cl_context ctx = kiln_object_alloc(sizeof(*ctx));
   if (!ctx)
      return CL_OUT_OF_HOST_MEMORY;
   ctx->platform = platform;
   pthread_mutex_init(&ctx->lock, NULL);
   pthread_mutex_init(&ctx->svm_lock, NULL);
   ctx->devices = kiln_malloc(num_devices * sizeof(cl_device_id));
   ctx->default_device_queues = kiln_calloc(num_devices ? num_devices : 1,
                                            sizeof(cl_command_queue));
   if (num_properties)
      ctx->properties = kiln_malloc(num_properties * sizeof(cl_context_properties));
   if (!ctx->devices || !ctx->default_device_queues ||
       (num_properties && !ctx->properties)) {
      context_destroy(&ctx->obj);
      return CL_OUT_OF_HOST_MEMORY;
   }
   /* The application may list a device twice; keep each once.  Every
    * object made on a device (queue, program, kernel, event) holds the
    * context, so the context's references keep sub-devices alive. */
   for (cl_uint i = 0; i < num_devices; i++)
      if (!kiln_context_has_device(ctx, devices[i])) {
         kiln_device_retain_implicit(devices[i]);
         ctx->devices[ctx->num_devices++] = devices[i];
      }
   if (num_properties)
      memcpy(ctx->properties, properties, num_properties * sizeof(cl_context_properties));
   ctx->num_properties = num_properties;
   ctx->notify = notify;
   ctx->notify_data = notify_data;
   if (!kiln_object_init(&ctx->obj, KILN_TYPE_CONTEXT, context_destroy)) {
      context_destroy(&ctx->obj);
      return CL_OUT_OF_HOST_MEMORY;
   }
   *out = ctx;
   return CL_SUCCESS;
}

cl_int kiln_context_add_destructor_callback(cl_context ctx,
                                            void(CL_CALLBACK *fn)(cl_context, void *),
                                            void *user_data)
{
   struct kiln_context_callback *cb = kiln_malloc(sizeof(*cb));
   if (!cb)
      return CL_OUT_OF_HOST_MEMORY;
   cb->fn = fn;
   cb->user_data = user_data;
   pthread_mutex_lock(&ctx->lock);
   cb->next = ctx->callbacks;
   ctx->callbacks = cb;
   pthread_mutex_unlock(&ctx->lock);
   return CL_SUCCESS;
}

bool kiln_context_has_device(cl_context ctx, cl_device_id dev)
{
   for (cl_uint i = 0; i < ctx->num_devices; i++)
      if (ctx->devices[i] == dev)
         return true;
   return false;
}

void kiln_context_notify(cl_context ctx, const char *errinfo)
{
   if (ctx->notify)
      ctx->notify(errinfo, NULL, 0, ctx->notify_data);
}
