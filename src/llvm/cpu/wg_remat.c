/* Rematerialisation before reg2mem: work-item values and pure
 * expressions of them are recomputed where they are used, so barriers do
 * not carry them in per-work-item slots. */
#include "llvm/cpu/wg_internal.h"

#include "util/alloc.h"

/* Can v be recomputed anywhere in the body from what it is made of: a
 * pure expression of work-item values and values common to the group
 * (constants, arguments, anything computed in setup)? */
static bool rematerializable(LLVMValueRef v, LLVMBasicBlockRef setup, int depth)
{
   if (!LLVMIsAInstruction(v))
      return true; /* constants, arguments */
   if (LLVMGetInstructionParent(v) == setup)
      return true;
   if (depth > 6)
      return false;
   if (kiln_wg_is_call(v)) {
      enum kiln_wi_fn k = kiln_wi_kind(v);
      return k <= WI_CTX && rematerializable(LLVMGetOperand(v, 0), setup, depth + 1);
   }
   switch (LLVMGetInstructionOpcode(v)) {
   case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMShl: case LLVMLShr: case LLVMAShr:
   case LLVMAnd: case LLVMOr: case LLVMXor: case LLVMTrunc: case LLVMZExt: case LLVMSExt:
   case LLVMICmp: case LLVMSelect: case LLVMGetElementPtr: case LLVMAddrSpaceCast:
   case LLVMBitCast: case LLVMPtrToInt: case LLVMIntToPtr:
      break;
   default:
      return false;
   }
   for (unsigned k = 0; k < (unsigned)LLVMGetNumOperands(v); k++)
      if (!rematerializable(LLVMGetOperand(v, k), setup, depth + 1))
         return false;
   return true;
}

/* A copy of expression v at the builder's position (operands copied too,
 * down to values from setup). */
static LLVMValueRef recompute(LLVMBuilderRef b, LLVMValueRef v, LLVMBasicBlockRef setup)
{
   if (!LLVMIsAInstruction(v) || LLVMGetInstructionParent(v) == setup)
      return v;
   LLVMValueRef c = LLVMInstructionClone(v);
   for (unsigned k = 0; k < (unsigned)LLVMGetNumOperands(v); k++) {
      LLVMValueRef op = LLVMGetOperand(v, k);
      if (LLVMIsAInstruction(op))
         LLVMSetOperand(c, k, recompute(b, op, setup));
   }
   LLVMInsertIntoBuilder(b, c);
   return c;
}

/* Recomputes i for one user outside i's block.  A phi gets a copy per
 * incoming edge, at the end of that edge's block: the same value may come
 * in from several blocks (`acc = g` before an `&&` guard), and a copy
 * made in one of them does not reach the others. */
static void rematerialize_use(LLVMBuilderRef b, LLVMValueRef i, LLVMValueRef user,
                              LLVMBasicBlockRef bb, LLVMBasicBlockRef setup)
{
   if (LLVMIsAPHINode(user)) {
      for (unsigned op = 0; op < LLVMCountIncoming(user); op++) {
         LLVMBasicBlockRef from = LLVMGetIncomingBlock(user, op);
         if (LLVMGetOperand(user, op) != i || from == bb)
            continue;
         LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(from));
         LLVMSetOperand(user, op, recompute(b, i, setup));
      }
      return;
   }
   if (LLVMGetInstructionParent(user) == bb)
      return;
   LLVMPositionBuilderBefore(b, user);
   LLVMValueRef again = recompute(b, i, setup);
   for (unsigned op = 0; op < (unsigned)LLVMGetNumOperands(user); op++)
      if (LLVMGetOperand(user, op) == i)
         LLVMSetOperand(user, op, again);
}

void kiln_wg_rematerialize(LLVMValueRef fn)
{
   LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(LLVMGetGlobalParent(fn)));
   LLVMBasicBlockRef setup = LLVMGetFirstBasicBlock(fn);
   for (LLVMBasicBlockRef bb = LLVMGetNextBasicBlock(setup); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
         if (LLVMGetTypeKind(LLVMTypeOf(i)) == LLVMVoidTypeKind || !rematerializable(i, setup, 0))
            continue;
         /* Users first: rewriting one removes its uses of i from the list
          * being walked.  Without memory, i stays where it is (reg2mem then
          * carries it, which is also right). */
         unsigned n = 0;
         for (LLVMUseRef u = LLVMGetFirstUse(i); u; u = LLVMGetNextUse(u))
            n++;
         LLVMValueRef *users = n ? kiln_malloc(n * sizeof(*users)) : NULL;
         if (!users)
            continue;
         unsigned m = 0;
         for (LLVMUseRef u = LLVMGetFirstUse(i); u; u = LLVMGetNextUse(u)) {
            LLVMValueRef user = LLVMGetUser(u);
            bool seen = false;
            for (unsigned k = 0; k < m; k++)
               seen |= users[k] == user;
            if (!seen)
               users[m++] = user;
         }
         for (unsigned k = 0; k < m; k++)
            rematerialize_use(b, i, users[k], bb, setup);
         kiln_free(users);
      }
   LLVMDisposeBuilder(b);
}
