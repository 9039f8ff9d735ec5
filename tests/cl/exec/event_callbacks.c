/* clSetEventCallback (1.1): a CL_COMPLETE callback runs exactly once,
 * when the event completes or fails, with the event, the final status and
 * the user data; registered on an already-ended event it still runs.
 * Callbacks may run on any thread, so the records are atomic. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "kt.h"

struct record {
   atomic_int calls;
   atomic_int status;
   _Atomic(cl_event) event;
   atomic_int status_seen_inside; /* clGetEventInfo from the callback */
};

static void record_init(struct record *r)
{
   atomic_init(&r->calls, 0);
   atomic_init(&r->status, 1);
   atomic_init(&r->event, NULL);
   atomic_init(&r->status_seen_inside, 1);
}

static void CL_CALLBACK on_complete(cl_event ev, cl_int status, void *user_data)
{
   struct record *r = user_data;
   atomic_store(&r->event, ev);
   atomic_store(&r->status, status);
   cl_int st = 1;
   if (clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL) ==
       CL_SUCCESS)
      atomic_store(&r->status_seen_inside, st);
   atomic_fetch_add(&r->calls, 1);
}

/* Waits (bounded) for the first call, then a little more to catch a
 * second one. */
static int calls_of(struct record *r)
{
   for (int t = 0; atomic_load(&r->calls) == 0 && t < 5000; t++)
      kt_sleep_ms(1);
   kt_sleep_ms(10);
   return atomic_load(&r->calls);
}

static void check_record(struct record *r, cl_event ev, cl_int status, const char *what)
{
   int n = calls_of(r);
   CHECK(n == 1, " %s: callback ran %d times", what, n);
   if (!n)
      return;
   CHECK(atomic_load(&r->event) == ev, " %s: callback got another event", what);
   CHECK(atomic_load(&r->status) == status, " %s: callback status %s, expected %s", what,
         kt_err_name(atomic_load(&r->status)), kt_err_name(status));
   CHECK(atomic_load(&r->status_seen_inside) == status,
         " %s: clGetEventInfo inside the callback saw %s", what,
         kt_err_name(atomic_load(&r->status_seen_inside)));
}

static void user_event_callbacks(struct kt_env *env)
{
   struct record r1, r2, r3;
   record_init(&r1);
   record_init(&r2);
   record_init(&r3);
   cl_event u = kt_user_event(env->context);
   CHECK_OK(clSetEventCallback(u, CL_COMPLETE, on_complete, &r1));
   CHECK_OK(clSetEventCallback(u, CL_COMPLETE, on_complete, &r2));
   kt_sleep_ms(20);
   CHECK(atomic_load(&r1.calls) == 0, " callback ran before the event completed");
   CHECK_OK(clSetUserEventStatus(u, CL_COMPLETE));
   check_record(&r1, u, CL_COMPLETE, "user event, first callback");
   check_record(&r2, u, CL_COMPLETE, "user event, second callback");
   /* Registered after completion: runs anyway. */
   CHECK_OK(clSetEventCallback(u, CL_COMPLETE, on_complete, &r3));
   check_record(&r3, u, CL_COMPLETE, "user event, callback registered after completion");
   CHECK_OK(clReleaseEvent(u));

   struct record rn;
   record_init(&rn);
   cl_event neg = kt_user_event(env->context);
   CHECK_OK(clSetEventCallback(neg, CL_COMPLETE, on_complete, &rn));
   CHECK_OK(clSetUserEventStatus(neg, -77));
   check_record(&rn, neg, -77, "failed user event");
   CHECK_OK(clReleaseEvent(neg));
}

static void command_callbacks(struct kt_env *env, cl_command_queue q)
{
   enum { N = 1 << 20 };
   unsigned char *src = malloc(N), *dst = malloc(N);
   REQUIRE(src && dst);
   kt_fill(src, N, 100);
   cl_mem m = kt_buffer(env->context, 0, N, NULL);
   cl_event gate = kt_user_event(env->context), w, r, failed;
   struct record rw, rr, rf, rdone;
   record_init(&rw);
   record_init(&rr);
   record_init(&rf);
   record_init(&rdone);
   CHECK_OK(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, N, src, 1, &gate, &w));
   CHECK_OK(clSetEventCallback(w, CL_COMPLETE, on_complete, &rw));
   CHECK_OK(clEnqueueReadBuffer(q, m, CL_FALSE, 0, N, dst, 1, &w, &r));
   CHECK_OK(clSetEventCallback(r, CL_COMPLETE, on_complete, &rr));
   kt_sleep_ms(20);
   CHECK(atomic_load(&rw.calls) == 0 && atomic_load(&rr.calls) == 0,
         " callbacks ran before their commands");
   CHECK_OK(clSetUserEventStatus(gate, CL_COMPLETE));
   check_record(&rw, w, CL_COMPLETE, "write command");
   check_record(&rr, r, CL_COMPLETE, "read command");
   CHECK_OK(clFinish(q));
   CHECK(kt_same(dst, src, N, "read"));
   /* On a completed command. */
   CHECK_OK(clSetEventCallback(r, CL_COMPLETE, on_complete, &rdone));
   check_record(&rdone, r, CL_COMPLETE, "callback registered on a completed command");

   /* A command failing because its wait list failed reports its error. */
   cl_event bad = kt_user_event(env->context);
   CHECK_OK(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, 64, src, 1, &bad, &failed));
   CHECK_OK(clSetEventCallback(failed, CL_COMPLETE, on_complete, &rf));
   CHECK_OK(clSetUserEventStatus(bad, -5));
   int n = calls_of(&rf);
   CHECK(n == 1, " callback of a failed command ran %d times", n);
   cl_int fs = kt_status(failed);
   CHECK(fs < 0, " failed command has status %s", kt_err_name(fs));
   CHECK(atomic_load(&rf.status) == fs, " callback status %s, event status %s",
         kt_err_name(atomic_load(&rf.status)), kt_err_name(fs));
   CHECK_OK(clFinish(q));

   cl_event events[] = {gate, w, r, bad, failed};
   for (unsigned i = 0; i < 5; i++)
      CHECK_OK(clReleaseEvent(events[i]));
   CHECK_OK(clReleaseMemObject(m));
   free(src);
   free(dst);
}

/* The application may drop its reference before the callback runs; the
 * callback still gets a usable event. */
static void release_before_completion(struct kt_env *env)
{
   struct record r;
   record_init(&r);
   cl_event gate = kt_user_event(env->context), mk;
   cl_mem m = kt_buffer(env->context, 0, 64, NULL);
   unsigned char b[64] = {0};
   cl_event w;
   CHECK_OK(clEnqueueWriteBuffer(env->queue, m, CL_FALSE, 0, 64, b, 1, &gate, &w));
   CHECK_OK(clEnqueueMarker(env->queue, &mk));
   CHECK_OK(clSetEventCallback(mk, CL_COMPLETE, on_complete, &r));
   CHECK_OK(clReleaseEvent(mk));
   CHECK_OK(clSetUserEventStatus(gate, CL_COMPLETE));
   int n = calls_of(&r);
   CHECK(n == 1, " callback of a released marker ran %d times", n);
   CHECK(atomic_load(&r.status) == CL_COMPLETE);
   CHECK_OK(clFinish(env->queue));
   CHECK_OK(clReleaseEvent(w));
   CHECK_OK(clReleaseEvent(gate));
   CHECK_OK(clReleaseMemObject(m));
}

/* What a callback may do (1.1 forbids only blocking calls and creating
 * contexts or queues): enqueue non-blocking commands, complete a user
 * event, release the event it was called for. */
struct reentry {
   cl_command_queue queue;
   cl_mem mem;
   unsigned char data[64];
   cl_event next_user; /* completed from the callback */
   _Atomic(cl_event) enqueued;
   atomic_int err;
   atomic_int released;
};

static void CL_CALLBACK reenter(cl_event ev, cl_int status, void *user_data)
{
   struct reentry *r = user_data;
   (void)status;
   cl_event e = NULL;
   cl_int err = clEnqueueWriteBuffer(r->queue, r->mem, CL_FALSE, 0, sizeof(r->data), r->data, 0,
                                     NULL, &e);
   if (err == CL_SUCCESS)
      err = clSetUserEventStatus(r->next_user, CL_COMPLETE);
   if (err == CL_SUCCESS)
      err = clReleaseEvent(ev); /* the application's last reference */
   atomic_store(&r->err, err);
   atomic_store(&r->enqueued, e);
   atomic_store(&r->released, 1);
}

static void callback_reentry(struct kt_env *env, cl_command_queue q)
{
   struct reentry r = {.queue = q};
   kt_fill(r.data, sizeof(r.data), 101);
   atomic_init(&r.enqueued, NULL);
   atomic_init(&r.err, 1);
   atomic_init(&r.released, 0);
   r.mem = kt_buffer(env->context, 0, sizeof(r.data), NULL);
   r.next_user = kt_user_event(env->context);
   cl_event gate = kt_user_event(env->context), w;
   unsigned char zero[64] = {0}, got[64];
   CHECK_OK(clEnqueueWriteBuffer(q, r.mem, CL_FALSE, 0, 64, zero, 1, &gate, &w));
   CHECK_OK(clSetEventCallback(w, CL_COMPLETE, reenter, &r));
   /* A command waiting on the user event the callback completes. */
   cl_event rd;
   CHECK_OK(clEnqueueReadBuffer(q, r.mem, CL_FALSE, 0, 64, got, 1, &r.next_user, &rd));
   CHECK_OK(clSetUserEventStatus(gate, CL_COMPLETE));
   for (int t = 0; t < 5000 && !atomic_load(&r.released); t++)
      kt_sleep_ms(1);
   CHECK(atomic_load(&r.released), " the callback did not run");
   CHECK(atomic_load(&r.err) == CL_SUCCESS, " API call from the callback returned %s",
         kt_err_name(atomic_load(&r.err)));
   CHECK_ENDS(rd, CL_COMPLETE);
   cl_event e = atomic_load(&r.enqueued);
   if (e) {
      CHECK_OK(clWaitForEvents(1, &e));
      CHECK_OK(clReleaseEvent(e));
   }
   CHECK_OK(clFinish(q));
   unsigned char final[64];
   CHECK_OK(clEnqueueReadBuffer(q, r.mem, CL_TRUE, 0, 64, final, 0, NULL, NULL));
   CHECK(kt_same(final, r.data, 64, "write enqueued from a callback"));
   CHECK_OK(clReleaseEvent(rd));
   CHECK_OK(clReleaseEvent(gate));
   CHECK_OK(clReleaseEvent(r.next_user));
   CHECK_OK(clReleaseMemObject(r.mem));
}

static void errors(struct kt_env *env)
{
   struct record r;
   record_init(&r);
   cl_event u = kt_user_event(env->context);
   CHECK_ERR(clSetEventCallback(u, CL_COMPLETE, NULL, &r), CL_INVALID_VALUE);
   /* 1.1 accepts only CL_COMPLETE. */
   CHECK_ERR(clSetEventCallback(u, CL_QUEUED, on_complete, &r), CL_INVALID_VALUE);
   CHECK_ERR(clSetEventCallback(u, -1, on_complete, &r), CL_INVALID_VALUE);
   CHECK_ERR(clSetEventCallback(NULL, CL_COMPLETE, on_complete, &r), CL_INVALID_EVENT);
   CHECK_ERR(clSetEventCallback((cl_event)env->queue, CL_COMPLETE, on_complete, &r),
             CL_INVALID_EVENT);
   CHECK_OK(clSetUserEventStatus(u, CL_COMPLETE));
   kt_sleep_ms(10);
   CHECK(atomic_load(&r.calls) == 0, " a rejected callback ran");
   CHECK_OK(clReleaseEvent(u));
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   user_event_callbacks(&env);
   command_callbacks(&env, env.queue);
   cl_command_queue ooo = kt_queue(&env, env.context, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
   command_callbacks(&env, ooo);
   CHECK_OK(clReleaseCommandQueue(ooo));
   release_before_completion(&env);
   callback_reentry(&env, env.queue);
   cl_command_queue ooo2 = kt_queue(&env, env.context, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
   callback_reentry(&env, ooo2);
   CHECK_OK(clReleaseCommandQueue(ooo2));
   errors(&env);
   kt_teardown(&env);
   return kt_result();
}
