/* KILN_JAM_PREFETCH (see jam_prefetch.h).  The setting changes the code
 * the work-group pass writes, so cpu_target.c puts it in the target id:
 * the compile cache and program binaries keep code built with different
 * settings apart, as for KILN_CPU_VECTOR_WIDTH. */
#include "llvm/cpu/jam_prefetch.h"

#include <ctype.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct kiln_jam_prefetch setting = {KILN_JAM_PREFETCH_ROWS, 0,
                                          KILN_JAM_PREFETCH_FAR_DEFAULT};
static const char *bad; /* a value that is neither "rows", "rows+F" nor a number of bytes */

/* A number of bytes up to KILN_JAM_PREFETCH_MAX: all of s, digits only. */
static bool bytes(const char *s, unsigned *v)
{
   if (!isdigit((unsigned char)*s))
      return false;
   char *end;
   unsigned long n = strtoul(s, &end, 10);
   *v = (unsigned)n;
   return !*end && n <= KILN_JAM_PREFETCH_MAX;
}

static void read_env(void)
{
   const char *e = getenv("KILN_JAM_PREFETCH");
   if (!e || !*e || !strcmp(e, "rows"))
      return;
   unsigned v;
   if (!strncmp(e, "rows+", 5)) {
      if (bytes(e + 5, &v))
         setting.far = v;
      else
         bad = e;
   } else if (!bytes(e, &v))
      bad = e;
   else if (v)
      setting = (struct kiln_jam_prefetch){KILN_JAM_PREFETCH_FIXED, v, 0};
   else
      setting = (struct kiln_jam_prefetch){KILN_JAM_PREFETCH_OFF, 0, 0};
}

struct kiln_jam_prefetch kiln_jam_prefetch_setting(const char **invalid)
{
   pthread_once(&once, read_env);
   if (invalid)
      *invalid = bad;
   return setting;
}
