/* Whether the calling thread is one of Kiln's own (a queue's executor or
 * completer thread), which no application code runs on but event
 * callbacks.  A driver may leave per-thread state behind on such a
 * thread (the CUDA winsys leaves its context current there, saving a
 * context push and pop around every call). */
#ifndef KILN_UTIL_THREAD_ROLE_H
#define KILN_UTIL_THREAD_ROLE_H

#include <stdbool.h>

void kiln_thread_mark_own(void);
bool kiln_thread_is_own(void);

#endif
