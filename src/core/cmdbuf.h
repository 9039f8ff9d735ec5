/* Command buffers (cl_khr_command_buffer): commands recorded once against
 * one queue, finalized, then replayed by clEnqueueCommandBufferKHR.
 *
 * Everything an enqueue would check or build per command is done at
 * record or finalize time: kernel arguments are packed into a launch
 * (core/ndrange.h) with their bindings, buffers and kernels are held, and
 * image fill colours are expanded into a row.  An enqueue of a finalized
 * buffer is then one event on the queue whose run walks the array and
 * calls the pipe: no validation and no allocation per command.  What is
 * recorded are memory objects, not addresses: each replay finds the
 * object's storage on the replaying device (core/mem_sync.h), which may
 * have moved since.
 *
 * Image copies are byte rectangles (KILN_CB_COPY_RECT) over the images'
 * pixel layouts, resolved at record time like the enqueued ones.
 *
 * Sync points are the 1-based positions of commands.  A command may only
 * wait for commands recorded before it, so record order is a valid
 * execution order: the replay runs the commands in that order on the
 * device's executor, which honours every sync point (and every barrier)
 * by construction.
 */
#ifndef KILN_CORE_CMDBUF_H
#define KILN_CORE_CMDBUF_H

#include <pthread.h>

#include "core/command.h"
#include "core/image_fill.h"
#include "core/object.h"
#include "core/queue.h"
#include "kiln/cl_command_buffer.h"

struct kiln_launch;
struct pipe_resource;

enum kiln_cb_kind {
   KILN_CB_BARRIER,
   KILN_CB_COPY,
   KILN_CB_COPY_RECT,
   KILN_CB_FILL,
   KILN_CB_NDRANGE,
   KILN_CB_FILL_IMAGE,
   KILN_CB_SVM_COPY, /* host addresses: devices with SVM only */
   KILN_CB_SVM_FILL, /* u.fill with offset the destination's address */
};

/* One recorded command.  The buffers in mem[] are held (internal
 * references) until the command buffer is destroyed. */
struct kiln_cb_command {
   enum kiln_cb_kind kind;
   cl_mem mem[2];
   union {
      struct {
         size_t src_offset, dst_offset, size;
      } copy;
      struct {
         struct kiln_rect s, d;
         size_t region[3];
      } rect;
      struct {
         size_t offset, size, pattern_size;
         unsigned char pattern[128];
      } fill;
      struct {
         void *dst;
         const void *src;
         size_t size;
      } svm_copy;
      struct kiln_launch *launch;
      /* A fill colour converted to one pixel at record time
       * (core/image_fill.h); finalize repeats it into one row. */
      struct {
         struct kiln_rect r;
         size_t bytes[3];
         unsigned char pixel[KILN_IMAGE_MAX_PIXEL];
         size_t pixel_size;
         unsigned char *row;
      } fill_image;
   } u;
};

/* Properties kept to answer CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR: at
 * most one (name, value) pair and the terminating 0. */
#define KILN_CB_MAX_PROPS 3

struct _cl_command_buffer_khr {
   struct kiln_object obj;
   cl_command_queue queue; /* held */
   cl_context context;
   cl_command_buffer_flags_khr flags;
   cl_command_buffer_properties_khr props[KILN_CB_MAX_PROPS];
   unsigned num_props; /* 0 when created with NULL properties */

   pthread_mutex_t lock;
   bool finalized;
   struct kiln_cb_command *cmds;
   unsigned num_cmds, cap_cmds;
};

static inline cl_command_buffer_khr kiln_cmdbuf_from(cl_command_buffer_khr cb)
{
   return (cl_command_buffer_khr)kiln_object_lookup(cb, KILN_TYPE_COMMAND_BUFFER);
}

cl_int kiln_cmdbuf_create(cl_command_queue q, cl_command_buffer_flags_khr flags,
                          const cl_command_buffer_properties_khr *props, unsigned num_props,
                          cl_command_buffer_khr *out);

/* Appends cmd (whose held buffers and launch it takes over, releasing
 * them on failure) after checking its sync point wait list.  Returns
 * CL_INVALID_OPERATION once finalized, CL_INVALID_SYNC_POINT_WAIT_LIST_KHR
 * for a sync point this buffer did not return. */
cl_int kiln_cmdbuf_record(cl_command_buffer_khr cb, struct kiln_cb_command *cmd,
                          cl_uint num_sync, const cl_sync_point_khr *sync_list,
                          cl_sync_point_khr *sync_point);

/* Releases what a command holds (for commands never recorded). */
void kiln_cmdbuf_command_drop(struct kiln_cb_command *cmd);

/* CL_INVALID_OPERATION if already finalized. */
cl_int kiln_cmdbuf_finalize(cl_command_buffer_khr cb);

/* One replay on q (the API layer checked q against the buffer):
 * CL_INVALID_OPERATION if not finalized.  Replays may overlap. */
cl_int kiln_cmdbuf_enqueue(cl_command_buffer_khr cb, cl_command_queue q,
                           struct kiln_wait_list wait, cl_event *out);

cl_command_buffer_state_khr kiln_cmdbuf_state(cl_command_buffer_khr cb);

#endif
