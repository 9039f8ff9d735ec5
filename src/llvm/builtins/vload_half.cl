/* §6.11.7 vload_half*, vloada_half*, vstore_half*, vstorea_half*.
 *
 * OpenCL 1.1 without cl_khr_fp16 only lets `half` be pointed to, so the
 * data is handled as ushort bit patterns and converted here in integer
 * arithmetic: exact for loads, correctly rounded in all four modes for
 * stores (from float and from double directly, never through float, which
 * would round twice; kiln_half.h).  These take no half arithmetic, so they
 * work for kernels of every device, with or without cl_khr_fp16. */
#include "kiln_cl.h"
#include "kiln_half.h"

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
#ifdef KILN_GENERIC_AS
/* The second compile, as OpenCL C 3.0 with the generic address space
 * (meson.build, vload.cl): the __generic forms only. */
VLOAD_HALF_AS(__generic)
#else
VLOAD_HALF_AS(__global)
VLOAD_HALF_AS(__local)
VLOAD_HALF_AS(__constant)
VLOAD_HALF_AS(__private)
#endif

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
#ifdef KILN_GENERIC_AS
#define VSTORE_HALF(T, CVT) VSTORE_HALF_AS(T, CVT, __generic)
#else
#define VSTORE_HALF(T, CVT) \
  VSTORE_HALF_AS(T, CVT, __global) VSTORE_HALF_AS(T, CVT, __local) VSTORE_HALF_AS(T, CVT, __private)
#endif
VSTORE_HALF(float, float_to_half_bits)
VSTORE_HALF(double, double_to_half_bits)
