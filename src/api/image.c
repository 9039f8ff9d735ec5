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

/* The largest extents any image-capable device of ctx allows for type
 * (0 when none supports images): width, height, depth or array size. */
static void max_sizes(cl_context ctx, cl_mem_object_type type, size_t max[3])
{
   max[0] = max[1] = max[2] = 0;
   for (cl_uint i = 0; i < ctx->num_devices; i++) {
      const struct pipe_caps *c = ctx->devices[i]->caps;
      if (!c->image_support)
         continue;
      size_t m[3];
      switch (type) {
      case CL_MEM_OBJECT_IMAGE3D:
         m[0] = c->image3d_max_width, m[1] = c->image3d_max_height, m[2] = c->image3d_max_depth;
         break;
      case CL_MEM_OBJECT_IMAGE1D_BUFFER:
         m[0] = c->image_max_buffer_size, m[1] = m[2] = 1;
         break;
      case CL_MEM_OBJECT_IMAGE1D_ARRAY:
         m[0] = c->image2d_max_width, m[1] = c->image_max_array_size, m[2] = 1;
         break;
      case CL_MEM_OBJECT_IMAGE2D_ARRAY:
         m[0] = c->image2d_max_width, m[1] = c->image2d_max_height,
         m[2] = c->image_max_array_size;
         break;
      default: /* 1D, 2D */
         m[0] = c->image2d_max_width, m[1] = c->image2d_max_height, m[2] = 1;
         break;
      }
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

/* What a creation call asks for, in the storage terms of struct _cl_mem
 * (extent[1] is a 1D array's layer count, extent[2] a 2D array's) plus
 * the application's pitches as it gave them. */
struct image_request {
   cl_mem_object_type type;
   size_t extent[3];
   size_t row_pitch, slice_pitch;
   cl_mem buffer; /* 1D image buffer */
};

/* clCreateImage's descriptor rules (5.3.1.2) that are not sizes against
 * the device limits: CL_INVALID_IMAGE_DESCRIPTOR when one fails.  Fills
 * req. */
static bool desc_valid(cl_context ctx, const cl_image_desc *d, size_t elem, void *host_ptr,
                       struct image_request *req, const char **why)
{
   *why = "image_desc is NULL";
   if (!d)
      return false;
   req->type = d->image_type;
   req->row_pitch = d->image_row_pitch;
   req->slice_pitch = d->image_slice_pitch;
   req->buffer = NULL;
   size_t w = d->image_width, h = 1, z = 1;
   bool slices = false; /* whether slice_pitch is used */
   switch (d->image_type) {
   case CL_MEM_OBJECT_IMAGE1D:
   case CL_MEM_OBJECT_IMAGE1D_BUFFER:
      break;
   case CL_MEM_OBJECT_IMAGE1D_ARRAY:
      h = d->image_array_size, slices = true;
      break;
   case CL_MEM_OBJECT_IMAGE2D:
      h = d->image_height;
      break;
   case CL_MEM_OBJECT_IMAGE2D_ARRAY:
      h = d->image_height, z = d->image_array_size, slices = true;
      break;
   case CL_MEM_OBJECT_IMAGE3D:
      h = d->image_height, z = d->image_depth, slices = true;
      break;
   default:
      *why = "image_type is not an image type";
      return false;
   }
   req->extent[0] = w, req->extent[1] = h, req->extent[2] = z;
   if (!w || !h || !z) {
      *why = "a dimension or the array size is 0";
      return false;
   }
   if (d->num_mip_levels || d->num_samples) {
      *why = "num_mip_levels and num_samples must be 0";
      return false;
   }
   /* Pitches: 0 without host_ptr; with it, 0 or a tight row at least and
    * a multiple of the element (row), 0 or at least a row (1D array) or
    * a row times the height (2D array, 3D) and a multiple of the row
    * pitch (slice).  Products are checked against overflow later, with
    * the sizes; here only the relations. */
   /* A 1D image buffer has one row, so a row pitch is meaningless; the
    * CTS gives one (the buffer's size) and later specs accept it for
    * images made from buffers, so it is checked like a host pointer's
    * and ignored. */
   bool from_buffer = d->image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER;
   if (!host_ptr && ((d->image_row_pitch && !from_buffer) || (slices && d->image_slice_pitch))) {
      *why = "pitches must be 0 without host_ptr";
      return false;
   }
   if (from_buffer && d->image_row_pitch &&
       (w > SIZE_MAX / elem || d->image_row_pitch < w * elem || d->image_row_pitch % elem)) {
      *why = "row pitch smaller than the row or not a multiple of the element";
      return false;
   }
   if (host_ptr) {
      size_t rp = d->image_row_pitch ? d->image_row_pitch : w * elem;
      if (w > SIZE_MAX / elem || rp < w * elem || rp % elem) {
         *why = "row pitch smaller than a row or not a multiple of the element";
         return false;
      }
      if (slices && d->image_slice_pitch) {
         size_t rows = d->image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 1 : h;
         if (rp > SIZE_MAX / rows || d->image_slice_pitch < rp * rows ||
             d->image_slice_pitch % rp) {
            *why = "slice pitch smaller than a slice or not a multiple of the row pitch";
            return false;
         }
      }
   }
   if (d->image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
      cl_mem b = kiln_mem_from(d->buffer);
      if (!b || b->type != CL_MEM_OBJECT_BUFFER || b->context != ctx) {
         *why = "buffer is not a buffer of the context";
         return false;
      }
      if (w > b->size / elem) {
         *why = "the image is larger than the buffer";
         return false;
      }
      req->buffer = b;
   } else if (d->buffer) {
      *why = "buffer given for an image that is not a 1D image buffer";
      return false;
   }
   return true;
}

/* The flags of a 1D image buffer against its buffer's (5.3.1): access
 * and host access may narrow, never widen; host-pointer flags may not be
 * given.  Resolves the inherited flags into *flags. */
static bool buffer_flags_ok(cl_mem buf, cl_mem_flags *flags)
{
   cl_mem_flags f = *flags;
   if (f & (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR))
      return false;
   if (!kiln_api_flags_narrow(buf->flags, f))
      return false;
   *flags = kiln_api_inherit_flags(buf->flags, f);
   return true;
}

/* Every creation call: checks in the order 5.3.1 (1.2) lists the errors,
 * then creates.  desc_api: clCreateImage, whose descriptor errors are
 * CL_INVALID_IMAGE_DESCRIPTOR where the 1.1 calls say
 * CL_INVALID_IMAGE_SIZE. */
static cl_mem create_image(cl_context context, cl_mem_flags flags,
                           const cl_image_format *image_format, const cl_image_desc *desc,
                           bool desc_api, void *host_ptr, cl_int *errcode_ret, const char *func)
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
   size_t elem = kiln_image_format_size(image_format);
   struct image_request req;
   const char *why;
   if (!desc_valid(ctx, desc, elem, host_ptr, &req, &why)) {
      err = kiln_api_fail(func, desc_api ? CL_INVALID_IMAGE_DESCRIPTOR : CL_INVALID_IMAGE_SIZE,
                          "%s", why);
      goto fail;
   }
   size_t max[3];
   max_sizes(ctx, req.type, max);
   if (any_image_device(ctx) &&
       (req.extent[0] > max[0] || req.extent[1] > max[1] || req.extent[2] > max[2])) {
      err = kiln_api_fail(func, CL_INVALID_IMAGE_SIZE, "%zu x %zu x %zu (max %zu x %zu x %zu)",
                          req.extent[0], req.extent[1], req.extent[2], max[0], max[1], max[2]);
      goto fail;
   }
   bool wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
   if (wants_ptr != (host_ptr != NULL)) {
      err = kiln_api_fail(func, CL_INVALID_HOST_PTR, "host_ptr %p with flags 0x%llx", host_ptr,
                          (unsigned long long)flags);
      goto fail;
   }
   if (req.buffer && !buffer_flags_ok(req.buffer, &flags)) {
      err = kiln_api_fail(func, CL_INVALID_VALUE,
                          "flags 0x%llx do not fit the buffer's 0x%llx",
                          (unsigned long long)flags, (unsigned long long)req.buffer->flags);
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

   /* Storage geometry: the application's pitches with a host pointer,
    * tight rows otherwise.  A 1D array stores a layer per row, so its
    * storage row pitch is the layer (slice) pitch.  The extents are
    * within the device limits, so the products fit. */
   struct kiln_image_geom g = {.type = req.type,
                               .width = req.extent[0],
                               .height = req.extent[1],
                               .depth = req.extent[2]};
   bool array1d = req.type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
   size_t rp = host_ptr && req.row_pitch ? req.row_pitch : g.width * elem;
   size_t rows = array1d ? 1 : g.height;
   size_t sp = host_ptr && req.slice_pitch && (array1d || kiln_image_type_has_slices(req.type))
                  ? req.slice_pitch
                  : rp * rows;
   g.info_row_pitch = rp;
   g.info_slice_pitch = array1d || kiln_image_type_has_slices(req.type) ? sp : 0;
   g.row_pitch = array1d ? sp : rp;
   g.slice_pitch = kiln_image_type_has_slices(req.type) ? sp : 0;
   if (array1d)
      g.array_size = g.height;
   else if (req.type == CL_MEM_OBJECT_IMAGE2D_ARRAY)
      g.array_size = g.depth;
   cl_mem mem = NULL;
   err = kiln_mem_create_image(ctx, flags, image_format, elem, &g, host_ptr, req.buffer, &mem);
   if (err) {
      err = kiln_api_fail(func, err, "cannot create a %zu x %zu x %zu image", g.width, g.height,
                          g.depth);
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
   const cl_image_desc d = {.image_type = CL_MEM_OBJECT_IMAGE2D,
                            .image_width = image_width,
                            .image_height = image_height,
                            .image_row_pitch = image_row_pitch};
   return create_image(context, flags, image_format, &d, false, host_ptr, errcode_ret,
                       __func__);
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateImage3D(cl_context context, cl_mem_flags flags,
                                                const cl_image_format *image_format,
                                                size_t image_width, size_t image_height,
                                                size_t image_depth, size_t image_row_pitch,
                                                size_t image_slice_pitch, void *host_ptr,
                                                cl_int *errcode_ret)
{
   /* 1.1: a 3D image has a depth of 2 at least. */
   const cl_image_desc d = {.image_type = CL_MEM_OBJECT_IMAGE3D,
                            .image_width = image_width,
                            .image_height = image_height,
                            .image_depth = image_depth > 1 ? image_depth : 0,
                            .image_row_pitch = image_row_pitch,
                            .image_slice_pitch = image_slice_pitch};
   return create_image(context, flags, image_format, &d, false, host_ptr, errcode_ret,
                       __func__);
}

/* OpenCL 1.2 (5.3.1): every image type through one descriptor. */
CL_API_ENTRY cl_mem CL_API_CALL clCreateImage(cl_context context, cl_mem_flags flags,
                                              const cl_image_format *image_format,
                                              const cl_image_desc *image_desc, void *host_ptr,
                                              cl_int *errcode_ret)
{
   return create_image(context, flags, image_format, image_desc, true, host_ptr, errcode_ret,
                       __func__);
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
   if (!kiln_mem_type_is_image(image_type))
      return API_FAIL(CL_INVALID_VALUE, "image_type 0x%x", image_type);
   if (!num_entries && image_formats)
      return API_FAIL(CL_INVALID_VALUE, "num_entries 0 with a format array");
   /* Every format is supported for every access and image type (1D
    * buffers included: they are the same linear rows), by every device
    * that has images at all. */
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
   cl_mem_object_type t = m->type;
   bool one_d = t == CL_MEM_OBJECT_IMAGE1D || t == CL_MEM_OBJECT_IMAGE1D_BUFFER ||
                t == CL_MEM_OBJECT_IMAGE1D_ARRAY;
   switch (param_name) {
   case CL_IMAGE_FORMAT:
      INFO_VALUE(cl_image_format, m->image.format);
   case CL_IMAGE_ELEMENT_SIZE:
      INFO_VALUE(size_t, m->image.elem_size);
   case CL_IMAGE_ROW_PITCH:
      INFO_VALUE(size_t, m->image.info_row_pitch);
   case CL_IMAGE_SLICE_PITCH:
      /* 5.3.7: a 3D image's slice, an array's layer, 0 otherwise. */
      INFO_VALUE(size_t, m->image.info_slice_pitch);
   case CL_IMAGE_WIDTH:
      INFO_VALUE(size_t, m->image.width);
   case CL_IMAGE_HEIGHT:
      /* 0 for 1D images and 1D arrays (whose storage rows are layers). */
      INFO_VALUE(size_t, one_d ? 0 : m->image.height);
   case CL_IMAGE_DEPTH:
      /* 0 for anything but a 3D image (a 2D array's slices are layers). */
      INFO_VALUE(size_t, t == CL_MEM_OBJECT_IMAGE3D ? m->image.depth : 0);
   case CL_IMAGE_ARRAY_SIZE:
      INFO_VALUE(size_t, m->image.array_size);
   case CL_IMAGE_BUFFER:
      INFO_VALUE(cl_mem, m->image.buffer);
   case CL_IMAGE_NUM_MIP_LEVELS:
   case CL_IMAGE_NUM_SAMPLES:
      INFO_VALUE(cl_uint, 0);
   default:
      return API_FAIL(CL_INVALID_VALUE, "unknown param_name 0x%x", param_name);
   }
}

/* ---- transfers ---- */

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
   /* What clGetImageInfo says: a 1D array's layers lie a storage row
    * apart, which is its slice pitch. */
   *image_row_pitch = m->image.info_row_pitch;
   if (image_slice_pitch)
      *image_slice_pitch = m->image.info_slice_pitch;
   kiln_set_error(errcode_ret, CL_SUCCESS);
   return ptr;
}
