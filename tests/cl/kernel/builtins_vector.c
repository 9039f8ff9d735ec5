/* Vector data builtins (OpenCL 1.1 §6.11.7, §6.2.4, §6.2.3): vloadn and
 * vstoren in every address space, with offsets and element-aligned (not
 * vector-aligned) pointers, n = 2, 3, 4, 8, 16 (vload3/vstore3 touch
 * exactly 3 elements at p + 3 * offset); vload_half/vstore_half and their
 * rounding modes; as_type reinterpretation; convert_type with _sat and
 * every rounding mode, scalars and vectors. */
#include <fenv.h>

#include "kk.h"

/* Each block k of dst (64 elements) receives one vstore of one vload. */
#define MOVES_SRC                                                                         \
   "#define B(n, off, mis, S, D) \\\n"                                                    \
   "  vstore##n(vload##n(off, (S) + mis), off, (D) + 64 * k + mis); k++;\n"               \
   "#define ONE(n, S, D) B(n, 0, 0, S, D) B(n, 1, 0, S, D) B(n, 2, 0, S, D) \\\n"        \
   "  B(n, 0, 1, S, D) B(n, 1, 1, S, D) B(n, 2, 1, S, D)\n"                               \
   "#define ALL(S, D) ONE(2, S, D) ONE(3, S, D) ONE(4, S, D) ONE(8, S, D) ONE(16, S, D)\n" \
   "#define MOVES(T) \\\n"                                                                \
   "__kernel void mv_global_##T(__global const T *src, __constant T *csrc, \\\n"          \
   "                            __global T *dst, __local T *ls, __local T *ld) \\\n"      \
   "{ int k = 0; ALL(src, dst) } \\\n"                                                    \
   "__kernel void mv_constant_##T(__global const T *src, __constant T *csrc, \\\n"        \
   "                              __global T *dst, __local T *ls, __local T *ld) \\\n"    \
   "{ int k = 0; ALL(csrc, dst) } \\\n"                                                   \
   "__kernel void mv_local_##T(__global const T *src, __constant T *csrc, \\\n"           \
   "                           __global T *dst, __local T *ls, __local T *ld) \\\n"       \
   "{ int k = 0; for (int j = 0; j < 64; j++) ls[j] = src[j]; \\\n"                       \
   "  for (int j = 0; j < 30 * 64; j++) ld[j] = dst[j]; \\\n"                             \
   "  ALL(ls, ld) \\\n"                                                                   \
   "  for (int j = 0; j < 30 * 64; j++) dst[j] = ld[j]; } \\\n"                           \
   "__kernel void mv_private_##T(__global const T *src, __constant T *csrc, \\\n"         \
   "                             __global T *dst, __local T *ls, __local T *ld) \\\n"     \
   "{ int k = 0; T ps[64], pd[30 * 64]; for (int j = 0; j < 64; j++) ps[j] = src[j]; \\\n" \
   "  for (int j = 0; j < 30 * 64; j++) pd[j] = dst[j]; \\\n"                             \
   "  ALL(ps, pd) \\\n"                                                                   \
   "  for (int j = 0; j < 30 * 64; j++) dst[j] = pd[j]; }\n"                              \
   "MOVES(char) MOVES(short) MOVES(int) MOVES(long) MOVES(float)\n"

#define CV(name, S, D, fn)                                                                \
   "__kernel void " #name "(__global const " #S " *in, __global " #D " *out)\n"           \
   "{ size_t i = get_global_id(0); out[i] = " #fn "(in[i]); }\n"
/* The same conversion as 4- or 16-lane vectors. */
#define CVV(name, S, D, fn, n)                                                            \
   "__kernel void " #name "(__global const " #S " *in, __global " #D " *out)\n"           \
   "{ size_t i = get_global_id(0); vstore" #n "(" #fn #n "(vload" #n "(i, in)), i, out); }\n"
/* Vector conversions name the vector type: convert_int4_sat_rte. */
#define CVV2(name, S, D, stem, suffix, n)                                                 \
   "__kernel void " #name "(__global const " #S " *in, __global " #D " *out)\n"           \
   "{ size_t i = get_global_id(0);\n"                                                     \
   "  vstore" #n "(" #stem #n #suffix "(vload" #n "(i, in)), i, out); }\n"

static const char *source =
   MOVES_SRC
   CV(f2i, float, int, convert_int) CV(f2i_rte, float, int, convert_int_rte)
   CV(f2i_rtp, float, int, convert_int_rtp) CV(f2i_rtn, float, int, convert_int_rtn)
   CV(f2i_rtz, float, int, convert_int_rtz) CV(f2i_sat, float, int, convert_int_sat)
   CV(f2i_sat_rte, float, int, convert_int_sat_rte) CV(f2u_sat, float, uint, convert_uint_sat)
   CV(f2uc_sat, float, uchar, convert_uchar_sat) CV(f2c_sat_rtp, float, char, convert_char_sat_rtp)
   CV(f2s_sat_rtn, float, short, convert_short_sat_rtn) CV(f2l_sat, float, long, convert_long_sat)
   CV(f2ul_sat, float, ulong, convert_ulong_sat)
   CV(i2f, int, float, convert_float) CV(i2f_rtz, int, float, convert_float_rtz)
   CV(i2f_rtp, int, float, convert_float_rtp) CV(i2f_rtn, int, float, convert_float_rtn)
   CV(u2f, uint, float, convert_float) CV(u2f_rtz, uint, float, convert_float_rtz)
   CV(l2f, long, float, convert_float) CV(l2f_rtp, long, float, convert_float_rtp)
   CV(i2uc_sat, int, uchar, convert_uchar_sat) CV(i2c, int, char, convert_char)
   CV(i2u_sat, int, uint, convert_uint_sat) CV(u2i_sat, uint, int, convert_int_sat)
   CV(l2s_sat, long, short, convert_short_sat) CV(ul2l_sat, ulong, long, convert_long_sat)
   CV(l2ui_sat, long, uint, convert_uint_sat) CV(s2us_sat, short, ushort, convert_ushort_sat)
   CV(c2i, char, int, convert_int) CV(uc2c_sat, uchar, char, convert_char_sat)
   CVV2(f2i4_sat_rte, float, int, convert_int, _sat_rte, 4)
   CVV2(f2uc16_sat, float, uchar, convert_uchar, _sat, 16)
   CVV2(i2f8, int, float, convert_float, , 8)
   CVV2(i2c16_sat, int, char, convert_char, _sat, 16)
   CVV2(f2s3_rtn, float, short, convert_short, _rtn, 3)
   "__kernel void casts(__global const uint *in, __global uint *out)\n"
   "{\n"
   "  uint4 v = vload4(0, in);\n"
   "  float f = as_float(v.x);\n"
   "  out[0] = as_uint(f * 1.0f);\n"
   "  uchar4 b = as_uchar4(v.y);\n"
   "  out[1] = b.x | (b.y << 8) | (b.z << 16) | ((uint)b.w << 24); out[2] = b.w;\n"
   "  float2 f2 = as_float2((ulong)v.z << 32 | v.w);\n"
   "  out[3] = as_uint(f2.x); out[4] = as_uint(f2.y);\n"
   "  char16 c = as_char16(v);\n"
   "  out[5] = (uchar)c.s5; out[6] = (uchar)c.sf;\n"
   "  int3 i3 = as_int3(as_float4(v));\n"
   "  out[7] = i3.z;\n"
   "  short8 s8 = as_short8(as_int4(v));\n"
   "  out[8] = (ushort)s8.s3;\n"
   "  out[9] = as_uint(as_float(as_int(-1.5f)));\n"
   "}\n"
   "__kernel void halves(__global const half *h, __global const float *f,\n"
   "                     __global float *fo, __global half *ho)\n"
   "{\n"
   "  size_t i = get_global_id(0);\n"
   "  fo[i] = vload_half(i, h);\n"
   "  vstore_half(f[i], 4 * i, ho);\n"
   "  vstore_half_rtz(f[i], 4 * i + 1, ho);\n"
   "  vstore_half_rtp(f[i], 4 * i + 2, ho);\n"
   "  vstore_half_rtn(f[i], 4 * i + 3, ho);\n"
   "}\n"
   "__kernel void halves4(__global const half *h, __global float *fo, __global half *ho)\n"
   "{\n"
   "  size_t i = get_global_id(0);\n"
   "  float4 v = vload_half4(i, h);\n"
   "  vstore4(v, i, fo);\n"
   "  vstore_half4(v * 2.0f, i, ho);\n"
   "}\n";

/* ---- vload/vstore ---- */

struct ety {
   const char *name;
   size_t size;
};

static void moves(const struct kt_env *env, cl_program p)
{
   static const struct ety types[] = {{"char", 1}, {"short", 2}, {"int", 4}, {"long", 8},
                                      {"float", 4}};
   static const char *spaces[] = {"global", "constant", "local", "private"};
   static const int ns[] = {2, 3, 4, 8, 16};
   enum { BLOCKS = 30, BLK = 64 };
   for (size_t t = 0; t < 5; t++) {
      size_t es = types[t].size;
      unsigned char *src = malloc(BLK * es), *dst = malloc(BLOCKS * BLK * es),
                    *want = malloc(BLOCKS * BLK * es);
      REQUIRE(src && dst && want);
      /* Distinct bytes everywhere; a float source uses exact small values
       * so no NaN pattern is moved through float registers. */
      for (size_t j = 0; j < BLK; j++) {
         if (!strcmp(types[t].name, "float")) {
            float v = (float)j + 0.25f;
            memcpy(src + j * es, &v, es);
         } else {
            for (size_t b = 0; b < es; b++)
               src[j * es + b] = (unsigned char)(j * 7 + b * 3 + 1);
         }
      }
      cl_mem msrc = kt_buffer(env->context, CL_MEM_COPY_HOST_PTR, BLK * es, src);
      cl_mem mdst = kk_buffer_in(env, BLOCKS * BLK * es, NULL);
      for (size_t s = 0; s < 4; s++) {
         /* Sentinel: 0xa5 bytes, a valid float too (-2.9e-16). */
         memset(dst, 0xa5, BLOCKS * BLK * es);
         memcpy(want, dst, BLOCKS * BLK * es);
         REQUIRE_OK(clEnqueueWriteBuffer(env->queue, mdst, CL_TRUE, 0, BLOCKS * BLK * es, dst, 0,
                                         NULL, NULL));
         char kname[64];
         snprintf(kname, sizeof(kname), "mv_%s_%s", spaces[s], types[t].name);
         cl_kernel k = kk_kernel(p, kname);
         KK_ARG(k, 0, msrc);
         KK_ARG(k, 1, msrc);
         KK_ARG(k, 2, mdst);
         KK_LOCAL(k, 3, BLK * es);
         KK_LOCAL(k, 4, BLOCKS * BLK * es);
         size_t one = 1;
         KK_RUN(env, k, 1, NULL, &one, &one);
         kk_read(env, mdst, BLOCKS * BLK * es, dst);
         int blk = 0; /* the kernel's order: n, then (off, mis) as in ONE() */
         for (int ni = 0; ni < 5; ni++) {
            static const int order[6][2] = {{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {2, 1}};
            for (int o = 0; o < 6; o++, blk++) {
               int n = ns[ni], off = order[o][0], mis = order[o][1];
               size_t first = (size_t)(mis + off * n);
               memcpy(want + (blk * BLK + first) * es, src + first * es, n * es);
               if (memcmp(dst + blk * BLK * es, want + blk * BLK * es, BLK * es)) {
                  size_t e = 0;
                  while (e < BLK && !memcmp(dst + (blk * BLK + e) * es,
                                            want + (blk * BLK + e) * es, es))
                     e++;
                  bool inside = e >= first && e < first + (size_t)n;
                  KT_FAIL("%s: vstore%d(vload%d(%d, p + %d), %d, q + %d): element %zu %s "
                          "(first difference; the vector covers %zu..%zu)",
                          kname, n, n, off, mis, off, mis, e,
                          inside ? "has the wrong value" : "was written but lies outside",
                          first, first + n - 1);
               }
            }
         }
         CHECK_OK(clReleaseKernel(k));
      }
      free(src);
      free(dst);
      free(want);
      CHECK_OK(clReleaseMemObject(msrc));
      CHECK_OK(clReleaseMemObject(mdst));
   }
}

/* ---- conversions ---- */

enum kind { K_F, K_I8, K_U8, K_I16, K_U16, K_I32, K_U32, K_I64, K_U64 };
static size_t ksize(enum kind k)
{
   static const size_t s[] = {4, 1, 1, 2, 2, 4, 4, 8, 8};
   return s[k];
}
/* long double: the 64-bit limits are exact in it (not in double). */
static long double kmin(enum kind k)
{
   static const long double m[] = {0, -128, 0, -32768, 0, -2147483648.0L, 0,
                                   -9223372036854775808.0L, 0};
   return m[k];
}
static long double kmax(enum kind k)
{
   static const long double m[] = {0, 127, 255, 32767, 65535, 2147483647.0L, 4294967295.0L,
                                   9223372036854775807.0L, 18446744073709551615.0L};
   return m[k];
}

enum rmode { R_DEF, R_RTE, R_RTZ, R_RTP, R_RTN };

struct conv {
   const char *kernel;
   enum kind from, to;
   bool sat;
   enum rmode mode;
   int width; /* vector kernels: lanes per item */
};

static const struct conv convs[] = {
   {"f2i", K_F, K_I32, false, R_DEF, 1},         {"f2i_rte", K_F, K_I32, false, R_RTE, 1},
   {"f2i_rtp", K_F, K_I32, false, R_RTP, 1},     {"f2i_rtn", K_F, K_I32, false, R_RTN, 1},
   {"f2i_rtz", K_F, K_I32, false, R_RTZ, 1},     {"f2i_sat", K_F, K_I32, true, R_DEF, 1},
   {"f2i_sat_rte", K_F, K_I32, true, R_RTE, 1},  {"f2u_sat", K_F, K_U32, true, R_DEF, 1},
   {"f2uc_sat", K_F, K_U8, true, R_DEF, 1},      {"f2c_sat_rtp", K_F, K_I8, true, R_RTP, 1},
   {"f2s_sat_rtn", K_F, K_I16, true, R_RTN, 1},  {"f2l_sat", K_F, K_I64, true, R_DEF, 1},
   {"f2ul_sat", K_F, K_U64, true, R_DEF, 1},
   {"i2f", K_I32, K_F, false, R_DEF, 1},         {"i2f_rtz", K_I32, K_F, false, R_RTZ, 1},
   {"i2f_rtp", K_I32, K_F, false, R_RTP, 1},     {"i2f_rtn", K_I32, K_F, false, R_RTN, 1},
   {"u2f", K_U32, K_F, false, R_DEF, 1},         {"u2f_rtz", K_U32, K_F, false, R_RTZ, 1},
   {"l2f", K_I64, K_F, false, R_DEF, 1},         {"l2f_rtp", K_I64, K_F, false, R_RTP, 1},
   {"i2uc_sat", K_I32, K_U8, true, R_DEF, 1},    {"i2c", K_I32, K_I8, false, R_DEF, 1},
   {"i2u_sat", K_I32, K_U32, true, R_DEF, 1},    {"u2i_sat", K_U32, K_I32, true, R_DEF, 1},
   {"l2s_sat", K_I64, K_I16, true, R_DEF, 1},    {"ul2l_sat", K_U64, K_I64, true, R_DEF, 1},
   {"l2ui_sat", K_I64, K_U32, true, R_DEF, 1},   {"s2us_sat", K_I16, K_U16, true, R_DEF, 1},
   {"c2i", K_I8, K_I32, false, R_DEF, 1},        {"uc2c_sat", K_U8, K_I8, true, R_DEF, 1},
   {"f2i4_sat_rte", K_F, K_I32, true, R_RTE, 4}, {"f2uc16_sat", K_F, K_U8, true, R_DEF, 16},
   {"i2f8", K_I32, K_F, false, R_DEF, 8},        {"i2c16_sat", K_I32, K_I8, true, R_DEF, 16},
   {"f2s3_rtn", K_F, K_I16, false, R_RTN, 3},
};

/* Values as long double hold every int64/uint64 and float exactly. */
typedef long double ld;

static ld load_val(const unsigned char *p, enum kind k)
{
   switch (k) {
   case K_F: { float f; memcpy(&f, p, 4); return f; }
   case K_I8: return (int8_t)p[0];
   case K_U8: return p[0];
   case K_I16: { int16_t v; memcpy(&v, p, 2); return v; }
   case K_U16: { uint16_t v; memcpy(&v, p, 2); return v; }
   case K_I32: { int32_t v; memcpy(&v, p, 4); return v; }
   case K_U32: { uint32_t v; memcpy(&v, p, 4); return v; }
   case K_I64: { int64_t v; memcpy(&v, p, 8); return v; }
   case K_U64: { uint64_t v; memcpy(&v, p, 8); return v; }
   }
   return 0;
}

static ld round_mode(ld v, enum rmode m)
{
   switch (m) {
   case R_RTE: return nearbyintl(v); /* default FE_TONEAREST: ties to even */
   case R_RTP: return ceill(v);
   case R_RTN: return floorl(v);
   default: return truncl(v);
   }
}

/* The expected result bytes; false when the spec leaves it undefined. */
static bool expect(const struct conv *c, ld v, bool isnan_in, unsigned char *out)
{
   if (c->to == K_F) {
      /* Integer to float: default and _rte round to nearest even. */
      int fm = c->mode == R_RTZ ? FE_TOWARDZERO : c->mode == R_RTP ? FE_UPWARD
               : c->mode == R_RTN ? FE_DOWNWARD : FE_TONEAREST;
      fesetround(fm);
      volatile ld vv = v;
      volatile float f = (float)vv;
      fesetround(FE_TONEAREST);
      float ff = f;
      memcpy(out, &ff, 4);
      return true;
   }
   ld r;
   if (c->from == K_F) {
      if (isnan_in) {
         if (!c->sat)
            return false;
         r = 0;
      } else {
         r = round_mode(v, c->mode == R_DEF ? R_RTZ : c->mode);
      }
   } else {
      r = v;
   }
   if (r < kmin(c->to) || r > kmax(c->to)) {
      if (c->sat) {
         r = r < kmin(c->to) ? kmin(c->to) : kmax(c->to);
      } else if (c->from == K_F) {
         return false; /* out of range without _sat: undefined */
      } else {
         /* Integer to integer: modulo 2^bits, as C casts on this target. */
         unsigned __int128 u = (unsigned __int128)(__int128)r;
         memcpy(out, &u, ksize(c->to));
         return true;
      }
   }
   __int128 iv = (__int128)r;
   memcpy(out, &iv, ksize(c->to)); /* little-endian low bytes */
   return true;
}

static void fill_inputs(enum kind k, unsigned char *buf, size_t n)
{
   static const float fs[] = {
      0.0f, -0.0f, 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 0.49999997f, 0.50000006f, 1.0f,
      -1.0f, 127.5f, 128.0f, -128.5f, -129.0f, 255.5f, 256.0f, 254.9f, 32767.5f, -32768.5f,
      65535.4f, 2147483520.0f, 2147483648.0f, -2147483648.0f, -2147483904.0f, 4294967040.0f,
      4294967296.0f, 9.2233715e18f, 9.223372e18f, -9.223372e18f, 1.8446743e19f, 1.9e19f,
      1e20f, -1e20f, INFINITY, -INFINITY, NAN, 1e-30f, -1e-30f, 3.7f, -3.7f, 1e-45f,
      8388607.5f, 8388608.0f, 16777215.0f, -8388607.5f,
   };
   static const int64_t is[] = {
      0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, 32768, -32768, -32769, 65535, 65536,
      16777216, 16777217, 16777219, -16777217, 2147483647, -2147483647 - 1, 0x7fffff80,
      0x7fffffc0, 0x7fffffbf, (int64_t)0xffffffffll, (int64_t)0x100000000ll,
      (1ll << 40) + 1, -(1ll << 40) - 1, (1ll << 53) + 1, INT64_MAX, INT64_MIN,
      (int64_t)0x8000000000000000ull, 1000000007, -1000000007,
   };
   uint32_t x = 777;
   for (size_t i = 0; i < n; i++) {
      unsigned char *p = buf + i * ksize(k);
      x = x * 1664525u + 1013904223u;
      if (k == K_F) {
         float f;
         size_t nf = sizeof(fs) / sizeof(fs[0]);
         if (i < nf)
            f = fs[i];
         else
            f = ldexpf((float)(x >> 8) / 16777216.0f, (int)(x % 80) - 10) * (x & 1 ? -1 : 1);
         memcpy(p, &f, 4);
      } else {
         size_t ni = sizeof(is) / sizeof(is[0]);
         int64_t v = i < ni ? is[i] : (int64_t)((uint64_t)x << 32 | (x * 2654435761u));
         if (i >= ni && i % 3 == 0)
            v = (int32_t)v;
         if (i >= ni && i % 3 == 1)
            v = (int16_t)v;
         memcpy(p, &v, ksize(k)); /* low bytes: wraps into the type */
      }
   }
}

static const char *kname_of(enum kind k)
{
   static const char *n[] = {"float", "char", "uchar", "short", "ushort", "int", "uint", "long",
                             "ulong"};
   return n[k];
}

static void conversions(const struct kt_env *env, cl_program p)
{
   enum { NC = 480 }; /* divisible by 3, 4, 8, 16 */
   for (size_t ci = 0; ci < sizeof(convs) / sizeof(convs[0]); ci++) {
      const struct conv *c = &convs[ci];
      size_t fs = ksize(c->from), ts = ksize(c->to);
      unsigned char *in = malloc(NC * fs), *out = malloc(NC * ts);
      REQUIRE(in && out);
      fill_inputs(c->from, in, NC);
      cl_kernel k = kk_kernel(p, c->kernel);
      cl_mem mi = kk_buffer_in(env, NC * fs, in), mo = kk_buffer_in(env, NC * ts, NULL);
      KK_ARG(k, 0, mi);
      KK_ARG(k, 1, mo);
      size_t g = NC / c->width;
      KK_RUN(env, k, 1, NULL, &g, NULL);
      kk_read(env, mo, NC * ts, out);
      int bad = 0;
      for (size_t i = 0; i < NC; i++) {
         ld v = load_val(in + i * fs, c->from);
         bool nan_in = c->from == K_F && isnan(v);
         unsigned char want[8];
         if (!expect(c, v, nan_in, want))
            continue;
         if (memcmp(out + i * ts, want, ts) && bad++ < 4) {
            ld got = load_val(out + i * ts, c->to), w = load_val(want, c->to);
            KT_FAIL("%s (%s -> %s%s): input %.10Lg gives %.10Lg, expected %.10Lg", c->kernel,
                    kname_of(c->from), kname_of(c->to), c->sat ? ", saturating" : "", v, got, w);
         }
      }
      free(in);
      free(out);
      CHECK_OK(clReleaseMemObject(mi));
      CHECK_OK(clReleaseMemObject(mo));
      CHECK_OK(clReleaseKernel(k));
   }
}

/* ---- as_type ---- */

static void casts(const struct kt_env *env, cl_program p)
{
   cl_uint in[4] = {0x40490fdbu /* pi */, 0x11223344u, 0x3f800000u, 0xc0000000u}, out[10];
   cl_kernel k = kk_kernel(p, "casts");
   cl_mem mi = kk_buffer_in(env, sizeof(in), in), mo = kk_buffer_in(env, sizeof(out), NULL);
   KK_ARG(k, 0, mi);
   KK_ARG(k, 1, mo);
   size_t one = 1;
   KK_RUN(env, k, 1, NULL, &one, NULL);
   kk_read(env, mo, sizeof(out), out);
   unsigned char bytes[16];
   memcpy(bytes, in, 16);
   cl_uint want[10] = {in[0], in[1], 0x11, 0x3f800000u, 0xc0000000u, bytes[5], bytes[15],
                       in[2], 0x1122, 0xbfc00000u};
   /* as_float2 of (z << 32 | w): .x is the low word (w), .y the high (z). */
   want[3] = in[3];
   want[4] = in[2];
   static const char *what[] = {"as_uint(as_float(x))", "as_uchar4 repacked", "as_uchar4.w",
                                "as_float2(ulong).x", "as_float2(ulong).y", "as_char16(uint4).s5",
                                "as_char16(uint4).sf", "as_int3(float4).z", "as_short8(int4).s3",
                                "as_uint(as_float(as_int(-1.5f)))"};
   for (int i = 0; i < 10; i++)
      CHECK(out[i] == want[i], " %s = 0x%x, expected 0x%x", what[i], out[i], want[i]);
   CHECK_OK(clReleaseMemObject(mi));
   CHECK_OK(clReleaseMemObject(mo));
   CHECK_OK(clReleaseKernel(k));
}

/* ---- half ---- */

static float half_to_float(uint16_t h)
{
   int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
   float v;
   if (e == 0)
      v = ldexpf((float)m, -24);
   else if (e == 31)
      v = m ? NAN : INFINITY;
   else
      v = ldexpf((float)(m | 1024), e - 25);
   return s ? -v : v;
}

/* float -> half with rounding mode m, by searching the half values. */
static uint16_t float_to_half(float f, enum rmode m)
{
   if (isnan(f))
      return 0x7e00;
   uint16_t sign = signbit(f) ? 0x8000 : 0;
   float a = fabsf(f);
   /* Largest half magnitude <= a. */
   uint16_t lo = 0;
   for (uint16_t h = 0; h < 0x7c00; h++)
      if (half_to_float(h) <= a)
         lo = h;
   uint16_t hi = lo + 1; /* 0x7c00 = inf beyond 65504 */
   float lv = half_to_float(lo), hv = half_to_float(hi);
   if (lv == a)
      return sign | lo;
   bool up;
   switch (m) {
   case R_RTZ:
      up = false;
      break;
   case R_RTP:
      up = !sign;
      break;
   case R_RTN:
      up = sign;
      break;
   default:
      if (lo == 0x7bff) /* beyond 65504: rte goes to inf from 65520 */
         up = a >= 65520.0f;
      else
         up = (a - lv > hv - a) || (a - lv == hv - a && (lo & 1));
      break;
   }
   if (isinf(a))
      return sign | 0x7c00;
   return sign | (up ? hi : lo);
}

static void halves(const struct kt_env *env, cl_program p)
{
   static const uint16_t hs[] = {0x0000, 0x8000, 0x3c00, 0xc000, 0x7c00, 0xfc00, 0x0001, 0x03ff,
                                 0x0400, 0x7bff, 0x3555, 0xbbff, 0x5640, 0x1234, 0x8001, 0x7e00};
   static const float fs[] = {1.0f, 65520.0f, 65519.0f, 1.0f + 0x1p-11f, 1.0f + 0x1p-20f,
                              -1.0f - 0x1p-20f, 0x1p-24f, 0x1p-25f, 0x1.8p-25f, 3e-8f, -65504.0f,
                              1e6f, -1e6f, 0.1f, -0.1f, 2.0f / 3.0f};
   enum { H = 16 };
   float fo[H];
   uint16_t ho[4 * H];
   cl_kernel k = kk_kernel(p, "halves");
   cl_mem mh = kk_buffer_in(env, sizeof(hs), hs), mf = kk_buffer_in(env, sizeof(fs), fs),
          mfo = kk_buffer_in(env, sizeof(fo), NULL), mho = kk_buffer_in(env, sizeof(ho), NULL);
   KK_ARG(k, 0, mh);
   KK_ARG(k, 1, mf);
   KK_ARG(k, 2, mfo);
   KK_ARG(k, 3, mho);
   size_t g = H;
   KK_RUN(env, k, 1, NULL, &g, NULL);
   kk_read(env, mfo, sizeof(fo), fo);
   kk_read(env, mho, sizeof(ho), ho);
   for (int i = 0; i < H; i++) {
      float w = half_to_float(hs[i]);
      CHECK((isnan(w) && isnan(fo[i])) || (fo[i] == w && signbit(fo[i]) == signbit(w)),
            " vload_half(0x%04x) = %a, expected %a", hs[i], fo[i], w);
      static const enum rmode modes[] = {R_RTE, R_RTZ, R_RTP, R_RTN};
      static const char *mn[] = {"vstore_half", "vstore_half_rtz", "vstore_half_rtp",
                                 "vstore_half_rtn"};
      for (int m = 0; m < 4; m++) {
         uint16_t wh = float_to_half(fs[i], modes[m]);
         CHECK(ho[4 * i + m] == wh, " %s(%a) = 0x%04x, expected 0x%04x", mn[m], fs[i],
               ho[4 * i + m], wh);
      }
   }
   CHECK_OK(clReleaseMemObject(mf));
   CHECK_OK(clReleaseMemObject(mfo));
   CHECK_OK(clReleaseMemObject(mho));
   CHECK_OK(clReleaseKernel(k));

   /* vload_half4 / vstore_half4. */
   k = kk_kernel(p, "halves4");
   float f4[H];
   uint16_t h4[H];
   mfo = kk_buffer_in(env, sizeof(f4), NULL);
   mho = kk_buffer_in(env, sizeof(h4), NULL);
   KK_ARG(k, 0, mh);
   KK_ARG(k, 1, mfo);
   KK_ARG(k, 2, mho);
   g = H / 4;
   KK_RUN(env, k, 1, NULL, &g, NULL);
   kk_read(env, mfo, sizeof(f4), f4);
   kk_read(env, mho, sizeof(h4), h4);
   for (int i = 0; i < H; i++) {
      float w = half_to_float(hs[i]);
      CHECK((isnan(w) && isnan(f4[i])) || f4[i] == w, " vload_half4 lane %d = %a, expected %a", i,
            f4[i], w);
      uint16_t wh = float_to_half(w * 2.0f, R_RTE);
      CHECK(h4[i] == wh || (isnan(w) && (h4[i] & 0x7c00) == 0x7c00 && (h4[i] & 0x3ff)),
            " vstore_half4 lane %d of %a = 0x%04x, expected 0x%04x", i, w * 2.0f, h4[i], wh);
   }
   CHECK_OK(clReleaseMemObject(mh));
   CHECK_OK(clReleaseMemObject(mfo));
   CHECK_OK(clReleaseMemObject(mho));
   CHECK_OK(clReleaseKernel(k));
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   cl_program p = kk_build(&env, source, "-w");
   moves(&env, p);
   conversions(&env, p);
   casts(&env, p);
   halves(&env, p);
   CHECK_OK(clReleaseProgram(p));
   kt_teardown(&env);
   return kt_result();
}
