/* Integer division by zero, and the signed MIN / -1 and MIN % -1, are
 * undefined in OpenCL C (6.3.b: "undefined" results) but x86's div and idiv
 * raise #DE for them, which the host sees as SIGFPE: one kernel dividing
 * by a zero from its data would kill the application.  The CTS's
 * integer_divideAssign/moduloAssign divide random data, zeros included,
 * and accept any result for those lanes.
 *
 * Before optimisation, each division's divisor d becomes
 *    (d == 0 || (signed && x == MIN && d == -1)) ? 1 : d
 * so those lanes give x (x / 1; MIN, the wrapped quotient) and 0 (x % 1,
 * the true remainder).  Divisions by a constant other than 0 (and -1 for
 * the signed forms) are left alone.  Every element width of a vector is
 * handled the same way (the comparisons and the select are per lane). */
#include "llvm/cpu/safe_div.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The constant v (an element-width pattern given as two 64-bit words) in
 * type t, splatted for vectors. */
static LLVMValueRef splat(LLVMTypeRef t, uint64_t lo, uint64_t hi)
{
   bool vec = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
   LLVMTypeRef et = vec ? LLVMGetElementType(t) : t;
   uint64_t words[2] = {lo, hi};
   LLVMValueRef e = LLVMConstIntOfArbitraryPrecision(et, 2, words);
   if (!vec)
      return e;
   unsigned n = LLVMGetVectorSize(t);
   LLVMValueRef elts[64];
   if (n > 64)
      return NULL;
   for (unsigned i = 0; i < n; i++)
      elts[i] = e;
   return LLVMConstVector(elts, n);
}

/* The minimum of a signed element of `bits` bits, as two words. */
static void signed_min(unsigned bits, uint64_t *lo, uint64_t *hi)
{
   *lo = bits <= 64 ? (uint64_t)1 << (bits - 1) : 0;
   *hi = bits > 64 && bits <= 128 ? (uint64_t)1 << (bits - 65) : 0;
}

static bool safe_constant(LLVMValueRef d, bool sgn)
{
   if (!LLVMIsAConstantInt(d))
      return false;
   unsigned bits = LLVMGetIntTypeWidth(LLVMTypeOf(d));
   if (bits > 64)
      return false;
   long long v = LLVMConstIntGetSExtValue(d);
   return v != 0 && !(sgn && v == -1);
}

static void fix(LLVMBuilderRef b, LLVMValueRef inst, bool sgn)
{
   LLVMValueRef x = LLVMGetOperand(inst, 0), d = LLVMGetOperand(inst, 1);
   if (safe_constant(d, sgn))
      return;
   LLVMTypeRef t = LLVMTypeOf(d);
   LLVMTypeRef et = LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetElementType(t) : t;
   unsigned bits = LLVMGetIntTypeWidth(et);
   if (bits > 128)
      return;
   LLVMValueRef one = splat(t, 1, 0);
   if (!one)
      return;
   LLVMPositionBuilderBefore(b, inst);
   LLVMValueRef bad = LLVMBuildICmp(b, LLVMIntEQ, d, LLVMConstNull(t), "kiln.div0");
   if (sgn) {
      uint64_t lo, hi;
      signed_min(bits, &lo, &hi);
      LLVMValueRef min = splat(t, lo, hi);
      LLVMValueRef ovf = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntEQ, x, min, ""),
                                      LLVMBuildICmp(b, LLVMIntEQ, d, LLVMConstAllOnes(t), ""),
                                      "kiln.divovf");
      bad = LLVMBuildOr(b, bad, ovf, "");
   }
   LLVMSetOperand(inst, 1, LLVMBuildSelect(b, bad, one, d, "kiln.divisor"));
}

void kiln_safe_divisions(LLVMModuleRef m)
{
   LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
      for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
         for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
            switch (LLVMGetInstructionOpcode(i)) {
            case LLVMSDiv:
            case LLVMSRem:
               fix(b, i, true);
               break;
            case LLVMUDiv:
            case LLVMURem:
               fix(b, i, false);
               break;
            default:
               break;
            }
         }
   LLVMDisposeBuilder(b);
}
