/* Jammed row loops that read 8 elements at a time (see wg_jam_wide.h). */
#include "llvm/cpu/wg_jam_wide.h"

#include "llvm/cpu/block_mark.h"
#include "llvm/cpu/jam_prefetch.h"
#include "llvm/cpu/wg_graph.h"
#include "llvm/cpu/wg_internal.h"
#include "llvm/cpu/wg_jam.h"
#include "util/alloc.h"

/* Iterations per round of the wide copy: one per lane of a work-item
 * block, so that the block's vectors form a square to transpose. */
#define WIDE 8
#define WIDE_NAME "kiln.jam.wide"
/* Loop instructions that the wide copy repeats WIDE times (the jam then
 * copies that K times). */
#define MAX_LOOP_INSTS 40
#define MAX_LOADS KILN_WG_JAM_WIDE_MAX_LOADS
/* Extended values along the indices, each tested for wrapping. */
#define MAX_CHECKS 8
#define MAX_DEPTH 6

unsigned kiln_wg_jam_wide_kind(LLVMContextRef c)
{
   return kiln_mark_kind(c, WIDE_NAME);
}

/* On a wide load whose row is the same for every work-item of a block. */
#define SAME_NAME "kiln.jam.wide.same"

unsigned kiln_wg_jam_same_kind(LLVMContextRef c)
{
   return kiln_mark_kind(c, SAME_NAME);
}

/* On a wide load whose rows keep their distances (lockstep below). */
#define LOCKSTEP_NAME "kiln.jam.wide.lockstep"

unsigned kiln_wg_jam_lockstep_kind(LLVMContextRef c)
{
   return kiln_mark_kind(c, LOCKSTEP_NAME);
}

/* ---- step 1: the shape of the loop ---- */

struct check {
   LLVMValueRef v; /* extended to a wider index: v + 7 must not wrap */
   bool is_signed;
};

struct wide_load {
   LLVMValueRef load, addr;
   unsigned check0, nchecks; /* its index's extensions in l->checks */
   LLVMValueRef e[WIDE]; /* its element in each iteration of a round */
};

struct loop {
   const struct kiln_wg_graph *g;
   LLVMBasicBlockRef h, t, p, exit, entry; /* header, latch, preheader, exit, body entry */
   LLVMValueRef iv, bound, pass;          /* pass: the unguarded loop's guard, or NULL */
   LLVMIntPredicate pred;                 /* the loop goes on while iv pred bound */
   struct check checks[MAX_CHECKS];
   unsigned nchecks, nloads;
   struct wide_load loads[MAX_LOADS];
};

static bool in_loop(const struct loop *l, LLVMValueRef v)
{
   if (!LLVMIsAInstruction(v))
      return false;
   int d = kiln_wg_graph_index(l->g, LLVMGetInstructionParent(v));
   return d >= 0 && l->g->in_loop[d];
}

static bool small_const(LLVMValueRef v, unsigned width)
{
   return LLVMIsAConstantInt(v) && LLVMConstIntGetZExtValue(v) < width;
}

/* A value the loop computes from values defined before it alone, without
 * memory and in a way that is safe to compute where the loop would not
 * (no division; rebuilt without poison flags). */
static bool invariant(const struct loop *l, LLVMValueRef v, int depth)
{
   if (!in_loop(l, v))
      return true;
   if (v == l->iv || depth > MAX_DEPTH)
      return false;
   unsigned n = (unsigned)LLVMGetNumOperands(v);
   switch (LLVMGetInstructionOpcode(v)) {
   case LLVMAdd:
   case LLVMSub:
   case LLVMMul:
   case LLVMAnd:
   case LLVMOr:
   case LLVMXor:
   case LLVMZExt:
   case LLVMSExt:
   case LLVMTrunc: /* work-item ids to uint; Clang puts no flags on it */
   case LLVMGetElementPtr:
      break;
   case LLVMShl:
   case LLVMLShr:
   case LLVMAShr:
      if (!small_const(LLVMGetOperand(v, 1), LLVMGetIntTypeWidth(LLVMTypeOf(v))))
         return false;
      break;
   case LLVMUDiv:
   case LLVMURem:
      /* By a constant other than 0 only: never traps. */
      if (!LLVMIsAConstantInt(LLVMGetOperand(v, 1)) || !LLVMConstIntGetZExtValue(LLVMGetOperand(v, 1)))
         return false;
      break;
   case LLVMCall: {
      enum kiln_wi_fn k = kiln_wi_kind(v);
      if (k > WI_ENQUEUED_LOCAL_SIZE)
         return false;
      n--; /* the callee */
      break;
   }
   default:
      return false;
   }
   for (unsigned o = 0; o < n; o++)
      if (!invariant(l, LLVMGetOperand(v, o), depth + 1))
         return false;
   return true;
}

/* Whether integer v is the counter plus or minus invariant values, so
 * that in iteration k of a round it is its value of iteration 0 plus k;
 * values extended on the way must not wrap (l->checks). */
static bool affine(struct loop *l, LLVMValueRef v, int depth)
{
   if (v == l->iv)
      return true;
   if (!in_loop(l, v) || depth > MAX_DEPTH)
      return false;
   LLVMValueRef a = LLVMGetOperand(v, 0);
   switch (LLVMGetInstructionOpcode(v)) {
   case LLVMAdd: {
      LLVMValueRef b = LLVMGetOperand(v, 1);
      if (invariant(l, b, 0))
         return affine(l, a, depth + 1);
      return invariant(l, a, 0) && affine(l, b, depth + 1);
   }
   case LLVMSub:
      return invariant(l, LLVMGetOperand(v, 1), 0) && affine(l, a, depth + 1);
   case LLVMZExt:
   case LLVMSExt:
      if (l->nchecks == MAX_CHECKS || LLVMGetIntTypeWidth(LLVMTypeOf(a)) < 8)
         return false;
      l->checks[l->nchecks++] = (struct check){a, LLVMGetInstructionOpcode(v) == LLVMSExt};
      return affine(l, a, depth + 1);
   default:
      return false;
   }
}

/* Whether v has the same value in every work-item of a jammed block at
 * the same iteration: made of constants, arguments, values of setup (the
 * group's), work-item queries common to the group and the counter, whose
 * start is such a value (the work-items of a jammed round have all run
 * the same number of iterations).  No phi but the counter: one that
 * merges branches that vary would differ between work-items. */
static bool same_everywhere(const struct loop *l, LLVMValueRef v, int depth)
{
   if (!LLVMIsAInstruction(v))
      return true;
   LLVMBasicBlockRef bb = LLVMGetInstructionParent(v);
   if (bb == LLVMGetEntryBasicBlock(LLVMGetBasicBlockParent(bb)))
      return true;
   if (depth > MAX_DEPTH)
      return false;
   if (v == l->iv) {
      for (unsigned k = 0; k < LLVMCountIncoming(v); k++)
         if (LLVMGetIncomingBlock(v, k) == l->p)
            return same_everywhere(l, LLVMGetIncomingValue(v, k), depth + 1);
      return false;
   }
   unsigned n = (unsigned)LLVMGetNumOperands(v);
   switch (LLVMGetInstructionOpcode(v)) {
   case LLVMAdd:
   case LLVMSub:
   case LLVMMul:
   case LLVMAnd:
   case LLVMOr:
   case LLVMXor:
   case LLVMShl:
   case LLVMLShr:
   case LLVMAShr:
   case LLVMZExt:
   case LLVMSExt:
   case LLVMTrunc:
   case LLVMGetElementPtr:
      break;
   case LLVMCall:
      switch (kiln_wi_kind(v)) {
      case WI_GROUP_ID:
      case WI_GLOBAL_SIZE:
      case WI_LOCAL_SIZE:
      case WI_NUM_GROUPS:
      case WI_GLOBAL_OFFSET:
      case WI_WORK_DIM:
      case WI_ENQUEUED_LOCAL_SIZE:
         n--; /* the callee */
         break;
      default:
         return false;
      }
      break;
   default:
      return false;
   }
   for (unsigned o = 0; o < n; o++)
      if (!same_everywhere(l, LLVMGetOperand(v, o), depth + 1))
         return false;
   return true;
}

/* Element types a vector load reads as 8 consecutive scalars. */
static bool scalar_type(LLVMTypeRef t)
{
   switch (LLVMGetTypeKind(t)) {
   case LLVMIntegerTypeKind: {
      unsigned w = LLVMGetIntTypeWidth(t);
      return w == 8 || w == 16 || w == 32 || w == 64;
   }
   case LLVMHalfTypeKind:
   case LLVMBFloatTypeKind:
   case LLVMFloatTypeKind:
   case LLVMDoubleTypeKind:
      return true;
   default:
      return false;
   }
}

static bool dominates(const struct kiln_wg_graph *g, unsigned a, unsigned b)
{
   for (;;) {
      if (a == b)
         return true;
      if (b == 0 || g->idom[b] < 0 || (unsigned)g->idom[b] == b)
         return false;
      b = (unsigned)g->idom[b];
   }
}

/* A load that every iteration runs, at base + index * its size with the
 * base invariant and the index affine: into l->loads. */
static void consider_load(struct loop *l, LLVMTargetDataRef td, LLVMValueRef i, unsigned block,
                          unsigned latch)
{
   LLVMValueRef addr = LLVMGetOperand(i, 0);
   LLVMTypeRef t = LLVMTypeOf(i);
   if (l->nloads == MAX_LOADS || !scalar_type(t) || !dominates(l->g, block, latch) ||
       !LLVMIsAGetElementPtrInst(addr) || LLVMGetNumOperands(addr) != 2 || !in_loop(l, addr))
      return;
   LLVMTypeRef et = LLVMGetGEPSourceElementType(addr);
   LLVMValueRef idx = LLVMGetOperand(addr, 1);
   if (!LLVMTypeIsSized(et) || LLVMABISizeOfType(td, et) != LLVMABISizeOfType(td, t) ||
       LLVMStoreSizeOfType(td, t) != LLVMABISizeOfType(td, t) ||
       LLVMGetTypeKind(LLVMTypeOf(idx)) != LLVMIntegerTypeKind ||
       LLVMGetIntTypeWidth(LLVMTypeOf(idx)) != 64 || !invariant(l, LLVMGetOperand(addr, 0), 0))
      return;
   unsigned before = l->nchecks;
   if (!affine(l, idx, 0)) {
      l->nchecks = before;
      return;
   }
   l->loads[l->nloads++] = (struct wide_load){
      .load = i, .addr = addr, .check0 = before, .nchecks = l->nchecks - before};
}

/* Whether the rows that wl reads keep their distances from one work-item
 * to another while the block runs, so that a jammed round may address
 * each work-item's row from work-item 0's (wg_jam_transpose.h): the
 * counters of a block step together, and an index that is the counter
 * plus invariant values moves with it unless an extension on the way
 * wraps in one work-item and not in another.  The counter itself,
 * extended the way the loop compares it (`<` or `<=`), cannot wrap
 * while the loop runs; anything else extended might. */
static bool lockstep(const struct loop *l, const struct wide_load *wl)
{
   bool below = l->pred == LLVMIntULT || l->pred == LLVMIntULE || l->pred == LLVMIntSLT ||
                l->pred == LLVMIntSLE;
   bool is_signed = l->pred == LLVMIntSLT || l->pred == LLVMIntSLE;
   for (unsigned k = wl->check0; k < wl->check0 + wl->nchecks; k++)
      if (l->checks[k].v != l->iv || !below || l->checks[k].is_signed != is_signed)
         return false;
   return true;
}

static LLVMIntPredicate swapped(LLVMIntPredicate p)
{
   switch (p) {
   case LLVMIntULT: return LLVMIntUGT;
   case LLVMIntUGT: return LLVMIntULT;
   case LLVMIntULE: return LLVMIntUGE;
   case LLVMIntUGE: return LLVMIntULE;
   case LLVMIntSLT: return LLVMIntSGT;
   case LLVMIntSGT: return LLVMIntSLT;
   case LLVMIntSLE: return LLVMIntSGE;
   case LLVMIntSGE: return LLVMIntSLE;
   default: return p;
   }
}

static LLVMIntPredicate inverse(LLVMIntPredicate p)
{
   switch (p) {
   case LLVMIntEQ: return LLVMIntNE;
   case LLVMIntNE: return LLVMIntEQ;
   case LLVMIntULT: return LLVMIntUGE;
   case LLVMIntUGE: return LLVMIntULT;
   case LLVMIntULE: return LLVMIntUGT;
   case LLVMIntUGT: return LLVMIntULE;
   case LLVMIntSLT: return LLVMIntSGE;
   case LLVMIntSGE: return LLVMIntSLT;
   case LLVMIntSLE: return LLVMIntSGT;
   default: return LLVMIntSLE; /* SGT */
   }
}

/* The loop test: `iv pred bound` (or a guard's select of it, wg_jam.h)
 * with a counter that steps by one.  Fills l->iv, bound, pred, pass. */
static bool find_test(struct loop *l)
{
   LLVMValueRef ht = LLVMGetBasicBlockTerminator(l->h);
   LLVMValueRef cond = LLVMGetCondition(ht);
   bool on_true = l->entry == LLVMGetSuccessor(ht, 0);
   l->pass = NULL;
   if (LLVMIsASelectInst(cond) && !in_loop(l, LLVMGetOperand(cond, 0)) &&
       LLVMIsAConstantInt(LLVMGetOperand(cond, 2)) &&
       (LLVMConstIntGetZExtValue(LLVMGetOperand(cond, 2)) != 0) != on_true) {
      l->pass = LLVMGetOperand(cond, 0);
      cond = LLVMGetOperand(cond, 1);
   }
   if (!LLVMIsAICmpInst(cond))
      return false;
   LLVMIntPredicate p = LLVMGetICmpPredicate(cond);
   LLVMValueRef a = LLVMGetOperand(cond, 0), b = LLVMGetOperand(cond, 1);
   if (LLVMIsAPHINode(b) && LLVMGetInstructionParent(b) == l->h) {
      LLVMValueRef s = a;
      a = b;
      b = s;
      p = swapped(p);
   }
   l->iv = a;
   l->bound = b;
   /* The bound: defined before the loop, or computed from such values in
    * the loop test (rebuilt in W). */
   if (!LLVMIsAPHINode(a) || LLVMGetInstructionParent(a) != l->h || !invariant(l, b, 0))
      return false;
   if (!on_true)
      p = inverse(p);
   if (p != LLVMIntULT && p != LLVMIntSLT && p != LLVMIntULE && p != LLVMIntSLE && p != LLVMIntNE)
      return false;
   l->pred = p;
   if (LLVMGetTypeKind(LLVMTypeOf(l->iv)) != LLVMIntegerTypeKind ||
       LLVMGetIntTypeWidth(LLVMTypeOf(l->iv)) < 8)
      return false;
   LLVMValueRef next = NULL;
   for (unsigned k = 0; k < LLVMCountIncoming(l->iv); k++)
      if (LLVMGetIncomingBlock(l->iv, k) == l->t)
         next = LLVMGetIncomingValue(l->iv, k);
   if (!next || !LLVMIsAInstruction(next) || LLVMGetInstructionOpcode(next) != LLVMAdd)
      return false;
   LLVMValueRef x = LLVMGetOperand(next, 0), y = LLVMGetOperand(next, 1);
   LLVMValueRef one = x == l->iv ? y : y == l->iv ? x : NULL;
   return one && LLVMIsAConstantInt(one) && LLVMConstIntGetZExtValue(one) == 1;
}

/* The loop of header hb in g: its shape, counter and wide loads. */
static bool analyse(struct loop *l, struct kiln_wg_graph *g, LLVMTargetDataRef td,
                    LLVMBasicBlockRef hb)
{
   int h = kiln_wg_graph_index(g, hb);
   if (h < 0)
      return false;
   int t = -1, p = -1;
   for (unsigned k = 0; k < g->npred[h]; k++) {
      unsigned q = g->pred[h][k];
      if (kiln_wg_graph_back_edge(g, q, hb)) {
         if (t >= 0)
            return false;
         t = (int)q;
      } else {
         if (p >= 0)
            return false;
         p = (int)q;
      }
   }
   if (t < 0 || p < 0 || t == h)
      return false;
   kiln_wg_graph_loop(g, (unsigned)h, (unsigned)t);
   *l = (struct loop){.g = g, .h = hb, .t = g->blocks[t], .p = g->blocks[p]};
   LLVMValueRef pt = LLVMGetBasicBlockTerminator(l->p);
   unsigned to_h = 0;
   for (unsigned s = 0; pt && s < LLVMGetNumSuccessors(pt); s++)
      to_h += LLVMGetSuccessor(pt, s) == hb;
   LLVMValueRef ht = LLVMGetBasicBlockTerminator(hb);
   if (!pt || !LLVMIsABranchInst(pt) || to_h != 1 || !ht || !LLVMIsABranchInst(ht) ||
       !LLVMIsConditional(ht))
      return false;
   for (unsigned s = 0; s < 2; s++) {
      int d = kiln_wg_graph_index(g, LLVMGetSuccessor(ht, s));
      if (d >= 0 && g->in_loop[d])
         l->entry = LLVMGetSuccessor(ht, s);
      else
         l->exit = LLVMGetSuccessor(ht, s);
   }
   if (!l->entry || !l->exit || l->entry == hb || !find_test(l))
      return false;
   for (LLVMValueRef i = LLVMGetFirstInstruction(hb); i && LLVMIsAPHINode(i); i = LLVMGetNextInstruction(i))
      if (LLVMCountIncoming(i) != 2)
         return false;
   unsigned insts = 0;
   for (unsigned b = 0; b < g->n; b++) {
      if (!g->in_loop[b])
         continue;
      for (LLVMValueRef i = LLVMGetFirstInstruction(g->blocks[b]); i; i = LLVMGetNextInstruction(i)) {
         if (++insts > MAX_LOOP_INSTS)
            return false;
         if (LLVMIsALoadInst(i))
            consider_load(l, td, i, b, (unsigned)t);
      }
   }
   return l->nloads > 0;
}

/* ---- step 1: the wide copy ---- */

static LLVMValueRef mapped(const struct kiln_value_map *m, LLVMValueRef v)
{
   LLVMValueRef to = kiln_value_map_get(m, v);
   return to ? to : v;
}

/* v as the loop computes it in the first iteration of a round (counter
 * iv8), at the builder, without flags that could make poison. */
static LLVMValueRef rebuild(const struct loop *l, LLVMBuilderRef b, LLVMValueRef iv8, LLVMValueRef v)
{
   if (v == l->iv)
      return iv8;
   if (!in_loop(l, v))
      return v;
   LLVMValueRef c = LLVMInstructionClone(v);
   unsigned n = (unsigned)LLVMGetNumOperands(v);
   for (unsigned o = 0; o < n; o++)
      LLVMSetOperand(c, o, rebuild(l, b, iv8, LLVMGetOperand(v, o)));
   switch (LLVMGetInstructionOpcode(v)) {
   case LLVMAdd:
   case LLVMSub:
   case LLVMMul:
   case LLVMShl:
      LLVMSetNUW(c, 0);
      LLVMSetNSW(c, 0);
      break;
   case LLVMLShr:
   case LLVMAShr:
   case LLVMUDiv:
      LLVMSetExact(c, 0);
      break;
   case LLVMOr:
      LLVMSetIsDisjoint(c, 0);
      break;
   case LLVMZExt:
      LLVMSetNNeg(c, 0);
      break;
   case LLVMGetElementPtr:
      LLVMSetIsInBounds(c, 0);
      break;
   default:
      break;
   }
   LLVMInsertIntoBuilder(b, c);
   return c;
}

/* Whether the loop test holds for iv8 .. iv8 + 7, and no extended index
 * wraps within them. */
static LLVMValueRef round_test(const struct loop *l, LLVMBuilderRef b, LLVMValueRef iv8)
{
   LLVMTypeRef it = LLVMTypeOf(iv8);
   LLVMValueRef bound = rebuild(l, b, iv8, l->bound), ok;
   bool is_signed = l->pred == LLVMIntSLT || l->pred == LLVMIntSLE;
   if (l->pred == LLVMIntNE) {
      /* bound - iv iterations left (modulo the width). */
      ok = LLVMBuildICmp(b, LLVMIntUGE, LLVMBuildSub(b, bound, iv8, "wide.left"),
                         LLVMConstInt(it, WIDE, 0), "");
   } else {
      /* iv + 7 < bound (iv + 7 <= bound for <=) without wrapping: one
       * compare against a limit that depends on the bound alone, which
       * LLVM computes once per work-item, not once per round. */
      bool le = l->pred == LLVMIntULE || l->pred == LLVMIntSLE;
      unsigned w = LLVMGetIntTypeWidth(it);
      unsigned long long lowest = is_signed ? 1ull << (w - 1) : 0; /* SMIN or 0 */
      unsigned long long d = le ? WIDE - 2 : WIDE - 1;               /* 6 or 7 */
      LLVMValueRef room = LLVMBuildICmp(b, is_signed ? LLVMIntSGE : LLVMIntUGE, bound,
                                        LLVMConstInt(it, lowest + d + 1, 0), "");
      LLVMValueRef limit = LLVMBuildSelect(b, room, LLVMBuildSub(b, bound, LLVMConstInt(it, d, 0), ""),
                                           LLVMConstInt(it, lowest, 0), "wide.limit");
      ok = LLVMBuildICmp(b, is_signed ? LLVMIntSLT : LLVMIntULT, iv8, limit, "");
   }
   for (unsigned c = 0; c < l->nchecks; c++) {
      /* iv + 7 does not wrap where iv < bound or iv <= bound held 8 times
       * with the same signedness. */
      if (l->checks[c].v == l->iv && l->pred != LLVMIntNE && l->checks[c].is_signed == is_signed)
         continue;
      LLVMValueRef v = rebuild(l, b, iv8, l->checks[c].v);
      LLVMTypeRef vt = LLVMTypeOf(v);
      unsigned w = LLVMGetIntTypeWidth(vt);
      unsigned long long max = (w == 64 ? ~0ull : (1ull << w) - 1) >> l->checks[c].is_signed;
      LLVMValueRef fits = LLVMBuildICmp(b, l->checks[c].is_signed ? LLVMIntSLE : LLVMIntULE, v,
                                        LLVMConstInt(vt, max - (WIDE - 1), 0), "");
      /* Invariants computed before the loop for its body alone may be
       * poison where the body never runs. */
      ok = LLVMBuildAnd(b, ok, LLVMBuildFreeze(b, fits, ""), "");
   }
   if (l->pass)
      ok = LLVMBuildSelect(b, l->pass, ok, LLVMConstInt(LLVMInt1TypeInContext(LLVMGetTypeContext(it)), 0, 0), "");
   return ok;
}

/* Rebuilds the phis of bb with incoming block `from` replaced by `to` and
 * its value by vals[k] for the k-th phi. */
static void retarget_phis(LLVMBuilderRef b, LLVMBasicBlockRef bb, LLVMBasicBlockRef from,
                          LLVMBasicBlockRef to, LLVMValueRef *vals)
{
   unsigned k = 0;
   LLVMValueRef i = LLVMGetFirstInstruction(bb);
   while (i && LLVMIsAPHINode(i)) {
      LLVMValueRef next = LLVMGetNextInstruction(i);
      LLVMPositionBuilderBefore(b, i);
      LLVMValueRef phi = LLVMBuildPhi(b, LLVMTypeOf(i), "");
      for (unsigned n = 0; n < LLVMCountIncoming(i); n++) {
         LLVMValueRef v = LLVMGetIncomingValue(i, n);
         LLVMBasicBlockRef in = LLVMGetIncomingBlock(i, n);
         if (in == from) {
            v = vals[k];
            in = to;
         }
         LLVMAddIncoming(phi, &v, &in, 1);
      }
      LLVMReplaceAllUsesWith(i, phi);
      LLVMInstructionEraseFromParent(i);
      i = next;
      k++;
   }
}

/* KILN_JAM_PREFETCH (jam_prefetch.h): llvm.prefetch of addr + ahead bytes
 * (ahead an i64; a read, kept in every cache level, data), before the
 * round's load of addr.  The address may lie past the buffer: a prefetch
 * never faults, and the GEP is not inbounds, so it is no poison either. */
static void prefetch(LLVMBuilderRef b, LLVMContextRef c, LLVMValueRef addr, LLVMValueRef ahead)
{
   LLVMModuleRef m = LLVMGetGlobalParent(LLVMGetBasicBlockParent(LLVMGetInsertBlock(b)));
   LLVMTypeRef pt = LLVMTypeOf(addr), i32 = LLVMInt32TypeInContext(c);
   unsigned id = LLVMLookupIntrinsicID("llvm.prefetch", 13);
   LLVMValueRef fn = LLVMGetIntrinsicDeclaration(m, id, &pt, 1);
   LLVMValueRef args[4] = {
      LLVMBuildGEP2(b, LLVMInt8TypeInContext(c), addr, &ahead, 1, "wide.ahead"),
      LLVMConstInt(i32, 0, 0), /* read */
      LLVMConstInt(i32, 3, 0), /* locality: keep in every level */
      LLVMConstInt(i32, 1, 0), /* data cache */
   };
   LLVMBuildCall2(b, LLVMIntrinsicGetType(c, id, &pt, 1), fn, args, 4, "");
}

/* The loop's trip count as it starts, an i64, at the builder (the
 * preheader): bound - start (+ 1 for <=) in the counter's width, which is
 * the count wherever a wide round runs (round_test), zero-extended.  It
 * may be anything where no round runs (a guard that failed, values then
 * poison): frozen, it only feeds prefetch distances. */
static LLVMValueRef trip_count(const struct loop *l, LLVMBuilderRef b, LLVMContextRef c)
{
   LLVMValueRef start = NULL;
   for (unsigned k = 0; k < LLVMCountIncoming(l->iv); k++)
      if (LLVMGetIncomingBlock(l->iv, k) == l->p)
         start = LLVMGetIncomingValue(l->iv, k);
   /* The bound is invariant: rebuild never meets the counter. */
   LLVMValueRef bound = rebuild(l, b, NULL, l->bound);
   LLVMValueRef n = LLVMBuildSub(b, bound, start, "");
   if (l->pred == LLVMIntULE || l->pred == LLVMIntSLE)
      n = LLVMBuildAdd(b, n, LLVMConstInt(LLVMTypeOf(n), 1, 0), "");
   LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
   unsigned w = LLVMGetIntTypeWidth(LLVMTypeOf(n));
   if (w < 64)
      n = LLVMBuildZExt(b, n, i64, "");
   else if (w > 64) /* only feeds a distance clamped below */
      n = LLVMBuildTrunc(b, n, i64, "");
   return LLVMBuildFreeze(b, n, "wide.trips");
}

/* KILN_JAM_PREFETCH_ROWS (jam_prefetch.h): the distance for rows of
 * `trips` elements of `size` bytes, at the builder (the preheader). */
static LLVMValueRef rows_ahead(LLVMBuilderRef b, LLVMContextRef c, LLVMValueRef trips,
                               unsigned long long size)
{
   LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
   unsigned long long block = (unsigned long long)kiln_jam_width(NULL) * size;
   /* trips * block without overflow where it is at most HI. */
   LLVMValueRef longer = LLVMBuildICmp(b, LLVMIntUGT, trips,
                                       LLVMConstInt(i64, KILN_JAM_PREFETCH_ROWS_HI / block, 0), "");
   LLVMValueRef next = LLVMBuildMul(b, trips, LLVMConstInt(i64, block, 0), "");
   LLVMValueRef lo = LLVMConstInt(i64, KILN_JAM_PREFETCH_ROWS_LO, 0);
   next = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, next, lo, ""), lo, next, "");
   return LLVMBuildSelect(b, longer, LLVMConstInt(i64, KILN_JAM_PREFETCH_ROWS_LONG, 0), next,
                          "wide.ahead.rows");
}

_Static_assert(KILN_JAM_PREFETCH_ROWS_LONG <= KILN_JAM_PREFETCH_ROWS_HI / KILN_JAM_WIDTH_MAX,
               "the in-row distance must be shorter than every row it is used for");

/* Each wide load's prefetch distance (an i64 value), NULL for none.
 * ROWS computes it in the preheader, once per work-item and loop, for
 * each element size; it reaches the rounds through the work-item's
 * state like the loop's other values. */
static void prefetch_distances(const struct loop *l, LLVMBuilderRef b, LLVMContextRef c,
                               LLVMTargetDataRef td, LLVMValueRef *ahead)
{
   struct kiln_jam_prefetch pf = kiln_jam_prefetch_setting(NULL);
   LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
   LLVMValueRef trips = NULL;
   unsigned long long sizes[MAX_LOADS];
   LLVMValueRef by_size[MAX_LOADS];
   unsigned nsizes = 0;
   for (unsigned n = 0; n < l->nloads; n++) {
      ahead[n] = NULL;
      /* A row common to the block is read by all 8 and stays cached. */
      if (pf.kind == KILN_JAM_PREFETCH_OFF || same_everywhere(l, l->loads[n].addr, 0))
         continue;
      if (pf.kind == KILN_JAM_PREFETCH_FIXED) {
         ahead[n] = LLVMConstInt(i64, pf.bytes, 0);
         continue;
      }
      unsigned long long size = LLVMABISizeOfType(td, LLVMTypeOf(l->loads[n].load));
      for (unsigned k = 0; k < nsizes && !ahead[n]; k++)
         if (sizes[k] == size)
            ahead[n] = by_size[k];
      if (ahead[n])
         continue;
      if (!trips) {
         LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(l->p));
         trips = trip_count(l, b, c);
      }
      sizes[nsizes] = size;
      ahead[n] = by_size[nsizes++] = rows_ahead(b, c, trips, size);
   }
}

/* The wide copy of the analysed loop (wg_jam_wide.h).  False when out of
 * memory before anything changed. */
static bool build_wide(struct loop *l, LLVMTargetDataRef td)
{
   const struct kiln_wg_graph *g = l->g;
   LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(LLVMBasicBlockAsValue(l->h)));
   unsigned nphi = 0, nblocks = 0;
   for (LLVMValueRef i = LLVMGetFirstInstruction(l->h); i && LLVMIsAPHINode(i); i = LLVMGetNextInstruction(i))
      nphi++;
   for (unsigned b = 0; b < g->n; b++)
      nblocks += g->in_loop[b];
   LLVMValueRef *phis = kiln_malloc((nphi ? nphi : 1) * sizeof(*phis));
   LLVMValueRef *p8 = kiln_malloc((nphi ? nphi : 1) * sizeof(*p8));
   LLVMBasicBlockRef *loop = kiln_malloc(nblocks * sizeof(*loop));
   /* copies[k * nblocks + b]: block b of iteration k; loop[0] = header. */
   LLVMBasicBlockRef *copies = kiln_malloc((size_t)WIDE * nblocks * sizeof(*copies));
   struct kiln_value_map map[WIDE];
   for (unsigned k = 0; k < WIDE; k++)
      kiln_value_map_init(&map[k]);
   bool ok = phis && p8 && loop && copies;
   /* Every key a map gets (blocks, then instructions: phis and wide
    * loads among them), so that no put fails once the code changes. */
   unsigned insts = 0;
   for (unsigned b = 0; b < g->n; b++)
      for (LLVMValueRef i = g->in_loop[b] ? LLVMGetFirstInstruction(g->blocks[b]) : NULL; i;
           i = LLVMGetNextInstruction(i))
         insts++;
   for (unsigned k = 0; ok && k < WIDE; k++)
      ok = kiln_value_map_reserve(&map[k], nblocks + insts);
   if (!ok)
      goto out;
   nphi = 0;
   for (LLVMValueRef i = LLVMGetFirstInstruction(l->h); i && LLVMIsAPHINode(i); i = LLVMGetNextInstruction(i))
      phis[nphi++] = i;
   loop[0] = l->h;
   for (unsigned b = 0, m = 1; b < g->n; b++)
      if (g->in_loop[b] && g->blocks[b] != l->h)
         loop[m++] = g->blocks[b];
   /* From here on the puts cannot fail (reserved above). */
   for (unsigned k = 0; k < WIDE; k++)
      for (unsigned b = 0; b < nblocks; b++) {
         copies[k * nblocks + b] = LLVMInsertBasicBlockInContext(c, l->h, "wide.iter");
         kiln_value_map_put(&map[k], LLVMBasicBlockAsValue(loop[b]),
                            LLVMBasicBlockAsValue(copies[k * nblocks + b]));
      }
   LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
   LLVMBasicBlockRef w = LLVMInsertBasicBlockInContext(c, l->h, "wide");
   LLVMBasicBlockRef r = LLVMInsertBasicBlockInContext(c, l->h, "wide.load");
   LLVMBasicBlockRef x = LLVMInsertBasicBlockInContext(c, l->h, "wide.rest");
   LLVMPositionBuilderAtEnd(b, w);
   for (unsigned k = 0; k < nphi; k++)
      p8[k] = LLVMBuildPhi(b, LLVMTypeOf(phis[k]), "wide.phi");
   LLVMValueRef iv8 = NULL;
   for (unsigned k = 0; k < nphi; k++)
      if (phis[k] == l->iv)
         iv8 = p8[k];
   LLVMBuildCondBr(b, round_test(l, b, iv8), r, x);
   /* R: the vector loads and their elements. */
   LLVMPositionBuilderAtEnd(b, r);
   unsigned kind = kiln_wg_jam_wide_kind(c);
   LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
   /* Every load before every element: in a jammed round, what comes
    * before the last load moves ahead of the other work-items' bodies
    * (kiln_wg_jam_transpose), and the elements are stored (reg2mem). */
   LLVMValueRef rows[MAX_LOADS], ahead[MAX_LOADS];
   prefetch_distances(l, b, c, td, ahead);
   /* KILN_JAM_PREFETCH_FAR_DEFAULT: a second prefetch of each row. */
   struct kiln_jam_prefetch pf = kiln_jam_prefetch_setting(NULL);
   LLVMValueRef far = pf.kind == KILN_JAM_PREFETCH_ROWS && pf.far
                         ? LLVMConstInt(LLVMInt64TypeInContext(c), pf.far, 0)
                         : NULL;
   LLVMPositionBuilderAtEnd(b, r);
   for (unsigned n = 0; n < l->nloads; n++) {
      struct wide_load *wl = &l->loads[n];
      LLVMValueRef addr = rebuild(l, b, iv8, wl->addr);
      bool same = same_everywhere(l, wl->addr, 0);
      if (ahead[n])
         prefetch(b, c, addr, ahead[n]);
      if (ahead[n] && far)
         prefetch(b, c, addr, LLVMBuildAdd(b, ahead[n], far, "wide.ahead.far"));
      rows[n] = LLVMBuildLoad2(b, LLVMVectorType(LLVMTypeOf(wl->load), WIDE), addr, "wide.row");
      LLVMSetAlignment(rows[n], LLVMGetAlignment(wl->load));
      LLVMValueRef md = LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, NULL, 0));
      LLVMSetMetadata(rows[n], kind, md);
      if (same)
         LLVMSetMetadata(rows[n], kiln_wg_jam_same_kind(c), md);
      else if (lockstep(l, wl))
         LLVMSetMetadata(rows[n], kiln_wg_jam_lockstep_kind(c), md);
   }
   for (unsigned n = 0; n < l->nloads; n++)
      for (unsigned k = 0; k < WIDE; k++)
         l->loads[n].e[k] = LLVMBuildExtractElement(b, rows[n], LLVMConstInt(i32, k, 0), "");
   LLVMBuildBr(b, copies[0]);
   /* The iterations: header (phis replaced) and body, WIDE times. */
   /* The header phis' values from the latch (fewer phis than
    * MAX_LOOP_INSTS). */
   LLVMValueRef lv[MAX_LOOP_INSTS];
   for (unsigned k = 0; k < nphi; k++)
      for (unsigned n = 0; n < LLVMCountIncoming(phis[k]); n++)
         if (LLVMGetIncomingBlock(phis[k], n) == l->t)
            lv[k] = LLVMGetIncomingValue(phis[k], n);
   for (unsigned k = 0; k < WIDE; k++) {
      for (unsigned n = 0; n < nphi; n++)
         kiln_value_map_put(&map[k], phis[n], k ? mapped(&map[k - 1], lv[n]) : p8[n]);
      for (unsigned n = 0; n < l->nloads; n++)
         kiln_value_map_put(&map[k], l->loads[n].load, l->loads[n].e[k]);
      for (unsigned bl = 0; bl < nblocks; bl++) {
         LLVMPositionBuilderAtEnd(b, copies[k * nblocks + bl]);
         LLVMValueRef term = LLVMGetBasicBlockTerminator(loop[bl]);
         for (LLVMValueRef i = LLVMGetFirstInstruction(loop[bl]); i; i = LLVMGetNextInstruction(i)) {
            if ((bl == 0 && (LLVMIsAPHINode(i) || i == term)) || kiln_value_map_get(&map[k], i))
               continue;
            LLVMValueRef cl = LLVMIsAPHINode(i) ? LLVMBuildPhi(b, LLVMTypeOf(i), "") : LLVMInstructionClone(i);
            if (!LLVMIsAPHINode(i))
               LLVMInsertIntoBuilder(b, cl);
            kiln_value_map_put(&map[k], i, cl);
         }
         if (bl == 0)
            LLVMBuildBr(b, LLVMValueAsBasicBlock(mapped(&map[k], LLVMBasicBlockAsValue(l->entry))));
      }
   }
   /* Operands to the copies; the back edge on to the next iteration's
    * header, the last one's to W. */
   for (unsigned k = 0; k < WIDE; k++)
      for (unsigned bl = 0; bl < nblocks; bl++)
         for (LLVMValueRef i = LLVMGetFirstInstruction(copies[k * nblocks + bl]); i;
              i = LLVMGetNextInstruction(i)) {
            if (LLVMIsAPHINode(i))
               continue;
            unsigned nops = (unsigned)LLVMGetNumOperands(i);
            for (unsigned o = 0; o < nops; o++) {
               LLVMValueRef op = LLVMGetOperand(i, o);
               if (!op || (bl == 0 && i == LLVMGetBasicBlockTerminator(copies[k * nblocks])))
                  continue;
               if (op == LLVMBasicBlockAsValue(l->h))
                  LLVMSetOperand(i, o, LLVMBasicBlockAsValue(k + 1 < WIDE ? copies[(k + 1) * nblocks] : w));
               else
                  LLVMSetOperand(i, o, mapped(&map[k], op));
            }
         }
   /* The phis of the bodies. */
   for (unsigned k = 0; k < WIDE; k++)
      for (unsigned bl = 1; bl < nblocks; bl++)
         for (LLVMValueRef i = LLVMGetFirstInstruction(loop[bl]); i && LLVMIsAPHINode(i);
              i = LLVMGetNextInstruction(i)) {
            LLVMValueRef cl = kiln_value_map_get(&map[k], i);
            for (unsigned n = 0; n < LLVMCountIncoming(i); n++) {
               LLVMValueRef v = mapped(&map[k], LLVMGetIncomingValue(i, n));
               LLVMBasicBlockRef in = LLVMValueAsBasicBlock(
                  mapped(&map[k], LLVMBasicBlockAsValue(LLVMGetIncomingBlock(i, n))));
               LLVMAddIncoming(cl, &v, &in, 1);
            }
         }
   /* W's phis: from the preheader and from the last iteration. */
   LLVMBasicBlockRef last = LLVMValueAsBasicBlock(mapped(&map[WIDE - 1], LLVMBasicBlockAsValue(l->t)));
   for (unsigned k = 0; k < nphi; k++) {
      LLVMValueRef init = NULL;
      for (unsigned n = 0; n < LLVMCountIncoming(phis[k]); n++)
         if (LLVMGetIncomingBlock(phis[k], n) == l->p)
            init = LLVMGetIncomingValue(phis[k], n);
      LLVMValueRef vals[2] = {init, mapped(&map[WIDE - 1], lv[k])};
      LLVMBasicBlockRef from[2] = {l->p, last};
      LLVMAddIncoming(p8[k], vals, from, 2);
   }
   /* P -> W; W's exit X -> the loop, which goes on from W's values. */
   LLVMValueRef pt = LLVMGetBasicBlockTerminator(l->p);
   for (unsigned s = 0; s < LLVMGetNumSuccessors(pt); s++)
      if (LLVMGetSuccessor(pt, s) == l->h)
         LLVMSetSuccessor(pt, s, w);
   LLVMPositionBuilderAtEnd(b, x);
   LLVMBuildBr(b, l->h);
   retarget_phis(b, l->h, l->p, x, p8);
   kiln_wg_jam_unmark(l->h);
   kiln_wg_jam_mark(w);
   LLVMDisposeBuilder(b);
   ok = true;
out:
   for (unsigned k = 0; k < WIDE; k++)
      kiln_value_map_fini(&map[k]);
   kiln_free(phis);
   kiln_free(p8);
   kiln_free(loop);
   kiln_free(copies);
   return ok;
}

bool kiln_wg_jam_widen(LLVMValueRef fn, LLVMBasicBlockRef hb)
{
   LLVMTargetDataRef td = LLVMGetModuleDataLayout(LLVMGetGlobalParent(fn));
   struct kiln_wg_graph g;
   struct loop l;
   bool done = kiln_wg_graph_init(&g, fn) && analyse(&l, &g, td, hb) && build_wide(&l, td);
   kiln_wg_graph_fini(&g);
   return done;
}
