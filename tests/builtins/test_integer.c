/* Integer builtins (§6.11.3): every function on every integer type against
 * __int128 reference arithmetic, exhaustively for 8-bit types and on edge
 * plus random values for the others; vector forms lane by lane. */
#include "harness.h"

#include <stdbool.h>
#include <stdint.h>

typedef __int128 i128;
typedef unsigned __int128 u128;

/* Scalar entry points by mangled name.  m: the type's mangling letter,
 * U: its unsigned type. */
#define DECL(T, m, U) \
   T _Z7add_sat##m##m(T, T); T _Z7sub_sat##m##m(T, T); T _Z4hadd##m##m(T, T); \
   T _Z5rhadd##m##m(T, T); U _Z8abs_diff##m##m(T, T); T _Z6mul_hi##m##m(T, T); \
   T _Z6mad_hi##m##m##m(T, T, T); T _Z7mad_sat##m##m##m(T, T, T); T _Z6rotate##m##m(T, T); \
   U _Z3abs##m(T); T _Z3clz##m(T); T _Z3max##m##m(T, T); T _Z3min##m##m(T, T); \
   T _Z5clamp##m##m##m(T, T, T);
DECL(int8_t, c, uint8_t) DECL(uint8_t, h, uint8_t)
DECL(int16_t, s, uint16_t) DECL(uint16_t, t, uint16_t)
DECL(int32_t, i, uint32_t) DECL(uint32_t, j, uint32_t)
DECL(int64_t, l, uint64_t) DECL(uint64_t, m, uint64_t)
int16_t _Z8upsamplech(int8_t, uint8_t);
uint16_t _Z8upsamplehh(uint8_t, uint8_t);
int32_t _Z8upsamplest(int16_t, uint16_t);
uint32_t _Z8upsamplett(uint16_t, uint16_t);
int64_t _Z8upsampleij(int32_t, uint32_t);
uint64_t _Z8upsamplejj(uint32_t, uint32_t);
int32_t _Z5mul24ii(int32_t, int32_t);
uint32_t _Z5mul24jj(uint32_t, uint32_t);
int32_t _Z5mad24iii(int32_t, int32_t, int32_t);
uint32_t _Z5mad24jjj(uint32_t, uint32_t, uint32_t);

static i128 clamp128(i128 v, i128 lo, i128 hi) { return v < lo ? lo : (v > hi ? hi : v); }

static int clz_ref(uint64_t x, int bits)
{
   int n = 0;
   for (int b = bits - 1; b >= 0 && !((x >> b) & 1); b--) n++;
   return n;
}

/* One type: T with unsigned U, B bits, limits LO/HI, mangling letter m. */
#define TEST_TYPE(T, U, m, B, SIGNED, LO, HI) \
static void check_##m(T a, T b, T c) \
{ \
   i128 A = a, Bv = b, C = c; \
   CHECK(_Z7add_sat##m##m(a, b) == (T)clamp128(A + Bv, LO, HI), #T " add_sat(%lld, %lld)", (long long)a, (long long)b); \
   CHECK(_Z7sub_sat##m##m(a, b) == (T)clamp128(A - Bv, LO, HI), #T " sub_sat(%lld, %lld)", (long long)a, (long long)b); \
   CHECK(_Z4hadd##m##m(a, b) == (T)((A + Bv) >> 1), #T " hadd(%lld, %lld)", (long long)a, (long long)b); \
   CHECK(_Z5rhadd##m##m(a, b) == (T)((A + Bv + 1) >> 1), #T " rhadd(%lld, %lld)", (long long)a, (long long)b); \
   CHECK(_Z8abs_diff##m##m(a, b) == (U)(A > Bv ? A - Bv : Bv - A), #T " abs_diff(%lld, %lld)", (long long)a, (long long)b); \
   T hi; \
   if (SIGNED) hi = (T)((A * Bv) >> B); \
   else hi = (T)(((u128)(U)a * (u128)(U)b) >> B); \
   CHECK(_Z6mul_hi##m##m(a, b) == hi, #T " mul_hi(%lld, %lld)", (long long)a, (long long)b); \
   CHECK(_Z6mad_hi##m##m##m(a, b, c) == (T)((U)hi + (U)c), #T " mad_hi"); \
   if (SIGNED) \
      CHECK(_Z7mad_sat##m##m##m(a, b, c) == (T)clamp128(A * Bv + C, LO, HI), #T " mad_sat(%lld, %lld, %lld)", \
            (long long)a, (long long)b, (long long)c); \
   else { \
      u128 r = (u128)(U)a * (u128)(U)b + (u128)(U)c; \
      CHECK(_Z7mad_sat##m##m##m(a, b, c) == (T)(r > (u128)(U)HI ? (U)HI : (U)r), #T " mad_sat(%llu, %llu, %llu)", \
            (unsigned long long)a, (unsigned long long)b, (unsigned long long)c); \
   } \
   unsigned s = (unsigned)(U)b % B; \
   U ua = (U)a; \
   T rot = (T)(U)(s ? (U)(ua << s) | (U)(ua >> (B - s)) : ua); \
   CHECK(_Z6rotate##m##m(a, b) == rot, #T " rotate(%lld, %lld)", (long long)a, (long long)b); \
   CHECK(_Z3abs##m(a) == (U)(A < 0 ? -A : A), #T " abs(%lld)", (long long)a); \
   CHECK(_Z3clz##m(a) == (T)clz_ref((U)a, B), #T " clz(%lld)", (long long)a); \
   CHECK(_Z3max##m##m(a, b) == (a > b ? a : b), #T " max"); \
   CHECK(_Z3min##m##m(a, b) == (a < b ? a : b), #T " min"); \
   T lo = a < b ? a : b, up = a < b ? b : a; \
   CHECK(_Z5clamp##m##m##m(c, lo, up) == (c < lo ? lo : (c > up ? up : c)), #T " clamp"); \
} \
static void test_##m(void) \
{ \
   const i128 edges[] = {0, 1, 2, 3, -1, -2, LO, LO + 1, LO + 2, HI, HI - 1, HI / 2, HI / 2 + 1, \
                         LO / 2, LO / 2 - 1, 100, -100, 7, -7}; \
   const int ne = sizeof(edges) / sizeof(edges[0]); \
   if (B == 8) { \
      for (i128 x = LO; x <= (i128)HI; x++) \
         for (i128 y = LO; y <= (i128)HI; y++) \
            check_##m((T)x, (T)y, (T)(x ^ y)); \
   } else { \
      for (int i = 0; i < ne; i++) \
         for (int j = 0; j < ne; j++) \
            for (int k = 0; k < ne; k++) \
               check_##m((T)clamp128(edges[i], LO, HI), (T)clamp128(edges[j], LO, HI), \
                         (T)clamp128(edges[k], LO, HI)); \
      for (int i = 0; i < 100000; i++) \
         check_##m((T)test_rand(), (T)test_rand(), (T)test_rand()); \
   } \
}

TEST_TYPE(int8_t, uint8_t, c, 8, 1, INT8_MIN, INT8_MAX)
TEST_TYPE(uint8_t, uint8_t, h, 8, 0, 0, UINT8_MAX)
TEST_TYPE(int16_t, uint16_t, s, 16, 1, INT16_MIN, INT16_MAX)
TEST_TYPE(uint16_t, uint16_t, t, 16, 0, 0, UINT16_MAX)
TEST_TYPE(int32_t, uint32_t, i, 32, 1, INT32_MIN, INT32_MAX)
TEST_TYPE(uint32_t, uint32_t, j, 32, 0, 0, UINT32_MAX)
TEST_TYPE(int64_t, uint64_t, l, 64, 1, INT64_MIN, INT64_MAX)
TEST_TYPE(uint64_t, uint64_t, m, 64, 0, 0, UINT64_MAX)

static void test_upsample_24(void)
{
   for (int i = 0; i < 20000; i++) {
      uint64_t r = test_rand();
      int8_t c = (int8_t)r; uint8_t h = (uint8_t)(r >> 8);
      int16_t s = (int16_t)(r >> 16); uint16_t t = (uint16_t)(r >> 32);
      int32_t x = (int32_t)r; uint32_t y = (uint32_t)(r >> 32);
      CHECK(_Z8upsamplech(c, h) == (int16_t)(((uint16_t)(uint8_t)c << 8) | h), "upsample(char)");
      CHECK(_Z8upsamplehh(h, (uint8_t)c) == (uint16_t)((h << 8) | (uint8_t)c), "upsample(uchar)");
      CHECK(_Z8upsamplest(s, t) == (int32_t)(((uint32_t)(uint16_t)s << 16) | t), "upsample(short)");
      CHECK(_Z8upsamplett(t, (uint16_t)s) == (((uint32_t)t << 16) | (uint16_t)s), "upsample(ushort)");
      CHECK(_Z8upsampleij(x, y) == (int64_t)(((uint64_t)(uint32_t)x << 32) | y), "upsample(int)");
      CHECK(_Z8upsamplejj(y, (uint32_t)x) == (((uint64_t)y << 32) | (uint32_t)x), "upsample(uint)");
      /* mul24/mad24 are defined for 24-bit operands only. */
      int32_t a = (int32_t)(r << 8) >> 8, b = (int32_t)(r >> 24) >> 8;
      uint32_t ua = (uint32_t)r & 0xffffff, ub = (uint32_t)(r >> 40) & 0xffffff;
      CHECK(_Z5mul24ii(a, b) == (int32_t)((int64_t)a * b), "mul24(%d, %d)", a, b);
      CHECK(_Z5mul24jj(ua, ub) == ua * ub, "mul24(%u, %u)", ua, ub);
      CHECK(_Z5mad24iii(a, b, x) == (int32_t)(uint32_t)((int64_t)a * b + x), "mad24");
      CHECK(_Z5mad24jjj(ua, ub, y) == ua * ub + y, "mad24 uint");
   }
}

/* ---- vector forms, lane by lane against the scalar ones ---- */
void t_add_sat_char16(const int8_t *, const int8_t *, int8_t *);
void t_sub_sat_uint4(const uint32_t *, const uint32_t *, uint32_t *);
void t_mul_hi_long3(const int64_t *, const int64_t *, int64_t *);
void t_mul_hi_short8(const int16_t *, const int16_t *, int16_t *);
void t_mad_sat_int4(const int32_t *, const int32_t *, const int32_t *, int32_t *);
void t_mad_sat_ulong2(const uint64_t *, const uint64_t *, const uint64_t *, uint64_t *);
void t_rotate_uchar16(const uint8_t *, const uint8_t *, uint8_t *);
void t_clz_ushort8(const uint16_t *, uint16_t *);
void t_abs_char4(const int8_t *, uint8_t *);
void t_abs_diff_int8(const int32_t *, const int32_t *, uint32_t *);
void t_upsample_short4(const int16_t *, const uint16_t *, int32_t *);
void t_clamp_bcast_int8(const int32_t *, int32_t, int32_t, int32_t *);
void t_min_bcast_uchar3(const uint8_t *, uint8_t, uint8_t *);
void t_hadd_long16(const int64_t *, const int64_t *, int64_t *);
void t_rhadd_uint2(const uint32_t *, const uint32_t *, uint32_t *);
void t_mad24_int4(const int32_t *, const int32_t *, const int32_t *, int32_t *);
void t_mad_hi_uint3(const uint32_t *, const uint32_t *, const uint32_t *, uint32_t *);

static void fill(void *p, size_t n)
{
   uint8_t *b = p;
   for (size_t i = 0; i < n; i++) b[i] = (uint8_t)test_rand();
   /* Mix in extremes so saturation paths run. */
   if (n >= 4) { b[0] = 0x7f; b[1] = 0x80; b[2] = 0xff; b[3] = 0; }
}

static void vector_forms(void)
{
   for (int rep = 0; rep < 200; rep++) {
      union { int8_t c[16]; uint8_t h[16]; int16_t s[16]; uint16_t t[16]; int32_t i[16];
              uint32_t j[16]; int64_t l[16]; uint64_t m[16]; } a, b, c, r;
      fill(&a, sizeof a); fill(&b, sizeof b); fill(&c, sizeof c);
      t_add_sat_char16(a.c, b.c, r.c);
      for (int k = 0; k < 16; k++) CHECK(r.c[k] == _Z7add_satcc(a.c[k], b.c[k]), "add_sat char16[%d]", k);
      t_sub_sat_uint4(a.j, b.j, r.j);
      for (int k = 0; k < 4; k++) CHECK(r.j[k] == _Z7sub_satjj(a.j[k], b.j[k]), "sub_sat uint4[%d]", k);
      t_mul_hi_long3(a.l, b.l, r.l);
      for (int k = 0; k < 3; k++) CHECK(r.l[k] == _Z6mul_hill(a.l[k], b.l[k]), "mul_hi long3[%d]", k);
      t_mul_hi_short8(a.s, b.s, r.s);
      for (int k = 0; k < 8; k++) CHECK(r.s[k] == _Z6mul_hiss(a.s[k], b.s[k]), "mul_hi short8[%d]", k);
      t_mad_sat_int4(a.i, b.i, c.i, r.i);
      for (int k = 0; k < 4; k++) CHECK(r.i[k] == _Z7mad_satiii(a.i[k], b.i[k], c.i[k]), "mad_sat int4[%d]", k);
      t_mad_sat_ulong2(a.m, b.m, c.m, r.m);
      for (int k = 0; k < 2; k++) CHECK(r.m[k] == _Z7mad_satmmm(a.m[k], b.m[k], c.m[k]), "mad_sat ulong2[%d]", k);
      t_rotate_uchar16(a.h, b.h, r.h);
      for (int k = 0; k < 16; k++) CHECK(r.h[k] == _Z6rotatehh(a.h[k], b.h[k]), "rotate uchar16[%d]", k);
      t_clz_ushort8(a.t, r.t);
      for (int k = 0; k < 8; k++) CHECK(r.t[k] == _Z3clzt(a.t[k]), "clz ushort8[%d]", k);
      t_abs_char4(a.c, r.h);
      for (int k = 0; k < 4; k++) CHECK(r.h[k] == _Z3absc(a.c[k]), "abs char4[%d]", k);
      t_abs_diff_int8(a.i, b.i, r.j);
      for (int k = 0; k < 8; k++) CHECK(r.j[k] == _Z8abs_diffii(a.i[k], b.i[k]), "abs_diff int8[%d]", k);
      t_upsample_short4(a.s, b.t, r.i);
      for (int k = 0; k < 4; k++) CHECK(r.i[k] == _Z8upsamplest(a.s[k], b.t[k]), "upsample short4[%d]", k);
      t_clamp_bcast_int8(a.i, -1000, 5000, r.i);
      for (int k = 0; k < 8; k++) CHECK(r.i[k] == _Z5clampiii(a.i[k], -1000, 5000), "clamp int8[%d]", k);
      t_min_bcast_uchar3(a.h, 77, r.h);
      for (int k = 0; k < 3; k++) CHECK(r.h[k] == _Z3minhh(a.h[k], 77), "min uchar3[%d]", k);
      t_hadd_long16(a.l, b.l, r.l);
      for (int k = 0; k < 16; k++) CHECK(r.l[k] == _Z4haddll(a.l[k], b.l[k]), "hadd long16[%d]", k);
      t_rhadd_uint2(a.j, b.j, r.j);
      for (int k = 0; k < 2; k++) CHECK(r.j[k] == _Z5rhaddjj(a.j[k], b.j[k]), "rhadd uint2[%d]", k);
      t_mad24_int4(a.i, b.i, c.i, r.i);
      for (int k = 0; k < 4; k++) CHECK(r.i[k] == _Z5mad24iii(a.i[k], b.i[k], c.i[k]), "mad24 int4[%d]", k);
      t_mad_hi_uint3(a.j, b.j, c.j, r.j);
      for (int k = 0; k < 3; k++) CHECK(r.j[k] == _Z6mad_hijjj(a.j[k], b.j[k], c.j[k]), "mad_hi uint3[%d]", k);
   }
}

int main(void)
{
   test_c(); test_h(); test_s(); test_t(); test_i(); test_j(); test_l(); test_m();
   test_upsample_24();
   vector_forms();
   return test_report("builtins-integer");
}
