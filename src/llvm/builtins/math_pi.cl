/* §6.11.2 functions the C library lacks (the *pi family, pown, rootn, powr,
 * rsqrt).  The float forms are computed in double and rounded once, which
 * keeps them within ~1 ulp (limits: 4-16 ulp).  The double forms use the
 * same reductions in double.
 */
#include "kiln_cl.h"

LIBM_DECL(double, sin, double);
LIBM_DECL(double, cos, double);
LIBM_DECL(double, acos, double);
LIBM_DECL(double, asin, double);
LIBM_DECL(double, atan, double);
LIBM_DECL(double, atan2, double, double);
LIBM_DECL(double, pow, double, double);
LIBM_DECL(double, fmod, double, double);

#define M_1_PI_D 0.318309886183790671537767526745028724
#define M_PI_D 3.14159265358979323846264338327950288

/* sin(pi*x) for any finite x: fmod by 2 is exact, and folding into
 * [-0.5, 0.5] with sin(pi - t) = sin(t) is exact too (Sterbenz), so the only
 * rounding is in pi*r and in sin itself; integers give exactly +-0. */
__attribute__((internal_linkage)) double sinpi_d(double x)
{
   double r = kiln_libm_fmod(x, 2.0);           /* (-2, 2), sign of x */
   if (r > 1.0) r -= 2.0;
   else if (r < -1.0) r += 2.0;                 /* [-1, 1] */
   if (r > 0.5) r = 1.0 - r;
   else if (r < -0.5) r = -1.0 - r;             /* [-0.5, 0.5] */
   double s = kiln_libm_sin(M_PI_D * r);
   return s == 0.0 ? __builtin_copysign(0.0, x) : s;
}

/* cos(pi*x) = sin(pi*(0.5 - |r|)), so that cospi(n + 0.5) is exactly +0. */
__attribute__((internal_linkage)) double cospi_d(double x)
{
   double r = kiln_libm_fmod(__builtin_fabs(x), 2.0);   /* [0, 2) */
   if (r > 1.0) r = 2.0 - r;                            /* [0, 1] */
   double t = 0.5 - r;                                  /* [-0.5, 0.5] */
   double c = kiln_libm_sin(M_PI_D * t);
   return c == 0.0 ? 0.0 : c;
}

/* tanpi = sinpi / cospi gets the §7.5 special values for free: +-inf with
 * the right sign at n + 0.5 and copysign(0, +-x) at even/odd integers. */
__attribute__((internal_linkage)) double tanpi_d(double x)
{
   return sinpi_d(x) / cospi_d(x);
}

OVL float sinpi(float x) { return (float)sinpi_d(x); }
OVL float cospi(float x) { return (float)cospi_d(x); }
OVL float tanpi(float x) { return (float)tanpi_d(x); }
OVL double sinpi(double x) { return sinpi_d(x); }
OVL double cospi(double x) { return cospi_d(x); }
OVL double tanpi(double x) { return tanpi_d(x); }

/* Inverse functions divided by pi.  For float the double quotient rounds
 * once; for double it costs ~1 extra ulp (limit 5/6). */
OVL float acospi(float x) { return (float)(kiln_libm_acos(x) * M_1_PI_D); }
OVL float asinpi(float x) { return (float)(kiln_libm_asin(x) * M_1_PI_D); }
OVL float atanpi(float x) { return (float)(kiln_libm_atan(x) * M_1_PI_D); }
OVL float atan2pi(float y, float x) { return (float)(kiln_libm_atan2(y, x) * M_1_PI_D); }
OVL double acospi(double x) { return kiln_libm_acos(x) * M_1_PI_D; }
OVL double asinpi(double x) { return kiln_libm_asin(x) / M_PI_D; }
OVL double atanpi(double x) { return kiln_libm_atan(x) / M_PI_D; }
OVL double atan2pi(double y, double x) { return kiln_libm_atan2(y, x) / M_PI_D; }

/* pown: C's pow already has the special cases pown needs for integral y. */
OVL float pown(float x, int n) { return (float)kiln_libm_pow(x, (double)n); }
OVL double pown(double x, int n) { return kiln_libm_pow(x, (double)n); }

/* powr: pow restricted to x >= 0, with its own special values (§7.5). */
#define POWR_BODY(T, POWCALL) \
   if (x != x || y != y) return x + y; \
   if (x == 0) return y == 0 ? (T)NAN : (y < 0 ? (T)INFINITY : (T)0); \
   if (x < 0) return (T)NAN; \
   if (__builtin_isinf(x)) return y == 0 ? (T)NAN : (y < 0 ? (T)0 : (T)INFINITY); \
   if (x == 1) return __builtin_isinf(y) ? (T)NAN : (T)1; \
   return POWCALL;
OVL float powr(float x, float y) { POWR_BODY(float, (float)kiln_libm_pow(x, y)) }
OVL double powr(double x, double y) { POWR_BODY(double, kiln_libm_pow(x, y)) }

/* rootn: x^(1/n).  NaN for n == 0 and for x < 0 with even n; an odd root
 * of a negative number is -(|x|^(1/n)); pow gives the +-0 and inf cases once
 * the sign is put back. */
OVL float rootn(float x, int n)
{
   if (n == 0 || (x < 0 && (n & 1) == 0)) return NAN;
   double r = kiln_libm_pow(__builtin_fabs((double)x), 1.0 / (double)n);
   return (float)((n & 1) ? __builtin_copysign(r, (double)x) : r);
}

/* For double, 1.0/n carries a relative error that pow multiplies by
 * |log x| (up to ~745), hundreds of ulps.  So x = m * 2^e is split as
 * y * 2^(q*n) with q = e/n and y = m * 2^(e - q*n) (exact: same significand),
 * and the root is y^(1/n) * 2^q, where |log y| < n log 2 keeps pow's error
 * near 1 ulp. */
OVL double rootn(double x, int n)
{
   if (n == 0 || (x < 0 && (n & 1) == 0)) return NAN;
   double ax = __builtin_fabs(x), r;
   if (ax == 0 || __builtin_isinf(ax) || ax != ax) {
      r = kiln_libm_pow(ax, 1.0 / (double)n);
   } else {
      int e;
      double m = frexp(ax, &e);
      int q = e / n;
      r = ldexp(kiln_libm_pow(ldexp(m, e - q * n), 1.0 / (double)n), q);
   }
   return (n & 1) ? __builtin_copysign(r, x) : r;
}

OVL float rsqrt(float x) { return (float)(1.0 / __builtin_sqrt((double)x)); }
OVL double rsqrt(double x) { return 1.0 / __builtin_sqrt(x); }

#define PI_VECTORS(T, I) \
  SPLIT1(T, T, sinpi) SPLIT1(T, T, cospi) SPLIT1(T, T, tanpi) \
  SPLIT1(T, T, acospi) SPLIT1(T, T, asinpi) SPLIT1(T, T, atanpi) \
  SPLIT2(T, T, T, atan2pi) SPLIT2(T, T, I, pown) SPLIT2(T, T, T, powr) \
  SPLIT2(T, T, I, rootn) SPLIT1(T, T, rsqrt)
PI_VECTORS(float, int)
PI_VECTORS(double, int)
