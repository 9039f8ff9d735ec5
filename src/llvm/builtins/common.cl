/* §6.11.4 common functions for float and double.  Every body is
 * width-generic: vector comparisons give -1/0 masks and ?: selects per
 * component, so one text serves scalars and vectors. */
#include "kiln_cl.h"

#define COMMON(T, n) \
  /* min/max/clamp results are undefined for NaN/inf in OpenCL; minnum and \
   * maxnum (fmin/fmax semantics) are single instructions on x86. */ \
  OVL T##n max(T##n x, T##n y) { return __builtin_elementwise_max(x, y); } \
  OVL T##n min(T##n x, T##n y) { return __builtin_elementwise_min(x, y); } \
  OVL T##n clamp(T##n x, T##n lo, T##n hi) { \
     return __builtin_elementwise_min(__builtin_elementwise_max(x, lo), hi); } \
  OVL T##n degrees(T##n r) { return r * (T)57.2957795130823208767981548141051703; } \
  OVL T##n radians(T##n d) { return d * (T)0.0174532925199432957692369076848861271; } \
  OVL T##n mix(T##n x, T##n y, T##n a) { return x + (y - x) * a; } \
  OVL T##n step(T##n edge, T##n x) { return x < edge ? (T##n)0 : (T##n)1; } \
  OVL T##n smoothstep(T##n e0, T##n e1, T##n x) { \
     T##n t = clamp((x - e0) / (e1 - e0), (T##n)0, (T##n)1); \
     return t * t * ((T##n)3 - (T##n)2 * t); } \
  /* +-1 by sign, +-0 stays, NaN gives 0. */ \
  OVL T##n sign(T##n x) { \
     return x > (T##n)0 ? (T##n)1 : (x < (T##n)0 ? (T##n)-1 : (x == x ? x : (T##n)0)); }

/* The forms taking a scalar for some arguments of a vector call. */
#define COMMON_BCAST(T, n) \
  OVL T##n max(T##n x, T y) { return max(x, (T##n)y); } \
  OVL T##n min(T##n x, T y) { return min(x, (T##n)y); } \
  OVL T##n clamp(T##n x, T lo, T hi) { return clamp(x, (T##n)lo, (T##n)hi); } \
  OVL T##n mix(T##n x, T##n y, T a) { return mix(x, y, (T##n)a); } \
  OVL T##n step(T edge, T##n x) { return step((T##n)edge, x); } \
  OVL T##n smoothstep(T e0, T e1, T##n x) { return smoothstep((T##n)e0, (T##n)e1, x); }

#define COMMON_F(n) COMMON(float, n)
#define COMMON_D(n) COMMON(double, n)
#define COMMON_BCAST_F(n) COMMON_BCAST(float, n)
#define COMMON_BCAST_D(n) COMMON_BCAST(double, n)
FOR_WIDTHS(COMMON_F)
FOR_WIDTHS(COMMON_D)
FOR_VWIDTHS(COMMON_BCAST_F)
FOR_VWIDTHS(COMMON_BCAST_D)
