/* The software winsys: device memory is host memory. */
#ifndef KILN_WINSYS_SW_H
#define KILN_WINSYS_SW_H

#include <stddef.h>
#include <stdint.h>

/* Aligned host allocation for buffer storage, padded to a multiple of
 * alignment (a power of two); NULL when out of memory. */
void *sw_winsys_alloc(size_t size, size_t alignment);
void sw_winsys_free(void *ptr);

/* The same for buffer storage, which goes through the cache of released
 * buffers (sw_buffer_cache.h): *capacity receives the bytes the block
 * holds (size padded, or a kept block's larger size), which
 * sw_winsys_buffer_free wants back with the same alignment. */
void *sw_winsys_buffer_alloc(size_t size, size_t alignment, size_t *capacity);
void sw_winsys_buffer_free(void *ptr, size_t capacity, size_t alignment);

/* Physical memory of the machine in bytes (what the CPU device can use). */
uint64_t sw_winsys_total_memory(void);

#endif
