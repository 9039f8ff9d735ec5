/* KILN_JAM_PREFETCH (see jam_prefetch.h).  The setting changes the code
 * the work-group pass writes, so cpu_target.c puts it in the target id:
 * the compile cache and program binaries keep code built with different
 * settings apart, as for KILN_CPU_VECTOR_WIDTH. */
#include "llvm/cpu/jam_prefetch.h"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct kiln_jam_prefetch setting = {KILN_JAM_PREFETCH_ROWS, 0};
static const char *bad; /* a value that is neither "rows" nor a number of bytes */

static void read_env(void)
{
   const char *e = getenv("KILN_JAM_PREFETCH");
   if (!e || !*e || !strcmp(e, "rows"))
      return;
   char *end;
   unsigned long v = isdigit((unsigned char)*e) ? strtoul(e, &end, 10) : 0;
   if (!isdigit((unsigned char)*e) || *end || v > KILN_JAM_PREFETCH_MAX)
      bad = e;
   else if (v)
      setting = (struct kiln_jam_prefetch){KILN_JAM_PREFETCH_FIXED, (unsigned)v};
   else
      setting = (struct kiln_jam_prefetch){KILN_JAM_PREFETCH_OFF, 0};
}

struct kiln_jam_prefetch kiln_jam_prefetch_setting(const char **invalid)
{
   pthread_once(&once, read_env);
   if (invalid)
      *invalid = bad;
   return setting;
}
