#include "kiln_test_mem.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "core/device.h"

cl_device_id kt_small_device(void)
{
   static struct pipe_screen screen;
   static cl_device_id dev;
   if (!dev) {
      screen = *kt_device()->screen;
      screen.caps.mem_base_addr_align = KT_SMALL_ALIGN * 8;
      screen.caps.max_mem_alloc_size = KT_SMALL_MAX_ALLOC;
      dev = kiln_device_create(kt_platform(), &screen);
      assert_non_null(dev);
   }
   return dev;
}

cl_context kt_two_device_context(void)
{
   cl_device_id devs[2] = {kt_device(), kt_small_device()};
   cl_int err = -12345;
   cl_context ctx = clCreateContext(NULL, 2, devs, NULL, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_non_null(ctx);
   return ctx;
}

cl_mem kt_buffer(cl_context ctx, cl_mem_flags flags, size_t size, void *host_ptr)
{
   cl_int err = -12345;
   cl_mem m = clCreateBuffer(ctx, flags, size, host_ptr, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_non_null(m);
   return m;
}

cl_mem kt_sub_buffer(cl_mem parent, cl_mem_flags flags, size_t origin, size_t size)
{
   cl_buffer_region r = {origin, size};
   cl_int err = -12345;
   cl_mem m = clCreateSubBuffer(parent, flags, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_non_null(m);
   return m;
}

cl_event kt_user_event(cl_context ctx)
{
   cl_int err = -12345;
   cl_event e = clCreateUserEvent(ctx, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_non_null(e);
   return e;
}

cl_mem kt_released_buffer(void)
{
   cl_context ctx = kt_context();
   cl_mem m = kt_buffer(ctx, 0, 64, NULL);
   assert_int_equal(clReleaseMemObject(m), CL_SUCCESS);
   assert_int_equal(clReleaseContext(ctx), CL_SUCCESS);
   return m;
}

cl_event kt_released_event(void)
{
   cl_context ctx = kt_context();
   cl_event e = kt_user_event(ctx);
   assert_int_equal(clSetUserEventStatus(e, CL_COMPLETE), CL_SUCCESS);
   assert_int_equal(clReleaseEvent(e), CL_SUCCESS);
   assert_int_equal(clReleaseContext(ctx), CL_SUCCESS);
   return e;
}

cl_int kt_mem_info(const void *h, cl_uint p, size_t s, void *v, size_t *r)
{
   return clGetMemObjectInfo((cl_mem)h, p, s, v, r);
}

cl_int kt_event_info(const void *h, cl_uint p, size_t s, void *v, size_t *r)
{
   return clGetEventInfo((cl_event)h, p, s, v, r);
}

cl_int kt_profiling_info(const void *h, cl_uint p, size_t s, void *v, size_t *r)
{
   return clGetEventProfilingInfo((cl_event)h, p, s, v, r);
}

cl_uint kt_mem_refcount(cl_mem m)
{
   cl_uint n = 0;
   assert_int_equal(clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof(n), &n, NULL),
                    CL_SUCCESS);
   return n;
}

cl_uint kt_map_count(cl_mem m)
{
   cl_uint n = 0xdead;
   assert_int_equal(clGetMemObjectInfo(m, CL_MEM_MAP_COUNT, sizeof(n), &n, NULL), CL_SUCCESS);
   return n;
}

cl_uint kt_event_refcount(cl_event e)
{
   cl_uint n = 0;
   assert_int_equal(clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT, sizeof(n), &n, NULL),
                    CL_SUCCESS);
   return n;
}

cl_uint kt_queue_refcount(cl_command_queue q)
{
   cl_uint n = 0;
   assert_int_equal(clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof(n), &n, NULL),
                    CL_SUCCESS);
   return n;
}

cl_int kt_event_status(cl_event e)
{
   cl_int s = 0x7777;
   assert_int_equal(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(s), &s, NULL),
                    CL_SUCCESS);
   return s;
}

cl_command_type kt_event_type(cl_event e)
{
   cl_command_type t = 0;
   assert_int_equal(clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, sizeof(t), &t, NULL), CL_SUCCESS);
   return t;
}

void kt_fill(unsigned char *buf, size_t n, unsigned seed)
{
   for (size_t i = 0; i < n; i++)
      buf[i] = kt_pat(seed, i);
}

void kt_write_pattern(cl_command_queue q, cl_mem m, size_t size, unsigned seed)
{
   unsigned char *buf = malloc(size);
   assert_non_null(buf);
   kt_fill(buf, size, seed);
   assert_int_equal(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, size, buf, 0, NULL, NULL),
                    CL_SUCCESS);
   free(buf);
}

void kt_assert_contents(cl_command_queue q, cl_mem m, const unsigned char *want, size_t size)
{
   unsigned char *buf = malloc(size);
   assert_non_null(buf);
   memset(buf, 0x5a, size);
   assert_int_equal(clEnqueueReadBuffer(q, m, CL_TRUE, 0, size, buf, 0, NULL, NULL), CL_SUCCESS);
   for (size_t i = 0; i < size; i++)
      if (buf[i] != want[i])
         fail_msg("byte %zu of the buffer is 0x%02x, want 0x%02x", i, buf[i], want[i]);
   free(buf);
}

void kt_wait_counter(volatile _Atomic int *counter, int want)
{
   for (int i = 0; i < 5000; i++) {
      if (atomic_load(counter) >= want)
         break;
      struct timespec ts = {0, 1000 * 1000};
      nanosleep(&ts, NULL);
   }
   assert_int_equal(atomic_load(counter), want);
}
