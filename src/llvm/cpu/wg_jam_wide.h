/* Jammed row loops that read their rows 8 elements at a time, the block
 * of 8 work-items transposed in registers (issue 19).
 *
 * A jammed loop (wg_jam.h) runs the loops of 8 neighbouring work-items
 * interleaved.  A load that is contiguous along each work-item's loop
 * (`s += in[i]`, the address base + i * size) is 8 loads whose addresses
 * lie a row apart: LLVM's SLP vectorizer makes one 8-wide gather of them
 * per round, and gathers, not memory, then bound the loop (about 1.6
 * elements per cycle).  Instead:
 *
 * Step 1 (SSA form, kiln_wg_jam_widen, for a loop marked for jamming):
 * the loop gets a copy in front of it that runs 8 iterations per round
 * while at least 8 are left:
 *
 *   W:  i8 = phi [start, P], [i8 + 8, ...]   (every header phi likewise)
 *       if (the loop test holds for i8 .. i8 + 7) goto R else goto X
 *   R:  v = load <8 x T> at the address of iteration 0, for each load
 *       that runs in every iteration at base + i * sizeof(T);
 *       e_k = v[k]
 *   the header and body 8 times, the k-th using e_k for the load
 *   X:  the original loop, from where W stopped (the remainder)
 *
 * W is marked for jamming instead of the original loop, which runs after
 * it unjammed (at most 7 iterations where W ran).  The loop test is
 * `i < n`, `i <= n` (signed or unsigned) or `i != n` on a counter that
 * steps by 1 against a bound defined before the loop; a load's index is
 * the counter plus or minus values defined before the loop, through zext
 * or sext, and each value that is extended must not wrap within the 8
 * iterations: W tests that too.  Other loads stay one per iteration.
 * Each work-item's operations keep their order: only the loads change.
 *
 * Step 3 (kiln_wg_jam_transpose, from kiln_wg_jam_region): in a jammed
 * round of W, each work-item's copy of R becomes two parts, the address
 * and the vector loads first for all 8 work-items, then the 8 vectors of
 * each load transposed (24 shuffles), then each work-item's rest, whose
 * e_k of work-item j becomes lane j of the k-th transposed vector: lane =
 * work-item, as the SLP vectorizer lays out the 8 interleaved chains,
 * which then take the transposed vectors as they are.  A row that step
 * 1 found to be the same for every work-item of a block (its address
 * built from values common to the group and a counter that starts at
 * such a value: x[k] of a matrix-vector product) is not transposed:
 * work-item 0's row serves all 8, lane k broadcast. */
#ifndef KILN_LLVM_WG_JAM_WIDE_H
#define KILN_LLVM_WG_JAM_WIDE_H

#include <llvm-c/Core.h>
#include <stdbool.h>

struct kiln_wg;

/* Step 1, for the loop of header hb marked for jamming in fn: puts the
 * wide copy in front, moves the mark onto it.  Leaves the loop as it is
 * (and returns false) when it does not have the shape above or has no
 * contiguous load. */
bool kiln_wg_jam_widen(LLVMValueRef fn, LLVMBasicBlockRef hb);

/* Step 3: starts[j] is the copy of R of work-item j of a jammed round
 * (j < KILN_WG_JAM), whose first instruction sets lid.x to xs[j].
 * Returns the block the round's headers must go on to: the first of the
 * vector loads when the round was rearranged, starts[0] otherwise. */
LLVMBasicBlockRef kiln_wg_jam_transpose(struct kiln_wg *w, LLVMBasicBlockRef *starts,
                                        LLVMValueRef *xs);

#endif
