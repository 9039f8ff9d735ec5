/* Blocks of work-items that run a loop interleaved (see wg_jam.h). */
#include "llvm/cpu/wg_jam.h"
#include "llvm/cpu/wg_skip.h"

#include "llvm/cpu/block_mark.h"
#include "llvm/cpu/wg_internal.h"
#include "llvm/cpu/wg_jam_transpose.h"
#include "llvm/cpu/wg_uniform.h"
#include "util/alloc.h"

#define MARK_NAME "kiln.jam"
/* Instructions of a loop copied K times (kiln_jam_width). */
#define MAX_INSTS 128

/* ---- step 1 (SSA form) ---- */

/* A call that neither reads nor writes memory nor has other effects:
 * an intrinsic such as llvm.fmuladd, with memory(none). */
static bool pure_intrinsic(LLVMValueRef call)
{
   if (!kiln_wg_is_intrinsic_call(call, "llvm.") ||
       kiln_wg_is_intrinsic_call(call, "llvm.lifetime."))
      return false;
   LLVMAttributeRef mem = LLVMGetEnumAttributeAtIndex(LLVMGetCalledValue(call),
                                                      LLVMAttributeFunctionIndex,
                                                      LLVMGetEnumAttributeKindForName("memory", 6));
   return mem && LLVMGetEnumAttributeValue(mem) == 0;
}

static bool pure_function(LLVMValueRef fn, int depth);

/* An instruction of the loop (or of a function it calls, inside) whose
 * effects no other work-item can see.  Stores only to the function's own
 * variables (inside), none in the loop itself: its state lives in
 * values, which reg2mem puts in slots per work-item (wg_jam.h). */
static bool allowed(LLVMValueRef i, bool inside, int depth)
{
   switch (LLVMGetInstructionOpcode(i)) {
   case LLVMStore:
      return inside && !LLVMGetVolatile(i) && LLVMIsAAllocaInst(LLVMGetOperand(i, 1));
   case LLVMAlloca:
   case LLVMRet:
      return inside;
   case LLVMAtomicRMW:
   case LLVMAtomicCmpXchg:
   case LLVMFence:
   case LLVMUnreachable:
   case LLVMInvoke:
   case LLVMCallBr:
   case LLVMIndirectBr:
   case LLVMVAArg:
      return false;
   case LLVMLoad:
      return !LLVMGetVolatile(i) && LLVMGetOrdering(i) == LLVMAtomicOrderingNotAtomic;
   case LLVMCall:
      switch (kiln_wi_kind(i)) {
      case WI_GLOBAL_ID:
      case WI_LOCAL_ID:
      case WI_GROUP_ID:
      case WI_GLOBAL_SIZE:
      case WI_LOCAL_SIZE:
      case WI_NUM_GROUPS:
      case WI_GLOBAL_OFFSET:
      case WI_WORK_DIM:
      case WI_ENQUEUED_LOCAL_SIZE:
         return !inside;
      case WI_NONE:
         if (kiln_wg_is_intrinsic_call(i, "llvm.lifetime."))
            return inside;
         return pure_intrinsic(i) || pure_function(LLVMGetCalledValue(i), depth + 1);
      default:
         return false;
      }
   default:
      return true;
   }
}

/* A function of the program (a builtin such as fma, which the optimiser
 * inlines later) that takes no pointer and does nothing but compute. */
static bool pure_function(LLVMValueRef fn, int depth)
{
   if (!fn || !LLVMIsAFunction(fn) || !LLVMGetFirstBasicBlock(fn) || depth > 4 ||
       LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                                   LLVMGetEnumAttributeKindForName("noinline", 8)))
      return false;
   for (LLVMValueRef p = LLVMGetFirstParam(fn); p; p = LLVMGetNextParam(p))
      if (LLVMGetTypeKind(LLVMTypeOf(p)) == LLVMPointerTypeKind)
         return false;
   unsigned insts = 0;
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
         if (++insts > MAX_INSTS || !allowed(i, true, depth))
            return false;
   return true;
}

bool kiln_wg_jam_eligible(const struct kiln_wg_graph *g, unsigned h, unsigned t)
{
   if (h == t)
      return false;
   LLVMValueRef ht = LLVMGetBasicBlockTerminator(g->blocks[h]);
   if (!ht || !LLVMIsABranchInst(ht) || !LLVMIsConditional(ht))
      return false;
   unsigned latches = 0, exits = 0, insts = 0;
   for (unsigned k = 0; k < g->npred[h]; k++)
      latches += g->in_loop[g->pred[h][k]];
   if (latches != 1)
      return false;
   for (unsigned b = 0; b < g->n; b++) {
      if (!g->in_loop[b])
         continue;
      LLVMValueRef term = LLVMGetBasicBlockTerminator(g->blocks[b]);
      if (!term || !(LLVMIsABranchInst(term) || LLVMIsASwitchInst(term)))
         return false;
      for (unsigned s = 0; s < LLVMGetNumSuccessors(term); s++) {
         LLVMBasicBlockRef to = LLVMGetSuccessor(term, s);
         int d = kiln_wg_graph_index(g, to);
         if (d < 0 || !g->in_loop[d]) {
            if (b != h)
               return false; /* a break or return: the test must be the only way out */
            exits++;
         } else if (kiln_wg_graph_back_edge(g, b, to) && !(b == t && (unsigned)d == h)) {
            return false; /* not innermost */
         }
      }
      for (LLVMValueRef i = LLVMGetFirstInstruction(g->blocks[b]); i; i = LLVMGetNextInstruction(i))
         if (++insts > MAX_INSTS || !allowed(i, false, 0))
            return false;
   }
   return exits == 1;
}

/* Safe to run for a work-item that would not have run it: computes,
 * reads and writes no memory. */
static bool speculatable(LLVMValueRef i)
{
   switch (LLVMGetInstructionOpcode(i)) {
   case LLVMLoad:
   case LLVMStore:
   case LLVMAlloca:
   case LLVMPHI:
   case LLVMAtomicRMW:
   case LLVMAtomicCmpXchg:
   case LLVMFence:
   case LLVMVAArg:
      return false;
   case LLVMCall:
      return kiln_wi_kind(i) != WI_NONE ? allowed(i, false, 0) : pure_intrinsic(i);
   default:
      return LLVMIsATerminatorInst(i) == NULL;
   }
}

static bool has_phi(LLVMBasicBlockRef bb)
{
   LLVMValueRef i = LLVMGetFirstInstruction(bb);
   return i && LLVMIsAPHINode(i);
}

bool kiln_wg_jam_find_guard(const struct kiln_wg_graph *g, const struct kiln_value_map *varying,
                            unsigned h, unsigned t, struct kiln_wg_jam_guard *out)
{
   (void)t;
   int p = -1;
   for (unsigned k = 0; k < g->npred[h]; k++)
      if (!g->in_loop[g->pred[h][k]]) {
         if (p >= 0)
            return false;
         p = (int)g->pred[h][k];
      }
   if (p < 0 || g->npred[p] != 1)
      return false;
   LLVMBasicBlockRef pb = g->blocks[p], gb = g->blocks[g->pred[p][0]], hb = g->blocks[h];
   LLVMValueRef pt = LLVMGetBasicBlockTerminator(pb), gt = LLVMGetBasicBlockTerminator(gb);
   if (!pt || !gt || LLVMGetNumSuccessors(pt) != 1 || !LLVMIsABranchInst(gt) ||
       !LLVMIsConditional(gt) || LLVMGetSuccessor(gt, 0) == LLVMGetSuccessor(gt, 1) ||
       !kiln_value_map_get(varying, LLVMGetCondition(gt)))
      return false;
   LLVMBasicBlockRef other = LLVMGetSuccessor(gt, LLVMGetSuccessor(gt, 0) == pb ? 1 : 0);
   LLVMValueRef ht = LLVMGetBasicBlockTerminator(hb);
   LLVMBasicBlockRef exit = NULL;
   for (unsigned s = 0; s < 2; s++) {
      int d = kiln_wg_graph_index(g, LLVMGetSuccessor(ht, s));
      if (d < 0 || !g->in_loop[d])
         exit = LLVMGetSuccessor(ht, s);
   }
   if (!exit || has_phi(exit) || has_phi(other) || has_phi(pb))
      return false;
   for (LLVMValueRef i = LLVMGetFirstInstruction(pb); i != pt; i = LLVMGetNextInstruction(i))
      if (!speculatable(i))
         return false;
   for (LLVMValueRef i = LLVMGetFirstInstruction(hb); i != ht; i = LLVMGetNextInstruction(i))
      if (!LLVMIsAPHINode(i) && !speculatable(i))
         return false;
   *out = (struct kiln_wg_jam_guard){gb, pb, hb, exit, other};
   return true;
}

void kiln_wg_jam_unguard(const struct kiln_wg_jam_guard *x)
{
   LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(LLVMBasicBlockAsValue(x->g)));
   LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
   LLVMValueRef gt = LLVMGetBasicBlockTerminator(x->g);
   LLVMPositionBuilderBefore(b, gt);
   LLVMValueRef pass = LLVMGetCondition(gt);
   if (LLVMGetSuccessor(gt, 0) != x->p)
      pass = LLVMBuildNot(b, pass, "guard");
   LLVMBuildBr(b, x->p);
   LLVMInstructionEraseFromParent(gt);
   /* The loop test fails at once where the guard did.  A select, not an
    * and: where the guard failed, the test may compute poison (an nsw
    * add of values the guard kept out of range). */
   LLVMValueRef ht = LLVMGetBasicBlockTerminator(x->h);
   LLVMPositionBuilderBefore(b, ht);
   bool stays_on_true = LLVMGetSuccessor(ht, 1) == x->exit;
   LLVMValueRef test = LLVMGetCondition(ht);
   LLVMTypeRef i1 = LLVMInt1TypeInContext(c);
   LLVMSetCondition(ht, LLVMBuildSelect(b, pass, test, LLVMConstInt(i1, !stays_on_true, 0), ""));
   LLVMBasicBlockRef split = LLVMInsertBasicBlockInContext(c, x->exit, "guard.exit");
   LLVMPositionBuilderAtEnd(b, split);
   LLVMBuildCondBr(b, pass, x->exit, x->other);
   LLVMSetSuccessor(ht, stays_on_true ? 1 : 0, split);
   LLVMDisposeBuilder(b);
}

void kiln_wg_jam_mark(LLVMBasicBlockRef hb)
{
   kiln_block_mark(hb, MARK_NAME);
}

void kiln_wg_jam_unmark(LLVMBasicBlockRef hb)
{
   kiln_block_unmark(hb, MARK_NAME);
}

bool kiln_wg_jam_start(LLVMBasicBlockRef bb)
{
   return kiln_block_marked(bb, MARK_NAME);
}

/* ---- step 2 (reg2mem form): the barriers ---- */

struct jam_loop {
   LLVMBasicBlockRef header, exit;
};

static bool calls(LLVMBasicBlockRef bb, LLVMValueRef fn)
{
   for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
      if (LLVMGetInstructionOpcode(i) == LLVMCall && LLVMGetCalledValue(i) == fn)
         return true;
   return false;
}

/* The marked loop of back edge t -> h still has step 1's shape and every
 * work-item reaches it; fills l. */
static bool loop_ok(const struct kiln_wg_graph *g, const struct kiln_wg_uniform *u, unsigned h,
                    unsigned t, LLVMValueRef barrier_fn, struct jam_loop *l)
{
   unsigned latches = 0, outside = 0;
   for (unsigned k = 0; k < g->npred[h]; k++) {
      unsigned p = g->pred[h][k];
      if (g->in_loop[p])
         latches++;
      else if (!kiln_wg_uniform_block(u, g->blocks[p]))
         return false; /* some work-items never reach the loop */
      else
         outside++;
   }
   if (latches != 1 || !outside || h == t)
      return false;
   LLVMValueRef ht = LLVMGetBasicBlockTerminator(g->blocks[h]);
   if (!ht || !LLVMIsABranchInst(ht) || !LLVMIsConditional(ht))
      return false;
   l->header = g->blocks[h];
   l->exit = NULL;
   for (unsigned b = 0; b < g->n; b++) {
      if (!g->in_loop[b])
         continue;
      LLVMValueRef term = LLVMGetBasicBlockTerminator(g->blocks[b]);
      if (!term || calls(g->blocks[b], barrier_fn))
         return false;
      for (unsigned s = 0; s < LLVMGetNumSuccessors(term); s++) {
         int d = kiln_wg_graph_index(g, LLVMGetSuccessor(term, s));
         if (d >= 0 && g->in_loop[d])
            continue;
         if (b != h || l->exit)
            return false;
         l->exit = LLVMGetSuccessor(term, s);
      }
   }
   return l->exit != NULL;
}

static void redirect(LLVMBasicBlockRef from, LLVMBasicBlockRef old, LLVMBasicBlockRef to)
{
   LLVMValueRef t = LLVMGetBasicBlockTerminator(from);
   for (unsigned s = 0; s < LLVMGetNumSuccessors(t); s++)
      if (LLVMGetSuccessor(t, s) == old)
         LLVMSetSuccessor(t, s, to);
}

unsigned kiln_wg_jam_barriers(LLVMValueRef fn, LLVMValueRef lid, LLVMValueRef barrier_fn,
                              LLVMCallConv cc)
{
   unsigned marks = 0;
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
      marks += kiln_wg_jam_start(bb);
   if (!marks)
      return 0;
   struct kiln_wg_graph g;
   struct kiln_wg_uniform u;
   bool ok = kiln_wg_graph_init(&g, fn);
   ok = kiln_wg_uniform_init(&u, fn, lid) && ok;
   struct jam_loop *chosen = ok ? kiln_calloc(g.n ? g.n : 1, sizeof(*chosen)) : NULL;
   /* Predecessors of each chosen header from outside its loop. */
   LLVMBasicBlockRef **outside = ok ? kiln_calloc(g.n ? g.n : 1, sizeof(*outside)) : NULL;
   unsigned *noutside = ok ? kiln_calloc(g.n ? g.n : 1, sizeof(unsigned)) : NULL;
   unsigned nchosen = 0;
   for (unsigned t = 0; chosen && outside && noutside && t < g.n; t++) {
      LLVMValueRef term = LLVMGetBasicBlockTerminator(g.blocks[t]);
      for (unsigned k = 0; term && k < LLVMGetNumSuccessors(term); k++) {
         LLVMBasicBlockRef hb = LLVMGetSuccessor(term, k);
         if (!kiln_wg_graph_back_edge(&g, t, hb) || !kiln_wg_jam_start(hb))
            continue;
         unsigned h = (unsigned)kiln_wg_graph_index(&g, hb);
         kiln_wg_graph_loop(&g, h, t);
         if (!loop_ok(&g, &u, h, t, barrier_fn, &chosen[nchosen]))
            continue;
         LLVMBasicBlockRef *preds = kiln_malloc(g.npred[h] * sizeof(*preds));
         if (!preds)
            continue; /* out of memory: the loop stays as it is */
         unsigned np = 0;
         for (unsigned p = 0; p < g.npred[h]; p++)
            if (!g.in_loop[g.pred[h][p]])
               preds[np++] = g.blocks[g.pred[h][p]];
         outside[nchosen] = preds;
         noutside[nchosen++] = np;
      }
   }
   kiln_wg_uniform_fini(&u);
   kiln_wg_graph_fini(&g);
   for (unsigned c = 0; c < nchosen; c++) {
      struct jam_loop *l = &chosen[c];
      LLVMBasicBlockRef before = kiln_wg_barrier_block(barrier_fn, cc, l->header, l->header);
      for (unsigned p = 0; p < noutside[c]; p++)
         redirect(outside[c][p], l->header, before);
      LLVMBasicBlockRef after = kiln_wg_barrier_block(barrier_fn, cc, l->exit, l->exit);
      redirect(l->header, l->exit, after);
      /* What follows may open with the rest of the rows (wg_skip.h). */
      kiln_wg_skip_mark(l->exit);
      kiln_free(outside[c]);
   }
   /* Marks left on loops not chosen would make wg_regions.c look for a
    * region there. */
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
      bool keep = false;
      for (unsigned c = 0; c < nchosen; c++)
         keep |= chosen[c].header == bb;
      if (!keep && kiln_wg_jam_start(bb))
         kiln_wg_jam_unmark(bb);
   }
   kiln_free(chosen);
   kiln_free(outside);
   kiln_free(noutside);
   return nchosen * 2;
}

/* ---- step 3: the jammed blocks in the region's work-item loop ---- */

static int find_block(LLVMBasicBlockRef *blocks, unsigned n, LLVMBasicBlockRef bb)
{
   for (unsigned k = 0; k < n; k++)
      if (blocks[k] == bb)
         return (int)k;
   return -1;
}

/* The region is the loop (every block but exit, each branching only
 * within it, the header also to exit) and exit, which leaves the region. */
static LLVMBasicBlockRef region_exit(LLVMBasicBlockRef head, LLVMBasicBlockRef *blocks, unsigned n)
{
   LLVMValueRef ht = LLVMGetBasicBlockTerminator(head);
   if (!ht || !LLVMIsABranchInst(ht) || !LLVMIsConditional(ht))
      return NULL;
   LLVMBasicBlockRef exit = NULL;
   for (unsigned s = 0; s < 2; s++) {
      LLVMBasicBlockRef to = LLVMGetSuccessor(ht, s);
      LLVMValueRef t = LLVMGetBasicBlockTerminator(to);
      bool leaves = find_block(blocks, n, to) >= 0 && t;
      for (unsigned k = 0; leaves && k < LLVMGetNumSuccessors(t); k++)
         leaves = find_block(blocks, n, LLVMGetSuccessor(t, k)) < 0;
      if (leaves && t && LLVMGetNumSuccessors(t))
         exit = exit ? NULL : to;
   }
   if (!exit || LLVMGetSuccessor(ht, 0) == LLVMGetSuccessor(ht, 1))
      return NULL;
   for (unsigned k = 0; k < n; k++) {
      if (blocks[k] == exit)
         continue;
      LLVMValueRef t = LLVMGetBasicBlockTerminator(blocks[k]);
      if (!t || !(LLVMIsABranchInst(t) || LLVMIsASwitchInst(t)))
         return NULL;
      for (unsigned s = 0; s < LLVMGetNumSuccessors(t); s++) {
         LLVMBasicBlockRef to = LLVMGetSuccessor(t, s);
         if (find_block(blocks, n, to) < 0 || (to == exit && blocks[k] != head))
            return NULL;
      }
   }
   return exit;
}

/* The block of the work-item loop nest that enters the region: the only
 * one outside it that branches to head, unconditionally. */
static LLVMBasicBlockRef region_enter(LLVMValueRef fn, LLVMBasicBlockRef head,
                                      LLVMBasicBlockRef *blocks, unsigned n)
{
   LLVMBasicBlockRef enter = NULL;
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
      LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
      if (!t || find_block(blocks, n, bb) >= 0)
         continue;
      for (unsigned s = 0; s < LLVMGetNumSuccessors(t); s++)
         if (LLVMGetSuccessor(t, s) == head) {
            if (enter || LLVMGetNumSuccessors(t) != 1)
               return NULL;
            enter = bb;
         }
   }
   return enter;
}

/* The allocas of setup that the loop stores to: values that live from
 * one block to another within an iteration (reg2mem), which every copy
 * needs for itself; false when one is not a single variable. */
static bool written_allocas(struct kiln_wg *w, LLVMBasicBlockRef *loop, unsigned n,
                            LLVMValueRef *out, unsigned *nout, unsigned max)
{
   *nout = 0;
   for (unsigned k = 0; k < n; k++)
      for (LLVMValueRef i = LLVMGetFirstInstruction(loop[k]); i; i = LLVMGetNextInstruction(i)) {
         LLVMValueRef a = LLVMIsAStoreInst(i) ? LLVMGetOperand(i, 1) : NULL;
         if (!a || !LLVMIsAAllocaInst(a))
            continue;
         if (a == w->lid || a == w->next || LLVMGetInstructionParent(a) != w->setup ||
             !LLVMIsAConstantInt(LLVMGetOperand(a, 0)) || LLVMConstIntGetZExtValue(LLVMGetOperand(a, 0)) != 1)
            return false;
         bool seen = false;
         for (unsigned c = 0; c < *nout; c++)
            seen |= out[c] == a;
         if (seen)
            continue;
         if (*nout == max)
            return false;
         out[(*nout)++] = a;
      }
   return true;
}

/* Instructions of a loop test and exit that the block copies for each
 * work-item. */
#define MAX_END 256

/* p is the address of lid.x (kiln_wg_lid_ptr(w, 0)). */
static bool is_lid_x(const struct kiln_wg *w, LLVMValueRef p)
{
   if (p == w->lid)
      return true;
   if (!LLVMIsAGetElementPtrInst(p) || LLVMGetOperand(p, 0) != w->lid)
      return false;
   for (unsigned o = 1, n = (unsigned)LLVMGetNumOperands(p); o < n; o++) {
      LLVMValueRef ix = LLVMGetOperand(p, o);
      if (!LLVMIsAConstantInt(ix) || LLVMConstIntGetZExtValue(ix))
         return false;
   }
   return true;
}

/* Whether bb is a short straight block that does not write lid.x. */
static bool straight(const struct kiln_wg *w, LLVMBasicBlockRef bb, unsigned *size)
{
   LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
   for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i != t; i = LLVMGetNextInstruction(i))
      if (++*size > MAX_END || LLVMIsAPHINode(i) ||
          (LLVMIsAStoreInst(i) && is_lid_x(w, LLVMGetOperand(i, 1))))
         return false;
   return true;
}

/* Clones bb's instructions but its terminator at the builder as work-item
 * xj: its loads of lid.x become xj; other operands map through local
 * (bb's own and what was cloned before). */
static bool clone_as(struct kiln_wg *w, LLVMBasicBlockRef bb, LLVMValueRef xj,
                     struct kiln_value_map *local)
{
   LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
   for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i != t; i = LLVMGetNextInstruction(i)) {
      bool lid_x = LLVMIsALoadInst(i) && is_lid_x(w, LLVMGetOperand(i, 0));
      if (lid_x ? !kiln_value_map_put(local, i, xj) : !kiln_value_map_clone(local, w->b, i))
         return false;
   }
   return true;
}

/* Where the round goes when no work-item of the block goes on, which is
 * the usual end: rows of one length end in the same round.  The fallback
 * would take each work-item once more through the work-item loop, its
 * loop test (which fails again) and exit, one after another: on the
 * 2-core Zen 5 VM these ends cost the chunked reduction of 64M floats 0.3
 * ms of its 6, and rows of 8 floats a third of their time.  This block
 * runs head (the test, whose result is known: it reads the work-items'
 * state from their slots, as the fallback would) and exit straight for
 * x .. x + K - 1 instead, then stores lid.x = x + K and goes on at the
 * work-item loop's test, past its latch (lid.x += 1).
 *
 * It computes its own x + j from x and does not go through the latch
 * with x + K - 1: either way a header's x + j got a use outside its
 * address arithmetic, LLVM's Reassociate then left that header's slot
 * addresses in another form than the others', alias analysis could no
 * longer tell those slots apart, and LICM kept the block's state in
 * memory through the rounds (8 slots promoted instead of 68: rounds 15%
 * slower).  NULL where head and exit are not short straight blocks or
 * exit does not lead to such a latch: the fallback then is all there
 * is. */
static LLVMBasicBlockRef all_exit(struct kiln_wg *w, LLVMBasicBlockRef head, LLVMBasicBlockRef exit,
                                  LLVMValueRef x)
{
   LLVMValueRef t = LLVMGetBasicBlockTerminator(exit);
   unsigned size = 0;
   if (!t || !LLVMIsABranchInst(t) || LLVMIsConditional(t) || !straight(w, head, &size) ||
       !straight(w, exit, &size))
      return NULL;
   /* The latch (kiln_wg_loop_nest): lid.x += 1, then the loop's test. */
   LLVMValueRef lt = LLVMGetBasicBlockTerminator(LLVMGetSuccessor(t, 0));
   if (!lt || !LLVMIsABranchInst(lt) || LLVMIsConditional(lt))
      return NULL;
   LLVMBasicBlockRef test = LLVMGetSuccessor(lt, 0);
   const unsigned K = kiln_jam_width(NULL);
   LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(w->c, w->fn, "jam.done");
   LLVMPositionBuilderAtEnd(w->b, done);
   struct kiln_value_map local;
   kiln_value_map_init(&local);
   LLVMValueRef xj = x;
   for (unsigned j = 0; j < K && !w->oom; j++) {
      if (j)
         xj = LLVMBuildAdd(w->b, x, LLVMConstInt(w->i64, j, 0), "");
      if (!clone_as(w, head, xj, &local) || !clone_as(w, exit, xj, &local))
         w->oom = true;
   }
   kiln_value_map_fini(&local);
   LLVMValueRef next = LLVMBuildAdd(w->b, x, LLVMConstInt(w->i64, K, 0), "");
   LLVMBuildStore(w->b, next, kiln_wg_lid_ptr(w, LLVMConstInt(w->i32, 0, 0)));
   LLVMBuildBr(w->b, test);
   return done;
}

void kiln_wg_jam_region(struct kiln_wg *w, LLVMBasicBlockRef head, LLVMBasicBlockRef *blocks,
                        unsigned nblocks)
{
   kiln_wg_jam_unmark(head);
   LLVMBasicBlockRef exit = region_exit(head, blocks, nblocks);
   LLVMBasicBlockRef enter = exit ? region_enter(w->fn, head, blocks, nblocks) : NULL;
   if (!enter)
      return;
   const unsigned K = kiln_jam_width(NULL);
   unsigned n = nblocks - 1; /* the loop's blocks: all but exit */
   LLVMBasicBlockRef *loop = kiln_malloc(n * sizeof(*loop));
   LLVMBasicBlockRef *jam = kiln_malloc((size_t)K * n * sizeof(*jam));
   /* At most one variable per store of the loop. */
   unsigned max_vars = 1;
   for (unsigned k = 0; k < nblocks; k++)
      for (LLVMValueRef i = LLVMGetFirstInstruction(blocks[k]); i; i = LLVMGetNextInstruction(i))
         max_vars += LLVMIsAStoreInst(i) != NULL;
   LLVMValueRef *vars = kiln_malloc(max_vars * sizeof(*vars));
   LLVMValueRef cont[KILN_JAM_WIDTH_MAX];
   unsigned nvars = 0;
   struct kiln_value_map map[KILN_JAM_WIDTH_MAX];
   for (unsigned j = 0; j < K; j++)
      kiln_value_map_init(&map[j]);
   if (!loop || !jam || !vars) {
      w->oom = true;
      goto out;
   }
   /* The header first: jam[j * n] is H_j. */
   loop[0] = head;
   for (unsigned k = 0, m = 1; k < nblocks; k++)
      if (blocks[k] != exit && blocks[k] != head)
         loop[m++] = blocks[k];
   if (!written_allocas(w, loop, n, vars, &nvars, max_vars))
      goto out;
   LLVMValueRef ht = LLVMGetBasicBlockTerminator(head);
   bool on_true = LLVMGetSuccessor(ht, 1) == exit;
   LLVMBasicBlockRef body = LLVMGetSuccessor(ht, on_true ? 0 : 1);

   for (unsigned j = 0; j < K; j++) {
      LLVMPositionBuilderBefore(w->b, LLVMGetBasicBlockTerminator(w->setup));
      for (unsigned v = 0; v < nvars; v++) {
         LLVMValueRef a = LLVMBuildAlloca(w->b, LLVMGetAllocatedType(vars[v]), "jam.var");
         LLVMSetAlignment(a, LLVMGetAlignment(vars[v]));
         if (!kiln_value_map_put(&map[j], vars[v], a)) {
            w->oom = true;
            goto out;
         }
      }
   }
   LLVMBasicBlockRef fallback = LLVMAppendBasicBlockInContext(w->c, w->fn, "jam.rest");
   for (unsigned j = 0; j < K; j++)
      for (unsigned k = 0; k < n; k++) {
         jam[j * n + k] = LLVMAppendBasicBlockInContext(w->c, w->fn, "jam");
         if (!kiln_value_map_put(&map[j], LLVMBasicBlockAsValue(loop[k]),
                                 LLVMBasicBlockAsValue(jam[j * n + k]))) {
            w->oom = true;
            goto out;
         }
      }
   for (unsigned j = 0; j < K; j++)
      for (unsigned k = 0; k < n; k++) {
         LLVMPositionBuilderAtEnd(w->b, jam[j * n + k]);
         for (LLVMValueRef i = LLVMGetFirstInstruction(loop[k]); i; i = LLVMGetNextInstruction(i)) {
            LLVMValueRef c = LLVMInstructionClone(i);
            LLVMInsertIntoBuilder(w->b, c);
            if (!kiln_value_map_put(&map[j], i, c)) {
               w->oom = true;
               goto out;
            }
         }
      }
   /* Operands to the copies; a body's back edge to the next work-item's
    * body, the last one's to H_0 (the headers' branches are redone). */
   for (unsigned j = 0; j < K; j++)
      for (unsigned k = 0; k < n; k++)
         for (LLVMValueRef i = LLVMGetFirstInstruction(jam[j * n + k]); i; i = LLVMGetNextInstruction(i)) {
            unsigned nops = (unsigned)LLVMGetNumOperands(i);
            for (unsigned o = 0; o < nops; o++) {
               LLVMValueRef op = LLVMGetOperand(i, o);
               LLVMValueRef to = NULL;
               if (op == LLVMBasicBlockAsValue(head))
                  to = j + 1 < K ? kiln_value_map_get(&map[j + 1], LLVMBasicBlockAsValue(body))
                                 : LLVMBasicBlockAsValue(jam[0]);
               else if (op == LLVMBasicBlockAsValue(exit))
                  to = LLVMBasicBlockAsValue(fallback);
               else if (op)
                  to = kiln_value_map_get(&map[j], op);
               if (to)
                  LLVMSetOperand(i, o, to);
            }
         }

   /* enter: x = lid.x; a block of K work-items starts at a multiple of K
    * that has K work-items from it on in dimension 0. */
   LLVMValueRef br = LLVMGetBasicBlockTerminator(enter);
   LLVMPositionBuilderBefore(w->b, br);
   LLVMValueRef zero = LLVMConstInt(w->i32, 0, 0);
   LLVMValueRef x = kiln_wg_load_i64(w, kiln_wg_lid_ptr(w, zero));
   LLVMValueRef aligned = LLVMBuildICmp(w->b, LLVMIntEQ,
                                        LLVMBuildAnd(w->b, x, LLVMConstInt(w->i64, K - 1, 0), ""),
                                        LLVMConstInt(w->i64, 0, 0), "");
   LLVMValueRef room = LLVMBuildICmp(w->b, LLVMIntULE,
                                     LLVMBuildAdd(w->b, x, LLVMConstInt(w->i64, K, 0), ""),
                                     w->lsize[0], "");
   LLVMBasicBlockRef pre = LLVMAppendBasicBlockInContext(w->c, w->fn, "jam.start");
   LLVMBuildCondBr(w->b, LLVMBuildAnd(w->b, aligned, room, "jam.block"), pre, head);
   LLVMInstructionEraseFromParent(br);
   LLVMPositionBuilderAtEnd(w->b, pre);
   LLVMBuildBr(w->b, jam[0]);
   /* Each copy runs as its work-item: lid.x = x + j where its header and
   * its body start.  The headers run one after another and only read, so
   * that the state of all K is loaded at the top of every round. */
   LLVMValueRef xs[KILN_JAM_WIDTH_MAX];
   for (unsigned j = 0; j < K; j++) {
      LLVMBasicBlockRef hj = jam[j * n];
      LLVMBasicBlockRef sj = LLVMValueAsBasicBlock(kiln_value_map_get(&map[j], LLVMBasicBlockAsValue(body)));
      LLVMValueRef xj = x;
      LLVMPositionBuilderBefore(w->b, LLVMGetFirstInstruction(hj));
      if (j)
         xj = LLVMBuildAdd(w->b, x, LLVMConstInt(w->i64, j, 0), "");
      xs[j] = xj;
      LLVMBuildStore(w->b, xj, kiln_wg_lid_ptr(w, zero));
      LLVMPositionBuilderBefore(w->b, LLVMGetFirstInstruction(sj));
      LLVMBuildStore(w->b, xj, kiln_wg_lid_ptr(w, zero));
      LLVMValueRef t = LLVMGetBasicBlockTerminator(hj);
      LLVMPositionBuilderBefore(w->b, t);
      cont[j] = on_true ? LLVMGetCondition(t) : LLVMBuildNot(w->b, LLVMGetCondition(t), "");
      LLVMInstructionEraseFromParent(t);
      LLVMPositionBuilderAtEnd(w->b, hj);
      if (j + 1 < K) {
         LLVMBuildBr(w->b, jam[(j + 1) * n]);
      } else {
         LLVMValueRef all = cont[0], any = cont[0];
         for (unsigned c = 1; c < K; c++) {
            all = LLVMBuildAnd(w->b, all, cont[c], "");
            any = LLVMBuildOr(w->b, any, cont[c], "");
         }
         LLVMBasicBlockRef first_body = LLVMValueAsBasicBlock(kiln_value_map_get(&map[0], LLVMBasicBlockAsValue(body)));
         LLVMBasicBlockRef done = all_exit(w, head, exit, x), stop = fallback;
         if (done) {
            stop = LLVMAppendBasicBlockInContext(w->c, w->fn, "jam.stop");
            LLVMPositionBuilderAtEnd(w->b, stop);
            LLVMBuildCondBr(w->b, any, fallback, done);
         }
         LLVMPositionBuilderAtEnd(w->b, hj);
         LLVMBuildCondBr(w->b, all, first_body, stop);
      }
   }
   /* Rows read as vectors (wg_jam_transpose.h): the block's loads first, then
    * the transposed rows, then each work-item's rest. */
   LLVMBasicBlockRef starts[KILN_JAM_WIDTH_MAX];
   for (unsigned j = 0; j < K; j++)
      starts[j] = LLVMValueAsBasicBlock(kiln_value_map_get(&map[j], LLVMBasicBlockAsValue(body)));
   LLVMBasicBlockRef heads[KILN_JAM_WIDTH_MAX];
   for (unsigned j = 0; j < K; j++)
      heads[j] = jam[j * n];
   struct kiln_wg_jam_block block = {.pre = pre, .x = x, .heads = heads};
   LLVMBasicBlockRef first = kiln_wg_jam_transpose(w, starts, xs, &block);
   LLVMValueRef last = LLVMGetBasicBlockTerminator(jam[(K - 1) * n]);
   if (first != starts[0])
      LLVMSetSuccessor(last, 0, first);
   /* Each work-item of the block finishes alone, from x on. */
   LLVMPositionBuilderAtEnd(w->b, fallback);
   LLVMBuildStore(w->b, x, kiln_wg_lid_ptr(w, zero));
   LLVMBuildBr(w->b, head);
out:
   for (unsigned j = 0; j < K; j++)
      kiln_value_map_fini(&map[j]);
   kiln_free(loop);
   kiln_free(jam);
   kiln_free(vars);
}
