/* KILN_JAM_PREFETCH (see jam_prefetch.h).  The value changes the code the
 * work-group pass writes, so cpu_target.c puts it in the target id: the
 * compile cache and program binaries keep code built with and without
 * it apart, as for KILN_CPU_VECTOR_WIDTH. */
#include "llvm/cpu/jam_prefetch.h"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static unsigned bytes = KILN_JAM_PREFETCH_DEFAULT;
static const char *bad; /* a value that is not a number of bytes */

static void read_env(void)
{
   const char *e = getenv("KILN_JAM_PREFETCH");
   if (!e || !*e)
      return;
   char *end;
   unsigned long v = isdigit((unsigned char)*e) ? strtoul(e, &end, 10) : 0;
   if (!isdigit((unsigned char)*e) || *end || v > KILN_JAM_PREFETCH_MAX)
      bad = e;
   else
      bytes = (unsigned)v;
}

unsigned kiln_jam_prefetch_bytes(const char **invalid)
{
   pthread_once(&once, read_env);
   if (invalid)
      *invalid = bad;
   return bytes;
}
