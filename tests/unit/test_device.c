/* clGetDeviceIDs and clGetDeviceInfo (OpenCL 1.1 section 4.2, table 4.3). */
#include "kiln_test.h"
#include "kiln/cl_version.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- clGetDeviceIDs ---------------------------------------------------- */

static void ids_by_type(void **state)
{
   (void)state;
   cl_platform_id p = kt_platform();
   cl_uint n = 0;
   assert_int_equal(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, NULL, &n), CL_SUCCESS);
   assert_true(n >= 1);
   cl_uint all = n;

   /* The CPU driver is always there. */
   n = 0;
   assert_int_equal(clGetDeviceIDs(p, CL_DEVICE_TYPE_CPU, 0, NULL, &n), CL_SUCCESS);
   assert_true(n >= 1 && n <= all);

   /* Exactly one default device. */
   cl_device_id def = NULL;
   n = 0;
   assert_int_equal(clGetDeviceIDs(p, CL_DEVICE_TYPE_DEFAULT, 1, &def, &n), CL_SUCCESS);
   assert_int_equal(n, 1);
   assert_non_null(def);

   /* Type bits combine: DEFAULT|CPU is still found. */
   n = 0;
   assert_int_equal(clGetDeviceIDs(p, CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU, 0, NULL, &n),
                    CL_SUCCESS);
   assert_true(n >= 1);

   /* More room than devices: the rest of the array is left alone. */
   cl_device_id ids[8];
   for (int i = 0; i < 8; i++)
      ids[i] = (cl_device_id)(uintptr_t)(i + 1);
   n = 0;
   assert_int_equal(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 8, ids, &n), CL_SUCCESS);
   assert_int_equal(n, all);
   for (cl_uint i = 0; i < 8; i++) {
      if (i < all)
         assert_true((uintptr_t)ids[i] > 8);
      else
         assert_ptr_equal(ids[i], (cl_device_id)(uintptr_t)(i + 1));
   }
   /* Fewer entries than devices: num_devices still counts them all. */
   n = 0;
   assert_int_equal(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, ids, &n), CL_SUCCESS);
   assert_int_equal(n, all);

   /* devices without num_devices is enough. */
   assert_int_equal(clGetDeviceIDs(p, CL_DEVICE_TYPE_CPU, 1, ids, NULL), CL_SUCCESS);
}

static void ids_null_platform_is_kiln(void **state)
{
   (void)state;
   /* Implementation-defined in 1.1: Kiln picks its own platform. */
   cl_device_id a = NULL, b = NULL;
   assert_int_equal(clGetDeviceIDs(NULL, CL_DEVICE_TYPE_CPU, 1, &a, NULL), CL_SUCCESS);
   assert_int_equal(clGetDeviceIDs(kt_platform(), CL_DEVICE_TYPE_CPU, 1, &b, NULL), CL_SUCCESS);
   assert_ptr_equal(a, b);
}

static void ids_not_found(void **state)
{
   (void)state;
   cl_platform_id p = kt_platform();
   cl_uint n = 0;
   /* Kiln only has the CPU driver in this build. */
   cl_uint gpus = 0;
   if (clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 0, NULL, &gpus) == CL_SUCCESS)
      skip(); /* a GPU driver found hardware: nothing to check here */
   assert_int_equal(clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 0, NULL, &n), CL_DEVICE_NOT_FOUND);
   assert_int_equal(clGetDeviceIDs(p, CL_DEVICE_TYPE_ACCELERATOR, 0, NULL, &n),
                    CL_DEVICE_NOT_FOUND);
}

static void ids_errors(void **state)
{
   (void)state;
   cl_platform_id p = kt_platform();
   cl_device_id d = NULL;
   cl_uint n = 0;
   int junk = 0;

   /* CL_INVALID_PLATFORM: garbage and handles of other kinds. */
   assert_int_equal(clGetDeviceIDs((cl_platform_id)&junk, CL_DEVICE_TYPE_ALL, 1, &d, &n),
                    CL_INVALID_PLATFORM);
   cl_device_id dev = kt_device();
   assert_int_equal(clGetDeviceIDs((cl_platform_id)dev, CL_DEVICE_TYPE_ALL, 1, &d, &n),
                    CL_INVALID_PLATFORM);
   cl_context ctx = kt_context();
   assert_int_equal(clGetDeviceIDs((cl_platform_id)ctx, CL_DEVICE_TYPE_ALL, 1, &d, &n),
                    CL_INVALID_PLATFORM);
   clReleaseContext(ctx);

   /* CL_INVALID_DEVICE_TYPE: no bit, unknown bits, and (before 1.2)
    * CUSTOM; from 1.2 on CUSTOM is a type no Kiln device has. */
   assert_int_equal(clGetDeviceIDs(p, 0, 1, &d, &n), CL_INVALID_DEVICE_TYPE);
   assert_int_equal(clGetDeviceIDs(p, (cl_device_type)1 << 40, 1, &d, &n),
                    CL_INVALID_DEVICE_TYPE);
   assert_int_equal(clGetDeviceIDs(p, CL_DEVICE_TYPE_CPU | ((cl_device_type)1 << 20), 1, &d, &n),
                    CL_INVALID_DEVICE_TYPE);
   char version[64] = "";
   assert_int_equal(clGetPlatformInfo(p, CL_PLATFORM_VERSION, sizeof(version), version, NULL),
                    CL_SUCCESS);
   bool v12 = strncmp(version, "OpenCL 1.0", 10) && strncmp(version, "OpenCL 1.1", 10);
   assert_int_equal(clGetDeviceIDs(p, CL_DEVICE_TYPE_CUSTOM, 1, &d, &n),
                    v12 ? CL_DEVICE_NOT_FOUND : CL_INVALID_DEVICE_TYPE);

   /* CL_INVALID_VALUE. */
   assert_int_equal(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, &d, &n), CL_INVALID_VALUE);
   assert_int_equal(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, NULL, NULL), CL_INVALID_VALUE);
   assert_int_equal(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, NULL, NULL), CL_INVALID_VALUE);
   assert_null(d);
}

static void ids_error_order(void **state)
{
   (void)state;
   cl_platform_id p = kt_platform();
   cl_device_id d = NULL;
   int junk = 0;
   /* Spec order: PLATFORM, DEVICE_TYPE, VALUE, DEVICE_NOT_FOUND. */
   assert_int_equal(clGetDeviceIDs((cl_platform_id)&junk, 0, 0, &d, NULL), CL_INVALID_PLATFORM);
   assert_int_equal(clGetDeviceIDs(p, 0, 0, &d, NULL), CL_INVALID_DEVICE_TYPE);
   assert_int_equal(clGetDeviceIDs(p, (cl_device_type)1 << 40, 0, NULL, NULL),
                    CL_INVALID_DEVICE_TYPE);
   /* No accelerator exists, but the bad arguments come first. */
   assert_int_equal(clGetDeviceIDs(p, CL_DEVICE_TYPE_ACCELERATOR, 0, &d, NULL),
                    CL_INVALID_VALUE);
   assert_int_equal(clGetDeviceIDs(p, CL_DEVICE_TYPE_ACCELERATOR, 1, NULL, NULL),
                    CL_INVALID_VALUE);
}

/* ---- clGetDeviceInfo: every 1.1 query with the size of its type ------- */

#define Q(name, type) {name, #name, sizeof(type)}
static const struct query {
   cl_device_info param;
   const char *name;
   size_t size; /* 0: char[] or size_t[] (checked apart) */
} queries[] = {
   Q(CL_DEVICE_TYPE, cl_device_type),
   Q(CL_DEVICE_VENDOR_ID, cl_uint),
   Q(CL_DEVICE_MAX_COMPUTE_UNITS, cl_uint),
   Q(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, cl_uint),
   {CL_DEVICE_MAX_WORK_ITEM_SIZES, "CL_DEVICE_MAX_WORK_ITEM_SIZES", 0},
   Q(CL_DEVICE_MAX_WORK_GROUP_SIZE, size_t),
   Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, cl_uint),
   Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT, cl_uint),
   Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, cl_uint),
   Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG, cl_uint),
   Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, cl_uint),
   Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, cl_uint),
   Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF, cl_uint),
   Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR, cl_uint),
   Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT, cl_uint),
   Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_INT, cl_uint),
   Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG, cl_uint),
   Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, cl_uint),
   Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, cl_uint),
   Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF, cl_uint),
   Q(CL_DEVICE_MAX_CLOCK_FREQUENCY, cl_uint),
   Q(CL_DEVICE_ADDRESS_BITS, cl_uint),
   Q(CL_DEVICE_MAX_READ_IMAGE_ARGS, cl_uint),
   Q(CL_DEVICE_MAX_WRITE_IMAGE_ARGS, cl_uint),
   Q(CL_DEVICE_MAX_MEM_ALLOC_SIZE, cl_ulong),
   Q(CL_DEVICE_IMAGE2D_MAX_WIDTH, size_t),
   Q(CL_DEVICE_IMAGE2D_MAX_HEIGHT, size_t),
   Q(CL_DEVICE_IMAGE3D_MAX_WIDTH, size_t),
   Q(CL_DEVICE_IMAGE3D_MAX_HEIGHT, size_t),
   Q(CL_DEVICE_IMAGE3D_MAX_DEPTH, size_t),
   Q(CL_DEVICE_IMAGE_SUPPORT, cl_bool),
   Q(CL_DEVICE_MAX_PARAMETER_SIZE, size_t),
   Q(CL_DEVICE_MAX_SAMPLERS, cl_uint),
   Q(CL_DEVICE_MEM_BASE_ADDR_ALIGN, cl_uint),
   Q(CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE, cl_uint),
   Q(CL_DEVICE_SINGLE_FP_CONFIG, cl_device_fp_config),
   Q(CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, cl_device_mem_cache_type),
   Q(CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, cl_uint),
   Q(CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, cl_ulong),
   Q(CL_DEVICE_GLOBAL_MEM_SIZE, cl_ulong),
   Q(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, cl_ulong),
   Q(CL_DEVICE_MAX_CONSTANT_ARGS, cl_uint),
   Q(CL_DEVICE_LOCAL_MEM_TYPE, cl_device_local_mem_type),
   Q(CL_DEVICE_LOCAL_MEM_SIZE, cl_ulong),
   Q(CL_DEVICE_ERROR_CORRECTION_SUPPORT, cl_bool),
   Q(CL_DEVICE_HOST_UNIFIED_MEMORY, cl_bool),
   Q(CL_DEVICE_PROFILING_TIMER_RESOLUTION, size_t),
   Q(CL_DEVICE_ENDIAN_LITTLE, cl_bool),
   Q(CL_DEVICE_AVAILABLE, cl_bool),
   Q(CL_DEVICE_COMPILER_AVAILABLE, cl_bool),
   Q(CL_DEVICE_EXECUTION_CAPABILITIES, cl_device_exec_capabilities),
   Q(CL_DEVICE_QUEUE_PROPERTIES, cl_command_queue_properties),
   Q(CL_DEVICE_PLATFORM, cl_platform_id),
   {CL_DEVICE_NAME, "CL_DEVICE_NAME", 0},
   {CL_DEVICE_VENDOR, "CL_DEVICE_VENDOR", 0},
   {CL_DRIVER_VERSION, "CL_DRIVER_VERSION", 0},
   {CL_DEVICE_PROFILE, "CL_DEVICE_PROFILE", 0},
   {CL_DEVICE_VERSION, "CL_DEVICE_VERSION", 0},
   {CL_DEVICE_OPENCL_C_VERSION, "CL_DEVICE_OPENCL_C_VERSION", 0},
   {CL_DEVICE_EXTENSIONS, "CL_DEVICE_EXTENSIONS", 0},
};
#undef Q

static void info_every_query(void **state)
{
   (void)state;
   cl_device_id d = kt_device();
   for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++) {
      /* Name the query in the failure; kt_check_info then checks the
       * protocol, which all queries share. */
      size_t size = 0;
      cl_int err = clGetDeviceInfo(d, queries[i].param, 0, NULL, &size);
      if (err != CL_SUCCESS || (queries[i].size && size != queries[i].size))
         fail_msg("%s: error %d, size %zu (want %zu)", queries[i].name, err, size,
                  queries[i].size);
      if (queries[i].size) {
         kt_check_info(kt_device_info, d, queries[i].param, queries[i].size);
      } else if (queries[i].param == CL_DEVICE_MAX_WORK_ITEM_SIZES) {
         cl_uint dims = 0;
         kt_info_value(kt_device_info, d, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, &dims,
                       sizeof(dims));
         kt_check_info(kt_device_info, d, queries[i].param, dims * sizeof(size_t));
      } else {
         free(kt_info_string(kt_device_info, d, queries[i].param));
      }
   }
}

#define GET(param, var) kt_info_value(kt_device_info, d, (param), &(var), sizeof(var))

static void info_limits(void **state)
{
   (void)state;
   cl_device_id d = kt_device();

   cl_device_type type = 0;
   GET(CL_DEVICE_TYPE, type);
   assert_true(type & CL_DEVICE_TYPE_CPU);
   assert_int_equal(type & ~(cl_device_type)(CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                                             CL_DEVICE_TYPE_ACCELERATOR |
                                             CL_DEVICE_TYPE_DEFAULT),
                    0);

   cl_uint u = 0;
   GET(CL_DEVICE_MAX_COMPUTE_UNITS, u);
   assert_true(u >= 1);
   GET(CL_DEVICE_MAX_CLOCK_FREQUENCY, u);
   assert_true(u >= 1);

   cl_uint dims = 0;
   GET(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, dims);
   assert_true(dims >= 3);
   size_t wg = 0;
   GET(CL_DEVICE_MAX_WORK_GROUP_SIZE, wg);
   assert_true(wg >= 1);
   size_t *sizes = calloc(dims, sizeof(size_t));
   assert_non_null(sizes);
   kt_info_value(kt_device_info, d, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizes, dims * sizeof(size_t));
   for (cl_uint i = 0; i < dims; i++) {
      assert_true(sizes[i] >= 1);
      /* A dimension cannot hold more work-items than a whole group. */
      assert_true(sizes[i] <= wg);
   }
   free(sizes);

   GET(CL_DEVICE_ADDRESS_BITS, u);
   assert_true(u == 32 || u == 64);

   cl_ulong global = 0, alloc = 0;
   GET(CL_DEVICE_GLOBAL_MEM_SIZE, global);
   GET(CL_DEVICE_MAX_MEM_ALLOC_SIZE, alloc);
   assert_true(global > 0);
   /* max(1/4 of global memory, 128 MiB) */
   assert_true(alloc >= global / 4);
   assert_true(alloc >= 128ull << 20);
   assert_true(alloc <= global);

   cl_bool images = CL_TRUE;
   GET(CL_DEVICE_IMAGE_SUPPORT, images);
   assert_true(images == CL_TRUE || images == CL_FALSE);
   if (images) {
      size_t s = 0;
      GET(CL_DEVICE_MAX_READ_IMAGE_ARGS, u);
      assert_true(u >= 128);
      GET(CL_DEVICE_MAX_WRITE_IMAGE_ARGS, u);
      assert_true(u >= 8);
      GET(CL_DEVICE_MAX_SAMPLERS, u);
      assert_true(u >= 16);
      GET(CL_DEVICE_IMAGE2D_MAX_WIDTH, s);
      assert_true(s >= 8192);
      GET(CL_DEVICE_IMAGE2D_MAX_HEIGHT, s);
      assert_true(s >= 8192);
      GET(CL_DEVICE_IMAGE3D_MAX_WIDTH, s);
      assert_true(s >= 2048);
      GET(CL_DEVICE_IMAGE3D_MAX_HEIGHT, s);
      assert_true(s >= 2048);
      GET(CL_DEVICE_IMAGE3D_MAX_DEPTH, s);
      assert_true(s >= 2048);
   }

   size_t param_size = 0;
   GET(CL_DEVICE_MAX_PARAMETER_SIZE, param_size);
   assert_true(param_size >= 1024); /* 1.1 full profile */

   /* long16 is 128 bytes = 1024 bits. */
   GET(CL_DEVICE_MEM_BASE_ADDR_ALIGN, u);
   assert_true(u >= 1024);
   assert_int_equal(u & (u - 1), 0);
   GET(CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE, u);
   assert_true(u >= 1);
   assert_int_equal(u & (u - 1), 0);

   cl_device_fp_config fp = 0;
   GET(CL_DEVICE_SINGLE_FP_CONFIG, fp);
   assert_int_equal(fp & (CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN),
                    CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN);
   assert_int_equal(fp & ~(cl_device_fp_config)(CL_FP_DENORM | CL_FP_INF_NAN |
                                                CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO |
                                                CL_FP_ROUND_TO_INF | CL_FP_FMA |
                                                CL_FP_SOFT_FLOAT),
                    0);

   cl_device_mem_cache_type cache = 0xffff;
   GET(CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, cache);
   assert_true(cache == CL_NONE || cache == CL_READ_ONLY_CACHE || cache == CL_READ_WRITE_CACHE);
   if (cache != CL_NONE) {
      cl_ulong cache_size = 0;
      GET(CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, u);
      assert_true(u > 0);
      GET(CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, cache_size);
      assert_true(cache_size > 0);
   }

   cl_ulong ul = 0;
   GET(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, ul);
   assert_true(ul >= 64 << 10);
   GET(CL_DEVICE_MAX_CONSTANT_ARGS, u);
   assert_true(u >= 8);

   cl_device_local_mem_type local = 0xffff;
   GET(CL_DEVICE_LOCAL_MEM_TYPE, local);
   assert_true(local == CL_LOCAL || local == CL_GLOBAL);
   GET(CL_DEVICE_LOCAL_MEM_SIZE, ul);
   assert_true(ul >= 32 << 10); /* 1.1 full profile */

   size_t res = 0;
   GET(CL_DEVICE_PROFILING_TIMER_RESOLUTION, res);
   assert_true(res >= 1);

   cl_bool b = 0xff;
   GET(CL_DEVICE_ENDIAN_LITTLE, b);
   const uint16_t probe = 1;
   assert_int_equal(b, *(const uint8_t *)&probe ? CL_TRUE : CL_FALSE);
   GET(CL_DEVICE_AVAILABLE, b);
   assert_int_equal(b, CL_TRUE);
   GET(CL_DEVICE_ERROR_CORRECTION_SUPPORT, b);
   assert_true(b == CL_TRUE || b == CL_FALSE);
   GET(CL_DEVICE_HOST_UNIFIED_MEMORY, b);
   /* The CPU device computes in host memory. */
   assert_int_equal(b, CL_TRUE);

   cl_device_exec_capabilities exec = 0;
   GET(CL_DEVICE_EXECUTION_CAPABILITIES, exec);
   assert_true(exec & CL_EXEC_KERNEL);
   assert_int_equal(exec & ~(cl_device_exec_capabilities)(CL_EXEC_KERNEL | CL_EXEC_NATIVE_KERNEL),
                    0);

   cl_command_queue_properties qp = 0;
   GET(CL_DEVICE_QUEUE_PROPERTIES, qp);
   assert_true(qp & CL_QUEUE_PROFILING_ENABLE);
   assert_int_equal(qp & ~(cl_command_queue_properties)(CL_QUEUE_PROFILING_ENABLE |
                                                        CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE),
                    0);

   cl_platform_id plat = NULL;
   GET(CL_DEVICE_PLATFORM, plat);
   assert_ptr_equal(plat, kt_platform());
}

static void info_vector_widths(void **state)
{
   (void)state;
   cl_device_id d = kt_device();
   char *ext = kt_info_string(kt_device_info, d, CL_DEVICE_EXTENSIONS);
   bool fp64 = kt_has_word(ext, "cl_khr_fp64");
   bool fp16 = kt_has_word(ext, "cl_khr_fp16");
   free(ext);

   cl_uint w = 0;
   const cl_device_info ints[] = {
      CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT,
      CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT,  CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG,
      CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR,
      CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT,   CL_DEVICE_NATIVE_VECTOR_WIDTH_INT,
      CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG,    CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT,
   };
   for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
      GET(ints[i], w);
      /* Vector widths of OpenCL C: 1, 2, 3, 4, 8, 16 (wider ones still
       * make sense as a preference); never 0 for a core type. */
      assert_true(w >= 1);
   }
   /* Without the extension the double/half widths must be 0. */
   if (!fp64) {
      GET(CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, w);
      assert_int_equal(w, 0);
      GET(CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, w);
      assert_int_equal(w, 0);
   } else {
      GET(CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, w);
      assert_true(w >= 1);
      GET(CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, w);
      assert_true(w >= 1);
      /* §9.3: the minimum double-precision capability. */
      cl_device_fp_config fp = 0;
      GET(CL_DEVICE_DOUBLE_FP_CONFIG, fp);
      const cl_device_fp_config need = CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO |
                                       CL_FP_ROUND_TO_INF | CL_FP_INF_NAN | CL_FP_DENORM;
      assert_int_equal(fp & need, need);
   }
   cl_device_fp_config half = 0;
   GET(CL_DEVICE_HALF_FP_CONFIG, half);
   if (!fp16) {
      GET(CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF, w);
      assert_int_equal(w, 0);
      GET(CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF, w);
      assert_int_equal(w, 0);
      assert_int_equal(half, 0);
   } else {
      GET(CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF, w);
      assert_true(w >= 1);
      GET(CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF, w);
      assert_true(w >= 1);
      /* §9.5: inf and NaN, and round to nearest or to zero. */
      assert_true(half & CL_FP_INF_NAN);
      assert_true(half & (CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO));
   }
}

static void info_strings(void **state)
{
   (void)state;
   cl_device_id d = kt_device();

   char *s = kt_info_string(kt_device_info, d, CL_DEVICE_NAME);
   assert_true(strlen(s) > 0);
   free(s);
   s = kt_info_string(kt_device_info, d, CL_DEVICE_VENDOR);
   assert_true(strlen(s) > 0);
   free(s);

   /* "major_number.minor_number" */
   s = kt_info_string(kt_device_info, d, CL_DRIVER_VERSION);
   unsigned major, minor;
   assert_int_equal(sscanf(s, "%u.%u", &major, &minor), 2);
   free(s);

   s = kt_info_string(kt_device_info, d, CL_DEVICE_PROFILE);
   assert_string_equal(s, "FULL_PROFILE");
   free(s);

   s = kt_info_string(kt_device_info, d, CL_DEVICE_VERSION);
   assert_true(!strncmp(s, "OpenCL " KILN_CL_VERSION_STRING " ", strlen(KILN_CL_VERSION_STRING) + 8));
   free(s);

   /* "OpenCL<space>C<space><major.minor><space><vendor-specific>" */
   s = kt_info_string(kt_device_info, d, CL_DEVICE_OPENCL_C_VERSION);
   /* 3.0: the newest OpenCL C all of whose features the device has: 2.0
    * on the CPU device (the default here). */
   assert_true(!strncmp(s, "OpenCL C 2.0 ", 13));
   free(s);

   /* Space separated, no empty or duplicated names. */
   s = kt_info_string(kt_device_info, d, CL_DEVICE_EXTENSIONS);
   for (const char *p = s; *p;) {
      size_t len = strcspn(p, " ");
      if (len) {
         assert_true(!strncmp(p, "cl_", 3));
         char word[128];
         assert_true(len < sizeof(word));
         memcpy(word, p, len);
         word[len] = 0;
         assert_false(kt_has_word(p + len, word));
      }
      p += len;
      while (*p == ' ')
         p++;
   }
   free(s);
}

static void info_full_profile_has_compiler(void **state)
{
   (void)state;
   cl_device_id d = kt_device();
   cl_bool compiler = CL_FALSE;
   GET(CL_DEVICE_COMPILER_AVAILABLE, compiler);
   /* Table 4.3: "This can be CL_FALSE for the embedded platform profile
    * only"; Kiln says FULL_PROFILE. */
   KNOWN_BUG(compiler == CL_FALSE,
             "src/pipe/cpu/cpu_screen.c fill_caps: CL_DEVICE_COMPILER_AVAILABLE is CL_FALSE "
             "on a FULL_PROFILE device");
   assert_int_equal(compiler, CL_TRUE);
}

static void info_opencl_c_11_extensions(void **state)
{
   (void)state;
   cl_device_id d = kt_device();
   char *ext = kt_info_string(kt_device_info, d, CL_DEVICE_EXTENSIONS);
   /* 1.1 table 4.3: names every device supporting OpenCL C 1.1 returns. */
   static const char *const required[] = {
      "cl_khr_global_int32_base_atomics", "cl_khr_global_int32_extended_atomics",
      "cl_khr_local_int32_base_atomics",  "cl_khr_local_int32_extended_atomics",
      "cl_khr_byte_addressable_store",
   };
   size_t missing = 0;
   for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++)
      missing += !kt_has_word(ext, required[i]);
   bool empty = ext[0] == '\0';
   free(ext);
   KNOWN_BUG(empty, "src/pipe/cpu/cpu_screen.c fill_caps: CL_DEVICE_EXTENSIONS is empty; "
                    "OpenCL C 1.1 devices must list the int32 atomics and "
                    "byte_addressable_store extensions");
   assert_int_equal(missing, 0);
}

static void info_invalid_device(void **state)
{
   (void)state;
   cl_uint u = 0;
   int junk = 0;
   assert_int_equal(clGetDeviceInfo(NULL, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(u), &u, NULL),
                    CL_INVALID_DEVICE);
   assert_int_equal(clGetDeviceInfo((cl_device_id)&junk, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(u),
                                    &u, NULL),
                    CL_INVALID_DEVICE);
   assert_int_equal(clGetDeviceInfo((cl_device_id)kt_platform(), CL_DEVICE_MAX_COMPUTE_UNITS,
                                    sizeof(u), &u, NULL),
                    CL_INVALID_DEVICE);
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   assert_int_equal(clGetDeviceInfo((cl_device_id)ctx, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(u),
                                    &u, NULL),
                    CL_INVALID_DEVICE);
   assert_int_equal(clGetDeviceInfo((cl_device_id)q, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(u), &u,
                                    NULL),
                    CL_INVALID_DEVICE);
   /* The device error comes before the param_name one. */
   assert_int_equal(clGetDeviceInfo((cl_device_id)ctx, 0xdead, sizeof(u), &u, NULL),
                    CL_INVALID_DEVICE);
   assert_int_equal(u, 0);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

static void info_invalid_param(void **state)
{
   (void)state;
   cl_device_id d = kt_device();
   char buf[256];
   size_t ret = 0;
   /* Below the device range, far past it, or another object's names. */
   const cl_uint bad[] = {0, 0x0fff, 0xdead, 0x7fffffff, CL_PLATFORM_NAME, CL_CONTEXT_DEVICES,
                          CL_QUEUE_CONTEXT};
   for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
      assert_int_equal(clGetDeviceInfo(d, bad[i], sizeof(buf), buf, &ret), CL_INVALID_VALUE);
      assert_int_equal(clGetDeviceInfo(d, bad[i], 0, NULL, &ret), CL_INVALID_VALUE);
   }
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(ids_by_type),
      cmocka_unit_test(ids_null_platform_is_kiln),
      cmocka_unit_test(ids_not_found),
      cmocka_unit_test(ids_errors),
      cmocka_unit_test(ids_error_order),
      cmocka_unit_test(info_every_query),
      cmocka_unit_test(info_limits),
      cmocka_unit_test(info_vector_widths),
      cmocka_unit_test(info_strings),
      cmocka_unit_test(info_full_profile_has_compiler),
      cmocka_unit_test(info_opencl_c_11_extensions),
      cmocka_unit_test(info_invalid_device),
      cmocka_unit_test(info_invalid_param),
   };
   return cmocka_run_group_tests_name("device", tests, NULL, NULL);
}
