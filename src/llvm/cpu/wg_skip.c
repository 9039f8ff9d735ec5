/* Regions that open with a loop no work-item enters (wg_skip.h). */
#include "llvm/cpu/wg_skip.h"

#include "llvm/cpu/block_mark.h"
#include "llvm/cpu/value_map.h"
#include "llvm/cpu/wg_internal.h"
#include "util/alloc.h"

#define MARK_NAME "kiln.skip"
#define MAX_SCAN 64     /* instructions the scan may copy */
#define MAX_REACH 1024  /* blocks searched for the loop's way back */
/* Instructions of a region worth a second copy: the copy costs compile
 * time (issue 19: builds that grow with the program). */
#define MAX_REGION 2048

void kiln_wg_skip_mark(LLVMBasicBlockRef bb)
{
   kiln_block_mark(bb, MARK_NAME);
}

static bool ends_region(LLVMBasicBlockRef bb, LLVMBasicBlockRef *before, unsigned nbefore)
{
   for (unsigned j = 0; j < nbefore; j++)
      if (before[j] == bb)
         return true;
   return false;
}

/* The alloca p points into (a work-item's slot or a variable), or NULL. */
static LLVMValueRef private_base(LLVMValueRef p)
{
   while (LLVMIsAGetElementPtrInst(p) || LLVMIsABitCastInst(p))
      p = LLVMGetOperand(p, 0);
   return LLVMIsAAllocaInst(p) ? p : NULL;
}

/* What the scan may copy: computation, and loads of private memory. */
static bool scan_inst_ok(LLVMValueRef i)
{
   switch (LLVMGetInstructionOpcode(i)) {
   case LLVMLoad:
      return private_base(LLVMGetOperand(i, 0)) && !LLVMGetVolatile(i);
   case LLVMStore:
      return private_base(LLVMGetOperand(i, 1)) && !LLVMGetVolatile(i);
   case LLVMAdd: case LLVMFAdd: case LLVMSub: case LLVMFSub: case LLVMMul: case LLVMFMul:
   case LLVMShl: case LLVMLShr: case LLVMAShr: case LLVMAnd: case LLVMOr: case LLVMXor:
   case LLVMTrunc: case LLVMZExt: case LLVMSExt: case LLVMPtrToInt: case LLVMIntToPtr:
   case LLVMBitCast: case LLVMICmp: case LLVMFCmp: case LLVMSelect: case LLVMGetElementPtr:
   case LLVMFreeze:
      return true;
   default:
      /* Division among others: it may trap for a work-item whose turn
       * would never run it. */
      return false;
   }
}

/* Walks the region's blocks from `from`: whether it reaches `to` (NULL:
 * the whole walk), counting the instructions of the blocks it visits in
 * *insts.  *fail when the region is larger than the pass takes on. */
static bool walk(LLVMBasicBlockRef from, LLVMBasicBlockRef to, LLVMBasicBlockRef *before,
                 unsigned nbefore, unsigned *insts, bool *fail)
{
   LLVMBasicBlockRef *seen = kiln_malloc(MAX_REACH * sizeof(*seen));
   LLVMBasicBlockRef *stack = kiln_malloc(MAX_REACH * sizeof(*stack));
   bool found = false;
   unsigned nseen = 0, sp = 0;
   if (!seen || !stack) {
      *fail = true;
      goto out;
   }
   seen[nseen++] = stack[sp++] = from;
   while (sp && !found) {
      LLVMBasicBlockRef bb = stack[--sp];
      if (bb == to) {
         found = true;
         break;
      }
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
         if (++*insts > MAX_REGION) {
            *fail = true;
            goto out;
         }
      if (ends_region(bb, before, nbefore))
         continue;
      LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
      for (unsigned s = 0; term && s < LLVMGetNumSuccessors(term); s++) {
         LLVMBasicBlockRef succ = LLVMGetSuccessor(term, s);
         bool known = false;
         for (unsigned k = 0; k < nseen && !known; k++)
            known = seen[k] == succ;
         if (known)
            continue;
         if (nseen == MAX_REACH) {
            *fail = true;
            goto out;
         }
         seen[nseen++] = stack[sp++] = succ;
      }
   }
out:
   kiln_free(seen);
   kiln_free(stack);
   return found;
}

bool kiln_wg_skip_find(LLVMBasicBlockRef start, LLVMBasicBlockRef *before, unsigned nbefore,
                       struct kiln_wg_skip *s)
{
   if (!kiln_block_marked(start, MARK_NAME))
      return false;
   s->n = 0;
   unsigned insts = 0;
   for (LLVMBasicBlockRef bb = start;;) {
      if (s->n == KILN_WG_SKIP_CHAIN || ends_region(bb, before, nbefore))
         return false;
      for (unsigned k = 0; k < s->n; k++)
         if (s->chain[k] == bb)
            return false;
      s->chain[s->n++] = bb;
      LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
      if (!term || LLVMGetInstructionOpcode(term) != LLVMBr)
         return false;
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i != term; i = LLVMGetNextInstruction(i))
         if (++insts > MAX_SCAN || !scan_inst_ok(i))
            return false;
      if (!LLVMIsConditional(term)) {
         bb = LLVMGetSuccessor(term, 0);
         continue;
      }
      /* The test: exactly one side comes back to it; the region is not
       * too large to copy. */
      bool fail = false;
      bool back[2];
      unsigned size = 0;
      for (unsigned side = 0; side < 2; side++) {
         unsigned ignored = 0;
         back[side] = walk(LLVMGetSuccessor(term, side), bb, before, nbefore, &ignored, &fail);
      }
      walk(start, NULL, before, nbefore, &size, &fail);
      if (fail || back[0] == back[1])
         return false;
      s->branch = term;
      s->loop_side = back[0] ? 0 : 1;
      break;
   }
   /* A load of a variable the chain stores must read it through the same
    * pointer, so that the scan can take the stored value instead. */
   LLVMValueRef stored[MAX_SCAN];
   unsigned nstored = 0;
   for (unsigned k = 0; k < s->n; k++) {
      LLVMValueRef end = LLVMGetBasicBlockTerminator(s->chain[k]);
      for (LLVMValueRef i = LLVMGetFirstInstruction(s->chain[k]); i != end;
           i = LLVMGetNextInstruction(i)) {
         if (LLVMGetInstructionOpcode(i) == LLVMStore) {
            stored[nstored++] = LLVMGetOperand(i, 1);
         } else if (LLVMGetInstructionOpcode(i) == LLVMLoad) {
            LLVMValueRef base = private_base(LLVMGetOperand(i, 0));
            for (unsigned t = 0; t < nstored; t++)
               if (private_base(stored[t]) == base && stored[t] != LLVMGetOperand(i, 0))
                  return false;
         }
      }
   }
   return true;
}

LLVMBasicBlockRef kiln_wg_skip_version(struct kiln_wg *w, const struct kiln_wg_skip *s,
                                       LLVMBasicBlockRef slow, LLVMBasicBlockRef fast)
{
   LLVMTypeRef i1 = LLVMInt1TypeInContext(w->c);
   LLVMPositionBuilderBefore(w->b, LLVMGetBasicBlockTerminator(w->setup));
   /* One for the group: the private slots were given out already. */
   LLVMValueRef any = LLVMBuildAlloca(w->b, i1, "skip.any");

   LLVMBasicBlockRef pre = LLVMAppendBasicBlockInContext(w->c, w->fn, "skip.pre");
   LLVMBasicBlockRef scan = LLVMAppendBasicBlockInContext(w->c, w->fn, "skip.scan");
   LLVMBasicBlockRef decide = LLVMAppendBasicBlockInContext(w->c, w->fn, "skip.decide");
   LLVMPositionBuilderAtEnd(w->b, decide);
   LLVMBuildCondBr(w->b, LLVMBuildLoad2(w->b, i1, any, ""), slow, fast);
   LLVMBasicBlockRef latch;
   LLVMBasicBlockRef nest = kiln_wg_loop_nest(w, scan, decide, &latch);
   LLVMPositionBuilderAtEnd(w->b, pre);
   LLVMBuildStore(w->b, LLVMConstInt(i1, 0, 0), any);
   LLVMBuildBr(w->b, nest);

   /* The chain's computation, stores left out: a load of a stored
    * variable takes the value stored (kiln_wg_skip_find checked that it
    * reads through the same pointer). */
   struct kiln_value_map map, stores;
   kiln_value_map_init(&map);
   kiln_value_map_init(&stores);
   LLVMPositionBuilderAtEnd(w->b, scan);
   for (unsigned k = 0; k < s->n && !w->oom; k++) {
      LLVMValueRef term = LLVMGetBasicBlockTerminator(s->chain[k]);
      for (LLVMValueRef i = LLVMGetFirstInstruction(s->chain[k]); i != term && !w->oom;
           i = LLVMGetNextInstruction(i)) {
         bool ok;
         if (LLVMGetInstructionOpcode(i) == LLVMStore) {
            LLVMValueRef v = LLVMGetOperand(i, 0), mapped = kiln_value_map_get(&map, v);
            ok = kiln_value_map_put(&stores, LLVMGetOperand(i, 1), mapped ? mapped : v);
         } else {
            LLVMValueRef stored = LLVMGetInstructionOpcode(i) == LLVMLoad
                                     ? kiln_value_map_get(&stores, LLVMGetOperand(i, 0))
                                     : NULL;
            ok = stored ? kiln_value_map_put(&map, i, stored)
                        : kiln_value_map_clone(&map, w->b, i) != NULL;
         }
         if (!ok)
            w->oom = true;
      }
   }
   if (!w->oom) {
      LLVMValueRef cond = LLVMGetCondition(s->branch);
      LLVMValueRef mapped = kiln_value_map_get(&map, cond);
      cond = mapped ? mapped : cond;
      if (s->loop_side == 1)
         cond = LLVMBuildNot(w->b, cond, "");
      LLVMValueRef now = LLVMBuildLoad2(w->b, i1, any, "");
      LLVMBuildStore(w->b, LLVMBuildOr(w->b, now, cond, ""), any);
      LLVMBuildBr(w->b, latch);
   }
   kiln_value_map_fini(&map);
   kiln_value_map_fini(&stores);
   return w->oom ? NULL : pre;
}
