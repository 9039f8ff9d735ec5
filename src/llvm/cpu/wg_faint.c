/* Variables whose values only feed themselves (see wg_faint.h). */
#include "llvm/cpu/wg_faint.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/alloc.h"

/* How far, and through how many instructions, a loaded value is
 * followed through computation before it counts as used. */
#define MAX_DEPTH 8
#define MAX_VISITS 256

struct faint {
   LLVMValueRef *allocas;
   bool *dead;
   unsigned n;
};

static int by_address(const void *a, const void *b)
{
   uintptr_t x = (uintptr_t)*(const LLVMValueRef *)a, y = (uintptr_t)*(const LLVMValueRef *)b;
   return (x > y) - (x < y);
}

/* The candidates are sorted by address: a lookup per store reached, in a
 * kernel of many variables, stays logarithmic. */
static int index_of(const struct faint *f, LLVMValueRef v)
{
   const LLVMValueRef *at = bsearch(&v, f->allocas, f->n, sizeof(*f->allocas), by_address);
   return at ? (int)(at - f->allocas) : -1;
}

/* Computes a value and nothing else. */
static bool pure(LLVMValueRef i)
{
   if (LLVMIsABinaryOperator(i) || LLVMIsACastInst(i) || LLVMIsACmpInst(i) || LLVMIsAFreezeInst(i))
      return true;
   return LLVMIsASelectInst(i) != NULL;
}

/* Every use of alloca a is a plain load from it or a plain store to it
 * (never of it: its address does not escape), and it has both.  An
 * alloca without uses yet may be the work-group pass's own (the next
 * region's number, used once the regions are built). */
static bool plain(LLVMValueRef a)
{
   bool loaded = false, stored = false;
   for (LLVMUseRef u = LLVMGetFirstUse(a); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (LLVMIsALoadInst(user) && !LLVMGetVolatile(user) &&
          LLVMGetOrdering(user) == LLVMAtomicOrderingNotAtomic) {
         loaded = true;
         continue;
      }
      if (LLVMIsAStoreInst(user) && !LLVMGetVolatile(user) &&
          LLVMGetOrdering(user) == LLVMAtomicOrderingNotAtomic && LLVMGetOperand(user, 1) == a &&
          LLVMGetOperand(user, 0) != a) {
         stored = true;
         continue;
      }
      return false;
   }
   return loaded && stored;
}

/* Whether v reaches anything but a store into an alloca still taken as
 * faint. */
static bool used(const struct faint *f, LLVMValueRef v, int depth, unsigned *visits)
{
   for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
      if (++*visits > MAX_VISITS)
         return true;
      LLVMValueRef user = LLVMGetUser(u);
      if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 0) == v) {
         int k = index_of(f, LLVMGetOperand(user, 1));
         if (k >= 0 && f->dead[k])
            continue;
         return true;
      }
      if (depth >= MAX_DEPTH || !pure(user) || used(f, user, depth + 1, visits))
         return true;
   }
   return false;
}

/* Erases v once nothing uses it, and then what only it used. */
static void erase_unused(LLVMValueRef v)
{
   if (!LLVMIsAInstruction(v) || LLVMGetFirstUse(v) ||
       !(pure(v) || (LLVMIsALoadInst(v) && !LLVMGetVolatile(v) &&
                     LLVMGetOrdering(v) == LLVMAtomicOrderingNotAtomic)))
      return;
   unsigned n = (unsigned)LLVMGetNumOperands(v);
   LLVMValueRef ops[3];
   for (unsigned k = 0; k < n && k < 3; k++)
      ops[k] = LLVMGetOperand(v, k);
   LLVMInstructionEraseFromParent(v);
   for (unsigned k = 0; k < n && k < 3; k++)
      erase_unused(ops[k]);
}

unsigned kiln_wg_drop_faint_allocas(LLVMValueRef fn)
{
   LLVMBasicBlockRef entry = LLVMGetFirstBasicBlock(fn);
   if (!entry)
      return 0;
   unsigned n = 0;
   for (LLVMValueRef i = LLVMGetFirstInstruction(entry); i; i = LLVMGetNextInstruction(i))
      n += LLVMIsAAllocaInst(i) != NULL;
   struct faint f = {kiln_calloc(n ? n : 1, sizeof(LLVMValueRef)), kiln_calloc(n ? n : 1, sizeof(bool)), 0};
   if (!f.allocas || !f.dead) {
      kiln_free(f.allocas);
      kiln_free(f.dead);
      return 0;
   }
   for (LLVMValueRef i = LLVMGetFirstInstruction(entry); i; i = LLVMGetNextInstruction(i))
      if (LLVMIsAAllocaInst(i) && plain(i)) {
         f.allocas[f.n] = i;
         f.dead[f.n++] = true;
      }
   qsort(f.allocas, f.n, sizeof(*f.allocas), by_address);
   /* Greatest fixpoint: an alloca stays faint until a load from it
    * reaches a use outside the faint set. */
   for (bool changed = true; changed;) {
      changed = false;
      for (unsigned k = 0; k < f.n; k++) {
         if (!f.dead[k])
            continue;
         for (LLVMUseRef u = LLVMGetFirstUse(f.allocas[k]); u; u = LLVMGetNextUse(u)) {
            LLVMValueRef user = LLVMGetUser(u);
            unsigned visits = 0;
            if (LLVMIsALoadInst(user) && used(&f, user, 0, &visits)) {
               f.dead[k] = false;
               changed = true;
               break;
            }
         }
      }
   }
   unsigned removed = 0;
   for (unsigned k = 0; k < f.n; k++) {
      if (!f.dead[k])
         continue;
      /* The stores first: the values they kept may come from loads of
       * this or another faint alloca, which then lose their last use. */
      for (bool again = true; again;) {
         again = false;
         for (LLVMUseRef u = LLVMGetFirstUse(f.allocas[k]); u; u = LLVMGetNextUse(u)) {
            LLVMValueRef user = LLVMGetUser(u);
            if (LLVMIsAStoreInst(user)) {
               LLVMValueRef value = LLVMGetOperand(user, 0);
               LLVMInstructionEraseFromParent(user);
               erase_unused(value);
               again = true;
               break;
            }
         }
      }
   }
   for (unsigned k = 0; k < f.n; k++) {
      if (!f.dead[k])
         continue;
      for (LLVMUseRef u; (u = LLVMGetFirstUse(f.allocas[k]));) {
         LLVMValueRef load = LLVMGetUser(u);
         /* Every remaining user is a load whose values fed only faint
          * stores, all gone: nothing uses it now. */
         if (LLVMGetFirstUse(load))
            LLVMReplaceAllUsesWith(load, LLVMGetPoison(LLVMTypeOf(load)));
         LLVMInstructionEraseFromParent(load);
      }
      LLVMInstructionEraseFromParent(f.allocas[k]);
      removed++;
   }
   kiln_free(f.allocas);
   kiln_free(f.dead);
   return removed;
}
