/* Single-precision exp, exp2, exp10, log, log2, log10, sin, cos, pow and rsqrt
 * for NVIDIA GPUs, in place of libclc-19's (linked before libclc, so a
 * kernel's calls bind here): libclc's run at 0.3-0.5x NVIDIA's own
 * OpenCL on an H200 (bench/math_bench).  The algorithms are
 * math_fast_f32.h's, whose errors tests/unit/test_math_fast_f32.c
 * measures on the host (1-1.5 ulp).  Arguments sin and cos cannot reduce
 * in double go to libclc's double functions; rsqrt refines PTX's
 * rsqrt.approx by one Newton step; exp2 is PTX's ex2.approx (2 ulp).
 * Double tgamma is math_tgamma_f64.h's (libclc's was 16-20 ulp off;
 * this one is within 0.53 ulp, tests/unit/test_math_tgamma_f64.c); float
 * tgamma is it, rounded, and float erfc libclc's double erfc, rounded. */
#include "kiln_cl.h"

#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define KM_FN static inline
#define KM_AS_INT as_int
#define KM_AS_FLOAT as_float
#define KM_FMAF fma
#define KM_FMA fma
#define KM_RINTF rint
#define KM_RINT rint
#define KM_SIN_WIDE(x) ((float)sin((double)(x)))
#define KM_COS_WIDE(x) ((float)cos((double)(x)))
#define KM_POW_WIDE(x, y) ((float)pow((double)(x), (double)(y)))
/* The flushing forms: the CUDA device reports no float denormals. */
#define KM_RSQRT_APPROX(x) __nvvm_rsqrt_approx_ftz_f(x)
#define KM_EX2_APPROX(x) __nvvm_ex2_approx_ftz_f(x)
#include "math_fast_f32.h"

#define KM_TABLE static __constant
#define KM_EXPONENT(d) ((int)(as_long(d) >> 52) & 0x7ff)
#define KM_POW2(k) as_double((long)((k) + 1023) << 52)
#include "math_tgamma_f64.h"

/* tgamma and erfc in float: libclc's float algorithms were 16.7-75 ulp
 * off near the poles at -8, -16, -32 (tgamma) and 47.9 ulp at 7.96
 * (erfc), past the limit of 16 (CTS test_bruteforce on the H200); the
 * double functions are right there, and rounding their result is.
 * Defined before this file declares float overloads of the same names:
 * inside `float erfc(float)` the call would find only that overload
 * (Clang adds the built-in declarations only to a lookup that finds
 * nothing) and recurse. */
KM_FN float km_tgammaf(float x)
{
   return (float)km_tgamma((double)x);
}

KM_FN float km_erfcf(float x)
{
   return (float)erfc((double)x);
}

#define FAST1(NAME)                                                                           \
   OVL float NAME(float x)                                                                    \
   {                                                                                          \
      return km_##NAME##f(x);                                                                 \
   }                                                                                          \
   SPLIT1(float, float, NAME)

FAST1(exp)
FAST1(exp2)
FAST1(exp10)
FAST1(log)
FAST1(log2)
FAST1(log10)
FAST1(sin)
FAST1(cos)
FAST1(rsqrt)
FAST1(tgamma)
FAST1(erfc)

OVL double tgamma(double x)
{
   return km_tgamma(x);
}
SPLIT1(double, double, tgamma)

OVL float pow(float x, float y)
{
   return km_powf(x, y);
}
SPLIT2(float, float, float, pow)
