/* The software winsys's buffer storage: aligned and padded to a whole
 * number of its alignment (src/winsys/sw/sw_winsys.c), and the cache of
 * released buffers (sw_buffer_cache.c), here with KILN_BUFFER_CACHE_MB=4. */
#include <malloc.h>
#include <stdlib.h>
#include <time.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "winsys/sw/sw_buffer_cache.h"
#include "winsys/sw/sw_winsys.h"

static void padded_to_alignment(void **state)
{
   (void)state;
   static const size_t sizes[] = {1, 32, 72, 127, 128, 129, 1000, 4096 + 8};
   for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
      unsigned char *p = sw_winsys_alloc(sizes[i], 128);
      assert_non_null(p);
      assert_int_equal((uintptr_t)p % 128, 0);
      size_t padded = (sizes[i] + 127) & ~(size_t)127;
      /* glibc's usable size covers what was asked for; writing all of it
       * is what ASan checks in the sanitizer run. */
      assert_true(malloc_usable_size(p) >= padded);
      memset(p, 0x5a, padded);
      sw_winsys_free(p);
   }
}

static void huge_buffers_on_huge_page_boundaries(void **state)
{
   (void)state;
   size_t size = (8u << 20) + 3;
   unsigned char *p = sw_winsys_alloc(size, 128);
   assert_non_null(p);
   assert_int_equal((uintptr_t)p % (2u << 20), 0);
   assert_true(malloc_usable_size(p) >= ((size + 127) & ~(size_t)127));
   sw_winsys_free(p);
}

/* A size that padding would wrap to a small one fails instead.  ASan's
 * allocator aborts on such a request rather than returning NULL. */
static void overflowing_size_fails(void **state)
{
   (void)state;
#ifdef __SANITIZE_ADDRESS__
   skip();
#else
   assert_null(sw_winsys_alloc(SIZE_MAX - 16, 128));
#endif
}

#define MIB ((size_t)1 << 20)

/* A released buffer's block comes back for the next buffer of its size,
 * or up to a quarter smaller; not for a larger one, nor one so much
 * smaller that a quarter of the block would be wasted. */
static void released_block_reused_for_a_similar_size(void **state)
{
   (void)state;
   size_t cap = 0, cap2 = 0;
   void *p = sw_winsys_buffer_alloc(MIB, 128, &cap);
   assert_non_null(p);
   assert_int_equal(cap, MIB);
   memset(p, 1, cap);
   sw_winsys_buffer_free(p, cap, 128);
   void *big = sw_winsys_buffer_alloc(MIB + 4096, 128, &cap2);
   assert_ptr_not_equal(big, p);
   void *half = sw_winsys_buffer_alloc(MIB / 2, 128, &cap2);
   assert_ptr_not_equal(half, p);
   size_t cap3 = 0;
   void *q = sw_winsys_buffer_alloc(MIB - MIB / 8, 128, &cap3);
   assert_ptr_equal(q, p);
   assert_int_equal(cap3, MIB);
   sw_winsys_buffer_free(half, MIB / 2, 128);
   sw_winsys_buffer_free(big, MIB + 4096, 128);
   sw_winsys_buffer_free(q, cap3, 128);
   sw_buffer_cache_drop_all();
}

/* Blocks are kept for their alignment only; small ones not at all. */
static void alignment_and_size_rules(void **state)
{
   (void)state;
   size_t cap = 0;
   void *p = sw_winsys_buffer_alloc(MIB, 128, &cap);
   sw_winsys_buffer_free(p, cap, 128);
   assert_null(sw_buffer_cache_take(MIB, 4096, &cap));
   assert_ptr_equal(sw_buffer_cache_take(MIB, 128, &cap), p);
   assert_false(sw_buffer_cache_put(p, SW_BUFFER_CACHE_MIN - 128, 128));
   sw_winsys_free(p);
}

/* KILN_BUFFER_CACHE_MB=4: a block over the limit is not kept, and
 * keeping one more pushes the oldest out. */
static void limit_keeps_the_newest(void **state)
{
   (void)state;
   void *big = malloc(5 * MIB);
   assert_false(sw_buffer_cache_put(big, 5 * MIB, 128));
   free(big);
   void *a = malloc(3 * MIB), *b = malloc(3 * MIB);
   assert_true(sw_buffer_cache_put(a, 3 * MIB, 128));
   assert_true(sw_buffer_cache_put(b, 3 * MIB, 128)); /* a is freed */
   size_t cap = 0;
   assert_ptr_equal(sw_buffer_cache_take(3 * MIB, 128, &cap), b);
   assert_null(sw_buffer_cache_take(3 * MIB, 128, &cap));
   free(b);
}

/* A block nobody took within a second is freed at the next use, and
 * drop_all frees everything. */
static void old_blocks_expire(void **state)
{
   (void)state;
   size_t cap = 0;
   void *a = malloc(MIB);
   assert_true(sw_buffer_cache_put(a, MIB, 128));
   nanosleep(&(struct timespec){1, 100000000}, NULL);
   assert_null(sw_buffer_cache_take(MIB, 128, &cap));
   void *b = malloc(MIB);
   assert_true(sw_buffer_cache_put(b, MIB, 128));
   sw_buffer_cache_drop_all();
   assert_null(sw_buffer_cache_take(MIB, 128, &cap));
}

int main(void)
{
   setenv("KILN_BUFFER_CACHE_MB", "4", 1);
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(padded_to_alignment),
      cmocka_unit_test(huge_buffers_on_huge_page_boundaries),
      cmocka_unit_test(overflowing_size_fails),
      cmocka_unit_test(released_block_reused_for_a_similar_size),
      cmocka_unit_test(alignment_and_size_rules),
      cmocka_unit_test(limit_keeps_the_newest),
      cmocka_unit_test(old_blocks_expire),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
