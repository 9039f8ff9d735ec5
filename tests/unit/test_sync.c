/* clEnqueueMarker, clEnqueueBarrier, clEnqueueWaitForEvents (OpenCL 1.1
 * 5.10), on in-order and out-of-order queues. */
#include "kiln_test_mem.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "core/queue.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define SENTINEL ((cl_event)(uintptr_t)0x5e5e5e)

static void sleep_ms(long ms)
{
   struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
   nanosleep(&ts, NULL);
}

static bool pending(cl_event e)
{
   cl_int s = kt_event_status(e);
   return s == CL_QUEUED || s == CL_SUBMITTED;
}

static const cl_command_queue_properties modes[] = {0, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE};

/* Bad queue handles; the released one is made last (see kt_released_queue). */
static size_t bad_queues(cl_command_queue *out, cl_context ctx, cl_mem m, int *junk)
{
   size_t n = 0;
   out[n++] = NULL;
   out[n++] = (cl_command_queue)junk;
   out[n++] = (cl_command_queue)ctx;
   out[n++] = (cl_command_queue)m;
   out[n++] = (cl_command_queue)kt_device();
   out[n++] = kt_released_queue();
   return n;
}

/* ---- clEnqueueMarker ------------------------------------------------- */

static void marker_invalid(void **state)
{
   (void)state;
   int junk = 0;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   cl_mem m = kt_buffer(ctx, 0, 16, NULL);
   unsigned live = kt_live(KILN_TYPE_EVENT);
   cl_command_queue bad[8];
   size_t n = bad_queues(bad, ctx, m, &junk);
   for (size_t i = 0; i < n; i++) {
      cl_event e = SENTINEL;
      assert_int_equal(clEnqueueMarker(bad[i], &e), CL_INVALID_COMMAND_QUEUE);
      assert_ptr_equal(e, SENTINEL);
      /* QUEUE is listed before VALUE. */
      assert_int_equal(clEnqueueMarker(bad[i], NULL), CL_INVALID_COMMAND_QUEUE);
   }
   assert_int_equal(clEnqueueMarker(q, NULL), CL_INVALID_VALUE);
   assert_int_equal(kt_live(KILN_TYPE_EVENT), live);
   assert_int_equal(kt_queue_refcount(q), 1);
   assert_int_equal(clFinish(q), CL_SUCCESS);
   assert_int_equal(kt_live(KILN_TYPE_EVENT), live);
   clReleaseMemObject(m);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

static void marker_waits_for_earlier_commands(void **state)
{
   (void)state;
   for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
      cl_context ctx = kt_context();
      cl_command_queue q = kt_queue(ctx, modes[i]);
      cl_mem m = kt_buffer(ctx, 0, 64, NULL);
      cl_event gate = kt_user_event(ctx);
      unsigned char data[64];
      kt_fill(data, sizeof(data), 50);

      /* An empty queue's marker completes. */
      cl_event first = NULL;
      assert_int_equal(clEnqueueMarker(q, &first), CL_SUCCESS);
      assert_int_equal(clWaitForEvents(1, &first), CL_SUCCESS);
      assert_int_equal(kt_event_type(first), CL_COMMAND_MARKER);
      cl_command_queue eq = NULL;
      kt_info_value(kt_event_info, first, CL_EVENT_COMMAND_QUEUE, &eq, sizeof(eq));
      assert_ptr_equal(eq, q);
      cl_context ec = NULL;
      kt_info_value(kt_event_info, first, CL_EVENT_CONTEXT, &ec, sizeof(ec));
      assert_ptr_equal(ec, ctx);
      assert_int_equal(kt_event_refcount(first), 1);
      clReleaseEvent(first);

      cl_event w = NULL, mk = NULL;
      assert_int_equal(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, 64, data, 1, &gate, &w),
                       CL_SUCCESS);
      assert_int_equal(clEnqueueMarker(q, &mk), CL_SUCCESS);
      sleep_ms(20);
      assert_true(pending(w));
      assert_true(pending(mk));
      assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
      assert_int_equal(clWaitForEvents(1, &mk), CL_SUCCESS);
      assert_int_equal(kt_event_status(w), CL_COMPLETE);
      kt_assert_contents(q, m, data, 64);
      clReleaseEvent(w);
      clReleaseEvent(mk);
      clReleaseEvent(gate);
      clReleaseMemObject(m);
      clReleaseCommandQueue(q);
      clReleaseContext(ctx);
   }
}

/* ---- clEnqueueBarrier ------------------------------------------------ */

static void barrier_invalid(void **state)
{
   (void)state;
   int junk = 0;
   cl_context ctx = kt_context();
   cl_mem m = kt_buffer(ctx, 0, 16, NULL);
   unsigned live = kt_live(KILN_TYPE_EVENT);
   cl_command_queue bad[8];
   size_t n = bad_queues(bad, ctx, m, &junk);
   for (size_t i = 0; i < n; i++)
      assert_int_equal(clEnqueueBarrier(bad[i]), CL_INVALID_COMMAND_QUEUE);
   assert_int_equal(kt_live(KILN_TYPE_EVENT), live);
   clReleaseMemObject(m);
   clReleaseContext(ctx);
}

static void barrier_orders_out_of_order_queue(void **state)
{
   (void)state;
   for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
      cl_context ctx = kt_context();
      cl_command_queue q = kt_queue(ctx, modes[i]);
      cl_mem a = kt_buffer(ctx, 0, 64, NULL), b = kt_buffer(ctx, 0, 64, NULL);
      cl_event gate = kt_user_event(ctx);
      unsigned live = kt_live(KILN_TYPE_EVENT);
      unsigned char da[64], db[64];
      kt_fill(da, 64, 51);
      kt_fill(db, 64, 52);
      /* An empty queue's barrier is fine. */
      assert_int_equal(clEnqueueBarrier(q), CL_SUCCESS);
      cl_event wa = NULL, wb = NULL;
      assert_int_equal(clEnqueueWriteBuffer(q, a, CL_FALSE, 0, 64, da, 1, &gate, &wa),
                       CL_SUCCESS);
      assert_int_equal(clEnqueueBarrier(q), CL_SUCCESS);
      /* No wait list: only the barrier holds it back. */
      assert_int_equal(clEnqueueWriteBuffer(q, b, CL_FALSE, 0, 64, db, 0, NULL, &wb),
                       CL_SUCCESS);
      sleep_ms(20);
      assert_true(pending(wa));
      assert_true(pending(wb));
      assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
      assert_int_equal(clWaitForEvents(1, &wb), CL_SUCCESS);
      assert_int_equal(kt_event_status(wa), CL_COMPLETE);
      kt_assert_contents(q, a, da, 64);
      kt_assert_contents(q, b, db, 64);
      clReleaseEvent(wa);
      clReleaseEvent(wb);
      assert_int_equal(clFinish(q), CL_SUCCESS);
      /* Barriers hand out no event. */
      assert_int_equal(kt_live(KILN_TYPE_EVENT), live);
      clReleaseEvent(gate);
      clReleaseMemObject(a);
      clReleaseMemObject(b);
      clReleaseCommandQueue(q);
      clReleaseContext(ctx);
   }
}

/* ---- clEnqueueWaitForEvents ------------------------------------------ */

struct fx {
   cl_context ctx, ctx2;
   cl_command_queue q;
   cl_mem m;
   cl_event done, done2;
   unsigned live;
};

static struct fx *fx_new(cl_command_queue_properties props)
{
   struct fx *f = calloc(1, sizeof(*f));
   assert_non_null(f);
   f->ctx = kt_context();
   f->ctx2 = kt_context();
   f->q = kt_queue(f->ctx, props);
   f->m = kt_buffer(f->ctx, 0, 64, NULL);
   f->done = kt_user_event(f->ctx);
   f->done2 = kt_user_event(f->ctx2);
   clSetUserEventStatus(f->done, CL_COMPLETE);
   clSetUserEventStatus(f->done2, CL_COMPLETE);
   f->live = kt_live(KILN_TYPE_EVENT);
   return f;
}

static void fx_free(struct fx *f)
{
   assert_int_equal(clFinish(f->q), CL_SUCCESS);
   assert_int_equal(kt_live(KILN_TYPE_EVENT), f->live);
   assert_int_equal(kt_event_refcount(f->done), 1);
   assert_int_equal(kt_event_refcount(f->done2), 1);
   clReleaseEvent(f->done);
   clReleaseEvent(f->done2);
   clReleaseMemObject(f->m);
   clReleaseCommandQueue(f->q);
   clReleaseContext(f->ctx);
   clReleaseContext(f->ctx2);
   free(f);
}

static void wait_for_events_invalid_queue(void **state)
{
   (void)state;
   struct fx *f = fx_new(0);
   int junk = 0;
   cl_command_queue bad[8];
   size_t n = bad_queues(bad, f->ctx, f->m, &junk);
   cl_event bad_ev = (cl_event)&junk;
   for (size_t i = 0; i < n; i++) {
      assert_int_equal(clEnqueueWaitForEvents(bad[i], 1, &f->done), CL_INVALID_COMMAND_QUEUE);
      /* Before everything else. */
      assert_int_equal(clEnqueueWaitForEvents(bad[i], 0, NULL), CL_INVALID_COMMAND_QUEUE);
      assert_int_equal(clEnqueueWaitForEvents(bad[i], 1, &bad_ev), CL_INVALID_COMMAND_QUEUE);
      assert_int_equal(clEnqueueWaitForEvents(bad[i], 1, &f->done2), CL_INVALID_COMMAND_QUEUE);
   }
   fx_free(f);
}

static void wait_for_events_invalid_list(void **state)
{
   (void)state;
   struct fx *f = fx_new(0);
   int junk = 0;
   assert_int_equal(clEnqueueWaitForEvents(f->q, 0, &f->done), CL_INVALID_VALUE);
   assert_int_equal(clEnqueueWaitForEvents(f->q, 1, NULL), CL_INVALID_VALUE);
   assert_int_equal(clEnqueueWaitForEvents(f->q, 0, NULL), CL_INVALID_VALUE);
   cl_event bad[] = {NULL, (cl_event)&junk, (cl_event)f->m, (cl_event)f->q, (cl_event)f->ctx};
   for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
      assert_int_equal(clEnqueueWaitForEvents(f->q, 1, &bad[i]), CL_INVALID_EVENT);
      cl_event two[] = {f->done, bad[i]};
      assert_int_equal(clEnqueueWaitForEvents(f->q, 2, two), CL_INVALID_EVENT);
   }
   cl_event dead = kt_released_event();
   assert_int_equal(clEnqueueWaitForEvents(f->q, 1, &dead), CL_INVALID_EVENT);
   /* Events of another context. */
   assert_int_equal(clEnqueueWaitForEvents(f->q, 1, &f->done2), CL_INVALID_CONTEXT);
   cl_event mixed[] = {f->done, f->done2};
   assert_int_equal(clEnqueueWaitForEvents(f->q, 2, mixed), CL_INVALID_CONTEXT);
   /* None of these enqueued anything: a marker after them completes
    * at once, and no handle was made. */
   cl_event mk = NULL;
   assert_int_equal(clEnqueueMarker(f->q, &mk), CL_SUCCESS);
   assert_int_equal(clWaitForEvents(1, &mk), CL_SUCCESS);
   clReleaseEvent(mk);
   fx_free(f);
}

/* 1.1 lists CL_INVALID_CONTEXT before CL_INVALID_EVENT. */
static void wait_for_events_context_before_invalid_event(void **state)
{
   (void)state;
   struct fx *f = fx_new(0);
   int junk = 0;
   cl_event list[] = {(cl_event)&junk, f->done2};
   cl_int err = clEnqueueWaitForEvents(f->q, 2, list);
   fx_free(f);
   KNOWN_BUG(err == CL_INVALID_EVENT,
             "src/api/sync.c clEnqueueWaitForEvents: {invalid, event of another context} gives "
             "CL_INVALID_EVENT (first bad entry wins); 1.1 lists CL_INVALID_CONTEXT first");
   assert_int_equal(err, CL_INVALID_CONTEXT);
}

static void wait_for_events_orders_later_commands(void **state)
{
   (void)state;
   for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
      struct fx *f = fx_new(modes[i]);
      cl_event gate = kt_user_event(f->ctx);
      unsigned char data[64];
      kt_fill(data, 64, 53);
      assert_int_equal(clEnqueueWaitForEvents(f->q, 1, &gate), CL_SUCCESS);
      cl_event w = NULL;
      assert_int_equal(clEnqueueWriteBuffer(f->q, f->m, CL_FALSE, 0, 64, data, 0, NULL, &w),
                       CL_SUCCESS);
      sleep_ms(20);
      assert_true(pending(w));
      /* A list of several, one already complete, one listed twice. */
      cl_event gate2 = kt_user_event(f->ctx);
      cl_event list[] = {f->done, gate2, gate2};
      assert_int_equal(clEnqueueWaitForEvents(f->q, 3, list), CL_SUCCESS);
      cl_event w2 = NULL;
      assert_int_equal(clEnqueueReadBuffer(f->q, f->m, CL_FALSE, 0, 64, data, 0, NULL, &w2),
                       CL_SUCCESS);
      assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
      assert_int_equal(clWaitForEvents(1, &w), CL_SUCCESS);
      sleep_ms(20);
      assert_true(pending(w2));
      assert_int_equal(clSetUserEventStatus(gate2, CL_COMPLETE), CL_SUCCESS);
      assert_int_equal(clWaitForEvents(1, &w2), CL_SUCCESS);
      clReleaseEvent(w);
      clReleaseEvent(w2);
      clReleaseEvent(gate);
      clReleaseEvent(gate2);
      fx_free(f);
   }
}

/* ---- queue lifetime ------------------------------------------------- */

/* Kiln's internal references on a queue once the application released it
 * and every command completed: only the one this test holds must remain
 * (completed commands must not keep the queue, and with it the context,
 * alive).  Polls briefly: a command drops its references just after
 * clFinish sees it complete. */
static unsigned internal_refs_after_release(cl_command_queue_properties props)
{
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, props);
   cl_mem m = kt_buffer(ctx, 0, 64, NULL);
   unsigned char data[64] = {0};
   cl_event mk = NULL;
   assert_int_equal(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, 64, data, 0, NULL, NULL), CL_SUCCESS);
   assert_int_equal(clEnqueueReadBuffer(q, m, CL_FALSE, 0, 64, data, 0, NULL, NULL), CL_SUCCESS);
   assert_int_equal(clEnqueueMarker(q, &mk), CL_SUCCESS);
   assert_int_equal(clFinish(q), CL_SUCCESS);
   clReleaseEvent(mk);
   clReleaseMemObject(m);
   kiln_object_ref(&q->obj);
   assert_int_equal(clReleaseCommandQueue(q), CL_SUCCESS);
   assert_int_equal(clReleaseContext(ctx), CL_SUCCESS);
   unsigned n = 0;
   for (int i = 0; i < 300; i++) {
      n = atomic_load(&q->obj.internal);
      if (n == 1)
         break;
      sleep_ms(1);
   }
   /* Frees the queue (and its context) when nothing else holds it. */
   kiln_object_unref(&q->obj);
   return n;
}

/* A queue the application released still runs what it holds, while its
 * handle is refused everywhere. */
static void released_queue_finishes_its_commands(void **state)
{
   (void)state;
   cl_context ctx = kt_context();
   cl_command_queue q = kt_queue(ctx, 0);
   cl_mem m = kt_buffer(ctx, 0, 64, NULL);
   cl_event gate = kt_user_event(ctx);
   unsigned char data[64], got[64];
   kt_fill(data, 64, 54);
   cl_event w = NULL, mk = NULL;
   assert_int_equal(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, 64, data, 1, &gate, &w), CL_SUCCESS);
   assert_int_equal(clReleaseCommandQueue(q), CL_SUCCESS);
   unsigned live = kt_live(KILN_TYPE_EVENT);
   assert_int_equal(clEnqueueMarker(q, &mk), CL_INVALID_COMMAND_QUEUE);
   assert_int_equal(clEnqueueBarrier(q), CL_INVALID_COMMAND_QUEUE);
   assert_int_equal(clEnqueueWaitForEvents(q, 1, &gate), CL_INVALID_COMMAND_QUEUE);
   assert_int_equal(clEnqueueReadBuffer(q, m, CL_TRUE, 0, 64, got, 0, NULL, NULL),
                    CL_INVALID_COMMAND_QUEUE);
   assert_int_equal(clFinish(q), CL_INVALID_COMMAND_QUEUE);
   assert_int_equal(kt_live(KILN_TYPE_EVENT), live);
   assert_null(mk);
   cl_command_queue eq = NULL;
   kt_info_value(kt_event_info, w, CL_EVENT_COMMAND_QUEUE, &eq, sizeof(eq));
   assert_ptr_equal(eq, q);
   assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
   assert_int_equal(clWaitForEvents(1, &w), CL_SUCCESS);
   cl_command_queue q2 = kt_queue(ctx, 0);
   kt_assert_contents(q2, m, data, 64);
   clReleaseCommandQueue(q2);
   clReleaseEvent(w);
   clReleaseEvent(gate);
   clReleaseMemObject(m);
   clReleaseContext(ctx);
}

static void released_queue_is_freed(void **state)
{
   (void)state;
   assert_int_equal(internal_refs_after_release(0), 1);
   unsigned ooo = internal_refs_after_release(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
   KNOWN_BUG(ooo > 1,
             "src/core/queue.c kiln_queue_command_done: completed commands stay in an "
             "out-of-order queue's since_barrier list, each holding the queue (event->queue) "
             "while the queue holds them: after clReleaseCommandQueue the queue, its "
             "context and those events are never freed (LeakSanitizer: leak)");
   assert_int_equal(ooo, 1);
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(marker_invalid),
      cmocka_unit_test(marker_waits_for_earlier_commands),
      cmocka_unit_test(barrier_invalid),
      cmocka_unit_test(barrier_orders_out_of_order_queue),
      cmocka_unit_test(wait_for_events_invalid_queue),
      cmocka_unit_test(wait_for_events_invalid_list),
      cmocka_unit_test(wait_for_events_context_before_invalid_event),
      cmocka_unit_test(wait_for_events_orders_later_commands),
      cmocka_unit_test(released_queue_finishes_its_commands),
      cmocka_unit_test(released_queue_is_freed),
   };
   return cmocka_run_group_tests_name("sync", tests, NULL, NULL);
}
