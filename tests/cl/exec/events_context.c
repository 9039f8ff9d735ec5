/* Events and buffers across queues and contexts (5.7, 5.2): an event of
 * one queue orders a command of another queue of the same context; events
 * and buffers of another context are CL_INVALID_CONTEXT. */
#include <stdlib.h>
#include <string.h>

#include "kt.h"

enum { N = 1 << 16 };

static void two_queues(struct kt_env *env, cl_command_queue_properties p1,
                       cl_command_queue_properties p2)
{
   cl_command_queue q1 = kt_queue(env, env->context, p1), q2 = kt_queue(env, env->context, p2);
   unsigned char *src = malloc(N), *dst = malloc(N), *dst2 = malloc(N);
   REQUIRE(src && dst && dst2);
   kt_fill(src, N, 80);
   memset(dst, 0, N);
   cl_mem a = kt_buffer(env->context, 0, N, NULL), b = kt_buffer(env->context, 0, N, NULL);
   cl_event gate = kt_user_event(env->context), w, cp, rd;

   /* q1: write a (gated).  q2: copy a -> b after the write.  q1: read b
    * after the copy.  A chain that crosses queues twice. */
   CHECK_OK(clEnqueueWriteBuffer(q1, a, CL_FALSE, 0, N, src, 1, &gate, &w));
   CHECK_OK(clEnqueueCopyBuffer(q2, a, b, 0, 0, N, 1, &w, &cp));
   CHECK_OK(clEnqueueReadBuffer(q1, b, CL_FALSE, 0, N, dst, 1, &cp, &rd));
   CHECK_PENDING(cp, 30);
   CHECK_PENDING(rd, 0);
   cl_command_queue eq = NULL;
   CHECK_OK(clGetEventInfo(cp, CL_EVENT_COMMAND_QUEUE, sizeof(eq), &eq, NULL));
   CHECK(eq == q2);
   CHECK_OK(clSetUserEventStatus(gate, CL_COMPLETE));
   CHECK_OK(clWaitForEvents(1, &rd));
   CHECK(kt_status(w) == CL_COMPLETE && kt_status(cp) == CL_COMPLETE);
   CHECK(kt_same(dst, src, N, "write on q1, copy on q2, read on q1"));

   /* clWaitForEvents with events from both queues at once. */
   cl_event two[2];
   memset(dst2, 0, N);
   CHECK_OK(clEnqueueReadBuffer(q2, a, CL_FALSE, 0, N, dst2, 0, NULL, &two[0]));
   CHECK_OK(clEnqueueMarker(q1, &two[1]));
   CHECK_OK(clWaitForEvents(2, two));
   CHECK(kt_same(dst2, src, N, "read on q2"));

   CHECK_OK(clFinish(q1));
   CHECK_OK(clFinish(q2));
   cl_event events[] = {gate, w, cp, rd, two[0], two[1]};
   for (unsigned i = 0; i < 6; i++)
      CHECK_OK(clReleaseEvent(events[i]));
   CHECK_OK(clReleaseMemObject(a));
   CHECK_OK(clReleaseMemObject(b));
   CHECK_OK(clReleaseCommandQueue(q1));
   CHECK_OK(clReleaseCommandQueue(q2));
   free(src);
   free(dst);
   free(dst2);
}

static void other_context(struct kt_env *env)
{
   cl_context ctx2 = kt_context(env);
   cl_command_queue q2 = kt_queue(env, ctx2, 0);
   cl_command_queue q1 = env->queue;
   cl_mem m1 = kt_buffer(env->context, 0, 64, NULL), m2 = kt_buffer(ctx2, 0, 64, NULL);
   cl_event e1 = kt_user_event(env->context), e2 = kt_user_event(ctx2);
   unsigned char buf[64] = {0};
   size_t zero[3] = {0, 0, 0}, region[3] = {4, 4, 1};
   cl_int err;

   /* Buffers of the other context. */
   CHECK_ERR(clEnqueueReadBuffer(q1, m2, CL_TRUE, 0, 64, buf, 0, NULL, NULL), CL_INVALID_CONTEXT);
   CHECK_ERR(clEnqueueWriteBuffer(q2, m1, CL_TRUE, 0, 64, buf, 0, NULL, NULL),
             CL_INVALID_CONTEXT);
   CHECK_ERR(clEnqueueCopyBuffer(q1, m1, m2, 0, 0, 64, 0, NULL, NULL), CL_INVALID_CONTEXT);
   CHECK_ERR(clEnqueueCopyBuffer(q1, m2, m1, 0, 0, 64, 0, NULL, NULL), CL_INVALID_CONTEXT);
   CHECK_ERR(clEnqueueCopyBufferRect(q1, m1, m2, zero, zero, region, 0, 0, 0, 0, 0, NULL, NULL),
             CL_INVALID_CONTEXT);
   CHECK_ERR(clEnqueueReadBufferRect(q1, m2, CL_TRUE, zero, zero, region, 0, 0, 0, 0, buf, 0,
                                     NULL, NULL),
             CL_INVALID_CONTEXT);
   void *p = clEnqueueMapBuffer(q1, m2, CL_TRUE, CL_MAP_READ, 0, 64, 0, NULL, NULL, &err);
   CHECK(!p && err == CL_INVALID_CONTEXT, " map: %s", kt_err_name(err));
   p = clEnqueueMapBuffer(q2, m2, CL_TRUE, CL_MAP_READ, 0, 64, 0, NULL, NULL, &err);
   REQUIRE(p);
   CHECK_ERR(clEnqueueUnmapMemObject(q1, m2, p, 0, NULL, NULL), CL_INVALID_CONTEXT);
   CHECK_OK(clEnqueueUnmapMemObject(q2, m2, p, 0, NULL, NULL));

   /* Events of the other context in wait lists. */
   CHECK_ERR(clEnqueueReadBuffer(q1, m1, CL_TRUE, 0, 64, buf, 1, &e2, NULL), CL_INVALID_CONTEXT);
   CHECK_ERR(clEnqueueWriteBuffer(q1, m1, CL_FALSE, 0, 64, buf, 1, &e2, NULL),
             CL_INVALID_CONTEXT);
   CHECK_ERR(clEnqueueCopyBuffer(q2, m2, m2, 0, 32, 16, 1, &e1, NULL), CL_INVALID_CONTEXT);
   p = clEnqueueMapBuffer(q1, m1, CL_FALSE, CL_MAP_READ, 0, 64, 1, &e2, NULL, &err);
   CHECK(!p && err == CL_INVALID_CONTEXT, " map with a foreign event: %s", kt_err_name(err));
   CHECK_ERR(clEnqueueWaitForEvents(q1, 1, &e2), CL_INVALID_CONTEXT);
   cl_event both[2] = {e1, e2};
   CHECK_ERR(clWaitForEvents(2, both), CL_INVALID_CONTEXT);
   cl_event mixed[2] = {e1, e1};
   CHECK_ERR(clEnqueueReadBuffer(q2, m2, CL_TRUE, 0, 64, buf, 2, mixed, NULL),
             CL_INVALID_CONTEXT);

   /* Nothing was enqueued by the failures: the user events are still
    * pending and the queues finish at once. */
   CHECK(kt_status(e1) == CL_SUBMITTED && kt_status(e2) == CL_SUBMITTED);
   CHECK_OK(clFinish(q1));
   CHECK_OK(clFinish(q2));
   cl_context c = NULL;
   CHECK_OK(clGetEventInfo(e2, CL_EVENT_CONTEXT, sizeof(c), &c, NULL));
   CHECK(c == ctx2);

   CHECK_OK(clSetUserEventStatus(e1, CL_COMPLETE));
   CHECK_OK(clSetUserEventStatus(e2, CL_COMPLETE));
   CHECK_OK(clReleaseEvent(e1));
   CHECK_OK(clReleaseEvent(e2));
   CHECK_OK(clReleaseMemObject(m1));
   CHECK_OK(clReleaseMemObject(m2));
   CHECK_OK(clReleaseCommandQueue(q2));
   CHECK_OK(clReleaseContext(ctx2));
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   const cl_command_queue_properties ooo = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE;
   two_queues(&env, 0, 0);
   two_queues(&env, 0, ooo);
   two_queues(&env, ooo, 0);
   two_queues(&env, ooo, ooo);
   other_context(&env);
   kt_teardown(&env);
   return kt_result();
}
