/* §6.11.7 vloadn / vstoren for every element type (half too: cl_khr_fp16), n = 2, 3, 4, 8, 16 and
 * every address space OpenCL 1.1 allows (loads also from __constant).
 * The pointer need only be aligned to the element, so the accesses go
 * through vector typedefs whose alignment is lowered to the element's;
 * LLVM then emits unaligned vector moves.  n = 3 touches exactly three
 * elements (a 4-wide access could run past the end of a buffer). */
#include "kiln_cl.h"

#define UNALIGNED(T, n) typedef T T##n##_ua __attribute__((ext_vector_type(n), aligned(sizeof(T))));

#define VLOAD_AS(T, n, AS) \
  OVL T##n vload##n(size_t i, const AS T *p) { return *(const AS T##n##_ua *)(p + i * n); }
#define VSTORE_AS(T, n, AS) \
  OVL void vstore##n(T##n v, size_t i, AS T *p) { *(AS T##n##_ua *)(p + i * n) = v; }
#define VLOAD3_AS(T, AS) \
  OVL T##3 vload3(size_t i, const AS T *p) { p += i * 3; return (T##3)(p[0], p[1], p[2]); }
#define VSTORE3_AS(T, AS) \
  OVL void vstore3(T##3 v, size_t i, AS T *p) { p += i * 3; p[0] = v.s0; p[1] = v.s1; p[2] = v.s2; }

#ifdef KILN_GENERIC_AS
/* Compiled a second time as OpenCL C 3.0 with the generic address space
 * (meson.build), where Clang declares the __generic forms instead of the
 * __local, __private (and __global stores') ones: only those here. */
#define VLOADSTORE_N(T, n) \
  UNALIGNED(T, n) VLOAD_AS(T, n, __generic) VSTORE_AS(T, n, __generic)
#define VLOADSTORE(T) \
  VLOADSTORE_N(T, 2) VLOADSTORE_N(T, 4) VLOADSTORE_N(T, 8) VLOADSTORE_N(T, 16) \
  VLOAD3_AS(T, __generic) VSTORE3_AS(T, __generic)
#else
#define VLOADSTORE_N(T, n) \
  UNALIGNED(T, n) \
  VLOAD_AS(T, n, __global) VLOAD_AS(T, n, __local) VLOAD_AS(T, n, __constant) VLOAD_AS(T, n, __private) \
  VSTORE_AS(T, n, __global) VSTORE_AS(T, n, __local) VSTORE_AS(T, n, __private)

#define VLOADSTORE(T) \
  VLOADSTORE_N(T, 2) VLOADSTORE_N(T, 4) VLOADSTORE_N(T, 8) VLOADSTORE_N(T, 16) \
  VLOAD3_AS(T, __global) VLOAD3_AS(T, __local) VLOAD3_AS(T, __constant) VLOAD3_AS(T, __private) \
  VSTORE3_AS(T, __global) VSTORE3_AS(T, __local) VSTORE3_AS(T, __private)
#endif

VLOADSTORE(char)
VLOADSTORE(uchar)
VLOADSTORE(short)
VLOADSTORE(ushort)
VLOADSTORE(int)
VLOADSTORE(uint)
VLOADSTORE(long)
VLOADSTORE(ulong)
VLOADSTORE(float)
VLOADSTORE(double)
VLOADSTORE(half)
