/* cl_khr_icd: the dispatch table in every handle, clIcdGetPlatformIDsKHR
 * and clGetExtensionFunctionAddress. */
#include "kiln_test.h"

#include <CL/cl_gl.h>
#include <CL/cl_icd.h>

/* The loader reads the first word of a handle as the table. */
static const cl_icd_dispatch *dispatch_of(const void *handle)
{
   return *(const cl_icd_dispatch *const *)handle;
}

static void icd_get_platform_ids(void **state)
{
   (void)state;
   /* What the loader calls first, before anything else in Kiln ran. */
   cl_uint n = 0;
   assert_int_equal(clIcdGetPlatformIDsKHR(0, NULL, &n), CL_SUCCESS);
   assert_int_equal(n, 1);
   cl_platform_id p = NULL;
   assert_int_equal(clIcdGetPlatformIDsKHR(1, &p, &n), CL_SUCCESS);
   assert_non_null(p);
   assert_ptr_equal(p, kt_platform());
   assert_non_null(dispatch_of(p));

   /* cl_khr_icd's CL_INVALID_VALUE cases. */
   cl_platform_id q = NULL;
   assert_int_equal(clIcdGetPlatformIDsKHR(0, &q, &n), CL_INVALID_VALUE);
   assert_int_equal(clIcdGetPlatformIDsKHR(0, NULL, NULL), CL_INVALID_VALUE);
   assert_int_equal(clIcdGetPlatformIDsKHR(1, NULL, NULL), CL_INVALID_VALUE);
   assert_null(q);
}

static void every_slot_filled(void **state)
{
   (void)state;
   const cl_icd_dispatch *d = dispatch_of(kt_platform());
   assert_non_null(d);
   /* Every member is a function pointer (or a void * placeholder for
    * ones the header does not type), so the table can be walked as an
    * array of pointers. */
   void *const *slots = (void *const *)d;
   size_t n = sizeof(*d) / sizeof(void *);
   assert_int_equal(n * sizeof(void *), sizeof(*d));
   for (size_t i = 0; i < n; i++)
      if (!slots[i])
         fail_msg("dispatch slot %zu is NULL", i);
}

static void implemented_slots_are_the_entry_points(void **state)
{
   (void)state;
   const cl_icd_dispatch *d = dispatch_of(kt_platform());
#define SAME(name) assert_ptr_equal((void *)d->name, (void *)name)
   SAME(clGetPlatformIDs);
   SAME(clGetPlatformInfo);
   SAME(clGetDeviceIDs);
   SAME(clGetDeviceInfo);
   SAME(clCreateContext);
   SAME(clCreateContextFromType);
   SAME(clRetainContext);
   SAME(clReleaseContext);
   SAME(clGetContextInfo);
   SAME(clCreateCommandQueue);
   SAME(clRetainCommandQueue);
   SAME(clReleaseCommandQueue);
   SAME(clGetCommandQueueInfo);
   SAME(clSetCommandQueueProperty);
   SAME(clFlush);
   SAME(clFinish);
   SAME(clGetExtensionFunctionAddress);
#undef SAME
}

static void every_handle_shares_the_table(void **state)
{
   (void)state;
   const cl_icd_dispatch *d = dispatch_of(kt_platform());
   cl_device_id dev = kt_device();
   cl_context ctx = kt_context();
   cl_context ctx2 = clCreateContextFromType(NULL, CL_DEVICE_TYPE_ALL, NULL, NULL, NULL);
   assert_non_null(ctx2);
   cl_command_queue q = kt_queue(ctx, 0);
   assert_ptr_equal(dispatch_of(dev), d);
   assert_ptr_equal(dispatch_of(ctx), d);
   assert_ptr_equal(dispatch_of(ctx2), d);
   assert_ptr_equal(dispatch_of(q), d);

   /* A call through the table reaches Kiln, as a loader's would. */
   cl_uint n = 0;
   assert_int_equal(d->clGetContextInfo(ctx, CL_CONTEXT_NUM_DEVICES, sizeof(n), &n, NULL),
                    CL_SUCCESS);
   assert_int_equal(n, 1);
   assert_int_equal(d->clFinish(q), CL_SUCCESS);

   clReleaseCommandQueue(q);
   clReleaseContext(ctx2);
   clReleaseContext(ctx);
}

static void stubs_return_invalid_operation(void **state)
{
   (void)state;
   const cl_icd_dispatch *d = dispatch_of(kt_platform());
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   cl_int err = CL_SUCCESS;

   /* Stubs that stay stubs while Kiln has no OpenGL support:
    * handle-returning ones give NULL and the error through errcode_ret. */
   assert_null(d->clCreateFromGLBuffer(ctx, CL_MEM_READ_WRITE, 1, &err));
   assert_int_equal(err, CL_INVALID_OPERATION);
   err = CL_SUCCESS;
   assert_null(d->clCreateFromGLTexture2D(ctx, CL_MEM_READ_WRITE, 0, 0, 1, &err));
   assert_int_equal(err, CL_INVALID_OPERATION);
   /* ... and errcode_ret NULL is fine. */
   assert_null(d->clCreateFromGLBuffer(ctx, CL_MEM_READ_WRITE, 1, NULL));

   /* cl_int stubs. */
   assert_int_equal(d->clEnqueueAcquireGLObjects(q, 0, NULL, 0, NULL, NULL),
                    CL_INVALID_OPERATION);
   assert_int_equal(d->clGetGLObjectInfo(NULL, NULL, NULL), CL_INVALID_OPERATION);

   /* Pointer-returning stubs. */
   assert_null(d->clGetExtensionFunctionAddressForPlatform(kt_platform(), "clFoo"));
   /* clSVMAlloc's slot: size 0 is refused (exec_svm tests the rest). */
   assert_null(d->clSVMAlloc(ctx, CL_MEM_READ_WRITE, 0, 0));

   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

static void extension_function_address(void **state)
{
   (void)state;
   void *f = clGetExtensionFunctionAddress("clIcdGetPlatformIDsKHR");
   assert_non_null(f);
   assert_ptr_equal(f, (void *)clIcdGetPlatformIDsKHR);
   /* ocl-icd finds clGetPlatformInfo this way (it is not exported). */
   assert_ptr_equal(clGetExtensionFunctionAddress("clGetPlatformInfo"), (void *)clGetPlatformInfo);

   assert_null(clGetExtensionFunctionAddress(NULL));
   assert_null(clGetExtensionFunctionAddress(""));
   assert_null(clGetExtensionFunctionAddress("clNoSuchFunctionKILN"));
   assert_null(clGetExtensionFunctionAddress("clIcdGetPlatformIDsKHRx"));
   assert_null(clGetExtensionFunctionAddress("clIcdGetPlatformIDs"));
   assert_null(clGetExtensionFunctionAddress("clicdgetplatformidskhr"));
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(icd_get_platform_ids),
      cmocka_unit_test(every_slot_filled),
      cmocka_unit_test(implemented_slots_are_the_entry_points),
      cmocka_unit_test(every_handle_shares_the_table),
      cmocka_unit_test(stubs_return_invalid_operation),
      cmocka_unit_test(extension_function_address),
   };
   return cmocka_run_group_tests_name("icd", tests, NULL, NULL);
}
