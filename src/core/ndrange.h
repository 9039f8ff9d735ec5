/* Kernel launches as commands: clEnqueueNDRangeKernel/Task and native
 * kernels. */
#ifndef KILN_CORE_NDRANGE_H
#define KILN_CORE_NDRANGE_H

#include "core/command.h"

/* type: CL_COMMAND_NDRANGE_KERNEL or CL_COMMAND_TASK.  Work sizes already
 * validated and local sizes chosen.  Fails with
 * CL_OUT_OF_RESOURCES when the __local memory does not fit the device.
 * observed: the application gets the event (core/event.h, unobserved). */
cl_int kiln_enqueue_ndrange(cl_command_queue q, cl_command_type type, cl_kernel k,
                            cl_uint work_dim,
                            const size_t offset[3], const size_t global[3],
                            const size_t local[3], struct kiln_wait_list wait, bool observed,
                            cl_event *ev);

/* A launch with its arguments packed (by-value slots filled, a binding
 * for every other argument, each memory object and the kernel held): what an enqueue builds, and what a command
 * buffer builds once at record time and replays (core/cmdbuf.h). */
struct kiln_launch;
struct pipe_context;
cl_int kiln_launch_create(cl_device_id dev, cl_kernel k, cl_uint work_dim,
                          const size_t offset[3], const size_t global[3], const size_t local[3],
                          struct kiln_launch **out);
/* Records it into p, a pipe context of dev, on dev's executor; may run
 * many times.  kiln_launch_check, once the work is done, reports an
 * out-of-bounds access (KILN_CHECK=bounds) as the launch's failure. */
cl_int kiln_launch_run(struct kiln_launch *l, cl_device_id dev, struct pipe_context *p);
cl_int kiln_launch_check(struct kiln_launch *l);
void kiln_launch_destroy(struct kiln_launch *l);

/* Picks a local size for global (clEnqueueNDRangeKernel with
 * local_work_size NULL): divisors of the global size, wide in x so the
 * work-item loop vectorizes, with enough groups for every core. */
void kiln_ndrange_choose_local(cl_device_id dev, cl_kernel k, cl_uint work_dim,
                               const size_t global[3], size_t local[3]);

typedef void(CL_CALLBACK *kiln_native_fn)(void *);

cl_int kiln_enqueue_native(cl_command_queue q, kiln_native_fn fn, const void *args,
                           size_t cb_args, cl_uint num_mems, const cl_mem *mems,
                           const void **mem_locs, struct kiln_wait_list wait, cl_event *ev);

#endif
