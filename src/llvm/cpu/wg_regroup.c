#include "llvm/cpu/wg_regroup.h"

#include "llvm/cpu/wg_internal.h"

static bool is_cast(LLVMValueRef v)
{
   if (!LLVMIsAInstruction(v))
      return false;
   LLVMOpcode op = LLVMGetInstructionOpcode(v);
   return op == LLVMTrunc || op == LLVMZExt || op == LLVMSExt;
}

static LLVMValueRef strip_casts(LLVMValueRef v)
{
   while (is_cast(v))
      v = LLVMGetOperand(v, 0);
   return v;
}

/* The work-item function v is a call of (through casts), where it asks
 * for dimension 0 and is one of the four this file follows; else WI_NONE. */
static enum kiln_wi_fn dim0_kind(LLVMValueRef v)
{
   v = strip_casts(v);
   if (!LLVMIsACallInst(v))
      return WI_NONE;
   enum kiln_wi_fn k = kiln_wi_kind(v);
   if (k != WI_LOCAL_ID && k != WI_GROUP_ID && k != WI_LOCAL_SIZE && k != WI_ENQUEUED_LOCAL_SIZE)
      return WI_NONE;
   LLVMValueRef dim = LLVMGetOperand(v, 0);
   if (!LLVMIsAConstantInt(dim) || LLVMConstIntGetZExtValue(dim) != 0)
      return WI_NONE;
   return k;
}

static bool is_size(enum kiln_wi_fn k)
{
   return k == WI_LOCAL_SIZE || k == WI_ENQUEUED_LOCAL_SIZE;
}

/* v is `size(0) * group_id(0)`, through casts, in either order. */
static bool is_group_start(LLVMValueRef v)
{
   v = strip_casts(v);
   if (!LLVMIsAInstruction(v) || LLVMGetInstructionOpcode(v) != LLVMMul)
      return false;
   enum kiln_wi_fn a = dim0_kind(LLVMGetOperand(v, 0)), b = dim0_kind(LLVMGetOperand(v, 1));
   return (is_size(a) && b == WI_GROUP_ID) || (a == WI_GROUP_ID && is_size(b));
}

/* An add of a group start and local_id(0), in either order. */
static bool is_index(LLVMValueRef u)
{
   if (!LLVMIsAInstruction(u) || LLVMGetInstructionOpcode(u) != LLVMAdd)
      return false;
   LLVMValueRef a = LLVMGetOperand(u, 0), b = LLVMGetOperand(u, 1);
   return (is_group_start(a) && dim0_kind(b) == WI_LOCAL_ID) ||
          (dim0_kind(a) == WI_LOCAL_ID && is_group_start(b));
}

/* Whether every use of v, looking through casts, satisfies ok. */
static bool all_uses(LLVMValueRef v, bool (*ok)(LLVMValueRef use))
{
   for (LLVMUseRef use = LLVMGetFirstUse(v); use; use = LLVMGetNextUse(use)) {
      LLVMValueRef u = LLVMGetUser(use);
      if (is_cast(u) ? !all_uses(u, ok) : !ok(u))
         return false;
   }
   return true;
}

/* A group start that is used only in indices. */
static bool is_indexed_group_start(LLVMValueRef u)
{
   return is_group_start(u) && all_uses(u, is_index);
}

bool kiln_wg_regroupable(LLVMValueRef fn)
{
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
         if (!kiln_wg_is_call(i))
            continue;
         enum kiln_wi_fn k = kiln_wi_kind(i);
         switch (k) {
         case WI_BARRIER:
         case WI_SCRATCH:
         case WI_LOCAL_MEM:
         case WI_LOCAL_MEM_SIZE:
         case WI_CTX:
         case WI_SUB_GROUP:
            /* The group is seen as a whole: its memory, its collectives,
             * what it enqueues. */
            return false;
         case WI_NUM_GROUPS:
         case WI_LOCAL_ID:
         case WI_GROUP_ID:
         case WI_LOCAL_SIZE:
         case WI_ENQUEUED_LOCAL_SIZE: {
            LLVMValueRef dim = LLVMGetOperand(i, 0);
            if (!LLVMIsAConstantInt(dim))
               return false;
            if (LLVMConstIntGetZExtValue(dim) != 0)
               break;
            if (k == WI_NUM_GROUPS)
               return false;
            if (!all_uses(i, k == WI_LOCAL_ID ? is_index : is_indexed_group_start))
               return false;
            break;
         }
         default:
            break;
         }
      }
   }
   return true;
}
