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
LIBM1(cbrt)
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
