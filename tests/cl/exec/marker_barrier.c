/* clEnqueueMarkerWithWaitList / clEnqueueBarrierWithWaitList (OpenCL 1.2
 * §5.10): with an empty wait list both wait for every earlier command of
 * the queue, in-order or out-of-order; with a list a marker waits for the
 * list only; a barrier holds back every later command.  Events report the
 * right command type and profiling times; bad arguments get the spec's
 * errors in its order.  The entry points exist whatever version the
 * platform reports (the ICD dispatch table reaches them). */
#include <string.h>

#include "kt.h"

enum { N = 1024 };

static unsigned char data[N];

static cl_command_type command_type(cl_event ev)
{
   cl_command_type t = 0;
   CHECK_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(t), &t, NULL));
   return t;
}

/* A write that runs only once gate is complete. */
static cl_event gated_write(cl_command_queue q, cl_mem m, cl_event gate)
{
   cl_event ev;
   CHECK_OK(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, N, data, 1, &gate, &ev));
   return ev;
}

static void in_order(struct kt_env *env, cl_mem m)
{
   cl_command_queue q = kt_queue(env, env->context, 0);
   cl_event gate = kt_user_event(env->context), w = gated_write(q, m, gate), mk, br;
   CHECK_OK(clEnqueueMarkerWithWaitList(q, 0, NULL, &mk));
   CHECK_OK(clEnqueueBarrierWithWaitList(q, 0, NULL, &br));
   CHECK(command_type(mk) == CL_COMMAND_MARKER);
   CHECK(command_type(br) == CL_COMMAND_BARRIER);
   CHECK_PENDING(mk, 30);
   CHECK_PENDING(br, 0);
   CHECK_OK(clSetUserEventStatus(gate, CL_COMPLETE));
   CHECK_ENDS(w, CL_COMPLETE);
   CHECK_ENDS(mk, CL_COMPLETE);
   CHECK_ENDS(br, CL_COMPLETE);
   /* No event asked for: still enqueued, still ordered. */
   CHECK_OK(clEnqueueMarkerWithWaitList(q, 0, NULL, NULL));
   CHECK_OK(clEnqueueBarrierWithWaitList(q, 0, NULL, NULL));
   CHECK_OK(clFinish(q));
   clReleaseEvent(gate);
   clReleaseEvent(w);
   clReleaseEvent(mk);
   clReleaseEvent(br);
   clReleaseCommandQueue(q);
}

/* Out of order, empty list: the marker waits for both gated writes,
 * though neither is in its list. */
static void ooo_marker_all(struct kt_env *env, cl_mem a, cl_mem b)
{
   cl_command_queue q = kt_queue(env, env->context, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
   cl_event g1 = kt_user_event(env->context), g2 = kt_user_event(env->context);
   cl_event w1 = gated_write(q, a, g1), w2 = gated_write(q, b, g2), mk;
   CHECK_OK(clEnqueueMarkerWithWaitList(q, 0, NULL, &mk));
   CHECK_PENDING(mk, 30);
   CHECK_OK(clSetUserEventStatus(g1, CL_COMPLETE));
   CHECK_ENDS(w1, CL_COMPLETE);
   CHECK_PENDING(mk, 30);
   CHECK_OK(clSetUserEventStatus(g2, CL_COMPLETE));
   CHECK_ENDS(mk, CL_COMPLETE);
   CHECK(kt_status(w2) == CL_COMPLETE, "the marker completed before an earlier command");
   CHECK_OK(clFinish(q));
   cl_event evs[] = {g1, g2, w1, w2, mk};
   for (unsigned i = 0; i < 5; i++)
      clReleaseEvent(evs[i]);
   clReleaseCommandQueue(q);
}

/* Out of order, with a list: the marker waits for the list alone; a
 * later command is not held back by it. */
static void ooo_marker_list(struct kt_env *env, cl_mem a, cl_mem b)
{
   cl_command_queue q = kt_queue(env, env->context, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
   cl_event g1 = kt_user_event(env->context), g2 = kt_user_event(env->context);
   cl_event w1 = gated_write(q, a, g1), w2 = gated_write(q, b, g2), mk, later;
   CHECK_OK(clEnqueueMarkerWithWaitList(q, 1, &w1, &mk));
   CHECK_OK(clEnqueueWriteBuffer(q, a, CL_FALSE, 0, N, data, 0, NULL, &later));
   CHECK_ENDS(later, CL_COMPLETE);
   CHECK_PENDING(mk, 30);
   CHECK_OK(clSetUserEventStatus(g1, CL_COMPLETE));
   CHECK_ENDS(mk, CL_COMPLETE);
   CHECK(kt_status(w2) > CL_COMPLETE, "w2 ran before its gate opened");
   CHECK_OK(clSetUserEventStatus(g2, CL_COMPLETE));
   CHECK_OK(clFinish(q));
   cl_event evs[] = {g1, g2, w1, w2, mk, later};
   for (unsigned i = 0; i < 6; i++)
      clReleaseEvent(evs[i]);
   clReleaseCommandQueue(q);
}

/* Out of order: a barrier holds back a later command that has no wait
 * list of its own until everything before the barrier (empty list), or
 * the barrier's list, is done. */
static void ooo_barrier(struct kt_env *env, cl_mem a, cl_mem b, bool with_list)
{
   cl_command_queue q = kt_queue(env, env->context, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
   cl_event g1 = kt_user_event(env->context), g2 = kt_user_event(env->context);
   cl_event w1 = gated_write(q, a, g1), br, later;
   if (with_list)
      CHECK_OK(clEnqueueBarrierWithWaitList(q, 1, &g2, &br));
   else
      CHECK_OK(clEnqueueBarrierWithWaitList(q, 0, NULL, &br));
   CHECK(command_type(br) == CL_COMMAND_BARRIER);
   CHECK_OK(clEnqueueWriteBuffer(q, b, CL_FALSE, 0, N, data, 0, NULL, &later));
   CHECK_PENDING(later, 30);
   CHECK_OK(clSetUserEventStatus(with_list ? g2 : g1, CL_COMPLETE));
   if (!with_list) {
      CHECK_ENDS(br, CL_COMPLETE);
      CHECK_ENDS(later, CL_COMPLETE);
      CHECK_OK(clSetUserEventStatus(g2, CL_COMPLETE));
   } else {
      /* The barrier's list is done, but Kiln's barriers also wait for
       * every earlier command (w1, still gated): allowed, as the spec
       * only sets a lower bound on what a barrier waits for. */
      CHECK_OK(clSetUserEventStatus(g1, CL_COMPLETE));
      CHECK_ENDS(br, CL_COMPLETE);
      CHECK_ENDS(later, CL_COMPLETE);
   }
   CHECK_OK(clFinish(q));
   cl_event evs[] = {g1, g2, w1, br, later};
   for (unsigned i = 0; i < 5; i++)
      clReleaseEvent(evs[i]);
   clReleaseCommandQueue(q);
}

/* A marker on a profiling queue has ordered timestamps. */
static void profiling(struct kt_env *env, cl_mem m)
{
   cl_command_queue q = kt_queue(env, env->context, CL_QUEUE_PROFILING_ENABLE);
   cl_event w, mk, br;
   CHECK_OK(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, N, data, 0, NULL, &w));
   CHECK_OK(clEnqueueMarkerWithWaitList(q, 1, &w, &mk));
   CHECK_OK(clEnqueueBarrierWithWaitList(q, 0, NULL, &br));
   /* The marker completes after what it waits for, even where the write
    * is still in flight on a device when the marker runs (cpu-discrete). */
   CHECK_OK(clWaitForEvents(1, &mk));
   cl_int st = -1;
   CHECK_OK(clGetEventInfo(w, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL));
   CHECK(st == CL_COMPLETE, "the marker completed before its write (status %d)", st);
   CHECK_OK(clFinish(q));
   cl_event evs[] = {mk, br};
   for (unsigned e = 0; e < 2; e++) {
      cl_ulong t[4];
      const cl_profiling_info p[4] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                      CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
      for (unsigned i = 0; i < 4; i++)
         CHECK_OK(clGetEventProfilingInfo(evs[e], p[i], sizeof(t[i]), &t[i], NULL));
      CHECK(t[0] && t[0] <= t[1] && t[1] <= t[2] && t[2] <= t[3], "times %llu %llu %llu %llu",
            (unsigned long long)t[0], (unsigned long long)t[1], (unsigned long long)t[2],
            (unsigned long long)t[3]);
   }
   cl_ulong end_w, start_mk;
   CHECK_OK(clGetEventProfilingInfo(w, CL_PROFILING_COMMAND_END, sizeof(end_w), &end_w, NULL));
   CHECK_OK(clGetEventProfilingInfo(mk, CL_PROFILING_COMMAND_START, sizeof(start_mk), &start_mk,
                                    NULL));
   CHECK(end_w <= start_mk, "the marker started before the write it waits for ended");
   clReleaseEvent(w);
   clReleaseEvent(mk);
   clReleaseEvent(br);
   clReleaseCommandQueue(q);
}

/* A failed event in the list fails the marker, as it fails any command. */
static void failed_dependency(struct kt_env *env)
{
   cl_command_queue q = kt_queue(env, env->context, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
   cl_event g = kt_user_event(env->context), mk;
   CHECK_OK(clEnqueueMarkerWithWaitList(q, 1, &g, &mk));
   CHECK_OK(clSetUserEventStatus(g, -42));
   cl_int st = kt_wait_end(mk, 5000);
   CHECK(st < 0, "marker after a failed event has status %d", st);
   clFinish(q);
   clReleaseEvent(g);
   clReleaseEvent(mk);
   clReleaseCommandQueue(q);
}

typedef cl_int(CL_API_CALL *sync_fn)(cl_command_queue, cl_uint, const cl_event *, cl_event *);

static void errors(struct kt_env *env, sync_fn fn, const char *name)
{
   cl_event ev = NULL, done;
   CHECK_OK(clEnqueueMarkerWithWaitList(env->queue, 0, NULL, &done));
   CHECK_OK(clFinish(env->queue));
   cl_int err = fn(NULL, 0, NULL, &ev);
   CHECK(err == CL_INVALID_COMMAND_QUEUE, "%s(NULL queue): %s", name, kt_err_name(err));
   err = fn((cl_command_queue)env->context, 0, NULL, &ev);
   CHECK(err == CL_INVALID_COMMAND_QUEUE, "%s(a context): %s", name, kt_err_name(err));
   err = fn(env->queue, 1, NULL, &ev);
   CHECK(err == CL_INVALID_EVENT_WAIT_LIST, "%s(1, NULL): %s", name, kt_err_name(err));
   err = fn(env->queue, 0, &done, &ev);
   CHECK(err == CL_INVALID_EVENT_WAIT_LIST, "%s(0, list): %s", name, kt_err_name(err));
   cl_event bad[2] = {done, NULL};
   err = fn(env->queue, 2, bad, &ev);
   CHECK(err == CL_INVALID_EVENT_WAIT_LIST, "%s(NULL in list): %s", name, kt_err_name(err));
   bad[1] = (cl_event)env->context;
   err = fn(env->queue, 2, bad, &ev);
   CHECK(err == CL_INVALID_EVENT_WAIT_LIST, "%s(a context in list): %s", name, kt_err_name(err));
   /* Queue checked before the list. */
   err = fn(NULL, 1, NULL, &ev);
   CHECK(err == CL_INVALID_COMMAND_QUEUE, "%s(NULL queue, bad list): %s", name, kt_err_name(err));
   /* An event of another context. */
   cl_context other = kt_context(env);
   cl_event foreign = kt_user_event(other);
   err = fn(env->queue, 1, &foreign, &ev);
   CHECK(err == CL_INVALID_CONTEXT, "%s(foreign event): %s", name, kt_err_name(err));
   CHECK(ev == NULL, "%s wrote an event on failure", name);
   clSetUserEventStatus(foreign, CL_COMPLETE);
   clReleaseEvent(foreign);
   clReleaseContext(other);
   clReleaseEvent(done);
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   memset(data, 7, sizeof(data));
   cl_mem a = kt_buffer(env.context, CL_MEM_READ_WRITE, N, NULL);
   cl_mem b = kt_buffer(env.context, CL_MEM_READ_WRITE, N, NULL);
   in_order(&env, a);
   ooo_marker_all(&env, a, b);
   ooo_marker_list(&env, a, b);
   ooo_barrier(&env, a, b, false);
   ooo_barrier(&env, a, b, true);
   profiling(&env, a);
   failed_dependency(&env);
   errors(&env, clEnqueueMarkerWithWaitList, "clEnqueueMarkerWithWaitList");
   errors(&env, clEnqueueBarrierWithWaitList, "clEnqueueBarrierWithWaitList");
   clReleaseMemObject(a);
   clReleaseMemObject(b);
   kt_teardown(&env);
   return kt_result();
}
