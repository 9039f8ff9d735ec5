/* Exact bit-level conversions between half and float/double, shared by
 * vload_half.cl (vload_half/vstore_half on ushort bit patterns) and the
 * conversions (convert.cl: convert_half*_rtz/_rtp/_rtn).
 *
 * Loads are exact; stores are correctly rounded in all four modes, from
 * float and from double directly (never through float, which would round
 * twice).  Integer arithmetic only: no F16C is assumed, and the functions
 * have internal linkage, so every file that includes this gets its own
 * copy (opt's mergefunc folds the duplicates in kiln_builtins.bc). */
#ifndef KILN_HALF_H
#define KILN_HALF_H

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

#endif
