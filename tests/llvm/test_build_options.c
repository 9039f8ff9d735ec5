/* clBuildProgram's options string (OpenCL 1.1 §5.6.3) → kiln_build_options. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "llvm/build_options.h"

static struct kiln_build_options opts;
static char reason[KILN_BUILD_OPTIONS_REASON_SIZE];

static int teardown(void **state)
{
   (void)state;
   kiln_build_options_fini(&opts);
   return 0;
}

static enum kiln_build_options_status parse(const char *s)
{
   kiln_build_options_fini(&opts);
   return kiln_build_options_parse(s, KILN_CL_STD_1_1, false, &opts, reason, sizeof(reason));
}

static void expect_ok(const char *s)
{
   enum kiln_build_options_status st = parse(s);
   if (st != KILN_BUILD_OPTIONS_OK)
      fail_msg("'%s' rejected: %s", s, reason);
}

/* The reason goes to the build log as one line naming what was wrong. */
static void expect_invalid(const char *s, const char *reason_part)
{
   assert_int_equal(parse(s), KILN_BUILD_OPTIONS_INVALID);
   assert_non_null(strstr(reason, reason_part));
   assert_null(strchr(reason, '\n'));
}

static void test_empty(void **state)
{
   (void)state;
   const char *empty[] = {NULL, "", "   ", " \t\n "};
   for (size_t i = 0; i < sizeof(empty) / sizeof(empty[0]); i++) {
      expect_ok(empty[i]);
      assert_int_equal(opts.flags, 0);
      assert_int_equal(opts.num_defines, 0);
      assert_int_equal(opts.num_include_dirs, 0);
      assert_int_equal(opts.cl_std, KILN_CL_STD_1_1);
   }
}

static void test_every_flag(void **state)
{
   (void)state;
   static const struct {
      const char *option;
      unsigned flag;
   } cases[] = {
      {"-cl-opt-disable", KILN_BUILD_OPT_DISABLE},
      {"-cl-single-precision-constant", KILN_BUILD_SINGLE_PRECISION_CONSTANT},
      {"-cl-denorms-are-zero", KILN_BUILD_DENORMS_ARE_ZERO},
      {"-cl-strict-aliasing", KILN_BUILD_STRICT_ALIASING},
      {"-cl-mad-enable", KILN_BUILD_MAD_ENABLE},
      {"-cl-no-signed-zeros", KILN_BUILD_NO_SIGNED_ZEROS},
      {"-cl-unsafe-math-optimizations", KILN_BUILD_UNSAFE_MATH},
      {"-cl-finite-math-only", KILN_BUILD_FINITE_MATH_ONLY},
      {"-cl-fast-relaxed-math", KILN_BUILD_FAST_RELAXED_MATH},
      {"-w", KILN_BUILD_NO_WARNINGS},
      {"-Werror", KILN_BUILD_WERROR},
      {"-cl-kernel-arg-info", KILN_BUILD_KERNEL_ARG_INFO},
   };
   unsigned all = 0;
   char line[1024] = "";
   for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
      expect_ok(cases[i].option);
      assert_int_equal(opts.flags, cases[i].flag);
      all |= cases[i].flag;
      strcat(line, cases[i].option);
      strcat(line, "  ");
   }
   expect_ok(line);
   assert_int_equal(opts.flags, all);
   assert_int_equal(opts.num_defines, 0);
}

static void test_defines(void **state)
{
   (void)state;
   expect_ok("-D A -DB -D C=3 -DD=4 -D E= -D _f9=x=y");
   assert_int_equal(opts.num_defines, 6);
   const char *names[] = {"A", "B", "C", "D", "E", "_f9"};
   const char *values[] = {NULL, NULL, "3", "4", "", "x=y"};
   for (size_t i = 0; i < 6; i++) {
      assert_string_equal(opts.defines[i].name, names[i]);
      if (values[i])
         assert_string_equal(opts.defines[i].value, values[i]);
      else
         assert_null(opts.defines[i].value);
   }
}

static void test_function_like_define(void **state)
{
   (void)state;
   expect_ok("-D \"SQ(x)=((x)*(x))\" -DMAX(a,b)=a -D \"V( a , ... )=1\" -DZ()");
   assert_int_equal(opts.num_defines, 4);
   assert_string_equal(opts.defines[0].name, "SQ(x)");
   assert_string_equal(opts.defines[0].value, "((x)*(x))");
   assert_string_equal(opts.defines[1].name, "MAX(a,b)");
   assert_string_equal(opts.defines[2].name, "V( a , ... )");
   assert_string_equal(opts.defines[3].name, "Z()");
   assert_null(opts.defines[3].value);
}

static void test_include_dirs(void **state)
{
   (void)state;
   expect_ok("-I /a -I/b -I \"/with space\" -I\"/c d\"/e");
   assert_int_equal(opts.num_include_dirs, 4);
   assert_string_equal(opts.include_dirs[0], "/a");
   assert_string_equal(opts.include_dirs[1], "/b");
   assert_string_equal(opts.include_dirs[2], "/with space");
   assert_string_equal(opts.include_dirs[3], "/c d/e");
}

static void test_quoting(void **state)
{
   (void)state;
   /* Quotes group and vanish; backslash keeps a quote; single quotes are
    * plain characters so a char literal survives. */
   expect_ok("-D \"A=a  b\" -DB=\"x y\" -DS=\\\"str\\\" -D Q=\"say \\\"hi\\\"\" "
             "-D C='c' -D P=a\\ b -D BS=\"\\\\\" -DW=C:\\dir");
   assert_int_equal(opts.num_defines, 8);
   assert_string_equal(opts.defines[0].value, "a  b");
   assert_string_equal(opts.defines[1].value, "x y");
   assert_string_equal(opts.defines[2].value, "\"str\"");
   assert_string_equal(opts.defines[3].value, "say \"hi\"");
   assert_string_equal(opts.defines[4].value, "'c'");
   assert_string_equal(opts.defines[5].value, "a b");
   assert_string_equal(opts.defines[6].value, "\\");
   assert_string_equal(opts.defines[7].value, "C:\\dir");
}

static void test_quoted_option_names(void **state)
{
   (void)state;
   expect_ok("\"-cl-mad-enable\" -\"w\"");
   assert_int_equal(opts.flags, KILN_BUILD_MAD_ENABLE | KILN_BUILD_NO_WARNINGS);
}

static void test_cl_std(void **state)
{
   (void)state;
   expect_ok("-cl-std=CL1.0");
   assert_int_equal(opts.cl_std, KILN_CL_STD_1_0);
   expect_ok("-cl-std=CL1.1");
   assert_int_equal(opts.cl_std, KILN_CL_STD_1_1);
   expect_ok("-cl-std=CL1.1 -cl-std=CL1.0");
   assert_int_equal(opts.cl_std, KILN_CL_STD_1_0);

   /* A 1.1 device refuses 1.2; a 1.2 device would take it, and defaults
    * to its own version. */
   expect_invalid("-cl-std=CL1.2", "at most");
   kiln_build_options_fini(&opts);
   assert_int_equal(kiln_build_options_parse("-cl-std=CL1.2", KILN_CL_STD_1_2, false, &opts,
                                             reason, sizeof(reason)),
                    KILN_BUILD_OPTIONS_OK);
   assert_int_equal(opts.cl_std, KILN_CL_STD_1_2);
   kiln_build_options_fini(&opts);
   assert_int_equal(kiln_build_options_parse("", KILN_CL_STD_1_2, false, &opts, reason,
                                             sizeof(reason)),
                    KILN_BUILD_OPTIONS_OK);
   assert_int_equal(opts.cl_std, KILN_CL_STD_1_2);
   /* A 1.0 device has no 1.1. */
   kiln_build_options_fini(&opts);
   assert_int_equal(kiln_build_options_parse("-cl-std=CL1.1", KILN_CL_STD_1_0, false, &opts,
                                             reason, sizeof(reason)),
                    KILN_BUILD_OPTIONS_INVALID);
   /* A 3.0 device takes CL3.0 but compiles unmarked programs as 1.2
    * (OpenCL 3.0 §5.8.6.5); a 1.2 device refuses CL3.0. */
   kiln_build_options_fini(&opts);
   assert_int_equal(kiln_build_options_parse("-cl-std=CL3.0", KILN_CL_STD_3_0, false, &opts,
                                             reason, sizeof(reason)),
                    KILN_BUILD_OPTIONS_OK);
   assert_int_equal(opts.cl_std, KILN_CL_STD_3_0);
   kiln_build_options_fini(&opts);
   assert_int_equal(kiln_build_options_parse("", KILN_CL_STD_3_0, false, &opts, reason,
                                             sizeof(reason)),
                    KILN_BUILD_OPTIONS_OK);
   assert_int_equal(opts.cl_std, KILN_CL_STD_1_2);
   kiln_build_options_fini(&opts);
   assert_int_equal(kiln_build_options_parse("-cl-std=CL3.0", KILN_CL_STD_1_2, false, &opts,
                                             reason, sizeof(reason)),
                    KILN_BUILD_OPTIONS_INVALID);
   assert_non_null(strstr(reason, "OpenCL C 1.2 at most"));
   /* CL2.0 only where the device has all of OpenCL C 2.0. */
   kiln_build_options_fini(&opts);
   assert_int_equal(kiln_build_options_parse("-cl-std=CL2.0", KILN_CL_STD_3_0, true, &opts,
                                             reason, sizeof(reason)),
                    KILN_BUILD_OPTIONS_OK);
   assert_int_equal(opts.cl_std, KILN_CL_STD_2_0);
   kiln_build_options_fini(&opts);
   assert_int_equal(kiln_build_options_parse("-cl-std=CL2.0", KILN_CL_STD_3_0, false, &opts,
                                             reason, sizeof(reason)),
                    KILN_BUILD_OPTIONS_INVALID);
   assert_non_null(strstr(reason, "all of OpenCL C 2.0"));
   kiln_build_options_fini(&opts);
   assert_int_equal(kiln_build_options_parse("-cl-std=CL2.0", KILN_CL_STD_1_2, true, &opts,
                                             reason, sizeof(reason)),
                    KILN_BUILD_OPTIONS_INVALID);
   /* -cl-uniform-work-group-size (2.0), -cl-no-subgroup-ifp (2.1): on a 3.0
    * device only. */
   kiln_build_options_fini(&opts);
   assert_int_equal(kiln_build_options_parse("-cl-std=CL3.0 -cl-uniform-work-group-size "
                                             "-cl-no-subgroup-ifp",
                                             KILN_CL_STD_3_0, false, &opts, reason, sizeof(reason)),
                    KILN_BUILD_OPTIONS_OK);
   kiln_build_options_fini(&opts);
   assert_int_equal(kiln_build_options_parse("-cl-no-subgroup-ifp", KILN_CL_STD_1_2, false, &opts,
                                             reason, sizeof(reason)),
                    KILN_BUILD_OPTIONS_INVALID);
   kiln_build_options_fini(&opts);
   assert_int_equal(kiln_build_options_parse("-cl-uniform-work-group-size", KILN_CL_STD_1_2, false,
                                             &opts, reason, sizeof(reason)),
                    KILN_BUILD_OPTIONS_INVALID);
}

static void test_errors(void **state)
{
   (void)state;
   expect_invalid("-D", "-D at the end of the options needs a macro name");
   expect_invalid("-w -D  ", "needs a macro name");
   expect_invalid("-I", "-I at the end of the options needs a directory");
   expect_invalid("-I \"\"", "-I needs a directory");
   expect_invalid("-D \"\"", "must be an identifier");
   expect_invalid("-D =1", "must be an identifier");
   expect_invalid("-D 3X", "must be an identifier");
   expect_invalid("-D A-B", "must be an identifier");
   expect_invalid("-D F(x", "must be an identifier");
   expect_invalid("-D F(x,)=1", "must be an identifier");
   expect_invalid("-D F(1)=1", "must be an identifier");
   expect_invalid("-D F(x)y", "must be an identifier");
   expect_invalid("-D -w", "'-w': a macro name must be an identifier");
   expect_invalid("-foo", "unknown build option '-foo'");
   expect_invalid("-cl-mad-enable -O2", "unknown build option '-O2'");
   expect_invalid("-Werror=foo", "unknown build option '-Werror=foo'");
   expect_invalid("-cl-mad-enablex", "unknown build option");
   expect_invalid("cl-mad-enable", "unknown build option 'cl-mad-enable'");
   expect_invalid("-cl-std", "unknown build option '-cl-std'");
   expect_invalid("-cl-std=", "unknown OpenCL C version");
   expect_invalid("-cl-std=CL2.0", "-cl-std=CL2.0: the device compiles OpenCL C 1.1 at most");
   expect_invalid("-cl-std=CL2.2", "-cl-std=CL2.2: unknown OpenCL C version");
   expect_invalid("-cl-std=cl1.1", "unknown OpenCL C version");
   expect_invalid("-D \"A=1", "unterminated double quote");
   expect_invalid("-DA=\"x\\\"", "unterminated double quote");
   /* Whatever sits in quotes, the reason stays one line. */
   expect_invalid("\"-bad\nline\"", "unknown build option '-bad line'");
}

/* A failed parse leaves nothing behind, and the struct stays releasable. */
static void test_error_after_valid_options(void **state)
{
   (void)state;
   expect_invalid("-DA=1 -I/x -Werror -bogus", "-bogus");
   kiln_build_options_fini(&opts);
   assert_null(opts.defines);
   assert_null(opts.include_dirs);
}

static void test_reason_buffer(void **state)
{
   (void)state;
   char small[8];
   kiln_build_options_fini(&opts);
   assert_int_equal(kiln_build_options_parse("-nope", KILN_CL_STD_1_1, false, &opts, small,
                                             sizeof(small)),
                    KILN_BUILD_OPTIONS_INVALID);
   assert_int_equal(strlen(small), sizeof(small) - 1);
   kiln_build_options_fini(&opts);
   assert_int_equal(kiln_build_options_parse("-nope", KILN_CL_STD_1_1, false, &opts, NULL, 0),
                    KILN_BUILD_OPTIONS_INVALID);
   kiln_build_options_fini(&opts);
   strcpy(small, "stale");
   assert_int_equal(kiln_build_options_parse("-w", KILN_CL_STD_1_1, false, &opts, small,
                                             sizeof(small)),
                    KILN_BUILD_OPTIONS_OK);
   assert_string_equal(small, "");
}

/* Many words: the arrays grow. */
static void test_many(void **state)
{
   (void)state;
   char line[64 * 16] = "";
   char word[32];
   for (int i = 0; i < 64; i++) {
      snprintf(word, sizeof(word), "-DM%d=%d -I/i%d ", i, i, i);
      strcat(line, word);
   }
   expect_ok(line);
   assert_int_equal(opts.num_defines, 64);
   assert_int_equal(opts.num_include_dirs, 64);
   assert_string_equal(opts.defines[63].name, "M63");
   assert_string_equal(opts.defines[63].value, "63");
   assert_string_equal(opts.include_dirs[63], "/i63");
}

/* clLinkProgram's options (OpenCL 1.2 §5.6.5): the library pair and the
 * five program linking options, nothing else. */
static void test_link_options(void **state)
{
   (void)state;
   struct kiln_link_options lo;
   char why[KILN_BUILD_OPTIONS_REASON_SIZE];
   assert_int_equal(kiln_link_options_parse(NULL, &lo, why, sizeof(why)), KILN_BUILD_OPTIONS_OK);
   assert_int_equal(lo.link, 0);
   assert_int_equal(lo.flags, 0);
   assert_int_equal(kiln_link_options_parse("  -create-library  -enable-link-options ", &lo, why,
                                            sizeof(why)),
                    KILN_BUILD_OPTIONS_OK);
   assert_int_equal(lo.link, KILN_LINK_CREATE_LIBRARY | KILN_LINK_ENABLE_LINK_OPTIONS);
   assert_int_equal(kiln_link_options_parse("-cl-denorms-are-zero -cl-no-signed-zeros "
                                            "-cl-unsafe-math-optimizations -cl-finite-math-only "
                                            "-cl-fast-relaxed-math",
                                            &lo, why, sizeof(why)),
                    KILN_BUILD_OPTIONS_OK);
   assert_int_equal(lo.link, 0);
   assert_int_equal(lo.flags, KILN_BUILD_DENORMS_ARE_ZERO | KILN_BUILD_NO_SIGNED_ZEROS |
                                 KILN_BUILD_UNSAFE_MATH | KILN_BUILD_FINITE_MATH_ONLY |
                                 KILN_BUILD_FAST_RELAXED_MATH);
   /* Compile options are not link options. */
   static const char *const bad[] = {"-cl-opt-disable", "-DX=1", "-I.", "-cl-std=CL1.2",
                                     "-cl-kernel-arg-info", "-w", "-Werror", "-cl-mad-enable",
                                     "-create-libraryx", "create-library", "-x"};
   for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
      assert_int_equal(kiln_link_options_parse(bad[i], &lo, why, sizeof(why)),
                       KILN_BUILD_OPTIONS_INVALID);
      assert_non_null(strstr(why, "not a link option"));
   }
   /* -enable-link-options only means something for a library. */
   assert_int_equal(kiln_link_options_parse("-enable-link-options", &lo, why, sizeof(why)),
                    KILN_BUILD_OPTIONS_INVALID);
   assert_non_null(strstr(why, "-create-library"));
   assert_int_equal(kiln_link_options_parse("-create-library \"", &lo, why, sizeof(why)),
                    KILN_BUILD_OPTIONS_INVALID);
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_empty, teardown),
      cmocka_unit_test_teardown(test_every_flag, teardown),
      cmocka_unit_test_teardown(test_defines, teardown),
      cmocka_unit_test_teardown(test_function_like_define, teardown),
      cmocka_unit_test_teardown(test_include_dirs, teardown),
      cmocka_unit_test_teardown(test_quoting, teardown),
      cmocka_unit_test_teardown(test_quoted_option_names, teardown),
      cmocka_unit_test_teardown(test_cl_std, teardown),
      cmocka_unit_test_teardown(test_errors, teardown),
      cmocka_unit_test_teardown(test_error_after_valid_options, teardown),
      cmocka_unit_test_teardown(test_reason_buffer, teardown),
      cmocka_unit_test_teardown(test_many, teardown),
      cmocka_unit_test(test_link_options),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
