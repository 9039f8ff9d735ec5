/* clCreateCommandQueue, clRetainCommandQueue, clReleaseCommandQueue,
 * clGetCommandQueueInfo, clSetCommandQueueProperty, clFlush, clFinish
 * (OpenCL 1.1 section 5.1). */
#include "kiln_test.h"

#include <stdlib.h>
#include <unistd.h>

#include "core/device.h"
#include "core/object.h"

static cl_uint refcount(cl_command_queue q)
{
   cl_uint n = 0;
   kt_info_value(kt_queue_info, q, CL_QUEUE_REFERENCE_COUNT, &n, sizeof(n));
   return n;
}

static cl_command_queue_properties props_of(cl_command_queue q)
{
   cl_command_queue_properties p = 0xdead;
   kt_info_value(kt_queue_info, q, CL_QUEUE_PROPERTIES, &p, sizeof(p));
   return p;
}

/* ---- clCreateCommandQueue ---------------------------------------------- */

static void create_each_property_set(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_device_id d = kt_device();
   unsigned live = kiln_object_count_live(KILN_TYPE_QUEUE);
   const cl_command_queue_properties sets[] = {
      0, CL_QUEUE_PROFILING_ENABLE, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
      CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE};
   cl_command_queue qs[4];
   for (int i = 0; i < 4; i++) {
      cl_int err = -1;
      qs[i] = clCreateCommandQueue(ctx, d, sets[i], &err);
      assert_int_equal(err, CL_SUCCESS);
      assert_non_null(qs[i]);
      assert_int_equal(props_of(qs[i]), sets[i]);
   }
   /* errcode_ret may be NULL. */
   cl_command_queue extra = clCreateCommandQueue(ctx, d, 0, NULL);
   assert_non_null(extra);
   assert_int_equal(kiln_object_count_live(KILN_TYPE_QUEUE), live + 5);
   for (int i = 0; i < 4; i++)
      assert_int_equal(clReleaseCommandQueue(qs[i]), CL_SUCCESS);
   assert_int_equal(clReleaseCommandQueue(extra), CL_SUCCESS);
   assert_int_equal(kiln_object_count_live(KILN_TYPE_QUEUE), live);
   clReleaseContext(ctx);
}

static void expect_create_fails(cl_context ctx, cl_device_id dev,
                                cl_command_queue_properties props, cl_int want)
{
   unsigned live = kiln_object_count_live(KILN_TYPE_QUEUE);
   cl_int err = CL_SUCCESS;
   assert_null(clCreateCommandQueue(ctx, dev, props, &err));
   assert_int_equal(err, want);
   assert_null(clCreateCommandQueue(ctx, dev, props, NULL));
   assert_int_equal(kiln_object_count_live(KILN_TYPE_QUEUE), live);
}

static void create_invalid_context(void **state)
{
   (void)state;
   cl_device_id d = kt_device();
   int junk = 0;
   cl_context released = kt_released_context();
   expect_create_fails(released, d, 0, CL_INVALID_CONTEXT);
   expect_create_fails(NULL, d, 0, CL_INVALID_CONTEXT);
   expect_create_fails((cl_context)&junk, d, 0, CL_INVALID_CONTEXT);
   expect_create_fails((cl_context)d, d, 0, CL_INVALID_CONTEXT);
   expect_create_fails((cl_context)kt_platform(), d, 0, CL_INVALID_CONTEXT);
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   expect_create_fails((cl_context)q, d, 0, CL_INVALID_CONTEXT);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

static void create_invalid_device(void **state)
{
   (void)state;
   int junk = 0;
   cl_context ctx = kt_context();
   expect_create_fails(ctx, NULL, 0, CL_INVALID_DEVICE);
   expect_create_fails(ctx, (cl_device_id)&junk, 0, CL_INVALID_DEVICE);
   expect_create_fails(ctx, (cl_device_id)kt_platform(), 0, CL_INVALID_DEVICE);
   expect_create_fails(ctx, (cl_device_id)ctx, 0, CL_INVALID_DEVICE);
   clReleaseContext(ctx);
}

static void create_device_not_in_context(void **state)
{
   (void)state;
   /* Kiln has one device here, so make a second, valid device handle on
    * the same screen that the context does not hold. */
   cl_device_id d = kt_device();
   cl_device_id other = kiln_device_create(kt_platform(), d->screen);
   assert_non_null(other);
   cl_context ctx = kt_context();
   expect_create_fails(ctx, other, 0, CL_INVALID_DEVICE);
   /* ... while a context made with it accepts it. */
   cl_context ctx2 = clCreateContext(NULL, 1, &other, NULL, NULL, NULL);
   assert_non_null(ctx2);
   cl_int err = -1;
   cl_command_queue q = clCreateCommandQueue(ctx2, other, 0, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_non_null(q);
   expect_create_fails(ctx2, d, 0, CL_INVALID_DEVICE);
   unsigned contexts = kiln_object_count_live(KILN_TYPE_CONTEXT);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx2);
   clReleaseContext(ctx);
   /* Devices are never destroyed by core; drop this one by hand, but only
    * once ctx2 is gone: the executor thread may still hold it (through the
    * queue's last event) and reads its devices when it goes. */
   for (int i = 0; i < 400 && kiln_object_count_live(KILN_TYPE_CONTEXT) > contexts - 2; i++)
      usleep(5000);
   kiln_device_destroy(other);
}

/* A device whose driver supports profiling but not out-of-order queues,
 * made from a copy of the CPU screen, for CL_INVALID_QUEUE_PROPERTIES. */
static cl_device_id in_order_only_device(struct pipe_screen *copy)
{
   *copy = *kt_device()->screen;
   copy->caps.queue_properties = CL_QUEUE_PROFILING_ENABLE;
   cl_device_id dev = kiln_device_create(kt_platform(), copy);
   assert_non_null(dev);
   return dev;
}

static void unsupported_queue_properties(void **state)
{
   (void)state;
   struct pipe_screen screen;
   cl_device_id dev = in_order_only_device(&screen);
   cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, NULL);
   assert_non_null(ctx);

   expect_create_fails(ctx, dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                       CL_INVALID_QUEUE_PROPERTIES);
   expect_create_fails(ctx, dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                                    CL_QUEUE_PROFILING_ENABLE,
                       CL_INVALID_QUEUE_PROPERTIES);
   /* Not valid at all beats valid but unsupported. */
   expect_create_fails(ctx, dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                                    ((cl_command_queue_properties)1 << 40),
                       CL_INVALID_VALUE);

   cl_int err = -1;
   cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
   assert_int_equal(err, CL_SUCCESS);
   cl_command_queue_properties old = 0x77;
   assert_int_equal(clSetCommandQueueProperty(q, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, CL_TRUE,
                                              &old),
                    CL_INVALID_QUEUE_PROPERTIES);
   assert_int_equal(clSetCommandQueueProperty(q, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                                                    ((cl_command_queue_properties)1 << 40),
                                              CL_TRUE, &old),
                    CL_INVALID_VALUE);
   assert_int_equal(old, 0x77);
   assert_int_equal(props_of(q), CL_QUEUE_PROFILING_ENABLE);
   /* What the device supports still works. */
   assert_int_equal(clSetCommandQueueProperty(q, CL_QUEUE_PROFILING_ENABLE, CL_FALSE, &old),
                    CL_SUCCESS);
   assert_int_equal(old, CL_QUEUE_PROFILING_ENABLE);

   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
   kiln_device_destroy(dev);
}

static void create_invalid_properties(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_device_id d = kt_device();
   /* Bits outside table 5.1, including 2.0's CL_QUEUE_ON_DEVICE. */
   expect_create_fails(ctx, d, (cl_command_queue_properties)1 << 2, CL_INVALID_VALUE);
   expect_create_fails(ctx, d, CL_QUEUE_PROFILING_ENABLE | ((cl_command_queue_properties)1 << 40),
                       CL_INVALID_VALUE);
   expect_create_fails(ctx, d, ~(cl_command_queue_properties)0, CL_INVALID_VALUE);
   expect_create_fails(ctx, d, CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT, CL_INVALID_VALUE);
   clReleaseContext(ctx);
}

static void create_error_order(void **state)
{
   (void)state;
   int junk = 0;
   cl_context ctx = kt_context();
   cl_command_queue_properties bad = (cl_command_queue_properties)1 << 40;
   /* CONTEXT, DEVICE, VALUE. */
   expect_create_fails((cl_context)&junk, (cl_device_id)&junk, bad, CL_INVALID_CONTEXT);
   expect_create_fails(NULL, NULL, bad, CL_INVALID_CONTEXT);
   expect_create_fails(ctx, (cl_device_id)&junk, bad, CL_INVALID_DEVICE);
   expect_create_fails(ctx, NULL, bad, CL_INVALID_DEVICE);
   clReleaseContext(ctx);
}

/* ---- retain / release -------------------------------------------------- */

static void retain_release_counts(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   unsigned live = kiln_object_count_live(KILN_TYPE_QUEUE);
   cl_command_queue q = kt_queue(ctx, 0);
   assert_int_equal(refcount(q), 1);
   assert_int_equal(clRetainCommandQueue(q), CL_SUCCESS);
   assert_int_equal(refcount(q), 2);
   assert_int_equal(clRetainCommandQueue(q), CL_SUCCESS);
   assert_int_equal(refcount(q), 3);
   assert_int_equal(clReleaseCommandQueue(q), CL_SUCCESS);
   assert_int_equal(refcount(q), 2);
   assert_int_equal(clReleaseCommandQueue(q), CL_SUCCESS);
   assert_int_equal(refcount(q), 1);
   assert_int_equal(clReleaseCommandQueue(q), CL_SUCCESS);
   assert_int_equal(kiln_object_count_live(KILN_TYPE_QUEUE), live);
   assert_int_equal(clRetainCommandQueue(q), CL_INVALID_COMMAND_QUEUE);
   assert_int_equal(clReleaseCommandQueue(q), CL_INVALID_COMMAND_QUEUE);
   clReleaseContext(ctx);
}

static void queue_outlives_context_release(void **state)
{
   (void)state;
   /* A queue keeps its context's memory alive after the application's
    * last clReleaseContext ("deleted once ... all the objects attached
    * to context are released"); ASan's leak check sees it freed when the
    * queue goes. */
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, CL_QUEUE_PROFILING_ENABLE);
   assert_int_equal(clReleaseContext(ctx), CL_SUCCESS);
   cl_context got = NULL;
   kt_info_value(kt_queue_info, q, CL_QUEUE_CONTEXT, &got, sizeof(got));
   assert_ptr_equal(got, ctx);
   assert_int_equal(clFlush(q), CL_SUCCESS);
   assert_int_equal(clFinish(q), CL_SUCCESS);
   assert_int_equal(props_of(q), CL_QUEUE_PROFILING_ENABLE);
   assert_int_equal(clReleaseCommandQueue(q), CL_SUCCESS);
}

/* Each entry point that takes only a queue, against every kind of bad
 * handle. */
static void invalid_queue_everywhere(void **state)
{
   (void)state;
   int junk = 0;
   cl_command_queue released = kt_released_queue();
   cl_context ctx = kt_context();
   cl_command_queue bad[] = {NULL, (cl_command_queue)&junk, released, (cl_command_queue)ctx,
                             (cl_command_queue)kt_device(), (cl_command_queue)kt_platform()};
   for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
      cl_command_queue q = bad[i];
      cl_uint n = 0;
      cl_command_queue_properties old = 0x77;
      assert_int_equal(clRetainCommandQueue(q), CL_INVALID_COMMAND_QUEUE);
      assert_int_equal(clReleaseCommandQueue(q), CL_INVALID_COMMAND_QUEUE);
      assert_int_equal(clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof(n), &n, NULL),
                       CL_INVALID_COMMAND_QUEUE);
      /* Queue error before param_name error. */
      assert_int_equal(clGetCommandQueueInfo(q, 0xdead, sizeof(n), &n, NULL),
                       CL_INVALID_COMMAND_QUEUE);
      assert_int_equal(clSetCommandQueueProperty(q, CL_QUEUE_PROFILING_ENABLE, CL_TRUE, &old),
                       CL_INVALID_COMMAND_QUEUE);
      /* Queue error before properties error. */
      assert_int_equal(clSetCommandQueueProperty(q, (cl_command_queue_properties)1 << 40,
                                                 CL_TRUE, &old),
                       CL_INVALID_COMMAND_QUEUE);
      assert_int_equal(clFlush(q), CL_INVALID_COMMAND_QUEUE);
      assert_int_equal(clFinish(q), CL_INVALID_COMMAND_QUEUE);
      assert_int_equal(n, 0);
      assert_int_equal(old, 0x77);
   }
   /* The context was not touched by being passed as a queue. */
   cl_uint n = 0;
   kt_info_value(kt_context_info, ctx, CL_CONTEXT_REFERENCE_COUNT, &n, sizeof(n));
   assert_int_equal(n, 1);
   clReleaseContext(ctx);
}

/* ---- clGetCommandQueueInfo --------------------------------------------- */

static void info_values(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_device_id d = kt_device();
   cl_command_queue q = kt_queue(ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);

   kt_check_info(kt_queue_info, q, CL_QUEUE_CONTEXT, sizeof(cl_context));
   kt_check_info(kt_queue_info, q, CL_QUEUE_DEVICE, sizeof(cl_device_id));
   kt_check_info(kt_queue_info, q, CL_QUEUE_REFERENCE_COUNT, sizeof(cl_uint));
   kt_check_info(kt_queue_info, q, CL_QUEUE_PROPERTIES, sizeof(cl_command_queue_properties));

   cl_context c = NULL;
   kt_info_value(kt_queue_info, q, CL_QUEUE_CONTEXT, &c, sizeof(c));
   assert_ptr_equal(c, ctx);
   cl_device_id dev = NULL;
   kt_info_value(kt_queue_info, q, CL_QUEUE_DEVICE, &dev, sizeof(dev));
   assert_ptr_equal(dev, d);
   assert_int_equal(refcount(q), 1);
   assert_int_equal(props_of(q), CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);

   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

static void info_invalid_param(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   char buf[64];
   size_t ret = 0;
   /* 0x1094-0x1095 and 0x1098 are 3.0 queries (CL_QUEUE_SIZE on a host
    * queue: CL_INVALID_COMMAND_QUEUE); 0x1099 names nothing. */
   const cl_uint bad[] = {0, 0x108f, 0x1099, 0xdead, CL_CONTEXT_DEVICES, CL_DEVICE_NAME};
   for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
      assert_int_equal(clGetCommandQueueInfo(q, bad[i], sizeof(buf), buf, &ret),
                       CL_INVALID_VALUE);
      assert_int_equal(clGetCommandQueueInfo(q, bad[i], 0, NULL, &ret), CL_INVALID_VALUE);
   }
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

/* ---- clSetCommandQueueProperty ----------------------------------------- */

static void set_property_returns_old(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   cl_command_queue_properties old = 0xdead;

   assert_int_equal(clSetCommandQueueProperty(q, CL_QUEUE_PROFILING_ENABLE, CL_TRUE, &old),
                    CL_SUCCESS);
   assert_int_equal(old, 0);
   assert_int_equal(props_of(q), CL_QUEUE_PROFILING_ENABLE);

   assert_int_equal(clSetCommandQueueProperty(q, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, CL_TRUE,
                                              &old),
                    CL_SUCCESS);
   assert_int_equal(old, CL_QUEUE_PROFILING_ENABLE);
   assert_int_equal(props_of(q),
                    CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);

   /* Disabling clears only the bits named. */
   assert_int_equal(clSetCommandQueueProperty(q, CL_QUEUE_PROFILING_ENABLE, CL_FALSE, &old),
                    CL_SUCCESS);
   assert_int_equal(old, CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
   assert_int_equal(props_of(q), CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);

   /* old_properties may be NULL; enabling what is set changes nothing. */
   assert_int_equal(clSetCommandQueueProperty(q, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, CL_TRUE,
                                              NULL),
                    CL_SUCCESS);
   assert_int_equal(props_of(q), CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);

   /* Empty set: a query of the current properties. */
   assert_int_equal(clSetCommandQueueProperty(q, 0, CL_FALSE, &old), CL_SUCCESS);
   assert_int_equal(old, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
   assert_int_equal(props_of(q), CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);

   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

static void set_property_invalid_value(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, CL_QUEUE_PROFILING_ENABLE);
   cl_command_queue_properties old = 0x77;
   const cl_command_queue_properties bad[] = {
      (cl_command_queue_properties)1 << 2,
      CL_QUEUE_PROFILING_ENABLE | ((cl_command_queue_properties)1 << 40),
      ~(cl_command_queue_properties)0,
   };
   for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
      assert_int_equal(clSetCommandQueueProperty(q, bad[i], CL_TRUE, &old), CL_INVALID_VALUE);
      assert_int_equal(clSetCommandQueueProperty(q, bad[i], CL_FALSE, &old), CL_INVALID_VALUE);
   }
   /* A failed call changes nothing and reports nothing. */
   assert_int_equal(old, 0x77);
   assert_int_equal(props_of(q), CL_QUEUE_PROFILING_ENABLE);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

/* ---- clFlush / clFinish ------------------------------------------------ */

static void flush_finish_empty_queue(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_command_queue in_order = kt_queue(ctx, 0);
   cl_command_queue ooo = kt_queue(ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
   for (int i = 0; i < 3; i++) {
      assert_int_equal(clFlush(in_order), CL_SUCCESS);
      assert_int_equal(clFinish(in_order), CL_SUCCESS);
      assert_int_equal(clFinish(ooo), CL_SUCCESS);
      assert_int_equal(clFlush(ooo), CL_SUCCESS);
   }
   clReleaseCommandQueue(in_order);
   clReleaseCommandQueue(ooo);
   clReleaseContext(ctx);
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(create_each_property_set),
      cmocka_unit_test(create_invalid_context),
      cmocka_unit_test(create_invalid_device),
      cmocka_unit_test(create_device_not_in_context),
      cmocka_unit_test(create_invalid_properties),
      cmocka_unit_test(unsupported_queue_properties),
      cmocka_unit_test(create_error_order),
      cmocka_unit_test(retain_release_counts),
      cmocka_unit_test(queue_outlives_context_release),
      cmocka_unit_test(invalid_queue_everywhere),
      cmocka_unit_test(info_values),
      cmocka_unit_test(info_invalid_param),
      cmocka_unit_test(set_property_returns_old),
      cmocka_unit_test(set_property_invalid_value),
      cmocka_unit_test(flush_finish_empty_queue),
   };
   return cmocka_run_group_tests_name("queue", tests, NULL, NULL);
}
