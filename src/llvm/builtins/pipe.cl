/* OpenCL C 3.0 §6.15.15 pipe functions (__opencl_c_pipes) for Kiln's CPU
 * device (docs/kernels.md, "Pipes").
 *
 * Clang 19 lowers every pipe builtin to a call of a plain-named function
 * taking the pipe (a __global pointer: the pipe memory object's storage)
 * and the packet's size and alignment, e.g.
 *     read_pipe(p, &v)          -> __read_pipe_2(p, (generic)&v, size, align)
 *     read_pipe(p, r, i, &v)    -> __read_pipe_4(p, r, i, (generic)&v, size, align)
 *     reserve_read_pipe(p, n)   -> __reserve_read_pipe(p, n, size, align)
 *     work_group_commit_read_pipe(p, r) -> __work_group_commit_read_pipe(p, r, size, align)
 *     get_pipe_num_packets(p)   -> __get_pipe_num_packets_ro(p, size, align)
 * (_wo and the write forms alike); reserve_id_t is an opaque pointer.
 * The pipe's layout and the protocol are include/kiln/pipe_layout.h.
 *
 * Work-group and sub-group forms: a work-group runs as loops over its
 * work-items on one thread, split at barriers (src/llvm/cpu/wg_*.c), and
 * is one sub-group (docs/subgroups.md).  Work-item 0 makes the group's
 * one reservation and hands its id to the others through the
 * work-group's scratch area, between two barriers (the protocol of
 * collective.cl: the first barrier keeps the slot from being written
 * while another work-item still reads an earlier collective's value);
 * the commit waits at a barrier for every work-item's packets, then
 * work-item 0 commits.  These are always_inline so that the barriers end
 * up in the kernel's body, where the work-group pass cuts regions. */
#include "kiln_cl.h"
#include "kiln/pipe_layout.h"

typedef struct kiln_pipe_header header_t;
typedef __global header_t *pipe_ptr;

__private ulong *__kiln_wg_scratch(void);
void __kiln_wg_sub_group(void);

#define ALWAYS_INLINE __attribute__((always_inline))

/* ---- The lock and the counters ---- */

static void pipe_lock(pipe_ptr p)
{
   volatile __global atomic_uint *l = (volatile __global atomic_uint *)&p->lock;
   for (;;) {
      uint expected = 0;
      if (atomic_compare_exchange_weak_explicit(l, &expected, 1, memory_order_acquire,
                                                memory_order_relaxed, memory_scope_device))
         return;
      /* Wait without writing the line until the holder lets go. */
      while (atomic_load_explicit(l, memory_order_relaxed, memory_scope_device))
         __builtin_ia32_pause();
   }
}

static void pipe_unlock(pipe_ptr p)
{
   atomic_store_explicit((volatile __global atomic_uint *)&p->lock, 0, memory_order_release,
                         memory_scope_device);
}

static __global uchar *written_marks(pipe_ptr p)
{
   return (__global uchar *)(p + 1);
}

static __global uchar *read_marks(pipe_ptr p)
{
   return (__global uchar *)(p + 1) + p->max_packets;
}

static __global uchar *slot_at(pipe_ptr p, ulong slot)
{
   return (__global uchar *)p + KILN_PIPE_DATA_OFFSET(p->max_packets) + slot * p->packet_size;
}

static reserve_id_t make_id(ulong slot, uint n)
{
   return __builtin_astype(((ulong)n << 32) | slot, reserve_id_t);
}

static reserve_id_t no_id(void)
{
   return __builtin_astype(KILN_PIPE_NO_RESERVATION, reserve_id_t);
}

static ulong id_bits(reserve_id_t r)
{
   return __builtin_astype(r, ulong);
}

/* Under the lock: n slots from `first` (a packet number) for the writer,
 * or KILN_PIPE_NO_RESERVATION if they are not free. */
static ulong take_write(pipe_ptr p, uint n)
{
   if (!n || p->write_reserved + n - p->read_committed > p->max_packets)
      return KILN_PIPE_NO_RESERVATION;
   ulong first = p->write_reserved;
   p->write_reserved = first + n;
   return first;
}

static ulong take_read(pipe_ptr p, uint n)
{
   if (!n || p->write_committed - p->read_reserved < n)
      return KILN_PIPE_NO_RESERVATION;
   ulong first = p->read_reserved;
   p->read_reserved = first + n;
   return first;
}

/* Under the lock: marks n slots from `slot` done and moves *committed
 * past every done slot that follows it (up to `limit`, the other
 * counter of the same side).  A mark can only belong to the packet the
 * counter is waiting for: the slot is not reused before that packet has
 * gone all the way through (pipe_layout.h). */
static void mark_done(pipe_ptr p, __global uchar *marks, ulong slot, uint n,
                      __global ulong *committed, ulong limit)
{
   uint max = p->max_packets;
   for (uint k = 0; k < n; k++) {
      marks[slot] = 1;
      slot = slot + 1 == max ? 0 : slot + 1;
   }
   ulong c = *committed;
   while (c < limit && marks[c % max]) {
      marks[c % max] = 0;
      c++;
   }
   *committed = c;
}

/* ---- Packet copies (packet size and alignment are the kernel's
 * constants, so after inlining these are a few moves) ---- */

static void copy_packet(__generic uchar *dst, const __generic uchar *src, uint size, uint align)
{
   if (align % 4 == 0 && size % 4 == 0) {
      __generic uint *d = (__generic uint *)dst;
      const __generic uint *s = (const __generic uint *)src;
      for (uint i = 0; i < size / 4; i++)
         d[i] = s[i];
   } else {
      for (uint i = 0; i < size; i++)
         dst[i] = src[i];
   }
}

/* ---- One work-item ---- */

int __write_pipe_2(pipe_ptr p, const __generic void *data, uint size, uint align)
{
   pipe_lock(p);
   ulong first = take_write(p, 1);
   if (first == KILN_PIPE_NO_RESERVATION) {
      pipe_unlock(p);
      return -1;
   }
   ulong slot = first % p->max_packets;
   copy_packet(slot_at(p, slot), data, size, align);
   mark_done(p, written_marks(p), slot, 1, &p->write_committed, p->write_reserved);
   pipe_unlock(p);
   return 0;
}

int __read_pipe_2(pipe_ptr p, __generic void *data, uint size, uint align)
{
   pipe_lock(p);
   ulong first = take_read(p, 1);
   if (first == KILN_PIPE_NO_RESERVATION) {
      pipe_unlock(p);
      return -1;
   }
   ulong slot = first % p->max_packets;
   copy_packet(data, slot_at(p, slot), size, align);
   mark_done(p, read_marks(p), slot, 1, &p->read_committed, p->read_reserved);
   pipe_unlock(p);
   return 0;
}

reserve_id_t __reserve_write_pipe(pipe_ptr p, uint n, uint size, uint align)
{
   pipe_lock(p);
   ulong first = take_write(p, n);
   pipe_unlock(p);
   return first == KILN_PIPE_NO_RESERVATION ? no_id() : make_id(first % p->max_packets, n);
}

reserve_id_t __reserve_read_pipe(pipe_ptr p, uint n, uint size, uint align)
{
   pipe_lock(p);
   ulong first = take_read(p, n);
   pipe_unlock(p);
   return first == KILN_PIPE_NO_RESERVATION ? no_id() : make_id(first % p->max_packets, n);
}

/* The slot of packet `index` of reservation r, or -1 (an invalid id or an
 * index past the reservation: undefined, refused rather than written). */
static long reserved_slot(pipe_ptr p, reserve_id_t r, uint index)
{
   ulong bits = id_bits(r);
   if (bits == KILN_PIPE_NO_RESERVATION || index >= (uint)(bits >> 32))
      return -1;
   return (long)(((bits & 0xffffffffu) + index) % p->max_packets);
}

int __write_pipe_4(pipe_ptr p, reserve_id_t r, uint index, const __generic void *data, uint size,
                   uint align)
{
   long slot = reserved_slot(p, r, index);
   if (slot < 0)
      return -1;
   copy_packet(slot_at(p, (ulong)slot), data, size, align);
   return 0;
}

int __read_pipe_4(pipe_ptr p, reserve_id_t r, uint index, __generic void *data, uint size,
                  uint align)
{
   long slot = reserved_slot(p, r, index);
   if (slot < 0)
      return -1;
   copy_packet(data, slot_at(p, (ulong)slot), size, align);
   return 0;
}

void __commit_write_pipe(pipe_ptr p, reserve_id_t r, uint size, uint align)
{
   ulong bits = id_bits(r);
   if (bits == KILN_PIPE_NO_RESERVATION)
      return;
   pipe_lock(p);
   mark_done(p, written_marks(p), bits & 0xffffffffu, (uint)(bits >> 32), &p->write_committed,
             p->write_reserved);
   pipe_unlock(p);
}

void __commit_read_pipe(pipe_ptr p, reserve_id_t r, uint size, uint align)
{
   ulong bits = id_bits(r);
   if (bits == KILN_PIPE_NO_RESERVATION)
      return;
   pipe_lock(p);
   mark_done(p, read_marks(p), bits & 0xffffffffu, (uint)(bits >> 32), &p->read_committed,
             p->read_reserved);
   pipe_unlock(p);
}

OVL bool is_valid_reserve_id(reserve_id_t r)
{
   return id_bits(r) != KILN_PIPE_NO_RESERVATION;
}

/* ---- Queries ---- */

/* The packets in the pipe: written and committed, not yet taken by a
 * reader (§6.15.15.4: the value is stale as soon as it is read). */
static uint num_packets(pipe_ptr p)
{
   pipe_lock(p);
   ulong n = p->write_committed - p->read_reserved;
   pipe_unlock(p);
   return (uint)n;
}

uint __get_pipe_num_packets_ro(pipe_ptr p, uint size, uint align)
{
   return num_packets(p);
}

uint __get_pipe_num_packets_wo(pipe_ptr p, uint size, uint align)
{
   return num_packets(p);
}

uint __get_pipe_max_packets_ro(pipe_ptr p, uint size, uint align)
{
   return p->max_packets;
}

uint __get_pipe_max_packets_wo(pipe_ptr p, uint size, uint align)
{
   return p->max_packets;
}

/* ---- Work-group and sub-group reservations (see the top) ---- */

ALWAYS_INLINE static reserve_id_t group_reserve(pipe_ptr p, uint n, bool write)
{
   size_t items = get_local_size(0) * get_local_size(1) * get_local_size(2);
   __private ulong *s = __kiln_wg_scratch();
   barrier(CLK_GLOBAL_MEM_FENCE);
   if (get_local_linear_id() == 0) {
      pipe_lock(p);
      ulong first = write ? take_write(p, n) : take_read(p, n);
      pipe_unlock(p);
      s[items] = first == KILN_PIPE_NO_RESERVATION ? KILN_PIPE_NO_RESERVATION
                                                   : ((ulong)n << 32) | (first % p->max_packets);
   }
   barrier(CLK_GLOBAL_MEM_FENCE);
   return __builtin_astype(s[items], reserve_id_t);
}

ALWAYS_INLINE static void group_commit(pipe_ptr p, reserve_id_t r, bool write)
{
   barrier(CLK_GLOBAL_MEM_FENCE);
   if (get_local_linear_id() == 0) {
      if (write)
         __commit_write_pipe(p, r, 0, 0);
      else
         __commit_read_pipe(p, r, 0, 0);
   }
}

ALWAYS_INLINE reserve_id_t __work_group_reserve_write_pipe(pipe_ptr p, uint n, uint size,
                                                           uint align)
{
   return group_reserve(p, n, true);
}

ALWAYS_INLINE reserve_id_t __work_group_reserve_read_pipe(pipe_ptr p, uint n, uint size,
                                                          uint align)
{
   return group_reserve(p, n, false);
}

ALWAYS_INLINE void __work_group_commit_write_pipe(pipe_ptr p, reserve_id_t r, uint size,
                                                  uint align)
{
   group_commit(p, r, true);
}

ALWAYS_INLINE void __work_group_commit_read_pipe(pipe_ptr p, reserve_id_t r, uint size,
                                                 uint align)
{
   group_commit(p, r, false);
}

ALWAYS_INLINE reserve_id_t __sub_group_reserve_write_pipe(pipe_ptr p, uint n, uint size,
                                                          uint align)
{
   __kiln_wg_sub_group();
   return group_reserve(p, n, true);
}

ALWAYS_INLINE reserve_id_t __sub_group_reserve_read_pipe(pipe_ptr p, uint n, uint size,
                                                         uint align)
{
   __kiln_wg_sub_group();
   return group_reserve(p, n, false);
}

ALWAYS_INLINE void __sub_group_commit_write_pipe(pipe_ptr p, reserve_id_t r, uint size,
                                                 uint align)
{
   __kiln_wg_sub_group();
   group_commit(p, r, true);
}

ALWAYS_INLINE void __sub_group_commit_read_pipe(pipe_ptr p, reserve_id_t r, uint size,
                                                uint align)
{
   __kiln_wg_sub_group();
   group_commit(p, r, false);
}
