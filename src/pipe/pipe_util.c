#include "pipe/pipe_util.h"

void pipe_util_buffer_write_rect(struct pipe_context *ctx, struct pipe_resource *dst,
                                 const struct pipe_rect *d, const void *host,
                                 const struct pipe_rect *h, const size_t region[3])
{
   for (size_t z = 0; z < region[2]; z++)
      for (size_t y = 0; y < region[1]; y++)
         ctx->buffer_write(ctx, dst, pipe_rect_at(d, y, z), region[0],
                           (const char *)host + pipe_rect_at(h, y, z));
}

void pipe_util_buffer_read_rect(struct pipe_context *ctx, struct pipe_resource *src,
                                const struct pipe_rect *s, void *host, const struct pipe_rect *h,
                                const size_t region[3])
{
   for (size_t z = 0; z < region[2]; z++)
      for (size_t y = 0; y < region[1]; y++)
         ctx->buffer_read(ctx, src, pipe_rect_at(s, y, z), region[0],
                          (char *)host + pipe_rect_at(h, y, z));
}

void pipe_util_resource_copy_rect(struct pipe_context *ctx, struct pipe_resource *dst,
                                  const struct pipe_rect *d, struct pipe_resource *src,
                                  const struct pipe_rect *s, const size_t region[3])
{
   for (size_t z = 0; z < region[2]; z++)
      for (size_t y = 0; y < region[1]; y++)
         ctx->resource_copy_region(ctx, dst, pipe_rect_at(d, y, z), src, pipe_rect_at(s, y, z),
                                   region[0]);
}
