/* The CUDA device's launch path through the cl* entry points and core,
 * over the fake libcuda (docs/design.md, "Executor: the launch path"): a
 * launch with nothing of its queue ahead of it goes to the stream from the
 * thread that enqueues it (no hand-over to the executor thread), a queue
 * without profiling costs one CUDA event per launch whose event the
 * application holds (the fence's end, without timing; a profiling queue
 * two timed ones, for START and END) and launches without events share
 * one, and what the fast path skips still works: profiling times, callbacks,
 * wait lists with failed or user events, out-of-order queues, a kernel
 * fault failing its own event.
 * Counted from the fake's calls, never timed.  KILN_DEVICES=cuda. */
#include <pthread.h>
#include <time.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <CL/cl.h>

#include "fake_cuda.h"
#include "fake_cuda_cl.h"

static cl_device_id device;
static cl_context ctx;
static cl_program program;
static cl_kernel kernel, faulty;
static cl_mem buf;

static const char *source =
   "__kernel void bump(__global int *p) { p[get_global_id(0)] += 1; }\n"
   "__kernel void faulty(__global int *p) { p[get_global_id(0)] = 0; }\n";

/* What bump() does, from the parameters of nvptx_abi.h: p, then the
 * global offset x, y, z and work_dim. */
static void run_bump(const struct fake_cuda_launch *l)
{
   uint64_t p;
   fake_cuda_param(l, 0, &p, sizeof(p));
   size_t n = (size_t)l->grid[0] * l->block[0];
   int *data = fake_cuda_ptr(p, n * sizeof(int));
   assert_non_null(data);
   for (size_t i = 0; i < n; i++)
      data[i]++;
}

static const struct fake_cuda_launch *launch(unsigned i)
{
   return &fake_cuda.launches[i % FAKE_CUDA_MAX_LAUNCHES];
}

static int read_first(cl_command_queue q)
{
   int v = -1;
   assert_int_equal(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof(v), &v, 0, NULL, NULL),
                    CL_SUCCESS);
   return v;
}

static void zero(cl_command_queue q)
{
   int zeros[64] = {0};
   assert_int_equal(clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, sizeof(zeros), zeros, 0, NULL, NULL),
                    CL_SUCCESS);
}

/* Back to back on an in-order queue without profiling: the first launch
 * is recorded by this thread, the others by this thread or the queue's
 * executor (launches in flight ahead), each with one cuEventRecord (the
 * fence); a launch and clFinish in turn, by this thread alone. */
static void test_launches_on_enqueuing_thread(void **state)
{
   (void)state;
   cl_int err;
   /* Writes and reads on a queue of their own: they go through the
    * executor thread, which could still be finishing its batch (and hold
    * the queue) when the first launch comes. */
   cl_command_queue io = clCreateCommandQueue(ctx, device, 0, &err);
   assert_int_equal(err, CL_SUCCESS);
   cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
   assert_int_equal(err, CL_SUCCESS);
   zero(io);
   enum { N = 16 };
   size_t global = 64, local = 32;
   unsigned first = fake_cuda.num_launches, records = fake_cuda.event_records;
   unsigned untimed = fake_cuda.untimed_records;
   cl_event ev[N];
   for (int i = 0; i < N; i++)
      assert_int_equal(
         clEnqueueNDRangeKernel(q, kernel, 1, NULL, &global, &local, 0, NULL, &ev[i]),
         CL_SUCCESS);
   /* A wait, not clFinish: clFinish may run commands that are ready on
    * its own thread too, the executor thread's alone would not do it. */
   assert_int_equal(clWaitForEvents(N, ev), CL_SUCCESS);
   for (int i = 0; i < N; i++)
      clReleaseEvent(ev[i]);
   assert_int_equal(fake_cuda.num_launches - first, N);
   /* The first, with nothing of its queue in flight, went to the device
    * from this thread; the rest of the series from this thread or the
    * executor's, whichever found launches in flight (kiln_executor_push,
    * queue_busy), but from no other. */
   assert_true(pthread_equal(launch(first)->thread, pthread_self()));
   pthread_t other = launch(first)->thread;
   for (unsigned i = first + 1; i < first + N; i++) {
      if (pthread_equal(launch(i)->thread, pthread_self()))
         continue;
      if (pthread_equal(other, pthread_self()))
         other = launch(i)->thread;
      assert_true(pthread_equal(launch(i)->thread, other));
   }
   /* Each launch whose event the application holds has a fence of its
    * own (so a fault fails the right event), and nobody times them:
    * events without timing, cheaper to record. */
   assert_int_equal(fake_cuda.event_records - records, N);
   assert_int_equal(fake_cuda.untimed_records - untimed, N);
   assert_int_equal(read_first(io), N);

   /* The round trip: a launch nobody holds the event of, and clFinish,
    * which waits for the stream itself (pipe_context::finish) rather than
    * for an event it would record only to wait for it.  Where the launch
    * finds the completer still taking the last flight off (queue_busy),
    * it goes to the executor and clFinish fences it with the flight, or
    * the completer may fence it first where this thread is slow to call
    * clFinish (2 µs, under a sanitizer): on a loaded machine some round
    * trips go so, most go the short way, which is what is counted. */
   first = fake_cuda.num_launches;
   unsigned syncs = fake_cuda.stream_syncs, trips = 0, short_trips = 0;
   fake_cuda.watched = pthread_self();
   fake_cuda.watch_thread = true;
   for (; trips < 200 && short_trips < 4; trips++) {
      records = fake_cuda.event_records;
      fake_cuda.watched_records = 0;
      assert_int_equal(clEnqueueNDRangeKernel(q, kernel, 1, NULL, &global, &local, 0, NULL, NULL),
                       CL_SUCCESS);
      assert_int_equal(clFinish(q), CL_SUCCESS);
      if (pthread_equal(launch(first + trips)->thread, pthread_self()) &&
          fake_cuda.watched_records == 0)
         short_trips++;
      /* No fence from anyone: clFinish synchronized the stream. */
      if (fake_cuda.event_records == records)
         syncs++;
   }
   fake_cuda.watch_thread = false;
   assert_int_equal(short_trips, 4);
   assert_true(fake_cuda.stream_syncs >= syncs);
   assert_int_equal(read_first(io), N + (int)trips);
   clReleaseCommandQueue(q);
   clReleaseCommandQueue(io);
}

/* A blocking read behind a launch runs on the thread that enqueues it,
 * which waits for it anyway: not on the queue's executor thread, which
 * polls for work after the write before (and took such reads first, a
 * hand-over there and back). */
static void test_blocking_read_on_enqueuing_thread(void **state)
{
   (void)state;
   cl_int err;
   cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
   assert_int_equal(err, CL_SUCCESS);
   size_t global = 64, local = 32;
   int zeros[64] = {0}, got[64];
   unsigned checked = 0;
   for (int i = 0; i < 200 && checked < 10; i++) {
      /* The executor thread writes, then polls (10 ms: KILN_SPIN_US in
       * main); a wait here would run the write on this thread instead. */
      cl_event w;
      assert_int_equal(clEnqueueWriteBuffer(q, buf, CL_FALSE, 0, sizeof(zeros), zeros, 0, NULL,
                                            &w),
                       CL_SUCCESS);
      cl_int st = CL_QUEUED;
      while (st != CL_COMPLETE)
         assert_int_equal(clGetEventInfo(w, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st,
                                         NULL),
                          CL_SUCCESS);
      clReleaseEvent(w);
      unsigned first = fake_cuda.num_launches;
      /* With its event held, the launch has a fence of its own: the
       * completer makes none for it meanwhile (which would hold the queue
       * for a moment and send the read to the executor thread). */
      cl_event l;
      assert_int_equal(clEnqueueNDRangeKernel(q, kernel, 1, NULL, &global, &local, 0, NULL, &l),
                       CL_SUCCESS);
      assert_int_equal(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof(got), got, 0, NULL, NULL),
                       CL_SUCCESS);
      assert_int_equal(got[0], 1);
      clReleaseEvent(l);
      /* Without its event held, the launch shares the fence of what
       * follows it; a blocking read on its own thread waits for the
       * stream itself, after which nothing needs one (no CUDA event). */
      fake_cuda.watched = pthread_self();
      fake_cuda.watched_records = 0;
      fake_cuda.watch_thread = true;
      assert_int_equal(clEnqueueNDRangeKernel(q, kernel, 1, NULL, &global, &local, 0, NULL, NULL),
                       CL_SUCCESS);
      assert_int_equal(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof(got), got, 0, NULL, NULL),
                       CL_SUCCESS);
      fake_cuda.watch_thread = false;
      assert_int_equal(got[0], 2);
      bool here = fake_cuda.num_launches == first + 2 &&
                  pthread_equal(launch(first + 1)->thread, pthread_self());
      /* (The completer may fence the launch meanwhile: not this thread.) */
      if (here)
         assert_int_equal(fake_cuda.watched_records, 0);
      /* Only where the launch went to the device from here was the read
       * ready during its enqueue (the executor thread may still have held
       * the queue after the write, on a loaded machine).  Even then the
       * completer may have taken the context for a fence just before the
       * read's enqueue (add_fence; its thread may lose its processor
       * there, under ASan on 2 cores), which rightly sends the read to the
       * executor thread: count the reads run here, which most are. */
      if (here && pthread_equal(launch(first)->thread, pthread_self()) &&
          pthread_equal(fake_cuda.dtoh_thread, pthread_self()))
         checked++;
   }
   assert_int_equal(checked, 10);
   clReleaseCommandQueue(q);
}

/* Launches whose events nobody holds share the fence of a later one: held
 * back by a user event, N launches then go to the stream one after the
 * other (the executor keeps the context meanwhile) and only the last,
 * whose event the application holds, records a CUDA event. */
static void test_shared_fences(void **state)
{
   (void)state;
   cl_int err;
   cl_command_queue io = clCreateCommandQueue(ctx, device, 0, &err);
   assert_int_equal(err, CL_SUCCESS);
   cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
   assert_int_equal(err, CL_SUCCESS);
   zero(io);
   cl_event user = clCreateUserEvent(ctx, &err);
   assert_int_equal(err, CL_SUCCESS);
   enum { N = 32 };
   size_t global = 64, local = 32;
   cl_event last;
   for (int i = 0; i < N; i++)
      assert_int_equal(clEnqueueNDRangeKernel(q, kernel, 1, NULL, &global, &local, i == 0,
                                              i == 0 ? &user : NULL, i == N - 1 ? &last : NULL),
                       CL_SUCCESS);
   unsigned first = fake_cuda.num_launches, records = fake_cuda.event_records;
   assert_int_equal(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
   assert_int_equal(clWaitForEvents(1, &last), CL_SUCCESS);
   assert_int_equal(fake_cuda.num_launches - first, N);
   assert_int_equal(fake_cuda.event_records - records, 1);
   cl_int st;
   assert_int_equal(clGetEventInfo(last, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL),
                    CL_SUCCESS);
   assert_int_equal(st, CL_COMPLETE);
   assert_int_equal(clFinish(q), CL_SUCCESS);
   assert_int_equal(read_first(io), N);
   clReleaseEvent(last);
   clReleaseEvent(user);

   /* Without any event: they share fences (the completer's, or none
    * where clFinish waits for the stream itself), and they complete. */
   records = fake_cuda.event_records;
   for (int i = 0; i < N; i++)
      assert_int_equal(clEnqueueNDRangeKernel(q, kernel, 1, NULL, &global, &local, 0, NULL, NULL),
                       CL_SUCCESS);
   assert_int_equal(clFinish(q), CL_SUCCESS);
   assert_true(fake_cuda.event_records - records <= N);
   assert_int_equal(read_first(io), 2 * N);
   clReleaseCommandQueue(q);
   clReleaseCommandQueue(io);
}

static void CL_CALLBACK count_callback(cl_event ev, cl_int status, void *data)
{
   (void)ev;
   int *calls = data;
   if (status == CL_COMPLETE)
      __atomic_add_fetch(calls, 1, __ATOMIC_SEQ_CST);
}

/* A profiling queue: START and END from the device's events (two records
 * per launch), in the spec's order; callbacks fire. */
static void test_profiling_and_callbacks(void **state)
{
   (void)state;
   cl_int err;
   cl_command_queue q = clCreateCommandQueue(ctx, device, CL_QUEUE_PROFILING_ENABLE, &err);
   assert_int_equal(err, CL_SUCCESS);
   zero(q);
   size_t global = 64, local = 32;
   enum { N = 4 };
   cl_event ev[N];
   int calls = 0;
   unsigned records = fake_cuda.event_records;
   unsigned untimed = fake_cuda.untimed_records;
   unsigned elapsed = fake_cuda.elapsed_calls;
   for (int i = 0; i < N; i++) {
      assert_int_equal(clEnqueueNDRangeKernel(q, kernel, 1, NULL, &global, &local, 0, NULL, &ev[i]),
                       CL_SUCCESS);
      assert_int_equal(clSetEventCallback(ev[i], CL_COMPLETE, count_callback, &calls),
                       CL_SUCCESS);
   }
   assert_int_equal(clWaitForEvents(N, ev), CL_SUCCESS);
   assert_int_equal(clFinish(q), CL_SUCCESS);
   assert_int_equal(fake_cuda.event_records - records, 2 * N);
   assert_int_equal(fake_cuda.untimed_records, untimed);
   assert_true(fake_cuda.elapsed_calls > elapsed); /* device times were read */
   cl_ulong prev_end = 0;
   for (int i = 0; i < N; i++) {
      cl_ulong t[4];
      cl_int st;
      assert_int_equal(clGetEventInfo(ev[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st,
                                      NULL),
                       CL_SUCCESS);
      assert_int_equal(st, CL_COMPLETE);
      static const cl_profiling_info which[4] = {
         CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT, CL_PROFILING_COMMAND_START,
         CL_PROFILING_COMMAND_END};
      for (int j = 0; j < 4; j++)
         assert_int_equal(clGetEventProfilingInfo(ev[i], which[j], sizeof(t[j]), &t[j], NULL),
                          CL_SUCCESS);
      assert_true(t[0] <= t[1] && t[1] <= t[2] && t[2] <= t[3]);
      assert_true(prev_end <= t[3]);
      prev_end = t[3];
      clReleaseEvent(ev[i]);
   }
   /* Callbacks run before clFinish returned, or on the completer right
    * after the event completed: wait for them to have run. */
   for (int spins = 0; __atomic_load_n(&calls, __ATOMIC_SEQ_CST) < N && spins < 1000000; spins++)
      ;
   assert_int_equal(__atomic_load_n(&calls, __ATOMIC_SEQ_CST), N);
   assert_int_equal(read_first(q), N);
   clReleaseCommandQueue(q);
}

/* Launches that wait for a user event run once it completes, and fail
 * without launching when it fails; an out-of-order queue's launches still
 * order behind a marker. */
static void test_wait_lists(void **state)
{
   (void)state;
   cl_int err;
   cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
   assert_int_equal(err, CL_SUCCESS);
   zero(q);
   size_t global = 64, local = 32;
   cl_event user = clCreateUserEvent(ctx, &err);
   assert_int_equal(err, CL_SUCCESS);
   cl_event ev, after;
   unsigned first = fake_cuda.num_launches;
   assert_int_equal(clEnqueueNDRangeKernel(q, kernel, 1, NULL, &global, &local, 1, &user, &ev),
                    CL_SUCCESS);
   /* In order: behind a waiting launch, nothing runs either. */
   assert_int_equal(clEnqueueNDRangeKernel(q, kernel, 1, NULL, &global, &local, 0, NULL, &after),
                    CL_SUCCESS);
   assert_int_equal(fake_cuda.num_launches, first);
   cl_int st;
   assert_int_equal(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL),
                    CL_SUCCESS);
   assert_int_equal(st, CL_QUEUED);
   assert_int_equal(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
   assert_int_equal(clWaitForEvents(1, &after), CL_SUCCESS);
   assert_int_equal(fake_cuda.num_launches - first, 2);
   assert_int_equal(read_first(q), 2);
   clReleaseEvent(ev);
   clReleaseEvent(after);
   clReleaseEvent(user);

   /* A failed user event: the launch never reaches CUDA. */
   user = clCreateUserEvent(ctx, &err);
   assert_int_equal(err, CL_SUCCESS);
   first = fake_cuda.num_launches;
   assert_int_equal(clEnqueueNDRangeKernel(q, kernel, 1, NULL, &global, &local, 1, &user, &ev),
                    CL_SUCCESS);
   assert_int_equal(clSetUserEventStatus(user, -42), CL_SUCCESS);
   assert_int_equal(clWaitForEvents(1, &ev), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
   assert_int_equal(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL),
                    CL_SUCCESS);
   assert_int_equal(st, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
   assert_int_equal(clFinish(q), CL_SUCCESS);
   assert_int_equal(fake_cuda.num_launches, first);
   clReleaseEvent(ev);
   clReleaseEvent(user);
   clReleaseCommandQueue(q);

   /* Out of order: launches, then a marker that waits for all of them. */
   q = clCreateCommandQueue(ctx, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
   assert_int_equal(err, CL_SUCCESS);
   zero(q);
   first = fake_cuda.num_launches;
   for (int i = 0; i < 8; i++)
      assert_int_equal(clEnqueueNDRangeKernel(q, kernel, 1, NULL, &global, &local, 0, NULL, NULL),
                       CL_SUCCESS);
   cl_event marker;
   assert_int_equal(clEnqueueMarkerWithWaitList(q, 0, NULL, &marker), CL_SUCCESS);
   assert_int_equal(clWaitForEvents(1, &marker), CL_SUCCESS);
   assert_int_equal(fake_cuda.num_launches - first, 8);
   clReleaseEvent(marker);
   assert_int_equal(clFinish(q), CL_SUCCESS);
   int v = -1;
   assert_int_equal(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof(v), &v, 0, NULL, NULL),
                    CL_SUCCESS);
   assert_int_equal(v, 8);
   clReleaseCommandQueue(q);
}

/* A kernel that faults fails its own event (recorded on this thread, its
 * fence waited for by another) and what waits for it; the device is lost
 * afterwards, so this runs last. */
static void test_fault_fails_event(void **state)
{
   (void)state;
   cl_int err;
   cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
   assert_int_equal(err, CL_SUCCESS);
   size_t global = 64, local = 32;
   cl_event ev, next;
   assert_int_equal(clEnqueueNDRangeKernel(q, faulty, 1, NULL, &global, &local, 0, NULL, &ev),
                    CL_SUCCESS);
   assert_int_equal(clEnqueueNDRangeKernel(q, kernel, 1, NULL, &global, &local, 1, &ev, &next),
                    CL_SUCCESS);
   assert_int_equal(clWaitForEvents(1, &ev), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
   cl_int st;
   assert_int_equal(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL),
                    CL_SUCCESS);
   assert_int_equal(st, CL_OUT_OF_RESOURCES);
   assert_int_equal(clFinish(q), CL_SUCCESS);
   assert_int_equal(clGetEventInfo(next, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL),
                    CL_SUCCESS);
   assert_true(st < 0);
   clReleaseEvent(ev);
   clReleaseEvent(next);
   clReleaseCommandQueue(q);
}

int main(void)
{
   setenv("KILN_DEVICES", "cuda", 1);
   setenv("KILN_CACHE", "0", 1);
   /* The paths this tests are the default. */
   unsetenv("KILN_DIRECT_LAUNCH");
   unsetenv("KILN_SHARED_FENCES");
   /* Idle executors poll long enough for test_blocking_read_on_enqueuing_thread
    * to find one polling. */
   setenv("KILN_SPIN_US", "10000", 1);
   if (fake_cuda_cl_open(1, NULL, &device, 1)) /* one H100: sm_90 */
      return 1;
   static const unsigned sizes[] = {8, 8, 8, 8, 4};
   fake_cuda_define_kernel("bump", 5, sizes, run_bump);
   fake_cuda_define_kernel("faulty", 5, sizes, NULL)->fault = CUDA_ERROR_ILLEGAL_ADDRESS;
   cl_int err;
   ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
   program = err ? NULL : clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
   if (err || clBuildProgram(program, 1, &device, "", NULL, NULL)) {
      fprintf(stderr, "could not build the kernels\n");
      return 1;
   }
   kernel = clCreateKernel(program, "bump", &err);
   faulty = err ? NULL : clCreateKernel(program, "faulty", &err);
   buf = err ? NULL : clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64 * sizeof(int), NULL, &err);
   if (err || clSetKernelArg(kernel, 0, sizeof(buf), &buf) ||
       clSetKernelArg(faulty, 0, sizeof(buf), &buf)) {
      fprintf(stderr, "no kernels\n");
      return 1;
   }
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_launches_on_enqueuing_thread),
      cmocka_unit_test(test_blocking_read_on_enqueuing_thread),
      cmocka_unit_test(test_shared_fences),
      cmocka_unit_test(test_profiling_and_callbacks),
      cmocka_unit_test(test_wait_lists),
      cmocka_unit_test(test_fault_fails_event),
   };
   int failed = cmocka_run_group_tests(tests, NULL, NULL);
   clReleaseMemObject(buf);
   clReleaseKernel(kernel);
   clReleaseKernel(faulty);
   clReleaseProgram(program);
   clReleaseContext(ctx);
   return failed;
}
