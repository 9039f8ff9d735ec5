/* clCreateContext, clCreateContextFromType, clRetainContext,
 * clReleaseContext, clGetContextInfo (OpenCL 1.1 section 4.3). */
#include "kiln_test.h"

#include <stdlib.h>

#include "core/context.h"
#include "core/object.h"

static void CL_CALLBACK notify(const char *errinfo, const void *priv, size_t cb, void *user)
{
   (void)priv;
   (void)cb;
   int *calls = user;
   (*calls)++;
   assert_non_null(errinfo);
}

static cl_uint refcount(cl_context ctx)
{
   cl_uint n = 0;
   kt_info_value(kt_context_info, ctx, CL_CONTEXT_REFERENCE_COUNT, &n, sizeof(n));
   return n;
}

/* ---- creation ---------------------------------------------------------- */

static void create_variants(void **state)
{
   (void)state;
   cl_platform_id p = kt_platform();
   cl_device_id d = kt_device();
   cl_int err;
   unsigned live = kiln_object_count_live(KILN_TYPE_CONTEXT);

   /* NULL properties, no callback. */
   err = -1;
   cl_context a = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_non_null(a);

   /* An explicit platform, a callback with and without user_data, and
    * errcode_ret NULL. */
   cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p, 0};
   int calls = 0;
   cl_context b = clCreateContext(props, 1, &d, notify, &calls, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_non_null(b);
   cl_context c = clCreateContext(props, 1, &d, notify, NULL, NULL);
   assert_non_null(c);

   /* An empty property list is a valid list. */
   cl_context_properties empty[] = {0};
   cl_context e = clCreateContext(empty, 1, &d, NULL, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);

   assert_true(a != b && b != c && c != e && a != e);
   assert_int_equal(kiln_object_count_live(KILN_TYPE_CONTEXT), live + 4);
   /* Nothing went wrong, so nothing was reported. */
   assert_int_equal(calls, 0);

   assert_int_equal(clReleaseContext(a), CL_SUCCESS);
   assert_int_equal(clReleaseContext(b), CL_SUCCESS);
   assert_int_equal(clReleaseContext(c), CL_SUCCESS);
   assert_int_equal(clReleaseContext(e), CL_SUCCESS);
   assert_int_equal(kiln_object_count_live(KILN_TYPE_CONTEXT), live);
}

static void create_duplicate_device_kept_once(void **state)
{
   (void)state;
   /* The spec asks for unique devices; Kiln accepts a repeat and keeps
    * each device once (what CL_CONTEXT_DEVICES reports). */
   cl_device_id d = kt_device();
   cl_device_id two[] = {d, d};
   cl_int err = -1;
   cl_context ctx = clCreateContext(NULL, 2, two, NULL, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   cl_uint n = 0;
   kt_info_value(kt_context_info, ctx, CL_CONTEXT_NUM_DEVICES, &n, sizeof(n));
   assert_int_equal(n, 1);
   clReleaseContext(ctx);
}

static void create_notify_gets_user_data(void **state)
{
   (void)state;
   cl_device_id d = kt_device();
   int calls = 0;
   cl_context ctx = clCreateContext(NULL, 1, &d, notify, &calls, NULL);
   assert_non_null(ctx);
   /* Core's error path reaches the application's callback with its
    * user_data. */
   kiln_context_notify(ctx, "test error");
   assert_int_equal(calls, 1);
   clReleaseContext(ctx);
}

/* Expects clCreateContext to fail with want, NULL result. */
static void expect_create_fails(const cl_context_properties *props, cl_uint n,
                                const cl_device_id *devs, void *user, cl_int want)
{
   unsigned live = kiln_object_count_live(KILN_TYPE_CONTEXT);
   cl_int err = CL_SUCCESS;
   cl_context ctx = clCreateContext(props, n, devs, NULL, user, &err);
   assert_null(ctx);
   assert_int_equal(err, want);
   /* errcode_ret may be NULL on the error path too. */
   assert_null(clCreateContext(props, n, devs, NULL, user, NULL));
   assert_int_equal(kiln_object_count_live(KILN_TYPE_CONTEXT), live);
}

static void create_invalid_platform(void **state)
{
   (void)state;
   cl_device_id d = kt_device();
   int junk = 0;
   cl_context_properties garbage[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)&junk, 0};
   expect_create_fails(garbage, 1, &d, NULL, CL_INVALID_PLATFORM);
   cl_context_properties null_platform[] = {CL_CONTEXT_PLATFORM, 0, 0};
   expect_create_fails(null_platform, 1, &d, NULL, CL_INVALID_PLATFORM);
   cl_context_properties device_as_platform[] = {CL_CONTEXT_PLATFORM,
                                                 (cl_context_properties)d, 0};
   expect_create_fails(device_as_platform, 1, &d, NULL, CL_INVALID_PLATFORM);
   cl_context ctx = kt_context();
   cl_context_properties ctx_as_platform[] = {CL_CONTEXT_PLATFORM,
                                              (cl_context_properties)ctx, 0};
   expect_create_fails(ctx_as_platform, 1, &d, NULL, CL_INVALID_PLATFORM);
   clReleaseContext(ctx);
}

static void create_invalid_property(void **state)
{
   (void)state;
   cl_platform_id p = kt_platform();
   cl_device_id d = kt_device();
   cl_context_properties unknown[] = {0x1234, 1, 0};
   expect_create_fails(unknown, 1, &d, NULL, CL_INVALID_PROPERTY);
   /* A 1.2 property is unknown to a 1.1 context. */
   cl_context_properties interop[] = {CL_CONTEXT_INTEROP_USER_SYNC, CL_TRUE, 0};
   expect_create_fails(interop, 1, &d, NULL, CL_INVALID_PROPERTY);
   cl_context_properties unknown_after[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p,
                                            0x1234, 1, 0};
   expect_create_fails(unknown_after, 1, &d, NULL, CL_INVALID_PROPERTY);
   cl_context_properties twice[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p,
                                     CL_CONTEXT_PLATFORM, (cl_context_properties)p, 0};
   expect_create_fails(twice, 1, &d, NULL, CL_INVALID_PROPERTY);
}

static void create_invalid_value(void **state)
{
   (void)state;
   cl_device_id d = kt_device();
   int user = 0;
   expect_create_fails(NULL, 1, NULL, NULL, CL_INVALID_VALUE);
   expect_create_fails(NULL, 0, &d, NULL, CL_INVALID_VALUE);
   expect_create_fails(NULL, 1, &d, &user, CL_INVALID_VALUE);
}

static void create_invalid_device(void **state)
{
   (void)state;
   cl_device_id d = kt_device();
   int junk = 0;
   cl_device_id null_dev = NULL;
   expect_create_fails(NULL, 1, &null_dev, NULL, CL_INVALID_DEVICE);
   cl_device_id garbage = (cl_device_id)&junk;
   expect_create_fails(NULL, 1, &garbage, NULL, CL_INVALID_DEVICE);
   cl_device_id platform = (cl_device_id)kt_platform();
   expect_create_fails(NULL, 1, &platform, NULL, CL_INVALID_DEVICE);
   /* A bad device after a good one. */
   cl_device_id mixed[] = {d, (cl_device_id)&junk};
   expect_create_fails(NULL, 2, mixed, NULL, CL_INVALID_DEVICE);
   cl_context ctx = kt_context();
   cl_device_id ctx_as_dev = (cl_device_id)ctx;
   expect_create_fails(NULL, 1, &ctx_as_dev, NULL, CL_INVALID_DEVICE);
   clReleaseContext(ctx);
}

static void create_error_order(void **state)
{
   (void)state;
   cl_device_id d = kt_device();
   int junk = 0, user = 0;
   cl_device_id bad = (cl_device_id)&junk;
   cl_context_properties bad_platform[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)&junk, 0};
   cl_context_properties unknown[] = {0x1234, 1, 0};

   /* Properties come before everything else. */
   expect_create_fails(bad_platform, 0, NULL, &user, CL_INVALID_PLATFORM);
   expect_create_fails(unknown, 0, NULL, &user, CL_INVALID_PROPERTY);
   /* The three CL_INVALID_VALUE cases come before CL_INVALID_DEVICE. */
   expect_create_fails(NULL, 0, &bad, NULL, CL_INVALID_VALUE);
   expect_create_fails(NULL, 1, &bad, &user, CL_INVALID_VALUE);

   /* CL_INVALID_PLATFORM is listed before CL_INVALID_PROPERTY: a list
    * with both an unknown name and a bad platform is a platform error. */
   cl_int err = CL_SUCCESS;
   cl_context_properties unknown_then_bad[] = {0x1234, 1, CL_CONTEXT_PLATFORM,
                                               (cl_context_properties)&junk, 0};
   assert_null(clCreateContext(unknown_then_bad, 1, &d, NULL, NULL, &err));
   KNOWN_BUG(err == CL_INVALID_PROPERTY,
             "src/api/context.c parse_properties: {unknown, x, CL_CONTEXT_PLATFORM, <bad>} "
             "gives CL_INVALID_PROPERTY; CL_INVALID_PLATFORM is listed first");
   assert_int_equal(err, CL_INVALID_PLATFORM);
}

static void create_error_order_duplicate(void **state)
{
   (void)state;
   cl_platform_id p = kt_platform();
   cl_device_id d = kt_device();
   int junk = 0;
   cl_int err = CL_SUCCESS;
   /* Same for a repeated CL_CONTEXT_PLATFORM whose second value is bad. */
   cl_context_properties twice_bad[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p,
                                        CL_CONTEXT_PLATFORM, (cl_context_properties)&junk, 0};
   assert_null(clCreateContext(twice_bad, 1, &d, NULL, NULL, &err));
   KNOWN_BUG(err == CL_INVALID_PROPERTY,
             "src/api/context.c parse_properties: {PLATFORM, p, PLATFORM, <bad>} gives "
             "CL_INVALID_PROPERTY; CL_INVALID_PLATFORM is listed first");
   assert_int_equal(err, CL_INVALID_PLATFORM);
}

/* ---- clCreateContextFromType ------------------------------------------ */

static void from_type_variants(void **state)
{
   (void)state;
   cl_platform_id p = kt_platform();
   cl_device_id d = kt_device();
   cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p, 0};
   const cl_device_type types[] = {CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_DEFAULT, CL_DEVICE_TYPE_ALL,
                                   CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU};
   for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
      cl_int err = -1;
      cl_context ctx = clCreateContextFromType(i % 2 ? props : NULL, types[i], NULL, NULL, &err);
      assert_int_equal(err, CL_SUCCESS);
      assert_non_null(ctx);
      cl_uint n = 0;
      kt_info_value(kt_context_info, ctx, CL_CONTEXT_NUM_DEVICES, &n, sizeof(n));
      assert_true(n >= 1);
      cl_device_id *devs = calloc(n, sizeof(*devs));
      kt_info_value(kt_context_info, ctx, CL_CONTEXT_DEVICES, devs, n * sizeof(*devs));
      bool found = false;
      for (cl_uint j = 0; j < n; j++)
         found |= devs[j] == d;
      free(devs);
      /* The CPU device matches all of these types. */
      assert_true(found);
      assert_int_equal(clReleaseContext(ctx), CL_SUCCESS);
   }
   int calls = 0;
   cl_context ctx = clCreateContextFromType(NULL, CL_DEVICE_TYPE_CPU, notify, &calls, NULL);
   assert_non_null(ctx);
   clReleaseContext(ctx);
}

static void expect_from_type_fails(const cl_context_properties *props, cl_device_type type,
                                   void *user, cl_int want)
{
   unsigned live = kiln_object_count_live(KILN_TYPE_CONTEXT);
   cl_int err = CL_SUCCESS;
   assert_null(clCreateContextFromType(props, type, NULL, user, &err));
   assert_int_equal(err, want);
   assert_null(clCreateContextFromType(props, type, NULL, user, NULL));
   assert_int_equal(kiln_object_count_live(KILN_TYPE_CONTEXT), live);
}

static void from_type_errors(void **state)
{
   (void)state;
   cl_platform_id p = kt_platform();
   int junk = 0, user = 0;
   cl_context_properties bad_platform[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)&junk, 0};
   cl_context_properties unknown[] = {0x1234, 1, 0};
   cl_context_properties twice[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p,
                                     CL_CONTEXT_PLATFORM, (cl_context_properties)p, 0};

   expect_from_type_fails(bad_platform, CL_DEVICE_TYPE_CPU, NULL, CL_INVALID_PLATFORM);
   expect_from_type_fails(unknown, CL_DEVICE_TYPE_CPU, NULL, CL_INVALID_PROPERTY);
   expect_from_type_fails(twice, CL_DEVICE_TYPE_CPU, NULL, CL_INVALID_PROPERTY);
   expect_from_type_fails(NULL, CL_DEVICE_TYPE_CPU, &user, CL_INVALID_VALUE);
   expect_from_type_fails(NULL, 0, NULL, CL_INVALID_DEVICE_TYPE);
   expect_from_type_fails(NULL, (cl_device_type)1 << 40, NULL, CL_INVALID_DEVICE_TYPE);
   /* CUSTOM: an unknown bit before 1.2, a type no Kiln device has after. */
   char version[64] = "";
   assert_int_equal(clGetPlatformInfo(p, CL_PLATFORM_VERSION, sizeof(version), version, NULL),
                    CL_SUCCESS);
   bool v12 = strncmp(version, "OpenCL 1.0", 10) && strncmp(version, "OpenCL 1.1", 10);
   expect_from_type_fails(NULL, CL_DEVICE_TYPE_CUSTOM, NULL,
                          v12 ? CL_DEVICE_NOT_FOUND : CL_INVALID_DEVICE_TYPE);

   cl_uint gpus = 0;
   if (clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 0, NULL, &gpus) == CL_DEVICE_NOT_FOUND)
      expect_from_type_fails(NULL, CL_DEVICE_TYPE_GPU, NULL, CL_DEVICE_NOT_FOUND);
   cl_uint accels = 0;
   if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ACCELERATOR, 0, NULL, &accels) == CL_DEVICE_NOT_FOUND)
      expect_from_type_fails(NULL, CL_DEVICE_TYPE_ACCELERATOR, NULL, CL_DEVICE_NOT_FOUND);

   /* Order: PLATFORM, PROPERTY, VALUE, DEVICE_TYPE, DEVICE_NOT_FOUND. */
   expect_from_type_fails(bad_platform, 0, &user, CL_INVALID_PLATFORM);
   expect_from_type_fails(unknown, 0, &user, CL_INVALID_PROPERTY);
   expect_from_type_fails(NULL, 0, &user, CL_INVALID_VALUE);
   expect_from_type_fails(NULL, CL_DEVICE_TYPE_ACCELERATOR, &user, CL_INVALID_VALUE);
}

/* ---- retain / release -------------------------------------------------- */

static void retain_release_counts(void **state)
{
   (void)state;
   unsigned live = kiln_object_count_live(KILN_TYPE_CONTEXT);
   cl_context ctx = kt_context();
   assert_int_equal(refcount(ctx), 1);
   assert_int_equal(clRetainContext(ctx), CL_SUCCESS);
   assert_int_equal(refcount(ctx), 2);
   assert_int_equal(clRetainContext(ctx), CL_SUCCESS);
   assert_int_equal(refcount(ctx), 3);
   assert_int_equal(clReleaseContext(ctx), CL_SUCCESS);
   assert_int_equal(refcount(ctx), 2);
   assert_int_equal(clReleaseContext(ctx), CL_SUCCESS);
   assert_int_equal(refcount(ctx), 1);
   assert_int_equal(kiln_object_count_live(KILN_TYPE_CONTEXT), live + 1);
   assert_int_equal(clReleaseContext(ctx), CL_SUCCESS);
   assert_int_equal(kiln_object_count_live(KILN_TYPE_CONTEXT), live);
   /* The handle is dead now: every use is CL_INVALID_CONTEXT. */
   cl_uint n = 0;
   assert_int_equal(clGetContextInfo(ctx, CL_CONTEXT_REFERENCE_COUNT, sizeof(n), &n, NULL),
                    CL_INVALID_CONTEXT);
   assert_int_equal(clRetainContext(ctx), CL_INVALID_CONTEXT);
   assert_int_equal(clReleaseContext(ctx), CL_INVALID_CONTEXT);
}

static void retain_release_invalid(void **state)
{
   (void)state;
   int junk = 0;
   cl_context released = kt_released_context();
   assert_int_equal(clRetainContext(NULL), CL_INVALID_CONTEXT);
   assert_int_equal(clReleaseContext(NULL), CL_INVALID_CONTEXT);
   assert_int_equal(clRetainContext((cl_context)&junk), CL_INVALID_CONTEXT);
   assert_int_equal(clReleaseContext((cl_context)&junk), CL_INVALID_CONTEXT);
   assert_int_equal(clRetainContext(released), CL_INVALID_CONTEXT);
   assert_int_equal(clReleaseContext(released), CL_INVALID_CONTEXT);
   assert_int_equal(clRetainContext((cl_context)kt_platform()), CL_INVALID_CONTEXT);
   assert_int_equal(clReleaseContext((cl_context)kt_device()), CL_INVALID_CONTEXT);
   assert_int_equal(junk, 0);
}

static void retain_release_wrong_type(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   assert_int_equal(clRetainContext((cl_context)q), CL_INVALID_CONTEXT);
   assert_int_equal(clReleaseContext((cl_context)q), CL_INVALID_CONTEXT);
   /* The queue was not touched by those calls. */
   cl_uint n = 0;
   kt_info_value(kt_queue_info, q, CL_QUEUE_REFERENCE_COUNT, &n, sizeof(n));
   assert_int_equal(n, 1);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

/* ---- clGetContextInfo -------------------------------------------------- */

static void info_values(void **state)
{
   (void)state;
   cl_device_id d = kt_device();
   cl_context ctx = kt_context();

   kt_check_info(kt_context_info, ctx, CL_CONTEXT_REFERENCE_COUNT, sizeof(cl_uint));
   kt_check_info(kt_context_info, ctx, CL_CONTEXT_NUM_DEVICES, sizeof(cl_uint));
   kt_check_info(kt_context_info, ctx, CL_CONTEXT_DEVICES, sizeof(cl_device_id));

   cl_uint n = 0;
   kt_info_value(kt_context_info, ctx, CL_CONTEXT_NUM_DEVICES, &n, sizeof(n));
   assert_int_equal(n, 1);
   cl_device_id got = NULL;
   kt_info_value(kt_context_info, ctx, CL_CONTEXT_DEVICES, &got, sizeof(got));
   assert_ptr_equal(got, d);

   /* Created with NULL properties: 1.1 allows a size of 0 or a lone 0. */
   size_t size = 99;
   assert_int_equal(clGetContextInfo(ctx, CL_CONTEXT_PROPERTIES, 0, NULL, &size), CL_SUCCESS);
   assert_true(size == 0 || size == sizeof(cl_context_properties));
   if (size) {
      cl_context_properties zero = 1;
      assert_int_equal(clGetContextInfo(ctx, CL_CONTEXT_PROPERTIES, sizeof(zero), &zero, NULL),
                       CL_SUCCESS);
      assert_int_equal(zero, 0);
   }
   clReleaseContext(ctx);
}

static void info_properties_round_trip(void **state)
{
   (void)state;
   cl_platform_id p = kt_platform();
   cl_device_id d = kt_device();
   cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p, 0};

   cl_context a = clCreateContext(props, 1, &d, NULL, NULL, NULL);
   cl_context b = clCreateContextFromType(props, CL_DEVICE_TYPE_CPU, NULL, NULL, NULL);
   assert_non_null(a);
   assert_non_null(b);
   /* The context keeps its own copy. */
   props[1] = 0;
   props[0] = 0x5555;
   cl_context both[] = {a, b};
   for (int i = 0; i < 2; i++) {
      kt_check_info(kt_context_info, both[i], CL_CONTEXT_PROPERTIES,
                    3 * sizeof(cl_context_properties));
      cl_context_properties got[3] = {1, 1, 1};
      kt_info_value(kt_context_info, both[i], CL_CONTEXT_PROPERTIES, got, sizeof(got));
      assert_int_equal(got[0], CL_CONTEXT_PLATFORM);
      assert_int_equal(got[1], (cl_context_properties)p);
      assert_int_equal(got[2], 0);
   }
   clReleaseContext(a);
   clReleaseContext(b);
}

static void info_errors(void **state)
{
   (void)state;
   int junk = 0;
   cl_uint n = 0;
   cl_context released = kt_released_context();
   assert_int_equal(clGetContextInfo(NULL, CL_CONTEXT_REFERENCE_COUNT, sizeof(n), &n, NULL),
                    CL_INVALID_CONTEXT);
   assert_int_equal(clGetContextInfo((cl_context)&junk, CL_CONTEXT_REFERENCE_COUNT, sizeof(n),
                                     &n, NULL),
                    CL_INVALID_CONTEXT);
   assert_int_equal(clGetContextInfo(released, CL_CONTEXT_REFERENCE_COUNT, sizeof(n), &n, NULL),
                    CL_INVALID_CONTEXT);
   assert_int_equal(clGetContextInfo((cl_context)kt_device(), CL_CONTEXT_REFERENCE_COUNT,
                                     sizeof(n), &n, NULL),
                    CL_INVALID_CONTEXT);
   assert_int_equal(clGetContextInfo((cl_context)kt_platform(), CL_CONTEXT_REFERENCE_COUNT,
                                     sizeof(n), &n, NULL),
                    CL_INVALID_CONTEXT);

   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   assert_int_equal(clGetContextInfo((cl_context)q, CL_CONTEXT_REFERENCE_COUNT, sizeof(n), &n,
                                     NULL),
                    CL_INVALID_CONTEXT);
   /* Context error before param_name error. */
   assert_int_equal(clGetContextInfo((cl_context)q, 0xdead, sizeof(n), &n, NULL),
                    CL_INVALID_CONTEXT);
   assert_int_equal(n, 0);

   const cl_uint bad[] = {0, 0x107f, 0x1085, 0xdead, CL_DEVICE_NAME, CL_QUEUE_CONTEXT};
   char buf[64];
   size_t ret = 0;
   for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
      assert_int_equal(clGetContextInfo(ctx, bad[i], sizeof(buf), buf, NULL), CL_INVALID_VALUE);
      assert_int_equal(clGetContextInfo(ctx, bad[i], 0, NULL, &ret), CL_INVALID_VALUE);
   }
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(create_variants),
      cmocka_unit_test(create_duplicate_device_kept_once),
      cmocka_unit_test(create_notify_gets_user_data),
      cmocka_unit_test(create_invalid_platform),
      cmocka_unit_test(create_invalid_property),
      cmocka_unit_test(create_invalid_value),
      cmocka_unit_test(create_invalid_device),
      cmocka_unit_test(create_error_order),
      cmocka_unit_test(create_error_order_duplicate),
      cmocka_unit_test(from_type_variants),
      cmocka_unit_test(from_type_errors),
      cmocka_unit_test(retain_release_counts),
      cmocka_unit_test(retain_release_invalid),
      cmocka_unit_test(retain_release_wrong_type),
      cmocka_unit_test(info_values),
      cmocka_unit_test(info_properties_round_trip),
      cmocka_unit_test(info_errors),
   };
   return cmocka_run_group_tests_name("context", tests, NULL, NULL);
}
