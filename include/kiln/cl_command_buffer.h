/* cl_khr_command_buffer as the Khronos registry describes it today.
 *
 * Debian's opencl-headers (2023.02) carry the provisional 0.9.0 text: the
 * recording entry points there have no `properties` argument, and names
 * added since (CL_COMMAND_BUFFER_CONTEXT_KHR, the supported queue
 * properties query, cl_command_properties_khr) are missing.  Kiln
 * implements the registry's signatures; this header declares what the
 * system header lacks and the function types of every entry point, which
 * applications reach through clGetExtensionFunctionAddress.  The
 * prototypes themselves are not declared: they would clash with the older
 * ones in <CL/cl_ext.h>.
 */
#ifndef KILN_CL_COMMAND_BUFFER_H
#define KILN_CL_COMMAND_BUFFER_H

#include <CL/cl.h>
#include <CL/cl_ext.h>

/* Also provided by <CL/cl_ext.h> since 2023; kept here so the header
 * stands alone on older systems. */
#ifndef CL_KHR_COMMAND_BUFFER_EXTENSION_NAME
#error "Kiln needs an <CL/cl_ext.h> that declares cl_khr_command_buffer (opencl-headers 2023 or later)"
#endif

/* The version Kiln implements: 0.9.8's semantics (no Pending state, queue
 * substitution by device and supported properties) with the recording
 * signatures 0.9.5 introduced.  Kiln's devices are OpenCL 1.x without
 * cl_khr_extended_versioning, so no query reports it at run time. */
/* CL_MAKE_VERSION(0, 9, 8), spelled out: <CL/cl.h> defines that macro
 * only for OpenCL 3.0 targets. */
#define KILN_CL_KHR_COMMAND_BUFFER_EXTENSION_VERSION ((0u << 22) | (9u << 12) | 8u)

/* Added by version 0.9.5 of the extension (one type for every command's
 * properties, replacing cl_ndrange_kernel_command_properties_khr). */
typedef cl_properties kiln_cl_command_properties_khr;
#define cl_command_properties_khr kiln_cl_command_properties_khr

#ifndef CL_COMMAND_BUFFER_CONTEXT_KHR
#define CL_COMMAND_BUFFER_CONTEXT_KHR 0x1299
#endif
#ifndef CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR
#define CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR 0x129A
#endif
/* cl_command_buffer_flags_khr bits of the companion extensions, which
 * Kiln recognises (to answer CL_INVALID_PROPERTY) but does not support. */
#ifndef CL_COMMAND_BUFFER_MUTABLE_KHR
#define CL_COMMAND_BUFFER_MUTABLE_KHR (1 << 1)
#endif
#ifndef CL_COMMAND_BUFFER_DEVICE_SIDE_SYNC_KHR
#define CL_COMMAND_BUFFER_DEVICE_SIDE_SYNC_KHR (1 << 2)
#endif
#ifndef CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR
#define CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR 0x12B7
#endif

typedef cl_command_buffer_khr(CL_API_CALL *kiln_clCreateCommandBufferKHR_fn)(
   cl_uint num_queues, const cl_command_queue *queues,
   const cl_command_buffer_properties_khr *properties, cl_int *errcode_ret);
typedef cl_int(CL_API_CALL *kiln_clFinalizeCommandBufferKHR_fn)(cl_command_buffer_khr cb);
typedef cl_int(CL_API_CALL *kiln_clRetainCommandBufferKHR_fn)(cl_command_buffer_khr cb);
typedef cl_int(CL_API_CALL *kiln_clReleaseCommandBufferKHR_fn)(cl_command_buffer_khr cb);
typedef cl_int(CL_API_CALL *kiln_clEnqueueCommandBufferKHR_fn)(
   cl_uint num_queues, cl_command_queue *queues, cl_command_buffer_khr cb,
   cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event);
typedef cl_int(CL_API_CALL *kiln_clGetCommandBufferInfoKHR_fn)(
   cl_command_buffer_khr cb, cl_command_buffer_info_khr param_name, size_t param_value_size,
   void *param_value, size_t *param_value_size_ret);
typedef cl_int(CL_API_CALL *kiln_clCommandBarrierWithWaitListKHR_fn)(
   cl_command_buffer_khr cb, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_uint num_sync_points_in_wait_list,
   const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
   cl_mutable_command_khr *mutable_handle);
typedef cl_int(CL_API_CALL *kiln_clCommandCopyBufferKHR_fn)(
   cl_command_buffer_khr cb, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_mem src_buffer, cl_mem dst_buffer,
   size_t src_offset, size_t dst_offset, size_t size, cl_uint num_sync_points_in_wait_list,
   const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
   cl_mutable_command_khr *mutable_handle);
typedef cl_int(CL_API_CALL *kiln_clCommandCopyBufferRectKHR_fn)(
   cl_command_buffer_khr cb, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_mem src_buffer, cl_mem dst_buffer,
   const size_t *src_origin, const size_t *dst_origin, const size_t *region,
   size_t src_row_pitch, size_t src_slice_pitch, size_t dst_row_pitch, size_t dst_slice_pitch,
   cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list,
   cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle);
typedef cl_int(CL_API_CALL *kiln_clCommandFillBufferKHR_fn)(
   cl_command_buffer_khr cb, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_mem buffer, const void *pattern,
   size_t pattern_size, size_t offset, size_t size, cl_uint num_sync_points_in_wait_list,
   const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
   cl_mutable_command_khr *mutable_handle);
typedef cl_int(CL_API_CALL *kiln_clCommandSVMMemcpyKHR_fn)(
   cl_command_buffer_khr cb, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, void *dst_ptr, const void *src_ptr, size_t size,
   cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list,
   cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle);
typedef cl_int(CL_API_CALL *kiln_clCommandSVMMemFillKHR_fn)(
   cl_command_buffer_khr cb, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, void *svm_ptr, const void *pattern,
   size_t pattern_size, size_t size, cl_uint num_sync_points_in_wait_list,
   const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
   cl_mutable_command_khr *mutable_handle);
typedef cl_int(CL_API_CALL *kiln_clCommandNDRangeKernelKHR_fn)(
   cl_command_buffer_khr cb, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_kernel kernel, cl_uint work_dim,
   const size_t *global_work_offset, const size_t *global_work_size,
   const size_t *local_work_size, cl_uint num_sync_points_in_wait_list,
   const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
   cl_mutable_command_khr *mutable_handle);

typedef cl_int(CL_API_CALL *kiln_clCommandCopyImageKHR_fn)(
   cl_command_buffer_khr cb, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_mem src_image, cl_mem dst_image,
   const size_t *src_origin, const size_t *dst_origin, const size_t *region,
   cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list,
   cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle);
typedef cl_int(CL_API_CALL *kiln_clCommandCopyImageToBufferKHR_fn)(
   cl_command_buffer_khr cb, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_mem src_image, cl_mem dst_buffer,
   const size_t *src_origin, const size_t *region, size_t dst_offset,
   cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list,
   cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle);
typedef cl_int(CL_API_CALL *kiln_clCommandCopyBufferToImageKHR_fn)(
   cl_command_buffer_khr cb, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_mem src_buffer, cl_mem dst_image,
   size_t src_offset, const size_t *dst_origin, const size_t *region,
   cl_uint num_sync_points_in_wait_list, const cl_sync_point_khr *sync_point_wait_list,
   cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle);
typedef cl_int(CL_API_CALL *kiln_clCommandFillImageKHR_fn)(
   cl_command_buffer_khr cb, cl_command_queue command_queue,
   const cl_command_properties_khr *properties, cl_mem image, const void *fill_color,
   const size_t *origin, const size_t *region, cl_uint num_sync_points_in_wait_list,
   const cl_sync_point_khr *sync_point_wait_list, cl_sync_point_khr *sync_point,
   cl_mutable_command_khr *mutable_handle);

#endif
