/* Common (§6.11.4), geometric (§6.11.5), relational (§6.11.6), vector
 * load/store incl. half conversions (§6.11.7) and shuffle (§6.11.12). */
#include "harness.h"

#include <float.h>
#include <stdbool.h>
#include <stdlib.h>

#define EXPECT_F(got, want) do { float g_ = (got), w_ = (want); \
      CHECK(same_f(g_, w_), "%s = %a, want %a", #got, g_, w_); } while (0)
#define EXPECT_I(got, want) do { long g_ = (long)(got), w_ = (long)(want); \
      CHECK(g_ == w_, "%s = %ld, want %ld", #got, g_, w_); } while (0)

/* ---- common ---- */
float _Z3mixfff(float, float, float);
float _Z4stepff(float, float);
float _Z10smoothstepfff(float, float, float);
float _Z4signf(float);
float _Z7degreesf(float);
float _Z7radiansf(float);
float _Z3maxff(float, float);
float _Z3minff(float, float);
float _Z5clampfff(float, float, float);
double _Z4signd(double);

static void common(void)
{
   EXPECT_F(_Z3mixfff(2.0f, 4.0f, 0.25f), 2.5f);
   EXPECT_F(_Z4stepff(1.0f, 0.5f), 0.0f); EXPECT_F(_Z4stepff(1.0f, 1.0f), 1.0f);
   EXPECT_F(_Z10smoothstepfff(0.0f, 1.0f, 0.5f), 0.5f);
   EXPECT_F(_Z10smoothstepfff(0.0f, 1.0f, -3.0f), 0.0f);
   EXPECT_F(_Z10smoothstepfff(0.0f, 1.0f, 3.0f), 1.0f);
   EXPECT_F(_Z10smoothstepfff(0.0f, 2.0f, 0.5f), 0.15625f);
   EXPECT_F(_Z4signf(-3.0f), -1.0f); EXPECT_F(_Z4signf(3.0f), 1.0f);
   EXPECT_F(_Z4signf(-0.0f), -0.0f); EXPECT_F(_Z4signf(0.0f), 0.0f);
   EXPECT_F(_Z4signf(NAN), 0.0f); EXPECT_F(_Z4signf(-INFINITY), -1.0f);
   CHECK(same_d(_Z4signd(-0.0), -0.0) && _Z4signd(NAN) == 0.0, "sign(double)");
   CHECK(fabsf(_Z7degreesf(3.14159265f) - 180.0f) < 1e-4f, "degrees");
   CHECK(fabsf(_Z7radiansf(180.0f) - 3.14159265f) < 1e-6f, "radians");
   EXPECT_F(_Z7degreesf(1.0f), 57.2957795f); EXPECT_F(_Z7radiansf(1.0f), 0.0174532925f);
   EXPECT_F(_Z3maxff(1.0f, 2.0f), 2.0f); EXPECT_F(_Z3minff(1.0f, 2.0f), 1.0f);
   EXPECT_F(_Z5clampfff(5.0f, 0.0f, 1.0f), 1.0f); EXPECT_F(_Z5clampfff(-5.0f, 0.0f, 1.0f), 0.0f);
}

/* ---- geometric ---- */
float t_length4(const float *);
float t_length2(const float *);
float t_distance3(const float *, const float *);
void t_normalize4(const float *, float *);
void t_normalize3(const float *, float *);
float t_dot4(const float *, const float *);
void t_cross3(const float *, const float *, float *);
void t_cross4(const float *, const float *, float *);
float t_fast_length3(const float *);
double t_length_d4(const double *);
void t_normalize_d2(const double *, double *);
float _Z6lengthf(float);
float _Z9normalizef(float);
float _Z3dotff(float, float);

static void geometric(void)
{
   float a[4] = {3, 4, 0, 0}, b[4] = {1e30f, 1e30f, 1e30f, 1e30f}, c[4] = {1e-30f, 1e-30f, 0, 0};
   float r[4];
   EXPECT_F(t_length4(a), 5.0f);
   EXPECT_F(t_length4(b), 2e30f);                           /* no overflow in the squares */
   EXPECT_F(t_length2(c), (float)(1e-30 * sqrt(2.0)));      /* nor underflow */
   float d[4] = {0x1p-149f, 0, 0, 0};
   EXPECT_F(t_length2(d), 0x1p-149f);
   float inf4[4] = {INFINITY, 1, 0, 0};
   EXPECT_F(t_length4(inf4), INFINITY);
   EXPECT_F(t_fast_length3(a), 5.0f);
   float p[3] = {1, 2, 3}, q[3] = {4, 6, 3};
   EXPECT_F(t_distance3(p, q), 5.0f);
   float big1[3] = {3e38f, 0, 0}, big2[3] = {-3e38f, 0, 0};
   EXPECT_F(t_distance3(big1, big2), INFINITY);          /* 6e38 is beyond float */
   float far1[3] = {2e38f, 2e38f, 0}, far2[3] = {-0.0f, 0, 0};
   EXPECT_F(t_distance3(far1, far2), (float)(2e38 * M_SQRT2));   /* squares beyond float */
   t_normalize4(a, r);
   EXPECT_F(r[0], 0.6f); EXPECT_F(r[1], 0.8f); EXPECT_F(r[2], 0.0f);
   t_normalize4(b, r);
   EXPECT_F(r[0], 0.5f); EXPECT_F(r[3], 0.5f);
   float z[4] = {0, -0.0f, 0, 0};
   t_normalize4(z, r);
   EXPECT_F(r[0], 0.0f); EXPECT_F(r[1], -0.0f);
   float infs[4] = {-INFINITY, 1, INFINITY, 2};
   t_normalize4(infs, r);
   EXPECT_F(r[0], -(float)M_SQRT1_2); EXPECT_F(r[1], 0.0f); EXPECT_F(r[2], (float)M_SQRT1_2);
   float tiny[3] = {0x1p-149f, 0, 0};
   t_normalize3(tiny, r);
   EXPECT_F(r[0], 1.0f);
   EXPECT_F(t_dot4(a, a), 25.0f);
   float x[3] = {1, 0, 0}, y[3] = {0, 1, 0};
   t_cross3(x, y, r);
   EXPECT_F(r[0], 0.0f); EXPECT_F(r[1], 0.0f); EXPECT_F(r[2], 1.0f);
   float x4[4] = {1, 2, 3, 9}, y4[4] = {4, 5, 6, 9};
   t_cross4(x4, y4, r);
   EXPECT_F(r[0], -3.0f); EXPECT_F(r[1], 6.0f); EXPECT_F(r[2], -3.0f); EXPECT_F(r[3], 0.0f);
   EXPECT_F(_Z6lengthf(-2.0f), 2.0f); EXPECT_F(_Z9normalizef(-2.0f), -1.0f);
   EXPECT_F(_Z3dotff(2.0f, 3.0f), 6.0f);
   double dd[4] = {1e300, 1e300, 1e300, 1e300}, dr[2];
   CHECK(t_length_d4(dd) == 2e300, "length(double4) = %a", t_length_d4(dd));
   double ds[4] = {0x1p-1074, 0x1p-1074, 0, 0};
   CHECK(t_length_d4(ds) == 0x1p-1074 * M_SQRT2 || fabs(t_length_d4(ds) - 0x1p-1074) <= 0x1p-1074,
         "length(denormal double4)");
   double dn[2] = {3e-310, 4e-310};
   t_normalize_d2(dn, dr);
   CHECK(fabs(dr[0] - 0.6) < 1e-15 && fabs(dr[1] - 0.8) < 1e-15, "normalize(denormal double2)");
}

/* ---- relational ---- */
void t_isequal4(const float *, const float *, int *);
void t_isnan16(const float *, int *);
void t_isnormal3(const float *, int *);
void t_signbit8(const float *, int *);
void t_islessgreater2(const float *, const float *, int *);
void t_isunordered4(const float *, const float *, int *);
void t_isinf_d4(const double *, int64_t *);
int t_isinf_d(double);
int t_any_char16(const int8_t *);
int t_all_char16(const int8_t *);
int t_any_int3(const int32_t *);
int t_all_long2(const int64_t *);
void t_select_float4_uint(const float *, const float *, const uint32_t *, float *);
void t_select_short8(const int16_t *, const int16_t *, const int16_t *, int16_t *);
float t_select_float(float, float, int);
void t_bitselect_float4(const float *, const float *, const float *, float *);
int _Z5isnanf(float);
int _Z8isfinitef(float);
int _Z5isinff(float);
int _Z8isnormalf(float);
int _Z7signbitf(float);
int _Z7isequalff(float, float);
int _Z9isorderedff(float, float);
int _Z9isgreaterff(float, float);
int _Z14isgreaterequalff(float, float);
int _Z6islessff(float, float);
int _Z11islessequalff(float, float);
int _Z10isnotequalff(float, float);
int _Z5isnand(double);
int _Z7signbitd(double);
int _Z3anyc(int8_t);
int _Z3alll(int64_t);

static void relational(void)
{
   const float nan = NAN, inf = INFINITY;
   /* Scalars: 1 for true. */
   EXPECT_I(_Z5isnanf(nan), 1); EXPECT_I(_Z5isnanf(inf), 0);
   EXPECT_I(_Z8isfinitef(FLT_MAX), 1); EXPECT_I(_Z8isfinitef(inf), 0); EXPECT_I(_Z8isfinitef(nan), 0);
   EXPECT_I(_Z5isinff(-inf), 1); EXPECT_I(_Z5isinff(nan), 0);
   EXPECT_I(_Z8isnormalf(FLT_MIN), 1); EXPECT_I(_Z8isnormalf(0x1p-127f), 0);
   EXPECT_I(_Z8isnormalf(0.0f), 0); EXPECT_I(_Z8isnormalf(inf), 0);
   EXPECT_I(_Z7signbitf(-0.0f), 1); EXPECT_I(_Z7signbitf(0.0f), 0); EXPECT_I(_Z7signbitf(-nan), 1);
   EXPECT_I(_Z7isequalff(nan, nan), 0); EXPECT_I(_Z7isequalff(0.0f, -0.0f), 1);
   EXPECT_I(_Z10isnotequalff(nan, nan), 1);
   EXPECT_I(_Z9isorderedff(1.0f, nan), 0); EXPECT_I(_Z9isorderedff(1.0f, 2.0f), 1);
   EXPECT_I(_Z9isgreaterff(2.0f, 1.0f), 1); EXPECT_I(_Z14isgreaterequalff(1.0f, 1.0f), 1);
   EXPECT_I(_Z6islessff(nan, 1.0f), 0); EXPECT_I(_Z11islessequalff(1.0f, 1.0f), 1);
   EXPECT_I(_Z5isnand(NAN), 1); EXPECT_I(_Z7signbitd(-0.0), 1); EXPECT_I(t_isinf_d(-INFINITY), 1);
   EXPECT_I(_Z3anyc(-1), 1); EXPECT_I(_Z3anyc(1), 0); EXPECT_I(_Z3alll(INT64_MIN), 1);

   /* Vectors: -1 for true. */
   float a[16] = {1, nan, 0.0f, 3, -inf, 5, nan, 7, 0x1p-130f, -0.0f, FLT_MIN, inf, 1, 2, 3, 4};
   float b[16] = {1, nan, -0.0f, 4, -inf, 6, 1, 7, 0, 0, 0, 0, 0, 0, 0, 0};
   int r[16];
   t_isequal4(a, b, r);
   EXPECT_I(r[0], -1); EXPECT_I(r[1], 0); EXPECT_I(r[2], -1); EXPECT_I(r[3], 0);
   t_isnan16(a, r);
   for (int i = 0; i < 16; i++) EXPECT_I(r[i], isnan(a[i]) ? -1 : 0);
   t_isnormal3(a + 8, r);
   EXPECT_I(r[0], 0); EXPECT_I(r[1], 0); EXPECT_I(r[2], -1);
   t_signbit8(a + 8, r);
   EXPECT_I(r[0], 0); EXPECT_I(r[1], -1); EXPECT_I(r[2], 0);
   t_islessgreater2(a + 2, b + 2, r);
   EXPECT_I(r[0], 0); EXPECT_I(r[1], -1);
   t_isunordered4(a + 4, b + 4, r);
   EXPECT_I(r[0], 0); EXPECT_I(r[1], 0); EXPECT_I(r[2], -1); EXPECT_I(r[3], 0);
   double d4[4] = {INFINITY, 1.0, -INFINITY, NAN};
   int64_t l4[4];
   t_isinf_d4(d4, l4);
   EXPECT_I(l4[0], -1); EXPECT_I(l4[1], 0); EXPECT_I(l4[2], -1); EXPECT_I(l4[3], 0);

   int8_t c16[16] = {0};
   EXPECT_I(t_any_char16(c16), 0);
   c16[15] = -128;
   EXPECT_I(t_any_char16(c16), 1); EXPECT_I(t_all_char16(c16), 0);
   memset(c16, 0x80, sizeof c16);
   EXPECT_I(t_all_char16(c16), 1);
   int32_t i3[4] = {1, 2, 3, -1};                 /* lane 3 is not part of an int3 */
   EXPECT_I(t_any_int3(i3), 0);
   i3[1] = INT32_MIN;
   EXPECT_I(t_any_int3(i3), 1);
   int64_t l2[2] = {-1, INT64_MIN};
   EXPECT_I(t_all_long2(l2), 1);
   l2[0] = INT64_MAX;
   EXPECT_I(t_all_long2(l2), 0);

   float fa[4] = {1, 2, 3, 4}, fb[4] = {5, 6, 7, 8}, fr[4];
   uint32_t m[4] = {0x80000000u, 0x7fffffffu, 0xffffffffu, 1};
   t_select_float4_uint(fa, fb, m, fr);              /* most significant bit decides */
   EXPECT_F(fr[0], 5.0f); EXPECT_F(fr[1], 2.0f); EXPECT_F(fr[2], 7.0f); EXPECT_F(fr[3], 4.0f);
   int16_t sa[8] = {1, 2, 3, 4, 5, 6, 7, 8}, sb[8] = {-1, -2, -3, -4, -5, -6, -7, -8};
   int16_t sc[8] = {-1, 0, 1, INT16_MIN, INT16_MAX, -2, 0, -1}, sr[8];
   t_select_short8(sa, sb, sc, sr);
   for (int i = 0; i < 8; i++) EXPECT_I(sr[i], sc[i] < 0 ? sb[i] : sa[i]);
   EXPECT_F(t_select_float(1.0f, 2.0f, 1), 2.0f);    /* scalar: non-zero decides */
   EXPECT_F(t_select_float(1.0f, 2.0f, 0), 1.0f);
   float ba[4] = {1.0f, -1.0f, 0, 0}, bb[4] = {-2.0f, 2.0f, 0, 0}, bc[4], br[4];
   memcpy(&bc[0], &(uint32_t){0x80000000u}, 4);     /* sign from b, rest from a */
   memcpy(&bc[1], &(uint32_t){0x7fffffffu}, 4);
   bc[2] = bc[3] = 0;
   t_bitselect_float4(ba, bb, bc, br);
   EXPECT_F(br[0], -1.0f); EXPECT_F(br[1], -2.0f);
}

/* ---- vload / vstore ---- */
void t_vload3_global(size_t, const float *, float *);
void t_vload16_constant(size_t, const int32_t *, int32_t *);
void t_vload8_local(size_t, const int16_t *, int16_t *);
void t_vload2_private(size_t, const double *, double *);
void t_vstore3_local(const uint8_t *, size_t, uint8_t *);
void t_vstore4_global(const int64_t *, size_t, int64_t *);
void t_vstore16_private(const float *, size_t, float *);

static void vload_vstore(void)
{
   float f[64];
   int32_t i[64];
   int16_t s[64];
   double d[16];
   for (int k = 0; k < 64; k++) { f[k] = (float)k; i[k] = k * 3; s[k] = (int16_t)(-k); }
   for (int k = 0; k < 16; k++) d[k] = k * 0.5;
   float fr[16];
   t_vload3_global(2, f + 1, fr);                   /* misaligned: element alignment only */
   EXPECT_F(fr[0], 7.0f); EXPECT_F(fr[1], 8.0f); EXPECT_F(fr[2], 9.0f);
   int32_t ir[16];
   t_vload16_constant(1, i + 3, ir);
   for (int k = 0; k < 16; k++) EXPECT_I(ir[k], (19 + k) * 3);
   int16_t sr[8];
   t_vload8_local(3, s + 1, sr);
   for (int k = 0; k < 8; k++) EXPECT_I(sr[k], -(25 + k));
   double dr[2];
   t_vload2_private(5, d + 1, dr);
   CHECK(dr[0] == 5.5 && dr[1] == 6.0, "vload2 double");

   uint8_t u[16], uv[3] = {9, 8, 7};
   memset(u, 0xee, sizeof u);
   t_vstore3_local(uv, 2, u + 1);                   /* writes u[7..9], nothing else */
   for (int k = 0; k < 16; k++) EXPECT_I(u[k], k == 7 ? 9 : k == 8 ? 8 : k == 9 ? 7 : 0xee);
   int64_t l[16] = {0}, lv[4] = {1, -2, 3, INT64_MIN};
   t_vstore4_global(lv, 2, l + 1);
   for (int k = 0; k < 16; k++) EXPECT_I(l[k], (k >= 9 && k < 13) ? lv[k - 9] : 0);
   float out[40];
   memset(out, 0, sizeof out);
   t_vstore16_private(f, 1, out + 3);
   for (int k = 0; k < 40; k++) EXPECT_F(out[k], (k >= 19 && k < 35) ? (float)(k - 19) : 0.0f);
}

/* ---- half ---- */
float t_vload_half_global(size_t, const uint16_t *);
void t_vload_half4_constant(size_t, const uint16_t *, float *);
void t_vloada_half3_local(size_t, const uint16_t *, float *);
void t_vstore_half(float, size_t, uint16_t *);
void t_vstore_half_rte(float, size_t, uint16_t *);
void t_vstore_half_rtz(float, size_t, uint16_t *);
void t_vstore_half_rtp(float, size_t, uint16_t *);
void t_vstore_half_rtn(float, size_t, uint16_t *);
void t_vstore_half_d_rte(double, size_t, uint16_t *);
void t_vstore_half_d_rtz(double, size_t, uint16_t *);
void t_vstore_half_d_rtp(double, size_t, uint16_t *);
void t_vstore_half_d_rtn(double, size_t, uint16_t *);
void t_vstore_half8_rtp(const float *, size_t, uint16_t *);
void t_vstorea_half3_rtn(const float *, size_t, uint16_t *);

/* Independent decoder: IEEE binary16 by its definition. */
static long double half_value(uint16_t h)
{
   int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
   long double v;
   if (e == 31) v = m ? NAN : INFINITY;
   else if (e == 0) v = ldexpl(m, -24);
   else v = ldexpl(1024 + m, e - 25);
   return s ? -v : v;
}

enum { RTE, RTZ, RTP, RTN };

/* Reference rounding of any real to binary16: bracket |v| between two
 * consecutive halves (65536 standing in past the largest) and pick by mode. */
static uint16_t half_ref(long double v, int mode)
{
   if (isnan(v)) return 0x7e00;
   uint16_t sign = signbit(v) ? 0x8000 : 0;
   long double a = fabsl(v);
   bool neg = sign != 0;
   bool away = (mode == RTP && !neg) || (mode == RTN && neg);
   if (isinf(a)) return sign | 0x7c00;
   int lo = 0, hi = 0x7bff;                 /* largest h with half_value(h) <= a */
   if (a >= 65504) lo = 0x7bff;
   else {
      while (lo < hi) {
         int mid = (lo + hi + 1) / 2;
         if (half_value((uint16_t)mid) <= a) lo = mid; else hi = mid - 1;
      }
   }
   long double vlo = half_value((uint16_t)lo);
   long double vhi = lo == 0x7bff ? 65536.0L : half_value((uint16_t)(lo + 1));
   int up;
   if (a == vlo) up = 0;
   else if (mode == RTE) {
      long double mid = (vlo + vhi) / 2;
      up = a > mid || (a == mid && (lo & 1));
   } else up = away;
   int r = lo + up;                          /* 0x7c00 is inf */
   return sign | (uint16_t)r;
}

static void half_conversions(void)
{
   uint16_t all[65536];
   for (int h = 0; h < 65536; h++) all[h] = (uint16_t)h;
   /* Every half loads exactly. */
   for (int h = 0; h < 65536; h++) {
      float f = t_vload_half_global((size_t)h, all);
      long double want = half_value((uint16_t)h);
      CHECK(isnan(want) ? isnan(f) : (f == want && !signbit(f) == !signbit(want)), "vload_half(%04x) = %a", h, f);
   }
   float f4[4];
   t_vload_half4_constant(3, all + 1, f4);
   for (int k = 0; k < 4; k++) EXPECT_F(f4[k], (float)half_value((uint16_t)(13 + k)));
   t_vloada_half3_local(2, all + 0x3c00, f4);        /* vloada_half3 steps by 4 */
   for (int k = 0; k < 3; k++) EXPECT_F(f4[k], (float)half_value((uint16_t)(0x3c00 + 8 + k)));

   void (*fs[4])(float, size_t, uint16_t *) = {t_vstore_half_rte, t_vstore_half_rtz, t_vstore_half_rtp, t_vstore_half_rtn};
   void (*ds[4])(double, size_t, uint16_t *) = {t_vstore_half_d_rte, t_vstore_half_d_rtz, t_vstore_half_d_rtp, t_vstore_half_d_rtn};
   uint16_t out[4];
   /* Inputs: every half and the midpoints and near-midpoints between
    * neighbours, then random floats/doubles of every magnitude. */
   for (int h = 0; h < 0x7c00; h++) {
      long double v0 = half_value((uint16_t)h), v1 = h == 0x7bff ? 65536.0L : half_value((uint16_t)(h + 1));
      long double mid = (v0 + v1) / 2;
      float fin[5] = {(float)v0, (float)mid, nextafterf((float)mid, 0), nextafterf((float)mid, INFINITY), -(float)mid};
      for (int j = 0; j < 5; j++)
         for (int mode = 0; mode < 4; mode++) {
            fs[mode](fin[j], 1, out);
            uint16_t want = half_ref(fin[j], mode);
            CHECK(out[1] == want, "vstore_half mode %d (%a) = %04x, want %04x", mode, fin[j], out[1], want);
         }
      /* From double directly: a value a hair above a midpoint must not
       * round as the tie it becomes when squeezed through float first. */
      double din[3] = {(double)mid + (double)(v1 - v0) * 0x1p-30, (double)mid - (double)(v1 - v0) * 0x1p-30, -(double)mid};
      for (int j = 0; j < 3; j++)
         for (int mode = 0; mode < 4; mode++) {
            ds[mode](din[j], 0, out);
            uint16_t want = half_ref(din[j], mode);
            CHECK(out[0] == want, "vstore_half(double) mode %d (%a) = %04x, want %04x", mode, din[j], out[0], want);
         }
   }
   for (int i = 0; i < 400000; i++) {
      float f = rand_float_bits();
      if (i & 1) f = ldexpf(f, -(int)(test_rand() % 40));
      int mode = i & 3;
      fs[mode](f, 0, out);
      uint16_t want = half_ref(f, mode);
      if (isnan(f)) CHECK((out[0] & 0x7c00) == 0x7c00 && (out[0] & 0x3ff), "NaN -> %04x", out[0]);
      else CHECK(out[0] == want, "vstore_half mode %d (%a) = %04x, want %04x", mode, f, out[0], want);
      double d = u2d(test_rand());
      ds[mode](d, 0, out);
      want = half_ref(d, mode);
      if (isnan(d)) CHECK((out[0] & 0x7c00) == 0x7c00 && (out[0] & 0x3ff), "NaN -> %04x", out[0]);
      else CHECK(out[0] == want, "vstore_half(double) mode %d (%a) = %04x, want %04x", mode, d, out[0], want);
   }
   /* Default vstore_half rounds to nearest even. */
   t_vstore_half(1.0f + 0x1p-11f, 0, out);
   EXPECT_I(out[0], 0x3c00);
   t_vstore_half(65520.0f, 0, out);
   EXPECT_I(out[0], 0x7c00);
   t_vstore_half_rtz(65520.0f, 0, out);
   EXPECT_I(out[0], 0x7bff);
   t_vstore_half_rtn(-0x1p-30f, 0, out);
   EXPECT_I(out[0], 0x8001);
   t_vstore_half_rtp(-0x1p-30f, 0, out);
   EXPECT_I(out[0], 0x8000);

   float v8[8] = {1.0f, 1.0f + 0x1p-20f, -1.0f - 0x1p-20f, 70000.0f, -70000.0f, 0x1p-30f, -0.0f, 3.0f};
   uint16_t o16[24];
   memset(o16, 0, sizeof o16);
   t_vstore_half8_rtp(v8, 2, o16);
   for (int k = 0; k < 24; k++)
      EXPECT_I(o16[k], (k >= 16) ? half_ref(v8[k - 16], RTP) : 0);
   memset(o16, 0, sizeof o16);
   t_vstorea_half3_rtn(v8, 3, o16);                 /* vstorea_half3 steps by 4 */
   for (int k = 0; k < 24; k++)
      EXPECT_I(o16[k], (k >= 12 && k < 15) ? half_ref(v8[k - 12], RTN) : 0);
}

/* ---- shuffle ---- */
void t_shuffle_float8_4(const float *, const uint32_t *, float *);
void t_shuffle_uchar2_16(const uint8_t *, const uint8_t *, uint8_t *);
void t_shuffle2_int4_8(const int32_t *, const int32_t *, const uint32_t *, int32_t *);

static void shuffles(void)
{
   float x[8] = {10, 11, 12, 13, 14, 15, 16, 17}, r[4];
   uint32_t m[4] = {7, 0, 9, 0xfffffffa};           /* only the low 3 bits count */
   t_shuffle_float8_4(x, m, r);
   EXPECT_F(r[0], 17.0f); EXPECT_F(r[1], 10.0f); EXPECT_F(r[2], 11.0f); EXPECT_F(r[3], 12.0f);
   uint8_t c[2] = {5, 6}, cm[16], cr[16];
   for (int k = 0; k < 16; k++) cm[k] = (uint8_t)(k * 7);
   t_shuffle_uchar2_16(c, cm, cr);
   for (int k = 0; k < 16; k++) EXPECT_I(cr[k], c[(k * 7) & 1]);
   int32_t a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, ir[8];
   uint32_t im[8] = {0, 7, 4, 3, 8, 15, 5, 2};
   t_shuffle2_int4_8(a, b, im, ir);
   for (int k = 0; k < 8; k++) {
      unsigned idx = im[k] & 7;
      EXPECT_I(ir[k], idx < 4 ? a[idx] : b[idx - 4]);
   }
}

int main(void)
{
   common();
   geometric();
   relational();
   vload_vstore();
   half_conversions();
   shuffles();
   return test_report("builtins-misc");
}
