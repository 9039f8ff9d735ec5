/* §6.11.11 atomic_* functions on 32-bit global and local integers, and the
 * cl_khr_{global,local}_int32_{base,extended}_atomics and
 * cl_khr_int64_{base,extended}_atomics atom_* names (also 64-bit).
 *
 * Clang's __atomic builtins become atomicrmw/cmpxchg instructions (lock
 * xadd, lock cmpxchg, ...).  OpenCL 1.1 atomics promise only atomicity,
 * but seq_cst costs nothing more for read-modify-write on x86 and keeps the
 * compiler from moving plain accesses across them, which kernels that
 * build locks out of atomics rely on in practice. */
#include "kiln_cl.h"

#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable

#define SC __ATOMIC_SEQ_CST

#define ATOMICS(P, T, AS) \
  OVL T P##_add(volatile AS T *p, T v) { return __atomic_fetch_add(p, v, SC); } \
  OVL T P##_sub(volatile AS T *p, T v) { return __atomic_fetch_sub(p, v, SC); } \
  OVL T P##_xchg(volatile AS T *p, T v) { return __atomic_exchange_n(p, v, SC); } \
  OVL T P##_inc(volatile AS T *p) { return __atomic_fetch_add(p, (T)1, SC); } \
  OVL T P##_dec(volatile AS T *p) { return __atomic_fetch_sub(p, (T)1, SC); } \
  OVL T P##_cmpxchg(volatile AS T *p, T cmp, T v) { \
     /* On failure the builtin stores the current value into cmp, so cmp is \
      * the old value either way. */ \
     __atomic_compare_exchange_n(p, &cmp, v, false, SC, SC); \
     return cmp; } \
  OVL T P##_min(volatile AS T *p, T v) { return __atomic_fetch_min(p, v, SC); } \
  OVL T P##_max(volatile AS T *p, T v) { return __atomic_fetch_max(p, v, SC); } \
  OVL T P##_and(volatile AS T *p, T v) { return __atomic_fetch_and(p, v, SC); } \
  OVL T P##_or(volatile AS T *p, T v) { return __atomic_fetch_or(p, v, SC); } \
  OVL T P##_xor(volatile AS T *p, T v) { return __atomic_fetch_xor(p, v, SC); }

#define ATOMICS_AS(P, T) ATOMICS(P, T, __global) ATOMICS(P, T, __local)

ATOMICS_AS(atomic, int)
ATOMICS_AS(atomic, uint)
ATOMICS_AS(atom, int)
ATOMICS_AS(atom, uint)
ATOMICS_AS(atom, long)
ATOMICS_AS(atom, ulong)

/* atomic_xchg also exists for float: exchange the bit pattern. */
#define XCHG_F(AS) \
  OVL float atomic_xchg(volatile AS float *p, float v) { \
     return as_float(__atomic_exchange_n((volatile AS uint *)p, as_uint(v), SC)); }
XCHG_F(__global)
XCHG_F(__local)
