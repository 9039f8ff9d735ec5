/* Jammed row loops that read their rows 8 elements at a time, the block
 * of 8 work-items transposed in registers (issue 19).
 *
 * A jammed loop (wg_jam.h) runs the loops of K neighbouring work-items
 * interleaved (8 here; 16 on Zen 4 and later, jam_width.h, the same per
 * half of the block).  A load that is contiguous along each work-item's loop
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
 * Step 3 is wg_jam_transpose.h's: a jammed round's wide loads
 * transposed in registers. */
#ifndef KILN_LLVM_WG_JAM_WIDE_H
#define KILN_LLVM_WG_JAM_WIDE_H

#include <llvm-c/Core.h>
#include <stdbool.h>

/* Step 1, for the loop of header hb marked for jamming in fn: puts the
 * wide copy in front, moves the mark onto it.  Leaves the loop as it is
 * (and returns false) when it does not have the shape above or has no
 * contiguous load. */
bool kiln_wg_jam_widen(LLVMValueRef fn, LLVMBasicBlockRef hb);

/* The metadata kinds step 1 puts on the wide loads (kiln.jam.wide) and
 * on those whose row is the same for every work-item of a block
 * (kiln.jam.wide.same), for step 3. */
unsigned kiln_wg_jam_wide_kind(LLVMContextRef c);
unsigned kiln_wg_jam_same_kind(LLVMContextRef c);
/* ... and on the others whose rows keep their distances from one
 * work-item to another while the loop runs (kiln.jam.wide.lockstep). */
unsigned kiln_wg_jam_lockstep_kind(LLVMContextRef c);

/* Wide loads per loop, at most. */
#define KILN_WG_JAM_WIDE_MAX_LOADS 8

#endif
