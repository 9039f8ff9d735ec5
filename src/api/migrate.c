/* clEnqueueMigrateMemObjects (OpenCL 1.2, 5.4.4).
 *
 * Core moves a memory object's bytes to a device when a command of that
 * device first needs them (core/mem_sync.c: the command that uses them
 * copies them in, from whichever device or host copy is current), so a
 * migration, a hint in the spec, moves nothing itself: it is a command
 * that completes in its place in the queue, after its wait list, so that
 * what an application orders around it (and profiles with its event)
 * behaves as the spec says.  tests/cl/exec/mixed_devices.c checks a
 * kernel on another device after one.
 * CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED therefore keeps the contents,
 * which the spec allows (they become undefined, and "undefined" includes
 * unchanged). */
#include "api/api.h"
#include "core/command.h"
#include "core/mem.h"
#include "core/queue.h"

#define MIGRATION_FLAGS (CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED)

CL_API_ENTRY cl_int CL_API_CALL clEnqueueMigrateMemObjects(cl_command_queue command_queue,
                                                           cl_uint num_mem_objects,
                                                           const cl_mem *mem_objects,
                                                           cl_mem_migration_flags flags,
                                                           cl_uint num_events_in_wait_list,
                                                           const cl_event *event_wait_list,
                                                           cl_event *event)
{
   cl_command_queue q = kiln_queue_from(command_queue);
   if (!q)
      return API_FAIL(CL_INVALID_COMMAND_QUEUE, "%p is not a queue", (void *)command_queue);
   /* The objects' contexts and the wait list's come before the objects'
    * own validity (the spec's order); a NULL array has none to check. */
   for (cl_uint i = 0; mem_objects && i < num_mem_objects; i++) {
      cl_mem m = kiln_mem_from(mem_objects[i]);
      if (m && m->context != q->context)
         return API_FAIL(CL_INVALID_CONTEXT, "memory object %u of another context", i);
   }
   cl_int err = kiln_api_check_wait_list_context(q->context, num_events_in_wait_list,
                                                 event_wait_list, __func__);
   if (err)
      return err;
   for (cl_uint i = 0; mem_objects && i < num_mem_objects; i++)
      if (!kiln_mem_from(mem_objects[i]))
         return API_FAIL(CL_INVALID_MEM_OBJECT, "%p is not a memory object",
                         (void *)mem_objects[i]);
   if (!num_mem_objects || !mem_objects)
      return API_FAIL(CL_INVALID_VALUE, "%u memory objects at %p", num_mem_objects,
                      (const void *)mem_objects);
   if (flags & ~(cl_mem_migration_flags)MIGRATION_FLAGS)
      return API_FAIL(CL_INVALID_VALUE, "flags 0x%llx", (unsigned long long)flags);
   if ((err = kiln_api_check_wait_list(q->context, num_events_in_wait_list, event_wait_list,
                                       __func__)))
      return err;
   cl_event ev;
   err = kiln_enqueue_sync(q, CL_COMMAND_MIGRATE_MEM_OBJECTS, KILN_ORDER_COMMAND,
                           (struct kiln_wait_list){num_events_in_wait_list, event_wait_list},
                           &ev);
   if (err)
      return API_FAIL(err, "cannot enqueue");
   return kiln_api_finish_enqueue(ev, false, event);
}
