/* The control-flow graph of a work-group function's body and its natural
 * loops, for the passes that reason about loops (wg_loop_split.c,
 * wg_interchange.c).  Blocks are those reachable from the block after
 * setup, in reverse post-order, so a block's dominators come first. */
#ifndef KILN_LLVM_WG_GRAPH_H
#define KILN_LLVM_WG_GRAPH_H

#include <llvm-c/Core.h>
#include <stdbool.h>

#include "llvm/cpu/value_map.h"

struct kiln_wg_graph {
   unsigned n;
   LLVMBasicBlockRef *blocks;
   struct kiln_value_map index; /* block -> index + 1 */
   unsigned **pred, *npred;
   int *idom;                   /* immediate dominator by index */
   bool *in_loop;               /* kiln_wg_graph_loop's answer */
   unsigned *stack;             /* its scratch */
};

/* The blocks reachable from the one after setup, in reverse post-order
 * (*blocks allocated), and each one's index + 1 in index.  False when out
 * of memory. */
bool kiln_wg_reverse_post_order(LLVMValueRef fn, LLVMBasicBlockRef **blocks, unsigned *n,
                                struct kiln_value_map *index);

/* False when out of memory (then fini is still safe). */
bool kiln_wg_graph_init(struct kiln_wg_graph *g, LLVMValueRef fn);
void kiln_wg_graph_fini(struct kiln_wg_graph *g);
/* -1 for a block outside the graph (setup, unreachable code). */
int kiln_wg_graph_index(const struct kiln_wg_graph *g, LLVMBasicBlockRef bb);
/* Whether the edge from block t to successor s is a back edge (s
 * dominates t): then s is a loop header and t one of its latches. */
bool kiln_wg_graph_back_edge(const struct kiln_wg_graph *g, unsigned t, LLVMBasicBlockRef s);
/* Fills g->in_loop with the loop of back edge latch -> header: the header
 * and every block that reaches the latch without passing it. */
void kiln_wg_graph_loop(struct kiln_wg_graph *g, unsigned header, unsigned latch);

#endif
