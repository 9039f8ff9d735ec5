/* Regions the group runs once: a region that does the same for every
 * work-item (uniform values and branches, stores only to uniform private
 * variables) runs once per work-group instead of once per work-item. */
#include "llvm/cpu/wg_internal.h"
#include "llvm/cpu/wg_predicate.h"

#include <string.h>

#include "util/alloc.h"

static bool in_region(const struct kiln_wg_cfg *cfg, unsigned r, unsigned b)
{
   return cfg->reach[r][b / 64] >> (b % 64) & 1;
}

/* Whether region r does the same for every work-item: uniform values and
 * branches, and no effect but stores to uniform private variables. */
static bool region_uniform(const struct kiln_wg_cfg *cfg, unsigned r,
                           const struct kiln_wg_uniform *u)
{
   for (unsigned b = 0; b < cfg->num_blocks; b++) {
      if (!in_region(cfg, r, b))
         continue;
      if (!kiln_wg_uniform_block(u, cfg->blocks[b]))
         return false;
      for (LLVMValueRef i = LLVMGetFirstInstruction(cfg->blocks[b]); i; i = LLVMGetNextInstruction(i)) {
         if (LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMVoidTypeKind) {
            if (!kiln_wg_uniform_value(u, i))
               return false;
            continue;
         }
         switch (LLVMGetInstructionOpcode(i)) {
         case LLVMStore:
            if (LLVMGetVolatile(i) || !kiln_wg_uniform_alloca(u, LLVMGetOperand(i, 1)))
               return false;
            break;
         case LLVMBr:
            if (LLVMIsConditional(i) && !kiln_wg_uniform_value(u, LLVMGetCondition(i)))
               return false;
            break;
         case LLVMSwitch:
            if (!kiln_wg_uniform_value(u, LLVMGetOperand(i, 0)))
               return false;
            break;
         case LLVMRet:
         case LLVMUnreachable:
            break;
         case LLVMCall:
            if (!kiln_wg_is_intrinsic_call(i, "llvm.lifetime.") && !kiln_wg_is_intrinsic_call(i, "llvm.dbg."))
               return false;
            break;
         default:
            return false;
         }
      }
   }
   return true;
}

/* Chooses the regions to run once and the uniform private variables that
 * keep one slot for the group (into `shared`).  A shared slot is wrong in
 * a region every work-item runs if the region both reads and writes it
 * (work-item 1 would read what work-item 0 wrote); such a variable gets
 * a slot per work-item, and then no once-region may touch it. */
void kiln_wg_plan_uniform(struct kiln_wg *w, const struct kiln_wg_cfg *cfg,
                         const struct kiln_wg_uniform *u, bool *once,
                         struct kiln_value_map *shared)
{
   unsigned nr = cfg->num_regions, nc = 0;
   for (unsigned r = 0; r < nr; r++)
      once[r] = region_uniform(cfg, r, u);
   for (LLVMValueRef a = LLVMGetFirstInstruction(w->setup); a; a = LLVMGetNextInstruction(a))
      nc += LLVMIsAAllocaInst(a) != NULL;
   LLVMValueRef *cand = kiln_malloc((nc ? nc : 1) * sizeof(*cand));
   unsigned char *use = kiln_calloc((size_t)(nc ? nc : 1) * nr, 1); /* 1 load, 2 store */
   bool *keep = kiln_malloc(nc ? nc : 1);
   if (!cand || !use || !keep) {
      memset(once, 0, nr * sizeof(bool));
      kiln_free(cand), kiln_free(use), kiln_free(keep);
      return;
   }
   nc = 0;
   for (LLVMValueRef a = LLVMGetFirstInstruction(w->setup); a; a = LLVMGetNextInstruction(a)) {
      if (!LLVMIsAAllocaInst(a) || a == w->lid || a == w->next || a == w->scratch ||
          kiln_wg_setup_only(w, a) || kiln_wg_group_variable(a) ||
          !kiln_wg_uniform_alloca(u, a) || !kiln_wg_needs_slot(cfg, a))
         continue;
      for (LLVMUseRef x = LLVMGetFirstUse(a); x; x = LLVMGetNextUse(x)) {
         LLVMValueRef user = LLVMGetUser(x);
         unsigned char kind = LLVMIsALoadInst(user) ? 1 : LLVMIsAStoreInst(user) ? 2 : 0;
         LLVMValueRef bi = kiln_value_map_get(&cfg->index, LLVMBasicBlockAsValue(LLVMGetInstructionParent(user)));
         if (!kind || !bi)
            continue;
         for (unsigned r = 0; r < nr; r++)
            if (in_region(cfg, r, (unsigned)((uintptr_t)bi - 1)))
               use[(size_t)nc * nr + r] |= kind;
      }
      keep[nc] = true;
      cand[nc++] = a;
   }
   bool changed = true;
   while (changed) {
      changed = false;
      for (unsigned c = 0; c < nc; c++)
         for (unsigned r = 0; r < nr && keep[c]; r++)
            if (!once[r] && use[(size_t)c * nr + r] == 3)
               keep[c] = false, changed = true;
      for (unsigned r = 0; r < nr; r++)
         for (unsigned c = 0; c < nc && once[r]; c++)
            if (!keep[c] && use[(size_t)c * nr + r])
               once[r] = false, changed = true;
   }
   for (unsigned c = 0; c < nc; c++)
      if (keep[c] && !kiln_value_map_put(shared, cand[c], cand[c])) {
         /* Out of memory: the slot per work-item is always right. */
         memset(once, 0, nr * sizeof(bool));
         kiln_value_map_fini(shared);
         kiln_value_map_init(shared);
         break;
      }
   kiln_free(cand);
   kiln_free(use);
   kiln_free(keep);
}
