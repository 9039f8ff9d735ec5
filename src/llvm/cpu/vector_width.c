/* KILN_CPU_VECTOR_WIDTH (see vector_width.h).
 *
 * LLVM tunes most AVX-512 CPUs to prefer 256-bit vectors (the
 * prefer-256-bit tuning of skylake-avx512 and its successors: 512-bit
 * instructions lower some Intel cores' clock).  OpenCL code typed float16
 * gets 512-bit instructions regardless; a scalar kernel vectorized across
 * work-items got 256-bit ones, half the float16 code's FMA throughput
 * (clpeak --compute-sp on the 2-core VM: float 169 GFLOPS against float16
 * 354; with 512: 353 against 351).  So Kiln prefers 512 bits where the
 * CPU has them, and the variable picks 256 where the clock matters more
 * (docs/performance.md has the measurements). */
#include "llvm/cpu/vector_width.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static unsigned width = 512;
static const char *bad; /* a value that is neither */

static void read_env(void)
{
   const char *e = getenv("KILN_CPU_VECTOR_WIDTH");
   if (!e || !*e)
      return;
   if (!strcmp(e, "256") || !strcmp(e, "512"))
      width = (unsigned)atoi(e);
   else
      bad = e;
}

/* Whether the comma-separated list has exactly this feature. */
static bool has_feature(const char *list, const char *f)
{
   size_t n = strlen(f);
   for (const char *p = list; (p = strstr(p, f)); p += n)
      if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
         return true;
   return false;
}

const char *kiln_cpu_vector_width_feature(const char *features, const char **invalid)
{
   pthread_once(&once, read_env);
   *invalid = bad;
   if (!has_feature(features, "+avx512f"))
      return NULL;
   return width == 512 ? "-prefer-256-bit" : "+prefer-256-bit";
}
