#include "kiln_test.h"

#include <stdlib.h>

cl_platform_id kt_platform(void)
{
   cl_platform_id p = NULL;
   cl_uint n = 0;
   assert_int_equal(clGetPlatformIDs(1, &p, &n), CL_SUCCESS);
   assert_int_equal(n, 1);
   assert_non_null(p);
   return p;
}

cl_device_id kt_device(void)
{
   cl_device_id d = NULL;
   assert_int_equal(clGetDeviceIDs(kt_platform(), CL_DEVICE_TYPE_CPU, 1, &d, NULL), CL_SUCCESS);
   assert_non_null(d);
   return d;
}

cl_context kt_context(void)
{
   cl_device_id d = kt_device();
   cl_int err = -12345;
   cl_context ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_non_null(ctx);
   return ctx;
}

cl_command_queue kt_queue(cl_context ctx, cl_command_queue_properties props)
{
   cl_int err = -12345;
   cl_command_queue q = clCreateCommandQueue(ctx, kt_device(), props, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_non_null(q);
   return q;
}

cl_context kt_released_context(void)
{
   cl_context ctx = kt_context();
   assert_int_equal(clReleaseContext(ctx), CL_SUCCESS);
   return ctx;
}

cl_command_queue kt_released_queue(void)
{
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   assert_int_equal(clReleaseCommandQueue(q), CL_SUCCESS);
   assert_int_equal(clReleaseContext(ctx), CL_SUCCESS);
   return q;
}

cl_int kt_platform_info(const void *h, cl_uint p, size_t s, void *v, size_t *r)
{
   return clGetPlatformInfo((cl_platform_id)h, p, s, v, r);
}

cl_int kt_device_info(const void *h, cl_uint p, size_t s, void *v, size_t *r)
{
   return clGetDeviceInfo((cl_device_id)h, p, s, v, r);
}

cl_int kt_context_info(const void *h, cl_uint p, size_t s, void *v, size_t *r)
{
   return clGetContextInfo((cl_context)h, p, s, v, r);
}

cl_int kt_queue_info(const void *h, cl_uint p, size_t s, void *v, size_t *r)
{
   return clGetCommandQueueInfo((cl_command_queue)h, p, s, v, r);
}

/* Bytes never written by a query; a changed one means an overrun or a
 * write on an error path. */
#define POISON 0xA5
#define SLACK 32

static void assert_poisoned(const unsigned char *buf, size_t from, size_t to)
{
   for (size_t i = from; i < to; i++)
      if (buf[i] != POISON)
         fail_msg("byte %zu of the buffer was written (0x%02x)", i, buf[i]);
}

size_t kt_check_info(kt_info_fn fn, const void *handle, cl_uint param, size_t want_size)
{
   size_t size = 0;
   assert_int_equal(fn(handle, param, 0, NULL, &size), CL_SUCCESS);
   if (want_size)
      assert_int_equal(size, want_size);
   else
      assert_true(size > 0);

   unsigned char *buf = malloc(size + SLACK);
   assert_non_null(buf);

   /* Exact size: filled, nothing beyond. */
   memset(buf, POISON, size + SLACK);
   size_t ret = 0;
   assert_int_equal(fn(handle, param, size, buf, &ret), CL_SUCCESS);
   assert_int_equal(ret, size);
   assert_poisoned(buf, size, size + SLACK);

   /* A bigger buffer is fine; the size returned stays the real one. */
   memset(buf, POISON, size + SLACK);
   ret = 0;
   assert_int_equal(fn(handle, param, size + SLACK, buf, &ret), CL_SUCCESS);
   assert_int_equal(ret, size);

   /* One byte short, and zero bytes: CL_INVALID_VALUE, nothing written. */
   memset(buf, POISON, size + SLACK);
   assert_int_equal(fn(handle, param, size - 1, buf, NULL), CL_INVALID_VALUE);
   assert_poisoned(buf, 0, size + SLACK);
   assert_int_equal(fn(handle, param, 0, buf, &ret), CL_INVALID_VALUE);
   assert_poisoned(buf, 0, size + SLACK);

   /* Both outputs NULL: nothing to do, and not an error. */
   assert_int_equal(fn(handle, param, 0, NULL, NULL), CL_SUCCESS);
   /* Value without size_ret. */
   assert_int_equal(fn(handle, param, size, buf, NULL), CL_SUCCESS);

   free(buf);
   return size;
}

char *kt_info_string(kt_info_fn fn, const void *handle, cl_uint param)
{
   size_t size = kt_check_info(fn, handle, param, 0);
   char *s = malloc(size);
   assert_non_null(s);
   size_t ret = 0;
   assert_int_equal(fn(handle, param, size, s, &ret), CL_SUCCESS);
   assert_int_equal(ret, size);
   assert_int_equal(s[size - 1], '\0');
   assert_int_equal(strlen(s), size - 1);
   return s;
}

void kt_info_value(kt_info_fn fn, const void *handle, cl_uint param, void *out, size_t size)
{
   kt_check_info(fn, handle, param, size);
   size_t ret = 0;
   assert_int_equal(fn(handle, param, size, out, &ret), CL_SUCCESS);
   assert_int_equal(ret, size);
}

bool kt_has_word(const char *list, const char *word)
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
