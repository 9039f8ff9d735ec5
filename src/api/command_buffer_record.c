/* cl_khr_command_buffer: recording commands (barrier, buffer copies and
 * fills, kernel launches).  Each entry point checks its arguments as the
 * matching clEnqueue* does (api/transfer_check.h, api/ndrange_check.h),
 * builds the command with everything it needs held, and appends it
 * (core/cmdbuf.h). */
#include <string.h>

#include "api/api.h"
#include "api/command_buffer.h"
#include "api/image_check.h"
#include "api/ndrange_check.h"
#include "api/svm_check.h"
#include "api/transfer_check.h"
#include "core/cmdbuf.h"
#include "core/device.h"
#include "core/mem.h"
#include "core/ndrange.h"
#include "core/object.h"

/* What every recording entry point checks first.  Without
 * cl_khr_command_buffer_multi_device, command_queue must be NULL; no
 * command properties are defined without mutable dispatch, and neither
 * are mutable handles. */
static cl_int check_common(cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
                           const cl_command_properties_khr *properties,
                           cl_mutable_command_khr *mutable_handle, cl_uint num_sync,
                           const cl_sync_point_khr *sync_list, cl_command_buffer_khr *cbp,
                           const char *func)
{
   /* The command buffer first: which queues are valid depends on it (and
    * the CTS passes a queue with a NULL command buffer expecting
    * CL_INVALID_COMMAND_BUFFER_KHR). */
   cl_command_buffer_khr cb = kiln_cmdbuf_from(command_buffer);
   if (!cb)
      return kiln_api_fail(func, CL_INVALID_COMMAND_BUFFER_KHR, "%p is not a command buffer",
                           (void *)command_buffer);
   if (command_queue)
      return kiln_api_fail(func, CL_INVALID_COMMAND_QUEUE,
                           "command_queue must be NULL (no multi-device command buffers)");
   if (kiln_cmdbuf_state(cb) != CL_COMMAND_BUFFER_STATE_RECORDING_KHR)
      return kiln_api_fail(func, CL_INVALID_OPERATION, "the command buffer is finalized");
   if ((num_sync && !sync_list) || (!num_sync && sync_list))
      return kiln_api_fail(func, CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
                           "sync_point_wait_list %p with %u sync points", (void *)sync_list,
                           num_sync);
   if (properties && properties[0])
      return kiln_api_fail(func, CL_INVALID_VALUE, "unsupported command property 0x%llx",
                           (unsigned long long)properties[0]);
   if (mutable_handle)
      return kiln_api_fail(func, CL_INVALID_VALUE,
                           "mutable_handle needs cl_khr_command_buffer_mutable_dispatch");
   *cbp = cb;
   return CL_SUCCESS;
}

/* A buffer of the command buffer's context. */
static cl_int check_buffer(cl_command_buffer_khr cb, cl_mem memobj, cl_mem *mp, const char *func)
{
   cl_mem m = kiln_mem_from(memobj);
   if (m && m->context != cb->context)
      return kiln_api_fail(func, CL_INVALID_CONTEXT,
                           "buffer and command buffer of different contexts");
   if (!m || m->type != CL_MEM_OBJECT_BUFFER)
      return kiln_api_fail(func, CL_INVALID_MEM_OBJECT, "%p is not a buffer", (void *)memobj);
   *mp = m;
   return CL_SUCCESS;
}

static cl_int check_sub_alignment(cl_command_buffer_khr cb, cl_mem m, const char *func)
{
   if (m->parent && m->offset % (cb->queue->device->caps->mem_base_addr_align / 8))
      return kiln_api_fail(func, CL_MISALIGNED_SUB_BUFFER_OFFSET,
                           "sub-buffer origin %zu is not aligned for the device", m->offset);
   return CL_SUCCESS;
}

/* Holds the buffers, then records; reports core's errors. */
static cl_int record(cl_command_buffer_khr cb, struct kiln_cb_command *c, cl_uint num_sync,
                     const cl_sync_point_khr *sync_list, cl_sync_point_khr *sync_point,
                     const char *func)
{
   for (int i = 0; i < 2; i++)
      if (c->mem[i])
         kiln_object_ref(&c->mem[i]->obj);
   cl_int err = kiln_cmdbuf_record(cb, c, num_sync, sync_list, sync_point);
   if (err)
      return kiln_api_fail(func, err,
                           err == CL_INVALID_SYNC_POINT_WAIT_LIST_KHR
                              ? "a sync point was not returned by this command buffer"
                           : err == CL_INVALID_OPERATION ? "finalized meanwhile"
                                                         : "cannot record");
   return CL_SUCCESS;
}

cl_int CL_API_CALL kiln_clCommandBarrierWithWaitListKHR(
   cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_uint num_sync_points_in_wait_list,
   const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
   cl_mutable_command_khr *mutable_handle)
{
   const char *func = "clCommandBarrierWithWaitListKHR";
   cl_command_buffer_khr cb;
   cl_int err = check_common(command_buffer, command_queue, properties, mutable_handle,
                             num_sync_points_in_wait_list, sync_point_wait_list, &cb, func);
   if (err)
      return err;
   struct kiln_cb_command c = {.kind = KILN_CB_BARRIER};
   return record(cb, &c, num_sync_points_in_wait_list, sync_point_wait_list, sync_point, func);
}

cl_int CL_API_CALL kiln_clCommandCopyBufferKHR(
   cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_mem src_buffer, cl_mem dst_buffer,
   size_t src_offset, size_t dst_offset, size_t size, cl_uint num_sync_points_in_wait_list,
   const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
   cl_mutable_command_khr *mutable_handle)
{
   const char *func = "clCommandCopyBufferKHR";
   cl_command_buffer_khr cb;
   cl_mem src, dst;
   cl_int err = check_common(command_buffer, command_queue, properties, mutable_handle,
                             num_sync_points_in_wait_list, sync_point_wait_list, &cb, func);
   if (err || (err = check_buffer(cb, src_buffer, &src, func)) ||
       (err = check_buffer(cb, dst_buffer, &dst, func)))
      return err;
   if (!size || !kiln_range_ok(src_offset, size, src->size) ||
       !kiln_range_ok(dst_offset, size, dst->size))
      return kiln_api_fail(func, CL_INVALID_VALUE,
                           "src %zu dst %zu size %zu on buffers of %zu and %zu", src_offset,
                           dst_offset, size, src->size, dst->size);
   if (kiln_copy_overlaps(src, src_offset, dst, dst_offset, size))
      return kiln_api_fail(func, CL_MEM_COPY_OVERLAP, "source and destination overlap");
   if ((err = check_sub_alignment(cb, src, func)) || (err = check_sub_alignment(cb, dst, func)))
      return err;
   struct kiln_cb_command c = {.kind = KILN_CB_COPY, .mem = {src, dst}};
   c.u.copy.src_offset = src_offset;
   c.u.copy.dst_offset = dst_offset;
   c.u.copy.size = size;
   return record(cb, &c, num_sync_points_in_wait_list, sync_point_wait_list, sync_point, func);
}

cl_int CL_API_CALL kiln_clCommandCopyBufferRectKHR(
   cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_mem src_buffer, cl_mem dst_buffer,
   const size_t *src_origin, const size_t *dst_origin, const size_t *region,
   size_t src_row_pitch, size_t src_slice_pitch, size_t dst_row_pitch, size_t dst_slice_pitch,
   cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list,
   cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle)
{
   const char *func = "clCommandCopyBufferRectKHR";
   cl_command_buffer_khr cb;
   cl_mem src, dst;
   cl_int err = check_common(command_buffer, command_queue, properties, mutable_handle,
                             num_sync_points_in_wait_list, sync_point_wait_list, &cb, func);
   if (err || (err = check_buffer(cb, src_buffer, &src, func)) ||
       (err = check_buffer(cb, dst_buffer, &dst, func)))
      return err;
   struct kiln_rect s, d;
   if (!src_origin || !dst_origin || !kiln_region_ok(region))
      return kiln_api_fail(func, CL_INVALID_VALUE, "NULL pointer or empty region");
   if (!kiln_rect_setup(&s, src_origin, region, src_row_pitch, src_slice_pitch) ||
       !kiln_rect_setup(&d, dst_origin, region, dst_row_pitch, dst_slice_pitch))
      return kiln_api_fail(func, CL_INVALID_VALUE, "pitches smaller than the region");
   if (kiln_rect_end(&s, region) > src->size || kiln_rect_end(&d, region) > dst->size)
      return kiln_api_fail(func, CL_INVALID_VALUE, "region outside a buffer");
   if (src == dst && s.row_pitch != d.row_pitch && s.slice_pitch != d.slice_pitch)
      return kiln_api_fail(func, CL_INVALID_VALUE,
                           "same buffer with different row and slice pitches");
   if (kiln_mem_same_storage(src, dst)) {
      struct kiln_rect sa = s, da = d;
      sa.origin[0] += src->offset;
      da.origin[0] += dst->offset;
      if (kiln_rect_overlap(&sa, &da, region))
         return kiln_api_fail(func, CL_MEM_COPY_OVERLAP, "source and destination overlap");
   }
   if ((err = check_sub_alignment(cb, src, func)) || (err = check_sub_alignment(cb, dst, func)))
      return err;
   struct kiln_cb_command c = {.kind = KILN_CB_COPY_RECT, .mem = {src, dst}};
   c.u.rect.s = s;
   c.u.rect.d = d;
   memcpy(c.u.rect.region, region, sizeof(c.u.rect.region));
   return record(cb, &c, num_sync_points_in_wait_list, sync_point_wait_list, sync_point, func);
}

cl_int CL_API_CALL kiln_clCommandFillBufferKHR(
   cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_mem buffer, const void *pattern,
   size_t pattern_size, size_t offset, size_t size, cl_uint num_sync_points_in_wait_list,
   const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
   cl_mutable_command_khr *mutable_handle)
{
   const char *func = "clCommandFillBufferKHR";
   cl_command_buffer_khr cb;
   cl_mem m;
   cl_int err = check_common(command_buffer, command_queue, properties, mutable_handle,
                             num_sync_points_in_wait_list, sync_point_wait_list, &cb, func);
   if (err || (err = check_buffer(cb, buffer, &m, func)))
      return err;
   bool size_ok = pattern_size && pattern_size <= 128 && (pattern_size & (pattern_size - 1)) == 0;
   if (!pattern || !size_ok || offset % (size_ok ? pattern_size : 1) ||
       size % (size_ok ? pattern_size : 1) || !size || !kiln_range_ok(offset, size, m->size))
      return kiln_api_fail(func, CL_INVALID_VALUE,
                           "pattern %p of %zu bytes, offset %zu size %zu on %zu bytes", pattern,
                           pattern_size, offset, size, m->size);
   if ((err = check_sub_alignment(cb, m, func)))
      return err;
   struct kiln_cb_command c = {.kind = KILN_CB_FILL, .mem = {m, NULL}};
   memcpy(c.u.fill.pattern, pattern, pattern_size);
   c.u.fill.pattern_size = pattern_size;
   c.u.fill.offset = offset;
   c.u.fill.size = size;
   return record(cb, &c, num_sync_points_in_wait_list, sync_point_wait_list, sync_point, func);
}

/* SVM copies and fills: host memory on the only devices with SVM, so the
 * replay copies on the host in its place among the other commands. */
static cl_int check_svm_device(cl_command_buffer_khr cb, const char *func)
{
   if (!cb->queue->device->caps->svm_capabilities)
      return kiln_api_fail(func, CL_INVALID_OPERATION, "%s has no SVM",
                           cb->queue->device->caps->name);
   return CL_SUCCESS;
}

cl_int CL_API_CALL kiln_clCommandSVMMemcpyKHR(
   cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, void *dst_ptr, const void *src_ptr, size_t size,
   cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list,
   cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle)
{
   const char *func = "clCommandSVMMemcpyKHR";
   cl_command_buffer_khr cb;
   cl_int err = check_common(command_buffer, command_queue, properties, mutable_handle,
                             num_sync_points_in_wait_list, sync_point_wait_list, &cb, func);
   if (err || (err = kiln_api_check_svm_copy(dst_ptr, src_ptr, size, func)) ||
       (err = check_svm_device(cb, func)))
      return err;
   struct kiln_cb_command c = {.kind = KILN_CB_SVM_COPY};
   c.u.svm_copy.dst = dst_ptr;
   c.u.svm_copy.src = src_ptr;
   c.u.svm_copy.size = size;
   return record(cb, &c, num_sync_points_in_wait_list, sync_point_wait_list, sync_point, func);
}

cl_int CL_API_CALL kiln_clCommandSVMMemFillKHR(
   cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, void *svm_ptr, const void *pattern,
   size_t pattern_size, size_t size, cl_uint num_sync_points_in_wait_list,
   const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
   cl_mutable_command_khr *mutable_handle)
{
   const char *func = "clCommandSVMMemFillKHR";
   cl_command_buffer_khr cb;
   cl_int err = check_common(command_buffer, command_queue, properties, mutable_handle,
                             num_sync_points_in_wait_list, sync_point_wait_list, &cb, func);
   if (err || (err = kiln_api_check_svm_fill(svm_ptr, pattern, pattern_size, size, func)) ||
       (err = check_svm_device(cb, func)))
      return err;
   struct kiln_cb_command c = {.kind = KILN_CB_SVM_FILL};
   memcpy(c.u.fill.pattern, pattern, pattern_size);
   c.u.fill.pattern_size = pattern_size;
   c.u.fill.offset = (size_t)(uintptr_t)svm_ptr;
   c.u.fill.size = size;
   return record(cb, &c, num_sync_points_in_wait_list, sync_point_wait_list, sync_point, func);
}

cl_int CL_API_CALL kiln_clCommandNDRangeKernelKHR(
   cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_kernel kernel, cl_uint work_dim,
   const size_t *global_work_offset, const size_t *global_work_size,
   const size_t *local_work_size, cl_uint num_sync_points_in_wait_list,
   const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
   cl_mutable_command_khr *mutable_handle)
{
   const char *func = "clCommandNDRangeKernelKHR";
   cl_command_buffer_khr cb;
   cl_int err = check_common(command_buffer, command_queue, properties, mutable_handle,
                             num_sync_points_in_wait_list, sync_point_wait_list, &cb, func);
   if (err)
      return err;
   cl_kernel k;
   size_t offset[3], global[3], local[3];
   err = kiln_api_check_ndrange(cb->queue, kernel, work_dim, global_work_offset,
                                global_work_size, local_work_size, &k, offset, global, local,
                                NULL, func);
   if (err || (err = kiln_api_check_kernel_args(cb->queue, k)))
      return err;
   /* The arguments are captured now: later clSetKernelArg calls do not
    * change what this command runs. */
   struct kiln_cb_command c = {.kind = KILN_CB_NDRANGE};
   err = kiln_launch_create(cb->queue->device, k, work_dim, offset, global, local, &c.u.launch);
   if (err)
      return kiln_api_fail(func, err, err == CL_OUT_OF_RESOURCES
                                         ? "the __local memory exceeds the device's"
                                         : "cannot record");
   return record(cb, &c, num_sync_points_in_wait_list, sync_point_wait_list, sync_point, func);
}

/* ---- image commands ----
 * The checks are clEnqueue*Image's (api/image_check.h), with the command
 * buffer's context in place of the queue's.  Image copies become byte
 * rectangles over the images' pixel layouts (KILN_CB_COPY_RECT) resolved
 * here; a fill's colour becomes one pixel here (core/image_fill.h). */

/* The contexts of every object first, then their kinds, as the enqueue
 * checks do: images where image[i], buffers elsewhere. */
static cl_int check_mems(cl_command_buffer_khr cb, cl_uint n, const cl_mem *mems,
                         const bool *image, cl_mem *out, const char *func)
{
   for (cl_uint i = 0; i < n; i++) {
      cl_mem m = kiln_mem_from(mems[i]);
      if (m && m->context != cb->context)
         return kiln_api_fail(func, CL_INVALID_CONTEXT,
                              "memory object and command buffer of different contexts");
   }
   for (cl_uint i = 0; i < n; i++) {
      cl_mem m = kiln_mem_from(mems[i]);
      if (!m || kiln_mem_is_image(m) != image[i] || m->type == CL_MEM_OBJECT_PIPE)
         return kiln_api_fail(func, CL_INVALID_MEM_OBJECT, "%p is not %s", (void *)mems[i],
                              image[i] ? "an image" : "a buffer");
      out[i] = m;
   }
   return CL_SUCCESS;
}

static cl_int record_image_copy(cl_command_buffer_khr cb, cl_mem src, cl_mem dst,
                                const struct kiln_rect *s, const struct kiln_rect *d,
                                const size_t bytes[3], cl_uint num_sync,
                                const cl_sync_point_khr *sync_list, cl_sync_point_khr *sync_point,
                                const char *func)
{
   struct kiln_cb_command c = {.kind = KILN_CB_COPY_RECT, .mem = {src, dst}};
   c.u.rect.s = *s;
   c.u.rect.d = *d;
   memcpy(c.u.rect.region, bytes, sizeof(c.u.rect.region));
   return record(cb, &c, num_sync, sync_list, sync_point, func);
}

/* Image <-> buffer: the buffer side is the region packed tightly from
 * offset (5.3.4). */
static cl_int image_buffer(cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
                           const cl_command_properties_khr *properties,
                           cl_mutable_command_khr *mutable_handle, cl_uint num_sync,
                           const cl_sync_point_khr *sync_list, cl_sync_point_khr *sync_point,
                           cl_mem image, cl_mem buffer, const size_t *origin,
                           const size_t *region, size_t offset, bool to_buffer, const char *func)
{
   cl_command_buffer_khr cb;
   cl_mem m[2];
   const cl_mem mems[2] = {to_buffer ? image : buffer, to_buffer ? buffer : image};
   const bool is_image[2] = {to_buffer, !to_buffer};
   cl_int err = check_common(command_buffer, command_queue, properties, mutable_handle,
                             num_sync, sync_list, &cb, func);
   if (err || (err = check_mems(cb, 2, mems, is_image, m, func)))
      return err;
   cl_mem img = to_buffer ? m[0] : m[1], buf = to_buffer ? m[1] : m[0];
   if (!kiln_image_region_ok(img, origin, region))
      return kiln_api_fail(func, CL_INVALID_VALUE,
                           "origin/region NULL, empty or outside the image");
   size_t total = kiln_image_region_bytes(img, region);
   if (offset > buf->size || total > buf->size - offset)
      return kiln_api_fail(func, CL_INVALID_VALUE, "%zu bytes at offset %zu of a %zu-byte buffer",
                           total, offset, buf->size);
   if ((err = check_sub_alignment(cb, buf, func)) ||
       (err = kiln_api_image_device_check(cb->queue->device, img, func)))
      return err;
   struct kiln_rect ir, br;
   size_t bytes[3];
   kiln_image_rect(img, origin, region, &ir, bytes);
   br.origin[0] = offset;
   br.origin[1] = br.origin[2] = 0;
   br.row_pitch = bytes[0];
   br.slice_pitch = bytes[0] * region[1];
   return to_buffer ? record_image_copy(cb, img, buf, &ir, &br, bytes, num_sync, sync_list,
                                        sync_point, func)
                    : record_image_copy(cb, buf, img, &br, &ir, bytes, num_sync, sync_list,
                                        sync_point, func);
}

cl_int CL_API_CALL kiln_clCommandCopyBufferToImageKHR(
   cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_mem src_buffer, cl_mem dst_image,
   size_t src_offset, const size_t *dst_origin, const size_t *region,
   cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list,
   cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle)
{
   return image_buffer(command_buffer, command_queue, properties, mutable_handle,
                       num_sync_points_in_wait_list, sync_point_wait_list, sync_point, dst_image,
                       src_buffer, dst_origin, region, src_offset, false,
                       "clCommandCopyBufferToImageKHR");
}

cl_int CL_API_CALL kiln_clCommandCopyImageToBufferKHR(
   cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_mem src_image, cl_mem dst_buffer,
   const size_t *src_origin, const size_t *region, size_t dst_offset,
   cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list,
   cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle)
{
   return image_buffer(command_buffer, command_queue, properties, mutable_handle,
                       num_sync_points_in_wait_list, sync_point_wait_list, sync_point, src_image,
                       dst_buffer, src_origin, region, dst_offset, true,
                       "clCommandCopyImageToBufferKHR");
}

cl_int CL_API_CALL kiln_clCommandCopyImageKHR(
   cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_mem src_image, cl_mem dst_image,
   const size_t *src_origin, const size_t *dst_origin, const size_t *region,
   cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list,
   cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle)
{
   const char *func = "clCommandCopyImageKHR";
   cl_command_buffer_khr cb;
   cl_mem m[2];
   const cl_mem mems[2] = {src_image, dst_image};
   const bool is_image[2] = {true, true};
   cl_int err = check_common(command_buffer, command_queue, properties, mutable_handle,
                             num_sync_points_in_wait_list, sync_point_wait_list, &cb, func);
   if (err || (err = check_mems(cb, 2, mems, is_image, m, func)))
      return err;
   cl_mem src = m[0], dst = m[1];
   if (!kiln_image_formats_match(src, dst))
      return kiln_api_fail(func, CL_IMAGE_FORMAT_MISMATCH, "the images have different formats");
   if (!kiln_image_region_ok(src, src_origin, region) ||
       !kiln_image_region_ok(dst, dst_origin, region))
      return kiln_api_fail(func, CL_INVALID_VALUE,
                           "origin/region NULL, empty or outside an image");
   if ((err = kiln_api_image_device_check(cb->queue->device, src, func)) ||
       (err = kiln_api_image_device_check(cb->queue->device, dst, func)))
      return err;
   if (src == dst && kiln_image_boxes_meet(src_origin, dst_origin, region))
      return kiln_api_fail(func, CL_MEM_COPY_OVERLAP, "source and destination overlap");
   struct kiln_rect s, d;
   size_t bytes[3];
   kiln_image_rect(src, src_origin, region, &s, bytes);
   kiln_image_rect(dst, dst_origin, region, &d, bytes);
   return record_image_copy(cb, src, dst, &s, &d, bytes, num_sync_points_in_wait_list,
                            sync_point_wait_list, sync_point, func);
}

cl_int CL_API_CALL kiln_clCommandFillImageKHR(
   cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_mem image, const void *fill_color,
   const size_t *origin, const size_t *region, cl_uint num_sync_points_in_wait_list,
   const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
   cl_mutable_command_khr *mutable_handle)
{
   const char *func = "clCommandFillImageKHR";
   cl_command_buffer_khr cb;
   cl_mem m;
   const bool is_image[1] = {true};
   cl_int err = check_common(command_buffer, command_queue, properties, mutable_handle,
                             num_sync_points_in_wait_list, sync_point_wait_list, &cb, func);
   if (err || (err = check_mems(cb, 1, &image, is_image, &m, func)))
      return err;
   if (!fill_color)
      return kiln_api_fail(func, CL_INVALID_VALUE, "fill_color is NULL");
   if (!kiln_image_region_ok(m, origin, region))
      return kiln_api_fail(func, CL_INVALID_VALUE,
                           "origin/region NULL, empty or outside the image");
   if ((err = kiln_api_image_device_check(cb->queue->device, m, func)))
      return err;
   struct kiln_cb_command c = {.kind = KILN_CB_FILL_IMAGE, .mem = {m, NULL}};
   c.u.fill_image.pixel_size = kiln_image_fill_pixel(&m->image.format, fill_color,
                                                     c.u.fill_image.pixel);
   if (c.u.fill_image.pixel_size != m->image.elem_size)
      return kiln_api_fail(func, CL_IMAGE_FORMAT_NOT_SUPPORTED,
                           "cannot fill images of order 0x%x type 0x%x",
                           m->image.format.image_channel_order,
                           m->image.format.image_channel_data_type);
   kiln_image_rect(m, origin, region, &c.u.fill_image.r, c.u.fill_image.bytes);
   return record(cb, &c, num_sync_points_in_wait_list, sync_point_wait_list, sync_point, func);
}
