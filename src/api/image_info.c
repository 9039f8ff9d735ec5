/* What images can be and what one is (OpenCL 1.2 5.3):
 * clGetSupportedImageFormats and clGetImageInfo. */
#include "api/api.h"
#include "core/context.h"
#include "core/image_format.h"
#include "core/image_geom.h"
#include "core/mem.h"

CL_API_ENTRY cl_int CL_API_CALL clGetSupportedImageFormats(cl_context context, cl_mem_flags flags,
                                                           cl_mem_object_type image_type,
                                                           cl_uint num_entries,
                                                           cl_image_format *image_formats,
                                                           cl_uint *num_image_formats)
{
   cl_context ctx = kiln_context_from(context);
   if (!ctx)
      return API_FAIL(CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
   /* 2.0 and 3.0 add CL_MEM_KERNEL_READ_AND_WRITE to this query: formats
    * a kernel may read and write through one read_write image argument.
    * None in a context whose devices have no read_write images
    * (CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS is 0 on every one). */
   bool read_write = flags & CL_MEM_KERNEL_READ_AND_WRITE;
   flags &= ~(cl_mem_flags)CL_MEM_KERNEL_READ_AND_WRITE;
   if (!kiln_api_valid_mem_flags(flags))
      return API_FAIL(CL_INVALID_VALUE, "flags 0x%llx", (unsigned long long)flags);
   if (!kiln_mem_type_is_image(image_type))
      return API_FAIL(CL_INVALID_VALUE, "image_type 0x%x", image_type);
   if (!num_entries && image_formats)
      return API_FAIL(CL_INVALID_VALUE, "num_entries 0 with a format array");
   /* Every format is supported for every access and image type (1D
    * buffers included: they are the same linear rows), by every device
    * that has images at all; read_write arguments too where a device
    * has them, as the same builtins read and write every format.  The
    * list is the union over the context's devices (5.3.2). */
   bool any = read_write ? kiln_context_has_read_write_images(ctx) : kiln_context_has_images(ctx);
   cl_uint n = any ? kiln_image_formats_list(image_formats, num_entries) : 0;
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
