/* §6.11.5 geometric functions (float and double, 1 to 4 components).
 *
 * length, distance and normalize of float vectors sum the squares in
 * double: no overflow or underflow for any float input, and one rounding at
 * the end.  The double forms scale by a power of two first for the same
 * reason.  dot is a plain float sum of products, as on every device.
 * The fast_* forms map to the full-precision ones (allowed: they only relax
 * precision). */
#include "kiln_cl.h"

/* Horizontal sums and maxima, left to right (clang's reductions are
 * integer-only). */
#define HSUM2(v) ((v).s0 + (v).s1)
#define HSUM3(v) ((v).s0 + (v).s1 + (v).s2)
#define HSUM4(v) ((v).s0 + (v).s1 + (v).s2 + (v).s3)
#define HMAX2(v) __builtin_fmax((v).s0, (v).s1)
#define HMAX3(v) __builtin_fmax(HMAX2(v), (v).s2)
#define HMAX4(v) __builtin_fmax(HMAX3(v), (v).s3)
#define SUMSQ(n, d) HSUM##n((d) * (d))

#define GEO_F(n) \
  OVL float dot(float##n a, float##n b) { return HSUM##n(a * b); } \
  OVL float length(float##n p) { \
     double##n d = __builtin_convertvector(p, double##n); \
     return (float)__builtin_sqrt(SUMSQ(n, d)); } \
  OVL float distance(float##n a, float##n b) { \
     double##n d = __builtin_convertvector(a, double##n) - __builtin_convertvector(b, double##n); \
     return (float)__builtin_sqrt(SUMSQ(n, d)); } \
  OVL float##n normalize(float##n p) { \
     double##n d = __builtin_convertvector(p, double##n); \
     double s = SUMSQ(n, d); \
     if (s == 0.0) return p; \
     if (__builtin_isinf(s)) { \
        /* Infinite components count as +-1, the others as 0 (CL 1.2+). */ \
        d = __builtin_elementwise_abs(d) == (double##n)INFINITY ? \
            __builtin_elementwise_copysign((double##n)1.0, d) : (double##n)0.0; \
        s = SUMSQ(n, d); \
     } \
     return __builtin_convertvector(d / __builtin_sqrt(s), float##n); } \
  OVL float fast_length(float##n p) { return length(p); } \
  OVL float fast_distance(float##n a, float##n b) { return distance(a, b); } \
  OVL float##n fast_normalize(float##n p) { return normalize(p); }

/* Scalars are not vectors for the reductions above. */
OVL float dot(float a, float b) { return a * b; }
OVL float length(float p) { return __builtin_fabsf(p); }
OVL float distance(float a, float b) { return (float)__builtin_fabs((double)a - (double)b); }
OVL float normalize(float p) { return p == 0.0f || p != p ? p : __builtin_copysignf(1.0f, p); }
OVL float fast_length(float p) { return length(p); }
OVL float fast_distance(float a, float b) { return distance(a, b); }
OVL float fast_normalize(float p) { return normalize(p); }
GEO_F(2)
GEO_F(3)
GEO_F(4)

/* Double vectors: scale by 2^-e where 2^e is near the largest magnitude,
 * so that squaring neither overflows nor loses the small components. */
#define GEO_D(n) \
  OVL double dot(double##n a, double##n b) { return HSUM##n(a * b); } \
  OVL double length(double##n p) { \
     double##n a = __builtin_elementwise_abs(p); \
     double m = HMAX##n(a); \
     if (__builtin_isinf(m)) return INFINITY; \
     if (m == 0.0 || m != m) return m; \
     int e = ilogb(m); \
     double##n q = ldexp(p, -e); \
     return ldexp(__builtin_sqrt(SUMSQ(n, q)), e); } \
  OVL double distance(double##n a, double##n b) { return length(a - b); } \
  OVL double##n normalize(double##n p) { \
     double##n a = __builtin_elementwise_abs(p); \
     double m = HMAX##n(a); \
     if (m == 0.0) return p; \
     if (__builtin_isinf(m)) \
        p = a == (double##n)INFINITY ? __builtin_elementwise_copysign((double##n)1.0, p) : (double##n)0.0; \
     else \
        p = ldexp(p, -ilogb(m)); \
     return p / __builtin_sqrt(SUMSQ(n, p)); } \
  OVL double fast_length(double##n p) { return length(p); } \
  OVL double fast_distance(double##n a, double##n b) { return distance(a, b); } \
  OVL double##n fast_normalize(double##n p) { return normalize(p); }

OVL double dot(double a, double b) { return a * b; }
OVL double length(double p) { return __builtin_fabs(p); }
OVL double distance(double a, double b) { return __builtin_fabs(a - b); }
OVL double normalize(double p) { return p == 0.0 || p != p ? p : __builtin_copysign(1.0, p); }
OVL double fast_length(double p) { return length(p); }
OVL double fast_distance(double a, double b) { return distance(a, b); }
OVL double fast_normalize(double p) { return normalize(p); }
GEO_D(2)
GEO_D(3)
GEO_D(4)

#define CROSS(T) \
  OVL T##3 cross(T##3 a, T##3 b) { \
     return (T##3)(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); } \
  OVL T##4 cross(T##4 a, T##4 b) { \
     return (T##4)(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x, 0); }
CROSS(float)
CROSS(double)
