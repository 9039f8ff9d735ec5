/* cl_khr_command_buffer: the command-buffer object's entry points
 * (create, retain/release, finalize, enqueue, info).  The recording
 * entry points are in api/command_buffer_record.c.  Kiln has no
 * cl_khr_command_buffer_multi_device, so a command buffer has exactly one
 * queue. */
#include <string.h>

#include "api/api.h"
#include "api/command_buffer.h"
#include "api/icd.h"
#include "core/cmdbuf.h"
#include "core/context.h"
#include "core/device.h"
#include "core/queue.h"

/* Parses a clCreateCommandBufferKHR property list: CL_INVALID_VALUE for a
 * name or flag this extension does not define and for a repeated name,
 * CL_INVALID_PROPERTY for flags of companion extensions Kiln does not
 * support (mutable dispatch, multi-device). */
static cl_int parse_properties(const cl_command_buffer_properties_khr *props,
                               cl_command_buffer_flags_khr *flags, unsigned *num_props)
{
   *flags = 0;
   *num_props = 0;
   if (!props)
      return CL_SUCCESS;
   const cl_command_buffer_flags_khr known = CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR |
                                             CL_COMMAND_BUFFER_MUTABLE_KHR |
                                             CL_COMMAND_BUFFER_DEVICE_SIDE_SYNC_KHR;
   bool seen_flags = false;
   unsigned i = 0;
   for (; props[i]; i += 2) {
      if (props[i] == CL_COMMAND_BUFFER_FLAGS_KHR) {
         if (seen_flags)
            return API_FAIL(CL_INVALID_VALUE, "CL_COMMAND_BUFFER_FLAGS_KHR given twice");
         seen_flags = true;
         cl_command_buffer_flags_khr f = props[i + 1];
         if (f & ~known)
            return API_FAIL(CL_INVALID_VALUE, "unknown command-buffer flags 0x%llx",
                            (unsigned long long)(f & ~known));
         if (f & ~(cl_command_buffer_flags_khr)CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR)
            return API_FAIL(CL_INVALID_PROPERTY,
                            "flags 0x%llx need an extension Kiln does not support",
                            (unsigned long long)f);
         *flags = f;
      } else {
         return API_FAIL(CL_INVALID_VALUE, "unknown command-buffer property 0x%llx",
                         (unsigned long long)props[i]);
      }
   }
   *num_props = i + 1; /* with the terminating 0 */
   return CL_SUCCESS;
}

cl_command_buffer_khr CL_API_CALL kiln_clCreateCommandBufferKHR(
   cl_uint num_queues, const cl_command_queue *queues,
   const cl_command_buffer_properties_khr *properties, cl_int *errcode_ret)
{
   const char *func = "clCreateCommandBufferKHR";
   kiln_api_platform();
   /* The seed's order: the queues themselves, their contexts, then the
    * count and the list pointer. */
   if (queues && num_queues) {
      for (cl_uint i = 0; i < num_queues; i++)
         if (!kiln_queue_from(queues[i])) {
            kiln_set_error(errcode_ret, kiln_api_fail(func, CL_INVALID_COMMAND_QUEUE,
                                                      "queues[%u] = %p is not a queue", i,
                                                      (void *)queues[i]));
            return NULL;
         }
      for (cl_uint i = 1; i < num_queues; i++)
         if (queues[i]->context != queues[0]->context) {
            kiln_set_error(errcode_ret, kiln_api_fail(func, CL_INVALID_CONTEXT,
                                                      "queues of different contexts"));
            return NULL;
         }
   }
   if (num_queues != 1) {
      kiln_set_error(errcode_ret, kiln_api_fail(func, CL_INVALID_VALUE,
                                                "num_queues %u (must be 1 without "
                                                "cl_khr_command_buffer_multi_device)",
                                                num_queues));
      return NULL;
   }
   if (!queues) {
      kiln_set_error(errcode_ret, kiln_api_fail(func, CL_INVALID_VALUE, "queues is NULL"));
      return NULL;
   }
   cl_command_buffer_flags_khr flags;
   unsigned num_props;
   cl_int err = parse_properties(properties, &flags, &num_props);
   if (!err && num_props > KILN_CB_MAX_PROPS)
      err = kiln_api_fail(func, CL_INVALID_VALUE, "too many properties");
   cl_command_buffer_khr cb = NULL;
   if (!err)
      err = kiln_cmdbuf_create(kiln_queue_from(queues[0]), flags, properties, num_props, &cb);
   if (err) {
      kiln_set_error(errcode_ret, err);
      return NULL;
   }
   kiln_set_error(errcode_ret, CL_SUCCESS);
   return cb;
}

cl_int CL_API_CALL kiln_clRetainCommandBufferKHR(cl_command_buffer_khr command_buffer)
{
   cl_command_buffer_khr cb = kiln_cmdbuf_from(command_buffer);
   if (!cb)
      return kiln_api_fail("clRetainCommandBufferKHR", CL_INVALID_COMMAND_BUFFER_KHR,
                           "%p is not a command buffer", (void *)command_buffer);
   kiln_object_retain(&cb->obj);
   return CL_SUCCESS;
}

cl_int CL_API_CALL kiln_clReleaseCommandBufferKHR(cl_command_buffer_khr command_buffer)
{
   cl_command_buffer_khr cb = kiln_cmdbuf_from(command_buffer);
   if (!cb)
      return kiln_api_fail("clReleaseCommandBufferKHR", CL_INVALID_COMMAND_BUFFER_KHR,
                           "%p is not a command buffer", (void *)command_buffer);
   /* Pending replays hold their own reference: the buffer lives until
    * they have run. */
   kiln_object_release(&cb->obj);
   return CL_SUCCESS;
}

cl_int CL_API_CALL kiln_clFinalizeCommandBufferKHR(cl_command_buffer_khr command_buffer)
{
   const char *func = "clFinalizeCommandBufferKHR";
   cl_command_buffer_khr cb = kiln_cmdbuf_from(command_buffer);
   if (!cb)
      return kiln_api_fail(func, CL_INVALID_COMMAND_BUFFER_KHR, "%p is not a command buffer",
                           (void *)command_buffer);
   cl_int err = kiln_cmdbuf_finalize(cb);
   if (err)
      return kiln_api_fail(func, err, err == CL_INVALID_OPERATION ? "already finalized"
                                                                   : "cannot finalize");
   return CL_SUCCESS;
}

cl_int CL_API_CALL kiln_clEnqueueCommandBufferKHR(cl_uint num_queues, cl_command_queue *queues,
                                                  cl_command_buffer_khr command_buffer,
                                                  cl_uint num_events_in_wait_list,
                                                  const cl_event *event_wait_list,
                                                  cl_event *event)
{
   const char *func = "clEnqueueCommandBufferKHR";
   cl_command_buffer_khr cb = kiln_cmdbuf_from(command_buffer);
   if (!cb)
      return kiln_api_fail(func, CL_INVALID_COMMAND_BUFFER_KHR, "%p is not a command buffer",
                           (void *)command_buffer);
   cl_command_buffer_state_khr state = kiln_cmdbuf_state(cb);
   if (state == CL_COMMAND_BUFFER_STATE_RECORDING_KHR)
      return kiln_api_fail(func, CL_INVALID_OPERATION, "the command buffer is not finalized");
   if ((!queues && num_queues) || (queues && !num_queues))
      return kiln_api_fail(func, CL_INVALID_VALUE, "queues %p with num_queues %u",
                           (void *)queues, num_queues);
   if (queues && num_queues != 1)
      return kiln_api_fail(func, CL_INVALID_VALUE,
                           "num_queues %u, but the command buffer has 1 queue", num_queues);
   cl_command_queue q = cb->queue;
   if (queues) {
      /* Queue substitution (0.9.8): a queue of the same device whose
       * properties hold the required ones and no unsupported one.  Kiln
       * requires none and supports the device's, and a replay runs its
       * commands in record order on any queue. */
      q = kiln_queue_from(queues[0]);
      if (!q)
         return kiln_api_fail(func, CL_INVALID_COMMAND_QUEUE, "%p is not a queue",
                              (void *)queues[0]);
      if (q->context != cb->context)
         return kiln_api_fail(func, CL_INVALID_CONTEXT,
                              "queue and command buffer of different contexts");
      cl_command_queue_properties qp = atomic_load(&q->properties);
      if (q->device != cb->queue->device || (qp & ~q->device->caps->queue_properties))
         return kiln_api_fail(func, CL_INCOMPATIBLE_COMMAND_QUEUE_KHR,
                              "queue %p of another device, or with properties 0x%llx the "
                              "device's command buffers do not support",
                              (void *)queues[0], (unsigned long long)qp);
   }
   cl_int err = kiln_api_check_wait_list(cb->context, num_events_in_wait_list, event_wait_list,
                                         func);
   if (err)
      return err;
   cl_event ev;
   err = kiln_cmdbuf_enqueue(cb, q, (struct kiln_wait_list){num_events_in_wait_list,
                                                           event_wait_list},
                             &ev);
   if (err)
      return kiln_api_fail(func, err, err == CL_INVALID_OPERATION
                                         ? "pending (enqueued concurrently)"
                                         : "cannot enqueue");
   return kiln_api_finish_enqueue(ev, false, event);
}

cl_int CL_API_CALL kiln_clGetCommandBufferInfoKHR(cl_command_buffer_khr command_buffer,
                                                  cl_command_buffer_info_khr param_name,
                                                  size_t param_value_size, void *param_value,
                                                  size_t *param_value_size_ret)
{
   const char *func = "clGetCommandBufferInfoKHR";
   cl_command_buffer_khr cb = kiln_cmdbuf_from(command_buffer);
   if (!cb)
      return kiln_api_fail(func, CL_INVALID_COMMAND_BUFFER_KHR, "%p is not a command buffer",
                           (void *)command_buffer);
   switch (param_name) {
   case CL_COMMAND_BUFFER_QUEUES_KHR:
      INFO_VALUE(cl_command_queue, cb->queue);
   case CL_COMMAND_BUFFER_NUM_QUEUES_KHR:
      INFO_VALUE(cl_uint, 1);
   case CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR:
      INFO_VALUE(cl_uint, kiln_object_refcount(&cb->obj));
   case CL_COMMAND_BUFFER_STATE_KHR:
      INFO_VALUE(cl_command_buffer_state_khr, kiln_cmdbuf_state(cb));
   case CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR:
      /* Size 0 when created with NULL properties. */
      return kiln_info(cb->props, cb->num_props * sizeof(cb->props[0]), param_value_size,
                       param_value, param_value_size_ret);
   case CL_COMMAND_BUFFER_CONTEXT_KHR:
      INFO_VALUE(cl_context, cb->context);
   default:
      return kiln_api_fail(func, CL_INVALID_VALUE, "unknown param_name 0x%x", param_name);
   }
}
