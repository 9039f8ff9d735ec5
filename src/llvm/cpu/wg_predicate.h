/* Loop interchange for loops whose trip count differs between work-items
 * (the second half of wg_interchange.h).
 *
 * GPU-style code loops with a bound that depends on the work-item:
 * `for (i = get_global_id(0); i < n; i += get_global_size(0))`.  Such a
 * loop cannot take a barrier at its latch (work-items leave it after
 * different numbers of iterations), so wg_interchange.c alone leaves each
 * work-item to run it alone, scalar, striding through memory a page at a
 * time.  Here the loop becomes one that the whole group runs in step, the
 * way a GPU runs it: each work-item has an active flag, runs an iteration
 * only while active and clears the flag where it would have left; a
 * barrier at the latch ends each iteration, and the group goes round
 * again while any work-item is active.  Each work-item executes exactly
 * the instructions it executed before, in the same order; only the
 * interleaving between work-items changes, which OpenCL C leaves open
 * between barriers.
 *
 *   preheader -> P: active = 1, iter = 0, any = 0; loop test (fails:
 *                   active = 0); barrier
 *   H': if (active) body...
 *   latch -> T: loop test for the next round (fails: active = 0)
 *   S: any = max(any, active ? iter + 1 : 0); barrier
 *   R: more = any == iter + 1; iter++; barrier; more ? H' : exit
 *
 * The loop test (the header block) runs where a round ends, so a
 * work-item whose loop is over is inactive in the round that decides
 * whether the group goes round again: a loop of one trip per work-item
 * takes one round.
 *
 * `any` is one variable for the whole group (kiln_wg_group_variable: the
 * work-group pass never gives it a slot per work-item); comparing it with
 * the iteration number instead of resetting it keeps every work-item's
 * read in R the same.  `iter` also replaces the loop's trip counter
 * (which step 1, wg_interchange.c, introduced for counters that start at
 * a work-item value and step by a group-wide one) inside the loop, so
 * that `i = start + iter * step`, computed where it is used, is
 * contiguous across work-items and the work-item loop vectorizes with
 * masked loads.
 *
 * Applies to marked loops (step 1) whose loop test is the header's
 * branch, with one latch, no barrier inside and every work-item reaching
 * the loop (its preheaders uniform: wg_uniform.h).  Other exits (a break,
 * a return: up to 8 edges) clear the flag too; the work-item waits for
 * the group's last round and then goes where it left to.  Runs after reg2mem and the
 * lowering of work-item calls; returns the number of barriers added.
 */
#ifndef KILN_LLVM_WG_PREDICATE_H
#define KILN_LLVM_WG_PREDICATE_H

#include <llvm-c/Core.h>
#include <stdbool.h>

/* Step 1 passes a loop's trip counter through a call to this function
 * (`kiln.trip.i32(k)`, the identity) where the loop uses it: step 2 then
 * finds the uses to give `iter` without tracking the counter through
 * reg2mem's allocas. */
#define KILN_WG_TRIP_FN "kiln.trip."

/* Predicates the loops marked with mark_kind that have the shape above,
 * with prefetches of later rounds (wg_round_prefetch.h; lsize0: the local
 * size in dimension 0, an i64 of the entry block). */
unsigned kiln_wg_predicate_loops(LLVMValueRef fn, LLVMValueRef lid, LLVMValueRef lsize0,
                                 unsigned mark_kind, LLVMValueRef barrier_fn, LLVMCallConv cc);

/* Replaces the trip calls left in fn by their argument. */
void kiln_wg_drop_trip_calls(LLVMValueRef fn);

/* An alloca that holds one value for the whole work-group (never a slot
 * per work-item). */
bool kiln_wg_group_variable(LLVMValueRef alloca);

#endif
