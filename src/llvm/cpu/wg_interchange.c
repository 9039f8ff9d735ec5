/* Loop interchange by barrier (see wg_interchange.h). */
#include "llvm/cpu/wg_interchange.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "llvm/cpu/block_mark.h"
#include "llvm/cpu/wg_graph.h"
#include "llvm/cpu/wg_internal.h"
#include "llvm/cpu/wg_jam.h"
#include "llvm/cpu/wg_jam_wide.h"
#include "llvm/cpu/wg_predicate.h"
#include "util/alloc.h"

#define MARK_NAME "kiln.interchange"
/* Trip count x instructions up to which a loop is left to the unroller. */
#define UNROLLED_SIZE 512
/* Private arrays get a slot per work-item across the new barriers. */
#define MAX_PRIVATE_BYTES 4096
#define MAX_DEPTH 16

/* ---- step 1: which loops (SSA form, work-item calls not lowered) ---- */

struct loop_scan {
   LLVMTargetDataRef td;
   const struct kiln_wg_graph *g;
   struct kiln_value_map *varying; /* values that differ between work-items */
   LLVMValueRef iv;                /* the loop's counter (header phi), or NULL */
   int64_t iv_step;
   bool wi_mode;                   /* coefficients of the dimension-0 id, else of iv */
};

/* A value's coefficient in the work-item's dimension-0 id or in the loop
 * counter, in the value's own units (bytes for pointers). */
struct lin {
   bool known;
   int64_t c;
};

static const struct lin UNKNOWN = {false, 0};
static const struct lin ZERO = {true, 0};

static bool in_loop(const struct loop_scan *s, LLVMValueRef inst)
{
   int b = kiln_wg_graph_index(s->g, LLVMGetInstructionParent(inst));
   return b >= 0 && s->g->in_loop[b];
}

static bool const_int(LLVMValueRef v, int64_t *out)
{
   if (!LLVMIsAConstantInt(v))
      return false;
   *out = LLVMConstIntGetSExtValue(v);
   return true;
}

static struct lin lin_of(const struct loop_scan *s, LLVMValueRef v, int depth);

static struct lin lin_gep(const struct loop_scan *s, LLVMValueRef gep, int depth)
{
   struct lin r = lin_of(s, LLVMGetOperand(gep, 0), depth + 1);
   LLVMTypeRef t = LLVMGetGEPSourceElementType(gep);
   unsigned n = (unsigned)LLVMGetNumOperands(gep);
   for (unsigned k = 1; r.known && k < n; k++) {
      LLVMValueRef idx = LLVMGetOperand(gep, k);
      if (k > 1) {
         LLVMTypeKind kind = LLVMGetTypeKind(t);
         if (kind == LLVMStructTypeKind) {
            int64_t f;
            if (!const_int(idx, &f))
               return UNKNOWN;
            t = LLVMStructGetTypeAtIndex(t, (unsigned)f);
            continue;
         }
         if (kind != LLVMArrayTypeKind && kind != LLVMVectorTypeKind)
            return UNKNOWN;
         t = LLVMGetElementType(t);
      }
      struct lin i = lin_of(s, idx, depth + 1);
      if (!i.known)
         return UNKNOWN;
      r.c += i.c * (int64_t)LLVMABISizeOfType(s->td, t);
   }
   return r;
}

static struct lin lin_of(const struct loop_scan *s, LLVMValueRef v, int depth)
{
   if (!LLVMIsAInstruction(v))
      return ZERO;
   if (s->wi_mode) {
      if (!kiln_value_map_get(s->varying, v))
         return ZERO;
      if (LLVMIsACallInst(v)) {
         enum kiln_wi_fn k = kiln_wi_kind(v);
         int64_t dim;
         if ((k == WI_GLOBAL_ID || k == WI_LOCAL_ID) && const_int(LLVMGetOperand(v, 0), &dim))
            return (struct lin){true, dim == 0};
         return UNKNOWN;
      }
   } else {
      if (v == s->iv)
         return (struct lin){true, s->iv_step};
      if (!in_loop(s, v) || (LLVMIsACallInst(v) && kiln_wi_kind(v) != WI_NONE))
         return ZERO;
   }
   if (depth > MAX_DEPTH)
      return UNKNOWN;
   LLVMOpcode op = LLVMGetInstructionOpcode(v);
   if (op == LLVMGetElementPtr)
      return lin_gep(s, v, depth);
   if (op == LLVMTrunc || op == LLVMZExt || op == LLVMSExt || op == LLVMBitCast ||
       op == LLVMAddrSpaceCast || op == LLVMPtrToInt || op == LLVMIntToPtr || op == LLVMFreeze)
      return lin_of(s, LLVMGetOperand(v, 0), depth + 1);
   if (op == LLVMPHI || op == LLVMLoad || op == LLVMCall)
      return UNKNOWN;
   unsigned n = (unsigned)LLVMGetNumOperands(v);
   if (n != 2) {
      for (unsigned k = 0; k < n; k++) {
         struct lin o = lin_of(s, LLVMGetOperand(v, k), depth + 1);
         if (!o.known || o.c)
            return UNKNOWN;
      }
      return ZERO;
   }
   struct lin a = lin_of(s, LLVMGetOperand(v, 0), depth + 1);
   struct lin b = lin_of(s, LLVMGetOperand(v, 1), depth + 1);
   int64_t k;
   switch (op) {
   case LLVMAdd:
   case LLVMOr: /* mostly the disjoint or of an aligned index */
      return a.known && b.known ? (struct lin){true, a.c + b.c} : UNKNOWN;
   case LLVMSub:
      return a.known && b.known ? (struct lin){true, a.c - b.c} : UNKNOWN;
   case LLVMMul:
      if (a.known && const_int(LLVMGetOperand(v, 1), &k))
         return (struct lin){true, a.c * k};
      if (b.known && const_int(LLVMGetOperand(v, 0), &k))
         return (struct lin){true, b.c * k};
      break;
   case LLVMShl:
      if (a.known && const_int(LLVMGetOperand(v, 1), &k) && k >= 0 && k < 32)
         return (struct lin){true, a.c * ((int64_t)1 << k)};
      break;
   default:
      break;
   }
   return a.known && b.known && !a.c && !b.c ? ZERO : UNKNOWN;
}

/* Values that depend on the work-item (its ids, and what is computed or
 * loaded from them), to a fixed point through phis. */
static bool mark_varying(const struct kiln_wg_graph *g, struct kiln_value_map *varying)
{
   bool changed = true;
   while (changed) {
      changed = false;
      for (unsigned b = 0; b < g->n; b++)
         for (LLVMValueRef i = LLVMGetFirstInstruction(g->blocks[b]); i;
              i = LLVMGetNextInstruction(i)) {
            if (kiln_value_map_get(varying, i))
               continue;
            bool v = false;
            if (LLVMIsACallInst(i)) {
               enum kiln_wi_fn k = kiln_wi_kind(i);
               v = k == WI_GLOBAL_ID || k == WI_LOCAL_ID;
            }
            unsigned n = (unsigned)LLVMGetNumOperands(i);
            for (unsigned k = 0; k < n && !v; k++) {
               LLVMValueRef o = LLVMGetOperand(i, k);
               v = LLVMIsAInstruction(o) && kiln_value_map_get(varying, o);
            }
            if (v) {
               if (!kiln_value_map_put(varying, i, i))
                  return false;
               changed = true;
            }
         }
   }
   return true;
}

/* The header's counter: a phi stepping by a constant from the latch. */
static void find_counter(struct loop_scan *s, LLVMBasicBlockRef header, LLVMBasicBlockRef latch)
{
   s->iv = NULL;
   for (LLVMValueRef p = LLVMGetFirstInstruction(header); p && LLVMIsAPHINode(p);
        p = LLVMGetNextInstruction(p)) {
      for (unsigned k = 0; k < LLVMCountIncoming(p); k++) {
         LLVMValueRef next = LLVMGetIncomingValue(p, k);
         if (LLVMGetIncomingBlock(p, k) != latch || !LLVMIsAInstruction(next) ||
             LLVMGetInstructionOpcode(next) != LLVMAdd)
            continue;
         int64_t step;
         LLVMValueRef x = LLVMGetOperand(next, 0), y = LLVMGetOperand(next, 1);
         if ((x == p && const_int(y, &step)) || (y == p && const_int(x, &step))) {
            s->iv = p;
            s->iv_step = step;
            return;
         }
      }
   }
}

/* The trip count when the counter starts, steps and stops at constants;
 * -1 when unknown. */
static int64_t trip_count(const struct loop_scan *s, LLVMBasicBlockRef latch)
{
   if (!s->iv || !s->iv_step)
      return -1;
   int64_t start = 0, end = 0;
   bool have_start = false, have_end = false;
   for (unsigned k = 0; k < LLVMCountIncoming(s->iv); k++)
      if (LLVMGetIncomingBlock(s->iv, k) != latch)
         have_start = const_int(LLVMGetIncomingValue(s->iv, k), &start);
   for (unsigned b = 0; b < s->g->n && !have_end; b++) {
      if (!s->g->in_loop[b])
         continue;
      LLVMValueRef t = LLVMGetBasicBlockTerminator(s->g->blocks[b]);
      if (!t || !LLVMIsABranchInst(t) || !LLVMIsConditional(t))
         continue;
      LLVMValueRef c = LLVMGetCondition(t);
      if (!LLVMIsAICmpInst(c))
         continue;
      for (unsigned k = 0; k < 2 && !have_end; k++) {
         LLVMValueRef x = LLVMGetOperand(c, k);
         bool counter = x == s->iv || (LLVMIsAInstruction(x) &&
                                       LLVMGetInstructionOpcode(x) == LLVMAdd &&
                                       (LLVMGetOperand(x, 0) == s->iv || LLVMGetOperand(x, 1) == s->iv));
         if (counter)
            have_end = const_int(LLVMGetOperand(c, 1 - k), &end);
      }
   }
   if (!have_start || !have_end)
      return -1;
   int64_t span = end - start;
   if ((span > 0) != (s->iv_step > 0))
      return -1;
   return llabs(span) / llabs(s->iv_step) + 1;
}

/* Why interchanging would not pay for one access; true if it would not. */
static bool access_against(struct loop_scan *s, LLVMValueRef ptr, LLVMTypeRef type, bool store)
{
   LLVMValueRef base = ptr;
   while (LLVMIsAGetElementPtrInst(base) || LLVMIsABitCastInst(base) || LLVMIsAAddrSpaceCastInst(base))
      base = LLVMGetOperand(base, 0);
   if (LLVMIsAAllocaInst(base))
      return false; /* private memory: the work-item's own */
   int64_t size = (int64_t)LLVMABISizeOfType(s->td, type);
   s->wi_mode = true;
   struct lin wi = lin_of(s, ptr, 0);
   s->wi_mode = false;
   struct lin k = s->iv ? lin_of(s, ptr, 0) : UNKNOWN;
   bool wi_next = wi.known && llabs(wi.c) == size;
   if (store && wi.known && !wi.c)
      return true; /* every work-item stores to the same place */
   if (k.known && llabs(k.c) == size)
      return !(wi_next || (!store && wi.known && !wi.c));
   return false;
}

/* An intrinsic, or a function of the program the optimiser will inline
 * (mad, fmin, ...): the work-item loop can still be vectorized. */
static bool inlinable(LLVMValueRef call)
{
   if (kiln_wg_is_intrinsic_call(call, "llvm."))
      return true;
   LLVMValueRef callee = LLVMGetCalledValue(call);
   unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", 8);
   return callee && LLVMIsAFunction(callee) && LLVMGetFirstBasicBlock(callee) &&
          !LLVMGetEnumAttributeAtIndex(callee, LLVMAttributeFunctionIndex, noinline);
}

/* What a loop gets: nothing, a barrier at its latch (or the active flags
 * of wg_predicate.h), or, reading rows per work-item, jammed blocks of
 * work-items (wg_jam.h). */
enum loop_plan { PLAN_NONE, PLAN_INTERCHANGE, PLAN_JAM };

static enum loop_plan worth_it(struct loop_scan *s, unsigned header, unsigned latch)
{
   const struct kiln_wg_graph *g = s->g;
   LLVMBasicBlockRef hb = g->blocks[header], lb = g->blocks[latch];
   unsigned latches = 0;
   for (unsigned k = 0; k < g->npred[header]; k++)
      latches += g->in_loop[g->pred[header][k]];
   if (latches != 1)
      return PLAN_NONE;
   find_counter(s, hb, lb);
   bool varies = false, against = false;
   uint64_t insts = 0;
   for (unsigned b = 0; b < g->n; b++) {
      if (!g->in_loop[b])
         continue;
      for (LLVMValueRef i = LLVMGetFirstInstruction(g->blocks[b]); i; i = LLVMGetNextInstruction(i)) {
         insts++;
         varies |= kiln_value_map_get(s->varying, i) != NULL;
         if (LLVMIsACallInst(i)) {
            enum kiln_wi_fn kind = kiln_wi_kind(i);
            if (kind == WI_BARRIER || (kind == WI_NONE && !inlinable(i)))
               return PLAN_NONE;
         } else if (LLVMIsALoadInst(i)) {
            against |= access_against(s, LLVMGetOperand(i, 0), LLVMTypeOf(i), false);
         } else if (LLVMIsAStoreInst(i)) {
            against |= access_against(s, LLVMGetOperand(i, 1), LLVMTypeOf(LLVMGetOperand(i, 0)), true);
         } else if (LLVMIsAAtomicRMWInst(i) || LLVMIsAAtomicCmpXchgInst(i)) {
            return PLAN_NONE;
         }
      }
   }
   if (!varies)
      return PLAN_NONE;
   int64_t trips = trip_count(s, lb);
   if (trips >= 0 && (uint64_t)trips * insts <= UNROLLED_SIZE)
      return PLAN_NONE;
   if (!against)
      return PLAN_INTERCHANGE;
   return kiln_wg_jam_eligible(s->g, header, latch) ? PLAN_JAM : PLAN_NONE;
}

/* A counter of a loop whose exit varies, to run by trip number (see
 * wg_predicate.h): i = phi [start, preheader], [i + step, latch] with a
 * start that varies and a step common to the group. */
struct counter {
   LLVMValueRef phi, start, step;
   LLVMBasicBlockRef header, latch;
};

/* The same in every iteration and every work-item: defined outside the
 * loop and not varying, or (GPU code often writes `i +=
 * get_global_size(0)`) a size query or a cast or arithmetic of such
 * values inside the loop, which count_trips copies to the header. */
static bool group_invariant(const struct loop_scan *s, LLVMValueRef v, int depth)
{
   if (!LLVMIsAInstruction(v))
      return true;
   if (kiln_value_map_get(s->varying, v) || depth > 4)
      return false;
   if (!in_loop(s, v))
      return true;
   if (LLVMIsACallInst(v)) {
      enum kiln_wi_fn k = kiln_wi_kind(v);
      return (k == WI_GLOBAL_SIZE || k == WI_LOCAL_SIZE || k == WI_NUM_GROUPS ||
              k == WI_ENQUEUED_LOCAL_SIZE) && LLVMIsAConstantInt(LLVMGetOperand(v, 0));
   }
   switch (LLVMGetInstructionOpcode(v)) {
   case LLVMTrunc: case LLVMZExt: case LLVMSExt: case LLVMAdd: case LLVMSub: case LLVMMul:
   case LLVMShl:
      break;
   default:
      return false;
   }
   for (unsigned k = 0; k < (unsigned)LLVMGetNumOperands(v); k++)
      if (!group_invariant(s, LLVMGetOperand(v, k), depth + 1))
         return false;
   return true;
}

/* v, copied at the builder's position where it is defined in the loop. */
static LLVMValueRef copy_invariant(LLVMBuilderRef b, const struct kiln_wg_graph *g, LLVMValueRef v)
{
   if (!LLVMIsAInstruction(v))
      return v;
   int bi = kiln_wg_graph_index(g, LLVMGetInstructionParent(v));
   if (bi < 0 || !g->in_loop[bi])
      return v;
   LLVMValueRef c = LLVMInstructionClone(v);
   unsigned n = (unsigned)LLVMGetNumOperands(v);
   if (LLVMIsACallInst(v))
      n--; /* the callee */
   for (unsigned k = 0; k < n; k++)
      LLVMSetOperand(c, k, copy_invariant(b, g, LLVMGetOperand(v, k)));
   LLVMInsertIntoBuilder(b, c);
   return c;
}

static bool find_strided_counter(const struct loop_scan *s, unsigned header, unsigned latch,
                                 struct counter *out)
{
   const struct kiln_wg_graph *g = s->g;
   LLVMBasicBlockRef hb = g->blocks[header], lb = g->blocks[latch];
   LLVMValueRef term = LLVMGetBasicBlockTerminator(hb);
   if (!term || !LLVMIsABranchInst(term) || !LLVMIsConditional(term) ||
       !kiln_value_map_get(s->varying, LLVMGetCondition(term)))
      return false;
   for (LLVMValueRef p = LLVMGetFirstInstruction(hb); p && LLVMIsAPHINode(p); p = LLVMGetNextInstruction(p)) {
      if (LLVMCountIncoming(p) != 2 || LLVMGetTypeKind(LLVMTypeOf(p)) != LLVMIntegerTypeKind)
         continue;
      unsigned in = LLVMGetIncomingBlock(p, 0) == lb ? 0 : 1;
      LLVMValueRef next = LLVMGetIncomingValue(p, in), start = LLVMGetIncomingValue(p, 1 - in);
      if (LLVMGetIncomingBlock(p, in) != lb || !LLVMIsAInstruction(next) ||
          !LLVMIsAInstruction(start) || !kiln_value_map_get(s->varying, start))
         continue;
      /* `i += get_global_size(0)` with a uint i adds in size_t: the next
       * value is trunc(zext(i) + step), the same as i + trunc(step). */
      LLVMValueRef sum = next, self = p;
      if (LLVMGetInstructionOpcode(next) == LLVMTrunc && LLVMIsAInstruction(LLVMGetOperand(next, 0)) &&
          LLVMGetInstructionOpcode(LLVMGetOperand(next, 0)) == LLVMAdd)
         sum = LLVMGetOperand(next, 0);
      else if (LLVMGetInstructionOpcode(next) != LLVMAdd)
         continue;
      LLVMValueRef x = LLVMGetOperand(sum, 0), y = LLVMGetOperand(sum, 1);
      if (sum != next) {
         LLVMValueRef wide = NULL;
         for (int k = 0; k < 2 && !wide; k++) {
            LLVMValueRef o = k ? y : x;
            if (LLVMIsAInstruction(o) && LLVMGetOperand(o, 0) == p &&
                (LLVMGetInstructionOpcode(o) == LLVMZExt || LLVMGetInstructionOpcode(o) == LLVMSExt))
               wide = o;
         }
         if (!wide)
            continue;
         self = wide;
      }
      LLVMValueRef step = x == self ? y : y == self ? x : NULL;
      if (!step || !group_invariant(s, step, 0))
         continue;
      *out = (struct counter){p, start, step, hb, lb};
      return true;
   }
   return false;
}

/* i becomes start + kiln.trip(k) * step, k counting the trips from 0. */
static void count_trips(LLVMModuleRef m, struct kiln_wg_graph *g, const struct counter *c)
{
   kiln_wg_graph_loop(g, (unsigned)kiln_wg_graph_index(g, c->header),
                      (unsigned)kiln_wg_graph_index(g, c->latch));
   LLVMContextRef ctx = LLVMGetModuleContext(m);
   LLVMTypeRef t = LLVMTypeOf(c->phi);
   char name[32];
   snprintf(name, sizeof(name), "%si%u", KILN_WG_TRIP_FN, LLVMGetIntTypeWidth(t));
   LLVMValueRef fn = LLVMGetNamedFunction(m, name);
   LLVMTypeRef ft = LLVMFunctionType(t, &t, 1, 0);
   if (!fn)
      fn = LLVMAddFunction(m, name, ft);
   LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
   LLVMPositionBuilder(b, c->header, LLVMGetFirstInstruction(c->header));
   LLVMValueRef k = LLVMBuildPhi(b, t, "trip");
   LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(c->latch));
   LLVMValueRef k1 = LLVMBuildAdd(b, k, LLVMConstInt(t, 1, 0), "trip.next");
   LLVMValueRef vals[2] = {LLVMConstInt(t, 0, 0), k1};
   unsigned in = LLVMGetIncomingBlock(c->phi, 0) == c->latch ? 0 : 1;
   LLVMBasicBlockRef from[2] = {LLVMGetIncomingBlock(c->phi, 1 - in), c->latch};
   LLVMAddIncoming(k, vals, from, 2);
   /* Computed where it is used, not once in the header: after wg_predicate.c
    * the header runs apart from the body (another region), and a value
    * carried over would be a load from a slot per work-item, which the
    * vectorizer sees as a gather. */
   unsigned nuses = 0;
   for (LLVMUseRef u = LLVMGetFirstUse(c->phi); u; u = LLVMGetNextUse(u))
      nuses++;
   LLVMValueRef *users = kiln_malloc((nuses ? nuses : 1) * sizeof(*users));
   if (users) {
      nuses = 0;
      for (LLVMUseRef u = LLVMGetFirstUse(c->phi); u; u = LLVMGetNextUse(u)) {
         bool seen = false;
         for (unsigned k = 0; k < nuses; k++)
            seen |= users[k] == LLVMGetUser(u);
         if (!seen)
            users[nuses++] = LLVMGetUser(u);
      }
   }
   for (unsigned u = 0; users && u < nuses; u++) {
      LLVMValueRef user = users[u];
      unsigned n = (unsigned)LLVMGetNumOperands(user);
      for (unsigned op = 0; op < n; op++) {
         if (LLVMGetOperand(user, op) != c->phi)
            continue;
         if (LLVMIsAPHINode(user))
            LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(LLVMGetIncomingBlock(user, op)));
         else
            LLVMPositionBuilderBefore(b, user);
         LLVMValueRef trips = LLVMBuildCall2(b, ft, fn, &k, 1, "");
         LLVMValueRef step = copy_invariant(b, g, c->step);
         if (LLVMTypeOf(step) != t)
            step = LLVMBuildTrunc(b, step, t, "");
         LLVMSetOperand(user, op, LLVMBuildAdd(b, c->start, LLVMBuildMul(b, trips, step, ""), ""));
      }
   }
   if (users) /* out of memory: the counter stays as it was */
      LLVMInstructionEraseFromParent(c->phi);
   kiln_free(users);
   LLVMDisposeBuilder(b);
}

static uint64_t private_bytes(LLVMValueRef fn, LLVMTargetDataRef td)
{
   uint64_t bytes = 0;
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
         if (LLVMIsAAllocaInst(i))
            bytes += LLVMABISizeOfType(td, LLVMGetAllocatedType(i));
   return bytes;
}

bool kiln_wg_mark_interchange(LLVMValueRef fn)
{
   LLVMTargetDataRef td = LLVMGetModuleDataLayout(LLVMGetGlobalParent(fn));
   if (private_bytes(fn, td) > MAX_PRIVATE_BYTES)
      return false;
   struct kiln_wg_graph g;
   struct kiln_value_map varying;
   kiln_value_map_init(&varying);
   bool ok = kiln_wg_graph_init(&g, fn) && mark_varying(&g, &varying);
   unsigned marked = 0, ncounters = 0;
   struct loop_scan s = {.td = td, .g = &g, .varying = &varying};
   /* Rewritten once the scan, which maps the old values, is over. */
   struct counter *counters = ok ? kiln_calloc(g.n ? g.n : 1, sizeof(*counters)) : NULL;
   struct kiln_wg_jam_guard *guards = ok ? kiln_calloc(g.n ? g.n : 1, sizeof(*guards)) : NULL;
   LLVMBasicBlockRef *jams = ok ? kiln_calloc(g.n ? g.n : 1, sizeof(*jams)) : NULL;
   unsigned nguards = 0, njams = 0;
   ok = ok && counters && guards && jams;
   for (unsigned t = 0; ok && t < g.n; t++) {
      LLVMValueRef term = LLVMGetBasicBlockTerminator(g.blocks[t]);
      for (unsigned k = 0; term && k < LLVMGetNumSuccessors(term); k++) {
         LLVMBasicBlockRef hb = LLVMGetSuccessor(term, k);
         if (!kiln_wg_graph_back_edge(&g, t, hb))
            continue;
         unsigned h = (unsigned)kiln_wg_graph_index(&g, hb);
         kiln_wg_graph_loop(&g, h, t);
         enum loop_plan plan = worth_it(&s, h, t);
         if (plan == PLAN_JAM) {
            kiln_wg_jam_mark(hb);
            marked++;
            bool dup = false;
            for (unsigned k2 = 0; k2 < njams; k2++)
               dup |= jams[k2] == hb;
            if (!dup)
               jams[njams++] = hb;
            dup = false;
            for (unsigned k2 = 0; k2 < nguards; k2++)
               dup |= guards[k2].h == hb;
            if (!dup && kiln_wg_jam_find_guard(&g, &varying, h, t, &guards[nguards]))
               nguards++;
         }
         if (plan != PLAN_INTERCHANGE)
            continue;
         kiln_block_mark(hb, MARK_NAME);
         marked++;
         bool dup = false;
         for (unsigned k2 = 0; k2 < ncounters; k2++)
            dup |= counters[k2].header == hb;
         if (!dup && find_strided_counter(&s, h, t, &counters[ncounters]))
            ncounters++;
      }
   }
   for (unsigned k = 0; k < ncounters; k++)
      count_trips(LLVMGetGlobalParent(fn), &g, &counters[k]);
   for (unsigned k = 0; k < nguards; k++)
      kiln_wg_jam_unguard(&guards[k]);
   kiln_free(counters);
   kiln_free(guards);
   kiln_wg_graph_fini(&g);
   kiln_value_map_fini(&varying);
   /* Rows read 8 elements at a time where the loads allow it; each
    * widening changes the graph, which kiln_wg_jam_widen rebuilds. */
   for (unsigned k = 0; k < njams; k++)
      kiln_wg_jam_widen(fn, jams[k]);
   kiln_free(jams);
   return marked > 0;
}

/* ---- step 2: the barriers (reg2mem form, work-item calls lowered) ---- */

static bool control_uniform(const struct kiln_wg_graph *g, const struct kiln_wg_uniform *u,
                            unsigned header, unsigned latch)
{
   if (!kiln_wg_uniform_block(u, g->blocks[header]) || !kiln_wg_uniform_block(u, g->blocks[latch]))
      return false;
   for (unsigned b = 0; b < g->n; b++) {
      if (!g->in_loop[b])
         continue;
      LLVMValueRef t = LLVMGetBasicBlockTerminator(g->blocks[b]);
      if (!t)
         return false;
      bool exits = LLVMIsAReturnInst(t) != NULL;
      for (unsigned s = 0; s < LLVMGetNumSuccessors(t); s++) {
         int d = kiln_wg_graph_index(g, LLVMGetSuccessor(t, s));
         exits |= d < 0 || !g->in_loop[d];
      }
      if (!exits)
         continue;
      if (!LLVMIsABranchInst(t) || !LLVMIsConditional(t) ||
          !kiln_wg_uniform_block(u, g->blocks[b]) || !kiln_wg_uniform_value(u, LLVMGetCondition(t)))
         return false;
   }
   return true;
}

static LLVMValueRef barrier_function(LLVMModuleRef m, LLVMCallConv *cc)
{
   const char *name = kiln_wi_names[WI_BARRIER];
   LLVMValueRef fn = LLVMGetNamedFunction(m, name);
   *cc = fn ? kiln_wg_call_conv(fn) : LLVMCCallConv;
   if (fn)
      return fn;
   LLVMContextRef c = LLVMGetModuleContext(m);
   LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
   return LLVMAddFunction(m, name, LLVMFunctionType(LLVMVoidTypeInContext(c), &i32, 1, 0));
}

/* The barriers around the loops marked for jamming (wg_jam.h), once the
 * loops above have theirs. */
static unsigned jam_barriers(LLVMModuleRef m, LLVMValueRef fn, LLVMValueRef lid)
{
   bool any = false;
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && !any; bb = LLVMGetNextBasicBlock(bb))
      any = kiln_wg_jam_start(bb);
   if (!any)
      return 0;
   LLVMCallConv cc;
   LLVMValueRef bfn = barrier_function(m, &cc);
   return kiln_wg_jam_barriers(fn, lid, bfn, cc);
}

/* A block of its own holding the barrier, through which every edge into
 * the latch now goes. */
static void barrier_before(LLVMValueRef bfn, LLVMCallConv cc, LLVMBasicBlockRef latch,
                           LLVMBasicBlockRef *preds, unsigned npreds)
{
   LLVMBasicBlockRef bb = kiln_wg_barrier_block(bfn, cc, latch, latch);
   for (unsigned p = 0; p < npreds; p++) {
      LLVMValueRef t = LLVMGetBasicBlockTerminator(preds[p]);
      for (unsigned s = 0; s < LLVMGetNumSuccessors(t); s++)
         if (LLVMGetSuccessor(t, s) == latch)
            LLVMSetSuccessor(t, s, bb);
   }
}

unsigned kiln_wg_interchange(LLVMModuleRef m, LLVMValueRef fn, LLVMValueRef lid, LLVMValueRef lsize0)
{
   unsigned marks = 0;
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
      marks += kiln_block_marked(bb, MARK_NAME);
   if (!marks)
      return jam_barriers(m, fn, lid);
   struct kiln_wg_graph g;
   struct kiln_wg_uniform u;
   bool ok = kiln_wg_graph_init(&g, fn);
   ok = kiln_wg_uniform_init(&u, fn, lid) && ok;
   /* Chosen first, inserted after: the graph stays valid meanwhile. */
   unsigned *chosen = ok ? kiln_calloc(g.n ? g.n : 1, sizeof(unsigned)) : NULL;
   unsigned nchosen = 0;
   for (unsigned t = 0; chosen && t < g.n; t++) {
      LLVMValueRef term = LLVMGetBasicBlockTerminator(g.blocks[t]);
      for (unsigned k = 0; term && k < LLVMGetNumSuccessors(term); k++) {
         LLVMBasicBlockRef hb = LLVMGetSuccessor(term, k);
         if (!kiln_wg_graph_back_edge(&g, t, hb) || !kiln_block_marked(hb, MARK_NAME))
            continue;
         unsigned h = (unsigned)kiln_wg_graph_index(&g, hb);
         kiln_wg_graph_loop(&g, h, t);
         bool dup = false;
         for (unsigned c = 0; c < nchosen; c++)
            dup |= chosen[c] == t;
         if (!dup && control_uniform(&g, &u, h, t))
            chosen[nchosen++] = t;
      }
   }
   LLVMCallConv cc;
   LLVMValueRef bfn = barrier_function(m, &cc);
   for (unsigned c = 0; c < nchosen; c++) {
      unsigned t = chosen[c];
      LLVMBasicBlockRef *preds = kiln_malloc((g.npred[t] ? g.npred[t] : 1) * sizeof(*preds));
      if (!preds) {
         nchosen = c;
         break;
      }
      for (unsigned p = 0; p < g.npred[t]; p++)
         preds[p] = g.blocks[g.pred[t][p]];
      barrier_before(bfn, cc, g.blocks[t], preds, g.npred[t]);
      kiln_free(preds);
   }
   kiln_wg_uniform_fini(&u);
   kiln_wg_graph_fini(&g);
   kiln_free(chosen);
   /* The marked loops left may still run in step with an active flag
    * (wg_predicate.h); the analysis is redone for the barriers just added. */
   unsigned kind = kiln_mark_kind(LLVMGetTypeContext(LLVMTypeOf(fn)), MARK_NAME);
   unsigned added = nchosen + kiln_wg_predicate_loops(fn, lid, lsize0, kind, bfn, cc);
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
      if (kiln_block_marked(bb, MARK_NAME))
         kiln_block_unmark(bb, MARK_NAME);
   kiln_wg_drop_trip_calls(fn);
   return added + jam_barriers(m, fn, lid);
}
