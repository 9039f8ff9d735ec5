/* The NVPTX built-in library's double-precision tgamma
 * (src/llvm/builtins/math_tgamma_f64.h), run on the host: its fused
 * multiply-adds, divisions and roundings are IEEE operations the GPU
 * performs bit for bit, so its error is measured here against x86's long
 * double tgammal (64-bit significand: its own error is a few thousandths
 * of a double ulp) on every region where Γ is hard: random arguments over
 * all of (-190, 171.7), next to each pole at -1 .. -190, tiny |x| of every
 * exponent, around the overflow limit 171.62437695630272, the subnormal
 * results below -171.6, random bit patterns, and the special values of
 * OpenCL C §7.5 (C99 F.9.5.4).  Ulps are counted as the CTS does (in the
 * binade of the reference; subnormals in the smallest ulp).  OpenCL
 * allows 16; the algorithm is within 0.53 (0.5 is the correctly rounded
 * result's own), and the test holds it to 0.6, so a slip such as
 * rounding subnormal results twice (0.75) fails it. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

static inline int exponent_field(double d)
{
   uint64_t u;
   memcpy(&u, &d, 8);
   return (int)((u >> 52) & 0x7ff);
}

static inline double pow2(int k)
{
   uint64_t u = (uint64_t)(k + 1023) << 52;
   double d;
   memcpy(&d, &u, 8);
   return d;
}

#define KM_FN static inline
#define KM_TABLE static const
#define KM_EXPONENT exponent_field
#define KM_POW2 pow2
#include "llvm/builtins/math_tgamma_f64.h"

#define LIMIT 0.6

/* got's error in ulps of want, as the CTS's Bruteforce_Ulp_Error_Double
 * counts them; infinite for a wrong NaN, infinity or zero sign. */
static double ulps(double got, long double want)
{
   if (isnan(want))
      return isnan(got) ? 0 : INFINITY;
   if (isinf((double)want)) /* rounds to infinity in double */
      return isinf(got) && (got > 0) == (want > 0) ? 0 : INFINITY;
   if (isnan(got) || isinf(got))
      return INFINITY;
   if (got == 0 && want != 0 && !signbit(got) != !signbit(want))
      return INFINITY;
   if (want == 0)
      return got == 0 ? 0 : INFINITY;
   int e;
   int lg = ilogbl(want);
   if (frexpl(want, &e) == 0.5L || frexpl(want, &e) == -0.5L)
      lg--; /* a power of two: the ulp below it */
   if (lg < -1022)
      lg = -1022;
   return (double)fabsl(scalbnl((long double)got - want, 52 - lg));
}

static uint64_t seed = 0x9e3779b97f4a7c15u;
static uint64_t next(void)
{
   seed ^= seed << 13;
   seed ^= seed >> 7;
   seed ^= seed << 17;
   return seed;
}

/* Uniform in [0, 1) with 53 random bits. */
static double unit(void)
{
   return (double)(next() >> 11) * 0x1p-53;
}

struct worst {
   const char *what;
   double max, at;
   long count;
};

static void check(struct worst *w, double x)
{
   double u = ulps(km_tgamma(x), tgammal((long double)x));
   w->count++;
   if (u > w->max || (u != u)) {
      w->max = u;
      w->at = x;
   }
}

static void report(const struct worst *w)
{
   printf("# %-28s %8ld args: max %.3f ulp at %a (got %a, want %La)\n", w->what, w->count,
          w->max, w->at, km_tgamma(w->at), tgammal((long double)w->at));
   if (!(w->max <= LIMIT))
      fail_msg("%s: %.3f ulp at %a", w->what, w->max, w->at);
}

/* x + k ulps of x (k small, no sign change). */
static double ulp_step(double x, int k)
{
   for (; k > 0; k--)
      x = nextafter(x, INFINITY);
   for (; k < 0; k++)
      x = nextafter(x, -INFINITY);
   return x;
}

static void test_random(void **state)
{
   (void)state;
   struct worst all = {"uniform on (-190, 171.7)", 0, 0, 0};
   for (int i = 0; i < 400000; i++)
      check(&all, -190 + 361.7 * unit());
   report(&all);
   struct worst small = {"uniform on (-3, 4)", 0, 0, 0};
   for (int i = 0; i < 100000; i++)
      check(&small, -3 + 7 * unit());
   report(&small);
   struct worst bits = {"random bit patterns", 0, 0, 0};
   for (int i = 0; i < 100000; i++) {
      uint64_t b = next();
      double x;
      memcpy(&x, &b, 8);
      check(&bits, x);
   }
   report(&bits);
   /* Next to the positive integers, where the product has exact factors
    * and Γ(f) its sub-interval ends. */
   struct worst ints = {"next to 1 .. 171", 0, 0, 0};
   for (int n = 1; n <= 171; n++)
      for (int k = -10; k <= 10; k++)
         check(&ints, ulp_step(n, k));
   for (int j = 0; j <= 16; j++) /* the sub-interval ends of [1, 2) */
      for (int k = -3; k <= 3; k++) {
         check(&ints, ulp_step(1 + j / 16.0, k));
         check(&ints, ulp_step(-1 + j / 16.0, k));
      }
   report(&ints);
   /* Where libclc's double tgamma was 16.2-19.9 ulp off (CTS
    * test_bruteforce on the H200), and a few ulps around each. */
   struct worst cts = {"libclc's worst (CTS, H200)", 0, 0, 0};
   const double bad[] = {-0x1.01p-15, -0x1.01p-23, -0x1.00ffffffffap-26, -8.1875};
   for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
      for (int k = -100; k <= 100; k++)
         check(&cts, ulp_step(bad[i], k));
   report(&cts);
}

/* Γ(-n + d) ~ (-1)^n / (n! d): the factor x + n is exact, whatever d. */
static void test_poles(void **state)
{
   (void)state;
   struct worst w = {"next to the poles -1 .. -190", 0, 0, 0};
   for (int n = 1; n <= 190; n++) {
      for (int k = 1; k <= 8; k++) {
         check(&w, ulp_step(-n, k));
         check(&w, ulp_step(-n, -k));
      }
      for (int j = 1; j <= 52; j++) {
         check(&w, -n + ldexp(1, -j));
         check(&w, -n - ldexp(1, -j));
      }
      for (int i = 0; i < 400; i++) {
         double d = ldexp(1 + unit(), -1 - (int)(next() % 52));
         check(&w, i & 1 ? -n + d : -n - d);
      }
   }
   report(&w);
}

/* Γ(x) ~ 1/x - γ: every exponent from the smallest subnormal to 2^-20,
 * both signs (libclc's was 16-75 ulp off from -2^-15 to -2^-87). */
static void test_tiny(void **state)
{
   (void)state;
   struct worst w = {"tiny |x| 2^-1074 .. 2^-20", 0, 0, 0};
   for (int i = 0; i < 200000; i++) {
      int e = -1074 + (int)(next() % 1055);
      double x = e < -1022 ? ldexp((double)(next() >> 12 | 1), -1074) : ldexp(1 + unit(), e);
      check(&w, i & 1 ? -x : x);
   }
   for (int e = -1074; e <= -20; e++) {
      check(&w, ldexp(1, e));
      check(&w, -ldexp(1, e));
   }
   for (int k = 1; k < 64; k++) {
      check(&w, ldexp(k, -1074));
      check(&w, -ldexp(k, -1074));
   }
   report(&w);
}

/* Γ reaches DBL_MAX at 171.62437695630272; below -171.6 the results
 * are subnormal (near the poles down to about -184), then zero. */
static void test_range_ends(void **state)
{
   (void)state;
   struct worst over = {"around overflow 171.6243...", 0, 0, 0};
   double lim = 171.62437695630272;
   for (int k = -20000; k <= 20000; k++)
      check(&over, ulp_step(lim, k));
   for (int i = 0; i < 50000; i++)
      check(&over, 170 + 2 * unit());
   report(&over);
   struct worst sub = {"subnormal results (-190, -170)", 0, 0, 0};
   long subnormal = 0;
   for (int i = 0; i < 200000; i++) {
      double x = -190 + 20 * unit();
      double g = km_tgamma(x);
      subnormal += g != 0 && fabs(g) < 0x1p-1022;
      check(&sub, x);
   }
   report(&sub);
   printf("# of which %ld subnormal\n", subnormal);
   assert_true(subnormal > 10000);
   struct worst zero = {"below -190: signed zero", 0, 0, 0};
   for (int i = 0; i < 20000; i++)
      check(&zero, -190 - 100 * unit());
   check(&zero, -250.5);
   check(&zero, -201.5);
   check(&zero, -0x1.0000000000200p+17);
   check(&zero, -0x1.fffffffffffffp+51);
   report(&zero);
}

static void test_special(void **state)
{
   (void)state;
   assert_true(km_tgamma(0.0) == INFINITY && km_tgamma(-0.0) == -INFINITY);
   assert_true(km_tgamma(0x1p-1074) == INFINITY && km_tgamma(-0x1p-1074) == -INFINITY);
   assert_true(km_tgamma(INFINITY) == INFINITY);
   assert_true(isnan(km_tgamma(-INFINITY)) && isnan(km_tgamma(NAN)));
   for (int n = 1; n <= 200; n++)
      assert_true(isnan(km_tgamma(-n)));
   assert_true(isnan(km_tgamma(-0x1p52)) && isnan(km_tgamma(-0x1p53)) &&
               isnan(km_tgamma(-1e300)) && isnan(km_tgamma(-DBL_MAX)));
   assert_true(km_tgamma(171.7) == INFINITY && km_tgamma(172) == INFINITY &&
               km_tgamma(1e300) == INFINITY && km_tgamma(DBL_MAX) == INFINITY);
   assert_true(km_tgamma(171.62437695630272) < INFINITY);
   /* Γ(n) = (n-1)! exactly where double holds it (n <= 23). */
   double f = 1;
   for (int n = 1; n <= 23; n++) {
      assert_true(km_tgamma(n) == f);
      f *= n;
   }
   assert_true(km_tgamma(0.5) == 0x1.c5bf891b4ef6bp+0); /* √π, correctly rounded */
   /* Signed zeros with Γ's sign: negative on (-n-1, -n) for even n. */
   assert_true(km_tgamma(-190.5) == 0 && signbit(km_tgamma(-190.5)));
   assert_true(km_tgamma(-191.5) == 0 && !signbit(km_tgamma(-191.5)));
   assert_true(km_tgamma(-250.5) == 0 && signbit(km_tgamma(-250.5)));
   assert_true(km_tgamma(-201.5) == 0 && !signbit(km_tgamma(-201.5)));
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_special),   cmocka_unit_test(test_random),
      cmocka_unit_test(test_poles),     cmocka_unit_test(test_tiny),
      cmocka_unit_test(test_range_ends),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
