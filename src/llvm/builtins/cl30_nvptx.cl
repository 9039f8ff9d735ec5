/* The OpenCL C 3.0 functions every 3.0 device has that libclc 19's nvptx
 * library lacks (it is OpenCL C 1.1's): the C11-style atomics of
 * §6.15.12 on __global and __local objects, atomic_work_item_fence,
 * work_group_barrier, ctz and the 2.0 work-item functions.  Compiled as
 * OpenCL C 3.0 with the CUDA device's feature macros (meson.build; the
 * device's caps are src/pipe/cuda/cuda_caps.h), so each definition gets
 * the mangled name of Clang's declaration; no generic address space (the
 * CUDA device does not offer it), so only the named-space overloads.
 *
 * Orders: LLVM 19's NVPTX code generator compiles relaxed atomics only
 * (atomicrmw and cmpxchg into atom.*, a relaxed atomic load or store
 * into ld.volatile/st.volatile); it silently drops a stronger order from
 * an atomicrmw and cannot select a fence or an acquire load or release
 * store at all.  So every operation here is the relaxed one, with the
 * order carried out by fences around it: a release (release, acq_rel,
 * seq_cst) is a fence before, an acquire (acquire, acq_rel, seq_cst) a
 * fence after.  The fence is membar.cta for work-item and work-group
 * scope and membar.gl for device scope (sm_70 on, PTX's fence.sc.cta and
 * fence.sc.gpu: at least the acq_rel fence the release and acquire
 * patterns of PTX's memory model need, and the sequentially consistent
 * one seq_cst needs; before sm_70, what CUDA's __threadfence_block and
 * __threadfence are).  The atom instructions themselves act at device
 * scope, which serves the work-group scope too.  All-devices scope would
 * need membar.sys and memory the host shares, which the CUDA device does
 * not report (no SVM): it is never declared for it. */
#include "kiln_cl.h"

#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable

#define RELAXED memory_order_relaxed
#define SC memory_order_seq_cst

static inline void scope_fence(memory_scope s)
{
   if (s == memory_scope_work_item || s == memory_scope_work_group)
      __nvvm_membar_cta();
   else if (s == memory_scope_device)
      __nvvm_membar_gl();
   else
      __nvvm_membar_sys();
}

static inline void fence_before(memory_order o, memory_scope s)
{
   if (o == memory_order_release || o == memory_order_acq_rel || o == SC)
      scope_fence(s);
}

static inline void fence_after(memory_order o, memory_scope s)
{
   if (o == memory_order_acquire || o == memory_order_acq_rel || o == SC)
      scope_fence(s);
}

/* The three forms of an operation: implicit seq_cst/device, explicit
 * order, explicit order and scope.  OP is the relaxed operation on p
 * (and v); its result, if any, is r. */
#define FORMS1(R, NAME, AS, A, DECL, OP, RET) \
  OVL R NAME##_explicit(volatile AS A *p, memory_order o, memory_scope s) { \
     fence_before(o, s); DECL OP; fence_after(o, s); RET } \
  OVL R NAME##_explicit(volatile AS A *p, memory_order o) { \
     return NAME##_explicit(p, o, memory_scope_device); } \
  OVL R NAME(volatile AS A *p) { return NAME##_explicit(p, SC, memory_scope_device); }
#define FORMS2(R, NAME, AS, A, T, DECL, OP, RET) \
  OVL R NAME##_explicit(volatile AS A *p, T v, memory_order o, memory_scope s) { \
     fence_before(o, s); DECL OP; fence_after(o, s); RET } \
  OVL R NAME##_explicit(volatile AS A *p, T v, memory_order o) { \
     return NAME##_explicit(p, v, o, memory_scope_device); } \
  OVL R NAME(volatile AS A *p, T v) { return NAME##_explicit(p, v, SC, memory_scope_device); }

/* compare_exchange: `expected` may be in any named space; the builtin
 * wants a private copy.  The success order's release half goes before;
 * after, the acquire half of the order the outcome picks. */
#define CMPXCHG(KIND, AS, A, T, EAS) \
  OVL bool atomic_compare_exchange_##KIND##_explicit(volatile AS A *p, EAS T *e, T d, memory_order so, \
                                                     memory_order fo, memory_scope s) { \
     T x = *e; \
     fence_before(so, s); \
     bool ok = __c11_atomic_compare_exchange_strong(p, &x, d, RELAXED, RELAXED); \
     fence_after(ok ? so : fo, s); \
     *e = x; return ok; } \
  OVL bool atomic_compare_exchange_##KIND##_explicit(volatile AS A *p, EAS T *e, T d, memory_order so, \
                                                     memory_order fo) { \
     return atomic_compare_exchange_##KIND##_explicit(p, e, d, so, fo, memory_scope_device); } \
  OVL bool atomic_compare_exchange_##KIND(volatile AS A *p, EAS T *e, T d) { \
     return atomic_compare_exchange_##KIND##_explicit(p, e, d, SC, SC, memory_scope_device); }

#define CMPXCHG_ALL(AS, A, T) \
  CMPXCHG(strong, AS, A, T, __global) CMPXCHG(strong, AS, A, T, __local) CMPXCHG(strong, AS, A, T, __private) \
  CMPXCHG(weak, AS, A, T, __global) CMPXCHG(weak, AS, A, T, __local) CMPXCHG(weak, AS, A, T, __private)

/* What every atomic type has: init, load, store, exchange, compare_exchange. */
#define COMMON(AS, A, T) \
  OVL void atomic_init(volatile AS A *p, T v) { __c11_atomic_init(p, v); } \
  FORMS2(void, atomic_store, AS, A, T, , __c11_atomic_store(p, v, RELAXED), ) \
  FORMS1(T, atomic_load, AS, A, T r =, __c11_atomic_load(p, RELAXED), return r;) \
  FORMS2(T, atomic_exchange, AS, A, T, T r =, __c11_atomic_exchange(p, v, RELAXED), return r;) \
  CMPXCHG_ALL(AS, A, T)

/* The integer types add the fetch-and-modify operations. */
#define FETCH(AS, A, T, OP) \
  FORMS2(T, atomic_fetch_##OP, AS, A, T, T r =, __c11_atomic_fetch_##OP(p, v, RELAXED), return r;)
#define INTEGER(AS, A, T) \
  COMMON(AS, A, T) \
  FETCH(AS, A, T, add) FETCH(AS, A, T, sub) FETCH(AS, A, T, or) FETCH(AS, A, T, xor) \
  FETCH(AS, A, T, and) FETCH(AS, A, T, min) FETCH(AS, A, T, max)

#define FLAG(AS) \
  FORMS1(bool, atomic_flag_test_and_set, AS, atomic_flag, int r =, \
         __c11_atomic_exchange(p, 1, RELAXED), return r != 0;) \
  FORMS1(void, atomic_flag_clear, AS, atomic_flag, , __c11_atomic_store(p, 0, RELAXED), )

/* atomic_fetch_add/sub(atomic_uintptr_t *, ptrdiff_t): atomic_uintptr_t
 * is atomic_ulong on 64-bit PTX; the same operation, signed operand. */
#define PTRDIFF(AS, OP) \
  FORMS2(ulong, atomic_fetch_##OP, AS, atomic_ulong, long, ulong r =, \
         __c11_atomic_fetch_##OP(p, (ulong)v, RELAXED), return r;)

#define PER_SPACE(AS) \
  INTEGER(AS, atomic_int, int) INTEGER(AS, atomic_uint, uint) \
  INTEGER(AS, atomic_long, long) INTEGER(AS, atomic_ulong, ulong) \
  PTRDIFF(AS, add) PTRDIFF(AS, sub) \
  COMMON(AS, atomic_float, float) COMMON(AS, atomic_double, double) \
  FLAG(AS)

PER_SPACE(__global)
PER_SPACE(__local)

/* Every memory space at once: membar orders them all, flags or not. */
OVL void atomic_work_item_fence(cl_mem_fence_flags flags, memory_order o, memory_scope s)
{
   (void)flags;
   if (o != RELAXED)
      scope_fence(s);
}

/* bar.sync orders the work-group's memory accesses among its work-items
 * (libclc's barrier); a wider scope also makes them visible to the
 * device before the work-group goes on. */
OVL void work_group_barrier(cl_mem_fence_flags flags, memory_scope scope)
{
   if (scope != memory_scope_work_item && scope != memory_scope_work_group && flags)
      scope_fence(scope);
   barrier(flags);
}

OVL void work_group_barrier(cl_mem_fence_flags flags)
{
   barrier(flags);
}

/* Uniform work-groups only (CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT is
 * false): every group has the enqueued size. */
OVL size_t get_enqueued_local_size(uint d)
{
   return get_local_size(d);
}

#include "linear_ids.h"

#include "ctz.h"
