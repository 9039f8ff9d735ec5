/* clCreateBuffer, clCreateSubBuffer, clRetainMemObject, clReleaseMemObject,
 * clGetMemObjectInfo, clSetMemObjectDestructorCallback (OpenCL 1.1
 * sections 5.2.1, 5.4). */
#include "kiln_test_mem.h"
#include "kiln/cl_version.h"
#include "kiln/pipe_layout.h"
#include "core/mem.h"
#include "core/pipe_sync.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static cl_mem_flags flags_of(cl_mem m)
{
   cl_mem_flags f = 0xdead;
   kt_info_value(kt_mem_info, m, CL_MEM_FLAGS, &f, sizeof(f));
   return f;
}

static size_t size_of(cl_mem m)
{
   size_t s = 0;
   kt_info_value(kt_mem_info, m, CL_MEM_SIZE, &s, sizeof(s));
   return s;
}

static void *host_ptr_of(cl_mem m)
{
   void *p = (void *)1;
   kt_info_value(kt_mem_info, m, CL_MEM_HOST_PTR, &p, sizeof(p));
   return p;
}

static size_t offset_of(cl_mem m)
{
   size_t o = 12345;
   kt_info_value(kt_mem_info, m, CL_MEM_OFFSET, &o, sizeof(o));
   return o;
}

static cl_mem parent_of(cl_mem m)
{
   cl_mem p = (cl_mem)1;
   kt_info_value(kt_mem_info, m, CL_MEM_ASSOCIATED_MEMOBJECT, &p, sizeof(p));
   return p;
}

static cl_ulong max_alloc(void)
{
   cl_ulong m = 0;
   assert_int_equal(clGetDeviceInfo(kt_device(), CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(m), &m,
                                    NULL),
                    CL_SUCCESS);
   assert_true(m >= 128u << 20);
   return m;
}

/* ---- clCreateBuffer ---------------------------------------------------- */

static void create_buffer_each_flag_set(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   unsigned live = kt_live(KILN_TYPE_MEM);
   unsigned char host[96];
   kt_fill(host, sizeof(host), 3);
   const cl_mem_flags access[] = {0, CL_MEM_READ_WRITE, CL_MEM_WRITE_ONLY, CL_MEM_READ_ONLY};
   /* Host-pointer flag sets valid in 1.1: ALLOC_HOST_PTR and
    * COPY_HOST_PTR may be combined. */
   const cl_mem_flags hostf[] = {0, CL_MEM_ALLOC_HOST_PTR, CL_MEM_COPY_HOST_PTR,
                                 CL_MEM_USE_HOST_PTR,
                                 CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR};
   for (size_t a = 0; a < ARRAY_SIZE(access); a++)
      for (size_t h = 0; h < ARRAY_SIZE(hostf); h++) {
         cl_mem_flags flags = access[a] | hostf[h];
         bool needs_ptr = hostf[h] & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
         cl_int err = -1;
         cl_mem m = clCreateBuffer(ctx, flags, sizeof(host), needs_ptr ? host : NULL, &err);
         assert_int_equal(err, CL_SUCCESS);
         assert_non_null(m);

         cl_mem_flags got = flags_of(m);
         /* READ_WRITE is the default: reporting it for 0 is fine. */
         if (access[a] == 0)
            assert_true(got == flags || got == (flags | CL_MEM_READ_WRITE));
         else
            assert_int_equal(got, flags);
         assert_int_equal(size_of(m), sizeof(host));
         cl_mem_object_type type = 0;
         kt_info_value(kt_mem_info, m, CL_MEM_TYPE, &type, sizeof(type));
         assert_int_equal(type, CL_MEM_OBJECT_BUFFER);
         cl_context c = NULL;
         kt_info_value(kt_mem_info, m, CL_MEM_CONTEXT, &c, sizeof(c));
         assert_ptr_equal(c, ctx);
         /* 1.1 reports the host_ptr argument, for COPY_HOST_PTR too; 1.2
          * changed that to USE_HOST_PTR only. */
         cl_mem_flags reported = KILN_CL_VERSION_NUMBER >= 120
                                    ? CL_MEM_USE_HOST_PTR
                                    : CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR;
         assert_ptr_equal(host_ptr_of(m), hostf[h] & reported ? host : NULL);
         assert_int_equal(kt_map_count(m), 0);
         assert_int_equal(kt_mem_refcount(m), 1);
         assert_null(parent_of(m));
         assert_int_equal(offset_of(m), 0);
         assert_int_equal(clReleaseMemObject(m), CL_SUCCESS);
      }
   /* errcode_ret may be NULL. */
   cl_mem m = clCreateBuffer(ctx, 0, 16, NULL, NULL);
   assert_non_null(m);
   assert_int_equal(kt_live(KILN_TYPE_MEM), live + 1);
   assert_int_equal(clReleaseMemObject(m), CL_SUCCESS);
   assert_int_equal(kt_live(KILN_TYPE_MEM), live);
   clReleaseContext(ctx);
}

static void create_buffer_host_ptr_data(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   unsigned char host[200], want[200], got[200];
   kt_fill(host, sizeof(host), 7);
   memcpy(want, host, sizeof(host));

   /* COPY_HOST_PTR copies at creation: later changes to host do not show. */
   cl_mem copy = kt_buffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof(host), host);
   cl_mem alloc_copy =
      kt_buffer(ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR, sizeof(host), host);
   memset(host, 0, sizeof(host));
   kt_assert_contents(q, copy, want, sizeof(want));
   kt_assert_contents(q, alloc_copy, want, sizeof(want));

   /* USE_HOST_PTR: the buffer is the application's memory (on the CPU
    * device, and in any case once a blocking command completed). */
   kt_fill(host, sizeof(host), 8);
   cl_mem use = kt_buffer(ctx, CL_MEM_USE_HOST_PTR, sizeof(host), host);
   kt_fill(want, sizeof(want), 8);
   kt_assert_contents(q, use, want, sizeof(want));
   kt_fill(got, sizeof(got), 9);
   assert_int_equal(clEnqueueWriteBuffer(q, use, CL_TRUE, 0, sizeof(got), got, 0, NULL, NULL),
                    CL_SUCCESS);
   assert_memory_equal(host, got, sizeof(got));

   clReleaseMemObject(copy);
   clReleaseMemObject(alloc_copy);
   clReleaseMemObject(use);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

static void expect_create_fails(cl_context ctx, cl_mem_flags flags, size_t size, void *host,
                                cl_int want)
{
   unsigned live = kt_live(KILN_TYPE_MEM);
   cl_int err = CL_SUCCESS;
   assert_null(clCreateBuffer(ctx, flags, size, host, &err));
   assert_int_equal(err, want);
   assert_null(clCreateBuffer(ctx, flags, size, host, NULL));
   assert_int_equal(kt_live(KILN_TYPE_MEM), live);
}

static void create_buffer_invalid_context(void **state)
{
   (void)state;
   int junk = 0;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   cl_mem buf = kt_buffer(ctx, 0, 16, NULL);
   cl_event ue = kt_user_event(ctx);
   cl_context released = kt_released_context();
   cl_context bad[] = {NULL,
                       (cl_context)&junk,
                       released,
                       (cl_context)q,
                       (cl_context)buf,
                       (cl_context)ue,
                       (cl_context)kt_device(),
                       (cl_context)kt_platform()};
   for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
      expect_create_fails(bad[i], 0, 16, NULL, CL_INVALID_CONTEXT);
   clSetUserEventStatus(ue, CL_COMPLETE);
   clReleaseEvent(ue);
   clReleaseMemObject(buf);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

static void create_buffer_invalid_flags(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   char host[16];
   const cl_mem_flags bad[] = {
      /* Bits no version defines; 1.2's host-access flags are exclusive. */
      (cl_mem_flags)1 << 6,
      CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY,
      CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS,
      CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS,
      CL_MEM_READ_WRITE | ((cl_mem_flags)1 << 40),
      (cl_mem_flags)1 << 63,
      ~(cl_mem_flags)0,
      /* Access flags are mutually exclusive. */
      CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY,
      CL_MEM_READ_WRITE | CL_MEM_READ_ONLY,
      CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY,
      CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY,
   };
   for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
      expect_create_fails(ctx, bad[i], 16, NULL, CL_INVALID_VALUE);
      expect_create_fails(ctx, bad[i] | CL_MEM_COPY_HOST_PTR, 16, host, CL_INVALID_VALUE);
   }
   /* USE_HOST_PTR excludes ALLOC_HOST_PTR and COPY_HOST_PTR (a host
    * pointer is given, so only the flags are wrong). */
   expect_create_fails(ctx, CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, 16, host,
                       CL_INVALID_VALUE);
   expect_create_fails(ctx, CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, 16, host,
                       CL_INVALID_VALUE);
   expect_create_fails(ctx,
                       CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR, 16,
                       host, CL_INVALID_VALUE);
   clReleaseContext(ctx);
}

static void create_buffer_invalid_size(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_ulong max = max_alloc();
   char host[16];
   expect_create_fails(ctx, 0, 0, NULL, CL_INVALID_BUFFER_SIZE);
   expect_create_fails(ctx, CL_MEM_USE_HOST_PTR, 0, host, CL_INVALID_BUFFER_SIZE);
   expect_create_fails(ctx, 0, (size_t)max + 1, NULL, CL_INVALID_BUFFER_SIZE);
   expect_create_fails(ctx, CL_MEM_ALLOC_HOST_PTR, (size_t)max + 1, NULL,
                       CL_INVALID_BUFFER_SIZE);
   expect_create_fails(ctx, 0, SIZE_MAX, NULL, CL_INVALID_BUFFER_SIZE);
   expect_create_fails(ctx, 0, SIZE_MAX / 2 + 1, NULL, CL_INVALID_BUFFER_SIZE);
   clReleaseContext(ctx);
}

/* "CL_INVALID_BUFFER_SIZE if size ... is greater than
 * CL_DEVICE_MAX_MEM_ALLOC_SIZE ... for all devices in context": a size
 * one device of the context can allocate is valid. */
static void create_buffer_size_limit_is_per_context(void **state)
{
   (void)state;
   cl_context ctx = kt_two_device_context();
   size_t size = 2 * KT_SMALL_MAX_ALLOC;
   cl_int err = -1;
   cl_mem m = clCreateBuffer(ctx, 0, size, NULL, &err);
   if (m)
      clReleaseMemObject(m);
   clReleaseContext(ctx);
   KNOWN_BUG(err == CL_INVALID_BUFFER_SIZE,
             "src/api/mem.c max_alloc/clCreateBuffer: the limit is the smallest "
             "CL_DEVICE_MAX_MEM_ALLOC_SIZE of the context's devices; 1.1 rejects only sizes "
             "greater than the value of all devices");
   assert_int_equal(err, CL_SUCCESS);
}

static void create_buffer_invalid_host_ptr(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   char host[16];
   expect_create_fails(ctx, CL_MEM_USE_HOST_PTR, 16, NULL, CL_INVALID_HOST_PTR);
   expect_create_fails(ctx, CL_MEM_COPY_HOST_PTR, 16, NULL, CL_INVALID_HOST_PTR);
   expect_create_fails(ctx, CL_MEM_COPY_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, 16, NULL,
                       CL_INVALID_HOST_PTR);
   expect_create_fails(ctx, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, 16, NULL,
                       CL_INVALID_HOST_PTR);
   expect_create_fails(ctx, 0, 16, host, CL_INVALID_HOST_PTR);
   expect_create_fails(ctx, CL_MEM_READ_WRITE, 16, host, CL_INVALID_HOST_PTR);
   expect_create_fails(ctx, CL_MEM_ALLOC_HOST_PTR, 16, host, CL_INVALID_HOST_PTR);
   clReleaseContext(ctx);
}

static void create_buffer_error_order(void **state)
{
   (void)state;
   int junk = 0;
   cl_context ctx = kt_context();
   const cl_mem_flags bad_flags = CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY;
   /* CONTEXT, VALUE, BUFFER_SIZE, HOST_PTR. */
   expect_create_fails((cl_context)&junk, bad_flags, 0, &junk, CL_INVALID_CONTEXT);
   expect_create_fails(NULL, 0, 0, NULL, CL_INVALID_CONTEXT);
   expect_create_fails(ctx, bad_flags, 0, NULL, CL_INVALID_VALUE);
   expect_create_fails(ctx, CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, 0, NULL,
                       CL_INVALID_VALUE);
   expect_create_fails(ctx, CL_MEM_USE_HOST_PTR, 0, NULL, CL_INVALID_BUFFER_SIZE);
   expect_create_fails(ctx, 0, SIZE_MAX, &junk, CL_INVALID_BUFFER_SIZE);
   clReleaseContext(ctx);
}

/* ---- clCreateSubBuffer ------------------------------------------------- */

static void expect_sub_fails(cl_mem parent, cl_mem_flags flags, cl_buffer_create_type type,
                             const void *info, cl_int want)
{
   unsigned live = kt_live(KILN_TYPE_MEM);
   cl_mem p = kiln_object_lookup(parent, KILN_TYPE_MEM) ? parent : NULL;
   cl_uint refs = p ? kt_mem_refcount(p) : 0;
   cl_int err = CL_SUCCESS;
   assert_null(clCreateSubBuffer(parent, flags, type, info, &err));
   assert_int_equal(err, want);
   assert_null(clCreateSubBuffer(parent, flags, type, info, NULL));
   assert_int_equal(kt_live(KILN_TYPE_MEM), live);
   if (p)
      assert_int_equal(kt_mem_refcount(p), refs);
}

static void expect_region_fails(cl_mem parent, cl_mem_flags flags, size_t origin, size_t size,
                                cl_int want)
{
   cl_buffer_region r = {origin, size};
   expect_sub_fails(parent, flags, CL_BUFFER_CREATE_TYPE_REGION, &r, want);
}

static void sub_buffer_values_and_data(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   unsigned live = kt_live(KILN_TYPE_MEM);
   cl_mem parent = kt_buffer(ctx, CL_MEM_READ_WRITE, 1024, NULL);
   kt_write_pattern(q, parent, 1024, 1);
   unsigned char want[1024];
   kt_fill(want, sizeof(want), 1);

   cl_mem sub = kt_sub_buffer(parent, 0, 256, 384);
   assert_int_equal(kt_live(KILN_TYPE_MEM), live + 2);
   assert_int_equal(size_of(sub), 384);
   assert_int_equal(offset_of(sub), 256);
   assert_ptr_equal(parent_of(sub), parent);
   cl_mem_object_type type = 0;
   kt_info_value(kt_mem_info, sub, CL_MEM_TYPE, &type, sizeof(type));
   assert_int_equal(type, CL_MEM_OBJECT_BUFFER);
   cl_context c = NULL;
   kt_info_value(kt_mem_info, sub, CL_MEM_CONTEXT, &c, sizeof(c));
   assert_ptr_equal(c, ctx);
   assert_int_equal(flags_of(sub) & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY),
                    CL_MEM_READ_WRITE);
   assert_null(host_ptr_of(sub));
   assert_int_equal(kt_mem_refcount(sub), 1);
   assert_int_equal(kt_map_count(sub), 0);

   /* The sub-buffer shows the parent's bytes [256, 640). */
   kt_assert_contents(q, sub, want + 256, 384);
   /* Writes through it land in the parent. */
   unsigned char part[384];
   kt_fill(part, sizeof(part), 2);
   assert_int_equal(clEnqueueWriteBuffer(q, sub, CL_TRUE, 0, sizeof(part), part, 0, NULL, NULL),
                    CL_SUCCESS);
   memcpy(want + 256, part, sizeof(part));
   kt_assert_contents(q, parent, want, sizeof(want));

   /* Whole-buffer and last-block sub-buffers are fine. */
   cl_mem all = kt_sub_buffer(parent, CL_MEM_READ_ONLY, 0, 1024);
   assert_int_equal(flags_of(all) & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY),
                    CL_MEM_READ_ONLY);
   kt_assert_contents(q, all, want, 1024);
   cl_mem last = kt_sub_buffer(parent, CL_MEM_WRITE_ONLY, 1024 - 128, 128);
   assert_int_equal(flags_of(last) & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY),
                    CL_MEM_WRITE_ONLY);
   kt_assert_contents(q, last, want + 1024 - 128, 128);
   cl_mem one = kt_sub_buffer(parent, 0, 512, 1);
   assert_int_equal(size_of(one), 1);

   clReleaseMemObject(one);
   clReleaseMemObject(last);
   clReleaseMemObject(all);
   clReleaseMemObject(sub);
   clReleaseMemObject(parent);
   assert_int_equal(kt_live(KILN_TYPE_MEM), live);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

static void sub_buffer_inherits_access_and_host_ptr(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   unsigned char host[512];
   const cl_mem_flags access = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;

   cl_mem wo = kt_buffer(ctx, CL_MEM_WRITE_ONLY, 512, NULL);
   cl_mem s = kt_sub_buffer(wo, 0, 128, 128);
   assert_int_equal(flags_of(s) & access, CL_MEM_WRITE_ONLY);
   clReleaseMemObject(s);
   s = kt_sub_buffer(wo, CL_MEM_WRITE_ONLY, 128, 128);
   assert_int_equal(flags_of(s) & access, CL_MEM_WRITE_ONLY);
   clReleaseMemObject(s);

   cl_mem ro = kt_buffer(ctx, CL_MEM_READ_ONLY, 512, NULL);
   s = kt_sub_buffer(ro, 0, 0, 128);
   assert_int_equal(flags_of(s) & access, CL_MEM_READ_ONLY);
   clReleaseMemObject(s);

   /* 5.2.2: for a USE_HOST_PTR buffer the sub-buffer's host_ptr is
    * host_ptr + origin. */
   cl_mem use = kt_buffer(ctx, CL_MEM_USE_HOST_PTR, sizeof(host), host);
   s = kt_sub_buffer(use, 0, 384, 128);
   assert_ptr_equal(host_ptr_of(s), host + 384);
   clReleaseMemObject(s);

   clReleaseMemObject(use);
   clReleaseMemObject(ro);
   clReleaseMemObject(wo);
   clReleaseContext(ctx);
}

static void sub_buffer_invalid_buffer(void **state)
{
   (void)state;
   int junk = 0;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   cl_mem parent = kt_buffer(ctx, 0, 1024, NULL);
   cl_mem sub = kt_sub_buffer(parent, 0, 128, 256);
   cl_event ue = kt_user_event(ctx);
   cl_mem released = kt_released_buffer();
   cl_mem bad[] = {NULL,         (cl_mem)&junk, released,     sub, (cl_mem)q, (cl_mem)ctx,
                   (cl_mem)ue,   (cl_mem)kt_device(), (cl_mem)kt_platform()};
   cl_buffer_region r = {0, 64};
   for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
      expect_sub_fails(bad[i], 0, CL_BUFFER_CREATE_TYPE_REGION, &r, CL_INVALID_MEM_OBJECT);
      /* The buffer comes first in the list. */
      expect_sub_fails(bad[i], CL_MEM_USE_HOST_PTR, 0x1234, NULL, CL_INVALID_MEM_OBJECT);
   }
   assert_int_equal(kt_mem_refcount(parent), 1);
   assert_int_equal(kt_mem_refcount(sub), 1);
   clSetUserEventStatus(ue, CL_COMPLETE);
   clReleaseEvent(ue);
   clReleaseMemObject(sub);
   clReleaseMemObject(parent);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

static void sub_buffer_invalid_flags(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   char host[1024];
   cl_mem rw = kt_buffer(ctx, CL_MEM_READ_WRITE, 1024, NULL);
   cl_mem wo = kt_buffer(ctx, CL_MEM_WRITE_ONLY, 1024, NULL);
   cl_mem ro = kt_buffer(ctx, CL_MEM_READ_ONLY, 1024, NULL);
   cl_mem use = kt_buffer(ctx, CL_MEM_USE_HOST_PTR, sizeof(host), host);

   const cl_mem_flags bad[] = {
      CL_MEM_USE_HOST_PTR,
      CL_MEM_ALLOC_HOST_PTR,
      CL_MEM_COPY_HOST_PTR,
      CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
      CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY,
      CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY,
      CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY,
      (cl_mem_flags)1 << 6,
      (cl_mem_flags)1 << 40,
      ~(cl_mem_flags)0,
   };
   for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
      expect_region_fails(rw, bad[i], 0, 128, CL_INVALID_VALUE);
      expect_region_fails(use, bad[i], 0, 128, CL_INVALID_VALUE);
   }
   /* A sub-buffer may not widen its parent's access. */
   expect_region_fails(wo, CL_MEM_READ_WRITE, 0, 128, CL_INVALID_VALUE);
   expect_region_fails(wo, CL_MEM_READ_ONLY, 0, 128, CL_INVALID_VALUE);
   expect_region_fails(ro, CL_MEM_READ_WRITE, 0, 128, CL_INVALID_VALUE);
   expect_region_fails(ro, CL_MEM_WRITE_ONLY, 0, 128, CL_INVALID_VALUE);

   clReleaseMemObject(use);
   clReleaseMemObject(ro);
   clReleaseMemObject(wo);
   clReleaseMemObject(rw);
   clReleaseContext(ctx);
}

static void sub_buffer_invalid_type_and_info(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_mem parent = kt_buffer(ctx, 0, 1024, NULL);
   cl_buffer_region r = {0, 128};
   expect_sub_fails(parent, 0, 0, &r, CL_INVALID_VALUE);
   expect_sub_fails(parent, 0, CL_BUFFER_CREATE_TYPE_REGION + 1, &r, CL_INVALID_VALUE);
   expect_sub_fails(parent, 0, 0xffffffffu, &r, CL_INVALID_VALUE);
   expect_sub_fails(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, NULL, CL_INVALID_VALUE);
   expect_sub_fails(parent, 0, 0, NULL, CL_INVALID_VALUE);
   clReleaseMemObject(parent);
   clReleaseContext(ctx);
}

static void sub_buffer_region_out_of_bounds(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_mem parent = kt_buffer(ctx, 0, 1024, NULL);
   expect_region_fails(parent, 0, 0, 1025, CL_INVALID_VALUE);
   expect_region_fails(parent, 0, 128, 1024 - 127, CL_INVALID_VALUE);
   expect_region_fails(parent, 0, 1024, 1, CL_INVALID_VALUE);
   expect_region_fails(parent, 0, 1024, 128, CL_INVALID_VALUE);
   expect_region_fails(parent, 0, 2048, 128, CL_INVALID_VALUE);
   /* origin + size wraps around: SIZE_MAX - 127 is a multiple of 128. */
   expect_region_fails(parent, 0, SIZE_MAX - 127, 256, CL_INVALID_VALUE);
   expect_region_fails(parent, 0, 128, SIZE_MAX, CL_INVALID_VALUE);
   expect_region_fails(parent, 0, 0, SIZE_MAX, CL_INVALID_VALUE);
   expect_region_fails(parent, 0, SIZE_MAX - 127, 128, CL_INVALID_VALUE);
   clReleaseMemObject(parent);
   clReleaseContext(ctx);
}

static void sub_buffer_size_zero(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_mem parent = kt_buffer(ctx, 0, 1024, NULL);
   expect_region_fails(parent, 0, 0, 0, CL_INVALID_BUFFER_SIZE);
   expect_region_fails(parent, 0, 128, 0, CL_INVALID_BUFFER_SIZE);
   expect_region_fails(parent, CL_MEM_READ_ONLY, 1024, 0, CL_INVALID_BUFFER_SIZE);
   clReleaseMemObject(parent);
   clReleaseContext(ctx);
}

static void sub_buffer_misaligned(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_mem parent = kt_buffer(ctx, 0, 1024, NULL);
   const size_t bad[] = {1, 4, 8, 16, 64, 127, 129, KT_CPU_ALIGN + KT_SMALL_ALIGN};
   for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
      expect_region_fails(parent, 0, bad[i], 64, CL_MISALIGNED_SUB_BUFFER_OFFSET);
   cl_mem ok = kt_sub_buffer(parent, 0, 2 * KT_CPU_ALIGN, 64);
   clReleaseMemObject(ok);
   clReleaseMemObject(parent);
   clReleaseContext(ctx);

   /* Aligned for one device of the context is enough. */
   ctx = kt_two_device_context();
   parent = kt_buffer(ctx, 0, 1024, NULL);
   ok = kt_sub_buffer(parent, 0, KT_SMALL_ALIGN, 64);
   assert_int_equal(offset_of(ok), KT_SMALL_ALIGN);
   clReleaseMemObject(ok);
   expect_region_fails(parent, 0, KT_SMALL_ALIGN / 2, 64, CL_MISALIGNED_SUB_BUFFER_OFFSET);
   expect_region_fails(parent, 0, KT_SMALL_ALIGN + 1, 64, CL_MISALIGNED_SUB_BUFFER_OFFSET);
   clReleaseMemObject(parent);
   clReleaseContext(ctx);
}

static void sub_buffer_error_order(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_mem parent = kt_buffer(ctx, CL_MEM_READ_ONLY, 1024, NULL);
   cl_mem sub = kt_sub_buffer(parent, 0, 0, 256);
   cl_buffer_region zero = {3, 0};
   /* MEM_OBJECT before VALUE. */
   expect_sub_fails(sub, CL_MEM_WRITE_ONLY, 0, NULL, CL_INVALID_MEM_OBJECT);
   /* Flags, then create type, then create info: all VALUE, before
    * BUFFER_SIZE. */
   expect_sub_fails(parent, CL_MEM_WRITE_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &zero,
                    CL_INVALID_VALUE);
   expect_sub_fails(parent, CL_MEM_USE_HOST_PTR, CL_BUFFER_CREATE_TYPE_REGION, &zero,
                    CL_INVALID_VALUE);
   expect_sub_fails(parent, 0, 0, &zero, CL_INVALID_VALUE);
   /* Out of bounds (VALUE) before misalignment; size 0 (BUFFER_SIZE)
    * before misalignment. */
   expect_region_fails(parent, 0, 2048 + 1, 64, CL_INVALID_VALUE);
   expect_region_fails(parent, 0, 1, 1024, CL_INVALID_VALUE);
   expect_region_fails(parent, 0, 3, 0, CL_INVALID_BUFFER_SIZE);
   clReleaseMemObject(sub);
   clReleaseMemObject(parent);
   clReleaseContext(ctx);
}

/* Sub-buffers keep their parent's storage: releasing the parent first
 * leaves them usable, and the parent's destructor callback runs once the
 * last sub-buffer is gone. */
static atomic_int parent_destroyed;

static void CL_CALLBACK count_destructor(cl_mem m, void *data)
{
   (void)m;
   atomic_fetch_add((atomic_int *)data, 1);
}

static void sub_buffer_outlives_parent_release(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   cl_mem parent = kt_buffer(ctx, 0, 1024, NULL);
   kt_write_pattern(q, parent, 1024, 5);
   unsigned char want[1024];
   kt_fill(want, sizeof(want), 5);
   cl_mem sub = kt_sub_buffer(parent, 0, 512, 512);
   atomic_store(&parent_destroyed, 0);
   assert_int_equal(clSetMemObjectDestructorCallback(parent, count_destructor, &parent_destroyed),
                    CL_SUCCESS);
   assert_int_equal(clReleaseMemObject(parent), CL_SUCCESS);
   assert_int_equal(atomic_load(&parent_destroyed), 0);
   /* The parent's handle is gone, its memory is not. */
   assert_int_equal(clRetainMemObject(parent), CL_INVALID_MEM_OBJECT);
   kt_assert_contents(q, sub, want + 512, 512);
   assert_ptr_equal(parent_of(sub), parent);
   assert_int_equal(clReleaseMemObject(sub), CL_SUCCESS);
   kt_wait_counter(&parent_destroyed, 1);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

/* ---- retain / release / info on bad handles ----------------------------- */

static void retain_release_counts(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   unsigned live = kt_live(KILN_TYPE_MEM);
   cl_mem m = kt_buffer(ctx, 0, 64, NULL);
   assert_int_equal(kt_mem_refcount(m), 1);
   assert_int_equal(clRetainMemObject(m), CL_SUCCESS);
   assert_int_equal(clRetainMemObject(m), CL_SUCCESS);
   assert_int_equal(kt_mem_refcount(m), 3);
   assert_int_equal(clReleaseMemObject(m), CL_SUCCESS);
   assert_int_equal(kt_mem_refcount(m), 2);
   cl_mem sub = kt_sub_buffer(m, 0, 0, 32);
   assert_int_equal(clRetainMemObject(sub), CL_SUCCESS);
   assert_int_equal(kt_mem_refcount(sub), 2);
   assert_int_equal(clReleaseMemObject(sub), CL_SUCCESS);
   assert_int_equal(clReleaseMemObject(sub), CL_SUCCESS);
   assert_int_equal(clReleaseMemObject(sub), CL_INVALID_MEM_OBJECT);
   assert_int_equal(clReleaseMemObject(m), CL_SUCCESS);
   assert_int_equal(clReleaseMemObject(m), CL_SUCCESS);
   assert_int_equal(kt_live(KILN_TYPE_MEM), live);
   /* Gone: every entry point refuses it. */
   cl_uint n = 77;
   assert_int_equal(clRetainMemObject(m), CL_INVALID_MEM_OBJECT);
   assert_int_equal(clReleaseMemObject(m), CL_INVALID_MEM_OBJECT);
   assert_int_equal(clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof(n), &n, NULL),
                    CL_INVALID_MEM_OBJECT);
   assert_int_equal(clSetMemObjectDestructorCallback(m, count_destructor, &parent_destroyed),
                    CL_INVALID_MEM_OBJECT);
   assert_int_equal(n, 77);
   assert_int_equal(kt_live(KILN_TYPE_MEM), live);
   clReleaseContext(ctx);
}

static void invalid_mem_everywhere(void **state)
{
   (void)state;
   int junk = 0;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   cl_event ue = kt_user_event(ctx);
   cl_mem released = kt_released_buffer();
   cl_mem bad[] = {NULL, (cl_mem)&junk, released, (cl_mem)ctx, (cl_mem)q, (cl_mem)ue,
                   (cl_mem)kt_device(), (cl_mem)kt_platform()};
   atomic_int calls = 0;
   for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
      cl_mem m = bad[i];
      size_t size = 99, ret = 99;
      assert_int_equal(clRetainMemObject(m), CL_INVALID_MEM_OBJECT);
      assert_int_equal(clReleaseMemObject(m), CL_INVALID_MEM_OBJECT);
      assert_int_equal(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof(size), &size, &ret),
                       CL_INVALID_MEM_OBJECT);
      assert_int_equal(clSetMemObjectDestructorCallback(m, count_destructor, &calls),
                       CL_INVALID_MEM_OBJECT);
      /* MEM_OBJECT is listed before VALUE. */
      assert_int_equal(clSetMemObjectDestructorCallback(m, NULL, NULL), CL_INVALID_MEM_OBJECT);
      assert_int_equal(size, 99);
      assert_int_equal(ret, 99);
   }
   /* Handles passed as memory objects were not touched. */
   assert_int_equal(kt_queue_refcount(q), 1);
   assert_int_equal(kt_event_refcount(ue), 1);
   assert_int_equal(kt_event_status(ue), CL_SUBMITTED);
   assert_int_equal(atomic_load(&calls), 0);
   clSetUserEventStatus(ue, CL_COMPLETE);
   clReleaseEvent(ue);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

/* ---- clGetMemObjectInfo ------------------------------------------------ */

static void info_protocol(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_mem m = kt_buffer(ctx, CL_MEM_READ_ONLY, 512, NULL);
   cl_mem sub = kt_sub_buffer(m, 0, 128, 256);
   const struct {
      cl_mem_info param;
      size_t size;
   } params[] = {
      {CL_MEM_TYPE, sizeof(cl_mem_object_type)}, {CL_MEM_FLAGS, sizeof(cl_mem_flags)},
      {CL_MEM_SIZE, sizeof(size_t)},             {CL_MEM_HOST_PTR, sizeof(void *)},
      {CL_MEM_MAP_COUNT, sizeof(cl_uint)},       {CL_MEM_REFERENCE_COUNT, sizeof(cl_uint)},
      {CL_MEM_CONTEXT, sizeof(cl_context)},      {CL_MEM_ASSOCIATED_MEMOBJECT, sizeof(cl_mem)},
      {CL_MEM_OFFSET, sizeof(size_t)},
   };
   for (size_t i = 0; i < ARRAY_SIZE(params); i++) {
      kt_check_info(kt_mem_info, m, params[i].param, params[i].size);
      kt_check_info(kt_mem_info, sub, params[i].param, params[i].size);
   }
   clReleaseMemObject(sub);
   clReleaseMemObject(m);
   clReleaseContext(ctx);
}

static void info_invalid_param(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_mem m = kt_buffer(ctx, 0, 64, NULL);
   unsigned char buf[64];
   /* 0x1109 (CL_MEM_USES_SVM_POINTER) and 0x110A (CL_MEM_PROPERTIES) are
    * 3.0 queries now; 0x110B names nothing. */
   const cl_uint bad[] = {0, CL_MEM_TYPE - 1, 0x110B, 0xdead,
                          CL_IMAGE_FORMAT, CL_EVENT_CONTEXT, CL_CONTEXT_DEVICES};
   for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
      size_t ret = 1234;
      memset(buf, 0xA5, sizeof(buf));
      assert_int_equal(clGetMemObjectInfo(m, bad[i], sizeof(buf), buf, &ret), CL_INVALID_VALUE);
      assert_int_equal(clGetMemObjectInfo(m, bad[i], 0, NULL, &ret), CL_INVALID_VALUE);
      for (size_t j = 0; j < sizeof(buf); j++)
         assert_int_equal(buf[j], 0xA5);
   }
   clReleaseMemObject(m);
   clReleaseContext(ctx);
}

/* 1.1 5.4.3 lists CL_INVALID_VALUE (bad param_name) before
 * CL_INVALID_MEM_OBJECT. */
static void info_error_order(void **state)
{
   (void)state;
   int junk = 0;
   size_t v;
   cl_int e1 = clGetMemObjectInfo((cl_mem)&junk, 0xdead, sizeof(v), &v, NULL);
   cl_int e2 = clGetMemObjectInfo(NULL, 0xdead, sizeof(v), &v, NULL);
   assert_int_equal(e1, CL_INVALID_VALUE);
   assert_int_equal(e2, CL_INVALID_VALUE);
}

/* ---- clCreatePipe (the CPU device has pipes) ----------------------------- */

/* What the pipe builtins find at creation (include/kiln/pipe_layout.h):
 * the shape, every counter and mark zero, the packets after them at a
 * 128-byte boundary, nothing past the last packet. */
static void pipe_header_written(void **state)
{
   (void)state;
   cl_int err;
   cl_mem p = clCreatePipe(kt_context(), 0, 12, 1000, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_non_null(p);
   assert_int_equal(size_of(p), KILN_PIPE_DATA_OFFSET(1000) + 12 * 1000);
   assert_int_equal(KILN_PIPE_DATA_OFFSET(1000) % KILN_PIPE_DATA_ALIGN, 0);
   assert_true(KILN_PIPE_DATA_OFFSET(1000) >= sizeof(struct kiln_pipe_header) + 2 * 1000);
   assert_int_equal(flags_of(p), CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS);
   const unsigned char *bytes = kiln_resource_host_pointer(p->store[0].res);
   assert_non_null(bytes);
   struct kiln_pipe_header h;
   memcpy(&h, bytes, sizeof(h));
   assert_int_equal(h.packet_size, 12);
   assert_int_equal(h.max_packets, 1000);
   assert_int_equal(h.lock, 0);
   assert_true(!h.write_reserved && !h.write_committed && !h.read_reserved &&
               !h.read_committed);
   for (size_t i = sizeof(h); i < sizeof(h) + 2 * 1000; i++)
      assert_int_equal(bytes[i], 0);
   assert_int_equal(clReleaseMemObject(p), CL_SUCCESS);
}

/* 3.0's order: context, no device with pipes, flags, properties, sizes. */
static void pipe_error_order(void **state)
{
   (void)state;
   cl_int err = 0;
   const cl_pipe_properties props[] = {0};
   assert_null(clCreatePipe(NULL, CL_MEM_READ_ONLY, 0, 0, props, &err));
   assert_int_equal(err, CL_INVALID_CONTEXT);
   assert_null(clCreatePipe(kt_released_context(), 0, 4, 4, NULL, &err));
   assert_int_equal(err, CL_INVALID_CONTEXT);
   assert_null(clCreatePipe(kt_context(), CL_MEM_READ_ONLY, 0, 0, props, &err));
   assert_int_equal(err, CL_INVALID_VALUE);
   assert_null(clCreatePipe(kt_context(), 0, 0, 0, props, &err));
   assert_int_equal(err, CL_INVALID_VALUE);
   assert_null(clCreatePipe(kt_context(), 0, 0, 0, NULL, &err));
   assert_int_equal(err, CL_INVALID_PIPE_SIZE);
   /* A pipe is no buffer: no sub-buffer of it, no pipe info of a buffer. */
   cl_mem p = clCreatePipe(kt_context(), CL_MEM_HOST_NO_ACCESS, 4, 4, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   cl_buffer_region r = {0, 4};
   assert_null(clCreateSubBuffer(p, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err));
   assert_int_equal(err, CL_INVALID_MEM_OBJECT);
   cl_mem b = kt_buffer(kt_context(), CL_MEM_READ_WRITE, 64, NULL);
   cl_uint u;
   assert_int_equal(clGetPipeInfo(b, CL_PIPE_MAX_PACKETS, sizeof(u), &u, NULL),
                    CL_INVALID_MEM_OBJECT);
   assert_int_equal(clGetPipeInfo(p, CL_PIPE_MAX_PACKETS, sizeof(u), &u, NULL), CL_SUCCESS);
   assert_int_equal(u, 4);
   clReleaseMemObject(b);
   clReleaseMemObject(p);
}

/* ---- clSetMemObjectDestructorCallback ----------------------------------- */

static int order_log[8];
static atomic_int order_n;
static cl_mem order_mem;

static void CL_CALLBACK log_destructor(cl_mem m, void *data)
{
   /* The memory object is passed; it may not be used any more. */
   if (m != order_mem)
      order_log[7] = -1;
   int i = atomic_fetch_add(&order_n, 1);
   if (i < 7)
      order_log[i] = (int)(intptr_t)data;
}

static void destructor_reverse_order(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_mem m = kt_buffer(ctx, 0, 64, NULL);
   order_mem = m;
   atomic_store(&order_n, 0);
   memset(order_log, 0, sizeof(order_log));
   for (intptr_t i = 1; i <= 3; i++)
      assert_int_equal(clSetMemObjectDestructorCallback(m, log_destructor, (void *)i),
                       CL_SUCCESS);
   /* A failed registration registers nothing. */
   assert_int_equal(clSetMemObjectDestructorCallback(m, NULL, (void *)9), CL_INVALID_VALUE);
   assert_int_equal(clRetainMemObject(m), CL_SUCCESS);
   assert_int_equal(clReleaseMemObject(m), CL_SUCCESS);
   assert_int_equal(atomic_load(&order_n), 0);
   assert_int_equal(clReleaseMemObject(m), CL_SUCCESS);
   kt_wait_counter(&order_n, 3);
   assert_int_equal(order_log[0], 3);
   assert_int_equal(order_log[1], 2);
   assert_int_equal(order_log[2], 1);
   assert_int_equal(order_log[7], 0);
   clReleaseContext(ctx);
}

static void destructor_waits_for_commands(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   cl_mem m = kt_buffer(ctx, 0, 64, NULL);
   cl_event gate = kt_user_event(ctx);
   unsigned char data[64];
   kt_fill(data, sizeof(data), 4);
   atomic_int destroyed = 0;
   assert_int_equal(clSetMemObjectDestructorCallback(m, count_destructor, &destroyed),
                    CL_SUCCESS);
   cl_event wr = NULL;
   assert_int_equal(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, sizeof(data), data, 1, &gate, &wr),
                    CL_SUCCESS);
   /* "deleted once ... commands queued ... that use memobj have
    * finished": the pending write keeps it. */
   assert_int_equal(clReleaseMemObject(m), CL_SUCCESS);
   struct timespec ts = {0, 20 * 1000 * 1000};
   nanosleep(&ts, NULL);
   assert_int_equal(atomic_load(&destroyed), 0);
   assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
   assert_int_equal(clWaitForEvents(1, &wr), CL_SUCCESS);
   assert_int_equal(clFinish(q), CL_SUCCESS);
   kt_wait_counter(&destroyed, 1);
   clReleaseEvent(wr);
   clReleaseEvent(gate);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(create_buffer_each_flag_set),
      cmocka_unit_test(create_buffer_host_ptr_data),
      cmocka_unit_test(create_buffer_invalid_context),
      cmocka_unit_test(create_buffer_invalid_flags),
      cmocka_unit_test(create_buffer_invalid_size),
      cmocka_unit_test(create_buffer_size_limit_is_per_context),
      cmocka_unit_test(create_buffer_invalid_host_ptr),
      cmocka_unit_test(create_buffer_error_order),
      cmocka_unit_test(sub_buffer_values_and_data),
      cmocka_unit_test(sub_buffer_inherits_access_and_host_ptr),
      cmocka_unit_test(sub_buffer_invalid_buffer),
      cmocka_unit_test(sub_buffer_invalid_flags),
      cmocka_unit_test(sub_buffer_invalid_type_and_info),
      cmocka_unit_test(sub_buffer_region_out_of_bounds),
      cmocka_unit_test(sub_buffer_size_zero),
      cmocka_unit_test(sub_buffer_misaligned),
      cmocka_unit_test(sub_buffer_error_order),
      cmocka_unit_test(sub_buffer_outlives_parent_release),
      cmocka_unit_test(retain_release_counts),
      cmocka_unit_test(invalid_mem_everywhere),
      cmocka_unit_test(info_protocol),
      cmocka_unit_test(info_invalid_param),
      cmocka_unit_test(info_error_order),
      cmocka_unit_test(pipe_header_written),
      cmocka_unit_test(pipe_error_order),
      cmocka_unit_test(destructor_reverse_order),
      cmocka_unit_test(destructor_waits_for_commands),
   };
   return cmocka_run_group_tests_name("mem", tests, NULL, NULL);
}
