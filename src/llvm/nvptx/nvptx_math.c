/* Math intrinsics on the NVPTX code generator.
 *
 * LLVM 19's NVPTX back end has no instruction for llvm.sin, cos, tan, exp,
 * exp2, exp10, log, log2, log10, pow, powi, canonicalize or the lrint and
 * lround families (f16, f32 and f64 alike; exp2/log2 on f32 only with the
 * afn flag): instruction selection calls report_fatal_error ("Cannot
 * select: fsin"), which aborts the process, or it looks for a libcall PTX
 * does not have ("no libcall available for fexp2"), an error diagnostic
 * that ends the process when nothing handles it.  libclc's nvptx library
 * implements its native_* functions with exactly those intrinsics (its
 * sin, cos, exp ... are software and fine), and Clang's __builtin_sinf and
 * friends produce them too.
 *
 * So: the calls native_* makes, and any with the afn flag, become PTX's
 * approximate special-function instructions, which OpenCL's
 * implementation-defined native_* accuracy (and -cl-fast-relaxed-math)
 * allows; whatever intrinsic of that list is still called after the
 * optimiser fails the build with a log line instead of reaching the code
 * generator. */
#include "llvm/nvptx/nvptx_math.h"

#include <llvm-c/Core.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "llvm/build_log.h"
#include "util/alloc.h"

/* "llvm.sin.v4f32" -> "sin" in buf; false for names not of that shape. */
static bool intrinsic_base(const char *name, char *buf, size_t size)
{
   if (strncmp(name, "llvm.", 5))
      return false;
   const char *p = name + 5, *dot = strchr(p, '.');
   size_t len = dot ? (size_t)(dot - p) : strlen(p);
   if (len + 1 > size)
      return false;
   memcpy(buf, p, len);
   buf[len] = 0;
   return true;
}

static bool in_list(const char *s, const char *const *list, size_t n)
{
   for (size_t i = 0; i < n; i++)
      if (!strcmp(s, list[i]))
         return true;
   return false;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* What the code generator cannot select, whatever the type. */
static const char *const unselectable[] = {
   "sin",  "cos",   "tan",  "asin",  "acos",   "atan",   "atan2",   "sinh",
   "cosh", "tanh",  "exp",  "exp2",  "exp10",  "log",    "log2",    "log10",
   "pow",  "powi",  "canonicalize", "lrint", "llrint", "lround", "llround",
};

/* What kiln_nvptx_lower_native_math approximates (float only). */
static const char *const approximated[] = {
   "sin", "cos", "tan", "exp", "exp2", "exp10", "log", "log2", "log10", "pow",
};

static bool is_f32(LLVMTypeRef t)
{
   if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
      t = LLVMGetElementType(t);
   return LLVMGetTypeKind(t) == LLVMFloatTypeKind;
}

/* The calls of fn, collected first: rewriting them changes fn's use list.
 * NULL (and *n = 0) when there are none or no memory; the caller frees. */
static LLVMValueRef *calls_of(LLVMValueRef fn, unsigned *n)
{
   unsigned count = 0;
   for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u))
      count += LLVMIsACallInst(LLVMGetUser(u)) && LLVMGetCalledValue(LLVMGetUser(u)) == fn;
   *n = 0;
   LLVMValueRef *calls = count ? kiln_calloc(count, sizeof(*calls)) : NULL;
   if (!calls)
      return NULL;
   for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (LLVMIsACallInst(user) && LLVMGetCalledValue(user) == fn)
         calls[(*n)++] = user;
   }
   return calls;
}

static LLVMValueRef nvvm(LLVMModuleRef m, LLVMBuilderRef b, const char *name, LLVMValueRef x)
{
   unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
   LLVMValueRef fn = LLVMGetIntrinsicDeclaration(m, id, NULL, 0);
   LLVMTypeRef t = LLVMIntrinsicGetType(LLVMGetModuleContext(m), id, NULL, 0);
   return LLVMBuildCall2(b, t, fn, &x, 1, "");
}

static LLVMValueRef scale(LLVMBuilderRef b, LLVMValueRef x, double k)
{
   return LLVMBuildFMul(b, x, LLVMConstReal(LLVMTypeOf(x), k), "");
}

static LLVMValueRef overloaded(LLVMModuleRef m, LLVMBuilderRef b, const char *name,
                               LLVMValueRef *args, unsigned n)
{
   unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
   LLVMTypeRef t = LLVMTypeOf(args[0]);
   return LLVMBuildCall2(b, LLVMIntrinsicGetType(LLVMGetModuleContext(m), id, &t, 1),
                         LLVMGetIntrinsicDeclaration(m, id, &t, 1), args, n, "");
}

/* a * b + c, rounded once. */
static LLVMValueRef fma_f(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y,
                          LLVMValueRef z)
{
   LLVMValueRef args[] = {x, y, z};
   return overloaded(m, b, "llvm.fma", args, 3);
}

/* Horner's c[0] + r2 * (c[1] + r2 * (...)). */
static LLVMValueRef poly(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef r2, const double *c,
                         unsigned n)
{
   LLVMTypeRef t = LLVMTypeOf(r2);
   LLVMValueRef v = LLVMConstReal(t, c[n - 1]);
   for (unsigned i = n - 1; i-- > 0;)
      v = fma_f(m, b, v, r2, LLVMConstReal(t, c[i]));
   return v;
}

/* native_tan: sin.approx/cos.approx loses all relative accuracy near the
 * poles and zeros (their error is absolute, 2^-21: tan(-1.5711) came out
 * 1e-3 off).  Instead: x = r + k*pi/2 with |r| <= pi/4 (Cody-Waite, two
 * constants), sin r and cos r from their Taylor series to r^7 and r^8
 * (relative error below 5e-7 on that range, tiny r included), and
 * tan x = sin r / cos r, or -cos r / sin r for odd k. */
static LLVMValueRef tan_approx(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef x)
{
   static const double sin_c[] = {1.0, -1.0 / 6, 1.0 / 120, -1.0 / 5040};
   static const double cos_c[] = {1.0, -1.0 / 2, 1.0 / 24, -1.0 / 720, 1.0 / 40320};
   LLVMTypeRef t = LLVMTypeOf(x);
   LLVMValueRef k = scale(b, x, 0.63661977236758134); /* 2/pi */
   k = overloaded(m, b, "llvm.rint", &k, 1);
   LLVMValueRef nk = LLVMBuildFNeg(b, k, "");
   LLVMValueRef r = fma_f(m, b, nk, LLVMConstReal(t, 1.57079637050628662), x); /* (float)pi/2 */
   r = fma_f(m, b, nk, LLVMConstReal(t, -4.37113900018624283e-8), r);      /* pi/2 - that */
   LLVMValueRef r2 = LLVMBuildFMul(b, r, r, "");
   LLVMValueRef sn = LLVMBuildFMul(b, r, poly(m, b, r2, sin_c, 4), "");
   LLVMValueRef cs = poly(m, b, r2, cos_c, 5);
   /* k odd: k/2 is not an integer (NaN k: either way NaN). */
   LLVMValueRef half = scale(b, k, 0.5);
   LLVMValueRef odd =
      LLVMBuildFCmp(b, LLVMRealUNE, half, overloaded(m, b, "llvm.rint", &half, 1), "");
   return LLVMBuildSelect(b, odd, LLVMBuildFNeg(b, LLVMBuildFDiv(b, cs, sn, ""), ""),
                          LLVMBuildFDiv(b, sn, cs, ""), "");
}

/* One float lane of op(x[, y]) from PTX's approximate instructions. */
static LLVMValueRef approx(LLVMModuleRef m, LLVMBuilderRef b, const char *op, LLVMValueRef x,
                           LLVMValueRef y)
{
   static const char sin_f[] = "llvm.nvvm.sin.approx.f", cos_f[] = "llvm.nvvm.cos.approx.f";
   static const char ex2[] = "llvm.nvvm.ex2.approx.f", lg2[] = "llvm.nvvm.lg2.approx.f";
   if (!strcmp(op, "sin"))
      return nvvm(m, b, sin_f, x);
   if (!strcmp(op, "cos"))
      return nvvm(m, b, cos_f, x);
   if (!strcmp(op, "tan"))
      return tan_approx(m, b, x);
   if (!strcmp(op, "exp2"))
      return nvvm(m, b, ex2, x);
   if (!strcmp(op, "exp"))
      return nvvm(m, b, ex2, scale(b, x, 1.4426950408889634)); /* log2(e) */
   if (!strcmp(op, "exp10"))
      return nvvm(m, b, ex2, scale(b, x, 3.3219280948873622)); /* log2(10) */
   if (!strcmp(op, "log2"))
      return nvvm(m, b, lg2, x);
   if (!strcmp(op, "log"))
      return scale(b, nvvm(m, b, lg2, x), 0.69314718055994531); /* ln(2) */
   if (!strcmp(op, "log10"))
      return scale(b, nvvm(m, b, lg2, x), 0.30102999566398120); /* log10(2) */
   /* pow: powr's x >= 0 domain is what native_powr promises. */
   return nvvm(m, b, ex2, LLVMBuildFMul(b, y, nvvm(m, b, lg2, x), ""));
}

static void replace_call(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef call, const char *op)
{
   LLVMPositionBuilderBefore(b, call);
   LLVMValueRef x = LLVMGetOperand(call, 0);
   LLVMValueRef y = !strcmp(op, "pow") ? LLVMGetOperand(call, 1) : NULL;
   LLVMTypeRef t = LLVMTypeOf(call);
   LLVMValueRef v;
   if (LLVMGetTypeKind(t) == LLVMVectorTypeKind) {
      LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetModuleContext(m));
      v = LLVMGetPoison(t);
      for (unsigned i = 0; i < LLVMGetVectorSize(t); i++) {
         LLVMValueRef idx = LLVMConstInt(i32, i, 0);
         LLVMValueRef lane = approx(m, b, op, LLVMBuildExtractElement(b, x, idx, ""),
                                    y ? LLVMBuildExtractElement(b, y, idx, "") : NULL);
         v = LLVMBuildInsertElement(b, v, lane, idx, "");
      }
   } else {
      v = approx(m, b, op, x, y);
   }
   LLVMReplaceAllUsesWith(call, v);
   LLVMInstructionEraseFromParent(call);
}

/* A call native_* makes (libclc defines them with these intrinsics) or
 * one the source allowed to approximate. */
static bool may_approximate(LLVMValueRef call)
{
   LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
   size_t len;
   const char *name = LLVMGetValueName2(fn, &len);
   if (strstr(name, "native_"))
      return true;
   return LLVMCanValueUseFastMathFlags(call) &&
          (LLVMGetFastMathFlags(call) & LLVMFastMathApproxFunc);
}

void kiln_nvptx_lower_native_math(LLVMModuleRef m)
{
   LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
      size_t len;
      char op[32];
      if (LLVMGetFirstBasicBlock(fn) || !intrinsic_base(LLVMGetValueName2(fn, &len), op, sizeof(op)) ||
          !in_list(op, approximated, COUNT(approximated)) ||
          !is_f32(LLVMGetReturnType(LLVMGlobalGetValueType(fn))))
         continue;
      unsigned n;
      LLVMValueRef *calls = calls_of(fn, &n);
      for (unsigned i = 0; i < n; i++)
         if (may_approximate(calls[i]))
            replace_call(m, b, calls[i], op);
      kiln_free(calls); /* out of memory: the calls stay, the check refuses them */
   }
   LLVMDisposeBuilder(b);
}

/* An Itanium-mangled built-in's name: "_Z5fractDv4_fPU3AS1S_" -> "fract"
 * in buf. */
static bool builtin_base(const char *name, char *buf, size_t size)
{
   if (strncmp(name, "_Z", 2))
      return false;
   char *end;
   unsigned long len = strtoul(name + 2, &end, 10);
   if (!len || len + 1 > size || strlen(end) < len)
      return false;
   memcpy(buf, end, len);
   buf[len] = 0;
   return true;
}

/* Itanium names of one-argument float/double built-ins: "_Z3sinf",
 * "_Z3tanDv4_d"; the built-in's name in buf. */
static bool unary_fp_builtin(const char *name, char *buf, size_t size)
{
   if (!builtin_base(name, buf, size))
      return false;
   const char *arg = name + 2 + strspn(name + 2, "0123456789") + strlen(buf);
   if (!strncmp(arg, "Dv", 2)) {
      arg += 2;
      while (*arg >= '0' && *arg <= '9')
         arg++;
      if (*arg++ != '_')
         return false;
   }
   return (arg[0] == 'f' || arg[0] == 'd') && arg[1] == 0;
}

/* Odd functions: f(±0) = ±0 (§7.5.1's special values). */
static const char *const odd[] = {
   "sin",  "tan",   "asin",   "atan",   "sinh", "tanh", "asinh", "atanh",
   "sinpi", "tanpi", "asinpi", "atanpi", "erf", "cbrt", "expm1", "log1p",
};

void kiln_nvptx_keep_signed_zeros(LLVMModuleRef m)
{
   LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
      size_t len;
      char name[32];
      LLVMTypeRef fnty = LLVMGlobalGetValueType(fn);
      if (!unary_fp_builtin(LLVMGetValueName2(fn, &len), name, sizeof(name)) ||
          !in_list(name, odd, COUNT(odd)) || LLVMCountParamTypes(fnty) != 1)
         continue;
      LLVMTypeRef t;
      LLVMGetParamTypes(fnty, &t);
      if (LLVMGetReturnType(fnty) != t)
         continue;
      unsigned n;
      LLVMValueRef *calls = calls_of(fn, &n);
      for (unsigned i = 0; i < n; i++) {
         LLVMValueRef call = calls[i], x = LLVMGetOperand(call, 0);
         LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(call));
         LLVMValueRef zero = LLVMBuildFCmp(b, LLVMRealOEQ, x, LLVMConstNull(t), "");
         LLVMValueRef sel = LLVMBuildSelect(b, zero, x, call, "");
         LLVMReplaceAllUsesWith(call, sel);
         LLVMSetOperand(sel, 2, call); /* RAUW made it its own operand */
      }
      kiln_free(calls);
   }
   LLVMDisposeBuilder(b);
}

/* A constant of vector or scalar type t with every lane scalar. */
static LLVMValueRef splat_const(LLVMTypeRef t, LLVMValueRef scalar)
{
   if (LLVMGetTypeKind(t) != LLVMVectorTypeKind)
      return scalar;
   LLVMValueRef lanes[16];
   unsigned n = LLVMGetVectorSize(t);
   for (unsigned i = 0; i < n && i < 16; i++)
      lanes[i] = scalar;
   return LLVMConstVector(lanes, n);
}

static LLVMTypeRef element_type(LLVMTypeRef t)
{
   return LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetElementType(t) : t;
}

/* The same shape as t (scalar or vector) with elements e. */
static LLVMTypeRef like(LLVMTypeRef t, LLVMTypeRef e)
{
   return LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMVectorType(e, LLVMGetVectorSize(t)) : e;
}

/* copysign(0, x), lane by lane: x's sign bit alone. */
static LLVMValueRef signed_zero(LLVMBuilderRef b, LLVMValueRef x)
{
   LLVMTypeRef t = LLVMTypeOf(x);
   unsigned bits = LLVMGetTypeKind(element_type(t)) == LLVMDoubleTypeKind ? 64 : 32;
   LLVMTypeRef it = LLVMIntTypeInContext(LLVMGetTypeContext(t), bits);
   LLVMValueRef mask = splat_const(like(t, it), LLVMConstInt(it, 1ULL << (bits - 1), 0));
   LLVMValueRef sign = LLVMBuildAnd(b, LLVMBuildBitCast(b, x, like(t, it), ""), mask, "");
   return LLVMBuildBitCast(b, sign, t, "");
}

static LLVMValueRef fp_const(LLVMTypeRef t, double v)
{
   return splat_const(t, LLVMConstReal(element_type(t), v));
}

/* After call: uses of its result see select(c(x), fixed(x), call),
 * which is returned. */
static LLVMValueRef patch_result(LLVMBuilderRef b, LLVMValueRef call, LLVMValueRef cond,
                                 LLVMValueRef fixed)
{
   LLVMValueRef sel = LLVMBuildSelect(b, cond, fixed, call, "");
   LLVMReplaceAllUsesWith(call, sel);
   LLVMSetOperand(sel, 2, call); /* RAUW made it its own operand */
   return sel;
}

/* fract(x, iptr) returns ±0 for x = ±0 and x = ±inf (§7.5.1); libclc
 * gives +0 for -0 and both infinities. */
static void fix_fract(LLVMBuilderRef b, LLVMValueRef call)
{
   LLVMValueRef x = LLVMGetOperand(call, 0);
   LLVMTypeRef t = LLVMTypeOf(x);
   LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(call));
   LLVMValueRef c = LLVMBuildOr(
      b, LLVMBuildFCmp(b, LLVMRealOEQ, x, LLVMConstNull(t), ""),
      LLVMBuildOr(b, LLVMBuildFCmp(b, LLVMRealOEQ, x, fp_const(t, INFINITY), ""),
                  LLVMBuildFCmp(b, LLVMRealOEQ, x, fp_const(t, -INFINITY), ""), ""),
      "");
   patch_result(b, call, c, signed_zero(b, x));
}

/* sinpi(n) is +0 for integers n > 0, -0 for n < 0 (§7.5.1); libclc's
 * double sinpi(1) is -0.  x - trunc(x) == 0 holds for the integers
 * (±0 too) and neither NaN nor the infinities. */
static void fix_sinpi(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef call)
{
   LLVMValueRef x = LLVMGetOperand(call, 0);
   LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(call));
   LLVMValueRef tr = overloaded(m, b, "llvm.trunc", &x, 1);
   LLVMValueRef c = LLVMBuildFCmp(b, LLVMRealOEQ, LLVMBuildFSub(b, x, tr, ""),
                                  LLVMConstNull(LLVMTypeOf(x)), "");
   patch_result(b, call, c, signed_zero(b, x));
}

/* Uses of call's result see zero instead where the result is ±0 (zero
 * computed before call, from its arguments). */
static void patch_zero_result(LLVMBuilderRef b, LLVMValueRef call, LLVMValueRef zero)
{
   LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(call));
   LLVMValueRef is0 = LLVMBuildFCmp(b, LLVMRealOEQ, call, LLVMConstNull(LLVMTypeOf(call)), "");
   LLVMValueRef sel = LLVMBuildSelect(b, is0, zero, call, "");
   LLVMReplaceAllUsesWith(call, sel);
   LLVMSetOperand(is0, 0, call); /* RAUW made both use sel */
   LLVMSetOperand(sel, 2, call);
}

/* cospi(n + 0.5) is +0 for every integer n (§7.5.1); libclc's is -0 at
 * 0.5, 2.5, -0.5, ... (CTS math_edge_cases). */
static void fix_cospi(LLVMBuilderRef b, LLVMValueRef call)
{
   patch_zero_result(b, call, LLVMConstNull(LLVMTypeOf(call)));
}

/* tanpi(n) is copysign(0, n) for even integers n and copysign(0, -n)
 * for odd ones (§7.5.1); libclc's has the sign the other way round for
 * odd n (tanpi(1) was +0).  x is odd when it is an integer and x / 2
 * (exact) is not; a zero result elsewhere (an underflow) keeps x's sign. */
static void fix_tanpi(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef call)
{
   LLVMValueRef x = LLVMGetOperand(call, 0);
   LLVMTypeRef t = LLVMTypeOf(x);
   LLVMPositionBuilderBefore(b, call);
   LLVMValueRef h = LLVMBuildFMul(b, x, fp_const(t, 0.5), "");
   LLVMValueRef tx = overloaded(m, b, "llvm.trunc", &x, 1);
   LLVMValueRef th = overloaded(m, b, "llvm.trunc", &h, 1);
   LLVMValueRef odd = LLVMBuildAnd(b, LLVMBuildFCmp(b, LLVMRealOEQ, tx, x, ""),
                                   LLVMBuildFCmp(b, LLVMRealONE, th, h, ""), "");
   LLVMValueRef z = signed_zero(b, x);
   patch_zero_result(b, call, LLVMBuildSelect(b, odd, LLVMBuildFNeg(b, z, ""), z, ""));
}

/* A NaN argument gives that NaN, and the call sees 0 instead: libclc's
 * double acospi(NaN) was 0.5, ldexp(NaN, n) ±inf or 0, and its double sinh and cosh index a table
 * with (int)|x|, which is INT_MIN for a NaN on the GPU (cvt.rzi.s32.f64):
 * the load faulted, and CUDA's context with it (CTS test_bruteforce). */
static void fix_nan_arg(LLVMBuilderRef b, LLVMValueRef call)
{
   LLVMValueRef x = LLVMGetOperand(call, 0);
   LLVMPositionBuilderBefore(b, call);
   LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, x, x, "");
   LLVMSetOperand(call, 0, LLVMBuildSelect(b, nan, LLVMConstNull(LLVMTypeOf(x)), x, ""));
   LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(call));
   patch_result(b, call, nan, x);
}

/* erfc(x) of x < -6 is 2 to double precision (2 - 2e-17 at -6);
 * libclc's double erfc of large negative x (-2^113 and beyond) was NaN,
 * and so was the float erfc computed through it (CTS test_bruteforce). */
static void fix_erfc(LLVMBuilderRef b, LLVMValueRef call)
{
   LLVMValueRef x = LLVMGetOperand(call, 0);
   LLVMTypeRef t = LLVMTypeOf(x);
   LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(call));
   patch_result(b, call, LLVMBuildFCmp(b, LLVMRealOLT, x, fp_const(t, -6.0), ""),
                fp_const(t, 2.0));
}

/* frexp(NaN, e) is NaN with *e = 0, as for ±0 and ±inf (C99 leaves *e
 * open, the CTS asks 0); libclc's double frexp(NaN) was a finite value
 * with an exponent of -1023. */
static void fix_frexp(LLVMBuilderRef b, LLVMValueRef call)
{
   LLVMValueRef x = LLVMGetOperand(call, 0), e = LLVMGetOperand(call, 1);
   LLVMTypeRef t = LLVMTypeOf(x);
   LLVMTypeRef it = like(t, LLVMInt32TypeInContext(LLVMGetTypeContext(t)));
   LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(call));
   LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, x, x, "");
   LLVMValueRef old = LLVMBuildLoad2(b, it, e, "");
   LLVMSetAlignment(old, 4);
   LLVMValueRef st = LLVMBuildStore(b, LLVMBuildSelect(b, nan, LLVMConstNull(it), old, ""), e);
   LLVMSetAlignment(st, 4);
   patch_result(b, call, nan, x);
}

/* ldexp(x, n) on float: libclc's flushes results below FLT_MIN to zero.
 * In double, x * 2^n is exact for every n that can matter (clamped to
 * ±400: beyond that the float result is 0 or infinity either way), and
 * one conversion rounds it to float, denormals included. */
static void fix_ldexp_float(LLVMBuilderRef b, LLVMValueRef call)
{
   LLVMValueRef x = LLVMGetOperand(call, 0), n = LLVMGetOperand(call, 1);
   LLVMTypeRef t = LLVMTypeOf(x);
   LLVMContextRef c = LLVMGetTypeContext(t);
   LLVMTypeRef i32 = LLVMInt32TypeInContext(c), i64 = LLVMInt64TypeInContext(c);
   LLVMTypeRef dt = like(t, LLVMDoubleTypeInContext(c)), nt = like(t, i32);
   LLVMPositionBuilderBefore(b, call);
   if (LLVMTypeOf(n) != nt) { /* ldexp(floatn, int): one exponent for all */
      LLVMValueRef v = LLVMBuildInsertElement(b, LLVMGetPoison(nt), n,
                                              LLVMConstInt(i32, 0, 0), "");
      n = LLVMBuildShuffleVector(b, v, LLVMGetPoison(nt), LLVMConstNull(nt), "");
   }
   LLVMValueRef lo = splat_const(nt, LLVMConstInt(i32, (unsigned long long)-400, 1));
   LLVMValueRef hi = splat_const(nt, LLVMConstInt(i32, 400, 1));
   n = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, n, lo, ""), lo, n, "");
   n = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, n, hi, ""), hi, n, "");
   LLVMValueRef e = LLVMBuildZExt(
      b, LLVMBuildAdd(b, n, splat_const(nt, LLVMConstInt(i32, 1023, 0)), ""), like(t, i64), "");
   LLVMValueRef pow2 = LLVMBuildBitCast(
      b, LLVMBuildShl(b, e, splat_const(like(t, i64), LLVMConstInt(i64, 52, 0)), ""), dt, "");
   /* The freeze keeps LLVM 19's NVPTX back end from folding the
    * extension into a vector load (an `ld.global.v2.f32` into f64
    * registers, which ptxas refuses: CTS ldexp float8). */
   LLVMValueRef r = LLVMBuildFPTrunc(
      b, LLVMBuildFMul(b, LLVMBuildFPExt(b, LLVMBuildFreeze(b, x, ""), dt, ""), pow2, ""), t, "");
   LLVMReplaceAllUsesWith(call, r);
   LLVMInstructionEraseFromParent(call);
}

/* ldexp(x, n) on double: libclc's adds n to x's exponent in 32 bits, so
 * an n near INT_MAX wrapped round and ldexp(0x1.fffffffffff56p+701,
 * 2147482942) was 0, not infinity (CTS test_bruteforce on the H200).
 * Any |n| above 2200 carries every finite double past the largest
 * (2^1024) or below half the smallest denormal (2^-1075) already, so
 * clamping n there changes no result.  A NaN x gives that NaN (above). */
static void fix_ldexp_double(LLVMBuilderRef b, LLVMValueRef call)
{
   LLVMValueRef n = LLVMGetOperand(call, 1);
   LLVMTypeRef nt = LLVMTypeOf(n), e = element_type(nt);
   LLVMPositionBuilderBefore(b, call);
   LLVMValueRef lo = splat_const(nt, LLVMConstInt(e, (unsigned long long)-2200, 1));
   LLVMValueRef hi = splat_const(nt, LLVMConstInt(e, 2200, 1));
   n = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, n, lo, ""), lo, n, "");
   n = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, n, hi, ""), hi, n, "");
   LLVMSetOperand(call, 1, n);
   fix_nan_arg(b, call);
}

/* vstore_half*_rtp/_rtn of a value strictly between 0 and the smallest
 * half denormal, 2^-24, toward it: libclc's rounding step treats a power
 * of two below 2^-24 as exact, and the store's round-to-nearest then
 * gives 0 (vstore_half_rtp(0x1p-25) was 0, not 0x0001).  2^-24 itself is
 * exact, so storing it instead is the directed rounding's answer. */
static void fix_half_rounding(LLVMBuilderRef b, LLVMValueRef call, bool up)
{
   LLVMValueRef x = LLVMGetOperand(call, 0);
   LLVMTypeRef t = LLVMTypeOf(x);
   LLVMValueRef tiny = fp_const(t, up ? 0x1p-24 : -0x1p-24);
   LLVMPositionBuilderBefore(b, call);
   LLVMValueRef c = LLVMBuildAnd(
      b, LLVMBuildFCmp(b, up ? LLVMRealOGT : LLVMRealOLT, x, LLVMConstNull(t), ""),
      LLVMBuildFCmp(b, up ? LLVMRealOLT : LLVMRealOGT, x, tiny, ""), "");
   LLVMSetOperand(call, 0, LLVMBuildSelect(b, c, tiny, x, ""));
}

/* nan(nancode) is a quiet NaN (§6.12.2); libclc's ORs the code into the
 * exponent's bits alone, so nan(0) was an infinity.  Here: the quiet
 * NaN's bits with the code in the rest of the significand. */
static void fix_nan(LLVMBuilderRef b, LLVMValueRef call)
{
   LLVMValueRef code = LLVMGetOperand(call, 0);
   LLVMTypeRef it = LLVMTypeOf(code), e = element_type(it);
   bool wide = LLVMGetIntTypeWidth(e) == 64;
   unsigned long long quiet = wide ? 0x7ff8000000000000ULL : 0x7fc00000ULL;
   unsigned long long payload = wide ? 0x000fffffffffffffULL : 0x007fffffULL;
   LLVMPositionBuilderBefore(b, call);
   LLVMValueRef bits =
      LLVMBuildOr(b, LLVMBuildAnd(b, code, splat_const(it, LLVMConstInt(e, payload, 0)), ""),
                  splat_const(it, LLVMConstInt(e, quiet, 0)), "");
   LLVMReplaceAllUsesWith(call, LLVMBuildBitCast(b, bits, LLVMTypeOf(call), ""));
   LLVMInstructionEraseFromParent(call);
}

static bool ends_with(const char *s, const char *suffix)
{
   size_t n = strlen(s), k = strlen(suffix);
   return n >= k && !strcmp(s + n - k, suffix);
}

enum libclc_fix {
   FIX_NONE,
   FIX_FRACT,
   FIX_SINPI,
   FIX_LDEXP,
   FIX_LDEXP_DOUBLE,
   FIX_HALF_UP,
   FIX_HALF_DOWN,
   FIX_TAN,
   FIX_NAN,
   FIX_COSPI,
   FIX_TANPI,
   FIX_NAN_ARG,
   FIX_FREXP,
   FIX_ERFC
};

/* Which fix the built-in base(np parameters, the first's elements k) needs. */
static enum libclc_fix fix_for(const char *base, unsigned np, LLVMTypeKind k)
{
   if (!strcmp(base, "nan") && np == 1 && k == LLVMIntegerTypeKind)
      return FIX_NAN;
   bool f32 = k == LLVMFloatTypeKind;
   if (!f32 && k != LLVMDoubleTypeKind)
      return FIX_NONE;
   if (!strcmp(base, "fract") && np == 2)
      return FIX_FRACT;
   if (!strcmp(base, "sinpi") && np == 1)
      return FIX_SINPI;
   if (!strcmp(base, "cospi") && np == 1)
      return FIX_COSPI;
   if (!strcmp(base, "tanpi") && np == 1)
      return FIX_TANPI;
   if ((!strcmp(base, "acospi") || !strcmp(base, "sinh") || !strcmp(base, "cosh")) && np == 1)
      return FIX_NAN_ARG;
   if (!strcmp(base, "frexp") && np == 2)
      return FIX_FREXP;
   if (!strcmp(base, "erfc") && np == 1 && !f32)
      return FIX_ERFC;
   if (!strcmp(base, "ldexp") && np == 2)
      return f32 ? FIX_LDEXP : FIX_LDEXP_DOUBLE;
   if (!strcmp(base, "native_tan") && np == 1 && f32)
      return FIX_TAN; /* libclc's is sin.approx / cos.approx */
   if (!strncmp(base, "vstore", 6) && np == 3 && ends_with(base, "_rtp"))
      return FIX_HALF_UP;
   if (!strncmp(base, "vstore", 6) && np == 3 && ends_with(base, "_rtn"))
      return FIX_HALF_DOWN;
   return FIX_NONE;
}

void kiln_nvptx_fix_libclc_results(LLVMModuleRef m)
{
   LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
      size_t len;
      char base[24];
      LLVMTypeRef fnty = LLVMGlobalGetValueType(fn), params[3];
      unsigned np = LLVMCountParamTypes(fnty);
      if (!np || np > 3 || !builtin_base(LLVMGetValueName2(fn, &len), base, sizeof(base)))
         continue;
      LLVMGetParamTypes(fnty, params);
      enum libclc_fix fix = fix_for(base, np, LLVMGetTypeKind(element_type(params[0])));
      if (fix == FIX_NONE)
         continue;
      unsigned n;
      LLVMValueRef *calls = calls_of(fn, &n);
      for (unsigned i = 0; i < n; i++) {
         switch (fix) {
         case FIX_FRACT:
            fix_fract(b, calls[i]);
            break;
         case FIX_SINPI:
            fix_sinpi(m, b, calls[i]);
            break;
         case FIX_LDEXP:
            fix_ldexp_float(b, calls[i]);
            break;
         case FIX_LDEXP_DOUBLE:
            fix_ldexp_double(b, calls[i]);
            break;
         case FIX_HALF_UP:
         case FIX_HALF_DOWN:
            fix_half_rounding(b, calls[i], fix == FIX_HALF_UP);
            break;
         case FIX_TAN:
            replace_call(m, b, calls[i], "tan");
            break;
         case FIX_NAN:
            fix_nan(b, calls[i]);
            break;
         case FIX_COSPI:
            fix_cospi(b, calls[i]);
            break;
         case FIX_TANPI:
            fix_tanpi(m, b, calls[i]);
            break;
         case FIX_NAN_ARG:
            fix_nan_arg(b, calls[i]);
            break;
         case FIX_FREXP:
            fix_frexp(b, calls[i]);
            break;
         case FIX_ERFC:
            fix_erfc(b, calls[i]);
            break;
         case FIX_NONE:
            break;
         }
      }
      kiln_free(calls); /* out of memory: libclc's results stay */
   }
   LLVMDisposeBuilder(b);
}

bool kiln_nvptx_check_selectable(LLVMModuleRef m, struct kiln_build_log *log)
{
   bool ok = true;
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
      size_t len;
      char op[32];
      const char *name = LLVMGetValueName2(fn, &len);
      if (LLVMGetFirstBasicBlock(fn) || !intrinsic_base(name, op, sizeof(op)) ||
          !in_list(op, unselectable, COUNT(unselectable)))
         continue;
      for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u)) {
         LLVMValueRef user = LLVMGetUser(u);
         if (!LLVMIsAInstruction(user))
            continue;
         size_t flen;
         const char *in = LLVMGetValueName2(
            LLVMGetBasicBlockParent(LLVMGetInstructionParent(user)), &flen);
         kiln_build_log_append(log,
                               "error: '%s' uses %s, which LLVM's NVPTX code generator cannot "
                               "compile for NVIDIA GPUs (a __builtin_ math function? call the "
                               "OpenCL built-in, e.g. %s() or native_%s(), instead)\n",
                               in, name, op, op);
         ok = false;
         break; /* once per intrinsic */
      }
   }
   return ok;
}
