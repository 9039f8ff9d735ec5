/* For kernels with barriers: which values and blocks are the same for
 * every work-item of a group.
 *
 * Runs on the work-group function after reg2mem (no phis: values cross
 * blocks through allocas) and after the work-item functions are lowered
 * (the local id is a load of the `lid` alloca, the one source of
 * variation besides memory).  A value is uniform when it is computed
 * only from uniform values by instructions without side effects; a block
 * is divergent when it is control dependent (through post-dominance) on
 * a branch whose condition varies or which is itself in a divergent
 * block; an alloca is uniform when every store to it stores a uniform
 * value in a block that is not divergent, so that every work-item sees
 * the same sequence of stores.  Anything the analysis cannot see through
 * (loads from other memory, calls with side effects, allocas whose
 * address escapes) varies.
 *
 * workgroup.c uses it to run loop control that is the same for the whole
 * group once per group instead of once per work-item, and to keep such
 * variables in one slot instead of one per work-item.
 */
#ifndef KILN_LLVM_WG_UNIFORM_H
#define KILN_LLVM_WG_UNIFORM_H

#include <llvm-c/Core.h>
#include <stdbool.h>

#include "llvm/cpu/value_map.h"

struct kiln_wg_uniform {
   LLVMBasicBlockRef setup;
   LLVMValueRef lid;
   LLVMBasicBlockRef *blocks;   /* body blocks, reverse post-order */
   unsigned num_blocks;
   struct kiln_value_map index; /* block -> index + 1 */
   bool *divergent;
   struct kiln_value_map varying;         /* varying instructions */
   struct kiln_value_map varying_allocas; /* allocas whose loads vary */
};

/* fn's first block is setup; lid the local-id alloca.  False when out of
 * memory (then nothing may be treated as uniform). */
bool kiln_wg_uniform_init(struct kiln_wg_uniform *u, LLVMValueRef fn, LLVMValueRef lid);
void kiln_wg_uniform_fini(struct kiln_wg_uniform *u);

bool kiln_wg_uniform_value(const struct kiln_wg_uniform *u, LLVMValueRef v);
/* Reached by every work-item, the same number of times. */
bool kiln_wg_uniform_block(const struct kiln_wg_uniform *u, LLVMBasicBlockRef bb);
/* An alloca of setup whose loads give every work-item the same value. */
bool kiln_wg_uniform_alloca(const struct kiln_wg_uniform *u, LLVMValueRef a);

#endif
