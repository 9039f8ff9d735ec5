/* Allocation failures on every create and enqueue path (issue 5).
 *
 * Each test runs one call (clCreateBuffer, clBuildProgram,
 * clEnqueueNDRangeKernel, ...) over and over with Kiln's allocation number
 * n failing, for n = 0, 1, 2, ... until the call no longer reaches an n-th
 * allocation and succeeds; then again with every allocation from the n-th
 * on failing.  After each failed call it asserts:
 *   - the error is one the specification allows for that call when memory
 *     runs out (CL_OUT_OF_HOST_MEMORY; for memory objects also
 *     CL_MEM_OBJECT_ALLOCATION_FAILURE; for a kernel launch also
 *     CL_OUT_OF_RESOURCES), and no handle came back (NULL object, event
 *     output untouched);
 *   - nothing leaked: Kiln holds exactly the blocks, objects and handles it
 *     held before the call (kiln_fault.h counts them);
 *   - the state the call should not have changed did not (a kernel
 *     argument keeps its old value, a mapping stays mapped, a command that
 *     was refused never runs);
 *   - the same context and queue still run a kernel and transfers
 *     correctly.
 * A call that succeeds although an allocation failed (Kiln has a fallback
 * there) must give the right result.  LLVM's and Clang's own allocations
 * are not injected (see docs/testing.md). */
#include "kiln_test_mem.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "api/command_buffer.h"
#include "core/device.h"
#include "core/program_cache.h"
#include "kiln_fault.h"
#include "pipe/cpu/cpu_screen.h"

#define N 64 /* work-items and uints of the buffers */
#define SENTINEL ((cl_event)(uintptr_t)0x5e5e5e)
#define NONE_YET (-12345)

static const char source[] =
   "__kernel void inc(__global uint *b, uint add)\n"
   "{\n"
   "   b[get_global_id(0)] += add;\n"
   "}\n"
   "__kernel void reverse(__global const uint *in, __global uint *out, __local uint *tmp)\n"
   "{\n"
   "   size_t l = get_local_id(0), n = get_local_size(0), g = get_group_id(0) * n;\n"
   "   uint keep = in[g + l] * 3u;\n"
   "   tmp[l] = in[g + l];\n"
   "   barrier(CLK_LOCAL_MEM_FENCE);\n"
   "   out[g + l] = tmp[n - 1 - l] + keep;\n"
   "}\n"
   "__kernel __attribute__((reqd_work_group_size(4, 1, 1)))\n"
   "__attribute__((vec_type_hint(float4)))\n"
   "void hint(__global float *f, float4 v)\n"
   "{\n"
   "   f[get_global_id(0)] = v.x + (float)ADD;\n"
   "}\n";
#define BUILD_OPTIONS "-DADD=2 -I/nonexistent -cl-mad-enable"

struct fx {
   cl_device_id dev;
   cl_context ctx;
   cl_command_queue q, qo; /* in order, out of order */
   cl_program prog;
   cl_kernel k_check;      /* inc on check, add = 1: the usability check */
   cl_kernel k_inc;        /* inc on buf, add = 3: for the paths */
   cl_kernel k_reverse;    /* reverse from buf to out */
   cl_mem check, buf, out;
   unsigned char *binary;
   size_t binary_size;
   cl_ulong local_mem; /* CL_DEVICE_LOCAL_MEM_SIZE */
   /* What Kiln holds between calls. */
   struct kt_alloc_count base;
   unsigned long mark;
   unsigned base_live[KILN_TYPE_SAMPLER - KILN_TYPE_PLATFORM + 1];
};

static struct fx *F;

/* ---- helpers ---- */

static void write_uints(cl_command_queue q, cl_mem m, cl_uint first, cl_uint step)
{
   cl_uint v[N];
   for (unsigned i = 0; i < N; i++)
      v[i] = first + step * i;
   assert_int_equal(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, sizeof(v), v, 0, NULL, NULL),
                    CL_SUCCESS);
}

static void expect_uints(cl_command_queue q, cl_mem m, cl_uint first, cl_uint step,
                         const char *what)
{
   cl_uint v[N];
   memset(v, 0xee, sizeof(v));
   assert_int_equal(clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof(v), v, 0, NULL, NULL),
                    CL_SUCCESS);
   for (unsigned i = 0; i < N; i++)
      if (v[i] != first + step * i)
         fail_msg("%s: element %u is %u, want %u", what, i, v[i], first + step * i);
}

static void run_inc(cl_command_queue q, cl_kernel k)
{
   size_t global = N;
   assert_int_equal(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL),
                    CL_SUCCESS);
   assert_int_equal(clFinish(q), CL_SUCCESS);
}

static cl_program built_program(cl_context ctx, cl_device_id dev)
{
   const char *src = source;
   cl_int err = NONE_YET;
   cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   err = clBuildProgram(p, 1, &dev, BUILD_OPTIONS, NULL, NULL);
   if (err) {
      char log[4096] = "";
      clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
      fail_msg("build: %d\n%s", err, log);
   }
   return p;
}

static cl_kernel kernel(cl_program p, const char *name)
{
   cl_int err = NONE_YET;
   cl_kernel k = clCreateKernel(p, name, &err);
   assert_int_equal(err, CL_SUCCESS);
   return k;
}

static void set_mem(cl_kernel k, cl_uint i, cl_mem m)
{
   assert_int_equal(clSetKernelArg(k, i, sizeof(m), &m), CL_SUCCESS);
}

static void set_uint(cl_kernel k, cl_uint i, cl_uint v)
{
   assert_int_equal(clSetKernelArg(k, i, sizeof(v), &v), CL_SUCCESS);
}

/* The context and its queues still work: a transfer and a kernel. */
static void check_usable(struct fx *f)
{
   write_uints(f->q, f->check, 100, 1);
   run_inc(f->q, f->k_check);
   expect_uints(f->q, f->check, 101, 1, "usability check (in-order queue)");
   run_inc(f->qo, f->k_check);
   expect_uints(f->qo, f->check, 102, 1, "usability check (out-of-order queue)");
}

static void sleep_ms(long ms)
{
   struct timespec ts = {ms / 1000, ms % 1000 * 1000 * 1000};
   nanosleep(&ts, NULL);
}

/* What Kiln holds once the last commands are done with: an executor may
 * still be dropping the last references of a command that already
 * completed, so wait until the counts stay put. */
static void take_base(struct fx *f)
{
   assert_int_equal(clFinish(f->q), CL_SUCCESS);
   assert_int_equal(clFinish(f->qo), CL_SUCCESS);
   struct kt_alloc_count before = kt_alloc_live();
   for (int i = 0; i < 100; i++) {
      sleep_ms(5);
      struct kt_alloc_count now = kt_alloc_live();
      if (now.blocks == before.blocks && now.objects == before.objects)
         break;
      before = now;
   }
   f->base = before;
   f->mark = kt_alloc_mark();
   for (enum kiln_type t = KILN_TYPE_PLATFORM; t <= KILN_TYPE_SAMPLER; t++)
      f->base_live[t - KILN_TYPE_PLATFORM] = kt_live(t);
}

static bool at_base(struct fx *f, char *why, size_t size)
{
   struct kt_alloc_count now = kt_alloc_live();
   if (now.blocks != f->base.blocks || now.objects != f->base.objects) {
      snprintf(why, size, "%ld blocks and %ld objects, %ld and %ld before", now.blocks,
               now.objects, f->base.blocks, f->base.objects);
      return false;
   }
   for (enum kiln_type t = KILN_TYPE_PLATFORM; t <= KILN_TYPE_SAMPLER; t++)
      if (kt_live(t) != f->base_live[t - KILN_TYPE_PLATFORM]) {
         snprintf(why, size, "%u live handles of type 0x%x, %u before", kt_live(t), t,
                  f->base_live[t - KILN_TYPE_PLATFORM]);
         return false;
      }
   return true;
}

/* Objects are destroyed by whichever thread drops the last reference,
 * which may be an executor a moment after the application saw the
 * command complete: wait a little for the counts to come back. */
static void expect_base(struct fx *f, const char *path, long n, bool persistent)
{
   char why[160] = "";
   for (int i = 0; i < 5000; i++) {
      if (at_base(f, why, sizeof(why)))
         return;
      sleep_ms(1);
   }
   kt_alloc_report(f->mark);
   fail_msg("%s, allocation %ld%s failing: leak: %s", path, n, persistent ? " and on" : "",
            why);
}

/* ---- one path ---- */

struct call {
   long n;
   bool persistent;
   bool armed, fired;
};

static void arm(struct call *c)
{
   c->armed = true;
   kt_fault_arm(c->n, c->persistent);
}

static void disarm(struct call *c)
{
   c->fired = kt_fault_disarm();
}

/* A path: makes its call between arm and disarm, checks the outcome as
 * far as it is the path's business (a result after success, unchanged
 * state after failure), releases what it made, and returns the error of
 * the call. */
typedef cl_int (*path_fn)(struct fx *f, struct call *c);

enum allowed {
   HOST = 1 << 0,      /* CL_OUT_OF_HOST_MEMORY */
   MEM_ALLOC = 1 << 1, /* CL_MEM_OBJECT_ALLOCATION_FAILURE */
   RESOURCES = 1 << 2, /* CL_OUT_OF_RESOURCES */
};

static bool allowed_error(cl_int err, unsigned allowed)
{
   return (err == CL_OUT_OF_HOST_MEMORY && (allowed & HOST)) ||
          (err == CL_MEM_OBJECT_ALLOCATION_FAILURE && (allowed & MEM_ALLOC)) ||
          (err == CL_OUT_OF_RESOURCES && (allowed & RESOURCES));
}

static void drive_mode(struct fx *f, const char *name, path_fn fn, unsigned allowed,
                       bool persistent)
{
   take_base(f);
   struct timespec t0;
   clock_gettime(CLOCK_MONOTONIC, &t0);
   long failed = 0, absorbed = 0;
   cl_int seen[8];
   unsigned num_seen = 0;
   for (long n = 0;; n++) {
      if (n > 20000)
         fail_msg("%s: still failing after %ld allocations", name, n);
      struct call c = {.n = n, .persistent = persistent};
      cl_int err = fn(f, &c);
      assert_true(c.armed);
      if (!c.fired) {
         if (err != CL_SUCCESS)
            fail_msg("%s: %d with no allocation failing", name, err);
         check_usable(f);
         expect_base(f, name, n, persistent);
         char codes[64] = "";
         for (unsigned i = 0, at = 0; i < num_seen && at < sizeof(codes); i++)
            at += snprintf(codes + at, sizeof(codes) - at, " %d", seen[i]);
         struct timespec t1;
         clock_gettime(CLOCK_MONOTONIC, &t1);
         print_message("%s%s: %ld allocation points, %ld failures reported, %ld absorbed;"
                       " results:%s; %.1f s\n",
                       name, persistent ? " (persistent)" : "", n, failed, absorbed, codes,
                       (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
         return;
      }
      bool known = false;
      for (unsigned i = 0; i < num_seen; i++)
         known |= seen[i] == err;
      if (!known && num_seen < 8)
         seen[num_seen++] = err;
      if (err == CL_SUCCESS)
         absorbed++;
      else if (allowed_error(err, allowed))
         failed++;
      else
         fail_msg("%s, allocation %ld%s failing: error %d", name, n,
                  persistent ? " and on" : "", err);
      check_usable(f);
      expect_base(f, name, n, persistent);
   }
}

static void drive(const char *name, path_fn fn, unsigned allowed)
{
   drive_mode(F, name, fn, allowed, false);
   drive_mode(F, name, fn, allowed, true);
}

#define PATH(name, allowed)                                                    \
   static void test_##name(void **state)                                      \
   {                                                                           \
      (void)state;                                                             \
      drive(#name, path_##name, (allowed));                                    \
   }

/* ---- contexts, queues ---- */

static cl_int path_create_context(struct fx *f, struct call *c)
{
   cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)kt_platform(),
                                    0};
   cl_int err = NONE_YET;
   arm(c);
   cl_context ctx = clCreateContext(props, 1, &f->dev, NULL, NULL, &err);
   disarm(c);
   if (err) {
      assert_null(ctx);
      return err;
   }
   assert_non_null(ctx);
   cl_command_queue q = kt_queue(ctx, 0);
   cl_mem m = kt_buffer(ctx, 0, N * sizeof(cl_uint), NULL);
   write_uints(q, m, 7, 2);
   expect_uints(q, m, 7, 2, "new context");
   clReleaseMemObject(m);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
   return CL_SUCCESS;
}
PATH(create_context, HOST)

static cl_int path_create_context_from_type(struct fx *f, struct call *c)
{
   (void)f;
   cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)kt_platform(),
                                    0};
   cl_int err = NONE_YET;
   arm(c);
   cl_context ctx = clCreateContextFromType(props, CL_DEVICE_TYPE_CPU, NULL, NULL, &err);
   disarm(c);
   if (err) {
      assert_null(ctx);
      return err;
   }
   assert_non_null(ctx);
   clReleaseContext(ctx);
   return CL_SUCCESS;
}
PATH(create_context_from_type, HOST)

/* Sub-devices: all or nothing, and one that was made runs a kernel on
 * its own worker pool (started, then joined when the context goes). */
static cl_int path_create_sub_devices(struct fx *f, struct call *c)
{
   cl_uint units = 0;
   assert_int_equal(clGetDeviceInfo(f->dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(units), &units,
                                    NULL),
                    CL_SUCCESS);
   const cl_device_partition_property props[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
   cl_device_id sub[2] = {NULL, NULL};
   cl_uint num = 12345;
   cl_int err = CL_SUCCESS;
   arm(c);
   if (units >= 2)
      err = clCreateSubDevices(f->dev, props, 2, sub, &num);
   disarm(c);
   if (units < 2)
      return CL_SUCCESS;
   if (err) {
      assert_int_equal(num, 12345);
      return err;
   }
   assert_int_equal(num, 2);
   cl_context ctx = clCreateContext(NULL, 1, &sub[1], NULL, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_int_equal(clReleaseDevice(sub[0]), CL_SUCCESS);
   assert_int_equal(clReleaseDevice(sub[1]), CL_SUCCESS);
   cl_command_queue q = clCreateCommandQueue(ctx, sub[1], 0, &err);
   assert_int_equal(err, CL_SUCCESS);
   cl_program p = built_program(ctx, sub[1]);
   cl_kernel k = kernel(p, "inc");
   cl_mem m = kt_buffer(ctx, 0, N * sizeof(cl_uint), NULL);
   write_uints(q, m, 7, 2);
   set_mem(k, 0, m);
   set_uint(k, 1, 3);
   run_inc(q, k);
   expect_uints(q, m, 10, 2, "kernel on a sub-device");
   clReleaseMemObject(m);
   clReleaseKernel(k);
   clReleaseProgram(p);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
   return CL_SUCCESS;
}
PATH(create_sub_devices, HOST)

static cl_int path_create_queue(struct fx *f, struct call *c)
{
   cl_int err = NONE_YET;
   arm(c);
   cl_command_queue q = clCreateCommandQueue(f->ctx, f->dev, CL_QUEUE_PROFILING_ENABLE, &err);
   disarm(c);
   if (err) {
      assert_null(q);
      return err;
   }
   assert_non_null(q);
   write_uints(q, f->buf, 3, 3);
   expect_uints(q, f->buf, 3, 3, "new queue");
   clReleaseCommandQueue(q);
   return CL_SUCCESS;
}
PATH(create_queue, HOST)

/* ---- memory objects ---- */

static cl_int create_buffer(struct fx *f, struct call *c, cl_mem_flags flags)
{
   cl_uint host[N];
   for (unsigned i = 0; i < N; i++)
      host[i] = 40 + i;
   bool ptr = flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR);
   cl_int err = NONE_YET;
   arm(c);
   cl_mem m = clCreateBuffer(f->ctx, flags, sizeof(host), ptr ? host : NULL, &err);
   disarm(c);
   if (err) {
      assert_null(m);
      return err;
   }
   assert_non_null(m);
   if (ptr)
      expect_uints(f->q, m, 40, 1, "buffer from host memory");
   write_uints(f->q, m, 9, 1);
   expect_uints(f->q, m, 9, 1, "new buffer");
   if (flags & CL_MEM_USE_HOST_PTR) {
      /* The application's memory shows the data once mapped (5.4.2),
       * whether the device uses it directly or keeps a copy (it does
       * when importing the memory failed). */
      cl_int merr;
      cl_uint *p = clEnqueueMapBuffer(f->q, m, CL_TRUE, CL_MAP_READ, 0, sizeof(host), 0, NULL,
                                      NULL, &merr);
      assert_int_equal(merr, CL_SUCCESS);
      assert_ptr_equal(p, host);
      assert_int_equal(host[5], 14);
      clEnqueueUnmapMemObject(f->q, m, p, 0, NULL, NULL);
      clFinish(f->q);
   }
   clReleaseMemObject(m);
   return CL_SUCCESS;
}

static cl_int path_create_buffer(struct fx *f, struct call *c)
{
   return create_buffer(f, c, CL_MEM_READ_WRITE);
}
PATH(create_buffer, HOST | MEM_ALLOC)

static cl_int path_create_buffer_copy_host_ptr(struct fx *f, struct call *c)
{
   return create_buffer(f, c, CL_MEM_COPY_HOST_PTR);
}
PATH(create_buffer_copy_host_ptr, HOST | MEM_ALLOC)

static cl_int path_create_buffer_use_host_ptr(struct fx *f, struct call *c)
{
   return create_buffer(f, c, CL_MEM_USE_HOST_PTR);
}
PATH(create_buffer_use_host_ptr, HOST | MEM_ALLOC)

/* ---- images and samplers ---- */

static const cl_image_format fault_fmt = {CL_RGBA, CL_UNSIGNED_INT8};

static cl_int create_image(struct fx *f, struct call *c, cl_mem_flags flags, bool three_d)
{
   cl_uchar host[4 * 4 * 3 * 4];
   for (unsigned i = 0; i < sizeof(host); i++)
      host[i] = (cl_uchar)(i * 7);
   bool ptr = flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR);
   cl_int err = NONE_YET;
   arm(c);
   cl_mem m = three_d ? clCreateImage3D(f->ctx, flags, &fault_fmt, 4, 4, 3, 0, 0,
                                        ptr ? host : NULL, &err)
                      : clCreateImage2D(f->ctx, flags, &fault_fmt, 4, 4, 0, ptr ? host : NULL,
                                        &err);
   disarm(c);
   if (err) {
      assert_null(m);
      return err;
   }
   assert_non_null(m);
   cl_uchar got[sizeof(host)];
   size_t origin[3] = {0, 0, 0}, region[3] = {4, 4, three_d ? 3 : 1};
   assert_int_equal(clEnqueueReadImage(f->q, m, CL_TRUE, origin, region, 0, 0, got, 0, NULL,
                                       NULL),
                    CL_SUCCESS);
   if (ptr)
      assert_memory_equal(got, host, three_d ? sizeof(host) : sizeof(host) / 3);
   clReleaseMemObject(m);
   return CL_SUCCESS;
}

static cl_int path_create_image2d(struct fx *f, struct call *c)
{
   return create_image(f, c, CL_MEM_READ_WRITE, false);
}
PATH(create_image2d, HOST | MEM_ALLOC)

static cl_int path_create_image2d_copy_host_ptr(struct fx *f, struct call *c)
{
   return create_image(f, c, CL_MEM_COPY_HOST_PTR, false);
}
PATH(create_image2d_copy_host_ptr, HOST | MEM_ALLOC)

static cl_int path_create_image3d_use_host_ptr(struct fx *f, struct call *c)
{
   return create_image(f, c, CL_MEM_USE_HOST_PTR, true);
}
PATH(create_image3d_use_host_ptr, HOST | MEM_ALLOC)

/* A write then a read of an image: a failed enqueue leaves the image as
 * it was. */
static cl_int path_enqueue_image_write_read(struct fx *f, struct call *c)
{
   cl_int err;
   cl_uchar zero[64] = {0}, v[64], got[64];
   for (unsigned i = 0; i < 64; i++)
      v[i] = (cl_uchar)(3 * i + 1);
   cl_mem m = clCreateImage2D(f->ctx, CL_MEM_COPY_HOST_PTR, &fault_fmt, 4, 4, 0, zero, &err);
   assert_non_null(m);
   size_t origin[3] = {0, 0, 0}, region[3] = {4, 4, 1};
   arm(c);
   err = clEnqueueWriteImage(f->q, m, CL_TRUE, origin, region, 0, 0, v, 0, NULL, NULL);
   cl_int rerr = err ? err : clEnqueueReadImage(f->q, m, CL_TRUE, origin, region, 0, 0, got, 0,
                                                NULL, NULL);
   disarm(c);
   assert_int_equal(clEnqueueReadImage(f->q, m, CL_TRUE, origin, region, 0, 0, got, 0, NULL,
                                       NULL),
                    CL_SUCCESS);
   assert_memory_equal(got, err ? zero : v, 64);
   clReleaseMemObject(m);
   return err ? err : rerr;
}
PATH(enqueue_image_write_read, HOST)

static cl_int path_create_sampler(struct fx *f, struct call *c)
{
   cl_int err = NONE_YET;
   arm(c);
   cl_sampler s = clCreateSampler(f->ctx, CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR, &err);
   disarm(c);
   if (err) {
      assert_null(s);
      return err;
   }
   cl_addressing_mode am = 0;
   assert_int_equal(clGetSamplerInfo(s, CL_SAMPLER_ADDRESSING_MODE, sizeof(am), &am, NULL),
                    CL_SUCCESS);
   assert_int_equal(am, CL_ADDRESS_REPEAT);
   clReleaseSampler(s);
   return CL_SUCCESS;
}
PATH(create_sampler, HOST)

static cl_int path_create_sub_buffer(struct fx *f, struct call *c)
{
   write_uints(f->q, f->buf, 0, 1);
   cl_buffer_region r = {KT_CPU_ALIGN, KT_CPU_ALIGN};
   cl_int err = NONE_YET;
   arm(c);
   cl_mem m = clCreateSubBuffer(f->buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
   disarm(c);
   if (err) {
      assert_null(m);
      return err;
   }
   cl_uint v = 0;
   assert_int_equal(clEnqueueReadBuffer(f->q, m, CL_TRUE, 0, sizeof(v), &v, 0, NULL, NULL),
                    CL_SUCCESS);
   assert_int_equal(v, KT_CPU_ALIGN / sizeof(cl_uint));
   clReleaseMemObject(m);
   return CL_SUCCESS;
}
PATH(create_sub_buffer, HOST)

static void CL_CALLBACK count_destructor(cl_mem m, void *data)
{
   (void)m;
   atomic_fetch_add((_Atomic int *)data, 1);
}

static cl_int path_mem_destructor_callback(struct fx *f, struct call *c)
{
   cl_mem m = kt_buffer(f->ctx, 0, 64, NULL);
   _Atomic int calls = 0;
   arm(c);
   cl_int err = clSetMemObjectDestructorCallback(m, count_destructor, &calls);
   disarm(c);
   clReleaseMemObject(m);
   /* A callback that was not registered never runs. */
   kt_wait_counter(&calls, err ? 0 : 1);
   return err;
}
PATH(mem_destructor_callback, HOST)

/* ---- events ---- */

static cl_int path_create_user_event(struct fx *f, struct call *c)
{
   cl_int err = NONE_YET;
   arm(c);
   cl_event e = clCreateUserEvent(f->ctx, &err);
   disarm(c);
   if (err) {
      assert_null(e);
      return err;
   }
   assert_int_equal(kt_event_status(e), CL_SUBMITTED);
   assert_int_equal(clSetUserEventStatus(e, CL_COMPLETE), CL_SUCCESS);
   clReleaseEvent(e);
   return CL_SUCCESS;
}
PATH(create_user_event, HOST)

static void CL_CALLBACK count_event(cl_event e, cl_int status, void *data)
{
   (void)e;
   (void)status;
   atomic_fetch_add((_Atomic int *)data, 1);
}

static cl_int event_callback(struct fx *f, struct call *c, bool complete_first)
{
   cl_event e = kt_user_event(f->ctx);
   if (complete_first)
      assert_int_equal(clSetUserEventStatus(e, CL_COMPLETE), CL_SUCCESS);
   _Atomic int calls = 0;
   arm(c);
   cl_int err = clSetEventCallback(e, CL_COMPLETE, count_event, &calls);
   disarm(c);
   if (!complete_first)
      assert_int_equal(clSetUserEventStatus(e, CL_COMPLETE), CL_SUCCESS);
   kt_wait_counter(&calls, err ? 0 : 1);
   clReleaseEvent(e);
   return err;
}

static cl_int path_event_callback(struct fx *f, struct call *c)
{
   return event_callback(f, c, false);
}
PATH(event_callback, HOST)

static cl_int path_event_callback_completed(struct fx *f, struct call *c)
{
   return event_callback(f, c, true);
}
PATH(event_callback_completed, HOST)

/* ---- programs and kernels ---- */

static cl_int path_create_program_with_source(struct fx *f, struct call *c)
{
   /* Two pieces, to be joined. */
   size_t half = sizeof(source) / 2;
   const char *strings[2] = {source, source + half};
   size_t lengths[2] = {half, 0};
   cl_int err = NONE_YET;
   arm(c);
   cl_program p = clCreateProgramWithSource(f->ctx, 2, strings, lengths, &err);
   disarm(c);
   if (err) {
      assert_null(p);
      return err;
   }
   char got[sizeof(source)] = "";
   assert_int_equal(clGetProgramInfo(p, CL_PROGRAM_SOURCE, sizeof(got), got, NULL), CL_SUCCESS);
   assert_string_equal(got, source);
   clReleaseProgram(p);
   return CL_SUCCESS;
}
PATH(create_program_with_source, HOST)

/* reverse, run on buf = 0, 1, 2, ... with work-groups of 16, wrote out. */
static void expect_reversed(struct fx *f, const char *what)
{
   cl_uint v[N];
   assert_int_equal(clEnqueueReadBuffer(f->q, f->out, CL_TRUE, 0, sizeof(v), v, 0, NULL, NULL),
                    CL_SUCCESS);
   for (unsigned i = 0; i < N; i++)
      if (v[i] != (i / 16 * 16 + 15 - i % 16) + 3 * i)
         fail_msg("%s: element %u is %u, want %u", what, i, v[i],
                  (i / 16 * 16 + 15 - i % 16) + 3 * i);
}

static void run_reverse(struct fx *f, cl_kernel k, size_t local_bytes)
{
   set_mem(k, 0, f->buf);
   set_mem(k, 1, f->out);
   assert_int_equal(clSetKernelArg(k, 2, local_bytes, NULL), CL_SUCCESS);
   write_uints(f->q, f->buf, 0, 1);
   write_uints(f->q, f->out, 0, 0);
   size_t global = N, local = 16;
   assert_int_equal(clEnqueueNDRangeKernel(f->q, k, 1, NULL, &global, &local, 0, NULL, NULL),
                    CL_SUCCESS);
}

/* Every kernel of a new program works: inc, reverse (a barrier), hint
 * (attributes, a vector argument, the build options). */
static void check_program(struct fx *f, cl_program p)
{
   cl_kernel k = kernel(p, "inc");
   set_mem(k, 0, f->buf);
   set_uint(k, 1, 3);
   write_uints(f->q, f->buf, 0, 1);
   run_inc(f->q, k);
   expect_uints(f->q, f->buf, 3, 1, "inc of a new program");
   clReleaseKernel(k);

   k = kernel(p, "reverse");
   run_reverse(f, k, 16 * sizeof(cl_uint));
   expect_reversed(f, "reverse of a new program");
   clReleaseKernel(k);

   k = kernel(p, "hint");
   size_t wg[3] = {0, 0, 0};
   assert_int_equal(clGetKernelWorkGroupInfo(k, f->dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                             sizeof(wg), wg, NULL),
                    CL_SUCCESS);
   assert_int_equal(wg[0], 4);
   assert_int_equal(wg[1], 1);
   set_mem(k, 0, f->out);
   cl_float4 v = {{1.5f, 0, 0, 0}};
   assert_int_equal(clSetKernelArg(k, 1, sizeof(v), &v), CL_SUCCESS);
   size_t global = 8;
   assert_int_equal(clEnqueueNDRangeKernel(f->q, k, 1, NULL, &global, NULL, 0, NULL, NULL),
                    CL_SUCCESS);
   cl_float out[8];
   assert_int_equal(clEnqueueReadBuffer(f->q, f->out, CL_TRUE, 0, sizeof(out), out, 0, NULL,
                                        NULL),
                    CL_SUCCESS);
   for (int i = 0; i < 8; i++)
      assert_true(out[i] == 3.5f);
   clReleaseKernel(k);
}

static cl_int path_create_program_with_binary(struct fx *f, struct call *c)
{
   const unsigned char *bin = f->binary;
   cl_int status = NONE_YET, err = NONE_YET;
   arm(c);
   cl_program p =
      clCreateProgramWithBinary(f->ctx, 1, &f->dev, &f->binary_size, &bin, &status, &err);
   disarm(c);
   if (err) {
      assert_null(p);
      return err;
   }
   assert_int_equal(status, CL_SUCCESS);
   assert_int_equal(clBuildProgram(p, 1, &f->dev, NULL, NULL, NULL), CL_SUCCESS);
   check_program(f, p);
   clReleaseProgram(p);
   return CL_SUCCESS;
}
PATH(create_program_with_binary, HOST)

/* After a failed build the program says so, and builds again.  Builds
 * take time (a build makes some 140 allocations, each failed in turn, in
 * two modes): every 4th failed program is rebuilt, every 16th with all
 * allocations failing from the n-th on. */
static void check_failed_build(struct fx *f, struct call *c, cl_program p, const char *options)
{
   cl_build_status st = CL_BUILD_NONE;
   assert_int_equal(clGetProgramBuildInfo(p, f->dev, CL_PROGRAM_BUILD_STATUS, sizeof(st), &st,
                                          NULL),
                    CL_SUCCESS);
   /* NONE when it failed before the build began. */
   if (st != CL_BUILD_ERROR && st != CL_BUILD_NONE)
      fail_msg("build status %d after a failed build", st);
   size_t size = 0;
   assert_int_equal(clGetProgramBuildInfo(p, f->dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &size),
                    CL_SUCCESS);
   assert_true(size >= 1);
   cl_int err = NONE_YET;
   assert_null(clCreateKernel(p, "inc", &err));
   assert_int_equal(err, CL_INVALID_PROGRAM_EXECUTABLE);
   if (c->n % (c->persistent ? 16 : 4))
      return;
   assert_int_equal(clBuildProgram(p, 1, &f->dev, options, NULL, NULL), CL_SUCCESS);
   check_program(f, p);
}

static cl_int path_build_program(struct fx *f, struct call *c)
{
   const char *src = source;
   cl_int err = NONE_YET;
   cl_program p = clCreateProgramWithSource(f->ctx, 1, &src, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   arm(c);
   err = clBuildProgram(p, 1, &f->dev, BUILD_OPTIONS, NULL, NULL);
   disarm(c);
   if (err == CL_BUILD_PROGRAM_FAILURE) {
      char log[4096] = "";
      clGetProgramBuildInfo(p, f->dev, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
      print_message("allocation %ld: CL_BUILD_PROGRAM_FAILURE, log:\n%s\n", c->n, log);
   }
   if (err)
      check_failed_build(f, c, p, BUILD_OPTIONS);
   else
      check_program(f, p);
   clReleaseProgram(p);
   return err;
}
PATH(build_program, HOST)

/* The compile cache (docs/cache.md) only accelerates: an allocation that
 * fails in its key, lookup or store must leave a normal build, never a
 * failed one or a leak.  Both paths in a directory of this test's own,
 * reset before every call: empty (every build misses and stores), and
 * holding the program's entry (every build hits). */
static char cache_dir[64] = "kiln-faults-cache";

static void cache_reset(bool filled)
{
   char cmd[128];
   snprintf(cmd, sizeof(cmd), "rm -rf %s", cache_dir);
   assert_int_equal(system(cmd), 0);
   kiln_program_cache_use(cache_dir, 1 << 24);
   if (filled) {
      cl_program p = built_program(F->ctx, F->dev);
      clReleaseProgram(p);
   }
}

static cl_int build_with_cache(struct fx *f, struct call *c, bool filled)
{
   cache_reset(filled);
   cl_int err = path_build_program(f, c);
   kiln_program_cache_use(NULL, 0);
   return err;
}

static cl_int path_build_program_cache_miss(struct fx *f, struct call *c)
{
   return build_with_cache(f, c, false);
}
PATH(build_program_cache_miss, HOST)

static cl_int path_build_program_cache_hit(struct fx *f, struct call *c)
{
   return build_with_cache(f, c, true);
}
PATH(build_program_cache_hit, HOST)

static cl_int path_build_program_from_binary(struct fx *f, struct call *c)
{
   const unsigned char *bin = f->binary;
   cl_int err = NONE_YET;
   cl_program p = clCreateProgramWithBinary(f->ctx, 1, &f->dev, &f->binary_size, &bin, NULL,
                                            &err);
   assert_int_equal(err, CL_SUCCESS);
   arm(c);
   err = clBuildProgram(p, 0, NULL, NULL, NULL, NULL);
   disarm(c);
   if (err)
      check_failed_build(f, c, p, NULL);
   else
      check_program(f, p);
   clReleaseProgram(p);
   return err;
}
PATH(build_program_from_binary, HOST)

static cl_int path_create_kernel(struct fx *f, struct call *c)
{
   cl_int err = NONE_YET;
   arm(c);
   cl_kernel k = clCreateKernel(f->prog, "reverse", &err);
   disarm(c);
   if (err) {
      assert_null(k);
      return err;
   }
   assert_non_null(k);
   run_reverse(f, k, 16 * sizeof(cl_uint));
   expect_reversed(f, "new kernel");
   clReleaseKernel(k);
   return CL_SUCCESS;
}
PATH(create_kernel, HOST)

static cl_int path_create_kernels_in_program(struct fx *f, struct call *c)
{
   cl_kernel k[3] = {NULL, NULL, NULL};
   cl_uint n = 0;
   arm(c);
   cl_int err = clCreateKernelsInProgram(f->prog, 3, k, &n);
   disarm(c);
   if (err)
      return err;
   assert_int_equal(n, 3);
   for (int i = 0; i < 3; i++) {
      assert_non_null(k[i]);
      clReleaseKernel(k[i]);
   }
   return CL_SUCCESS;
}
PATH(create_kernels_in_program, HOST)

static cl_int path_set_kernel_arg(struct fx *f, struct call *c)
{
   cl_uint seven = 7;
   arm(c);
   cl_int err = clSetKernelArg(f->k_inc, 1, sizeof(seven), &seven);
   disarm(c);
   /* A failed call leaves the argument as it was. */
   write_uints(f->q, f->buf, 0, 1);
   run_inc(f->q, f->k_inc);
   expect_uints(f->q, f->buf, err ? 3 : 7, 1, "kernel after clSetKernelArg");
   set_uint(f->k_inc, 1, 3);
   return err;
}
PATH(set_kernel_arg, HOST)

/* ---- commands ----
 *
 * Each command waits for a user event that is still pending when it is
 * enqueued, so that it must record a dependency; a command that was
 * refused must never run, one that was accepted runs once the event
 * completes. */

struct gate {
   cl_event user;
   cl_event ev; /* the command's event: SENTINEL until it has one */
};

static void gate_open(struct fx *f, struct gate *g)
{
   g->user = kt_user_event(f->ctx);
   g->ev = SENTINEL;
}

/* Completes the user event and waits for the command; returns its status
 * (or err, when the command was refused). */
static cl_int gate_close(struct fx *f, struct gate *g, cl_int err)
{
   assert_int_equal(clSetUserEventStatus(g->user, CL_COMPLETE), CL_SUCCESS);
   clReleaseEvent(g->user);
   if (err) {
      if (g->ev != SENTINEL)
         fail_msg("a refused command gave an event");
      assert_int_equal(clFinish(f->q), CL_SUCCESS);
      assert_int_equal(clFinish(f->qo), CL_SUCCESS);
      return err;
   }
   assert_true(g->ev != SENTINEL && g->ev != NULL);
   clWaitForEvents(1, &g->ev); /* the status says how it ended */
   cl_int status = kt_event_status(g->ev);
   clReleaseEvent(g->ev);
   return status == CL_COMPLETE ? CL_SUCCESS : status;
}

static cl_int path_enqueue_write(struct fx *f, struct call *c)
{
   write_uints(f->q, f->buf, 0, 0);
   cl_uint v[N];
   for (unsigned i = 0; i < N; i++)
      v[i] = 5 * i;
   struct gate g;
   gate_open(f, &g);
   arm(c);
   cl_int err = clEnqueueWriteBuffer(f->q, f->buf, CL_FALSE, 0, sizeof(v), v, 1, &g.user, &g.ev);
   disarm(c);
   err = gate_close(f, &g, err);
   expect_uints(f->q, f->buf, 0, err ? 0 : 5, "write");
   return err;
}
PATH(enqueue_write, HOST)

static cl_int path_enqueue_read_blocking(struct fx *f, struct call *c)
{
   write_uints(f->q, f->buf, 11, 1);
   cl_uint v[N];
   memset(v, 0, sizeof(v));
   arm(c);
   cl_int err = clEnqueueReadBuffer(f->q, f->buf, CL_TRUE, 0, sizeof(v), v, 0, NULL, NULL);
   disarm(c);
   for (unsigned i = 0; i < N; i++)
      assert_int_equal(v[i], err ? 0 : 11 + i);
   return err;
}
PATH(enqueue_read_blocking, HOST)

static cl_int path_enqueue_read_rect(struct fx *f, struct call *c)
{
   write_uints(f->q, f->buf, 0, 1);
   cl_uint v[N];
   memset(v, 0, sizeof(v));
   /* 4 rows of 8 uints out of rows of 16: elements 16r + 4 .. 16r + 11. */
   size_t origin[3] = {4 * sizeof(cl_uint), 0, 0}, zero[3] = {0, 0, 0};
   size_t region[3] = {8 * sizeof(cl_uint), 4, 1};
   struct gate g;
   gate_open(f, &g);
   arm(c);
   cl_int err = clEnqueueReadBufferRect(f->q, f->buf, CL_FALSE, origin, zero, region,
                                        16 * sizeof(cl_uint), 0, 0, 0, v, 1, &g.user, &g.ev);
   disarm(c);
   err = gate_close(f, &g, err);
   for (unsigned r = 0; r < 4; r++)
      for (unsigned i = 0; i < 8; i++)
         assert_int_equal(v[8 * r + i], err ? 0 : 16 * r + 4 + i);
   return err;
}
PATH(enqueue_read_rect, HOST)

static cl_int path_enqueue_write_rect(struct fx *f, struct call *c)
{
   write_uints(f->q, f->buf, 0, 0);
   cl_uint v[N];
   for (unsigned i = 0; i < N; i++)
      v[i] = i + 1;
   size_t zero[3] = {0, 0, 0}, region[3] = {N * sizeof(cl_uint) / 2, 2, 1};
   struct gate g;
   gate_open(f, &g);
   arm(c);
   cl_int err = clEnqueueWriteBufferRect(f->q, f->buf, CL_FALSE, zero, zero, region, 0, 0, 0,
                                         0, v, 1, &g.user, &g.ev);
   disarm(c);
   err = gate_close(f, &g, err);
   expect_uints(f->q, f->buf, err ? 0 : 1, err ? 0 : 1, "write rect");
   return err;
}
PATH(enqueue_write_rect, HOST)

static cl_int path_enqueue_copy(struct fx *f, struct call *c)
{
   write_uints(f->q, f->buf, 1, 2);
   write_uints(f->q, f->out, 0, 0);
   struct gate g;
   gate_open(f, &g);
   arm(c);
   cl_int err = clEnqueueCopyBuffer(f->qo, f->buf, f->out, 0, 0, N * sizeof(cl_uint), 1,
                                    &g.user, &g.ev);
   disarm(c);
   err = gate_close(f, &g, err);
   expect_uints(f->q, f->out, err ? 0 : 1, err ? 0 : 2, "copy");
   return err;
}
PATH(enqueue_copy, HOST)

static cl_int path_enqueue_copy_rect(struct fx *f, struct call *c)
{
   write_uints(f->q, f->buf, 1, 1);
   write_uints(f->q, f->out, 0, 0);
   size_t zero[3] = {0, 0, 0}, region[3] = {sizeof(cl_uint), N, 1};
   struct gate g;
   gate_open(f, &g);
   arm(c);
   cl_int err = clEnqueueCopyBufferRect(f->q, f->buf, f->out, zero, zero, region,
                                        sizeof(cl_uint), 0, sizeof(cl_uint), 0, 1, &g.user,
                                        &g.ev);
   disarm(c);
   err = gate_close(f, &g, err);
   expect_uints(f->q, f->out, err ? 0 : 1, err ? 0 : 1, "copy rect");
   return err;
}
PATH(enqueue_copy_rect, HOST)

static cl_int path_enqueue_map(struct fx *f, struct call *c)
{
   write_uints(f->q, f->buf, 21, 1);
   cl_int err = NONE_YET;
   arm(c);
   cl_uint *p = clEnqueueMapBuffer(f->q, f->buf, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                   N * sizeof(cl_uint), 0, NULL, NULL, &err);
   disarm(c);
   if (err) {
      assert_null(p);
      assert_int_equal(kt_map_count(f->buf), 0);
      return err;
   }
   assert_non_null(p);
   assert_int_equal(kt_map_count(f->buf), 1);
   assert_int_equal(p[3], 24);
   p[3] = 1000;
   assert_int_equal(clEnqueueUnmapMemObject(f->q, f->buf, p, 0, NULL, NULL), CL_SUCCESS);
   cl_uint v = 0;
   assert_int_equal(clEnqueueReadBuffer(f->q, f->buf, CL_TRUE, 3 * sizeof(v), sizeof(v), &v, 0,
                                        NULL, NULL),
                    CL_SUCCESS);
   assert_int_equal(v, 1000);
   return CL_SUCCESS;
}
PATH(enqueue_map, HOST | MEM_ALLOC)

static cl_int path_enqueue_unmap(struct fx *f, struct call *c)
{
   cl_int err = NONE_YET;
   cl_uint *p = clEnqueueMapBuffer(f->q, f->buf, CL_TRUE, CL_MAP_WRITE, 0, N * sizeof(cl_uint),
                                   0, NULL, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   struct gate g;
   gate_open(f, &g);
   arm(c);
   err = clEnqueueUnmapMemObject(f->q, f->buf, p, 1, &g.user, &g.ev);
   disarm(c);
   err = gate_close(f, &g, err);
   if (err) {
      /* Still mapped: the application can unmap it again. */
      assert_int_equal(kt_map_count(f->buf), 1);
      assert_int_equal(clEnqueueUnmapMemObject(f->q, f->buf, p, 0, NULL, NULL), CL_SUCCESS);
      assert_int_equal(clFinish(f->q), CL_SUCCESS);
   }
   assert_int_equal(kt_map_count(f->buf), 0);
   return err;
}
PATH(enqueue_unmap, HOST)

static cl_int ndrange(struct fx *f, struct call *c, cl_command_queue q, bool task)
{
   write_uints(f->q, f->buf, 0, 1);
   struct gate g;
   gate_open(f, &g);
   size_t global = N;
   arm(c);
   cl_int err = task ? clEnqueueTask(q, f->k_inc, 1, &g.user, &g.ev)
                     : clEnqueueNDRangeKernel(q, f->k_inc, 1, NULL, &global, NULL, 1, &g.user,
                                              &g.ev);
   disarm(c);
   err = gate_close(f, &g, err);
   /* A task runs work-item 0 alone. */
   cl_uint v[N];
   assert_int_equal(clEnqueueReadBuffer(f->q, f->buf, CL_TRUE, 0, sizeof(v), v, 0, NULL, NULL),
                    CL_SUCCESS);
   for (unsigned i = 0; i < N; i++)
      assert_int_equal(v[i], i + (!err && (!task || i == 0) ? 3 : 0));
   return err;
}

/* cl_khr_command_buffer under one armed failure: create, record a fill
 * and a launch waiting for it, finalize, enqueue, and the replay's run.
 * Whatever fails, the command buffer is released and nothing stays
 * behind; a replay that ran did the launch. */
static cl_int path_command_buffer(struct fx *f, struct call *c)
{
   write_uints(f->q, f->buf, 0, 1);
   size_t global = N;
   cl_uint zero = 0;
   cl_int err;
   cl_event ev = NULL;
   arm(c);
   cl_command_buffer_khr cb = kiln_clCreateCommandBufferKHR(1, &f->q, NULL, &err);
   if (!err) {
      cl_sync_point_khr sp = 0;
      err = kiln_clCommandFillBufferKHR(cb, NULL, NULL, f->out, &zero, sizeof(zero), 0,
                                        N * sizeof(cl_uint), 0, NULL, &sp, NULL);
      if (!err)
         err = kiln_clCommandNDRangeKernelKHR(cb, NULL, NULL, f->k_inc, 1, NULL, &global, NULL,
                                              1, &sp, NULL, NULL);
      if (!err)
         err = kiln_clFinalizeCommandBufferKHR(cb);
      if (!err)
         err = kiln_clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, &ev);
      if (!err) /* its failure, if any, is read from the event below */
         (void)clWaitForEvents(1, &ev);
   }
   disarm(c);
   if (ev) {
      cl_int st = 0;
      assert_int_equal(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st,
                                      NULL),
                       CL_SUCCESS);
      if (st < 0)
         err = st;
      assert_int_equal(clReleaseEvent(ev), CL_SUCCESS);
   }
   if (cb)
      assert_int_equal(kiln_clReleaseCommandBufferKHR(cb), CL_SUCCESS);
   else
      assert_int_not_equal(err, CL_SUCCESS);
   assert_int_equal(clFinish(f->q), CL_SUCCESS);
   cl_uint v[N];
   assert_int_equal(clEnqueueReadBuffer(f->q, f->buf, CL_TRUE, 0, sizeof(v), v, 0, NULL, NULL),
                    CL_SUCCESS);
   for (unsigned i = 0; i < N; i++)
      assert_int_equal(v[i], i + (!err ? 3 : 0));
   return err;
}
PATH(command_buffer, HOST | RESOURCES)

/* clEnqueueFillImage under one armed failure: a failed enqueue leaves the
 * image as it was; one that ran filled the region. */
static cl_int path_enqueue_fill_image(struct fx *f, struct call *c)
{
   cl_int err;
   cl_uchar zero[64] = {0}, got[64];
   cl_mem m = clCreateImage2D(f->ctx, CL_MEM_COPY_HOST_PTR, &fault_fmt, 4, 4, 0, zero, &err);
   assert_non_null(m);
   const cl_uint color[4] = {1, 2, 300, 4}; /* 300 saturates to 255 */
   size_t origin[3] = {1, 1, 0}, region[3] = {2, 3, 1}, all[3] = {4, 4, 1};
   cl_event ev = NULL;
   arm(c);
   err = clEnqueueFillImage(f->q, m, color, origin, region, 0, NULL, &ev);
   if (!err)
      err = clWaitForEvents(1, &ev);
   disarm(c);
   if (ev)
      assert_int_equal(clReleaseEvent(ev), CL_SUCCESS);
   size_t o0[3] = {0, 0, 0};
   assert_int_equal(clEnqueueReadImage(f->q, m, CL_TRUE, o0, all, 0, 0, got, 0, NULL, NULL),
                    CL_SUCCESS);
   for (unsigned y = 0; y < 4; y++)
      for (unsigned x = 0; x < 4; x++) {
         bool in = !err && x >= 1 && x < 3 && y >= 1 && y < 4;
         const cl_uchar want[4] = {in ? 1 : 0, in ? 2 : 0, in ? 255 : 0, in ? 4 : 0};
         assert_memory_equal(got + (y * 4 + x) * 4, want, 4);
      }
   clReleaseMemObject(m);
   return err;
}
PATH(enqueue_fill_image, HOST)

/* The image commands of a command buffer under one armed failure: record
 * a fill of an image and its copy to a buffer, finalize (which builds
 * the fill's row), enqueue, run. */
static cl_int path_command_buffer_images(struct fx *f, struct call *c)
{
   cl_int err;
   cl_uchar zero[64] = {0}, got[64];
   cl_mem m = clCreateImage2D(f->ctx, CL_MEM_COPY_HOST_PTR, &fault_fmt, 4, 4, 0, zero, &err);
   assert_non_null(m);
   write_uints(f->q, f->out, 0, 0);
   const cl_uint color[4] = {9, 8, 7, 6};
   size_t origin[3] = {0, 0, 0}, all[3] = {4, 4, 1};
   cl_event ev = NULL;
   arm(c);
   cl_command_buffer_khr cb = kiln_clCreateCommandBufferKHR(1, &f->q, NULL, &err);
   if (!err) {
      cl_sync_point_khr sp = 0;
      err = kiln_clCommandFillImageKHR(cb, NULL, NULL, m, color, origin, all, 0, NULL, &sp,
                                       NULL);
      if (!err)
         err = kiln_clCommandCopyImageToBufferKHR(cb, NULL, NULL, m, f->out, origin, all, 0, 1,
                                                  &sp, NULL, NULL);
      if (!err)
         err = kiln_clFinalizeCommandBufferKHR(cb);
      if (!err)
         err = kiln_clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, &ev);
      if (!err)
         (void)clWaitForEvents(1, &ev);
   }
   disarm(c);
   if (ev) {
      cl_int st = 0;
      assert_int_equal(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st,
                                      NULL),
                       CL_SUCCESS);
      if (st < 0)
         err = st;
      assert_int_equal(clReleaseEvent(ev), CL_SUCCESS);
   }
   if (cb)
      assert_int_equal(kiln_clReleaseCommandBufferKHR(cb), CL_SUCCESS);
   else
      assert_int_not_equal(err, CL_SUCCESS);
   assert_int_equal(clEnqueueReadBuffer(f->q, f->out, CL_TRUE, 0, sizeof(got), got, 0, NULL,
                                        NULL),
                    CL_SUCCESS);
   for (unsigned i = 0; i < 64; i++)
      assert_int_equal(got[i], !err ? 9 - i % 4 : 0);
   clReleaseMemObject(m);
   return err;
}
PATH(command_buffer_images, HOST | RESOURCES)

static cl_int path_enqueue_ndrange(struct fx *f, struct call *c)
{
   return ndrange(f, c, f->q, false);
}
PATH(enqueue_ndrange, HOST | RESOURCES)

static cl_int path_enqueue_ndrange_out_of_order(struct fx *f, struct call *c)
{
   return ndrange(f, c, f->qo, false);
}
PATH(enqueue_ndrange_out_of_order, HOST | RESOURCES)

static cl_int path_enqueue_task(struct fx *f, struct call *c)
{
   return ndrange(f, c, f->q, true);
}
PATH(enqueue_task, HOST | RESOURCES)

/* Each run asks for more __local memory than any launch before, so that
 * the CPU driver's workers must grow their arenas while the command runs
 * (on Kiln's threads): a failure there is the command's status. */
static cl_int path_enqueue_ndrange_local_arena(struct fx *f, struct call *c)
{
   static size_t grow = 1024;
   if (grow + 1024 <= f->local_mem)
      grow += 1024;
   write_uints(f->q, f->buf, 0, 1);
   write_uints(f->q, f->out, 0, 0);
   assert_int_equal(clSetKernelArg(f->k_reverse, 2, grow, NULL), CL_SUCCESS);
   size_t global = N, local = 16;
   cl_event ev = SENTINEL;
   arm(c);
   cl_int err =
      clEnqueueNDRangeKernel(f->q, f->k_reverse, 1, NULL, &global, &local, 0, NULL, &ev);
   if (!err)
      clWaitForEvents(1, &ev); /* the status says how it ended */
   disarm(c);
   if (err) {
      assert_true(ev == SENTINEL);
      return err;
   }
   cl_int status = kt_event_status(ev);
   clReleaseEvent(ev);
   if (status != CL_COMPLETE)
      return status;
   expect_reversed(f, "reverse with a larger __local arena");
   return CL_SUCCESS;
}
PATH(enqueue_ndrange_local_arena, HOST | RESOURCES)

struct native_args {
   cl_uint *mem;
   cl_uint add;
};

static void CL_CALLBACK native_add(void *p)
{
   struct native_args *a = p;
   for (unsigned i = 0; i < N; i++)
      a->mem[i] += a->add;
}

static cl_int path_enqueue_native_kernel(struct fx *f, struct call *c)
{
   write_uints(f->q, f->buf, 0, 1);
   struct native_args a = {NULL, 9};
   const void *loc = &a.mem;
   struct gate g;
   gate_open(f, &g);
   arm(c);
   cl_int err =
      clEnqueueNativeKernel(f->q, native_add, &a, sizeof(a), 1, &f->buf, &loc, 1, &g.user, &g.ev);
   disarm(c);
   err = gate_close(f, &g, err);
   expect_uints(f->q, f->buf, err ? 0 : 9, 1, "native kernel");
   return err;
}
PATH(enqueue_native_kernel, HOST | RESOURCES)

/* Markers, barriers and clEnqueueWaitForEvents on the out-of-order queue,
 * where they wait for the commands before them: a write held back by a
 * user event must be done once the marker is. */
static cl_int sync_command(struct fx *f, struct call *c, int which)
{
   write_uints(f->q, f->buf, 0, 0);
   cl_uint v[N];
   for (unsigned i = 0; i < N; i++)
      v[i] = i;
   struct gate g;
   gate_open(f, &g);
   cl_event write;
   assert_int_equal(clEnqueueWriteBuffer(f->qo, f->buf, CL_FALSE, 0, sizeof(v), v, 1, &g.user,
                                         &write),
                    CL_SUCCESS);
   cl_event marker = SENTINEL;
   arm(c);
   cl_int err = which == 0   ? clEnqueueMarker(f->qo, &marker)
                : which == 1 ? clEnqueueBarrier(f->qo)
                             : clEnqueueWaitForEvents(f->qo, 1, &write);
   disarm(c);
   if (which == 0 && err)
      assert_true(marker == SENTINEL);
   cl_event after = NULL;
   cl_uint got[N];
   memset(got, 0xee, sizeof(got));
   if (!err && which) {
      /* On an out-of-order queue a read waits only for the barrier: it
       * must see the write. */
      assert_int_equal(clEnqueueReadBuffer(f->qo, f->buf, CL_FALSE, 0, sizeof(got), got, 0,
                                           NULL, &after),
                       CL_SUCCESS);
   } else if (!err) {
      after = marker;
   }
   if (after)
      assert_int_equal(kt_event_status(after) > CL_COMPLETE, 1);
   assert_int_equal(clSetUserEventStatus(g.user, CL_COMPLETE), CL_SUCCESS);
   clReleaseEvent(g.user);
   if (after) {
      assert_int_equal(clWaitForEvents(1, &after), CL_SUCCESS);
      assert_int_equal(kt_event_status(write), CL_COMPLETE);
      clReleaseEvent(after);
      for (unsigned i = 0; which && i < N; i++)
         assert_int_equal(got[i], i);
   }
   assert_int_equal(clWaitForEvents(1, &write), CL_SUCCESS);
   clReleaseEvent(write);
   expect_uints(f->q, f->buf, 0, 1, "write before a sync command");
   return err;
}

static cl_int path_enqueue_marker(struct fx *f, struct call *c)
{
   return sync_command(f, c, 0);
}
PATH(enqueue_marker, HOST)

static cl_int path_enqueue_barrier(struct fx *f, struct call *c)
{
   return sync_command(f, c, 1);
}
PATH(enqueue_barrier, HOST)

static cl_int path_enqueue_wait_for_events(struct fx *f, struct call *c)
{
   return sync_command(f, c, 2);
}
PATH(enqueue_wait_for_events, HOST)

/* clFinish makes a marker; without memory for it, it must still wait. */
static cl_int path_finish(struct fx *f, struct call *c)
{
   write_uints(f->q, f->buf, 0, 0);
   cl_uint v[N];
   for (unsigned i = 0; i < N; i++)
      v[i] = 2 * i;
   assert_int_equal(clEnqueueWriteBuffer(f->qo, f->buf, CL_FALSE, 0, sizeof(v), v, 0, NULL,
                                         NULL),
                    CL_SUCCESS);
   arm(c);
   cl_int err = clFinish(f->qo);
   disarm(c);
   assert_int_equal(err, CL_SUCCESS);
   expect_uints(f->q, f->buf, 0, 2, "write before clFinish");
   return err;
}
PATH(finish, 0)

/* The first command on a queue starts its executor thread, and the first
 * launch the CPU driver's worker pool: without memory for the pool the
 * launch fails with CL_OUT_OF_RESOURCES, and the next command makes it.
 * Each run makes a device of its own (on a new CPU screen) and drops it
 * afterwards. */
static void wait_handles(struct fx *f, enum kiln_type t)
{
   for (int i = 0; i < 5000 && kt_live(t) != f->base_live[t - KILN_TYPE_PLATFORM]; i++)
      sleep_ms(1);
   assert_int_equal(kt_live(t), f->base_live[t - KILN_TYPE_PLATFORM]);
}

static cl_int path_first_launch_on_device(struct fx *f, struct call *c)
{
   struct pipe_screen *screen = cpu_screen_create(false);
   assert_non_null(screen);
   cl_device_id dev = kiln_device_create(kt_platform(), screen);
   assert_non_null(dev);
   cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, NULL);
   assert_non_null(ctx);
   cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, NULL);
   assert_non_null(q);
   const unsigned char *bin = f->binary;
   cl_program p = clCreateProgramWithBinary(ctx, 1, &dev, &f->binary_size, &bin, NULL, NULL);
   assert_non_null(p);
   assert_int_equal(clBuildProgram(p, 0, NULL, NULL, NULL, NULL), CL_SUCCESS);
   cl_kernel k = kernel(p, "inc");
   cl_uint init[N];
   for (unsigned i = 0; i < N; i++)
      init[i] = i;
   /* No command before the one under test: the queue's executor threads
    * start with it. */
   cl_mem m = kt_buffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof(init), init);
   set_mem(k, 0, m);
   set_uint(k, 1, 3);

   size_t global = N;
   cl_event ev = SENTINEL;
   arm(c);
   cl_int err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, &ev);
   if (!err)
      clWaitForEvents(1, &ev); /* the status says how it ended */
   disarm(c);
   if (err) {
      assert_true(ev == SENTINEL);
   } else {
      cl_int status = kt_event_status(ev);
      clReleaseEvent(ev);
      err = status == CL_COMPLETE ? CL_SUCCESS : status;
   }
   expect_uints(q, m, err ? 0 : 3, 1, "first launch on a device");
   /* The device works now, executor and worker pool included. */
   run_inc(q, k);
   expect_uints(q, m, err ? 3 : 6, 1, "second launch on a device");

   clReleaseMemObject(m);
   clReleaseKernel(k);
   clReleaseProgram(p);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
   wait_handles(f, KILN_TYPE_CONTEXT);
   /* The executor may still be dropping the last command's references
    * (the buffer, since a kernel argument holds none): the screen must
    * outlive that, so wait until Kiln's allocations stay put. */
   struct kt_alloc_count before = kt_alloc_live();
   for (int i = 0; i < 1000; i++) {
      sleep_ms(5);
      struct kt_alloc_count now = kt_alloc_live();
      if (now.blocks == before.blocks && now.objects == before.objects)
         break;
      before = now;
   }
   /* The queue's executor threads exit and free what they share:
    * expect_base waits for that. */
   kiln_device_destroy(dev);
   screen->destroy(screen);
   return err;
}
PATH(first_launch_on_device, HOST | RESOURCES)

/* ---- set-up ---- */

/* The CPU driver runs the first work-groups of a launch on the queue's
 * own thread and wakes its workers only for launches that take longer
 * (docs/design.md, "Executor"): a launch of groups that each take far
 * longer gets every worker to make its __local arena. */
static void warm_workers(struct fx *f)
{
   static const char slow_src[] =
      "__kernel void slow(__global uint *b, __local uint *tmp)\n"
      "{\n"
      "   uint v = b[get_global_id(0)];\n"
      "   for (uint i = 0; i < 1000000u; i++)\n"
      "      v = v * 1664525u + 1013904223u;\n"
      "   tmp[get_local_id(0)] = v;\n"
      "   barrier(CLK_LOCAL_MEM_FENCE);\n"
      "   b[get_global_id(0)] = tmp[0];\n"
      "}\n";
   const char *src = slow_src;
   cl_int err = NONE_YET;
   cl_program p = clCreateProgramWithSource(f->ctx, 1, &src, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_int_equal(clBuildProgram(p, 1, &f->dev, NULL, NULL, NULL), CL_SUCCESS);
   cl_kernel k = kernel(p, "slow");
   set_mem(k, 0, f->check);
   assert_int_equal(clSetKernelArg(k, 1, 16 * sizeof(cl_uint), NULL), CL_SUCCESS);
   size_t global = N, local = 16;
   assert_int_equal(clEnqueueNDRangeKernel(f->q, k, 1, NULL, &global, &local, 0, NULL, NULL),
                    CL_SUCCESS);
   assert_int_equal(clFinish(f->q), CL_SUCCESS);
   clReleaseKernel(k);
   clReleaseProgram(p);
}

static int setup(void **state)
{
   (void)state;
   struct fx *f = calloc(1, sizeof(*f));
   assert_non_null(f);
   f->dev = kt_device();
   assert_int_equal(clGetDeviceInfo(f->dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(f->local_mem),
                                    &f->local_mem, NULL),
                    CL_SUCCESS);
   f->ctx = kt_context();
   f->q = kt_queue(f->ctx, 0);
   f->qo = kt_queue(f->ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
   f->check = kt_buffer(f->ctx, 0, N * sizeof(cl_uint), NULL);
   f->buf = kt_buffer(f->ctx, 0, N * sizeof(cl_uint), NULL);
   f->out = kt_buffer(f->ctx, 0, N * sizeof(cl_uint), NULL);
   f->prog = built_program(f->ctx, f->dev);
   f->k_check = kernel(f->prog, "inc");
   set_mem(f->k_check, 0, f->check);
   set_uint(f->k_check, 1, 1);
   f->k_inc = kernel(f->prog, "inc");
   set_mem(f->k_inc, 0, f->buf);
   set_uint(f->k_inc, 1, 3);
   f->k_reverse = kernel(f->prog, "reverse");
   set_mem(f->k_reverse, 0, f->buf);
   set_mem(f->k_reverse, 1, f->out);
   assert_int_equal(clSetKernelArg(f->k_reverse, 2, 16 * sizeof(cl_uint), NULL), CL_SUCCESS);
   assert_int_equal(clGetProgramInfo(f->prog, CL_PROGRAM_BINARY_SIZES, sizeof(f->binary_size),
                                     &f->binary_size, NULL),
                    CL_SUCCESS);
   f->binary = malloc(f->binary_size);
   assert_non_null(f->binary);
   assert_int_equal(clGetProgramInfo(f->prog, CL_PROGRAM_BINARIES, sizeof(f->binary),
                                     &f->binary, NULL),
                    CL_SUCCESS);
   /* Warm up what Kiln makes once and keeps (the executor thread, the
    * worker pool and its __local arenas, the handle registry): it must
    * not count as a leak of the first call that needs it. */
   check_usable(f);
   size_t global = N, local = 16;
   assert_int_equal(
      clEnqueueNDRangeKernel(f->q, f->k_reverse, 1, NULL, &global, &local, 0, NULL, NULL),
      CL_SUCCESS);
   assert_int_equal(
      clEnqueueNDRangeKernel(f->qo, f->k_reverse, 1, NULL, &global, &local, 0, NULL, NULL),
      CL_SUCCESS);
   warm_workers(f);
   assert_int_equal(clFinish(f->q), CL_SUCCESS);
   assert_int_equal(clFinish(f->qo), CL_SUCCESS);
   F = f;
   return 0;
}

static int teardown(void **state)
{
   (void)state;
   struct fx *f = F;
   clReleaseKernel(f->k_check);
   clReleaseKernel(f->k_inc);
   clReleaseKernel(f->k_reverse);
   clReleaseProgram(f->prog);
   clReleaseMemObject(f->check);
   clReleaseMemObject(f->buf);
   clReleaseMemObject(f->out);
   clReleaseCommandQueue(f->q);
   clReleaseCommandQueue(f->qo);
   clReleaseContext(f->ctx);
   free(f->binary);
   free(f);
   return 0;
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_create_context),
      cmocka_unit_test(test_create_context_from_type),
      cmocka_unit_test(test_create_sub_devices),
      cmocka_unit_test(test_create_queue),
      cmocka_unit_test(test_create_buffer),
      cmocka_unit_test(test_create_buffer_copy_host_ptr),
      cmocka_unit_test(test_create_buffer_use_host_ptr),
      cmocka_unit_test(test_create_image2d),
      cmocka_unit_test(test_create_image2d_copy_host_ptr),
      cmocka_unit_test(test_create_image3d_use_host_ptr),
      cmocka_unit_test(test_enqueue_image_write_read),
      cmocka_unit_test(test_create_sampler),
      cmocka_unit_test(test_create_sub_buffer),
      cmocka_unit_test(test_mem_destructor_callback),
      cmocka_unit_test(test_create_user_event),
      cmocka_unit_test(test_event_callback),
      cmocka_unit_test(test_event_callback_completed),
      cmocka_unit_test(test_create_program_with_source),
      cmocka_unit_test(test_create_program_with_binary),
      cmocka_unit_test(test_build_program),
      cmocka_unit_test(test_build_program_cache_miss),
      cmocka_unit_test(test_build_program_cache_hit),
      cmocka_unit_test(test_build_program_from_binary),
      cmocka_unit_test(test_create_kernel),
      cmocka_unit_test(test_create_kernels_in_program),
      cmocka_unit_test(test_set_kernel_arg),
      cmocka_unit_test(test_enqueue_write),
      cmocka_unit_test(test_enqueue_read_blocking),
      cmocka_unit_test(test_enqueue_read_rect),
      cmocka_unit_test(test_enqueue_write_rect),
      cmocka_unit_test(test_enqueue_copy),
      cmocka_unit_test(test_enqueue_copy_rect),
      cmocka_unit_test(test_enqueue_map),
      cmocka_unit_test(test_enqueue_unmap),
      cmocka_unit_test(test_enqueue_ndrange),
      cmocka_unit_test(test_command_buffer),
      cmocka_unit_test(test_enqueue_fill_image),
      cmocka_unit_test(test_command_buffer_images),
      cmocka_unit_test(test_enqueue_ndrange_out_of_order),
      cmocka_unit_test(test_enqueue_task),
      cmocka_unit_test(test_enqueue_ndrange_local_arena),
      cmocka_unit_test(test_enqueue_native_kernel),
      cmocka_unit_test(test_enqueue_marker),
      cmocka_unit_test(test_enqueue_barrier),
      cmocka_unit_test(test_enqueue_wait_for_events),
      cmocka_unit_test(test_finish),
      cmocka_unit_test(test_first_launch_on_device),
   };
   return cmocka_run_group_tests(tests, setup, teardown);
}
