/* Math builtins (§6.11.2): float accuracy against long double references
 * within OpenCL 1.1's §7.4 ulp limits, §7.5 special values, and the vector,
 * double and pointer-output forms. */
#include "harness.h"

#include <float.h>
#include <limits.h>

#define F1(name, mangled) float mangled(float);
#define F2(name, mangled) float mangled(float, float);
F1(acos, _Z4acosf) F1(acosh, _Z5acoshf) F1(acospi, _Z6acospif) F1(asin, _Z4asinf)
F1(asinh, _Z5asinhf) F1(asinpi, _Z6asinpif) F1(atan, _Z4atanf) F1(atanh, _Z5atanhf)
F1(atanpi, _Z6atanpif) F1(cbrt, _Z4cbrtf) F1(cos, _Z3cosf) F1(cosh, _Z4coshf)
F1(cospi, _Z5cospif) F1(erfc, _Z4erfcf) F1(erf, _Z3erff) F1(exp, _Z3expf)
F1(exp2, _Z4exp2f) F1(exp10, _Z5exp10f) F1(expm1, _Z5expm1f) F1(log, _Z3logf)
F1(log2, _Z4log2f) F1(log10, _Z5log10f) F1(log1p, _Z5log1pf) F1(sin, _Z3sinf)
F1(sinh, _Z4sinhf) F1(sinpi, _Z5sinpif) F1(tan, _Z3tanf) F1(tanh, _Z4tanhf)
F1(tanpi, _Z5tanpif) F1(tgamma, _Z6tgammaf) F1(rsqrt, _Z5rsqrtf) F1(sqrt, _Z4sqrtf)
F1(logb, _Z4logbf) F1(floor, _Z5floorf) F1(ceil, _Z4ceilf) F1(round, _Z5roundf)
F1(rint, _Z4rintf) F1(trunc, _Z5truncf) F1(fabs, _Z4fabsf) F1(lgamma, _Z6lgammaf)
F1(native_recip, _Z12native_recipf) F1(half_sqrt, _Z9half_sqrtf) F1(native_exp, _Z10native_expf)
F2(atan2, _Z5atan2ff) F2(atan2pi, _Z7atan2piff) F2(pow, _Z3powff) F2(powr, _Z4powrff)
F2(hypot, _Z5hypotff) F2(fmod, _Z4fmodff) F2(remainder, _Z9remainderff) F2(fmin, _Z4fminff)
F2(fmax, _Z4fmaxff) F2(maxmag, _Z6maxmagff) F2(minmag, _Z6minmagff) F2(copysign, _Z8copysignff)
F2(nextafter, _Z9nextafterff) F2(fdim, _Z4fdimff) F2(native_divide, _Z13native_divideff)
float _Z4pownfi(float, int);
float _Z5rootnfi(float, int);
float _Z5ldexpfi(float, int);
int _Z5ilogbf(float);
float _Z3nanj(unsigned);
float _Z3fmafff(float, float, float);
float _Z3madfff(float, float, float);
float _Z5fractfPU9CLprivatef(float, float *);
float _Z5frexpfPU9CLprivatei(float, int *);
float _Z4modffPU9CLprivatef(float, float *);
float _Z6remquoffPU9CLprivatei(float, float, int *);
double _Z6remquoddPU9CLprivatei(double, double, int *);
float _Z8lgamma_rfPU9CLprivatei(float, int *);
float _Z6sincosfPU9CLprivatef(float, float *);
double _Z5sinpid(double);
double _Z5cospid(double);
double _Z5tanpid(double);
double _Z6acospid(double);
double _Z5rootndi(double, int);
double _Z4powndi(double, int);
double _Z5rsqrtd(double);

/* ---- accuracy sweeps ---- */

static long double pi_l(void) { return 3.14159265358979323846264338327950288L; }

/* References for the *pi functions: fold exactly into [-0.5, 0.5] (sin) or
 * [0, 1] (cos) so that pi*r loses nothing near the zeros, then use long
 * double. */
static long double ref_sinpi(long double x)
{
   if (isinf(x)) return NAN;
   long double r = fmodl(x, 2.0L);
   if (r > 1) r -= 2;
   else if (r < -1) r += 2;
   if (r > 0.5L) r = 1 - r;
   else if (r < -0.5L) r = -1 - r;
   if (r == 0) return copysignl(0.0L, x);
   return sinl(pi_l() * r);
}
static long double ref_cospi(long double x)
{
   if (isinf(x)) return NAN;
   long double r = fmodl(fabsl(x), 2.0L);
   if (r > 1) r = 2 - r;
   return sinl(pi_l() * (0.5L - r));
}
static long double ref_tanpi(long double x) { return ref_sinpi(x) / ref_cospi(x); }

struct unary {
   const char *name;
   float (*f)(float);
   long double (*ref)(long double);
   double limit;            /* OpenCL 1.1 §7.4, single precision */
   float lo, hi;            /* also sweep this range uniformly */
};

static long double ref_acospi(long double x) { return acosl(x) / pi_l(); }
static long double ref_asinpi(long double x) { return asinl(x) / pi_l(); }
static long double ref_atanpi(long double x) { return atanl(x) / pi_l(); }
static long double ref_rsqrt(long double x) { return 1.0L / sqrtl(x); }

static const struct unary unaries[] = {
   {"acos", _Z4acosf, acosl, 3, -1, 1}, {"acosh", _Z5acoshf, acoshl, 4, 1, 1e4},
   {"acospi", _Z6acospif, ref_acospi, 5, -1, 1}, {"asin", _Z4asinf, asinl, 4, -1, 1},
   {"asinh", _Z5asinhf, asinhl, 4, -1e4, 1e4}, {"asinpi", _Z6asinpif, ref_asinpi, 5, -1, 1},
   {"atan", _Z4atanf, atanl, 5, -1e3, 1e3}, {"atanh", _Z5atanhf, atanhl, 5, -1, 1},
   {"atanpi", _Z6atanpif, ref_atanpi, 5, -1e3, 1e3}, {"cbrt", _Z4cbrtf, cbrtl, 2, -1e6, 1e6},
   {"cos", _Z3cosf, cosl, 4, -100, 100}, {"cosh", _Z4coshf, coshl, 4, -88, 88},
   {"cospi", _Z5cospif, ref_cospi, 4, -100, 100}, {"erfc", _Z4erfcf, erfcl, 16, -10, 10},
   {"erf", _Z3erff, erfl, 16, -5, 5}, {"exp", _Z3expf, expl, 3, -100, 100},
   {"exp2", _Z4exp2f, exp2l, 3, -130, 130}, {"exp10", _Z5exp10f, exp10l, 3, -40, 40},
   {"expm1", _Z5expm1f, expm1l, 3, -10, 10}, {"log", _Z3logf, logl, 3, 0, 100},
   {"log2", _Z4log2f, log2l, 3, 0, 100}, {"log10", _Z5log10f, log10l, 3, 0, 100},
   {"log1p", _Z5log1pf, log1pl, 2, -1, 100}, {"sin", _Z3sinf, sinl, 4, -100, 100},
   {"sinh", _Z4sinhf, sinhl, 4, -88, 88}, {"sinpi", _Z5sinpif, ref_sinpi, 4, -100, 100},
   {"tan", _Z3tanf, tanl, 5, -100, 100}, {"tanh", _Z4tanhf, tanhl, 5, -10, 10},
   {"tanpi", _Z5tanpif, ref_tanpi, 6, -100, 100}, {"tgamma", _Z6tgammaf, tgammal, 16, -30, 35},
   {"rsqrt", _Z5rsqrtf, ref_rsqrt, 2, 0, 1e6}, {"sqrt", _Z4sqrtf, sqrtl, 0, 0, 1e6},
   {"native_recip", _Z12native_recipf, NULL, 0, 0, 0},
};

static float rand_in(float lo, float hi)
{
   return lo + (hi - lo) * (float)((test_rand() >> 11) * 0x1p-53);
}

static void sweep_unary(const struct unary *u)
{
   if (!u->ref) return;
   double worst = 0;
   float worst_x = 0;
   for (int i = 0; i < 300000; i++) {
      float x = (i & 1) ? rand_float_bits() : rand_in(u->lo, u->hi);
      double e = ulp_err_f(u->f(x), u->ref(x));
      if (e > worst) { worst = e; worst_x = x; }
   }
   printf("  %-8s max %.3f ulp (limit %g) at %a\n", u->name, worst, u->limit, worst_x);
   /* A limit of 0 means correctly rounded: at most half an ulp. */
   CHECK(worst <= (u->limit == 0 ? 0.5 : u->limit), "%s: %.3f ulp at %a exceeds %g",
         u->name, worst, worst_x, u->limit);
}

static long double ref_atan2pi(long double y, long double x) { return atan2l(y, x) / pi_l(); }
static long double ref_powr(long double x, long double y) { return powl(x, y); }

struct binary {
   const char *name;
   float (*f)(float, float);
   long double (*ref)(long double, long double);
   double limit;
   float lo, hi, ylo, yhi;
};

static const struct binary binaries[] = {
   {"atan2", _Z5atan2ff, atan2l, 6, -10, 10, -10, 10},
   {"atan2pi", _Z7atan2piff, ref_atan2pi, 6, -10, 10, -10, 10},
   {"pow", _Z3powff, powl, 16, 0, 10, -20, 20},
   {"powr", _Z4powrff, ref_powr, 16, 0, 10, -20, 20},
   {"hypot", _Z5hypotff, hypotl, 4, -1e20f, 1e20f, -1e20f, 1e20f},
   {"fmod", _Z4fmodff, fmodl, 0, -1e6, 1e6, -100, 100},
   {"remainder", _Z9remainderff, remainderl, 0, -1e6, 1e6, -100, 100},
};

static void sweep_binary(const struct binary *b)
{
   double worst = 0;
   float wx = 0, wy = 0;
   for (int i = 0; i < 200000; i++) {
      float x, y;
      if (i & 1) {
         x = rand_float_bits(); y = rand_float_bits();
      } else {
         x = rand_in(b->lo, b->hi); y = rand_in(b->ylo, b->yhi);
      }
      if (b->f == _Z4powrff && (x < 0 || isnan(x) || isnan(y) || x == 0 || isinf(x) || x == 1))
         continue;   /* powr's own special cases are checked below */
      double e = ulp_err_f(b->f(x, y), b->ref(x, y));
      if (e > worst) { worst = e; wx = x; wy = y; }
   }
   printf("  %-8s max %.3f ulp (limit %g) at %a, %a\n", b->name, worst, b->limit, wx, wy);
   CHECK(worst <= (b->limit == 0 ? 0.5 : b->limit), "%s: %.3f ulp at (%a, %a) exceeds %g", b->name, worst, wx, wy, b->limit);
}

static long double ref_rootn(long double x, int n)
{
   if (n == 0 || (x < 0 && !(n & 1))) return NAN;
   long double r = powl(fabsl(x), 1.0L / n);
   return (n & 1) ? copysignl(r, x) : r;
}

static void sweep_int_exponent(void)
{
   double wp = 0, wr = 0;
   for (int i = 0; i < 200000; i++) {
      float x = (i & 1) ? rand_float_bits() : rand_in(-20, 20);
      int n = (int)(test_rand() % 61) - 30;
      double e = ulp_err_f(_Z4pownfi(x, n), powl(x, n));
      if (e > wp) wp = e;
      e = ulp_err_f(_Z5rootnfi(x, n), ref_rootn(x, n));
      if (e > wr) wr = e;
   }
   printf("  pown     max %.3f ulp (limit 16)\n  rootn    max %.3f ulp (limit 16)\n", wp, wr);
   CHECK(wp <= 16, "pown: %.3f ulp", wp);
   CHECK(wr <= 16, "rootn: %.3f ulp", wr);
}

/* The double forms Kiln computes itself (not plain libm). */
static void sweep_double(void)
{
   double ws = 0, wc = 0, wt = 0, wa = 0, wr = 0, wq = 0;
   for (int i = 0; i < 100000; i++) {
      double x = (double)rand_in(-1000, 1000) + (double)rand_in(-1, 1) * 0x1p-30;
      ws = fmax(ws, ulp_err_d(_Z5sinpid(x), ref_sinpi(x)));
      wc = fmax(wc, ulp_err_d(_Z5cospid(x), ref_cospi(x)));
      wt = fmax(wt, ulp_err_d(_Z5tanpid(x), ref_tanpi(x)));
      double y = x / 1000;
      wa = fmax(wa, ulp_err_d(_Z6acospid(y), acosl(y) / pi_l()));
      double big = u2d((test_rand() >> 2) | 1);          /* positive, any exponent */
      int n = (int)(test_rand() % 81) - 40;
      if (n == 0) n = 7;
      wr = fmax(wr, ulp_err_d(_Z5rootndi(big, n), powl(big, 1.0L / n)));
      wq = fmax(wq, ulp_err_d(_Z5rsqrtd(big), 1.0L / sqrtl(big)));
   }
   printf("  double: sinpi %.3f cospi %.3f tanpi %.3f acospi %.3f rootn %.3f rsqrt %.3f ulp\n",
          ws, wc, wt, wa, wr, wq);
   CHECK(ws <= 4 && wc <= 4 && wt <= 6 && wa <= 5 && wr <= 16 && wq <= 2,
         "double accuracy: sinpi %g cospi %g tanpi %g acospi %g rootn %g rsqrt %g",
         ws, wc, wt, wa, wr, wq);
}

/* ---- special values (§7.5) ---- */

#define EXPECT_F(got, want) do { float g_ = (got), w_ = (want); \
      CHECK(same_f(g_, w_), "%s = %a, want %a", #got, g_, w_); } while (0)
#define EXPECT_I(got, want) do { long g_ = (got), w_ = (want); \
      CHECK(g_ == w_, "%s = %ld, want %ld", #got, g_, w_); } while (0)

static void special_values(void)
{
   const float inf = INFINITY, nan = NAN;

   EXPECT_F(_Z5sinpif(0.0f), 0.0f); EXPECT_F(_Z5sinpif(-0.0f), -0.0f);
   EXPECT_F(_Z5sinpif(1.0f), 0.0f); EXPECT_F(_Z5sinpif(-1.0f), -0.0f);
   EXPECT_F(_Z5sinpif(2.0f), 0.0f); EXPECT_F(_Z5sinpif(-3.0f), -0.0f);
   EXPECT_F(_Z5sinpif(0.5f), 1.0f); EXPECT_F(_Z5sinpif(-0.5f), -1.0f);
   EXPECT_F(_Z5sinpif(1e10f), 0.0f); EXPECT_F(_Z5sinpif(inf), nan);
   EXPECT_F(_Z5cospif(0.0f), 1.0f); EXPECT_F(_Z5cospif(0.5f), 0.0f);
   EXPECT_F(_Z5cospif(-0.5f), 0.0f); EXPECT_F(_Z5cospif(1.5f), 0.0f);
   EXPECT_F(_Z5cospif(1.0f), -1.0f); EXPECT_F(_Z5cospif(-inf), nan);
   EXPECT_F(_Z5tanpif(0.0f), 0.0f); EXPECT_F(_Z5tanpif(-0.0f), -0.0f);
   EXPECT_F(_Z5tanpif(0.5f), inf); EXPECT_F(_Z5tanpif(1.5f), -inf);
   EXPECT_F(_Z5tanpif(-0.5f), -inf); EXPECT_F(_Z5tanpif(1.0f), -0.0f);
   EXPECT_F(_Z5tanpif(2.0f), 0.0f); EXPECT_F(_Z5tanpif(-1.0f), 0.0f);
   EXPECT_F(_Z5tanpif(0.25f), 1.0f);
   EXPECT_F(_Z7atan2piff(0.0f, -1.0f), 1.0f); EXPECT_F(_Z7atan2piff(-0.0f, -1.0f), -1.0f);
   EXPECT_F(_Z6atanpif(inf), 0.5f); EXPECT_F(_Z6asinpif(1.0f), 0.5f);
   EXPECT_F(_Z6acospif(-1.0f), 1.0f); EXPECT_F(_Z6asinpif(-0.0f), -0.0f);

   EXPECT_F(_Z4powrff(0.0f, 0.0f), nan); EXPECT_F(_Z4powrff(-0.0f, 0.0f), nan);
   EXPECT_F(_Z4powrff(inf, 0.0f), nan); EXPECT_F(_Z4powrff(1.0f, inf), nan);
   EXPECT_F(_Z4powrff(-1.0f, 2.0f), nan); EXPECT_F(_Z4powrff(0.0f, -1.0f), inf);
   EXPECT_F(_Z4powrff(-0.0f, -inf), inf);
   EXPECT_F(_Z4powrff(0.0f, 1.0f), 0.0f); EXPECT_F(_Z4powrff(inf, -1.0f), 0.0f);
   EXPECT_F(_Z4powrff(inf, 2.0f), inf); EXPECT_F(_Z4powrff(2.0f, nan), nan);
   EXPECT_F(_Z4powrff(1.0f, 5.0f), 1.0f); EXPECT_F(_Z4powrff(4.0f, 0.5f), 2.0f);

   EXPECT_F(_Z5rootnfi(8.0f, 3), 2.0f); EXPECT_F(_Z5rootnfi(-8.0f, 3), -2.0f);
   EXPECT_F(_Z5rootnfi(-8.0f, 2), nan); EXPECT_F(_Z5rootnfi(5.0f, 0), nan);
   EXPECT_F(_Z5rootnfi(0.0f, -3), inf); EXPECT_F(_Z5rootnfi(-0.0f, -3), -inf);
   EXPECT_F(_Z5rootnfi(-0.0f, 3), -0.0f); EXPECT_F(_Z5rootnfi(-0.0f, 2), 0.0f);
   EXPECT_F(_Z5rootnfi(-0.0f, -2), inf); EXPECT_F(_Z5rootnfi(inf, 2), inf);
   EXPECT_F(_Z5rootnfi(-inf, 3), -inf); EXPECT_F(_Z5rootnfi(16.0f, -2), 0.25f);

   EXPECT_F(_Z4pownfi(nan, 0), 1.0f); EXPECT_F(_Z4pownfi(0.0f, -1), inf);
   EXPECT_F(_Z4pownfi(-0.0f, -1), -inf); EXPECT_F(_Z4pownfi(-0.0f, -2), inf);
   EXPECT_F(_Z4pownfi(2.0f, -126), 0x1p-126f); EXPECT_F(_Z4pownfi(2.0f, 10), 1024.0f);
   EXPECT_F(_Z4pownfi(-2.0f, 3), -8.0f);

   EXPECT_I(_Z5ilogbf(0.0f), INT_MIN); EXPECT_I(_Z5ilogbf(nan), INT_MAX);
   EXPECT_I(_Z5ilogbf(inf), INT_MAX); EXPECT_I(_Z5ilogbf(1.0f), 0);
   EXPECT_I(_Z5ilogbf(0x1p-149f), -149); EXPECT_I(_Z5ilogbf(-3.0f), 1);
   EXPECT_F(_Z4logbf(8.0f), 3.0f); EXPECT_F(_Z4logbf(0.0f), -inf);

   CHECK(f2u(_Z3nanj(5)) == 0x7fc00005u, "nan(5) = %08x", f2u(_Z3nanj(5)));

   float i;
   EXPECT_F(_Z5fractfPU9CLprivatef(1.25f, &i), 0.25f); EXPECT_F(i, 1.0f);
   EXPECT_F(_Z5fractfPU9CLprivatef(-1.25f, &i), 0.75f); EXPECT_F(i, -2.0f);
   EXPECT_F(_Z5fractfPU9CLprivatef(-1e-10f, &i), 0x1.fffffep-1f); EXPECT_F(i, -1.0f);
   EXPECT_F(_Z5fractfPU9CLprivatef(inf, &i), 0.0f); EXPECT_F(i, inf);
   EXPECT_F(_Z5fractfPU9CLprivatef(-inf, &i), -0.0f); EXPECT_F(i, -inf);
   EXPECT_F(_Z5fractfPU9CLprivatef(nan, &i), nan); EXPECT_F(i, nan);
   EXPECT_F(_Z5fractfPU9CLprivatef(-0.0f, &i), -0.0f); EXPECT_F(i, -0.0f);
   int e;
   EXPECT_F(_Z5frexpfPU9CLprivatei(8.0f, &e), 0.5f); EXPECT_I(e, 4);
   EXPECT_F(_Z5frexpfPU9CLprivatei(0x1p-149f, &e), 0.5f); EXPECT_I(e, -148);
   EXPECT_F(_Z4modffPU9CLprivatef(-3.5f, &i), -0.5f); EXPECT_F(i, -3.0f);
   int q;
   EXPECT_F(_Z6remquoffPU9CLprivatei(7.0f, 2.0f, &q), -1.0f); EXPECT_I(q & 0x7f, 4);
   EXPECT_F(_Z6remquoffPU9CLprivatei(-7.0f, 2.0f, &q), 1.0f); EXPECT_I(q, -4);
   EXPECT_F(_Z6remquoffPU9CLprivatei(1000.0f, 1.0f, &q), 0.0f); EXPECT_I(q, 1000 & 0x7f);
   EXPECT_F(_Z6remquoffPU9CLprivatei(-1001.0f, 1.0f, &q), -0.0f); EXPECT_I(q, -(1001 & 0x7f));
   EXPECT_F(_Z6remquoffPU9CLprivatei(0x1p100f, 3.0f, &q), remainderf(0x1p100f, 3.0f));
   EXPECT_I(q, 85);           /* 2^100 = 3n + 1, n = -1/3 = 85 (mod 128) */
   EXPECT_F(_Z6remquoffPU9CLprivatei(5.0f, 2.0f, &q), 1.0f); EXPECT_I(q, 2);   /* 2.5 -> 2 */
   EXPECT_F(_Z6remquoffPU9CLprivatei(7.0f, -2.0f, &q), -1.0f); EXPECT_I(q, -4); /* 3.5 -> 4 */
   EXPECT_F(_Z6remquoffPU9CLprivatei(3.0f, FLT_MAX, &q), 3.0f); EXPECT_I(q, 0);
   /* Near DBL_MAX, where x - remainder (up to 2|y|) overflows unless scaled
    * (CTS math_brute_force found quotient 0 for -2). */
   double dx = -0x1.e8ffffffffb6cp+1023, dy = 0x1.2bffffffffa5bp+1023;
   EXPECT_F(_Z6remquoddPU9CLprivatei(dx, dy, &q), remainder(dx, dy)); EXPECT_I(q, -2);
   EXPECT_F(_Z6remquoddPU9CLprivatei(DBL_MAX, DBL_MAX, &q), 0.0); EXPECT_I(q, 1);
   EXPECT_F(_Z6remquoddPU9CLprivatei(DBL_MAX, -0x1p1022, &q), remainder(DBL_MAX, -0x1p1022));
   EXPECT_I(q, -4);                                   /* 3.99.. -> 4 */
   EXPECT_F(_Z6remquoddPU9CLprivatei(0x1p-1074, DBL_MAX, &q), 0x1p-1074); EXPECT_I(q, 0);
   EXPECT_F(_Z6remquoffPU9CLprivatei(FLT_MAX, 0x1p-149f, &q), 0.0f); EXPECT_I(q, 0);
   int s;
   _Z8lgamma_rfPU9CLprivatei(-0.5f, &s); EXPECT_I(s, -1);
   _Z8lgamma_rfPU9CLprivatei(0.5f, &s); EXPECT_I(s, 1);
   float c;
   float sn = _Z6sincosfPU9CLprivatef(0.5f, &c);
   EXPECT_F(sn, _Z3sinf(0.5f)); EXPECT_F(c, _Z3cosf(0.5f));

   EXPECT_F(_Z6maxmagff(-3.0f, 2.0f), -3.0f); EXPECT_F(_Z6minmagff(-3.0f, 2.0f), 2.0f);
   EXPECT_F(_Z6maxmagff(2.0f, -2.0f), 2.0f); EXPECT_F(_Z6minmagff(2.0f, -2.0f), -2.0f);
   EXPECT_F(_Z4fminff(nan, 1.0f), 1.0f); EXPECT_F(_Z4fmaxff(1.0f, nan), 1.0f);
   EXPECT_F(_Z4fmaxff(-inf, -1.0f), -1.0f);
   EXPECT_F(_Z4fdimff(5.0f, 3.0f), 2.0f); EXPECT_F(_Z4fdimff(3.0f, 5.0f), 0.0f);
   EXPECT_F(_Z4fdimff(nan, 5.0f), nan);
   /* fma is fused: the product's low bits survive. */
   EXPECT_F(_Z3fmafff(1.0f + 0x1p-23f, 1.0f + 0x1p-23f, -(1.0f + 0x1p-22f)), 0x1p-46f);
   float m = _Z3madfff(1.0f + 0x1p-23f, 1.0f + 0x1p-23f, -(1.0f + 0x1p-22f));
   CHECK(m == 0.0f || m == 0x1p-46f, "mad = %a", m);
   EXPECT_F(_Z5rsqrtf(0.0f), inf); EXPECT_F(_Z5rsqrtf(-0.0f), -inf);
   EXPECT_F(_Z5rsqrtf(-1.0f), nan); EXPECT_F(_Z5rsqrtf(inf), 0.0f);
   EXPECT_F(_Z5rsqrtf(4.0f), 0.5f);
   EXPECT_F(_Z4sqrtf(-0.0f), -0.0f); EXPECT_F(_Z4sqrtf(2.0f), 0x1.6a09e6p+0f);
   EXPECT_F(_Z5ldexpfi(1.0f, -149), 0x1p-149f); EXPECT_F(_Z5ldexpfi(1.0f, 128), inf);
   EXPECT_F(_Z5ldexpfi(0x1p-149f, 149), 1.0f);
   EXPECT_F(_Z9nextafterff(0.0f, 1.0f), 0x1p-149f); EXPECT_F(_Z9nextafterff(1.0f, 0.0f), 0x1.fffffep-1f);
   EXPECT_F(_Z8copysignff(1.0f, -0.0f), -1.0f); EXPECT_F(_Z4fabsf(-0.0f), 0.0f);
   EXPECT_F(_Z5roundf(2.5f), 3.0f); EXPECT_F(_Z5roundf(-2.5f), -3.0f);
   EXPECT_F(_Z4rintf(2.5f), 2.0f); EXPECT_F(_Z4rintf(-3.5f), -4.0f);
   EXPECT_F(_Z5truncf(-1.7f), -1.0f); EXPECT_F(_Z4ceilf(-0.5f), -0.0f);
   EXPECT_F(_Z5floorf(-0.5f), -1.0f); EXPECT_F(_Z5floorf(0x1p-149f), 0.0f);
   EXPECT_F(_Z4cbrtf(-27.0f), -3.0f); EXPECT_F(_Z5exp10f(2.0f), 100.0f);
   EXPECT_F(_Z4fmodff(5.5f, 2.0f), 1.5f); EXPECT_F(_Z4fmodff(-0.0f, 2.0f), -0.0f);
   EXPECT_F(_Z13native_divideff(1.0f, 4.0f), 0.25f); EXPECT_F(_Z12native_recipf(4.0f), 0.25f);
   EXPECT_F(_Z9half_sqrtf(16.0f), 4.0f); EXPECT_F(_Z10native_expf(0.0f), 1.0f);
   EXPECT_F(_Z6lgammaf(1.0f), 0.0f); EXPECT_F(_Z3expf(-inf), 0.0f);
   EXPECT_F(_Z3logf(0.0f), -inf); EXPECT_F(_Z3logf(-1.0f), nan);
   EXPECT_F(_Z4acosf(2.0f), nan); EXPECT_F(_Z3sinf(-0.0f), -0.0f);
   EXPECT_F(_Z3sinf(0x1p-149f), 0x1p-149f);                  /* denormal in, out */

   CHECK(same_d(_Z5sinpid(-2.0), -0.0), "sinpi(-2.0) double");
   CHECK(_Z5tanpid(0.5) == INFINITY, "tanpi(0.5) double");
   CHECK(_Z5rootndi(-27.0, 3) == -3.0, "rootn(-27, 3) double");
   CHECK(_Z4powndi(2.0, -1074) == 0x1p-1074, "pown(2, -1074) double");
}

/* ---- vector forms equal their scalar forms lane by lane ---- */

#define DECL_W1(F, T) void t_##F##_##T##2(const T *, T *); void t_##F##_##T##3(const T *, T *); \
   void t_##F##_##T##4(const T *, T *); void t_##F##_##T##8(const T *, T *); void t_##F##_##T##16(const T *, T *);
#define DECL_W2(F, T) void t_##F##_##T##2(const T *, const T *, T *); void t_##F##_##T##3(const T *, const T *, T *); \
   void t_##F##_##T##4(const T *, const T *, T *); void t_##F##_##T##8(const T *, const T *, T *); \
   void t_##F##_##T##16(const T *, const T *, T *);
#define DECL_W3(F, T) void t_##F##_##T##2(const T *, const T *, const T *, T *); \
   void t_##F##_##T##3(const T *, const T *, const T *, T *); void t_##F##_##T##4(const T *, const T *, const T *, T *); \
   void t_##F##_##T##8(const T *, const T *, const T *, T *); void t_##F##_##T##16(const T *, const T *, const T *, T *);
DECL_W1(sin, float) DECL_W1(sinpi, float) DECL_W1(exp, float) DECL_W1(rsqrt, float)
DECL_W1(floor, float) DECL_W1(native_sin, float) DECL_W1(half_exp, float) DECL_W1(sign, float)
DECL_W2(pow, float) DECL_W2(fmax, float) DECL_W2(atan2pi, float) DECL_W2(maxmag, float)
DECL_W3(mad, float) DECL_W3(fma, float) DECL_W3(clamp, float) DECL_W3(smoothstep, float)
DECL_W1(sin, double) DECL_W1(sinpi, double) DECL_W2(pow, double)
float _Z4signf(float);
float _Z5clampfff(float, float, float);
float _Z10smoothstepfff(float, float, float);
double _Z3sind(double);
double _Z3powdd(double, double);

typedef void (*w1f)(const float *, float *);
typedef void (*w2f)(const float *, const float *, float *);
typedef void (*w3f)(const float *, const float *, const float *, float *);
static const int widths[5] = {2, 3, 4, 8, 16};

static void lanes1(const char *name, const w1f w[5], float (*ref)(float))
{
   float x[16], r[16];
   for (int k = 0; k < 5; k++)
      for (int rep = 0; rep < 50; rep++) {
         for (int j = 0; j < 16; j++) x[j] = rep & 1 ? rand_float_bits() : rand_in(-10, 10);
         memset(r, 0, sizeof r);
         w[k](x, r);
         for (int j = 0; j < widths[k]; j++)
            CHECK(same_f(r[j], ref(x[j])), "%s%d lane %d: %a -> %a, scalar %a",
                  name, widths[k], j, x[j], r[j], ref(x[j]));
      }
}

static void lanes2(const char *name, const w2f w[5], float (*ref)(float, float))
{
   float x[16], y[16], r[16];
   for (int k = 0; k < 5; k++)
      for (int rep = 0; rep < 50; rep++) {
         for (int j = 0; j < 16; j++) {
            x[j] = rand_in(0, 4); y[j] = rep & 1 ? rand_float_bits() : rand_in(-4, 4);
         }
         w[k](x, y, r);
         for (int j = 0; j < widths[k]; j++)
            CHECK(same_f(r[j], ref(x[j], y[j])), "%s%d lane %d", name, widths[k], j);
      }
}

static void lanes3(const char *name, const w3f w[5], float (*ref)(float, float, float))
{
   float x[16], y[16], z[16], r[16];
   for (int k = 0; k < 5; k++)
      for (int rep = 0; rep < 50; rep++) {
         for (int j = 0; j < 16; j++) {
            x[j] = rand_in(-4, 4); y[j] = rand_in(-4, 4); z[j] = rand_in(-4, 4);
            if (ref == _Z5clampfff || ref == _Z10smoothstepfff) {
               if (x[j] > y[j]) { float t = x[j]; x[j] = y[j]; y[j] = t; }
               if (ref == _Z5clampfff) { float t = z[j]; z[j] = x[j]; x[j] = t; }
            }
         }
         w[k](x, y, z, r);
         for (int j = 0; j < widths[k]; j++) {
            float want = ref == _Z5clampfff ? _Z5clampfff(x[j], y[j], z[j]) : ref(x[j], y[j], z[j]);
            CHECK(same_f(r[j], want), "%s%d lane %d: %a", name, widths[k], j, r[j]);
         }
      }
}

#define W1S(F, T) (const w1f[5]){t_##F##_##T##2, t_##F##_##T##3, t_##F##_##T##4, t_##F##_##T##8, t_##F##_##T##16}
#define W2S(F, T) (const w2f[5]){t_##F##_##T##2, t_##F##_##T##3, t_##F##_##T##4, t_##F##_##T##8, t_##F##_##T##16}
#define W3S(F, T) (const w3f[5]){t_##F##_##T##2, t_##F##_##T##3, t_##F##_##T##4, t_##F##_##T##8, t_##F##_##T##16}

float _Z10native_sinf(float);
float _Z8half_expf(float);

void t_fmax_bcast_float8(const float *, float, float *);
void t_ldexp_bcast_float4(const float *, int, float *);
void t_ldexp_float16(const float *, const int *, float *);
void t_rootn_float3(const float *, const int *, float *);
void t_pown_float8(const float *, const int *, float *);
void t_ilogb_float8(const float *, int *);
void t_nan_float4(const unsigned *, float *);
void t_mix_bcast_float4(const float *, const float *, float, float *);
void t_step_bcast_float3(float, const float *, float *);
void t_frexp_global_float3(const float *, float *, int *);
void t_fract_local_float16(const float *, float *, float *);
void t_sincos_private_float8(const float *, float *, float *);
void t_remquo_global_float4(const float *, const float *, float *, int *);
float t_modf_local(float, float *);
float t_lgamma_r_global(float, int *);

static void vector_forms(void)
{
   lanes1("sin", W1S(sin, float), _Z3sinf);
   lanes1("sinpi", W1S(sinpi, float), _Z5sinpif);
   lanes1("exp", W1S(exp, float), _Z3expf);
   lanes1("rsqrt", W1S(rsqrt, float), _Z5rsqrtf);
   lanes1("floor", W1S(floor, float), _Z5floorf);
   lanes1("native_sin", W1S(native_sin, float), _Z10native_sinf);
   lanes1("half_exp", W1S(half_exp, float), _Z8half_expf);
   lanes1("sign", W1S(sign, float), _Z4signf);
   lanes2("pow", W2S(pow, float), _Z3powff);
   lanes2("fmax", W2S(fmax, float), _Z4fmaxff);
   lanes2("atan2pi", W2S(atan2pi, float), _Z7atan2piff);
   lanes2("maxmag", W2S(maxmag, float), _Z6maxmagff);
   lanes3("mad", W3S(mad, float), _Z3madfff);
   lanes3("fma", W3S(fma, float), _Z3fmafff);
   lanes3("clamp", W3S(clamp, float), _Z5clampfff);
   lanes3("smoothstep", W3S(smoothstep, float), _Z10smoothstepfff);

   double dx[16], dy[16], dr[16];
   void (*ds[5])(const double *, double *) = {t_sin_double2, t_sin_double3, t_sin_double4, t_sin_double8, t_sin_double16};
   void (*dp[5])(const double *, const double *, double *) = {t_pow_double2, t_pow_double3, t_pow_double4, t_pow_double8, t_pow_double16};
   for (int k = 0; k < 5; k++) {
      for (int j = 0; j < 16; j++) { dx[j] = rand_in(0, 10); dy[j] = rand_in(-5, 5); }
      ds[k](dx, dr);
      for (int j = 0; j < widths[k]; j++) CHECK(same_d(dr[j], _Z3sind(dx[j])), "sin double%d", widths[k]);
      dp[k](dx, dy, dr);
      for (int j = 0; j < widths[k]; j++) CHECK(same_d(dr[j], _Z3powdd(dx[j], dy[j])), "pow double%d", widths[k]);
   }

   float x[16], r[16], r2[16];
   int k16[16], ir[16];
   for (int j = 0; j < 16; j++) { x[j] = rand_in(-100, 100); k16[j] = (int)(test_rand() % 41) - 20; }
   t_fmax_bcast_float8(x, 3.0f, r);
   for (int j = 0; j < 8; j++) EXPECT_F(r[j], fmaxf(x[j], 3.0f));
   t_ldexp_bcast_float4(x, -3, r);
   for (int j = 0; j < 4; j++) EXPECT_F(r[j], ldexpf(x[j], -3));
   t_ldexp_float16(x, k16, r);
   for (int j = 0; j < 16; j++) EXPECT_F(r[j], ldexpf(x[j], k16[j]));
   t_rootn_float3(x, k16, r);
   for (int j = 0; j < 3; j++) EXPECT_F(r[j], _Z5rootnfi(x[j], k16[j]));
   t_pown_float8(x, k16, r);
   for (int j = 0; j < 8; j++) EXPECT_F(r[j], _Z4pownfi(x[j], k16[j]));
   float sx[8] = {0.0f, NAN, INFINITY, 1.0f, 0x1p-149f, -5.0f, 1e30f, 0.3f};
   t_ilogb_float8(sx, ir);
   for (int j = 0; j < 8; j++) EXPECT_I(ir[j], _Z5ilogbf(sx[j]));
   unsigned codes[4] = {0, 1, 0x3fffff, 0xffffffff};
   t_nan_float4(codes, r);
   for (int j = 0; j < 4; j++) CHECK(isnan(r[j]) && f2u(r[j]) == (0x7fc00000u | (codes[j] & 0x3fffff)), "nan4 lane %d", j);
   float y[16];
   for (int j = 0; j < 16; j++) y[j] = rand_in(-100, 100);
   t_mix_bcast_float4(x, y, 0.25f, r);
   for (int j = 0; j < 4; j++) EXPECT_F(r[j], x[j] + (y[j] - x[j]) * 0.25f);
   t_step_bcast_float3(0.0f, x, r);
   for (int j = 0; j < 3; j++) EXPECT_F(r[j], x[j] < 0.0f ? 0.0f : 1.0f);

   int ev[4] = {7, 7, 7, 7};
   t_frexp_global_float3(x, r, ev);
   for (int j = 0; j < 3; j++) { int e; EXPECT_F(r[j], _Z5frexpfPU9CLprivatei(x[j], &e)); EXPECT_I(ev[j], e); }
   t_fract_local_float16(x, r, r2);
   for (int j = 0; j < 16; j++) { float i; EXPECT_F(r[j], _Z5fractfPU9CLprivatef(x[j], &i)); EXPECT_F(r2[j], i); }
   t_sincos_private_float8(x, r, r2);
   for (int j = 0; j < 8; j++) { EXPECT_F(r[j], _Z3sinf(x[j])); EXPECT_F(r2[j], _Z3cosf(x[j])); }
   t_remquo_global_float4(x, y, r, ir);
   for (int j = 0; j < 4; j++) { int q; EXPECT_F(r[j], _Z6remquoffPU9CLprivatei(x[j], y[j], &q)); EXPECT_I(ir[j], q); }
   float ip;
   EXPECT_F(t_modf_local(-2.25f, &ip), -0.25f); EXPECT_F(ip, -2.0f);
   int sg = 0;
   t_lgamma_r_global(-1.5f, &sg); EXPECT_I(sg, 1);
}

int main(void)
{
   printf("float accuracy (max error over random and ranged inputs):\n");
   for (size_t i = 0; i < sizeof(unaries) / sizeof(unaries[0]); i++)
      sweep_unary(&unaries[i]);
   for (size_t i = 0; i < sizeof(binaries) / sizeof(binaries[0]); i++)
      sweep_binary(&binaries[i]);
   sweep_int_exponent();
   sweep_double();
   special_values();
   vector_forms();
   return test_report("builtins-math");
}
