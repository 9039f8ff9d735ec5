#include "winsys/sw/sw_winsys.h"

#include <unistd.h>

#include "util/alloc.h"

void *sw_winsys_alloc(size_t size, size_t alignment)
{
   return kiln_aligned_alloc(alignment, size);
}

void sw_winsys_free(void *ptr)
{
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
