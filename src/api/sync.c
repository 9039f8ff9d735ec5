/* clEnqueueMarker, clEnqueueBarrier, clEnqueueWaitForEvents: commands
 * that only order others. */
#include "api/api.h"
#include "core/command.h"
#include "core/event.h"
#include "core/queue.h"

CL_API_ENTRY cl_int CL_API_CALL clEnqueueMarker(cl_command_queue command_queue, cl_event *event)
{
   cl_command_queue q = kiln_queue_from(command_queue);
   if (!q)
      return API_FAIL(CL_INVALID_COMMAND_QUEUE, "%p is not a queue", (void *)command_queue);
   if (!event)
      return API_FAIL(CL_INVALID_VALUE, "event is NULL");
   cl_event ev;
   cl_int err = kiln_enqueue_sync(q, CL_COMMAND_MARKER, KILN_ORDER_MARKER,
                                  (struct kiln_wait_list){0, NULL}, &ev);
   if (err)
      return API_FAIL(err, "cannot enqueue");
   return kiln_api_finish_enqueue(ev, false, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueBarrier(cl_command_queue command_queue)
{
   cl_command_queue q = kiln_queue_from(command_queue);
   if (!q)
      return API_FAIL(CL_INVALID_COMMAND_QUEUE, "%p is not a queue", (void *)command_queue);
   cl_event ev;
   cl_int err = kiln_enqueue_sync(q, CL_COMMAND_BARRIER, KILN_ORDER_BARRIER,
                                  (struct kiln_wait_list){0, NULL}, &ev);
   if (err)
      return API_FAIL(err, "cannot enqueue");
   return kiln_api_finish_enqueue(ev, false, NULL);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWaitForEvents(cl_command_queue command_queue,
                                                       cl_uint num_events,
                                                       const cl_event *event_list)
{
   cl_command_queue q = kiln_queue_from(command_queue);
   if (!q)
      return API_FAIL(CL_INVALID_COMMAND_QUEUE, "%p is not a queue", (void *)command_queue);
   if (!num_events || !event_list)
      return API_FAIL(CL_INVALID_VALUE, "num_events %u, event_list %p", num_events,
                      (void *)event_list);
   cl_int err = kiln_api_check_wait_list_context(q->context, num_events, event_list, __func__);
   if (err)
      return err;
   for (cl_uint i = 0; i < num_events; i++)
      if (!kiln_event_from(event_list[i]))
         return API_FAIL(CL_INVALID_EVENT, "event_list[%u] = %p", i, (void *)event_list[i]);
   /* Later commands of the queue wait for these events: a barrier whose
    * wait list is event_list. */
   cl_event ev;
   err = kiln_enqueue_sync(q, CL_COMMAND_BARRIER, KILN_ORDER_BARRIER,
                           (struct kiln_wait_list){num_events, event_list}, &ev);
   if (err)
      return API_FAIL(err, "cannot enqueue");
   return kiln_api_finish_enqueue(ev, false, NULL);
}
