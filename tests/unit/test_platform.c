/* clGetPlatformIDs and clGetPlatformInfo (OpenCL 1.1 section 4.1 and
 * cl_khr_icd). */
#include "kiln_test.h"
#include "kiln/cl_version.h"

#include <stdlib.h>

static void get_ids_counts_one_platform(void **state)
{
   (void)state;
   cl_uint n = 0;
   assert_int_equal(clGetPlatformIDs(0, NULL, &n), CL_SUCCESS);
   assert_int_equal(n, 1);

   cl_platform_id p = NULL;
   assert_int_equal(clGetPlatformIDs(1, &p, NULL), CL_SUCCESS);
   assert_non_null(p);

   /* Room for more than exist: only the real ones are written. */
   cl_platform_id ps[3] = {NULL, (cl_platform_id)(uintptr_t)1, (cl_platform_id)(uintptr_t)2};
   n = 0;
   assert_int_equal(clGetPlatformIDs(3, ps, &n), CL_SUCCESS);
   assert_int_equal(n, 1);
   assert_ptr_equal(ps[0], p);
   assert_ptr_equal(ps[1], (cl_platform_id)(uintptr_t)1);
   assert_ptr_equal(ps[2], (cl_platform_id)(uintptr_t)2);

   /* The same handle every time. */
   cl_platform_id again = NULL;
   assert_int_equal(clGetPlatformIDs(1, &again, NULL), CL_SUCCESS);
   assert_ptr_equal(again, p);
}

static void get_ids_errors(void **state)
{
   (void)state;
   cl_platform_id p = NULL;
   cl_uint n = 77;
   /* num_entries 0 with a platforms array. */
   assert_int_equal(clGetPlatformIDs(0, &p, &n), CL_INVALID_VALUE);
   assert_int_equal(clGetPlatformIDs(0, &p, NULL), CL_INVALID_VALUE);
   assert_null(p);
   /* Both outputs NULL, whatever num_entries. */
   assert_int_equal(clGetPlatformIDs(0, NULL, NULL), CL_INVALID_VALUE);
   assert_int_equal(clGetPlatformIDs(1, NULL, NULL), CL_INVALID_VALUE);
   assert_int_equal(n, 77);
}

static void info_strings(void **state)
{
   (void)state;
   cl_platform_id p = kt_platform();

   char *s = kt_info_string(kt_platform_info, p, CL_PLATFORM_PROFILE);
   assert_string_equal(s, "FULL_PROFILE");
   free(s);

   s = kt_info_string(kt_platform_info, p, CL_PLATFORM_VERSION);
   /* "OpenCL<space><major.minor><space><platform-specific>" */
   assert_true(!strncmp(s, "OpenCL " KILN_CL_VERSION_STRING " ", strlen(KILN_CL_VERSION_STRING) + 8));
   free(s);

   s = kt_info_string(kt_platform_info, p, CL_PLATFORM_NAME);
   assert_string_equal(s, "Kiln");
   free(s);

   s = kt_info_string(kt_platform_info, p, CL_PLATFORM_VENDOR);
   assert_true(strlen(s) > 0);
   free(s);

   s = kt_info_string(kt_platform_info, p, CL_PLATFORM_EXTENSIONS);
   /* The loader refuses platforms that do not list cl_khr_icd. */
   assert_true(kt_has_word(s, "cl_khr_icd"));
   free(s);

   s = kt_info_string(kt_platform_info, p, CL_PLATFORM_ICD_SUFFIX_KHR);
   assert_string_equal(s, "KILN");
   free(s);
}

static void info_null_platform_is_kiln(void **state)
{
   (void)state;
   /* Implementation-defined in 1.1; Kiln answers for its own platform,
    * which is what a NULL platform means to an application linking Kiln
    * directly. */
   char name[16] = "";
   assert_int_equal(clGetPlatformInfo(NULL, CL_PLATFORM_NAME, sizeof(name), name, NULL),
                    CL_SUCCESS);
   assert_string_equal(name, "Kiln");
}

static void info_invalid_platform(void **state)
{
   (void)state;
   char buf[64];
   int junk = 0;
   assert_int_equal(clGetPlatformInfo((cl_platform_id)&junk, CL_PLATFORM_NAME, sizeof(buf), buf,
                                      NULL),
                    CL_INVALID_PLATFORM);

   /* Handles of other kinds. */
   cl_device_id dev = kt_device();
   assert_int_equal(clGetPlatformInfo((cl_platform_id)dev, CL_PLATFORM_NAME, sizeof(buf), buf,
                                      NULL),
                    CL_INVALID_PLATFORM);
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   assert_int_equal(clGetPlatformInfo((cl_platform_id)ctx, CL_PLATFORM_NAME, sizeof(buf), buf,
                                      NULL),
                    CL_INVALID_PLATFORM);
   assert_int_equal(clGetPlatformInfo((cl_platform_id)q, CL_PLATFORM_NAME, sizeof(buf), buf,
                                      NULL),
                    CL_INVALID_PLATFORM);
   /* The platform error comes before the param_name one. */
   assert_int_equal(clGetPlatformInfo((cl_platform_id)ctx, 0xdead, sizeof(buf), buf, NULL),
                    CL_INVALID_PLATFORM);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

static void info_invalid_param(void **state)
{
   (void)state;
   cl_platform_id p = kt_platform();
   char buf[64];
   size_t ret = 0;
   /* 0x0905-0x0907 are 2.1/3.0 queries of the 3.0 platform; 0x0908 names
    * nothing. */
   const cl_uint bad[] = {0, 0x08ff, 0x0908, 0xdead, CL_DEVICE_NAME, CL_CONTEXT_DEVICES};
   for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
      assert_int_equal(clGetPlatformInfo(p, bad[i], sizeof(buf), buf, &ret), CL_INVALID_VALUE);
      assert_int_equal(clGetPlatformInfo(p, bad[i], 0, NULL, &ret), CL_INVALID_VALUE);
   }
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(get_ids_counts_one_platform),
      cmocka_unit_test(get_ids_errors),
      cmocka_unit_test(info_strings),
      cmocka_unit_test(info_null_platform_is_kiln),
      cmocka_unit_test(info_invalid_platform),
      cmocka_unit_test(info_invalid_param),
   };
   return cmocka_run_group_tests_name("platform", tests, NULL, NULL);
}
