#include "core/command.h"

#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/event.h"
#include "core/mem.h"
#include "core/mem_sync.h"
#include "util/alloc.h"

struct cmd {
   cl_mem mem[2]; /* referenced until the command completes */
   union {
      struct {
         size_t offset, size;
         void *ptr;
         bool write;
      } rw;
      struct {
         size_t src_offset, dst_offset, size;
      } copy;
      struct {
         size_t offset, size, pattern_size;
         unsigned char pattern[128]; /* the largest OpenCL type: double16 */
      } fill;
      struct {
         struct kiln_rect a, b; /* buffer and host, or source and destination */
         size_t region[3];
         void *ptr;
         bool write;
      } rect;
      /* Map: a copy of the mapping (the application may unmap it before
       * this runs).  Unmap: the mapping itself, taken out of the object's
       * list and freed with the command (its staging lives until the
       * write-back is done). */
      struct kiln_mapping map;
      struct kiln_mapping *unmap;
   } u;
   bool owns_unmap;
};

static void cmd_cleanup(cl_event ev)
{
   struct cmd *c = ev->payload;
   if (!c)
      return;
   for (int i = 0; i < 2; i++)
      if (c->mem[i])
         kiln_object_unref(&c->mem[i]->obj);
   if (c->owns_unmap)
      kiln_mapping_free(c->u.unmap);
   kiln_free(c);
   ev->payload = NULL;
}

static cl_int run_rw(cl_event ev)
{
   struct cmd *c = ev->payload;
   struct pipe_context *p = ev->queue->pipe;
   struct pipe_resource *res;
   size_t base;
   cl_int err = kiln_mem_acquire(c->mem[0], ev->queue->device, p,
                                 c->u.rw.write ? KILN_ACCESS_WRITE : KILN_ACCESS_READ, &res,
                                 &base);
   if (err)
      return err;
   if (c->u.rw.write)
      p->buffer_write(p, res, base + c->u.rw.offset, c->u.rw.size, c->u.rw.ptr);
   else
      p->buffer_read(p, res, base + c->u.rw.offset, c->u.rw.size, c->u.rw.ptr);
   return CL_SUCCESS;
}

static cl_int run_rw_rect(cl_event ev)
{
   struct cmd *c = ev->payload;
   struct pipe_context *p = ev->queue->pipe;
   struct pipe_resource *res;
   size_t base;
   cl_int err = kiln_mem_acquire(c->mem[0], ev->queue->device, p,
                                 c->u.rect.write ? KILN_ACCESS_WRITE : KILN_ACCESS_READ, &res,
                                 &base);
   if (err)
      return err;
   struct pipe_rect d = kiln_pipe_rect(&c->u.rect.a, base), h = kiln_pipe_rect(&c->u.rect.b, 0);
   if (c->u.rect.write)
      p->buffer_write_rect(p, res, &d, c->u.rect.ptr, &h, c->u.rect.region);
   else
      p->buffer_read_rect(p, res, &d, c->u.rect.ptr, &h, c->u.rect.region);
   return CL_SUCCESS;
}

/* Source and destination of a copy on the command's device. */
static cl_int acquire_pair(cl_event ev, struct cmd *c, struct pipe_resource **src, size_t *sbase,
                           struct pipe_resource **dst, size_t *dbase)
{
   cl_int err = kiln_mem_acquire(c->mem[0], ev->queue->device, ev->queue->pipe,
                                 KILN_ACCESS_READ, src, sbase);
   if (!err)
      err = kiln_mem_acquire(c->mem[1], ev->queue->device, ev->queue->pipe, KILN_ACCESS_WRITE,
                             dst, dbase);
   return err;
}

static cl_int run_copy(cl_event ev)
{
   struct cmd *c = ev->payload;
   struct pipe_context *p = ev->queue->pipe;
   struct pipe_resource *src, *dst;
   size_t sbase, dbase;
   cl_int err = acquire_pair(ev, c, &src, &sbase, &dst, &dbase);
   if (err)
      return err;
   p->resource_copy_region(p, dst, dbase + c->u.copy.dst_offset, src,
                           sbase + c->u.copy.src_offset, c->u.copy.size);
   return CL_SUCCESS;
}

static cl_int run_copy_rect(cl_event ev)
{
   struct cmd *c = ev->payload;
   struct pipe_context *p = ev->queue->pipe;
   struct pipe_resource *src, *dst;
   size_t sbase, dbase;
   cl_int err = acquire_pair(ev, c, &src, &sbase, &dst, &dbase);
   if (err)
      return err;
   struct pipe_rect s = kiln_pipe_rect(&c->u.rect.a, sbase), d = kiln_pipe_rect(&c->u.rect.b, dbase);
   p->resource_copy_rect(p, dst, &d, src, &s, c->u.rect.region);
   return CL_SUCCESS;
}

static cl_int run_fill(cl_event ev)
{
   struct cmd *c = ev->payload;
   struct pipe_context *p = ev->queue->pipe;
   struct pipe_resource *res;
   size_t base;
   cl_int err = kiln_mem_acquire(c->mem[0], ev->queue->device, p, KILN_ACCESS_WRITE, &res, &base);
   if (err)
      return err;
   p->clear_buffer(p, res, base + c->u.fill.offset, c->u.fill.size, c->u.fill.pattern,
                   c->u.fill.pattern_size);
   return CL_SUCCESS;
}

static cl_int run_map(cl_event ev)
{
   struct cmd *c = ev->payload;
   return kiln_mem_map_run(c->mem[0], &c->u.map, ev->queue->device, ev->queue->pipe);
}

static cl_int run_unmap(cl_event ev)
{
   struct cmd *c = ev->payload;
   return kiln_mem_unmap_run(c->mem[0], c->u.unmap, ev->queue->device, ev->queue->pipe);
}

static cl_int run_nothing(cl_event ev)
{
   (void)ev;
   return CL_SUCCESS;
}

/* KILN_TRACE: the bytes each command moves. */
static void describe_rw(cl_event ev, struct kiln_trace_info *info)
{
   info->bytes = ((struct cmd *)ev->payload)->u.rw.size;
}

static void describe_rect(cl_event ev, struct kiln_trace_info *info)
{
   const size_t *r = ((struct cmd *)ev->payload)->u.rect.region;
   info->bytes = (uint64_t)r[0] * r[1] * r[2];
}

static void describe_copy(cl_event ev, struct kiln_trace_info *info)
{
   info->bytes = ((struct cmd *)ev->payload)->u.copy.size;
}

static void describe_fill(cl_event ev, struct kiln_trace_info *info)
{
   info->bytes = ((struct cmd *)ev->payload)->u.fill.size;
}

static const struct kiln_command_ops ops_rw = {run_rw, cmd_cleanup, describe_rw};
static const struct kiln_command_ops ops_rw_rect = {run_rw_rect, cmd_cleanup, describe_rect};
static const struct kiln_command_ops ops_copy = {run_copy, cmd_cleanup, describe_copy};
static const struct kiln_command_ops ops_fill = {run_fill, cmd_cleanup, describe_fill};
static const struct kiln_command_ops ops_copy_rect = {run_copy_rect, cmd_cleanup,
                                                      describe_rect};
static const struct kiln_command_ops ops_map = {run_map, cmd_cleanup};
static const struct kiln_command_ops ops_unmap = {run_unmap, cmd_cleanup};
static const struct kiln_command_ops ops_sync = {run_nothing, cmd_cleanup};

static struct cmd *cmd_new(cl_mem a, cl_mem b)
{
   struct cmd *c = kiln_calloc(1, sizeof(*c));
   if (!c)
      return NULL;
   c->mem[0] = a;
   c->mem[1] = b;
   if (a)
      kiln_object_ref(&a->obj);
   if (b)
      kiln_object_ref(&b->obj);
   return c;
}

cl_int kiln_enqueue_command(cl_command_queue q, cl_command_type type,
                            const struct kiln_command_ops *ops, void *payload,
                            enum kiln_queue_order order, struct kiln_wait_list wait,
                            cl_event *out)
{
   cl_event ev;
   cl_int err = kiln_event_create_command(q, type, ops, payload, &ev);
   if (err) {
      struct _cl_event tmp = {.payload = payload};
      if (payload && ops->cleanup)
         ops->cleanup(&tmp);
      return err;
   }
   err = kiln_queue_add_command(q, ev, order, wait);
   if (err) {
      kiln_event_abandon(ev);
      return err;
   }
   kiln_event_submit(ev);
   *out = ev;
   return CL_SUCCESS;
}

static cl_int enqueue(cl_command_queue q, cl_command_type type,
                      const struct kiln_command_ops *ops, struct cmd *c,
                      enum kiln_queue_order order, struct kiln_wait_list wait, cl_event *out)
{
   return kiln_enqueue_command(q, type, ops, c, order, wait, out);
}

cl_int kiln_enqueue_rw_buffer(cl_command_queue q, cl_mem mem, bool write, size_t offset,
                              size_t size, void *ptr, struct kiln_wait_list wait, cl_event *ev)
{
   struct cmd *c = cmd_new(mem, NULL);
   if (!c)
      return CL_OUT_OF_HOST_MEMORY;
   c->u.rw.offset = offset;
   c->u.rw.size = size;
   c->u.rw.ptr = ptr;
   c->u.rw.write = write;
   return enqueue(q, write ? CL_COMMAND_WRITE_BUFFER : CL_COMMAND_READ_BUFFER, &ops_rw, c,
                  KILN_ORDER_COMMAND, wait, ev);
}

cl_int kiln_enqueue_rw_rect(cl_command_queue q, cl_command_type type, cl_mem mem, bool write,
                                   const struct kiln_rect *buf, const struct kiln_rect *host,
                                   const size_t region[3], void *ptr,
                                   struct kiln_wait_list wait, cl_event *ev)
{
   struct cmd *c = cmd_new(mem, NULL);
   if (!c)
      return CL_OUT_OF_HOST_MEMORY;
   c->u.rect.a = *buf;
   c->u.rect.b = *host;
   memcpy(c->u.rect.region, region, sizeof(c->u.rect.region));
   c->u.rect.ptr = ptr;
   c->u.rect.write = write;
   return enqueue(q, type, &ops_rw_rect, c, KILN_ORDER_COMMAND, wait, ev);
}

cl_int kiln_enqueue_rw_buffer_rect(cl_command_queue q, cl_mem mem, bool write,
                                   const struct kiln_rect *buf, const struct kiln_rect *host,
                                   const size_t region[3], void *ptr,
                                   struct kiln_wait_list wait, cl_event *ev)
{
   return kiln_enqueue_rw_rect(q, write ? CL_COMMAND_WRITE_BUFFER_RECT : CL_COMMAND_READ_BUFFER_RECT,
                               mem, write, buf, host, region, ptr, wait, ev);
}

cl_int kiln_enqueue_copy_buffer(cl_command_queue q, cl_mem src, cl_mem dst, size_t src_offset,
                                size_t dst_offset, size_t size, struct kiln_wait_list wait,
                                cl_event *ev)
{
   struct cmd *c = cmd_new(src, dst);
   if (!c)
      return CL_OUT_OF_HOST_MEMORY;
   c->u.copy.src_offset = src_offset;
   c->u.copy.dst_offset = dst_offset;
   c->u.copy.size = size;
   return enqueue(q, CL_COMMAND_COPY_BUFFER, &ops_copy, c, KILN_ORDER_COMMAND, wait, ev);
}

cl_int kiln_enqueue_fill_buffer(cl_command_queue q, cl_mem mem, const void *pattern,
                                size_t pattern_size, size_t offset, size_t size,
                                struct kiln_wait_list wait, cl_event *ev)
{
   if (pattern_size > sizeof(((struct cmd *)0)->u.fill.pattern))
      return CL_INVALID_VALUE;
   struct cmd *c = cmd_new(mem, NULL);
   if (!c)
      return CL_OUT_OF_HOST_MEMORY;
   memcpy(c->u.fill.pattern, pattern, pattern_size);
   c->u.fill.pattern_size = pattern_size;
   c->u.fill.offset = offset;
   c->u.fill.size = size;
   return enqueue(q, CL_COMMAND_FILL_BUFFER, &ops_fill, c, KILN_ORDER_COMMAND, wait, ev);
}

cl_int kiln_enqueue_copy_rect(cl_command_queue q, cl_command_type type, cl_mem src, cl_mem dst,
                                     const struct kiln_rect *s, const struct kiln_rect *d,
                                     const size_t region[3], struct kiln_wait_list wait,
                                     cl_event *ev)
{
   struct cmd *c = cmd_new(src, dst);
   if (!c)
      return CL_OUT_OF_HOST_MEMORY;
   c->u.rect.a = *s;
   c->u.rect.b = *d;
   memcpy(c->u.rect.region, region, sizeof(c->u.rect.region));
   return enqueue(q, type, &ops_copy_rect, c, KILN_ORDER_COMMAND, wait,
                  ev);
}

cl_int kiln_enqueue_copy_buffer_rect(cl_command_queue q, cl_mem src, cl_mem dst,
                                     const struct kiln_rect *s, const struct kiln_rect *d,
                                     const size_t region[3], struct kiln_wait_list wait,
                                     cl_event *ev)
{
   return kiln_enqueue_copy_rect(q, CL_COMMAND_COPY_BUFFER_RECT, src, dst, s, d, region, wait,
                                 ev);
}

cl_int kiln_enqueue_map(cl_command_queue q, cl_command_type type, cl_mem mem, cl_map_flags flags,
                               size_t offset, size_t size, struct kiln_wait_list wait,
                               cl_event *ev, void **ptr)
{
   struct cmd *c = cmd_new(mem, NULL);
   if (!c)
      return CL_OUT_OF_HOST_MEMORY;
   struct kiln_mapping *m;
   cl_int err = kiln_mem_map(mem, q->device, offset, size, flags, &m);
   if (err) {
      struct _cl_event tmp = {.payload = c};
      cmd_cleanup(&tmp);
      return err;
   }
   c->u.map = *m;
   c->u.map.next = NULL;
   *ptr = m->ptr;
   err = enqueue(q, type, &ops_map, c, KILN_ORDER_COMMAND, wait, ev);
   if (err)
      kiln_mem_unmap(mem, *ptr);
   return err;
}

cl_int kiln_enqueue_map_buffer(cl_command_queue q, cl_mem mem, cl_map_flags flags,
                               size_t offset, size_t size, struct kiln_wait_list wait,
                               cl_event *ev, void **ptr)
{
   return kiln_enqueue_map(q, CL_COMMAND_MAP_BUFFER, mem, flags, offset, size, wait, ev, ptr);
}

cl_int kiln_enqueue_unmap(cl_command_queue q, cl_mem mem, void *ptr,
                          struct kiln_wait_list wait, cl_event *ev)
{
   struct cmd *c = cmd_new(mem, NULL);
   if (!c)
      return CL_OUT_OF_HOST_MEMORY;
   /* The pointer stops being a mapping now: a second unmap of it is an
    * error even before the first has run.  If the command cannot be
    * enqueued, it is a mapping again and the application may retry. */
   struct kiln_mapping *m = kiln_mem_take_mapping(mem, ptr);
   if (!m) {
      struct _cl_event tmp = {.payload = c};
      cmd_cleanup(&tmp);
      return CL_INVALID_VALUE;
   }
   c->u.unmap = m;
   /* kiln_enqueue_command in steps: the command owns the mapping from the
    * moment it may run (submit), and not before, so that a refused
    * enqueue can give it back. */
   cl_event e;
   cl_int err = kiln_event_create_command(q, CL_COMMAND_UNMAP_MEM_OBJECT, &ops_unmap, c, &e);
   if (!err && (err = kiln_queue_add_command(q, e, KILN_ORDER_COMMAND, wait)))
      kiln_event_abandon(e);
   else if (err)
      cmd_cleanup(&(struct _cl_event){.payload = c});
   if (err) {
      kiln_mem_restore_mapping(mem, m);
      return err;
   }
   c->owns_unmap = true;
   kiln_event_submit(e);
   *ev = e;
   return CL_SUCCESS;
}

cl_int kiln_enqueue_sync(cl_command_queue q, cl_command_type type, enum kiln_queue_order order,
                         struct kiln_wait_list wait, cl_event *ev)
{
   return enqueue(q, type, &ops_sync, NULL, order, wait, ev);
}

static size_t rect_offset(const struct kiln_rect *r, size_t y, size_t z)
{
   return r->origin[0] + (r->origin[1] + y) * r->row_pitch + (r->origin[2] + z) * r->slice_pitch;
}

/* Byte range [lo, hi) covered by a rectangle. */
static void rect_span(const struct kiln_rect *r, const size_t region[3], size_t *lo, size_t *hi)
{
   *lo = rect_offset(r, 0, 0);
   *hi = rect_offset(r, region[1] - 1, region[2] - 1) + region[0];
}

static bool intervals_meet(size_t a, size_t b, size_t len)
{
   return a < b + len && b < a + len;
}

bool kiln_rect_overlap(const struct kiln_rect *a, const struct kiln_rect *b,
                       const size_t region[3])
{
   size_t alo, ahi, blo, bhi;
   rect_span(a, region, &alo, &ahi);
   rect_span(b, region, &blo, &bhi);
   if (ahi <= blo || bhi <= alo)
      return false;
   /* Common case: one layout whose rows and slices do not wrap, where the
    * rectangles are boxes in (x, y, z) and overlap iff every axis does. */
   if (a->row_pitch == b->row_pitch && a->slice_pitch == b->slice_pitch &&
       region[0] <= a->row_pitch && region[1] * a->row_pitch <= a->slice_pitch &&
       a->origin[0] + region[0] <= a->row_pitch && b->origin[0] + region[0] <= a->row_pitch &&
       (a->origin[1] + region[1]) * a->row_pitch <= a->slice_pitch &&
       (b->origin[1] + region[1]) * a->row_pitch <= a->slice_pitch)
      return intervals_meet(a->origin[0], b->origin[0], region[0]) &&
             intervals_meet(a->origin[1], b->origin[1], region[1]) &&
             intervals_meet(a->origin[2], b->origin[2], region[2]);
   /* Exact test: does any row of a intersect a row of b?  Rows of one
    * rectangle never overlap each other (pitches are at least the region),
    * so for a row of a only a slice or two of b, and a row or two in each,
    * can meet it: both are found by division. */
   size_t b0 = rect_offset(b, 0, 0);
   size_t slice_span = (region[1] - 1) * b->row_pitch + region[0];
   size_t bsp = b->slice_pitch ? b->slice_pitch : 1, brp = b->row_pitch ? b->row_pitch : 1;
   for (size_t az = 0; az < region[2]; az++)
      for (size_t ay = 0; ay < region[1]; ay++) {
         size_t s = rect_offset(a, ay, az), e = s + region[0];
         if (e <= b0)
            continue;
         /* Slices z of b with b0 + z*bsp < e and b0 + z*bsp + slice_span > s. */
         size_t zmax = (e - 1 - b0) / bsp;
         size_t zmin = s + 1 > b0 + slice_span ? (s + 1 - b0 - slice_span + bsp - 1) / bsp : 0;
         if (zmax >= region[2])
            zmax = region[2] - 1;
         for (size_t bz = zmin; bz <= zmax; bz++) {
            size_t row0 = b0 + bz * b->slice_pitch;
            if (row0 >= e)
               continue;
            size_t ymin = s + 1 > row0 + region[0] ? (s + 1 - row0 - region[0] + brp - 1) / brp : 0;
            size_t ymax = (e - 1 - row0) / brp;
            if (ymax >= region[1])
               ymax = region[1] - 1;
            if (ymin <= ymax)
               return true;
         }
      }
   return false;
}
