/* The CUDA device as an OpenCL 3.0 device, over the fake libcuda
 * (KILN_DEVICES=cuda): every 3.0 query answers what the nvptx compiler
 * and the CUDA driver really do (docs/cuda.md, "OpenCL 3.0"), each
 * optional feature it lacks fails with the error 3.0 gives for it, and
 * -cl-std=CL3.0 programs see exactly the device's feature macros: one
 * that checks each macro builds (with the C11 atomics' orders carried
 * out by fences in its PTX), and one that assumes a feature the device
 * lacks does not.  OpenCL C 1.2 programs build as before. */
#define CL_TARGET_OPENCL_VERSION 300
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <CL/cl.h>
#include <CL/cl_ext.h> /* CL_DEVICE_HALF_FP_CONFIG */

#include "fake_cuda.h"
#include "fake_cuda_cl.h"

static cl_device_id device;
static cl_context ctx;

static int setup(void **state)
{
   (void)state;
   if (fake_cuda_cl_open(1, NULL, &device, 1)) /* one H100: sm_90 */
      return -1;
   /* The kernels built below: their arguments and the four hidden
    * parameters (global offset x, y, z, work_dim). */
   static const unsigned k30_sizes[] = {8, 8, 8, 8, 8, 8, 8, 4};
   static const unsigned k12_sizes[] = {8, 8, 8, 8, 4};
   fake_cuda_define_kernel("k30", 8, k30_sizes, NULL);
   fake_cuda_define_kernel("k12", 5, k12_sizes, NULL);
   cl_int err;
   ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
   return err == CL_SUCCESS ? 0 : -1;
}

static int teardown(void **state)
{
   (void)state;
   clReleaseContext(ctx);
   return 0;
}

static void *query(cl_device_info p, size_t *size)
{
   assert_int_equal(clGetDeviceInfo(device, p, 0, NULL, size), CL_SUCCESS);
   void *v = calloc(1, *size + 1);
   assert_non_null(v);
   assert_int_equal(clGetDeviceInfo(device, p, *size, v, NULL), CL_SUCCESS);
   return v;
}

static cl_ulong query_ulong(cl_device_info p)
{
   size_t size;
   void *v = query(p, &size);
   cl_ulong u = 0;
   if (size == sizeof(cl_uint))
      u = *(cl_uint *)v;
   else if (size == sizeof(cl_ulong))
      u = *(cl_ulong *)v;
   else
      fail_msg("query 0x%x: %zu bytes", p, size);
   free(v);
   return u;
}

static bool listed(const cl_name_version *v, size_t n, const char *name, cl_version ver)
{
   for (size_t i = 0; i < n; i++)
      if (!strcmp(v[i].name, name) && v[i].version == ver)
         return true;
   return false;
}

static void test_version(void **state)
{
   (void)state;
   size_t size;
   char *ver = query(CL_DEVICE_VERSION, &size);
   assert_true(!strncmp(ver, "OpenCL 3.0 ", 11));
   cl_version num = 0;
   assert_int_equal(clGetDeviceInfo(device, CL_DEVICE_NUMERIC_VERSION, sizeof(num), &num, NULL),
                    CL_SUCCESS);
   assert_int_equal(num, CL_MAKE_VERSION(3, 0, 0));
   /* 1.2 stays the newest version all of whose features it has. */
   char *cver = query(CL_DEVICE_OPENCL_C_VERSION, &size);
   assert_true(!strncmp(cver, "OpenCL C 1.2 ", 13));
   cl_name_version *cv = query(CL_DEVICE_OPENCL_C_ALL_VERSIONS, &size);
   assert_int_equal(size, 4 * sizeof(*cv));
   for (unsigned m = 0; m <= 2; m++)
      assert_true(listed(cv, 4, "OpenCL C", CL_MAKE_VERSION(1, m, 0)));
   assert_true(listed(cv, 4, "OpenCL C", CL_MAKE_VERSION(3, 0, 0)));
   char *conf = query(CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED, &size);
   assert_string_equal(conf, "v0000-01-01-00"); /* never submitted */
   free(ver), free(cver), free(cv), free(conf);
}

/* Exactly these features: what cl30_nvptx.cl, libclc and the driver do. */
static void test_features(void **state)
{
   (void)state;
   static const char *const want[] = {
      "__opencl_c_int64",
      "__opencl_c_images",
      "__opencl_c_3d_image_writes",
      "__opencl_c_fp64",
      "__opencl_c_atomic_order_acq_rel",
      "__opencl_c_atomic_order_seq_cst",
      "__opencl_c_atomic_scope_device",
   };
   const size_t n_want = sizeof(want) / sizeof(want[0]);
   size_t size;
   cl_name_version *fv = query(CL_DEVICE_OPENCL_C_FEATURES, &size);
   size_t n = size / sizeof(*fv);
   for (size_t i = 0; i < n; i++)
      fprintf(stderr, "feature %s\n", fv[i].name);
   assert_int_equal(n, n_want);
   for (size_t i = 0; i < n_want; i++)
      assert_true(listed(fv, n, want[i], CL_MAKE_VERSION(3, 0, 0)));
   free(fv);
}

static void test_atomic_caps(void **state)
{
   (void)state;
   const cl_device_atomic_capabilities mem =
      CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
      CL_DEVICE_ATOMIC_ORDER_SEQ_CST | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP |
      CL_DEVICE_ATOMIC_SCOPE_DEVICE;
   assert_int_equal(query_ulong(CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES), mem);
   assert_int_equal(query_ulong(CL_DEVICE_ATOMIC_FENCE_CAPABILITIES),
                    mem | CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM);
}

/* Every optional feature the CUDA device lacks reads as absent. */
static void test_absent_features(void **state)
{
   (void)state;
   static const cl_device_info zero[] = {
      CL_DEVICE_SVM_CAPABILITIES,
      CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT,
      CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT,
      CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT,
      CL_DEVICE_PIPE_SUPPORT,
      CL_DEVICE_MAX_NUM_SUB_GROUPS,
      CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS,
      CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES,
      CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES,
      CL_DEVICE_MAX_ON_DEVICE_QUEUES,
      CL_DEVICE_MAX_PIPE_ARGS,
      CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS,
      CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE,
      CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE,
      CL_DEVICE_HALF_FP_CONFIG,
   };
   for (size_t i = 0; i < sizeof(zero) / sizeof(zero[0]); i++) {
      cl_ulong v = query_ulong(zero[i]);
      if (v)
         fail_msg("query 0x%x is %llu", zero[i], (unsigned long long)v);
   }
   assert_true(query_ulong(CL_DEVICE_DOUBLE_FP_CONFIG) != 0);
   size_t size;
   char *il = query(CL_DEVICE_IL_VERSION, &size);
   assert_int_equal(size, 1);
   free(il);
   free(query(CL_DEVICE_ILS_WITH_VERSION, &size));
   assert_int_equal(size, 0);
   free(query(CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION, &size));
   assert_int_equal(size, 0);
   /* The extensions: the string and the versioned list agree, no
    * sub-groups, no half. */
   char *ext = query(CL_DEVICE_EXTENSIONS, &size);
   cl_name_version *ev = query(CL_DEVICE_EXTENSIONS_WITH_VERSION, &size);
   size_t n = size / sizeof(*ev), words = 0;
   for (char *w = strtok(ext, " "); w; w = strtok(NULL, " ")) {
      bool found = false;
      for (size_t i = 0; i < n; i++)
         found |= !strcmp(ev[i].name, w);
      assert_true(found);
      assert_true(strcmp(w, "cl_khr_subgroups") && strcmp(w, "cl_khr_fp16"));
      words++;
   }
   assert_int_equal(words, n);
   assert_true(listed(ev, n, "cl_khr_fp64", CL_MAKE_VERSION(1, 0, 0)));
   free(ext), free(ev);
}

static cl_program build(const char *src, const char *options, cl_int *err)
{
   cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, err);
   assert_int_equal(*err, CL_SUCCESS);
   *err = clBuildProgram(p, 1, &device, options, NULL, NULL);
   return p;
}

static void print_log(cl_program p)
{
   char log[8192] = "";
   clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
   fprintf(stderr, "%s\n", log);
}

static const char *const k30_src =
   "#if __OPENCL_C_VERSION__ != 300 || __OPENCL_VERSION__ != 300\n"
   "#error not OpenCL C 3.0 on a 3.0 device\n"
   "#endif\n"
   "#if !defined(__opencl_c_int64) || !defined(__opencl_c_images) || \\\n"
   "    !defined(__opencl_c_3d_image_writes) || !defined(__opencl_c_fp64) || \\\n"
   "    !defined(__opencl_c_atomic_order_acq_rel) || !defined(__opencl_c_atomic_order_seq_cst) || \\\n"
   "    !defined(__opencl_c_atomic_scope_device) || !defined(cl_khr_fp64) || \\\n"
   "    !defined(cl_khr_int64_base_atomics) || !defined(__IMAGE_SUPPORT__)\n"
   "#error a feature of the device is missing\n"
   "#endif\n"
   "#if defined(__opencl_c_generic_address_space) || defined(__opencl_c_subgroups) || \\\n"
   "    defined(__opencl_c_program_scope_global_variables) || defined(__opencl_c_pipes) || \\\n"
   "    defined(__opencl_c_work_group_collective_functions) || defined(__opencl_c_fp16) || \\\n"
   "    defined(__opencl_c_device_enqueue) || defined(__opencl_c_read_write_images) || \\\n"
   "    defined(__opencl_c_atomic_scope_all_devices) || defined(cl_khr_subgroups) || \\\n"
   "    defined(cl_khr_fp16)\n"
   "#error a feature the device lacks is defined\n"
   "#endif\n"
   "__kernel void k30(__global atomic_int *a, __global int *out, __global atomic_long *l,\n"
   "                  __global double *d)\n"
   "{\n"
   "   __local atomic_int counter;\n"
   "   if (get_local_linear_id() == 0) atomic_init(&counter, 0);\n"
   "   work_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
   "   int n = atomic_fetch_add_explicit(&counter, 1, memory_order_relaxed,\n"
   "                                     memory_scope_work_group);\n"
   "   work_group_barrier(CLK_GLOBAL_MEM_FENCE, memory_scope_device);\n"
   "   out[get_global_linear_id()] = atomic_fetch_add(a, 1) + n + ctz(n + 1) +\n"
   "                                 (int)get_enqueued_local_size(0);\n"
   "   atomic_store_explicit(l, 5, memory_order_release, memory_scope_device);\n"
   "   int e = 0;\n"
   "   atomic_compare_exchange_strong(a, &e, 3);\n"
   "   atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acq_rel,\n"
   "                          memory_scope_work_group);\n"
   "   d[0] += (double)atomic_load_explicit(a, memory_order_acquire, memory_scope_device);\n"
   "}\n";

/* A CL3.0 program that checks every macro builds, and its atomics'
 * orders are fences around relaxed atom instructions in the PTX. */
static void test_cl30_build(void **state)
{
   (void)state;
   cl_int err;
   cl_program p = build(k30_src, "-cl-std=CL3.0", &err);
   if (err)
      print_log(p);
   assert_int_equal(err, CL_SUCCESS);
   const char *ptx = fake_cuda.last_module;
   assert_non_null(strstr(ptx, ".entry k30("));
   /* atomic_fetch_add: seq_cst at device scope. */
   const char *add = strstr(ptx, "atom.global.add.u32");
   assert_non_null(add);
   const char *before = strstr(ptx, "membar.gl");
   assert_true(before && before < add);
   assert_non_null(strstr(add, "membar.gl"));
   /* The relaxed work-group one needs no fence; the shared atom exists. */
   assert_non_null(strstr(ptx, "atom.shared.add.u32"));
   assert_non_null(strstr(ptx, "atom.global.cas.b32"));
   assert_non_null(strstr(ptx, "st.volatile.global.u64"));
   assert_non_null(strstr(ptx, "ld.volatile.global.u32"));
   assert_non_null(strstr(ptx, "membar.cta"));
   assert_non_null(strstr(ptx, "bar.sync"));
   assert_null(strstr(ptx, "membar.sys")); /* no all-devices scope */
   /* The kernel runs in uniform work-groups only. */
   cl_kernel k = clCreateKernel(p, "k30", &err);
   assert_int_equal(err, CL_SUCCESS);
   cl_command_queue q = clCreateCommandQueueWithProperties(ctx, device, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   for (cl_uint i = 0; i < 4; i++)
      assert_int_equal(clSetKernelArg(k, i, sizeof(buf), &buf), CL_SUCCESS);
   size_t global = 100, local = 64;
   assert_int_equal(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL),
                    CL_INVALID_WORK_GROUP_SIZE);
   assert_int_equal(clFinish(q), CL_SUCCESS);
   clReleaseMemObject(buf);
   clReleaseCommandQueue(q);
   clReleaseKernel(k);
   clReleaseProgram(p);
}

/* Programs that assume a feature the device lacks do not build. */
static void test_cl30_absent_features_fail(void **state)
{
   (void)state;
   static const char *const srcs[] = {
      /* Its macro. */
      "#ifndef __opencl_c_generic_address_space\n#error no generic address space\n#endif\n"
      "__kernel void g(__global int *p) { p[0] = 1; }\n",
      /* The generic address space itself. */
      "void set(int *p) { *p = 1; }\n"
      "__kernel void g(__global int *p) { set(p); }\n",
      /* Program-scope __global variables. */
      "__global int counter = 0;\n"
      "__kernel void g(__global int *p) { p[0] = counter++; }\n",
      /* Collectives. */
      "__kernel void g(__global int *p) { p[0] = work_group_reduce_add(p[1]); }\n",
      /* Sub-groups. */
      "__kernel void g(__global uint *p) { p[0] = get_sub_group_id(); }\n",
      /* All-devices scope. */
      "__kernel void g(__global atomic_int *p) {\n"
      "   atomic_fetch_add_explicit(p, 1, memory_order_relaxed, memory_scope_all_devices); }\n",
      /* to_global needs the generic address space. */
      "__kernel void g(__global int *p) { __global int *q = to_global(p); q[0] = 1; }\n",
      /* Half precision. */
      "__kernel void g(__global float *p) { half h = (half)p[0]; p[0] = (float)h; }\n",
   };
   for (size_t i = 0; i < sizeof(srcs) / sizeof(srcs[0]); i++) {
      cl_int err;
      cl_program p = build(srcs[i], "-cl-std=CL3.0", &err);
      if (err != CL_BUILD_PROGRAM_FAILURE)
         fail_msg("program %zu: %d, not CL_BUILD_PROGRAM_FAILURE", i, err);
      cl_build_status st = CL_BUILD_NONE;
      assert_int_equal(clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_STATUS, sizeof(st), &st,
                                             NULL),
                       CL_SUCCESS);
      assert_int_equal(st, CL_BUILD_ERROR);
      clReleaseProgram(p);
   }
}

/* OpenCL C 1.2 programs keep building, with 1.2's rules. */
static void test_cl12_unchanged(void **state)
{
   (void)state;
   static const char *src =
      "#if __OPENCL_C_VERSION__ != 120\n#error not OpenCL C 1.2\n#endif\n"
      "#ifdef __opencl_c_atomic_order_seq_cst\n#error a 3.0 feature macro in 1.2\n#endif\n"
      "__kernel void k12(__global int *p) { atomic_add(p, 1); atom_inc(p + 1); }\n";
   const char *const options[] = {"", "-cl-std=CL1.2"};
   for (size_t i = 0; i < 2; i++) {
      cl_int err;
      cl_program p = build(src, options[i], &err);
      if (err)
         print_log(p);
      assert_int_equal(err, CL_SUCCESS);
      assert_non_null(strstr(fake_cuda.last_module, "atom.global.add.u32"));
      assert_null(strstr(fake_cuda.last_module, "membar"));
      clReleaseProgram(p);
   }
}

/* The 3.0 entry points of features the device lacks: 3.0's errors. */
static void test_absent_entry_points(void **state)
{
   (void)state;
   cl_int err;
   const cl_queue_properties on_device[] = {
      CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_ON_DEVICE, 0};
   assert_null(clCreateCommandQueueWithProperties(ctx, device, on_device, &err));
   assert_int_equal(err, CL_INVALID_QUEUE_PROPERTIES);
   assert_int_equal(clSetDefaultDeviceCommandQueue(ctx, device, NULL), CL_INVALID_OPERATION);

   /* SVM. */
   assert_null(clSVMAlloc(ctx, CL_MEM_READ_WRITE, 256, 0));
   int host[4] = {0};
   cl_command_queue q = clCreateCommandQueueWithProperties(ctx, device, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_int_equal(clEnqueueSVMMemcpy(q, CL_TRUE, host, host + 2, 8, 0, NULL, NULL),
                    CL_INVALID_OPERATION);
   assert_int_equal(clEnqueueSVMMemFill(q, host, host, 4, 8, 0, NULL, NULL),
                    CL_INVALID_OPERATION);
   assert_int_equal(clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ, host, 8, 0, NULL, NULL),
                    CL_INVALID_OPERATION);
   assert_int_equal(clEnqueueSVMUnmap(q, host, 0, NULL, NULL), CL_INVALID_OPERATION);
   /* Whatever the pointers: none can be in an SVM allocation (the CTS's
    * consistency_svm; it was CL_INVALID_VALUE). */
   const void *migrate[1] = {host};
   assert_int_equal(clEnqueueSVMMigrateMem(q, 1, migrate, NULL, 0, 0, NULL, NULL),
                    CL_INVALID_OPERATION);
   static const char *src = "__kernel void k12(__global int *p) { p[0] = 1; }\n";
   cl_program p = build(src, "", &err);
   assert_int_equal(err, CL_SUCCESS);
   cl_kernel k = clCreateKernel(p, "k12", &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_int_equal(clSetKernelArgSVMPointer(k, 0, host), CL_INVALID_OPERATION);
   void *ptrs[1] = {host};
   assert_int_equal(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof(ptrs), ptrs),
                    CL_INVALID_OPERATION);
   cl_bool on = CL_TRUE;
   assert_int_equal(
      clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof(on), &on),
      CL_INVALID_OPERATION);

   /* Sub-groups. */
   size_t local = 64, out = 0;
   assert_int_equal(clGetKernelSubGroupInfo(k, device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                            sizeof(local), &local, sizeof(out), &out, NULL),
                    CL_INVALID_OPERATION);
   /* IL programs, pipes, program-scope destructors. */
   static const unsigned spirv[5] = {0x07230203, 0x00010000, 0, 1, 0};
   assert_null(clCreateProgramWithIL(ctx, spirv, sizeof(spirv), &err));
   assert_int_equal(err, CL_INVALID_OPERATION);
   assert_null(clCreatePipe(ctx, CL_MEM_READ_WRITE, 4, 16, NULL, &err));
   assert_int_equal(err, CL_INVALID_OPERATION);
   assert_int_equal(clSetProgramSpecializationConstant(p, 0, 4, host), CL_INVALID_OPERATION);
   clReleaseKernel(k);
   clReleaseProgram(p);
   clReleaseCommandQueue(q);
}

int main(void)
{
   setenv("KILN_DEVICES", "cuda", 1);
   setenv("KILN_CACHE", "0", 1); /* every build reaches the PTX */
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_version),
      cmocka_unit_test(test_features),
      cmocka_unit_test(test_atomic_caps),
      cmocka_unit_test(test_absent_features),
      cmocka_unit_test(test_cl30_build),
      cmocka_unit_test(test_cl30_absent_features_fail),
      cmocka_unit_test(test_cl12_unchanged),
      cmocka_unit_test(test_absent_entry_points),
   };
   return cmocka_run_group_tests(tests, setup, teardown);
}
