/* A CUDA pipe context: one stream per queue.  Every copy, fill and launch
 * is enqueued on the stream as it is recorded (CUDA submits as it goes),
 * and flush records an event behind it for the fence.  Errors found while
 * recording are kept and fail the next fence. */
#include <string.h>

#include "pipe/cuda/cuda_priv.h"
#include "pipe/pipe_util.h"
#include "util/alloc.h"
#include "util/log.h"

/* Staging buffers up to this size stay with the context for the next
 * transfer_map (pinning memory costs far more than a copy). */
#define STAGING_KEEP (64u << 20)
#define STAGING_MIN (64u << 10)

struct pipe_transfer {
   struct cuda_resource *res;
   size_t offset, size;
   unsigned flags;
   void *staging; /* NULL for user memory, mapped in place */
   size_t staging_size;
   bool cached; /* staging is the context's kept buffer */
};

void cuda_context_error(struct cuda_context *c, cl_int err)
{
   if (err && !c->error)
      c->error = err;
}

void cuda_context_begin_work(struct cuda_context *c)
{
   c->recorded = true;
   c->unfenced = true;
   if (c->start || !c->base.timed)
      return;
   CUevent e;
   cl_int err = cuda_screen_get_event(c->screen, true, &e);
   if (!err) {
      err = cuda_ws_event_record(c->screen->ws, e, c->stream);
      if (err)
         cuda_screen_put_event(c->screen, true, e);
      else
         c->start = e;
   }
   /* A fence without a start time still fences: only its profiling times
    * are lost, so this is no error of the work. */
   if (err)
      kiln_log(KILN_LOG_PIPE, "cuda: no start event for a fence");
}

static void ctx_destroy(struct pipe_context *ctx)
{
   struct cuda_context *c = cuda_context(ctx);
   struct cuda_winsys *ws = c->screen->ws;
   /* The staging buffer may be read by no copy any more (map and unmap
    * wait for theirs); the stream's other work finishes on its own. */
   if (c->staging)
      cuda_ws_host_free(ws, c->staging);
   if (c->printf_jobs) {
      /* Launches no fence covers (core flushes with a fence before it
       * destroys a queue, so this is a flush that could not make one):
       * their output still prints, once they are done. */
      cl_int err = cuda_ws_stream_sync(ws, c->stream);
      cuda_printf_finish(c->screen, cuda_printf_take(c), !err);
   }
   cuda_screen_put_event(c->screen, true, c->start);
   cuda_ws_stream_destroy(ws, c->stream);
   kiln_free(c);
}

/* ---- copies ---- */

static void buffer_write(struct pipe_context *ctx, struct pipe_resource *dst, size_t offset,
                         size_t size, const void *src)
{
   struct cuda_context *c = cuda_context(ctx);
   if (!size)
      return;
   cuda_resource_written(dst);
   cuda_context_begin_work(c);
   pthread_rwlock_rdlock(&c->screen->host_lock);
   cuda_context_error(c, cuda_ws_copy_htod(c->screen->ws, c->stream,
                                           cuda_resource(dst)->ptr + offset, src, size));
   pthread_rwlock_unlock(&c->screen->host_lock);
}

/* Reads up to this size go through the context's pinned staging buffer
 * (buffer_read). */
#define STAGED_READ_MAX (256u << 10)

static bool read_staged(struct cuda_context *c, CUdeviceptr src, size_t size, void *dst);

static void buffer_read(struct pipe_context *ctx, struct pipe_resource *src, size_t offset,
                        size_t size, void *dst)
{
   struct cuda_context *c = cuda_context(ctx);
   if (!size)
      return;
   cuda_context_begin_work(c);
   CUdeviceptr from = cuda_resource(src)->ptr + offset;
   if (size <= STAGED_READ_MAX && read_staged(c, from, size, dst))
      return;
   pthread_rwlock_rdlock(&c->screen->host_lock);
   cuda_context_error(c, cuda_ws_copy_dtoh(c->screen->ws, c->stream, dst, from, size));
   pthread_rwlock_unlock(&c->screen->host_lock);
}
static void resource_copy_region(struct pipe_context *ctx, struct pipe_resource *dst,
                                 size_t dst_offset, struct pipe_resource *src, size_t src_offset,
                                 size_t size)
{
   struct cuda_context *c = cuda_context(ctx);
   if (!size)
      return;
   cuda_resource_written(dst);
   cuda_context_begin_work(c);
   cuda_context_error(c, cuda_ws_copy_dtod(c->screen->ws, c->stream,
                                           cuda_resource(dst)->ptr + dst_offset,
                                           cuda_resource(src)->ptr + src_offset, size));
}

/* ---- rectangles ---- */

/* One side of a rectangle copy: device memory or host memory. */
struct rect_side {
   CUdeviceptr dev; /* 0 for the host side */
   const void *host;
   const struct pipe_rect *r;
};

/* The pitches CUDA takes for a side: false when they do not fit its
 * model (rows narrower than the region, slices not a whole number of
 * rows: then one call per slice). */
static bool side_pitch(const struct rect_side *side, const size_t region[3], size_t max_pitch,
                       size_t *pitch, size_t *height)
{
   *pitch = region[1] == 1 && region[2] == 1 ? region[0] : side->r->row_pitch;
   if (*pitch < region[0] || *pitch > max_pitch)
      return false;
   *height = region[1];
   if (region[2] > 1) {
      if (side->r->slice_pitch % *pitch || side->r->slice_pitch / *pitch < region[1])
         return false;
      *height = side->r->slice_pitch / *pitch;
   }
   return true;
}

static void side_at(CUDA_MEMCPY3D *m, bool src, const struct rect_side *side, size_t slice,
                    size_t pitch, size_t height)
{
   size_t at = side->r->offset + slice * side->r->slice_pitch;
   if (src) {
      m->srcMemoryType = side->host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
      m->srcHost = side->host ? (const char *)side->host + at : NULL;
      m->srcDevice = side->host ? 0 : side->dev + at;
      m->srcPitch = pitch;
      m->srcHeight = height;
   } else {
      m->dstMemoryType = side->host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
      m->dstHost = side->host ? (char *)side->host + at : NULL;
      m->dstDevice = side->host ? 0 : side->dev + at;
      m->dstPitch = pitch;
      m->dstHeight = height;
   }
}

/* One cuMemcpy3DAsync for the whole region, or one per slice; false when
 * CUDA cannot take these pitches (the caller copies row by row). */
static bool copy_rect(struct cuda_context *c, const struct rect_side *dst,
                      const struct rect_side *src, const size_t region[3])
{
   size_t max_pitch = c->screen->max_pitch;
   size_t dpitch, dheight, spitch, sheight;
   bool dwhole = side_pitch(dst, region, max_pitch, &dpitch, &dheight);
   bool swhole = side_pitch(src, region, max_pitch, &spitch, &sheight);
   /* Per slice, only the row pitches must fit. */
   size_t one[3] = {region[0], region[1], 1};
   if (!(dwhole && swhole) &&
       (!side_pitch(dst, one, max_pitch, &dpitch, &dheight) ||
        !side_pitch(src, one, max_pitch, &spitch, &sheight)))
      return false;
   size_t slices = dwhole && swhole ? 1 : region[2];
   cuda_context_begin_work(c);
   bool host = dst->host || src->host;
   if (host)
      pthread_rwlock_rdlock(&c->screen->host_lock);
   for (size_t z = 0; z < slices; z++) {
      CUDA_MEMCPY3D m;
      memset(&m, 0, sizeof(m));
      side_at(&m, true, src, z, spitch, sheight);
      side_at(&m, false, dst, z, dpitch, dheight);
      m.WidthInBytes = region[0];
      m.Height = region[1];
      m.Depth = slices == 1 ? region[2] : 1;
      cl_int err = cuda_ws_copy_3d(c->screen->ws, c->stream, &m);
      if (err) {
         /* A refusal of the geometry (the first slice, nothing copied
          * yet): rows will do.  A lost device: fail the fence. */
         if (host)
            pthread_rwlock_unlock(&c->screen->host_lock);
         if (z == 0 && !cuda_winsys_lost(c->screen->ws))
            return false;
         cuda_context_error(c, err);
         return true;
      }
   }
   if (host)
      pthread_rwlock_unlock(&c->screen->host_lock);
   return true;
}

static bool empty(const size_t region[3])
{
   return !region[0] || !region[1] || !region[2];
}

static void buffer_write_rect(struct pipe_context *ctx, struct pipe_resource *dst,
                              const struct pipe_rect *d, const void *host,
                              const struct pipe_rect *h, const size_t region[3])
{
   if (empty(region))
      return;
   cuda_resource_written(dst);
   struct rect_side ds = {cuda_resource(dst)->ptr, NULL, d}, hs = {0, host, h};
   if (!copy_rect(cuda_context(ctx), &ds, &hs, region))
      pipe_util_buffer_write_rect(ctx, dst, d, host, h, region);
}

static void buffer_read_rect(struct pipe_context *ctx, struct pipe_resource *src,
                             const struct pipe_rect *s, void *host, const struct pipe_rect *h,
                             const size_t region[3])
{
   if (empty(region))
      return;
   struct rect_side ss = {cuda_resource(src)->ptr, NULL, s}, hs = {0, host, h};
   if (!copy_rect(cuda_context(ctx), &hs, &ss, region))
      pipe_util_buffer_read_rect(ctx, src, s, host, h, region);
}

static void resource_copy_rect(struct pipe_context *ctx, struct pipe_resource *dst,
                               const struct pipe_rect *d, struct pipe_resource *src,
                               const struct pipe_rect *s, const size_t region[3])
{
   if (empty(region))
      return;
   cuda_resource_written(dst);
   struct rect_side ds = {cuda_resource(dst)->ptr, NULL, d};
   struct rect_side ss = {cuda_resource(src)->ptr, NULL, s};
   if (!copy_rect(cuda_context(ctx), &ds, &ss, region))
      pipe_util_resource_copy_rect(ctx, dst, d, src, s, region);
}

/* ---- fills ---- */

/* A pattern made of two equal halves is the half repeated: 16 zero bytes
 * are one zero byte, which cuMemsetD8Async writes at full speed. */
static size_t shortest_pattern(const unsigned char *p, size_t size)
{
   while (size > 1 && !memcmp(p, p + size / 2, size / 2))
      size /= 2;
   return size;
}

static void clear_buffer(struct pipe_context *ctx, struct pipe_resource *res, size_t offset,
                         size_t size, const void *pattern, size_t pattern_size)
{
   struct cuda_context *c = cuda_context(ctx);
   struct cuda_winsys *ws = c->screen->ws;
   if (!size || !pattern_size)
      return;
   cuda_resource_written(res);
   CUdeviceptr dst = cuda_resource(res)->ptr + offset;
   const unsigned char *p = pattern;
   size_t n = shortest_pattern(p, pattern_size);
   cuda_context_begin_work(c);
   uint32_t v = 0;
   if (n <= 4) {
      memcpy(&v, p, n);
      cuda_context_error(c, cuda_ws_memset(ws, c->stream, dst, (unsigned)n, v, size / n));
      return;
   }
   /* 8 to 128 bytes: CUDA has no such memset and a fill kernel needs PTX
    * Kiln does not ship.  Write the pattern once with 32-bit memsets (no
    * host memory that must outlive the call), then double the filled
    * part with device-to-device copies: log2(size / n) copies. */
   cl_int err = CL_SUCCESS;
   for (size_t i = 0; i < n && !err; i += 4) {
      memcpy(&v, p + i, 4);
      err = cuda_ws_memset(ws, c->stream, dst + i, 4, v, 1);
   }
   for (size_t done = n; done < size && !err;) {
      size_t step = done < size - done ? done : size - done;
      err = cuda_ws_copy_dtod(ws, c->stream, dst + done, dst, step);
      done += step;
   }
   cuda_context_error(c, err);
}

/* ---- flush ---- */

/* A fence for work fenced already: NULL once the stream is idle, else an
 * event behind it (no start: this flush's own work took no device
 * time). */
static void flush_idle(struct cuda_context *c, struct pipe_fence **fence)
{
   struct cuda_screen *s = c->screen;
   CUevent e;
   cl_int err = cuda_screen_get_event(s, false, &e);
   if (!err) {
      err = cuda_ws_event_record(s->ws, e, c->stream);
      if (err) {
         cuda_screen_put_event(s, false, e);
         e = NULL;
      }
   }
   int state = err ? err : cuda_ws_event_query(s->ws, e);
   if (state == CL_SUCCESS) {
      c->recorded = false; /* idle: until the next work, nothing to fence */
      cuda_screen_put_event(s, false, e);
      cuda_printf_finish(s, cuda_printf_take(c), true);
      return;
   }
   struct pipe_fence *f = kiln_calloc(1, sizeof(*f));
   if (!f) {
      cl_int sync = cuda_ws_stream_sync(s->ws, c->stream);
      cuda_screen_put_event(s, false, e);
      cuda_printf_finish(s, cuda_printf_take(c), !sync);
      return;
   }
   f->printf_jobs = cuda_printf_take(c);
   if (state < 0) {
      /* The device failed: say so without an event to wait on. */
      cuda_screen_put_event(s, false, e);
      e = NULL;
   }
   f->end = e;
   atomic_init(&f->state, state < 0 ? state : PIPE_FENCE_BUSY);
   *fence = f;
}

static void flush(struct pipe_context *ctx, struct pipe_fence **fence)
{
   struct cuda_context *c = cuda_context(ctx);
   struct cuda_screen *s = c->screen;
   /* CUDA has the work already; a flush without a fence leaves the start
    * event in place for the next fence to cover this work too. */
   if (!fence)
      return;
   *fence = NULL;
   if (!c->unfenced && !c->error) {
      /* Nothing recorded since the last fence, but the work before it may
       * still run, and core orders the queue's next command (a map of
       * host-visible memory, say) behind this fence. */
      if (c->recorded)
         flush_idle(c, fence);
      return;
   }
   struct pipe_fence *f = kiln_calloc(1, sizeof(*f));
   if (!f) {
      /* No fence to hand back: complete the work here instead. */
      cl_int sync = cuda_ws_stream_sync(s->ws, c->stream);
      cuda_printf_finish(s, cuda_printf_take(c), !sync && !c->error);
      return;
   }
   f->printf_jobs = cuda_printf_take(c);
   f->start = c->start;
   f->record_error = c->error;
   c->start = NULL;
   c->unfenced = false;
   c->error = CL_SUCCESS;
   /* The end event needs timing only where the fence has times. */
   f->timed_end = f->start != NULL;
   cl_int err = cuda_screen_get_event(s, f->timed_end, &f->end);
   if (!err) {
      err = cuda_ws_event_record(s->ws, f->end, c->stream);
      if (err) {
         cuda_screen_put_event(s, f->timed_end, f->end);
         f->end = NULL;
      }
   }
   if (f->end) {
      atomic_init(&f->state, PIPE_FENCE_BUSY);
   } else {
      /* No event to wait on: wait here, and report how the work went. */
      cl_int sync = cuda_ws_stream_sync(s->ws, c->stream);
      cuda_printf_fence_done(s, f, f->record_error ? f->record_error
                                   : sync          ? sync
                                                   : PIPE_FENCE_SIGNALLED);
   }
   *fence = f;
}

/* pipe_context::finish: a stream synchronize instead of an event
 * recorded and waited for (docs/performance.md, "clFinish and blocking
 * reads without a CUDA event").  A context with a start event (device
 * times) or a failure keeps them for its next fence. */
static void finish(struct pipe_context *ctx)
{
   struct cuda_context *c = cuda_context(ctx);
   if (c->start || c->error || (!c->unfenced && !c->recorded))
      return;
   if (cuda_ws_stream_sync(c->screen->ws, c->stream))
      return; /* the fence the next flush makes reports it */
   c->unfenced = false;
   c->recorded = false;
   cuda_printf_finish(c->screen, cuda_printf_take(c), true);
}

/* ---- host access ---- */

static void *take_staging(struct cuda_context *c, size_t size, size_t *got, bool *cached)
{
   if (!c->staging_busy && c->staging && c->staging_size >= size) {
      c->staging_busy = true;
      *cached = true;
      *got = c->staging_size;
      return c->staging;
   }
   size_t want = size < STAGING_MIN ? STAGING_MIN : size;
   void *p;
   if (cuda_ws_host_alloc(c->screen->ws, want, &p))
      return NULL;
   *cached = false;
   *got = want;
   return p;
}

static void release_staging(struct cuda_context *c, struct pipe_transfer *t)
{
   if (t->cached) {
      c->staging_busy = false;
      return;
   }
   if (t->staging_size <= STAGING_KEEP && !c->staging_busy) {
      if (c->staging)
         cuda_ws_host_free(c->screen->ws, c->staging);
      c->staging = t->staging;
      c->staging_size = t->staging_size;
      return;
   }
   cuda_ws_host_free(c->screen->ws, t->staging);
}

/* A small read: CUDA copies to pageable memory through its own staging
 * and returns only when done, which on an H200 cost 14.4 us for a launch
 * and 16 KiB against 13.0 us through a pinned buffer, a stream
 * synchronize and a memcpy (cuda_device_smoke bench; docs/performance.md).
 * Either way the read waits for the work before it, so once it is done
 * so is everything this context recorded: the next flush needs no fence
 * (no event to record and wait for) unless the fence must carry device
 * times or an error.  false when the staging buffer is out of reach (in
 * use by a map, or no pinned memory): the caller reads directly. */
static bool read_staged(struct cuda_context *c, CUdeviceptr src, size_t size, void *dst)
{
   size_t got;
   bool cached;
   void *staging = c->staging_busy ? NULL : take_staging(c, size, &got, &cached);
   if (!staging)
      return false;
   struct cuda_winsys *ws = c->screen->ws;
   cl_int err = cuda_ws_copy_dtoh(ws, c->stream, staging, src, size);
   if (!err)
      err = cuda_ws_stream_sync(ws, c->stream);
   if (!err)
      memcpy(dst, staging, size);
   struct pipe_transfer t = {.staging = staging, .staging_size = got, .cached = cached};
   release_staging(c, &t);
   cuda_context_error(c, err);
   if (!err && !c->error && !c->start) {
      c->unfenced = false;
      c->recorded = false;
      cuda_printf_finish(c->screen, cuda_printf_take(c), true);
   }
   return true;
}

static void *transfer_map(struct pipe_context *ctx, struct pipe_resource *res, size_t offset,
                          size_t size, unsigned flags, struct pipe_transfer **transfer)
{
   struct cuda_context *c = cuda_context(ctx);
   struct cuda_winsys *ws = c->screen->ws;
   struct cuda_resource *r = cuda_resource(res);
   struct pipe_transfer *t = kiln_calloc(1, sizeof(*t));
   if (!t)
      return NULL;
   t->res = r;
   t->offset = offset;
   t->size = size;
   t->flags = flags;
   if (r->host) {
      /* The host's own pages: wait for the work that uses them. */
      cuda_context_error(c, cuda_ws_stream_sync(ws, c->stream));
      *transfer = t;
      return (char *)r->host + offset;
   }
   t->staging = take_staging(c, size, &t->staging_size, &t->cached);
   if (!t->staging) {
      kiln_free(t);
      return NULL;
   }
   /* Whatever the host does not overwrite whole goes back at unmap as it
    * was read: only DISCARD lets the old bytes go. */
   if ((flags & PIPE_MAP_READ) || !(flags & PIPE_MAP_DISCARD)) {
      cuda_context_begin_work(c);
      cuda_context_error(c, cuda_ws_copy_dtoh(ws, c->stream, t->staging, r->ptr + offset, size));
   }
   cuda_context_error(c, cuda_ws_stream_sync(ws, c->stream));
   *transfer = t;
   return t->staging;
}

static void transfer_unmap(struct pipe_context *ctx, struct pipe_transfer *t)
{
   struct cuda_context *c = cuda_context(ctx);
   struct cuda_winsys *ws = c->screen->ws;
   if (!t)
      return;
   if (t->staging) {
      if (t->flags & PIPE_MAP_WRITE) {
         cuda_resource_written(&t->res->base);
         cuda_context_begin_work(c);
         cuda_context_error(c, cuda_ws_copy_htod(ws, c->stream, t->res->ptr + t->offset,
                                                 t->staging, t->size));
         /* The copy reads the staging buffer, which is reused or freed
          * next: it must be done first. */
         cuda_context_error(c, cuda_ws_stream_sync(ws, c->stream));
      }
      release_staging(c, t);
   }
   kiln_free(t);
}

struct pipe_context *cuda_context_create(struct pipe_screen *screen)
{
   struct cuda_screen *s = cuda_screen(screen);
   struct cuda_context *c = kiln_calloc(1, sizeof(*c));
   if (!c)
      return NULL;
   if (cuda_ws_stream_create(s->ws, &c->stream)) {
      kiln_free(c);
      return NULL;
   }
   c->screen = s;
   c->base.screen = screen;
   c->base.timed = true; /* until core says otherwise */
   c->base.destroy = ctx_destroy;
   c->base.buffer_write = buffer_write;
   c->base.buffer_read = buffer_read;
   c->base.resource_copy_region = resource_copy_region;
   c->base.buffer_write_rect = buffer_write_rect;
   c->base.buffer_read_rect = buffer_read_rect;
   c->base.resource_copy_rect = resource_copy_rect;
   c->base.clear_buffer = clear_buffer;
   c->base.launch_grid = cuda_launch_grid;
   c->base.flush = flush;
   c->base.finish = finish;
   c->base.transfer_map = transfer_map;
   c->base.transfer_unmap = transfer_unmap;
   return &c->base;
}
