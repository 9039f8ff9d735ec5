#include "util/spin.h"

#include <pthread.h>
#include <stdlib.h>

#include "util/log.h"

#define DEFAULT_SPIN_US 50
/* Beyond this polling costs more than any wake-up saves. */
#define MAX_SPIN_US 10000

static pthread_once_t spin_once = PTHREAD_ONCE_INIT;
static uint64_t spin_ns = DEFAULT_SPIN_US * 1000u;

static void spin_init(void)
{
   const char *env = getenv("KILN_SPIN_US");
   if (!env || !*env)
      return;
   char *end;
   unsigned long us = strtoul(env, &end, 10);
   if (*end || us > MAX_SPIN_US) {
      kiln_log(KILN_LOG_WARN, "KILN_SPIN_US=%s: not a number of microseconds up to %d; using %d",
               env, MAX_SPIN_US, DEFAULT_SPIN_US);
      return;
   }
   spin_ns = (uint64_t)us * 1000u;
}

uint64_t kiln_spin_ns(void)
{
   pthread_once(&spin_once, spin_init);
   return spin_ns;
}

void kiln_mutex_init_spinning(pthread_mutex_t *m)
{
   pthread_mutexattr_t a;
   pthread_mutexattr_init(&a);
   pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
   pthread_mutex_init(m, &a);
   pthread_mutexattr_destroy(&a);
}
