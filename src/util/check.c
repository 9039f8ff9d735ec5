#include "util/check.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"

static pthread_once_t check_once = PTHREAD_ONCE_INIT;
static bool check_bounds;

/* Once per process: programs built with checks and launches providing
 * their tables must agree, so the answer never changes. */
static void check_init(void)
{
   const char *env = getenv("KILN_CHECK");
   if (!env)
      return;
   char buf[256];
   snprintf(buf, sizeof(buf), "%s", env);
   for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
        tok = strtok_r(NULL, ",", &save)) {
      if (!strcmp(tok, "bounds"))
         check_bounds = true;
      else if (strcmp(tok, "none"))
         kiln_log(KILN_LOG_WARN, "KILN_CHECK: unknown check '%s' ignored (known: bounds)", tok);
   }
}

bool kiln_check_bounds(void)
{
   pthread_once(&check_once, check_init);
   return check_bounds;
}
