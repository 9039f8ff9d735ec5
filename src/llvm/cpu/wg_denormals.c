/* -cl-denorms-are-zero on x86: the option gives kernels the
 * denormal-fp-math-f32 "preserve-sign" attribute, which LLVM's constant
 * folding honours but x86 code generation does not (an addss keeps a
 * denormal).  The work-group function therefore sets MXCSR's FTZ (bit 15:
 * denormal results become zero) and DAZ (bit 6: denormal inputs read as
 * zero) for its run and restores the thread's MXCSR before it returns, so
 * the worker goes on to other kernels with the state it had.  Doubles
 * flush too, which the option allows where cl_khr_fp64 is supported
 * (OpenCL 1.2, 5.6.4.2). */
#include "llvm/cpu/wg_denormals.h"

#include <string.h>

#define MXCSR_FTZ_DAZ 0x8040u

bool kiln_wg_flushes_denormals(LLVMValueRef kernel)
{
   static const char key[] = "denormal-fp-math-f32";
   LLVMAttributeRef a =
      LLVMGetStringAttributeAtIndex(kernel, LLVMAttributeFunctionIndex, key, sizeof(key) - 1);
   if (!a)
      return false;
   unsigned len;
   const char *v = LLVMGetStringAttributeValue(a, &len);
   /* "<output>,<input>": preserve-sign or positive-zero flush outputs. */
   return (len >= 13 && !strncmp(v, "preserve-sign", 13)) ||
          (len >= 13 && !strncmp(v, "positive-zero", 13));
}

static LLVMValueRef intrinsic(LLVMModuleRef m, const char *name, LLVMTypeRef type)
{
   LLVMValueRef fn = LLVMGetNamedFunction(m, name);
   return fn ? fn : LLVMAddFunction(m, name, type);
}

void kiln_wg_flush_denormals(LLVMModuleRef m, LLVMValueRef wg)
{
   LLVMContextRef c = LLVMGetModuleContext(m);
   LLVMTypeRef i32 = LLVMInt32TypeInContext(c), ptr = LLVMPointerTypeInContext(c, 0);
   LLVMTypeRef type = LLVMFunctionType(LLVMVoidTypeInContext(c), &ptr, 1, 0);
   LLVMValueRef stmxcsr = intrinsic(m, "llvm.x86.sse.stmxcsr", type);
   LLVMValueRef ldmxcsr = intrinsic(m, "llvm.x86.sse.ldmxcsr", type);
   LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
   LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(wg)));
   LLVMValueRef saved = LLVMBuildAlloca(b, i32, "mxcsr");
   LLVMValueRef flushing = LLVMBuildAlloca(b, i32, "mxcsr.flush");
   LLVMBuildCall2(b, type, stmxcsr, &saved, 1, "");
   LLVMValueRef v = LLVMBuildOr(b, LLVMBuildLoad2(b, i32, saved, ""),
                                LLVMConstInt(i32, MXCSR_FTZ_DAZ, 0), "");
   LLVMBuildStore(b, v, flushing);
   LLVMBuildCall2(b, type, ldmxcsr, &flushing, 1, "");
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(wg); bb; bb = LLVMGetNextBasicBlock(bb)) {
      LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
      if (term && LLVMIsAReturnInst(term)) {
         LLVMPositionBuilderBefore(b, term);
         LLVMBuildCall2(b, type, ldmxcsr, &saved, 1, "");
      }
   }
   LLVMDisposeBuilder(b);
}
