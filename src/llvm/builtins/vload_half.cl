/* §6.11.7 vload_half*, vloada_half*, vstore_half*, vstorea_half*.
 *
 * OpenCL 1.1 without cl_khr_fp16 only lets `half` be pointed to, so the
 * data is handled as ushort bit patterns and converted here in integer
 * arithmetic: exact for loads, correctly rounded in all four modes for
 * stores (from float and from double directly, never through float, which
 * would round twice).  The x86 baseline has no F16C and LLVM's fp16 libcalls
 * would need compiler-rt, which Kiln does not link. */
#include "kiln_cl.h"

#define INTERNAL __attribute__((internal_linkage))

enum { RTE, RTZ, RTP, RTN };

INTERNAL float half_bits_to_float(ushort h)
{
   uint sign = (uint)(h & 0x8000) << 16;
   uint e = (h >> 10) & 0x1f, m = h & 0x3ff;
   if (e == 0x1f)                       /* inf, NaN (payload kept) */
      return as_float(sign | 0x7f800000u | (m << 13));
   if (e == 0) {                        /* zero, denormal: m * 2^-24 is exact */
      float r = (float)m * 0x1p-24f;
      return sign ? -r : r;
   }
   return as_float(sign | ((e + 112) << 23) | (m << 13));
}

/* Shared tail of the two narrowing conversions: h is the truncated
 * magnitude, rem the dropped bits, half_ulp the weight of half a unit of h.
 * A carry out of the significand moves to the next exponent, and from the
 * largest finite value to inf, as it should. */
INTERNAL ushort round_half(uint sign, uint h, ulong rem, ulong half_ulp, int mode)
{
   bool away = (mode == RTP && !sign) || (mode == RTN && sign);
   uint inc;
   if (mode == RTE)
      inc = rem > half_ulp || (rem == half_ulp && (h & 1));
   else
      inc = away && rem != 0;
   return (ushort)(sign | (h + inc));
}

/* Overflow: inf when rounding to nearest or away from zero, else the
 * largest finite half. */
INTERNAL ushort overflow_half(uint sign, int mode)
{
   bool away = (mode == RTP && !sign) || (mode == RTN && sign);
   return (ushort)(sign | ((mode == RTE || away) ? 0x7c00 : 0x7bff));
}

INTERNAL ushort float_to_half_bits(float f, int mode)
{
   uint b = as_uint(f);
   uint sign = (b >> 16) & 0x8000;
   uint a = b & 0x7fffffff;
   if (a > 0x7f800000u)                 /* NaN: quiet, top payload bits */
      return (ushort)(sign | 0x7e00 | ((a >> 13) & 0x3ff));
   if (a == 0x7f800000u)
      return (ushort)(sign | 0x7c00);
   int e = (int)(a >> 23) - 127;
   if (e > 15)
      return overflow_half(sign, mode);
   if (e >= -14)                        /* normal half: keep 10 of 23 bits */
      return round_half(sign, ((uint)(e + 15) << 10) | ((a >> 13) & 0x3ff),
                        a & 0x1fff, 0x1000, mode);
   /* Denormal half, in units of 2^-24: value = m * 2^(e-23) = m >> (-1-e). */
   int shift = -1 - e;
   if (shift > 24)                      /* below 2^-25: only the sticky bit */
      return round_half(sign, 0, a != 0, 2, mode);
   uint m = (a & 0x7fffff) | 0x800000;
   return round_half(sign, m >> shift, m & ((1u << shift) - 1), 1ul << (shift - 1), mode);
}

INTERNAL ushort double_to_half_bits(double d, int mode)
{
   ulong b = as_ulong(d);
   uint sign = (uint)(b >> 48) & 0x8000;
   ulong a = b & 0x7fffffffffffffffUL;
   if (a > 0x7ff0000000000000UL)
      return (ushort)(sign | 0x7e00 | (uint)((a >> 42) & 0x3ff));
   if (a == 0x7ff0000000000000UL)
      return (ushort)(sign | 0x7c00);
   int e = (int)(a >> 52) - 1023;
   if (e > 15)
      return overflow_half(sign, mode);
   if (e >= -14)                        /* keep 10 of 52 bits */
      return round_half(sign, ((uint)(e + 15) << 10) | (uint)((a >> 42) & 0x3ff),
                        a & ((1ul << 42) - 1), 1ul << 41, mode);
   int shift = 28 - e;                  /* m * 2^(e-52) in units of 2^-24 */
   if (shift > 53)
      return round_half(sign, 0, a != 0, 2, mode);
   ulong m = (a & 0xfffffffffffffUL) | (1ul << 52);
   return round_half(sign, (uint)(m >> shift), m & ((1ul << shift) - 1), 1ul << (shift - 1), mode);
}

/* ---- loads: vload_half (n elements at p + i*n), vloada_half (same, but
 * vloada_half3 steps by 4 elements since half3 is aligned as half4). ---- */
#define VLOAD_HALF_N(NAME, n, STEP, AS) \
  OVL float##n NAME(size_t i, const AS half *p) { \
     const AS ushort *q = (const AS ushort *)p + i * STEP; \
     float##n r; \
     for (int k = 0; k < n; k++) r[k] = half_bits_to_float(q[k]); \
     return r; }
#define VLOAD_HALF_AS(AS) \
  OVL float vload_half(size_t i, const AS half *p) { return half_bits_to_float(((const AS ushort *)p)[i]); } \
  VLOAD_HALF_N(vload_half2, 2, 2, AS) VLOAD_HALF_N(vload_half3, 3, 3, AS) \
  VLOAD_HALF_N(vload_half4, 4, 4, AS) VLOAD_HALF_N(vload_half8, 8, 8, AS) \
  VLOAD_HALF_N(vload_half16, 16, 16, AS) \
  VLOAD_HALF_N(vloada_half2, 2, 2, AS) VLOAD_HALF_N(vloada_half3, 3, 4, AS) \
  VLOAD_HALF_N(vloada_half4, 4, 4, AS) VLOAD_HALF_N(vloada_half8, 8, 8, AS) \
  VLOAD_HALF_N(vloada_half16, 16, 16, AS)
VLOAD_HALF_AS(__global)
VLOAD_HALF_AS(__local)
VLOAD_HALF_AS(__constant)
VLOAD_HALF_AS(__private)

/* ---- stores: every width, rounding suffix, source type (float, double)
 * and address space. ---- */
#define VSTORE_HALF_N(NAME, T, CVT, n, STEP, MODE, AS) \
  OVL void NAME(T##n v, size_t i, AS half *p) { \
     AS ushort *q = (AS ushort *)p + i * STEP; \
     for (int k = 0; k < n; k++) q[k] = CVT(v[k], MODE); }
#define VSTORE_HALF_MODE(SFX, MODE, T, CVT, AS) \
  OVL void vstore_half##SFX(T v, size_t i, AS half *p) { ((AS ushort *)p)[i] = CVT(v, MODE); } \
  VSTORE_HALF_N(vstore_half2##SFX, T, CVT, 2, 2, MODE, AS) \
  VSTORE_HALF_N(vstore_half3##SFX, T, CVT, 3, 3, MODE, AS) \
  VSTORE_HALF_N(vstore_half4##SFX, T, CVT, 4, 4, MODE, AS) \
  VSTORE_HALF_N(vstore_half8##SFX, T, CVT, 8, 8, MODE, AS) \
  VSTORE_HALF_N(vstore_half16##SFX, T, CVT, 16, 16, MODE, AS) \
  VSTORE_HALF_N(vstorea_half2##SFX, T, CVT, 2, 2, MODE, AS) \
  VSTORE_HALF_N(vstorea_half3##SFX, T, CVT, 3, 4, MODE, AS) \
  VSTORE_HALF_N(vstorea_half4##SFX, T, CVT, 4, 4, MODE, AS) \
  VSTORE_HALF_N(vstorea_half8##SFX, T, CVT, 8, 8, MODE, AS) \
  VSTORE_HALF_N(vstorea_half16##SFX, T, CVT, 16, 16, MODE, AS)
/* No suffix: the default rounding mode, round to nearest even. */
#define VSTORE_HALF_AS(T, CVT, AS) \
  VSTORE_HALF_MODE(, RTE, T, CVT, AS) VSTORE_HALF_MODE(_rte, RTE, T, CVT, AS) \
  VSTORE_HALF_MODE(_rtz, RTZ, T, CVT, AS) VSTORE_HALF_MODE(_rtp, RTP, T, CVT, AS) \
  VSTORE_HALF_MODE(_rtn, RTN, T, CVT, AS)
#define VSTORE_HALF(T, CVT) \
  VSTORE_HALF_AS(T, CVT, __global) VSTORE_HALF_AS(T, CVT, __local) VSTORE_HALF_AS(T, CVT, __private)
VSTORE_HALF(float, float_to_half_bits)
VSTORE_HALF(double, double_to_half_bits)
