#include "llvm/nvptx/nvptx_compare.h"

#include <llvm-c/Core.h>
#include <stdbool.h>

static bool is_i16_vector(LLVMTypeRef t)
{
   return LLVMGetTypeKind(t) == LLVMVectorTypeKind &&
          LLVMGetTypeKind(LLVMGetElementType(t)) == LLVMIntegerTypeKind &&
          LLVMGetIntTypeWidth(LLVMGetElementType(t)) == 16;
}

/* cmp's lanes one by one, gathered into its <n x i1> result. */
static void scalarize(LLVMBuilderRef b, LLVMValueRef cmp)
{
   LLVMValueRef x = LLVMGetOperand(cmp, 0), y = LLVMGetOperand(cmp, 1);
   LLVMTypeRef rt = LLVMTypeOf(cmp);
   unsigned n = LLVMGetVectorSize(LLVMTypeOf(x));
   LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetTypeContext(rt));
   LLVMIntPredicate pred = LLVMGetICmpPredicate(cmp);
   LLVMPositionBuilderBefore(b, cmp);
   LLVMValueRef r = LLVMGetPoison(rt);
   for (unsigned i = 0; i < n; i++) {
      LLVMValueRef lane = LLVMConstInt(i32, i, 0);
      LLVMValueRef c = LLVMBuildICmp(b, pred, LLVMBuildExtractElement(b, x, lane, ""),
                                     LLVMBuildExtractElement(b, y, lane, ""), "");
      r = LLVMBuildInsertElement(b, r, c, lane, "");
   }
   LLVMReplaceAllUsesWith(cmp, r);
   LLVMInstructionEraseFromParent(cmp);
}

void kiln_nvptx_scalarize_i16_compares(LLVMModuleRef m)
{
   LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
      for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
         for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;) {
            LLVMValueRef next = LLVMGetNextInstruction(i);
            if (LLVMGetInstructionOpcode(i) == LLVMICmp &&
                is_i16_vector(LLVMTypeOf(LLVMGetOperand(i, 0))))
               scalarize(b, i);
            i = next;
         }
   LLVMDisposeBuilder(b);
}
