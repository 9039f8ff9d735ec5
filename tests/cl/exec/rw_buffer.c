/* clEnqueueReadBuffer / clEnqueueWriteBuffer (5.2.2): blocking and
 * non-blocking, offsets, the events they return, argument errors. */
#include <stdlib.h>
#include <string.h>

#include "kt.h"

#define N (1 << 20)

static void check_event(cl_event ev, cl_command_queue q, cl_context ctx, cl_command_type type)
{
   cl_command_queue eq = NULL;
   cl_context ec = NULL;
   cl_command_type et = 0;
   cl_uint refs = 0;
   CHECK_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_QUEUE, sizeof(eq), &eq, NULL));
   CHECK(eq == q);
   CHECK_OK(clGetEventInfo(ev, CL_EVENT_CONTEXT, sizeof(ec), &ec, NULL));
   CHECK(ec == ctx);
   CHECK_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(et), &et, NULL));
   CHECK(et == type, " command type 0x%x, expected 0x%x", et, type);
   CHECK_OK(clGetEventInfo(ev, CL_EVENT_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
   CHECK(refs >= 1);
}

static void blocking(struct kt_env *env)
{
   unsigned char *src = malloc(N), *dst = malloc(N);
   REQUIRE(src && dst);
   kt_fill(src, N, 40);
   cl_mem m = kt_buffer(env->context, 0, N, NULL);
   cl_event w, r;
   CHECK_OK(clEnqueueWriteBuffer(env->queue, m, CL_TRUE, 0, N, src, 0, NULL, &w));
   /* A blocking write has copied ptr when it returns: reuse it at once. */
   unsigned char first = src[0];
   memset(src, 0, N);
   CHECK(kt_status(w) == CL_COMPLETE, " blocking write returned before completing");
   check_event(w, env->queue, env->context, CL_COMMAND_WRITE_BUFFER);
   CHECK_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, N, dst, 0, NULL, &r));
   CHECK(kt_status(r) == CL_COMPLETE, " blocking read returned before completing");
   check_event(r, env->queue, env->context, CL_COMMAND_READ_BUFFER);
   kt_fill(src, N, 40);
   CHECK(src[0] == first);
   CHECK(kt_same(dst, src, N, "blocking write then blocking read"));

   /* Partial ranges at odd offsets. */
   unsigned char part[1000], want[1000];
   kt_fill(part, sizeof(part), 41);
   CHECK_OK(clEnqueueWriteBuffer(env->queue, m, CL_TRUE, 12345, sizeof(part), part, 0, NULL,
                                 NULL));
   memcpy(src + 12345, part, sizeof(part));
   CHECK_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 12000, sizeof(want), want, 0, NULL,
                                NULL));
   CHECK(kt_same(want, src + 12000, sizeof(want), "partial read after partial write"));
   CHECK_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, N - 1, 1, want, 0, NULL, NULL));
   CHECK(want[0] == src[N - 1]);

   CHECK_OK(clReleaseEvent(w));
   CHECK_OK(clReleaseEvent(r));
   CHECK_OK(clReleaseMemObject(m));
   free(src);
   free(dst);
}

/* Non-blocking transfers held back by a user event: nothing moves until
 * it completes, then both complete with the right data. */
static void non_blocking(struct kt_env *env, cl_command_queue q)
{
   unsigned char *src = malloc(N), *dst = malloc(N), *want = malloc(N);
   REQUIRE(src && dst && want);
   kt_fill(src, N, 42);
   memcpy(want, src, N);
   memset(dst, 0xcd, N);
   cl_mem m = kt_buffer(env->context, 0, N, NULL);
   cl_event gate = kt_user_event(env->context), w, r;
   CHECK_OK(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, N, src, 1, &gate, &w));
   CHECK_OK(clEnqueueReadBuffer(q, m, CL_FALSE, 0, N, dst, 1, &w, &r));
   CHECK_PENDING(w, 20);
   CHECK_PENDING(r, 0);
   for (size_t i = 0; i < N; i += 4096)
      CHECK(dst[i] == 0xcd, " read destination changed at %zu before its command ran", i);
   CHECK_OK(clSetUserEventStatus(gate, CL_COMPLETE));
   CHECK_OK(clWaitForEvents(1, &r));
   CHECK(kt_status(w) == CL_COMPLETE && kt_status(r) == CL_COMPLETE);
   CHECK(kt_same(dst, want, N, "non-blocking write then read"));

   /* A blocking read after non-blocking writes on an in-order queue sees
    * them all without an explicit wait. */
   if (q == env->queue) {
      for (int i = 0; i < 8; i++) {
         memset(src + i * 1024, i + 1, 1024);
         CHECK_OK(clEnqueueWriteBuffer(q, m, CL_FALSE, (size_t)i * 1024, 1024, src + i * 1024,
                                       0, NULL, NULL));
      }
      CHECK_OK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, 8 * 1024, dst, 0, NULL, NULL));
      CHECK(kt_same(dst, src, 8 * 1024, "in-order: blocking read after non-blocking writes"));
   }
   CHECK_OK(clFinish(q));
   CHECK_OK(clReleaseEvent(w));
   CHECK_OK(clReleaseEvent(r));
   CHECK_OK(clReleaseEvent(gate));
   CHECK_OK(clReleaseMemObject(m));
   free(src);
   free(dst);
   free(want);
}

static void errors(struct kt_env *env)
{
   unsigned char buf[64];
   cl_mem m = kt_buffer(env->context, 0, 64, NULL);
   cl_command_queue q = env->queue;
   cl_event ev = NULL;
   CHECK_ERR(clEnqueueReadBuffer(q, m, CL_TRUE, 0, 65, buf, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueReadBuffer(q, m, CL_TRUE, 64, 1, buf, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueReadBuffer(q, m, CL_TRUE, SIZE_MAX, 2, buf, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueWriteBuffer(q, m, CL_TRUE, 1, SIZE_MAX, buf, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueReadBuffer(q, m, CL_TRUE, 0, 8, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, 8, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueReadBuffer(NULL, m, CL_TRUE, 0, 8, buf, 0, NULL, NULL),
             CL_INVALID_COMMAND_QUEUE);
   CHECK_ERR(clEnqueueReadBuffer(q, NULL, CL_TRUE, 0, 8, buf, 0, NULL, NULL),
             CL_INVALID_MEM_OBJECT);
   CHECK_ERR(clEnqueueWriteBuffer(q, (cl_mem)q, CL_TRUE, 0, 8, buf, 0, NULL, NULL),
             CL_INVALID_MEM_OBJECT);
   CHECK_ERR(clEnqueueReadBuffer(q, m, CL_TRUE, 0, 8, buf, 1, NULL, NULL),
             CL_INVALID_EVENT_WAIT_LIST);
   cl_event dummy = kt_user_event(env->context);
   CHECK_ERR(clEnqueueReadBuffer(q, m, CL_TRUE, 0, 8, buf, 0, &dummy, NULL),
             CL_INVALID_EVENT_WAIT_LIST);
   cl_event bogus = (cl_event)m;
   CHECK_ERR(clEnqueueReadBuffer(q, m, CL_TRUE, 0, 8, buf, 1, &bogus, &ev),
             CL_INVALID_EVENT_WAIT_LIST);
   CHECK(ev == NULL, " a failed enqueue returned an event");
   CHECK_OK(clSetUserEventStatus(dummy, CL_COMPLETE));
   CHECK_OK(clReleaseEvent(dummy));
   CHECK_OK(clReleaseMemObject(m));
}

/* clEnqueueFillBuffer (OpenCL 1.2, used by the CTS's select and
 * math_brute_force suites): every pattern size, a sub-range, the errors. */
static void fill(struct kt_env *env)
{
   enum { FN = 4096 };
   unsigned char *got = malloc(FN), *want = malloc(FN);
   REQUIRE(got && want);
   cl_mem m = kt_buffer(env->context, 0, FN, NULL);
   unsigned char pat[128];
   for (int i = 0; i < 128; i++)
      pat[i] = (unsigned char)(7 * i + 3);
   for (size_t ps = 1; ps <= 128; ps *= 2) {
      memset(want, 0xee, FN);
      CHECK_OK(clEnqueueWriteBuffer(env->queue, m, CL_TRUE, 0, FN, want, 0, NULL, NULL));
      size_t off = 2 * 128, size = FN - 4 * 128;
      cl_event ev = NULL;
      CHECK_OK(clEnqueueFillBuffer(env->queue, m, pat, ps, off, size, 0, NULL, &ev));
      if (ev) {
         check_event(ev, env->queue, env->context, CL_COMMAND_FILL_BUFFER);
         CHECK_OK(clReleaseEvent(ev));
      }
      for (size_t i = 0; i < size; i++)
         want[off + i] = pat[i % ps];
      CHECK_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, FN, got, 0, NULL, NULL));
      CHECK(memcmp(got, want, FN) == 0, " fill with a %zu-byte pattern", ps);
   }
   CHECK_ERR(clEnqueueFillBuffer(env->queue, m, pat, 3, 0, 12, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueFillBuffer(env->queue, m, pat, 256, 0, 256, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueFillBuffer(env->queue, m, pat, 4, 2, 8, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueFillBuffer(env->queue, m, pat, 4, 0, 6, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueFillBuffer(env->queue, m, pat, 4, FN - 4, 8, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueFillBuffer(env->queue, m, NULL, 4, 0, 8, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueFillBuffer(env->queue, NULL, pat, 4, 0, 8, 0, NULL, NULL),
             CL_INVALID_MEM_OBJECT);
   CHECK_OK(clReleaseMemObject(m));
   free(got);
   free(want);
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   blocking(&env);
   non_blocking(&env, env.queue);
   cl_command_queue ooo = kt_queue(&env, env.context, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
   non_blocking(&env, ooo);
   CHECK_OK(clReleaseCommandQueue(ooo));
   errors(&env);
   fill(&env);
   kt_teardown(&env);
   return kt_result();
}
