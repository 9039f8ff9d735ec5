/* The image transfers, copies and maps (OpenCL 1.2 5.3):
 * clEnqueueRead/WriteImage, clEnqueueCopyImage, the image <-> buffer
 * copies and clEnqueueMapImage.
 *
 * An image is a cl_mem whose resource holds its elements linearly (rows
 * of row_pitch bytes, slices of slice_pitch), so every transfer is one of
 * the byte-rectangle commands buffers use (core/command.h), enqueued
 * under the image command's type. */
#include "api/api.h"
#include "api/image_check.h"
#include "core/command.h"
#include "core/context.h"
#include "core/device.h"
#include "core/mem.h"
#include "core/queue.h"

/* The host's access flags (1.2): CL_INVALID_OPERATION when the host may
 * not read (write) m. */
cl_int kiln_api_check_host_access(cl_mem m, bool read, bool write, const char *func)
{
   if (read && (m->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)))
      return kiln_api_fail(func, CL_INVALID_OPERATION, "the host may not read %p", (void *)m);
   if (write && (m->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)))
      return kiln_api_fail(func, CL_INVALID_OPERATION, "the host may not write %p", (void *)m);
   return CL_SUCCESS;
}

static cl_int enqueue_rw_image(cl_command_queue command_queue, cl_mem image, cl_bool blocking,
                               const size_t *origin, const size_t *region, size_t row_pitch,
                               size_t slice_pitch, void *ptr, cl_uint num_events,
                               const cl_event *wait_list, cl_event *event, bool write,
                               const char *func)
{
   cl_command_queue q;
   cl_mem m;
   const bool is_image[1] = {true};
   cl_int err = kiln_api_image_check_objects(command_queue, 1, &image, is_image, num_events,
                                             wait_list, &q, &m, func);
   if (err)
      return err;
   if (!ptr || !kiln_image_region_ok(m, origin, region))
      return kiln_api_fail(func, CL_INVALID_VALUE, "region outside the image or ptr NULL");
   bool array1d = m->type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
   if (slice_pitch && !array1d && !kiln_image_type_has_slices(m->type))
      return kiln_api_fail(func, CL_INVALID_VALUE, "slice pitch %zu for a 1D or 2D image",
                           slice_pitch);
   struct kiln_rect img, host = {{0, 0, 0}, 0, 0};
   size_t bytes[3];
   kiln_image_rect(m, origin, region, &img, bytes);
   size_t rp = row_pitch ? row_pitch : bytes[0];
   /* A 1D array's layers are the storage's rows: the host's layer pitch
    * (slice_pitch, else row_pitch) steps from one to the next. */
   size_t sp = slice_pitch ? slice_pitch : array1d ? rp : rp * region[1];
   if (rp < bytes[0] || (array1d ? sp < rp : sp / region[1] < rp))
      return kiln_api_fail(func, CL_INVALID_VALUE, "pitches %zu/%zu smaller than the region",
                           row_pitch, slice_pitch);
   host.row_pitch = array1d ? sp : rp;
   host.slice_pitch = array1d ? 0 : sp; /* a 1D array's region[2] is 1 */
   if ((err = kiln_api_check_wait_list(q->context, num_events, wait_list, func)) ||
       (err = kiln_api_check_host_access(m, !write, write, func)))
      return err;
   cl_event ev;
   err = kiln_enqueue_rw_rect(q, write ? CL_COMMAND_WRITE_IMAGE : CL_COMMAND_READ_IMAGE, m,
                              write, &img, &host, bytes, ptr,
                              (struct kiln_wait_list){num_events, wait_list, blocking}, &ev);
   if (err)
      return kiln_api_fail(func, err, "cannot enqueue");
   return kiln_api_finish_enqueue(ev, blocking, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadImage(cl_command_queue command_queue, cl_mem image,
                                                   cl_bool blocking_read, const size_t *origin,
                                                   const size_t *region, size_t row_pitch,
                                                   size_t slice_pitch, void *ptr,
                                                   cl_uint num_events_in_wait_list,
                                                   const cl_event *event_wait_list,
                                                   cl_event *event)
{
   return enqueue_rw_image(command_queue, image, blocking_read, origin, region, row_pitch,
                           slice_pitch, ptr, num_events_in_wait_list, event_wait_list, event,
                           false, __func__);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteImage(cl_command_queue command_queue, cl_mem image,
                                                    cl_bool blocking_write, const size_t *origin,
                                                    const size_t *region, size_t input_row_pitch,
                                                    size_t input_slice_pitch, const void *ptr,
                                                    cl_uint num_events_in_wait_list,
                                                    const cl_event *event_wait_list,
                                                    cl_event *event)
{
   return enqueue_rw_image(command_queue, image, blocking_write, origin, region,
                           input_row_pitch, input_slice_pitch, (void *)ptr,
                           num_events_in_wait_list, event_wait_list, event, true, __func__);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyImage(cl_command_queue command_queue,
                                                   cl_mem src_image, cl_mem dst_image,
                                                   const size_t *src_origin,
                                                   const size_t *dst_origin, const size_t *region,
                                                   cl_uint num_events_in_wait_list,
                                                   const cl_event *event_wait_list,
                                                   cl_event *event)
{
   cl_command_queue q;
   cl_mem m[2];
   const cl_mem mems[2] = {src_image, dst_image};
   const bool is_image[2] = {true, true};
   cl_int err = kiln_api_image_check_objects(command_queue, 2, mems, is_image,
                                             num_events_in_wait_list, event_wait_list, &q, m,
                                             __func__);
   if (err)
      return err;
   cl_mem src = m[0], dst = m[1];
   if (!kiln_image_formats_match(src, dst))
      return API_FAIL(CL_IMAGE_FORMAT_MISMATCH, "the images have different formats");
   if (!kiln_image_region_ok(src, src_origin, region) ||
       !kiln_image_region_ok(dst, dst_origin, region))
      return API_FAIL(CL_INVALID_VALUE, "region outside an image");
   if ((err = kiln_api_check_wait_list(q->context, num_events_in_wait_list, event_wait_list,
                                       __func__)))
      return err;
   if (src == dst && kiln_image_boxes_meet(src_origin, dst_origin, region))
      return API_FAIL(CL_MEM_COPY_OVERLAP, "source and destination overlap");
   struct kiln_rect s, d;
   size_t bytes[3];
   kiln_image_rect(src, src_origin, region, &s, bytes);
   kiln_image_rect(dst, dst_origin, region, &d, bytes);
   cl_event ev;
   err = kiln_enqueue_copy_rect(q, CL_COMMAND_COPY_IMAGE, src, dst, &s, &d, bytes,
                                (struct kiln_wait_list){num_events_in_wait_list,
                                                        event_wait_list},
                                &ev);
   if (err)
      return API_FAIL(err, "cannot enqueue");
   return kiln_api_finish_enqueue(ev, false, event);
}

/* Image <-> buffer: the buffer side is the region packed tightly from
 * offset (5.2.7). */
static cl_int copy_image_buffer(cl_command_queue command_queue, cl_mem image, cl_mem buffer,
                                const size_t *origin, const size_t *region, size_t offset,
                                bool to_buffer, cl_uint num_events, const cl_event *wait_list,
                                cl_event *event, const char *func)
{
   cl_command_queue q;
   cl_mem m[2];
   const cl_mem mems[2] = {to_buffer ? image : buffer, to_buffer ? buffer : image};
   const bool is_image[2] = {to_buffer, !to_buffer};
   cl_int err = kiln_api_image_check_objects(command_queue, 2, mems, is_image, num_events,
                                             wait_list, &q, m, func);
   if (err)
      return err;
   cl_mem img = to_buffer ? m[0] : m[1], buf = to_buffer ? m[1] : m[0];
   if (!kiln_image_region_ok(img, origin, region))
      return kiln_api_fail(func, CL_INVALID_VALUE, "region outside the image");
   size_t bytes[3];
   struct kiln_rect ir, br;
   kiln_image_rect(img, origin, region, &ir, bytes);
   size_t total = kiln_image_region_bytes(img, region);
   if (offset > buf->size || total > buf->size - offset)
      return kiln_api_fail(func, CL_INVALID_VALUE, "%zu bytes at offset %zu of a %zu-byte buffer",
                           total, offset, buf->size);
   if ((err = kiln_api_check_wait_list(q->context, num_events, wait_list, func)))
      return err;
   if (buf->parent && buf->offset % (q->device->caps->mem_base_addr_align / 8))
      return kiln_api_fail(func, CL_MISALIGNED_SUB_BUFFER_OFFSET,
                           "sub-buffer origin %zu is not aligned for the device", buf->offset);
   br.origin[0] = offset;
   br.origin[1] = br.origin[2] = 0;
   br.row_pitch = bytes[0];
   br.slice_pitch = bytes[0] * region[1];
   cl_event ev;
   struct kiln_wait_list wait = {num_events, wait_list};
   err = to_buffer
            ? kiln_enqueue_copy_rect(q, CL_COMMAND_COPY_IMAGE_TO_BUFFER, img, buf, &ir, &br,
                                     bytes, wait, &ev)
            : kiln_enqueue_copy_rect(q, CL_COMMAND_COPY_BUFFER_TO_IMAGE, buf, img, &br, &ir,
                                     bytes, wait, &ev);
   if (err)
      return kiln_api_fail(func, err, "cannot enqueue");
   return kiln_api_finish_enqueue(ev, false, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyImageToBuffer(
   cl_command_queue command_queue, cl_mem src_image, cl_mem dst_buffer, const size_t *src_origin,
   const size_t *region, size_t dst_offset, cl_uint num_events_in_wait_list,
   const cl_event *event_wait_list, cl_event *event)
{
   return copy_image_buffer(command_queue, src_image, dst_buffer, src_origin, region,
                            dst_offset, true, num_events_in_wait_list, event_wait_list, event,
                            __func__);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyBufferToImage(
   cl_command_queue command_queue, cl_mem src_buffer, cl_mem dst_image, size_t src_offset,
   const size_t *dst_origin, const size_t *region, cl_uint num_events_in_wait_list,
   const cl_event *event_wait_list, cl_event *event)
{
   return copy_image_buffer(command_queue, dst_image, src_buffer, dst_origin, region,
                            src_offset, false, num_events_in_wait_list, event_wait_list, event,
                            __func__);
}

CL_API_ENTRY void *CL_API_CALL clEnqueueMapImage(
   cl_command_queue command_queue, cl_mem image, cl_bool blocking_map, cl_map_flags map_flags,
   const size_t *origin, const size_t *region, size_t *image_row_pitch,
   size_t *image_slice_pitch, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
   cl_event *event, cl_int *errcode_ret)
{
   cl_command_queue q;
   cl_mem m;
   const bool is_image[1] = {true};
   cl_int err = kiln_api_image_check_objects(command_queue, 1, &image, is_image,
                                             num_events_in_wait_list, event_wait_list, &q, &m,
                                             __func__);
   if (err) {
      kiln_set_error(errcode_ret, err);
      return NULL;
   }
   if (!kiln_image_region_ok(m, origin, region) || !kiln_api_valid_map_flags(map_flags))
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "region outside the image or flags 0x%llx",
                   (unsigned long long)map_flags);
   if (!image_row_pitch)
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "image_row_pitch is NULL");
   bool layered = kiln_image_type_has_slices(m->type) || m->type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
   if (layered && !image_slice_pitch)
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE,
                   "image_slice_pitch is NULL for a 3D image or an image array");
   if ((err = kiln_api_check_wait_list(q->context, num_events_in_wait_list, event_wait_list,
                                       __func__)) ||
       (err = kiln_api_check_host_access(m, map_flags & CL_MAP_READ,
                                         map_flags & (CL_MAP_WRITE |
                                                      CL_MAP_WRITE_INVALIDATE_REGION),
                                         __func__))) {
      kiln_set_error(errcode_ret, err);
      return NULL;
   }
   struct kiln_rect r;
   size_t bytes[3];
   kiln_image_rect(m, origin, region, &r, bytes);
   size_t offset = r.origin[2] * r.slice_pitch + r.origin[1] * r.row_pitch + r.origin[0];
   size_t size = (region[2] - 1) * r.slice_pitch + (region[1] - 1) * r.row_pitch + bytes[0];
   cl_event ev;
   void *ptr = NULL;
   err = kiln_enqueue_map(q, CL_COMMAND_MAP_IMAGE, m, map_flags, offset, size,
                          (struct kiln_wait_list){num_events_in_wait_list, event_wait_list,
                                                  blocking_map},
                          &ev, &ptr);
   if (err)
      API_FAIL_RET(errcode_ret, err, "cannot enqueue");
   err = kiln_api_finish_enqueue(ev, blocking_map, event);
   if (err) {
      kiln_mem_unmap(m, ptr);
      kiln_set_error(errcode_ret, err);
      return NULL;
   }
   /* What clGetImageInfo says: a 1D array's layers lie a storage row
    * apart, which is its slice pitch. */
   *image_row_pitch = m->image.info_row_pitch;
   if (image_slice_pitch)
      *image_slice_pitch = m->image.info_slice_pitch;
   kiln_set_error(errcode_ret, CL_SUCCESS);
   return ptr;
}
