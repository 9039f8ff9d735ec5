/* The loops over a work-group's work-items, and the whole body of a
 * kernel without barriers as one such loop nest. */
#include "llvm/cpu/wg_internal.h"

/* Builds, for one region, the nest
 *    for z, for y, for x: lid = (x, y, z); <body>
 * Returns the nest's entry block; the body must branch to *latch when a
 * work-item is done, and the nest continues at done. */
LLVMBasicBlockRef kiln_wg_loop_nest(struct kiln_wg *w, LLVMBasicBlockRef body,
                                         LLVMBasicBlockRef done, LLVMBasicBlockRef *latch)
{
   LLVMBasicBlockRef pre = LLVMAppendBasicBlockInContext(w->c, w->fn, "wi.pre");
   LLVMBasicBlockRef cond[3], init[3], inc[3];
   for (int d = 2; d >= 0; d--) {
      init[d] = d == 2 ? pre : LLVMAppendBasicBlockInContext(w->c, w->fn, "wi.init");
      cond[d] = LLVMAppendBasicBlockInContext(w->c, w->fn, "wi.cond");
   }
   for (int d = 0; d < 3; d++)
      inc[d] = LLVMAppendBasicBlockInContext(w->c, w->fn, "wi.inc");
   LLVMBasicBlockRef enter = LLVMAppendBasicBlockInContext(w->c, w->fn, "wi.body");

   for (int d = 2; d >= 0; d--) {
      LLVMPositionBuilderAtEnd(w->b, init[d]);
      LLVMBuildStore(w->b, LLVMConstInt(w->i64, 0, 0), kiln_wg_lid_ptr(w, LLVMConstInt(w->i32, d, 0)));
      LLVMBuildBr(w->b, cond[d]);
      LLVMPositionBuilderAtEnd(w->b, cond[d]);
      LLVMValueRef v = kiln_wg_load_i64(w, kiln_wg_lid_ptr(w, LLVMConstInt(w->i32, d, 0)));
      LLVMValueRef more = LLVMBuildICmp(w->b, LLVMIntULT, v, w->lsize[d], "");
      LLVMBuildCondBr(w->b, more, d ? init[d - 1] : enter, d == 2 ? done : inc[d + 1]);
   }
   LLVMPositionBuilderAtEnd(w->b, enter);
   LLVMBuildBr(w->b, body);
   for (int d = 0; d < 3; d++) {
      LLVMPositionBuilderAtEnd(w->b, inc[d]);
      LLVMValueRef p = kiln_wg_lid_ptr(w, LLVMConstInt(w->i32, d, 0));
      LLVMValueRef v = kiln_wg_load_i64(w, p);
      LLVMBuildStore(w->b, LLVMBuildAdd(w->b, v, LLVMConstInt(w->i64, 1, 0), ""), p);
      LLVMBuildBr(w->b, cond[d]);
   }
   *latch = inc[0];
   return pre;
}

/* Without barriers the body runs as is, once per work-item. */
void kiln_wg_build_single_region(struct kiln_wg *w)
{
   LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(w->c, w->fn, "done");
   LLVMPositionBuilderAtEnd(w->b, done);
   LLVMBuildRetVoid(w->b);
   LLVMBasicBlockRef latch;
   LLVMBasicBlockRef nest = kiln_wg_loop_nest(w, w->body, done, &latch);
   for (LLVMBasicBlockRef bb = LLVMGetNextBasicBlock(w->setup); bb; bb = LLVMGetNextBasicBlock(bb)) {
      LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
      if (bb == done || !term || !LLVMIsAReturnInst(term))
         continue;
      LLVMPositionBuilderBefore(w->b, term);
      LLVMBuildBr(w->b, latch);
      LLVMInstructionEraseFromParent(term);
   }
   LLVMSetSuccessor(LLVMGetBasicBlockTerminator(w->setup), 0, nest);
}
