/* The commands of 1.1 memory transfers and synchronisation, as events.
 * Each enqueue* builds a command event in state CL_QUEUED with the
 * queue's ordering and the given wait list, and returns it (held by the
 * caller once) without waiting. */
#ifndef KILN_CORE_COMMAND_H
#define KILN_CORE_COMMAND_H

#include "core/object.h"
#include "core/queue.h"
#include "pipe/pipe.h"

/* A rectangle of bytes in a 3D layout: origin (x in bytes, y rows, z
 * slices), row and slice pitches in bytes. */
struct kiln_rect {
   size_t origin[3];
   size_t row_pitch, slice_pitch;
};

/* The same rectangle as the pipe sees it: absolute in a resource whose
 * object starts at base (0 for host memory). */
static inline struct pipe_rect kiln_pipe_rect(const struct kiln_rect *r, size_t base)
{
   return (struct pipe_rect){base + r->origin[0] + r->origin[1] * r->row_pitch +
                                r->origin[2] * r->slice_pitch,
                             r->row_pitch, r->slice_pitch};
}

struct kiln_command_ops;
/* Makes payload a command of q: creates its event, orders it after the
 * queue's earlier commands and the wait list, and submits it.  On failure
 * ops->cleanup has already released payload. */
cl_int kiln_enqueue_command(cl_command_queue q, cl_command_type type,
                            const struct kiln_command_ops *ops, void *payload,
                            enum kiln_queue_order order, struct kiln_wait_list wait,
                            cl_event *out);

cl_int kiln_enqueue_rw_buffer(cl_command_queue q, cl_mem mem, bool write, size_t offset,
                              size_t size, void *ptr, struct kiln_wait_list wait, cl_event *ev);
cl_int kiln_enqueue_rw_buffer_rect(cl_command_queue q, cl_mem mem, bool write,
                                   const struct kiln_rect *buf, const struct kiln_rect *host,
                                   const size_t region[3], void *ptr,
                                   struct kiln_wait_list wait, cl_event *ev);
cl_int kiln_enqueue_copy_buffer(cl_command_queue q, cl_mem src, cl_mem dst, size_t src_offset,
                                size_t dst_offset, size_t size, struct kiln_wait_list wait,
                                cl_event *ev);
cl_int kiln_enqueue_fill_buffer(cl_command_queue q, cl_mem mem, const void *pattern,
                                size_t pattern_size, size_t offset, size_t size,
                                struct kiln_wait_list wait, cl_event *ev);
cl_int kiln_enqueue_copy_buffer_rect(cl_command_queue q, cl_mem src, cl_mem dst,
                                     const struct kiln_rect *s, const struct kiln_rect *d,
                                     const size_t region[3], struct kiln_wait_list wait,
                                     cl_event *ev);
cl_int kiln_enqueue_map_buffer(cl_command_queue q, cl_mem mem, cl_map_flags flags,
                               size_t offset, size_t size, struct kiln_wait_list wait,
                               cl_event *ev, void **ptr);
cl_int kiln_enqueue_unmap(cl_command_queue q, cl_mem mem, void *ptr,
                          struct kiln_wait_list wait, cl_event *ev);
/* The same commands under another command type: images are linear in
 * their resource, so image reads, writes, copies and maps are these
 * rectangle transfers with the image's pitches (x in bytes). */
cl_int kiln_enqueue_rw_rect(cl_command_queue q, cl_command_type type, cl_mem mem, bool write,
                            const struct kiln_rect *buf, const struct kiln_rect *host,
                            const size_t region[3], void *ptr, struct kiln_wait_list wait,
                            cl_event *ev);
cl_int kiln_enqueue_copy_rect(cl_command_queue q, cl_command_type type, cl_mem src, cl_mem dst,
                              const struct kiln_rect *s, const struct kiln_rect *d,
                              const size_t region[3], struct kiln_wait_list wait,
                              cl_event *ev);
cl_int kiln_enqueue_map(cl_command_queue q, cl_command_type type, cl_mem mem,
                        cl_map_flags flags, size_t offset, size_t size,
                        struct kiln_wait_list wait, cl_event *ev, void **ptr);
/* Markers, barriers and clEnqueueWaitForEvents: commands that do nothing
 * but order. */
cl_int kiln_enqueue_sync(cl_command_queue q, cl_command_type type, enum kiln_queue_order order,
                         struct kiln_wait_list wait, cl_event *ev);

/* Whether two rectangles of one buffer share a byte. */
bool kiln_rect_overlap(const struct kiln_rect *a, const struct kiln_rect *b,
                       const size_t region[3]);

#endif
