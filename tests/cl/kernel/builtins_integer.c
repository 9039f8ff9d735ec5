/* Integer (OpenCL 1.1 §6.11.3) and relational (§6.11.6) builtins for every
 * integer type, scalars and vectors, against exact host references. */
#include "kk.h"

#include <limits.h>

#define NI 512 /* inputs per type */
#define NF 14  /* results per input */

/* One kernel per type computing every function; vector kernels compute
 * the same on vectors of width W and must match lane by lane. */
#define SRC_SCALAR(T)                                                                      \
   "__kernel void s_" #T "(__global const " #T " *a, __global const " #T " *b,\n"          \
   "                       __global const " #T " *c, __global ulong *o)\n"                 \
   "{\n"                                                                                   \
   "  size_t i = get_global_id(0);\n"                                                      \
   "  " #T " x = a[i], y = b[i], z = c[i];\n"                                              \
   "  __global ulong *r = o + i * 14;\n"                                                   \
   "  r[0] = as_ulong((long)abs(x)); r[1] = (long)clamp(x, min(y, z), max(y, z));\n"       \
   "  r[2] = (long)min(x, y); r[3] = (long)max(x, y); r[4] = (long)mul_hi(x, y);\n"        \
   "  r[5] = (long)rotate(x, y); r[6] = (long)clz(x); r[7] = (long)add_sat(x, y);\n"       \
   "  r[8] = (long)sub_sat(x, y); r[9] = (long)hadd(x, y); r[10] = (long)rhadd(x, y);\n"   \
   "  r[11] = (long)abs_diff(x, y); r[12] = (long)mad_hi(x, y, z);\n"                      \
   "  r[13] = (long)mad_sat(x, y, z);\n"                                                   \
   "}\n"
#define SRC_VECTOR(T, W)                                                                   \
   "__kernel void v_" #T #W "(__global const " #T " *a, __global const " #T " *b,\n"      \
   "                       __global const " #T " *c, __global ulong *o)\n"                 \
   "{\n"                                                                                   \
   "  size_t i = get_global_id(0);\n"                                                      \
   "  " #T #W " x = vload" #W "(i, a), y = vload" #W "(i, b), z = vload" #W "(i, c);\n"    \
   "  " #T #W " r[14];\n"                                                                  \
   "  r[0] = as_" #T #W "(abs(x)); r[1] = clamp(x, min(y, z), max(y, z));\n"               \
   "  r[2] = min(x, y); r[3] = max(x, y); r[4] = mul_hi(x, y); r[5] = rotate(x, y);\n"     \
   "  r[6] = clz(x); r[7] = add_sat(x, y); r[8] = sub_sat(x, y); r[9] = hadd(x, y);\n"     \
   "  r[10] = rhadd(x, y); r[11] = as_" #T #W "(abs_diff(x, y)); r[12] = mad_hi(x, y, z);\n"\
   "  r[13] = mad_sat(x, y, z);\n"                                                         \
   "  for (int f = 0; f < 14; f++)\n"                                                      \
   "    for (int l = 0; l < " #W "; l++)\n"                                                \
   "      o[(i * " #W " + l) * 14 + f] = (long)((" #T " *)&r[f])[l];\n"                     \
   "}\n"

static const char *source =
   SRC_SCALAR(char) SRC_SCALAR(uchar) SRC_SCALAR(short) SRC_SCALAR(ushort) SRC_SCALAR(int)
   SRC_SCALAR(uint) SRC_SCALAR(long) SRC_SCALAR(ulong)
   SRC_VECTOR(char, 2) SRC_VECTOR(uchar, 16) SRC_VECTOR(short, 8) SRC_VECTOR(ushort, 3)
   SRC_VECTOR(int, 4) SRC_VECTOR(uint, 3) SRC_VECTOR(long, 2) SRC_VECTOR(ulong, 4)
   SRC_VECTOR(int, 16)
   /* Vector with scalar: min, max, clamp (§6.11.3 gentype, sgentype). */
   "__kernel void bcast(__global const int *a, __global int *o, int lo, int hi)\n"
   "{\n"
   "  size_t i = get_global_id(0);\n"
   "  int4 x = vload4(i, a);\n"
   "  vstore4(min(x, hi), 3 * i, o); vstore4(max(x, lo), 3 * i + 1, o);\n"
   "  vstore4(clamp(x, lo, hi), 3 * i + 2, o);\n"
   "}\n"
   "__kernel void mad24_k(__global const int *a, __global const int *b, __global const int *c,\n"
   "                      __global int *o)\n"
   "{\n"
   "  size_t i = get_global_id(0);\n"
   "  o[4 * i] = mad24(a[i], b[i], c[i]); o[4 * i + 1] = mul24(a[i], b[i]);\n"
   "  o[4 * i + 2] = (int)mad24((uint)a[i] & 0xffffff, (uint)b[i] & 0xffffff, (uint)c[i]);\n"
   "  int4 v = mad24((int4)(a[i]), (int4)(b[i]), (int4)(c[i]));\n"
   "  o[4 * i + 3] = v.w;\n"
   "}\n"
   /* Relational on floats: scalar forms return 1/0, vector forms -1/0. */
   "__kernel void rel(__global const float *a, __global const float *b, __global int *o)\n"
   "{\n"
   "  size_t i = get_global_id(0);\n"
   "  float x = a[i], y = b[i];\n"
   "  __global int *r = o + 24 * i;\n"
   "  r[0] = isnan(x); r[1] = isinf(x); r[2] = isfinite(x); r[3] = isnormal(x);\n"
   "  r[4] = signbit(x); r[5] = isequal(x, y); r[6] = isnotequal(x, y);\n"
   "  r[7] = isgreater(x, y); r[8] = isless(x, y); r[9] = islessgreater(x, y);\n"
   "  r[10] = isordered(x, y); r[11] = isunordered(x, y);\n"
   "  float4 vx = (float4)(x), vy = (float4)(y);\n"
   "  int4 t;\n"
   "  t = isnan(vx); r[12] = t.w; t = isinf(vx); r[13] = t.z; t = isfinite(vx); r[14] = t.y;\n"
   "  t = isnormal(vx); r[15] = t.x; t = signbit(vx); r[16] = t.w; t = isequal(vx, vy); r[17] = t.z;\n"
   "  t = isnotequal(vx, vy); r[18] = t.y; t = isgreater(vx, vy); r[19] = t.x;\n"
   "  t = isless(vx, vy); r[20] = t.w; t = islessgreater(vx, vy); r[21] = t.z;\n"
   "  t = isordered(vx, vy); r[22] = t.y; t = isunordered(vx, vy); r[23] = t.x;\n"
   "}\n"
   /* select, bitselect, any, all. */
   "__kernel void sel(__global const int *a, __global const int *b, __global const int *c,\n"
   "                  __global int *o)\n"
   "{\n"
   "  size_t i = get_global_id(0);\n"
   "  __global int *r = o + 8 * i;\n"
   "  r[0] = select(a[i], b[i], c[i]);\n"
   "  int4 v = select((int4)(a[i]), (int4)(b[i]), (int4)(c[i]));\n"
   "  r[1] = v.y;\n"
   "  float4 f = select((float4)(a[i]), (float4)(b[i]), (int4)(c[i]));\n"
   "  r[2] = (int)f.w;\n"
   "  uchar16 u = select((uchar16)(a[i]), (uchar16)(b[i]), (char16)(c[i] >> 24));\n"
   "  r[3] = u.s7;\n"
   "  r[4] = bitselect(a[i], b[i], c[i]);\n"
   "  r[5] = any(c[i]); r[6] = all(c[i]);\n"
   "  long2 l = select((long2)(a[i]), (long2)(b[i]), (long2)((long)c[i] << 32));\n"
   "  r[7] = (int)l.y;\n"
   "}\n"
   "__kernel void anyall(__global int *o)\n"
   "{\n"
   "  o[0] = any((int4)(0, 1, 2, 3)); o[1] = any((int4)(0, 0, 0, -5));\n"
   "  o[2] = all((int4)(-1, -1, -1, 1)); o[3] = all((int4)(-1, -2, -3, INT_MIN));\n"
   "  o[4] = any((char16)(0)); o[5] = all((char16)(-1));\n"
   "  o[6] = any((short2)(1, 0x7fff)); o[7] = all((long2)(-1, LONG_MIN));\n"
   "  o[8] = any((long2)(1, 0x7fffffffffffffffL)); o[9] = all((char3)(-128, -1, -112));\n"
   "  o[10] = any((int8)(0, 0, 0, 0, 0, 0, 0, INT_MIN)); o[11] = all((short3)(-1, -1, 0));\n"
   "  o[12] = any(1); o[13] = any(-1); o[14] = all(0x7fffffff); o[15] = all(INT_MIN);\n"
   "}\n";

struct ty {
   const char *name;
   int bits;
   bool sign;
   size_t size;
};
static const struct ty types[] = {
   {"char", 8, true, 1},   {"uchar", 8, false, 1},  {"short", 16, true, 2}, {"ushort", 16, false, 2},
   {"int", 32, true, 4},   {"uint", 32, false, 4},  {"long", 64, true, 8},  {"ulong", 64, false, 8},
};

/* Values are held as __int128 (exact for every type). */
typedef __int128 i128;

static i128 tmin(const struct ty *t)
{
   return t->sign ? -((i128)1 << (t->bits - 1)) : 0;
}
static i128 tmax(const struct ty *t)
{
   return t->sign ? ((i128)1 << (t->bits - 1)) - 1 : ((i128)1 << t->bits) - 1;
}
/* Wraps v into t's range. */
static i128 wrap(const struct ty *t, i128 v)
{
   unsigned __int128 m = ((unsigned __int128)1 << t->bits) - 1;
   unsigned __int128 u = (unsigned __int128)v & m;
   if (t->sign && (u >> (t->bits - 1)))
      return (i128)u - ((i128)1 << t->bits);
   return (i128)u;
}
static i128 sat(const struct ty *t, i128 v)
{
   return v < tmin(t) ? tmin(t) : v > tmax(t) ? tmax(t) : v;
}
static uint64_t bits_of(const struct ty *t, i128 v)
{
   return (uint64_t)((unsigned __int128)v & (((unsigned __int128)1 << t->bits) - 1));
}
/* What the kernel stores: (long)value, i.e. sign-extended for signed
 * types, zero-extended for unsigned. */
static uint64_t stored(const struct ty *t, i128 v)
{
   (void)t;
   return (uint64_t)(int64_t)v;
}
static i128 floor_div2(i128 v)
{
   return v >= 0 ? v / 2 : -((-v + 1) / 2);
}

static void reference(const struct ty *t, i128 x, i128 y, i128 z, uint64_t *r)
{
   const struct ty ut = {NULL, t->bits, false, t->size};
   i128 lo = x < y ? x : y, hi = x < y ? y : x;
   (void)lo, (void)hi;
   i128 mn = y < z ? y : z, mx = y < z ? z : y;
   i128 cl = x < mn ? mn : x > mx ? mx : x;
   /* abs returns the unsigned type; stored via as_ulong((long)abs(x)),
    * which zero-extends the unsigned value. */
   r[0] = (uint64_t)(x < 0 ? -x : x);
   r[1] = stored(t, cl);
   r[2] = stored(t, x < y ? x : y);
   r[3] = stored(t, x < y ? y : x);
   /* mul_hi: the high half of the 2B-bit product. */
   i128 prod;
   if (t->bits < 64) {
      prod = x * y;
      r[4] = stored(t, wrap(t, prod >> t->bits));
   } else if (t->sign) {
      prod = (i128)(int64_t)x * (i128)(int64_t)y;
      r[4] = (uint64_t)(int64_t)(prod >> 64);
   } else {
      unsigned __int128 up = (unsigned __int128)(uint64_t)x * (uint64_t)y;
      r[4] = (uint64_t)(up >> 64);
   }
   /* rotate left by y mod B, on the bit pattern. */
   {
      uint64_t bx = bits_of(t, x);
      unsigned s = (unsigned)(bits_of(t, y) % (uint64_t)t->bits);
      uint64_t m = t->bits == 64 ? ~0ull : ((1ull << t->bits) - 1);
      uint64_t rot = s ? ((bx << s) | (bx >> (t->bits - s))) & m : bx;
      r[5] = stored(t, wrap(t, (i128)rot));
   }
   {
      uint64_t bx = bits_of(t, x);
      int n = 0;
      for (int b = t->bits - 1; b >= 0 && !((bx >> b) & 1); b--)
         n++;
      r[6] = stored(t, n);
   }
   r[7] = stored(t, sat(t, x + y));
   r[8] = stored(t, sat(t, x - y));
   r[9] = stored(t, floor_div2(x + y));
   r[10] = stored(t, floor_div2(x + y + 1));
   r[11] = (uint64_t)bits_of(&ut, x > y ? x - y : y - x);
   /* abs_diff's unsigned result was cast (long): zero-extended for B < 64. */
   r[11] = stored(&ut, x > y ? x - y : y - x);
   {
      i128 mh;
      if (t->bits < 64)
         mh = wrap(t, (x * y) >> t->bits);
      else
         mh = t->sign ? (i128)(int64_t)r[4] : (i128)r[4];
      r[12] = stored(t, wrap(t, mh + z));
   }
   if (t->bits < 64) {
      r[13] = stored(t, sat(t, x * y + z));
   } else {
      /* x*y + z for 64-bit fits in 128 bits unless unsigned max*max+max,
       * which still fits (2^128 - 2^64). */
      if (t->sign) {
         i128 v = (i128)(int64_t)x * (int64_t)y + (int64_t)z;
         r[13] = stored(t, sat(t, v));
      } else {
         unsigned __int128 v = (unsigned __int128)(uint64_t)x * (uint64_t)y + (uint64_t)z;
         r[13] = v > (unsigned __int128)UINT64_MAX ? UINT64_MAX : (uint64_t)v;
      }
   }
   (void)ut;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
   rng ^= rng << 13;
   rng ^= rng >> 7;
   rng ^= rng << 17;
   return rng;
}

/* Inputs: the edges of the type, then random values. */
static i128 input(const struct ty *t, int i, int which)
{
   i128 edges[] = {0, 1, -1, tmin(t), tmax(t), tmin(t) + 1, tmax(t) - 1, 2, t->bits - 1, t->bits,
                   t->bits + 3, 0x55};
   int ne = sizeof(edges) / sizeof(edges[0]);
   int idx = which == 0 ? i % ne : which == 1 ? (i / ne) % ne : (i * 7 + 3) % ne;
   if (i < ne * ne)
      return wrap(t, edges[idx]);
   return wrap(t, (i128)next());
}

static void store_elem(void *buf, size_t i, const struct ty *t, i128 v)
{
   uint64_t b = bits_of(t, v);
   memcpy((unsigned char *)buf + i * t->size, &b, t->size); /* little-endian */
}

static const char *fname[NF] = {"abs", "clamp", "min", "max", "mul_hi", "rotate", "clz",
                                "add_sat", "sub_sat", "hadd", "rhadd", "abs_diff", "mad_hi",
                                "mad_sat"};

static void run_type(const struct kt_env *env, cl_program p, const struct ty *t, int width)
{
   char kname[32];
   if (width)
      snprintf(kname, sizeof(kname), "v_%s%d", t->name, width);
   else
      snprintf(kname, sizeof(kname), "s_%s", t->name);
   size_t n = NI;
   if (width == 3)
      n = NI / 3 * 3;
   i128 *x = malloc(n * sizeof(i128)), *y = malloc(n * sizeof(i128)), *z = malloc(n * sizeof(i128));
   unsigned char *bx = malloc(n * 8), *by = malloc(n * 8), *bz = malloc(n * 8);
   uint64_t *out = malloc(n * NF * sizeof(uint64_t));
   REQUIRE(x && y && z && bx && by && bz && out);
   for (size_t i = 0; i < n; i++) {
      x[i] = input(t, (int)i, 0);
      y[i] = input(t, (int)i, 1);
      z[i] = input(t, (int)i, 2);
      store_elem(bx, i, t, x[i]);
      store_elem(by, i, t, y[i]);
      store_elem(bz, i, t, z[i]);
   }
   cl_kernel k = kk_kernel(p, kname);
   cl_mem ma = kk_buffer_in(env, n * t->size, bx), mb = kk_buffer_in(env, n * t->size, by),
          mc = kk_buffer_in(env, n * t->size, bz),
          mo = kk_buffer_in(env, n * NF * sizeof(uint64_t), NULL);
   KK_ARG(k, 0, ma);
   KK_ARG(k, 1, mb);
   KK_ARG(k, 2, mc);
   KK_ARG(k, 3, mo);
   size_t g = width ? n / width : n;
   KK_RUN(env, k, 1, NULL, &g, NULL);
   kk_read(env, mo, n * NF * sizeof(uint64_t), out);
   int bad[NF] = {0};
   for (size_t i = 0; i < n; i++) {
      uint64_t want[NF];
      reference(t, x[i], y[i], z[i], want);
      if (width) {
         /* Vector results were stored through the element type: abs and
          * abs_diff come back as the signed type reinterpreted. */
         want[0] = stored(t, wrap(t, (i128)want[0]));
         want[11] = stored(t, wrap(t, (i128)want[11]));
      }
      for (int f = 0; f < NF; f++) {
         if (out[i * NF + f] == want[f] || bad[f]++ >= 2)
            continue;
         KT_FAIL("%s: %s(x=%lld, y=%lld, z=%lld) = 0x%llx, expected 0x%llx", kname, fname[f],
                 (long long)x[i], (long long)y[i], (long long)z[i],
                 (unsigned long long)out[i * NF + f], (unsigned long long)want[f]);
      }
   }
   free(x);
   free(y);
   free(z);
   free(bx);
   free(by);
   free(bz);
   free(out);
   CHECK_OK(clReleaseMemObject(ma));
   CHECK_OK(clReleaseMemObject(mb));
   CHECK_OK(clReleaseMemObject(mc));
   CHECK_OK(clReleaseMemObject(mo));
   CHECK_OK(clReleaseKernel(k));
}

static const struct ty *type_named(const char *n)
{
   for (size_t i = 0; i < 8; i++)
      if (!strcmp(types[i].name, n))
         return &types[i];
   return NULL;
}

static void integer(const struct kt_env *env, cl_program p)
{
   for (size_t i = 0; i < 8; i++)
      run_type(env, p, &types[i], 0);
   static const struct {
      const char *t;
      int w;
   } vecs[] = {{"char", 2}, {"uchar", 16}, {"short", 8}, {"ushort", 3}, {"int", 4},
               {"uint", 3}, {"long", 2},   {"ulong", 4}, {"int", 16}};
   for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++)
      run_type(env, p, type_named(vecs[i].t), vecs[i].w);
}

static void bcast_and_mad24(const struct kt_env *env, cl_program p)
{
   enum { M = 64 };
   cl_int a[4 * M], o[12 * M];
   for (int i = 0; i < 4 * M; i++)
      a[i] = (i * 7919) % 2001 - 1000;
   cl_kernel k = kk_kernel(p, "bcast");
   cl_mem ma = kk_buffer_in(env, sizeof(a), a), mo = kk_buffer_in(env, sizeof(o), NULL);
   cl_int lo = -300, hi = 450;
   KK_ARG(k, 0, ma);
   KK_ARG(k, 1, mo);
   KK_ARG(k, 2, lo);
   KK_ARG(k, 3, hi);
   size_t g = M;
   KK_RUN(env, k, 1, NULL, &g, NULL);
   kk_read(env, mo, sizeof(o), o);
   for (int i = 0; i < M; i++)
      for (int l = 0; l < 4; l++) {
         int x = a[4 * i + l];
         int w0 = x < hi ? x : hi, w1 = x > lo ? x : lo, w2 = x < lo ? lo : x > hi ? hi : x;
         CHECK(o[12 * i + l] == w0 && o[12 * i + 4 + l] == w1 && o[12 * i + 8 + l] == w2,
               " min/max/clamp(int4, int) lane %d of %d: %d %d %d, expected %d %d %d", l, x,
               o[12 * i + l], o[12 * i + 4 + l], o[12 * i + 8 + l], w0, w1, w2);
      }
   CHECK_OK(clReleaseMemObject(ma));
   CHECK_OK(clReleaseMemObject(mo));
   CHECK_OK(clReleaseKernel(k));

   /* mad24/mul24 with operands inside 24 bits (signed: -2^23 .. 2^23-1). */
   cl_int x[M], y[M], z[M], r[4 * M];
   for (int i = 0; i < M; i++) {
      x[i] = (cl_int)(next() % (1u << 24)) - (1 << 23);
      y[i] = (cl_int)(next() % (1u << 24)) - (1 << 23);
      z[i] = (cl_int)next();
   }
   x[0] = -(1 << 23), y[0] = -(1 << 23), x[1] = (1 << 23) - 1, y[1] = -(1 << 23);
   k = kk_kernel(p, "mad24_k");
   cl_mem mx = kk_buffer_in(env, sizeof(x), x), my = kk_buffer_in(env, sizeof(y), y),
          mz = kk_buffer_in(env, sizeof(z), z), mr = kk_buffer_in(env, sizeof(r), NULL);
   KK_ARG(k, 0, mx);
   KK_ARG(k, 1, my);
   KK_ARG(k, 2, mz);
   KK_ARG(k, 3, mr);
   KK_RUN(env, k, 1, NULL, &g, NULL);
   kk_read(env, mr, sizeof(r), r);
   for (int i = 0; i < M; i++) {
      int32_t m = (int32_t)((uint32_t)x[i] * (uint32_t)y[i]);
      int32_t mad = (int32_t)((uint32_t)m + (uint32_t)z[i]);
      uint32_t um = ((uint32_t)x[i] & 0xffffff) * ((uint32_t)y[i] & 0xffffff) + (uint32_t)z[i];
      CHECK(r[4 * i] == mad, " mad24(%d, %d, %d) = %d, expected %d", x[i], y[i], z[i], r[4 * i],
            mad);
      CHECK(r[4 * i + 1] == m, " mul24(%d, %d) = %d, expected %d", x[i], y[i], r[4 * i + 1], m);
      CHECK((uint32_t)r[4 * i + 2] == um, " mad24(uint) = %u, expected %u", (uint32_t)r[4 * i + 2],
            um);
      CHECK(r[4 * i + 3] == mad, " mad24(int4).w = %d, expected %d", r[4 * i + 3], mad);
   }
   CHECK_OK(clReleaseMemObject(mx));
   CHECK_OK(clReleaseMemObject(my));
   CHECK_OK(clReleaseMemObject(mz));
   CHECK_OK(clReleaseMemObject(mr));
   CHECK_OK(clReleaseKernel(k));
}

static void relational(const struct kt_env *env, cl_program p)
{
   const float vals[] = {0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY, NAN, -NAN,
                         1e-40f /* denormal */, -1e-40f, 0x1p-126f, 3.4e38f, 2.5f, -7.25f};
   enum { V = sizeof(vals) / sizeof(vals[0]) };
   float a[V * V], b[V * V];
   for (int i = 0; i < V; i++)
      for (int j = 0; j < V; j++)
         a[i * V + j] = vals[i], b[i * V + j] = vals[j];
   cl_int *o = malloc(24 * V * V * sizeof(cl_int));
   REQUIRE(o);
   cl_kernel k = kk_kernel(p, "rel");
   cl_mem ma = kk_buffer_in(env, sizeof(a), a), mb = kk_buffer_in(env, sizeof(b), b),
          mo = kk_buffer_in(env, 24 * V * V * sizeof(cl_int), NULL);
   KK_ARG(k, 0, ma);
   KK_ARG(k, 1, mb);
   KK_ARG(k, 2, mo);
   size_t g = V * V;
   KK_RUN(env, k, 1, NULL, &g, NULL);
   kk_read(env, mo, 24 * V * V * sizeof(cl_int), o);
   static const char *names[12] = {"isnan", "isinf", "isfinite", "isnormal", "signbit",
                                   "isequal", "isnotequal", "isgreater", "isless",
                                   "islessgreater", "isordered", "isunordered"};
   int bad = 0;
   for (int i = 0; i < V * V; i++) {
      float x = a[i], y = b[i];
      int w[12] = {isnan(x) != 0, isinf(x) != 0, isfinite(x) != 0, isnormal(x) != 0,
                   signbit(x) != 0, x == y, x != y, isgreater(x, y), isless(x, y),
                   islessgreater(x, y), !isunordered(x, y), isunordered(x, y) != 0};
      for (int f = 0; f < 12; f++) {
         if (o[24 * i + f] != w[f] && bad++ < 6)
            KT_FAIL("%s(%g, %g) = %d, expected %d (scalar: 1 or 0)", names[f], x, y,
                    o[24 * i + f], w[f]);
         if (o[24 * i + 12 + f] != -w[f] && bad++ < 6)
            KT_FAIL("%s((float4)%g, (float4)%g) lane = %d, expected %d (vector: -1 or 0)",
                    names[f], x, y, o[24 * i + 12 + f], -w[f]);
      }
   }
   free(o);
   CHECK_OK(clReleaseMemObject(ma));
   CHECK_OK(clReleaseMemObject(mb));
   CHECK_OK(clReleaseMemObject(mo));
   CHECK_OK(clReleaseKernel(k));
}

static void selects(const struct kt_env *env, cl_program p)
{
   const cl_int cs[] = {0, 1, -1, INT32_MIN, 0x7fffffff, 0x40000000, (cl_int)0x80000001u, 2,
                        0x00ff0000, (cl_int)0xff000000u};
   enum { C = sizeof(cs) / sizeof(cs[0]) };
   cl_int a[C], b[C], c[C], o[8 * C];
   for (int i = 0; i < C; i++)
      a[i] = 0x0f0f0f0f + i, b[i] = 0x70a05030 - i, c[i] = cs[i];
   /* a and b small enough to be exact as floats for the float select. */
   cl_int af[C], bf[C];
   for (int i = 0; i < C; i++)
      af[i] = 100 + i, bf[i] = -200 - i;
   cl_kernel k = kk_kernel(p, "sel");
   cl_mem ma = kk_buffer_in(env, sizeof(a), a), mb = kk_buffer_in(env, sizeof(b), b),
          mc = kk_buffer_in(env, sizeof(c), c), mo = kk_buffer_in(env, sizeof(o), NULL);
   KK_ARG(k, 0, ma);
   KK_ARG(k, 1, mb);
   KK_ARG(k, 2, mc);
   KK_ARG(k, 3, mo);
   size_t g = C;
   for (int pass = 0; pass < 2; pass++) {
      const cl_int *A = pass ? af : a, *B = pass ? bf : b;
      REQUIRE_OK(clEnqueueWriteBuffer(env->queue, ma, CL_TRUE, 0, sizeof(a), A, 0, NULL, NULL));
      REQUIRE_OK(clEnqueueWriteBuffer(env->queue, mb, CL_TRUE, 0, sizeof(b), B, 0, NULL, NULL));
      KK_RUN(env, k, 1, NULL, &g, NULL);
      kk_read(env, mo, sizeof(o), o);
      for (int i = 0; i < C; i++) {
         bool msb = c[i] < 0;
         cl_int *r = o + 8 * i;
         CHECK(r[0] == (c[i] ? B[i] : A[i]), " select(int %d, %d, c=%d) = %d (scalar: c != 0)",
               A[i], B[i], c[i], r[0]);
         CHECK(r[1] == (msb ? B[i] : A[i]),
               " select(int4, int4, c=0x%x) lane = %d, expected %d (vector: the MSB of c)",
               (unsigned)c[i], r[1], msb ? B[i] : A[i]);
         if (pass)
            CHECK(r[2] == (msb ? B[i] : A[i]), " select(float4, float4, int4 c=0x%x) = %d",
                  (unsigned)c[i], r[2]);
         cl_char cc = (cl_char)(c[i] >> 24);
         cl_uchar ua = (cl_uchar)A[i], ub = (cl_uchar)B[i];
         CHECK(r[3] == (cc < 0 ? ub : ua), " select(uchar16, uchar16, char16 %d) = %d", cc, r[3]);
         cl_int bs = (A[i] & ~c[i]) | (B[i] & c[i]);
         CHECK(r[4] == bs, " bitselect(0x%x, 0x%x, 0x%x) = 0x%x, expected 0x%x", (unsigned)A[i],
               (unsigned)B[i], (unsigned)c[i], (unsigned)r[4], (unsigned)bs);
         CHECK(r[5] == (int)msb, " any(%d) = %d: scalar any tests the MSB", c[i], r[5]);
         CHECK(r[6] == (int)msb, " all(%d) = %d: scalar all tests the MSB", c[i], r[6]);
         bool lmsb = (int64_t)((uint64_t)(uint32_t)c[i] << 32) < 0;
         CHECK(r[7] == (lmsb ? B[i] : A[i]), " select(long2, long2, c=0x%x<<32) = %d", (unsigned)c[i],
               r[7]);
      }
   }
   CHECK_OK(clReleaseMemObject(ma));
   CHECK_OK(clReleaseMemObject(mb));
   CHECK_OK(clReleaseMemObject(mc));
   CHECK_OK(clReleaseMemObject(mo));
   CHECK_OK(clReleaseKernel(k));

   k = kk_kernel(p, "anyall");
   cl_int r[16];
   mo = kk_buffer_in(env, sizeof(r), NULL);
   KK_ARG(k, 0, mo);
   size_t one = 1;
   KK_RUN(env, k, 1, NULL, &one, NULL);
   kk_read(env, mo, sizeof(r), r);
   static const int want[16] = {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 0, 0, 1, 0, 1};
   static const char *what[16] = {
      "any((int4)(0,1,2,3))", "any((int4)(0,0,0,-5))", "all((int4)(-1,-1,-1,1))",
      "all((int4)(-1,-2,-3,INT_MIN))", "any((char16)0)", "all((char16)-1)",
      "any((short2)(1,0x7fff))", "all((long2)(-1,LONG_MIN))", "any((long2)(1,LONG_MAX))",
      "all((char3)(-128,-1,-112))", "any((int8)(..., INT_MIN))", "all((short3)(-1,-1,0))",
      "any(1)", "any(-1)", "all(0x7fffffff)", "all(INT_MIN)"};
   for (int i = 0; i < 16; i++)
      CHECK(r[i] == want[i], " %s = %d, expected %d", what[i], r[i], want[i]);
   CHECK_OK(clReleaseMemObject(mo));
   CHECK_OK(clReleaseKernel(k));
}

/* Division by zero and MIN / -1 are undefined in OpenCL C but must not
 * trap (x86's div raises SIGFPE, which would kill the host program): the
 * CTS's integer_divideAssign divides random data that includes zeros.
 * Defined lanes must still be exact. */
static const char *div_source =
   "__kernel void divz(__global const int *a, __global const int *b, __global int *o)\n"
   "{\n"
   "  size_t i = get_global_id(0);\n"
   "  int x = a[i], y = b[i];\n"
   "  __global int *r = o + 8 * i;\n"
   "  r[0] = x / y; r[1] = x % y;\n"
   "  int4 q = (int4)(x, 1, 2, x) / (int4)(y, 1, 1, y); r[2] = q.w;\n"
   "  int4 m = (int4)(x, 1, x, 2) % (int4)(y, 1, y, 1); r[3] = m.z;\n"
   "  r[4] = (int)((uint)x / (uint)y); r[5] = (int)((uint)x % (uint)y);\n"
   "  long lx = x == INT_MIN ? LONG_MIN : (long)x, ly = y;\n"
   "  long lq = lx / ly; r[6] = (int)(lq >> 32) ^ (int)lq; r[7] = (int)(lx % ly);\n"
   "}\n";

static void division_by_zero(const struct kt_env *env)
{
   enum { N = 10 };
   static const int a[N] = {7, INT_MIN, INT_MIN, -7, 0, 100, INT_MIN, 5, -1, INT_MAX};
   static const int b[N] = {0, -1, 0, 2, 0, -1, 1, 3, 0, -1};
   int o[8 * N];
   cl_program p = kk_build(env, div_source, NULL);
   cl_kernel k = kk_kernel(p, "divz");
   cl_mem ma = kk_buffer_in(env, sizeof(a), a), mb = kk_buffer_in(env, sizeof(b), b);
   cl_mem mo = kk_buffer_in(env, sizeof(o), NULL);
   KK_ARG(k, 0, ma);
   KK_ARG(k, 1, mb);
   KK_ARG(k, 2, mo);
   size_t g = N;
   KK_RUN(env, k, 1, NULL, &g, NULL);
   kk_read(env, mo, sizeof(o), o);
   for (int i = 0; i < N; i++) {
      int x = a[i], y = b[i];
      const int *r = o + 8 * i;
      if (y == 0)
         continue; /* any value, as long as nothing trapped */
      if (!(x == INT_MIN && y == -1)) {
         CHECK(r[0] == x / y && r[1] == x % y && r[2] == x / y && r[3] == x % y,
               " %d / %d: %d %d %d %d", x, y, r[0], r[1], r[2], r[3]);
      }
      CHECK(r[4] == (int)((unsigned)x / (unsigned)y) && r[5] == (int)((unsigned)x % (unsigned)y),
            " %u / %u (uint): %d %d", (unsigned)x, (unsigned)y, r[4], r[5]);
      long long lx = x == INT_MIN ? LLONG_MIN : x;
      if (!(lx == LLONG_MIN && y == -1)) {
         long long lq = lx / y;
         CHECK(r[6] == ((int)(lq >> 32) ^ (int)lq) && r[7] == (int)(lx % y),
               " %lld / %d (long): %d %d", lx, y, r[6], r[7]);
      }
   }
   CHECK_OK(clReleaseMemObject(ma));
   CHECK_OK(clReleaseMemObject(mb));
   CHECK_OK(clReleaseMemObject(mo));
   CHECK_OK(clReleaseKernel(k));
   CHECK_OK(clReleaseProgram(p));
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   cl_program p = kk_build(&env, source, NULL);
   integer(&env, p);
   bcast_and_mad24(&env, p);
   relational(&env, p);
   selects(&env, p);
   CHECK_OK(clReleaseProgram(p));
   division_by_zero(&env);
   kt_teardown(&env);
   return kt_result();
}
