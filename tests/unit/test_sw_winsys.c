/* The software winsys's buffer storage: aligned and padded to a whole
 * number of its alignment (src/winsys/sw/sw_winsys.c). */
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

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

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(padded_to_alignment),
      cmocka_unit_test(huge_buffers_on_huge_page_boundaries),
      cmocka_unit_test(overflowing_size_fails),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
