/* SPIR builtin names to the names of Kiln's CPU builtins
 * (src/llvm/spirv/spirv_mangle.c).  Each expected name is one the
 * library defines (llvm-nm of kiln_builtins.bc), each SPIR name one the
 * translator writes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "llvm/spirv/spirv_mangle.h"

static void renamed(const char *spir, const char *kiln)
{
   char out[256];
   assert_int_equal(kiln_spirv_remangle(spir, out, sizeof(out)), KILN_SPIRV_MANGLE_RENAMED);
   assert_string_equal(out, kiln);
}

static void address_spaces(void **state)
{
   (void)state;
   renamed("_Z6vload4mPU3AS1Kf", "_Z6vload4mPU8CLglobalKf");
   renamed("_Z6vload4mPU3AS2Kf", "_Z6vload4mPU10CLconstantKf");
   renamed("_Z10atomic_addPU3AS3Vii", "_Z10atomic_addPU7CLlocalVii");
   renamed("_Z5fractfPU3AS4f", "_Z5fractfPU9CLgenericf");
   renamed("_Z7vstore4Dv4_fmPU3AS1f", "_Z7vstore4Dv4_fmPU8CLglobalf");
   renamed("_Z21async_work_group_copyPU3AS3fPU3AS1Kfm9ocl_event",
           "_Z21async_work_group_copyPU7CLlocalfPU8CLglobalKfm9ocl_event");
}

/* Private pointers gain a qualifier, and with it a substitution
 * candidate: the references after it move. */
static void private_pointers(void **state)
{
   (void)state;
   renamed("_Z5fractfPf", "_Z5fractfPU9CLprivatef");
   renamed("_Z5fractDv8_fPS_", "_Z5fractDv8_fPU9CLprivateS_");
   renamed("_Z6sincosDv4_fPS_", "_Z6sincosDv4_fPU9CLprivateS_");
   renamed("_Z5frexpDv2_fPDv2_i", "_Z5frexpDv2_fPU9CLprivateDv2_i");
   renamed("_Z6remquoffPi", "_Z6remquoffPU9CLprivatei");
   renamed("_Z6remquoDv2_fS_PDv2_i", "_Z6remquoDv2_fS_PU9CLprivateDv2_i");
   renamed("_Z6vload2mPKf", "_Z6vload2mPU9CLprivateKf");
}

static void unchanged(void **state)
{
   (void)state;
   char out[64];
   assert_int_equal(kiln_spirv_remangle("_Z13get_global_idj", out, sizeof(out)),
                    KILN_SPIRV_MANGLE_SAME);
   assert_int_equal(kiln_spirv_remangle("_Z4sqrtDv8_f", out, sizeof(out)),
                    KILN_SPIRV_MANGLE_SAME);
   assert_int_equal(kiln_spirv_remangle("printf", out, sizeof(out)),
                    KILN_SPIRV_MANGLE_UNKNOWN);
   assert_int_equal(kiln_spirv_remangle("_ZN3foo3barEv", out, sizeof(out)),
                    KILN_SPIRV_MANGLE_UNKNOWN);
   assert_int_equal(kiln_spirv_remangle("_Z5fractfPS5_", out, sizeof(out)),
                    KILN_SPIRV_MANGLE_UNKNOWN);
   /* Too small an output is no name. */
   assert_int_equal(kiln_spirv_remangle("_Z5fractfPf", out, 8), KILN_SPIRV_MANGLE_UNKNOWN);
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(address_spaces),
      cmocka_unit_test(private_pointers),
      cmocka_unit_test(unchanged),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
