/* Jammed row loops that read 8 elements at a time (see wg_jam_wide.h). */
#include "llvm/cpu/wg_jam_wide.h"

#include <string.h>

#include "llvm/cpu/jam_prefetch.h"
#include "llvm/cpu/wg_graph.h"
#include "llvm/cpu/wg_internal.h"
#include "llvm/cpu/wg_jam.h"
#include "util/alloc.h"

/* Iterations per round of the wide copy: one per lane of a work-item
 * block, so that the block's vectors form a square to transpose. */
#define WIDE KILN_WG_JAM
#define WIDE_NAME "kiln.jam.wide"
/* Loop instructions that the wide copy repeats WIDE times (the jam then
 * copies that KILN_WG_JAM times). */
#define MAX_LOOP_INSTS 40
#define MAX_LOADS 8
/* Extended values along the indices, each tested for wrapping. */
#define MAX_CHECKS 8
#define MAX_DEPTH 6
#define MAX_EXTRACTS (4 * WIDE)

static unsigned wide_kind(LLVMContextRef c)
{
   return LLVMGetMDKindIDInContext(c, WIDE_NAME, (unsigned)strlen(WIDE_NAME));
}

/* On a wide load whose row is the same for every work-item of a block. */
#define SAME_NAME "kiln.jam.wide.same"

static unsigned same_kind(LLVMContextRef c)
{
   return LLVMGetMDKindIDInContext(c, SAME_NAME, (unsigned)strlen(SAME_NAME));
}

/* ---- step 1: the shape of the loop ---- */

struct check {
   LLVMValueRef v; /* extended to a wider index: v + 7 must not wrap */
   bool is_signed;
};

struct wide_load {
   LLVMValueRef load, addr;
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
   l->loads[l->nloads++] = (struct wide_load){.load = i, .addr = addr};
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
   unsigned long long block = (unsigned long long)WIDE * size;
   /* trips * block without overflow where it is at most HI. */
   LLVMValueRef longer = LLVMBuildICmp(b, LLVMIntUGT, trips,
                                       LLVMConstInt(i64, KILN_JAM_PREFETCH_ROWS_HI / block, 0), "");
   LLVMValueRef next = LLVMBuildMul(b, trips, LLVMConstInt(i64, block, 0), "");
   LLVMValueRef lo = LLVMConstInt(i64, KILN_JAM_PREFETCH_ROWS_LO, 0);
   next = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, next, lo, ""), lo, next, "");
   return LLVMBuildSelect(b, longer, LLVMConstInt(i64, KILN_JAM_PREFETCH_ROWS_LONG, 0), next,
                          "wide.ahead.rows");
}

_Static_assert(KILN_JAM_PREFETCH_ROWS_LONG <= KILN_JAM_PREFETCH_ROWS_HI / WIDE,
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
   unsigned kind = wide_kind(c);
   LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
   /* Every load before every element: in a jammed round, what comes
    * before the last load moves ahead of the other work-items' bodies
    * (kiln_wg_jam_transpose), and the elements are stored (reg2mem). */
   LLVMValueRef rows[MAX_LOADS], ahead[MAX_LOADS];
   prefetch_distances(l, b, c, td, ahead);
   LLVMPositionBuilderAtEnd(b, r);
   for (unsigned n = 0; n < l->nloads; n++) {
      struct wide_load *wl = &l->loads[n];
      LLVMValueRef addr = rebuild(l, b, iv8, wl->addr);
      bool same = same_everywhere(l, wl->addr, 0);
      if (ahead[n])
         prefetch(b, c, addr, ahead[n]);
      rows[n] = LLVMBuildLoad2(b, LLVMVectorType(LLVMTypeOf(wl->load), WIDE), addr, "wide.row");
      LLVMSetAlignment(rows[n], LLVMGetAlignment(wl->load));
      LLVMValueRef md = LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, NULL, 0));
      LLVMSetMetadata(rows[n], kind, md);
      if (same)
         LLVMSetMetadata(rows[n], same_kind(c), md);
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

/* ---- step 3: the transposition in a jammed round ---- */

/* The wide loads of bb in order, and the last one. */
static unsigned wide_loads(LLVMBasicBlockRef bb, unsigned kind, LLVMValueRef *out, unsigned max)
{
   unsigned n = 0;
   for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
      if (LLVMIsALoadInst(i) && LLVMGetMetadata(i, kind)) {
         if (n == max)
            return max + 1;
         out[n++] = i;
      }
   return n;
}

/* What comes before the last wide load may move before the other
 * work-items' bodies: it sets lid.x, reads (prefetches among them:
 * KILN_JAM_PREFETCH) and computes, nothing else. */
static bool movable_front(struct kiln_wg *w, LLVMBasicBlockRef bb, LLVMValueRef last)
{
   for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
      if (LLVMIsAStoreInst(i)) {
         LLVMValueRef p = LLVMGetOperand(i, 1);
         if (p != w->lid && !(LLVMIsAGetElementPtrInst(p) && LLVMGetOperand(p, 0) == w->lid))
            return false;
         continue;
      }
      if (LLVMIsACallInst(i) && kiln_wg_is_intrinsic_call(i, "llvm.prefetch"))
         continue;
      if (LLVMIsACallInst(i) || LLVMIsAPHINode(i) ||
          LLVMIsATerminatorInst(i) || LLVMIsAAllocaInst(i) || LLVMIsAFenceInst(i) ||
          LLVMIsAAtomicRMWInst(i) || LLVMIsAAtomicCmpXchgInst(i))
         return false;
      if (i == last)
         return true;
   }
   return false;
}

/* Every use of v (at most MAX_EXTRACTS): an extractelement of a
 * constant lane in bb. */
static bool only_extracts(LLVMValueRef v, LLVMBasicBlockRef bb)
{
   unsigned n = 0;
   for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef e = LLVMGetUser(u);
      if (++n > MAX_EXTRACTS)
         return false;
      if (!LLVMIsAExtractElementInst(e) || LLVMGetInstructionParent(e) != bb ||
          LLVMGetOperand(e, 0) != v || !LLVMIsAConstantInt(LLVMGetOperand(e, 1)) ||
          LLVMConstIntGetZExtValue(LLVMGetOperand(e, 1)) >= WIDE)
         return false;
   }
   return true;
}

static LLVMValueRef shuffle(LLVMBuilderRef b, LLVMContextRef c, LLVMValueRef x, LLVMValueRef y,
                            const unsigned *mask)
{
   LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
   LLVMValueRef m[WIDE];
   for (unsigned k = 0; k < WIDE; k++)
      m[k] = LLVMConstInt(i32, mask[k], 0);
   return LLVMBuildShuffleVector(b, x, y, LLVMConstVector(m, WIDE), "wide.t");
}

/* Half h (0: elements 0-3, 1: 4-7) of the row that load v reads, loaded
 * again, as 4 elements. */
static LLVMValueRef load_half(LLVMBuilderRef b, LLVMContextRef c, LLVMValueRef v, unsigned h)
{
   LLVMTypeRef elem = LLVMGetElementType(LLVMTypeOf(v));
   LLVMValueRef addr = LLVMGetOperand(v, 0);
   if (h) {
      LLVMValueRef four = LLVMConstInt(LLVMInt64TypeInContext(c), WIDE / 2, 0);
      addr = LLVMBuildGEP2(b, elem, addr, &four, 1, "wide.half");
   }
   LLVMValueRef half = LLVMBuildLoad2(b, LLVMVectorType(elem, WIDE / 2), addr, "wide.half");
   LLVMSetAlignment(half, LLVMGetAlignment(v));
   return half;
}

/* r[k] = lane k of every v[j] (loads of 8 elements), in lane j: the
 * halves first, [v[j] low, v[j+4] low] and [v[j] high, v[j+4] high],
 * each loaded as two 4-element halves, which the x86 backend joins with
 * a vinsertf128 from memory (the load ports and any ALU port) rather than
 * a shuffle on the one port that the 16 in-lane shuffles after them
 * need; then a 4x4 transpose in each 128-bit lane (pairs of lanes, pairs
 * of pairs) leaves r[k] = [v[0][k] ... v[7][k]].  The 8-element loads
 * then have no users left. */
static void transpose(LLVMBuilderRef b, LLVMContextRef c, const LLVMValueRef *v, LLVMValueRef *r)
{
   static const unsigned lo1[WIDE] = {0, 8, 1, 9, 4, 12, 5, 13}, hi1[WIDE] = {2, 10, 3, 11, 6, 14, 7, 15};
   static const unsigned lo2[WIDE] = {0, 1, 8, 9, 4, 5, 12, 13}, hi2[WIDE] = {2, 3, 10, 11, 6, 7, 14, 15};
   LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
   LLVMValueRef join[WIDE], h[WIDE];
   for (unsigned k = 0; k < WIDE; k++)
      join[k] = LLVMConstInt(i32, k, 0);
   for (unsigned j = 0; j < WIDE / 2; j++)
      for (unsigned half = 0; half < 2; half++) {
         LLVMValueRef x = load_half(b, c, v[j], half), y = load_half(b, c, v[j + 4], half);
         h[j + 4 * half] = LLVMBuildShuffleVector(b, x, y, LLVMConstVector(join, WIDE), "wide.t");
      }
   for (unsigned q = 0; q < WIDE; q += 4) {
      LLVMValueRef t0 = shuffle(b, c, h[q], h[q + 1], lo1), t1 = shuffle(b, c, h[q], h[q + 1], hi1);
      LLVMValueRef t2 = shuffle(b, c, h[q + 2], h[q + 3], lo1);
      LLVMValueRef t3 = shuffle(b, c, h[q + 2], h[q + 3], hi1);
      r[q] = shuffle(b, c, t0, t2, lo2);
      r[q + 1] = shuffle(b, c, t0, t2, hi2);
      r[q + 2] = shuffle(b, c, t1, t3, lo2);
      r[q + 3] = shuffle(b, c, t1, t3, hi2);
   }
   /* InstCombine would fold each extract of a lane through the shuffles
    * to the lane of a load it comes from, and the SLP vectorizer then
    * build its vectors again from those scalars; behind a freeze (a
    * no-op here: loaded values) the transposed vectors stay whole. */
   for (unsigned k = 0; k < WIDE; k++)
      r[k] = LLVMBuildFreeze(b, r[k], "wide.row");
}

/* The prefetch calls of bb in order (at most MAX_LOADS), their count. */
static unsigned prefetches(LLVMBasicBlockRef bb, LLVMValueRef *out)
{
   unsigned n = 0;
   for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
      if (LLVMIsACallInst(i) && kiln_wg_is_intrinsic_call(i, "llvm.prefetch")) {
         if (n == MAX_LOADS)
            return MAX_LOADS + 1;
         out[n++] = i;
      }
   return n;
}

/* KILN_JAM_PREFETCH_ROWS: each work-item's distance comes from its own
 * state (a value per work-item, 8 more live in the jammed round, which
 * spill).  The rows of a block are as long as each other but for the
 * last work-items of a range: the whole block takes work-item 0's
 * distance (front[0] runs first and dominates the others), so that one
 * value serves the round.  Only where to prefetch changes, never what a
 * work-item computes. */
static void share_distance(LLVMBasicBlockRef *front)
{
   LLVMValueRef p0[MAX_LOADS + 1], pj[MAX_LOADS + 1];
   unsigned n = prefetches(front[0], p0);
   if (n > MAX_LOADS)
      return;
   for (unsigned j = 1; j < KILN_WG_JAM; j++) {
      if (prefetches(front[j], pj) != n)
         continue;
      for (unsigned m = 0; m < n; m++) {
         LLVMValueRef g0 = LLVMGetOperand(p0[m], 0), gj = LLVMGetOperand(pj[m], 0);
         if (!LLVMIsAGetElementPtrInst(g0) || !LLVMIsAGetElementPtrInst(gj) ||
             LLVMGetNumOperands(g0) != 2 || LLVMGetNumOperands(gj) != 2 ||
             LLVMGetGEPSourceElementType(g0) != LLVMGetGEPSourceElementType(gj) ||
             LLVMIsAConstant(LLVMGetOperand(g0, 1)) ||
             LLVMTypeOf(LLVMGetOperand(g0, 1)) != LLVMTypeOf(LLVMGetOperand(gj, 1)))
            continue;
         LLVMSetOperand(gj, 1, LLVMGetOperand(g0, 1));
      }
   }
}

_Static_assert(WIDE == 8, "the transposition's masks are for 8 lanes");

LLVMBasicBlockRef kiln_wg_jam_transpose(struct kiln_wg *w, LLVMBasicBlockRef *starts, LLVMValueRef *xs)
{
   const unsigned K = KILN_WG_JAM;
   unsigned kind = wide_kind(w->c);
   LLVMValueRef loads[KILN_WG_JAM][MAX_LOADS];
   unsigned n = wide_loads(starts[0], kind, loads[0], MAX_LOADS);
   if (!n || n > MAX_LOADS)
      return starts[0];
   for (unsigned j = 0; j < K; j++) {
      if ((j && wide_loads(starts[j], kind, loads[j], MAX_LOADS) != n) ||
          !movable_front(w, starts[j], loads[j][n - 1]))
         return starts[0];
      for (unsigned m = 0; m < n; m++)
         if (!only_extracts(loads[j][m], starts[j]) ||
             LLVMTypeOf(loads[j][m]) != LLVMTypeOf(loads[0][m]))
            return starts[0];
   }
   /* A_j: work-item j's front part, up to its last vector load. */
   LLVMBasicBlockRef front[KILN_WG_JAM];
   LLVMValueRef zero = LLVMConstInt(w->i32, 0, 0);
   for (unsigned j = 0; j < K; j++) {
      front[j] = LLVMAppendBasicBlockInContext(w->c, w->fn, "wide.front");
      LLVMPositionBuilderAtEnd(w->b, front[j]);
      LLVMValueRef i = LLVMGetFirstInstruction(starts[j]);
      for (;;) {
         LLVMValueRef next = LLVMGetNextInstruction(i);
         LLVMInstructionRemoveFromParent(i);
         LLVMInsertIntoBuilder(w->b, i);
         if (i == loads[j][n - 1])
            break;
         i = next;
      }
      /* The rest runs as work-item j again, after the others' fronts. */
      LLVMPositionBuilderBefore(w->b, LLVMGetFirstInstruction(starts[j]));
      LLVMBuildStore(w->b, xs[j], kiln_wg_lid_ptr(w, zero));
   }
   LLVMBasicBlockRef tr = LLVMAppendBasicBlockInContext(w->c, w->fn, "wide.transpose");
   for (unsigned j = 0; j < K; j++) {
      LLVMPositionBuilderAtEnd(w->b, front[j]);
      LLVMBuildBr(w->b, j + 1 < K ? front[j + 1] : tr);
   }
   share_distance(front);
   LLVMPositionBuilderAtEnd(w->b, tr);
   unsigned same = same_kind(w->c);
   for (unsigned m = 0; m < n; m++) {
      LLVMValueRef v[KILN_WG_JAM], r[KILN_WG_JAM];
      for (unsigned j = 0; j < K; j++)
         v[j] = loads[j][m];
      if (LLVMGetMetadata(v[0], same)) {
         /* One row for the whole block: lane k of work-item j's row is
          * lane k of work-item 0's (a broadcast), the other loads die. */
         for (unsigned j = 1; j < K; j++) {
            LLVMValueRef users[MAX_EXTRACTS];
            unsigned nu = 0;
            for (LLVMUseRef u = LLVMGetFirstUse(v[j]); u; u = LLVMGetNextUse(u))
               if (nu < MAX_EXTRACTS)
                  users[nu++] = LLVMGetUser(u);
            for (unsigned q = 0; q < nu; q++)
               LLVMSetOperand(users[q], 0, v[0]);
         }
         continue;
      }
      transpose(w->b, w->c, v, r);
      /* Lane k of work-item j's row is lane j of r[k]. */
      for (unsigned j = 0; j < K; j++) {
         LLVMValueRef users[MAX_EXTRACTS];
         unsigned nu = 0;
         /* The extracts (only_extracts), not the shuffles just built. */
         for (LLVMUseRef u = LLVMGetFirstUse(v[j]); u; u = LLVMGetNextUse(u))
            if (LLVMIsAExtractElementInst(LLVMGetUser(u)) && nu < MAX_EXTRACTS)
               users[nu++] = LLVMGetUser(u);
         for (unsigned q = 0; q < nu; q++) {
            LLVMValueRef e = users[q];
            LLVMValueRef lane = LLVMGetOperand(e, 1);
            unsigned k = (unsigned)LLVMConstIntGetZExtValue(lane);
            LLVMSetOperand(e, 0, r[k]);
            LLVMSetOperand(e, 1, LLVMConstInt(LLVMTypeOf(lane), j, 0));
         }
      }
   }
   LLVMBuildBr(w->b, starts[0]);
   return front[0];
}
