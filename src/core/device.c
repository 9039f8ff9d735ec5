#include "core/device.h"

#include <stdlib.h>

cl_device_id kiln_device_create(cl_platform_id platform, struct pipe_screen *screen)
{
   cl_device_id dev = calloc(1, sizeof(*dev));
   if (!dev)
      return NULL;
   dev->platform = platform;
   dev->screen = screen;
   dev->caps = &screen->caps;
   dev->pipe = screen->context_create(screen);
   pthread_mutex_init(&dev->exec_lock, NULL);
   if (!dev->pipe) {
      free(dev);
      return NULL;
   }
   /* Root devices of 1.1 live as long as the process. */
   if (!kiln_object_init(&dev->obj, KILN_TYPE_DEVICE, NULL)) {
      free(dev);
      return NULL;
   }
   return dev;
}
