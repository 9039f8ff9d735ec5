#include "core/mem_sync.h"

#include <string.h>

#include "core/context.h"
#include "core/device.h"
#include "core/pipe_sync.h"
#include "util/alloc.h"
#include "util/log.h"

unsigned kiln_mem_slot(cl_context ctx, cl_device_id dev)
{
   for (unsigned i = 0; i < ctx->num_devices; i++)
      if (ctx->devices[i]->screen == dev->screen)
         return i;
   return 0; /* not reached: queues and commands belong to the context */
}

cl_int kiln_mem_storage_create(cl_mem root, unsigned slot)
{
   struct kiln_mem_storage *s = &root->store[slot];
   if (s->res)
      return CL_SUCCESS;
   struct pipe_screen *screen = root->context->devices[slot]->screen;
   if (root->flags & CL_MEM_USE_HOST_PTR)
      s->res = screen->resource_from_user_memory(screen, root->host_ptr, root->size);
   if (!s->res)
      s->res = screen->resource_create(screen, root->size);
   if (!s->res) {
      kiln_log(KILN_LOG_MEM, "cannot allocate %zu bytes on %s", root->size, screen->caps.name);
      return CL_MEM_OBJECT_ALLOCATION_FAILURE;
   }
   return CL_SUCCESS;
}

/* Whether storage i is the application's memory itself. */
static bool aliases_host(const struct kiln_mem_storage *s)
{
   return s->res && s->res->user_memory;
}

/* Makes slot the one current copy (with the copies that are the same
 * memory: the application's, for USE_HOST_PTR). */
static void set_only_valid(cl_mem root, unsigned slot)
{
   bool host = aliases_host(&root->store[slot]);
   for (unsigned i = 0; i < root->context->num_devices; i++)
      root->store[i].valid = i == slot || (host && aliases_host(&root->store[i]));
   root->host_valid = host;
}

/* Brings the root's bytes into storage slot from wherever they are
 * current (root->lock held). */
static cl_int migrate_in(cl_mem root, unsigned slot, struct pipe_context *p)
{
   struct kiln_mem_storage *s = &root->store[slot];
   cl_device_id dev = root->context->devices[slot];
   if (root->host_valid) {
      /* Recorded before the command in the same context: host_ptr lives
       * as long as the object, as the application promised. */
      if (!aliases_host(s))
         p->buffer_write(p, s->res, 0, root->size, root->host_ptr);
      return CL_SUCCESS;
   }
   for (unsigned v = 0; v < root->context->num_devices; v++) {
      struct kiln_mem_storage *from = &root->store[v];
      if (v == slot || !from->valid || !from->res)
         continue;
      /* The commands that made it current have completed (cross-device
       * dependencies wait for completion), so the source is at rest: copy
       * it synchronously through the host. */
      cl_device_id src_dev = root->context->devices[v];
      kiln_log(KILN_LOG_MEM, "migrating %zu bytes of %p from %s to %s", root->size,
               (void *)root, src_dev->caps->name, dev->caps->name);
      void *src = kiln_resource_host_pointer(from->res);
      if (src)
         return kiln_device_write_sync(dev, s->res, 0, root->size, src);
      void *dst = kiln_resource_host_pointer(s->res);
      if (dst)
         return kiln_device_read_sync(src_dev, from->res, 0, root->size, dst);
      void *tmp = kiln_malloc(root->size ? root->size : 1);
      if (!tmp)
         return CL_OUT_OF_HOST_MEMORY;
      cl_int err = kiln_device_read_sync(src_dev, from->res, 0, root->size, tmp);
      if (!err)
         err = kiln_device_write_sync(dev, s->res, 0, root->size, tmp);
      kiln_free(tmp);
      return err;
   }
   return CL_SUCCESS; /* never written anywhere: any bytes will do */
}

cl_int kiln_mem_acquire(cl_mem mem, cl_device_id dev, struct pipe_context *p, unsigned access,
                        struct pipe_resource **res, size_t *offset)
{
   cl_mem root = mem->root;
   unsigned slot = kiln_mem_slot(root->context, dev);
   pthread_mutex_lock(&root->lock);
   cl_int err = kiln_mem_storage_create(root, slot);
   struct kiln_mem_storage *s = &root->store[slot];
   if (!err && !s->valid) {
      err = migrate_in(root, slot, p);
      if (!err)
         s->valid = true;
   }
   if (!err && (access & KILN_ACCESS_WRITE))
      set_only_valid(root, slot);
   pthread_mutex_unlock(&root->lock);
   *res = s->res;
   *offset = mem->offset;
   return err;
}

/* Whether a mapping is a window of the application's memory that the
 * device does not share (USE_HOST_PTR on a device with its own copy). */
static bool maps_host_copy(cl_mem mem, const struct kiln_mapping *m, struct pipe_resource *res)
{
   return mem->host_ptr && !res->user_memory && !m->staging;
}

cl_int kiln_mem_map_run(cl_mem mem, const struct kiln_mapping *m, cl_device_id dev,
                        struct pipe_context *p)
{
   cl_mem root = mem->root;
   pthread_mutex_lock(&root->lock);
   bool host_current = mem->host_ptr && root->host_valid;
   pthread_mutex_unlock(&root->lock);
   if (host_current && !m->staging)
      return CL_SUCCESS; /* the application's memory is the current copy */
   struct pipe_resource *res;
   size_t off;
   cl_int err = kiln_mem_acquire(mem, dev, p, KILN_ACCESS_READ, &res, &off);
   if (err || (m->flags & CL_MAP_WRITE_INVALIDATE_REGION))
      return err;
   if (m->staging || maps_host_copy(mem, m, res))
      p->buffer_read(p, res, off + m->offset, m->size, m->ptr);
   return CL_SUCCESS;
}

cl_int kiln_mem_unmap_run(cl_mem mem, const struct kiln_mapping *m, cl_device_id dev,
                          struct pipe_context *p)
{
   if (!(m->flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)))
      return CL_SUCCESS;
   cl_mem root = mem->root;
   pthread_mutex_lock(&root->lock);
   bool host_was_current = root->host_valid;
   pthread_mutex_unlock(&root->lock);
   struct pipe_resource *res;
   size_t off;
   cl_int err = kiln_mem_acquire(mem, dev, p, KILN_ACCESS_WRITE, &res, &off);
   if (err)
      return err;
   if (m->staging || maps_host_copy(mem, m, res))
      p->buffer_write(p, res, off + m->offset, m->size, m->ptr);
   if (maps_host_copy(mem, m, res) && host_was_current) {
      /* The host wrote its own copy, which was current: it still is. */
      pthread_mutex_lock(&root->lock);
      root->host_valid = true;
      pthread_mutex_unlock(&root->lock);
   }
   return CL_SUCCESS;
}
