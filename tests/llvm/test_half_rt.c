/* The half conversions Kiln's JIT gives x86 code (src/llvm/cpu/half_rt.c)
 * against the host compiler's own _Float16 conversions (libgcc's
 * __extendhfsf2/__truncsfhf2/__truncdfhf2, or F16C), which share no code
 * with them: every half widened, and the float and double inputs around
 * every rounding boundary (ties, just above and below them, denormal
 * results, overflow) narrowed.  NaNs must stay NaNs of the same sign. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "llvm/cpu/half_rt.h"

static uint16_t hbits(_Float16 h)
{
   uint16_t b;
   memcpy(&b, &h, sizeof(b));
   return b;
}

static bool hnan(uint16_t b)
{
   return (b & 0x7c00) == 0x7c00 && (b & 0x3ff);
}

/* Equal bits, or both NaN with the same sign. */
static bool same16(uint16_t a, uint16_t b)
{
   return a == b || (hnan(a) && hnan(b) && (a & 0x8000) == (b & 0x8000));
}

static void extend_every_half(void **state)
{
   (void)state;
   for (uint32_t i = 0; i < 65536; i++) {
      uint16_t b = (uint16_t)i;
      _Float16 h;
      memcpy(&h, &b, sizeof(h));
      float got = kiln_half_extend_sf(h), want = (float)h;
      double gotd = kiln_half_extend_df(h), wantd = (double)h;
      uint32_t g, w;
      memcpy(&g, &got, 4);
      memcpy(&w, &want, 4);
      if (hnan(b)) {
         assert_true(got != got && gotd != gotd);
         assert_int_equal(g >> 31, b >> 15);
         continue;
      }
      if (g != w || gotd != wantd)
         fail_msg("half 0x%04x: got %a / %a, expected %a", b, (double)got, gotd, (double)want);
   }
}

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t next(void)
{
   rng ^= rng << 13;
   rng ^= rng >> 7;
   rng ^= rng << 17;
   return rng;
}

/* Every sign/exponent/top-10-significand-bits of a float, with the 13
 * dropped bits at the interesting values: zero, one, a tie, around it,
 * all ones, and a random one. */
static void trunc_floats(void **state)
{
   (void)state;
   const uint32_t low[] = {0, 1, 0xfff, 0x1000, 0x1001, 0x1fff};
   for (uint32_t hi = 0; hi < (1u << 19); hi++) {
      for (size_t k = 0; k <= sizeof(low) / sizeof(low[0]); k++) {
         uint32_t l = k < sizeof(low) / sizeof(low[0]) ? low[k] : (uint32_t)next() & 0x1fff;
         uint32_t b = (hi << 13) | l;
         float f;
         memcpy(&f, &b, 4);
         uint16_t got = hbits(kiln_half_trunc_sf(f)), want = hbits((_Float16)f);
         if (!same16(got, want))
            fail_msg("float 0x%08x (%a): got 0x%04x, expected 0x%04x", b, (double)f, got, want);
      }
   }
}

/* Doubles: the same boundaries at bit 42 (10 kept bits), and the sticky
 * bits far below them, which a conversion through float would lose. */
static void trunc_doubles(void **state)
{
   (void)state;
   const uint64_t low[] = {0, 1, (1ull << 41) - 1, 1ull << 41, (1ull << 41) + 1,
                           (1ull << 42) - 1, 1ull << 28};
   for (int i = 0; i < 1 << 20; i++) {
      uint64_t top = next() & 0xffffc00000000000ull;
      /* Mostly exponents near half's range (2^-30 .. 2^17). */
      if (i & 1) {
         uint64_t e = 1023 - 30 + next() % 48;
         top = (top & 0x800fc00000000000ull) | (e << 52);
      }
      for (size_t k = 0; k <= sizeof(low) / sizeof(low[0]); k++) {
         uint64_t l = k < sizeof(low) / sizeof(low[0]) ? low[k] : next() & ((1ull << 42) - 1);
         uint64_t b = top | l;
         double d;
         memcpy(&d, &b, 8);
         uint16_t got = hbits(kiln_half_trunc_df(d)), want = hbits((_Float16)d);
         if (!same16(got, want))
            fail_msg("double 0x%016llx (%a): got 0x%04x, expected 0x%04x",
                     (unsigned long long)b, d, got, want);
      }
   }
}

/* The JIT's table: the four names x86 code calls, each with its function. */
static void symbol_table(void **state)
{
   (void)state;
   const char *names[] = {"__extendhfsf2", "__extendhfdf2", "__truncsfhf2", "__truncdfhf2"};
   assert_int_equal(kiln_half_rt_num_symbols, 4);
   for (unsigned i = 0; i < 4; i++) {
      assert_string_equal(kiln_half_rt_symbols[i].name, names[i]);
      assert_non_null(kiln_half_rt_symbols[i].address);
   }
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(extend_every_half),
      cmocka_unit_test(trunc_floats),
      cmocka_unit_test(trunc_doubles),
      cmocka_unit_test(symbol_table),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
