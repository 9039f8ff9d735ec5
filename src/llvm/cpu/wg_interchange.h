/* Loop interchange by barrier: running a kernel's own loop outside the
 * loop over work-items, so that the work-item loop, now innermost, can be
 * vectorized across work-items.
 *
 * LLVM's loop vectorizer vectorizes innermost loops only.  A kernel whose
 * body contains a loop (clpeak's `for (i = 0; i < 128; i++) { MAD_16(x,
 * y); }`, a naive matrix product's `for (k = 0; k < K; k++) acc +=
 * A[row * K + k] * B[k * N + col]`) therefore runs each work-item's loop
 * on its own, scalar, with the work-items one after another.  Between two
 * barriers the work-items of a group may run in any interleaving (OpenCL
 * C 1.1, 3.3.1), so a loop whose trip count is the same for every
 * work-item may as well run with all work-items in step: iteration k of
 * every work-item, then iteration k + 1.  That is what a barrier at the
 * loop's latch gives: the work-group pass (wg_regions.c) then makes the
 * loop body a region looped over the work-items, and wg_loop_split.c
 * gives the loop control a region the group runs once.
 *
 * Step 1, kiln_wg_mark_interchange, runs on the inlined kernel in SSA form
 * and marks the loops for which this is expected to pay: no barrier or
 * call inside, some work done per work-item, not a small constant trip
 * count (the optimiser unrolls those completely, which vectorizes them
 * across work-items anyway), and no memory access that is contiguous
 * along the loop but not across work-items (a row per work-item, which
 * the loop vectorizer handles better along the loop: such loops run in
 * jammed blocks of work-items where wg_jam.h allows), no store that every
 * work-item makes to the same address (a single work-item "task" kernel).
 * Step 2, kiln_wg_interchange, runs after reg2mem and the lowering of the
 * work-item functions and puts the barrier in each marked loop whose exits
 * the uniformity analysis (wg_uniform.h) proves the same for every
 * work-item; the marked loops left, whose trip counts vary, run in step
 * with an active flag per work-item where their shape allows
 * (wg_predicate.h), and the rest stay as they are.  For those, step 1
 * also rewrites a counter that starts at a work-item value and steps by a
 * group-wide one as start + trip * step.
 */
#ifndef KILN_LLVM_WG_INTERCHANGE_H
#define KILN_LLVM_WG_INTERCHANGE_H

#include <llvm-c/Core.h>
#include <stdbool.h>

/* Whether any loop of fn was marked (then fn needs reg2mem). */
bool kiln_wg_mark_interchange(LLVMValueRef fn);

/* Returns the number of barriers added; clears every mark.  lsize0: the
 * local size in dimension 0 (an i64 of the entry block). */
unsigned kiln_wg_interchange(LLVMModuleRef m, LLVMValueRef fn, LLVMValueRef lid, LLVMValueRef lsize0);

#endif
