/* Barriers around the uniform control of loops that contain barriers
 * (see wg_loop_split.h). */
#include "llvm/cpu/wg_loop_split.h"

#include <stdbool.h>

#include "llvm/cpu/wg_graph.h"
#include "llvm/cpu/wg_internal.h"
#include "llvm/cpu/wg_uniform.h"
#include "util/alloc.h"

static bool has_call_to(LLVMBasicBlockRef bb, LLVMValueRef fn)
{
   for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
      if (LLVMGetInstructionOpcode(i) == LLVMCall && LLVMGetCalledValue(i) == fn)
         return true;
   return false;
}

/* Puts a barrier on the edge from block `from` (successor s). */
static void barrier_on_edge(LLVMBasicBlockRef from, unsigned s, LLVMValueRef barrier_fn,
                            LLVMCallConv cc)
{
   LLVMValueRef term = LLVMGetBasicBlockTerminator(from);
   LLVMBasicBlockRef to = LLVMGetSuccessor(term, s);
   LLVMSetSuccessor(term, s, kiln_wg_barrier_block(barrier_fn, cc, to, to));
}

unsigned kiln_wg_split_uniform_loops(LLVMValueRef fn, LLVMValueRef lid, LLVMValueRef barrier_fn)
{
   if (!barrier_fn)
      return 0;
   struct kiln_wg_uniform u;
   struct kiln_wg_graph g;
   /* Both always initialised, so both can be finished. */
   bool ok = kiln_wg_graph_init(&g, fn);
   ok = kiln_wg_uniform_init(&u, fn, lid) && ok;
   unsigned n = g.n, added = 0;
   bool *split = ok ? kiln_calloc(n ? n : 1, sizeof(bool)) : NULL;
   ok = ok && split;
   LLVMCallConv cc = kiln_wg_call_conv(barrier_fn);

   /* Each back edge t -> h names a loop: h and what reaches t without
    * passing h.  Loops with a barrier have their exiting branches split. */
   for (unsigned t = 0; ok && t < n; t++) {
      LLVMValueRef term = LLVMGetBasicBlockTerminator(g.blocks[t]);
      for (unsigned s = 0; term && s < LLVMGetNumSuccessors(term); s++) {
         LLVMBasicBlockRef hb = LLVMGetSuccessor(term, s);
         if (!kiln_wg_graph_back_edge(&g, t, hb))
            continue;
         kiln_wg_graph_loop(&g, (unsigned)kiln_wg_graph_index(&g, hb), t);
         bool barrier = false;
         for (unsigned b = 0; b < n && !barrier; b++)
            barrier = g.in_loop[b] && has_call_to(g.blocks[b], barrier_fn);
         if (!barrier)
            continue;
         for (unsigned b = 0; b < n; b++) {
            if (!g.in_loop[b])
               continue;
            LLVMValueRef bt = LLVMGetBasicBlockTerminator(g.blocks[b]);
            if (!bt || !LLVMIsABranchInst(bt) || !LLVMIsConditional(bt))
               continue;
            bool exits = false;
            for (unsigned k = 0; k < 2; k++) {
               int d = kiln_wg_graph_index(&g, LLVMGetSuccessor(bt, k));
               exits |= d < 0 || !g.in_loop[d];
            }
            if (exits && kiln_wg_uniform_block(&u, g.blocks[b]) &&
                kiln_wg_uniform_value(&u, LLVMGetCondition(bt)))
               split[b] = true;
         }
      }
   }
   for (unsigned b = 0; ok && b < n; b++) {
      if (!split[b])
         continue;
      LLVMValueRef bt = LLVMGetBasicBlockTerminator(g.blocks[b]);
      for (unsigned k = 0; k < 2; k++) {
         LLVMBasicBlockRef to = LLVMGetSuccessor(bt, k);
         LLVMValueRef first = LLVMGetFirstInstruction(to);
         /* Already at a barrier, or phis to keep (none after reg2mem). */
         if (first && ((LLVMGetInstructionOpcode(first) == LLVMCall &&
                        LLVMGetCalledValue(first) == barrier_fn) || LLVMIsAPHINode(first)))
            continue;
         barrier_on_edge(g.blocks[b], k, barrier_fn, cc);
         added++;
      }
   }
   kiln_free(split);
   kiln_wg_graph_fini(&g);
   kiln_wg_uniform_fini(&u);
   return added;
}
