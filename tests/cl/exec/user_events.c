/* User events (1.1, 5.7.1): initial state, clSetUserEventStatus rules,
 * and what a negative status does to commands waiting on it: they end
 * with a negative status and never run, and blocking calls waiting on it
 * return CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST. */
#include <stdlib.h>
#include <string.h>

#include "kt.h"

enum { N = 4096 };

static void basics(struct kt_env *env)
{
   cl_int err = 1;
   cl_event u = clCreateUserEvent(env->context, &err);
   REQUIRE(u && err == CL_SUCCESS);
   CHECK(kt_status(u) == CL_SUBMITTED, " new user event status %s",
         kt_err_name(kt_status(u)));
   cl_command_type t = 0;
   cl_command_queue q = (cl_command_queue)1;
   cl_context c = NULL;
   cl_uint refs = 0;
   CHECK_OK(clGetEventInfo(u, CL_EVENT_COMMAND_TYPE, sizeof(t), &t, NULL));
   CHECK(t == CL_COMMAND_USER);
   CHECK_OK(clGetEventInfo(u, CL_EVENT_COMMAND_QUEUE, sizeof(q), &q, NULL));
   CHECK(q == NULL, " user event's queue %p", (void *)q);
   CHECK_OK(clGetEventInfo(u, CL_EVENT_CONTEXT, sizeof(c), &c, NULL));
   CHECK(c == env->context);
   CHECK_OK(clGetEventInfo(u, CL_EVENT_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
   CHECK(refs == 1, " refcount %u", refs);
   CHECK_OK(clRetainEvent(u));
   CHECK_OK(clGetEventInfo(u, CL_EVENT_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
   CHECK(refs == 2, " refcount %u after retain", refs);
   CHECK_OK(clReleaseEvent(u));

   /* Only CL_COMPLETE or a negative value; only once. */
   CHECK_ERR(clSetUserEventStatus(u, CL_RUNNING), CL_INVALID_VALUE);
   CHECK_ERR(clSetUserEventStatus(u, CL_SUBMITTED), CL_INVALID_VALUE);
   CHECK_ERR(clSetUserEventStatus(u, 12345), CL_INVALID_VALUE);
   CHECK(kt_status(u) == CL_SUBMITTED);
   CHECK_OK(clSetUserEventStatus(u, CL_COMPLETE));
   CHECK(kt_status(u) == CL_COMPLETE);
   CHECK_ERR(clSetUserEventStatus(u, CL_COMPLETE), CL_INVALID_OPERATION);
   CHECK_ERR(clSetUserEventStatus(u, -5), CL_INVALID_OPERATION);
   CHECK(kt_status(u) == CL_COMPLETE);
   CHECK_OK(clWaitForEvents(1, &u));
   CHECK_OK(clReleaseEvent(u));

   cl_event neg = kt_user_event(env->context);
   CHECK_OK(clSetUserEventStatus(neg, -1234));
   CHECK(kt_status(neg) == -1234, " status %s after setting -1234", kt_err_name(kt_status(neg)));
   CHECK_ERR(clSetUserEventStatus(neg, CL_COMPLETE), CL_INVALID_OPERATION);
   CHECK_ERR(clWaitForEvents(1, &neg), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
   CHECK_OK(clReleaseEvent(neg));

   /* Errors. */
   cl_event none = clCreateUserEvent(NULL, &err);
   CHECK(!none && err == CL_INVALID_CONTEXT, " %s", kt_err_name(err));
   CHECK_ERR(clSetUserEventStatus(NULL, CL_COMPLETE), CL_INVALID_EVENT);
   cl_mem m = kt_buffer(env->context, 0, 16, NULL);
   cl_event w;
   unsigned char b[16] = {0};
   CHECK_OK(clEnqueueWriteBuffer(env->queue, m, CL_TRUE, 0, 16, b, 0, NULL, &w));
   CHECK_ERR(clSetUserEventStatus(w, CL_COMPLETE), CL_INVALID_EVENT);
   CHECK_OK(clReleaseEvent(w));
   CHECK_OK(clReleaseMemObject(m));
}

/* The gate fails: dependants (direct and transitive, on either kind of
 * queue) fail with a negative status and leave the data untouched. */
static void negative_status(struct kt_env *env, cl_command_queue_properties props)
{
   cl_command_queue q = kt_queue(env, env->context, props);
   unsigned char init[N], other[N], host[N], got[N];
   kt_fill(init, N, 90);
   kt_fill(other, N, 91);
   memset(host, 0xab, N);
   cl_mem m = kt_buffer(env->context, CL_MEM_COPY_HOST_PTR, N, init);
   cl_mem m2 = kt_buffer(env->context, CL_MEM_COPY_HOST_PTR, N, other);
   cl_event gate = kt_user_event(env->context), w, r, cp, after;
   CHECK_OK(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, N, other, 1, &gate, &w));
   CHECK_OK(clEnqueueReadBuffer(q, m, CL_FALSE, 0, N, host, 1, &gate, &r));
   /* Transitive: waits on w, which will fail. */
   CHECK_OK(clEnqueueCopyBuffer(q, m2, m, 0, 0, N, 1, &w, &cp));
   CHECK_PENDING(w, 10);
   CHECK_OK(clSetUserEventStatus(gate, -7));
   cl_int sw = kt_wait_end(w, 5000), sr = kt_wait_end(r, 5000), sc = kt_wait_end(cp, 5000);
   CHECK(sw < 0, " write waiting on a failed event ended with %s", kt_err_name(sw));
   CHECK(sr < 0, " read waiting on a failed event ended with %s", kt_err_name(sr));
   CHECK(sc < 0, " copy waiting on a failed command ended with %s", kt_err_name(sc));
   CHECK_ERR(clWaitForEvents(1, &w), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
   unsigned char untouched[N];
   memset(untouched, 0xab, N);
   CHECK(kt_same(host, untouched, N, "host memory of a failed read"));
   /* Read through a fresh queue: the failed commands wrote nothing. */
   cl_command_queue fresh = kt_queue(env, env->context, 0);
   CHECK_OK(clEnqueueReadBuffer(fresh, m, CL_TRUE, 0, N, got, 0, NULL, NULL));
   CHECK(kt_same(got, init, N, "buffer after failed write and copy"));

   /* A command after the failed ones but not waiting on them explicitly
    * still runs.  1.1 leaves the queue's state after a failure to the
    * implementation; Kiln's design (DESIGN.md) fails explicit dependants
    * only, and this pins that choice down. */
   CHECK_OK(clEnqueueReadBuffer(q, m2, CL_FALSE, 0, N, got, 0, NULL, &after));
   CHECK_ENDS(after, CL_COMPLETE);
   CHECK(kt_same(got, other, N, "independent read after failures"));
   CHECK_OK(clFinish(q));

   cl_event events[] = {gate, w, r, cp, after};
   for (unsigned i = 0; i < 5; i++)
      CHECK_OK(clReleaseEvent(events[i]));
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseMemObject(m2));
   CHECK_OK(clReleaseCommandQueue(fresh));
   CHECK_OK(clReleaseCommandQueue(q));
}

static void set_failed(void *ev)
{
   CHECK_OK(clSetUserEventStatus((cl_event)ev, -3));
}

/* Blocking calls whose wait list fails, before and during the call. */
static void blocking_with_failed_wait_list(struct kt_env *env)
{
   unsigned char init[N], host[N], want[N];
   kt_fill(init, N, 92);
   cl_mem m = kt_buffer(env->context, CL_MEM_COPY_HOST_PTR, N, init);
   cl_command_queue q = env->queue;

   cl_event failed = kt_user_event(env->context);
   CHECK_OK(clSetUserEventStatus(failed, -2));
   memset(host, 0x11, N);
   memcpy(want, host, N);
   cl_event r;
   CHECK_ERR(clEnqueueReadBuffer(q, m, CL_TRUE, 0, N, host, 1, &failed, &r),
             CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
   CHECK(kt_same(host, want, N, "blocking read with a failed wait list"));
   CHECK(kt_status(r) < 0, " its event has status %s", kt_err_name(kt_status(r)));
   CHECK_OK(clReleaseEvent(r));
   CHECK_ERR(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, N, host, 1, &failed, NULL),
             CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
   size_t zero[3] = {0, 0, 0}, region[3] = {16, 4, 1};
   CHECK_ERR(clEnqueueWriteBufferRect(q, m, CL_TRUE, zero, zero, region, 0, 0, 0, 0, host, 1,
                                      &failed, NULL),
             CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);

   /* Fails while the call blocks. */
   cl_event later = kt_user_event(env->context);
   struct kt_later *t = kt_after(50, set_failed, later);
   CHECK_ERR(clEnqueueReadBuffer(q, m, CL_TRUE, 0, N, host, 1, &later, NULL),
             CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
   kt_join(t);
   CHECK(kt_same(host, want, N, "blocking read whose wait list failed while it blocked"));

   unsigned char got[N];
   CHECK_OK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, N, got, 0, NULL, NULL));
   CHECK(kt_same(got, init, N, "buffer after failed blocking writes"));
   CHECK_OK(clReleaseEvent(failed));
   CHECK_OK(clReleaseEvent(later));
   CHECK_OK(clReleaseMemObject(m));
}

/* One user event gating many commands on several queues. */
static void fan_out(struct kt_env *env)
{
   cl_command_queue qs[3] = {kt_queue(env, env->context, 0),
                             kt_queue(env, env->context, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE),
                             kt_queue(env, env->context, 0)};
   unsigned char src[64], dst[3][8][64];
   kt_fill(src, 64, 93);
   memset(dst, 0, sizeof(dst));
   cl_mem m = kt_buffer(env->context, CL_MEM_COPY_HOST_PTR, 64, src);
   cl_event gate = kt_user_event(env->context), evs[24];
   for (int i = 0; i < 24; i++)
      CHECK_OK(clEnqueueReadBuffer(qs[i % 3], m, CL_FALSE, 0, 64, dst[i % 3][i / 3], 1, &gate,
                                   &evs[i]));
   for (int i = 0; i < 24; i++)
      CHECK(kt_status(evs[i]) > CL_COMPLETE, " read %d ended before the gate", i);
   CHECK_OK(clSetUserEventStatus(gate, CL_COMPLETE));
   CHECK_OK(clWaitForEvents(24, evs));
   for (int i = 0; i < 24; i++) {
      CHECK(kt_status(evs[i]) == CL_COMPLETE);
      CHECK(kt_same(dst[i % 3][i / 3], src, 64, "fan-out read"));
      CHECK_OK(clReleaseEvent(evs[i]));
   }
   CHECK_OK(clReleaseEvent(gate));
   CHECK_OK(clReleaseMemObject(m));
   for (int i = 0; i < 3; i++)
      CHECK_OK(clReleaseCommandQueue(qs[i]));
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   basics(&env);
   negative_status(&env, 0);
   negative_status(&env, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
   blocking_with_failed_wait_list(&env);
   fan_out(&env);
   kt_teardown(&env);
   return kt_result();
}
