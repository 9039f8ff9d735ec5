/* Command ordering (5.1, 5.7): in-order queues run commands one after
 * the other; out-of-order queues run a command once its wait list is done,
 * so one stuck on a user event does not hold back independent later ones;
 * markers wait for every earlier command, barriers hold back every later
 * one, clEnqueueWaitForEvents holds back later commands until its events
 * complete. */
#include <stdlib.h>
#include <string.h>

#include "kt.h"

enum { N = 4096 };

static unsigned char zeros[N];

static cl_mem zeroed(struct kt_env *env)
{
   return kt_buffer(env->context, CL_MEM_COPY_HOST_PTR, N, zeros);
}

static void expect_buffer(struct kt_env *env, cl_mem m, int value, const char *what)
{
   unsigned char got[N], want[N];
   memset(want, value, N);
   /* A fresh in-order queue: reads through env->queue might be ordered
    * behind the commands under test. */
   cl_command_queue q = kt_queue(env, env->context, 0);
   CHECK_OK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, N, got, 0, NULL, NULL));
   CHECK(kt_same(got, want, N, what));
   CHECK_OK(clReleaseCommandQueue(q));
}

/* In order: the later command waits for the gated one, even with no
 * wait list of its own; the writes land in order. */
static void in_order(struct kt_env *env)
{
   cl_command_queue q = kt_queue(env, env->context, 0);
   cl_mem a = zeroed(env), b = zeroed(env);
   unsigned char one[N], two[N], three[N];
   memset(one, 1, N);
   memset(two, 2, N);
   memset(three, 3, N);
   cl_event gate = kt_user_event(env->context), e1, e2, e3;
   CHECK_OK(clEnqueueWriteBuffer(q, a, CL_FALSE, 0, N, one, 1, &gate, &e1));
   CHECK_OK(clEnqueueWriteBuffer(q, b, CL_FALSE, 0, N, two, 0, NULL, &e2));
   CHECK_OK(clEnqueueWriteBuffer(q, a, CL_FALSE, 0, N, three, 0, NULL, &e3));
   CHECK_PENDING(e1, 30);
   CHECK_PENDING(e2, 0);
   CHECK_PENDING(e3, 0);
   expect_buffer(env, b, 0, "in-order: b before the gate opened");
   CHECK_OK(clSetUserEventStatus(gate, CL_COMPLETE));
   CHECK_OK(clFinish(q));
   CHECK(kt_status(e1) == CL_COMPLETE && kt_status(e2) == CL_COMPLETE &&
         kt_status(e3) == CL_COMPLETE);
   expect_buffer(env, a, 3, "in-order: last write wins");
   expect_buffer(env, b, 2, "in-order: b");

   /* A marker on an in-order queue completes after everything before. */
   cl_event gate2 = kt_user_event(env->context), w, mk;
   CHECK_OK(clEnqueueWriteBuffer(q, a, CL_FALSE, 0, N, one, 1, &gate2, &w));
   CHECK_OK(clEnqueueMarker(q, &mk));
   CHECK_PENDING(mk, 20);
   CHECK_OK(clSetUserEventStatus(gate2, CL_COMPLETE));
   CHECK_ENDS(mk, CL_COMPLETE);
   CHECK(kt_status(w) == CL_COMPLETE, " marker completed before the command before it");
   cl_command_type t = 0;
   CHECK_OK(clGetEventInfo(mk, CL_EVENT_COMMAND_TYPE, sizeof(t), &t, NULL));
   CHECK(t == CL_COMMAND_MARKER);

   cl_event events[] = {gate, e1, e2, e3, gate2, w, mk};
   for (unsigned i = 0; i < sizeof(events) / sizeof(events[0]); i++)
      CHECK_OK(clReleaseEvent(events[i]));
   CHECK_OK(clReleaseMemObject(a));
   CHECK_OK(clReleaseMemObject(b));
   CHECK_OK(clReleaseCommandQueue(q));
}

static void out_of_order(struct kt_env *env)
{
   cl_command_queue q = kt_queue(env, env->context, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
   cl_command_queue_properties props = 0;
   CHECK_OK(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof(props), &props, NULL));
   CHECK(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
   cl_mem a = zeroed(env), b = zeroed(env), c = zeroed(env), d = zeroed(env);
   unsigned char one[N], two[N], three[N], four[N];
   memset(one, 1, N);
   memset(two, 2, N);
   memset(three, 3, N);
   memset(four, 4, N);

   /* A waits on the gate; B, enqueued later, waits on nothing. */
   cl_event gate = kt_user_event(env->context), ea, eb;
   CHECK_OK(clEnqueueWriteBuffer(q, a, CL_FALSE, 0, N, one, 1, &gate, &ea));
   CHECK_OK(clEnqueueWriteBuffer(q, b, CL_FALSE, 0, N, two, 0, NULL, &eb));
   CHECK_ENDS(eb, CL_COMPLETE);
   CHECK_PENDING(ea, 0);
   expect_buffer(env, b, 2, "OOO: independent later command ran");
   expect_buffer(env, a, 0, "OOO: gated command has not run");

   /* A marker waits for A (and B). */
   cl_event mk;
   CHECK_OK(clEnqueueMarker(q, &mk));
   CHECK_PENDING(mk, 20);

   /* Everything after a barrier waits for everything before it. */
   CHECK_OK(clEnqueueBarrier(q));
   cl_event ec;
   CHECK_OK(clEnqueueWriteBuffer(q, c, CL_FALSE, 0, N, three, 0, NULL, &ec));
   CHECK_PENDING(ec, 30);
   expect_buffer(env, c, 0, "OOO: command after a barrier ran before the barrier");

   CHECK_OK(clSetUserEventStatus(gate, CL_COMPLETE));
   CHECK_ENDS(ea, CL_COMPLETE);
   CHECK_ENDS(mk, CL_COMPLETE);
   CHECK_ENDS(ec, CL_COMPLETE);
   expect_buffer(env, a, 1, "OOO: gated command after the gate");
   expect_buffer(env, c, 3, "OOO: command after the barrier");

   /* clEnqueueWaitForEvents: later commands wait for the listed events. */
   cl_event gate2 = kt_user_event(env->context), ed;
   CHECK_OK(clEnqueueWaitForEvents(q, 1, &gate2));
   CHECK_OK(clEnqueueWriteBuffer(q, d, CL_FALSE, 0, N, four, 0, NULL, &ed));
   CHECK_PENDING(ed, 30);
   CHECK_OK(clSetUserEventStatus(gate2, CL_COMPLETE));
   CHECK_ENDS(ed, CL_COMPLETE);
   expect_buffer(env, d, 4, "OOO: command after clEnqueueWaitForEvents");

   /* Many independent commands with one stuck: all others finish. */
   cl_event gate3 = kt_user_event(env->context), stuck, many[32];
   CHECK_OK(clEnqueueWriteBuffer(q, a, CL_FALSE, 0, N, two, 1, &gate3, &stuck));
   unsigned char *outs = malloc(32 * 64);
   REQUIRE(outs);
   for (int i = 0; i < 32; i++)
      CHECK_OK(clEnqueueReadBuffer(q, b, CL_FALSE, (size_t)i * 64, 64, outs + i * 64, 0, NULL,
                                   &many[i]));
   CHECK_OK(clWaitForEvents(32, many));
   for (int i = 0; i < 32 * 64; i++)
      if (outs[i] != 2) {
         KT_FAIL("OOO: read %d got %d", i / 64, outs[i]);
         break;
      }
   CHECK_PENDING(stuck, 0);
   CHECK_OK(clSetUserEventStatus(gate3, CL_COMPLETE));
   CHECK_OK(clFinish(q));
   CHECK(kt_status(stuck) == CL_COMPLETE);
   free(outs);

   cl_event events[] = {gate, ea, eb, mk, ec, gate2, ed, gate3, stuck};
   for (unsigned i = 0; i < sizeof(events) / sizeof(events[0]); i++)
      CHECK_OK(clReleaseEvent(events[i]));
   for (int i = 0; i < 32; i++)
      CHECK_OK(clReleaseEvent(many[i]));
   cl_mem mems[] = {a, b, c, d};
   for (int i = 0; i < 4; i++)
      CHECK_OK(clReleaseMemObject(mems[i]));
   CHECK_OK(clReleaseCommandQueue(q));
}

/* clEnqueueWaitForEvents on an in-order queue, and with events of another
 * queue of the same context. */
static void wait_for_events_in_order(struct kt_env *env)
{
   cl_command_queue q = kt_queue(env, env->context, 0);
   cl_command_queue other = kt_queue(env, env->context, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
   cl_mem a = zeroed(env), b = zeroed(env);
   unsigned char five[N], six[N];
   memset(five, 5, N);
   memset(six, 6, N);
   cl_event gate = kt_user_event(env->context), ew, eq;
   CHECK_OK(clEnqueueWriteBuffer(other, a, CL_FALSE, 0, N, five, 1, &gate, &ew));
   CHECK_OK(clEnqueueWaitForEvents(q, 1, &ew));
   CHECK_OK(clEnqueueWriteBuffer(q, b, CL_FALSE, 0, N, six, 0, NULL, &eq));
   CHECK_PENDING(eq, 30);
   CHECK_OK(clSetUserEventStatus(gate, CL_COMPLETE));
   CHECK_ENDS(eq, CL_COMPLETE);
   CHECK(kt_status(ew) == CL_COMPLETE);
   expect_buffer(env, a, 5, "write on the other queue");
   expect_buffer(env, b, 6, "write after clEnqueueWaitForEvents");
   CHECK_OK(clReleaseEvent(gate));
   CHECK_OK(clReleaseEvent(ew));
   CHECK_OK(clReleaseEvent(eq));
   CHECK_OK(clReleaseMemObject(a));
   CHECK_OK(clReleaseMemObject(b));
   CHECK_OK(clReleaseCommandQueue(q));
   CHECK_OK(clReleaseCommandQueue(other));
}

static void errors(struct kt_env *env)
{
   cl_command_queue q = env->queue;
   cl_event ev = NULL;
   CHECK_ERR(clEnqueueMarker(q, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueMarker(NULL, &ev), CL_INVALID_COMMAND_QUEUE);
   CHECK_ERR(clEnqueueBarrier(NULL), CL_INVALID_COMMAND_QUEUE);
   CHECK_ERR(clEnqueueWaitForEvents(q, 0, NULL), CL_INVALID_VALUE);
   cl_event u = kt_user_event(env->context);
   CHECK_ERR(clEnqueueWaitForEvents(q, 1, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueWaitForEvents(NULL, 1, &u), CL_INVALID_COMMAND_QUEUE);
   cl_event bogus = (cl_event)q;
   CHECK_ERR(clEnqueueWaitForEvents(q, 1, &bogus), CL_INVALID_EVENT);
   cl_context ctx2 = kt_context(env);
   cl_event foreign = kt_user_event(ctx2);
   CHECK_ERR(clEnqueueWaitForEvents(q, 1, &foreign), CL_INVALID_CONTEXT);
   CHECK_OK(clSetUserEventStatus(u, CL_COMPLETE));
   CHECK_OK(clSetUserEventStatus(foreign, CL_COMPLETE));
   CHECK_OK(clReleaseEvent(u));
   CHECK_OK(clReleaseEvent(foreign));
   CHECK_OK(clReleaseContext(ctx2));
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   in_order(&env);
   out_of_order(&env);
   wait_for_events_in_order(&env);
   errors(&env);
   kt_teardown(&env);
   return kt_result();
}
