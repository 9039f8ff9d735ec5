/* Explicit conversions (§6.2.3): every convert_<dst>[n][_sat][_rnd](<src>)
 * variant, scalar and 3/16-wide, on edge and random values, against the
 * host's own conversions run under fesetround() for the rounding modes
 * (an independent reference: hardware rounding, not the library's code).
 * Out-of-range float->integer results without _sat are implementation-
 * defined and not checked. */
#include "harness.h"

#include <fenv.h>
#include <float.h>

#include "conv_table.h"

/* Built with -frounding-math (GCC ignores #pragma STDC FENV_ACCESS), and
 * the conversions below go through volatiles so none is folded. */

static const int mode_fe[5] = {FE_TONEAREST, FE_TONEAREST, FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD};

static int is_fp(int t) { return t == T_FLOAT || t == T_DOUBLE; }
static int is_signed(int t) { return t == T_CHAR || t == T_SHORT || t == T_INT || t == T_LONG; }
static int bits(int t)
{
   static const int b[] = {8, 8, 16, 16, 32, 32, 64, 64, 32, 64};
   return b[t];
}
static __int128 tmin(int t) { return is_signed(t) ? -((__int128)1 << (bits(t) - 1)) : 0; }
static __int128 tmax(int t)
{
   return is_signed(t) ? ((__int128)1 << (bits(t) - 1)) - 1 : ((__int128)1 << bits(t)) - 1;
}

static __int128 get_int(int t, union val v)
{
   switch (t) {
   case T_CHAR: return v.c;
   case T_UCHAR: return v.h;
   case T_SHORT: return v.s;
   case T_USHORT: return v.t;
   case T_INT: return v.i;
   case T_UINT: return v.j;
   case T_LONG: return v.l;
   default: return v.m;
   }
}

static union val put_int(int t, __int128 x)
{
   union val v = {0};
   switch (t) {
   case T_CHAR: v.c = (int8_t)x; break;
   case T_UCHAR: v.h = (uint8_t)x; break;
   case T_SHORT: v.s = (int16_t)x; break;
   case T_USHORT: v.t = (uint16_t)x; break;
   case T_INT: v.i = (int32_t)x; break;
   case T_UINT: v.j = (uint32_t)x; break;
   case T_LONG: v.l = (int64_t)x; break;
   default: v.m = (uint64_t)x; break;
   }
   return v;
}

/* The expected result; 0 when it is implementation-defined. */
static int reference(const struct conv *c, union val in, union val *out)
{
   int mode = c->mode;
   memset(out, 0, sizeof(*out));
   if (!is_fp(c->src) && !is_fp(c->dst)) {
      __int128 x = get_int(c->src, in);
      if (c->sat) x = x < tmin(c->dst) ? tmin(c->dst) : (x > tmax(c->dst) ? tmax(c->dst) : x);
      *out = put_int(c->dst, x);
      return 1;
   }
   if (!is_fp(c->dst)) {
      long double x = c->src == T_FLOAT ? in.f : in.d;
      if (isnan(x)) {
         if (!c->sat) return 0;
         *out = put_int(c->dst, 0);
         return 1;
      }
      long double r;
      switch (mode) {
      case 1: fesetround(FE_TONEAREST); r = nearbyintl(x); break;
      case 3: r = ceill(x); break;
      case 4: r = floorl(x); break;
      default: r = truncl(x); break;   /* default and _rtz */
      }
      if (r < (long double)tmin(c->dst)) {
         if (!c->sat) return 0;
         *out = put_int(c->dst, tmin(c->dst));
      } else if (r > (long double)tmax(c->dst)) {
         if (!c->sat) return 0;
         *out = put_int(c->dst, tmax(c->dst));
      } else {
         *out = put_int(c->dst, (__int128)r);
      }
      return 1;
   }
   /* To float or double: the host converts under the wanted rounding mode.
    * Integers go through long double, which holds any 64-bit value exactly,
    * so only the final narrowing rounds. */
   volatile long double x;
   if (c->src == T_FLOAT) x = in.f;
   else if (c->src == T_DOUBLE) x = in.d;
   else if (is_signed(c->src)) x = (long double)(int64_t)get_int(c->src, in);
   else x = (long double)(uint64_t)get_int(c->src, in);
   fesetround(mode_fe[mode]);
   if (c->dst == T_FLOAT) {
      volatile float f = (float)x;
      out->f = f;
   } else {
      volatile double d = (double)x;
      out->d = d;
   }
   fesetround(FE_TONEAREST);
   return 1;
}

static int same(int t, union val a, union val b)
{
   if (t == T_FLOAT) return same_f(a.f, b.f);
   if (t == T_DOUBLE) return same_d(a.d, b.d);
   return get_int(t, a) == get_int(t, b);
}

static void show(char *buf, size_t n, int t, union val v)
{
   if (t == T_FLOAT) snprintf(buf, n, "%a", v.f);
   else if (t == T_DOUBLE) snprintf(buf, n, "%a", v.d);
   else if (is_signed(t)) snprintf(buf, n, "%lld", (long long)get_int(t, v));
   else snprintf(buf, n, "%llu", (unsigned long long)get_int(t, v));
}

/* Inputs per source type: the limits of every type around them, rounding
 * ties, precision boundaries (2^24, 2^53), specials and random values. */
#define MAXV 256
static int values(int t, union val *v)
{
   int n = 0;
   if (is_fp(t)) {
      static const double base[] = {
         0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999997, -0.4999999701976776,
         0.7, -0.7, 1.0, -1.0, 0x1p-149, -0x1p-149, 0x1p-126, 1e-46, -1e-300,
         127.0, 127.5, 128.0, -128.0, -128.5, -129.0, 255.0, 255.5, 256.0, -1.0,
         32767.5, 32768.0, -32768.5, -32769.0, 65535.4, 65535.5, 65536.0,
         2147483520.0, 2147483647.0, 2147483648.0, -2147483648.0, -2147483649.0,
         -2147483904.0, 4294967040.0, 4294967295.0, 4294967296.0, 0x1p63, -0x1p63,
         0x1.fffffep62, 0x1.fffffffffffffp62, 0x1p64, 0x1.fffffep63, 0x1.fffffffffffffp63,
         -0x1.0000000000001p63, 16777217.0, 9007199254740993.0, 0x1.fffffe0000001p127,
         0x1.fffffefffffffp127, 0x1.ffffffp127, -0x1.ffffffp127, 1e300, -1e300,
         3.4028235677973366e+38, 1.0000000596046448, 1.0000001788139343,
         -1.0000000596046448, 0x1.000001p-126, 0x1.0000008p-149, 0x1.8p-150,
         INFINITY, -INFINITY, NAN, -NAN,
      };
      for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++) {
         if (t == T_FLOAT) v[n++].f = (float)base[i];
         else v[n++].d = base[i];
      }
      while (n < 160) {
         uint64_t r = test_rand();
         if (t == T_FLOAT) v[n].f = (n & 1) ? u2f((uint32_t)r) : (float)((int64_t)r >> (r & 63)) / 4;
         else v[n].d = (n & 1) ? u2d(r) : (double)((int64_t)r >> (r & 63)) / 4;
         n++;
      }
      return n;
   }
   static const __int128 base[] = {0, 1, -1, 2, 127, 128, -128, -129, 255, 256, 32767, 32768,
      -32768, -32769, 65535, 65536, 16777215, 16777216, 16777217, 16777219, 2147483647,
      -2147483647 - 1, 2147483648LL, 4294967295LL, 4294967296LL, 9007199254740993LL,
      -9007199254740993LL, INT64_MAX, INT64_MIN, (__int128)UINT64_MAX, (__int128)UINT64_MAX - 1,
      (__int128)1 << 63, ((__int128)1 << 63) + 1, 0x7fffff7fffffffffLL, -0x7fffff8000000001LL};
   for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++)
      v[n++] = put_int(t, base[i]);
   while (n < 120) {
      uint64_t r = test_rand();
      v[n++] = put_int(t, (__int128)(r >> (r & 63)));
   }
   return n;
}

int main(void)
{
   union val in[MAXV];
   char a[64], b[64], x[64];
   for (size_t ci = 0; ci < sizeof(convs) / sizeof(convs[0]); ci++) {
      const struct conv *c = &convs[ci];
      int n = values(c->src, in);
      for (int i = 0; i < n; i++) {
         union val want, got = call1(c, in[i]);
         if (!reference(c, in[i], &want)) continue;
         if (!same(c->dst, got, want)) {
            show(x, sizeof x, c->src, in[i]); show(a, sizeof a, c->dst, got); show(b, sizeof b, c->dst, want);
         }
         CHECK(same(c->dst, got, want), "%s: %s -> %s, want %s", c->name, x, a, b);
      }
      /* Vector forms: every lane as the reference says. */
      for (int off = 0; off + 16 <= n; off += 16)
         for (int w = 3; w <= 16; w += 13) {
            union val out[16];
            callv(c, w, in + off, out);
            for (int k = 0; k < w; k++) {
               union val want;
               if (!reference(c, in[off + k], &want)) continue;
               CHECK(same(c->dst, out[k], want), "%s x%d lane %d", c->name, w, k);
            }
         }
   }
   return test_report("builtins-convert");
}
