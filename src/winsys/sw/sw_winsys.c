#include "winsys/sw/sw_winsys.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/alloc.h"
#include "winsys/sw/sw_buffer_cache.h"

/* Buffers this large go on transparent huge pages where the kernel
 * offers them on request (THP "madvise" mode, the usual default): kernels
 * stream through them, and 2 MiB pages take the TLB misses out of that. */
#define HUGE_PAGE (2u << 20)
#define HUGE_MIN (4u * HUGE_PAGE)

static size_t padded(size_t size, size_t alignment)
{
   if (alignment > 1 && !(alignment & (alignment - 1)) && size <= SIZE_MAX - alignment)
      size = (size + alignment - 1) & ~(alignment - 1);
   return size;
}

/* Storage is padded to a whole number of its alignment (the device's
 * CL_DEVICE_MEM_BASE_ADDR_ALIGN, 128 bytes: a pair of cache lines, which
 * Intel's adjacent-line prefetcher fetches together).  No two buffers
 * then share a line pair: workers writing neighbouring small buffers do
 * not contend for lines, and a kernel that writes a little past a small
 * buffer's end, which GPUs (whose allocations are coarser) let pass,
 * lands in padding instead of the allocator's metadata. */
void *sw_winsys_alloc(size_t size, size_t alignment)
{
   bool huge = size >= HUGE_MIN && alignment <= HUGE_PAGE;
   size = padded(size, alignment);
   void *p = kiln_aligned_alloc(huge ? HUGE_PAGE : alignment, size);
#ifdef MADV_HUGEPAGE
   if (p && huge)
      madvise(p, size & ~(size_t)(HUGE_PAGE - 1), MADV_HUGEPAGE); /* a hint: errors are harmless */
#endif
   return p;
}

void sw_winsys_free(void *ptr)
{
   kiln_free(ptr);
}

void *sw_winsys_buffer_alloc(size_t size, size_t alignment, size_t *capacity)
{
   size = padded(size, alignment);
   void *p = sw_buffer_cache_take(size, alignment, capacity);
   if (p)
      return p;
   p = sw_winsys_alloc(size, alignment);
   if (!p) {
      /* What the cache keeps may be what is missing. */
      sw_buffer_cache_drop_all();
      p = sw_winsys_alloc(size, alignment);
   }
   *capacity = size;
   return p;
}

void sw_winsys_buffer_free(void *ptr, size_t capacity, size_t alignment)
{
   if (ptr && !sw_buffer_cache_put(ptr, capacity, alignment))
      kiln_free(ptr);
}

uint64_t sw_winsys_total_memory(void)
{
   long pages = sysconf(_SC_PHYS_PAGES);
   long page = sysconf(_SC_PAGESIZE);
   if (pages <= 0 || page <= 0)
      return 1ull << 30; /* sysconf cannot fail on Linux; be safe anyway */
   return (uint64_t)pages * (uint64_t)page;
}
