/* The half-precision conversions x86 code calls (cl_khr_fp16).
 *
 * LLVM's x86 back end computes half arithmetic in float: with F16C it
 * converts with vcvtph2ps/vcvtps2ph, without it (and always for double to
 * half, which no x86 instruction does) it calls compiler-rt/libgcc's
 * __extendhfsf2, __truncsfhf2 and __truncdfhf2.  A program's ELF object
 * therefore may need them; the JIT defines them (kiln_half_rt_symbols) so
 * that they resolve whatever the process has loaded: libgcc_s has them only
 * since GCC 12, and Kiln's own library need not pull it in.
 *
 * Calling convention (x86-64 psABI, as LLVM 19 and GCC 12 use it): a half
 * travels in the low 16 bits of an XMM register, which is what a _Float16
 * argument or result is.  The conversions round to nearest even, keep
 * denormals, and quiet NaNs keeping the top bits of the payload, as
 * libgcc's do.  Integer arithmetic only, so no code here calls them back.
 */
#include "llvm/cpu/half_rt.h"

#include <stdint.h>
#include <string.h>

static _Float16 from_bits(uint16_t b)
{
   _Float16 h;
   memcpy(&h, &b, sizeof(h));
   return h;
}

/* h: the truncated magnitude, rem: the dropped bits, half_ulp: the weight
 * of half a unit of h.  A carry moves to the next exponent, and from the
 * largest finite half to inf. */
static _Float16 round_even(uint32_t sign, uint32_t h, uint64_t rem, uint64_t half_ulp)
{
   uint32_t inc = rem > half_ulp || (rem == half_ulp && (h & 1));
   return from_bits((uint16_t)(sign | (h + inc)));
}

static _Float16 trunc_sf(float f)
{
   uint32_t b;
   memcpy(&b, &f, sizeof(b));
   uint32_t sign = (b >> 16) & 0x8000;
   uint32_t a = b & 0x7fffffff;
   if (a > 0x7f800000u) /* NaN: quiet, top payload bits */
      return from_bits((uint16_t)(sign | 0x7e00 | ((a >> 13) & 0x3ff)));
   if (a == 0x7f800000u)
      return from_bits((uint16_t)(sign | 0x7c00));
   int e = (int)(a >> 23) - 127;
   if (e > 15)
      return from_bits((uint16_t)(sign | 0x7c00));
   if (e >= -14) /* a normal half: 10 of the 23 bits stay */
      return round_even(sign, ((uint32_t)(e + 15) << 10) | ((a >> 13) & 0x3ff), a & 0x1fff,
                        0x1000);
   /* A half denormal, in units of 2^-24: m * 2^(e-23) = m >> (-1-e). */
   int shift = -1 - e;
   if (shift > 24) /* below 2^-25: rounds to zero */
      return from_bits((uint16_t)sign);
   uint32_t m = (a & 0x7fffff) | 0x800000;
   return round_even(sign, m >> shift, m & ((1u << shift) - 1), 1ull << (shift - 1));
}

static _Float16 trunc_df(double d)
{
   uint64_t b;
   memcpy(&b, &d, sizeof(b));
   uint32_t sign = (uint32_t)(b >> 48) & 0x8000;
   uint64_t a = b & 0x7fffffffffffffffull;
   if (a > 0x7ff0000000000000ull)
      return from_bits((uint16_t)(sign | 0x7e00 | (uint32_t)((a >> 42) & 0x3ff)));
   if (a == 0x7ff0000000000000ull)
      return from_bits((uint16_t)(sign | 0x7c00));
   int e = (int)(a >> 52) - 1023;
   if (e > 15)
      return from_bits((uint16_t)(sign | 0x7c00));
   if (e >= -14) /* 10 of the 52 bits stay */
      return round_even(sign, ((uint32_t)(e + 15) << 10) | (uint32_t)((a >> 42) & 0x3ff),
                        a & ((1ull << 42) - 1), 1ull << 41);
   int shift = 28 - e; /* m * 2^(e-52) in units of 2^-24 */
   if (shift > 53)
      return from_bits((uint16_t)sign);
   uint64_t m = (a & 0xfffffffffffffull) | (1ull << 52);
   return round_even(sign, (uint32_t)(m >> shift), m & ((1ull << shift) - 1),
                     1ull << (shift - 1));
}

/* Exact: every half is a float. */
static float extend_hf(_Float16 h)
{
   uint16_t b;
   memcpy(&b, &h, sizeof(b));
   uint32_t sign = (uint32_t)(b & 0x8000) << 16;
   uint32_t e = (b >> 10) & 0x1f, m = b & 0x3ff, r;
   if (e == 0x1f) { /* inf, NaN (quieted, payload kept) */
      r = sign | 0x7f800000u | (m << 13) | (m ? 0x400000u : 0);
   } else if (e) {
      r = sign | ((e + 112) << 23) | (m << 13);
   } else if (!m) {
      r = sign;
   } else { /* a denormal: normalise the significand */
      int k = __builtin_clz(m) - 21; /* shifts until bit 10 is set */
      r = sign | ((uint32_t)(113 - k) << 23) | (((m << k) & 0x3ff) << 13);
   }
   float f;
   memcpy(&f, &r, sizeof(f));
   return f;
}

static double extend_hf_df(_Float16 h)
{
   return (double)extend_hf(h);
}

float kiln_half_extend_sf(_Float16 h)
{
   return extend_hf(h);
}

double kiln_half_extend_df(_Float16 h)
{
   return extend_hf_df(h);
}

_Float16 kiln_half_trunc_sf(float f)
{
   return trunc_sf(f);
}

_Float16 kiln_half_trunc_df(double d)
{
   return trunc_df(d);
}

const struct kiln_jit_symbol kiln_half_rt_symbols[] = {
   {"__extendhfsf2", (void (*)(void))kiln_half_extend_sf},
   {"__extendhfdf2", (void (*)(void))kiln_half_extend_df},
   {"__truncsfhf2", (void (*)(void))kiln_half_trunc_sf},
   {"__truncdfhf2", (void (*)(void))kiln_half_trunc_df},
};
const unsigned kiln_half_rt_num_symbols =
   sizeof(kiln_half_rt_symbols) / sizeof(kiln_half_rt_symbols[0]);
