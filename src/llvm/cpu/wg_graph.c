/* Reverse post-order, predecessors, dominators and natural loops of a
 * work-group function's body (see wg_graph.h). */
#include "llvm/cpu/wg_graph.h"

#include <stdint.h>
#include <string.h>

#include "util/alloc.h"

int kiln_wg_graph_index(const struct kiln_wg_graph *g, LLVMBasicBlockRef bb)
{
   LLVMValueRef v = kiln_value_map_get(&g->index, LLVMBasicBlockAsValue(bb));
   return v ? (int)((uintptr_t)v - 1) : -1;
}

bool kiln_wg_reverse_post_order(LLVMValueRef fn, LLVMBasicBlockRef **blocks, unsigned *n,
                                struct kiln_value_map *index)
{
   unsigned count = 0;
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
      count++;
   LLVMBasicBlockRef setup = LLVMGetFirstBasicBlock(fn);
   LLVMBasicBlockRef *post = kiln_malloc((count + 1) * sizeof(*post));
   LLVMBasicBlockRef *stack = kiln_malloc((count + 1) * sizeof(*stack));
   unsigned *next = kiln_calloc(count + 1, sizeof(*next));
   *blocks = kiln_malloc((count + 1) * sizeof(**blocks));
   *n = 0;
   struct kiln_value_map seen;
   kiln_value_map_init(&seen);
   bool ok = post && stack && next && *blocks;
   unsigned np = 0, sp = 0;
   LLVMValueRef term = setup ? LLVMGetBasicBlockTerminator(setup) : NULL;
   if (ok && term && LLVMGetNumSuccessors(term) == 1) {
      stack[sp++] = LLVMGetSuccessor(term, 0);
      ok = kiln_value_map_put(&seen, LLVMBasicBlockAsValue(stack[0]), LLVMBasicBlockAsValue(stack[0]));
   }
   while (ok && sp) {
      LLVMBasicBlockRef bb = stack[sp - 1];
      LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
      unsigned ns = t ? LLVMGetNumSuccessors(t) : 0;
      if (next[sp - 1] < ns) {
         LLVMBasicBlockRef s = LLVMGetSuccessor(t, next[sp - 1]++);
         if (s == setup || kiln_value_map_get(&seen, LLVMBasicBlockAsValue(s)))
            continue;
         ok = kiln_value_map_put(&seen, LLVMBasicBlockAsValue(s), LLVMBasicBlockAsValue(s));
         next[sp] = 0;
         stack[sp++] = s;
      } else {
         post[np++] = bb;
         sp--;
      }
   }
   for (unsigned k = 0; ok && k < np; k++) {
      (*blocks)[k] = post[np - 1 - k];
      ok = kiln_value_map_put(index, LLVMBasicBlockAsValue((*blocks)[k]),
                              (LLVMValueRef)(uintptr_t)(k + 1));
   }
   *n = ok ? np : 0;
   kiln_value_map_fini(&seen);
   kiln_free(post);
   kiln_free(stack);
   kiln_free(next);
   return ok;
}

/* Immediate dominators; blocks are in reverse post-order, so a block's
 * dominators have smaller indices (Cooper, Harvey, Kennedy). */
static void dominators(struct kiln_wg_graph *g)
{
   int *idom = g->idom;
   for (unsigned b = 0; b < g->n; b++)
      idom[b] = -1;
   if (!g->n)
      return;
   idom[0] = 0;
   bool changed = true;
   while (changed) {
      changed = false;
      for (unsigned b = 1; b < g->n; b++) {
         int nd = -1;
         for (unsigned k = 0; k < g->npred[b]; k++) {
            int p = (int)g->pred[b][k];
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

bool kiln_wg_graph_init(struct kiln_wg_graph *g, LLVMValueRef fn)
{
   memset(g, 0, sizeof(*g));
   kiln_value_map_init(&g->index);
   if (!kiln_wg_reverse_post_order(fn, &g->blocks, &g->n, &g->index))
      return false;
   unsigned n = g->n ? g->n : 1;
   g->pred = kiln_calloc(n, sizeof(*g->pred));
   g->npred = kiln_calloc(n, sizeof(unsigned));
   g->idom = kiln_malloc(n * sizeof(int));
   g->in_loop = kiln_calloc(n, sizeof(bool));
   g->stack = kiln_malloc(n * sizeof(unsigned));
   if (!g->pred || !g->npred || !g->idom || !g->in_loop || !g->stack)
      return false;
   for (unsigned b = 0; b < g->n; b++) {
      LLVMValueRef t = LLVMGetBasicBlockTerminator(g->blocks[b]);
      for (unsigned s = 0; t && s < LLVMGetNumSuccessors(t); s++) {
         int k = kiln_wg_graph_index(g, LLVMGetSuccessor(t, s));
         if (k < 0)
            continue;
         unsigned *grown = kiln_realloc(g->pred[k], (g->npred[k] + 1) * sizeof(unsigned));
         if (!grown)
            return false;
         g->pred[k] = grown;
         g->pred[k][g->npred[k]++] = b;
      }
   }
   dominators(g);
   return true;
}

void kiln_wg_graph_fini(struct kiln_wg_graph *g)
{
   for (unsigned b = 0; g->pred && b < g->n; b++)
      kiln_free(g->pred[b]);
   kiln_free(g->pred);
   kiln_free(g->npred);
   kiln_free(g->idom);
   kiln_free(g->in_loop);
   kiln_free(g->stack);
   kiln_free(g->blocks);
   kiln_value_map_fini(&g->index);
}

bool kiln_wg_graph_back_edge(const struct kiln_wg_graph *g, unsigned t, LLVMBasicBlockRef s)
{
   int h = kiln_wg_graph_index(g, s);
   if (h < 0)
      return false;
   for (unsigned b = t;; b = (unsigned)g->idom[b]) {
      if (b == (unsigned)h)
         return true;
      if (b == 0 || g->idom[b] < 0)
         return false;
   }
}

void kiln_wg_graph_loop(struct kiln_wg_graph *g, unsigned header, unsigned latch)
{
   memset(g->in_loop, 0, g->n);
   g->in_loop[header] = true;
   unsigned sp = 0;
   if (!g->in_loop[latch]) {
      g->in_loop[latch] = true;
      g->stack[sp++] = latch;
   }
   while (sp) {
      unsigned b = g->stack[--sp];
      for (unsigned k = 0; k < g->npred[b]; k++)
         if (!g->in_loop[g->pred[b][k]]) {
            g->in_loop[g->pred[b][k]] = true;
            g->stack[sp++] = g->pred[b][k];
         }
   }
}
