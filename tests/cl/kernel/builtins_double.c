/* cl_khr_fp64 (OpenCL 1.1 §9.3): double arithmetic and the double
 * builtins as kernels use them.  Math functions are checked against a
 * long double (64-bit mantissa) host reference with the §7.4 double ULP
 * limits; +, -, *, / and sqrt must be correctly rounded.  Then the edge
 * values every family must get right: §7.5 special values, denormals kept
 * (no flush to zero), conversions with every rounding mode and _sat at
 * their bounds, vstore_half from double in every rounding mode, and
 * relational results (-1 per true lane of a double vector). */
#include <float.h>
#include <limits.h>

#include "kk.h"

#define N 2048

#define KD(name, expr)                                                                     \
   "__kernel void " #name "(__global const double *x, __global const double *y,\n"         \
   "                        __global double *o)\n"                                         \
   "{ size_t i = get_global_id(0); double a = x[i], b = y[i]; o[i] = " expr "; }\n"
/* The same function on double4 / double3 lanes. */
#define KDV(name, fn, w)                                                                   \
   "__kernel void " #name "(__global const double *x, __global const double *y,\n"         \
   "                        __global double *o)\n"                                         \
   "{ size_t i = get_global_id(0); vstore" #w "(" #fn "(vload" #w "(i, x)), i, o); }\n"

static const char *source =
   "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
   KD(d_add, "a + b") KD(d_sub, "a - b") KD(d_mul, "a * b") KD(d_div, "a / b")
   KD(d_sqrt, "sqrt(a)") KD(d_fma, "fma(a, b, -1.0)")
   KD(d_sin, "sin(a)") KD(d_cos, "cos(a)") KD(d_tan, "tan(a)") KD(d_exp, "exp(a)")
   KD(d_exp2, "exp2(a)") KD(d_exp10, "exp10(a)") KD(d_expm1, "expm1(a)")
   KD(d_log, "log(a)") KD(d_log2, "log2(a)") KD(d_log10, "log10(a)") KD(d_log1p, "log1p(a)")
   KD(d_pow, "pow(a, b)") KD(d_powr, "powr(a, b)") KD(d_pown, "pown(a, (int)b)")
   KD(d_rootn, "rootn(a, (int)b)") KD(d_cbrt, "cbrt(a)") KD(d_rsqrt, "rsqrt(a)")
   KD(d_atan, "atan(a)") KD(d_atan2, "atan2(a, b)") KD(d_asin, "asin(a)") KD(d_acos, "acos(a)")
   KD(d_sinh, "sinh(a)") KD(d_cosh, "cosh(a)") KD(d_tanh, "tanh(a)") KD(d_hypot, "hypot(a, b)")
   KD(d_sinpi, "sinpi(a)") KD(d_fmod, "fmod(a, b)") KD(d_floor, "floor(a)")
   KD(d_rint, "rint(a)") KD(d_round, "round(a)") KD(d_fmin, "fmin(a, b)") KD(d_fmax, "fmax(a, b)")
   KD(d_ldexp, "ldexp(a, (int)b)") KD(d_copysign, "copysign(a, b)") KD(d_fabs, "fabs(a)")
   KD(d_nextafter, "nextafter(a, b)") KD(d_cospi, "cospi(a)") KD(d_tanpi, "tanpi(a)")
   KD(d_acospi, "acospi(a)") KD(d_tgamma, "tgamma(a)")
   /* frexp's exponent where it is not 0, else its value. */
   KD(d_frexp, "({ int e = 7; double m = frexp(a, &e); e ? (double)e : m; })")
   KDV(d_sin4, sin, 4) KDV(d_exp3, exp, 3) KDV(d_sqrt2, sqrt, 2) KDV(d_cbrt16, cbrt, 16)
   /* Conversions from double: every rounding mode, and saturation. */
   "__kernel void d_to_float(__global const double *x, __global float *o)\n"
   "{ size_t i = get_global_id(0); double a = x[i];\n"
   "  o[5 * i] = convert_float(a); o[5 * i + 1] = convert_float_rte(a);\n"
   "  o[5 * i + 2] = convert_float_rtz(a); o[5 * i + 3] = convert_float_rtp(a);\n"
   "  o[5 * i + 4] = convert_float_rtn(a); }\n"
   "__kernel void d_to_int(__global const double *x, __global int *o, __global long *l)\n"
   "{ size_t i = get_global_id(0); double a = x[i];\n"
   "  o[4 * i] = convert_int_sat(a); o[4 * i + 1] = convert_int_sat_rte(a);\n"
   "  o[4 * i + 2] = convert_int_sat_rtp(a); o[4 * i + 3] = convert_int_sat_rtn(a);\n"
   "  l[2 * i] = convert_long_sat(a); l[2 * i + 1] = (long)convert_uchar_sat_rte(a); }\n"
   "__kernel void l_to_double(__global const ulong *x, __global double *o)\n"
   "{ size_t i = get_global_id(0); ulong u = x[i]; long s = (long)u;\n"
   "  o[6 * i] = convert_double_rte(u); o[6 * i + 1] = convert_double_rtz(u);\n"
   "  o[6 * i + 2] = convert_double_rtp(u); o[6 * i + 3] = convert_double_rtn(u);\n"
   "  o[6 * i + 4] = convert_double_rtn(s); o[6 * i + 5] = convert_double_rtp(s); }\n"
   /* vstore_half from double, every rounding mode. */
   "__kernel void d_half(__global const double *x, __global half *o)\n"
   "{ size_t i = get_global_id(0); double a = x[i];\n"
   "  vstore_half(a, 5 * i, o); vstore_half_rte(a, 5 * i + 1, o);\n"
   "  vstore_half_rtz(a, 5 * i + 2, o); vstore_half_rtp(a, 5 * i + 3, o);\n"
   "  vstore_half_rtn(a, 5 * i + 4, o); }\n"
   /* Relational functions on double4: -1 (all bits) per true lane. */
   "__kernel void d_rel(__global const double *x, __global const double *y, __global long *o)\n"
   "{ size_t i = get_global_id(0); double4 a = vload4(i, x), b = vload4(i, y);\n"
   "  vstore4(isequal(a, b), 4 * i, o); vstore4(isless(a, b), 4 * i + 1, o);\n"
   "  vstore4(isnan(a), 4 * i + 2, o); vstore4(signbit(a), 4 * i + 3, o); }\n"
   "__kernel void d_select(__global const double *x, __global const double *y, __global double *o)\n"
   "{ size_t i = get_global_id(0); double4 a = vload4(i, x), b = vload4(i, y);\n"
   "  vstore4(select(a, b, isgreater(a, b)), i, o); }\n";

enum domain { D_TRIG, D_EXP, D_POS, D_POW, D_ANY, D_UNIT, D_SMALL, D_ROOTN, D_DIV };

typedef long double (*ref_fn)(long double, long double);

struct fn {
   const char *kernel;
   int arity;
   ref_fn ref;
   double ulps; /* §7.4 double limit */
   enum domain dom;
   int width;
};

#define R1(name, expr) \
   static long double name(long double a, long double b) { (void)b; return expr; }
#define R2(name, expr) \
   static long double name(long double a, long double b) { return expr; }
R2(r_add, a + b) R2(r_sub, a - b) R2(r_mul, a * b) R2(r_div, a / b) R1(r_sqrt, sqrtl(a))
R1(r_sin, sinl(a)) R1(r_cos, cosl(a)) R1(r_tan, tanl(a))
R1(r_exp, expl(a)) R1(r_exp2, exp2l(a)) R1(r_exp10, powl(10.0L, a)) R1(r_expm1, expm1l(a))
R1(r_log, logl(a)) R1(r_log2, log2l(a)) R1(r_log10, log10l(a)) R1(r_log1p, log1pl(a))
R2(r_pow, powl(a, b)) R2(r_pown, powl(a, (int)b)) R2(r_rootn, powl(a, 1.0L / (int)b))
R1(r_cbrt, cbrtl(a)) R1(r_rsqrt, 1.0L / sqrtl(a)) R1(r_atan, atanl(a)) R2(r_atan2, atan2l(a, b))
R1(r_asin, asinl(a)) R1(r_acos, acosl(a)) R1(r_sinh, sinhl(a)) R1(r_cosh, coshl(a))
R1(r_tanh, tanhl(a)) R2(r_hypot, hypotl(a, b)) R2(r_fmod, fmodl(a, b)) R1(r_floor, floorl(a))
R1(r_rint, rintl(a)) R1(r_round, roundl(a)) R2(r_fmin, fminl(a, b)) R2(r_fmax, fmaxl(a, b))
R2(r_ldexp, ldexpl(a, (int)b))
/* sinpi(a) with a reduced exactly first: sinl(pi * a) loses the low bits. */
static long double r_sinpi(long double a, long double b)
{
   (void)b;
   long double r = a - 2.0L * roundl(a / 2.0L); /* exact, in [-1, 1] */
   return sinl(3.14159265358979323846264338327950288L * r);
}

/* Limits are OpenCL 1.1 table 7.2 (double precision). */
static const struct fn fns[] = {
   {"d_add", 2, r_add, 0, D_ANY, 1},        {"d_sub", 2, r_sub, 0, D_ANY, 1},
   {"d_mul", 2, r_mul, 0, D_ANY, 1},        {"d_div", 2, r_div, 0, D_DIV, 1},
   {"d_sqrt", 1, r_sqrt, 0, D_POS, 1},
   {"d_sin", 1, r_sin, 4, D_TRIG, 1},       {"d_cos", 1, r_cos, 4, D_TRIG, 1},
   {"d_tan", 1, r_tan, 5, D_TRIG, 1},       {"d_exp", 1, r_exp, 3, D_EXP, 1},
   {"d_exp2", 1, r_exp2, 3, D_EXP, 1},      {"d_exp10", 1, r_exp10, 3, D_EXP, 1},
   {"d_expm1", 1, r_expm1, 3, D_EXP, 1},    {"d_log", 1, r_log, 3, D_POS, 1},
   {"d_log2", 1, r_log2, 3, D_POS, 1},      {"d_log10", 1, r_log10, 3, D_POS, 1},
   {"d_log1p", 1, r_log1p, 2, D_POS, 1},    {"d_pow", 2, r_pow, 16, D_POW, 1},
   {"d_powr", 2, r_pow, 16, D_POW, 1},      {"d_pown", 2, r_pown, 16, D_POW, 1},
   {"d_rootn", 2, r_rootn, 16, D_ROOTN, 1}, {"d_cbrt", 1, r_cbrt, 2, D_ANY, 1},
   {"d_rsqrt", 1, r_rsqrt, 2, D_POS, 1},    {"d_atan", 1, r_atan, 5, D_ANY, 1},
   {"d_atan2", 2, r_atan2, 6, D_ANY, 1},    {"d_asin", 1, r_asin, 4, D_UNIT, 1},
   {"d_acos", 1, r_acos, 4, D_UNIT, 1},     {"d_sinh", 1, r_sinh, 4, D_TRIG, 1},
   {"d_cosh", 1, r_cosh, 4, D_TRIG, 1},     {"d_tanh", 1, r_tanh, 5, D_TRIG, 1},
   {"d_hypot", 2, r_hypot, 4, D_ANY, 1},    {"d_sinpi", 1, r_sinpi, 4, D_TRIG, 1},
   {"d_fmod", 2, r_fmod, 0, D_ANY, 1},      {"d_floor", 1, r_floor, 0, D_SMALL, 1},
   {"d_rint", 1, r_rint, 0, D_SMALL, 1},    {"d_round", 1, r_round, 0, D_SMALL, 1},
   {"d_fmin", 2, r_fmin, 0, D_ANY, 1},      {"d_fmax", 2, r_fmax, 0, D_ANY, 1},
   {"d_ldexp", 2, r_ldexp, 0, D_ROOTN, 1},  {"d_sin4", 1, r_sin, 4, D_TRIG, 4},
   {"d_exp3", 1, r_exp, 3, D_EXP, 3},       {"d_sqrt2", 1, r_sqrt, 0, D_POS, 2},
   {"d_cbrt16", 1, r_cbrt, 2, D_ANY, 16},
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double drand(double lo, double hi)
{
   rng ^= rng << 13;
   rng ^= rng >> 7;
   rng ^= rng << 17;
   return lo + (hi - lo) * (double)(rng >> 11) * 0x1p-53;
}
/* Log-uniform magnitude in [2^lo, 2^hi], random sign if sign. */
static double lrand(double lo, double hi, int sign)
{
   double m = exp2(drand(lo, hi));
   return sign && drand(0, 1) < 0.5 ? -m : m;
}

static void fill_domain(enum domain d, double *x, double *y)
{
   for (int i = 0; i < N; i++) {
      y[i] = 0;
      switch (d) {
      case D_TRIG: x[i] = i % 4 ? drand(-10, 10) : lrand(-30, 40, 1); break;
      case D_EXP: x[i] = drand(-700, 700); break;
      /* Denormal inputs included: 2^-1070. */
      case D_POS: x[i] = lrand(-1070, 1020, 0); break;
      case D_POW:
         x[i] = lrand(-8, 8, 0);
         y[i] = (double)(int)drand(-40, 40) + (i % 2 ? drand(0, 1) : 0.0);
         break;
      case D_ANY:
         x[i] = lrand(-1000, 1000, 1);
         y[i] = lrand(-1000, 1000, 1);
         break;
      case D_UNIT: x[i] = drand(-1, 1); break;
      case D_SMALL:
         x[i] = (i % 3 == 0) ? (double)(int)drand(-1e6, 1e6) + 0.5 : drand(-1e6, 1e6);
         break;
      case D_ROOTN:
         x[i] = lrand(-300, 300, 0);
         y[i] = (double)(int)drand(1, 12) * (i % 2 ? 1 : -1);
         break;
      case D_DIV:
         x[i] = lrand(-1060, 1020, 1);
         y[i] = lrand(-500, 500, 1);
         break;
      }
   }
}

/* Error in ULPs of got against the (long double) exact want. */
static double ulp_error(double got, long double want)
{
   if (isnan(want))
      return isnan(got) ? 0 : INFINITY;
   double wd = (double)want;
   if (isinf(wd)) /* rounds to inf: only inf or DBL_MAX are right */
      return (got == wd || fabs(got) == DBL_MAX) ? 0 : INFINITY;
   int e;
   frexpl(fabsl(want), &e);
   long double ulp = ldexpl(1.0L, e - 53);
   if (ulp < ldexpl(1.0L, -1074))
      ulp = ldexpl(1.0L, -1074);
   return (double)(fabsl((long double)got - want) / ulp);
}

static void run_kernel(const struct kt_env *env, cl_program p, const char *name, const void *x,
                       size_t xsize, const void *y, size_t ysize, void *o, size_t osize,
                       void *o2, size_t o2size, size_t items)
{
   cl_kernel k = kk_kernel(p, name);
   cl_mem mx = kk_buffer_in(env, xsize, x), mo = kk_buffer_in(env, osize, NULL);
   cl_mem my = y ? kk_buffer_in(env, ysize, y) : NULL, mo2 = o2 ? kk_buffer_in(env, o2size, NULL) : NULL;
   cl_uint a = 0;
   KK_ARG(k, a++, mx);
   if (my)
      KK_ARG(k, a++, my);
   KK_ARG(k, a++, mo);
   if (mo2)
      KK_ARG(k, a++, mo2);
   KK_RUN(env, k, 1, NULL, &items, NULL);
   kk_read(env, mo, osize, o);
   if (mo2)
      kk_read(env, mo2, o2size, o2);
   CHECK_OK(clReleaseMemObject(mx));
   CHECK_OK(clReleaseMemObject(mo));
   if (my)
      CHECK_OK(clReleaseMemObject(my));
   if (mo2)
      CHECK_OK(clReleaseMemObject(mo2));
   CHECK_OK(clReleaseKernel(k));
}

static void run_fn(const struct kt_env *env, cl_program p, const struct fn *f, double *x, double *y,
                   double *o)
{
   fill_domain(f->dom, x, y);
   size_t g = N / f->width, n = g * f->width;
   run_kernel(env, p, f->kernel, x, N * sizeof(double), y, N * sizeof(double), o,
              N * sizeof(double), NULL, 0, g);
   double worst = 0;
   int bad = 0;
   for (size_t i = 0; i < n; i++) {
      long double want = f->ref(x[i], y[i]);
      double err = ulp_error(o[i], want);
      /* 0-ulp functions: the result must be want rounded to double. */
      if (f->ulps == 0)
         err = o[i] == (double)want || (isnan(o[i]) && isnan(want)) ? 0 : fmax(err, 1);
      worst = fmax(worst, err);
      if (err > f->ulps && bad++ < 3)
         KT_FAIL("%s(%a%s%a): got %a, expected %La: error %.3g ulp > %g", f->kernel, x[i],
                 f->arity > 1 ? ", " : "", f->arity > 1 ? y[i] : 0.0, o[i], want, err, f->ulps);
   }
   if (getenv("KK_VERBOSE"))
      printf("%-12s worst %.3g ulp\n", f->kernel, worst);
}

static bool same(double a, double b)
{
   if (isnan(a) || isnan(b))
      return isnan(a) && isnan(b);
   return a == b && signbit(a) == signbit(b);
}

/* §7.5 special values and denormals, exact. */
static void special_values(const struct kt_env *env, cl_program p)
{
   const double inf = INFINITY, nan = NAN, dmin = 0x1p-1074, nmin = DBL_MIN;
   struct {
      const char *kernel;
      double x, y, want;
   } c[] = {
      {"d_sin", inf, 0, nan},        {"d_sin", -0.0, 0, -0.0},     {"d_cos", -inf, 0, nan},
      {"d_exp", -inf, 0, 0},         {"d_exp", 710, 0, inf},       {"d_exp", nan, 0, nan},
      {"d_exp", -745.2, 0, 0},       {"d_exp", -740, 0, 0x0.0000000000055p-1022},
      {"d_log", 0, 0, -inf},         {"d_log", -0.0, 0, -inf},     {"d_log", -1, 0, nan},
      {"d_log", inf, 0, inf},        {"d_log2", dmin, 0, -1074},   {"d_log2", nmin, 0, -1022},
      {"d_sqrt", -1, 0, nan},        {"d_sqrt", -0.0, 0, -0.0},    {"d_sqrt", dmin, 0, 0x1p-537},
      {"d_sqrt", inf, 0, inf},       {"d_pow", 0, -1, inf},        {"d_pow", -0.0, -3, -inf},
      {"d_pow", -8, 1.0 / 3, nan},   {"d_pow", 1, nan, 1},         {"d_pow", nan, 0, 1},
      {"d_pow", -2, 3, -8},          {"d_pown", -2, 3, -8},        {"d_pown", 0, -2, inf},
      {"d_rootn", -8, 3, -2},        {"d_rootn", -8, 2, nan},      {"d_rootn", -0.0, 3, -0.0},
      {"d_cbrt", -27, 0, -3},        {"d_cbrt", -0.0, 0, -0.0},    {"d_cbrt", dmin, 0, 0x1p-358},
      {"d_cbrt", -inf, 0, -inf},     {"d_rsqrt", 0, 0, inf},       {"d_rsqrt", 0.25, 0, 2},
      {"d_fmin", nan, 1, 1},         {"d_fmax", -1, nan, -1},      {"d_fmin", -0.0, -0.0, -0.0},
      {"d_floor", -0.5, 0, -1},      {"d_floor", -0.0, 0, -0.0},   {"d_round", -2.5, 0, -3},
      {"d_rint", 2.5, 0, 2},         {"d_rint", -3.5, 0, -4},      {"d_fmod", -5.5, 2, -1.5},
      {"d_fmod", 1, 0, nan},         {"d_atan2", 0, -1, 0x1.921fb54442d18p+1},
      {"d_atan2", -0.0, -1, -0x1.921fb54442d18p+1}, {"d_copysign", 3, -0.0, -3},
      {"d_hypot", inf, nan, inf},    {"d_hypot", dmin, dmin, dmin},
      {"d_div", 1, 0, inf},          {"d_div", 0, 0, nan},         {"d_div", -1, 0, -inf},
      /* Denormals are kept, and rounded to even (§9.3: CL_FP_DENORM). */
      {"d_mul", dmin, 0.5, 0},       {"d_mul", dmin, 1.5, 2 * dmin}, {"d_div", nmin, 2, 0x1p-1023},
      {"d_add", nmin, -0x1.8p-1022, -0x1p-1023}, {"d_sub", dmin, dmin, 0},
      {"d_ldexp", 1, -1074, dmin},   {"d_ldexp", 1, -1075, 0},     {"d_ldexp", 1.5, 1023, 0x1.8p1023},
      {"d_ldexp", 1, 1024, inf},     {"d_ldexp", NAN, 706030113, NAN}, {"d_ldexp", NAN, -378415780, NAN},
      /* an exponent near INT_MAX (CTS; libclc's nvptx ldexp wrapped to 0) */
      {"d_ldexp", 0x1.fffffffffff56p+701, 2147482942, inf}, {"d_ldexp", 0x1p-1000, -2147483000, 0},     {"d_fabs", -0.0, 0, 0.0},     {"d_nextafter", 0, 1, dmin},
      {"d_nextafter", 0, -1, -dmin}, {"d_nextafter", 1, 2, 0x1.0000000000001p0},
      {"d_sinpi", 1, 0, 0},          {"d_sinpi", -1, 0, -0.0},     {"d_sinpi", 0.5, 0, 1},
      /* (1 + 2^-52)(1 - 2^-52) - 1 is -2^-104 fused, 0 rounded twice. */
      {"d_fma", 1 + 0x1p-52, 1 - 0x1p-52, -0x1p-104}, {"d_exp10", 2, 0, 100}, {"d_expm1", -0.0, 0, -0.0},
      {"d_log1p", -1, 0, -inf},      {"d_tanh", inf, 0, 1},        {"d_sinh", -0.0, 0, -0.0},
      {"d_sinh", 1000, 0, inf},      {"d_sinh", -inf, 0, -inf},    {"d_sinh", NAN, 0, NAN},
      {"d_cosh", -1000, 0, inf},     {"d_cosh", inf, 0, inf},      {"d_cosh", NAN, 0, NAN},
      {"d_cospi", 0.5, 0, 0.0},      {"d_cospi", -2.5, 0, 0.0},    {"d_tanpi", 1, 0, -0.0},
      {"d_tanpi", -1, 0, 0.0},       {"d_tanpi", 2, 0, 0.0},       {"d_tanpi", -4, 0, -0.0},
      {"d_acospi", NAN, 0, NAN},     {"d_acospi", -1, 0, 1},       {"d_frexp", NAN, 0, NAN},
      {"d_frexp", 0.75, 0, 0.75},    {"d_frexp", 8, 0, 4},
      {"d_tgamma", -0x1.0000000000200p+17, 0, -0.0}, {"d_tgamma", -250.5, 0, -0.0},
      {"d_tgamma", -201.5, 0, 0.0},
   };
   size_t nc = sizeof(c) / sizeof(c[0]);
   for (size_t i = 0; i < nc; i++) {
      double x[1] = {c[i].x}, y[1] = {c[i].y}, o[1];
      run_kernel(env, p, c[i].kernel, x, sizeof(x), y, sizeof(y), o, sizeof(o), NULL, 0, 1);
      CHECK(same(o[0], c[i].want), " %s(%a, %a) = %a, expected %a", c[i].kernel, c[i].x, c[i].y,
            o[0], c[i].want);
   }
}

/* float has 24 bits: 1 + 2^-24 lies halfway between 1 and 1 + 2^-23. */
static void conversions(const struct kt_env *env, cl_program p)
{
   const double h = 0x1p-24, inf = INFINITY;
   const double fx[] = {1 + h, 1 + 3 * h, -(1 + h), 1 + h / 2, -(1 + h / 2), 0x1.fffffffp127,
                        0x1p-150, 0x1.8p-150, -0x1p-160, inf, -inf, 1e300};
   enum { NF = sizeof(fx) / sizeof(fx[0]) };
   /* rte, rtz, rtp, rtn for each (convert_float is rte). */
   const float fw[NF][4] = {
      {1, 1, 1 + 0x1p-23f, 1},
      {1 + 0x1p-22f, 1 + 0x1p-23f, 1 + 0x1p-22f, 1 + 0x1p-23f},
      {-1, -1, -1, -(1 + 0x1p-23f)},
      {1, 1, 1 + 0x1p-23f, 1},
      {-1, -1, -1, -(1 + 0x1p-23f)},
      {INFINITY, FLT_MAX, INFINITY, FLT_MAX},
      {0, 0, 0x1p-149f, 0},
      {0x1p-149f, 0, 0x1p-149f, 0},
      {-0.0f, -0.0f, -0.0f, -0x1p-149f},
      {INFINITY, INFINITY, INFINITY, INFINITY},
      {-INFINITY, -INFINITY, -INFINITY, -INFINITY},
      {INFINITY, FLT_MAX, INFINITY, FLT_MAX},
   };
   float fo[NF * 5];
   run_kernel(env, p, "d_to_float", fx, sizeof(fx), NULL, 0, fo, sizeof(fo), NULL, 0, NF);
   for (int i = 0; i < NF; i++) {
      CHECK(fo[5 * i] == fw[i][0] && signbit(fo[5 * i]) == signbit(fw[i][0]),
            " convert_float(%a) = %a, expected %a", fx[i], fo[5 * i], fw[i][0]);
      static const char *const mode[4] = {"rte", "rtz", "rtp", "rtn"};
      for (int m = 0; m < 4; m++)
         CHECK(fo[5 * i + 1 + m] == fw[i][m] && signbit(fo[5 * i + 1 + m]) == signbit(fw[i][m]),
               " convert_float_%s(%a) = %a, expected %a", mode[m], fx[i], fo[5 * i + 1 + m],
               fw[i][m]);
   }

   /* _sat to int: NaN gives 0, out-of-range values the bound. */
   const double ix[] = {NAN, inf, -inf, 0x1p40, -0x1p40, 2.5, -2.5, 3.5, 2147483647.5,
                        -2147483648.5, 300.7, -0.7};
   enum { NI = sizeof(ix) / sizeof(ix[0]) };
   const int iw[NI][4] = { /* rtz (default), rte, rtp, rtn */
      {0, 0, 0, 0},
      {INT_MAX, INT_MAX, INT_MAX, INT_MAX},
      {INT_MIN, INT_MIN, INT_MIN, INT_MIN},
      {INT_MAX, INT_MAX, INT_MAX, INT_MAX},
      {INT_MIN, INT_MIN, INT_MIN, INT_MIN},
      {2, 2, 3, 2},
      {-2, -2, -2, -3},
      {3, 4, 4, 3},
      {INT_MAX, INT_MAX, INT_MAX, INT_MAX},
      {INT_MIN, INT_MIN, INT_MIN, INT_MIN},
      {300, 301, 301, 300},
      {0, -1, 0, -1},
   };
   const long lw[NI][2] = {
      {0, 0},          {LONG_MAX, 255}, {LONG_MIN, 0}, {1l << 40, 255}, {-(1l << 40), 0}, {2, 2},
      {-2, 0},         {3, 4},          {2147483647, 255}, {-2147483648l, 0}, {300, 255}, {0, 0},
   };
   int io[NI * 4];
   long lo[NI * 2];
   run_kernel(env, p, "d_to_int", ix, sizeof(ix), NULL, 0, io, sizeof(io), lo, sizeof(lo), NI);
   for (int i = 0; i < NI; i++) {
      for (int m = 0; m < 4; m++)
         CHECK(io[4 * i + m] == iw[i][m], " convert_int_sat%s(%a) = %d, expected %d",
               (const char *[]){"", "_rte", "_rtp", "_rtn"}[m], ix[i], io[4 * i + m], iw[i][m]);
      CHECK(lo[2 * i] == lw[i][0], " convert_long_sat(%a) = %ld, expected %ld", ix[i], lo[2 * i],
            lw[i][0]);
      CHECK(lo[2 * i + 1] == lw[i][1], " convert_uchar_sat_rte(%a) = %ld, expected %ld", ix[i],
            lo[2 * i + 1], lw[i][1]);
   }

   /* 64-bit integers to double: 53 bits, so rounding modes matter. */
   const unsigned long ux[] = {ULONG_MAX, (1ul << 53) + 1, (1ul << 53) + 3, 1ul << 63,
                               (unsigned long)-3l, 12345};
   enum { NU = sizeof(ux) / sizeof(ux[0]) };
   const double uw[NU][6] = { /* u: rte rtz rtp rtn; s: rtn rtp */
      {0x1p64, 0x1.fffffffffffffp63, 0x1p64, 0x1.fffffffffffffp63, -1, -1},
      {0x1p53, 0x1p53, 0x1p53 + 2, 0x1p53, 0x1p53, 0x1p53 + 2},
      {0x1p53 + 4, 0x1p53 + 2, 0x1p53 + 4, 0x1p53 + 2, 0x1p53 + 2, 0x1p53 + 4},
      {0x1p63, 0x1p63, 0x1p63, 0x1p63, -0x1p63, -0x1p63},
      {0x1p64, 0x1.fffffffffffffp63, 0x1p64, 0x1.fffffffffffffp63, -3, -3},
      {12345, 12345, 12345, 12345, 12345, 12345},
   };
   double uo[NU * 6];
   run_kernel(env, p, "l_to_double", ux, sizeof(ux), NULL, 0, uo, sizeof(uo), NULL, 0, NU);
   for (int i = 0; i < NU; i++)
      for (int m = 0; m < 6; m++)
         CHECK(uo[6 * i + m] == uw[i][m], " convert_double_%s(%s%lu) = %a, expected %a",
               (const char *[]){"rte", "rtz", "rtp", "rtn", "rtn", "rtp"}[m],
               m < 4 ? "(ulong)" : "(long)", ux[i], uo[6 * i + m], uw[i][m]);
}

/* vstore_half from double: 11 significant bits; 1 + 2^-11 is a tie. */
static void half_stores(const struct kt_env *env, cl_program p)
{
   const double x[] = {1 + 0x1p-11, 1 + 0x1p-11 + 0x1p-40, -(1 + 0x1p-11), 65520, 65519.99,
                       -65520, 0x1p-25, 0x1p-24, 0x1.8p-24, NAN, -INFINITY, -0.0};
   enum { NX = sizeof(x) / sizeof(x[0]) };
   /* rte (also the default), rtz, rtp, rtn as half bit patterns. */
   const uint16_t w[NX][4] = {
      {0x3c00, 0x3c00, 0x3c01, 0x3c00}, {0x3c01, 0x3c00, 0x3c01, 0x3c00},
      {0xbc00, 0xbc00, 0xbc00, 0xbc01}, {0x7c00, 0x7bff, 0x7c00, 0x7bff},
      {0x7bff, 0x7bff, 0x7c00, 0x7bff}, {0xfc00, 0xfbff, 0xfbff, 0xfc00},
      {0x0000, 0x0000, 0x0001, 0x0000}, {0x0001, 0x0001, 0x0001, 0x0001},
      {0x0002, 0x0001, 0x0002, 0x0001}, {0x7e00, 0x7e00, 0x7e00, 0x7e00},
      {0xfc00, 0xfc00, 0xfc00, 0xfc00}, {0x8000, 0x8000, 0x8000, 0x8000},
   };
   uint16_t o[NX * 5];
   run_kernel(env, p, "d_half", x, sizeof(x), NULL, 0, o, sizeof(o), NULL, 0, NX);
   static const char *const mode[5] = {"", "_rte", "_rtz", "_rtp", "_rtn"};
   for (int i = 0; i < NX; i++)
      for (int m = 0; m < 5; m++) {
         uint16_t want = w[i][m ? m - 1 : 0], got = o[5 * i + m];
         if (isnan(x[i])) /* any NaN */
            CHECK((got & 0x7c00) == 0x7c00 && (got & 0x3ff), " vstore_half%s(NaN) = 0x%04x",
                  mode[m], got);
         else
            CHECK(got == want, " vstore_half%s(%a) = 0x%04x, expected 0x%04x", mode[m], x[i], got,
                  want);
      }
}

static void relational(const struct kt_env *env, cl_program p)
{
   const double a[8] = {1, NAN, -0.0, 2, INFINITY, -1, 0x1p-1074, 3};
   const double b[8] = {1, NAN, 0.0, 1, INFINITY, 0, 0, 4};
   long o[32];
   run_kernel(env, p, "d_rel", a, sizeof(a), b, sizeof(b), o, sizeof(o), NULL, 0, 2);
   for (int v = 0; v < 2; v++)
      for (int l = 0; l < 4; l++) {
         int i = 4 * v + l;
         long eq = a[i] == b[i] ? -1 : 0, lt = a[i] < b[i] ? -1 : 0;
         long nan = isnan(a[i]) ? -1 : 0, sb = signbit(a[i]) ? -1 : 0;
         CHECK(o[16 * v + l] == eq && o[16 * v + 4 + l] == lt && o[16 * v + 8 + l] == nan &&
                  o[16 * v + 12 + l] == sb,
               " double4 relationals of (%a, %a): isequal %ld isless %ld isnan %ld signbit %ld", a[i],
               b[i], o[16 * v + l], o[16 * v + 4 + l], o[16 * v + 8 + l], o[16 * v + 12 + l]);
      }
   double s[8];
   run_kernel(env, p, "d_select", a, sizeof(a), b, sizeof(b), s, sizeof(s), NULL, 0, 2);
   for (int i = 0; i < 8; i++) {
      double want = a[i] > b[i] ? b[i] : a[i];
      CHECK(same(s[i], want), " select(%a, %a, isgreater) = %a, expected %a", a[i], b[i], s[i], want);
   }
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   char ext[4096] = "";
   REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS, sizeof(ext), ext, NULL));
   REQUIRE(strstr(ext, "cl_khr_fp64"));
   cl_program p = kk_build(&env, source, NULL);
   double *x = calloc(N, sizeof(double)), *y = calloc(N, sizeof(double)), *o = calloc(N, sizeof(double));
   REQUIRE(x && y && o);
   for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
      run_fn(&env, p, &fns[i], x, y, o);
   special_values(&env, p);
   conversions(&env, p);
   half_stores(&env, p);
   relational(&env, p);
   free(x);
   free(y);
   free(o);
   CHECK_OK(clReleaseProgram(p));
   kt_teardown(&env);
   return kt_result();
}
