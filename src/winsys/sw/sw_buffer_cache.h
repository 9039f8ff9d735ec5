/* Storage of released buffers, kept for a while for the next buffer of
 * about the same size (docs/design.md, "Buffer storage cache").
 *
 * Programs that allocate a temporary per operation (pyopencl's arrays:
 * `c = a + b` makes a new buffer every time) would otherwise get fresh
 * memory from the C library for each one: large blocks go back to the
 * kernel when freed, and each new one costs a page fault and the
 * kernel's zeroing per page, several times what the kernel that fills it
 * takes.  Only blocks of at least SW_BUFFER_CACHE_MIN bytes are kept;
 * smaller ones stay with malloc's own free lists. */
#ifndef KILN_WINSYS_SW_BUFFER_CACHE_H
#define KILN_WINSYS_SW_BUFFER_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#define SW_BUFFER_CACHE_MIN ((size_t)256 << 10)

/* A kept block of capacity at least size and at most a quarter more,
 * aligned to alignment, taken out of the cache; NULL when there is none.
 * *capacity receives its size. */
void *sw_buffer_cache_take(size_t size, size_t alignment, size_t *capacity);

/* Keeps ptr (capacity bytes, aligned to alignment) for reuse; false when
 * the cache does not take it (too small, larger than the cache's limit,
 * the cache off), and then the caller frees it. */
bool sw_buffer_cache_put(void *ptr, size_t capacity, size_t alignment);

/* Frees every kept block (an allocation failed: the memory is wanted). */
void sw_buffer_cache_drop_all(void);

#endif
