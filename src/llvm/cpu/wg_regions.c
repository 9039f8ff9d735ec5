/* Kernels with barriers: the body cut at each barrier into regions, each
 * region a loop nest over the work-items, and a dispatcher that follows
 * the barrier the work-items stopped at. */
#include "llvm/cpu/wg_internal.h"
#include "llvm/cpu/wg_jam.h"
#include "llvm/cpu/wg_skip.h"

#include "util/alloc.h"

struct regions {
   unsigned n;                /* barriers */
   LLVMBasicBlockRef *before; /* block ending at barrier j (its br crosses it) */
   LLVMBasicBlockRef *after;  /* where work-items resume after barrier j */
};

/* Records the barriers: kiln_wg_isolate_barriers left each call last in
 * its block, before a branch to where work-items resume; the calls go. */
static bool split_at_barriers(struct kiln_wg *w, struct regions *r, unsigned max)
{
   r->before = kiln_calloc(max, sizeof(*r->before));
   r->after = kiln_calloc(max, sizeof(*r->after));
   if (!r->before || !r->after) {
      w->oom = true;
      return false;
   }
   for (LLVMBasicBlockRef bb = LLVMGetNextBasicBlock(w->setup); bb; bb = LLVMGetNextBasicBlock(bb)) {
      LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
      LLVMValueRef call = NULL;
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
         if (kiln_wg_is_call(i) && kiln_wi_kind(i) == WI_BARRIER)
            call = i;
      if (!call)
         continue;
      /* reg2mem may have put loads and stores of phi values between the
       * barrier and the branch: accesses to a work-item's own variables,
       * which can as well happen before the barrier. */
      for (LLVMValueRef i = LLVMGetNextInstruction(call); i != term; i = LLVMGetNextInstruction(i)) {
         bool store = LLVMIsAStoreInst(i) && LLVMIsAAllocaInst(LLVMGetOperand(i, 1));
         bool load = LLVMIsALoadInst(i) && LLVMIsAAllocaInst(LLVMGetOperand(i, 0));
         if (!store && !load)
            return false;
      }
      if (r->n == max || LLVMGetNumSuccessors(term) != 1)
         return false;
      LLVMInstructionEraseFromParent(call);
      r->before[r->n] = bb;
      r->after[r->n] = LLVMGetSuccessor(term, 0);
      r->n++;
   }
   /* Any barrier left elsewhere means the function was not prepared. */
   for (LLVMBasicBlockRef bb = LLVMGetNextBasicBlock(w->setup); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
         if (kiln_wg_is_call(i) && kiln_wi_kind(i) == WI_BARRIER)
            return false;
   return true;
}

/* Moves the start of bb up to and including `upto` into a new block that
 * takes over bb's predecessors.  Moving the head (not the tail) keeps
 * every phi valid: bb's phis move with their predecessors, and bb's
 * successors still see bb. */
static void split_head(LLVMValueRef fn, LLVMBasicBlockRef bb, LLVMValueRef upto)
{
   LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
   LLVMBasicBlockRef head = LLVMInsertBasicBlockInContext(c, bb, "barrier");
   for (LLVMBasicBlockRef p = LLVMGetFirstBasicBlock(fn); p; p = LLVMGetNextBasicBlock(p)) {
      LLVMValueRef term = LLVMGetBasicBlockTerminator(p);
      for (unsigned s = 0; p != head && term && s < LLVMGetNumSuccessors(term); s++)
         if (LLVMGetSuccessor(term, s) == bb)
            LLVMSetSuccessor(term, s, head);
   }
   LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
   LLVMPositionBuilderAtEnd(b, head);
   LLVMValueRef i = LLVMGetFirstInstruction(bb);
   for (;;) {
      LLVMValueRef next = LLVMGetNextInstruction(i);
      LLVMInstructionRemoveFromParent(i);
      LLVMInsertIntoBuilder(b, i);
      if (i == upto)
         break;
      i = next;
   }
   LLVMBuildBr(b, bb);
   LLVMDisposeBuilder(b);
}

void kiln_wg_isolate_barriers(LLVMValueRef fn)
{
   bool again = true;
   while (again) {
      again = false;
      for (LLVMBasicBlockRef bb = LLVMGetNextBasicBlock(LLVMGetFirstBasicBlock(fn)); bb && !again;
           bb = LLVMGetNextBasicBlock(bb))
         for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
            if (!kiln_wg_is_call(i) || kiln_wi_kind(i) != WI_BARRIER)
               continue;
            LLVMValueRef next = LLVMGetNextInstruction(i);
            if (LLVMIsABranchInst(next) && !LLVMIsConditional(next) &&
                (LLVMGetFirstInstruction(bb) == i ||
                 !LLVMIsAPHINode(LLVMGetFirstInstruction(LLVMGetSuccessor(next, 0)))))
               continue; /* already last before a plain branch */
            /* Also where the branch goes to phis (a loop header right
             * after the barrier: `barrier(); for (k = 0; ...)`): the
             * barrier goes into a block of its own, and the phis' copies
             * that reg2mem puts on the edge then run after the barrier,
             * in the region of the loop.  Before it, the loop's start
             * came from a slot per work-item, which kept the optimiser
             * from unrolling a constant-trip loop and vectorizing the
             * work-items across it (tiled SGEMM's inner product). */
            split_head(fn, bb, i);
            again = true;
            break;
         }
   }
}

static int barrier_ending(const struct regions *r, LLVMBasicBlockRef bb)
{
   for (unsigned j = 0; j < r->n; j++)
      if (r->before[j] == bb)
         return (int)j;
   return -1;
}

/* Copies the blocks reachable from start without crossing a barrier into a
 * new work-item loop nest; returns the nest's entry. */
static LLVMBasicBlockRef clone_region(struct kiln_wg *w, const struct regions *r,
                                      LLVMBasicBlockRef start, LLVMBasicBlockRef dispatch,
                                      LLVMBasicBlockRef *old_blocks, unsigned num_old, bool once,
                                      const struct kiln_wg_skip *skip)
{
   struct kiln_value_map map;
   kiln_value_map_init(&map);
   bool *reach = kiln_calloc(num_old, sizeof(bool));
   LLVMBasicBlockRef *stack = kiln_malloc(num_old * sizeof(*stack));
   LLVMBasicBlockRef *copy = kiln_calloc(num_old, sizeof(*copy));
   LLVMBasicBlockRef latch, nest = NULL;
   if (!reach || !stack || !copy) {
      w->oom = true;
      goto out;
   }

   /* Which blocks the region holds. */
   unsigned sp = 0;
   for (unsigned k = 0; k < num_old; k++)
      if (old_blocks[k] == start) {
         reach[k] = true;
         stack[sp++] = start;
      }
   while (sp) {
      LLVMBasicBlockRef bb = stack[--sp];
      if (barrier_ending(r, bb) >= 0)
         continue;
      LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
      for (unsigned s = 0; s < LLVMGetNumSuccessors(term); s++) {
         LLVMBasicBlockRef succ = LLVMGetSuccessor(term, s);
         for (unsigned k = 0; k < num_old; k++)
            if (old_blocks[k] == succ && !reach[k]) {
               reach[k] = true;
               stack[sp++] = succ;
            }
      }
   }

   LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(w->c, w->fn, "region.done");
   LLVMPositionBuilderAtEnd(w->b, done);
   LLVMBuildBr(w->b, dispatch);
   for (unsigned k = 0; k < num_old; k++)
      if (reach[k]) {
         copy[k] = LLVMAppendBasicBlockInContext(w->c, w->fn, "r");
         if (!kiln_value_map_put(&map, LLVMBasicBlockAsValue(old_blocks[k]),
                                 LLVMBasicBlockAsValue(copy[k]))) {
            w->oom = true;
            goto out;
         }
      }
   LLVMBasicBlockRef entry = LLVMValueAsBasicBlock(
      kiln_value_map_get(&map, LLVMBasicBlockAsValue(start)));
   if (once) {
      /* The same for every work-item (it reads no work-item value): the
       * group runs it once. */
      latch = LLVMAppendBasicBlockInContext(w->c, w->fn, "once.end");
      LLVMPositionBuilderAtEnd(w->b, latch);
      LLVMBuildBr(w->b, done);
      nest = entry;
   } else {
      nest = kiln_wg_loop_nest(w, entry, done, &latch);
   }

   /* Copy instructions; a block ending at barrier j records j, a return
    * records -1, and either ends the work-item. */
   for (unsigned k = 0; k < num_old; k++) {
      if (!reach[k])
         continue;
      LLVMPositionBuilderAtEnd(w->b, copy[k]);
      int j = barrier_ending(r, old_blocks[k]);
      for (LLVMValueRef i = LLVMGetFirstInstruction(old_blocks[k]); i;
           i = LLVMGetNextInstruction(i)) {
         bool term = i == LLVMGetBasicBlockTerminator(old_blocks[k]);
         if (term && (j >= 0 || LLVMIsAReturnInst(i))) {
            LLVMBuildStore(w->b, LLVMConstInt(w->i32, (unsigned long long)j, 1), w->next);
            LLVMBuildBr(w->b, latch);
            break;
         }
         if (skip && i == skip->branch) {
            /* The copy no work-item enters the loop in (wg_skip.h). */
            LLVMBuildBr(w->b, LLVMGetSuccessor(i, !skip->loop_side));
            break;
         }
         LLVMValueRef c = LLVMInstructionClone(i);
         LLVMInsertIntoBuilder(w->b, c);
         if (!kiln_value_map_put(&map, i, c)) {
            /* Copies pointing at the originals would be wrong code. */
            w->oom = true;
            nest = NULL;
            goto out;
         }
      }
   }
   /* Point operands and successors at the copies. */
   for (unsigned k = 0; k < num_old; k++) {
      if (!reach[k])
         continue;
      for (LLVMValueRef i = LLVMGetFirstInstruction(copy[k]); i; i = LLVMGetNextInstruction(i)) {
         unsigned n = (unsigned)LLVMGetNumOperands(i);
         for (unsigned o = 0; o < n; o++) {
            LLVMValueRef op = LLVMGetOperand(i, o);
            LLVMValueRef mapped = op ? kiln_value_map_get(&map, op) : NULL;
            if (mapped)
               LLVMSetOperand(i, o, mapped);
         }
      }
   }
   if (!once) {
      unsigned n = 0;
      for (unsigned k = 0; k < num_old; k++)
         if (reach[k])
            stack[n++] = copy[k];
      /* A loop that blocks of work-items run interleaved (wg_jam.h); a
       * region for the work-items below a group-wide bound (wg_trim.c). */
      if (kiln_wg_jam_start(start))
         kiln_wg_jam_region(w, entry, stack, n);
      else
         kiln_wg_trim_region(w, nest, entry, latch, stack, n);
   }
out:
   kiln_value_map_fini(&map);
   kiln_free(reach);
   kiln_free(stack);
   kiln_free(copy);
   return nest;
}

/* Replaces the body (every block but setup) by one work-item loop nest per
 * region and a dispatcher that follows the barrier the work-items reached. */
bool kiln_wg_build_regions(struct kiln_wg *w, unsigned num_barriers)
{
   struct regions r = {0};
   bool ok = split_at_barriers(w, &r, num_barriers);
   unsigned num_old = 0;
   for (LLVMBasicBlockRef bb = LLVMGetNextBasicBlock(w->setup); bb; bb = LLVMGetNextBasicBlock(bb))
      num_old++;
   LLVMBasicBlockRef *old = kiln_malloc((num_old ? num_old : 1) * sizeof(*old));
   LLVMBasicBlockRef *entry = kiln_calloc(r.n + 1, sizeof(*entry));
   bool *cut = kiln_calloc(num_old ? num_old : 1, sizeof(bool));
   if (ok && (!old || !entry || !cut))
      w->oom = true;
   if (!ok || w->oom) {
      kiln_free(old);
      kiln_free(entry);
      kiln_free(cut);
      kiln_free(r.before);
      kiln_free(r.after);
      return false;
   }
   num_old = 0;
   for (LLVMBasicBlockRef bb = LLVMGetNextBasicBlock(w->setup); bb; bb = LLVMGetNextBasicBlock(bb)) {
      cut[num_old] = barrier_ending(&r, bb) >= 0;
      old[num_old++] = bb;
   }

   /* Private slots only for what lives across a barrier; without memory
    * for the analysis, every variable gets one. */
   LLVMBasicBlockRef *starts = entry; /* borrowed until the regions exist */
   starts[0] = w->body;
   for (unsigned j = 0; j < r.n; j++)
      starts[j + 1] = r.after[j];
   struct kiln_wg_cfg cfg;
   bool analysed = kiln_wg_cfg_init(&cfg, old, num_old, cut, starts, r.n + 1);
   bool *once = kiln_calloc(r.n + 1, sizeof(bool));
   struct kiln_value_map shared;
   kiln_value_map_init(&shared);
   if (analysed && once) {
      struct kiln_wg_uniform u;
      if (kiln_wg_uniform_init(&u, w->fn, w->lid))
         kiln_wg_plan_uniform(w, &cfg, &u, once, &shared);
      kiln_wg_uniform_fini(&u);
   }
   kiln_wg_privatize(w, analysed ? &cfg : NULL, &shared);
   kiln_value_map_fini(&shared);
   kiln_wg_cfg_fini(&cfg);
   kiln_free(cut);
   if (w->oom) {
      kiln_free(once);
      kiln_free(old);
      kiln_free(entry);
      kiln_free(r.before);
      kiln_free(r.after);
      return false;
   }

   LLVMBasicBlockRef dispatch = LLVMAppendBasicBlockInContext(w->c, w->fn, "dispatch");
   LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(w->c, w->fn, "exit");
   LLVMPositionBuilderAtEnd(w->b, exit);
   LLVMBuildRetVoid(w->b);

   entry[0] = clone_region(w, &r, w->body, dispatch, old, num_old, once && once[0], NULL);
   for (unsigned j = 0; j < r.n; j++) {
      bool group_once = once && once[j + 1];
      struct kiln_wg_skip skip;
      if (!group_once && !kiln_wg_jam_start(r.after[j]) &&
          kiln_wg_skip_find(r.after[j], r.before, r.n, &skip)) {
         LLVMBasicBlockRef slow = clone_region(w, &r, r.after[j], dispatch, old, num_old, false, NULL);
         LLVMBasicBlockRef fast = clone_region(w, &r, r.after[j], dispatch, old, num_old, false, &skip);
         entry[j + 1] = slow && fast ? kiln_wg_skip_version(w, &skip, slow, fast) : NULL;
      } else {
         entry[j + 1] = clone_region(w, &r, r.after[j], dispatch, old, num_old, group_once, NULL);
      }
   }
   kiln_free(once);
   for (unsigned j = 0; j <= r.n; j++)
      ok &= entry[j] != NULL;

   if (ok) {
      LLVMPositionBuilderAtEnd(w->b, dispatch);
      LLVMValueRef n = LLVMBuildLoad2(w->b, w->i32, w->next, "");
      LLVMValueRef sw = LLVMBuildSwitch(w->b, n, exit, r.n);
      for (unsigned j = 0; j < r.n; j++)
         LLVMAddCase(sw, LLVMConstInt(w->i32, j, 0), entry[j + 1]);
      LLVMValueRef term = LLVMGetBasicBlockTerminator(w->setup);
      LLVMSetSuccessor(term, 0, entry[0]);
   } else {
      /* Nothing may keep branching into the blocks deleted below. */
      LLVMSetSuccessor(LLVMGetBasicBlockTerminator(w->setup), 0, exit);
   }

   /* The original body is dead: cut its values loose, then drop it.  Its
    * blocks branch to one another, so every instruction goes before any
    * block does: a block deleted while a later one still branched to it
    * left that branch's use pointing into freed memory (valgrind). */
   for (unsigned k = 0; k < num_old; k++)
      for (LLVMValueRef i = LLVMGetFirstInstruction(old[k]); i; i = LLVMGetNextInstruction(i))
         if (LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMVoidTypeKind)
            LLVMReplaceAllUsesWith(i, LLVMGetPoison(LLVMTypeOf(i)));
   for (unsigned k = 0; k < num_old; k++)
      for (LLVMValueRef i; (i = LLVMGetLastInstruction(old[k]));)
         LLVMInstructionEraseFromParent(i);
   for (unsigned k = 0; k < num_old; k++)
      LLVMDeleteBasicBlock(old[k]);
   kiln_free(old);
   kiln_free(entry);
   kiln_free(r.before);
   kiln_free(r.after);
   return ok;
}
