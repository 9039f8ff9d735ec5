/* Rematerialisation before reg2mem: work-item values and pure
 * expressions of them are recomputed where they are used, so barriers do
 * not carry them in per-work-item slots. */
#include "llvm/cpu/wg_internal.h"

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

void kiln_wg_rematerialize(LLVMValueRef fn)
{
   LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(LLVMGetGlobalParent(fn)));
   LLVMBasicBlockRef setup = LLVMGetFirstBasicBlock(fn);
   for (LLVMBasicBlockRef bb = LLVMGetNextBasicBlock(setup); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
         if (LLVMGetTypeKind(LLVMTypeOf(i)) == LLVMVoidTypeKind || !rematerializable(i, setup, 0))
            continue;
         LLVMUseRef u = LLVMGetFirstUse(i);
         while (u) {
            LLVMUseRef next = LLVMGetNextUse(u);
            LLVMValueRef user = LLVMGetUser(u);
            LLVMBasicBlockRef at = LLVMGetInstructionParent(user);
            if (LLVMIsAPHINode(user)) {
               /* The incoming block of this operand computes it. */
               for (unsigned op = 0; op < LLVMCountIncoming(user); op++)
                  if (LLVMGetOperand(user, op) == i) {
                     at = LLVMGetIncomingBlock(user, op);
                     LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(at));
                     break;
                  }
            } else {
               LLVMPositionBuilderBefore(b, user);
            }
            if (at != bb) {
               LLVMValueRef again = recompute(b, i, setup);
               for (unsigned op = 0; op < (unsigned)LLVMGetNumOperands(user); op++)
                  if (LLVMGetOperand(user, op) == i)
                     LLVMSetOperand(user, op, again);
            }
            u = next;
         }
      }
   LLVMDisposeBuilder(b);
}
