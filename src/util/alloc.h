/* Kiln's host allocations.  Every buffer Kiln allocates and frees itself
 * goes through these (memory LLVM hands out stays LLVM's: free it with
 * LLVM's dispose functions).  They behave exactly as the C library's.
 *
 * They are out-of-line functions on purpose: the fault-injection unit test
 * (tests/unit/test_faults.c, docs/testing.md) links Kiln statically with
 * -Wl,--wrap for each of them, to make any chosen allocation fail and to
 * count live allocations.  The library itself carries no hook: in a
 * production build each is a call to its libc counterpart.  A pointer from
 * one of these must be freed with kiln_free, and only such pointers may be:
 * the test's live count relies on it. */
#ifndef KILN_UTIL_ALLOC_H
#define KILN_UTIL_ALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void *kiln_malloc(size_t size);
void *kiln_calloc(size_t count, size_t size);
/* As realloc, but size 0 is not a free: it asks for a 1-byte block. */
void *kiln_realloc(void *ptr, size_t size);
char *kiln_strdup(const char *s);
char *kiln_strndup(const char *s, size_t n);
/* alignment: a power of two; raised to sizeof(void *) when smaller. */
void *kiln_aligned_alloc(size_t alignment, size_t size);
void kiln_free(void *ptr);

#ifdef __cplusplus
}
#endif

#endif
