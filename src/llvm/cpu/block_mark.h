/* Named marks on basic blocks, for work-group passes that choose a loop
 * or region in one step and act on it in a later one (wg_jam.h,
 * wg_skip.h, wg_interchange.c).  A mark is an empty metadata node of the
 * name's kind on the block's terminator, so it stays with the block's
 * end when code above it is split off; LLVM ignores kinds it does not
 * know. */
#ifndef KILN_LLVM_CPU_BLOCK_MARK_H
#define KILN_LLVM_CPU_BLOCK_MARK_H

#include <llvm-c/Core.h>
#include <stdbool.h>

/* The metadata kind of a name in c. */
unsigned kiln_mark_kind(LLVMContextRef c, const char *name);

void kiln_block_mark(LLVMBasicBlockRef bb, const char *name);
void kiln_block_unmark(LLVMBasicBlockRef bb, const char *name);
/* False for a block without a terminator. */
bool kiln_block_marked(LLVMBasicBlockRef bb, const char *name);

#endif
