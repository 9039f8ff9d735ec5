/* clWaitForEvents, clGetEventInfo, clRetainEvent, clReleaseEvent,
 * clCreateUserEvent, clSetUserEventStatus, clSetEventCallback,
 * clGetEventProfilingInfo (OpenCL 1.1 5.9, 5.12). */
#include "kiln_test_mem.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static double now_s(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_ms(long ms)
{
   struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
   nanosleep(&ts, NULL);
}

/* Completes a user event from another thread after a delay: lets a call
 * that rightly waits be woken, and keeps one that wrongly waits from
 * hanging (later_cancel then stops the thread early). */
struct later {
   pthread_t thread;
   cl_event event;
   cl_int status;
   long delay_ms;
   atomic_bool cancel;
   cl_int result;
};

static void *later_main(void *arg)
{
   struct later *l = arg;
   for (long t = 0; t < l->delay_ms && !atomic_load(&l->cancel); t++)
      sleep_ms(1);
   l->result = atomic_load(&l->cancel) ? CL_SUCCESS : clSetUserEventStatus(l->event, l->status);
   return NULL;
}

static void later_start(struct later *l, cl_event e, cl_int status, long delay_ms)
{
   l->event = e;
   l->status = status;
   l->delay_ms = delay_ms;
   l->result = 1;
   atomic_init(&l->cancel, false);
   assert_int_equal(pthread_create(&l->thread, NULL, later_main, l), 0);
}

static void later_join(struct later *l)
{
   pthread_join(l->thread, NULL);
   assert_int_equal(l->result, CL_SUCCESS);
}

/* Stops the thread; true if it had not fired yet. */
static bool later_cancel(struct later *l)
{
   atomic_store(&l->cancel, true);
   pthread_join(l->thread, NULL);
   return l->result == CL_SUCCESS;
}

/* A completed write of 16 bytes on q: an event to query. */
static cl_event command_event(cl_command_queue q, cl_mem m)
{
   static const unsigned char data[16];
   cl_event e = NULL;
   assert_int_equal(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, sizeof(data), data, 0, NULL, &e),
                    CL_SUCCESS);
   assert_non_null(e);
   return e;
}

/* ---- clWaitForEvents ------------------------------------------------- */

static void wait_invalid_value(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_event e = kt_user_event(ctx);
   int junk = 0;
   cl_event garbage = (cl_event)&junk;
   assert_int_equal(clWaitForEvents(0, &e), CL_INVALID_VALUE);
   assert_int_equal(clWaitForEvents(1, NULL), CL_INVALID_VALUE);
   assert_int_equal(clWaitForEvents(0, NULL), CL_INVALID_VALUE);
   /* VALUE is listed first. */
   assert_int_equal(clWaitForEvents(0, &garbage), CL_INVALID_VALUE);
   assert_int_equal(kt_event_status(e), CL_SUBMITTED);
   clSetUserEventStatus(e, CL_COMPLETE);
   clReleaseEvent(e);
   clReleaseContext(ctx);
}

static void wait_invalid_event(void **state)
{
   (void)state;
   int junk = 0;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   cl_mem m = kt_buffer(ctx, 0, 64, NULL);
   cl_event pending = kt_user_event(ctx);
   cl_event done = kt_user_event(ctx);
   clSetUserEventStatus(done, CL_COMPLETE);
   /* Frees the event only when the test wrongly waits for pending. */
   struct later l;
   later_start(&l, pending, CL_COMPLETE, 3000);
   cl_event dead = kt_released_event();
   cl_event bad[] = {NULL, (cl_event)&junk, dead, (cl_event)m, (cl_event)q, (cl_event)ctx};
   double t0 = now_s();
   for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
      assert_int_equal(clWaitForEvents(1, &bad[i]), CL_INVALID_EVENT);
      cl_event two[] = {done, bad[i]};
      assert_int_equal(clWaitForEvents(2, two), CL_INVALID_EVENT);
      /* Nothing is waited for when the list is bad. */
      cl_event three[] = {pending, done, bad[i]};
      assert_int_equal(clWaitForEvents(3, three), CL_INVALID_EVENT);
   }
   assert_true(now_s() - t0 < 1.5);
   later_cancel(&l);
   assert_int_equal(kt_event_status(pending), CL_SUBMITTED);
   assert_int_equal(kt_event_refcount(done), 1);
   clSetUserEventStatus(pending, CL_COMPLETE);
   clReleaseEvent(pending);
   clReleaseEvent(done);
   clReleaseMemObject(m);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

static void wait_events_of_two_contexts(void **state)
{
   (void)state;
   cl_context c1 = kt_context(), c2 = kt_context();
   cl_event e1 = kt_user_event(c1), e2 = kt_user_event(c2);
   struct later l1, l2;
   later_start(&l1, e1, CL_COMPLETE, 3000);
   later_start(&l2, e2, CL_COMPLETE, 3000);
   double t0 = now_s();
   cl_event list[] = {e1, e2};
   cl_int err1 = clWaitForEvents(2, list);
   cl_event list2[] = {e2, e2, e1};
   cl_int err2 = clWaitForEvents(3, list2);
   double t = now_s() - t0;
   later_cancel(&l1);
   later_cancel(&l2);
   assert_int_equal(err1, CL_INVALID_CONTEXT);
   assert_int_equal(err2, CL_INVALID_CONTEXT);
   assert_true(t < 1.5);
   assert_int_equal(kt_event_status(e1), CL_SUBMITTED);
   assert_int_equal(kt_event_status(e2), CL_SUBMITTED);
   clSetUserEventStatus(e1, CL_COMPLETE);
   clSetUserEventStatus(e2, CL_COMPLETE);
   clReleaseEvent(e1);
   clReleaseEvent(e2);
   clReleaseContext(c1);
   clReleaseContext(c2);
}

/* 1.1 lists CL_INVALID_CONTEXT before CL_INVALID_EVENT. */
static void wait_context_before_invalid_event(void **state)
{
   (void)state;
   int junk = 0;
   cl_context c1 = kt_context(), c2 = kt_context();
   cl_event e1 = kt_user_event(c1), e2 = kt_user_event(c2);
   clSetUserEventStatus(e1, CL_COMPLETE);
   clSetUserEventStatus(e2, CL_COMPLETE);
   cl_event list[] = {e1, (cl_event)&junk, e2};
   cl_int err = clWaitForEvents(3, list);
   clReleaseEvent(e1);
   clReleaseEvent(e2);
   clReleaseContext(c1);
   clReleaseContext(c2);
   KNOWN_BUG(err == CL_INVALID_EVENT,
             "src/api/event.c clWaitForEvents: {ctx1 event, invalid, ctx2 event} gives "
             "CL_INVALID_EVENT (first bad entry wins); 1.1 lists CL_INVALID_CONTEXT first");
   assert_int_equal(err, CL_INVALID_CONTEXT);
}

static void wait_success(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   cl_mem m = kt_buffer(ctx, 0, 64, NULL);
   cl_event gate = kt_user_event(ctx);
   unsigned char data[64];
   kt_fill(data, sizeof(data), 40);
   cl_event w = NULL;
   assert_int_equal(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, 64, data, 1, &gate, &w), CL_SUCCESS);
   /* Woken by another thread. */
   struct later l;
   later_start(&l, gate, CL_COMPLETE, 50);
   cl_event list[] = {w, gate, w};
   double t0 = now_s();
   assert_int_equal(clWaitForEvents(3, list), CL_SUCCESS);
   assert_true(now_s() - t0 >= 0.03);
   later_join(&l);
   assert_int_equal(kt_event_status(w), CL_COMPLETE);
   assert_int_equal(kt_event_status(gate), CL_COMPLETE);
   kt_assert_contents(q, m, data, 64);
   /* Already complete: returns at once. */
   assert_int_equal(clWaitForEvents(1, &w), CL_SUCCESS);
   assert_int_equal(kt_event_refcount(w), 1);
   clReleaseEvent(w);
   clReleaseEvent(gate);
   clReleaseMemObject(m);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

static void wait_failed_events(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   cl_mem m = kt_buffer(ctx, 0, 64, NULL);
   cl_event bad = kt_user_event(ctx), ok = kt_user_event(ctx);
   unsigned char data[64];
   cl_event w = NULL;
   assert_int_equal(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, 64, data, 1, &bad, &w), CL_SUCCESS);
   clSetUserEventStatus(ok, CL_COMPLETE);
   struct later l;
   later_start(&l, bad, -55, 30);
   cl_event list[] = {ok, w};
   assert_int_equal(clWaitForEvents(2, list), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
   later_join(&l);
   assert_int_equal(clWaitForEvents(1, &bad), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
   cl_event list2[] = {bad, ok};
   assert_int_equal(clWaitForEvents(2, list2), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
   assert_int_equal(kt_event_status(bad), -55);
   assert_true(kt_event_status(w) < 0);
   assert_int_equal(clWaitForEvents(1, &ok), CL_SUCCESS);
   clReleaseEvent(w);
   clReleaseEvent(bad);
   clReleaseEvent(ok);
   clReleaseMemObject(m);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

/* ---- clGetEventInfo -------------------------------------------------- */

static void info_values(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   cl_mem m = kt_buffer(ctx, 0, 64, NULL);
   cl_event w = command_event(q, m);
   cl_event u = kt_user_event(ctx);
   const struct {
      cl_event_info param;
      size_t size;
   } params[] = {
      {CL_EVENT_COMMAND_QUEUE, sizeof(cl_command_queue)},
      {CL_EVENT_CONTEXT, sizeof(cl_context)},
      {CL_EVENT_COMMAND_TYPE, sizeof(cl_command_type)},
      {CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(cl_int)},
      {CL_EVENT_REFERENCE_COUNT, sizeof(cl_uint)},
   };
   for (size_t i = 0; i < ARRAY_SIZE(params); i++) {
      kt_check_info(kt_event_info, w, params[i].param, params[i].size);
      kt_check_info(kt_event_info, u, params[i].param, params[i].size);
   }
   cl_command_queue eq = (cl_command_queue)1;
   cl_context ec = NULL;
   kt_info_value(kt_event_info, w, CL_EVENT_COMMAND_QUEUE, &eq, sizeof(eq));
   assert_ptr_equal(eq, q);
   kt_info_value(kt_event_info, w, CL_EVENT_CONTEXT, &ec, sizeof(ec));
   assert_ptr_equal(ec, ctx);
   assert_int_equal(kt_event_type(w), CL_COMMAND_WRITE_BUFFER);
   assert_int_equal(kt_event_status(w), CL_COMPLETE);
   assert_int_equal(kt_event_refcount(w), 1);
   /* User events: no queue. */
   kt_info_value(kt_event_info, u, CL_EVENT_COMMAND_QUEUE, &eq, sizeof(eq));
   assert_null(eq);
   kt_info_value(kt_event_info, u, CL_EVENT_CONTEXT, &ec, sizeof(ec));
   assert_ptr_equal(ec, ctx);
   assert_int_equal(kt_event_type(u), CL_COMMAND_USER);
   clSetUserEventStatus(u, CL_COMPLETE);
   clReleaseEvent(u);
   clReleaseEvent(w);
   clReleaseMemObject(m);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

static void info_invalid_param(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_event u = kt_user_event(ctx);
   unsigned char buf[32];
   const cl_uint bad[] = {0, CL_EVENT_COMMAND_QUEUE - 1, CL_EVENT_CONTEXT + 1, 0xdead,
                          CL_PROFILING_COMMAND_QUEUED, CL_MEM_TYPE, CL_QUEUE_CONTEXT};
   for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
      size_t ret = 1234;
      memset(buf, 0xA5, sizeof(buf));
      assert_int_equal(clGetEventInfo(u, bad[i], sizeof(buf), buf, &ret), CL_INVALID_VALUE);
      assert_int_equal(clGetEventInfo(u, bad[i], 0, NULL, &ret), CL_INVALID_VALUE);
      for (size_t j = 0; j < sizeof(buf); j++)
         assert_int_equal(buf[j], 0xA5);
   }
   clSetUserEventStatus(u, CL_COMPLETE);
   clReleaseEvent(u);
   clReleaseContext(ctx);
}

/* clGetEventInfo lists CL_INVALID_VALUE before CL_INVALID_EVENT;
 * clGetEventProfilingInfo lists it before CL_INVALID_EVENT too. */
static void info_error_order(void **state)
{
   (void)state;
   int junk = 0;
   cl_ulong v;
   cl_int e1 = clGetEventInfo((cl_event)&junk, 0xdead, sizeof(v), &v, NULL);
   cl_int e2 = clGetEventInfo(NULL, 0xdead, sizeof(v), &v, NULL);
   cl_int e3 = clGetEventProfilingInfo((cl_event)&junk, 0xdead, sizeof(v), &v, NULL);
   assert_int_equal(e1, CL_INVALID_VALUE);
   assert_int_equal(e2, CL_INVALID_VALUE);
   assert_int_equal(e3, CL_INVALID_VALUE);
}

/* ---- every entry point with bad handles ------------------------------- */

static atomic_int cb_calls;

static void CL_CALLBACK count_cb(cl_event e, cl_int status, void *data)
{
   (void)e;
   (void)status;
   (void)data;
   atomic_fetch_add(&cb_calls, 1);
}

static void invalid_event_everywhere(void **state)
{
   (void)state;
   int junk = 0;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, CL_QUEUE_PROFILING_ENABLE);
   cl_mem m = kt_buffer(ctx, 0, 64, NULL);
   atomic_store(&cb_calls, 0);
   cl_event dead = kt_released_event();
   cl_event bad[] = {NULL, (cl_event)&junk, dead, (cl_event)m, (cl_event)q, (cl_event)ctx,
                     (cl_event)kt_device(), (cl_event)kt_platform()};
   for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
      cl_event e = bad[i];
      cl_ulong t = 77;
      size_t ret = 77;
      assert_int_equal(clRetainEvent(e), CL_INVALID_EVENT);
      assert_int_equal(clReleaseEvent(e), CL_INVALID_EVENT);
      assert_int_equal(clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT, sizeof(t), &t, &ret),
                       CL_INVALID_EVENT);
      assert_int_equal(clSetUserEventStatus(e, CL_COMPLETE), CL_INVALID_EVENT);
      /* EVENT is listed before VALUE. */
      assert_int_equal(clSetUserEventStatus(e, 5), CL_INVALID_EVENT);
      assert_int_equal(clSetEventCallback(e, CL_COMPLETE, count_cb, NULL), CL_INVALID_EVENT);
      assert_int_equal(clSetEventCallback(e, CL_RUNNING, NULL, NULL), CL_INVALID_EVENT);
      assert_int_equal(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof(t), &t, &ret),
                       CL_INVALID_EVENT);
      assert_int_equal(t, 77);
      assert_int_equal(ret, 77);
   }
   assert_int_equal(kt_mem_refcount(m), 1);
   assert_int_equal(kt_queue_refcount(q), 1);
   assert_int_equal(atomic_load(&cb_calls), 0);
   clReleaseMemObject(m);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

/* ---- clRetainEvent / clReleaseEvent ----------------------------------- */

static void retain_release_counts(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   cl_mem m = kt_buffer(ctx, 0, 64, NULL);
   unsigned live = kt_live(KILN_TYPE_EVENT);
   cl_event w = command_event(q, m);
   cl_event u = kt_user_event(ctx);
   assert_int_equal(kt_live(KILN_TYPE_EVENT), live + 2);
   assert_int_equal(clRetainEvent(w), CL_SUCCESS);
   assert_int_equal(clRetainEvent(w), CL_SUCCESS);
   assert_int_equal(kt_event_refcount(w), 3);
   assert_int_equal(clReleaseEvent(w), CL_SUCCESS);
   assert_int_equal(kt_event_refcount(w), 2);
   assert_int_equal(clReleaseEvent(w), CL_SUCCESS);
   assert_int_equal(clReleaseEvent(w), CL_SUCCESS);
   assert_int_equal(clRetainEvent(w), CL_INVALID_EVENT);
   assert_int_equal(clReleaseEvent(w), CL_INVALID_EVENT);
   assert_int_equal(clRetainEvent(u), CL_SUCCESS);
   assert_int_equal(kt_event_refcount(u), 2);
   assert_int_equal(clSetUserEventStatus(u, CL_COMPLETE), CL_SUCCESS);
   assert_int_equal(kt_event_refcount(u), 2);
   assert_int_equal(clReleaseEvent(u), CL_SUCCESS);
   assert_int_equal(clReleaseEvent(u), CL_SUCCESS);
   assert_int_equal(clGetEventInfo(u, CL_EVENT_REFERENCE_COUNT, 0, NULL, NULL), CL_INVALID_EVENT);
   assert_int_equal(kt_live(KILN_TYPE_EVENT), live);
   clReleaseMemObject(m);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

/* Releasing a command's event before it ran does not cancel it. */
static void release_pending_command_event(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   cl_mem m = kt_buffer(ctx, 0, 64, NULL);
   cl_event gate = kt_user_event(ctx);
   unsigned char data[64];
   kt_fill(data, sizeof(data), 41);
   cl_event w = NULL;
   assert_int_equal(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, 64, data, 1, &gate, &w), CL_SUCCESS);
   atomic_store(&cb_calls, 0);
   assert_int_equal(clSetEventCallback(w, CL_COMPLETE, count_cb, NULL), CL_SUCCESS);
   assert_int_equal(clReleaseEvent(w), CL_SUCCESS);
   assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
   assert_int_equal(clFinish(q), CL_SUCCESS);
   kt_wait_counter(&cb_calls, 1);
   kt_assert_contents(q, m, data, 64);
   clReleaseEvent(gate);
   clReleaseMemObject(m);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

/* ---- clCreateUserEvent ------------------------------------------------ */

static void create_user_event(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   unsigned live = kt_live(KILN_TYPE_EVENT);
   cl_event u = kt_user_event(ctx);
   assert_int_equal(kt_event_status(u), CL_SUBMITTED);
   assert_int_equal(kt_event_type(u), CL_COMMAND_USER);
   assert_int_equal(kt_event_refcount(u), 1);
   cl_event u2 = clCreateUserEvent(ctx, NULL);
   assert_non_null(u2);
   assert_ptr_not_equal(u, u2);
   assert_int_equal(kt_live(KILN_TYPE_EVENT), live + 2);
   clSetUserEventStatus(u, CL_COMPLETE);
   clSetUserEventStatus(u2, CL_COMPLETE);
   clReleaseEvent(u);
   clReleaseEvent(u2);
   assert_int_equal(kt_live(KILN_TYPE_EVENT), live);
   clReleaseContext(ctx);
}

static void create_user_event_invalid_context(void **state)
{
   (void)state;
   int junk = 0;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   cl_mem m = kt_buffer(ctx, 0, 16, NULL);
   cl_context released = kt_released_context();
   cl_context bad[] = {NULL,          (cl_context)&junk,       released,
                       (cl_context)q, (cl_context)m,           (cl_context)kt_device(),
                       (cl_context)kt_platform()};
   unsigned live = kt_live(KILN_TYPE_EVENT);
   for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
      cl_int err = CL_SUCCESS;
      assert_null(clCreateUserEvent(bad[i], &err));
      assert_int_equal(err, CL_INVALID_CONTEXT);
      assert_null(clCreateUserEvent(bad[i], NULL));
   }
   assert_int_equal(kt_live(KILN_TYPE_EVENT), live);
   clReleaseMemObject(m);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

/* ---- clSetUserEventStatus --------------------------------------------- */

static void set_status_invalid_value(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_event u = kt_user_event(ctx);
   const cl_int bad[] = {CL_RUNNING, CL_SUBMITTED, CL_QUEUED, 4, 100, INT_MAX};
   for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
      assert_int_equal(clSetUserEventStatus(u, bad[i]), CL_INVALID_VALUE);
      assert_int_equal(kt_event_status(u), CL_SUBMITTED);
   }
   /* A failed call does not count as "already changed". */
   assert_int_equal(clSetUserEventStatus(u, CL_COMPLETE), CL_SUCCESS);
   assert_int_equal(kt_event_status(u), CL_COMPLETE);
   clReleaseEvent(u);
   clReleaseContext(ctx);
}

static void set_status_once(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_event u = kt_user_event(ctx);
   assert_int_equal(clSetUserEventStatus(u, CL_COMPLETE), CL_SUCCESS);
   assert_int_equal(clSetUserEventStatus(u, CL_COMPLETE), CL_INVALID_OPERATION);
   assert_int_equal(clSetUserEventStatus(u, -1), CL_INVALID_OPERATION);
   /* VALUE is listed before OPERATION. */
   assert_int_equal(clSetUserEventStatus(u, CL_SUBMITTED), CL_INVALID_VALUE);
   assert_int_equal(kt_event_status(u), CL_COMPLETE);
   clReleaseEvent(u);

   /* Negative values are errors the event keeps. */
   const cl_int errs[] = {-1, CL_OUT_OF_RESOURCES, -1000, INT_MIN};
   for (size_t i = 0; i < ARRAY_SIZE(errs); i++) {
      u = kt_user_event(ctx);
      assert_int_equal(clSetUserEventStatus(u, errs[i]), CL_SUCCESS);
      assert_int_equal(kt_event_status(u), errs[i]);
      assert_int_equal(clSetUserEventStatus(u, CL_COMPLETE), CL_INVALID_OPERATION);
      assert_int_equal(kt_event_status(u), errs[i]);
      clReleaseEvent(u);
   }
   clReleaseContext(ctx);
}

static void set_status_not_user_event(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   cl_mem m = kt_buffer(ctx, 0, 64, NULL);
   cl_event gate = kt_user_event(ctx);
   cl_event w = NULL, mk = NULL;
   unsigned char data[64] = {0};
   assert_int_equal(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, 64, data, 1, &gate, &w), CL_SUCCESS);
   assert_int_equal(clEnqueueMarker(q, &mk), CL_SUCCESS);
   /* Command events are not user events, pending or complete. */
   assert_int_equal(clSetUserEventStatus(w, CL_COMPLETE), CL_INVALID_EVENT);
   assert_int_equal(clSetUserEventStatus(mk, -1), CL_INVALID_EVENT);
   assert_int_equal(clSetUserEventStatus(w, 3), CL_INVALID_EVENT);
   cl_int s = kt_event_status(w);
   assert_true(s == CL_QUEUED || s == CL_SUBMITTED);
   assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
   assert_int_equal(clWaitForEvents(1, &mk), CL_SUCCESS);
   assert_int_equal(kt_event_status(w), CL_COMPLETE);
   assert_int_equal(clSetUserEventStatus(w, CL_COMPLETE), CL_INVALID_EVENT);
   clReleaseEvent(w);
   clReleaseEvent(mk);
   clReleaseEvent(gate);
   clReleaseMemObject(m);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

/* ---- clSetEventCallback ----------------------------------------------- */

struct cb_log {
   atomic_int calls;
   cl_event event;
   cl_int status;
   void *data;
};

static void CL_CALLBACK log_cb(cl_event e, cl_int status, void *data)
{
   struct cb_log *l = data;
   l->event = e;
   l->status = status;
   l->data = data;
   atomic_fetch_add(&l->calls, 1);
}

static void callback_invalid_value(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_event u = kt_user_event(ctx);
   struct cb_log log = {0};
   assert_int_equal(clSetEventCallback(u, CL_COMPLETE, NULL, &log), CL_INVALID_VALUE);
   /* CL_COMPLETE, and 1.2's CL_SUBMITTED and CL_RUNNING, only. */
   const cl_int bad[] = {CL_QUEUED, -1, 4, INT_MAX};
   for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
      assert_int_equal(clSetEventCallback(u, bad[i], log_cb, &log), CL_INVALID_VALUE);
      assert_int_equal(clSetEventCallback(u, bad[i], NULL, &log), CL_INVALID_VALUE);
   }
   /* None of them was registered. */
   assert_int_equal(clSetUserEventStatus(u, CL_COMPLETE), CL_SUCCESS);
   sleep_ms(20);
   assert_int_equal(atomic_load(&log.calls), 0);
   /* The same on a completed event, which would run a callback at once. */
   assert_int_equal(clSetEventCallback(u, CL_QUEUED, log_cb, &log), CL_INVALID_VALUE);
   assert_int_equal(clSetEventCallback(u, CL_COMPLETE, NULL, &log), CL_INVALID_VALUE);
   sleep_ms(20);
   assert_int_equal(atomic_load(&log.calls), 0);
   clReleaseEvent(u);
   clReleaseContext(ctx);
}

static void callback_runs_on_completion(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_event u = kt_user_event(ctx);
   struct cb_log a = {0}, b = {0};
   assert_int_equal(clSetEventCallback(u, CL_COMPLETE, log_cb, &a), CL_SUCCESS);
   assert_int_equal(clSetEventCallback(u, CL_COMPLETE, log_cb, &b), CL_SUCCESS);
   sleep_ms(20);
   assert_int_equal(atomic_load(&a.calls), 0);
   assert_int_equal(clSetUserEventStatus(u, CL_COMPLETE), CL_SUCCESS);
   kt_wait_counter(&a.calls, 1);
   kt_wait_counter(&b.calls, 1);
   assert_ptr_equal(a.event, u);
   assert_int_equal(a.status, CL_COMPLETE);
   assert_ptr_equal(a.data, &a);
   assert_ptr_equal(b.data, &b);
   /* On an event already complete: called too, once. */
   struct cb_log c = {0};
   assert_int_equal(clSetEventCallback(u, CL_COMPLETE, log_cb, &c), CL_SUCCESS);
   kt_wait_counter(&c.calls, 1);
   assert_int_equal(c.status, CL_COMPLETE);
   sleep_ms(20);
   assert_int_equal(atomic_load(&a.calls), 1);
   assert_int_equal(atomic_load(&c.calls), 1);
   clReleaseEvent(u);
   clReleaseContext(ctx);
}

/* 1.2 §5.9: CL_SUBMITTED and CL_RUNNING callbacks run when the command
 * gets there, in that order, before the CL_COMPLETE ones; each hears the
 * status it was registered for.  On a failure they all hear the error. */
struct order_log {
   atomic_int n;
   cl_int seen[8];
};

static struct order_log order;

static void CL_CALLBACK order_cb(cl_event e, cl_int status, void *data)
{
   (void)e;
   (void)data;
   int i = atomic_fetch_add(&order.n, 1);
   if (i < 8)
      order.seen[i] = status;
}

static void callback_submitted_running(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   cl_mem m = kt_buffer(ctx, 0, 64, NULL);
   unsigned char data[64];
   for (int fail = 0; fail < 2; fail++) {
      memset(&order, 0, sizeof(order));
      cl_event u = kt_user_event(ctx), w = NULL;
      assert_int_equal(clEnqueueReadBuffer(q, m, CL_FALSE, 0, 64, data, 1, &u, &w), CL_SUCCESS);
      const cl_int types[] = {CL_COMPLETE, CL_RUNNING, CL_SUBMITTED};
      for (int i = 0; i < 3; i++)
         assert_int_equal(clSetEventCallback(w, types[i], order_cb, NULL), CL_SUCCESS);
      sleep_ms(20);
      assert_int_equal(atomic_load(&order.n), 0);
      assert_int_equal(clSetUserEventStatus(u, fail ? -7 : CL_COMPLETE), CL_SUCCESS);
      clFinish(q); /* its result after a failed command is not the point */
      kt_wait_counter(&order.n, 3);
      if (fail) {
         for (int i = 0; i < 3; i++)
            assert_true(order.seen[i] < 0);
      } else {
         assert_int_equal(order.seen[0], CL_SUBMITTED);
         assert_int_equal(order.seen[1], CL_RUNNING);
         assert_int_equal(order.seen[2], CL_COMPLETE);
      }
      /* Registered after the fact: runs at once. */
      assert_int_equal(clSetEventCallback(w, CL_SUBMITTED, order_cb, NULL), CL_SUCCESS);
      kt_wait_counter(&order.n, 4);
      sleep_ms(20);
      assert_int_equal(atomic_load(&order.n), 4);
      clReleaseEvent(w);
      clReleaseEvent(u);
   }
   clReleaseMemObject(m);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

static void callback_gets_error_status(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   cl_mem m = kt_buffer(ctx, 0, 64, NULL);
   cl_event u = kt_user_event(ctx);
   cl_event w = NULL;
   unsigned char data[64];
   assert_int_equal(clEnqueueReadBuffer(q, m, CL_FALSE, 0, 64, data, 1, &u, &w), CL_SUCCESS);
   struct cb_log lu = {0}, lw = {0};
   assert_int_equal(clSetEventCallback(u, CL_COMPLETE, log_cb, &lu), CL_SUCCESS);
   assert_int_equal(clSetEventCallback(w, CL_COMPLETE, log_cb, &lw), CL_SUCCESS);
   assert_int_equal(clSetUserEventStatus(u, -12), CL_SUCCESS);
   kt_wait_counter(&lu.calls, 1);
   kt_wait_counter(&lw.calls, 1);
   /* "command_exec_status ... is an error code" for abnormal ends. */
   assert_int_equal(lu.status, -12);
   assert_true(lw.status < 0);
   assert_ptr_equal(lw.event, w);
   clReleaseEvent(w);
   clReleaseEvent(u);
   clReleaseMemObject(m);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

/* A callback that releases its own event (a common pattern). */
static void CL_CALLBACK release_cb(cl_event e, cl_int status, void *data)
{
   (void)status;
   if (clReleaseEvent(e) == CL_SUCCESS)
      atomic_fetch_add((atomic_int *)data, 1);
}

static void callback_releases_event(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   cl_mem m = kt_buffer(ctx, 0, 64, NULL);
   cl_event gate = kt_user_event(ctx);
   unsigned live = kt_live(KILN_TYPE_EVENT);
   atomic_int released = 0;
   unsigned char data[64] = {0};
   for (int i = 0; i < 8; i++) {
      cl_event w = NULL;
      assert_int_equal(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, 64, data, 1, &gate, &w),
                       CL_SUCCESS);
      assert_int_equal(clSetEventCallback(w, CL_COMPLETE, release_cb, &released), CL_SUCCESS);
   }
   assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
   assert_int_equal(clFinish(q), CL_SUCCESS);
   kt_wait_counter(&released, 8);
   assert_int_equal(kt_live(KILN_TYPE_EVENT), live);
   clReleaseEvent(gate);
   clReleaseMemObject(m);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

/* ---- clGetEventProfilingInfo ----------------------------------------- */

static const cl_profiling_info prof_params[] = {
   CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT, CL_PROFILING_COMMAND_START,
   CL_PROFILING_COMMAND_END};

static void profiling_values(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, CL_QUEUE_PROFILING_ENABLE);
   cl_mem m = kt_buffer(ctx, 0, 4096, NULL);
   cl_event events[3];
   events[0] = command_event(q, m);
   assert_int_equal(clEnqueueMarker(q, &events[1]), CL_SUCCESS);
   assert_int_equal(clEnqueueCopyBuffer(q, m, m, 0, 2048, 2048, 0, NULL, &events[2]), CL_SUCCESS);
   assert_int_equal(clWaitForEvents(3, events), CL_SUCCESS);
   for (size_t i = 0; i < ARRAY_SIZE(events); i++) {
      cl_ulong t[4];
      for (size_t p = 0; p < 4; p++) {
         kt_check_info(kt_profiling_info, events[i], prof_params[p], sizeof(cl_ulong));
         kt_info_value(kt_profiling_info, events[i], prof_params[p], &t[p], sizeof(t[p]));
      }
      assert_true(t[0] > 0);
      assert_true(t[0] <= t[1]);
      assert_true(t[1] <= t[2]);
      assert_true(t[2] <= t[3]);
   }
   /* Later commands of an in-order queue start after earlier ones end. */
   cl_ulong end0, start2;
   kt_info_value(kt_profiling_info, events[0], CL_PROFILING_COMMAND_END, &end0, sizeof(end0));
   kt_info_value(kt_profiling_info, events[2], CL_PROFILING_COMMAND_START, &start2,
                 sizeof(start2));
   assert_true(end0 <= start2);
   for (size_t i = 0; i < ARRAY_SIZE(events); i++)
      clReleaseEvent(events[i]);
   clReleaseMemObject(m);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

static void expect_not_available(cl_event e)
{
   for (size_t p = 0; p < 4; p++) {
      cl_ulong t = 77;
      size_t ret = 77;
      assert_int_equal(clGetEventProfilingInfo(e, prof_params[p], sizeof(t), &t, &ret),
                       CL_PROFILING_INFO_NOT_AVAILABLE);
      assert_int_equal(clGetEventProfilingInfo(e, prof_params[p], 0, NULL, &ret),
                       CL_PROFILING_INFO_NOT_AVAILABLE);
      assert_int_equal(t, 77);
      assert_int_equal(ret, 77);
   }
   /* NOT_AVAILABLE is listed before VALUE. */
   cl_ulong t;
   assert_int_equal(clGetEventProfilingInfo(e, 0xdead, sizeof(t), &t, NULL),
                    CL_PROFILING_INFO_NOT_AVAILABLE);
   assert_int_equal(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, 1, &t, NULL),
                    CL_PROFILING_INFO_NOT_AVAILABLE);
}

static void profiling_not_available(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_command_queue plain = kt_queue(ctx, 0);
   cl_command_queue prof = kt_queue(ctx, CL_QUEUE_PROFILING_ENABLE);
   cl_mem m = kt_buffer(ctx, 0, 64, NULL);

   /* A queue without CL_QUEUE_PROFILING_ENABLE. */
   cl_event w = command_event(plain, m);
   expect_not_available(w);
   clReleaseEvent(w);

   /* User events, before and after completion. */
   cl_event u = kt_user_event(ctx);
   expect_not_available(u);

   /* A command that has not completed, then completes. */
   unsigned char data[64];
   assert_int_equal(clEnqueueReadBuffer(prof, m, CL_FALSE, 0, 64, data, 1, &u, &w), CL_SUCCESS);
   expect_not_available(w);
   assert_int_equal(clSetUserEventStatus(u, CL_COMPLETE), CL_SUCCESS);
   expect_not_available(u);
   assert_int_equal(clWaitForEvents(1, &w), CL_SUCCESS);
   cl_ulong t = 0;
   assert_int_equal(clGetEventProfilingInfo(w, CL_PROFILING_COMMAND_END, sizeof(t), &t, NULL),
                    CL_SUCCESS);
   assert_true(t > 0);
   clReleaseEvent(w);
   clReleaseEvent(u);

   /* A command that failed: its status is not CL_COMPLETE. */
   u = kt_user_event(ctx);
   assert_int_equal(clEnqueueReadBuffer(prof, m, CL_FALSE, 0, 64, data, 1, &u, &w), CL_SUCCESS);
   assert_int_equal(clSetUserEventStatus(u, -3), CL_SUCCESS);
   assert_int_equal(clWaitForEvents(1, &w), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
   expect_not_available(w);
   clReleaseEvent(w);
   clReleaseEvent(u);

   clReleaseMemObject(m);
   clReleaseCommandQueue(plain);
   clReleaseCommandQueue(prof);
   clReleaseContext(ctx);
}

static void profiling_invalid_param(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, CL_QUEUE_PROFILING_ENABLE);
   cl_mem m = kt_buffer(ctx, 0, 64, NULL);
   cl_event w = command_event(q, m);
   /* 0x1285, past 2.0's CL_PROFILING_COMMAND_COMPLETE (0x1284: a
    * command's END, children included, valid in 3.0). */
   const cl_uint bad[] = {0, CL_PROFILING_COMMAND_QUEUED - 1, 0x1285, 0xdead,
                          CL_EVENT_COMMAND_TYPE};
   cl_ulong end = 0, complete = 1;
   assert_int_equal(clGetEventProfilingInfo(w, CL_PROFILING_COMMAND_END, sizeof(end), &end, NULL),
                    CL_SUCCESS);
   assert_int_equal(clGetEventProfilingInfo(w, 0x1284, sizeof(complete), &complete, NULL),
                    CL_SUCCESS);
   assert_int_equal(complete, end);
   for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
      cl_ulong t = 77;
      size_t ret = 77;
      assert_int_equal(clGetEventProfilingInfo(w, bad[i], sizeof(t), &t, &ret),
                       CL_INVALID_VALUE);
      assert_int_equal(t, 77);
   }
   clReleaseEvent(w);
   clReleaseMemObject(m);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(wait_invalid_value),
      cmocka_unit_test(wait_invalid_event),
      cmocka_unit_test(wait_events_of_two_contexts),
      cmocka_unit_test(wait_context_before_invalid_event),
      cmocka_unit_test(wait_success),
      cmocka_unit_test(wait_failed_events),
      cmocka_unit_test(info_values),
      cmocka_unit_test(info_invalid_param),
      cmocka_unit_test(info_error_order),
      cmocka_unit_test(invalid_event_everywhere),
      cmocka_unit_test(retain_release_counts),
      cmocka_unit_test(release_pending_command_event),
      cmocka_unit_test(create_user_event),
      cmocka_unit_test(create_user_event_invalid_context),
      cmocka_unit_test(set_status_invalid_value),
      cmocka_unit_test(set_status_once),
      cmocka_unit_test(set_status_not_user_event),
      cmocka_unit_test(callback_invalid_value),
      cmocka_unit_test(callback_runs_on_completion),
      cmocka_unit_test(callback_gets_error_status),
      cmocka_unit_test(callback_submitted_running),
      cmocka_unit_test(callback_releases_event),
      cmocka_unit_test(profiling_values),
      cmocka_unit_test(profiling_not_available),
      cmocka_unit_test(profiling_invalid_param),
   };
   return cmocka_run_group_tests_name("event", tests, NULL, NULL);
}
