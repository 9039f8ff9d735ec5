/* Jammed row loops, step 3 (step 1: wg_jam_wide.h), from
 * kiln_wg_jam_region: in a jammed round of a wide loop, each work-item's
 * copy of the round becomes two parts, the address and the vector loads
 * first for all K work-items (with their prefetches, KILN_JAM_PREFETCH),
 * then the vectors of each load transposed 8 work-items at a time (K = 16:
 * two such halves), then each work-item's rest,
 * whose e_k of work-item j becomes lane j of the k-th transposed vector:
 * lane = work-item, as the SLP vectorizer lays out the 8 interleaved
 * chains, which then take the transposed vectors as they are.  The
 * transposition joins the rows' halves first, loaded from memory (a
 * vinsertf128 from memory on x86), then shuffles within 128-bit lanes
 * (16 shuffles).  A row that step 1 found to be the same for every
 * work-item of a block (its address built from values common to the
 * group and a counter that starts at such a value: x[k] of a
 * matrix-vector product) is not transposed: work-item 0's row serves all
 * 8, lane k broadcast. */
#ifndef KILN_LLVM_WG_JAM_TRANSPOSE_H
#define KILN_LLVM_WG_JAM_TRANSPOSE_H

#include <llvm-c/Core.h>

struct kiln_wg;

/* What the jammed block has besides its rounds' bodies: pre, a block
 * that runs once as the block starts, with lid.x = x (NULL: none), and
 * the headers H_j of the round (wg_jam.h). */
struct kiln_wg_jam_block {
   LLVMBasicBlockRef pre;
   LLVMValueRef x;
   LLVMBasicBlockRef *heads;
};

/* starts[j] is the copy of R of work-item j of a jammed round
 * (j < kiln_jam_width()), whose first instruction sets lid.x to xs[j].
 * Returns the block the round's headers must go on to: the first of the
 * vector loads when the round was rearranged, starts[0] otherwise. */
LLVMBasicBlockRef kiln_wg_jam_transpose(struct kiln_wg *w, LLVMBasicBlockRef *starts,
                                        LLVMValueRef *xs, const struct kiln_wg_jam_block *jam);

#endif
