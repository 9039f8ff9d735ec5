/* Runs a device's ready commands, in the order they became ready, on a
 * thread of Kiln's (never the application's).  One executor per device;
 * commands of several queues interleave there, and a command's own work
 * (an NDRange on the CPU) fans out to the driver's worker pool. */
#ifndef KILN_CORE_EXECUTOR_H
#define KILN_CORE_EXECUTOR_H

#include "core/object.h"

/* Queues ev (whose dependencies have completed) for execution. */
void kiln_executor_push(cl_device_id dev, cl_event ev);
/* Ends dev's executor thread, if it has one, once no command is queued
 * (the device is going away: nothing can push any more).  Safe to call
 * from the executor thread itself. */
void kiln_executor_stop(cl_device_id dev);

#endif
