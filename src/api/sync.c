/* clEnqueueMarker, clEnqueueBarrier, clEnqueueWaitForEvents and the 1.2
 * clEnqueue{Marker,Barrier}WithWaitList: commands
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

/* OpenCL 1.2 §5.10.  With an empty wait list both wait for every command
 * enqueued before them (on out-of-order queues too); a marker with a list
 * waits for the list alone, a barrier for the list and, like Kiln's
 * other barriers, everything before it (allowed: waiting longer is never
 * observable as wrong).  The barrier also holds back every later command.
 * Errors in the spec's order: the queue, then the wait list (whose
 * CL_INVALID_CONTEXT kiln_api_check_wait_list reports first). */
static cl_int enqueue_sync_with_list(cl_command_queue command_queue, cl_uint num_events,
                                     const cl_event *wait_list, cl_event *event,
                                     cl_command_type type, const char *func)
{
   cl_command_queue q = kiln_queue_from(command_queue);
   if (!q)
      return kiln_api_fail(func, CL_INVALID_COMMAND_QUEUE, "%p is not a queue",
                           (void *)command_queue);
   cl_int err = kiln_api_check_wait_list(q->context, num_events, wait_list, func);
   if (err)
      return err;
   enum kiln_queue_order order = type == CL_COMMAND_BARRIER ? KILN_ORDER_BARRIER
                                 : num_events             ? KILN_ORDER_COMMAND
                                                          : KILN_ORDER_MARKER;
   cl_event ev;
   err = kiln_enqueue_sync(q, type, order, (struct kiln_wait_list){num_events, wait_list}, &ev);
   if (err)
      return kiln_api_fail(func, err, "cannot enqueue");
   return kiln_api_finish_enqueue(ev, false, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueMarkerWithWaitList(cl_command_queue command_queue,
                                                            cl_uint num_events_in_wait_list,
                                                            const cl_event *event_wait_list,
                                                            cl_event *event)
{
   return enqueue_sync_with_list(command_queue, num_events_in_wait_list, event_wait_list, event,
                                 CL_COMMAND_MARKER, __func__);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueBarrierWithWaitList(cl_command_queue command_queue,
                                                             cl_uint num_events_in_wait_list,
                                                             const cl_event *event_wait_list,
                                                             cl_event *event)
{
   return enqueue_sync_with_list(command_queue, num_events_in_wait_list, event_wait_list, event,
                                 CL_COMMAND_BARRIER, __func__);
}
