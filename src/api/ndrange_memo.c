/* A kernel's last launch geometry that passed the launch checks
 * (api/ndrange_memo.h).  Its words: the device, work_dim with whether an
 * offset and a local size were given, the offset, global and given local
 * sizes (0 where absent), then the local size the launch got.  A sequence
 * lock (Boehm, "Can seqlocks get along with programming language memory
 * models?", 2012): the writer makes seq odd, a release fence, the words,
 * then seq even again with release; a reader loads seq with acquire, the
 * words, an acquire fence, and seq again, and trusts the words only when
 * both reads of seq are the same even value. */
#include "api/ndrange_memo.h"

#include <stdint.h>
#include <string.h>

#define KEY_WORDS 11

static void make_key(cl_device_id dev, cl_uint work_dim, const size_t *go, const size_t *gs,
                     const size_t *ls, uint64_t key[KEY_WORDS])
{
   memset(key, 0, KEY_WORDS * sizeof(*key));
   key[0] = (uint64_t)(uintptr_t)dev;
   key[1] = work_dim | (go ? 1u << 8 : 0) | (ls ? 1u << 9 : 0);
   for (cl_uint d = 0; d < work_dim && d < 3; d++) {
      key[2 + d] = go ? go[d] : 0;
      key[5 + d] = gs[d];
      key[8 + d] = ls ? ls[d] : 0;
   }
}

bool kiln_ndrange_memo_find(cl_kernel k, cl_device_id dev, cl_uint work_dim,
                            const size_t *global_work_offset, const size_t *global_work_size,
                            const size_t *local_work_size, size_t offset[3], size_t global[3],
                            size_t local[3])
{
   struct kiln_ndrange_memo *m = &k->ndrange_memo;
   unsigned s1 = atomic_load_explicit(&m->seq, memory_order_acquire);
   if (s1 & 1)
      return false;
#define W(i) atomic_load_explicit(&m->w[i], memory_order_relaxed)
   /* The words make_key would give, compared as they are read (an empty
    * memo never matches: its device word is 0); a mismatch read while a
    * writer was at work only misses. */
   const size_t *go = global_work_offset, *gs = global_work_size, *ls = local_work_size;
   if (W(0) != (uint64_t)(uintptr_t)dev ||
       W(1) != (work_dim | (go ? 1u << 8 : 0) | (ls ? 1u << 9 : 0)))
      return false;
   for (cl_uint d = 0; d < work_dim; d++)
      if (W(5 + d) != gs[d] || W(2 + d) != (go ? go[d] : 0) || W(8 + d) != (ls ? ls[d] : 0))
         return false;
   uint64_t l0 = W(KEY_WORDS), l1 = W(KEY_WORDS + 1), l2 = W(KEY_WORDS + 2);
#undef W
   atomic_thread_fence(memory_order_acquire);
   if (atomic_load_explicit(&m->seq, memory_order_relaxed) != s1)
      return false;
   local[0] = (size_t)l0;
   local[1] = (size_t)l1;
   local[2] = (size_t)l2;
   for (int d = 0; d < 3; d++) {
      bool in = (cl_uint)d < work_dim;
      offset[d] = in && go ? go[d] : 0;
      global[d] = in ? gs[d] : 1;
   }
   return true;
}

void kiln_ndrange_memo_keep(cl_kernel k, cl_device_id dev, cl_uint work_dim,
                            const size_t *global_work_offset, const size_t *global_work_size,
                            const size_t *local_work_size, const size_t local[3])
{
   struct kiln_ndrange_memo *m = &k->ndrange_memo;
   uint64_t key[KEY_WORDS];
   make_key(dev, work_dim, global_work_offset, global_work_size, local_work_size, key);
   unsigned s = atomic_load_explicit(&m->seq, memory_order_relaxed);
   if ((s & 1) || !atomic_compare_exchange_strong_explicit(&m->seq, &s, s + 1,
                                                           memory_order_relaxed,
                                                           memory_order_relaxed))
      return;
   atomic_thread_fence(memory_order_release);
   for (int i = 0; i < KEY_WORDS; i++)
      atomic_store_explicit(&m->w[i], key[i], memory_order_relaxed);
   for (int d = 0; d < 3; d++)
      atomic_store_explicit(&m->w[KEY_WORDS + d], local[d], memory_order_relaxed);
   atomic_store_explicit(&m->seq, s + 2, memory_order_release);
}
