/* Runs a queue's ready commands, in the order they became ready, on a
 * thread of Kiln's (never the application's).  One executor per command
 * queue, so that a command that never ends holds back only its own queue;
 * a command's own work (an NDRange on the CPU) fans out to the driver's
 * worker pool. */
#ifndef KILN_CORE_EXECUTOR_H
#define KILN_CORE_EXECUTOR_H

#include <stdbool.h>

#include "core/object.h"

struct kiln_executor;

/* An executor for a queue of dev; its threads start with the first
 * command.  NULL when there is no memory for it. */
struct kiln_executor *kiln_executor_create(cl_device_id dev);
/* Queues ev (whose dependencies have completed) for execution. */
void kiln_executor_push(struct kiln_executor *ex, cl_event ev);
/* Runs ex's ready commands on the calling thread, in order, while no
 * other thread runs them, until it has run last (or last finished);
 * returns early when there is nothing it may run (the caller then waits
 * as usual: the executor thread runs what comes later).  For clFinish: a
 * round trip of enqueue and finish then needs no thread wake-up.  The
 * caller holds the queue and last. */
void kiln_executor_help(struct kiln_executor *ex, cl_event last);
/* Ends ex's threads once no command is queued or in flight (the queue is
 * going away: nothing can push any more), and frees it.  Safe to call
 * from the executor's own threads. */
void kiln_executor_stop(struct kiln_executor *ex);
/* Whether the calling thread is an executor's (event callbacks run there:
 * an enqueue from one must not wait for the executors). */
bool kiln_executor_on_thread(void);

#endif
