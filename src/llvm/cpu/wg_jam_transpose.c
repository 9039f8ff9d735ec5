/* Jammed row loops, step 3 (see wg_jam_wide.h), and the transposition in
 * registers of a jammed round's rows. */
#include "llvm/cpu/wg_jam_transpose.h"

#include "llvm/cpu/wg_internal.h"
#include "llvm/cpu/wg_jam.h"
#include "llvm/cpu/wg_jam_wide.h"
#include "llvm/cpu/value_map.h"

/* Lanes of a transposed round: 8 work-items of a jammed block. */
#define WIDE 8
#define MAX_LOADS KILN_WG_JAM_WIDE_MAX_LOADS
#define MAX_EXTRACTS (4 * WIDE)
/* KILN_JAM_PREFETCH: a row's prefetch and its far one (jam_prefetch.h). */
#define MAX_PREFETCHES (2 * MAX_LOADS)

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

/* The prefetch calls of bb in order (at most MAX_PREFETCHES), their count. */
static unsigned prefetches(LLVMBasicBlockRef bb, LLVMValueRef *out)
{
   unsigned n = 0;
   for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
      if (LLVMIsACallInst(i) && kiln_wg_is_intrinsic_call(i, "llvm.prefetch")) {
         if (n == MAX_PREFETCHES)
            return MAX_PREFETCHES + 1;
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
   LLVMValueRef p0[MAX_PREFETCHES + 1], pj[MAX_PREFETCHES + 1];
   unsigned n = prefetches(front[0], p0);
   if (n > MAX_PREFETCHES)
      return;
   const unsigned K = kiln_jam_width(NULL);
   for (unsigned j = 1; j < K; j++) {
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

/* Whether v may be used in jam->pre as it is: not an instruction of the
 * round (defined in the function's entry or setup block, or x). */
static bool before_block(struct kiln_wg *w, const struct kiln_wg_jam_block *jam, LLVMValueRef v)
{
   if (!LLVMIsAInstruction(v) || v == jam->x)
      return true;
   LLVMBasicBlockRef bb = LLVMGetInstructionParent(v);
   return bb == w->setup || bb == LLVMGetEntryBasicBlock(w->fn);
}

/* Clones instruction i at the builder, its operands through map (those
 * not in it must be usable as they are); records the clone in map. */
static bool clone_into(struct kiln_wg *w, const struct kiln_wg_jam_block *jam, LLVMValueRef i,
                       struct kiln_value_map *map)
{
   LLVMValueRef c = LLVMInstructionClone(i);
   for (int o = 0; o < LLVMGetNumOperands(i); o++) {
      LLVMValueRef op = LLVMGetOperand(i, (unsigned)o), m = kiln_value_map_get(map, op);
      if (m)
         LLVMSetOperand(c, (unsigned)o, m);
      else if (!before_block(w, jam, op)) {
         LLVMDeleteInstruction(c);
         return false;
      }
   }
   LLVMInsertIntoBuilder(w->b, c);
   if (!kiln_value_map_put(map, i, c)) {
      w->oom = true;
      return false;
   }
   return true;
}

/* Marks in map (value -> itself) the instructions of front that v is
 * computed from; false where one cannot run in jam->pre. */
static bool slice(struct kiln_wg *w, const struct kiln_wg_jam_block *jam, LLVMBasicBlockRef front,
                  LLVMValueRef v, struct kiln_value_map *map, unsigned depth)
{
   if (before_block(w, jam, v) || kiln_value_map_get(map, v))
      return true;
   if (LLVMGetInstructionParent(v) != front || depth > 32 || LLVMIsACallInst(v) ||
       LLVMIsAPHINode(v) || LLVMGetMetadata(v, kiln_wg_jam_wide_kind(w->c)))
      return false;
   for (int o = 0; o < LLVMGetNumOperands(v); o++)
      if (!slice(w, jam, front, LLVMGetOperand(v, (unsigned)o), map, depth + 1))
         return false;
   if (!kiln_value_map_put(map, v, v)) {
      w->oom = true;
      return false;
   }
   return true;
}

/* Work-item j's addresses of its wide loads as its loop starts, computed
 * again in jam->pre: its header H_j first (it only reads memory and
 * writes the work-item's own variables, as it will in the first round
 * anyway; the front reads what it wrote: reg2mem keeps the counter's
 * value apart from the phi's variable), then what the front computes the
 * addresses from.  out[m] = the address of loads[m] there.  False where
 * that cannot be done (the caller then leaves the rows as they are; what
 * was built is dead code, lid.x is restored by the caller). */
static bool front_at_start(struct kiln_wg *w, const struct kiln_wg_jam_block *jam,
                           LLVMBasicBlockRef front, unsigned j, const LLVMValueRef *loads,
                           unsigned n, LLVMValueRef *out)
{
   struct kiln_value_map map;
   kiln_value_map_init(&map);
   bool ok = true;
   LLVMValueRef ht = LLVMGetBasicBlockTerminator(jam->heads[j]);
   /* What the header computes from other headers (the last one's test
    * of the whole block) stays out: it stores nothing. */
   for (LLVMValueRef i = LLVMGetFirstInstruction(jam->heads[j]); ok && i != ht;
        i = LLVMGetNextInstruction(i))
      if (LLVMIsACallInst(i) || (!clone_into(w, jam, i, &map) && (w->oom || LLVMIsAStoreInst(i))))
         ok = false;
   for (unsigned m = 0; ok && m < n; m++)
      ok = slice(w, jam, front, LLVMGetOperand(loads[m], 0), &map, 0);
   if (ok) {
      LLVMValueRef zero = LLVMConstInt(w->i32, 0, 0);
      LLVMValueRef xj = j ? LLVMBuildAdd(w->b, jam->x, LLVMConstInt(w->i64, j, 0), "") : jam->x;
      LLVMBuildStore(w->b, xj, kiln_wg_lid_ptr(w, zero));
   }
   /* In the front's order, so that operands come before their users. */
   for (LLVMValueRef i = LLVMGetFirstInstruction(front); ok && i; i = LLVMGetNextInstruction(i))
      if (kiln_value_map_get(&map, i) == i)
         ok = clone_into(w, jam, i, &map);
   for (unsigned m = 0; ok && m < n; m++) {
      LLVMValueRef a = LLVMGetOperand(loads[m], 0);
      out[m] = before_block(w, jam, a) ? a : kiln_value_map_get(&map, a);
   }
   kiln_value_map_fini(&map);
   return ok;
}

/* Rows in lockstep (kiln.jam.wide.lockstep, wg_jam_wide.c): the distance
 * from work-item 0's row to work-item j's stays what it was at the
 * block's start, so jam->pre computes it once and each round addresses
 * work-item j's row from work-item 0's.  The rounds then no longer need
 * the other work-items' counters for their loads (with 16 work-items,
 * LLVM kept them as vectors and took each row's index out of a vector,
 * on the shuffle port the transposition needs); only their loop tests
 * read them. */
static void lockstep_rows(struct kiln_wg *w, const struct kiln_wg_jam_block *jam,
                          LLVMBasicBlockRef *front, LLVMValueRef (*loads)[MAX_LOADS], unsigned n)
{
   unsigned lockstep = kiln_wg_jam_lockstep_kind(w->c);
   bool any = false;
   for (unsigned m = 0; m < n; m++)
      any |= LLVMGetMetadata(loads[0][m], lockstep) != NULL;
   if (!any || !jam || !jam->pre)
      return;
   const unsigned K = kiln_jam_width(NULL);
   LLVMValueRef at[KILN_JAM_WIDTH_MAX][MAX_LOADS];
   LLVMPositionBuilderBefore(w->b, LLVMGetBasicBlockTerminator(jam->pre));
   bool ok = true;
   for (unsigned j = 0; ok && j < K; j++)
      ok = front_at_start(w, jam, front[j], j, loads[j], n, at[j]);
   LLVMBuildStore(w->b, jam->x, kiln_wg_lid_ptr(w, LLVMConstInt(w->i32, 0, 0)));
   if (!ok)
      return;
   for (unsigned m = 0; m < n; m++) {
      if (!LLVMGetMetadata(loads[0][m], lockstep))
         continue;
      LLVMPositionBuilderBefore(w->b, LLVMGetBasicBlockTerminator(jam->pre));
      LLVMValueRef a0 = LLVMBuildPtrToInt(w->b, at[0][m], w->i64, "");
      for (unsigned j = 1; j < K; j++) {
         LLVMValueRef d = LLVMBuildSub(w->b, LLVMBuildPtrToInt(w->b, at[j][m], w->i64, ""), a0,
                                       "jam.row.distance");
         LLVMPositionBuilderBefore(w->b, LLVMGetBasicBlockTerminator(jam->pre));
         LLVMValueRef old = LLVMGetOperand(loads[j][m], 0);
         if (LLVMIsAInstruction(old))
            LLVMPositionBuilderBefore(w->b, LLVMGetNextInstruction(old));
         else
            LLVMPositionBuilderBefore(w->b, loads[j][m]);
         LLVMValueRef row = LLVMBuildGEP2(w->b, LLVMInt8TypeInContext(w->c), LLVMGetOperand(loads[0][m], 0),
                                          &d, 1, "jam.row");
         LLVMReplaceAllUsesWith(old, row);
         LLVMPositionBuilderBefore(w->b, LLVMGetBasicBlockTerminator(jam->pre));
      }
   }
}

/* Bytes of a cache line, as prefetches fetch them. */
#define LINE 64u

/* KILN_JAM_PREFETCH once per cache line.  A round reads R = 8 elements
 * of each row; where R is less than a line, every round's prefetch of a
 * row would ask for the same line 64 / R times over, and on the 2-core
 * VM the rounds stalled at their prefetches (perf: the samples sat on
 * the instructions after them), the line fill buffers full.  The
 * prefetches move to a block that runs every (64 / R)-th round: where
 * work-item 0's first row address a has (a & (64 - R)) == 0, which holds
 * once in 64 / R consecutive rounds whatever a's alignment.  A row
 * prefetched at every 64 bytes of its progress still gets each of its
 * lines once.  Only where every prefetched row has the same R. */
static void prefetch_per_line(struct kiln_wg *w, LLVMBasicBlockRef *front, LLVMBasicBlockRef tr,
                              LLVMValueRef (*loads)[MAX_LOADS], unsigned n)
{
   unsigned long long r = 0;
   LLVMValueRef first = NULL;
   const unsigned K = kiln_jam_width(NULL);
   LLVMValueRef calls[KILN_JAM_WIDTH_MAX][MAX_PREFETCHES + 1];
   unsigned nc[KILN_JAM_WIDTH_MAX];
   for (unsigned j = 0; j < K; j++) {
      nc[j] = prefetches(front[j], calls[j]);
      if (nc[j] > MAX_PREFETCHES)
         return;
   }
   for (unsigned c = 0; c < nc[0]; c++) {
      LLVMValueRef g = LLVMGetOperand(calls[0][c], 0);
      if (!LLVMIsAGetElementPtrInst(g))
         return;
      LLVMValueRef row = LLVMGetOperand(g, 0), load = NULL;
      for (unsigned m = 0; m < n && !load; m++)
         if (LLVMGetOperand(loads[0][m], 0) == row)
            load = loads[0][m];
      if (!load)
         return;
      unsigned long long rb = LLVMABISizeOfType(w->td, LLVMTypeOf(load));
      if ((r && rb != r) || rb >= LINE || LINE % rb)
         return;
      r = rb;
      if (!first)
         first = row;
   }
   if (!first)
      return;
   LLVMBasicBlockRef pf = LLVMAppendBasicBlockInContext(w->c, w->fn, "wide.prefetch");
   LLVMPositionBuilderAtEnd(w->b, pf);
   for (unsigned j = 0; j < K; j++)
      for (unsigned c = 0; c < nc[j]; c++) {
         LLVMInstructionRemoveFromParent(calls[j][c]);
         LLVMInsertIntoBuilder(w->b, calls[j][c]);
      }
   LLVMBuildBr(w->b, tr);
   LLVMBasicBlockRef last = front[K - 1];
   LLVMValueRef br = LLVMGetBasicBlockTerminator(last);
   LLVMPositionBuilderBefore(w->b, br);
   LLVMValueRef a = LLVMBuildPtrToInt(w->b, first, w->i64, "");
   LLVMValueRef phase = LLVMBuildAnd(w->b, a, LLVMConstInt(w->i64, LINE - r, 0), "");
   LLVMValueRef now = LLVMBuildICmp(w->b, LLVMIntEQ, phase, LLVMConstInt(w->i64, 0, 0), "wide.line");
   LLVMBuildCondBr(w->b, now, pf, tr);
   LLVMInstructionEraseFromParent(br);
}

_Static_assert(WIDE == 8, "the transposition's masks are for 8 lanes");
_Static_assert(KILN_JAM_WIDTH_MIN % WIDE == 0 && KILN_JAM_WIDTH_MAX % WIDE == 0,
               "a block is transposed 8 work-items at a time");

LLVMBasicBlockRef kiln_wg_jam_transpose(struct kiln_wg *w, LLVMBasicBlockRef *starts, LLVMValueRef *xs,
                                        const struct kiln_wg_jam_block *jam)
{
   const unsigned K = kiln_jam_width(NULL);
   unsigned kind = kiln_wg_jam_wide_kind(w->c);
   LLVMValueRef loads[KILN_JAM_WIDTH_MAX][MAX_LOADS];
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
   LLVMBasicBlockRef front[KILN_JAM_WIDTH_MAX];
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
   lockstep_rows(w, jam, front, loads, n);
   prefetch_per_line(w, front, tr, loads, n);
   LLVMPositionBuilderAtEnd(w->b, tr);
   unsigned same = kiln_wg_jam_same_kind(w->c);
   for (unsigned m = 0; m < n; m++) {
      LLVMValueRef v[KILN_JAM_WIDTH_MAX] = {0}, r[WIDE];
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
      for (unsigned g = 0; g < K; g += WIDE) {
         transpose(w->b, w->c, v + g, r);
         /* Lane k of work-item j's row is lane j of r[k]. */
         for (unsigned j = g; j < g + WIDE; j++) {
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
               LLVMSetOperand(e, 1, LLVMConstInt(LLVMTypeOf(lane), j - g, 0));
            }
         }
      }
   }
   LLVMBuildBr(w->b, starts[0]);
   return front[0];
}
