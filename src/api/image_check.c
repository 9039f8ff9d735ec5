#include "api/image_check.h"

#include "api/api.h"
#include "core/device.h"
#include "core/image_format.h"
#include "core/mem.h"
#include "core/queue.h"

cl_int kiln_api_image_check_objects(cl_command_queue command_queue, cl_uint num_mems,
                                    const cl_mem *mems, const bool *image, cl_uint num_events,
                                    const cl_event *wait_list, cl_command_queue *qp, cl_mem *out,
                                    const char *func)
{
   cl_command_queue q = kiln_queue_from(command_queue);
   if (!q)
      return kiln_api_fail(func, CL_INVALID_COMMAND_QUEUE, "%p is not a queue",
                           (void *)command_queue);
   for (cl_uint i = 0; i < num_mems; i++) {
      cl_mem m = kiln_mem_from(mems[i]);
      if (m && m->context != q->context)
         return kiln_api_fail(func, CL_INVALID_CONTEXT,
                              "memory object and queue of different contexts");
   }
   cl_int err = kiln_api_check_wait_list_context(q->context, num_events, wait_list, func);
   if (err)
      return err;
   for (cl_uint i = 0; i < num_mems; i++) {
      cl_mem m = kiln_mem_from(mems[i]);
      if (!m || kiln_mem_is_image(m) != image[i] || m->type == CL_MEM_OBJECT_PIPE)
         return kiln_api_fail(func, CL_INVALID_MEM_OBJECT, "%p is not %s", (void *)mems[i],
                              image[i] ? "an image" : "a buffer");
      out[i] = m;
   }
   *qp = q;
   return CL_SUCCESS;
}

bool kiln_image_region_ok(cl_mem img, const size_t *origin, const size_t *region)
{
   if (!origin || !region || !region[0] || !region[1] || !region[2])
      return false;
   /* Unused axes have extent 1, so they force origin 0 and region 1 (a
    * 2D image's z, as 5.3.3 asks). */
   const size_t dims[3] = {img->image.width, img->image.height, img->image.depth};
   for (int d = 0; d < 3; d++)
      if (origin[d] > dims[d] || region[d] > dims[d] - origin[d])
         return false;
   return true;
}

void kiln_image_rect(cl_mem img, const size_t *origin, const size_t *region, struct kiln_rect *r,
                     size_t bytes_region[3])
{
   r->origin[0] = origin[0] * img->image.elem_size;
   r->origin[1] = origin[1];
   r->origin[2] = origin[2];
   r->row_pitch = img->image.row_pitch;
   r->slice_pitch = img->image.slice_pitch;
   bytes_region[0] = region[0] * img->image.elem_size;
   bytes_region[1] = region[1];
   bytes_region[2] = region[2];
}

bool kiln_image_formats_match(cl_mem a, cl_mem b)
{
   return a->image.format.image_channel_order == b->image.format.image_channel_order &&
          a->image.format.image_channel_data_type == b->image.format.image_channel_data_type;
}

bool kiln_image_boxes_meet(const size_t *a, const size_t *b, const size_t *region)
{
   for (int d = 0; d < 3; d++)
      if (!(a[d] < b[d] + region[d] && b[d] < a[d] + region[d]))
         return false;
   return true;
}

size_t kiln_image_region_bytes(cl_mem img, const size_t *region)
{
   return region[0] * img->image.elem_size * region[1] * region[2];
}

cl_int kiln_api_image_device_check(cl_device_id dev, cl_mem img, const char *func)
{
   const struct pipe_caps *c = dev->caps;
   if (!c->image_support)
      return kiln_api_fail(func, CL_INVALID_OPERATION, "the queue's device has no images");
   if (!kiln_image_format_supported(&img->image.format))
      return kiln_api_fail(func, CL_IMAGE_FORMAT_NOT_SUPPORTED,
                           "the queue's device has no images of this format");
   /* 1.2's 1D and array types have limits of their own (image buffer
    * size, array size); they are checked where those types are made. */
   if (img->type != CL_MEM_OBJECT_IMAGE2D && img->type != CL_MEM_OBJECT_IMAGE3D)
      return CL_SUCCESS;
   bool three_d = img->type == CL_MEM_OBJECT_IMAGE3D;
   size_t max_w = three_d ? c->image3d_max_width : c->image2d_max_width;
   size_t max_h = three_d ? c->image3d_max_height : c->image2d_max_height;
   size_t max_d = three_d ? c->image3d_max_depth : 1;
   if (img->image.width > max_w || img->image.height > max_h || img->image.depth > max_d)
      return kiln_api_fail(func, CL_INVALID_IMAGE_SIZE,
                           "a %zu x %zu x %zu image is too large for the queue's device",
                           img->image.width, img->image.height, img->image.depth);
   return CL_SUCCESS;
}
