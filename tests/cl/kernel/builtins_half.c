/* cl_khr_fp16 (OpenCL 1.2 §9.5): half arithmetic, conversions and the
 * half builtins as kernels use them, on devices that list the extension
 * (the test skips elsewhere).  Every expected value is computed on the host
 * in double or long double and rounded to half by ref_half below, which
 * shares no code with Kiln: +, -, *, /, sqrt and fma must give its result
 * exactly, conversions too in every rounding mode (float, double and
 * 64-bit integer sources: double to half is a libcall on x86, resolved by
 * Kiln's JIT), math functions within 2 half ulp (Kiln claims about 0.5).
 * Then vloadn/vstoren of half vectors, relationals and select on half4,
 * and read_imageh/write_imageh on CL_HALF_FLOAT, CL_FLOAT and
 * CL_UNORM_INT8 images; and half in an OpenCL C 3.0 kernel, where
 * __opencl_c_fp16 must be defined. */
#include <float.h>
#include <limits.h>

#include "kk.h"

#include <CL/cl_ext.h> /* CL_DEVICE_HALF_FP_CONFIG */

#define N 4096

enum mode { RTE, RTZ, RTP, RTN };

/* ---- host reference ---- */

/* The value of a half bit pattern (exact in double). */
static double half_value(uint16_t h)
{
   int e = (h >> 10) & 0x1f, m = h & 0x3ff;
   double v;
   if (e == 0x1f)
      v = m ? NAN : INFINITY;
   else if (e == 0)
      v = ldexp(m, -24);
   else
      v = ldexp(m | 0x400, e - 25);
   return (h & 0x8000) ? -v : v;
}

/* v rounded to half in the given mode, as bits (NaN: 0x7e00 | sign). */
static uint16_t ref_half(long double v, enum mode mode)
{
   uint16_t sign = signbit(v) ? 0x8000 : 0;
   if (isnan(v))
      return sign | 0x7e00;
   long double a = fabsl(v);
   bool neg = sign != 0;
   bool away = mode == RTE || (mode == RTP && !neg) || (mode == RTN && neg);
   if (isinf(a))
      return sign | 0x7c00;
   if (a == 0)
      return sign;
   int k;
   frexpl(a, &k);       /* a in [2^(k-1), 2^k) */
   int e = k - 1 < -14 ? -14 : k - 1;
   long double q = ldexpl(a, 10 - e); /* in units of the ulp: exact */
   long double r;
   switch (mode) {
   case RTE: r = q - floorl(q) == 0.5L ? (fmodl(floorl(q), 2) == 0 ? floorl(q) : ceill(q))
                                       : roundl(q);
      break;
   case RTZ: r = truncl(q); break;
   case RTP: r = neg ? floorl(q) : ceill(q); break;   /* magnitudes */
   default: r = neg ? ceill(q) : floorl(q); break;
   }
   long double res = ldexpl(r, e - 10);
   if (res > 65504.0L)
      return away ? (sign | 0x7c00) : (sign | 0x7bff);
   /* Back to bits: the value is exactly a half now. */
   int rk;
   frexpl(res, &rk);
   if (res == 0)
      return sign;
   if (rk - 1 < -14)
      return sign | (uint16_t)(res * 0x1p24L);
   int re = rk - 1;
   uint16_t m = (uint16_t)(ldexpl(res, 10 - re) - 1024);
   return sign | (uint16_t)((re + 15) << 10) | m;
}

static bool is_nan_bits(uint16_t h)
{
   return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
}

static bool same_half(uint16_t got, uint16_t want)
{
   return got == want || (is_nan_bits(got) && is_nan_bits(want));
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
   rng ^= rng << 13;
   rng ^= rng >> 7;
   rng ^= rng << 17;
   return rng;
}

/* A random finite half, every binade (denormals included) equally likely. */
static uint16_t rand_half(void)
{
   uint16_t h;
   do
      h = (uint16_t)next();
   while ((h & 0x7c00) == 0x7c00);
   return h;
}

static cl_mem buf_in(const struct kt_env *env, size_t size, const void *host)
{
   return kk_buffer_in(env, size, host);
}

/* Runs kernel `name` over `items` work-items with the buffers given (in
 * order as arguments), reading every buffer back into its host copy. */
struct arg {
   void *host;
   size_t size;
};
static void run(const struct kt_env *env, cl_program p, const char *name, size_t items,
                struct arg *args, unsigned n)
{
   cl_kernel k = kk_kernel(p, name);
   cl_mem m[8];
   for (unsigned i = 0; i < n; i++) {
      m[i] = buf_in(env, args[i].size, args[i].host);
      KK_ARG(k, i, m[i]);
   }
   KK_RUN(env, k, 1, NULL, &items, NULL);
   for (unsigned i = 0; i < n; i++) {
      kk_read(env, m[i], args[i].size, args[i].host);
      CHECK_OK(clReleaseMemObject(m[i]));
   }
   CHECK_OK(clReleaseKernel(k));
}

static const char *source =
   "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
   "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
   "__kernel void arith(__global const half *x, __global const half *y,\n"
   "                    __global const half *z, __global half *o)\n"
   "{ size_t i = get_global_id(0); half a = x[i], b = y[i], c = z[i];\n"
   "  o[6 * i] = a + b; o[6 * i + 1] = a - b; o[6 * i + 2] = a * b;\n"
   "  o[6 * i + 3] = a / b; o[6 * i + 4] = sqrt(fabs(a)); o[6 * i + 5] = fma(a, b, c); }\n"
   /* float, double, long, ulong, int to half in every mode. */
   "__kernel void to_half(__global const float *f, __global const double *d,\n"
   "                      __global const long *l, __global half *o)\n"
   "{ size_t i = get_global_id(0); float a = f[i]; double b = d[i]; long c = l[i];\n"
   "  __global half *r = o + 25 * i;\n"
   "  r[0] = convert_half(a); r[1] = convert_half_rte(a); r[2] = convert_half_rtz(a);\n"
   "  r[3] = convert_half_rtp(a); r[4] = convert_half_rtn(a);\n"
   "  r[5] = convert_half(b); r[6] = convert_half_rte(b); r[7] = convert_half_rtz(b);\n"
   "  r[8] = convert_half_rtp(b); r[9] = convert_half_rtn(b);\n"
   "  r[10] = convert_half(c); r[11] = convert_half_rte(c); r[12] = convert_half_rtz(c);\n"
   "  r[13] = convert_half_rtp(c); r[14] = convert_half_rtn(c);\n"
   "  ulong u = (ulong)c;\n"
   "  r[15] = convert_half(u); r[16] = convert_half_rtz(u); r[17] = convert_half_rtp(u);\n"
   "  r[18] = convert_half_rtn(u);\n"
   "  int n = (int)(c >> 40);\n"
   "  r[19] = convert_half_rtz(n); r[20] = convert_half_rtp(n); r[21] = convert_half_rtn(n);\n"
   /* A cast and a vector conversion take the same roads. */
   "  r[22] = (half)b; half2 v = convert_half2_rtp((float2)(a, -a)); r[23] = v.x; r[24] = v.y; }\n"
   /* half to float, int (every mode, saturated), char, ushort. */
   "__kernel void from_half(__global const half *x, __global float *f, __global int *n)\n"
   "{ size_t i = get_global_id(0); half a = x[i];\n"
   "  f[i] = convert_float(a);\n"
   "  __global int *r = n + 9 * i;\n"
   "  r[0] = convert_int_sat(a); r[1] = convert_int_sat_rte(a); r[2] = convert_int_sat_rtp(a);\n"
   "  r[3] = convert_int_sat_rtn(a); r[4] = convert_char_sat(a); r[5] = convert_char_sat_rtp(a);\n"
   "  r[6] = convert_ushort_sat_rte(a); r[7] = convert_uchar_sat_rtn(a);\n"
   "  r[8] = (int)convert_long_rtp(a); }\n"
   /* Math in half; half4 forms for some. */
   "#define M1(name, e) __kernel void name(__global const half *x, __global const half *y,\\\n"
   "  __global half *o) { size_t i = get_global_id(0); half a = x[i], b = y[i]; o[i] = e; }\n"
   "M1(h_sin, sin(a)) M1(h_cos, cos(a)) M1(h_exp, exp(a)) M1(h_log, log(a))\n"
   "M1(h_log2, log2(a)) M1(h_pow, pow(a, b)) M1(h_cbrt, cbrt(a)) M1(h_rsqrt, rsqrt(a))\n"
   "M1(h_atan2, atan2(a, b)) M1(h_tanh, tanh(a)) M1(h_sinpi, sinpi(a)) M1(h_exp10, exp10(a))\n"
   "M1(h_hypot, hypot(a, b)) M1(h_degrees, degrees(a)) M1(h_mix, mix(a, b, (half)0.25h))\n"
   "M1(h_fmod, fmod(a, b)) M1(h_floor, floor(a)) M1(h_rint, rint(a)) M1(h_fmin, fmin(a, b))\n"
   "M1(h_copysign, copysign(a, b)) M1(h_nextafter, nextafter(a, b))\n"
   "M1(h_ldexp, ldexp(a, (int)b)) M1(h_clamp, clamp(a, (half)-1, (half)1))\n"
   "M1(h_sign, sign(a)) M1(h_step, step(b, a))\n"
   "__kernel void h_exp4(__global const half *x, __global half *o)\n"
   "{ size_t i = get_global_id(0); vstore4(exp(vload4(i, x)), i, o); }\n"
   "__kernel void h_geo(__global const half *x, __global const half *y, __global half *o)\n"
   "{ size_t i = get_global_id(0); half4 a = vload4(i, x), b = vload4(i, y);\n"
   "  o[6 * i] = dot(a, b); o[6 * i + 1] = length(a); o[6 * i + 2] = distance(a, b);\n"
   "  half4 n = normalize(a); o[6 * i + 3] = n.x; o[6 * i + 4] = n.w; o[6 * i + 5] = length(a.xy); }\n"
   "__kernel void h_ptr(__global const half *x, __global half *o, __global int *e)\n"
   "{ size_t i = get_global_id(0); half a = x[i], ip; int n;\n"
   "  o[3 * i] = fract(a, &ip); o[3 * i + 1] = ip; o[3 * i + 2] = frexp(a, &n); e[2 * i] = n;\n"
   "  e[2 * i + 1] = ilogb(a); }\n"
   /* vloadn/vstoren of half vectors at odd element offsets, and relationals. */
   "__kernel void h_vec(__global const half *x, __global half *o)\n"
   "{ size_t i = get_global_id(0);\n"
   "  half3 a = vload3(i, x + 1); vstore3(a * (half)2, i, o + 1);\n"
   "  half16 b = vload16(i, x + 5); vstore16(b + b, i, o + 5 + 48);\n"
   "  half8 c = vload8(0, x + 2); if (i == 0) vstore8(c.s76543210, 0, o + 5 + 48 + 16 * 16); }\n"
   "__kernel void h_rel(__global const half *x, __global const half *y, __global short *o,\n"
   "                    __global half *s)\n"
   "{ size_t i = get_global_id(0); half4 a = vload4(i, x), b = vload4(i, y);\n"
   "  vstore4(isless(a, b), 4 * i, o); vstore4(isnan(a), 4 * i + 1, o);\n"
   "  vstore4(signbit(a), 4 * i + 2, o); vstore4(isequal(a, b), 4 * i + 3, o);\n"
   "  vstore4(select(a, b, isgreater(a, b)), i, s);\n"
   "  half4 sh = shuffle(a, (ushort4)(3, 2, 1, 0)); vstore4(sh, i + 16, s);\n"
   "  vstore4(as_half4(as_short4(a) ^ (short4)(short)0x8000), i + 32, s); }\n"
   /* Images: write_imageh, then read_imageh with and without a sampler. */
   "__kernel void img_write(write_only image2d_t im, __global const half *x)\n"
   "{ int i = get_global_id(0), w = get_image_width(im);\n"
   "  write_imageh(im, (int2)(i % w, i / w), vload4(i, x)); }\n"
   "__kernel void img_read(read_only image2d_t im, sampler_t s, __global half *o)\n"
   "{ int i = get_global_id(0), w = get_image_width(im); int2 c = (int2)(i % w, i / w);\n"
   "  vstore4(read_imageh(im, s, c), 2 * i, o); vstore4(read_imageh(im, c), 2 * i + 1, o); }\n";

/* ---- arithmetic ---- */

static void arithmetic(const struct kt_env *env, cl_program p)
{
   static uint16_t x[N], y[N], z[N], o[6 * N];
   for (int i = 0; i < N; i++) {
      x[i] = rand_half();
      y[i] = rand_half();
      z[i] = rand_half();
   }
   /* Specials and the cases double rounding through float would get wrong
    * for fma: a*b on a midpoint (1.5 * 683/1024 = 1 + 2^-11) plus a tiny c. */
   const uint16_t sx[] = {0x7c00, 0xfc00, 0x7e00, 0x0000, 0x8000, 0x0001, 0x7bff, 0x3e00, 0x3c00};
   const uint16_t sy[] = {0x7c00, 0x7c00, 0x3c00, 0x0000, 0x3c00, 0x3800, 0x7bff, 0x3956, 0x0001};
   const uint16_t sz[] = {0x3c00, 0x0000, 0x3c00, 0x8000, 0x0000, 0x0001, 0xfbff, 0x0001, 0x8001};
   for (size_t i = 0; i < sizeof(sx) / sizeof(sx[0]); i++) {
      x[i] = sx[i];
      y[i] = sy[i];
      z[i] = sz[i];
   }
   struct arg a[] = {{x, sizeof(x)}, {y, sizeof(y)}, {z, sizeof(z)}, {o, sizeof(o)}};
   run(env, p, "arith", N, a, 4);
   static const char *const ops[] = {"+", "-", "*", "/", "sqrt", "fma"};
   int bad = 0;
   for (int i = 0; i < N; i++) {
      long double u = half_value(x[i]), v = half_value(y[i]), w = half_value(z[i]);
      long double want[6] = {u + v, u - v, u * v, u / v, sqrtl(fabsl(u)), u * v + w};
      for (int k = 0; k < 6; k++) {
         uint16_t r = ref_half(want[k], RTE);
         if (!same_half(o[6 * i + k], r) && bad++ < 8)
            KT_FAIL("half %s of (0x%04x, 0x%04x, 0x%04x): got 0x%04x, expected 0x%04x", ops[k],
                    x[i], y[i], z[i], o[6 * i + k], r);
      }
   }
}

/* ---- conversions ---- */

static void conversions(const struct kt_env *env, cl_program p)
{
   enum { M = 512 };
   static float f[M];
   static double d[M];
   static int64_t l[M];
   static uint16_t o[25 * M];
   const float fs[] = {65504.0f, 65519.99f, 65520.0f, 1e9f, -65520.0f, 0x1p-25f, 0x1.000002p-25f,
                       0x1p-24f, -0x1p-26f, 0x1.002p0f, 0x1.0020001p0f, 0x1.006p0f, 1.0f / 3,
                       INFINITY, -INFINITY, NAN, 0.0f, -0.0f, 0x1.ffep-15f};
   for (int i = 0; i < M; i++) {
      uint32_t b = (uint32_t)next();
      /* Random floats near the half range. */
      int e = (int)(next() % 48) - 30;
      f[i] = ldexpf(1.0f + (float)(b & 0x7fffff) * 0x1p-23f, e) * ((b >> 31) ? -1 : 1);
      d[i] = ldexp(1.0 + (double)(next() >> 12) * 0x1p-52, e) * ((b >> 30) & 1 ? -1 : 1);
      l[i] = (int64_t)next() >> (next() % 64);
   }
   for (size_t i = 0; i < sizeof(fs) / sizeof(fs[0]); i++) {
      f[i] = fs[i];
      d[i] = fs[i];
   }
   d[0] = 0x1.0020000000001p0; /* just above a midpoint: rounds up */
   d[1] = 0x1.002p0;           /* a midpoint: to even */
   d[2] = 0x1.ffdffffffffffp15;  /* just below 65520 */
   l[0] = 2049;
   l[1] = -2051;
   l[2] = INT64_MAX;
   l[3] = INT64_MIN;
   l[4] = 65519;
   l[5] = -65521;
   struct arg a[] = {{f, sizeof(f)}, {d, sizeof(d)}, {l, sizeof(l)}, {o, sizeof(o)}};
   run(env, p, "to_half", M, a, 4);
   int bad = 0;
   for (int i = 0; i < M; i++) {
      const uint16_t *r = o + 25 * i;
      long double n = (long double)(int)(l[i] >> 40);
      struct {
         int slot;
         long double v;
         enum mode m;
         const char *what;
      } c[] = {
         {0, f[i], RTE, "float"},          {1, f[i], RTE, "float rte"},
         {2, f[i], RTZ, "float rtz"},      {3, f[i], RTP, "float rtp"},
         {4, f[i], RTN, "float rtn"},      {5, d[i], RTE, "double"},
         {6, d[i], RTE, "double rte"},     {7, d[i], RTZ, "double rtz"},
         {8, d[i], RTP, "double rtp"},     {9, d[i], RTN, "double rtn"},
         {10, l[i], RTE, "long"},          {11, l[i], RTE, "long rte"},
         {12, l[i], RTZ, "long rtz"},      {13, l[i], RTP, "long rtp"},
         {14, l[i], RTN, "long rtn"},      {15, (uint64_t)l[i], RTE, "ulong"},
         {16, (uint64_t)l[i], RTZ, "ulong rtz"}, {17, (uint64_t)l[i], RTP, "ulong rtp"},
         {18, (uint64_t)l[i], RTN, "ulong rtn"}, {19, n, RTZ, "int rtz"},
         {20, n, RTP, "int rtp"},          {21, n, RTN, "int rtn"},
         {22, d[i], RTE, "(half)double"},  {23, f[i], RTP, "float2 rtp"},
         {24, -(long double)f[i], RTP, "float2 rtp (negated)"},
      };
      for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
         uint16_t want = ref_half(c[k].v, c[k].m);
         if (!same_half(r[c[k].slot], want) && bad++ < 8)
            KT_FAIL("convert_half (%s) of %La: got 0x%04x, expected 0x%04x", c[k].what, c[k].v,
                    r[c[k].slot], want);
      }
   }

   /* From half: every half. */
   enum { H = 65536 };
   static uint16_t x[H];
   static float fo[H];
   static int32_t no[9 * H];
   for (int i = 0; i < H; i++)
      x[i] = (uint16_t)i;
   struct arg b[] = {{x, sizeof(x)}, {fo, sizeof(fo)}, {no, sizeof(no)}};
   run(env, p, "from_half", H, b, 3);
   bad = 0;
   for (int i = 0; i < H; i++) {
      double v = half_value(x[i]);
      bool nan = isnan(v);
      double sat_i = nan ? 0 : fmin(fmax(v, -2147483648.0), 2147483647.0);
      int32_t want[9] = {
         (int32_t)trunc(sat_i),  (int32_t)nearbyint(sat_i), (int32_t)ceil(sat_i),
         (int32_t)floor(sat_i),  (int32_t)(nan ? 0 : fmin(fmax(trunc(v), -128), 127)),
         (int32_t)(nan ? 0 : fmin(fmax(ceil(v), -128), 127)),
         (int32_t)(nan ? 0 : fmin(fmax(nearbyint(v), 0), 65535)),
         (int32_t)(nan ? 0 : fmin(fmax(floor(v), 0), 255)), 0};
      if (!nan && !isinf(v))
         want[8] = (int32_t)(int64_t)ceil(v);
      bool ok_f = (nan && isnan(fo[i])) || (!nan && (double)fo[i] == v &&
                                             !signbit(fo[i]) == !signbit(v));
      if (!ok_f && bad++ < 8)
         KT_FAIL("convert_float(0x%04x) = %a, expected %a", x[i], fo[i], v);
      for (int k = 0; k < 9; k++) {
         if (k == 8 && (nan || isinf(v)))
            continue; /* out of range: implementation-defined */
         if (no[9 * i + k] != want[k] && bad++ < 8)
            KT_FAIL("conversion %d of half 0x%04x (%a): got %d, expected %d", k, x[i], v,
                    no[9 * i + k], want[k]);
      }
   }
}

/* ---- math ---- */

typedef long double (*ref_fn)(long double, long double);
#define R1(name, expr) \
   static long double name(long double a, long double b) { (void)b; return expr; }
#define R2(name, expr) \
   static long double name(long double a, long double b) { return expr; }
R1(r_sin, sinl(a)) R1(r_cos, cosl(a)) R1(r_exp, expl(a)) R1(r_log, logl(a))
R1(r_log2, log2l(a)) R2(r_pow, powl(a, b)) R1(r_cbrt, cbrtl(a)) R1(r_rsqrt, 1.0L / sqrtl(a))
R2(r_atan2, atan2l(a, b)) R1(r_tanh, tanhl(a)) R1(r_exp10, powl(10.0L, a))
R2(r_hypot, hypotl(a, b)) R1(r_degrees, a * 57.295779513082320876798154814105170L)
R2(r_mix, a + (b - a) * 0.25L) R2(r_fmod, fmodl(a, b)) R1(r_floor, floorl(a))
R1(r_rint, rintl(a)) R2(r_fmin, fminl(a, b)) R2(r_copysign, copysignl(a, b))
R2(r_ldexp, ldexpl(a, (int)b)) R1(r_clamp, fminl(fmaxl(a, -1), 1))
R2(r_step, a < b ? 0.0L : 1.0L)
static long double r_sign(long double a, long double b)
{
   (void)b;
   return a > 0 ? 1 : a < 0 ? -1 : a; /* +-0 and NaN stay */
}
static long double r_sinpi(long double a, long double b)
{
   (void)b;
   long double r = a - 2.0L * roundl(a / 2.0L);
   return sinl(3.14159265358979323846264338327950288L * r);
}

struct fn {
   const char *kernel;
   ref_fn ref;
   double ulps;
   double lo, hi; /* the inputs' range (both arguments) */
};

/* Error of got (half bits) against want in ulps of half at want. */
static double half_ulps(uint16_t got, long double want)
{
   double g = half_value(got);
   if (isnan(want))
      return isnan(g) ? 0 : INFINITY;
   if (isinf(want) || isinf(g)) {
      /* A finite result beyond 65504 must round to inf (or to 65504 with
       * the error counted below). */
      if (g == (double)want)
         return 0;
      if (isinf(g) && fabsl(want) > 65504.0L)
         return fabsl(want) >= 65520.0L ? 0 : 1;
      return INFINITY;
   }
   long double a = fabsl(want);
   int k;
   frexpl(a, &k);
   int e = k - 1 < -14 ? -14 : k - 1;
   return (double)(fabsl((long double)g - want) / ldexpl(1, e - 10));
}

static const struct fn fns[] = {
   {"h_sin", r_sin, 2, -60, 60},       {"h_cos", r_cos, 2, -60, 60},
   {"h_exp", r_exp, 2, -18, 11.5},     {"h_log", r_log, 2, 0, 65504},
   {"h_log2", r_log2, 2, 0, 65504},    {"h_pow", r_pow, 2, 0, 8},
   {"h_cbrt", r_cbrt, 2, -65504, 65504}, {"h_rsqrt", r_rsqrt, 1, 0, 65504},
   {"h_atan2", r_atan2, 2, -100, 100}, {"h_tanh", r_tanh, 2, -8, 8},
   {"h_sinpi", r_sinpi, 2, -100, 100}, {"h_exp10", r_exp10, 2, -8, 4.8},
   {"h_hypot", r_hypot, 2, -300, 300}, {"h_degrees", r_degrees, 2, -1000, 1000},
   {"h_mix", r_mix, 2, -1000, 1000},   {"h_fmod", r_fmod, 0, -1000, 1000},
   {"h_floor", r_floor, 0, -3000, 3000}, {"h_rint", r_rint, 0, -3000, 3000},
   {"h_fmin", r_fmin, 0, -1000, 1000}, {"h_copysign", r_copysign, 0, -1000, 1000},
   {"h_ldexp", r_ldexp, 0, -30, 30},   {"h_clamp", r_clamp, 0, -3, 3},
   {"h_sign", r_sign, 0, -3, 3},       {"h_step", r_step, 0, -3, 3},
};

static uint16_t half_in(double lo, double hi)
{
   for (;;) {
      uint16_t h = rand_half();
      double v = half_value(h);
      if (v >= lo && v <= hi)
         return h;
   }
}

static void math(const struct kt_env *env, cl_program p)
{
   static uint16_t x[N], y[N], o[N];
   for (size_t f = 0; f < sizeof(fns) / sizeof(fns[0]); f++) {
      const struct fn *fn = &fns[f];
      for (int i = 0; i < N; i++) {
         x[i] = half_in(fn->lo, fn->hi);
         y[i] = half_in(fn->lo, fn->hi);
      }
      struct arg a[] = {{x, sizeof(x)}, {y, sizeof(y)}, {o, sizeof(o)}};
      run(env, p, fn->kernel, N, a, 3);
      double worst = 0;
      int bad = 0;
      for (int i = 0; i < N; i++) {
         long double want = fn->ref(half_value(x[i]), half_value(y[i]));
         double err = half_ulps(o[i], want);
         if (fn->ulps == 0) /* exact: the reference rounded once */
            err = same_half(o[i], ref_half(want, RTE)) ? 0 : fmax(err, 1);
         worst = fmax(worst, err);
         if (err > fn->ulps && bad++ < 3)
            KT_FAIL("%s(0x%04x, 0x%04x) = 0x%04x (%a), expected %La: %.3g half ulp > %g",
                    fn->kernel, x[i], y[i], o[i], half_value(o[i]), want, err, fn->ulps);
      }
      if (getenv("KK_VERBOSE"))
         printf("%-12s worst %.3g half ulp\n", fn->kernel, worst);
   }
   /* nextafter: one step toward y, in half. */
   uint16_t nx[] = {0x0000, 0x8000, 0x3c00, 0x3c00, 0x7bff, 0xfbff, 0x0001, 0x8001, 0x7e00};
   uint16_t ny[] = {0x3c00, 0xbc00, 0x4000, 0x0000, 0x7c00, 0x0000, 0x8000, 0x8002, 0x3c00};
   const uint16_t nw[] = {0x0001, 0x8001, 0x3c01, 0x3bff, 0x7c00, 0xfbfe, 0x0000, 0x8002, 0x7e00};
   enum { NN = sizeof(nx) / sizeof(nx[0]) };
   uint16_t no[NN];
   struct arg a[] = {{nx, sizeof(nx)}, {ny, sizeof(ny)}, {no, sizeof(no)}};
   run(env, p, "h_nextafter", NN, a, 3);
   for (int i = 0; i < NN; i++)
      CHECK(same_half(no[i], nw[i]), " nextafter(0x%04x, 0x%04x) = 0x%04x, expected 0x%04x",
            nx[i], ny[i], no[i], nw[i]);

   /* exp on half4 lanes. */
   for (int i = 0; i < N; i++)
      x[i] = half_in(-10, 10);
   struct arg v[] = {{x, sizeof(x)}, {o, sizeof(o)}};
   run(env, p, "h_exp4", N / 4, v, 2);
   for (int i = 0; i < N; i++) {
      double err = half_ulps(o[i], expl(half_value(x[i])));
      CHECK(err <= 2, " exp(half4) lane %d of 0x%04x: 0x%04x, %.3g ulp", i % 4, x[i], o[i], err);
      if (err > 2)
         break;
   }
}

static void geometric_and_ptr(const struct kt_env *env, cl_program p)
{
   enum { G = 256 };
   static uint16_t x[4 * G], y[4 * G], o[6 * G];
   for (int i = 0; i < 4 * G; i++) {
      x[i] = half_in(-100, 100);
      y[i] = half_in(-100, 100);
   }
   struct arg a[] = {{x, sizeof(x)}, {y, sizeof(y)}, {o, sizeof(o)}};
   run(env, p, "h_geo", G, a, 3);
   for (int i = 0; i < G; i++) {
      long double u[4], v[4], dot = 0, l2 = 0, d2 = 0;
      for (int k = 0; k < 4; k++) {
         u[k] = half_value(x[4 * i + k]);
         v[k] = half_value(y[4 * i + k]);
         dot += u[k] * v[k];
         l2 += u[k] * u[k];
         d2 += (u[k] - v[k]) * (u[k] - v[k]);
      }
      long double len = sqrtl(l2), len2 = sqrtl(u[0] * u[0] + u[1] * u[1]);
      long double want[6] = {dot, len, sqrtl(d2), u[0] / len, u[3] / len, len2};
      /* dot: sums of products with cancellation, judged against the
       * largest product (the spec's absolute bound for dot). */
      for (int k = 0; k < 6; k++) {
         double err = half_ulps(o[6 * i + k], want[k]);
         if (k == 0) {
            long double big = 0;
            for (int j = 0; j < 4; j++)
               big = fmaxl(big, fabsl(u[j] * v[j]));
            /* ... or the smallest denormal, the finest a half can be. */
            err = fabsl(half_value(o[6 * i]) - dot) / fmaxl(big * 0x1p-10L, 0x1p-24L);
         }
         CHECK(err <= 2, " geometric %d of half4 %d: got %a, expected %La (%.3g ulp)", k, i,
               half_value(o[6 * i + k]), want[k], err);
      }
   }

   /* fract, frexp, ilogb over every finite half. */
   enum { H = 63488 };
   static uint16_t hx[H], ho[3 * H];
   static int32_t he[2 * H];
   for (int i = 0, n = 0; i < 65536; i++)
      if ((i & 0x7c00) != 0x7c00)
         hx[n++] = (uint16_t)i;
   struct arg b[] = {{hx, sizeof(hx)}, {ho, sizeof(ho)}, {he, sizeof(he)}};
   run(env, p, "h_ptr", H, b, 3);
   int bad = 0;
   for (int i = 0; i < H; i++) {
      double v = half_value(hx[i]);
      double fl = floor(v), fr = v - fl;
      uint16_t want_fr = ref_half(fr, RTE);
      if (want_fr == 0x3c00)
         want_fr = 0x3bff; /* the largest half below 1 */
      if (v == 0)
         want_fr = hx[i]; /* fract(+-0) = +-0 */
      int e;
      double m = frexp(v, &e);
      int want_ilogb = v == 0 ? INT_MIN : (int)logb(v);
      bool ok = same_half(ho[3 * i], want_fr) && same_half(ho[3 * i + 1], ref_half(fl, RTE)) &&
                same_half(ho[3 * i + 2], ref_half(m, RTE)) && he[2 * i] == e &&
                he[2 * i + 1] == want_ilogb;
      if (!ok && bad++ < 5)
         KT_FAIL("half 0x%04x: fract 0x%04x (0x%04x) ip 0x%04x frexp 0x%04x,%d ilogb %d", hx[i],
                 ho[3 * i], want_fr, ho[3 * i + 1], ho[3 * i + 2], he[2 * i], he[2 * i + 1]);
   }
}

/* ---- vectors, relationals, images ---- */

static void vectors(const struct kt_env *env, cl_program p)
{
   enum { G = 16, IN = 5 + 16 * G + 16, OUT = 5 + 48 + 16 * G + 8 };
   static uint16_t x[IN], o[OUT];
   for (int i = 0; i < IN; i++)
      x[i] = half_in(-1000, 1000);
   memset(o, 0, sizeof(o));
   struct arg a[] = {{x, sizeof(x)}, {o, sizeof(o)}};
   run(env, p, "h_vec", G, a, 2);
   for (int i = 0; i < 3 * G; i++)
      CHECK(o[1 + i] == ref_half(2.0L * half_value(x[1 + i]), RTE), " vload3/vstore3 element %d",
            i);
   CHECK(o[0] == 0, " vstore3 wrote before its start");
   for (int i = 0; i < 16 * G; i++)
      CHECK(o[53 + i] == ref_half(2.0L * half_value(x[5 + i]), RTE),
            " vload16/vstore16 element %d: 0x%04x", i, o[53 + i]);
   for (int i = 0; i < 8; i++)
      CHECK(o[53 + 16 * G + i] == x[2 + 7 - i], " vload8/vstore8 swizzled element %d", i);

   enum { R = 16 };
   uint16_t rx[4 * R], ry[4 * R], rs[4 * R * 3];
   int16_t ro[16 * R];
   for (int i = 0; i < 4 * R; i++) {
      rx[i] = rand_half();
      ry[i] = i % 5 ? rand_half() : rx[i];
   }
   rx[3] = 0x7e00;
   rx[6] = 0x8000;
   ry[6] = 0x0000;
   struct arg b[] = {{rx, sizeof(rx)}, {ry, sizeof(ry)}, {ro, sizeof(ro)}, {rs, sizeof(rs)}};
   run(env, p, "h_rel", R, b, 4);
   for (int v = 0; v < R; v++)
      for (int l = 0; l < 4; l++) {
         int i = 4 * v + l;
         double a = half_value(rx[i]), c = half_value(ry[i]);
         int16_t lt = a < c ? -1 : 0, nan = isnan(a) ? -1 : 0, sb = (rx[i] & 0x8000) ? -1 : 0;
         int16_t eq = a == c ? -1 : 0;
         CHECK(ro[16 * v + l] == lt && ro[16 * v + 4 + l] == nan && ro[16 * v + 8 + l] == sb &&
                  ro[16 * v + 12 + l] == eq,
               " half4 relationals of (0x%04x, 0x%04x): %d %d %d %d", rx[i], ry[i],
               ro[16 * v + l], ro[16 * v + 4 + l], ro[16 * v + 8 + l], ro[16 * v + 12 + l]);
         uint16_t sel = a > c ? ry[i] : rx[i];
         CHECK(rs[i] == sel, " select(half4) lane %d: 0x%04x, expected 0x%04x", i, rs[i], sel);
         CHECK(rs[4 * R + i] == rx[4 * v + 3 - l], " shuffle(half4) lane %d", i);
         CHECK(rs[8 * R + i] == (rx[i] ^ 0x8000), " as_half4 lane %d", i);
      }
}

static cl_mem image2d(const struct kt_env *env, cl_channel_type type, size_t w, size_t h,
                      const void *host)
{
   const cl_image_format f = {CL_RGBA, type};
   cl_image_desc d;
   memset(&d, 0, sizeof(d));
   d.image_type = CL_MEM_OBJECT_IMAGE2D;
   d.image_width = w;
   d.image_height = h;
   cl_int err;
   cl_mem m = clCreateImage(env->context, host ? CL_MEM_COPY_HOST_PTR : 0, &f, &d, (void *)host,
                            &err);
   REQUIRE(m, "image: %s", kt_err_name(err));
   return m;
}

static void read_back(const struct kt_env *env, cl_program p, cl_mem img, size_t n,
                      uint16_t *o)
{
   cl_int err;
   cl_sampler s = clCreateSampler(env->context, CL_FALSE, CL_ADDRESS_NONE, CL_FILTER_NEAREST, &err);
   REQUIRE(s, "sampler: %s", kt_err_name(err));
   cl_kernel k = kk_kernel(p, "img_read");
   cl_mem mo = buf_in(env, 8 * n * sizeof(uint16_t), NULL);
   KK_ARG(k, 0, img);
   KK_ARG(k, 1, s);
   KK_ARG(k, 2, mo);
   KK_RUN(env, k, 1, NULL, &n, NULL);
   kk_read(env, mo, 8 * n * sizeof(uint16_t), o);
   CHECK_OK(clReleaseMemObject(mo));
   CHECK_OK(clReleaseKernel(k));
   CHECK_OK(clReleaseSampler(s));
}

static void images(const struct kt_env *env, cl_program p)
{
   cl_bool support = CL_FALSE;
   CHECK_OK(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_SUPPORT, sizeof(support), &support, NULL));
   if (!support)
      return;
   enum { W = 8, H = 4, P = W * H };
   uint16_t px[4 * P], got[4 * P], o[8 * P];
   for (int i = 0; i < 4 * P; i++)
      px[i] = rand_half();
   px[0] = 0x7c00;
   px[1] = 0x8001;
   /* write_imageh into a half image: the same bits come back. */
   cl_mem img = image2d(env, CL_HALF_FLOAT, W, H, NULL);
   cl_kernel k = kk_kernel(p, "img_write");
   cl_mem mx = buf_in(env, sizeof(px), px);
   KK_ARG(k, 0, img);
   KK_ARG(k, 1, mx);
   size_t n = P;
   KK_RUN(env, k, 1, NULL, &n, NULL);
   size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
   REQUIRE_OK(clEnqueueReadImage(env->queue, img, CL_TRUE, origin, region, 0, 0, got, 0, NULL,
                                 NULL));
   for (int i = 0; i < 4 * P; i++)
      CHECK(got[i] == px[i], " write_imageh texel %d channel %d: 0x%04x, expected 0x%04x", i / 4,
            i % 4, got[i], px[i]);
   /* read_imageh of it, with and without a sampler. */
   read_back(env, p, img, P, o);
   for (int i = 0; i < P; i++)
      for (int c = 0; c < 4; c++) {
         CHECK(o[8 * i + c] == px[4 * i + c] && o[8 * i + 4 + c] == px[4 * i + c],
               " read_imageh(half image) texel %d: 0x%04x/0x%04x, expected 0x%04x", i,
               o[8 * i + c], o[8 * i + 4 + c], px[4 * i + c]);
      }
   CHECK_OK(clReleaseMemObject(img));
   CHECK_OK(clReleaseMemObject(mx));
   CHECK_OK(clReleaseKernel(k));

   /* A float image: read_imageh rounds to nearest even. */
   float fp[4 * P];
   for (int i = 0; i < 4 * P; i++)
      fp[i] = ldexpf(1.0f + (float)(next() & 0x7fffff) * 0x1p-23f, (int)(next() % 40) - 26);
   fp[0] = 0x1.002p0f;   /* a midpoint: to even, 1.0 */
   fp[1] = 0x1.006p0f;   /* a midpoint: to even, up */
   fp[2] = 70000.0f;     /* inf */
   img = image2d(env, CL_FLOAT, W, H, fp);
   read_back(env, p, img, P, o);
   for (int i = 0; i < P; i++)
      for (int c = 0; c < 4; c++) {
         uint16_t want = ref_half(fp[4 * i + c], RTE);
         CHECK(o[8 * i + c] == want && o[8 * i + 4 + c] == want,
               " read_imageh(float image) %a: 0x%04x, expected 0x%04x", fp[4 * i + c],
               o[8 * i + c], want);
      }
   CHECK_OK(clReleaseMemObject(img));

   /* UNORM_INT8: k/255 rounded to half. */
   unsigned char u8[4 * P];
   for (int i = 0; i < 4 * P; i++)
      u8[i] = (unsigned char)(i * 37 + 11);
   img = image2d(env, CL_UNORM_INT8, W, H, u8);
   read_back(env, p, img, P, o);
   for (int i = 0; i < P; i++)
      for (int c = 0; c < 4; c++) {
         long double v = u8[4 * i + c] / 255.0L;
         double err = half_ulps(o[8 * i + c], v);
         /* read_imagef's own rounding (1.5 float ulp) then half's. */
         CHECK(err <= 0.5001, " read_imageh(unorm8 %u) = 0x%04x: %.4g ulp", u8[4 * i + c],
               o[8 * i + c], err);
      }
   CHECK_OK(clReleaseMemObject(img));
}

/* half in OpenCL C 3.0, where the device's feature macro must say so. */
static void opencl_c_30(const struct kt_env *env)
{
   char ver[128] = "";
   REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_VERSION, sizeof(ver), ver, NULL));
   if (strncmp(ver, "OpenCL 3.", 9))
      return;
   static const char *src =
      "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
      "#ifndef __opencl_c_fp16\n"
      "#error no __opencl_c_fp16\n"
      "#endif\n"
      "kernel void k(global half *p) { p[get_global_id(0)] *= (half)3; }\n";
   cl_program p = kk_build(env, src, "-cl-std=CL3.0");
   uint16_t h[4] = {0x3c00, 0x4000, 0xc200, 0x7bff};
   struct arg a[] = {{h, sizeof(h)}};
   run(env, p, "k", 4, a, 1);
   CHECK(h[0] == 0x4200 && h[1] == 0x4600 && h[2] == 0xc880 && h[3] == 0x7c00,
         " half in CL3.0: 0x%04x 0x%04x 0x%04x 0x%04x", h[0], h[1], h[2], h[3]);
   CHECK_OK(clReleaseProgram(p));
}

/* A program binary of a half kernel, loaded again: the object it holds
 * calls __truncdfhf2, which the JIT must define when it loads the binary
 * as when it loads a fresh build. */
static void binary(const struct kt_env *env)
{
   static const char *src =
      "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
      "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
      "kernel void k(global const double *d, global half *o)\n"
      "{ size_t i = get_global_id(0); o[i] = (half)d[i] * (half)2; }\n";
   cl_program p = kk_build(env, src, NULL);
   size_t size = 0;
   REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, NULL));
   unsigned char *bin = malloc(size);
   REQUIRE(bin && size);
   REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL));
   CHECK_OK(clReleaseProgram(p));
   cl_int st, err;
   const unsigned char *b = bin;
   p = clCreateProgramWithBinary(env->context, 1, &env->device, &size, &b, &st, &err);
   REQUIRE(p && err == CL_SUCCESS && st == CL_SUCCESS, "from binary: %s", kt_err_name(err));
   REQUIRE_OK(clBuildProgram(p, 1, &env->device, NULL, NULL, NULL));
   free(bin);
   /* 1 + 2^-11 + 2^-40 is just above a midpoint: up, then doubled. */
   double d[4] = {0x1.0020000001p0, 0x1.002p0, 70000.0, -0x1p-25};
   uint16_t o[4];
   struct arg a[] = {{d, sizeof(d)}, {o, sizeof(o)}};
   run(env, p, "k", 4, a, 2);
   CHECK(o[0] == 0x4001 && o[1] == 0x4000 && o[2] == 0x7c00 && o[3] == 0x8000,
         " binary: 0x%04x 0x%04x 0x%04x 0x%04x", o[0], o[1], o[2], o[3]);
   CHECK_OK(clReleaseProgram(p));
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   char ext[4096] = "";
   REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS, sizeof(ext), ext, NULL));
   cl_device_fp_config cfg = kt_device_ulong(env.device, CL_DEVICE_HALF_FP_CONFIG);
   /* Kiln's CPU device lists cl_khr_fp16; the GPU devices do not (yet). */
   cl_device_type type = 0;
   REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_TYPE, sizeof(type), &type, NULL));
   if (type & CL_DEVICE_TYPE_CPU)
      CHECK(strstr(ext, "cl_khr_fp16"), " the CPU device lacks cl_khr_fp16");
   if (!strstr(ext, "cl_khr_fp16")) {
      CHECK(cfg == 0, " half fp config 0x%llx without cl_khr_fp16", (unsigned long long)cfg);
      printf("SKIP: the device has no cl_khr_fp16\n");
      kt_teardown(&env);
      return kt_result() ? kt_result() : 77;
   }
   /* What this test checks: round to nearest, inf/NaN and denormals. */
   CHECK((cfg & (CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN | CL_FP_DENORM)) ==
            (CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN | CL_FP_DENORM),
         " half fp config 0x%llx", (unsigned long long)cfg);
   cl_program p = kk_build(&env, source, NULL);
   arithmetic(&env, p);
   conversions(&env, p);
   math(&env, p);
   geometric_and_ptr(&env, p);
   vectors(&env, p);
   images(&env, p);
   opencl_c_30(&env);
   binary(&env);
   CHECK_OK(clReleaseProgram(p));
   kt_teardown(&env);
   return kt_result();
}
