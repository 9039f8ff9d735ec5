#include "pipe/pipe_loader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe/amdgpu/amdgpu_screen.h"
#include "pipe/cpu/cpu_screen.h"
#ifdef KILN_DRIVER_CUDA
#include "pipe/cuda/cuda_screen.h"
#endif
#include "util/log.h"

struct driver {
   const char *name;
   /* Adds this driver's screens; returns how many were added. */
   unsigned (*probe)(struct pipe_screen **screens, unsigned max);
   bool only_when_named; /* not part of "all" or an unset KILN_DEVICES */
};

static unsigned probe_cpu(struct pipe_screen **screens, unsigned max)
{
   if (!max)
      return 0;
   screens[0] = cpu_screen_create(false);
   return screens[0] ? 1 : 0;
}

/* The CPU as a device with memory of its own and work that completes
 * later: a stand-in for a GPU in tests (docs/testing.md).  Only when
 * named in KILN_DEVICES. */
static unsigned probe_cpu_discrete(struct pipe_screen **screens, unsigned max)
{
   if (!max)
      return 0;
   screens[0] = cpu_screen_create(true);
   return screens[0] ? 1 : 0;
}

/* The CPU first: it stays the default device where an application takes
 * the first one. */
static const struct driver drivers[] = {
   {"cpu", probe_cpu},
   {"amdgpu", amdgpu_screen_probe},
#ifdef KILN_DRIVER_CUDA
   {"cuda", cuda_screen_probe},
#endif
   {"cpu-discrete", probe_cpu_discrete, true},
};

static bool wanted(const char *list, const struct driver *d)
{
   const char *name = d->name;
   if (!list || !*list || !strcmp(list, "all"))
      return !d->only_when_named;
   size_t n = strlen(name);
   for (const char *p = list; *p;) {
      const char *end = strchr(p, ',');
      size_t len = end ? (size_t)(end - p) : strlen(p);
      if ((len == n && !strncmp(p, name, n)) ||
          (len == 3 && !strncmp(p, "all", 3) && !d->only_when_named))
         return true;
      p += len + (end ? 1 : 0);
   }
   return false;
}

static void warn_unknown(const char *list)
{
   if (!list)
      return;
   char buf[256];
   snprintf(buf, sizeof(buf), "%s", list);
   for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
        tok = strtok_r(NULL, ",", &save)) {
      bool known = !strcmp(tok, "all") || !strcmp(tok, "cuda");
      for (size_t i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++)
         known |= !strcmp(tok, drivers[i].name);
      if (!known)
         kiln_log(KILN_LOG_WARN, "KILN_DEVICES: unknown driver '%s' ignored", tok);
   }
}

unsigned pipe_loader_probe(struct pipe_screen **screens, unsigned max)
{
   const char *list = getenv("KILN_DEVICES");
   warn_unknown(list);
   unsigned n = 0;
   for (size_t i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++) {
      if (!wanted(list, &drivers[i]))
         continue;
      unsigned added = drivers[i].probe(screens + n, max - n);
      kiln_log(KILN_LOG_PIPE, "driver %s: %u device(s)", drivers[i].name, added);
      n += added;
   }
   return n;
}
