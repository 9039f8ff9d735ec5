/* The stack a work-group function takes, measured on the optimised
 * module just before code generation (include/kiln/cpu_abi.h,
 * __kiln_stack_<k>): what the CPU driver checks launches against, so a
 * kernel whose private arrays outgrow a worker's stack is refused at
 * enqueue instead of overrunning it. */
#include "llvm/cpu/workgroup.h"

#include <string.h>

#include <llvm-c/Target.h>

#include "kiln/cpu_abi.h"
#include "util/alloc.h"

struct frame_memo {
   LLVMValueRef fn;
   uint64_t bytes;
};

struct frames {
   LLVMTargetDataRef td;
   struct frame_memo *memo;
   size_t used, cap;
   bool oom;
};

/* The static allocas of fn: fixed-size objects of its frame.  Dynamic
 * ones (the per-work-item slots) are counted per work-item instead. */
static uint64_t own_allocas(LLVMTargetDataRef td, LLVMValueRef fn)
{
   uint64_t total = 0;
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
         if (!LLVMIsAAllocaInst(i) || !LLVMIsAConstantInt(LLVMGetOperand(i, 0)))
            continue;
         uint64_t n = LLVMConstIntGetZExtValue(LLVMGetOperand(i, 0));
         uint64_t size = LLVMABISizeOfType(td, LLVMGetAllocatedType(i));
         uint64_t align = LLVMGetAlignment(i) ? LLVMGetAlignment(i) : 1;
         if (n && size > UINT64_MAX / n)
            return UINT64_MAX;
         uint64_t bytes = size * n;
         bytes = bytes > UINT64_MAX - align ? UINT64_MAX : (bytes + align - 1) / align * align;
         total = bytes > UINT64_MAX - total ? UINT64_MAX : total + bytes;
      }
   return total;
}

/* fn's allocas plus the deepest chain of functions of the module it
 * calls.  Functions outside the module (the C library's) are left to the
 * driver's reserve; a cycle (OpenCL C has no recursion) counts once. */
static uint64_t frame_of(struct frames *f, LLVMValueRef fn)
{
   for (size_t i = 0; i < f->used; i++)
      if (f->memo[i].fn == fn)
         return f->memo[i].bytes;
   if (f->used == f->cap) {
      size_t cap = f->cap ? f->cap * 2 : 64;
      struct frame_memo *grown = kiln_realloc(f->memo, cap * sizeof(*grown));
      if (!grown) {
         f->oom = true;
         return 0;
      }
      f->memo = grown;
      f->cap = cap;
   }
   size_t slot = f->used++;
   f->memo[slot] = (struct frame_memo){fn, 0}; /* in progress: a cycle adds nothing */
   uint64_t deepest = 0;
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
         if (!LLVMIsACallInst(i) && !LLVMIsAInvokeInst(i))
            continue;
         LLVMValueRef callee = LLVMGetCalledValue(i);
         if (!callee || !LLVMIsAFunction(callee) || !LLVMGetFirstBasicBlock(callee))
            continue;
         uint64_t b = frame_of(f, callee);
         if (b > deepest)
            deepest = b;
      }
   uint64_t own = own_allocas(f->td, fn);
   uint64_t bytes = own > UINT64_MAX - deepest ? UINT64_MAX : own + deepest;
   /* The array may have moved: find the slot again by its index. */
   f->memo[slot].bytes = bytes;
   return bytes;
}

bool kiln_wg_measure_stack(LLVMModuleRef m)
{
   struct frames f = {.td = LLVMGetModuleDataLayout(m)};
   LLVMContextRef c = LLVMGetModuleContext(m);
   LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
   size_t plen = strlen(KILN_STACK_PREFIX);
   for (LLVMValueRef g = LLVMGetFirstGlobal(m); g && !f.oom; g = LLVMGetNextGlobal(g)) {
      size_t len;
      const char *name = LLVMGetValueName2(g, &len);
      if (len <= plen || strncmp(name, KILN_STACK_PREFIX, plen))
         continue;
      char *wg = kiln_malloc(strlen(KILN_WG_PREFIX) + len - plen + 1);
      if (!wg) {
         f.oom = true;
         break;
      }
      memcpy(wg, KILN_WG_PREFIX, strlen(KILN_WG_PREFIX));
      memcpy(wg + strlen(KILN_WG_PREFIX), name + plen, len - plen);
      wg[strlen(KILN_WG_PREFIX) + len - plen] = '\0';
      LLVMValueRef fn = LLVMGetNamedFunction(m, wg);
      kiln_free(wg);
      LLVMValueRef init = LLVMGetInitializer(g);
      if (!fn || !init)
         continue;
      uint64_t vals[KILN_STACK_FIELDS];
      for (unsigned k = 0; k < KILN_STACK_FIELDS; k++) {
         LLVMValueRef e = LLVMGetAggregateElement(init, k);
         vals[k] = e && LLVMIsAConstantInt(e) ? LLVMConstIntGetZExtValue(e) : 0;
      }
      uint64_t frame = frame_of(&f, fn);
      vals[KILN_STACK_FIXED] = frame > UINT64_MAX - vals[KILN_STACK_FIXED]
                                  ? UINT64_MAX
                                  : frame + vals[KILN_STACK_FIXED];
      LLVMValueRef cv[KILN_STACK_FIELDS];
      for (unsigned k = 0; k < KILN_STACK_FIELDS; k++)
         cv[k] = LLVMConstInt(i64, vals[k], 0);
      LLVMSetInitializer(g, LLVMConstArray2(i64, cv, KILN_STACK_FIELDS));
   }
   kiln_free(f.memo);
   return !f.oom;
}
