#include "core/device.h"

#include <stdlib.h>

cl_device_id kiln_device_create(cl_platform_id platform, struct pipe_screen *screen)
{
   cl_device_id dev = kiln_object_alloc(sizeof(*dev));
   if (!dev)
      return NULL;
   dev->platform = platform;
   dev->screen = screen;
   dev->caps = &screen->caps;
   dev->pipe = screen->context_create(screen);
   pthread_mutex_init(&dev->exec_lock, NULL);
   if (!dev->pipe) {
      kiln_object_free(dev);
      return NULL;
   }
   /* Root devices of 1.1 live as long as the process. */
   if (!kiln_object_init(&dev->obj, KILN_TYPE_DEVICE, NULL)) {
      kiln_object_free(dev);
      return NULL;
   }
   return dev;
}

void kiln_device_destroy(cl_device_id dev)
{
   kiln_object_release(&dev->obj);
   if (dev->pipe)
      dev->pipe->destroy(dev->pipe);
   pthread_mutex_destroy(&dev->exec_lock);
   kiln_object_free(dev);
}
