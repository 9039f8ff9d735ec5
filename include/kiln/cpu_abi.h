/* The calling convention between kernels compiled for the CPU device
 * (src/llvm/cpu/workgroup.c generates the code) and the CPU pipe driver that
 * calls them (src/pipe/cpu).  Both sides must agree on every offset here.
 *
 * Each kernel <k> becomes a work-group function
 *     void __kiln_wg_<k>(const void *args, const struct kiln_wg_ctx *ctx)
 * that runs all work-items of one work-group.  args holds the kernel's
 * arguments at the offsets recorded in the kernel's metadata: global and
 * constant buffers as pointers, __local arguments as byte offsets into
 * ctx->local_mem, everything else by value.
 *
 * Code that calls printf stores records in ctx->printf_buffer
 * (src/llvm/printf_lower.c, include/kiln/printf.h).
 *
 * Code built with KILN_CHECK=bounds (src/llvm/cpu/bounds_check.c) also reads
 * ctx->bounds and calls two functions of the CPU driver's run-time
 * (src/pipe/cpu/cpu_bounds.c), which the JIT defines for each program:
 *     void __kiln_bounds_fail(const struct kiln_wg_ctx *ctx, int32_t what,
 *                             int64_t offset, uint64_t size, uint64_t limit,
 *                             uint32_t flags, const char *name,
 *                             uint64_t lid0, uint64_t lid1, uint64_t lid2)
 *        records an out-of-bounds access (include/kiln/bounds.h has the
 *        meaning of the values) and leaves the work-group function: it
 *        never returns.
 *     int32_t __kiln_bounds_find(const struct kiln_wg_ctx *ctx, uint64_t addr,
 *                                uint64_t size, uint32_t flags)
 *        1 when [addr, addr + size) lies inside one object of the launch
 *        that the address space in flags can reach, else 0.
 */
#ifndef KILN_CPU_ABI_H
#define KILN_CPU_ABI_H

#include <stdint.h>

#define KILN_WG_PREFIX "__kiln_wg_"
#define KILN_BOUNDS_FAIL_FN "__kiln_bounds_fail"
#define KILN_BOUNDS_FIND_FN "__kiln_bounds_find"
/* A call the work-group pass replaces by the function's ctx parameter, for
 * code that needs the launch context before the work-group function
 * exists (bounds checks). */
#define KILN_WG_CTX_FN "__kiln_wg_ctx"

/* Each kernel <k> also has a constant
 *     const uint64_t __kiln_stack_<k>[KILN_STACK_FIELDS]
 * saying how much of the calling thread's stack its work-group function
 * takes: [KILN_STACK_FIXED] bytes for any work-group (the frames of the
 * function and of the deepest chain of functions of the program it calls,
 * as the optimised code has them) plus [KILN_STACK_PER_ITEM] bytes for each
 * work-item of the group (the per-work-item copies of private values that
 * live across a barrier; 0 without barriers).  The driver refuses launches
 * its worker stacks cannot hold (docs/design.md, "Launch limits"). */
#define KILN_STACK_PREFIX "__kiln_stack_"
enum { KILN_STACK_FIXED, KILN_STACK_PER_ITEM, KILN_STACK_FIELDS };

/* A kernel <k> may also have a constant
 *     const uint64_t __kiln_max_items_<k>
 * the most work-items a work-group of it may have, below the device's
 * maximum: kernels that call a sub-group function (a work-group is one
 * sub-group, docs/subgroups.md) are held to KILN_SUB_GROUP_MAX_ITEMS.
 * Absent: no limit of the kernel's own. */
#define KILN_MAX_ITEMS_PREFIX "__kiln_max_items_"

/* A kernel <k> whose work-groups have __local variables of their own (or
 * the collectives' scratch) also has a constant
 *     const uint64_t __kiln_local_<k>
 * their bytes (what its description's local_mem_size says): the driver
 * reads it where it launches a kernel without the description, a block
 * a kernel enqueued (include/kiln/devq_abi.h).  Absent: 0. */
#define KILN_LOCAL_PREFIX "__kiln_local_"

/* A kernel <k> whose results do not depend on how dimension 0 is cut into
 * work-groups (src/llvm/cpu/wg_regroup.h) also has a constant
 *     const uint64_t __kiln_regroup_<k> = 1
 * and the driver may run a launch's uniform groups of dimension 0 several
 * at a time as one larger group.  Absent: never. */
#define KILN_REGROUP_PREFIX "__kiln_regroup_"
#define KILN_SUB_GROUP_MAX_ITEMS 128

struct kiln_bounds;

struct kiln_wg_ctx {
   uint64_t global_offset[3];  /* offset 0 */
   uint64_t global_size[3];    /* 24 */
   uint64_t local_size[3];     /* 48 */
   uint64_t num_groups[3];     /* 72 */
   uint64_t group_id[3];       /* 96 */
   char *local_mem;            /* 120: this work-group's __local arena */
   uint32_t work_dim;          /* 128 */
   uint32_t pad;
   struct kiln_bounds *bounds; /* 136: KILN_CHECK=bounds, else NULL */
   /* 144: struct kiln_printf_buffer (include/kiln/printf.h) for programs
    * that call printf, else NULL. */
   void *printf_buffer;
   /* 152: the local size the launch asked for.  local_size is this
    * group's own, smaller in the last group of a dimension that the local
    * size does not divide (non-uniform work-groups, OpenCL 2.0+). */
   uint64_t enqueued_local_size[3];
   /* 176: the bytes of local_mem this work-group owns (its __local
    * variables and arguments, as the launch bound them): to_local() and
    * get_fence() of the generic address space (OpenCL C 3.0) tell a
    * __local address by [local_mem, local_mem + local_mem_size). */
   uint64_t local_mem_size;
   /* 184: the launch's device-side enqueue state (src/pipe/cpu/cpu_devq.h)
    * that the run-time of include/kiln/devq_abi.h finds through ctx;
    * NULL where the device has none. */
   void *device_enqueue;
};

/* Field indices as the LLVM struct type sees them (workgroup.c). */
enum kiln_wg_ctx_field {
   KILN_CTX_GLOBAL_OFFSET,
   KILN_CTX_GLOBAL_SIZE,
   KILN_CTX_LOCAL_SIZE,
   KILN_CTX_NUM_GROUPS,
   KILN_CTX_GROUP_ID,
   KILN_CTX_LOCAL_MEM,
   KILN_CTX_WORK_DIM,
   KILN_CTX_PAD,
   KILN_CTX_BOUNDS,
   KILN_CTX_PRINTF,
   KILN_CTX_ENQUEUED_LOCAL_SIZE,
   KILN_CTX_LOCAL_MEM_SIZE,
   KILN_CTX_DEVICE_ENQUEUE,
};

typedef void (*kiln_wg_fn)(const void *args, const struct kiln_wg_ctx *ctx);

#endif
