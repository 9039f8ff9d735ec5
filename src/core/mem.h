/* Memory objects (buffers, sub-buffers, images).
 *
 * A root memory object (a buffer, or an image that is not a 1D image
 * buffer) has storage per device of its context: one pipe_resource per
 * screen that used it (sub-devices share their parent's screen and so
 * its storage), created on the context's first device when the object is
 * made and lazily on the others, the way clover's root_buffer::resource_in
 * and PoCL's device_ptrs do.  Each storage records whether it holds the
 * current bytes; a command that runs on a device whose copy is stale
 * migrates the bytes there first (core/mem_sync.c), and a command that
 * writes makes every other copy stale.  With CL_MEM_USE_HOST_PTR the
 * application's memory is one more copy: a device that imports it
 * (resource_from_user_memory) shares it; otherwise the device has its own
 * copy, synchronised with host_ptr at first use, at map and at unmap.
 * Sub-buffers and 1D image buffers own no storage: they are windows
 * (offset, size) onto their root's.
 */
#ifndef KILN_CORE_MEM_H
#define KILN_CORE_MEM_H

#include <pthread.h>

#include "core/object.h"
#include "core/props.h"
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
   /* Where the device's memory is not host-visible (and the object is not
    * the application's memory): a host copy of the mapped range that the
    * map command fills and the unmap command writes back; ptr points
    * into it.  NULL otherwise. */
   void *staging;
   struct kiln_mapping *next;
};

/* One device's copy of a root memory object (see the top). */
struct kiln_mem_storage {
   struct pipe_resource *res; /* NULL until a device of this screen uses it */
   bool valid;                /* holds the object's current bytes */
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

   cl_mem parent; /* sub-buffers and 1D image buffers: the object they view */
   cl_mem root;   /* the object owning the storage (itself for a root) */
   size_t offset; /* of the first byte in the root */

   /* Roots only, under lock: one per device of the context, indexed like
    * context->devices (a sub-device uses its screen's first device's). */
   struct kiln_mem_storage *store;
   bool host_valid; /* USE_HOST_PTR: host_ptr holds the current bytes */

   pthread_mutex_t lock;
   unsigned map_count;
   struct kiln_mapping *mappings;
   struct kiln_mem_callback *callbacks; /* most recent first */
   uint64_t serial; /* unique per object: tells a reused handle from this one */
   /* clCreate{Buffer,Image}WithProperties' list (CL_MEM_PROPERTIES). */
   struct kiln_props props;

   /* Pipes (CL_MEM_OBJECT_PIPE): a buffer laid out as
    * include/kiln/pipe_layout.h says; clGetPipeInfo's values. */
   struct {
      cl_uint packet_size, max_packets;
   } pipe;

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

/* A pipe of max_packets packets of packet_size bytes (both non-zero):
 * a buffer of the size include/kiln/pipe_layout.h gives, its header
 * written (empty pipe).  CL_INVALID_BUFFER_SIZE where that size does not
 * fit in size_t. */
cl_int kiln_mem_create_pipe(cl_context ctx, cl_mem_flags flags, cl_uint packet_size,
                            cl_uint max_packets, cl_mem *out);
/* The bytes a pipe of that shape takes, 0 if they overflow a size_t. */
size_t kiln_mem_pipe_size(cl_uint packet_size, cl_uint max_packets);

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

/* Buffer and sub-buffer relation: the same memory as b somewhere? */
static inline bool kiln_mem_same_storage(cl_mem a, cl_mem b)
{
   return a->root == b->root;
}

cl_int kiln_mem_add_destructor_callback(cl_mem mem, void(CL_CALLBACK *fn)(cl_mem, void *),
                                        void *user_data);

/* Maps [offset, offset+size) of mem for a command on dev; returns the
 * host pointer the application sees (the application's memory for
 * USE_HOST_PTR, the device's memory where the host sees it, else a
 * staging copy) and the mapping, whose data is valid once the map command
 * completed (core/mem_sync.h moves it). */
cl_int kiln_mem_map(cl_mem mem, cl_device_id dev, size_t offset, size_t size,
                    cl_map_flags flags, struct kiln_mapping **out);
/* Forgets the mapping at ptr; CL_INVALID_VALUE if mem has none there. */
cl_int kiln_mem_unmap(cl_mem mem, void *ptr);
void kiln_mapping_free(struct kiln_mapping *m);
/* The same in two steps, for an unmap command that may yet fail to be
 * enqueued: takes the mapping at ptr out of mem's list (NULL if none),
 * and puts it back.  A taken mapping is freed with kiln_mapping_free. */
struct kiln_mapping *kiln_mem_take_mapping(cl_mem mem, void *ptr);
void kiln_mem_restore_mapping(cl_mem mem, struct kiln_mapping *m);
/* Whether ptr is a live mapping of mem (checked at enqueue time). */
bool kiln_mem_is_mapped(cl_mem mem, void *ptr);

#endif
