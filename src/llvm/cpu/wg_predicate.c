/* Loops whose trip count differs between work-items, run by the whole
 * group in step with an active flag per work-item (see wg_predicate.h). */
#include "llvm/cpu/wg_predicate.h"

#include <string.h>

#include "llvm/cpu/block_mark.h"
#include "llvm/cpu/wg_faint.h"
#include "llvm/cpu/wg_graph.h"
#include "llvm/cpu/wg_internal.h"
#include "llvm/cpu/wg_round_prefetch.h"
#include "llvm/cpu/wg_uniform.h"
#include "util/alloc.h"

#define GROUP_MD "kiln.group"

bool kiln_wg_group_variable(LLVMValueRef a)
{
   return LLVMIsAAllocaInst(a) && LLVMGetMetadata(a, kiln_mark_kind(LLVMGetTypeContext(LLVMTypeOf(a)), GROUP_MD));
}

#define MAX_HEADER 256
#define MAX_BREAKS 8
#define MAX_ROUND_USES 64 /* uses of the round number given prefetches */

struct loop {
   LLVMBasicBlockRef header, latch, exit; /* exit: where the loop test leaves */
   LLVMBasicBlockRef *blocks, *outside; /* the loop's blocks; the header's preheaders */
   unsigned nblocks, noutside, header_insts;
   /* Other exits (a break): successor break_succ[k] of break_from[k]. */
   LLVMBasicBlockRef break_from[MAX_BREAKS];
   unsigned break_succ[MAX_BREAKS], nbreaks;
   /* Every block the loop leaves to, exit first. */
   LLVMBasicBlockRef targets[MAX_BREAKS + 1];
   unsigned ntargets;
};

static unsigned target_index(struct loop *l, LLVMBasicBlockRef to)
{
   for (unsigned k = 0; k < l->ntargets; k++)
      if (l->targets[k] == to)
         return k;
   l->targets[l->ntargets] = to;
   return l->ntargets++;
}

static bool calls(LLVMBasicBlockRef bb, LLVMValueRef fn)
{
   for (LLVMValueRef i = LLVMGetFirstInstruction(bb); fn && i; i = LLVMGetNextInstruction(i))
      if (LLVMGetInstructionOpcode(i) == LLVMCall && LLVMGetCalledValue(i) == fn)
         return true;
   return false;
}

/* Whether the loop of back edge t -> h (g->in_loop) has the shape
 * wg_predicate.h asks for; fills l. */
static bool loop_shape(const struct kiln_wg_graph *g, const struct kiln_wg_uniform *u,
                       unsigned h, unsigned t, LLVMValueRef barrier_fn, struct loop *l)
{
   memset(l, 0, sizeof(*l));
   unsigned latches = 0;
   for (unsigned k = 0; k < g->npred[h]; k++) {
      unsigned p = g->pred[h][k];
      if (g->in_loop[p]) {
         latches++;
      } else if (!kiln_wg_uniform_block(u, g->blocks[p])) {
         return false; /* some work-items never reach the loop */
      } else {
         l->noutside++;
      }
   }
   if (latches != 1 || !l->noutside)
      return false;
   for (unsigned b = 0; b < g->n; b++) {
      if (!g->in_loop[b])
         continue;
      l->nblocks++;
      LLVMValueRef term = LLVMGetBasicBlockTerminator(g->blocks[b]);
      /* Switches too: Clang leaves scopes with cleanups (lifetime
       * markers) through a switch on where to go next, break or return. */
      if (!term || !(LLVMIsABranchInst(term) || LLVMIsASwitchInst(term)) ||
          calls(g->blocks[b], barrier_fn))
         return false;
      for (unsigned s = 0; s < LLVMGetNumSuccessors(term); s++) {
         LLVMBasicBlockRef to = LLVMGetSuccessor(term, s);
         int d = kiln_wg_graph_index(g, to);
         if (d >= 0 && g->in_loop[d])
            continue;
         if (b == h) {
            if (l->exit)
               return false; /* the loop test leaves on both edges */
            l->exit = to;
         } else {
            if (l->nbreaks == MAX_BREAKS)
               return false;
            l->break_from[l->nbreaks] = g->blocks[b];
            l->break_succ[l->nbreaks++] = s;
         }
      }
   }
   if (!l->exit)
      return false;
   target_index(l, l->exit);
   for (unsigned k = 0; k < l->nbreaks; k++)
      target_index(l, LLVMGetSuccessor(LLVMGetBasicBlockTerminator(l->break_from[k]), l->break_succ[k]));
   LLVMValueRef term = LLVMGetBasicBlockTerminator(g->blocks[h]);
   if (!LLVMIsABranchInst(term) || !LLVMIsConditional(term))
      return false;
   for (LLVMValueRef i = LLVMGetFirstInstruction(g->blocks[h]); i; i = LLVMGetNextInstruction(i))
      if (++l->header_insts > MAX_HEADER)
         return false; /* copied twice (copy_header): keep that small */
   l->header = g->blocks[h];
   l->latch = g->blocks[t];
   l->blocks = kiln_malloc(l->nblocks * sizeof(*l->blocks));
   l->outside = kiln_malloc(l->noutside * sizeof(*l->outside));
   if (!l->blocks || !l->outside) {
      kiln_free(l->blocks);
      kiln_free(l->outside);
      return false;
   }
   unsigned nb = 0, no = 0;
   for (unsigned b = 0; b < g->n; b++)
      if (g->in_loop[b])
         l->blocks[nb++] = g->blocks[b];
   for (unsigned k = 0; k < g->npred[h]; k++)
      if (!g->in_loop[g->pred[h][k]])
         l->outside[no++] = g->blocks[g->pred[h][k]];
   return true;
}

struct builder {
   LLVMContextRef c;
   LLVMBuilderRef b;
   LLVMValueRef barrier_fn, lsize0;
   LLVMCallConv cc;
};

static LLVMBasicBlockRef block_before(struct builder *x, LLVMBasicBlockRef at, const char *name)
{
   LLVMBasicBlockRef bb = LLVMInsertBasicBlockInContext(x->c, at, name);
   LLVMPositionBuilderAtEnd(x->b, bb);
   return bb;
}

static LLVMBasicBlockRef barrier_block(struct builder *x, LLVMBasicBlockRef at, LLVMBasicBlockRef to)
{
   return kiln_wg_barrier_block(x->barrier_fn, x->cc, at, to);
}

static void redirect(LLVMBasicBlockRef from, LLVMBasicBlockRef old_to, LLVMBasicBlockRef new_to)
{
   LLVMValueRef t = LLVMGetBasicBlockTerminator(from);
   for (unsigned s = 0; s < LLVMGetNumSuccessors(t); s++)
      if (LLVMGetSuccessor(t, s) == old_to)
         LLVMSetSuccessor(t, s, new_to);
}

static bool is_trip_call(LLVMValueRef i)
{
   if (LLVMGetInstructionOpcode(i) != LLVMCall)
      return false;
   LLVMValueRef callee = LLVMGetCalledValue(i);
   size_t len = 0;
   const char *name = callee && LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &len) : "";
   return len > strlen(KILN_WG_TRIP_FN) && !strncmp(name, KILN_WG_TRIP_FN, strlen(KILN_WG_TRIP_FN));
}

/* The iteration number of the loop's active work-items (`iter`) replaces
 * the trip counter of step 1 inside the loop; returns its type (i32 when
 * the loop has none). */
static LLVMTypeRef trip_type(const struct loop *l, LLVMContextRef c)
{
   for (unsigned b = 0; b < l->nblocks; b++)
      for (LLVMValueRef i = LLVMGetFirstInstruction(l->blocks[b]); i; i = LLVMGetNextInstruction(i))
         if (is_trip_call(i))
            return LLVMTypeOf(i);
   return LLVMInt32TypeInContext(c);
}

/* The header runs where each round ends (and once before the first), so
 * that a work-item whose loop test fails is inactive in the round that
 * decides whether the group goes round again: a loop of one trip per
 * work-item takes one round, not two.  Each work-item still runs the
 * header exactly when it ran it before, between the same instructions. */
struct header_copy {
   LLVMValueRef *from, *to;
   unsigned n;
};

static LLVMValueRef mapped(const struct header_copy *h, LLVMValueRef v)
{
   for (unsigned k = 0; k < h->n; k++)
      if (h->from[k] == v)
         return h->to[k];
   return v;
}

/* Copies the header to the end of `into`, its trip call giving `trip`;
 * on the loop's edge the work-item stays active, on the exit edge its
 * flag clears, and both continue at `then`. */
static void copy_header(struct builder *x, const struct loop *l, struct header_copy *h,
                        LLVMBasicBlockRef into, LLVMValueRef (*trip)(struct builder *, void *),
                        void *trip_arg, LLVMValueRef active, LLVMValueRef exit_id,
                        LLVMBasicBlockRef then)
{
   LLVMPositionBuilderAtEnd(x->b, into);
   h->n = 0;
   LLVMValueRef term = LLVMGetBasicBlockTerminator(l->header);
   for (LLVMValueRef i = LLVMGetFirstInstruction(l->header); i != term; i = LLVMGetNextInstruction(i)) {
      LLVMValueRef c;
      if (is_trip_call(i)) {
         c = trip(x, trip_arg);
      } else {
         c = LLVMInstructionClone(i);
         unsigned n = (unsigned)LLVMGetNumOperands(i);
         for (unsigned k = 0; k < n; k++)
            LLVMSetOperand(c, k, mapped(h, LLVMGetOperand(i, k)));
         LLVMInsertIntoBuilder(x->b, c);
      }
      h->from[h->n] = i;
      h->to[h->n++] = c;
   }
   LLVMBasicBlockRef off = block_before(x, then, "ic.leave");
   LLVMBuildStore(x->b, LLVMConstInt(LLVMInt32TypeInContext(x->c), 0, 0), active);
   if (exit_id)
      LLVMBuildStore(x->b, LLVMConstInt(LLVMInt32TypeInContext(x->c), 0, 0), exit_id);
   LLVMBuildBr(x->b, then);
   LLVMPositionBuilderAtEnd(x->b, into);
   LLVMValueRef cond = mapped(h, LLVMGetCondition(term));
   if (LLVMGetSuccessor(term, 0) == l->exit)
      LLVMBuildCondBr(x->b, cond, off, then);
   else
      LLVMBuildCondBr(x->b, cond, then, off);
}

struct trips {
   LLVMTypeRef type;
   LLVMValueRef iter;
};

static LLVMValueRef first_trip(struct builder *x, void *arg)
{
   (void)x;
   return LLVMConstInt(((struct trips *)arg)->type, 0, 0);
}

static LLVMValueRef next_trip(struct builder *x, void *arg)
{
   const struct trips *t = arg;
   return LLVMBuildAdd(x->b, LLVMBuildLoad2(x->b, t->type, t->iter, ""), LLVMConstInt(t->type, 1, 0), "");
}

static void predicate(struct builder *x, LLVMValueRef fn, struct loop *l, struct header_copy *h)
{
   LLVMBasicBlockRef setup = LLVMGetFirstBasicBlock(fn);
   LLVMTypeRef i32 = LLVMInt32TypeInContext(x->c), kt = trip_type(l, x->c);
   LLVMValueRef zero = LLVMConstInt(kt, 0, 0), one = LLVMConstInt(kt, 1, 0);
   LLVMPositionBuilderBefore(x->b, LLVMGetFirstInstruction(setup));
   LLVMValueRef active = LLVMBuildAlloca(x->b, i32, "ic.active");
   LLVMValueRef iter = LLVMBuildAlloca(x->b, kt, "ic.iter");
   LLVMValueRef any = LLVMBuildAlloca(x->b, kt, "ic.any");
   LLVMSetMetadata(any, kiln_mark_kind(x->c, GROUP_MD), LLVMMetadataAsValue(x->c, LLVMMDNodeInContext2(x->c, NULL, 0)));
   /* Which of the loop's exits a work-item left by, when there are several. */
   LLVMValueRef exit_id = l->ntargets > 1 ? LLVMBuildAlloca(x->b, i32, "ic.exit") : NULL;
   struct trips trips = {kt, iter};
   /* Taken before any edge changes. */
   LLVMBasicBlockRef break_to[MAX_BREAKS];
   for (unsigned k = 0; k < l->nbreaks; k++)
      break_to[k] = LLVMGetSuccessor(LLVMGetBasicBlockTerminator(l->break_from[k]), l->break_succ[k]);
   LLVMValueRef header_term = LLVMGetBasicBlockTerminator(l->header);
   LLVMBasicBlockRef body = LLVMGetSuccessor(header_term, LLVMGetSuccessor(header_term, 0) == l->exit);

   /* R: whether any work-item is still active; then round again. */
   LLVMBasicBlockRef more = block_before(x, l->exit, "ic.more");
   LLVMBasicBlockRef leave = l->exit;
   if (exit_id) {
      /* After the loop each work-item goes where it left. */
      leave = block_before(x, l->exit, "ic.dispatch");
      LLVMValueRef sw = LLVMBuildSwitch(x->b, LLVMBuildLoad2(x->b, i32, exit_id, ""), l->targets[0],
                                        l->ntargets - 1);
      for (unsigned k = 1; k < l->ntargets; k++)
         LLVMAddCase(sw, LLVMConstInt(i32, k, 0), l->targets[k]);
   }
   LLVMBasicBlockRef to_exit = barrier_block(x, leave, leave);
   LLVMBasicBlockRef head = block_before(x, l->header, "ic.head");
   LLVMBasicBlockRef again = barrier_block(x, head, head);
   LLVMPositionBuilderAtEnd(x->b, more);
   LLVMValueRef it = LLVMBuildLoad2(x->b, kt, iter, "");
   LLVMValueRef next = LLVMBuildAdd(x->b, it, one, "");
   LLVMBuildStore(x->b, next, iter);
   LLVMValueRef f = LLVMBuildLoad2(x->b, kt, any, "");
   LLVMBuildCondBr(x->b, LLVMBuildICmp(x->b, LLVMIntEQ, f, next, ""), again, to_exit);

   /* The end of every work-item's round, active or not.  `any` becomes
    * iter + 1 if this work-item runs the next round: a maximum taken by
    * every work-item, which the loop vectorizer turns into a vector
    * reduction (a store only by active work-items would keep the
    * work-item loop scalar). */
   LLVMBasicBlockRef end = barrier_block(x, more, more);
   LLVMBasicBlockRef tally = block_before(x, end, "ic.tally");
   LLVMValueRef a = LLVMBuildLoad2(x->b, i32, active, "");
   LLVMValueRef mine = LLVMBuildSelect(x->b, LLVMBuildICmp(x->b, LLVMIntNE, a, LLVMConstInt(i32, 0, 0), ""),
                                       LLVMBuildAdd(x->b, LLVMBuildLoad2(x->b, kt, iter, ""), one, ""),
                                       zero, "");
   LLVMValueRef old = LLVMBuildLoad2(x->b, kt, any, "");
   LLVMBuildStore(x->b, LLVMBuildSelect(x->b, LLVMBuildICmp(x->b, LLVMIntUGT, old, mine, ""), old, mine, ""), any);
   LLVMBuildBr(x->b, end);

   /* After the latch: the next round's loop test. */
   LLVMBasicBlockRef test = block_before(x, tally, "ic.test");
   copy_header(x, l, h, test, next_trip, &trips, active, exit_id, tally);

   /* A break: the work-item is done, the group's round goes on. */
   for (unsigned k = 0; k < l->nbreaks; k++) {
      LLVMBasicBlockRef brk = block_before(x, tally, "ic.break");
      LLVMBuildStore(x->b, LLVMConstInt(i32, 0, 0), active);
      if (exit_id)
         LLVMBuildStore(x->b, LLVMConstInt(i32, target_index(l, break_to[k]), 0), exit_id);
      LLVMBuildBr(x->b, tally);
      LLVMSetSuccessor(LLVMGetBasicBlockTerminator(l->break_from[k]), l->break_succ[k], brk);
   }

   /* H': only active work-items run the body. */
   LLVMPositionBuilderAtEnd(x->b, head);
   a = LLVMBuildLoad2(x->b, i32, active, "");
   LLVMBuildCondBr(x->b, LLVMBuildICmp(x->b, LLVMIntNE, a, LLVMConstInt(i32, 0, 0), ""), body, tally);

   /* P: the first loop test, then the group starts together. */
   LLVMBasicBlockRef start = barrier_block(x, again, head);
   LLVMBasicBlockRef pre = block_before(x, start, "ic.pre");
   LLVMBuildStore(x->b, LLVMConstInt(i32, 1, 0), active);
   LLVMBuildStore(x->b, zero, iter);
   LLVMBuildStore(x->b, zero, any);
   copy_header(x, l, h, pre, first_trip, &trips, active, exit_id, start);

   for (unsigned k = 0; k < l->noutside; k++)
      redirect(l->outside[k], l->header, pre);
   redirect(l->latch, l->header, test);

   /* Inside the loop an active work-item has run exactly `iter` rounds. */
   LLVMValueRef rounds[MAX_ROUND_USES];
   unsigned nrounds = 0;
   for (unsigned b = 0; b < l->nblocks; b++) {
      if (l->blocks[b] == l->header)
         continue;
      for (LLVMValueRef i = LLVMGetFirstInstruction(l->blocks[b]); i; i = LLVMGetNextInstruction(i))
         if (is_trip_call(i)) {
            LLVMPositionBuilderBefore(x->b, i);
            LLVMValueRef v = LLVMBuildLoad2(x->b, kt, iter, "");
            LLVMReplaceAllUsesWith(i, v);
            LLVMValueRef dead = i;
            i = v;
            LLVMInstructionEraseFromParent(dead);
            if (nrounds < MAX_ROUND_USES)
               rounds[nrounds++] = v;
         }
   }
   kiln_wg_round_prefetch(l->blocks, l->nblocks, rounds, nrounds, x->lsize0);
   /* The header itself now runs only as its copies. */
   for (LLVMValueRef i = LLVMGetFirstInstruction(l->header); i; i = LLVMGetNextInstruction(i))
      if (LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMVoidTypeKind)
         LLVMReplaceAllUsesWith(i, LLVMGetPoison(LLVMTypeOf(i)));
   for (LLVMValueRef i; (i = LLVMGetLastInstruction(l->header));)
      LLVMInstructionEraseFromParent(i);
   LLVMDeleteBasicBlock(l->header);
}

unsigned kiln_wg_predicate_loops(LLVMValueRef fn, LLVMValueRef lid, LLVMValueRef lsize0,
                                 unsigned mark_kind, LLVMValueRef barrier_fn, LLVMCallConv cc)
{
   struct builder x = {.c = LLVMGetTypeContext(LLVMTypeOf(fn)), .barrier_fn = barrier_fn, .cc = cc,
                       .lsize0 = lsize0};
   struct kiln_wg_graph g;
   struct kiln_wg_uniform u;
   bool ok = kiln_wg_graph_init(&g, fn);
   ok = kiln_wg_uniform_init(&u, fn, lid) && ok;
   struct loop *chosen = ok ? kiln_calloc(g.n ? g.n : 1, sizeof(*chosen)) : NULL;
   bool *taken = ok ? kiln_calloc(g.n ? g.n : 1, sizeof(bool)) : NULL;
   unsigned nchosen = 0;
   for (unsigned t = 0; chosen && taken && t < g.n; t++) {
      LLVMValueRef term = LLVMGetBasicBlockTerminator(g.blocks[t]);
      for (unsigned k = 0; term && k < LLVMGetNumSuccessors(term); k++) {
         LLVMBasicBlockRef hb = LLVMGetSuccessor(term, k);
         if (!kiln_wg_graph_back_edge(&g, t, hb) || !LLVMGetMetadata(LLVMGetBasicBlockTerminator(hb), mark_kind))
            continue;
         unsigned h = (unsigned)kiln_wg_graph_index(&g, hb);
         kiln_wg_graph_loop(&g, h, t);
         bool overlaps = false;
         for (unsigned b = 0; b < g.n; b++)
            overlaps |= g.in_loop[b] && taken[b];
         if (overlaps || !loop_shape(&g, &u, h, t, x.barrier_fn, &chosen[nchosen]))
            continue;
         for (unsigned b = 0; b < g.n; b++)
            taken[b] |= g.in_loop[b];
         nchosen++;
      }
   }
   kiln_wg_uniform_fini(&u);
   kiln_wg_graph_fini(&g);
   x.b = LLVMCreateBuilderInContext(x.c);
   unsigned added = nchosen * 4;
   struct header_copy h = {kiln_malloc(MAX_HEADER * sizeof(LLVMValueRef)),
                           kiln_malloc(MAX_HEADER * sizeof(LLVMValueRef)), 0};
   for (unsigned k = 0; k < nchosen; k++) {
      if (h.from && h.to)
         predicate(&x, fn, &chosen[k], &h);
      else
         added = 0; /* out of memory: the loop stays as it is */
      kiln_free(chosen[k].blocks);
      kiln_free(chosen[k].outside);
   }
   kiln_free(h.from);
   kiln_free(h.to);
   LLVMDisposeBuilder(x.b);
   kiln_free(chosen);
   kiln_free(taken);
   /* The trip counters that the rounds replaced now only step themselves. */
   if (added)
      kiln_wg_drop_faint_allocas(fn);
   return added;
}

void kiln_wg_drop_trip_calls(LLVMValueRef fn)
{
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;) {
         LLVMValueRef next = LLVMGetNextInstruction(i);
         if (is_trip_call(i)) {
            LLVMValueRef callee = LLVMGetCalledValue(i);
            LLVMReplaceAllUsesWith(i, LLVMGetOperand(i, 0));
            LLVMInstructionEraseFromParent(i);
            if (!LLVMGetFirstUse(callee))
               LLVMDeleteFunction(callee);
         }
         i = next;
      }
}
