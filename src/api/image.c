/* The OpenCL 1.1 image entry points (5.2.4-5.2.8 for images):
 * clCreateImage2D/3D, clGetSupportedImageFormats, clGetImageInfo and the
 * image transfers, copies and maps.
 *
 * An image is a cl_mem whose resource holds its elements linearly (rows
 * of row_pitch bytes, slices of slice_pitch), so every transfer is one of
 * the byte-rectangle commands buffers use (core/command.h), enqueued
 * under the image command's type. */
#include <string.h>

#include "api/api.h"
#include "api/image_check.h"
#include "core/command.h"
#include "core/context.h"
#include "core/device.h"
#include "core/image_format.h"
#include "core/mem.h"
#include "core/queue.h"

#define ACCESS_FLAGS (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY)

/* ---- creation ---- */

/* The largest sizes any image-capable device of ctx allows (0 when none
 * supports images). */
static void max_sizes(cl_context ctx, bool three_d, size_t max[3])
{
   max[0] = max[1] = max[2] = 0;
   for (cl_uint i = 0; i < ctx->num_devices; i++) {
      const struct pipe_caps *c = ctx->devices[i]->caps;
      if (!c->image_support)
         continue;
      size_t m[3] = {three_d ? c->image3d_max_width : c->image2d_max_width,
                     three_d ? c->image3d_max_height : c->image2d_max_height,
                     three_d ? c->image3d_max_depth : 1};
      for (int d = 0; d < 3; d++)
         if (m[d] > max[d])
            max[d] = m[d];
   }
}

static bool any_image_device(cl_context ctx)
{
   for (cl_uint i = 0; i < ctx->num_devices; i++)
      if (ctx->devices[i]->caps->image_support)
         return true;
   return false;
}

/* Both creation calls: checks in the order 5.2.4 lists the errors, then
 * creates.  depth is 1 for 2D images (slice_pitch then ignored). */
static cl_mem create_image(cl_context context, cl_mem_flags flags,
                           const cl_image_format *image_format, cl_mem_object_type type,
                           size_t width, size_t height, size_t depth, size_t row_pitch,
                           size_t slice_pitch, void *host_ptr, cl_int *errcode_ret,
                           const char *func)
{
   cl_int err;
   cl_context ctx = kiln_context_from(context);
   if (!ctx) {
      err = kiln_api_fail(func, CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
      goto fail;
   }
   if (!kiln_api_valid_mem_flags(flags)) {
      err = kiln_api_fail(func, CL_INVALID_VALUE, "flags 0x%llx", (unsigned long long)flags);
      goto fail;
   }
   if (!kiln_image_format_valid(image_format)) {
      err = image_format ? kiln_api_fail(func, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                                         "channel order 0x%x with data type 0x%x",
                                         image_format->image_channel_order,
                                         image_format->image_channel_data_type)
                         : kiln_api_fail(func, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                                         "image_format is NULL");
      goto fail;
   }
   bool three_d = type == CL_MEM_OBJECT_IMAGE3D;
   size_t elem = kiln_image_format_size(image_format);
   size_t max[3];
   max_sizes(ctx, three_d, max);
   bool size_ok = width && height && (three_d ? depth > 1 : depth == 1) &&
                  (!any_image_device(ctx) ||
                   (width <= max[0] && height <= max[1] && depth <= max[2]));
   /* Pitches: 0 without host_ptr; with it, 0 or at least a tight row
    * (slice), and a multiple of the element (row).  Resolved here. */
   size_t rp = row_pitch, sp = slice_pitch;
   if (size_ok && !host_ptr)
      size_ok = !row_pitch && (!three_d || !slice_pitch);
   if (size_ok && host_ptr) {
      if (!rp)
         rp = width * elem;
      size_ok = rp >= width * elem && rp % elem == 0 && rp <= SIZE_MAX / height;
      if (size_ok && three_d) {
         if (!sp)
            sp = rp * height;
         size_ok = sp >= rp * height && sp % rp == 0 && sp <= SIZE_MAX / depth;
      }
   }
   if (!size_ok) {
      err = kiln_api_fail(func, CL_INVALID_IMAGE_SIZE,
                          "%zu x %zu x %zu, row pitch %zu, slice pitch %zu, host_ptr %p "
                          "(max %zu x %zu x %zu)",
                          width, height, depth, row_pitch, slice_pitch, host_ptr, max[0],
                          max[1], max[2]);
      goto fail;
   }
   bool wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
   if (wants_ptr != (host_ptr != NULL)) {
      err = kiln_api_fail(func, CL_INVALID_HOST_PTR, "host_ptr %p with flags 0x%llx", host_ptr,
                          (unsigned long long)flags);
      goto fail;
   }
   if (!any_image_device(ctx)) {
      err = kiln_api_fail(func, CL_INVALID_OPERATION, "no device of the context has images");
      goto fail;
   }
   if (!kiln_image_format_supported(image_format)) {
      err = kiln_api_fail(func, CL_IMAGE_FORMAT_NOT_SUPPORTED, "order 0x%x type 0x%x",
                          image_format->image_channel_order,
                          image_format->image_channel_data_type);
      goto fail;
   }
   if (!(flags & ACCESS_FLAGS))
      flags |= CL_MEM_READ_WRITE;
   cl_mem mem = NULL;
   err = kiln_mem_create_image(ctx, flags, type, image_format, elem, width, height, depth, rp,
                               sp, host_ptr, &mem);
   if (err) {
      err = kiln_api_fail(func, err, "cannot create a %zu x %zu x %zu image", width, height,
                          depth);
      goto fail;
   }
   kiln_set_error(errcode_ret, CL_SUCCESS);
   return mem;
fail:
   kiln_set_error(errcode_ret, err);
   return NULL;
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateImage2D(cl_context context, cl_mem_flags flags,
                                                const cl_image_format *image_format,
                                                size_t image_width, size_t image_height,
                                                size_t image_row_pitch, void *host_ptr,
                                                cl_int *errcode_ret)
{
   return create_image(context, flags, image_format, CL_MEM_OBJECT_IMAGE2D, image_width,
                       image_height, 1, image_row_pitch, 0, host_ptr, errcode_ret, __func__);
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateImage3D(cl_context context, cl_mem_flags flags,
                                                const cl_image_format *image_format,
                                                size_t image_width, size_t image_height,
                                                size_t image_depth, size_t image_row_pitch,
                                                size_t image_slice_pitch, void *host_ptr,
                                                cl_int *errcode_ret)
{
   return create_image(context, flags, image_format, CL_MEM_OBJECT_IMAGE3D, image_width,
                       image_height, image_depth, image_row_pitch, image_slice_pitch, host_ptr,
                       errcode_ret, __func__);
}

/* OpenCL 1.2 (5.3.1).  Kiln's device is 1.1, but a 1.2 loader dispatches
 * it and the CTS's image suites create every image through it; 2D and 3D
 * descriptors map onto the 1.1 calls, other types are refused. */
CL_API_ENTRY cl_mem CL_API_CALL clCreateImage(cl_context context, cl_mem_flags flags,
                                              const cl_image_format *image_format,
                                              const cl_image_desc *image_desc, void *host_ptr,
                                              cl_int *errcode_ret)
{
   if (!kiln_context_from(context))
      API_FAIL_RET(errcode_ret, CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
   if (!kiln_api_valid_mem_flags(flags))
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "flags 0x%llx", (unsigned long long)flags);
   if (!kiln_image_format_valid(image_format))
      API_FAIL_RET(errcode_ret, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "invalid image format");
   const cl_image_desc *d = image_desc;
   if (!d ||
       (d->image_type != CL_MEM_OBJECT_IMAGE2D && d->image_type != CL_MEM_OBJECT_IMAGE3D) ||
       d->num_mip_levels || d->num_samples || d->buffer)
      API_FAIL_RET(errcode_ret, CL_INVALID_IMAGE_DESCRIPTOR,
                   "only 2D and 3D images without mipmaps, samples or buffer");
   bool three_d = d->image_type == CL_MEM_OBJECT_IMAGE3D;
   return create_image(context, flags, image_format, d->image_type, d->image_width,
                       d->image_height, three_d ? d->image_depth : 1, d->image_row_pitch,
                       three_d ? d->image_slice_pitch : 0, host_ptr, errcode_ret, __func__);
}

CL_API_ENTRY cl_int CL_API_CALL clGetSupportedImageFormats(cl_context context, cl_mem_flags flags,
                                                           cl_mem_object_type image_type,
                                                           cl_uint num_entries,
                                                           cl_image_format *image_formats,
                                                           cl_uint *num_image_formats)
{
   cl_context ctx = kiln_context_from(context);
   if (!ctx)
      return API_FAIL(CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
   if (!kiln_api_valid_mem_flags(flags))
      return API_FAIL(CL_INVALID_VALUE, "flags 0x%llx", (unsigned long long)flags);
   if (image_type != CL_MEM_OBJECT_IMAGE2D && image_type != CL_MEM_OBJECT_IMAGE3D)
      return API_FAIL(CL_INVALID_VALUE, "image_type 0x%x", image_type);
   if (!num_entries && image_formats)
      return API_FAIL(CL_INVALID_VALUE, "num_entries 0 with a format array");
   /* Every format is supported for every access and dimension, by every
    * device that has images at all. */
   cl_uint n = any_image_device(ctx) ? kiln_image_formats_list(image_formats, num_entries) : 0;
   if (num_image_formats)
      *num_image_formats = n;
   return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clGetImageInfo(cl_mem image, cl_image_info param_name,
                                               size_t param_value_size, void *param_value,
                                               size_t *param_value_size_ret)
{
   cl_mem m = kiln_mem_from(image);
   if (!m || !kiln_mem_is_image(m))
      return API_FAIL_HANDLE(param_name >= CL_IMAGE_FORMAT && param_name <= CL_IMAGE_NUM_SAMPLES,
                             param_name, CL_INVALID_MEM_OBJECT, image, "an image");
   bool three_d = m->type == CL_MEM_OBJECT_IMAGE3D;
   switch (param_name) {
   case CL_IMAGE_FORMAT:
      INFO_VALUE(cl_image_format, m->image.format);
   case CL_IMAGE_ELEMENT_SIZE:
      INFO_VALUE(size_t, m->image.elem_size);
   case CL_IMAGE_ROW_PITCH:
      INFO_VALUE(size_t, m->image.row_pitch);
   case CL_IMAGE_SLICE_PITCH:
      INFO_VALUE(size_t, three_d ? m->image.slice_pitch : 0);
   case CL_IMAGE_WIDTH:
      INFO_VALUE(size_t, m->image.width);
   case CL_IMAGE_HEIGHT:
      INFO_VALUE(size_t, m->image.height);
   case CL_IMAGE_DEPTH:
      /* 5.3.6: 0 for a 2D image. */
      INFO_VALUE(size_t, three_d ? m->image.depth : 0);
   /* OpenCL 1.2 names, which a 1.2 application (the CTS) asks of any
    * image: Kiln's images have no array, buffer, mipmaps or samples. */
   case CL_IMAGE_ARRAY_SIZE:
      INFO_VALUE(size_t, 0);
   case CL_IMAGE_BUFFER:
      INFO_VALUE(cl_mem, NULL);
   case CL_IMAGE_NUM_MIP_LEVELS:
   case CL_IMAGE_NUM_SAMPLES:
      INFO_VALUE(cl_uint, 0);
   default:
      return API_FAIL(CL_INVALID_VALUE, "unknown param_name 0x%x", param_name);
   }
}

/* ---- transfers ---- */

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
   if (m->type == CL_MEM_OBJECT_IMAGE2D && slice_pitch)
      return kiln_api_fail(func, CL_INVALID_VALUE, "slice pitch %zu for a 2D image",
                           slice_pitch);
   struct kiln_rect img, host = {{0, 0, 0}, 0, 0};
   size_t bytes[3];
   kiln_image_rect(m, origin, region, &img, bytes);
   host.row_pitch = row_pitch ? row_pitch : bytes[0];
   host.slice_pitch = slice_pitch ? slice_pitch : host.row_pitch * region[1];
   if (host.row_pitch < bytes[0] || host.slice_pitch < host.row_pitch * region[1])
      return kiln_api_fail(func, CL_INVALID_VALUE, "pitches %zu/%zu smaller than the region",
                           row_pitch, slice_pitch);
   if ((err = kiln_api_check_wait_list(q->context, num_events, wait_list, func)))
      return err;
   cl_event ev;
   err = kiln_enqueue_rw_rect(q, write ? CL_COMMAND_WRITE_IMAGE : CL_COMMAND_READ_IMAGE, m,
                              write, &img, &host, bytes, ptr,
                              (struct kiln_wait_list){num_events, wait_list}, &ev);
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
   if (!kiln_image_region_ok(m, origin, region) ||
       (map_flags & ~(cl_map_flags)(CL_MAP_READ | CL_MAP_WRITE)))
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "region outside the image or flags 0x%llx",
                   (unsigned long long)map_flags);
   if (!image_row_pitch)
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "image_row_pitch is NULL");
   if (m->type == CL_MEM_OBJECT_IMAGE3D && !image_slice_pitch)
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "image_slice_pitch is NULL for a 3D image");
   if ((err = kiln_api_check_wait_list(q->context, num_events_in_wait_list, event_wait_list,
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
                          (struct kiln_wait_list){num_events_in_wait_list, event_wait_list},
                          &ev, &ptr);
   if (err)
      API_FAIL_RET(errcode_ret, err, "cannot enqueue");
   err = kiln_api_finish_enqueue(ev, blocking_map, event);
   if (err) {
      kiln_mem_unmap(m, ptr);
      kiln_set_error(errcode_ret, err);
      return NULL;
   }
   *image_row_pitch = m->image.row_pitch;
   if (image_slice_pitch)
      *image_slice_pitch = m->type == CL_MEM_OBJECT_IMAGE3D ? m->image.slice_pitch : 0;
   kiln_set_error(errcode_ret, CL_SUCCESS);
   return ptr;
}
