/* The jam width (src/llvm/cpu/jam_width.h): 16 on AMD's cores with
 * AVX-512 by LLVM's CPU name, 8 elsewhere; KILN_JAM_WIDTH=8|16 wins, any
 * other value is reported and ignored.  meson.build runs this with the
 * variable unset, 16, 8 and a bad value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#include "llvm/cpu/jam_width.h"

static void by_cpu(void **state)
{
   (void)state;
   assert_int_equal(kiln_jam_width_for_cpu("znver4"), 16);
   assert_int_equal(kiln_jam_width_for_cpu("znver5"), 16);
   assert_int_equal(kiln_jam_width_for_cpu("znver12"), 16);
   assert_int_equal(kiln_jam_width_for_cpu("znver3"), 8);
   assert_int_equal(kiln_jam_width_for_cpu("znver"), 8);
   assert_int_equal(kiln_jam_width_for_cpu("znver4x"), 8);
   assert_int_equal(kiln_jam_width_for_cpu("sapphirerapids"), 8);
   assert_int_equal(kiln_jam_width_for_cpu("icelake-server"), 8);
   assert_int_equal(kiln_jam_width_for_cpu(""), 8);
   assert_int_equal(kiln_jam_width_for_cpu(NULL), 8);
}

static void setting(void **state)
{
   (void)state;
   const char *e = getenv("KILN_JAM_WIDTH"), *invalid = "unset";
   unsigned w = kiln_jam_width(&invalid);
   char *cpu = LLVMGetHostCPUName();
   unsigned host = kiln_jam_width_for_cpu(cpu);
   LLVMDisposeMessage(cpu);
   if (e && (!strcmp(e, "8") || !strcmp(e, "16"))) {
      assert_int_equal(w, (unsigned)atoi(e));
      assert_null(invalid);
   } else if (e && *e) {
      assert_int_equal(w, host);
      assert_non_null(invalid);
      assert_string_equal(invalid, e);
   } else {
      assert_int_equal(w, host);
      assert_null(invalid);
   }
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(by_cpu),
      cmocka_unit_test(setting),
   };
   return cmocka_run_group_tests_name("jam_width", tests, NULL, NULL);
}
