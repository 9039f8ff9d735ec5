/* §6.11.2 math functions with exact (0 ulp) results: rounding, min/max,
 * sign and exponent manipulation.  Where LLVM has an element-wise intrinsic
 * (llvm.floor, llvm.minnum, ...) the vector forms use it directly so they
 * stay single vector instructions; the rest go through libm or bit tricks.
 */
#include "kiln_cl.h"

/* One definition serves scalars and every vector width. */
#define EW1(T, NAME, B) OVL T NAME(T x) { return B(x); }
#define EW2(T, NAME, B) OVL T NAME(T x, T y) { return B(x, y); }
#define EW3(T, NAME, B) OVL T NAME(T x, T y, T z) { return B(x, y, z); }

#define EXACT(T, n) \
  EW1(T##n, fabs, __builtin_elementwise_abs) \
  EW1(T##n, floor, __builtin_elementwise_floor) \
  EW1(T##n, ceil, __builtin_elementwise_ceil) \
  EW1(T##n, trunc, __builtin_elementwise_trunc) \
  EW1(T##n, rint, __builtin_elementwise_rint) \
  EW1(T##n, round, __builtin_elementwise_round) \
  EW1(T##n, sqrt, __builtin_elementwise_sqrt) \
  EW2(T##n, fmin, __builtin_elementwise_min) \
  EW2(T##n, fmax, __builtin_elementwise_max) \
  EW2(T##n, copysign, __builtin_elementwise_copysign) \
  EW3(T##n, fma, __builtin_elementwise_fma) \
  /* mad may be fused or not (any precision, §7.4): llvm.fmuladd lets the \
   * backend use FMA only where it is fast. */ \
  OVL T##n mad(T##n a, T##n b, T##n c) { _Pragma("clang fp contract(on)") return a * b + c; } \
  /* maxmag/minmag: the larger/smaller magnitude, fmax/fmin on ties. */ \
  OVL T##n maxmag(T##n x, T##n y) { \
     T##n ax = __builtin_elementwise_abs(x), ay = __builtin_elementwise_abs(y); \
     return ax > ay ? x : (ay > ax ? y : __builtin_elementwise_max(x, y)); } \
  OVL T##n minmag(T##n x, T##n y) { \
     T##n ax = __builtin_elementwise_abs(x), ay = __builtin_elementwise_abs(y); \
     return ax < ay ? x : (ay < ax ? y : __builtin_elementwise_min(x, y)); }

#define EXACT_F(n) EXACT(float, n)
#define EXACT_D(n) EXACT(double, n)
FOR_WIDTHS(EXACT_F)
FOR_WIDTHS(EXACT_D)

BCAST2(float, float, float, fmin)
BCAST2(float, float, float, fmax)
BCAST2(double, double, double, fmin)
BCAST2(double, double, double, fmax)

/* nan(nancode): a quiet NaN carrying the code in its significand. */
#define NANF(n) OVL float##n nan(uint##n c) { return as_float##n((c & 0x003fffffu) | 0x7fc00000u); }
#define NAND(n) OVL double##n nan(ulong##n c) { \
     return as_double##n((c & 0x0007ffffffffffffUL) | 0x7ff8000000000000UL); }
FOR_WIDTHS(NANF)
FOR_WIDTHS(NAND)

/* ldexp is exact in libm, denormal results included. */
LIBM_DECL(float, ldexpf, float, int);
LIBM_DECL(double, ldexp, double, int);
OVL float ldexp(float x, int k) { return kiln_libm_ldexpf(x, k); }
OVL double ldexp(double x, int k) { return kiln_libm_ldexp(x, k); }
SPLIT2(float, float, int, ldexp)
SPLIT2(double, double, int, ldexp)
BCAST2(float, float, int, ldexp)
BCAST2(double, double, int, ldexp)

/* ilogb: OpenCL's FP_ILOGB0/FP_ILOGBNAN are INT_MIN/INT_MAX, glibc's NaN
 * value is INT_MIN, so zero, NaN and inf are decided here. */
LIBM_DECL(int, ilogbf, float);
LIBM_DECL(int, ilogb, double);
OVL int ilogb(float x)
{
   if (x != x) return FP_ILOGBNAN;
   if (x == 0) return FP_ILOGB0;
   if (__builtin_isinf(x)) return INT_MAX;
   return kiln_libm_ilogbf(x);
}
OVL int ilogb(double x)
{
   if (x != x) return FP_ILOGBNAN;
   if (x == 0) return FP_ILOGB0;
   if (__builtin_isinf(x)) return INT_MAX;
   return kiln_libm_ilogb(x);
}
SPLIT1(int, float, ilogb)
SPLIT1(int, double, ilogb)
