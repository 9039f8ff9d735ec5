/* The work-item functions (get_global_id, ...), barrier() and the fences
 * as Clang mangles them: recognising them, and lowering every call but
 * barrier() to loads from the launch context and the local id. */
#include "llvm/cpu/wg_internal.h"

#include <string.h>

#include "kiln/cpu_abi.h"

const char *const kiln_wi_names[WI_COUNT] = {
   "_Z13get_global_idj",  "_Z12get_local_idj",   "_Z12get_group_idj",
   "_Z15get_global_sizej", "_Z14get_local_sizej", "_Z14get_num_groupsj",
   "_Z17get_global_offsetj", "_Z12get_work_dimv", "_Z23get_enqueued_local_sizej",
   "__kiln_wg_scratch",     "__kiln_wg_local_mem",   "__kiln_wg_local_mem_size",
   "__kiln_wg_private_top", KILN_WG_CTX_FN,          "__kiln_wg_sub_group",
   "_Z7barrierj",
   "_Z9mem_fencej",       "_Z14read_mem_fencej", "_Z15write_mem_fencej",
};

bool kiln_wg_is_work_item_function(const char *name)
{
   for (int i = 0; i < WI_COUNT; i++)
      if (!strcmp(name, kiln_wi_names[i]))
         return true;
   return false;
}

enum kiln_wi_fn kiln_wi_kind(LLVMValueRef call)
{
   LLVMValueRef callee = LLVMGetCalledValue(call);
   if (!callee || !LLVMIsAFunction(callee))
      return WI_NONE;
   size_t len;
   const char *name = LLVMGetValueName2(callee, &len);
   for (int i = 0; i < WI_COUNT; i++)
      if (!strcmp(name, kiln_wi_names[i]))
         return (enum kiln_wi_fn)i;
   return WI_NONE;
}

LLVMCallConv kiln_wg_call_conv(LLVMValueRef fn)
{
   for (LLVMUseRef use = LLVMGetFirstUse(fn); use; use = LLVMGetNextUse(use))
      if (LLVMIsACallInst(LLVMGetUser(use)))
         return (LLVMCallConv)LLVMGetInstructionCallConv(LLVMGetUser(use));
   return LLVMCCallConv;
}

LLVMBasicBlockRef kiln_wg_barrier_block(LLVMValueRef barrier_fn, LLVMCallConv cc,
                                        LLVMBasicBlockRef before, LLVMBasicBlockRef to)
{
   LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(barrier_fn));
   LLVMBasicBlockRef bb = LLVMInsertBasicBlockInContext(c, before, "barrier");
   LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
   LLVMPositionBuilderAtEnd(b, bb);
   /* CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE; fences are free here. */
   LLVMValueRef flags = LLVMConstInt(LLVMInt32TypeInContext(c), 3, 0);
   LLVMValueRef call = LLVMBuildCall2(b, LLVMGlobalGetValueType(barrier_fn), barrier_fn, &flags, 1, "");
   LLVMSetInstructionCallConv(call, cc);
   LLVMBuildBr(b, to);
   LLVMDisposeBuilder(b);
   return bb;
}

bool kiln_wg_is_call(LLVMValueRef inst)
{
   return LLVMGetInstructionOpcode(inst) == LLVMCall;
}

bool kiln_wg_is_intrinsic_call(LLVMValueRef inst, const char *prefix)
{
   if (!kiln_wg_is_call(inst))
      return false;
   LLVMValueRef callee = LLVMGetCalledValue(inst);
   size_t len;
   return callee && LLVMIsAFunction(callee) &&
          !strncmp(LLVMGetValueName2(callee, &len), prefix, strlen(prefix));
}

/* Bytes of each scratch slot: the widest type a collective combines. */
#define SCRATCH_SLOT 8
#define SCRATCH_ALIGN 16

/* The collectives' scratch area (builtins/collective.cl): one slot per
 * work-item of this group and one for a result, on the work-group
 * function's stack like the per-work-item copies of private variables
 * (wg_private.c), and counted the same way, so that the driver's launch
 * limits and the kernel's maximum work-group size include it. */
static LLVMValueRef scratch_area(struct kiln_wg *w)
{
   if (w->scratch)
      return w->scratch;
   LLVMPositionBuilderBefore(w->b, LLVMGetBasicBlockTerminator(w->setup));
   LLVMValueRef slots = LLVMBuildAdd(w->b, w->wg_items, LLVMConstInt(w->i64, 1, 0), "");
   LLVMValueRef bytes = LLVMBuildMul(w->b, slots, LLVMConstInt(w->i64, SCRATCH_SLOT, 0), "");
   w->scratch = LLVMBuildArrayAlloca(w->b, w->i8, bytes, "scratch");
   LLVMSetAlignment(w->scratch, SCRATCH_ALIGN);
   w->private_per_item += SCRATCH_SLOT;
   w->private_pad += SCRATCH_SLOT + SCRATCH_ALIGN;
   return w->scratch;
}

/* The top of the work-group's private memory: the slot of the work-group
 * function's return address.  A work-group runs on one thread, and every
 * private object of its work-items (the kernel's allocas, the
 * per-work-item slots of wg_private.c, the frames of the functions it
 * calls) lies on that thread's stack below this slot; what is above it
 * (the driver's frames) no kernel can point to.  Taken once in setup. */
static LLVMValueRef private_top(struct kiln_wg *w)
{
   if (w->private_top)
      return w->private_top;
   LLVMPositionBuilderBefore(w->b, LLVMGetBasicBlockTerminator(w->setup));
   static const char name[] = "llvm.addressofreturnaddress";
   unsigned id = LLVMLookupIntrinsicID(name, sizeof(name) - 1);
   LLVMTypeRef ptr = w->ptr;
   LLVMValueRef fn = LLVMGetIntrinsicDeclaration(w->m, id, &ptr, 1);
   LLVMValueRef slot =
      LLVMBuildCall2(w->b, LLVMIntrinsicGetType(w->c, id, &ptr, 1), fn, NULL, 0, "ret_slot");
   w->private_top = LLVMBuildPtrToInt(w->b, slot, w->i64, "private_top");
   return w->private_top;
}

/* Replaces one work-item function call (builder placed before it). */
static void lower_wi_call(struct kiln_wg *w, LLVMValueRef call, enum kiln_wi_fn kind)
{
   if (kind == WI_PRIVATE_TOP) {
      LLVMValueRef v = private_top(w);
      LLVMPositionBuilderBefore(w->b, call);
      LLVMReplaceAllUsesWith(call, v);
      return;
   }
   if (kind == WI_LOCAL_MEM) {
      LLVMValueRef p = LLVMBuildLoad2(w->b, w->ptr, kiln_wg_ctx_field(w, KILN_CTX_LOCAL_MEM, NULL), "");
      LLVMReplaceAllUsesWith(call, LLVMBuildPtrToInt(w->b, p, w->i64, ""));
      return;
   }
   if (kind == WI_LOCAL_MEM_SIZE) {
      LLVMValueRef n = kiln_wg_load_i64(w, kiln_wg_ctx_field(w, KILN_CTX_LOCAL_MEM_SIZE, NULL));
      LLVMReplaceAllUsesWith(call, n);
      return;
   }
   if (kind == WI_SCRATCH) {
      LLVMValueRef p = scratch_area(w);
      LLVMPositionBuilderBefore(w->b, call);
      if (LLVMTypeOf(p) != LLVMTypeOf(call))
         p = LLVMBuildAddrSpaceCast(w->b, p, LLVMTypeOf(call), "");
      LLVMReplaceAllUsesWith(call, p);
      return;
   }
   if (kind == WI_CTX) {
      LLVMReplaceAllUsesWith(call, w->wctx);
      return;
   }
   if (kind == WI_WORK_DIM) {
      LLVMValueRef v = LLVMBuildLoad2(w->b, w->i32, kiln_wg_ctx_field(w, KILN_CTX_WORK_DIM, NULL), "");
      LLVMReplaceAllUsesWith(call, v);
      return;
   }
   /* dimindx outside 0..2 gives 0 for ids and offsets, 1 for sizes. */
   LLVMValueRef dim = LLVMGetOperand(call, 0);
   LLVMValueRef idx = dim, in_range = NULL;
   if (!LLVMIsAConstantInt(dim) || LLVMConstIntGetZExtValue(dim) > 2) {
      in_range = LLVMBuildICmp(w->b, LLVMIntULT, dim, LLVMConstInt(w->i32, 3, 0), "");
      idx = LLVMBuildSelect(w->b, in_range, dim, LLVMConstInt(w->i32, 0, 0), "");
   }
   LLVMValueRef v;
   bool is_size = false;
   switch (kind) {
   case WI_LOCAL_ID:
      v = kiln_wg_load_i64(w, kiln_wg_lid_ptr(w, idx));
      break;
   case WI_GLOBAL_ID: {
      /* The enqueued size: the last group of a non-uniform launch is
       * smaller than the ones before it. */
      LLVMValueRef g = kiln_wg_load_i64(w, kiln_wg_ctx_field(w, KILN_CTX_GROUP_ID, idx));
      LLVMValueRef l =
         kiln_wg_load_i64(w, kiln_wg_ctx_field(w, KILN_CTX_ENQUEUED_LOCAL_SIZE, idx));
      LLVMValueRef o = kiln_wg_load_i64(w, kiln_wg_ctx_field(w, KILN_CTX_GLOBAL_OFFSET, idx));
      v = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, g, l, ""), kiln_wg_load_i64(w, kiln_wg_lid_ptr(w, idx)), "");
      v = LLVMBuildAdd(w->b, v, o, "");
      break;
   }
   case WI_GROUP_ID:
      v = kiln_wg_load_i64(w, kiln_wg_ctx_field(w, KILN_CTX_GROUP_ID, idx));
      break;
   case WI_GLOBAL_OFFSET:
      v = kiln_wg_load_i64(w, kiln_wg_ctx_field(w, KILN_CTX_GLOBAL_OFFSET, idx));
      break;
   case WI_GLOBAL_SIZE:
      v = kiln_wg_load_i64(w, kiln_wg_ctx_field(w, KILN_CTX_GLOBAL_SIZE, idx));
      is_size = true;
      break;
   case WI_LOCAL_SIZE:
      v = kiln_wg_load_i64(w, kiln_wg_ctx_field(w, KILN_CTX_LOCAL_SIZE, idx));
      is_size = true;
      break;
   case WI_ENQUEUED_LOCAL_SIZE:
      v = kiln_wg_load_i64(w, kiln_wg_ctx_field(w, KILN_CTX_ENQUEUED_LOCAL_SIZE, idx));
      is_size = true;
      break;
   case WI_NUM_GROUPS:
      v = kiln_wg_load_i64(w, kiln_wg_ctx_field(w, KILN_CTX_NUM_GROUPS, idx));
      is_size = true;
      break;
   default:
      return;
   }
   if (in_range)
      v = LLVMBuildSelect(w->b, in_range, v, LLVMConstInt(w->i64, is_size ? 1 : 0, 0), "");
   if (LLVMTypeOf(call) != w->i64)
      v = LLVMBuildTrunc(w->b, v, LLVMTypeOf(call), "");
   LLVMReplaceAllUsesWith(call, v);
}

/* Lowers every work-item function call; fences vanish (a work-group runs
 * on one thread).  Barrier calls stay: they delimit regions.  Returns the
 * number of barriers. */
unsigned kiln_wg_lower_work_items(struct kiln_wg *w)
{
   unsigned barriers = 0;
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(w->fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
      LLVMValueRef i = LLVMGetFirstInstruction(bb);
      while (i) {
         LLVMValueRef next = LLVMGetNextInstruction(i);
         enum kiln_wi_fn k = kiln_wg_is_call(i) ? kiln_wi_kind(i) : WI_NONE;
         if (k == WI_BARRIER) {
            barriers++;
         } else if (k == WI_MEM_FENCE || k == WI_READ_MEM_FENCE || k == WI_WRITE_MEM_FENCE) {
            LLVMInstructionEraseFromParent(i);
         } else if (k == WI_SUB_GROUP) {
            /* Only a mark: the group size limit (workgroup.c). */
            w->sub_groups = true;
            LLVMInstructionEraseFromParent(i);
         } else if (k != WI_NONE) {
            LLVMPositionBuilderBefore(w->b, i);
            lower_wi_call(w, i, k);
            LLVMInstructionEraseFromParent(i);
         }
         i = next;
      }
   }
   return barriers;
}

bool kiln_wg_has_barrier(LLVMValueRef fn)
{
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
         if (kiln_wg_is_call(i) && kiln_wi_kind(i) == WI_BARRIER)
            return true;
   return false;
}
