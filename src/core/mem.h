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

   /* Images: a linear layout in res, addressed as (x, y, z) with
    * row_pitch/slice_pitch bytes, whatever the type, so that every
    * transfer, fill and kernel access is one byte rectangle:
    *   1D, 1D buffer    width x 1 x 1
    *   1D array         width x array_size x 1 (a layer per row)
    *   2D               width x height x 1
    *   2D array         width x height x array_size (a layer per slice)
    *   3D               width x height x depth
    * which is also where OpenCL 1.2 puts an array's layer index in
    * origin/region (origin[1] for 1D arrays, origin[2] for 2D arrays).
    * 2D-shaped types (1D, 1D buffer, 1D array, 2D) have slice_pitch 0.
    * With a host pointer the pitches are the application's.  What
    * clGetImageInfo reports may differ (a 1D array's row pitch is the
    * application's row pitch, its slice pitch the layer pitch): info_*. */
   struct {
      cl_image_format format;
      size_t elem_size;
      size_t width, height, depth;
      size_t row_pitch, slice_pitch;
      size_t array_size;                       /* 0 unless an array */
      size_t info_row_pitch, info_slice_pitch; /* clGetImageInfo's */
      cl_mem buffer; /* 1D image buffer: the buffer (also mem->parent) */
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

/* The geometry of an image, as the API resolved it (see struct _cl_mem):
 * storage extent and pitches, never 0 pitches where a host pointer is
 * given (then they are the application's). */
struct kiln_image_geom {
   cl_mem_object_type type;
   size_t width, height, depth, array_size;
   size_t row_pitch, slice_pitch;
   size_t info_row_pitch, info_slice_pitch;
};

/* An image of format with geometry g.  With CL_MEM_USE_HOST_PTR the
 * image is host_ptr; with CL_MEM_COPY_HOST_PTR it is copied from there
 * (same layout).  With buffer (a 1D image buffer) the image shares the
 * buffer's storage and holds a reference on it. */
cl_int kiln_mem_create_image(cl_context ctx, cl_mem_flags flags, const cl_image_format *format,
                             size_t elem_size, const struct kiln_image_geom *g, void *host_ptr,
                             cl_mem buffer, cl_mem *out);

static inline bool kiln_mem_type_is_image(cl_mem_object_type t)
{
   return t == CL_MEM_OBJECT_IMAGE2D || t == CL_MEM_OBJECT_IMAGE3D ||
          t == CL_MEM_OBJECT_IMAGE2D_ARRAY || t == CL_MEM_OBJECT_IMAGE1D ||
          t == CL_MEM_OBJECT_IMAGE1D_ARRAY || t == CL_MEM_OBJECT_IMAGE1D_BUFFER;
}

/* Whether the image's storage has slices (3D and 2D arrays). */
static inline bool kiln_image_type_has_slices(cl_mem_object_type t)
{
   return t == CL_MEM_OBJECT_IMAGE3D || t == CL_MEM_OBJECT_IMAGE2D_ARRAY;
}

static inline bool kiln_mem_is_image(cl_mem m)
{
   return kiln_mem_type_is_image(m->type);
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
