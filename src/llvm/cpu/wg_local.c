/* __local variables (address space 3 globals): placed in the
 * work-group's arena, which the launch context points to. */
#include "llvm/cpu/wg_internal.h"

#include "kiln/cpu_abi.h"

/* The value of constant expression v with g replaced by p, built as
 * instructions at the builder's position (p is an instruction, so nothing
 * folds back into a constant).  v itself when g does not occur in it. */
static LLVMValueRef rebuild_constant(struct kiln_wg *w, LLVMValueRef v, LLVMValueRef g, LLVMValueRef p)
{
   if (v == g)
      return p;
   if (!LLVMIsAConstantExpr(v))
      return v;
   unsigned n = (unsigned)LLVMGetNumOperands(v);
   LLVMValueRef ops[16];
   bool changed = false;
   if (n > 16)
      return v;
   for (unsigned k = 0; k < n; k++) {
      ops[k] = rebuild_constant(w, LLVMGetOperand(v, k), g, p);
      changed |= ops[k] != LLVMGetOperand(v, k);
   }
   if (!changed)
      return v;
   LLVMOpcode op = LLVMGetConstOpcode(v);
   if (op == LLVMGetElementPtr)
      return LLVMBuildGEP2(w->b, LLVMGetGEPSourceElementType(v), ops[0], ops + 1, n - 1, "");
   if (n == 1)
      return LLVMBuildCast(w->b, op, ops[0], LLVMTypeOf(v), "");
   if (n == 2)
      return LLVMBuildBinOp(w->b, op, ops[0], ops[1], "");
   return v;
}

/* Points every use of g in the work-group function at p, including uses
 * inside constant expressions (a GEP into a __local array). */
static void replace_global_uses(struct kiln_wg *w, LLVMValueRef g, LLVMValueRef p)
{
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(w->fn); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
         if (i == p)
            continue;
         unsigned n = (unsigned)LLVMGetNumOperands(i);
         for (unsigned k = 0; k < n; k++) {
            LLVMValueRef op = LLVMGetOperand(i, k);
            if (op != g && !LLVMIsAConstantExpr(op))
               continue;
            /* Operands of a phi are computed at the end of their block. */
            if (LLVMIsAPHINode(i))
               LLVMPositionBuilderBefore(w->b, LLVMGetBasicBlockTerminator(LLVMGetIncomingBlock(i, k)));
            else
               LLVMPositionBuilderBefore(w->b, i);
            LLVMValueRef repl = rebuild_constant(w, op, g, p);
            if (repl != op)
               LLVMSetOperand(i, k, repl);
         }
      }
}

/* Whether fn uses v, directly or inside constant expressions. */
static bool used_in(LLVMValueRef v, LLVMValueRef fn)
{
   for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (LLVMIsAInstruction(user) && LLVMGetBasicBlockParent(LLVMGetInstructionParent(user)) == fn)
         return true;
      if (LLVMIsAConstantExpr(user) && used_in(user, fn))
         return true;
   }
   return false;
}

/* Places the kernel's __local variables (address space 3 globals) in the
 * work-group's arena; returns their total size. */
uint64_t kiln_wg_place_local_variables(struct kiln_wg *w)
{
   uint64_t size = 0;
   LLVMPositionBuilderBefore(w->b, LLVMGetBasicBlockTerminator(w->setup));
   LLVMValueRef arena = NULL;
   for (LLVMValueRef g = LLVMGetFirstGlobal(w->m); g; g = LLVMGetNextGlobal(g)) {
      if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != 3 || !used_in(g, w->fn))
         continue;
      LLVMPositionBuilderBefore(w->b, LLVMGetBasicBlockTerminator(w->setup));
      if (!arena)
         arena = LLVMBuildLoad2(w->b, w->ptr, kiln_wg_ctx_field(w, KILN_CTX_LOCAL_MEM, NULL), "local_mem");
      uint64_t align = LLVMGetAlignment(g);
      if (align < 16)
         align = 16;
      size = (size + align - 1) & ~(align - 1);
      LLVMValueRef off = LLVMConstInt(w->i64, size, 0);
      LLVMValueRef p = LLVMBuildInBoundsGEP2(w->b, w->i8, arena, &off, 1, "");
      p = LLVMBuildAddrSpaceCast(w->b, p, LLVMTypeOf(g), LLVMGetValueName(g));
      size += LLVMABISizeOfType(w->td, LLVMGlobalGetValueType(g));
      replace_global_uses(w, g, p);
   }
   return size;
}
