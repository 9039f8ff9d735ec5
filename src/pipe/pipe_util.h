/* Generic implementations of pipe_context slots for drivers that have no
 * better way: rectangle transfers as one 1D call per row. */
#ifndef KILN_PIPE_UTIL_H
#define KILN_PIPE_UTIL_H

#include "pipe/pipe.h"

void pipe_util_buffer_write_rect(struct pipe_context *ctx, struct pipe_resource *dst,
                                 const struct pipe_rect *d, const void *host,
                                 const struct pipe_rect *h, const size_t region[3]);
void pipe_util_buffer_read_rect(struct pipe_context *ctx, struct pipe_resource *src,
                                const struct pipe_rect *s, void *host, const struct pipe_rect *h,
                                const size_t region[3]);
void pipe_util_resource_copy_rect(struct pipe_context *ctx, struct pipe_resource *dst,
                                  const struct pipe_rect *d, struct pipe_resource *src,
                                  const struct pipe_rect *s, const size_t region[3]);

/* Byte offset of row y, slice z of a rectangle. */
static inline size_t pipe_rect_at(const struct pipe_rect *r, size_t y, size_t z)
{
   return r->offset + y * r->row_pitch + z * r->slice_pitch;
}

#endif
