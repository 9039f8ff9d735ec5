/* Issue 17, step 1: a context holding the CPU and an AMD GPU (the fake
 * libdrm's gfx900; KILN_DEVICES=cpu,amdgpu), what clCreateContextFromType
 * (CL_DEVICE_TYPE_ALL) gives on any machine with an AMD GPU.
 *  - A CPU kernel writes a buffer, the GPU queue reads it back: the bytes
 *    must be the kernel's, and the amdgpu winsys's BO structures must be
 *    intact (every handle the driver gives libdrm is one it got).
 *  - CL_MEM_USE_HOST_PTR works on the GPU (with libdrm's userptr import
 *    and without it, where core keeps a device copy).
 *  - Data written on one device is read on the other, both ways, through
 *    sub-buffers of USE_HOST_PTR / COPY_HOST_PTR / ALLOC_HOST_PTR /
 *    plain buffers: written by clEnqueueWriteBuffer, a kernel or
 *    clEnqueueFillBuffer, read by clEnqueueReadBuffer, a map or a kernel.
 * The fake GPU "runs" the two kernels it is given (fill, copy) when their
 * fence is found signalled, at the addresses their kernarg holds, which
 * must lie in live BOs of the right size.
 *
 * amdgpu_drm_load is wrapped at link time to hand out fake_drm.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <CL/cl.h>

#include "fake_drm.h"

struct amdgpu_drm *__wrap_amdgpu_drm_load(void);
void __wrap_amdgpu_drm_unload(struct amdgpu_drm *drm);

struct amdgpu_drm *__wrap_amdgpu_drm_load(void)
{
   return (struct amdgpu_drm *)fake_drm_table();
}

void __wrap_amdgpu_drm_unload(struct amdgpu_drm *drm)
{
   (void)drm;
}

static const char *src =
   "__kernel void fill(__global uint *p, uint v) { p[get_global_id(0)] = v; }\n"
   "__kernel void copy(__global const uint *s, __global uint *d)\n"
   "{ d[get_global_id(0)] = s[get_global_id(0)]; }\n";

enum { TAG_NONE, TAG_FILL, TAG_COPY };

static unsigned bad_addresses;

/* The fake GPU's kernels, by fake.tag at submission. */
static void run(const struct fake_submit *s)
{
   struct fake_dispatch d;
   if (!fake_submit_dispatch(s, &d) || !d.kernarg) {
      bad_addresses++;
      return;
   }
   uint64_t a, b;
   uint32_t v, n = d.global[0];
   memcpy(&a, d.kernarg, 8);
   if (s->tag == TAG_FILL) {
      memcpy(&v, d.kernarg + 8, 4);
      uint32_t *p = fake_drm_va_to_cpu(a, (uint64_t)n * 4);
      if (!p) {
         bad_addresses++;
         return;
      }
      for (uint32_t i = 0; i < n; i++)
         p[i] = v;
   } else if (s->tag == TAG_COPY) {
      memcpy(&b, d.kernarg + 8, 8);
      const uint32_t *from = fake_drm_va_to_cpu(a, (uint64_t)n * 4);
      uint32_t *to = fake_drm_va_to_cpu(b, (uint64_t)n * 4);
      if (!from || !to) {
         bad_addresses++;
         return;
      }
      memmove(to, from, (size_t)n * 4);
   } else {
      bad_addresses++; /* a launch the test did not ask for */
   }
}

static cl_platform_id platform;
static cl_device_id cpu, gpu;
static cl_context ctx;
static cl_command_queue qcpu, qgpu;
static cl_program prog;
static cl_kernel kfill, kcopy;

static cl_command_queue queue_of(cl_device_id d)
{
   return d == cpu ? qcpu : qgpu;
}

static unsigned live_bos(void)
{
   unsigned n = 0;
   for (unsigned i = 0; i < FAKE_MAX_BOS; i++)
      n += fake.bos[i].live;
   return n;
}

static int group_setup(void **state)
{
   (void)state;
   cl_device_id devs[4];
   cl_uint n = 0;
   assert_int_equal(clGetPlatformIDs(1, &platform, NULL), CL_SUCCESS);
   assert_int_equal(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 4, devs, &n), CL_SUCCESS);
   for (cl_uint i = 0; i < n; i++) {
      cl_device_type t;
      clGetDeviceInfo(devs[i], CL_DEVICE_TYPE, sizeof(t), &t, NULL);
      if (t == CL_DEVICE_TYPE_GPU)
         gpu = devs[i];
      else if (t == CL_DEVICE_TYPE_CPU)
         cpu = devs[i];
   }
   assert_non_null(cpu);
   assert_non_null(gpu);
   cl_int err;
   const cl_device_id both[2] = {cpu, gpu};
   ctx = clCreateContext(NULL, 2, both, NULL, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   qcpu = clCreateCommandQueue(ctx, cpu, 0, &err);
   assert_int_equal(err, CL_SUCCESS);
   qgpu = clCreateCommandQueue(ctx, gpu, 0, &err);
   assert_int_equal(err, CL_SUCCESS);
   prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   err = clBuildProgram(prog, 2, both, "", NULL, NULL);
   if (err) {
      char log[8192] = "";
      clGetProgramBuildInfo(prog, gpu, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
      fprintf(stderr, "%s\n", log);
   }
   assert_int_equal(err, CL_SUCCESS);
   kfill = clCreateKernel(prog, "fill", &err);
   assert_int_equal(err, CL_SUCCESS);
   kcopy = clCreateKernel(prog, "copy", &err);
   assert_int_equal(err, CL_SUCCESS);
   fake.execute = run;
   return 0;
}

static int group_teardown(void **state)
{
   (void)state;
   clReleaseKernel(kfill);
   clReleaseKernel(kcopy);
   clReleaseProgram(prog);
   clReleaseCommandQueue(qcpu);
   clReleaseCommandQueue(qgpu);
   clReleaseContext(ctx);
   return 0;
}

/* Runs fill(p, v) over n words on device d, to completion. */
static void kernel_fill(cl_device_id d, cl_mem p, uint32_t v, size_t n)
{
   assert_int_equal(clSetKernelArg(kfill, 0, sizeof(p), &p), CL_SUCCESS);
   assert_int_equal(clSetKernelArg(kfill, 1, sizeof(v), &v), CL_SUCCESS);
   fake.tag = TAG_FILL;
   assert_int_equal(clEnqueueNDRangeKernel(queue_of(d), kfill, 1, NULL, &n, NULL, 0, NULL, NULL),
                    CL_SUCCESS);
   assert_int_equal(clFinish(queue_of(d)), CL_SUCCESS);
   fake.tag = TAG_NONE;
}

static void kernel_copy(cl_device_id d, cl_mem from, cl_mem to, size_t n)
{
   assert_int_equal(clSetKernelArg(kcopy, 0, sizeof(from), &from), CL_SUCCESS);
   assert_int_equal(clSetKernelArg(kcopy, 1, sizeof(to), &to), CL_SUCCESS);
   fake.tag = TAG_COPY;
   assert_int_equal(clEnqueueNDRangeKernel(queue_of(d), kcopy, 1, NULL, &n, NULL, 0, NULL, NULL),
                    CL_SUCCESS);
   assert_int_equal(clFinish(queue_of(d)), CL_SUCCESS);
   fake.tag = TAG_NONE;
}

/* (a) A CPU kernel writes 0x41414141; the GPU queue reads it back. */
static void test_cpu_kernel_gpu_read(void **state)
{
   (void)state;
   bad_addresses = 0;
   unsigned bad = fake.bad_handles, bos = live_bos();
   cl_int err;
   cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   kernel_fill(cpu, m, 0x41414141u, 1024);
   uint32_t *got = calloc(1024, 4);
   assert_int_equal(clEnqueueReadBuffer(qgpu, m, CL_TRUE, 0, 4096, got, 0, NULL, NULL),
                    CL_SUCCESS);
   for (int i = 0; i < 1024; i++)
      assert_int_equal(got[i], 0x41414141u);
   /* The CPU queue sees it too. */
   memset(got, 0, 4096);
   assert_int_equal(clEnqueueReadBuffer(qcpu, m, CL_TRUE, 0, 4096, got, 0, NULL, NULL),
                    CL_SUCCESS);
   assert_int_equal(got[1023], 0x41414141u);
   free(got);
   assert_int_equal(clReleaseMemObject(m), CL_SUCCESS);
   assert_int_equal(clFinish(qgpu), CL_SUCCESS);
   /* The BO went back to libdrm through handles libdrm gave out: the
    * CPU kernel wrote nothing over the winsys's structures. */
   assert_int_equal(fake.bad_handles, bad);
   assert_int_equal(live_bos(), bos);
   assert_int_equal(bad_addresses, 0);
}

/* (b) CL_MEM_USE_HOST_PTR on the GPU, with and without userptr. */
static void use_host_ptr_on_gpu(bool userptr)
{
   fake.no_userptr = !userptr;
   fake_drm_table(); /* one structure: the screen sees the change */
   bad_addresses = 0;
   cl_int err;
   const cl_device_id one = gpu;
   cl_context c = clCreateContext(NULL, 1, &one, NULL, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   cl_command_queue q = clCreateCommandQueue(c, gpu, 0, &err);
   assert_int_equal(err, CL_SUCCESS);
   uint32_t *page = aligned_alloc(4096, 3 * 4096);
   memset(page, 0, 3 * 4096);
   uint32_t *host = page + 3; /* anywhere in a page */
   for (int i = 0; i < 1024; i++)
      host[i] = 0x1000u + (uint32_t)i;
   cl_mem m = clCreateBuffer(c, CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, 4096, host, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_non_null(m);
   uint32_t *p = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ, 0, 4096, 0, NULL, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_ptr_equal(p, host); /* a USE_HOST_PTR map is the application's memory */
   assert_int_equal(p[0], 0x1000u);
   assert_int_equal(p[1023], 0x1000u + 1023);
   assert_int_equal(clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL), CL_SUCCESS);
   uint32_t got[4];
   assert_int_equal(clEnqueueReadBuffer(q, m, CL_TRUE, 4 * 100, sizeof(got), got, 0, NULL, NULL),
                    CL_SUCCESS);
   assert_int_equal(got[0], 0x1000u + 100);
   /* A GPU kernel's writes reach the host memory by the next map. */
   cl_program pr = clCreateProgramWithSource(c, 1, &src, NULL, &err);
   assert_int_equal(clBuildProgram(pr, 1, &one, "", NULL, NULL), CL_SUCCESS);
   cl_kernel k = clCreateKernel(pr, "fill", &err);
   cl_uint v = 0x41414141u;
   clSetKernelArg(k, 0, sizeof(m), &m);
   clSetKernelArg(k, 1, sizeof(v), &v);
   size_t n = 1024;
   fake.tag = TAG_FILL;
   assert_int_equal(clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, NULL), CL_SUCCESS);
   assert_int_equal(clFinish(q), CL_SUCCESS);
   fake.tag = TAG_NONE;
   p = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ, 0, 4096, 0, NULL, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_ptr_equal(p, host);
   assert_int_equal(host[0], 0x41414141u);
   assert_int_equal(host[1023], 0x41414141u);
   assert_int_equal(page[2], 0); /* nothing before the buffer */
   assert_int_equal(clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL), CL_SUCCESS);
   assert_int_equal(clFinish(q), CL_SUCCESS);
   assert_int_equal(bad_addresses, 0);
   clReleaseKernel(k);
   clReleaseProgram(pr);
   clReleaseMemObject(m);
   clReleaseCommandQueue(q);
   clReleaseContext(c);
   free(page);
   fake.no_userptr = false;
   fake_drm_table();
}

static void test_use_host_ptr_userptr(void **state)
{
   (void)state;
   use_host_ptr_on_gpu(true);
}

static void test_use_host_ptr_device_copy(void **state)
{
   (void)state;
   use_host_ptr_on_gpu(false);
}

/* (c) Written on one device, read on the other. */
enum how_write { W_WRITE, W_KERNEL, W_FILL, W_COUNT };
enum how_read { R_READ, R_MAP, R_KERNEL, R_COUNT };
static const cl_mem_flags kinds[] = {0, CL_MEM_USE_HOST_PTR, CL_MEM_COPY_HOST_PTR,
                                     CL_MEM_ALLOC_HOST_PTR};

#define PARENT_WORDS 2048u
#define SUB_OFFSET 4096u /* bytes: aligned for both devices */
#define SUB_WORDS 256u

static uint32_t pattern(uint32_t i)
{
   return 0x5000u + i;
}

static void one_case(cl_device_id writer, cl_device_id reader, cl_mem_flags kind,
                     enum how_write hw, enum how_read hr)
{
   const char *wn = writer == cpu ? "cpu" : "gpu", *rn = reader == cpu ? "cpu" : "gpu";
   cl_int err;
   uint32_t *page = aligned_alloc(4096, PARENT_WORDS * 4);
   for (uint32_t i = 0; i < PARENT_WORDS; i++)
      page[i] = pattern(i);
   bool has_host = kind & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
   cl_mem parent = clCreateBuffer(ctx, CL_MEM_READ_WRITE | kind, PARENT_WORDS * 4,
                                  has_host ? page : NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   if (!has_host)
      assert_int_equal(clEnqueueWriteBuffer(queue_of(writer), parent, CL_TRUE, 0,
                                            PARENT_WORDS * 4, page, 0, NULL, NULL),
                       CL_SUCCESS);
   const cl_buffer_region region = {SUB_OFFSET, SUB_WORDS * 4};
   cl_mem sub = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                                  &region, &err);
   assert_int_equal(err, CL_SUCCESS);

   const uint32_t v = 0x41414141u ^ (uint32_t)(hw << 8 | hr);
   uint32_t vals[SUB_WORDS];
   for (uint32_t i = 0; i < SUB_WORDS; i++)
      vals[i] = v;
   cl_command_queue wq = queue_of(writer), rq = queue_of(reader);
   switch (hw) {
   case W_WRITE:
      assert_int_equal(clEnqueueWriteBuffer(wq, sub, CL_TRUE, 0, sizeof(vals), vals, 0, NULL,
                                            NULL),
                       CL_SUCCESS);
      break;
   case W_KERNEL:
      kernel_fill(writer, sub, v, SUB_WORDS);
      break;
   default:
      assert_int_equal(clEnqueueFillBuffer(wq, sub, &v, 4, 0, sizeof(vals), 0, NULL, NULL),
                       CL_SUCCESS);
      break;
   }
   assert_int_equal(clFinish(wq), CL_SUCCESS);

   uint32_t got[SUB_WORDS];
   memset(got, 0, sizeof(got));
   if (hr == R_READ) {
      assert_int_equal(clEnqueueReadBuffer(rq, sub, CL_TRUE, 0, sizeof(got), got, 0, NULL, NULL),
                       CL_SUCCESS);
   } else if (hr == R_MAP) {
      uint32_t *p = clEnqueueMapBuffer(rq, sub, CL_TRUE, CL_MAP_READ, 0, sizeof(got), 0, NULL,
                                       NULL, &err);
      assert_int_equal(err, CL_SUCCESS);
      memcpy(got, p, sizeof(got));
      assert_int_equal(clEnqueueUnmapMemObject(rq, sub, p, 0, NULL, NULL), CL_SUCCESS);
   } else {
      cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(got), NULL, &err);
      assert_int_equal(err, CL_SUCCESS);
      kernel_copy(reader, sub, out, SUB_WORDS);
      assert_int_equal(clEnqueueReadBuffer(rq, out, CL_TRUE, 0, sizeof(got), got, 0, NULL, NULL),
                       CL_SUCCESS);
      clReleaseMemObject(out);
   }
   for (uint32_t i = 0; i < SUB_WORDS; i++)
      if (got[i] != v)
         fail_msg("flags 0x%llx, written on %s (%d), read on %s (%d): word %u is 0x%x, not 0x%x",
                  (unsigned long long)kind, wn, hw, rn, hr, i, got[i], v);

   /* The rest of the parent kept its bytes, on the reader too. */
   uint32_t *all = calloc(PARENT_WORDS, 4);
   assert_int_equal(clEnqueueReadBuffer(rq, parent, CL_TRUE, 0, PARENT_WORDS * 4, all, 0, NULL,
                                        NULL),
                    CL_SUCCESS);
   for (uint32_t i = 0; i < PARENT_WORDS; i++) {
      bool in = i >= SUB_OFFSET / 4 && i < SUB_OFFSET / 4 + SUB_WORDS;
      if (all[i] != (in ? v : pattern(i)))
         fail_msg("flags 0x%llx, written on %s (%d), read on %s (%d): parent word %u is 0x%x",
                  (unsigned long long)kind, wn, hw, rn, hr, i, all[i]);
   }
   free(all);
   /* USE_HOST_PTR: a map makes the application's memory current. */
   if (kind & CL_MEM_USE_HOST_PTR) {
      uint32_t *p = clEnqueueMapBuffer(rq, parent, CL_TRUE, CL_MAP_READ, 0, PARENT_WORDS * 4, 0,
                                       NULL, NULL, &err);
      assert_int_equal(err, CL_SUCCESS);
      assert_ptr_equal(p, page);
      assert_int_equal(page[SUB_OFFSET / 4], v);
      assert_int_equal(page[SUB_OFFSET / 4 + SUB_WORDS], pattern(SUB_OFFSET / 4 + SUB_WORDS));
      assert_int_equal(clEnqueueUnmapMemObject(rq, parent, p, 0, NULL, NULL), CL_SUCCESS);
      assert_int_equal(clFinish(rq), CL_SUCCESS);
   }
   clReleaseMemObject(sub);
   clReleaseMemObject(parent);
   free(page);
}

static void mixed(cl_device_id writer, cl_device_id reader)
{
   bad_addresses = 0;
   unsigned bad = fake.bad_handles, bos = live_bos();
   for (unsigned k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
      for (int hw = 0; hw < W_COUNT; hw++)
         for (int hr = 0; hr < R_COUNT; hr++)
            one_case(writer, reader, kinds[k], (enum how_write)hw, (enum how_read)hr);
   assert_int_equal(clFinish(qcpu), CL_SUCCESS);
   assert_int_equal(clFinish(qgpu), CL_SUCCESS);
   assert_int_equal(bad_addresses, 0);
   assert_int_equal(fake.bad_handles, bad);
   assert_int_equal(live_bos(), bos);
}

static void test_mixed_cpu_to_gpu(void **state)
{
   (void)state;
   mixed(cpu, gpu);
}

static void test_mixed_gpu_to_cpu(void **state)
{
   (void)state;
   mixed(gpu, cpu);
}

int main(void)
{
   /* KILN_DEVICES=cpu,amdgpu (meson.build). */
   fake_drm_reset();
   fake_drm_add_gpu(141, 0x01, "Radeon RX Vega 64"); /* gfx900 */
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cpu_kernel_gpu_read),
      cmocka_unit_test(test_use_host_ptr_userptr),
      cmocka_unit_test(test_use_host_ptr_device_copy),
      cmocka_unit_test(test_mixed_cpu_to_gpu),
      cmocka_unit_test(test_mixed_gpu_to_cpu),
   };
   return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
