#include "llvm/nvptx/nvptx_loads.h"

#include <llvm-c/Core.h>
#include <stdbool.h>

static bool is_v16i8(LLVMTypeRef t)
{
   return LLVMGetTypeKind(t) == LLVMVectorTypeKind && LLVMGetVectorSize(t) == 16 &&
          LLVMGetTypeKind(LLVMGetElementType(t)) == LLVMIntegerTypeKind &&
          LLVMGetIntTypeWidth(LLVMGetElementType(t)) == 8;
}

/* <16 x i8> from four <4 x i8> quarters. */
static LLVMValueRef concat(LLVMBuilderRef b, LLVMContextRef c, LLVMValueRef q[4])
{
   LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
   LLVMValueRef eight[8], sixteen[16];
   for (unsigned i = 0; i < 8; i++)
      eight[i] = LLVMConstInt(i32, i, 0);
   for (unsigned i = 0; i < 16; i++)
      sixteen[i] = LLVMConstInt(i32, i, 0);
   LLVMValueRef lo = LLVMBuildShuffleVector(b, q[0], q[1], LLVMConstVector(eight, 8), "");
   LLVMValueRef hi = LLVMBuildShuffleVector(b, q[2], q[3], LLVMConstVector(eight, 8), "");
   return LLVMBuildShuffleVector(b, lo, hi, LLVMConstVector(sixteen, 16), "");
}

static void split(LLVMBuilderRef b, LLVMValueRef load)
{
   LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(load));
   LLVMTypeRef i8 = LLVMInt8TypeInContext(c), v4 = LLVMVectorType(i8, 4);
   LLVMValueRef base = LLVMGetOperand(load, 0);
   unsigned align = LLVMGetAlignment(load);
   bool is_volatile = LLVMGetVolatile(load);
   LLVMPositionBuilderBefore(b, load);
   LLVMValueRef q[4];
   for (unsigned i = 0; i < 4; i++) {
      LLVMValueRef at = LLVMConstInt(LLVMInt64TypeInContext(c), 4 * i, 0);
      LLVMValueRef p = LLVMBuildInBoundsGEP2(b, i8, base, &at, 1, "");
      q[i] = LLVMBuildLoad2(b, v4, p, "");
      LLVMSetAlignment(q[i], align ? align : 1);
      LLVMSetVolatile(q[i], is_volatile);
   }
   LLVMValueRef whole = concat(b, c, q);
   LLVMReplaceAllUsesWith(load, whole);
   LLVMInstructionEraseFromParent(load);
}

void kiln_nvptx_split_byte_vector_loads(LLVMModuleRef m)
{
   LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
      for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
         LLVMValueRef next;
         for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = next) {
            next = LLVMGetNextInstruction(i);
            if (LLVMGetInstructionOpcode(i) == LLVMLoad && is_v16i8(LLVMTypeOf(i)) &&
                LLVMGetAlignment(i) < 4 && LLVMGetOrdering(i) == LLVMAtomicOrderingNotAtomic)
               split(b, i);
         }
      }
   LLVMDisposeBuilder(b);
}
