/* The OpenCL 1.1 image and sampler entry points, while no Kiln device
 * supports images (CL_DEVICE_IMAGE_SUPPORT is CL_FALSE).
 *
 * No image or sampler object can exist, so every image or sampler handle
 * is invalid: these entry points check their other handles in the spec's
 * order and answer CL_INVALID_MEM_OBJECT / CL_INVALID_SAMPLER.  Those that
 * would create something, or list formats, still go through
 * kiln_api_unsupported (a warning and CL_INVALID_OPERATION, the error 1.1
 * gives when no device of the context supports images). */
#include "api/api.h"
#include "core/context.h"
#include "core/mem.h"
#include "core/queue.h"

#define NO_IMAGES "no image can exist (no device supports images)"

static cl_int check_context(cl_context context, const char *func)
{
   if (!kiln_context_from(context))
      return kiln_api_fail(func, CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
   return CL_SUCCESS;
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateImage2D(cl_context context, cl_mem_flags flags,
                                                const cl_image_format *image_format,
                                                size_t image_width, size_t image_height,
                                                size_t image_row_pitch, void *host_ptr,
                                                cl_int *errcode_ret)
{
   (void)flags, (void)image_format, (void)image_width, (void)image_height;
   (void)image_row_pitch, (void)host_ptr;
   cl_int err = check_context(context, __func__);
   kiln_set_error(errcode_ret, err ? err : kiln_api_unsupported(__func__));
   return NULL;
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateImage3D(cl_context context, cl_mem_flags flags,
                                                const cl_image_format *image_format,
                                                size_t image_width, size_t image_height,
                                                size_t image_depth, size_t image_row_pitch,
                                                size_t image_slice_pitch, void *host_ptr,
                                                cl_int *errcode_ret)
{
   (void)flags, (void)image_format, (void)image_width, (void)image_height, (void)image_depth;
   (void)image_row_pitch, (void)image_slice_pitch, (void)host_ptr;
   cl_int err = check_context(context, __func__);
   kiln_set_error(errcode_ret, err ? err : kiln_api_unsupported(__func__));
   return NULL;
}

CL_API_ENTRY cl_int CL_API_CALL clGetSupportedImageFormats(cl_context context, cl_mem_flags flags,
                                                           cl_mem_object_type image_type,
                                                           cl_uint num_entries,
                                                           cl_image_format *image_formats,
                                                           cl_uint *num_image_formats)
{
   (void)flags, (void)image_type, (void)num_entries, (void)image_formats;
   (void)num_image_formats;
   cl_int err = check_context(context, __func__);
   return err ? err : kiln_api_unsupported(__func__);
}

CL_API_ENTRY cl_int CL_API_CALL clGetImageInfo(cl_mem image, cl_image_info param_name,
                                               size_t param_value_size, void *param_value,
                                               size_t *param_value_size_ret)
{
   (void)param_value_size, (void)param_value, (void)param_value_size_ret;
   return API_FAIL_HANDLE(param_name >= CL_IMAGE_FORMAT && param_name <= CL_IMAGE_DEPTH,
                          param_name, CL_INVALID_MEM_OBJECT, image, "an image: " NO_IMAGES);
}

CL_API_ENTRY cl_sampler CL_API_CALL clCreateSampler(cl_context context, cl_bool normalized_coords,
                                                    cl_addressing_mode addressing_mode,
                                                    cl_filter_mode filter_mode,
                                                    cl_int *errcode_ret)
{
   (void)normalized_coords, (void)addressing_mode, (void)filter_mode;
   cl_int err = check_context(context, __func__);
   kiln_set_error(errcode_ret, err ? err : kiln_api_unsupported(__func__));
   return NULL;
}

CL_API_ENTRY cl_int CL_API_CALL clRetainSampler(cl_sampler sampler)
{
   return API_FAIL(CL_INVALID_SAMPLER, "%p is not a sampler: no sampler can exist",
                   (void *)sampler);
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseSampler(cl_sampler sampler)
{
   return API_FAIL(CL_INVALID_SAMPLER, "%p is not a sampler: no sampler can exist",
                   (void *)sampler);
}

CL_API_ENTRY cl_int CL_API_CALL clGetSamplerInfo(cl_sampler sampler, cl_sampler_info param_name,
                                                 size_t param_value_size, void *param_value,
                                                 size_t *param_value_size_ret)
{
   (void)param_value_size, (void)param_value, (void)param_value_size_ret;
   return API_FAIL_HANDLE(param_name >= CL_SAMPLER_REFERENCE_COUNT &&
                             param_name <= CL_SAMPLER_FILTER_MODE,
                          param_name, CL_INVALID_SAMPLER, sampler,
                          "a sampler: no sampler can exist");
}

/* What every image command checks before its image: the queue, then the
 * contexts (1.1 lists CL_INVALID_CONTEXT second: a buffer argument or an
 * event of another context).  Then the image, which cannot be valid. */
static cl_int image_command(cl_command_queue command_queue, cl_mem buffer, cl_uint num_events,
                            const cl_event *wait_list, const char *func)
{
   cl_command_queue q = kiln_queue_from(command_queue);
   if (!q)
      return kiln_api_fail(func, CL_INVALID_COMMAND_QUEUE, "%p is not a queue",
                           (void *)command_queue);
   cl_mem m = kiln_mem_from(buffer);
   if (m && m->context != q->context)
      return kiln_api_fail(func, CL_INVALID_CONTEXT, "buffer and queue of different contexts");
   cl_int err = kiln_api_check_wait_list_context(q->context, num_events, wait_list, func);
   if (err)
      return err;
   return kiln_api_fail(func, CL_INVALID_MEM_OBJECT, "%s", NO_IMAGES);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadImage(cl_command_queue command_queue, cl_mem image,
                                                   cl_bool blocking_read, const size_t *origin,
                                                   const size_t *region, size_t row_pitch,
                                                   size_t slice_pitch, void *ptr,
                                                   cl_uint num_events_in_wait_list,
                                                   const cl_event *event_wait_list,
                                                   cl_event *event)
{
   (void)image, (void)blocking_read, (void)origin, (void)region, (void)row_pitch;
   (void)slice_pitch, (void)ptr, (void)event;
   return image_command(command_queue, NULL, num_events_in_wait_list, event_wait_list, __func__);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteImage(cl_command_queue command_queue, cl_mem image,
                                                    cl_bool blocking_write, const size_t *origin,
                                                    const size_t *region, size_t input_row_pitch,
                                                    size_t input_slice_pitch, const void *ptr,
                                                    cl_uint num_events_in_wait_list,
                                                    const cl_event *event_wait_list,
                                                    cl_event *event)
{
   (void)image, (void)blocking_write, (void)origin, (void)region, (void)input_row_pitch;
   (void)input_slice_pitch, (void)ptr, (void)event;
   return image_command(command_queue, NULL, num_events_in_wait_list, event_wait_list, __func__);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyImage(cl_command_queue command_queue,
                                                   cl_mem src_image, cl_mem dst_image,
                                                   const size_t *src_origin,
                                                   const size_t *dst_origin, const size_t *region,
                                                   cl_uint num_events_in_wait_list,
                                                   const cl_event *event_wait_list,
                                                   cl_event *event)
{
   (void)src_image, (void)dst_image, (void)src_origin, (void)dst_origin, (void)region;
   (void)event;
   return image_command(command_queue, NULL, num_events_in_wait_list, event_wait_list, __func__);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyImageToBuffer(
   cl_command_queue command_queue, cl_mem src_image, cl_mem dst_buffer, const size_t *src_origin,
   const size_t *region, size_t dst_offset, cl_uint num_events_in_wait_list,
   const cl_event *event_wait_list, cl_event *event)
{
   (void)src_image, (void)src_origin, (void)region, (void)dst_offset, (void)event;
   return image_command(command_queue, dst_buffer, num_events_in_wait_list, event_wait_list,
                        __func__);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyBufferToImage(
   cl_command_queue command_queue, cl_mem src_buffer, cl_mem dst_image, size_t src_offset,
   const size_t *dst_origin, const size_t *region, cl_uint num_events_in_wait_list,
   const cl_event *event_wait_list, cl_event *event)
{
   (void)dst_image, (void)src_offset, (void)dst_origin, (void)region, (void)event;
   return image_command(command_queue, src_buffer, num_events_in_wait_list, event_wait_list,
                        __func__);
}

CL_API_ENTRY void *CL_API_CALL clEnqueueMapImage(
   cl_command_queue command_queue, cl_mem image, cl_bool blocking_map, cl_map_flags map_flags,
   const size_t *origin, const size_t *region, size_t *image_row_pitch,
   size_t *image_slice_pitch, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
   cl_event *event, cl_int *errcode_ret)
{
   (void)image, (void)blocking_map, (void)map_flags, (void)origin, (void)region;
   (void)image_row_pitch, (void)image_slice_pitch, (void)event;
   kiln_set_error(errcode_ret, image_command(command_queue, NULL, num_events_in_wait_list,
                                             event_wait_list, __func__));
   return NULL;
}
