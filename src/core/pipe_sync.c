#include "core/pipe_sync.h"

#include <string.h>

#include "core/device.h"

cl_int kiln_pipe_finish(struct pipe_context *p)
{
   struct pipe_fence *f = NULL;
   p->flush(p, &f);
   if (!f)
      return CL_SUCCESS;
   int r = p->screen->fence_wait(p->screen, f, PIPE_TIMEOUT_INFINITE);
   p->screen->fence_destroy(p->screen, f);
   return r < 0 ? r : CL_SUCCESS;
}

cl_int kiln_device_write_sync(cl_device_id dev, struct pipe_resource *res, size_t offset,
                              size_t size, const void *src)
{
   char *hp = kiln_resource_host_pointer(res);
   if (hp) {
      memcpy(hp + offset, src, size);
      return CL_SUCCESS;
   }
   pthread_mutex_lock(&dev->util_lock);
   dev->pipe->buffer_write(dev->pipe, res, offset, size, src);
   cl_int err = kiln_pipe_finish(dev->pipe);
   pthread_mutex_unlock(&dev->util_lock);
   return err;
}

cl_int kiln_device_read_sync(cl_device_id dev, struct pipe_resource *res, size_t offset,
                             size_t size, void *dst)
{
   const char *hp = kiln_resource_host_pointer(res);
   if (hp) {
      memcpy(dst, hp + offset, size);
      return CL_SUCCESS;
   }
   pthread_mutex_lock(&dev->util_lock);
   dev->pipe->buffer_read(dev->pipe, res, offset, size, dst);
   cl_int err = kiln_pipe_finish(dev->pipe);
   pthread_mutex_unlock(&dev->util_lock);
   return err;
}
