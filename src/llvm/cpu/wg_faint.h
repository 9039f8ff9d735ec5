/* Variables whose values only feed themselves.
 *
 * After reg2mem a loop counter is a stack variable loaded, stepped and
 * stored back once per iteration.  wg_predicate.c replaces every use of a
 * predicated loop's trip counter by the group's round number, which
 * leaves the counter stepping itself and read by nothing else; the
 * work-group pass would still give it a slot per work-item, loaded and
 * stored in every round (two masked loads and stores per vector of
 * work-items that LLVM cannot remove: the slots are one array indexed by
 * the work-item).  An alloca is faint when every value loaded from it
 * reaches, through instructions that only compute, nothing but stores
 * into faint allocas (the greatest such set); those allocas, their loads,
 * stores and the computation between them go.
 *
 * Runs on reg2mem form (no phis); returns how many allocas it removed.
 */
#ifndef KILN_LLVM_WG_FAINT_H
#define KILN_LLVM_WG_FAINT_H

#include <llvm-c/Core.h>

unsigned kiln_wg_drop_faint_allocas(LLVMValueRef fn);

#endif
