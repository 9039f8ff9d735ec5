/* OpenCL C 3.0 §6.15.16 work-group collective functions and the
 * cl_khr_subgroups / __opencl_c_subgroups functions (§6.15.17, §6.15.3),
 * for Kiln's CPU device (docs/subgroups.md).
 *
 * A work-group runs as loops over its work-items on one thread, split at
 * barriers (src/llvm/cpu/wg_*.c).  A collective is therefore:
 *   1. each work-item stores its value in its slot of a scratch area,
 *      s[local linear id];
 *   2. barrier; work-item 0 combines the n slots: a scan in place, a
 *      reduction into s[n];
 *   3. barrier; each work-item reads its own slot or s[n].
 * The protocol keeps back-to-back collectives apart without a third
 * barrier: between barrier 2 of one collective and barrier 1 of the next,
 * a work-item touches only its own slot and reads s[n], and s[n] and the
 * other slots are written only between barriers 1 and 2 (by work-item 0).
 * That is also why the exclusive scan is computed as such in place rather
 * than read from a neighbour's inclusive result.
 *
 * The scratch area is __kiln_wg_scratch(), which the work-group pass
 * lowers (wg_work_item.c) to n + 1 eight-byte slots of the work-group
 * function's stack, n the size of this group (the last group of a
 * non-uniform launch is smaller).  Every function is always_inline: the
 * barriers must end up in the kernel's body, where the pass cuts regions.
 *
 * Sub-groups: a work-group is one sub-group, so every sub_group_*
 * function is its work_group_* twin and the queries are the group's; each
 * marks the kernel (__kiln_wg_sub_group) so that its work-groups, hence
 * its sub-groups, hold at most 128 work-items. */
#include "kiln_cl.h"

ulong *__kiln_wg_scratch(void);
/* Called by every sub-group function: the work-group pass then limits
 * the kernel's work-groups (one sub-group each) to
 * KILN_SUB_GROUP_MAX_ITEMS work-items (include/kiln/cpu_abi.h). */
void __kiln_wg_sub_group(void);

#define ALWAYS_INLINE static inline __attribute__((always_inline))
#define SCRATCH(T) ((T *)__kiln_wg_scratch())

ALWAYS_INLINE size_t group_items(void)
{
   return get_local_size(0) * get_local_size(1) * get_local_size(2);
}

ALWAYS_INLINE size_t enqueued_group_items(void)
{
   return get_enqueued_local_size(0) * get_enqueued_local_size(1) * get_enqueued_local_size(2);
}

#define OP_add(a, b) ((a) + (b))
#define OP_min(a, b) ((b) < (a) ? (b) : (a))
#define OP_max(a, b) ((b) > (a) ? (b) : (a))

/* T OPN(T x) for one type and operation; ID is the operation's identity,
 * which an exclusive scan gives the first work-item. */
#define COLLECTIVE(T, OPN, ID)                                                 \
   OVL_INLINE T work_group_reduce_##OPN(T x)                                   \
   {                                                                           \
      size_t i = get_local_linear_id();                                        \
      SCRATCH(T)[i] = x;                                                       \
      barrier(CLK_LOCAL_MEM_FENCE);                                            \
      if (i == 0) {                                                            \
         T *s = SCRATCH(T);                                                    \
         size_t n = group_items();                                             \
         T a = s[0];                                                           \
         for (size_t k = 1; k < n; k++)                                        \
            a = OP_##OPN(a, s[k]);                                             \
         s[n] = a;                                                             \
      }                                                                        \
      barrier(CLK_LOCAL_MEM_FENCE);                                            \
      return SCRATCH(T)[group_items()];                                        \
   }                                                                           \
   OVL_INLINE T work_group_scan_inclusive_##OPN(T x)                           \
   {                                                                           \
      size_t i = get_local_linear_id();                                        \
      SCRATCH(T)[i] = x;                                                       \
      barrier(CLK_LOCAL_MEM_FENCE);                                            \
      if (i == 0) {                                                            \
         T *s = SCRATCH(T);                                                    \
         size_t n = group_items();                                             \
         T a = s[0];                                                           \
         for (size_t k = 1; k < n; k++)                                        \
            s[k] = a = OP_##OPN(a, s[k]);                                      \
      }                                                                        \
      barrier(CLK_LOCAL_MEM_FENCE);                                            \
      return SCRATCH(T)[get_local_linear_id()];                                \
   }                                                                           \
   OVL_INLINE T work_group_scan_exclusive_##OPN(T x)                           \
   {                                                                           \
      size_t i = get_local_linear_id();                                        \
      SCRATCH(T)[i] = x;                                                       \
      barrier(CLK_LOCAL_MEM_FENCE);                                            \
      if (i == 0) {                                                            \
         T *s = SCRATCH(T);                                                    \
         size_t n = group_items();                                             \
         T a = ID;                                                             \
         for (size_t k = 0; k < n; k++) {                                      \
            T v = s[k];                                                        \
            s[k] = a;                                                          \
            a = OP_##OPN(a, v);                                                \
         }                                                                     \
      }                                                                        \
      barrier(CLK_LOCAL_MEM_FENCE);                                            \
      return SCRATCH(T)[get_local_linear_id()];                                \
   }                                                                           \
   OVL_INLINE T sub_group_reduce_##OPN(T x)                                    \
   {                                                                           \
      __kiln_wg_sub_group();                                                   \
      return work_group_reduce_##OPN(x);                                       \
   }                                                                           \
   OVL_INLINE T sub_group_scan_inclusive_##OPN(T x)                            \
   {                                                                           \
      __kiln_wg_sub_group();                                                   \
      return work_group_scan_inclusive_##OPN(x);                               \
   }                                                                           \
   OVL_INLINE T sub_group_scan_exclusive_##OPN(T x)                            \
   {                                                                           \
      __kiln_wg_sub_group();                                                   \
      return work_group_scan_exclusive_##OPN(x);                               \
   }

/* Broadcast: every work-item reads the source's slot between the two
 * barriers; the second keeps the next collective from overwriting a slot
 * another work-item has yet to read.  A source outside the group is
 * undefined behaviour; it reads slot 0 rather than past the area. */
#define BROADCAST(T)                                                           \
   ALWAYS_INLINE T broadcast_linear_##T(T x, size_t src, bool in_group)        \
   {                                                                           \
      SCRATCH(T)[get_local_linear_id()] = x;                                   \
      barrier(CLK_LOCAL_MEM_FENCE);                                            \
      T r = SCRATCH(T)[in_group ? src : 0];                                    \
      barrier(CLK_LOCAL_MEM_FENCE);                                            \
      return r;                                                                \
   }                                                                           \
   OVL_INLINE T work_group_broadcast(T x, size_t lx)                           \
   {                                                                           \
      return broadcast_linear_##T(x, lx, lx < group_items());                  \
   }                                                                           \
   OVL_INLINE T work_group_broadcast(T x, size_t lx, size_t ly)                \
   {                                                                           \
      return broadcast_linear_##T(x, ly * get_local_size(0) + lx,              \
                                  lx < get_local_size(0) && ly < get_local_size(1)); \
   }                                                                           \
   OVL_INLINE T work_group_broadcast(T x, size_t lx, size_t ly, size_t lz)     \
   {                                                                           \
      return broadcast_linear_##T(x, (lz * get_local_size(1) + ly) * get_local_size(0) + lx, \
                                  lx < get_local_size(0) && ly < get_local_size(1) && \
                                     lz < get_local_size(2));                  \
   }                                                                           \
   OVL_INLINE T sub_group_broadcast(T x, uint id)                              \
   {                                                                           \
      __kiln_wg_sub_group();                                                   \
      return broadcast_linear_##T(x, id, id < group_items());                  \
   }

#define FOR_TYPE(T, MIN, MAX)                                                  \
   COLLECTIVE(T, add, (T)0)                                                    \
   COLLECTIVE(T, min, MAX)                                                     \
   COLLECTIVE(T, max, MIN)                                                     \
   BROADCAST(T)

FOR_TYPE(int, INT_MIN, INT_MAX)
FOR_TYPE(uint, 0u, UINT_MAX)
FOR_TYPE(long, LONG_MIN, LONG_MAX)
FOR_TYPE(ulong, 0ul, ULONG_MAX)
FOR_TYPE(float, -INFINITY, INFINITY)
FOR_TYPE(double, -(double)INFINITY, (double)INFINITY)
#ifdef cl_khr_fp16
FOR_TYPE(half, -(half)INFINITY, (half)INFINITY)
#endif

/* all/any: the predicates in the slots, combined by work-item 0 into
 * s[n] as 0 or 1. */
#define VOTE(NAME, INIT, STOP)                                                 \
   OVL_INLINE int work_group_##NAME(int predicate)                             \
   {                                                                           \
      size_t i = get_local_linear_id();                                        \
      SCRATCH(int)[i] = predicate != 0;                                        \
      barrier(CLK_LOCAL_MEM_FENCE);                                            \
      if (i == 0) {                                                            \
         int *s = SCRATCH(int);                                                \
         size_t n = group_items();                                             \
         int r = INIT;                                                         \
         for (size_t k = 0; k < n; k++)                                        \
            if (s[k] == STOP)                                                  \
               r = STOP;                                                       \
         s[n] = r;                                                             \
      }                                                                        \
      barrier(CLK_LOCAL_MEM_FENCE);                                            \
      return SCRATCH(int)[group_items()];                                      \
   }                                                                           \
   OVL_INLINE int sub_group_##NAME(int predicate)                              \
   {                                                                           \
      __kiln_wg_sub_group();                                                   \
      return work_group_##NAME(predicate);                                     \
   }

VOTE(all, 1, 0)
VOTE(any, 0, 1)

/* ---- Sub-group queries: the work-group is the one sub-group ---- */

OVL uint get_sub_group_size(void)
{
   __kiln_wg_sub_group();
   return (uint)group_items();
}

/* The size of the sub-groups of a full group: invariant for the launch,
 * what clGetKernelSubGroupInfo's CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE
 * says for the same local size. */
OVL uint get_max_sub_group_size(void)
{
   __kiln_wg_sub_group();
   return (uint)enqueued_group_items();
}

OVL uint get_num_sub_groups(void)
{
   __kiln_wg_sub_group();
   return 1;
}

OVL uint get_enqueued_num_sub_groups(void)
{
   __kiln_wg_sub_group();
   return 1;
}

OVL uint get_sub_group_id(void)
{
   __kiln_wg_sub_group();
   return 0;
}

OVL uint get_sub_group_local_id(void)
{
   __kiln_wg_sub_group();
   return (uint)get_local_linear_id();
}

/* The sub-group is the work-group: its barrier is the group's. */
OVL_INLINE void sub_group_barrier(cl_mem_fence_flags flags)
{
   __kiln_wg_sub_group();
   barrier(flags);
}

OVL_INLINE void sub_group_barrier(cl_mem_fence_flags flags, memory_scope scope)
{
   __kiln_wg_sub_group();
   (void)scope;
   barrier(flags);
}
