/* clEnqueueFillImage (OpenCL 1.2, 5.3.5).  The colour becomes one pixel
 * of the image's format here (core/image_fill.h), so the command only
 * writes rows of bytes. */
#include "api/api.h"
#include "api/image_check.h"
#include "core/image_fill.h"
#include "core/mem.h"
#include "core/queue.h"

CL_API_ENTRY cl_int CL_API_CALL clEnqueueFillImage(cl_command_queue command_queue, cl_mem image,
                                                   const void *fill_color, const size_t *origin,
                                                   const size_t *region,
                                                   cl_uint num_events_in_wait_list,
                                                   const cl_event *event_wait_list,
                                                   cl_event *event)
{
   cl_command_queue q;
   cl_mem m;
   const bool is_image[1] = {true};
   cl_int err = kiln_api_image_check_objects(command_queue, 1, &image, is_image,
                                             num_events_in_wait_list, event_wait_list, &q, &m,
                                             __func__);
   if (err)
      return err;
   if (!fill_color)
      return API_FAIL(CL_INVALID_VALUE, "fill_color is NULL");
   if (!kiln_image_region_ok(m, origin, region))
      return API_FAIL(CL_INVALID_VALUE, "origin/region NULL, empty or outside the image");
   if ((err = kiln_api_check_wait_list(q->context, num_events_in_wait_list, event_wait_list,
                                       __func__)) ||
       (err = kiln_api_image_device_check(q->device, m, __func__)))
      return err;
   unsigned char pixel[KILN_IMAGE_MAX_PIXEL];
   size_t pixel_size = kiln_image_fill_pixel(&m->image.format, fill_color, pixel);
   if (pixel_size != m->image.elem_size)
      return API_FAIL(CL_IMAGE_FORMAT_NOT_SUPPORTED, "cannot fill images of order 0x%x type 0x%x",
                      m->image.format.image_channel_order,
                      m->image.format.image_channel_data_type);
   struct kiln_rect r;
   size_t bytes[3];
   kiln_image_rect(m, origin, region, &r, bytes);
   cl_event ev;
   err = kiln_enqueue_fill_image(q, m, pixel, pixel_size, &r, bytes,
                                 (struct kiln_wait_list){num_events_in_wait_list,
                                                         event_wait_list},
                                 &ev);
   if (err)
      return API_FAIL(err, "cannot enqueue");
   return kiln_api_finish_enqueue(ev, false, event);
}
