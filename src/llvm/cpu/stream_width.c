/* 256-bit vectors for kernels that only stream (see stream_width.h). */
#include "llvm/cpu/stream_width.h"

#include <string.h>

#include "llvm/cpu/jam_width.h"
#include "llvm/cpu/workgroup.h"

/* OpenCL C address spaces as Clang numbers them for SPIR-like targets. */
#define KILN_AS_GLOBAL 1u
#define KILN_AS_CONSTANT 2u
#define KILN_AS_LOCAL 3u

bool kiln_cpu_stream_narrow(const char *cpu, const char *features)
{
   /* The CPUs where blocks of 16 pay (jam_width.h) are the ones measured
    * here too: AMD's with AVX-512. */
   return kiln_jam_width_for_cpu(cpu) == KILN_JAM_WIDTH_MAX && features &&
          strstr(features, "-prefer-256-bit") != NULL;
}

static bool has_any_prefix(const char *name, const char *const *prefixes, size_t n)
{
   for (size_t i = 0; i < n; i++)
      if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
         return true;
   return false;
}

/* Lanes of a value's type: 1 for a scalar. */
static unsigned long long lanes(LLVMTypeRef t)
{
   return LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetVectorSize(t) : 1;
}

/* A call's arithmetic; false for one that rules streaming out (a call
 * to a function of the program or a builtin: unknown work). */
static bool count_call(LLVMValueRef call, unsigned long long *ops)
{
   static const char *const cheap[] = {"llvm.fma.", "llvm.fmuladd.", "llvm.sqrt.", "llvm.fabs.",
                                       "llvm.minnum.", "llvm.maxnum.", "llvm.floor.",
                                       "llvm.ceil.", "llvm.trunc.", "llvm.rint.", "llvm.round.",
                                       "llvm.copysign."};
   static const char *const costly[] = {"llvm.exp", "llvm.log", "llvm.sin.", "llvm.cos.",
                                        "llvm.pow."};
   LLVMValueRef callee = LLVMGetCalledValue(call);
   if (!callee || !LLVMIsAFunction(callee))
      return false;
   size_t len;
   const char *name = LLVMGetValueName2(callee, &len);
   if (kiln_wg_is_work_item_function(name))
      return true; /* get_global_id and the like: index arithmetic */
   if (strncmp(name, "llvm.", 5) || has_any_prefix(name, costly, sizeof(costly) / sizeof(*costly)))
      return false;
   /* Other intrinsics (lifetime markers, memcpy) compute nothing. */
   if (has_any_prefix(name, cheap, sizeof(cheap) / sizeof(*cheap)))
      *ops += lanes(LLVMTypeOf(call));
   return true;
}

bool kiln_kernel_only_streams(LLVMValueRef kernel)
{
   unsigned long long mem = 0, ops = 0;
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(kernel); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
         switch (LLVMGetInstructionOpcode(i)) {
         case LLVMLoad:
         case LLVMStore: {
            bool load = LLVMGetInstructionOpcode(i) == LLVMLoad;
            LLVMValueRef ptr = LLVMGetOperand(i, load ? 0 : 1);
            unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(ptr));
            if (as == KILN_AS_LOCAL)
               return false; /* a tiled algorithm: computes on what it cached */
            if (as == KILN_AS_GLOBAL || as == KILN_AS_CONSTANT)
               mem += lanes(LLVMTypeOf(load ? i : LLVMGetOperand(i, 0)));
            break;
         }
         case LLVMAtomicRMW:
         case LLVMAtomicCmpXchg:
            return false;
         case LLVMFAdd:
         case LLVMFSub:
         case LLVMFMul:
         case LLVMFDiv:
         case LLVMFRem:
         case LLVMFNeg:
         case LLVMMul:
         case LLVMUDiv:
         case LLVMSDiv:
         case LLVMURem:
         case LLVMSRem:
            ops += lanes(LLVMTypeOf(i));
            break;
         case LLVMCall:
            if (!count_call(i, &ops))
               return false;
            break;
         default:
            break;
         }
      }
   return mem && ops <= 2 * mem;
}

void kiln_wg_prefer_256(LLVMValueRef fn)
{
   LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(fn));
   LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                           LLVMCreateStringAttribute(c, "prefer-vector-width", 19, "256", 3));
}

bool kiln_wg_prefers_256(LLVMValueRef fn)
{
   return LLVMGetStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, "prefer-vector-width",
                                        19) != NULL;
}
