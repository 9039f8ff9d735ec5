#include "core/mem.h"

#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>

#include "core/context.h"
#include "core/device.h"
#include "core/mem_sync.h"
#include "core/pipe_sync.h"
#include "util/log.h"
#include "util/alloc.h"

static void mem_destroy(struct kiln_object *obj)
{
   cl_mem mem = (cl_mem)obj;
   kiln_log(KILN_LOG_MEM, "%s %p destroyed",
            kiln_mem_is_image(mem) ? "image" : mem->parent ? "sub-buffer" : "buffer", (void *)mem);
   /* Destructor callbacks run in reverse order of registration, just
    * before the memory goes away (the application may free host_ptr in
    * them). */
   for (struct kiln_mem_callback *cb = mem->callbacks, *next; cb; cb = next) {
      next = cb->next;
      cb->fn(mem, cb->user_data);
      kiln_free(cb);
   }
   for (struct kiln_mapping *m = mem->mappings, *next; m; m = next) {
      next = m->next;
      kiln_mapping_free(m);
   }
   if (mem->parent)
      kiln_object_unref(&mem->parent->obj);
   if (mem->store) {
      for (unsigned i = 0; i < mem->context->num_devices; i++) {
         struct pipe_resource *res = mem->store[i].res;
         if (res)
            res->screen->resource_destroy(res->screen, res);
      }
      kiln_free(mem->store);
   }
   pthread_mutex_destroy(&mem->lock);
   kiln_object_unref(&mem->context->obj);
   kiln_props_fini(&mem->props);
   kiln_object_free(mem);
}

static cl_mem mem_alloc(cl_context ctx, cl_mem_flags flags, size_t size)
{
   cl_mem mem = kiln_object_alloc(sizeof(*mem));
   if (!mem)
      return NULL;
   mem->context = ctx;
   mem->type = CL_MEM_OBJECT_BUFFER;
   mem->flags = flags;
   mem->size = size;
   mem->root = mem;
   static atomic_uint_fast64_t serials;
   mem->serial = atomic_fetch_add(&serials, 1) + 1;
   pthread_mutex_init(&mem->lock, NULL);
   kiln_object_ref(&ctx->obj);
   return mem;
}

/* A root object's storage: created on the context's first device now,
 * so that a failing allocation fails the create call as applications
 * expect, with the initial bytes (COPY_HOST_PTR) written there. */
static cl_int root_storage_init(cl_mem mem, void *host_ptr)
{
   cl_context ctx = mem->context;
   mem->store = kiln_calloc(ctx->num_devices, sizeof(*mem->store));
   if (!mem->store)
      return CL_OUT_OF_HOST_MEMORY;
   if (mem->flags & CL_MEM_USE_HOST_PTR) {
      mem->host_ptr = host_ptr;
      mem->host_valid = true;
   }
   cl_int err = kiln_mem_storage_create(mem, 0);
   if (err)
      return err;
   struct kiln_mem_storage *s = &mem->store[0];
   if (mem->flags & CL_MEM_COPY_HOST_PTR) {
      err = kiln_device_write_sync(ctx->devices[0], s->res, 0, mem->size, host_ptr);
      if (err)
         return err;
   }
   /* Without host data the contents are undefined: any copy is current. */
   s->valid = !(mem->flags & CL_MEM_USE_HOST_PTR) || s->res->user_memory;
   return CL_SUCCESS;
}

cl_int kiln_mem_create_buffer(cl_context ctx, cl_mem_flags flags, size_t size, void *host_ptr,
                              cl_mem *out)
{
   cl_mem mem = mem_alloc(ctx, flags, size);
   if (!mem)
      return CL_OUT_OF_HOST_MEMORY;
   cl_int err = root_storage_init(mem, host_ptr);
   if (err) {
      kiln_log(KILN_LOG_MEM, "cannot allocate a buffer of %zu bytes", size);
      mem_destroy(&mem->obj);
      return err;
   }
   mem->info_host_ptr = host_ptr;
   if (!kiln_object_init(&mem->obj, KILN_TYPE_MEM, mem_destroy)) {
      mem_destroy(&mem->obj);
      return CL_OUT_OF_HOST_MEMORY;
   }
   kiln_log(KILN_LOG_MEM, "buffer %p: %zu bytes, flags 0x%llx%s", (void *)mem, size,
            (unsigned long long)flags, flags & CL_MEM_USE_HOST_PTR ? " (the host's memory)" : "");
   *out = mem;
   return CL_SUCCESS;
}

cl_int kiln_mem_create_image(cl_context ctx, cl_mem_flags flags, const cl_image_format *format,
                             size_t elem_size, const struct kiln_image_geom *g, void *host_ptr,
                             cl_mem buffer, cl_mem *out)
{
   /* The caller checked that the sizes fit the device limits (or the
    * buffer), so no product here overflows. */
   size_t size = kiln_image_type_has_slices(g->type) ? g->slice_pitch * g->depth
                                                     : g->row_pitch * g->height;
   cl_mem mem = mem_alloc(ctx, flags, size);
   if (!mem)
      return CL_OUT_OF_HOST_MEMORY;
   mem->type = g->type;
   mem->image.format = *format;
   mem->image.elem_size = elem_size;
   mem->image.width = g->width;
   mem->image.height = g->height;
   mem->image.depth = g->depth;
   mem->image.row_pitch = g->row_pitch;
   mem->image.slice_pitch = kiln_image_type_has_slices(g->type) ? g->slice_pitch : 0;
   mem->image.array_size = g->array_size;
   mem->image.info_row_pitch = g->info_row_pitch;
   mem->image.info_slice_pitch = g->info_slice_pitch;
   if (buffer) {
      /* A 1D image buffer is a view of the buffer (or sub-buffer), like
       * a sub-buffer: it shares the root resource from the same offset
       * and keeps the buffer alive. */
      kiln_object_ref(&buffer->obj);
      mem->parent = buffer;
      mem->image.buffer = buffer;
      mem->root = buffer->root;
      mem->offset = buffer->offset;
      mem->host_ptr = buffer->host_ptr;
   } else {
      /* The image keeps the application's pitches, so its layout is
       * the host memory's and one copy does. */
      cl_int err = root_storage_init(mem, host_ptr);
      if (err) {
         kiln_log(KILN_LOG_MEM, "cannot allocate an image of %zu bytes", size);
         mem_destroy(&mem->obj);
         return err;
      }
      mem->info_host_ptr = host_ptr;
   }
   if (!kiln_object_init(&mem->obj, KILN_TYPE_MEM, mem_destroy)) {
      mem_destroy(&mem->obj);
      return CL_OUT_OF_HOST_MEMORY;
   }
   *out = mem;
   return CL_SUCCESS;
}

cl_int kiln_mem_create_sub_buffer(cl_mem parent, cl_mem_flags flags, size_t origin, size_t size,
                                  cl_mem *out)
{
   cl_mem mem = mem_alloc(parent->context, flags, size);
   if (!mem)
      return CL_OUT_OF_HOST_MEMORY;
   kiln_object_ref(&parent->obj);
   mem->parent = parent;
   mem->root = parent->root;
   mem->offset = parent->offset + origin;
   if (parent->host_ptr)
      mem->host_ptr = (char *)parent->host_ptr + origin;
   mem->info_host_ptr = mem->host_ptr;
   if (!kiln_object_init(&mem->obj, KILN_TYPE_MEM, mem_destroy)) {
      mem_destroy(&mem->obj);
      return CL_OUT_OF_HOST_MEMORY;
   }
   *out = mem;
   return CL_SUCCESS;
}

cl_int kiln_mem_add_destructor_callback(cl_mem mem, void(CL_CALLBACK *fn)(cl_mem, void *),
                                        void *user_data)
{
   struct kiln_mem_callback *cb = kiln_malloc(sizeof(*cb));
   if (!cb)
      return CL_OUT_OF_HOST_MEMORY;
   cb->fn = fn;
   cb->user_data = user_data;
   pthread_mutex_lock(&mem->lock);
   cb->next = mem->callbacks;
   mem->callbacks = cb;
   pthread_mutex_unlock(&mem->lock);
   return CL_SUCCESS;
}

void kiln_mapping_free(struct kiln_mapping *m)
{
   if (m)
      kiln_free(m->staging);
   kiln_free(m);
}

cl_int kiln_mem_map(cl_mem mem, cl_device_id dev, size_t offset, size_t size,
                    cl_map_flags flags, struct kiln_mapping **out)
{
   struct kiln_mapping *m = kiln_calloc(1, sizeof(*m));
   if (!m)
      return CL_OUT_OF_HOST_MEMORY;
   m->offset = offset;
   m->size = size;
   m->flags = flags;
   if (mem->host_ptr) {
      /* CL_MEM_USE_HOST_PTR maps into the application's own memory
       * (5.4.2). */
      m->ptr = (char *)mem->host_ptr + offset;
   } else {
      /* The device's memory where the host sees it, else a staging copy
       * that the map and unmap commands fill and write back. */
      cl_mem root = mem->root;
      unsigned slot = kiln_mem_slot(root->context, dev);
      pthread_mutex_lock(&root->lock);
      cl_int err = kiln_mem_storage_create(root, slot);
      char *hp = err ? NULL : kiln_resource_host_pointer(root->store[slot].res);
      pthread_mutex_unlock(&root->lock);
      if (err) {
         kiln_free(m);
         return err;
      }
      if (hp) {
         m->ptr = hp + mem->offset + offset;
      } else {
         m->staging = kiln_aligned_alloc(128, size ? size : 1);
         if (!m->staging) {
            kiln_free(m);
            return CL_OUT_OF_HOST_MEMORY;
         }
         m->ptr = m->staging;
      }
   }
   pthread_mutex_lock(&mem->lock);
   m->next = mem->mappings;
   mem->mappings = m;
   mem->map_count++;
   pthread_mutex_unlock(&mem->lock);
   *out = m;
   return CL_SUCCESS;
}

bool kiln_mem_is_mapped(cl_mem mem, void *ptr)
{
   pthread_mutex_lock(&mem->lock);
   struct kiln_mapping *m = mem->mappings;
   while (m && m->ptr != ptr)
      m = m->next;
   pthread_mutex_unlock(&mem->lock);
   return m != NULL;
}

struct kiln_mapping *kiln_mem_take_mapping(cl_mem mem, void *ptr)
{
   pthread_mutex_lock(&mem->lock);
   struct kiln_mapping **pm = &mem->mappings;
   while (*pm && (*pm)->ptr != ptr)
      pm = &(*pm)->next;
   struct kiln_mapping *m = *pm;
   if (m) {
      *pm = m->next;
      mem->map_count--;
   }
   pthread_mutex_unlock(&mem->lock);
   return m;
}

void kiln_mem_restore_mapping(cl_mem mem, struct kiln_mapping *m)
{
   pthread_mutex_lock(&mem->lock);
   m->next = mem->mappings;
   mem->mappings = m;
   mem->map_count++;
   pthread_mutex_unlock(&mem->lock);
}

cl_int kiln_mem_unmap(cl_mem mem, void *ptr)
{
   struct kiln_mapping *m = kiln_mem_take_mapping(mem, ptr);
   kiln_mapping_free(m);
   return m ? CL_SUCCESS : CL_INVALID_VALUE;
}
