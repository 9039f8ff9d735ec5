#include "core/device.h"

#include <stdlib.h>
#include <string.h>

#include "core/device_version.h"
#include "util/alloc.h"

cl_device_id kiln_device_create(cl_platform_id platform, struct pipe_screen *screen)
{
   cl_device_id dev = kiln_object_alloc(sizeof(*dev));
   if (!dev)
      return NULL;
   dev->platform = platform;
   dev->screen = screen;
   dev->caps = &screen->caps;
   kiln_device_clang_ext(dev, dev->clang_ext, sizeof(dev->clang_ext));
   dev->pipe = screen->context_create(screen);
   pthread_mutex_init(&dev->util_lock, NULL);
   if (!dev->pipe) {
      pthread_mutex_destroy(&dev->util_lock);
      kiln_object_free(dev);
      return NULL;
   }
   /* A root device has every compute unit the driver can place work on;
    * without them (or the memory to list them) it cannot be partitioned. */
   if (screen->context_create_on_units && screen->topology.num_units &&
       (dev->units = kiln_malloc(screen->topology.num_units * sizeof(unsigned)))) {
      dev->num_units = screen->topology.num_units;
      for (unsigned i = 0; i < dev->num_units; i++)
         dev->units[i] = i;
   }
   /* Root devices live as long as the process. */
   if (!kiln_object_init(&dev->obj, KILN_TYPE_DEVICE, NULL)) {
      dev->pipe->destroy(dev->pipe);
      pthread_mutex_destroy(&dev->util_lock);
      kiln_free(dev->units);
      kiln_object_free(dev);
      return NULL;
   }
   return dev;
}

/* Also the whole of a sub-device's destroy callback. */
static void device_free(cl_device_id dev)
{
   if (dev->pipe)
      dev->pipe->destroy(dev->pipe);
   pthread_mutex_destroy(&dev->util_lock);
   kiln_free(dev->units);
   kiln_free(dev->partition);
   cl_device_id parent = dev->parent;
   kiln_object_free(dev);
   if (parent)
      kiln_device_release_implicit(parent);
}

static void sub_device_destroy(struct kiln_object *obj)
{
   device_free((cl_device_id)obj);
}

cl_int kiln_device_create_sub(cl_device_id parent, unsigned *units, unsigned num_units,
                              const cl_device_partition_property *props, size_t num_props,
                              cl_device_id *out)
{
   struct pipe_screen *screen = parent->screen;
   cl_device_id dev = kiln_object_alloc(sizeof(*dev));
   if (!dev) {
      kiln_free(units);
      return CL_OUT_OF_HOST_MEMORY;
   }
   dev->platform = parent->platform;
   dev->screen = screen;
   dev->units = units;
   dev->num_units = num_units;
   /* The same code runs on parent and sub-device (same screen, same
    * compiler target): only the compute units differ. */
   dev->sub_caps = *parent->caps;
   dev->sub_caps.max_compute_units = num_units;
   dev->caps = &dev->sub_caps;
   kiln_device_clang_ext(dev, dev->clang_ext, sizeof(dev->clang_ext));
   pthread_mutex_init(&dev->util_lock, NULL);
   dev->partition = kiln_malloc(num_props * sizeof(*props));
   dev->pipe = screen->context_create_on_units(screen, units, num_units);
   if (!dev->partition || !dev->pipe) {
      /* The context fails only for want of memory. */
      device_free(dev);
      return CL_OUT_OF_HOST_MEMORY;
   }
   memcpy(dev->partition, props, num_props * sizeof(*props));
   dev->partition_len = num_props;
   kiln_device_retain_implicit(parent);
   dev->parent = parent;
   if (!kiln_object_init(&dev->obj, KILN_TYPE_DEVICE, sub_device_destroy)) {
      device_free(dev);
      return CL_OUT_OF_HOST_MEMORY;
   }
   *out = dev;
   return CL_SUCCESS;
}

void kiln_device_destroy(cl_device_id dev)
{
   kiln_object_release(&dev->obj);
   dev->parent = NULL;
   device_free(dev);
}

struct pipe_context *kiln_device_create_pipe(cl_device_id dev)
{
   struct pipe_screen *s = dev->screen;
   if (dev->parent)
      return s->context_create_on_units(s, dev->units, dev->num_units);
   return s->context_create(s);
}
