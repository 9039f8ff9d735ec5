/* __local variables (address space 3 globals): placed in the
 * work-group's arena, which the launch context points to. */
#include "llvm/cpu/wg_internal.h"

#include "kiln/cpu_abi.h"
#include "util/alloc.h"

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

/* Adds the __local variables (address space 3 globals) c holds, itself
 * or inside constant expressions, to the set (first use first). */
struct local_set {
   LLVMValueRef *v;
   size_t n, cap;
   bool oom;
};

static void find_locals(struct local_set *s, LLVMValueRef c, unsigned depth)
{
   if (LLVMIsAGlobalVariable(c)) {
      if (LLVMGetPointerAddressSpace(LLVMTypeOf(c)) != 3)
         return;
      for (size_t i = 0; i < s->n; i++)
         if (s->v[i] == c)
            return;
      if (s->n == s->cap) {
         size_t cap = s->cap ? 2 * s->cap : 8;
         LLVMValueRef *grown = kiln_realloc(s->v, cap * sizeof(*grown));
         if (!grown) {
            s->oom = true;
            return;
         }
         s->v = grown;
         s->cap = cap;
      }
      s->v[s->n++] = c;
      return;
   }
   if (!LLVMIsAConstantExpr(c) || depth > 16)
      return;
   unsigned n = (unsigned)LLVMGetNumOperands(c);
   for (unsigned k = 0; k < n; k++)
      find_locals(s, LLVMGetOperand(c, k), depth + 1);
}

/* Places the kernel's __local variables (address space 3 globals) in the
 * work-group's arena; returns their total size.  The variables are found
 * in the function's own instructions, not by a scan of the module's
 * globals, which grow with the number of kernels (one stack record
 * each): a scan per kernel made programs of many kernels quadratic. */
uint64_t kiln_wg_place_local_variables(struct kiln_wg *w)
{
   struct local_set set = {0};
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(w->fn); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
         unsigned n = (unsigned)LLVMGetNumOperands(i);
         for (unsigned k = 0; k < n; k++) {
            LLVMValueRef op = LLVMGetOperand(i, k);
            if (op && (LLVMIsAGlobalVariable(op) || LLVMIsAConstantExpr(op)))
               find_locals(&set, op, 0);
         }
      }
   if (set.oom)
      w->oom = true;
   uint64_t size = 0;
   LLVMValueRef arena = NULL;
   for (size_t idx = 0; idx < set.n; idx++) {
      LLVMValueRef g = set.v[idx];
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
   kiln_free(set.v);
   return size;
}
