/* The CUDA device end to end through the cl* entry points and core, over
 * the fake libcuda (cuda_api_load is wrapped at link time): what an
 * application sees of an NVIDIA GPU (device queries, buffers of every
 * kind, copies, fills, rectangles, maps, profiling), and that releasing a
 * context gives back everything it took from CUDA.  Building programs:
 * test_cuda_build.c.  KILN_DEVICES=cuda. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <CL/cl.h>

#include "fake_cuda.h"
#include "fake_cuda_cl.h"

static cl_platform_id platform;
static cl_device_id device;

static int setup(void **state)
{
   (void)state;
   return fake_cuda_cl_open(1, &platform, &device, 1);
}

static void test_device_info(void **state)
{
   (void)state;
   cl_device_type type;
   cl_uint cus, vendor;
   cl_ulong mem;
   char name[128];
   cl_bool compiler, images;
   assert_int_equal(clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof(type), &type, NULL), 0);
   assert_int_equal(type, CL_DEVICE_TYPE_GPU);
   assert_int_equal(clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof(name), name, NULL), 0);
   assert_string_equal(name, FAKE_CUDA_H100);
   assert_int_equal(clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(cus), &cus, NULL),
                    0);
   assert_int_equal(cus, 132);
   assert_int_equal(clGetDeviceInfo(device, CL_DEVICE_VENDOR_ID, sizeof(vendor), &vendor, NULL),
                    0);
   assert_int_equal(vendor, 0x10de);
   assert_int_equal(clGetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(mem), &mem, NULL),
                    0);
   assert_true(mem == 80ull << 30);
   assert_int_equal(
      clGetDeviceInfo(device, CL_DEVICE_COMPILER_AVAILABLE, sizeof(compiler), &compiler, NULL), 0);
   assert_int_equal(compiler, CL_TRUE); /* src/llvm/nvptx, sm_90 */
   assert_int_equal(clGetDeviceInfo(device, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images, NULL),
                    0);
   assert_int_equal(images, CL_TRUE); /* linear images, docs/cuda.md */
}

static void test_buffers(void **state)
{
   (void)state;
   cl_int err;
   cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   cl_command_queue q =
      clCreateCommandQueue(ctx, device, CL_QUEUE_PROFILING_ENABLE, &err);
   assert_int_equal(err, CL_SUCCESS);
   enum { N = 1 << 16 };
   static unsigned char in[N], out[N], want[N];
   for (unsigned i = 0; i < N; i++)
      in[i] = (unsigned char)(i * 11 + 3);
   cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, N, in, &err);
   assert_int_equal(err, CL_SUCCESS);
   cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   /* Device memory only: a buffer now costs a cuMemAlloc on first use. */
   cl_event copy_event;
   assert_int_equal(clEnqueueCopyBuffer(q, a, b, 0, 0, N, 0, NULL, &copy_event), CL_SUCCESS);
   const unsigned char pat[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
   assert_int_equal(clEnqueueFillBuffer(q, b, pat, 16, 4096, 8192, 0, NULL, NULL), CL_SUCCESS);
   size_t origin[3] = {10, 2, 0}, host_origin[3] = {0, 0, 0}, region[3] = {30, 5, 1};
   unsigned char rect[150];
   for (unsigned i = 0; i < sizeof(rect); i++)
      rect[i] = (unsigned char)(200 + i);
   assert_int_equal(clEnqueueWriteBufferRect(q, b, CL_FALSE, origin, host_origin, region, 100, 0,
                                             30, 0, rect, 0, NULL, NULL),
                    CL_SUCCESS);
   assert_int_equal(clEnqueueReadBuffer(q, b, CL_TRUE, 0, N, out, 0, NULL, NULL), CL_SUCCESS);
   memcpy(want, in, N);
   for (unsigned i = 0; i < 8192; i++)
      want[4096 + i] = pat[i % 16];
   for (unsigned y = 0; y < 5; y++)
      memcpy(want + (2 + y) * 100 + 10, rect + y * 30, 30);
   assert_memory_equal(out, want, N);
   assert_true(fake_cuda_used(0) >= 2 * N); /* both live in (fake) GPU memory */

   /* Profiling times: in order, on the host's clock. */
   cl_ulong t[4];
   cl_profiling_info what[4] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
   for (int i = 0; i < 4; i++)
      assert_int_equal(clGetEventProfilingInfo(copy_event, what[i], sizeof(t[i]), &t[i], NULL),
                       CL_SUCCESS);
   assert_true(t[0] <= t[1] && t[1] <= t[2] && t[2] <= t[3]);
   clReleaseEvent(copy_event);

   /* Maps go through staging. */
   unsigned char *p = clEnqueueMapBuffer(q, b, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 100, 1000, 0,
                                         NULL, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_memory_equal(p, want + 100, 1000);
   p[0] = 0x42;
   assert_int_equal(clEnqueueUnmapMemObject(q, b, p, 0, NULL, NULL), CL_SUCCESS);
   assert_int_equal(clEnqueueReadBuffer(q, b, CL_TRUE, 100, 1, out, 0, NULL, NULL), CL_SUCCESS);
   assert_int_equal(out[0], 0x42);

   /* USE_HOST_PTR: the application's pages, imported. */
   unsigned char *host = aligned_alloc(4096, N);
   memset(host, 7, N);
   cl_mem u = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, N, host, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_int_equal(clEnqueueCopyBuffer(q, a, u, 0, 0, 512, 0, NULL, NULL), CL_SUCCESS);
   p = clEnqueueMapBuffer(q, u, CL_TRUE, CL_MAP_READ, 0, N, 0, NULL, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_ptr_equal(p, host);
   assert_memory_equal(host, in, 512);
   assert_int_equal(host[512], 7);
   assert_int_equal(clEnqueueUnmapMemObject(q, u, p, 0, NULL, NULL), CL_SUCCESS);
   assert_int_equal(clFinish(q), CL_SUCCESS);

   clReleaseMemObject(u);
   clReleaseMemObject(a);
   clReleaseMemObject(b);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
   free(host);
   /* Streams, memory, registrations and staging are all given back (the
    * screen's primary context and event pool stay).  The queue's threads
    * destroy its pipe context (and its staging buffer) as they exit, which
    * may be just after clReleaseCommandQueue returns: the spec lets
    * deletion wait for them.  Two seconds at most. */
   for (int i = 0; i < 2000 && fake_cuda_used(0); i++)
      usleep(1000);
   assert_int_equal(fake_cuda_used(0), 0);
   assert_int_equal(fake_cuda.use_after_free, 0);
}

int main(void)
{
   setenv("KILN_DEVICES", "cuda", 1);
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_device_info),
      cmocka_unit_test(test_buffers),
   };
   return cmocka_run_group_tests(tests, setup, NULL);
}
