/* §6.11.2 half_* and native_* functions.  Both have loose or
 * implementation-defined accuracy; mapping them to the full-precision forms
 * is conformant and keeps results identical across Kiln's code paths.  The
 * ones that are single instructions anyway (divide, recip, sqrt) are written
 * as such. */
#include "kiln_cl.h"

#define FWD1(P, F, n) OVL float##n P##_##F(float##n x) { return F(x); }
#define ALIASES(P, n) \
  FWD1(P, cos, n) FWD1(P, exp, n) FWD1(P, exp2, n) FWD1(P, exp10, n) \
  FWD1(P, log, n) FWD1(P, log2, n) FWD1(P, log10, n) FWD1(P, rsqrt, n) \
  FWD1(P, sin, n) FWD1(P, sqrt, n) FWD1(P, tan, n) \
  OVL float##n P##_divide(float##n x, float##n y) { return x / y; } \
  OVL float##n P##_recip(float##n x) { return 1.0f / x; } \
  OVL float##n P##_powr(float##n x, float##n y) { return powr(x, y); }
#define HALF(n) ALIASES(half, n)
#define NATIVE(n) ALIASES(native, n)
FOR_WIDTHS(HALF)
FOR_WIDTHS(NATIVE)
