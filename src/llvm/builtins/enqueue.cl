/* Device-side enqueue's OpenCL C functions (OpenCL C 3.0 6.15.16, with
 * __opencl_c_device_enqueue): the ndrange_t constructors, and the queue
 * and event functions, which call the CPU driver's run-time with the
 * launch context (include/kiln/devq_abi.h).  enqueue_kernel itself and
 * the block queries are in enqueue_glue.ll.  Compiled as OpenCL C 3.0
 * with the feature and the generic address space, so that the names are
 * those a 3.0 kernel calls. */
#include "kiln_cl.h"

/* The work-group pass lowers it to the launch context (workgroup.c). */
__private void *__kiln_wg_ctx(void);

queue_t __kiln_devq_default_queue(__private void *ctx);
int __kiln_devq_marker(__private void *ctx, queue_t q, uint n, const __generic clk_event_t *wait,
                       __generic clk_event_t *ret);
clk_event_t __kiln_devq_user_event(__private void *ctx);
void __kiln_devq_retain(__private void *ctx, clk_event_t e);
void __kiln_devq_release(__private void *ctx, clk_event_t e);
void __kiln_devq_set_status(__private void *ctx, clk_event_t e, int status);
int __kiln_devq_is_valid(__private void *ctx, clk_event_t e);
void __kiln_devq_capture(__private void *ctx, clk_event_t e, int name, __global void *value);

/* ---- ndrange_t: the local size 0 where the kernel leaves it to the
 * implementation, the offset 0 where it gives none. ---- */

static ndrange_t make_ndrange(uint dim, const size_t *off, const size_t *g, const size_t *l)
{
   ndrange_t r;
   r.workDimension = dim;
   for (uint d = 0; d < 3; d++) {
      r.globalWorkOffset[d] = off && d < dim ? off[d] : 0;
      r.globalWorkSize[d] = d < dim ? g[d] : 1;
      r.localWorkSize[d] = l ? (d < dim ? l[d] : 1) : 0;
   }
   return r;
}

OVL ndrange_t ndrange_1D(size_t g)
{
   return make_ndrange(1, 0, &g, 0);
}

OVL ndrange_t ndrange_1D(size_t g, size_t l)
{
   return make_ndrange(1, 0, &g, &l);
}

OVL ndrange_t ndrange_1D(size_t off, size_t g, size_t l)
{
   return make_ndrange(1, &off, &g, &l);
}

OVL ndrange_t ndrange_2D(const size_t g[2])
{
   return make_ndrange(2, 0, g, 0);
}

OVL ndrange_t ndrange_2D(const size_t g[2], const size_t l[2])
{
   return make_ndrange(2, 0, g, l);
}

OVL ndrange_t ndrange_2D(const size_t off[2], const size_t g[2], const size_t l[2])
{
   return make_ndrange(2, off, g, l);
}

OVL ndrange_t ndrange_3D(const size_t g[3])
{
   return make_ndrange(3, 0, g, 0);
}

OVL ndrange_t ndrange_3D(const size_t g[3], const size_t l[3])
{
   return make_ndrange(3, 0, g, l);
}

OVL ndrange_t ndrange_3D(const size_t off[3], const size_t g[3], const size_t l[3])
{
   return make_ndrange(3, off, g, l);
}

/* ---- Queues and events ---- */

OVL queue_t get_default_queue(void)
{
   return __kiln_devq_default_queue(__kiln_wg_ctx());
}

OVL int enqueue_marker(queue_t q, uint n, const __generic clk_event_t *wait,
                       __generic clk_event_t *ret)
{
   return __kiln_devq_marker(__kiln_wg_ctx(), q, n, wait, ret);
}

OVL void retain_event(clk_event_t e)
{
   __kiln_devq_retain(__kiln_wg_ctx(), e);
}

OVL void release_event(clk_event_t e)
{
   __kiln_devq_release(__kiln_wg_ctx(), e);
}

OVL clk_event_t create_user_event(void)
{
   return __kiln_devq_user_event(__kiln_wg_ctx());
}

OVL bool is_valid_event(clk_event_t e)
{
   return __kiln_devq_is_valid(__kiln_wg_ctx(), e) != 0;
}

OVL void set_user_event_status(clk_event_t e, int status)
{
   __kiln_devq_set_status(__kiln_wg_ctx(), e, status);
}

OVL void capture_event_profiling_info(clk_event_t e, clk_profiling_info name,
                                      __global void *value)
{
   __kiln_devq_capture(__kiln_wg_ctx(), e, name, value);
}
