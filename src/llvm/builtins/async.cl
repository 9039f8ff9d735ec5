/* §6.11.10 async_work_group_copy, async_work_group_strided_copy and
 * prefetch.
 *
 * Every work-item of the group calls the copy with the same arguments; each
 * copies the elements i = lid, lid + lsz, ... (lid: its flattened local id,
 * lsz: the group size), so together they copy everything and the copy is
 * spread evenly.  Completion is wait_group_events' barrier (wait.cl), so the
 * returned event carries nothing: the caller's event is handed back.
 *
 * always_inline: get_local_id/get_local_size are replaced by Kiln's
 * work-group pass only inside kernels, so these bodies must be in the
 * kernel when that pass runs. */
#include "kiln_cl.h"

#define LOCAL_SPREAD \
  size_t lid = get_local_id(0) + get_local_size(0) * \
               (get_local_id(1) + get_local_size(1) * get_local_id(2)); \
  size_t lsz = get_local_size(0) * get_local_size(1) * get_local_size(2);

#define ASYNC(T) \
  OVL_INLINE event_t async_work_group_copy(__local T *dst, const __global T *src, size_t n, event_t e) { \
     LOCAL_SPREAD \
     for (size_t i = lid; i < n; i += lsz) dst[i] = src[i]; \
     return e; } \
  OVL_INLINE event_t async_work_group_copy(__global T *dst, const __local T *src, size_t n, event_t e) { \
     LOCAL_SPREAD \
     for (size_t i = lid; i < n; i += lsz) dst[i] = src[i]; \
     return e; } \
  OVL_INLINE event_t async_work_group_strided_copy(__local T *dst, const __global T *src, size_t n, \
                                                   size_t stride, event_t e) { \
     LOCAL_SPREAD \
     for (size_t i = lid; i < n; i += lsz) dst[i] = src[i * stride]; \
     return e; } \
  OVL_INLINE event_t async_work_group_strided_copy(__global T *dst, const __local T *src, size_t n, \
                                                   size_t stride, event_t e) { \
     LOCAL_SPREAD \
     for (size_t i = lid; i < n; i += lsz) dst[i * stride] = src[i]; \
     return e; } \
  /* A hint only; the CPU's own prefetchers do better than a guess. */ \
  OVL void prefetch(const __global T *p, size_t n) { (void)p; (void)n; }

#ifdef KILN_ASYNC_VEC3_ONLY
/* For NVIDIA GPUs (meson.build): libclc 19 has every form but the
 * 3-component ones, which a kernel then could not call. */
#define ASYNC_ALL(T) ASYNC(T##3)
#else
#define ASYNC_ALL(T) ASYNC(T) ASYNC(T##2) ASYNC(T##3) ASYNC(T##4) ASYNC(T##8) ASYNC(T##16)
#endif
ASYNC_ALL(char)
ASYNC_ALL(uchar)
ASYNC_ALL(short)
ASYNC_ALL(ushort)
ASYNC_ALL(int)
ASYNC_ALL(uint)
ASYNC_ALL(long)
ASYNC_ALL(ulong)
ASYNC_ALL(float)
ASYNC_ALL(double)
#ifndef KILN_ASYNC_VEC3_ONLY
/* cl_khr_fp16: the CPU device only (the NVIDIA one has no half). */
ASYNC_ALL(half)
#endif
