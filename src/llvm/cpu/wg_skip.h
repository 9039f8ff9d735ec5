/* Regions that open with a loop no work-item enters.
 *
 * A jammed row loop (wg_jam.h) whose rows are read 8 elements at a time
 * (wg_jam_wide.h) leaves what is left of each row, fewer than 8
 * elements, to a copy of the original loop after its exit barrier.  The
 * region there starts with that loop's test, and a work-item loop with a
 * loop inside is one LLVM does not vectorize: each work-item then reads
 * its slots, tests and branches alone, though for rows that are a
 * multiple of 8 long no work-item ever enters the loop.  For a chunked
 * reduction over rows of 8 floats that took 28% of the kernel's time.
 *
 * Where such a region (marked by kiln_wg_skip_mark) starts with straight
 * blocks that only compute and read private memory, up to a loop test,
 * the region runs
 *
 *   scan:  for each work-item: that code and the test, none stored;
 *          any |= the work-item enters the loop
 *   any ?  the region as it is
 *       :  the region with the test's branch going straight to the exit
 *
 * The second copy has no loop left and vectorizes.  The scan reads only
 * private memory, which no other work-item's part of the region writes,
 * so each work-item's test sees what it sees when its turn comes. */
#ifndef KILN_LLVM_WG_SKIP_H
#define KILN_LLVM_WG_SKIP_H

#include <llvm-c/Core.h>
#include <stdbool.h>

struct kiln_wg;

#define KILN_WG_SKIP_CHAIN 8 /* blocks up to the loop test */

struct kiln_wg_skip {
   LLVMBasicBlockRef chain[KILN_WG_SKIP_CHAIN]; /* from the region's start to the test's block */
   unsigned n;
   LLVMValueRef branch;       /* the loop test's conditional branch */
   unsigned loop_side;        /* its successor into the loop */
};

/* Marks bb, where work-items resume after a jammed loop's exit barrier. */
void kiln_wg_skip_mark(LLVMBasicBlockRef bb);

/* Whether the region starting at the marked block start has the shape
 * above (reg2mem form, private variables already given their slots);
 * before: the blocks that end the kernel's regions (at a barrier). */
bool kiln_wg_skip_find(LLVMBasicBlockRef start, LLVMBasicBlockRef *before, unsigned nbefore,
                       struct kiln_wg_skip *s);

/* Builds the scan and the choice between the two copies' nests (entry
 * blocks slow and fast); returns the entry, NULL when out of memory. */
LLVMBasicBlockRef kiln_wg_skip_version(struct kiln_wg *w, const struct kiln_wg_skip *s,
                                       LLVMBasicBlockRef slow, LLVMBasicBlockRef fast);

#endif
