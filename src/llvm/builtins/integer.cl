/* §6.11.3 integer functions for char..ulong, scalars and every vector
 * width.  Most bodies are written once for a scalar-or-vector type T##n:
 * OpenCL C's vector comparisons give -1/0 masks and its ?: selects per
 * component, so the same text is right for both.  Signed wrap-around is
 * done in the unsigned type (signed overflow is undefined in OpenCL C as in
 * C, and LLVM would exploit it).
 */
#include "kiln_cl.h"

/* Functions whose body is width-generic.  T: the type, U: its unsigned
 * counterpart, B: its width in bits. */
#define INT_GENERIC(T, U, B, n) \
  /* Halves first so the sum cannot overflow; the dropped low bits add 1 \
   * when both (hadd) or either (rhadd) are set. */ \
  OVL T##n hadd(T##n x, T##n y) { return (x >> 1) + (y >> 1) + (x & y & (T##n)1); } \
  OVL T##n rhadd(T##n x, T##n y) { return (x >> 1) + (y >> 1) + ((x | y) & (T##n)1); } \
  OVL T##n max(T##n x, T##n y) { return __builtin_elementwise_max(x, y); } \
  OVL T##n min(T##n x, T##n y) { return __builtin_elementwise_min(x, y); } \
  OVL T##n clamp(T##n x, T##n lo, T##n hi) { \
     return __builtin_elementwise_min(__builtin_elementwise_max(x, lo), hi); } \
  OVL U##n abs_diff(T##n x, T##n y) { \
     U##n ux = as_##U##n(x), uy = as_##U##n(y); \
     return x > y ? (U##n)(ux - uy) : (U##n)(uy - ux); } \
  /* OpenCL masks shift counts to the element width only for vectors \
   * (scalars are promoted), so the counts are masked here explicitly. */ \
  OVL T##n rotate(T##n v, T##n i) { \
     U##n u = as_##U##n(v); \
     U##n s = as_##U##n(i) & (U##n)(B - 1); \
     U##n r = (U##n)(u << s) | (U##n)(u >> (((U##n)B - s) & (U##n)(B - 1))); \
     return as_##T##n(r); }

/* llvm.sadd.sat & co. on vectors.  Not for char/short scalars: Clang
 * promotes scalar arguments of the element-wise builtins to int, where
 * nothing saturates (see SAT_NARROW). */
#define SAT_VEC(T, n) \
  OVL T##n add_sat(T##n x, T##n y) { return __builtin_elementwise_add_sat(x, y); } \
  OVL T##n sub_sat(T##n x, T##n y) { return __builtin_elementwise_sub_sat(x, y); }
#define SAT_NARROW(T, LO, HI) \
  OVL T add_sat(T x, T y) { return (T)__builtin_elementwise_min(__builtin_elementwise_max((int)x + (int)y, LO), HI); } \
  OVL T sub_sat(T x, T y) { return (T)__builtin_elementwise_min(__builtin_elementwise_max((int)x - (int)y, LO), HI); }

#define INT_SIGNED_ABS(T, U, n) \
  OVL U##n abs(T##n x) { U##n u = as_##U##n(x); return x < (T##n)0 ? (U##n)(-u) : u; }
#define INT_UNSIGNED_ABS(T, n) \
  OVL T##n abs(T##n x) { return x; }

/* Wraps like the spec's mul_hi(a, b) + c.  Must follow mul_hi: with
 * -fdeclare-opencl-builtins, once a TU declares one overload of a builtin
 * name, only its own declarations of that name are visible. */
#define MAD_HI(T, U, n) \
  OVL T##n mad_hi(T##n a, T##n b, T##n c) { \
     U##n s = as_##U##n(mul_hi(a, b)) + as_##U##n(c); \
     return as_##T##n(s); }

/* mul_hi / mad_sat through a type twice as wide (W, unsigned UW for the
 * unsigned types so that the product cannot overflow). */
#define INT_WIDEN(T, U, W, B, n) \
  OVL T##n mul_hi(T##n x, T##n y) { \
     return convert_##T##n(convert_##W##n(x) * convert_##W##n(y) >> B); } \
  OVL T##n mad_sat(T##n a, T##n b, T##n c) { \
     return convert_##T##n##_sat(convert_##W##n(a) * convert_##W##n(b) + convert_##W##n(c)); } \
  MAD_HI(T, U, n)

/* Vector-with-scalar overloads of min, max and clamp. */
#define INT_BCAST(T, n) \
  OVL T##n max(T##n x, T y) { return max(x, (T##n)y); } \
  OVL T##n min(T##n x, T y) { return min(x, (T##n)y); } \
  OVL T##n clamp(T##n x, T lo, T hi) { return clamp(x, (T##n)lo, (T##n)hi); }

/* upsample(hi, lo) = hi << B | lo, built in the unsigned wide type. */
#define UPSAMPLE(T, U, W, UW, B, n) \
  OVL W##n upsample(T##n hi, U##n lo) { \
     UW##n w = (UW##n)(convert_##UW##n(as_##U##n(hi)) << B) | convert_##UW##n(lo); \
     return as_##W##n(w); }

/* T, U: the type and its unsigned twin; W, UW: the types twice as wide,
 * which hold any product plus an addend (mul_hi, mad_sat) and are
 * upsample's result. */
#define PER_WIDTH(T, U, B, W, UW, n) \
  INT_GENERIC(T, U, B, n) INT_WIDEN(T, U, W, B, n) INT_SIGNED_ABS(T, U, n) \
  INT_GENERIC(U, U, B, n) INT_WIDEN(U, U, UW, B, n) INT_UNSIGNED_ABS(U, n) \
  UPSAMPLE(T, U, W, UW, B, n) UPSAMPLE(U, U, UW, UW, B, n)
#define PER_VWIDTH(T, U, n) INT_BCAST(T, n) INT_BCAST(U, n) SAT_VEC(T, n) SAT_VEC(U, n)

#define NARROW(T, U, B, W, UW) \
  PER_WIDTH(T, U, B, W, UW, ) PER_WIDTH(T, U, B, W, UW, 2) \
  PER_WIDTH(T, U, B, W, UW, 3) PER_WIDTH(T, U, B, W, UW, 4) \
  PER_WIDTH(T, U, B, W, UW, 8) PER_WIDTH(T, U, B, W, UW, 16) \
  PER_VWIDTH(T, U, 2) PER_VWIDTH(T, U, 3) PER_VWIDTH(T, U, 4) \
  PER_VWIDTH(T, U, 8) PER_VWIDTH(T, U, 16)

NARROW(char, uchar, 8, short, ushort)
NARROW(short, ushort, 16, int, uint)
NARROW(int, uint, 32, long, ulong)
SAT_NARROW(char, CHAR_MIN, CHAR_MAX)
SAT_NARROW(uchar, 0, UCHAR_MAX)
SAT_NARROW(short, SHRT_MIN, SHRT_MAX)
SAT_NARROW(ushort, 0, USHRT_MAX)
SAT_VEC(int, )
SAT_VEC(uint, )
SAT_VEC(long, )
SAT_VEC(ulong, )

/* long/ulong: nothing is twice as wide among OpenCL types, but clang
 * accepts __int128 on x86-64; scalar forms use it and vectors split. */
#define LONG_PER_WIDTH(n) \
  INT_GENERIC(long, ulong, 64, n) INT_SIGNED_ABS(long, ulong, n) \
  INT_GENERIC(ulong, ulong, 64, n) INT_UNSIGNED_ABS(ulong, n)
FOR_WIDTHS(LONG_PER_WIDTH)
#define LONG_PER_VWIDTH(n) PER_VWIDTH(long, ulong, n)
FOR_VWIDTHS(LONG_PER_VWIDTH)

OVL long mul_hi(long x, long y) { return (long)(((__int128)x * y) >> 64); }
OVL ulong mul_hi(ulong x, ulong y) { return (ulong)(((unsigned __int128)x * y) >> 64); }
OVL long mad_sat(long a, long b, long c)
{
   /* |a*b| <= 2^126, so a*b + c cannot overflow 128 bits. */
   __int128 r = (__int128)a * b + c;
   return r > LONG_MAX ? LONG_MAX : (r < LONG_MIN ? LONG_MIN : (long)r);
}
OVL ulong mad_sat(ulong a, ulong b, ulong c)
{
   unsigned __int128 r = (unsigned __int128)a * b;
   r += c;
   /* (2^64-1)^2 + 2^64-1 < 2^128: no wrap either. */
   return r > ULONG_MAX ? ULONG_MAX : (ulong)r;
}
SPLIT2(long, long, long, mul_hi)
SPLIT2(ulong, ulong, ulong, mul_hi)
SPLIT3(long, long, mad_sat)
SPLIT3(ulong, ulong, mad_sat)
#define LONG_MAD_HI(n) MAD_HI(long, ulong, n) MAD_HI(ulong, ulong, n)
FOR_WIDTHS(LONG_MAD_HI)

/* clz: scalar forms through llvm.ctlz (defined for 0), vectors split. */
#define CLZ(T, U, B) \
  OVL T clz(T x) { return (T)__builtin_clzg(as_##U(x), B); } \
  OVL U clz(U x) { return (U)__builtin_clzg(x, B); } \
  SPLIT1(T, T, clz) SPLIT1(U, U, clz)
CLZ(char, uchar, 8)
CLZ(short, ushort, 16)
CLZ(int, uint, 32)
CLZ(long, ulong, 64)

#include "ctz.h"

/* popcount (OpenCL C 1.2): llvm.ctpop per element. */
#define POPCOUNT(T, U) \
  OVL T popcount(T x) { return (T)__builtin_popcountg(as_##U(x)); } \
  OVL U popcount(U x) { return (U)__builtin_popcountg(x); } \
  SPLIT1(T, T, popcount) SPLIT1(U, U, popcount)
POPCOUNT(char, uchar)
POPCOUNT(short, ushort)
POPCOUNT(int, uint)
POPCOUNT(long, ulong)

/* mul24/mad24: OpenCL leaves results for operands outside 24 bits
 * implementation-defined, so the full 32-bit (wrapping) product is fine and
 * is a single instruction. */
#define MUL24(n) \
  OVL int##n mul24(int##n x, int##n y) { return as_int##n(as_uint##n(x) * as_uint##n(y)); } \
  OVL uint##n mul24(uint##n x, uint##n y) { return x * y; } \
  OVL int##n mad24(int##n x, int##n y, int##n z) { \
     return as_int##n(as_uint##n(x) * as_uint##n(y) + as_uint##n(z)); } \
  OVL uint##n mad24(uint##n x, uint##n y, uint##n z) { return x * y + z; }
FOR_WIDTHS(MUL24)
