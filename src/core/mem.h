/* Memory objects (buffers and sub-buffers).
 *
 * A buffer owns one pipe_resource on its context's first device: every
 * device Kiln has today keeps buffers in host memory, so one resource
 * serves them all.  Devices with their own memory will need one resource
 * per device and migration between them.  A sub-buffer owns no resource:
 * it is a window (offset, size) onto its parent's.
 */
#ifndef KILN_CORE_MEM_H
#define KILN_CORE_MEM_H

#include <pthread.h>

#include "core/object.h"
#include "pipe/pipe.h"

struct kiln_mem_callback {
   void(CL_CALLBACK *fn)(cl_mem mem, void *user_data);
   void *user_data;
   struct kiln_mem_callback *next;
};

struct kiln_mapping {
   void *ptr;
   size_t offset, size;
   cl_map_flags flags;
   struct kiln_mapping *next;
};

struct _cl_mem {
   struct kiln_object obj;
   cl_context context;
   cl_mem_object_type type;
   cl_mem_flags flags;
   size_t size;
   void *host_ptr; /* CL_MEM_USE_HOST_PTR's pointer (plus offset for subs) */
   /* CL_MEM_HOST_PTR: in 1.1 the host_ptr argument, COPY_HOST_PTR too. */
   void *info_host_ptr;

   cl_mem parent; /* sub-buffers: the buffer they view */
   size_t offset; /* sub-buffers: origin in the parent */

   struct pipe_resource *res; /* the root buffer's resource */
   void *data;                /* host pointer to res (host-visible devices) */

   pthread_mutex_t lock;
   unsigned map_count;
   struct kiln_mapping *mappings;
   struct kiln_mem_callback *callbacks; /* most recent first */
   uint64_t serial; /* unique per object: tells a reused handle from this one */

   /* Images (type CL_MEM_OBJECT_IMAGE2D/3D): a linear layout in res, with
    * the application's pitches for CL_MEM_USE_HOST_PTR, tight otherwise.
    * A 2D image has depth 1 and slice_pitch 0 (what clGetImageInfo says). */
   struct {
      cl_image_format format;
      size_t elem_size;
      size_t width, height, depth;
      size_t row_pitch, slice_pitch;
   } image;
};

static inline cl_mem kiln_mem_from(cl_mem m)
{
   return (cl_mem)kiln_object_lookup(m, KILN_TYPE_MEM);
}

cl_int kiln_mem_create_buffer(cl_context ctx, cl_mem_flags flags, size_t size, void *host_ptr,
                              cl_mem *out);
cl_int kiln_mem_create_sub_buffer(cl_mem parent, cl_mem_flags flags, size_t origin, size_t size,
                                  cl_mem *out);

/* An image of w x h (x d for 3D, d = 1 for 2D) elements of format.  With
 * CL_MEM_USE_HOST_PTR the image is host_ptr with the given pitches; with
 * CL_MEM_COPY_HOST_PTR it is copied from there (pitches already resolved
 * by the caller: never 0 when host_ptr is given). */
cl_int kiln_mem_create_image(cl_context ctx, cl_mem_flags flags, cl_mem_object_type type,
                             const cl_image_format *format, size_t elem_size, size_t w,
                             size_t h, size_t d, size_t row_pitch, size_t slice_pitch,
                             void *host_ptr, cl_mem *out);

static inline bool kiln_mem_is_image(cl_mem m)
{
   return m->type == CL_MEM_OBJECT_IMAGE2D || m->type == CL_MEM_OBJECT_IMAGE3D;
}

/* The root resource and the absolute offset of mem's first byte in it. */
static inline struct pipe_resource *kiln_mem_resource(cl_mem mem, size_t *offset)
{
   *offset = mem->offset;
   return mem->res;
}

/* mem's first byte in host memory. */
static inline char *kiln_mem_data(cl_mem mem)
{
   return (char *)mem->data + mem->offset;
}

/* Buffer a of sub-buffer relation: the same memory as b somewhere? */
static inline bool kiln_mem_same_storage(cl_mem a, cl_mem b)
{
   return a->res == b->res;
}

cl_int kiln_mem_add_destructor_callback(cl_mem mem, void(CL_CALLBACK *fn)(cl_mem, void *),
                                        void *user_data);

/* Maps [offset, offset+size) of mem; returns the host pointer the
 * application sees.  The data is valid once the map command completed. */
cl_int kiln_mem_map(cl_mem mem, size_t offset, size_t size, cl_map_flags flags, void **ptr);
/* Forgets the mapping at ptr; CL_INVALID_VALUE if mem has none there. */
cl_int kiln_mem_unmap(cl_mem mem, void *ptr);
/* The same in two steps, for an unmap command that may yet fail to be
 * enqueued: takes the mapping at ptr out of mem's list (NULL if none),
 * and puts it back.  A taken mapping is freed with kiln_free. */
struct kiln_mapping *kiln_mem_take_mapping(cl_mem mem, void *ptr);
void kiln_mem_restore_mapping(cl_mem mem, struct kiln_mapping *m);
/* Whether ptr is a live mapping of mem (checked at enqueue time). */
bool kiln_mem_is_mapped(cl_mem mem, void *ptr);

#endif
