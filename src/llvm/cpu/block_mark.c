/* Named marks on basic blocks (block_mark.h). */
#include "llvm/cpu/block_mark.h"

#include <string.h>

unsigned kiln_mark_kind(LLVMContextRef c, const char *name)
{
   return LLVMGetMDKindIDInContext(c, name, (unsigned)strlen(name));
}

static LLVMContextRef block_context(LLVMBasicBlockRef bb)
{
   return LLVMGetTypeContext(LLVMTypeOf(LLVMBasicBlockAsValue(bb)));
}

void kiln_block_mark(LLVMBasicBlockRef bb, const char *name)
{
   LLVMContextRef c = block_context(bb);
   LLVMSetMetadata(LLVMGetBasicBlockTerminator(bb), kiln_mark_kind(c, name),
                   LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, NULL, 0)));
}

void kiln_block_unmark(LLVMBasicBlockRef bb, const char *name)
{
   LLVMSetMetadata(LLVMGetBasicBlockTerminator(bb), kiln_mark_kind(block_context(bb), name), NULL);
}

bool kiln_block_marked(LLVMBasicBlockRef bb, const char *name)
{
   LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
   return t && LLVMGetMetadata(t, kiln_mark_kind(block_context(bb), name));
}
