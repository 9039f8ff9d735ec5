/* For kernels with barriers: which private variables must keep one value
 * per work-item.
 *
 * The work-items of a group run each region (the code between barriers)
 * one after another, so a variable can share one slot among all of them
 * when a work-item never reads a value it stored before a barrier: every
 * load must follow, on every path from its region's start, a store by the
 * same work-item in the same region.  Variables whose address escapes
 * into other uses are given slots without analysis.
 */
#ifndef KILN_LLVM_WG_LIVENESS_H
#define KILN_LLVM_WG_LIVENESS_H

#include <llvm-c/Core.h>
#include <stdbool.h>
#include <stdint.h>

#include "llvm/cpu/value_map.h"

struct kiln_wg_cfg {
   LLVMBasicBlockRef *blocks; /* the kernel body's blocks */
   unsigned num_blocks;
   const bool *cut;           /* blocks[i] ends at a barrier */
   unsigned num_regions;
   unsigned *start;           /* per region: index of its first block */
   uint64_t **reach;          /* per region: bitset of its blocks */
   uint64_t **dom;            /* per region: for each block, its dominators */
   struct kiln_value_map index;
};

/* starts[r] is the first block of region r.  False when out of memory. */
bool kiln_wg_cfg_init(struct kiln_wg_cfg *cfg, LLVMBasicBlockRef *blocks, unsigned num_blocks,
                      const bool *cut, const LLVMBasicBlockRef *starts, unsigned num_regions);
void kiln_wg_cfg_fini(struct kiln_wg_cfg *cfg);

/* Whether alloca a must have a slot per work-item. */
bool kiln_wg_needs_slot(const struct kiln_wg_cfg *cfg, LLVMValueRef a);

#endif
