/* Issue 18 on the fake libcuda: the CPU and two NVIDIA GPUs
 * (KILN_DEVICES=cpu,cuda, fake_cuda.c with two devices), each its own
 * OpenCL device, in one context; for every ordered pair (A, B) a kernel
 * on A updates buffer 1, a kernel on B (waiting on A's event only, A
 * held back by a user event) turns it into buffer 2, and the host reads
 * both back on the third device's queue: plain, USE_HOST_PTR and
 * COPY_HOST_PTR buffers, and a host map between the two kernels.
 *
 * The fake cannot run PTX: a GPU's kernels are the host functions below,
 * over the launch's parameters (nvptx's ABI: the arguments, then the
 * global offset x, y, z and work_dim), and they check that every buffer
 * they are given lies in their own GPU's memory or in host memory (a
 * GPU cannot reach another's memory: Kiln must have copied the bytes).
 * The CPU device compiles and runs the same source for real.
 * tests/cl/exec/mixed_devices.c is the same check through the ICD
 * loader, on real GPUs. */
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

#define N 1024

static const char *source =
   "uint mixv(uint x, uint i, uint seed)\n"
   "{\n"
   "   x ^= seed + i * 0x9E3779B9u;\n"
   "   x *= 0x85EBCA6Bu;\n"
   "   return x ^ (x >> 13);\n"
   "}\n"
   "kernel void produce(global uint *buf, uint seed)\n"
   "{\n"
   "   uint i = get_global_id(0);\n"
   "   buf[i] = mixv(buf[i], i, seed);\n"
   "}\n"
   "kernel void transform(global const uint *src, global uint *dst, uint seed)\n"
   "{\n"
   "   uint i = get_global_id(0);\n"
   "   dst[i] = mixv(src[i], i, seed) + 1u;\n"
   "}\n";

static uint32_t mixv(uint32_t x, uint32_t i, uint32_t seed)
{
   x ^= seed + i * 0x9E3779B9u;
   x *= 0x85EBCA6Bu;
   return x ^ (x >> 13);
}

static unsigned foreign_memory; /* buffers a GPU kernel could not reach */

/* The bytes of buffer parameter i (and its element count), if the
 * launch's GPU can reach them. */
static uint32_t *buffer_param(const struct fake_cuda_launch *l, unsigned i, size_t n)
{
   uint64_t addr;
   fake_cuda_param(l, i, &addr, sizeof(addr));
   int owner = fake_cuda_ptr_device(addr, n * 4);
   if (owner != -1 && owner != l->device) {
      fprintf(stderr, "GPU %d's kernel %s given memory of %d at 0x%llx\n", l->device,
              l->kernel->name, owner, (unsigned long long)addr);
      foreign_memory++;
      return NULL;
   }
   return fake_cuda_ptr(addr, n * 4);
}

static void run_produce(const struct fake_cuda_launch *l)
{
   size_t n = (size_t)l->grid[0] * l->block[0];
   uint32_t seed;
   fake_cuda_param(l, 1, &seed, sizeof(seed));
   uint32_t *p = buffer_param(l, 0, n);
   for (size_t i = 0; p && i < n; i++)
      p[i] = mixv(p[i], (uint32_t)i, seed);
}

static void run_transform(const struct fake_cuda_launch *l)
{
   size_t n = (size_t)l->grid[0] * l->block[0];
   uint32_t seed;
   fake_cuda_param(l, 2, &seed, sizeof(seed));
   const uint32_t *s = buffer_param(l, 0, n);
   uint32_t *d = buffer_param(l, 1, n);
   for (size_t i = 0; s && d && i < n; i++)
      d[i] = mixv(s[i], (uint32_t)i, seed) + 1u;
}

static cl_platform_id platform;
static cl_device_id devices[3];
static cl_context ctx;
static cl_command_queue queues[3];
static cl_program program;
static cl_kernel produce, transform;

static int setup(void **state)
{
   (void)state;
   if (fake_cuda_cl_open(2, &platform, devices, 3))
      return -1;
   static const unsigned produce_sizes[] = {8, 4, 8, 8, 8, 4};
   static const unsigned transform_sizes[] = {8, 8, 4, 8, 8, 8, 4};
   fake_cuda_define_kernel("produce", 6, produce_sizes, run_produce);
   fake_cuda_define_kernel("transform", 7, transform_sizes, run_transform);
   cl_int err;
   ctx = clCreateContext(NULL, 3, devices, NULL, NULL, &err);
   if (err)
      return -1;
   for (int d = 0; d < 3; d++) {
      queues[d] = clCreateCommandQueue(ctx, devices[d], 0, &err);
      if (err)
         return -1;
   }
   program = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
   if (err)
      return -1;
   err = clBuildProgram(program, 0, NULL, "", NULL, NULL);
   if (err) {
      for (int d = 0; d < 3; d++) {
         char log[8192] = "";
         clGetProgramBuildInfo(program, devices[d], CL_PROGRAM_BUILD_LOG, sizeof(log), log,
                               NULL);
         fprintf(stderr, "device %d: %s\n", d, log);
      }
      return -1;
   }
   produce = clCreateKernel(program, "produce", &err);
   if (err)
      return -1;
   transform = clCreateKernel(program, "transform", &err);
   return err ? -1 : 0;
}

static int teardown(void **state)
{
   (void)state;
   clReleaseKernel(produce);
   clReleaseKernel(transform);
   clReleaseProgram(program);
   for (int d = 0; d < 3; d++)
      clReleaseCommandQueue(queues[d]);
   clReleaseContext(ctx);
   return 0;
}

static void test_devices(void **state)
{
   (void)state;
   cl_device_type want[3] = {CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_GPU};
   for (int d = 0; d < 3; d++) {
      cl_device_type t = 0;
      assert_int_equal(clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof(t), &t, NULL), 0);
      assert_int_equal(t, want[d]);
   }
   assert_ptr_not_equal(devices[1], devices[2]);
}

enum kind { PLAIN, USE_HOST, COPY_HOST, MAP_BETWEEN };

static void one_pair(cl_uint a, cl_uint b, enum kind kind)
{
   cl_uint r = 3 - a - b; /* the third device */
   enum { BYTES = N * 4 };
   uint32_t init[N], want1[N], want2[N], got[N];
   for (uint32_t i = 0; i < N; i++)
      init[i] = i * 2654435761u + a * 7 + b * 131 + (uint32_t)kind;
   void *host1 = NULL;
   cl_int err;
   cl_mem b1, b2 = clCreateBuffer(ctx, CL_MEM_READ_WRITE, BYTES, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   if (kind == USE_HOST) {
      host1 = aligned_alloc(4096, BYTES);
      assert_non_null(host1);
      memcpy(host1, init, BYTES);
      b1 = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, BYTES, host1, &err);
   } else if (kind == COPY_HOST) {
      b1 = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, BYTES, init, &err);
   } else {
      b1 = clCreateBuffer(ctx, CL_MEM_READ_WRITE, BYTES, NULL, &err);
      assert_int_equal(err, CL_SUCCESS);
      /* Written on B: A's kernel needs the bytes from there. */
      err = clEnqueueWriteBuffer(queues[b], b1, CL_TRUE, 0, BYTES, init, 0, NULL, NULL);
   }
   assert_int_equal(err, CL_SUCCESS);
   memcpy(want1, init, BYTES);

   for (uint32_t round = 0; round < 2; round++) {
      uint32_t seed_a = 0x100 * (a + 1) + round, seed_b = 0x1000 * (b + 1) + round;
      for (uint32_t i = 0; i < N; i++)
         want1[i] = mixv(want1[i], i, seed_a);
      cl_event gate = clCreateUserEvent(ctx, &err), ev_a, before_b, ev_b;
      assert_int_equal(err, CL_SUCCESS);
      size_t global = N;
      assert_int_equal(clSetKernelArg(produce, 0, sizeof(b1), &b1), 0);
      assert_int_equal(clSetKernelArg(produce, 1, sizeof(seed_a), &seed_a), 0);
      assert_int_equal(
         clEnqueueNDRangeKernel(queues[a], produce, 1, NULL, &global, NULL, 1, &gate, &ev_a), 0);
      before_b = ev_a;
      uint32_t *mapped = NULL;
      cl_event map_ev = NULL;
      if (kind == MAP_BETWEEN) {
         mapped = clEnqueueMapBuffer(queues[b], b1, CL_FALSE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                     BYTES, 1, &ev_a, &map_ev, &err);
         assert_int_equal(err, CL_SUCCESS);
      } else {
         assert_int_equal(clSetKernelArg(transform, 0, sizeof(b1), &b1), 0);
         assert_int_equal(clSetKernelArg(transform, 1, sizeof(b2), &b2), 0);
         assert_int_equal(clSetKernelArg(transform, 2, sizeof(seed_b), &seed_b), 0);
         assert_int_equal(clEnqueueNDRangeKernel(queues[b], transform, 1, NULL, &global, NULL, 1,
                                                 &before_b, &ev_b),
                          0);
         /* Nothing runs before the gate opens. */
         usleep(2000);
         cl_int st = 0;
         assert_int_equal(clGetEventInfo(ev_b, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st),
                                         &st, NULL),
                          0);
         assert_true(st > CL_COMPLETE);
      }
      assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), 0);
      if (kind == MAP_BETWEEN) {
         assert_int_equal(clWaitForEvents(1, &map_ev), 0);
         assert_memory_equal(mapped, want1, BYTES);
         for (uint32_t i = 0; i < N; i += 3) {
            mapped[i] ^= 0x5a5a5a5au;
            want1[i] ^= 0x5a5a5a5au;
         }
         cl_event unmap_ev;
         assert_int_equal(clEnqueueUnmapMemObject(queues[b], b1, mapped, 0, NULL, &unmap_ev), 0);
         clReleaseEvent(map_ev);
         assert_int_equal(clSetKernelArg(transform, 0, sizeof(b1), &b1), 0);
         assert_int_equal(clSetKernelArg(transform, 1, sizeof(b2), &b2), 0);
         assert_int_equal(clSetKernelArg(transform, 2, sizeof(seed_b), &seed_b), 0);
         assert_int_equal(clEnqueueNDRangeKernel(queues[b], transform, 1, NULL, &global, NULL, 1,
                                                 &unmap_ev, &ev_b),
                          0);
         clReleaseEvent(unmap_ev);
      }
      for (uint32_t i = 0; i < N; i++)
         want2[i] = mixv(want1[i], i, seed_b) + 1u;
      memset(got, 0, BYTES);
      assert_int_equal(
         clEnqueueReadBuffer(queues[r], b2, CL_TRUE, 0, BYTES, got, 1, &ev_b, NULL), 0);
      assert_memory_equal(got, want2, BYTES);
      memset(got, 0, BYTES);
      assert_int_equal(
         clEnqueueReadBuffer(queues[r], b1, CL_TRUE, 0, BYTES, got, 1, &ev_b, NULL), 0);
      assert_memory_equal(got, want1, BYTES);
      clReleaseEvent(gate);
      clReleaseEvent(ev_a);
      clReleaseEvent(ev_b);
   }
   assert_int_equal(foreign_memory, 0);
   clReleaseMemObject(b1);
   clReleaseMemObject(b2);
   free(host1);
}

static void test_every_pair(void **state)
{
   (void)state;
   unsigned launches = fake_cuda.num_launches;
   for (cl_uint a = 0; a < 3; a++)
      for (cl_uint b = 0; b < 3; b++)
         if (a != b)
            for (int kind = PLAIN; kind <= MAP_BETWEEN; kind++)
               one_pair(a, b, (enum kind)kind);
   /* The GPUs ran their kernels: per round, produce where A is a GPU and
    * transform where B is; 8 over the 6 pairs, 4 kinds, 2 rounds. */
   assert_int_equal(fake_cuda.num_launches - launches, 8 * 4 * 2);
   assert_int_equal(fake_cuda.use_after_free, 0);
}

int main(void)
{
   setenv("KILN_DEVICES", "cpu,cuda", 1);
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_devices),
      cmocka_unit_test(test_every_pair),
   };
   return cmocka_run_group_tests(tests, setup, teardown);
}
