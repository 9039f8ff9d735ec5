/* §6.11.12 shuffle and shuffle2 for every element type and m, n in
 * {2, 4, 8, 16}.  Only the low log2(m) (shuffle) or log2(2m) (shuffle2)
 * bits of each mask component count, which also keeps every index in
 * range.  With a constant mask, LLVM folds the loop into one shufflevector. */
#include "kiln_cl.h"

/* T: element type, U: unsigned mask element of the same size. */
#define SHUFFLE(T, U, m, n) \
  OVL T##n shuffle(T##m x, U##n mask) { \
     T##n r; \
     for (int i = 0; i < n; i++) r[i] = x[mask[i] & (m - 1)]; \
     return r; } \
  OVL T##n shuffle2(T##m x, T##m y, U##n mask) { \
     T##n r; \
     for (int i = 0; i < n; i++) { \
        uint k = mask[i] & (2 * m - 1); \
        r[i] = k < m ? x[k] : y[k - m]; \
     } \
     return r; }

#define SHUFFLE_N(T, U, m) SHUFFLE(T, U, m, 2) SHUFFLE(T, U, m, 4) SHUFFLE(T, U, m, 8) SHUFFLE(T, U, m, 16)
#define SHUFFLE_ALL(T, U) SHUFFLE_N(T, U, 2) SHUFFLE_N(T, U, 4) SHUFFLE_N(T, U, 8) SHUFFLE_N(T, U, 16)
SHUFFLE_ALL(char, uchar)
SHUFFLE_ALL(uchar, uchar)
SHUFFLE_ALL(short, ushort)
SHUFFLE_ALL(ushort, ushort)
SHUFFLE_ALL(int, uint)
SHUFFLE_ALL(uint, uint)
SHUFFLE_ALL(long, ulong)
SHUFFLE_ALL(ulong, ulong)
SHUFFLE_ALL(float, uint)
SHUFFLE_ALL(double, ulong)
SHUFFLE_ALL(half, ushort)
