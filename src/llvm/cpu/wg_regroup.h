/* Kernels whose results do not depend on how dimension 0 is cut into
 * work-groups (docs/kernels.md, "Work-groups merged in dimension 0").
 *
 * A kernel without barriers, __local memory, collectives, sub-group or
 * device-enqueue functions, that reads get_local_id(0), get_group_id(0),
 * get_local_size(0) and get_enqueued_local_size(0) only as
 * `get_local_size(0) * get_group_id(0) + get_local_id(0)` (the group's
 * first global index plus the local id, through integer casts, operands
 * in either order), and never get_num_groups(0), computes the same for
 * every work-item whatever the local size in dimension 0, as long as the
 * groups are uniform and the indices fit 31 bits.  The driver may then
 * run several consecutive work-groups as one (cpu_compute.c): GPU-style
 * grid-stride loops, which step by the global size from the group's
 * start, then read a contiguous run of the merged groups' width per round
 * instead of the work-group's alone (pyopencl's elementwise kernels run
 * 128-wide groups). */
#ifndef KILN_LLVM_CPU_WG_REGROUP_H
#define KILN_LLVM_CPU_WG_REGROUP_H

#include <llvm-c/Core.h>
#include <stdbool.h>

/* Whether fn (the work-group function, its kernel inlined, before the
 * work-item functions are lowered) is such a kernel, __local arguments
 * and variables aside (the caller checks those). */
bool kiln_wg_regroupable(LLVMValueRef fn);

#endif
