/* A platform whose drivers found no device (run with KILN_DEVICES=none):
 * the platform still enumerates, so the loader lists it, and every
 * device lookup says CL_DEVICE_NOT_FOUND instead of failing oddly. */
#include "kiln_test.h"

#include <stdlib.h>

#include "core/object.h"

static void platform_without_devices(void **state)
{
   (void)state;
   const char *env = getenv("KILN_DEVICES");
   assert_non_null(env);
   assert_string_equal(env, "none");

   cl_platform_id p = kt_platform();
   char name[16] = "";
   assert_int_equal(clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof(name), name, NULL),
                    CL_SUCCESS);
   assert_string_equal(name, "Kiln");
   assert_int_equal(kiln_object_count_live(KILN_TYPE_DEVICE), 0);

   const cl_device_type types[] = {CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_DEFAULT,
                                   CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU};
   for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
      cl_device_id d = NULL;
      cl_uint n = 0;
      assert_int_equal(clGetDeviceIDs(p, types[i], 1, &d, &n), CL_DEVICE_NOT_FOUND);
      assert_int_equal(clGetDeviceIDs(p, types[i], 0, NULL, &n), CL_DEVICE_NOT_FOUND);
      assert_null(d);
      cl_int err = CL_SUCCESS;
      assert_null(clCreateContextFromType(NULL, types[i], NULL, NULL, &err));
      assert_int_equal(err, CL_DEVICE_NOT_FOUND);
   }
   /* Argument errors still win over "not found". */
   assert_int_equal(clGetDeviceIDs(p, 0, 0, NULL, NULL), CL_INVALID_DEVICE_TYPE);
   assert_int_equal(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, NULL, NULL), CL_INVALID_VALUE);
   assert_int_equal(kiln_object_count_live(KILN_TYPE_CONTEXT), 0);
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(platform_without_devices),
   };
   return cmocka_run_group_tests_name("nodevice", tests, NULL, NULL);
}
