/* Which threads are Kiln's own (see thread_role.h). */
#include "util/thread_role.h"

#include "util/tls.h"

static _Thread_local bool own_thread KILN_TLS_MODEL;

void kiln_thread_mark_own(void)
{
   own_thread = true;
}

bool kiln_thread_is_own(void)
{
   return own_thread;
}
