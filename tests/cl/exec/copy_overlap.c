/* clEnqueueCopyBuffer / clEnqueueCopyBufferRect and CL_MEM_COPY_OVERLAP:
 * within one buffer, and between sub-buffers of one buffer (1.1, 5.2.2).
 * Copies that touch but do not share a byte must succeed and move the
 * right data. */
#include <stdlib.h>
#include <string.h>

#include "kt.h"

static size_t align;

static void check_contents(struct kt_env *env, cl_mem m, const unsigned char *want, size_t size,
                           const char *what)
{
   unsigned char *got = malloc(size);
   REQUIRE(got);
   CHECK_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, size, got, 0, NULL, NULL));
   CHECK(kt_same(got, want, size, what));
   free(got);
}

static void same_buffer(struct kt_env *env)
{
   enum { N = 1024 };
   unsigned char b0[N], want[N];
   kt_fill(b0, N, 60);
   memcpy(want, b0, N);
   cl_mem m = kt_buffer(env->context, CL_MEM_COPY_HOST_PTR, N, b0);
   cl_command_queue q = env->queue;
   cl_event ev = NULL;
   CHECK_ERR(clEnqueueCopyBuffer(q, m, m, 0, 0, 16, 0, NULL, &ev), CL_MEM_COPY_OVERLAP);
   CHECK(ev == NULL);
   CHECK_ERR(clEnqueueCopyBuffer(q, m, m, 0, 15, 16, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
   CHECK_ERR(clEnqueueCopyBuffer(q, m, m, 15, 0, 16, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
   CHECK_ERR(clEnqueueCopyBuffer(q, m, m, 100, 50, 51, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
   CHECK_ERR(clEnqueueCopyBuffer(q, m, m, 0, 1, N - 1, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
   /* Adjacent ranges do not overlap. */
   CHECK_OK(clEnqueueCopyBuffer(q, m, m, 0, 16, 16, 0, NULL, NULL));
   memcpy(want + 16, want, 16);
   CHECK_OK(clEnqueueCopyBuffer(q, m, m, 600, 100, 400, 0, NULL, &ev));
   memcpy(want + 100, want + 600, 400);
   CHECK_OK(clWaitForEvents(1, &ev));
   cl_command_type t = 0;
   CHECK_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(t), &t, NULL));
   CHECK(t == CL_COMMAND_COPY_BUFFER);
   CHECK_OK(clReleaseEvent(ev));
   check_contents(env, m, want, N, "copies within one buffer");

   /* Range errors come before the overlap test's result matters. */
   CHECK_ERR(clEnqueueCopyBuffer(q, m, m, N - 8, 0, 16, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueCopyBuffer(q, m, m, 0, 0, 0, 0, NULL, NULL), CL_INVALID_VALUE);

   /* Rect copies in one buffer.  Rows of 32 bytes, 8x8 boxes. */
   size_t region[3] = {8, 8, 1};
   size_t a[3] = {0, 0, 0}, b[3] = {4, 4, 0}, c[3] = {8, 0, 0}, d[3] = {0, 8, 0};
   CHECK_ERR(clEnqueueCopyBufferRect(q, m, m, a, a, region, 32, 0, 32, 0, 0, NULL, NULL),
             CL_MEM_COPY_OVERLAP);
   CHECK_ERR(clEnqueueCopyBufferRect(q, m, m, a, b, region, 32, 0, 32, 0, 0, NULL, NULL),
             CL_MEM_COPY_OVERLAP);
   CHECK_ERR(clEnqueueCopyBufferRect(q, m, m, b, a, region, 32, 0, 32, 0, 0, NULL, NULL),
             CL_MEM_COPY_OVERLAP);
   /* Side by side and one under the other: disjoint. */
   CHECK_OK(clEnqueueCopyBufferRect(q, m, m, a, c, region, 32, 0, 32, 0, 0, NULL, NULL));
   for (int y = 0; y < 8; y++)
      memcpy(want + y * 32 + 8, want + y * 32, 8);
   CHECK_OK(clEnqueueCopyBufferRect(q, m, m, d, a, region, 32, 0, 32, 0, 0, NULL, NULL));
   for (int y = 0; y < 8; y++)
      memcpy(want + y * 32, want + (8 + y) * 32, 8);
   check_contents(env, m, want, N, "disjoint rect copies within one buffer");
   /* 3D: slices overlap only in z. */
   size_t r3[3] = {4, 4, 2}, z0[3] = {0, 0, 0}, z1[3] = {0, 0, 1}, z2[3] = {0, 0, 2};
   CHECK_ERR(clEnqueueCopyBufferRect(q, m, m, z0, z1, r3, 16, 64, 16, 64, 0, NULL, NULL),
             CL_MEM_COPY_OVERLAP);
   CHECK_OK(clEnqueueCopyBufferRect(q, m, m, z0, z2, r3, 16, 64, 16, 64, 0, NULL, NULL));
   CHECK_OK(clFinish(q));
   CHECK_OK(clReleaseMemObject(m));
}

static cl_mem sub(cl_mem p, size_t origin, size_t size)
{
   cl_buffer_region r = {origin, size};
   cl_int err;
   cl_mem s = clCreateSubBuffer(p, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
   REQUIRE(s, " sub-buffer %zu+%zu: %s", origin, size, kt_err_name(err));
   return s;
}

static void sub_buffers(struct kt_env *env)
{
   size_t size = 8 * align;
   unsigned char *b0 = malloc(size), *want = malloc(size);
   REQUIRE(b0 && want);
   kt_fill(b0, size, 61);
   memcpy(want, b0, size);
   cl_mem p = kt_buffer(env->context, CL_MEM_COPY_HOST_PTR, size, b0);
   /* s1 = [align, 3 align), s2 = [2 align, 4 align): they share
    * [2 align, 3 align).  s3 = [4 align, 5 align) shares nothing. */
   cl_mem s1 = sub(p, align, 2 * align), s2 = sub(p, 2 * align, 2 * align),
          s3 = sub(p, 4 * align, align);
   cl_command_queue q = env->queue;

   /* s1[align..] is s2[0..]: overlap. */
   CHECK_ERR(clEnqueueCopyBuffer(q, s1, s2, align, 0, 16, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
   CHECK_ERR(clEnqueueCopyBuffer(q, s2, s1, 0, align + 8, 16, 0, NULL, NULL),
             CL_MEM_COPY_OVERLAP);
   /* The same sub-buffer on both sides. */
   CHECK_ERR(clEnqueueCopyBuffer(q, s1, s1, 0, 4, 16, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
   /* Overlapping sub-buffers, but these bytes are distinct. */
   CHECK_OK(clEnqueueCopyBuffer(q, s1, s2, 0, align, 32, 0, NULL, NULL));
   memcpy(want + 3 * align, want + align, 32);
   CHECK_OK(clEnqueueCopyBuffer(q, s2, s1, align, 0, 16, 0, NULL, NULL));
   memcpy(want + align, want + 3 * align, 16);
   CHECK_OK(clEnqueueCopyBuffer(q, s3, s1, 0, 100, align, 0, NULL, NULL));
   memcpy(want + align + 100, want + 4 * align, align);
   check_contents(env, p, want, size, "copies between sub-buffers of one buffer");

   /* Rect copies between overlapping sub-buffers: rows of 16 in the
    * shared window. */
   size_t region[3] = {8, 4, 1}, o_in_s1[3] = {0, align / 16, 0}, zero[3] = {0, 0, 0};
   if (align >= 64) {
      CHECK_ERR(clEnqueueCopyBufferRect(q, s1, s2, o_in_s1, zero, region, 16, 0, 16, 0, 0,
                                        NULL, NULL),
                CL_MEM_COPY_OVERLAP);
      size_t shifted[3] = {8, 0, 0};
      CHECK_OK(clEnqueueCopyBufferRect(q, s1, s2, o_in_s1, shifted, region, 16, 0, 16, 0, 0,
                                       NULL, NULL));
      for (int y = 0; y < 4; y++)
         memcpy(want + 2 * align + y * 16 + 8, want + 2 * align + y * 16, 8);
      check_contents(env, p, want, size, "rect copy between overlapping sub-buffers");
   }
   CHECK_OK(clFinish(q));
   CHECK_OK(clReleaseMemObject(s1));
   CHECK_OK(clReleaseMemObject(s2));
   CHECK_OK(clReleaseMemObject(s3));
   CHECK_OK(clReleaseMemObject(p));
   free(b0);
   free(want);
}

static void errors(struct kt_env *env)
{
   cl_mem a = kt_buffer(env->context, 0, 64, NULL), b = kt_buffer(env->context, 0, 64, NULL);
   cl_command_queue q = env->queue;
   CHECK_ERR(clEnqueueCopyBuffer(q, a, b, 0, 0, 65, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueCopyBuffer(q, a, b, 1, 0, 64, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueCopyBuffer(q, a, b, 0, 1, 64, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueCopyBuffer(q, a, b, SIZE_MAX, 0, 2, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueCopyBuffer(q, NULL, b, 0, 0, 4, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
   CHECK_ERR(clEnqueueCopyBuffer(q, a, NULL, 0, 0, 4, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
   CHECK_ERR(clEnqueueCopyBuffer(NULL, a, b, 0, 0, 4, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
   CHECK_ERR(clEnqueueCopyBuffer(q, a, b, 0, 0, 4, 1, NULL, NULL), CL_INVALID_EVENT_WAIT_LIST);
   CHECK_OK(clReleaseMemObject(a));
   CHECK_OK(clReleaseMemObject(b));
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   align = kt_device_uint(env.device, CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8;
   same_buffer(&env);
   sub_buffers(&env);
   errors(&env);
   kt_teardown(&env);
   return kt_result();
}
