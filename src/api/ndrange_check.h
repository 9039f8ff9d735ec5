/* Kernel-launch argument checks shared by clEnqueueNDRangeKernel
 * (api/enqueue.c) and clCommandNDRangeKernelKHR, so a recorded launch is
 * refused exactly when the same enqueue would be. */
#ifndef KILN_API_NDRANGE_CHECK_H
#define KILN_API_NDRANGE_CHECK_H

#include <CL/cl.h>
#include <stdbool.h>

/* The kernel (valid, of q's context, built for q's device, every argument
 * set and alive) and the work sizes, in the order 5.8 lists their errors.
 * On success sets *kp and the three 3-element arrays (local sizes chosen
 * when local_work_size is NULL).  empty non-NULL: on a device of OpenCL
 * 2.1 or later, a NULL global_work_size or a 0 in it is an empty launch
 * (*empty set; it does nothing once its wait list is done) rather than
 * CL_INVALID_GLOBAL_WORK_SIZE; a command buffer passes NULL and refuses it. */
cl_int kiln_api_check_ndrange(cl_command_queue q, cl_kernel kernel, cl_uint work_dim,
                              const size_t *global_work_offset, const size_t *global_work_size,
                              const size_t *local_work_size, cl_kernel *kp, size_t offset[3],
                              size_t global[3], size_t local[3], bool *empty, const char *func);

/* CL_MISALIGNED_SUB_BUFFER_OFFSET for a sub-buffer argument whose origin
 * does not suit q's device; CL_INVALID_OPERATION for SVM arguments on a
 * device without SVM. */
cl_int kiln_api_check_kernel_args(cl_command_queue q, cl_kernel k);

#endif
