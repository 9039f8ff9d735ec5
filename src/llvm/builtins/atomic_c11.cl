/* OpenCL C 2.0/3.0 §6.15.12 C11-style atomics, for __global and __local
 * objects, and atomic_work_item_fence.  A 3.0 program compiled without the
 * generic address space sees Clang's named-address-space overloads
 * (__opencl_c_named_address_space_builtins); one with it (the CPU device
 * has it since 2026-11-26) sees the __generic ones instead, which this file
 * defines when compiled a second time with KILN_GENERIC_AS (meson.build).
 * The bodies are the same: every space is the host's flat memory.
 *
 * Compiled as OpenCL C 3.0 with the CPU device's feature macros
 * (meson.build), so each definition gets the mangled name of Clang's
 * declaration, e.g. _Z16atomic_fetch_addPU8CLglobalVU7_Atomicii.
 *
 * Every order the caller passes is honoured (Clang turns a non-constant
 * order into a switch over the valid ones).  Scopes are not needed: the
 * work-items of one work-group run on one thread, and every other scope is
 * carried out at system scope, the strongest, which also serves
 * memory_scope_all_devices. */
#include "kiln_cl.h"

#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable

#define SC memory_order_seq_cst

/* The three forms of an operation: implicit seq_cst/device, explicit order,
 * explicit order and scope.  BODY uses p, v (if any) and o (the order). */
#define FORMS1(R, NAME, AS, A, BODY) \
  OVL R NAME##_explicit(volatile AS A *p, memory_order o, memory_scope s) { (void)s; BODY } \
  OVL R NAME##_explicit(volatile AS A *p, memory_order o) { return NAME##_explicit(p, o, memory_scope_device); } \
  OVL R NAME(volatile AS A *p) { return NAME##_explicit(p, SC, memory_scope_device); }
#define FORMS2(R, NAME, AS, A, T, BODY) \
  OVL R NAME##_explicit(volatile AS A *p, T v, memory_order o, memory_scope s) { (void)s; BODY } \
  OVL R NAME##_explicit(volatile AS A *p, T v, memory_order o) { return NAME##_explicit(p, v, o, memory_scope_device); } \
  OVL R NAME(volatile AS A *p, T v) { return NAME##_explicit(p, v, SC, memory_scope_device); }

/* compare_exchange: `expected` may be in any named space.  The builtin
 * wants both pointers in one space, so it works on a private copy. */
#define CMPXCHG(KIND, AS, A, T, EAS) \
  OVL bool atomic_compare_exchange_##KIND##_explicit(volatile AS A *p, EAS T *e, T d, memory_order so, \
                                                     memory_order fo, memory_scope s) { \
     (void)s; T x = *e; \
     bool ok = __c11_atomic_compare_exchange_##KIND(p, &x, d, so, fo); \
     *e = x; return ok; } \
  OVL bool atomic_compare_exchange_##KIND##_explicit(volatile AS A *p, EAS T *e, T d, memory_order so, \
                                                     memory_order fo) { \
     return atomic_compare_exchange_##KIND##_explicit(p, e, d, so, fo, memory_scope_device); } \
  OVL bool atomic_compare_exchange_##KIND(volatile AS A *p, EAS T *e, T d) { \
     return atomic_compare_exchange_##KIND##_explicit(p, e, d, SC, SC, memory_scope_device); }

#ifdef KILN_GENERIC_AS
#define CMPXCHG_ALL(AS, A, T) CMPXCHG(strong, AS, A, T, __generic) CMPXCHG(weak, AS, A, T, __generic)
#else
#define CMPXCHG_ALL(AS, A, T) \
  CMPXCHG(strong, AS, A, T, __global) CMPXCHG(strong, AS, A, T, __local) CMPXCHG(strong, AS, A, T, __private) \
  CMPXCHG(weak, AS, A, T, __global) CMPXCHG(weak, AS, A, T, __local) CMPXCHG(weak, AS, A, T, __private)
#endif

/* What every atomic type has: init, load, store, exchange, compare_exchange. */
#define COMMON(AS, A, T) \
  OVL void atomic_init(volatile AS A *p, T v) { __c11_atomic_init(p, v); } \
  FORMS2(void, atomic_store, AS, A, T, __c11_atomic_store(p, v, o);) \
  FORMS1(T, atomic_load, AS, A, return __c11_atomic_load(p, o);) \
  FORMS2(T, atomic_exchange, AS, A, T, return __c11_atomic_exchange(p, v, o);) \
  CMPXCHG_ALL(AS, A, T)

/* The integer types add the fetch-and-modify operations. */
#define FETCH(AS, A, T, OP) FORMS2(T, atomic_fetch_##OP, AS, A, T, return __c11_atomic_fetch_##OP(p, v, o);)
#define INTEGER(AS, A, T) \
  COMMON(AS, A, T) \
  FETCH(AS, A, T, add) FETCH(AS, A, T, sub) FETCH(AS, A, T, or) FETCH(AS, A, T, xor) \
  FETCH(AS, A, T, and) FETCH(AS, A, T, min) FETCH(AS, A, T, max)

#define FLAG(AS) \
  FORMS1(bool, atomic_flag_test_and_set, AS, atomic_flag, return __c11_atomic_exchange(p, 1, o) != 0;) \
  FORMS1(void, atomic_flag_clear, AS, atomic_flag, __c11_atomic_store(p, 0, o);)

/* atomic_fetch_add/sub(atomic_uintptr_t *, ptrdiff_t): atomic_uintptr_t is
 * atomic_ulong here; the same operation with a signed operand. */
#define PTRDIFF(AS, OP) \
  FORMS2(ulong, atomic_fetch_##OP, AS, atomic_ulong, long, return __c11_atomic_fetch_##OP(p, (ulong)v, o);)

#define PER_SPACE(AS) \
  INTEGER(AS, atomic_int, int) INTEGER(AS, atomic_uint, uint) \
  INTEGER(AS, atomic_long, long) INTEGER(AS, atomic_ulong, ulong) \
  PTRDIFF(AS, add) PTRDIFF(AS, sub) \
  COMMON(AS, atomic_float, float) COMMON(AS, atomic_double, double) \
  FLAG(AS)

#ifdef KILN_GENERIC_AS
PER_SPACE(__generic)
#else
PER_SPACE(__global)
PER_SPACE(__local)

OVL void atomic_work_item_fence(cl_mem_fence_flags flags, memory_order o, memory_scope s)
{
   (void)flags;
   /* A work-group's work-items share one thread: nothing to order there. */
   if (s == memory_scope_work_item || s == memory_scope_work_group)
      __c11_atomic_signal_fence(o);
   else
      __c11_atomic_thread_fence(o);
}
#endif
