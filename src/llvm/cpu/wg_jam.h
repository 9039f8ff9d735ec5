/* Unroll-and-jam of the work-item loop over a kernel's own loop: blocks
 * of K work-items (8 or 16 by the CPU, KILN_JAM_WIDTH: jam_width.h) run
 * that loop interleaved.
 *
 * A loop that reads a row per work-item (`for (i = begin; i < end; i++)
 * s += in[i];` with begin = gid * chunk) is contiguous along the loop but
 * not across work-items, so wg_interchange.c leaves it inside the
 * work-item loop (in step, the work-items would gather).  Each work-item
 * then runs it alone: a serial chain of float adds that the FP rules
 * forbid reassociating, one add latency (about 4 cycles) per element.
 * Work-items are independent between barriers (OpenCL C 1.1, 3.3.1: any
 * interleaving), so the chains of K neighbouring work-items may run
 * side by side: the adds of one chain hide another's latency and each
 * work-item keeps its own instructions in its own order.
 *
 * Step 1, kiln_wg_jam_eligible, runs on the kernel in SSA form (from
 * wg_interchange.c, for the loops it refuses for that access pattern
 * alone) and accepts innermost loops with the loop test at the top as
 * their only way out, no stores, atomics or calls other than work-item
 * queries and intrinsics without memory effects: nothing one work-item
 * does in the loop can be seen by another.
 *
 * A loop right behind a guard that varies (`if (row >= n) return;`) is
 * reached by only some work-items; when the code between the guard and
 * the loop and the loop test only compute, kiln_wg_jam_unguard (also
 * step 1) lets every work-item run them, with the guard folded into the
 * loop test and the loop's exit going where the guard went.
 *
 * Step 2, kiln_wg_jam_barriers (reg2mem form), puts a barrier before the
 * loop and one on its exit where every work-item reaches the loop (its
 * preheaders uniform, wg_uniform.h): the loop becomes a region of its
 * own, whose per-work-item state (counter, sums, bounds) lives in the
 * work-items' slots (wg_private.c).  Where work-items resume after the
 * exit barrier is marked for wg_skip.h (the rest of the rows).
 *
 * Step 3, kiln_wg_jam_region, called by wg_regions.c for such a region's
 * work-item loop: at a work-item x that is a multiple of K with
 * x + K <= the local size in dimension 0, the region runs
 *
 *   H_0 .. H_(K-1): the loop test of x, x + 1, ..., x + K - 1 (lid.x set
 *                   to each in turn); all go on ? B_0 : none goes on ? D : F
 *   B_0 .. B_(K-1): the body of each, one after the other; back to H_0
 *   D:              the loop test and exit of each, straight; lid.x = x + K,
 *                   on to the work-item loop's test (wg_jam.c, all_exit)
 *   F:              lid.x = x; the region as before, for x, x + 1, ...
 *
 * so the loop runs with all K work-items while every one of them goes on;
 * where they all end in the same round the block leaves at once, else
 * each finishes alone from its own slots.  The headers come first so
 * that the K work-items' state is read at the top of every round, where
 * LLVM keeps it in registers (it is read only where every test passed
 * otherwise, and then it stays in the slots' memory).  A work-item whose
 * test failed runs the test again in F: the header only reads memory
 * (reg2mem gives each value it defines a variable of its own), so it is
 * the same test.  Variables that the loop writes (values that reg2mem
 * carries from one block to another within an iteration) get a copy per
 * work-item of the block; what lives from one iteration to the next goes
 * through the header's phi variables, which also live across the barrier
 * before the loop and so have a slot per work-item.
 *
 * Only in dimension 0: groups narrower than K there (or the last
 * work-items of a row that is not a multiple of K) run as before.
 * LLVM's SLP vectorizer may then turn the K chains into vector adds on
 * K-wide gathers where its cost model for the CPU says that pays; loads
 * contiguous along the loop are read as rows instead (wg_jam_wide.h:
 * step 1 puts a copy that runs 8 iterations per round in front of the
 * loop and marks it instead, step 3 transposes its rows). */
#ifndef KILN_LLVM_WG_JAM_H
#define KILN_LLVM_WG_JAM_H

#include <llvm-c/Core.h>
#include <stdbool.h>

#include "llvm/cpu/jam_width.h"
#include "llvm/cpu/wg_graph.h"

struct kiln_wg;

/* Step 1: whether the loop of g->in_loop (header, latch) can be jammed. */
bool kiln_wg_jam_eligible(const struct kiln_wg_graph *g, unsigned header, unsigned latch);

/* A loop behind a guard that varies (`if (row >= n) return;`, `if (row
 * < n) { loop ... }`): G branches on cond to P, the loop's preheader, or
 * to other; the loop test in H leaves to exit. */
struct kiln_wg_jam_guard {
   LLVMBasicBlockRef g, p, h, exit, other;
};

/* Step 1: whether the marked loop of g->in_loop sits behind such a guard
 * with a preheader and loop test that only compute (no loads, stores or
 * calls but work-item queries and pure intrinsics): then every work-item
 * may run them, and kiln_wg_jam_unguard lets every work-item reach the
 * loop, whose test fails at once where the guard did. */
bool kiln_wg_jam_find_guard(const struct kiln_wg_graph *g, const struct kiln_value_map *varying,
                            unsigned header, unsigned latch, struct kiln_wg_jam_guard *out);
/*   G: br P;  H: test && guard;  exit': guard ? exit : other */
void kiln_wg_jam_unguard(const struct kiln_wg_jam_guard *guard);

/* Marks the loop of header hb for step 2. */
void kiln_wg_jam_mark(LLVMBasicBlockRef hb);

/* Step 2: the barriers around the marked loops that every work-item
 * reaches; the marks of the others go.  Returns the barriers added. */
unsigned kiln_wg_jam_barriers(LLVMValueRef fn, LLVMValueRef lid, LLVMValueRef barrier_fn,
                              LLVMCallConv cc);

/* Takes the mark of kiln_wg_jam_mark off (wg_jam_wide.h moves it). */
void kiln_wg_jam_unmark(LLVMBasicBlockRef hb);

/* Whether a region starting at old block bb is a jammed loop. */
bool kiln_wg_jam_start(LLVMBasicBlockRef bb);

/* Step 3: head is the copy of the region's start (the loop header) in
 * the work-item loop nest, blocks the region's copies.  Leaves the region
 * as it is when its shape is not the expected one. */
void kiln_wg_jam_region(struct kiln_wg *w, LLVMBasicBlockRef head, LLVMBasicBlockRef *blocks,
                        unsigned nblocks);

#endif
