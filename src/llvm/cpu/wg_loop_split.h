/* For kernels with barriers: gives the control of loops that contain a
 * barrier regions of their own.
 *
 * A loop with a barrier in its body must run the same number of times
 * in every work-item (OpenCL C 1.1, 6.12.8), so its exit branches are
 * uniform.  Without help the work-group pass puts the loop's condition
 * and counter update in the same region as the loop body, runs them once
 * per work-item, and keeps the counter in one slot per work-item, which
 * defeats vectorizing the body across work-items.  Putting a barrier on
 * each edge out of such an exiting block (legal: every work-item takes
 * the same edge the same number of times, which the uniformity analysis
 * confirms) leaves the control alone in a region that workgroup.c then
 * runs once per group.
 *
 * Runs after reg2mem (no phis) and the lowering of work-item functions;
 * returns how many barriers it added.
 */
#ifndef KILN_LLVM_WG_LOOP_SPLIT_H
#define KILN_LLVM_WG_LOOP_SPLIT_H

#include <llvm-c/Core.h>

unsigned kiln_wg_split_uniform_loops(LLVMValueRef fn, LLVMValueRef lid, LLVMValueRef barrier_fn);

#endif
