/* clWaitForEvents, clGetEventInfo, clRetain/ReleaseEvent, clCreateUserEvent,
 * clSetUserEventStatus, clSetEventCallback, clGetEventProfilingInfo. */
#include <string.h>

#include "api/api.h"
#include "core/context.h"
#include "core/event.h"
#include "core/queue.h"

cl_int kiln_api_check_wait_list(cl_context ctx, cl_uint num, const cl_event *list,
                                const char *func)
{
   if ((num && !list) || (!num && list))
      return kiln_api_fail(func, CL_INVALID_EVENT_WAIT_LIST, "num_events_in_wait_list %u, list %p",
                           num, (void *)list);
   for (cl_uint i = 0; i < num; i++) {
      cl_event ev = kiln_event_from(list[i]);
      if (!ev)
         return kiln_api_fail(func, CL_INVALID_EVENT_WAIT_LIST, "event_wait_list[%u] = %p",
                              i, (void *)list[i]);
      if (ev->context != ctx)
         return kiln_api_fail(func, CL_INVALID_CONTEXT,
                              "event_wait_list[%u] belongs to another context", i);
   }
   return CL_SUCCESS;
}

cl_int kiln_api_check_wait_list_context(cl_context ctx, cl_uint num, const cl_event *list,
                                        const char *func)
{
   for (cl_uint i = 0; list && i < num; i++) {
      cl_event ev = kiln_event_from(list[i]);
      if (ev && ev->context != ctx)
         return kiln_api_fail(func, CL_INVALID_CONTEXT,
                              "event_wait_list[%u] belongs to another context", i);
   }
   return CL_SUCCESS;
}

cl_int kiln_api_finish_enqueue(cl_event ev, bool blocking, cl_event *event_out)
{
   cl_int status = CL_SUCCESS;
   if (blocking) {
      kiln_queue_help(ev);
      status = kiln_event_wait(ev);
   }
   if (event_out)
      *event_out = ev;
   else
      kiln_object_release(&ev->obj);
   if (status >= 0)
      return CL_SUCCESS;
   return status == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
             ? status
             : kiln_api_fail("clEnqueue*", status, "the command failed");
}

CL_API_ENTRY cl_int CL_API_CALL clWaitForEvents(cl_uint num_events, const cl_event *event_list)
{
   if (!num_events || !event_list)
      return API_FAIL(CL_INVALID_VALUE, "num_events %u, event_list %p", num_events,
                      (void *)event_list);
   /* CL_INVALID_CONTEXT is listed before CL_INVALID_EVENT. */
   cl_context ctx = NULL;
   for (cl_uint i = 0; i < num_events; i++) {
      cl_event ev = kiln_event_from(event_list[i]);
      if (ev && ctx && ev->context != ctx)
         return API_FAIL(CL_INVALID_CONTEXT, "events of different contexts");
      if (ev)
         ctx = ev->context;
   }
   for (cl_uint i = 0; i < num_events; i++)
      if (!kiln_event_from(event_list[i]))
         return API_FAIL(CL_INVALID_EVENT, "event_list[%u] = %p", i, (void *)event_list[i]);
   /* Commands are submitted when enqueued, so no flush is needed before
    * waiting. */
   bool failed = false;
   for (cl_uint i = 0; i < num_events; i++) {
      kiln_queue_help(event_list[i]);
      failed |= kiln_event_wait(event_list[i]) < 0;
   }
   return failed ? API_FAIL(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, "an event failed")
                 : CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clGetEventInfo(cl_event event, cl_event_info param_name,
                                               size_t param_value_size, void *param_value,
                                               size_t *param_value_size_ret)
{
   cl_event ev = kiln_event_from(event);
   if (!ev)
      return API_FAIL_HANDLE(param_name >= CL_EVENT_COMMAND_QUEUE && param_name <= CL_EVENT_CONTEXT,
                             param_name, CL_INVALID_EVENT, event, "an event");
   switch (param_name) {
   case CL_EVENT_COMMAND_QUEUE:
      INFO_VALUE(cl_command_queue, ev->queue);
   case CL_EVENT_CONTEXT:
      INFO_VALUE(cl_context, ev->context);
   case CL_EVENT_COMMAND_TYPE:
      INFO_VALUE(cl_command_type, ev->type);
   case CL_EVENT_COMMAND_EXECUTION_STATUS:
      INFO_VALUE(cl_int, kiln_event_status(ev));
   case CL_EVENT_REFERENCE_COUNT:
      INFO_VALUE(cl_uint, kiln_object_refcount(&ev->obj));
   default:
      return API_FAIL(CL_INVALID_VALUE, "unknown param_name 0x%x", param_name);
   }
}

CL_API_ENTRY cl_int CL_API_CALL clRetainEvent(cl_event event)
{
   cl_event ev = kiln_event_from(event);
   if (!ev)
      return API_FAIL(CL_INVALID_EVENT, "%p is not an event", (void *)event);
   kiln_object_retain(&ev->obj);
   return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseEvent(cl_event event)
{
   cl_event ev = kiln_event_from(event);
   if (!ev)
      return API_FAIL(CL_INVALID_EVENT, "%p is not an event", (void *)event);
   kiln_object_release(&ev->obj);
   return CL_SUCCESS;
}

CL_API_ENTRY cl_event CL_API_CALL clCreateUserEvent(cl_context context, cl_int *errcode_ret)
{
   cl_context ctx = kiln_context_from(context);
   if (!ctx)
      API_FAIL_RET(errcode_ret, CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
   cl_event ev = NULL;
   cl_int err = kiln_event_create_user(ctx, &ev);
   if (err)
      API_FAIL_RET(errcode_ret, err, "out of host memory");
   kiln_set_error(errcode_ret, CL_SUCCESS);
   return ev;
}

CL_API_ENTRY cl_int CL_API_CALL clSetUserEventStatus(cl_event event, cl_int execution_status)
{
   cl_event ev = kiln_event_from(event);
   if (!ev || ev->type != CL_COMMAND_USER)
      return API_FAIL(CL_INVALID_EVENT, "%p is not a user event", (void *)event);
   if (execution_status > CL_COMPLETE)
      return API_FAIL(CL_INVALID_VALUE, "execution_status %d", execution_status);
   /* Only the first call may change the status. */
   if (!kiln_event_complete(ev, execution_status))
      return API_FAIL(CL_INVALID_OPERATION, "the user event's status was already set");
   return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clSetEventCallback(
   cl_event event, cl_int command_exec_callback_type,
   void(CL_CALLBACK *pfn_notify)(cl_event, cl_int, void *), void *user_data)
{
   cl_event ev = kiln_event_from(event);
   if (!ev)
      return API_FAIL(CL_INVALID_EVENT, "%p is not an event", (void *)event);
   /* CL_SUBMITTED and CL_RUNNING are OpenCL 1.2 (§5.9); accepting them
    * whatever the reported version harms no 1.1 application. */
   if (!pfn_notify || (command_exec_callback_type != CL_COMPLETE &&
                       command_exec_callback_type != CL_SUBMITTED &&
                       command_exec_callback_type != CL_RUNNING))
      return API_FAIL(CL_INVALID_VALUE, "pfn_notify %p, callback type %d",
                      (void *)(uintptr_t)pfn_notify, command_exec_callback_type);
   cl_int err = kiln_event_add_callback(ev, command_exec_callback_type, pfn_notify, user_data);
   return err ? API_FAIL(err, "out of host memory") : CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clGetEventProfilingInfo(cl_event event,
                                                        cl_profiling_info param_name,
                                                        size_t param_value_size,
                                                        void *param_value,
                                                        size_t *param_value_size_ret)
{
   cl_event ev = kiln_event_from(event);
   if (!ev)
      return API_FAIL_HANDLE(param_name >= CL_PROFILING_COMMAND_QUEUED &&
                                param_name <= CL_PROFILING_COMMAND_COMPLETE,
                             param_name, CL_INVALID_EVENT, event, "an event");
   if (!ev->queue || !ev->profiling)
      return API_FAIL(CL_PROFILING_INFO_NOT_AVAILABLE,
                      "user event or queue without CL_QUEUE_PROFILING_ENABLE");
   if (kiln_event_status(ev) != CL_COMPLETE)
      return API_FAIL(CL_PROFILING_INFO_NOT_AVAILABLE, "the command has not completed");
   switch (param_name) {
   case CL_PROFILING_COMMAND_QUEUED:
      INFO_VALUE(cl_ulong, ev->times[KILN_PROF_QUEUED]);
   case CL_PROFILING_COMMAND_SUBMIT:
      INFO_VALUE(cl_ulong, ev->times[KILN_PROF_SUBMIT]);
   case CL_PROFILING_COMMAND_START:
      INFO_VALUE(cl_ulong, ev->times[KILN_PROF_START]);
   case CL_PROFILING_COMMAND_END:
      INFO_VALUE(cl_ulong, ev->times[KILN_PROF_END]);
   /* 2.0: once the command's children enqueued on the device completed
    * too.  A Kiln command ends only after its children (device-side
    * enqueue runs them within the command), so that is its END. */
   case CL_PROFILING_COMMAND_COMPLETE:
      INFO_VALUE(cl_ulong, ev->times[KILN_PROF_END]);
   default:
      return API_FAIL(CL_INVALID_VALUE, "unknown param_name 0x%x", param_name);
   }
}
