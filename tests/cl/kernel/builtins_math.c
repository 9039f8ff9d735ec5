/* Math builtins (OpenCL 1.1 §6.11.2) as real kernels use them, checked
 * against a double-precision host reference with the §7.4 ULP limits, plus
 * the special values of §7.5 and the vector forms.  native_* functions have
 * implementation-defined accuracy: a loose relative bound is used. */
#include <float.h>

#include "kk.h"

#define N 2048

#define K1(name, expr)                                                                   \
   "__kernel void " #name "(__global const float *x, __global const float *y,\n"         \
   "                        __global const float *z, __global float *o)\n"               \
   "{ size_t i = get_global_id(0); float a = x[i], b = y[i], c = z[i]; o[i] = " expr "; }\n"
/* Vector forms: the same function on float4/float3/float16 lanes. */
#define KV(name, fn, w)                                                                  \
   "__kernel void " #name "(__global const float *x, __global const float *y,\n"         \
   "                        __global const float *z, __global float *o)\n"               \
   "{ size_t i = get_global_id(0);\n"                                                    \
   "  vstore" #w "(" #fn "(vload" #w "(i, x), vload" #w "(i, y)), i, o); }\n"
#define KV1(name, fn, w)                                                                 \
   "__kernel void " #name "(__global const float *x, __global const float *y,\n"         \
   "                        __global const float *z, __global float *o)\n"               \
   "{ size_t i = get_global_id(0); vstore" #w "(" #fn "(vload" #w "(i, x)), i, o); }\n"

static const char *source =
   K1(k_sin, "sin(a)") K1(k_cos, "cos(a)") K1(k_tan, "tan(a)") K1(k_exp, "exp(a)")
   K1(k_exp2, "exp2(a)") K1(k_log, "log(a)") K1(k_log2, "log2(a)") K1(k_log10, "log10(a)")
   K1(k_pow, "pow(a, b)") K1(k_powr, "powr(a, b)") K1(k_pown, "pown(a, (int)b)")
   K1(k_sqrt, "sqrt(a)") K1(k_rsqrt, "rsqrt(a)") K1(k_cbrt, "cbrt(a)")
   K1(k_fabs, "fabs(a)") K1(k_fmin, "fmin(a, b)") K1(k_fmax, "fmax(a, b)")
   K1(k_floor, "floor(a)") K1(k_ceil, "ceil(a)") K1(k_trunc, "trunc(a)")
   K1(k_round, "round(a)") K1(k_rint, "rint(a)") K1(k_fmod, "fmod(a, b)")
   K1(k_atan, "atan(a)") K1(k_atan2, "atan2(a, b)") K1(k_asin, "asin(a)")
   K1(k_acos, "acos(a)") K1(k_sinh, "sinh(a)") K1(k_tanh, "tanh(a)")
   K1(k_cospi, "cospi(a)") K1(k_tanpi, "tanpi(a)") K1(k_tgamma, "tgamma(a)")
   K1(k_hypot, "hypot(a, b)") K1(k_copysign, "copysign(a, b)")
   K1(k_mad, "mad(a, b, c)") K1(k_fma, "fma(a, b, c)") K1(k_div, "a / b")
   K1(k_ldexp, "ldexp(a, (int)b)") K1(k_fract, "({ float ip; fract(a, &ip); })")
   K1(k_native_sin, "native_sin(a)") K1(k_native_cos, "native_cos(a)")
   K1(k_native_exp, "native_exp(a)") K1(k_native_log, "native_log(a)")
   K1(k_native_sqrt, "native_sqrt(a)") K1(k_native_rsqrt, "native_rsqrt(a)")
   K1(k_native_recip, "native_recip(a)") K1(k_native_divide, "native_divide(a, b)")
   K1(k_native_powr, "native_powr(a, b)") K1(k_native_exp2, "native_exp2(a)")
   K1(k_native_log2, "native_log2(a)") K1(k_native_tan, "native_tan(a)")
   KV1(k_sin4, sin, 4) KV1(k_exp3, exp, 3) KV1(k_sqrt16, sqrt, 16) KV(k_pow2, pow, 2)
   KV(k_fmax8, fmax, 8) KV1(k_floor16, floor, 16)
   /* Scalar-with-vector forms: fmin(floatn, float), and fract's pointer. */
   "__kernel void k_fmin_bcast(__global const float *x, __global const float *y,\n"
   "                           __global const float *z, __global float *o)\n"
   "{ size_t i = get_global_id(0); vstore4(fmin(vload4(i, x), y[0]), i, o); }\n"
   "__kernel void k_fract_ptr(__global const float *x, __global const float *y,\n"
   "                          __global const float *z, __global float *o)\n"
   "{ size_t i = get_global_id(0); float ip; o[2 * i] = fract(x[i], &ip); o[2 * i + 1] = ip; }\n";

enum domain { D_TRIG, D_WIDE_TRIG, D_EXP, D_POS, D_POW, D_ANY, D_UNIT, D_SMALL, D_FMA,
              D_NATIVE_TRIG, D_NATIVE_EXP, D_NATIVE_POS, D_INT_EXP, D_DIV };

struct fn {
   const char *kernel;
   int arity;
   double (*ref)(double, double, double);
   double ulps;       /* §7.4 limit; < 0: relative bound -ulps instead */
   enum domain dom;
   int width;         /* items per work-item (vector forms) */
};

static double r_sin(double a, double b, double c) { (void)b, (void)c; return sin(a); }
static double r_cos(double a, double b, double c) { (void)b, (void)c; return cos(a); }
static double r_tan(double a, double b, double c) { (void)b, (void)c; return tan(a); }
static double r_exp(double a, double b, double c) { (void)b, (void)c; return exp(a); }
static double r_exp2(double a, double b, double c) { (void)b, (void)c; return exp2(a); }
static double r_log(double a, double b, double c) { (void)b, (void)c; return log(a); }
static double r_log2(double a, double b, double c) { (void)b, (void)c; return log2(a); }
static double r_log10(double a, double b, double c) { (void)b, (void)c; return log10(a); }
static double r_pow(double a, double b, double c) { (void)c; return pow(a, b); }
static double r_pown(double a, double b, double c) { (void)c; return pow(a, (int)b); }
static double r_sqrt(double a, double b, double c) { (void)b, (void)c; return sqrt(a); }
static double r_rsqrt(double a, double b, double c) { (void)b, (void)c; return 1.0 / sqrt(a); }
static double r_cbrt(double a, double b, double c) { (void)b, (void)c; return cbrt(a); }
static double r_fabs(double a, double b, double c) { (void)b, (void)c; return fabs(a); }
static double r_fmin(double a, double b, double c) { (void)c; return fmin(a, b); }
static double r_fmax(double a, double b, double c) { (void)c; return fmax(a, b); }
static double r_floor(double a, double b, double c) { (void)b, (void)c; return floor(a); }
static double r_ceil(double a, double b, double c) { (void)b, (void)c; return ceil(a); }
static double r_trunc(double a, double b, double c) { (void)b, (void)c; return trunc(a); }
static double r_round(double a, double b, double c) { (void)b, (void)c; return round(a); }
static double r_rint(double a, double b, double c) { (void)b, (void)c; return rint(a); }
static double r_fmod(double a, double b, double c) { (void)c; return fmod(a, b); }
static double r_atan(double a, double b, double c) { (void)b, (void)c; return atan(a); }
static double r_atan2(double a, double b, double c) { (void)c; return atan2(a, b); }
static double r_asin(double a, double b, double c) { (void)b, (void)c; return asin(a); }
static double r_acos(double a, double b, double c) { (void)b, (void)c; return acos(a); }
static double r_sinh(double a, double b, double c) { (void)b, (void)c; return sinh(a); }
static double r_tanh(double a, double b, double c) { (void)b, (void)c; return tanh(a); }
static double r_hypot(double a, double b, double c) { (void)c; return hypot(a, b); }
static double r_copysign(double a, double b, double c) { (void)c; return copysign(a, b); }
static double r_fma(double a, double b, double c) { return fmaf((float)a, (float)b, (float)c); }
static double r_div(double a, double b, double c) { (void)c; return a / b; }
static double r_ldexp(double a, double b, double c) { (void)c; return ldexp(a, (int)b); }
static double r_fract(double a, double b, double c)
{
   (void)b, (void)c;
   double f = a - floor(a);
   /* fract returns fmin(x - floor(x), 0x1.fffffep-1f). */
   return fmin(f, 0x1.fffffep-1);
}
static double r_recip(double a, double b, double c) { (void)b, (void)c; return 1.0 / a; }

static const struct fn fns[] = {
   {"k_sin", 1, r_sin, 4, D_TRIG, 1},
   {"k_sin", 1, r_sin, 4, D_WIDE_TRIG, 1},
   {"k_cos", 1, r_cos, 4, D_TRIG, 1},
   {"k_cos", 1, r_cos, 4, D_WIDE_TRIG, 1},
   {"k_tan", 1, r_tan, 5, D_TRIG, 1},
   {"k_exp", 1, r_exp, 3, D_EXP, 1},
   {"k_exp2", 1, r_exp2, 3, D_EXP, 1},
   {"k_log", 1, r_log, 3, D_POS, 1},
   {"k_log2", 1, r_log2, 3, D_POS, 1},
   {"k_log10", 1, r_log10, 3, D_POS, 1},
   {"k_pow", 1, r_pow, 16, D_POW, 1},
   {"k_powr", 1, r_pow, 16, D_POW, 1},
   {"k_pown", 1, r_pown, 16, D_POW, 1},
   {"k_sqrt", 1, r_sqrt, 3, D_POS, 1},
   {"k_rsqrt", 1, r_rsqrt, 2, D_POS, 1},
   {"k_cbrt", 1, r_cbrt, 2, D_ANY, 1},
   {"k_fabs", 1, r_fabs, 0, D_ANY, 1},
   {"k_fmin", 2, r_fmin, 0, D_ANY, 1},
   {"k_fmax", 2, r_fmax, 0, D_ANY, 1},
   {"k_floor", 1, r_floor, 0, D_ANY, 1},
   {"k_ceil", 1, r_ceil, 0, D_ANY, 1},
   {"k_trunc", 1, r_trunc, 0, D_ANY, 1},
   {"k_round", 1, r_round, 0, D_SMALL, 1},
   {"k_rint", 1, r_rint, 0, D_SMALL, 1},
   {"k_fmod", 2, r_fmod, 0, D_ANY, 1},
   {"k_atan", 1, r_atan, 5, D_ANY, 1},
   {"k_atan2", 2, r_atan2, 6, D_ANY, 1},
   {"k_asin", 1, r_asin, 4, D_UNIT, 1},
   {"k_acos", 1, r_acos, 4, D_UNIT, 1},
   {"k_sinh", 1, r_sinh, 4, D_TRIG, 1},
   {"k_tanh", 1, r_tanh, 5, D_TRIG, 1},
   {"k_hypot", 2, r_hypot, 4, D_ANY, 1},
   {"k_copysign", 2, r_copysign, 0, D_ANY, 1},
   {"k_fma", 3, r_fma, 0, D_FMA, 1},
   {"k_div", 2, r_div, 2.5, D_DIV, 1},
   {"k_ldexp", 2, r_ldexp, 0, D_INT_EXP, 1},
   {"k_fract", 1, r_fract, 0, D_SMALL, 1},
   {"k_native_sin", 1, r_sin, -1e-3, D_NATIVE_TRIG, 1},
   {"k_native_cos", 1, r_cos, -1e-3, D_NATIVE_TRIG, 1},
   {"k_native_tan", 1, r_tan, -1e-3, D_NATIVE_TRIG, 1},
   {"k_native_exp", 1, r_exp, -1e-3, D_NATIVE_EXP, 1},
   {"k_native_exp2", 1, r_exp2, -1e-3, D_NATIVE_EXP, 1},
   {"k_native_log", 1, r_log, -1e-3, D_NATIVE_POS, 1},
   {"k_native_log2", 1, r_log2, -1e-3, D_NATIVE_POS, 1},
   {"k_native_sqrt", 1, r_sqrt, -1e-3, D_NATIVE_POS, 1},
   {"k_native_rsqrt", 1, r_rsqrt, -1e-3, D_NATIVE_POS, 1},
   {"k_native_recip", 1, r_recip, -1e-3, D_NATIVE_POS, 1},
   {"k_native_divide", 2, r_div, -1e-3, D_NATIVE_POS, 1},
   {"k_native_powr", 2, r_pow, -1e-3, D_NATIVE_POS, 1},
   {"k_sin4", 1, r_sin, 4, D_TRIG, 4},
   {"k_exp3", 1, r_exp, 3, D_EXP, 3},
   {"k_sqrt16", 1, r_sqrt, 3, D_POS, 16},
   {"k_pow2", 2, r_pow, 16, D_POW, 2},
   {"k_fmax8", 2, r_fmax, 0, D_ANY, 8},
   {"k_floor16", 1, r_floor, 0, D_ANY, 16},
};

static uint32_t rng = 12345;
static float frand(float lo, float hi)
{
   rng ^= rng << 13;
   rng ^= rng >> 17;
   rng ^= rng << 5;
   return lo + (hi - lo) * (float)((rng >> 8) / 16777216.0);
}
/* Log-uniform magnitude in [2^lo, 2^hi], random sign if sign. */
static float lrand(int lo, int hi, int sign)
{
   float m = exp2f(frand((float)lo, (float)hi));
   return sign && frand(0, 1) < 0.5f ? -m : m;
}

static void fill_domain(enum domain d, float *x, float *y, float *z)
{
   for (int i = 0; i < N; i++) {
      switch (d) {
      case D_TRIG:
         x[i] = frand(-10, 10);
         break;
      case D_WIDE_TRIG:
         x[i] = lrand(-20, 25, 1); /* up to ~3e7: argument reduction */
         break;
      case D_EXP:
         x[i] = frand(-87, 88);
         break;
      case D_POS:
         x[i] = lrand(-120, 120, 0);
         break;
      case D_POW:
         x[i] = lrand(-8, 8, 0);
         y[i] = (float)(int)frand(-12, 12) + (i % 2 ? frand(0, 1) : 0.0f);
         break;
      case D_ANY:
         x[i] = lrand(-30, 30, 1);
         y[i] = lrand(-30, 30, 1);
         break;
      case D_UNIT:
         x[i] = frand(-1, 1);
         break;
      case D_SMALL:
         /* Halves and near-halves exercise round vs rint. */
         x[i] = (i % 3 == 0) ? (float)((int)frand(-200, 200)) + 0.5f : frand(-300, 300);
         break;
      case D_FMA: {
         /* Products whose low bits matter: a*b + c cancels. */
         float a = frand(1, 2), b = frand(1, 2);
         x[i] = a;
         y[i] = b;
         z[i] = i % 2 ? -(float)((double)a * b) : frand(-4, 4);
         break;
      }
      case D_NATIVE_TRIG:
         x[i] = frand(-3.14159f, 3.14159f);
         y[i] = 0;
         break;
      case D_NATIVE_EXP:
         x[i] = frand(-10, 10);
         break;
      case D_NATIVE_POS:
         x[i] = lrand(-10, 10, 0);
         y[i] = frand(-3, 3);
         break;
      case D_INT_EXP:
         x[i] = lrand(-20, 20, 1);
         y[i] = (float)(int)frand(-40, 40);
         break;
      case D_DIV:
         x[i] = lrand(-60, 60, 1);
         y[i] = lrand(-60, 60, 1);
         break;
      }
   }
}

/* Error in ULPs of got against the exact (double) want. */
static double ulp_error(float got, double want)
{
   if (isnan(want))
      return isnan(got) ? 0 : INFINITY;
   if (isinf(want))
      return got == (float)want ? 0 : INFINITY;
   float wf = (float)want;
   if (isinf(wf)) /* rounds to inf in float: only inf or FLT_MAX are right */
      return (got == wf || fabsf(got) == FLT_MAX) ? 0 : INFINITY;
   double a = fabs(want);
   int e;
   frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
   double ulp = ldexp(1.0, e - 24);
   if (ulp < ldexp(1.0, -149))
      ulp = ldexp(1.0, -149);
   return fabs((double)got - want) / ulp;
}

static void run_fn(const struct kt_env *env, cl_program p, const struct fn *f, float *x,
                   float *y, float *z)
{
   fill_domain(f->dom, x, y, z);
   cl_kernel k = kk_kernel(p, f->kernel);
   size_t outn = N;
   cl_mem mx = kk_buffer_in(env, N * sizeof(float), x), my = kk_buffer_in(env, N * sizeof(float), y),
          mz = kk_buffer_in(env, N * sizeof(float), z),
          mo = kk_buffer_in(env, outn * sizeof(float), NULL);
   KK_ARG(k, 0, mx);
   KK_ARG(k, 1, my);
   KK_ARG(k, 2, mz);
   KK_ARG(k, 3, mo);
   size_t g = N / f->width;
   KK_RUN(env, k, 1, NULL, &g, NULL);
   float *o = malloc(outn * sizeof(float));
   REQUIRE(o);
   kk_read(env, mo, outn * sizeof(float), o);
   double worst = 0;
   int worst_i = -1, bad = 0;
   size_t n = g * f->width;
   for (size_t i = 0; i < n; i++) {
      double want = f->ref(x[i], y[i], z[i]);
      double err;
      if (f->ulps >= 0) {
         err = ulp_error(o[i], want);
      } else {
         double scale = fabs(want) > 1 ? fabs(want) : 1;
         err = isnan(want) ? (isnan(o[i]) ? 0 : INFINITY) : fabs(o[i] - want) / scale;
      }
      if (!strcmp(f->kernel, "k_mad")) {
         /* unreachable: mad is checked apart */
      }
      if (err > worst) {
         worst = err;
         worst_i = (int)i;
      }
      double limit = f->ulps >= 0 ? f->ulps : -f->ulps;
      if (err > limit && bad++ < 3)
         KT_FAIL("%s(%a%s%a): got %a (%.9g), expected %a (%.17g): error %.3g %s > %g",
                 f->kernel, x[i], f->arity > 1 ? ", " : "", f->arity > 1 ? y[i] : 0.0f, o[i],
                 o[i], want, want, err, f->ulps >= 0 ? "ulp" : "relative", limit);
   }
   if (getenv("KK_VERBOSE") && worst_i >= 0)
      printf("%-18s worst %.3g at x=%a\n", f->kernel, worst, x[worst_i]);
   free(o);
   CHECK_OK(clReleaseMemObject(mx));
   CHECK_OK(clReleaseMemObject(my));
   CHECK_OK(clReleaseMemObject(mz));
   CHECK_OK(clReleaseMemObject(mo));
   CHECK_OK(clReleaseKernel(k));
}

/* Runs kernel `name` on explicit inputs and returns the outputs. */
static void run_values(const struct kt_env *env, cl_program p, const char *name, const float *x,
                       const float *y, const float *z, float *o, size_t n)
{
   cl_kernel k = kk_kernel(p, name);
   cl_mem mx = kk_buffer_in(env, n * sizeof(float), x), my = kk_buffer_in(env, n * sizeof(float), y),
          mz = kk_buffer_in(env, n * sizeof(float), z),
          mo = kk_buffer_in(env, 2 * n * sizeof(float), NULL);
   KK_ARG(k, 0, mx);
   KK_ARG(k, 1, my);
   KK_ARG(k, 2, mz);
   KK_ARG(k, 3, mo);
   KK_RUN(env, k, 1, NULL, &n, NULL);
   kk_read(env, mo, n * sizeof(float), o);
   CHECK_OK(clReleaseMemObject(mx));
   CHECK_OK(clReleaseMemObject(my));
   CHECK_OK(clReleaseMemObject(mz));
   CHECK_OK(clReleaseMemObject(mo));
   CHECK_OK(clReleaseKernel(k));
}

static bool same_value(float a, float b)
{
   if (isnan(a) || isnan(b))
      return isnan(a) && isnan(b);
   return a == b && signbit(a) == signbit(b);
}

/* §7.5 special values (C99 Annex F), exact. */
static void special_values(const struct kt_env *env, cl_program p)
{
   const float inf = INFINITY, nan = NAN;
   struct {
      const char *kernel;
      float x, y, want;
   } cases[] = {
      {"k_sin", inf, 0, nan},     {"k_sin", -0.0f, 0, -0.0f}, {"k_cos", -inf, 0, nan},
      {"k_cos", 0, 0, 1},         {"k_exp", -inf, 0, 0},      {"k_exp", inf, 0, inf},
      {"k_exp", 0, 0, 1},         {"k_exp", 100, 0, inf},     {"k_exp", nan, 0, nan},
      {"k_log", 0, 0, -inf},      {"k_log", -0.0f, 0, -inf},  {"k_log", -1, 0, nan},
      {"k_log", 1, 0, 0},         {"k_log", inf, 0, inf},     {"k_log2", 8, 0, 3},
      {"k_sqrt", -1, 0, nan},     {"k_sqrt", -0.0f, 0, -0.0f}, {"k_sqrt", inf, 0, inf},
      {"k_sqrt", 16, 0, 4},       {"k_pow", 0, -1, inf},      {"k_pow", -8, 1.0f / 3, nan},
      {"k_pow", 1, nan, 1},       {"k_pow", nan, 0, 1},       {"k_pow", 2, 10, 1024},
      {"k_pow", -2, 3, -8},       {"k_pown", -2, 3, -8},      {"k_fabs", -0.0f, 0, 0.0f},
      {"k_fabs", -inf, 0, inf},   {"k_fmin", nan, 1, 1},      {"k_fmin", 1, nan, 1},
      {"k_fmax", nan, -1, -1},    {"k_fmax", -1, nan, -1},    {"k_fmin", -0.0f, -0.0f, -0.0f},
      {"k_floor", -0.5f, 0, -1},  {"k_floor", -0.0f, 0, -0.0f}, {"k_ceil", -0.5f, 0, -0.0f},
      {"k_ceil", 1.0001f, 0, 2},  {"k_floor", inf, 0, inf},   {"k_trunc", -2.7f, 0, -2},
      {"k_round", 2.5f, 0, 3},    {"k_round", -2.5f, 0, -3},  {"k_rint", 2.5f, 0, 2},
      {"k_rint", 3.5f, 0, 4},     {"k_rint", -2.5f, 0, -2},   {"k_fmod", 5.5f, 2, 1.5f},
      {"k_fmod", -5.5f, 2, -1.5f}, {"k_fmod", 1, 0, nan},     {"k_atan2", 0, -1, 3.14159274f},
      {"k_copysign", 3, -0.0f, -3}, {"k_hypot", inf, nan, inf}, {"k_div", 1, 0, inf},
      {"k_div", 0, 0, nan},       {"k_div", -1, 0, -inf},     {"k_rsqrt", 0, 0, inf},
      {"k_rsqrt", 4, 0, 0.5f},    {"k_cbrt", -27, 0, -3},     {"k_ldexp", 1, 10, 1024},
      {"k_fract", -0.25f, 0, 0.75f}, {"k_fract", -1e-10f, 0, 0x1.fffffep-1f},
      {"k_fract", inf, 0, 0},     {"k_fract", -inf, 0, -0.0f}, {"k_fract", nan, 0, nan},
      {"k_fract", -0.0f, 0, -0.0f},
      /* cospi(n + 0.5) is +0; tanpi(n) is ±0 by n's sign, flipped for
       * odd n (§7.5.1; the CTS's math_edge_cases). */
      {"k_cospi", 0.5f, 0, 0.0f}, {"k_cospi", -0.5f, 0, 0.0f}, {"k_cospi", 2.5f, 0, 0.0f},
      {"k_tanpi", 1, 0, -0.0f},   {"k_tanpi", -1, 0, 0.0f},    {"k_tanpi", 3, 0, -0.0f},
      {"k_tanpi", -3, 0, 0.0f},   {"k_tanpi", 2, 0, 0.0f},     {"k_tanpi", -2, 0, -0.0f},
      {"k_tanpi", -0.0f, 0, -0.0f},
      /* Γ of a large negative non-integer underflows to ±0, negative on
       * (-n-1, -n) for even n. */
      {"k_tgamma", -0x1.0002p+14f, 0, -0.0f}, {"k_tgamma", -60.5f, 0, -0.0f},
      {"k_tgamma", -51.5f, 0, 0.0f},
      /* Denormals are kept (CL_FP_DENORM), and results rounded to even. */
      {"k_sqrt", 0x1p-149f, 0, 0x1.6a09e6p-75f}, {"k_div", 0x1p-126f, 2, 0x1p-127f},
      {"k_div", 0x1p-149f, 2, 0},  {"k_div", 0x1.8p-148f, 2, 0x1p-148f},
      {"k_ldexp", 1, -149, 0x1p-149f}, {"k_ldexp", 1, -150, 0}, {"k_log2", 0x1p-149f, 0, -149},
      {"k_fmin", 0x1p-149f, 0, 0}, {"k_fmax", -0x1p-149f, -0.0f, -0.0f},
      {"k_mad", 0x1p-149f, 1, 0x1p-149f}, {"k_copysign", 0x1p-149f, -0.0f, -0x1p-149f},
   };
   size_t nc = sizeof(cases) / sizeof(cases[0]);
   for (size_t i = 0; i < nc; i++) {
      float x[1] = {cases[i].x}, y[1] = {cases[i].y}, z[1] = {0}, o[2];
      run_values(env, p, cases[i].kernel, x, y, z, o, 1);
      CHECK(same_value(o[0], cases[i].want), " %s(%g, %g) = %g (%a), expected %g", cases[i].kernel,
            cases[i].x, cases[i].y, o[0], o[0], cases[i].want);
   }
}

/* mad: any of a*b+c rounded once or twice (§6.11.2: accuracy traded for
 * speed, but it is still a multiply-add). */
static void mad_check(const struct kt_env *env, cl_program p, float *x, float *y, float *z)
{
   fill_domain(D_FMA, x, y, z);
   float *o = malloc(2 * N * sizeof(float));
   REQUIRE(o);
   run_values(env, p, "k_mad", x, y, z, o, N);
   int bad = 0;
   for (int i = 0; i < N; i++) {
      float twice = x[i] * y[i];
      twice += z[i];
      float once = fmaf(x[i], y[i], z[i]);
      if (o[i] != twice && o[i] != once && bad++ < 3)
         KT_FAIL("mad(%a, %a, %a) = %a; a*b+c is %a, fma %a", x[i], y[i], z[i], o[i], twice, once);
   }
   /* fma must differ from the twice-rounded form somewhere in that set,
    * or the check above proves nothing about it. */
   run_values(env, p, "k_fma", x, y, z, o, N);
   int differs = 0;
   for (int i = 0; i < N; i++) {
      float twice = x[i] * y[i];
      twice += z[i];
      differs += o[i] != twice;
   }
   CHECK(differs > 0, " fma never differed from a*b+c: the inputs do not test fusing");
   free(o);
}

static void fract_ptr(const struct kt_env *env, cl_program p)
{
   float x[8] = {1.25f, -1.25f, 0, -0.0f, 100.5f, -3.0f, INFINITY, -INFINITY}, y[8] = {0},
         z[8] = {0};
   float o[16];
   cl_kernel k = kk_kernel(p, "k_fract_ptr");
   cl_mem mx = kk_buffer_in(env, sizeof(x), x), my = kk_buffer_in(env, sizeof(y), y),
          mz = kk_buffer_in(env, sizeof(z), z), mo = kk_buffer_in(env, sizeof(o), NULL);
   KK_ARG(k, 0, mx);
   KK_ARG(k, 1, my);
   KK_ARG(k, 2, mz);
   KK_ARG(k, 3, mo);
   size_t g = 8;
   KK_RUN(env, k, 1, NULL, &g, NULL);
   kk_read(env, mo, sizeof(o), o);
   for (int i = 0; i < 8; i++) {
      float ip = floorf(x[i]);
      /* §7.5.1: fract(±0) is ±0, fract(±inf) is ±0 with ±inf in iptr. */
      float fr = isinf(x[i]) ? copysignf(0, x[i]) : x[i] == 0 ? x[i] : fminf(x[i] - ip, 0x1.fffffep-1f);
      bool neg_int = x[i] < 0 && !isinf(x[i]) && floorf(x[i]) == x[i];
      if (neg_int) {
         /* src/llvm/builtins/math_ptr.cl FRACT: modf(-3) is -0, and -0 < 0
          * is false, so -0 comes back where x - floor(x) is +0. */
         CHECK(o[2 * i] == 0 && same_value(o[2 * i + 1], ip), " fract(%g, &ip) = %g, ip %g", x[i],
               o[2 * i], o[2 * i + 1]);
         CHECK(same_value(o[2 * i], fr), "fract(%g, &ip) = %g, expected +0 (x - floor(x))",
                   x[i], o[2 * i]);
         continue;
      }
      CHECK(same_value(o[2 * i], fr) && same_value(o[2 * i + 1], ip),
            " fract(%g, &ip) = %g, ip %g; expected %g, %g", x[i], o[2 * i], o[2 * i + 1], fr, ip);
   }
   CHECK_OK(clReleaseMemObject(mx));
   CHECK_OK(clReleaseMemObject(my));
   CHECK_OK(clReleaseMemObject(mz));
   CHECK_OK(clReleaseMemObject(mo));
   CHECK_OK(clReleaseKernel(k));

   /* fmin(float4, float) broadcasts the scalar. */
   float v[16], s[1] = {0.5f}, out[16];
   for (int i = 0; i < 16; i++)
      v[i] = (float)i * 0.1f;
   k = kk_kernel(p, "k_fmin_bcast");
   mx = kk_buffer_in(env, sizeof(v), v);
   my = kk_buffer_in(env, sizeof(s), s);
   mo = kk_buffer_in(env, sizeof(out), NULL);
   KK_ARG(k, 0, mx);
   KK_ARG(k, 1, my);
   KK_ARG(k, 2, my);
   KK_ARG(k, 3, mo);
   g = 4;
   KK_RUN(env, k, 1, NULL, &g, NULL);
   kk_read(env, mo, sizeof(out), out);
   for (int i = 0; i < 16; i++)
      CHECK(out[i] == fminf(v[i], 0.5f), " fmin(float4, 0.5f)[%d] = %g", i, out[i]);
   CHECK_OK(clReleaseMemObject(mx));
   CHECK_OK(clReleaseMemObject(my));
   CHECK_OK(clReleaseMemObject(mo));
   CHECK_OK(clReleaseKernel(k));
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   cl_program p = kk_build(&env, source, NULL);
   float *x = calloc(N, sizeof(float)), *y = calloc(N, sizeof(float)), *z = calloc(N, sizeof(float));
   REQUIRE(x && y && z);
   for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
      run_fn(&env, p, &fns[i], x, y, z);
   special_values(&env, p);
   mad_check(&env, p, x, y, z);
   fract_ptr(&env, p);
   free(x);
   free(y);
   free(z);
   CHECK_OK(clReleaseProgram(p));
   kt_teardown(&env);
   return kt_result();
}
