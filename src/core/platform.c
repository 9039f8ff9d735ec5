#include "core/platform.h"

#include <pthread.h>
#include <stdlib.h>

#include "core/device.h"
#include "core/trace.h"
#include "pipe/pipe_loader.h"
#include "util/log.h"
#include "util/alloc.h"

static struct _cl_platform_id platform;
static pthread_once_t platform_once = PTHREAD_ONCE_INIT;

static void platform_init(void)
{
   /* Before any queue can exist (core/trace.h). */
   kiln_trace_init();
   struct pipe_screen *screens[PIPE_LOADER_MAX_SCREENS];
   unsigned n = pipe_loader_probe(screens, PIPE_LOADER_MAX_SCREENS);

   /* The platform lives as long as the process: its destroy is never
    * called, so no callback is needed. */
   kiln_object_init(&platform.obj, KILN_TYPE_PLATFORM, NULL);
   platform.devices = kiln_calloc(n ? n : 1, sizeof(cl_device_id));
   for (unsigned i = 0; i < n && platform.devices; i++) {
      cl_device_id dev = kiln_device_create(&platform, screens[i]);
      if (dev)
         platform.devices[platform.num_devices++] = dev;
      else
         screens[i]->destroy(screens[i]);
   }
   if (!platform.num_devices)
      kiln_log(KILN_LOG_WARN, "no device found (KILN_DEVICES=%s)",
               getenv("KILN_DEVICES") ? getenv("KILN_DEVICES") : "");
}

cl_platform_id kiln_platform_get(void)
{
   pthread_once(&platform_once, platform_init);
   return &platform;
}
