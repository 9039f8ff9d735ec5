/* End to end through the system ICD loader: find the Kiln platform among
 * all platforms, query everything the Foundation answers, make a context
 * and a queue, flush, finish, release.  Meson runs it with
 * OCL_ICD_VENDORS pointing at the build tree's kiln.icd.
 *
 * Any unexpected result ends the program with a message and exit status 1;
 * nothing is skipped. */
/* Meson passes these; the guards let the file build on its own too. */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#ifndef CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#endif
#ifndef CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#endif
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <CL/cl_gl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kiln/cl_version.h"

/* "OpenCL<space><major.minor><space>..." and the OpenCL C form (§4.1, 4.2). */
#define KILN_PLATFORM_VERSION_PREFIX "OpenCL " KILN_CL_VERSION_STRING " "
/* 3.0: the newest OpenCL C all of whose features the device has: 2.0 on
 * the CPU device (pipes, device-side enqueue, read-write images and the
 * rest), 1.2 on the others. */
#define KILN_C_VERSION_PREFIX_CPU "OpenCL C 2.0 "
#define KILN_C_VERSION_PREFIX "OpenCL C 1.2 "

static _Noreturn void die(int line, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   fprintf(stderr, "test_foundation: line %d: FAIL: ", line);
   vfprintf(stderr, fmt, ap);
   fputc('\n', stderr);
   va_end(ap);
   exit(1);
}

#define CHECK(cond)                                                            \
   do {                                                                        \
      if (!(cond))                                                             \
         die(__LINE__, "%s", #cond);                                           \
   } while (0)

/* A call that must return want. */
#define EXPECT(call, want)                                                     \
   do {                                                                        \
      cl_int got_ = (call);                                                    \
      if (got_ != (want))                                                      \
         die(__LINE__, "%s returned %d, expected %d (%s)", #call, got_,         \
             (int)(want), #want);                                              \
   } while (0)

typedef cl_int (*info_fn)(const void *h, cl_uint param, size_t size, void *value,
                          size_t *size_ret);

static cl_int platform_info(const void *h, cl_uint p, size_t s, void *v, size_t *r)
{
   return clGetPlatformInfo((cl_platform_id)h, p, s, v, r);
}

static cl_int device_info(const void *h, cl_uint p, size_t s, void *v, size_t *r)
{
   return clGetDeviceInfo((cl_device_id)h, p, s, v, r);
}

static cl_int context_info(const void *h, cl_uint p, size_t s, void *v, size_t *r)
{
   return clGetContextInfo((cl_context)h, p, s, v, r);
}

static cl_int queue_info(const void *h, cl_uint p, size_t s, void *v, size_t *r)
{
   return clGetCommandQueueInfo((cl_command_queue)h, p, s, v, r);
}

/* Fetches a query; its size must be want (0: any non-zero size).  The
 * caller frees the result. */
__attribute__((returns_nonnull)) static void *query(int line, info_fn fn, const void *h,
                                                    cl_uint param, const char *name, size_t want)
{
   size_t size = 0;
   cl_int err = fn(h, param, 0, NULL, &size);
   if (err != CL_SUCCESS)
      die(line, "size query of %s returned %d", name, err);
   if (size == 0 || (want && size != want))
      die(line, "%s has size %zu, expected %zu", name, size, want);
   /* One spare byte that must stay untouched. */
   unsigned char *buf = malloc(size + 1);
   CHECK(buf);
   buf[size] = 0x5a;
   size_t ret = 0;
   err = fn(h, param, size, buf, &ret);
   if (err != CL_SUCCESS || ret != size || buf[size] != 0x5a)
      die(line, "%s: error %d, size %zu of %zu", name, err, ret, size);
   /* Too small a buffer is CL_INVALID_VALUE. */
   err = fn(h, param, size - 1, buf, NULL);
   if (err != CL_INVALID_VALUE)
      die(line, "%s with a short buffer returned %d", name, err);
   return buf;
}

#define QUERY(fn, h, param, want) query(__LINE__, fn, h, param, #param, want)

__attribute__((returns_nonnull)) static char *query_string(int line, info_fn fn, const void *h,
                                                          cl_uint param, const char *name)
{
   char *s = query(line, fn, h, param, name, 0);
   size_t size = 0;
   fn(h, param, 0, NULL, &size);
   if (s[size - 1] != '\0' || strlen(s) != size - 1)
      die(line, "%s is not a NUL-terminated string of its size", name);
   return s;
}

#define QUERY_STRING(fn, h, param) query_string(__LINE__, fn, h, param, #param)

static bool has_word(const char *list, const char *word)
{
   size_t n = strlen(word);
   for (const char *p = list; *p;) {
      while (*p == ' ')
         p++;
      size_t len = strcspn(p, " ");
      if (len == n && !strncmp(p, word, n))
         return true;
      p += len;
   }
   return false;
}

static cl_platform_id find_kiln(void)
{
   cl_uint n = 0;
   EXPECT(clGetPlatformIDs(0, NULL, &n), CL_SUCCESS);
   CHECK(n >= 1);
   cl_platform_id *ps = calloc(n, sizeof(*ps));
   CHECK(ps);
   EXPECT(clGetPlatformIDs(n, ps, NULL), CL_SUCCESS);
   cl_platform_id kiln = NULL;
   for (cl_uint i = 0; i < n; i++) {
      char *name = QUERY_STRING(platform_info, ps[i], CL_PLATFORM_NAME);
      printf("platform %u: %s\n", i, name);
      if (!strcmp(name, "Kiln")) {
         if (kiln)
            die(__LINE__, "two platforms are named Kiln");
         kiln = ps[i];
      }
      free(name);
   }
   free(ps);
   if (!kiln)
      die(__LINE__, "no platform named Kiln (OCL_ICD_VENDORS=%s)",
          getenv("OCL_ICD_VENDORS") ? getenv("OCL_ICD_VENDORS") : "(unset)");
   return kiln;
}

static void check_platform(cl_platform_id p)
{
   char *s = QUERY_STRING(platform_info, p, CL_PLATFORM_PROFILE);
   CHECK(!strcmp(s, "FULL_PROFILE"));
   free(s);
   s = QUERY_STRING(platform_info, p, CL_PLATFORM_VERSION);
   CHECK(!strncmp(s, KILN_PLATFORM_VERSION_PREFIX, strlen(KILN_PLATFORM_VERSION_PREFIX)));
   printf("version: %s\n", s);
   free(s);
   s = QUERY_STRING(platform_info, p, CL_PLATFORM_VENDOR);
   CHECK(s[0]);
   free(s);
   s = QUERY_STRING(platform_info, p, CL_PLATFORM_EXTENSIONS);
   CHECK(has_word(s, "cl_khr_icd"));
   free(s);
   s = QUERY_STRING(platform_info, p, CL_PLATFORM_ICD_SUFFIX_KHR);
   CHECK(!strcmp(s, "KILN"));
   free(s);
   char buf[64];
   EXPECT(clGetPlatformInfo(p, 0xdead, sizeof(buf), buf, NULL), CL_INVALID_VALUE);
}

/* Every clGetDeviceInfo query of OpenCL 1.1 with its size (0: string). */
static const struct {
   cl_device_info param;
   const char *name;
   size_t size;
} device_queries[] = {
#define Q(p, t) {p, #p, sizeof(t)}
#define S(p) {p, #p, 0}
   Q(CL_DEVICE_TYPE, cl_device_type),
   Q(CL_DEVICE_VENDOR_ID, cl_uint),
   Q(CL_DEVICE_MAX_COMPUTE_UNITS, cl_uint),
   Q(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, cl_uint),
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
   S(CL_DEVICE_NAME),
   S(CL_DEVICE_VENDOR),
   S(CL_DRIVER_VERSION),
   S(CL_DEVICE_PROFILE),
   S(CL_DEVICE_VERSION),
   S(CL_DEVICE_OPENCL_C_VERSION),
   S(CL_DEVICE_EXTENSIONS),
#undef Q
#undef S
};

static void check_device(cl_platform_id p, cl_device_id d)
{
   for (size_t i = 0; i < sizeof(device_queries) / sizeof(device_queries[0]); i++) {
      if (device_queries[i].size)
         free(query(__LINE__, device_info, d, device_queries[i].param, device_queries[i].name,
                    device_queries[i].size));
      else
         free(query_string(__LINE__, device_info, d, device_queries[i].param,
                           device_queries[i].name));
   }

   cl_uint *dims = QUERY(device_info, d, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, sizeof(cl_uint));
   CHECK(*dims >= 3);
   size_t *sizes = QUERY(device_info, d, CL_DEVICE_MAX_WORK_ITEM_SIZES, *dims * sizeof(size_t));
   for (cl_uint i = 0; i < *dims; i++)
      CHECK(sizes[i] >= 1);
   free(sizes);
   free(dims);

   cl_device_type *type = QUERY(device_info, d, CL_DEVICE_TYPE, sizeof(cl_device_type));
   CHECK(*type & (CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU));
   bool cpu = *type & CL_DEVICE_TYPE_CPU;
   free(type);
   cl_uint *cu = QUERY(device_info, d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(cl_uint));
   CHECK(*cu >= 1);
   free(cu);
   cl_bool *avail = QUERY(device_info, d, CL_DEVICE_AVAILABLE, sizeof(cl_bool));
   CHECK(*avail == CL_TRUE);
   free(avail);
   cl_platform_id *dp = QUERY(device_info, d, CL_DEVICE_PLATFORM, sizeof(cl_platform_id));
   CHECK(*dp == p);
   free(dp);
   cl_command_queue_properties *qp =
      QUERY(device_info, d, CL_DEVICE_QUEUE_PROPERTIES, sizeof(cl_command_queue_properties));
   CHECK(*qp & CL_QUEUE_PROFILING_ENABLE);
   free(qp);

   char *s = QUERY_STRING(device_info, d, CL_DEVICE_NAME);
   printf("device: %s\n", s);
   CHECK(s[0]);
   free(s);
   /* The CPU device has the platform's version; a GPU may have an older
    * one (docs/conformance.md), never a newer. */
   s = QUERY_STRING(device_info, d, CL_DEVICE_VERSION);
   if (cpu)
      CHECK(!strncmp(s, KILN_PLATFORM_VERSION_PREFIX, strlen(KILN_PLATFORM_VERSION_PREFIX)));
   else {
      int major = 0, minor = 0;
      CHECK(sscanf(s, "OpenCL %d.%d ", &major, &minor) == 2 &&
            major * 10 + minor <= KILN_CL_VERSION_MAJOR * 10 + KILN_CL_VERSION_MINOR);
   }
   free(s);
   s = QUERY_STRING(device_info, d, CL_DEVICE_OPENCL_C_VERSION);
   const char *c_prefix = cpu ? KILN_C_VERSION_PREFIX_CPU : KILN_C_VERSION_PREFIX;
   CHECK(!strncmp(s, c_prefix, strlen(c_prefix)));
   free(s);
   s = QUERY_STRING(device_info, d, CL_DEVICE_PROFILE);
   CHECK(!strcmp(s, "FULL_PROFILE"));
   free(s);

   char buf[64];
   EXPECT(clGetDeviceInfo(d, 0xdead, sizeof(buf), buf, NULL), CL_INVALID_VALUE);
}

static void check_context(cl_context ctx, cl_platform_id p, cl_device_id d, bool with_props)
{
   cl_uint *rc = QUERY(context_info, ctx, CL_CONTEXT_REFERENCE_COUNT, sizeof(cl_uint));
   CHECK(*rc == 1);
   free(rc);
   cl_uint *nd = QUERY(context_info, ctx, CL_CONTEXT_NUM_DEVICES, sizeof(cl_uint));
   CHECK(*nd >= 1);
   cl_device_id *devs = QUERY(context_info, ctx, CL_CONTEXT_DEVICES, *nd * sizeof(cl_device_id));
   bool found = false;
   for (cl_uint i = 0; i < *nd; i++)
      found |= devs[i] == d;
   CHECK(found);
   free(devs);
   free(nd);
   if (with_props) {
      cl_context_properties *props =
         QUERY(context_info, ctx, CL_CONTEXT_PROPERTIES, 3 * sizeof(cl_context_properties));
      CHECK(props[0] == CL_CONTEXT_PLATFORM);
      CHECK(props[1] == (cl_context_properties)p);
      CHECK(props[2] == 0);
      free(props);
   }
   EXPECT(clRetainContext(ctx), CL_SUCCESS);
   rc = QUERY(context_info, ctx, CL_CONTEXT_REFERENCE_COUNT, sizeof(cl_uint));
   CHECK(*rc == 2);
   free(rc);
   EXPECT(clReleaseContext(ctx), CL_SUCCESS);
}

static void check_queue(cl_context ctx, cl_device_id d)
{
   cl_int err = -1;
   cl_command_queue q = clCreateCommandQueue(ctx, d, CL_QUEUE_PROFILING_ENABLE, &err);
   EXPECT(err, CL_SUCCESS);
   CHECK(q);

   cl_context *qc = QUERY(queue_info, q, CL_QUEUE_CONTEXT, sizeof(cl_context));
   CHECK(*qc == ctx);
   free(qc);
   cl_device_id *qd = QUERY(queue_info, q, CL_QUEUE_DEVICE, sizeof(cl_device_id));
   CHECK(*qd == d);
   free(qd);
   cl_command_queue_properties *qp =
      QUERY(queue_info, q, CL_QUEUE_PROPERTIES, sizeof(cl_command_queue_properties));
   CHECK(*qp == CL_QUEUE_PROFILING_ENABLE);
   free(qp);

   EXPECT(clRetainCommandQueue(q), CL_SUCCESS);
   cl_uint *rc = QUERY(queue_info, q, CL_QUEUE_REFERENCE_COUNT, sizeof(cl_uint));
   CHECK(*rc == 2);
   free(rc);
   EXPECT(clReleaseCommandQueue(q), CL_SUCCESS);

   /* The deprecated 1.0 entry point, through the loader's table. */
   cl_command_queue_properties old = 0xdead;
   EXPECT(clSetCommandQueueProperty(q, CL_QUEUE_PROFILING_ENABLE, CL_FALSE, &old), CL_SUCCESS);
   CHECK(old == CL_QUEUE_PROFILING_ENABLE);
   EXPECT(clSetCommandQueueProperty(q, (cl_command_queue_properties)1 << 40, CL_TRUE, &old),
          CL_INVALID_VALUE);

   EXPECT(clFlush(q), CL_SUCCESS);
   EXPECT(clFinish(q), CL_SUCCESS);

   /* Bad arguments come back as errors through the loader too. */
   CHECK(clCreateCommandQueue(ctx, d, (cl_command_queue_properties)1 << 40, &err) == NULL);
   EXPECT(err, CL_INVALID_VALUE);
   /* A not-yet-implemented entry point answers, it does not crash. */
   CHECK(clCreateFromGLBuffer(ctx, CL_MEM_READ_WRITE, 1, &err) == NULL);
   EXPECT(err, CL_INVALID_OPERATION);

   EXPECT(clReleaseCommandQueue(q), CL_SUCCESS);
}

int main(void)
{
   setvbuf(stdout, NULL, _IONBF, 0);
   cl_platform_id p = find_kiln();
   check_platform(p);

   cl_uint n = 0;
   EXPECT(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, NULL, &n), CL_SUCCESS);
   CHECK(n >= 1);
   /* The first device, of whichever type (KILN_DEVICES picks the driver). */
   cl_device_id d = NULL;
   EXPECT(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL), CL_SUCCESS);
   CHECK(d);
   cl_device_type dtype = 0;
   EXPECT(clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof(dtype), &dtype, NULL), CL_SUCCESS);
   cl_device_id first = NULL;
   EXPECT(clGetDeviceIDs(p, dtype, 1, &first, NULL), CL_SUCCESS);
   CHECK(first == d);
   EXPECT(clGetDeviceIDs(p, 0, 1, &d, NULL), CL_INVALID_DEVICE_TYPE);
   check_device(p, d);

   cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p, 0};
   cl_int err = -1;
   cl_context ctx = clCreateContext(props, 1, &d, NULL, NULL, &err);
   EXPECT(err, CL_SUCCESS);
   CHECK(ctx);
   check_context(ctx, p, d, true);
   check_queue(ctx, d);
   EXPECT(clReleaseContext(ctx), CL_SUCCESS);

   err = -1;
   ctx = clCreateContextFromType(props, dtype, NULL, NULL, &err);
   EXPECT(err, CL_SUCCESS);
   CHECK(ctx);
   check_context(ctx, p, d, true);
   check_queue(ctx, d);
   EXPECT(clReleaseContext(ctx), CL_SUCCESS);

   /* Errors the loader passes to Kiln. */
   int user = 0;
   CHECK(clCreateContext(props, 1, &d, NULL, &user, &err) == NULL);
   EXPECT(err, CL_INVALID_VALUE);
   cl_context_properties twice[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p,
                                     CL_CONTEXT_PLATFORM, (cl_context_properties)p, 0};
   CHECK(clCreateContext(twice, 1, &d, NULL, NULL, &err) == NULL);
   EXPECT(err, CL_INVALID_PROPERTY);

   printf("test_foundation: all checks passed\n");
   return 0;
}
