/* Barriers around the uniform control of loops that contain barriers
 * (see wg_loop_split.h). */
#include "llvm/cpu/wg_loop_split.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llvm/cpu/wg_uniform.h"
#include "util/alloc.h"

static int index_of(const struct kiln_wg_uniform *u, LLVMBasicBlockRef bb)
{
   LLVMValueRef v = kiln_value_map_get(&u->index, LLVMBasicBlockAsValue(bb));
   return v ? (int)((uintptr_t)v - 1) : -1;
}

static bool has_call_to(LLVMBasicBlockRef bb, LLVMValueRef fn)
{
   for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
      if (LLVMGetInstructionOpcode(i) == LLVMCall && LLVMGetCalledValue(i) == fn)
         return true;
   return false;
}

/* Immediate dominators by index; u->blocks is in reverse post-order, so a
 * block's dominators have smaller indices (Cooper, Harvey, Kennedy). */
static void dominators(const struct kiln_wg_uniform *u, unsigned **pred, const unsigned *npred,
                       int *idom)
{
   unsigned n = u->num_blocks;
   for (unsigned b = 0; b < n; b++)
      idom[b] = -1;
   idom[0] = 0;
   bool changed = true;
   while (changed) {
      changed = false;
      for (unsigned b = 1; b < n; b++) {
         int nd = -1;
         for (unsigned k = 0; k < npred[b]; k++) {
            int p = (int)pred[b][k];
            if (idom[p] < 0)
               continue;
            if (nd < 0) {
               nd = p;
               continue;
            }
            int a = p, c = nd;
            while (a != c) {
               while (a > c)
                  a = idom[a];
               while (c > a)
                  c = idom[c];
            }
            nd = a;
         }
         if (nd != idom[b]) {
            idom[b] = nd;
            changed = true;
         }
      }
   }
}

static bool dominates(const int *idom, unsigned h, unsigned b)
{
   for (;;) {
      if (b == h)
         return true;
      if (b == 0 || idom[b] < 0)
         return false;
      b = (unsigned)idom[b];
   }
}

/* Puts a barrier on the edge from block `from` (successor s). */
static void barrier_on_edge(LLVMBasicBlockRef from, unsigned s, LLVMValueRef barrier_fn,
                            LLVMCallConv cc)
{
   LLVMValueRef term = LLVMGetBasicBlockTerminator(from);
   LLVMBasicBlockRef to = LLVMGetSuccessor(term, s);
   LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(barrier_fn));
   LLVMBasicBlockRef e = LLVMInsertBasicBlockInContext(c, to, "loop.barrier");
   LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
   LLVMPositionBuilderAtEnd(b, e);
   /* CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE; fences are free here. */
   LLVMValueRef flags = LLVMConstInt(LLVMInt32TypeInContext(c), 3, 0);
   LLVMValueRef call = LLVMBuildCall2(b, LLVMGlobalGetValueType(barrier_fn), barrier_fn, &flags, 1, "");
   LLVMSetInstructionCallConv(call, cc);
   LLVMBuildBr(b, to);
   LLVMDisposeBuilder(b);
   LLVMSetSuccessor(term, s, e);
}

unsigned kiln_wg_split_uniform_loops(LLVMValueRef fn, LLVMValueRef lid, LLVMValueRef barrier_fn)
{
   if (!barrier_fn)
      return 0;
   struct kiln_wg_uniform u;
   if (!kiln_wg_uniform_init(&u, fn, lid)) {
      kiln_wg_uniform_fini(&u);
      return 0;
   }
   unsigned n = u.num_blocks, added = 0;
   unsigned **pred = kiln_calloc(n ? n : 1, sizeof(*pred));
   unsigned *npred = kiln_calloc(n ? n : 1, sizeof(unsigned));
   int *idom = kiln_malloc((n ? n : 1) * sizeof(int));
   bool *in_loop = kiln_malloc(n ? n : 1);
   bool *split = kiln_calloc(n ? n : 1, sizeof(bool));
   unsigned *stack = kiln_malloc((n ? n : 1) * sizeof(unsigned));
   bool ok = pred && npred && idom && in_loop && split && stack;
   for (unsigned b = 0; ok && b < n; b++) {
      LLVMValueRef t = LLVMGetBasicBlockTerminator(u.blocks[b]);
      for (unsigned s = 0; t && s < LLVMGetNumSuccessors(t); s++) {
         int k = index_of(&u, LLVMGetSuccessor(t, s));
         if (k < 0)
            continue;
         unsigned *grown = kiln_realloc(pred[k], (npred[k] + 1) * sizeof(unsigned));
         if (!grown) {
            ok = false;
            break;
         }
         pred[k] = grown;
         pred[k][npred[k]++] = b;
      }
   }
   LLVMCallConv cc = LLVMCCallConv;
   for (LLVMUseRef use = LLVMGetFirstUse(barrier_fn); use; use = LLVMGetNextUse(use))
      if (LLVMIsACallInst(LLVMGetUser(use)))
         cc = (LLVMCallConv)LLVMGetInstructionCallConv(LLVMGetUser(use));
   if (ok && n)
      dominators(&u, pred, npred, idom);

   /* Each back edge t -> h names a loop: h and what reaches t without
    * passing h.  Loops with a barrier have their exiting branches split. */
   for (unsigned t = 0; ok && t < n; t++) {
      LLVMValueRef term = LLVMGetBasicBlockTerminator(u.blocks[t]);
      for (unsigned s = 0; term && s < LLVMGetNumSuccessors(term); s++) {
         int h = index_of(&u, LLVMGetSuccessor(term, s));
         if (h < 0 || !dominates(idom, (unsigned)h, t))
            continue;
         memset(in_loop, 0, n);
         in_loop[h] = true;
         unsigned sp = 0;
         if (!in_loop[t]) {
            in_loop[t] = true;
            stack[sp++] = t;
         }
         while (sp) {
            unsigned b = stack[--sp];
            for (unsigned k = 0; k < npred[b]; k++)
               if (!in_loop[pred[b][k]]) {
                  in_loop[pred[b][k]] = true;
                  stack[sp++] = pred[b][k];
               }
         }
         bool barrier = false;
         for (unsigned b = 0; b < n && !barrier; b++)
            barrier = in_loop[b] && has_call_to(u.blocks[b], barrier_fn);
         if (!barrier)
            continue;
         for (unsigned b = 0; b < n; b++) {
            if (!in_loop[b])
               continue;
            LLVMValueRef bt = LLVMGetBasicBlockTerminator(u.blocks[b]);
            if (!bt || !LLVMIsABranchInst(bt) || !LLVMIsConditional(bt))
               continue;
            bool exits = false;
            for (unsigned k = 0; k < 2; k++) {
               int d = index_of(&u, LLVMGetSuccessor(bt, k));
               exits |= d < 0 || !in_loop[d];
            }
            if (exits && kiln_wg_uniform_block(&u, u.blocks[b]) &&
                kiln_wg_uniform_value(&u, LLVMGetCondition(bt)))
               split[b] = true;
         }
      }
   }
   for (unsigned b = 0; ok && b < n; b++) {
      if (!split[b])
         continue;
      LLVMValueRef bt = LLVMGetBasicBlockTerminator(u.blocks[b]);
      for (unsigned k = 0; k < 2; k++) {
         LLVMBasicBlockRef to = LLVMGetSuccessor(bt, k);
         LLVMValueRef first = LLVMGetFirstInstruction(to);
         /* Already at a barrier, or phis to keep (none after reg2mem). */
         if (first && ((LLVMGetInstructionOpcode(first) == LLVMCall &&
                        LLVMGetCalledValue(first) == barrier_fn) || LLVMIsAPHINode(first)))
            continue;
         barrier_on_edge(u.blocks[b], k, barrier_fn, cc);
         added++;
      }
   }
   for (unsigned b = 0; pred && b < n; b++)
      kiln_free(pred[b]);
   kiln_free(pred);
   kiln_free(npred);
   kiln_free(idom);
   kiln_free(in_loop);
   kiln_free(split);
   kiln_free(stack);
   kiln_wg_uniform_fini(&u);
   return added;
}
