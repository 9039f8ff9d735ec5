/* clEnqueueRead/Write/CopyBuffer, their Rect forms, clEnqueueMapBuffer and
 * clEnqueueUnmapMemObject. */
#include <string.h>

#include "api/api.h"
#include "api/transfer_check.h"
#include "core/command.h"
#include "core/context.h"
#include "core/device.h"
#include "core/event.h"
#include "core/mem.h"
#include "core/queue.h"

/* Checks shared by every transfer: the queue, a memory object of its
 * context, the wait list.  Sets *qp and *mp. */
static cl_int check_queue_mem(cl_command_queue command_queue, cl_mem memobj, cl_uint num_events,
                              const cl_event *wait_list, cl_command_queue *qp, cl_mem *mp,
                              const char *func)
{
   cl_command_queue q = kiln_queue_from(command_queue);
   if (!q)
      return kiln_api_fail(func, CL_INVALID_COMMAND_QUEUE, "%p is not a queue",
                           (void *)command_queue);
   /* 1.1 lists CL_INVALID_CONTEXT second, before the buffer's own errors. */
   cl_int err = kiln_api_check_wait_list_context(q->context, num_events, wait_list, func);
   if (err)
      return err;
   cl_mem m = kiln_mem_from(memobj);
   if (m && m->context != q->context)
      return kiln_api_fail(func, CL_INVALID_CONTEXT, "buffer and queue of different contexts");
   if (!m || m->type != CL_MEM_OBJECT_BUFFER)
      return kiln_api_fail(func, CL_INVALID_MEM_OBJECT, "%p is not a buffer", (void *)memobj);
   *qp = q;
   *mp = m;
   return CL_SUCCESS;
}

/* A sub-buffer's origin must suit the queue's device (5.2.2). */
static cl_int check_sub_alignment(cl_command_queue q, cl_mem m, const char *func)
{
   if (m->parent && m->offset % (q->device->caps->mem_base_addr_align / 8))
      return kiln_api_fail(func, CL_MISALIGNED_SUB_BUFFER_OFFSET,
                           "sub-buffer origin %zu is not aligned for the device", m->offset);
   return CL_SUCCESS;
}

bool kiln_range_ok(size_t offset, size_t size, size_t total)
{
   return offset <= total && size <= total - offset;
}

static cl_int enqueue_rw(cl_command_queue command_queue, cl_mem buffer, cl_bool blocking,
                         size_t offset, size_t size, void *ptr, cl_uint num_events,
                         const cl_event *wait_list, cl_event *event, bool write, const char *func)
{
   cl_command_queue q;
   cl_mem m;
   cl_int err = check_queue_mem(command_queue, buffer, num_events, wait_list, &q, &m, func);
   if (err)
      return err;
   if (!ptr || !size || !kiln_range_ok(offset, size, m->size))
      return kiln_api_fail(func, CL_INVALID_VALUE, "offset %zu size %zu ptr %p on %zu bytes",
                           offset, size, ptr, m->size);
   if ((err = kiln_api_check_wait_list(q->context, num_events, wait_list, func)) ||
       (err = check_sub_alignment(q, m, func)) ||
       (err = kiln_api_check_host_access(m, !write, write, func)))
      return err;
   cl_event ev;
   err = kiln_enqueue_rw_buffer(q, m, write, offset, size, ptr,
                                (struct kiln_wait_list){num_events, wait_list, blocking}, &ev);
   if (err)
      return kiln_api_fail(func, err, "cannot enqueue");
   return kiln_api_finish_enqueue(ev, blocking, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue command_queue,
                                                    cl_mem buffer, cl_bool blocking_read,
                                                    size_t offset, size_t size, void *ptr,
                                                    cl_uint num_events_in_wait_list,
                                                    const cl_event *event_wait_list,
                                                    cl_event *event)
{
   return enqueue_rw(command_queue, buffer, blocking_read, offset, size, ptr,
                     num_events_in_wait_list, event_wait_list, event, false, __func__);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue command_queue,
                                                     cl_mem buffer, cl_bool blocking_write,
                                                     size_t offset, size_t size,
                                                     const void *ptr,
                                                     cl_uint num_events_in_wait_list,
                                                     const cl_event *event_wait_list,
                                                     cl_event *event)
{
   return enqueue_rw(command_queue, buffer, blocking_write, offset, size, (void *)ptr,
                     num_events_in_wait_list, event_wait_list, event, true, __func__);
}

/* OpenCL 1.2 (5.2.2); Kiln's device is 1.1, but a 1.2 loader dispatches it
 * and the CTS's builtin suites (math_brute_force, select) fill their
 * output buffers with it. */
CL_API_ENTRY cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue command_queue,
                                                    cl_mem buffer, const void *pattern,
                                                    size_t pattern_size, size_t offset,
                                                    size_t size,
                                                    cl_uint num_events_in_wait_list,
                                                    const cl_event *event_wait_list,
                                                    cl_event *event)
{
   const char *func = __func__;
   cl_command_queue q;
   cl_mem m;
   cl_int err = check_queue_mem(command_queue, buffer, num_events_in_wait_list,
                                event_wait_list, &q, &m, func);
   if (err)
      return err;
   bool size_ok = pattern_size && pattern_size <= 128 &&
                  (pattern_size & (pattern_size - 1)) == 0;
   if (!pattern || !size_ok || offset % (size_ok ? pattern_size : 1) ||
       size % (size_ok ? pattern_size : 1) || !kiln_range_ok(offset, size, m->size))
      return kiln_api_fail(func, CL_INVALID_VALUE,
                           "pattern %p of %zu bytes, offset %zu size %zu on %zu bytes", pattern,
                           pattern_size, offset, size, m->size);
   if ((err = kiln_api_check_wait_list(q->context, num_events_in_wait_list, event_wait_list,
                                       func)) ||
       (err = check_sub_alignment(q, m, func)))
      return err;
   cl_event ev;
   err = kiln_enqueue_fill_buffer(q, m, pattern, pattern_size, offset, size,
                                  (struct kiln_wait_list){num_events_in_wait_list,
                                                          event_wait_list},
                                  &ev);
   if (err)
      return kiln_api_fail(func, err, "cannot enqueue");
   return kiln_api_finish_enqueue(ev, false, event);
}

/* Fills in default pitches (0 means tightly packed) and checks them as
 * 5.2.2 does: CL_INVALID_VALUE for pitches smaller than the region. */
bool kiln_rect_setup(struct kiln_rect *r, const size_t origin[3], const size_t region[3],
                       size_t row_pitch, size_t slice_pitch)
{
   memcpy(r->origin, origin, sizeof(r->origin));
   r->row_pitch = row_pitch ? row_pitch : region[0];
   r->slice_pitch = slice_pitch ? slice_pitch : region[1] * r->row_pitch;
   if (row_pitch && row_pitch < region[0])
      return false;
   if (slice_pitch && slice_pitch < region[1] * r->row_pitch)
      return false;
   return true;
}

/* One past the last byte a rectangle touches, or SIZE_MAX on overflow. */
size_t kiln_rect_end(const struct kiln_rect *r, const size_t region[3])
{
   size_t z = r->origin[2] + region[2] - 1, y = r->origin[1] + region[1] - 1;
   if (z < r->origin[2] || y < r->origin[1])
      return SIZE_MAX;
   unsigned __int128 end = (unsigned __int128)z * r->slice_pitch +
                           (unsigned __int128)y * r->row_pitch + r->origin[0] + region[0];
   return end > SIZE_MAX ? SIZE_MAX : (size_t)end;
}

bool kiln_region_ok(const size_t *region)
{
   return region && region[0] && region[1] && region[2];
}

static cl_int enqueue_rw_rect(cl_command_queue command_queue, cl_mem buffer, cl_bool blocking,
                              const size_t *buffer_origin, const size_t *host_origin,
                              const size_t *region, size_t buffer_row_pitch,
                              size_t buffer_slice_pitch, size_t host_row_pitch,
                              size_t host_slice_pitch, void *ptr, cl_uint num_events,
                              const cl_event *wait_list, cl_event *event, bool write,
                              const char *func)
{
   cl_command_queue q;
   cl_mem m;
   cl_int err = check_queue_mem(command_queue, buffer, num_events, wait_list, &q, &m, func);
   if (err)
      return err;
   struct kiln_rect b, h;
   if (!ptr || !buffer_origin || !host_origin || !kiln_region_ok(region))
      return kiln_api_fail(func, CL_INVALID_VALUE, "NULL pointer or empty region");
   if (!kiln_rect_setup(&b, buffer_origin, region, buffer_row_pitch, buffer_slice_pitch) ||
       !kiln_rect_setup(&h, host_origin, region, host_row_pitch, host_slice_pitch))
      return kiln_api_fail(func, CL_INVALID_VALUE, "pitches smaller than the region");
   if (kiln_rect_end(&b, region) > m->size)
      return kiln_api_fail(func, CL_INVALID_VALUE, "region outside the buffer");
   if ((err = kiln_api_check_wait_list(q->context, num_events, wait_list, func)) ||
       (err = check_sub_alignment(q, m, func)) ||
       (err = kiln_api_check_host_access(m, !write, write, func)))
      return err;
   cl_event ev;
   err = kiln_enqueue_rw_buffer_rect(q, m, write, &b, &h, region, ptr,
                                     (struct kiln_wait_list){num_events, wait_list, blocking},
                                     &ev);
   if (err)
      return kiln_api_fail(func, err, "cannot enqueue");
   return kiln_api_finish_enqueue(ev, blocking, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadBufferRect(
   cl_command_queue command_queue, cl_mem buffer, cl_bool blocking_read,
   const size_t *buffer_origin, const size_t *host_origin, const size_t *region,
   size_t buffer_row_pitch, size_t buffer_slice_pitch, size_t host_row_pitch,
   size_t host_slice_pitch, void *ptr, cl_uint num_events_in_wait_list,
   const cl_event *event_wait_list, cl_event *event)
{
   return enqueue_rw_rect(command_queue, buffer, blocking_read, buffer_origin, host_origin,
                          region, buffer_row_pitch, buffer_slice_pitch, host_row_pitch,
                          host_slice_pitch, ptr, num_events_in_wait_list, event_wait_list,
                          event, false, __func__);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBufferRect(
   cl_command_queue command_queue, cl_mem buffer, cl_bool blocking_write,
   const size_t *buffer_origin, const size_t *host_origin, const size_t *region,
   size_t buffer_row_pitch, size_t buffer_slice_pitch, size_t host_row_pitch,
   size_t host_slice_pitch, const void *ptr, cl_uint num_events_in_wait_list,
   const cl_event *event_wait_list, cl_event *event)
{
   return enqueue_rw_rect(command_queue, buffer, blocking_write, buffer_origin, host_origin,
                          region, buffer_row_pitch, buffer_slice_pitch, host_row_pitch,
                          host_slice_pitch, (void *)ptr, num_events_in_wait_list,
                          event_wait_list, event, true, __func__);
}

/* Source and destination (as absolute offsets into shared storage) share
 * a byte: same buffer, or sub-buffers of one buffer (5.2.2). */
bool kiln_copy_overlaps(cl_mem src, size_t so, cl_mem dst, size_t dof, size_t size)
{
   if (!kiln_mem_same_storage(src, dst))
      return false;
   size_t a = src->offset + so, b = dst->offset + dof;
   return a < b + size && b < a + size;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyBuffer(cl_command_queue command_queue,
                                                    cl_mem src_buffer, cl_mem dst_buffer,
                                                    size_t src_offset, size_t dst_offset,
                                                    size_t size,
                                                    cl_uint num_events_in_wait_list,
                                                    const cl_event *event_wait_list,
                                                    cl_event *event)
{
   cl_command_queue q;
   cl_mem src, dst;
   cl_int err = check_queue_mem(command_queue, src_buffer, num_events_in_wait_list,
                                event_wait_list, &q, &src, __func__);
   if (err)
      return err;
   if ((err = check_queue_mem(command_queue, dst_buffer, num_events_in_wait_list,
                              event_wait_list, &q, &dst, __func__)))
      return err;
   if (!size || !kiln_range_ok(src_offset, size, src->size) || !kiln_range_ok(dst_offset, size, dst->size))
      return API_FAIL(CL_INVALID_VALUE, "src %zu dst %zu size %zu on buffers of %zu and %zu",
                      src_offset, dst_offset, size, src->size, dst->size);
   if ((err = kiln_api_check_wait_list(q->context, num_events_in_wait_list, event_wait_list,
                                       __func__)))
      return err;
   if (kiln_copy_overlaps(src, src_offset, dst, dst_offset, size))
      return API_FAIL(CL_MEM_COPY_OVERLAP, "source and destination overlap");
   if ((err = check_sub_alignment(q, src, __func__)) || (err = check_sub_alignment(q, dst, __func__)))
      return err;
   cl_event ev;
   err = kiln_enqueue_copy_buffer(q, src, dst, src_offset, dst_offset, size,
                                  (struct kiln_wait_list){num_events_in_wait_list,
                                                          event_wait_list},
                                  &ev);
   if (err)
      return API_FAIL(err, "cannot enqueue");
   return kiln_api_finish_enqueue(ev, false, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyBufferRect(
   cl_command_queue command_queue, cl_mem src_buffer, cl_mem dst_buffer,
   const size_t *src_origin, const size_t *dst_origin, const size_t *region,
   size_t src_row_pitch, size_t src_slice_pitch, size_t dst_row_pitch, size_t dst_slice_pitch,
   cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
   cl_command_queue q;
   cl_mem src, dst;
   cl_int err = check_queue_mem(command_queue, src_buffer, num_events_in_wait_list,
                                event_wait_list, &q, &src, __func__);
   if (err)
      return err;
   if ((err = check_queue_mem(command_queue, dst_buffer, num_events_in_wait_list,
                              event_wait_list, &q, &dst, __func__)))
      return err;
   struct kiln_rect s, d;
   if (!src_origin || !dst_origin || !kiln_region_ok(region))
      return API_FAIL(CL_INVALID_VALUE, "NULL pointer or empty region");
   if (!kiln_rect_setup(&s, src_origin, region, src_row_pitch, src_slice_pitch) ||
       !kiln_rect_setup(&d, dst_origin, region, dst_row_pitch, dst_slice_pitch))
      return API_FAIL(CL_INVALID_VALUE, "pitches smaller than the region");
   if (kiln_rect_end(&s, region) > src->size || kiln_rect_end(&d, region) > dst->size)
      return API_FAIL(CL_INVALID_VALUE, "region outside a buffer");
   /* 1.1: within one buffer, the two layouts may differ in one pitch only. */
   if (src == dst && s.row_pitch != d.row_pitch && s.slice_pitch != d.slice_pitch)
      return API_FAIL(CL_INVALID_VALUE, "same buffer with different row and slice pitches");
   if ((err = kiln_api_check_wait_list(q->context, num_events_in_wait_list, event_wait_list,
                                       __func__)))
      return err;
   if (kiln_mem_same_storage(src, dst)) {
      /* Compare in the shared storage: shift each origin by its buffer's
       * place in it. */
      struct kiln_rect sa = s, da = d;
      sa.origin[0] += src->offset;
      da.origin[0] += dst->offset;
      if (kiln_rect_overlap(&sa, &da, region))
         return API_FAIL(CL_MEM_COPY_OVERLAP, "source and destination overlap");
   }
   if ((err = check_sub_alignment(q, src, __func__)) || (err = check_sub_alignment(q, dst, __func__)))
      return err;
   cl_event ev;
   err = kiln_enqueue_copy_buffer_rect(
      q, src, dst, &s, &d, region,
      (struct kiln_wait_list){num_events_in_wait_list, event_wait_list}, &ev);
   if (err)
      return API_FAIL(err, "cannot enqueue");
   return kiln_api_finish_enqueue(ev, false, event);
}

CL_API_ENTRY void *CL_API_CALL clEnqueueMapBuffer(cl_command_queue command_queue, cl_mem buffer,
                                                  cl_bool blocking_map, cl_map_flags map_flags,
                                                  size_t offset, size_t size,
                                                  cl_uint num_events_in_wait_list,
                                                  const cl_event *event_wait_list,
                                                  cl_event *event, cl_int *errcode_ret)
{
   cl_command_queue q;
   cl_mem m;
   cl_int err = check_queue_mem(command_queue, buffer, num_events_in_wait_list, event_wait_list,
                                &q, &m, __func__);
   if (err) {
      kiln_set_error(errcode_ret, err);
      return NULL;
   }
   if (!size || !kiln_range_ok(offset, size, m->size) || !kiln_api_valid_map_flags(map_flags))
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "offset %zu size %zu flags 0x%llx", offset,
                   size, (unsigned long long)map_flags);
   if ((err = kiln_api_check_wait_list(q->context, num_events_in_wait_list, event_wait_list,
                                       __func__)) ||
       (err = check_sub_alignment(q, m, __func__)) ||
       (err = kiln_api_check_host_access(m, map_flags & CL_MAP_READ,
                                         map_flags & (CL_MAP_WRITE |
                                                      CL_MAP_WRITE_INVALIDATE_REGION),
                                         __func__))) {
      kiln_set_error(errcode_ret, err);
      return NULL;
   }
   cl_event ev;
   void *ptr = NULL;
   err = kiln_enqueue_map_buffer(q, m, map_flags, offset, size,
                                 (struct kiln_wait_list){num_events_in_wait_list,
                                                         event_wait_list, blocking_map},
                                 &ev, &ptr);
   if (err)
      API_FAIL_RET(errcode_ret, err, "cannot enqueue");
   err = kiln_api_finish_enqueue(ev, blocking_map, event);
   if (err) {
      /* The map failed (a wait-list event did): it leaves no mapping. */
      kiln_mem_unmap(m, ptr);
      kiln_set_error(errcode_ret, err);
      return NULL;
   }
   kiln_set_error(errcode_ret, CL_SUCCESS);
   return ptr;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueUnmapMemObject(cl_command_queue command_queue,
                                                        cl_mem memobj, void *mapped_ptr,
                                                        cl_uint num_events_in_wait_list,
                                                        const cl_event *event_wait_list,
                                                        cl_event *event)
{
   cl_command_queue q = kiln_queue_from(command_queue);
   if (!q)
      return API_FAIL(CL_INVALID_COMMAND_QUEUE, "%p is not a queue", (void *)command_queue);
   cl_mem m = kiln_mem_from(memobj);
   if (!m)
      return API_FAIL(CL_INVALID_MEM_OBJECT, "%p is not a memory object", (void *)memobj);
   if (!mapped_ptr || !kiln_mem_is_mapped(m, mapped_ptr))
      return API_FAIL(CL_INVALID_VALUE, "%p is not a mapping of the object", mapped_ptr);
   /* Here the spec lists CL_INVALID_CONTEXT last. */
   if ((num_events_in_wait_list && !event_wait_list) || (!num_events_in_wait_list && event_wait_list))
      return API_FAIL(CL_INVALID_EVENT_WAIT_LIST, "malformed wait list");
   for (cl_uint i = 0; i < num_events_in_wait_list; i++)
      if (!kiln_event_from(event_wait_list[i]))
         return API_FAIL(CL_INVALID_EVENT_WAIT_LIST, "event_wait_list[%u]", i);
   if (m->context != q->context)
      return API_FAIL(CL_INVALID_CONTEXT, "memory object and queue of different contexts");
   cl_int err = kiln_api_check_wait_list(q->context, num_events_in_wait_list, event_wait_list,
                                         __func__);
   if (err)
      return err;
   cl_event ev;
   err = kiln_enqueue_unmap(q, m, mapped_ptr,
                            (struct kiln_wait_list){num_events_in_wait_list, event_wait_list},
                            &ev);
   if (err)
      return API_FAIL(err, "cannot enqueue");
   return kiln_api_finish_enqueue(ev, false, event);
}
