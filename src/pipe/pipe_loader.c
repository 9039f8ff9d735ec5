/* The pipe drivers Kiln knows, in the one table below, and which of them
 * probe for devices (KILN_DEVICES).  A driver that meson's -Ddrivers left
 * out keeps its name in the table (probe NULL), so that asking for it
 * says "not built" rather than "unknown".  docs/pipe.md: adding a driver. */
#include "pipe/pipe_loader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"

#if KILN_DRIVER_CPU
#include "pipe/cpu/cpu_screen.h"
#endif
#if KILN_DRIVER_AMDGPU
#include "pipe/amdgpu/amdgpu_screen.h"
#endif
#if KILN_DRIVER_CUDA
#include "pipe/cuda/cuda_screen.h"
#endif

/* Adds this driver's screens; returns how many were added. */
typedef unsigned (*probe_fn)(struct pipe_screen **screens, unsigned max);

struct driver {
   const char *name;
   probe_fn probe; /* NULL: configured out (meson -Ddrivers) */
   bool only_when_named; /* not part of "all" or an unset KILN_DEVICES */
};

#if KILN_DRIVER_CPU
/* The CPU is one device, always there. */
static unsigned cpu_probe(struct pipe_screen **screens, unsigned max)
{
   if (!max)
      return 0;
   screens[0] = cpu_screen_create(false);
   return screens[0] ? 1 : 0;
}

/* The CPU as a device with memory of its own and work that completes
 * later: a stand-in for a GPU in tests (docs/testing.md).  Only when
 * named in KILN_DEVICES.  KILN_CPU_DISCRETE_DEVICES (1 to 4) makes that
 * many, each with its own memory, so that a CI machine without a GPU
 * has what a 2-GPU machine has: two devices neither of whose memory the
 * host sees, between which data moves through the host. */
static unsigned cpu_discrete_probe(struct pipe_screen **screens, unsigned max)
{
   const char *s = getenv("KILN_CPU_DISCRETE_DEVICES");
   unsigned long want = s && *s ? strtoul(s, NULL, 10) : 1;
   if (want < 1 || want > 4) {
      kiln_log(KILN_LOG_WARN, "KILN_CPU_DISCRETE_DEVICES=%s: not 1 to 4, using 1", s);
      want = 1;
   }
   unsigned n = 0;
   while (n < want && n < max && (screens[n] = cpu_screen_create(true)))
      n++;
   return n;
}
#endif

/* Every driver, in probe order: the CPU first, so that it stays the
 * default device where an application takes the first one. */
static const struct driver drivers[] = {
#if KILN_DRIVER_CPU
   {"cpu", cpu_probe},
#else
   {"cpu", NULL},
#endif
#if KILN_DRIVER_AMDGPU
   {"amdgpu", amdgpu_screen_probe},
#else
   {"amdgpu", NULL},
#endif
#if KILN_DRIVER_CUDA
   {"cuda", cuda_screen_probe},
#else
   {"cuda", NULL},
#endif
#if KILN_DRIVER_CPU
   {"cpu-discrete", cpu_discrete_probe, true},
#else
   {"cpu-discrete", NULL, true},
#endif
};

#define NUM_DRIVERS (sizeof(drivers) / sizeof(drivers[0]))

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

static const struct driver *find(const char *name)
{
   for (size_t i = 0; i < NUM_DRIVERS; i++)
      if (!strcmp(name, drivers[i].name))
         return &drivers[i];
   return NULL;
}

/* A name that is not a driver of the table, or one of the table's that
 * this build left out, would otherwise be silently ignored. */
static void warn_unusable(const char *list)
{
   if (!list)
      return;
   char buf[256];
   snprintf(buf, sizeof(buf), "%s", list);
   for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
        tok = strtok_r(NULL, ",", &save)) {
      if (!strcmp(tok, "all") || !strcmp(tok, "none"))
         continue;
      const struct driver *d = find(tok);
      if (!d)
         kiln_log(KILN_LOG_WARN, "KILN_DEVICES: unknown driver '%s' ignored", tok);
      else if (!d->probe)
         kiln_log(KILN_LOG_WARN,
                  "KILN_DEVICES: driver '%s' not built (meson -Ddrivers=...,%s) ignored", tok,
                  tok);
   }
}

unsigned pipe_loader_probe(struct pipe_screen **screens, unsigned max)
{
   const char *list = getenv("KILN_DEVICES");
   warn_unusable(list);
   unsigned n = 0;
   for (size_t i = 0; i < NUM_DRIVERS; i++) {
      if (!drivers[i].probe || !wanted(list, &drivers[i]))
         continue;
      unsigned added = drivers[i].probe(screens + n, max - n);
      kiln_log(KILN_LOG_PIPE, "driver %s: %u device(s)", drivers[i].name, added);
      n += added;
   }
   return n;
}
