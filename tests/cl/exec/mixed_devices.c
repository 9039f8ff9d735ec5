/* One context holding every device of Kiln's platform (issue 18: each
 * GPU its own device, next to the CPU), and data handed from a kernel on
 * one device to a kernel on another, for every ordered pair (A, B):
 *
 *   A's kernel updates buffer 1 in place, B's kernel reads buffer 1 and
 *   writes a function of it into buffer 2, the host reads both back (on a
 *   third device's queue when there is one) and checks them; twice, so
 *   that a copy B still holds from the first round must be refreshed.
 *
 * for plain buffers, sub-buffers at a non-zero offset aligned for every
 * device (the bytes around them must survive), CL_MEM_USE_HOST_PTR,
 * CL_MEM_COPY_HOST_PTR and CL_MEM_ALLOC_HOST_PTR buffers; with B's kernel
 * ordered after A's by clFinish, by A's event alone (A held back by a
 * user event, so B's kernel is enqueued long before A's can run), by a
 * host map and unmap between them (on A's queue and on B's), and by
 * clEnqueueMigrateMemObjects to B; a failure on A must fail B's kernel;
 * and an image written by a kernel on A and read by a kernel on B.
 * Then what a multi-device context must refuse, with the spec's codes.
 *
 * It runs on whatever devices KILN_DEVICES gives and skips (77) with
 * fewer than two.  meson runs it twice: as the environment has it (the
 * GPU machine: KILN_DEVICES=cpu,cuda, the CPU and every GPU) and with
 * the CPU plus two discrete test devices (docs/testing.md), which CI
 * always has. */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include "kt.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DEVICES 16
#define N 16384 /* uints per buffer */
#define BYTES (N * sizeof(cl_uint))
#define IMG_W 64
#define IMG_H 32

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
   "}\n"
   "kernel void img_produce(write_only image2d_t img, uint seed)\n"
   "{\n"
   "   int x = get_global_id(0), y = get_global_id(1);\n"
   "   uint i = y * get_global_size(0) + x;\n"
   "   write_imageui(img, (int2)(x, y), (uint4)(mixv(0u, i, seed), mixv(1u, i, seed),\n"
   "                                          mixv(2u, i, seed), mixv(3u, i, seed)));\n"
   "}\n"
   "kernel void img_transform(read_only image2d_t img, global uint4 *dst, uint seed)\n"
   "{\n"
   "   const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE |\n"
   "                       CLK_FILTER_NEAREST;\n"
   "   int x = get_global_id(0), y = get_global_id(1);\n"
   "   uint i = y * get_global_size(0) + x;\n"
   "   uint4 v = read_imageui(img, s, (int2)(x, y));\n"
   "   dst[i] = (uint4)(mixv(v.x, i, seed), mixv(v.y, i, seed), mixv(v.z, i, seed),\n"
   "                    mixv(v.w, i, seed));\n"
   "}\n";

static cl_uint mixv(cl_uint x, cl_uint i, cl_uint seed)
{
   x ^= seed + i * 0x9E3779B9u;
   x *= 0x85EBCA6Bu;
   return x ^ (x >> 13);
}

static struct {
   cl_platform_id platform;
   cl_uint n;
   cl_device_id dev[MAX_DEVICES];
   char name[MAX_DEVICES][160];
   cl_context ctx;
   cl_command_queue q[MAX_DEVICES];
   cl_program prog;
   cl_kernel produce, transform, img_produce, img_transform;
   size_t align;  /* bytes: the largest CL_DEVICE_MEM_BASE_ADDR_ALIGN */
   bool images;   /* every device has images, and RGBA/UINT32 is supported */
} m;

/* How B's kernel is ordered after A's, and what happens in between. */
enum order {
   ORDER_FINISH,   /* clFinish on A's queue */
   ORDER_EVENT,    /* A's event in B's wait list, A held back by a user event */
   ORDER_MAP_A,    /* a host map + unmap of buffer 1 on A's queue */
   ORDER_MAP_B,    /* the same on B's queue */
   ORDER_MIGRATE,  /* clEnqueueMigrateMemObjects to B */
};

enum kind { KIND_PLAIN, KIND_SUB, KIND_USE_HOST, KIND_COPY_HOST, KIND_ALLOC_HOST };

static const char *const order_names[] = {"clFinish", "event", "map on A", "map on B",
                                          "migrate to B"};
static const char *const kind_names[] = {"plain", "sub-buffer", "USE_HOST_PTR",
                                         "COPY_HOST_PTR", "ALLOC_HOST_PTR"};

static void build(void)
{
   cl_int err;
   m.prog = clCreateProgramWithSource(m.ctx, 1, &source, NULL, &err);
   REQUIRE(m.prog && err == CL_SUCCESS, "clCreateProgramWithSource: %s", kt_err_name(err));
   err = clBuildProgram(m.prog, 0, NULL, "", NULL, NULL);
   if (err != CL_SUCCESS) {
      for (cl_uint d = 0; d < m.n; d++) {
         char log[8192] = "";
         clGetProgramBuildInfo(m.prog, m.dev[d], CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
         fprintf(stderr, "build log of %s:\n%s\n", m.name[d], log);
      }
      KT_DIE("clBuildProgram for all %u devices: %s", m.n, kt_err_name(err));
   }
   m.produce = clCreateKernel(m.prog, "produce", &err);
   REQUIRE(err == CL_SUCCESS, "produce: %s", kt_err_name(err));
   m.transform = clCreateKernel(m.prog, "transform", &err);
   REQUIRE(err == CL_SUCCESS, "transform: %s", kt_err_name(err));
   m.img_produce = clCreateKernel(m.prog, "img_produce", &err);
   REQUIRE(err == CL_SUCCESS, "img_produce: %s", kt_err_name(err));
   m.img_transform = clCreateKernel(m.prog, "img_transform", &err);
   REQUIRE(err == CL_SUCCESS, "img_transform: %s", kt_err_name(err));
}

static bool image_format_supported(void)
{
   cl_uint count = 0;
   REQUIRE_OK(clGetSupportedImageFormats(m.ctx, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0,
                                         NULL, &count));
   cl_image_format *f = calloc(count ? count : 1, sizeof(*f));
   REQUIRE(f);
   REQUIRE_OK(clGetSupportedImageFormats(m.ctx, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, count,
                                         f, NULL));
   bool found = false;
   for (cl_uint i = 0; i < count; i++)
      found |= f[i].image_channel_order == CL_RGBA &&
               f[i].image_channel_data_type == CL_UNSIGNED_INT32;
   free(f);
   return found;
}

static void setup(void)
{
   kt_watchdog_start();
   m.platform = kt_find_kiln();
   cl_int err = clGetDeviceIDs(m.platform, CL_DEVICE_TYPE_ALL, MAX_DEVICES, m.dev, &m.n);
   REQUIRE(err == CL_SUCCESS, "clGetDeviceIDs(ALL): %s", kt_err_name(err));
   if (m.n > MAX_DEVICES)
      m.n = MAX_DEVICES;
   bool images = true;
   for (cl_uint d = 0; d < m.n; d++) {
      REQUIRE_OK(clGetDeviceInfo(m.dev[d], CL_DEVICE_NAME, sizeof(m.name[d]), m.name[d], NULL));
      size_t a = kt_device_uint(m.dev[d], CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8;
      if (a > m.align)
         m.align = a;
      cl_bool img = CL_FALSE;
      REQUIRE_OK(clGetDeviceInfo(m.dev[d], CL_DEVICE_IMAGE_SUPPORT, sizeof(img), &img, NULL));
      images &= img == CL_TRUE;
      printf("device %u: %s\n", d, m.name[d]);
   }
   if (m.n < 2) {
      printf("skipped: %u device(s); a mixed context needs two (KILN_DEVICES)\n", m.n);
      exit(77);
   }
   cl_context_properties cp[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)m.platform, 0};
   m.ctx = clCreateContext(cp, m.n, m.dev, NULL, NULL, &err);
   REQUIRE(m.ctx && err == CL_SUCCESS, "clCreateContext(%u devices): %s", m.n,
           kt_err_name(err));
   cl_uint ctx_devices = 0;
   CHECK_OK(clGetContextInfo(m.ctx, CL_CONTEXT_NUM_DEVICES, sizeof(ctx_devices), &ctx_devices,
                             NULL));
   CHECK(ctx_devices == m.n, "the context has %u devices, not %u", ctx_devices, m.n);
   for (cl_uint d = 0; d < m.n; d++) {
      m.q[d] = clCreateCommandQueue(m.ctx, m.dev[d], 0, &err);
      REQUIRE(m.q[d] && err == CL_SUCCESS, "queue of %s: %s", m.name[d], kt_err_name(err));
   }
   REQUIRE(m.align >= sizeof(cl_uint), "CL_DEVICE_MEM_BASE_ADDR_ALIGN %zu bytes", m.align);
   build();
   m.images = images && image_format_supported();
   printf("%u devices, sub-buffer alignment %zu bytes, images %s\n", m.n, m.align,
          m.images ? "on every device" : "not on every device: not tested");
}

static void teardown(void)
{
   CHECK_OK(clReleaseKernel(m.produce));
   CHECK_OK(clReleaseKernel(m.transform));
   CHECK_OK(clReleaseKernel(m.img_produce));
   CHECK_OK(clReleaseKernel(m.img_transform));
   CHECK_OK(clReleaseProgram(m.prog));
   for (cl_uint d = 0; d < m.n; d++) {
      CHECK_OK(clFinish(m.q[d]));
      CHECK_OK(clReleaseCommandQueue(m.q[d]));
   }
   CHECK_OK(clReleaseContext(m.ctx));
}

/* The device, other than a and b, that reads the results back when
 * there is one (a third copy to migrate to); else a. */
static cl_uint reader(cl_uint a, cl_uint b)
{
   for (cl_uint c = 0; c < m.n; c++)
      if (c != a && c != b)
         return c;
   return a;
}

static cl_event enqueue_produce(cl_uint d, cl_mem buf, cl_uint seed, cl_uint nwait,
                                const cl_event *wait)
{
   size_t global = N;
   cl_event ev = NULL;
   REQUIRE_OK(clSetKernelArg(m.produce, 0, sizeof(buf), &buf));
   REQUIRE_OK(clSetKernelArg(m.produce, 1, sizeof(seed), &seed));
   CHECK_OK(clEnqueueNDRangeKernel(m.q[d], m.produce, 1, NULL, &global, NULL, nwait, wait, &ev));
   return ev;
}

static cl_event enqueue_transform(cl_uint d, cl_mem src, cl_mem dst, cl_uint seed,
                                  cl_uint nwait, const cl_event *wait)
{
   size_t global = N;
   cl_event ev = NULL;
   REQUIRE_OK(clSetKernelArg(m.transform, 0, sizeof(src), &src));
   REQUIRE_OK(clSetKernelArg(m.transform, 1, sizeof(dst), &dst));
   REQUIRE_OK(clSetKernelArg(m.transform, 2, sizeof(seed), &seed));
   CHECK_OK(
      clEnqueueNDRangeKernel(m.q[d], m.transform, 1, NULL, &global, NULL, nwait, wait, &ev));
   return ev;
}

static void release(cl_event *ev)
{
   if (*ev)
      CHECK_OK(clReleaseEvent(*ev));
   *ev = NULL;
}

static bool same_words(const cl_uint *got, const cl_uint *want, size_t n, const char *what,
                       const char *label)
{
   for (size_t i = 0; i < n; i++)
      if (got[i] != want[i]) {
         KT_FAIL("%s: %s: word %zu is 0x%08x, expected 0x%08x", label, what, i, got[i], want[i]);
         return false;
      }
   return true;
}

/* The buffers of one case, and what their bytes must be. */
struct bufs {
   cl_mem root1, root2;   /* the sub-buffers' parents (KIND_SUB), else NULL */
   cl_mem b1, b2;
   void *host1, *host2;   /* USE_HOST_PTR memory */
   cl_uint *around1, *around2; /* KIND_SUB: the roots' bytes as written */
   size_t root_bytes;
};

static cl_mem buffer(cl_mem_flags flags, size_t size, void *host)
{
   return kt_buffer(m.ctx, flags, size, host);
}

/* Creates the case's buffers; buffer 1 holds init (written on B's queue
 * where it is not given at creation, so that even A's first kernel needs
 * bytes from another device). */
static void make_bufs(struct bufs *s, enum kind kind, cl_uint b, const cl_uint *init)
{
   memset(s, 0, sizeof(*s));
   cl_uint *junk = malloc(BYTES);
   REQUIRE(junk);
   kt_fill(junk, BYTES, 0xdead);
   switch (kind) {
   case KIND_PLAIN:
   case KIND_ALLOC_HOST: {
      cl_mem_flags f = CL_MEM_READ_WRITE | (kind == KIND_ALLOC_HOST ? CL_MEM_ALLOC_HOST_PTR : 0);
      s->b1 = buffer(f, BYTES, NULL);
      s->b2 = buffer(f, BYTES, NULL);
      CHECK_OK(clEnqueueWriteBuffer(m.q[b], s->b1, CL_TRUE, 0, BYTES, init, 0, NULL, NULL));
      CHECK_OK(clEnqueueWriteBuffer(m.q[b], s->b2, CL_TRUE, 0, BYTES, junk, 0, NULL, NULL));
      break;
   }
   case KIND_SUB: {
      /* Sub-buffers at one alignment unit into their parents, with bytes
       * before and after them that nobody writes. */
      s->root_bytes = m.align + BYTES + 3 * m.align;
      s->around1 = malloc(s->root_bytes);
      s->around2 = malloc(s->root_bytes);
      REQUIRE(s->around1 && s->around2);
      kt_fill(s->around1, s->root_bytes, 0x51);
      kt_fill(s->around2, s->root_bytes, 0x52);
      memcpy((char *)s->around1 + m.align, init, BYTES);
      s->root1 = buffer(CL_MEM_READ_WRITE, s->root_bytes, NULL);
      s->root2 = buffer(CL_MEM_READ_WRITE, s->root_bytes, NULL);
      CHECK_OK(clEnqueueWriteBuffer(m.q[b], s->root1, CL_TRUE, 0, s->root_bytes, s->around1, 0,
                                    NULL, NULL));
      CHECK_OK(clEnqueueWriteBuffer(m.q[b], s->root2, CL_TRUE, 0, s->root_bytes, s->around2, 0,
                                    NULL, NULL));
      cl_buffer_region r = {m.align, BYTES};
      cl_int err;
      s->b1 = clCreateSubBuffer(s->root1, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r,
                                &err);
      REQUIRE(s->b1 && err == CL_SUCCESS, "clCreateSubBuffer at %zu: %s", m.align,
              kt_err_name(err));
      s->b2 = clCreateSubBuffer(s->root2, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r,
                                &err);
      REQUIRE(s->b2 && err == CL_SUCCESS, "clCreateSubBuffer at %zu: %s", m.align,
              kt_err_name(err));
      break;
   }
   case KIND_USE_HOST:
      s->host1 = aligned_alloc(4096, BYTES);
      s->host2 = aligned_alloc(4096, BYTES);
      REQUIRE(s->host1 && s->host2);
      memcpy(s->host1, init, BYTES);
      memcpy(s->host2, junk, BYTES);
      s->b1 = buffer(CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, BYTES, s->host1);
      s->b2 = buffer(CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, BYTES, s->host2);
      break;
   case KIND_COPY_HOST: {
      cl_uint *copy = malloc(BYTES);
      REQUIRE(copy);
      memcpy(copy, init, BYTES);
      s->b1 = buffer(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, BYTES, copy);
      s->b2 = buffer(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, BYTES, junk);
      /* The bytes were copied at creation: what the host does later to
       * its own memory must not show. */
      memset(copy, 0xee, BYTES);
      free(copy);
      break;
   }
   }
   free(junk);
}

static void free_bufs(struct bufs *s)
{
   CHECK_OK(clReleaseMemObject(s->b1));
   CHECK_OK(clReleaseMemObject(s->b2));
   if (s->root1) {
      CHECK_OK(clReleaseMemObject(s->root1));
      CHECK_OK(clReleaseMemObject(s->root2));
   }
   free(s->host1);
   free(s->host2);
   free(s->around1);
   free(s->around2);
}

/* Host map and unmap of buffer 1 on device d's queue after ev: the host
 * must see A's results, and what it writes must reach B.  Returns the
 * unmap's event. */
static cl_event map_between(cl_uint d, struct bufs *s, cl_event ev, cl_uint *want1,
                            const char *label)
{
   cl_int err;
   cl_event mapped = NULL, unmapped = NULL;
   cl_uint *p = clEnqueueMapBuffer(m.q[d], s->b1, CL_FALSE, CL_MAP_READ | CL_MAP_WRITE, 0, BYTES,
                                   1, &ev, &mapped, &err);
   CHECK(p && err == CL_SUCCESS, "%s: map: %s", label, kt_err_name(err));
   if (!p)
      return NULL;
   CHECK_OK(clWaitForEvents(1, &mapped));
   if (s->host1)
      CHECK(p == s->host1, "%s: a USE_HOST_PTR buffer maps at %p, not its host_ptr %p", label,
            (void *)p, s->host1);
   same_words(p, want1, N, "buffer 1 as mapped between the kernels", label);
   for (size_t i = 0; i < N; i += 7) {
      p[i] ^= 0xa5a5a5a5u;
      want1[i] ^= 0xa5a5a5a5u;
   }
   CHECK_OK(clEnqueueUnmapMemObject(m.q[d], s->b1, p, 0, NULL, &unmapped));
   release(&mapped);
   return unmapped;
}

static void check_results(cl_uint a, cl_uint b, struct bufs *s, enum kind kind, cl_event done,
                          const cl_uint *want1, const cl_uint *want2, const char *label)
{
   cl_uint r = reader(a, b);
   cl_uint *got = malloc(BYTES);
   REQUIRE(got);
   /* Buffer 2 is current on B only: it comes back through r. */
   memset(got, 0, BYTES);
   CHECK_OK(clEnqueueReadBuffer(m.q[r], s->b2, CL_TRUE, 0, BYTES, got, 1, &done, NULL));
   same_words(got, want2, N, "buffer 2 (B's kernel's result)", label);
   memset(got, 0, BYTES);
   CHECK_OK(clEnqueueReadBuffer(m.q[r], s->b1, CL_TRUE, 0, BYTES, got, 1, &done, NULL));
   same_words(got, want1, N, "buffer 1 (A's kernel's result)", label);
   if (kind == KIND_SUB) {
      /* The parents, read whole on B's queue: only the sub-buffers'
       * bytes changed. */
      memcpy((char *)s->around1 + m.align, want1, BYTES);
      memcpy((char *)s->around2 + m.align, want2, BYTES);
      unsigned char *whole = malloc(s->root_bytes);
      REQUIRE(whole);
      CHECK_OK(clEnqueueReadBuffer(m.q[b], s->root1, CL_TRUE, 0, s->root_bytes, whole, 0, NULL,
                                   NULL));
      if (!kt_same(whole, s->around1, s->root_bytes, "parent of buffer 1"))
         KT_FAIL("%s: parent of sub-buffer 1", label);
      CHECK_OK(clEnqueueReadBuffer(m.q[b], s->root2, CL_TRUE, 0, s->root_bytes, whole, 0, NULL,
                                   NULL));
      if (!kt_same(whole, s->around2, s->root_bytes, "parent of buffer 2"))
         KT_FAIL("%s: parent of sub-buffer 2", label);
      free(whole);
   }
   if (kind == KIND_USE_HOST) {
      /* A map of a USE_HOST_PTR buffer is its host memory, up to date. */
      cl_int err;
      cl_uint *p = clEnqueueMapBuffer(m.q[a], s->b2, CL_TRUE, CL_MAP_READ, 0, BYTES, 0, NULL,
                                      NULL, &err);
      CHECK(p == s->host2 && err == CL_SUCCESS, "%s: map of buffer 2 at %p (%s), host_ptr %p",
            label, (void *)p, kt_err_name(err), s->host2);
      if (p) {
         same_words(s->host2, want2, N, "buffer 2's host_ptr while mapped", label);
         CHECK_OK(clEnqueueUnmapMemObject(m.q[a], s->b2, p, 0, NULL, NULL));
         CHECK_OK(clFinish(m.q[a]));
      }
   }
   free(got);
}

/* Two rounds of: A updates buffer 1, B turns it into buffer 2. */
static void buffer_case(cl_uint a, cl_uint b, enum kind kind, enum order order)
{
   char label[400];
   snprintf(label, sizeof(label), "%s buffers, %s, A = %u (%s), B = %u (%s)", kind_names[kind],
            order_names[order], a, m.name[a], b, m.name[b]);
   cl_uint *want1 = malloc(BYTES), *want2 = malloc(BYTES);
   REQUIRE(want1 && want2);
   kt_fill(want1, BYTES, 1000 + a * 31 + b * 7 + kind * 3 + order);
   struct bufs s;
   make_bufs(&s, kind, b, want1);

   for (int round = 0; round < 2; round++) {
      cl_uint seed_a = 0x1000u * (a + 1) + 0x100u * (cl_uint)round + (cl_uint)kind;
      cl_uint seed_b = 0x2000u * (b + 1) + 0x10u * (cl_uint)order + (cl_uint)round;
      for (cl_uint i = 0; i < N; i++)
         want1[i] = mixv(want1[i], i, seed_a);

      cl_event gate = NULL, ev_a, before_b = NULL, ev_b;
      if (order == ORDER_EVENT)
         gate = kt_user_event(m.ctx);
      ev_a = enqueue_produce(a, s.b1, seed_a, gate ? 1 : 0, gate ? &gate : NULL);
      switch (order) {
      case ORDER_FINISH:
         CHECK_OK(clFinish(m.q[a]));
         break;
      case ORDER_EVENT:
         before_b = ev_a;
         CHECK_OK(clRetainEvent(before_b));
         break;
      case ORDER_MAP_A:
      case ORDER_MAP_B:
         before_b = map_between(order == ORDER_MAP_A ? a : b, &s, ev_a, want1, label);
         break;
      case ORDER_MIGRATE:
         /* Buffer 2 is all overwritten by B: its contents may go. */
         CHECK_OK(clEnqueueMigrateMemObjects(m.q[b], 1, &s.b1, 0, 1, &ev_a, &before_b));
         CHECK_OK(clEnqueueMigrateMemObjects(m.q[b], 1, &s.b2,
                                             CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0, NULL,
                                             NULL));
         break;
      }
      ev_b = enqueue_transform(b, s.b1, s.b2, seed_b, before_b ? 1 : 0,
                               before_b ? &before_b : NULL);
      for (cl_uint i = 0; i < N; i++)
         want2[i] = mixv(want1[i], i, seed_b) + 1u;
      if (gate && ev_b) {
         /* Nothing may run yet: B's kernel waits on A's, which waits on
          * the gate; and no clFinish anywhere. */
         CHECK_PENDING(ev_b, 20);
         CHECK(kt_status(ev_a) > CL_COMPLETE, "%s: A's kernel ran before its gate", label);
         CHECK_OK(clFlush(m.q[b]));
      }
      if (gate) {
         CHECK_OK(clSetUserEventStatus(gate, CL_COMPLETE));
         release(&gate);
      }
      if (ev_b)
         check_results(a, b, &s, kind, ev_b, want1, want2, label);
      CHECK_ENDS(ev_a, CL_COMPLETE);
      release(&ev_a);
      release(&before_b);
      release(&ev_b);
   }
   free_bufs(&s);
   free(want1);
   free(want2);
}

/* A failure on A (its gate set to an error) fails B's kernel, which
 * waits on it across devices, and a blocking read waiting on B's. */
static void failure_case(cl_uint a, cl_uint b)
{
   cl_mem b1 = buffer(CL_MEM_READ_WRITE, BYTES, NULL), b2 = buffer(CL_MEM_READ_WRITE, BYTES, NULL);
   cl_event gate = kt_user_event(m.ctx);
   cl_event ev_a = enqueue_produce(a, b1, 1, 1, &gate);
   cl_event ev_b = enqueue_transform(b, b1, b2, 2, 1, &ev_a);
   CHECK_OK(clSetUserEventStatus(gate, -77));
   cl_int st_a = kt_wait_end(ev_a, 5000), st_b = kt_wait_end(ev_b, 5000);
   CHECK(st_a < 0, "A = %u: a kernel after a failed user event ends with %s", a,
         kt_err_name(st_a));
   CHECK(st_b < 0, "A = %u, B = %u: a kernel waiting on a failed one ends with %s", a, b,
         kt_err_name(st_b));
   cl_uint word;
   CHECK_ERR(clEnqueueReadBuffer(m.q[a], b2, CL_TRUE, 0, sizeof(word), &word, 1, &ev_b, NULL),
             CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
   release(&gate);
   release(&ev_a);
   release(&ev_b);
   CHECK_OK(clReleaseMemObject(b1));
   CHECK_OK(clReleaseMemObject(b2));
}

/* An image written by a kernel on A, read by a kernel on B (waiting on
 * A's event only), read back on B's queue and through B's output. */
static void image_case(cl_uint a, cl_uint b)
{
   char label[400];
   snprintf(label, sizeof(label), "image, A = %u (%s), B = %u (%s)", a, m.name[a], b, m.name[b]);
   cl_image_format fmt = {CL_RGBA, CL_UNSIGNED_INT32};
   cl_image_desc desc;
   memset(&desc, 0, sizeof(desc));
   desc.image_type = CL_MEM_OBJECT_IMAGE2D;
   desc.image_width = IMG_W;
   desc.image_height = IMG_H;
   cl_int err;
   cl_mem img = clCreateImage(m.ctx, CL_MEM_READ_WRITE, &fmt, &desc, NULL, &err);
   REQUIRE(img && err == CL_SUCCESS, "%s: clCreateImage: %s", label, kt_err_name(err));
   size_t words = (size_t)IMG_W * IMG_H * 4;
   cl_mem out = buffer(CL_MEM_READ_WRITE, words * sizeof(cl_uint), NULL);
   cl_uint seed_a = 0x77u + a, seed_b = 0x99u + b;
   size_t global[2] = {IMG_W, IMG_H};
   cl_event ev_a = NULL, ev_b = NULL;
   REQUIRE_OK(clSetKernelArg(m.img_produce, 0, sizeof(img), &img));
   REQUIRE_OK(clSetKernelArg(m.img_produce, 1, sizeof(seed_a), &seed_a));
   CHECK_OK(clEnqueueNDRangeKernel(m.q[a], m.img_produce, 2, NULL, global, NULL, 0, NULL, &ev_a));
   REQUIRE_OK(clSetKernelArg(m.img_transform, 0, sizeof(img), &img));
   REQUIRE_OK(clSetKernelArg(m.img_transform, 1, sizeof(out), &out));
   REQUIRE_OK(clSetKernelArg(m.img_transform, 2, sizeof(seed_b), &seed_b));
   CHECK_OK(clEnqueueNDRangeKernel(m.q[b], m.img_transform, 2, NULL, global, NULL,
                                   ev_a ? 1 : 0, ev_a ? &ev_a : NULL, &ev_b));

   cl_uint *want_img = malloc(words * sizeof(cl_uint)), *want_out = malloc(words * sizeof(cl_uint));
   cl_uint *got = calloc(words, sizeof(cl_uint));
   REQUIRE(want_img && want_out && got);
   for (cl_uint i = 0; i < IMG_W * IMG_H; i++)
      for (cl_uint c = 0; c < 4; c++) {
         want_img[i * 4 + c] = mixv(c, i, seed_a);
         want_out[i * 4 + c] = mixv(want_img[i * 4 + c], i, seed_b);
      }
   if (ev_b) {
      cl_uint r = reader(a, b);
      CHECK_OK(clEnqueueReadBuffer(m.q[r], out, CL_TRUE, 0, words * sizeof(cl_uint), got, 1,
                                   &ev_b, NULL));
      same_words(got, want_out, words, "what B's kernel read from the image", label);
      size_t origin[3] = {0, 0, 0}, region[3] = {IMG_W, IMG_H, 1};
      memset(got, 0, words * sizeof(cl_uint));
      CHECK_OK(clEnqueueReadImage(m.q[b], img, CL_TRUE, origin, region, 0, 0, got, 1, &ev_b,
                                  NULL));
      same_words(got, want_img, words, "the image A's kernel wrote", label);
   }
   release(&ev_a);
   release(&ev_b);
   free(want_img);
   free(want_out);
   free(got);
   CHECK_OK(clReleaseMemObject(img));
   CHECK_OK(clReleaseMemObject(out));
}

/* What a context of several devices must refuse. */
static void bad_inputs(void)
{
   cl_int err;
   cl_context_properties cp[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)m.platform, 0};
   /* A context of the first device alone, and the second device used
    * with it. */
   cl_context solo = clCreateContext(cp, 1, &m.dev[0], NULL, NULL, &err);
   REQUIRE(solo && err == CL_SUCCESS, "clCreateContext(device 0): %s", kt_err_name(err));
   cl_command_queue q = clCreateCommandQueue(solo, m.dev[1], 0, &err);
   CHECK(!q && err == CL_INVALID_DEVICE,
         "a queue for a device outside the context: %p, %s (want CL_INVALID_DEVICE)", (void *)q,
         kt_err_name(err));
   cl_program solo_prog = clCreateProgramWithSource(solo, 1, &source, NULL, &err);
   REQUIRE(solo_prog && err == CL_SUCCESS, "clCreateProgramWithSource: %s", kt_err_name(err));
   CHECK_ERR(clBuildProgram(solo_prog, 1, &m.dev[1], "", NULL, NULL), CL_INVALID_DEVICE);
   cl_build_status bs = CL_BUILD_SUCCESS;
   CHECK_ERR(clGetProgramBuildInfo(solo_prog, m.dev[1], CL_PROGRAM_BUILD_STATUS, sizeof(bs), &bs,
                                   NULL),
             CL_INVALID_DEVICE);
   CHECK_OK(clReleaseProgram(solo_prog));

   /* A program of the whole context built for device 0 only: device 1
    * has no executable of it. */
   cl_program part = clCreateProgramWithSource(m.ctx, 1, &source, NULL, &err);
   REQUIRE(part && err == CL_SUCCESS, "clCreateProgramWithSource: %s", kt_err_name(err));
   CHECK_OK(clBuildProgram(part, 1, &m.dev[0], "", NULL, NULL));
   bs = CL_BUILD_SUCCESS;
   CHECK_OK(clGetProgramBuildInfo(part, m.dev[1], CL_PROGRAM_BUILD_STATUS, sizeof(bs), &bs, NULL));
   CHECK(bs == CL_BUILD_NONE, "device 1's build status of a program built for device 0: %d",
         (int)bs);
   cl_kernel k = clCreateKernel(part, "produce", &err);
   CHECK(k && err == CL_SUCCESS, "a kernel of a program built for one device: %s",
         kt_err_name(err));
   if (k) {
      cl_mem buf = buffer(CL_MEM_READ_WRITE, BYTES, NULL);
      cl_uint seed = 5;
      size_t global = N;
      REQUIRE_OK(clSetKernelArg(k, 0, sizeof(buf), &buf));
      REQUIRE_OK(clSetKernelArg(k, 1, sizeof(seed), &seed));
      CHECK_ERR(clEnqueueNDRangeKernel(m.q[1], k, 1, NULL, &global, NULL, 0, NULL, NULL),
                CL_INVALID_PROGRAM_EXECUTABLE);
      CHECK_OK(clEnqueueNDRangeKernel(m.q[0], k, 1, NULL, &global, NULL, 0, NULL, NULL));
      CHECK_OK(clFinish(m.q[0]));
      CHECK_OK(clReleaseKernel(k));
      CHECK_OK(clReleaseMemObject(buf));
   }
   CHECK_OK(clReleaseProgram(part));

   /* NULL names no device when the kernel has several. */
   size_t wg = 0;
   CHECK_ERR(clGetKernelWorkGroupInfo(m.produce, NULL, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg), &wg,
                                      NULL),
             CL_INVALID_DEVICE);
   for (cl_uint d = 0; d < m.n; d++)
      CHECK_OK(clGetKernelWorkGroupInfo(m.produce, m.dev[d], CL_KERNEL_WORK_GROUP_SIZE,
                                        sizeof(wg), &wg, NULL));

   /* Memory objects and events of another context. */
   cl_mem buf = buffer(CL_MEM_READ_WRITE, BYTES, NULL);
   cl_mem foreign = kt_buffer(solo, CL_MEM_READ_WRITE, BYTES, NULL);
   cl_event foreign_ev = kt_user_event(solo);
   CHECK_ERR(clEnqueueMigrateMemObjects(m.q[1], 1, &foreign, 0, 0, NULL, NULL),
             CL_INVALID_CONTEXT);
   CHECK_ERR(clEnqueueMigrateMemObjects(m.q[1], 1, &buf, 0, 1, &foreign_ev, NULL),
             CL_INVALID_CONTEXT);
   CHECK_ERR(clEnqueueMigrateMemObjects(m.q[1], 0, &buf, 0, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueMigrateMemObjects(m.q[1], 1, NULL, 0, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueMigrateMemObjects(m.q[1], 1, &buf, (cl_mem_migration_flags)1 << 7, 0,
                                        NULL, NULL),
             CL_INVALID_VALUE);
   cl_uint word = 0;
   CHECK_ERR(clEnqueueReadBuffer(m.q[1], buf, CL_TRUE, 0, sizeof(word), &word, 1, &foreign_ev,
                                 NULL),
             CL_INVALID_CONTEXT);
   CHECK_ERR(clEnqueueReadBuffer(m.q[1], foreign, CL_TRUE, 0, sizeof(word), &word, 0, NULL,
                                 NULL),
             CL_INVALID_CONTEXT);
   CHECK_OK(clSetUserEventStatus(foreign_ev, CL_COMPLETE));
   CHECK_OK(clReleaseEvent(foreign_ev));
   CHECK_OK(clReleaseMemObject(foreign));

   /* A sub-buffer at an offset aligned for no device. */
   if (m.align > sizeof(cl_uint)) {
      size_t min_align = m.align;
      for (cl_uint d = 0; d < m.n; d++) {
         size_t a = kt_device_uint(m.dev[d], CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8;
         if (a < min_align)
            min_align = a;
      }
      if (min_align > sizeof(cl_uint)) {
         cl_buffer_region r = {sizeof(cl_uint), 64};
         cl_mem sub = clCreateSubBuffer(buf, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r,
                                        &err);
         CHECK(!sub && err == CL_MISALIGNED_SUB_BUFFER_OFFSET,
               "a sub-buffer at offset 4 (alignment %zu): %p, %s", min_align, (void *)sub,
               kt_err_name(err));
         if (sub)
            CHECK_OK(clReleaseMemObject(sub));
      }
   }
   CHECK_OK(clReleaseMemObject(buf));
   CHECK_OK(clReleaseContext(solo));
}

int main(void)
{
   setup();
   unsigned pairs = 0;
   for (cl_uint a = 0; a < m.n; a++)
      for (cl_uint b = 0; b < m.n; b++) {
         if (a == b)
            continue;
         pairs++;
         for (int kind = KIND_PLAIN; kind <= KIND_ALLOC_HOST; kind++)
            buffer_case(a, b, (enum kind)kind, ORDER_FINISH);
         for (int order = ORDER_EVENT; order <= ORDER_MIGRATE; order++) {
            buffer_case(a, b, KIND_PLAIN, (enum order)order);
            buffer_case(a, b, KIND_USE_HOST, (enum order)order);
         }
         buffer_case(a, b, KIND_SUB, ORDER_EVENT);
         failure_case(a, b);
         if (m.images)
            image_case(a, b);
      }
   bad_inputs();
   printf("%u ordered pairs of %u devices\n", pairs, m.n);
   teardown();
   return kt_result();
}
