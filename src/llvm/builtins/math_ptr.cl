/* §6.11.2 math functions with a pointer output (frexp, modf, fract, remquo,
 * lgamma_r, sincos) in the three address spaces OpenCL 1.1 allows.  Only the
 * scalar __private form computes; kiln_cl.h's PTR_FAMILY derives the rest.
 */
#include "kiln_cl.h"

/* Not const: they write through the pointer. */
float kiln_libm_frexpf(float, int *) __asm__("frexpf");
double kiln_libm_frexp(double, int *) __asm__("frexp");
float kiln_libm_modff(float, float *) __asm__("modff");
double kiln_libm_modf(double, double *) __asm__("modf");
float kiln_libm_lgammaf_r(float, int *) __asm__("lgammaf_r");
double kiln_libm_lgamma_r(double, int *) __asm__("lgamma_r");
LIBM_DECL(double, fmod, double, double);
LIBM_DECL(double, remainder, double, double);
LIBM_DECL(float, remainderf, float, float);

OVL float frexp(float x, __private int *e) { return kiln_libm_frexpf(x, e); }
OVL double frexp(double x, __private int *e) { return kiln_libm_frexp(x, e); }
OVL float modf(float x, __private float *i) { return kiln_libm_modff(x, i); }
OVL double modf(double x, __private double *i) { return kiln_libm_modf(x, i); }
OVL float lgamma_r(float x, __private int *s) { return kiln_libm_lgammaf_r(x, s); }
OVL double lgamma_r(double x, __private int *s) { return kiln_libm_lgamma_r(x, s); }
/* remquo: OpenCL wants the low 7 bits of the quotient (glibc gives 3).
 * The quotient n (nearest x/y, ties to even) is taken modulo 128 from
 * x' = fmod(|x|, 128|y|), which keeps its parity and so its rounding:
 * n mod 128 = (x' - remainder(x', |y|)) / |y|, an integer below 129 that the
 * division gets exactly (the subtraction's error is far below |y|/2).  When
 * 128|y| overflows, |x| is already below it. */
__attribute__((internal_linkage)) int quo7(double x, double y)
{
   double ax = __builtin_fabs(x), ay = __builtin_fabs(y);
   if (x != x || y != y || ay == 0 || __builtin_isinf(ax) || __builtin_isinf(ay))
      return 0;
   double m = 128.0 * ay;
   double xr = ax;
   if (__builtin_isinf(m)) {
      /* |y| >= 2^1016: scale both by 1/8 (exact for |x| of that size; a
       * |x| small enough to lose bits is far below |y|/2, quotient 0), so
       * that xr - remainder, up to 2|y|, cannot overflow. */
      xr *= 0.125;
      ay *= 0.125;
   } else {
      xr = kiln_libm_fmod(ax, m);
   }
   int n = (int)__builtin_rint((xr - kiln_libm_remainder(xr, ay)) / ay) & 127;
   return (x < 0) != (y < 0) ? -n : n;
}
OVL float remquo(float x, float y, __private int *q)
{
   *q = quo7(x, y);                   /* float operands are exact in double */
   return kiln_libm_remainderf(x, y);
}
OVL double remquo(double x, double y, __private int *q)
{
   *q = quo7(x, y);
   return kiln_libm_remainder(x, y);
}

/* fract(x) = fmin(x - floor(x), largest value below 1).  Derived from modf
 * so that inf gives (+-0, iptr = +-inf) and NaN gives (NaN, NaN) as §7.5
 * asks; x - floor(x) would turn inf into NaN. */
#define FRACT(T, ONE_MINUS) \
  OVL T fract(T x, __private T *iptr) \
  { \
     T i; \
     T f = modf(x, &i); \
     /* x - floor(x) is +0 for negative integers, where modf gives -0. */ \
     if (f == 0 && x < 0 && !isinf(x)) \
        f = 0; \
     if (f < 0) { \
        f = 1 + f; \
        i -= 1; \
        if (f >= 1) f = ONE_MINUS; \
     } \
     *iptr = i; \
     return f; \
  }
FRACT(float, 0x1.fffffep-1f)
FRACT(double, 0x1.fffffffffffffp-1)

#define SINCOS(T) \
  OVL T sincos(T x, __private T *c) { *c = cos(x); return sin(x); }
SINCOS(float)
SINCOS(double)

#define PTR_FUNCS(T) \
  PTR_FAMILY(T, T, int, frexp) \
  PTR_FAMILY(T, T, T, modf) \
  PTR_FAMILY(T, T, T, fract) \
  PTR_FAMILY(T, T, int, lgamma_r) \
  PTR_FAMILY(T, T, T, sincos) \
  PTR2_FAMILY(T, T, int, remquo)
PTR_FUNCS(float)
PTR_FUNCS(double)
