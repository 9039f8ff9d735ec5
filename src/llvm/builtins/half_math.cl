/* The half (cl_khr_fp16) overloads of the §6.11.2 math, §6.11.4 common
 * and §6.11.5 geometric functions.
 *
 * Every half input is exact in float, so most functions evaluate the
 * float form (glibc's, or Kiln's own in double: within 0.5-3 float ulp)
 * and round once to half.  A float ulp is 2^-13 of a half ulp, so the
 * result is within 0.5 half ulp plus a negligible fraction (OpenCL's half
 * limits are 2-4 ulp, §7.4 of the 3.0 spec); +, -, *, / and sqrt are even
 * correctly rounded that way (24 >= 2 * 11 + 2 bits: the double rounding
 * is harmless).  fma goes through double instead: a*b is exact there and
 * the one rounded addition cannot land on a half midpoint that the exact
 * sum misses, which a float fma could.  Functions with exact results
 * (fabs, floor, fmin, copysign, ...) use LLVM's half intrinsics, which the
 * x86 back end also evaluates in float.
 */
#include "kiln_cl.h"

#define TOF(n, x) convert_float##n(x)
#define TOH(n, x) convert_half##n(x)

/* Clang declares a builtin's overloads from its tables only while the name
 * has no declaration of the file's own, so the float (and double) forms
 * called below, which other files define, are declared here before the
 * half ones. */

/* ---- in float, rounded once ---- */
#define H1(F, n) OVL float##n F(float##n); \
  OVL half##n F(half##n x) { return TOH(n, F(TOF(n, x))); }
#define H2(F, n) OVL float##n F(float##n, float##n); \
  OVL half##n F(half##n x, half##n y) { return TOH(n, F(TOF(n, x), TOF(n, y))); }
#define H2I(F, n) OVL float##n F(float##n, int##n); \
  OVL half##n F(half##n x, int##n k) { return TOH(n, F(TOF(n, x), k)); }

#define VIA_FLOAT(n) \
  H1(acos, n) H1(acosh, n) H1(acospi, n) H1(asin, n) H1(asinh, n) H1(asinpi, n) \
  H1(atan, n) H1(atanh, n) H1(atanpi, n) H1(cbrt, n) H1(cos, n) H1(cosh, n) \
  H1(cospi, n) H1(erf, n) H1(erfc, n) H1(exp, n) H1(exp2, n) H1(exp10, n) \
  H1(expm1, n) H1(log, n) H1(log2, n) H1(log10, n) H1(log1p, n) H1(logb, n) \
  H1(rsqrt, n) H1(sin, n) H1(sinh, n) H1(sinpi, n) H1(tan, n) H1(tanh, n) \
  H1(tanpi, n) H1(tgamma, n) H1(lgamma, n) \
  H2(atan2, n) H2(atan2pi, n) H2(fmod, n) H2(hypot, n) H2(pow, n) H2(powr, n) \
  H2(remainder, n) H2(fdim, n) \
  H2I(pown, n) H2I(rootn, n) H2I(ldexp, n) \
  /* ilogb of a half denormal is its true exponent, as float gives it. */ \
  OVL int##n ilogb(float##n); \
  OVL int##n ilogb(half##n x) { return ilogb(TOF(n, x)); } \
  /* Correctly rounded: see the top of the file. */ \
  OVL double##n fma(double##n, double##n, double##n); \
  OVL half##n fma(half##n a, half##n b, half##n c) { \
     return TOH(n, fma(convert_double##n(a), convert_double##n(b), convert_double##n(c))); }
FOR_WIDTHS(VIA_FLOAT)

#define LDEXP_BCAST(n) \
  OVL half##n ldexp(half##n x, int k) { return ldexp(x, (int##n)(k)); }
FOR_VWIDTHS(LDEXP_BCAST)

/* ---- exact results, computed in half ---- */
#define EXACT_H(n) \
  OVL half##n fabs(half##n x) { return __builtin_elementwise_abs(x); } \
  OVL half##n floor(half##n x) { return __builtin_elementwise_floor(x); } \
  OVL half##n ceil(half##n x) { return __builtin_elementwise_ceil(x); } \
  OVL half##n trunc(half##n x) { return __builtin_elementwise_trunc(x); } \
  OVL half##n rint(half##n x) { return __builtin_elementwise_rint(x); } \
  OVL half##n round(half##n x) { return __builtin_elementwise_round(x); } \
  OVL half##n sqrt(half##n x) { return __builtin_elementwise_sqrt(x); } \
  OVL half##n fmin(half##n x, half##n y) { return __builtin_elementwise_min(x, y); } \
  OVL half##n fmax(half##n x, half##n y) { return __builtin_elementwise_max(x, y); } \
  OVL half##n copysign(half##n x, half##n y) { return __builtin_elementwise_copysign(x, y); } \
  /* mad: any precision (§7.4); llvm.fmuladd fuses where that is fast. */ \
  OVL half##n mad(half##n a, half##n b, half##n c) { _Pragma("clang fp contract(on)") return a * b + c; } \
  OVL half##n maxmag(half##n x, half##n y) { \
     half##n ax = __builtin_elementwise_abs(x), ay = __builtin_elementwise_abs(y); \
     return ax > ay ? x : (ay > ax ? y : __builtin_elementwise_max(x, y)); } \
  OVL half##n minmag(half##n x, half##n y) { \
     half##n ax = __builtin_elementwise_abs(x), ay = __builtin_elementwise_abs(y); \
     return ax < ay ? x : (ay < ax ? y : __builtin_elementwise_min(x, y)); } \
  /* A quiet NaN carrying the code in its significand. */ \
  OVL half##n nan(ushort##n c) { return as_half##n((ushort##n)((c & (ushort)0x01ff) | (ushort)0x7e00)); }
FOR_WIDTHS(EXACT_H)

#define MINMAX_BCAST(n) \
  OVL half##n fmin(half##n x, half y) { return fmin(x, (half##n)y); } \
  OVL half##n fmax(half##n x, half y) { return fmax(x, (half##n)y); }
FOR_VWIDTHS(MINMAX_BCAST)

/* nextafter steps one half ulp, which float cannot do. */
OVL half nextafter(half x, half y)
{
   if (x != x || y != y)
      return x + y;
   if (x == y)
      return y;
   short b = as_short(x);
   if (x == 0)                              /* the smallest denormal, y's side */
      return as_half((short)((as_short(y) & (short)0x8000) | 1));
   /* Away from zero when y is further out on x's side, else toward it. */
   bool away = (x < y) == (x > 0);
   return as_half((short)(away ? b + 1 : b - 1));
}
SPLIT2(half, half, half, nextafter)

/* ---- pointer outputs (__private here; kiln_cl.h's families add the rest) ---- */
OVL float frexp(float, __private int *);
OVL float lgamma_r(float, __private int *);
OVL float remquo(float, float, __private int *);
OVL float modf(float, __private float *);
OVL float sincos(float, __private float *);
OVL float fract(float, __private float *);
OVL half frexp(half x, __private int *e) { return (half)frexp((float)x, e); }
OVL half lgamma_r(half x, __private int *s) { return (half)lgamma_r((float)x, s); }
OVL half remquo(half x, half y, __private int *q) { return (half)remquo((float)x, (float)y, q); }
OVL half modf(half x, __private half *i)
{
   float fi;
   half f = (half)modf((float)x, &fi);
   *i = (half)fi;                          /* exact: an integral part of a half */
   return f;
}
OVL half sincos(half x, __private half *c)
{
   float fc;
   half s = (half)sincos((float)x, &fc);
   *c = (half)fc;
   return s;
}
/* fract's float result can be 1 - 2^-24 (for -2^-24), which rounds to 1
 * in half: the largest half below 1 is the limit then (NaN passes). */
OVL half fract(half x, __private half *i)
{
   float fi;
   half f = (half)fract((float)x, &fi);
   *i = (half)fi;
   return f >= (half)1 ? 0x1.ffcp-1h : f;
}
PTR_FAMILY(half, half, int, frexp)
PTR_FAMILY(half, half, half, modf)
PTR_FAMILY(half, half, half, fract)
PTR_FAMILY(half, half, int, lgamma_r)
PTR_FAMILY(half, half, half, sincos)
PTR2_FAMILY(half, half, int, remquo)

/* ---- §6.11.4 common functions ---- */
#define COMMON_H(n) \
  OVL float##n degrees(float##n); \
  OVL float##n radians(float##n); \
  OVL float##n mix(float##n, float##n, float##n); \
  OVL float##n smoothstep(float##n, float##n, float##n); \
  OVL half##n max(half##n x, half##n y) { return __builtin_elementwise_max(x, y); } \
  OVL half##n min(half##n x, half##n y) { return __builtin_elementwise_min(x, y); } \
  OVL half##n clamp(half##n x, half##n lo, half##n hi) { \
     return __builtin_elementwise_min(__builtin_elementwise_max(x, lo), hi); } \
  OVL half##n step(half##n edge, half##n x) { return x < edge ? (half##n)0 : (half##n)1; } \
  OVL half##n sign(half##n x) { \
     return x > (half##n)0 ? (half##n)1 : (x < (half##n)0 ? (half##n)-1 : (x == x ? x : (half##n)0)); } \
  /* The constants and the intermediate results are float's. */ \
  OVL half##n degrees(half##n r) { return TOH(n, degrees(TOF(n, r))); } \
  OVL half##n radians(half##n d) { return TOH(n, radians(TOF(n, d))); } \
  OVL half##n mix(half##n x, half##n y, half##n a) { return TOH(n, mix(TOF(n, x), TOF(n, y), TOF(n, a))); } \
  OVL half##n smoothstep(half##n e0, half##n e1, half##n x) { \
     return TOH(n, smoothstep(TOF(n, e0), TOF(n, e1), TOF(n, x))); }
FOR_WIDTHS(COMMON_H)

#define COMMON_BCAST_H(n) \
  OVL half##n max(half##n x, half y) { return max(x, (half##n)y); } \
  OVL half##n min(half##n x, half y) { return min(x, (half##n)y); } \
  OVL half##n clamp(half##n x, half lo, half hi) { return clamp(x, (half##n)lo, (half##n)hi); } \
  OVL half##n mix(half##n x, half##n y, half a) { return mix(x, y, (half##n)a); } \
  OVL half##n step(half edge, half##n x) { return step((half##n)edge, x); } \
  OVL half##n smoothstep(half e0, half e1, half##n x) { return smoothstep((half##n)e0, (half##n)e1, x); }
FOR_VWIDTHS(COMMON_BCAST_H)

/* ---- §6.11.5 geometric functions, float's (sums of squares in double) ---- */
#define GEO_H(n) \
  OVL float dot(float##n, float##n); \
  OVL float length(float##n); \
  OVL float distance(float##n, float##n); \
  OVL float##n normalize(float##n); \
  OVL half dot(half##n a, half##n b) { return (half)dot(TOF(n, a), TOF(n, b)); } \
  OVL half length(half##n p) { return (half)length(TOF(n, p)); } \
  OVL half distance(half##n a, half##n b) { return (half)distance(TOF(n, a), TOF(n, b)); } \
  OVL half##n normalize(half##n p) { return TOH(n, normalize(TOF(n, p))); }
GEO_H()
GEO_H(2)
GEO_H(3)
GEO_H(4)

OVL float3 cross(float3, float3);
OVL float4 cross(float4, float4);
OVL half3 cross(half3 a, half3 b) { return TOH(3, cross(TOF(3, a), TOF(3, b))); }
OVL half4 cross(half4 a, half4 b) { return TOH(4, cross(TOF(4, a), TOF(4, b))); }
