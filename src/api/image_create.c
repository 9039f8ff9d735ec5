/* Image creation (OpenCL 1.2 5.3.1): clCreateImage2D/3D and
 * clCreateImage.  The descriptor and flags are checked here, in the order
 * the spec lists the errors; the limits and the storage layout are
 * core's (core/image_geom.h).
 *
 * An image is a cl_mem whose resource holds its elements linearly (rows
 * of row_pitch bytes, slices of slice_pitch). */
#include "api/api.h"
#include "core/context.h"
#include "core/device.h"
#include "core/image_format.h"
#include "core/image_geom.h"
#include "core/mem.h"

#define ACCESS_FLAGS (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY)

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

/* The newest OpenCL version among the context's devices (100 * major +
 * 10 * minor). */
static unsigned context_version(cl_context ctx)
{
   unsigned v = 120;
   for (cl_uint i = 0; i < ctx->num_devices; i++)
      if (ctx->devices[i]->caps->opencl_version > v)
         v = ctx->devices[i]->caps->opencl_version;
   return v;
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
   if (desc && desc->image_type == CL_MEM_OBJECT_IMAGE2D && desc->buffer &&
       context_version(ctx) >= 200) {
      /* 2.0 made a 2D image over a buffer (or another image) a feature a
       * device may have; none of Kiln's has it, which 3.0 answers with
       * CL_INVALID_OPERATION (1.2: not a valid descriptor, below). */
      err = kiln_api_fail(func, CL_INVALID_OPERATION,
                          "no device of the context creates 2D images from buffers");
      goto fail;
   }
   struct image_request req;
   const char *why;
   if (!desc_valid(ctx, desc, elem, host_ptr, &req, &why)) {
      err = kiln_api_fail(func, desc_api ? CL_INVALID_IMAGE_DESCRIPTOR : CL_INVALID_IMAGE_SIZE,
                          "%s", why);
      goto fail;
   }
   size_t max[3];
   kiln_context_image_max(ctx, req.type, max);
   if (kiln_context_has_images(ctx) &&
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
   if (!kiln_context_has_images(ctx)) {
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
    * tight rows otherwise. */
   struct kiln_image_geom g;
   kiln_image_geom_init(&g, req.type, req.extent, elem, host_ptr ? req.row_pitch : 0,
                        host_ptr ? req.slice_pitch : 0);
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

/* OpenCL 3.0: clCreateImage with a property list (5.3.1). */
CL_API_ENTRY cl_mem CL_API_CALL clCreateImageWithProperties(
   cl_context context, const cl_mem_properties *properties, cl_mem_flags flags,
   const cl_image_format *image_format, const cl_image_desc *image_desc, void *host_ptr,
   cl_int *errcode_ret)
{
   if (!kiln_context_from(context))
      API_FAIL_RET(errcode_ret, CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
   cl_int err = kiln_api_check_mem_properties(properties, __func__);
   if (err)
      API_FAIL_RET(errcode_ret, err, "bad properties");
   cl_mem mem = create_image(context, flags, image_format, image_desc, true, host_ptr,
                             errcode_ret, __func__);
   return kiln_api_mem_set_properties(mem, properties, errcode_ret);
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
