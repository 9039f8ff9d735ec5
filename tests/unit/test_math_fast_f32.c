/* The NVPTX library's single-precision exp, log, sin, cos and rsqrt
 * (src/llvm/builtins/math_fast_f32.h), run on the host: their fused
 * multiply-adds and roundings are IEEE operations that give the GPU's
 * results bit for bit (but for flushed denormals), so their errors are
 * measured here against the double-precision C library, on every float
 * bit pattern class (random bits: every exponent) and on dense samples
 * of the ranges kernels use, plus the special values of OpenCL C §7.5.
 * The limits are §7.4's: 3 ulp (exp, log families), 4 (sin, cos), 2
 * (rsqrt). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

static inline int as_int(float f)
{
   int i;
   memcpy(&i, &f, 4);
   return i;
}

static inline float as_float(int i)
{
   float f;
   memcpy(&f, &i, 4);
   return f;
}

#define KM_FN static inline
#define KM_AS_INT as_int
#define KM_AS_FLOAT as_float
#define KM_FMAF fmaf
#define KM_FMA fma
#define KM_RINTF rintf
#define KM_RINT rint
#define KM_SIN_WIDE(x) ((float)sin((double)(x)))
#define KM_COS_WIDE(x) ((float)cos((double)(x)))
#define KM_POW_WIDE(x, y) ((float)pow((double)(x), (double)(y)))
/* The GPU's rsqrt.approx is good to 2^-22.9: model it as the exact value
 * off by that much, so the Newton step is tested on a realistic input. */
#define KM_RSQRT_APPROX(x) ((float)((1.0 / sqrt((double)(x))) * (1.0 + 0x1p-23)))
/* exp2 is the GPU's ex2.approx itself: its accuracy is the hardware's
 * (CTS test_bruteforce on the GPU checks it), not tested here. */
#define KM_EX2_APPROX(x) exp2f(x)
#include "llvm/builtins/math_fast_f32.h"

/* got's error in ulps of the float nearest want (want finite); results
 * below FLT_MIN count against FLT_MIN's ulp (a device may flush them). */
static double ulps(float got, double want)
{
   double a = fabs(want);
   if (a < 0x1p-126)
      a = 0x1p-126;
   int e;
   frexp(a, &e);
   return fabs((double)got - want) / ldexp(1.0, e - 24);
}

struct check {
   const char *name;
   float (*fast)(float);
   double (*ref)(double);
   double limit;
   float lo, hi; /* a range kernels use, sampled densely */
};

static double ref_exp10(double x)
{
   return pow(10.0, x);
}

static double ref_rsqrt(double x)
{
   return 1.0 / sqrt(x);
}

static uint32_t seed = 2463534242u;
static uint32_t next(void)
{
   seed ^= seed << 13;
   seed ^= seed >> 17;
   seed ^= seed << 5;
   return seed;
}

/* Max error over random bit patterns and the dense range; NaN, inf and 0
 * results compared exactly. */
static double worst(const struct check *c, float *where)
{
   double max = 0;
   for (int i = 0; i < 4000000; i++) {
      float x = i & 1 ? as_float((int)next()) : c->lo + (c->hi - c->lo) * (next() >> 8) * 0x1p-24f;
      double want = c->ref((double)x);
      float got = c->fast(x);
      if (isnan(want)) {
         if (!isnan(got)) {
            *where = x;
            return INFINITY;
         }
         continue;
      }
      if (fabs(want) >= 0x1.ffffffp127) { /* rounds to infinity in float */
         if (!isinf(got) || (got > 0) != (want > 0)) {
            *where = x;
            return INFINITY;
         }
         continue;
      }
      double u = ulps(got, want);
      if (u > max) {
         max = u;
         *where = x;
      }
   }
   return max;
}

static void check_fn(const struct check *c)
{
   float where = 0;
   double u = worst(c, &where);
   printf("# %-6s max %.3f ulp (at %a), limit %.0f\n", c->name, u, where, c->limit);
   if (!(u <= c->limit))
      fail_msg("%s: %.3f ulp at %a (got %a, want %a)", c->name, u, where, c->fast(where),
               c->ref(where));
}

static void test_exp_family(void **state)
{
   (void)state;
   const struct check cs[] = {
      {"exp", km_expf, exp, 3, -90, 90},
      {"exp10", km_exp10f, ref_exp10, 3, -40, 40},
   };
   for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++)
      check_fn(&cs[i]);
   assert_true(km_expf(INFINITY) == INFINITY && km_expf(-INFINITY) == 0.0f);
   assert_true(isnan(km_expf(NAN)) && isnan(km_exp10f(NAN)));
   assert_true(km_expf(0.0f) == 1.0f && km_exp10f(0.0f) == 1.0f);
   assert_true(km_expf(89.0f) == INFINITY && km_expf(-110.0f) == 0.0f);
   assert_true(km_exp10f(3.0f) == 1000.0f && km_expf(1.0f) == 0x1.5bf0a8p+1f);
}

static void test_log_family(void **state)
{
   (void)state;
   const struct check cs[] = {
      {"log", km_logf, log, 3, 0.001f, 1000},
      {"log2", km_log2f, log2, 3, 0.5f, 2},
      {"log10", km_log10f, log10, 3, 1e-5f, 1e5f},
   };
   for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++)
      check_fn(&cs[i]);
   assert_true(km_logf(0.0f) == -INFINITY && km_log2f(-0.0f) == -INFINITY);
   assert_true(isnan(km_logf(-1.0f)) && isnan(km_log10f(NAN)) && isnan(km_log2f(-INFINITY)));
   assert_true(km_logf(INFINITY) == INFINITY && km_logf(1.0f) == 0.0f);
   assert_true(km_log2f(8.0f) == 3.0f && km_log10f(1000.0f) == 3.0f);
   assert_true(signbit(km_log10f(1.0f)) == 0);
}

static void test_sin_cos(void **state)
{
   (void)state;
   const struct check cs[] = {
      {"sin", km_sinf, sin, 4, -100, 100},
      {"cos", km_cosf, cos, 4, -100, 100},
   };
   for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++)
      check_fn(&cs[i]);
   /* Next to multiples of pi/2, where reduction loses most. */
   float where = 0;
   double max = 0;
   for (int k = -40000; k <= 40000; k += 7) {
      float m = (float)(k * 1.5707963267948966);
      for (int d = -3; d <= 3; d++) {
         float x = as_float(as_int(m) + d);
         double us = ulps(km_sinf(x), sin((double)x)), uc = ulps(km_cosf(x), cos((double)x));
         if (us > max || uc > max) {
            max = us > uc ? us : uc;
            where = x;
         }
      }
   }
   printf("# near multiples of pi/2: max %.3f ulp (at %a)\n", max, where);
   assert_true(max <= 4);
   assert_true(signbit(km_sinf(-0.0f)) && km_cosf(-0.0f) == 1.0f);
   assert_true(isnan(km_sinf(INFINITY)) && isnan(km_cosf(-INFINITY)) && isnan(km_sinf(NAN)));
}

static void test_rsqrt(void **state)
{
   (void)state;
   const struct check c = {"rsqrt", km_rsqrtf, ref_rsqrt, 2, 0.001f, 1000};
   check_fn(&c);
   assert_true(km_rsqrtf(INFINITY) == 0.0f && isnan(km_rsqrtf(-1.0f)));
   assert_true(km_rsqrtf(4.0f) == 0.5f);
}

/* pow against the double function: 16 ulp allowed (§7.4), on random
 * bits and on bases and exponents kernels use, large exponents of bases
 * near 1 included (where ln x must be better than float). */
static void test_pow(void **state)
{
   (void)state;
   double max = 0;
   float wx = 0, wy = 0;
   for (int i = 0; i < 4000000; i++) {
      float x, y;
      switch (i % 4) {
      case 0:
         x = as_float((int)next());
         y = as_float((int)next());
         break;
      case 1:
         x = 0.01f + 10.0f * (next() >> 8) * 0x1p-24f;
         y = -20.0f + 40.0f * (next() >> 8) * 0x1p-24f;
         break;
      case 2:
         x = 1.0f + ((int)(next() >> 16) - 32768) * 0x1p-24f;
         y = -1e6f + 2e6f * (next() >> 8) * 0x1p-24f;
         break;
      default:
         x = (float)(next() % 64);
         y = (float)((int)(next() % 41) - 20);
         break;
      }
      double want = pow((double)x, (double)y);
      float got = km_powf(x, y);
      double u;
      if (isnan(want))
         u = isnan(got) ? 0 : INFINITY;
      else if (fabs(want) >= 0x1.ffffffp127)
         u = isinf(got) && (got > 0) == (want > 0) ? 0 : INFINITY;
      else
         u = ulps(got, want);
      if (u > max) {
         max = u;
         wx = x;
         wy = y;
      }
   }
   printf("# pow    max %.3f ulp (at %a, %a), limit 16\n", max, wx, wy);
   if (!(max <= 16))
      fail_msg("pow: %.3f ulp at (%a, %a): got %a, want %a", max, wx, wy, km_powf(wx, wy),
               pow(wx, wy));
   assert_true(km_powf(2.0f, 10.0f) == 1024.0f && km_powf(-2.0f, 3.0f) == -8.0f);
   assert_true(km_powf(0.0f, -1.0f) == INFINITY && km_powf(1.0f, NAN) == 1.0f);
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exp_family),
      cmocka_unit_test(test_log_family),
      cmocka_unit_test(test_sin_cos),
      cmocka_unit_test(test_rsqrt),
      cmocka_unit_test(test_pow),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
