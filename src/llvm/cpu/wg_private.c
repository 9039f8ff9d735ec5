/* Privatisation: a slot per work-item for each private variable whose
 * value must survive a barrier while the other work-items run. */
#include "llvm/cpu/wg_internal.h"
#include "llvm/cpu/wg_predicate.h"

#include "util/alloc.h"

static LLVMValueRef flat_local_id(struct kiln_wg *w)
{
   LLVMValueRef x = kiln_wg_load_i64(w, kiln_wg_lid_ptr(w, LLVMConstInt(w->i32, 0, 0)));
   LLVMValueRef y = kiln_wg_load_i64(w, kiln_wg_lid_ptr(w, LLVMConstInt(w->i32, 1, 0)));
   LLVMValueRef z = kiln_wg_load_i64(w, kiln_wg_lid_ptr(w, LLVMConstInt(w->i32, 2, 0)));
   LLVMValueRef v = LLVMBuildAdd(w->b, y, LLVMBuildMul(w->b, z, w->lsize[1], ""), "");
   return LLVMBuildAdd(w->b, x, LLVMBuildMul(w->b, v, w->lsize[0], ""), "");
}

/* An alloca only ever written in setup holds a value common to the whole
 * work-group (an argument, a size): one slot serves every work-item. */
bool kiln_wg_setup_only(struct kiln_wg *w, LLVMValueRef a)
{
   for (LLVMUseRef u = LLVMGetFirstUse(a); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (LLVMIsALoadInst(user))
         continue;
      if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == a &&
          LLVMGetInstructionParent(user) == w->setup)
         continue;
      return false;
   }
   return true;
}

/* Gives every work-item its own copy of each private variable: values
 * that must survive a barrier while the other work-items run. */
static void privatize_alloca(struct kiln_wg *w, LLVMValueRef a)
{
   LLVMTypeRef t = LLVMGetAllocatedType(a);
   uint64_t count = 1;
   LLVMValueRef n = LLVMGetOperand(a, 0);
   if (LLVMIsAConstantInt(n))
      count = LLVMConstIntGetZExtValue(n);
   uint64_t align = LLVMGetAlignment(a);
   if (align < LLVMABIAlignmentOfType(w->td, t))
      align = LLVMABIAlignmentOfType(w->td, t);
   uint64_t stride = LLVMABISizeOfType(w->td, t) * count;
   stride = (stride + align - 1) / align * align;

   w->private_per_item += stride;
   w->private_pad += align;

   LLVMPositionBuilderBefore(w->b, LLVMGetBasicBlockTerminator(w->setup));
   LLVMValueRef bytes = LLVMBuildMul(w->b, w->wg_items, LLVMConstInt(w->i64, stride, 0), "");
   LLVMValueRef slots = LLVMBuildArrayAlloca(w->b, w->i8, bytes, "priv");
   LLVMSetAlignment(slots, (unsigned)align);

   LLVMUseRef u = LLVMGetFirstUse(a);
   while (u) {
      LLVMUseRef unext = LLVMGetNextUse(u);
      LLVMValueRef user = LLVMGetUser(u);
      if (kiln_wg_is_intrinsic_call(user, "llvm.lifetime.") || kiln_wg_is_intrinsic_call(user, "llvm.dbg.")) {
         LLVMInstructionEraseFromParent(user);
         u = unext;
         continue;
      }
      LLVMPositionBuilderBefore(w->b, user);
      LLVMValueRef off = LLVMBuildMul(w->b, flat_local_id(w), LLVMConstInt(w->i64, stride, 0), "");
      LLVMValueRef p = LLVMBuildInBoundsGEP2(w->b, w->i8, slots, &off, 1, "");
      for (unsigned k = 0; k < (unsigned)LLVMGetNumOperands(user); k++)
         if (LLVMGetOperand(user, k) == a)
            LLVMSetOperand(user, k, p);
      u = unext;
   }
   LLVMInstructionEraseFromParent(a);
}

/* Gives every work-item its own copy of each private variable that must
 * survive a barrier while the other work-items run (wg_liveness.h).
 * Privatizing only some of them would be wrong code: without memory for
 * the list, nothing is done and w->oom is set.  Allocas in `shared` keep
 * one slot for the group (kiln_wg_plan_uniform), and so do the group
 * variables of wg_predicate.c, which are wrong with any other layout. */
void kiln_wg_privatize(struct kiln_wg *w, const struct kiln_wg_cfg *cfg,
                              const struct kiln_value_map *shared)
{
   /* Collect first: privatizing adds allocas of its own to setup. */
   unsigned n = 0, cap = 0;
   LLVMValueRef *list = NULL;
   for (LLVMValueRef i = LLVMGetFirstInstruction(w->setup); i; i = LLVMGetNextInstruction(i)) {
      if (!LLVMIsAAllocaInst(i) || i == w->lid || i == w->next || i == w->scratch ||
          kiln_wg_setup_only(w, i))
         continue;
      if (cfg && !kiln_wg_needs_slot(cfg, i))
         continue;
      if ((shared && kiln_value_map_get(shared, i)) || kiln_wg_group_variable(i))
         continue;
      if (n == cap) {
         cap = cap ? cap * 2 : 32;
         LLVMValueRef *grown = kiln_realloc(list, cap * sizeof(*list));
         if (!grown) {
            w->oom = true;
            kiln_free(list);
            return;
         }
         list = grown;
      }
      list[n++] = i;
   }
   for (unsigned k = 0; k < n; k++)
      privatize_alloca(w, list[k]);
   kiln_free(list);
}
