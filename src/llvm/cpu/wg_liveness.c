/* Which private variables of a kernel with barriers need one slot per
 * work-item (see wg_liveness.h). */
#include "llvm/cpu/wg_liveness.h"
#include "util/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define WORDS(n) (((n) + 63) / 64)

static bool bit(const uint64_t *set, unsigned i)
{
   return set[i / 64] >> (i % 64) & 1;
}

static void set_bit(uint64_t *set, unsigned i)
{
   set[i / 64] |= (uint64_t)1 << (i % 64);
}

static int block_index(const struct kiln_wg_cfg *cfg, LLVMBasicBlockRef bb)
{
   LLVMValueRef v = kiln_value_map_get(&cfg->index, LLVMBasicBlockAsValue(bb));
   return v ? (int)((uintptr_t)v - 1) : -1;
}

/* Successor s of block b inside the regions: barrier-ending blocks have
 * none (their edge leads to the next region). */
static int succ(const struct kiln_wg_cfg *cfg, unsigned b, unsigned s)
{
   if (cfg->cut[b])
      return -1;
   LLVMValueRef term = LLVMGetBasicBlockTerminator(cfg->blocks[b]);
   return block_index(cfg, LLVMGetSuccessor(term, s));
}

static unsigned num_succ(const struct kiln_wg_cfg *cfg, unsigned b)
{
   if (cfg->cut[b])
      return 0;
   LLVMValueRef term = LLVMGetBasicBlockTerminator(cfg->blocks[b]);
   return term ? LLVMGetNumSuccessors(term) : 0;
}

/* reach and dominator sets of region r. */
static bool analyse_region(struct kiln_wg_cfg *cfg, unsigned r)
{
   unsigned n = cfg->num_blocks, w = WORDS(n);
   uint64_t *reach = kiln_calloc(w, sizeof(uint64_t));
   uint64_t *dom = kiln_malloc((size_t)n * w * sizeof(uint64_t));
   unsigned *stack = kiln_malloc(n * sizeof(unsigned));
   if (!reach || !dom || !stack) {
      kiln_free(reach), kiln_free(dom), kiln_free(stack);
      return false;
   }
   unsigned sp = 0, start = cfg->start[r];
   set_bit(reach, start);
   stack[sp++] = start;
   while (sp) {
      unsigned b = stack[--sp];
      for (unsigned s = 0; s < num_succ(cfg, b); s++) {
         int t = succ(cfg, b, s);
         if (t >= 0 && !bit(reach, (unsigned)t)) {
            set_bit(reach, (unsigned)t);
            stack[sp++] = (unsigned)t;
         }
      }
   }
   /* dom(start) = {start}; dom(b) = {b} + intersection over predecessors,
    * iterated to a fixed point (regions are small). */
   for (unsigned b = 0; b < n; b++) {
      uint64_t *d = dom + (size_t)b * w;
      if (b == start) {
         memset(d, 0, w * sizeof(uint64_t));
         set_bit(d, b);
      } else {
         memset(d, 0xff, w * sizeof(uint64_t));
      }
   }
   uint64_t *tmp = kiln_malloc(w * sizeof(uint64_t));
   bool changed = tmp != NULL;
   while (changed) {
      changed = false;
      for (unsigned b = 0; b < n; b++) {
         if (b == start || !bit(reach, b))
            continue;
         memset(tmp, 0xff, w * sizeof(uint64_t));
         for (unsigned p = 0; p < n; p++) {
            if (!bit(reach, p))
               continue;
            for (unsigned s = 0; s < num_succ(cfg, p); s++)
               if (succ(cfg, p, s) == (int)b)
                  for (unsigned k = 0; k < w; k++)
                     tmp[k] &= dom[(size_t)p * w + k];
         }
         set_bit(tmp, b);
         if (memcmp(tmp, dom + (size_t)b * w, w * sizeof(uint64_t))) {
            memcpy(dom + (size_t)b * w, tmp, w * sizeof(uint64_t));
            changed = true;
         }
      }
   }
   kiln_free(stack);
   if (!tmp) {
      kiln_free(reach), kiln_free(dom);
      return false;
   }
   kiln_free(tmp);
   cfg->reach[r] = reach;
   cfg->dom[r] = dom;
   return true;
}

bool kiln_wg_cfg_init(struct kiln_wg_cfg *cfg, LLVMBasicBlockRef *blocks, unsigned num_blocks,
                      const bool *cut, const LLVMBasicBlockRef *starts, unsigned num_regions)
{
   memset(cfg, 0, sizeof(*cfg));
   kiln_value_map_init(&cfg->index);
   cfg->blocks = blocks;
   cfg->num_blocks = num_blocks;
   cfg->cut = cut;
   cfg->num_regions = num_regions;
   cfg->start = kiln_malloc(num_regions * sizeof(unsigned));
   cfg->reach = kiln_calloc(num_regions, sizeof(uint64_t *));
   cfg->dom = kiln_calloc(num_regions, sizeof(uint64_t *));
   if (!cfg->start || !cfg->reach || !cfg->dom)
      return false;
   for (unsigned b = 0; b < num_blocks; b++)
      if (!kiln_value_map_put(&cfg->index, LLVMBasicBlockAsValue(blocks[b]),
                              (LLVMValueRef)(uintptr_t)(b + 1)))
         return false;
   for (unsigned r = 0; r < num_regions; r++) {
      int s = block_index(cfg, starts[r]);
      if (s < 0)
         return false;
      cfg->start[r] = (unsigned)s;
      if (!analyse_region(cfg, r))
         return false;
   }
   return true;
}

void kiln_wg_cfg_fini(struct kiln_wg_cfg *cfg)
{
   /* After a failed init either array may be missing. */
   for (unsigned r = 0; r < cfg->num_regions; r++) {
      if (cfg->reach)
         kiln_free(cfg->reach[r]);
      if (cfg->dom)
         kiln_free(cfg->dom[r]);
   }
   kiln_free(cfg->reach);
   kiln_free(cfg->dom);
   kiln_free(cfg->start);
   kiln_value_map_fini(&cfg->index);
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

/* Whether inst comes before other in their common block. */
static bool before(LLVMValueRef inst, LLVMValueRef other)
{
   for (LLVMValueRef i = LLVMGetNextInstruction(inst); i; i = LLVMGetNextInstruction(i))
      if (i == other)
         return true;
   return false;
}

/* Is load (in block lb) preceded, on every path from region r's start, by
 * a store to a within the region? */
static bool covered(const struct kiln_wg_cfg *cfg, unsigned r, LLVMValueRef a, LLVMValueRef load,
                    unsigned lb)
{
   unsigned w = WORDS(cfg->num_blocks);
   const uint64_t *dom = cfg->dom[r] + (size_t)lb * w;
   for (LLVMUseRef u = LLVMGetFirstUse(a); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef s = LLVMGetUser(u);
      if (!LLVMIsAStoreInst(s) || LLVMGetOperand(s, 1) != a)
         continue;
      int sb = block_index(cfg, LLVMGetInstructionParent(s));
      if (sb < 0 || !bit(cfg->reach[r], (unsigned)sb) || !bit(dom, (unsigned)sb))
         continue;
      if ((unsigned)sb != lb || before(s, load))
         return true;
   }
   return false;
}

bool kiln_wg_needs_slot(const struct kiln_wg_cfg *cfg, LLVMValueRef a)
{
   /* Only whole-value loads and stores of a scalar are analysed; anything
    * that takes the address (arrays, structs, calls) gets a slot. */
   if (LLVMGetTypeKind(LLVMGetAllocatedType(a)) == LLVMArrayTypeKind ||
       LLVMGetTypeKind(LLVMGetAllocatedType(a)) == LLVMStructTypeKind)
      return true;
   for (LLVMUseRef u = LLVMGetFirstUse(a); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (is_call_to(user, "llvm.lifetime.") || is_call_to(user, "llvm.dbg."))
         continue;
      if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == a)
         continue;
      if (!LLVMIsALoadInst(user))
         return true;
      int lb = block_index(cfg, LLVMGetInstructionParent(user));
      if (lb < 0)
         continue; /* in setup, before any region */
      for (unsigned r = 0; r < cfg->num_regions; r++)
         if (bit(cfg->reach[r], (unsigned)lb) && !covered(cfg, r, a, user, (unsigned)lb))
            return true;
   }
   return false;
}
