/* The cl_khr_command_buffer entry points.  They are not exported and not
 * in the ICD dispatch table: applications find them with
 * clGetExtensionFunctionAddress (api/icd.c), under the names without the
 * kiln_ prefix.  Signatures are the registry's (kiln/cl_command_buffer.h). */
#ifndef KILN_API_COMMAND_BUFFER_H
#define KILN_API_COMMAND_BUFFER_H

#include "kiln/cl_command_buffer.h"

cl_command_buffer_khr CL_API_CALL kiln_clCreateCommandBufferKHR(
   cl_uint num_queues, const cl_command_queue *queues,
   const cl_command_buffer_properties_khr *properties, cl_int *errcode_ret);
cl_int CL_API_CALL kiln_clRetainCommandBufferKHR(cl_command_buffer_khr command_buffer);
cl_int CL_API_CALL kiln_clReleaseCommandBufferKHR(cl_command_buffer_khr command_buffer);
cl_int CL_API_CALL kiln_clFinalizeCommandBufferKHR(cl_command_buffer_khr command_buffer);
cl_int CL_API_CALL kiln_clEnqueueCommandBufferKHR(cl_uint num_queues, cl_command_queue *queues,
                                                  cl_command_buffer_khr command_buffer,
                                                  cl_uint num_events_in_wait_list,
                                                  const cl_event *event_wait_list,
                                                  cl_event *event);
cl_int CL_API_CALL kiln_clGetCommandBufferInfoKHR(cl_command_buffer_khr command_buffer,
                                                  cl_command_buffer_info_khr param_name,
                                                  size_t param_value_size, void *param_value,
                                                  size_t *param_value_size_ret);

cl_int CL_API_CALL kiln_clCommandBarrierWithWaitListKHR(
   cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_uint num_sync_points_in_wait_list,
   const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
   cl_mutable_command_khr *mutable_handle);
cl_int CL_API_CALL kiln_clCommandCopyBufferKHR(
   cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_mem src_buffer, cl_mem dst_buffer,
   size_t src_offset, size_t dst_offset, size_t size, cl_uint num_sync_points_in_wait_list,
   const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
   cl_mutable_command_khr *mutable_handle);
cl_int CL_API_CALL kiln_clCommandCopyBufferRectKHR(
   cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_mem src_buffer, cl_mem dst_buffer,
   const size_t *src_origin, const size_t *dst_origin, const size_t *region,
   size_t src_row_pitch, size_t src_slice_pitch, size_t dst_row_pitch, size_t dst_slice_pitch,
   cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list,
   cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle);
cl_int CL_API_CALL kiln_clCommandFillBufferKHR(
   cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_mem buffer, const void *pattern,
   size_t pattern_size, size_t offset, size_t size, cl_uint num_sync_points_in_wait_list,
   const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
   cl_mutable_command_khr *mutable_handle);
cl_int CL_API_CALL kiln_clCommandSVMMemcpyKHR(
   cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, void *dst_ptr, const void *src_ptr, size_t size,
   cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list,
   cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle);
cl_int CL_API_CALL kiln_clCommandSVMMemFillKHR(
   cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, void *svm_ptr, const void *pattern,
   size_t pattern_size, size_t size, cl_uint num_sync_points_in_wait_list,
   const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
   cl_mutable_command_khr *mutable_handle);
cl_int CL_API_CALL kiln_clCommandNDRangeKernelKHR(
   cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_kernel kernel, cl_uint work_dim,
   const size_t *global_work_offset, const size_t *global_work_size,
   const size_t *local_work_size, cl_uint num_sync_points_in_wait_list,
   const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
   cl_mutable_command_khr *mutable_handle);

/* Image commands: every image argument is invalid until Kiln has images. */
cl_int CL_API_CALL kiln_clCommandCopyBufferToImageKHR(
   cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_mem src_buffer, cl_mem dst_image,
   size_t src_offset, const size_t *dst_origin, const size_t *region,
   cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list,
   cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle);
cl_int CL_API_CALL kiln_clCommandCopyImageKHR(
   cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_mem src_image, cl_mem dst_image,
   const size_t *src_origin, const size_t *dst_origin, const size_t *region,
   cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list,
   cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle);
cl_int CL_API_CALL kiln_clCommandCopyImageToBufferKHR(
   cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_mem src_image, cl_mem dst_buffer,
   const size_t *src_origin, const size_t *region, size_t dst_offset,
   cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list,
   cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle);
cl_int CL_API_CALL kiln_clCommandFillImageKHR(
   cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_mem image, const void *fill_color,
   const size_t *origin, const size_t *region, cl_uint num_sync_points_in_wait_list,
   const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
   cl_mutable_command_khr *mutable_handle);

#endif
