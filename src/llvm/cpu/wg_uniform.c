/* Uniform values and divergent blocks of a work-group function with
 * barriers (see wg_uniform.h). */
#include "llvm/cpu/wg_uniform.h"

#include "llvm/cpu/wg_predicate.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llvm/cpu/wg_graph.h"
#include "util/alloc.h"

#define MARK ((LLVMValueRef)(uintptr_t)1)
#define UNDEF (-1)

/* The body's control-flow graph, with a virtual exit node (index n) that
 * every returning block leads to. */
struct graph {
   unsigned n;
   unsigned **succ, *nsucc; /* forward successors, by block index */
   unsigned **pred, *npred;
   int *ipdom;              /* immediate post-dominator; UNDEF: none */
};

static int block_index(const struct kiln_wg_uniform *u, LLVMBasicBlockRef bb)
{
   LLVMValueRef v = kiln_value_map_get(&u->index, LLVMBasicBlockAsValue(bb));
   return v ? (int)((uintptr_t)v - 1) : -1;
}

static bool is_exit(const struct graph *g, unsigned b)
{
   return g->nsucc[b] == 0;
}

static void graph_fini(struct graph *g)
{
   for (unsigned b = 0; b < g->n; b++) {
      if (g->succ)
         kiln_free(g->succ[b]);
      if (g->pred)
         kiln_free(g->pred[b]);
   }
   kiln_free(g->succ);
   kiln_free(g->nsucc);
   kiln_free(g->pred);
   kiln_free(g->npred);
   kiln_free(g->ipdom);
}

static bool graph_init(struct graph *g, const struct kiln_wg_uniform *u)
{
   unsigned n = u->num_blocks;
   memset(g, 0, sizeof(*g));
   g->n = n;
   g->succ = kiln_calloc(n + 1, sizeof(*g->succ));
   g->pred = kiln_calloc(n + 1, sizeof(*g->pred));
   g->nsucc = kiln_calloc(n + 1, sizeof(unsigned));
   g->npred = kiln_calloc(n + 1, sizeof(unsigned));
   g->ipdom = kiln_malloc((n + 1) * sizeof(int));
   if (!g->succ || !g->pred || !g->nsucc || !g->npred || !g->ipdom)
      return false;
   for (unsigned b = 0; b < n; b++) {
      LLVMValueRef t = LLVMGetBasicBlockTerminator(u->blocks[b]);
      unsigned ns = t ? LLVMGetNumSuccessors(t) : 0;
      g->succ[b] = kiln_malloc((ns ? ns : 1) * sizeof(unsigned));
      if (!g->succ[b])
         return false;
      for (unsigned s = 0; s < ns; s++) {
         int k = block_index(u, LLVMGetSuccessor(t, s));
         if (k >= 0)
            g->succ[b][g->nsucc[b]++] = (unsigned)k;
      }
      for (unsigned s = 0; s < g->nsucc[b]; s++)
         g->npred[g->succ[b][s]]++;
   }
   for (unsigned b = 0; b < n; b++) {
      g->pred[b] = kiln_malloc((g->npred[b] ? g->npred[b] : 1) * sizeof(unsigned));
      if (!g->pred[b])
         return false;
      g->npred[b] = 0;
   }
   for (unsigned b = 0; b < n; b++)
      for (unsigned s = 0; s < g->nsucc[b]; s++) {
         unsigned t = g->succ[b][s];
         g->pred[t][g->npred[t]++] = b;
      }
   return true;
}

/* Post-dominators: dominators of the reverse graph rooted at the virtual
 * exit (Cooper, Harvey and Kennedy's iteration).  Blocks that cannot
 * reach a return keep UNDEF. */
static bool post_dominators(struct graph *g)
{
   unsigned n = g->n, exit = n;
   int *po = kiln_malloc((n + 1) * sizeof(int));
   unsigned *order = kiln_malloc((n + 1) * sizeof(unsigned));
   unsigned *stack = kiln_malloc((n + 1) * sizeof(unsigned));
   unsigned *next = kiln_calloc(n + 1, sizeof(unsigned));
   if (!po || !order || !stack || !next) {
      kiln_free(po), kiln_free(order), kiln_free(stack), kiln_free(next);
      return false;
   }
   for (unsigned b = 0; b <= n; b++) {
      po[b] = -1;
      g->ipdom[b] = UNDEF;
   }
   /* Post-order of the reverse graph: from the exit to the returning
    * blocks, from a block to its predecessors. */
   unsigned sp = 0, np = 0;
   stack[sp++] = exit;
   po[exit] = -2; /* on the stack */
   while (sp) {
      unsigned x = stack[sp - 1];
      int y = -1;
      if (x == exit) {
         while (next[x] < n && y < 0) {
            unsigned b = next[x]++;
            if (is_exit(g, b))
               y = (int)b;
         }
      } else if (next[x] < g->npred[x]) {
         y = (int)g->pred[x][next[x]++];
      }
      if (y >= 0) {
         if (po[y] == -1) {
            po[y] = -2;
            stack[sp++] = (unsigned)y;
         }
         continue;
      }
      if ((x == exit && next[x] >= n) || (x != exit && next[x] >= g->npred[x])) {
         po[x] = (int)np;
         order[np++] = x;
         sp--;
      }
   }
   g->ipdom[exit] = (int)exit;
   bool changed = true;
   while (changed) {
      changed = false;
      for (unsigned k = np; k-- > 0;) {
         unsigned b = order[k];
         if (b == exit)
            continue;
         int nd = UNDEF;
         /* Reverse-graph predecessors: forward successors, and the exit
          * for a returning block. */
         for (unsigned s = 0; s <= g->nsucc[b]; s++) {
            int p = s < g->nsucc[b] ? (int)g->succ[b][s] : (is_exit(g, b) ? (int)exit : UNDEF);
            if (p == UNDEF || g->ipdom[p] == UNDEF)
               continue;
            if (nd == UNDEF) {
               nd = p;
               continue;
            }
            int a = p, c = nd;
            while (a != c) {
               while (po[a] < po[c])
                  a = g->ipdom[a];
               while (po[c] < po[a])
                  c = g->ipdom[c];
            }
            nd = a;
         }
         if (nd != g->ipdom[b]) {
            g->ipdom[b] = nd;
            changed = true;
         }
      }
   }
   kiln_free(po);
   kiln_free(order);
   kiln_free(stack);
   kiln_free(next);
   return true;
}

static bool is_call_to(LLVMValueRef inst, const char *prefix)
{
   if (LLVMGetInstructionOpcode(inst) != LLVMCall)
      return false;
   LLVMValueRef callee = LLVMGetCalledValue(inst);
   size_t len;
   return callee && LLVMIsAFunction(callee) &&
          !strncmp(LLVMGetValueName2(callee, &len), prefix, strlen(prefix));
}

bool kiln_wg_uniform_value(const struct kiln_wg_uniform *u, LLVMValueRef v)
{
   if (!LLVMIsAInstruction(v))
      return true; /* constants, arguments, globals */
   LLVMBasicBlockRef bb = LLVMGetInstructionParent(v);
   if (bb == u->setup)
      return true;
   return block_index(u, bb) >= 0 && !kiln_value_map_get(&u->varying, v);
}

bool kiln_wg_uniform_block(const struct kiln_wg_uniform *u, LLVMBasicBlockRef bb)
{
   int b = block_index(u, bb);
   return b >= 0 && !u->divergent[b];
}

bool kiln_wg_uniform_alloca(const struct kiln_wg_uniform *u, LLVMValueRef a)
{
   return LLVMIsAAllocaInst(a) && LLVMGetInstructionParent(a) == u->setup &&
          !kiln_value_map_get(&u->varying_allocas, a);
}

static bool readnone(LLVMValueRef fn)
{
   unsigned kind = LLVMGetEnumAttributeKindForName("memory", 6);
   LLVMAttributeRef a = LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, kind);
   return a && LLVMGetEnumAttributeValue(a) == 0;
}

static bool operands_uniform(const struct kiln_wg_uniform *u, LLVMValueRef i, unsigned n)
{
   for (unsigned k = 0; k < n; k++)
      if (!kiln_wg_uniform_value(u, LLVMGetOperand(i, k)))
         return false;
   return true;
}

/* Whether instruction i gives every work-item the same value, given its
 * operands' uniformity. */
static bool inst_uniform(const struct kiln_wg_uniform *u, LLVMValueRef i)
{
   unsigned n = (unsigned)LLVMGetNumOperands(i);
   switch (LLVMGetInstructionOpcode(i)) {
   case LLVMLoad: {
      LLVMValueRef p = LLVMGetOperand(i, 0);
      if (LLVMGetVolatile(i))
         return false;
      if (LLVMIsAAllocaInst(p))
         return kiln_wg_uniform_alloca(u, p);
      /* The launch context and argument buffer (the work-group function's
       * parameters, read-only): group id, sizes, offsets. */
      while (LLVMIsAGetElementPtrInst(p) && operands_uniform(u, p, (unsigned)LLVMGetNumOperands(p)))
         p = LLVMGetOperand(p, 0);
      return LLVMIsAArgument(p) != NULL;
   }
   case LLVMCall: {
      LLVMValueRef callee = LLVMGetCalledValue(i);
      return callee && LLVMIsAFunction(callee) && readnone(callee) &&
             operands_uniform(u, i, n - 1);
   }
   case LLVMAdd: case LLVMFAdd: case LLVMSub: case LLVMFSub: case LLVMMul: case LLVMFMul:
   case LLVMUDiv: case LLVMSDiv: case LLVMFDiv: case LLVMURem: case LLVMSRem: case LLVMFRem:
   case LLVMShl: case LLVMLShr: case LLVMAShr: case LLVMAnd: case LLVMOr: case LLVMXor:
   case LLVMFNeg: case LLVMTrunc: case LLVMZExt: case LLVMSExt: case LLVMFPToUI:
   case LLVMFPToSI: case LLVMUIToFP: case LLVMSIToFP: case LLVMFPTrunc: case LLVMFPExt:
   case LLVMPtrToInt: case LLVMIntToPtr: case LLVMBitCast: case LLVMAddrSpaceCast:
   case LLVMICmp: case LLVMFCmp: case LLVMSelect: case LLVMGetElementPtr:
   case LLVMExtractElement: case LLVMInsertElement: case LLVMShuffleVector:
   case LLVMExtractValue: case LLVMInsertValue: case LLVMFreeze:
      return operands_uniform(u, i, n);
   default:
      return false;
   }
}

/* Marks the varying instructions, in an order that sees operands first. */
static bool mark_values(struct kiln_wg_uniform *u)
{
   kiln_value_map_fini(&u->varying);
   kiln_value_map_init(&u->varying);
   for (unsigned b = 0; b < u->num_blocks; b++)
      for (LLVMValueRef i = LLVMGetFirstInstruction(u->blocks[b]); i; i = LLVMGetNextInstruction(i))
         if (LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMVoidTypeKind && !inst_uniform(u, i) &&
             !kiln_value_map_put(&u->varying, i, MARK))
            return false;
   return true;
}

/* A block is divergent when it depends on a branch that some work-items
 * take one way and others another: the blocks from each successor up the
 * post-dominator tree to the branch's own post-dominator. */
static void mark_divergence(struct kiln_wg_uniform *u, const struct graph *g)
{
   for (unsigned b = 0; b < u->num_blocks; b++)
      u->divergent[b] = g->ipdom[b] == UNDEF;
   bool changed = true;
   while (changed) {
      changed = false;
      for (unsigned b = 0; b < u->num_blocks; b++) {
         LLVMValueRef t = LLVMGetBasicBlockTerminator(u->blocks[b]);
         if (!t || g->nsucc[b] < 2)
            continue;
         bool varies = u->divergent[b];
         if (LLVMIsABranchInst(t) || LLVMIsASwitchInst(t))
            varies |= !kiln_wg_uniform_value(u, LLVMGetOperand(t, 0));
         else
            varies = true;
         if (!varies)
            continue;
         for (unsigned s = 0; s < g->nsucc[b]; s++) {
            int r = (int)g->succ[b][s];
            while (r != UNDEF && r != g->ipdom[b] && r != (int)g->n) {
               if (!u->divergent[r]) {
                  u->divergent[r] = true;
                  changed = true;
               }
               r = g->ipdom[r];
            }
         }
      }
   }
}

/* Demotes the allocas some work-items may see differently; true if any
 * was demoted. */
static bool demote_allocas(struct kiln_wg_uniform *u, bool *oom)
{
   bool changed = false;
   for (LLVMValueRef a = LLVMGetFirstInstruction(u->setup); a; a = LLVMGetNextInstruction(a)) {
      /* A group variable has one slot, so every work-item reads the
       * same value (wg_predicate.c stores to it only where it is not
       * read). */
      if (!LLVMIsAAllocaInst(a) || !kiln_wg_uniform_alloca(u, a) || kiln_wg_group_variable(a))
         continue;
      bool varies = false;
      for (LLVMUseRef use = LLVMGetFirstUse(a); use && !varies; use = LLVMGetNextUse(use)) {
         LLVMValueRef user = LLVMGetUser(use);
         if (LLVMIsALoadInst(user) || is_call_to(user, "llvm.lifetime.") ||
             is_call_to(user, "llvm.dbg."))
            continue;
         if (!LLVMIsAStoreInst(user) || LLVMGetOperand(user, 1) != a || LLVMGetVolatile(user)) {
            varies = true;
            continue;
         }
         LLVMBasicBlockRef bb = LLVMGetInstructionParent(user);
         if (bb != u->setup)
            varies = !kiln_wg_uniform_block(u, bb) ||
                     !kiln_wg_uniform_value(u, LLVMGetOperand(user, 0));
      }
      if (varies) {
         if (!kiln_value_map_put(&u->varying_allocas, a, MARK))
            *oom = true;
         changed = true;
      }
   }
   return changed;
}

bool kiln_wg_uniform_init(struct kiln_wg_uniform *u, LLVMValueRef fn, LLVMValueRef lid)
{
   memset(u, 0, sizeof(*u));
   u->setup = LLVMGetFirstBasicBlock(fn);
   u->lid = lid;
   kiln_value_map_init(&u->index);
   kiln_value_map_init(&u->varying);
   kiln_value_map_init(&u->varying_allocas);
   struct graph g = {0};
   bool ok = kiln_wg_reverse_post_order(fn, &u->blocks, &u->num_blocks, &u->index) && kiln_value_map_put(&u->varying_allocas, lid, MARK) &&
             (u->divergent = kiln_calloc(u->num_blocks + 1, sizeof(bool))) != NULL &&
             graph_init(&g, u) && post_dominators(&g);
   /* Optimistic start (every alloca uniform), demoting until nothing
    * changes: each round can only demote more. */
   bool again = ok, oom = false;
   while (again && ok) {
      ok = mark_values(u);
      if (ok) {
         mark_divergence(u, &g);
         again = demote_allocas(u, &oom);
         ok = !oom;
      }
   }
   graph_fini(&g);
   return ok;
}

void kiln_wg_uniform_fini(struct kiln_wg_uniform *u)
{
   kiln_free(u->blocks);
   kiln_free(u->divergent);
   kiln_value_map_fini(&u->index);
   kiln_value_map_fini(&u->varying);
   kiln_value_map_fini(&u->varying_allocas);
}
