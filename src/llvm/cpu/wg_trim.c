/* Regions whose work-items past a group-wide bound do nothing run only up
 * to it.
 *
 * A tree reduction's level, `if (lid < off) a[lid] += a[lid + off];
 * barrier(...)`, is a region of its own, and its work-item loop visits
 * every work-item of the group: at level off = 1 the vectorized loop
 * still runs local_size / 16 masked iterations for one active lane.
 * Where a region starts with such a test, local id x against a value the
 * whole group shares, and the work-items that fail it go straight to the
 * region's barrier, the x loop of the region's nest stops at the bound:
 * the work-items past it do exactly what they did before, nothing.  The
 * barrier those work-items would have recorded is recorded before the
 * nest, so a bound of 0 (no work-item runs) still continues at it.
 *
 * The bound is the test's other operand, computed again before the nest:
 * constants, values of setup (arguments, sizes), loads of variables that
 * the region does not store to (one slot for the group: every work-item
 * would read the same value), and integer arithmetic of those. */
#include "llvm/cpu/wg_internal.h"

#include <stdbool.h>

#define MAX_DEPTH 6

static bool in_blocks(LLVMBasicBlockRef *blocks, unsigned n, LLVMBasicBlockRef bb)
{
   for (unsigned k = 0; k < n; k++)
      if (blocks[k] == bb)
         return true;
   return false;
}

/* Whether a block of the region stores to pointer p (or calls anything,
 * or writes memory atomically: taken as a store, to stay on the safe
 * side). */
static bool stored_in(LLVMBasicBlockRef *blocks, unsigned n, LLVMValueRef p)
{
   for (unsigned k = 0; k < n; k++)
      for (LLVMValueRef i = LLVMGetFirstInstruction(blocks[k]); i; i = LLVMGetNextInstruction(i))
         if ((LLVMIsAStoreInst(i) && LLVMGetOperand(i, 1) == p) || LLVMIsACallInst(i) ||
             LLVMIsAAtomicRMWInst(i) || LLVMIsAAtomicCmpXchgInst(i))
            return true;
   return false;
}

static bool is_lid_x(struct kiln_wg *w, LLVMValueRef p)
{
   if (!LLVMIsAGetElementPtrInst(p) || LLVMGetOperand(p, 0) != w->lid ||
       LLVMGetNumOperands(p) != 3)
      return false;
   LLVMValueRef a = LLVMGetOperand(p, 1), b = LLVMGetOperand(p, 2);
   return LLVMIsAConstantInt(a) && LLVMIsAConstantInt(b) && !LLVMConstIntGetZExtValue(a) &&
          !LLVMConstIntGetZExtValue(b);
}

/* v is local id x, read in the region and cast to at least 32 bits
 * (a local id is below 2^31: every such cast keeps its value). */
static bool local_x(struct kiln_wg *w, LLVMValueRef v)
{
   while (LLVMIsATruncInst(v) || LLVMIsAZExtInst(v) || LLVMIsASExtInst(v)) {
      if (LLVMGetIntTypeWidth(LLVMTypeOf(v)) < 32)
         return false;
      v = LLVMGetOperand(v, 0);
   }
   return LLVMIsALoadInst(v) && LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMIntegerTypeKind &&
          is_lid_x(w, LLVMGetOperand(v, 0));
}

/* v has the same value for every work-item of the region (see above). */
static bool group_value(struct kiln_wg *w, LLVMBasicBlockRef *blocks, unsigned n, LLVMValueRef v,
                        int depth)
{
   if (!LLVMIsAInstruction(v))
      return LLVMIsAConstantInt(v) || LLVMIsAArgument(v);
   if (!in_blocks(blocks, n, LLVMGetInstructionParent(v)))
      return LLVMGetInstructionParent(v) == w->setup;
   if (depth > MAX_DEPTH)
      return false;
   if (LLVMIsALoadInst(v)) {
      LLVMValueRef p = LLVMGetOperand(v, 0);
      return !LLVMGetVolatile(v) && LLVMIsAAllocaInst(p) && p != w->lid && p != w->next &&
             LLVMGetInstructionParent(p) == w->setup &&
             LLVMGetTypeKind(LLVMGetAllocatedType(p)) == LLVMIntegerTypeKind &&
             !stored_in(blocks, n, p);
   }
   switch (LLVMGetInstructionOpcode(v)) {
   case LLVMTrunc: case LLVMZExt: case LLVMSExt: case LLVMAdd: case LLVMSub: case LLVMMul:
   case LLVMShl: case LLVMLShr: case LLVMAShr: case LLVMAnd: case LLVMOr: case LLVMXor:
      break;
   default:
      return false;
   }
   for (int k = 0; k < LLVMGetNumOperands(v); k++)
      if (!group_value(w, blocks, n, LLVMGetOperand(v, (unsigned)k), depth + 1))
         return false;
   return true;
}

/* v computed again at the builder's position (see group_value). */
static LLVMValueRef recompute(struct kiln_wg *w, LLVMBasicBlockRef *blocks, unsigned n, LLVMValueRef v)
{
   if (!LLVMIsAInstruction(v) || !in_blocks(blocks, n, LLVMGetInstructionParent(v)))
      return v;
   LLVMValueRef c = LLVMInstructionClone(v);
   for (int k = 0; k < LLVMGetNumOperands(v); k++)
      LLVMSetOperand(c, (unsigned)k, recompute(w, blocks, n, LLVMGetOperand(v, (unsigned)k)));
   LLVMInsertIntoBuilder(w->b, c);
   return c;
}

/* The barrier a work-item reaches from bb without doing anything (empty
 * blocks, then `next = j; br latch`): j, or -1. */
static int idle_barrier(struct kiln_wg *w, LLVMBasicBlockRef bb, LLVMBasicBlockRef latch)
{
   for (int hops = 0; hops < 8; hops++) {
      LLVMValueRef first = LLVMGetFirstInstruction(bb), term = LLVMGetBasicBlockTerminator(bb);
      if (!term || !LLVMIsABranchInst(term) || LLVMIsConditional(term))
         return -1;
      if (first == term) {
         bb = LLVMGetSuccessor(term, 0);
         continue;
      }
      if (LLVMGetNextInstruction(first) != term || !LLVMIsAStoreInst(first) ||
          LLVMGetOperand(first, 1) != w->next || LLVMGetSuccessor(term, 0) != latch ||
          !LLVMIsAConstantInt(LLVMGetOperand(first, 0)))
         return -1;
      long long j = LLVMConstIntGetSExtValue(LLVMGetOperand(first, 0));
      return j >= 0 ? (int)j : -1;
   }
   return -1;
}

/* The x loop's test of the nest whose body starts at entry:
 * `lid.x < local_size.x`, in the block whose true edge enters the body. */
static LLVMValueRef x_test(struct kiln_wg *w, LLVMBasicBlockRef entry)
{
   for (LLVMUseRef u = LLVMGetFirstUse(w->lsize[0]); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef cmp = LLVMGetUser(u);
      if (!LLVMIsAICmpInst(cmp) || LLVMGetOperand(cmp, 1) != w->lsize[0] ||
          !LLVMIsALoadInst(LLVMGetOperand(cmp, 0)) ||
          !is_lid_x(w, LLVMGetOperand(LLVMGetOperand(cmp, 0), 0)))
         continue;
      LLVMValueRef br = LLVMGetBasicBlockTerminator(LLVMGetInstructionParent(cmp));
      if (!br || !LLVMIsABranchInst(br) || !LLVMIsConditional(br) || LLVMGetCondition(br) != cmp)
         continue;
      LLVMValueRef enter = LLVMGetBasicBlockTerminator(LLVMGetSuccessor(br, 0));
      if (enter && LLVMIsABranchInst(enter) && !LLVMIsConditional(enter) &&
          LLVMGetSuccessor(enter, 0) == entry)
         return cmp;
   }
   return NULL;
}

bool kiln_wg_trim_region(struct kiln_wg *w, LLVMBasicBlockRef nest, LLVMBasicBlockRef entry,
                         LLVMBasicBlockRef latch, LLVMBasicBlockRef *blocks, unsigned n)
{
   LLVMValueRef term = LLVMGetBasicBlockTerminator(entry);
   if (!term || !LLVMIsABranchInst(term) || !LLVMIsConditional(term))
      return false;
   /* Nothing before the test that a skipped work-item would have done. */
   for (LLVMValueRef i = LLVMGetFirstInstruction(entry); i != term; i = LLVMGetNextInstruction(i))
      if (LLVMIsAStoreInst(i) || LLVMIsACallInst(i) || LLVMIsAAtomicRMWInst(i) ||
          LLVMIsAAtomicCmpXchgInst(i) || LLVMIsAFenceInst(i) ||
          (LLVMIsALoadInst(i) && LLVMGetVolatile(i)))
         return false;
   LLVMValueRef cmp = LLVMGetCondition(term);
   if (!LLVMIsAICmpInst(cmp) || LLVMGetInstructionParent(cmp) != entry)
      return false;
   LLVMIntPredicate pred = LLVMGetICmpPredicate(cmp);
   LLVMValueRef a = LLVMGetOperand(cmp, 0), b = LLVMGetOperand(cmp, 1), bound;
   bool is_signed;
   if ((pred == LLVMIntULT || pred == LLVMIntSLT) && local_x(w, a)) {
      bound = b;
      is_signed = pred == LLVMIntSLT;
   } else if ((pred == LLVMIntUGT || pred == LLVMIntSGT) && local_x(w, b)) {
      bound = a;
      is_signed = pred == LLVMIntSGT;
   } else {
      return false;
   }
   int j = idle_barrier(w, LLVMGetSuccessor(term, 1), latch);
   LLVMValueRef test = j >= 0 ? x_test(w, entry) : NULL;
   if (!test || !group_value(w, blocks, n, bound, 0))
      return false;
   /* Every work-item of the region goes on at barrier j (the spec's rule
    * for barriers; a return instead would make the work-items that run
    * last decide where the group continues). */
   for (unsigned k = 0; k < n; k++)
      for (LLVMValueRef i = LLVMGetFirstInstruction(blocks[k]); i; i = LLVMGetNextInstruction(i))
         if (LLVMIsAStoreInst(i) && LLVMGetOperand(i, 1) == w->next &&
             (!LLVMIsAConstantInt(LLVMGetOperand(i, 0)) ||
              LLVMConstIntGetSExtValue(LLVMGetOperand(i, 0)) != j))
            return false;

   LLVMPositionBuilderBefore(w->b, LLVMGetBasicBlockTerminator(nest));
   LLVMValueRef u = recompute(w, blocks, n, bound);
   if (is_signed)
      u = LLVMBuildSelect(w->b, LLVMBuildICmp(w->b, LLVMIntSLT, u, LLVMConstNull(LLVMTypeOf(u)), ""),
                          LLVMConstNull(LLVMTypeOf(u)), u, "");
   unsigned width = LLVMGetIntTypeWidth(LLVMTypeOf(u));
   if (width < 64)
      u = LLVMBuildZExt(w->b, u, w->i64, "");
   else if (width > 64)
      return false;
   LLVMValueRef size = w->lsize[0];
   LLVMValueRef x_end = LLVMBuildSelect(w->b, LLVMBuildICmp(w->b, LLVMIntULT, u, size, ""), u,
                                        size, "trim.x");
   /* If the bound is 0 no work-item runs the region: where they all go. */
   LLVMBuildStore(w->b, LLVMConstInt(w->i32, (unsigned long long)j, 0), w->next);
   LLVMSetOperand(test, 1, x_end);
   return true;
}
