/* §6.11.2 math functions that are thin wrappers around the C library.
 *
 * glibc's float functions (2.28+) stay within 1-3 ulp for these (tgammaf up
 * to ~8, lgammaf large only near its zeros, where OpenCL sets no bound), well
 * inside OpenCL 1.1's §7.4 limits (3-16 ulp), and they handle inf, NaN, -0
 * and denormals as C99 Annex F does, which is what §7.5 asks for.  The
 * double forms use the double functions likewise.  tests/builtins measures
 * the float errors against a double-precision reference.
 */
#include "kiln_cl.h"

#define LIBM1(NAME) \
  LIBM_DECL(float, NAME##f, float); \
  LIBM_DECL(double, NAME, double); \
  OVL float NAME(float x) { return kiln_libm_##NAME##f(x); } \
  OVL double NAME(double x) { return kiln_libm_##NAME(x); } \
  SPLIT1(float, float, NAME) \
  SPLIT1(double, double, NAME)

#define LIBM2(NAME) \
  LIBM_DECL(float, NAME##f, float, float); \
  LIBM_DECL(double, NAME, double, double); \
  OVL float NAME(float x, float y) { return kiln_libm_##NAME##f(x, y); } \
  OVL double NAME(double x, double y) { return kiln_libm_##NAME(x, y); } \
  SPLIT2(float, float, float, NAME) \
  SPLIT2(double, double, double, NAME)

LIBM1(acos)
LIBM1(acosh)
LIBM1(asin)
LIBM1(asinh)
LIBM1(atan)
LIBM1(atanh)
LIBM1(cos)
LIBM1(cosh)
LIBM1(erf)
LIBM1(erfc)
LIBM1(exp)
LIBM1(exp2)
LIBM1(exp10)
LIBM1(expm1)
LIBM1(log)
LIBM1(log2)
LIBM1(log10)
LIBM1(log1p)
LIBM1(logb)
LIBM1(sin)
LIBM1(sinh)
LIBM1(tan)
LIBM1(tanh)
LIBM1(tgamma)
LIBM1(lgamma)

LIBM2(atan2)
LIBM2(fmod)
LIBM2(hypot)
LIBM2(pow)
LIBM2(remainder)
LIBM2(nextafter)
LIBM2(fdim)

/* cbrt: glibc's float cbrtf is fine, but its double cbrt is up to ~2.02 ulp
 * off on large negative inputs (the CTS found -0x1.27p+961), over OpenCL's
 * limit of 2.  One Newton step on a residual computed exactly with fma
 * brings it to ~0.5 ulp.  The argument is first reduced to [0.5, 4) by a
 * multiple of 3 in the exponent so that nothing over- or underflows. */
LIBM_DECL(float, cbrtf, float);
LIBM_DECL(double, cbrt, double);
OVL float cbrt(float x) { return kiln_libm_cbrtf(x); }
OVL double cbrt(double x)
{
  if (x == 0.0 || isinf(x) || isnan(x))
    return x + x;                       /* keeps -0, quiets NaN */
  int e;
  double m = frexp(x, &e);              /* |m| in [0.5, 1) */
  int q = e >= 0 ? e / 3 : -((2 - e) / 3);
  m = ldexp(m, e - 3 * q);              /* e - 3q in {0, 1, 2} */
  double y = kiln_libm_cbrt(m);
  double y2 = y * y, y2e = fma(y, y, -y2);
  double y3 = y2 * y, y3e = fma(y2, y, -y3) + y2e * y;
  double r = (y3 - m) + y3e;            /* y^3 - m, nearly exact */
  return ldexp(y - r / (3.0 * y2), q);
}
SPLIT1(float, float, cbrt)
SPLIT1(double, double, cbrt)
