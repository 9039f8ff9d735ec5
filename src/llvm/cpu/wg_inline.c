/* Always-inline marking: the work-group function must see every call of
 * a work-item function or barrier() in its own body. */
#include "llvm/cpu/wg_internal.h"

static bool calls_marked(LLVMValueRef fn, unsigned kind_id)
{
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
         if (!kiln_wg_is_call(i))
            continue;
         LLVMValueRef callee = LLVMGetCalledValue(i);
         if (!callee || !LLVMIsAFunction(callee))
            continue;
         if (kiln_wi_kind(i) != WI_NONE ||
             LLVMGetEnumAttributeAtIndex(callee, LLVMAttributeFunctionIndex, kind_id))
            return true;
      }
   return false;
}

static void set_always_inline(LLVMContextRef ctx, LLVMValueRef fn)
{
   unsigned ai = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
   unsigned ni = LLVMGetEnumAttributeKindForName("noinline", 8);
   unsigned on = LLVMGetEnumAttributeKindForName("optnone", 7);
   LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, ni);
   LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, on);
   LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(ctx, ai, 0));
}

void kiln_wg_mark_inlining(LLVMModuleRef m)
{
   LLVMContextRef ctx = LLVMGetModuleContext(m);
   unsigned ai = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
   /* Kernels are always inlined into their work-group functions; other
    * functions when they reach a work-item function, until nothing changes
    * (call chains are short: OpenCL has no recursion). */
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
      if (LLVMGetFunctionCallConv(fn) == LLVMSPIRKERNELCallConv && LLVMGetFirstBasicBlock(fn))
         set_always_inline(ctx, fn);
   bool changed = true;
   while (changed) {
      changed = false;
      for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
         if (!LLVMGetFirstBasicBlock(fn) ||
             LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, ai))
            continue;
         if (calls_marked(fn, ai)) {
            set_always_inline(ctx, fn);
            changed = true;
         }
      }
   }
}
