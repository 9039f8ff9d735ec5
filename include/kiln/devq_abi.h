/* Device-side enqueue on the CPU device: what kernels call (through
 * src/llvm/builtins/enqueue.cl and enqueue_glue.ll) in the CPU driver's
 * run-time (src/pipe/cpu/cpu_devq.c), which the JIT defines for every
 * program.  ctx is the calling work-group's struct kiln_wg_ctx
 * (include/kiln/cpu_abi.h), whose device_enqueue field leads to the
 * launch's state.  Handles:
 *   queue_t      the cl_command_queue of an on-device queue, as the host
 *                set it (never dereferenced by the device);
 *   clk_event_t  a struct of the run-time (CLK_NULL_EVENT: all ones);
 *   a block's kernel: a pointer to its name (src/llvm/block_kernels.c).
 *
 *   int32_t __kiln_devq_enqueue(ctx, queue, flags, const struct
 *        kiln_ndrange *, num_events, const clk_event_t *wait_list,
 *        clk_event_t *event_ret, const char *kernel, const void *block,
 *        num_local_sizes, const uint64_t *local_sizes)
 *   int32_t __kiln_devq_kernel_query(ctx, what, const char *kernel,
 *        const struct kiln_ndrange *)            what: KILN_DEVQ_QUERY_*
 *   void *__kiln_devq_default_queue(ctx)
 *   int32_t __kiln_devq_marker(ctx, queue, num_events, wait_list, event_ret)
 *   void *__kiln_devq_user_event(ctx)
 *   void __kiln_devq_retain(ctx, event), __kiln_devq_release(ctx, event)
 *   void __kiln_devq_set_status(ctx, event, int32_t status)
 *   int32_t __kiln_devq_is_valid(ctx, event)
 *   void __kiln_devq_capture(ctx, event, int32_t name, uint64_t *value)
 */
#ifndef KILN_DEVQ_ABI_H
#define KILN_DEVQ_ABI_H

#include <stdint.h>

/* Every run-time function's name starts so (the compiler lets kernels
 * call them). */
#define KILN_DEVQ_PREFIX "__kiln_devq_"

/* OpenCL C's ndrange_t as Clang lays it out for x86-64. */
struct kiln_ndrange {
   uint32_t work_dim;
   uint64_t global_offset[3];
   uint64_t global_size[3];
   uint64_t local_size[3]; /* 0: the implementation picks */
};

enum kiln_devq_query {
   KILN_DEVQ_QUERY_WORK_GROUP_SIZE,
   KILN_DEVQ_QUERY_PREFERRED_MULTIPLE,
   KILN_DEVQ_QUERY_MAX_SUB_GROUP_SIZE,
   KILN_DEVQ_QUERY_SUB_GROUP_COUNT,
};

#endif
