/* core/program_cache.c's key: the same build gives the same key, and a
 * change to anything the build depends on gives another. */
#include "kiln_test.h"

#include "core/program_cache.h"
#include "llvm/compiler.h"

static void key(const char *src, size_t n, const char *options,
                const struct kiln_compile_target *t, unsigned char out[32])
{
   assert_true(kiln_program_cache_key(src, n, options, t, out));
}

static void test_key(void **state)
{
   (void)state;
   const char *src = "__kernel void k(__global int *o) { o[0] = 1; }";
   size_t n = strlen(src);
   struct kiln_compile_target t = {.ir = "cpu", .processor = "", .opencl_version = 110,
                                   .image_support = true, .cl_ext = "-all,+cl_khr_fp64"};
   unsigned char base[32], again[32], other[32];
   key(src, n, "-DA=1", &t, base);
   key(src, n, "-DA=1", &t, again);
   assert_memory_equal(base, again, 32);

   /* Each change alone. */
   key(src, n - 1, "-DA=1", &t, other);
   assert_memory_not_equal(base, other, 32);
   key(src, n, "-DA=2", &t, other);
   assert_memory_not_equal(base, other, 32);
   key(src, n, "-DA=1 ", &t, other); /* the options' bytes, spacing too */
   assert_memory_not_equal(base, other, 32);
   key(src, n, "", &t, other);
   assert_memory_not_equal(base, other, 32);
   struct kiln_compile_target u = t;
   u.bounds_check = true;
   key(src, n, "-DA=1", &u, other);
   assert_memory_not_equal(base, other, 32);
   u = t;
   u.image_support = false;
   key(src, n, "-DA=1", &u, other);
   assert_memory_not_equal(base, other, 32);
   u = t;
   u.opencl_version = 120;
   key(src, n, "-DA=1", &u, other);
   assert_memory_not_equal(base, other, 32);
   u = t;
   u.cl_ext = "-all";
   key(src, n, "-DA=1", &u, other);
   assert_memory_not_equal(base, other, 32);
   /* The device's own target: another family, and another processor of
    * one family (two GPUs never share an entry). */
   u = t;
   u.ir = "amdgcn";
   u.processor = "gfx900";
   unsigned char gfx900[32], gfx1100[32];
   key(src, n, "-DA=1", &u, gfx900);
   assert_memory_not_equal(base, gfx900, 32);
   key(src, n, "-DA=1", &u, other);
   assert_memory_equal(gfx900, other, 32);
   u.processor = "gfx1100";
   key(src, n, "-DA=1", &u, gfx1100);
   assert_memory_not_equal(gfx900, gfx1100, 32);
   /* A target that cannot check bounds (NVPTX) has one target id either
    * way, yet a KILN_CHECK=bounds build (which fails there) must never
    * hit an unchecked build's entry and succeed unchecked. */
   u.ir = "nvptx";
   u.processor = "sm_90";
   u.bounds_check = false;
   unsigned char sm90[32];
   key(src, n, "-DA=1", &u, sm90);
   u.bounds_check = true;
   key(src, n, "-DA=1", &u, other);
   assert_memory_not_equal(sm90, other, 32);
   /* A target the compiler does not know has no key (and no cache). */
   u.ir = "no-such-target";
   assert_false(kiln_program_cache_key(src, n, "-DA=1", &u, other));
   u = t;
   u.processor = "gfx900"; /* the CPU target compiles for this machine only */
   assert_false(kiln_program_cache_key(src, n, "-DA=1", &u, other));
   /* Fields are delimited: moving bytes between options and source
    * changes the key. */
   key("1 __kernel", 10, "-DA=", &t, base);
   key(" __kernel", 9, "-DA=1", &t, other);
   assert_memory_not_equal(base, other, 32);
}

int main(void)
{
   const struct CMUnitTest tests[] = {cmocka_unit_test(test_key)};
   return cmocka_run_group_tests(tests, NULL, NULL);
}
