/* clCreateCommandQueue(WithProperties), clRetain/ReleaseCommandQueue,
 * clGetCommandQueueInfo, clSetCommandQueueProperty, clFlush, clFinish. */
#include <string.h>

#include "api/api.h"
#include "core/context.h"
#include "core/device.h"
#include "core/device_version.h"
#include "core/queue.h"

#define VALID_QUEUE_PROPERTIES                                                 \
   (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE)

CL_API_ENTRY cl_command_queue CL_API_CALL clCreateCommandQueue(
   cl_context context, cl_device_id device, cl_command_queue_properties properties,
   cl_int *errcode_ret)
{
   cl_context ctx = kiln_context_from(context);
   if (!ctx)
      API_FAIL_RET(errcode_ret, CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
   cl_device_id dev = kiln_device_from(device);
   if (!dev || !kiln_context_has_device(ctx, dev))
      API_FAIL_RET(errcode_ret, CL_INVALID_DEVICE, "%p is not a device of the context",
                   (void *)device);
   if (properties & ~(cl_command_queue_properties)VALID_QUEUE_PROPERTIES)
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "unknown properties 0x%llx",
                   (unsigned long long)properties);
   if (properties & ~dev->caps->queue_properties)
      API_FAIL_RET(errcode_ret, CL_INVALID_QUEUE_PROPERTIES,
                   "properties 0x%llx not supported by the device",
                   (unsigned long long)properties);

   cl_command_queue q = NULL;
   cl_int err = kiln_queue_create(ctx, dev, properties, &q);
   if (err)
      API_FAIL_RET(errcode_ret, err, "out of host memory");
   kiln_set_error(errcode_ret, CL_SUCCESS);
   return q;
}

/* Bits of CL_QUEUE_PROPERTIES in OpenCL 2.0 and later: the 1.x ones and
 * the on-device queue bits (devices with kiln_device_enqueue_supported). */
#define ON_DEVICE_BITS (CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT)

/* What a clCreateCommandQueueWithProperties list asks for. */
struct queue_request {
   cl_command_queue_properties bits; /* CL_QUEUE_PROPERTIES' value */
   bool have_size;
   cl_uint size; /* CL_QUEUE_SIZE */
};

/* Checks a clCreateCommandQueueWithProperties list (3.0, 5.1): values the
 * spec does not define, repeated names, and combinations it forbids are
 * CL_INVALID_VALUE; defined values the device cannot do (an on-device
 * queue where it has none, a property it lacks) CL_INVALID_QUEUE_PROPERTIES,
 * judged only once the whole list is valid; a CL_QUEUE_SIZE above the
 * device's CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE CL_INVALID_VALUE, judged
 * last (it has no meaning without on-device queues). */
static cl_int parse_queue_properties(const cl_queue_properties *properties, cl_device_id dev,
                                     struct queue_request *r)
{
   bool have_props = false;
   r->bits = 0;
   r->have_size = false;
   r->size = 0;
   for (size_t i = 0; properties && properties[i]; i += 2) {
      switch (properties[i]) {
      case CL_QUEUE_PROPERTIES:
         if (have_props)
            return API_FAIL(CL_INVALID_VALUE, "CL_QUEUE_PROPERTIES given twice");
         have_props = true;
         r->bits = (cl_command_queue_properties)properties[i + 1];
         break;
      case CL_QUEUE_SIZE:
         if (r->have_size)
            return API_FAIL(CL_INVALID_VALUE, "CL_QUEUE_SIZE given twice");
         r->have_size = true;
         if (properties[i + 1] > CL_UINT_MAX)
            return API_FAIL(CL_INVALID_VALUE, "CL_QUEUE_SIZE %llu is not a cl_uint",
                            (unsigned long long)properties[i + 1]);
         r->size = (cl_uint)properties[i + 1];
         break;
      default:
         return API_FAIL(CL_INVALID_VALUE, "unknown queue property 0x%llx",
                         (unsigned long long)properties[i]);
      }
   }
   cl_command_queue_properties bits = r->bits;
   if (bits & ~(cl_command_queue_properties)(VALID_QUEUE_PROPERTIES | ON_DEVICE_BITS))
      return API_FAIL(CL_INVALID_VALUE, "unknown CL_QUEUE_PROPERTIES bits 0x%llx",
                      (unsigned long long)bits);
   /* 5.1: an on-device queue is out-of-order, a default one on-device,
    * and only on-device queues have a size. */
   if ((bits & CL_QUEUE_ON_DEVICE) && !(bits & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE))
      return API_FAIL(CL_INVALID_VALUE, "CL_QUEUE_ON_DEVICE without out-of-order execution");
   if ((bits & CL_QUEUE_ON_DEVICE_DEFAULT) && !(bits & CL_QUEUE_ON_DEVICE))
      return API_FAIL(CL_INVALID_VALUE, "CL_QUEUE_ON_DEVICE_DEFAULT without CL_QUEUE_ON_DEVICE");
   if (r->have_size && !(bits & CL_QUEUE_ON_DEVICE))
      return API_FAIL(CL_INVALID_VALUE, "CL_QUEUE_SIZE for a host queue");
   if (!(bits & CL_QUEUE_ON_DEVICE))
      return CL_SUCCESS;
   if (!kiln_device_enqueue_supported(dev))
      return API_FAIL(CL_INVALID_QUEUE_PROPERTIES, "%s has no on-device queues",
                      dev->caps->name);
   if (r->have_size && r->size > dev->caps->queue_on_device_max_size)
      return API_FAIL(CL_INVALID_VALUE,
                      "CL_QUEUE_SIZE %u above CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE %u", r->size,
                      dev->caps->queue_on_device_max_size);
   if (!r->have_size)
      r->size = dev->caps->queue_on_device_preferred_size;
   return CL_SUCCESS;
}

/* OpenCL 2.0's form (the only one 3.0 does not deprecate). */
CL_API_ENTRY cl_command_queue CL_API_CALL clCreateCommandQueueWithProperties(
   cl_context context, cl_device_id device, const cl_queue_properties *properties,
   cl_int *errcode_ret)
{
   /* The spec's order: context, device, then the properties. */
   cl_context ctx = kiln_context_from(context);
   if (!ctx)
      API_FAIL_RET(errcode_ret, CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
   cl_device_id dev = kiln_device_from(device);
   if (!dev || !kiln_context_has_device(ctx, dev))
      API_FAIL_RET(errcode_ret, CL_INVALID_DEVICE, "%p is not a device of the context",
                   (void *)device);
   struct queue_request req;
   cl_int err = parse_queue_properties(properties, dev, &req);
   if (err)
      API_FAIL_RET(errcode_ret, err, "bad properties");
   cl_command_queue_properties props = req.bits;
   struct kiln_props copy;
   if (kiln_props_copy(&copy, properties))
      API_FAIL_RET(errcode_ret, CL_OUT_OF_HOST_MEMORY, "out of host memory");
   cl_command_queue q = NULL;
   if (props & CL_QUEUE_ON_DEVICE) {
      /* On-device queues may profile and are out-of-order (both in
       * CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES). */
      bool existed = false;
      err = kiln_queue_create_on_device(ctx, dev, props, req.size,
                                        (props & CL_QUEUE_ON_DEVICE_DEFAULT) != 0, &copy, &q,
                                        &existed);
      /* The existing default, returned again, keeps its own list. */
      if (err || existed)
         kiln_props_fini(&copy);
      if (err)
         API_FAIL_RET(errcode_ret, err, "out of host memory");
      kiln_set_error(errcode_ret, CL_SUCCESS);
      return q;
   }
   q = clCreateCommandQueue(context, device, props, errcode_ret);
   if (!q) {
      kiln_props_fini(&copy);
      return NULL;
   }
   /* No other thread has the handle yet. */
   q->props = copy;
   return q;
}

/* 2.1: makes an on-device queue the default one of its device, for the
 * kernels enqueued afterwards (get_default_queue). */
CL_API_ENTRY cl_int CL_API_CALL clSetDefaultDeviceCommandQueue(cl_context context,
                                                               cl_device_id device,
                                                               cl_command_queue command_queue)
{
   cl_context ctx = kiln_context_from(context);
   if (!ctx)
      return API_FAIL(CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
   cl_device_id dev = kiln_device_from(device);
   if (!dev || !kiln_context_has_device(ctx, dev))
      return API_FAIL(CL_INVALID_DEVICE, "%p is not a device of the context", (void *)device);
   /* 3.0: without CL_DEVICE_QUEUE_REPLACEABLE_DEFAULT. */
   if (!kiln_device_enqueue_supported(dev))
      return API_FAIL(CL_INVALID_OPERATION, "%s has no on-device queues", dev->caps->name);
   cl_command_queue q = kiln_any_queue_from(command_queue);
   if (!q || !q->on_device || q->device != dev || q->context != ctx)
      return API_FAIL(CL_INVALID_COMMAND_QUEUE, "%p is not an on-device queue of the device",
                      (void *)command_queue);
   kiln_queue_set_default_on_device(ctx, dev, q);
   return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clRetainCommandQueue(cl_command_queue command_queue)
{
   cl_command_queue q = kiln_any_queue_from(command_queue);
   if (!q)
      return API_FAIL(CL_INVALID_COMMAND_QUEUE, "%p is not a queue", (void *)command_queue);
   kiln_object_retain(&q->obj);
   return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseCommandQueue(cl_command_queue command_queue)
{
   cl_command_queue q = kiln_any_queue_from(command_queue);
   if (!q)
      return API_FAIL(CL_INVALID_COMMAND_QUEUE, "%p is not a queue", (void *)command_queue);
   /* Releasing the last reference flushes (5.1); pending commands keep
    * the queue alive through their own references. */
   if (kiln_object_refcount(&q->obj) == 1)
      kiln_queue_flush(q);
   kiln_object_release(&q->obj);
   return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clGetCommandQueueInfo(cl_command_queue command_queue,
                                                      cl_command_queue_info param_name,
                                                      size_t param_value_size, void *param_value,
                                                      size_t *param_value_size_ret)
{
   cl_command_queue q = kiln_any_queue_from(command_queue);
   if (!q)
      return API_FAIL(CL_INVALID_COMMAND_QUEUE, "%p is not a queue", (void *)command_queue);
   switch (param_name) {
   case CL_QUEUE_CONTEXT:
      INFO_VALUE(cl_context, q->context);
   case CL_QUEUE_DEVICE:
      INFO_VALUE(cl_device_id, q->device);
   case CL_QUEUE_REFERENCE_COUNT:
      INFO_VALUE(cl_uint, kiln_object_refcount(&q->obj));
   case CL_QUEUE_PROPERTIES:
      INFO_VALUE(cl_command_queue_properties, atomic_load(&q->properties));
   /* OpenCL 2.0 and 3.0. */
   case CL_QUEUE_SIZE:
      /* Only device queues have a size. */
      if (!q->on_device)
         return API_FAIL(CL_INVALID_COMMAND_QUEUE, "CL_QUEUE_SIZE of a host queue");
      INFO_VALUE(cl_uint, q->device_size);
   case CL_QUEUE_DEVICE_DEFAULT:
      /* 3.0: the default device queue of the queue's device, for either
       * kind of queue (NULL where there is none). */
      INFO_VALUE(cl_command_queue, kiln_device_enqueue_supported(q->device)
                                      ? kiln_queue_default_on_device(q->context, q->device)
                                      : NULL);
   case CL_QUEUE_PROPERTIES_ARRAY:
      INFO_ARRAY(q->props.list, q->props.count);
   default:
      return API_FAIL(CL_INVALID_VALUE, "unknown param_name 0x%x", param_name);
   }
}

/* Deprecated in 1.1 but still in the dispatch table.  Changing the mode
 * of a queue with commands in flight is allowed by 1.0: finish first so
 * the change applies only to commands enqueued afterwards. */
CL_API_ENTRY cl_int CL_API_CALL clSetCommandQueueProperty(cl_command_queue command_queue,
                                                          cl_command_queue_properties properties,
                                                          cl_bool enable,
                                                          cl_command_queue_properties *old_properties)
{
   cl_command_queue q = kiln_queue_from(command_queue);
   if (!q)
      return API_FAIL(CL_INVALID_COMMAND_QUEUE, "%p is not a queue", (void *)command_queue);
   if (properties & ~(cl_command_queue_properties)VALID_QUEUE_PROPERTIES)
      return API_FAIL(CL_INVALID_VALUE, "unknown properties 0x%llx",
                      (unsigned long long)properties);
   if (properties & ~q->device->caps->queue_properties)
      return API_FAIL(CL_INVALID_QUEUE_PROPERTIES, "properties 0x%llx not supported",
                      (unsigned long long)properties);
   kiln_queue_finish(q);
   cl_command_queue_properties old;
   if (enable)
      old = atomic_fetch_or(&q->properties, properties);
   else
      old = atomic_fetch_and(&q->properties, ~properties);
   if (old_properties)
      *old_properties = old;
   return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clFlush(cl_command_queue command_queue)
{
   cl_command_queue q = kiln_queue_from(command_queue);
   if (!q)
      return API_FAIL(CL_INVALID_COMMAND_QUEUE, "%p is not a queue", (void *)command_queue);
   return kiln_queue_flush(q);
}

CL_API_ENTRY cl_int CL_API_CALL clFinish(cl_command_queue command_queue)
{
   cl_command_queue q = kiln_queue_from(command_queue);
   if (!q)
      return API_FAIL(CL_INVALID_COMMAND_QUEUE, "%p is not a queue", (void *)command_queue);
   return kiln_queue_finish(q);
}
