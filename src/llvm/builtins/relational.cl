/* §6.11.6 relational functions.  OpenCL C's own comparison operators
 * already return 1/0 for scalars and -1/0 masks for vectors, with int
 * results for float and double scalars, intn for floatn and longn for
 * doublen, which is exactly the contract here. */
#include "kiln_cl.h"

/* R: result type (int for scalars), T: argument type, I: integer type of
 * the same element size (for bit tests). */
#define REL(R, T, I, INF, MIN) \
  OVL R isequal(T x, T y) { return x == y; } \
  OVL R isnotequal(T x, T y) { return x != y; } \
  OVL R isgreater(T x, T y) { return x > y; } \
  OVL R isgreaterequal(T x, T y) { return x >= y; } \
  OVL R isless(T x, T y) { return x < y; } \
  OVL R islessequal(T x, T y) { return x <= y; } \
  OVL R islessgreater(T x, T y) { return (x < y) | (x > y); } \
  OVL R isordered(T x, T y) { return (x == x) & (y == y); } \
  OVL R isunordered(T x, T y) { return (x != x) | (y != y); } \
  OVL R isnan(T x) { return x != x; } \
  OVL R isfinite(T x) { return __builtin_elementwise_abs(x) < (T)(INF); } \
  OVL R isinf(T x) { return __builtin_elementwise_abs(x) == (T)(INF); } \
  OVL R isnormal(T x) { \
     T a = __builtin_elementwise_abs(x); \
     return (a >= (T)(MIN)) & (a < (T)(INF)); } \
  OVL R signbit(T x) { return as_##I(x) < (I)0; }

#define REL_F(n) REL(int##n, float##n, int##n, INFINITY, FLT_MIN)
#define REL_D(n) REL(long##n, double##n, long##n, (double)INFINITY, DBL_MIN)
/* half (cl_khr_fp16): int for scalars, shortn for halfn; 0x1p-14 is the
 * smallest normal half. */
#define REL_H(n) REL(short##n, half##n, short##n, (half)INFINITY, 0x1p-14h)
REL(int, float, int, INFINITY, FLT_MIN)
REL(int, double, long, (double)INFINITY, DBL_MIN)
REL(int, half, short, (half)INFINITY, 0x1p-14h)
FOR_VWIDTHS(REL_F)
FOR_VWIDTHS(REL_D)
FOR_VWIDTHS(REL_H)

/* any/all look at the sign bit only.  T: a signed integer type. */
#define ANY_ALL_SCALAR(T) \
  OVL int any(T x) { return x < 0; } \
  OVL int all(T x) { return x < 0; }
#define ANY_ALL(T, n) \
  OVL int any(T##n x) { return __builtin_reduce_or(x < (T##n)0) != 0; } \
  OVL int all(T##n x) { return __builtin_reduce_and(x < (T##n)0) != 0; }
#define ANY_ALL_N(n) ANY_ALL(char, n) ANY_ALL(short, n) ANY_ALL(int, n) ANY_ALL(long, n)
ANY_ALL_SCALAR(char) ANY_ALL_SCALAR(short) ANY_ALL_SCALAR(int) ANY_ALL_SCALAR(long)
FOR_VWIDTHS(ANY_ALL_N)

/* bitselect: bits of b where c is 1, of a where c is 0.  U: the unsigned
 * type the bits are handled in. */
#define BITSELECT(T, U, n) \
  OVL T##n bitselect(T##n a, T##n b, T##n c) { \
     U##n ua = as_##U##n(a), ub = as_##U##n(b), uc = as_##U##n(c); \
     U##n r = (ua & ~uc) | (ub & uc); /* assignment undoes char promotion */ \
     return as_##T##n(r); }

/* select: per component, b where c's most significant bit is set (vectors)
 * or c is non-zero (scalars).  S, U: the signed and unsigned types c may
 * have. */
#define SELECT_SCALAR(T, S, U) \
  OVL T select(T a, T b, S c) { return c ? b : a; } \
  OVL T select(T a, T b, U c) { return c ? b : a; }
#define SELECT(T, S, U, n) \
  OVL T##n select(T##n a, T##n b, S##n c) { return c < (S##n)0 ? b : a; } \
  OVL T##n select(T##n a, T##n b, U##n c) { return as_##S##n(c) < (S##n)0 ? b : a; }

#define SEL_ALL(T, S, U) \
  BITSELECT(T, U, ) SELECT_SCALAR(T, S, U) \
  BITSELECT(T, U, 2) SELECT(T, S, U, 2) BITSELECT(T, U, 3) SELECT(T, S, U, 3) \
  BITSELECT(T, U, 4) SELECT(T, S, U, 4) BITSELECT(T, U, 8) SELECT(T, S, U, 8) \
  BITSELECT(T, U, 16) SELECT(T, S, U, 16)
SEL_ALL(char, char, uchar)
SEL_ALL(uchar, char, uchar)
SEL_ALL(short, short, ushort)
SEL_ALL(ushort, short, ushort)
SEL_ALL(int, int, uint)
SEL_ALL(uint, int, uint)
SEL_ALL(long, long, ulong)
SEL_ALL(ulong, long, ulong)
SEL_ALL(float, int, uint)
SEL_ALL(double, long, ulong)
SEL_ALL(half, short, ushort)
