/* clGetEventProfilingInfo (5.9): with CL_QUEUE_PROFILING_ENABLE every
 * completed command has QUEUED <= SUBMIT <= START <= END; without it, for
 * user events and for commands not yet complete (or failed) the answer is
 * CL_PROFILING_INFO_NOT_AVAILABLE. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kt.h"

static const cl_profiling_info params[4] = {CL_PROFILING_COMMAND_QUEUED,
                                            CL_PROFILING_COMMAND_SUBMIT,
                                            CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};

static bool times_of(cl_event ev, cl_ulong t[4], const char *what)
{
   for (int i = 0; i < 4; i++) {
      cl_int err = clGetEventProfilingInfo(ev, params[i], sizeof(cl_ulong), &t[i], NULL);
      if (err != CL_SUCCESS) {
         KT_FAIL("%s: clGetEventProfilingInfo(0x%x) returned %s", what, params[i],
                 kt_err_name(err));
         return false;
      }
   }
   return true;
}

static void check_order(cl_event ev, const char *what)
{
   cl_ulong t[4];
   if (!times_of(ev, t, what))
      return;
   CHECK(t[0] > 0, " %s: QUEUED is 0", what);
   CHECK(t[0] <= t[1] && t[1] <= t[2] && t[2] <= t[3],
         " %s: QUEUED %llu SUBMIT %llu START %llu END %llu out of order", what,
         (unsigned long long)t[0], (unsigned long long)t[1], (unsigned long long)t[2],
         (unsigned long long)t[3]);
}

static void expect_unavailable(cl_event ev, const char *what)
{
   for (int i = 0; i < 4; i++) {
      cl_ulong v;
      cl_int err = clGetEventProfilingInfo(ev, params[i], sizeof(v), &v, NULL);
      if (err != CL_PROFILING_INFO_NOT_AVAILABLE)
         KT_FAIL("%s: clGetEventProfilingInfo(0x%x) returned %s, expected "
                 "CL_PROFILING_INFO_NOT_AVAILABLE",
                 what, params[i], kt_err_name(err));
   }
}

static void every_command(struct kt_env *env, cl_command_queue q)
{
   enum { N = 16 << 20 };
   unsigned char *src = malloc(N), *dst = malloc(N);
   REQUIRE(src && dst);
   kt_fill(src, N, 110);
   cl_mem a = kt_buffer(env->context, 0, N, NULL), b = kt_buffer(env->context, 0, N, NULL);
   cl_event ev[8];
   size_t zero[3] = {0, 0, 0}, region[3] = {256, 64, 2};
   CHECK_OK(clEnqueueWriteBuffer(q, a, CL_FALSE, 0, N, src, 0, NULL, &ev[0]));
   CHECK_OK(clEnqueueCopyBuffer(q, a, b, 0, 0, N, 1, &ev[0], &ev[1]));
   CHECK_OK(clEnqueueReadBuffer(q, b, CL_FALSE, 0, N, dst, 1, &ev[1], &ev[2]));
   CHECK_OK(clEnqueueReadBufferRect(q, b, CL_FALSE, zero, zero, region, 0, 0, 0, 0, dst, 1,
                                    &ev[2], &ev[3]));
   cl_int err;
   void *p = clEnqueueMapBuffer(q, a, CL_FALSE, CL_MAP_READ, 0, 4096, 1, &ev[3], &ev[4], &err);
   CHECK(p && err == CL_SUCCESS);
   CHECK_OK(clEnqueueUnmapMemObject(q, a, p, 1, &ev[4], &ev[5]));
   CHECK_OK(clEnqueueMarker(q, &ev[6]));
   CHECK_OK(clEnqueueCopyBufferRect(q, a, b, zero, zero, region, 0, 0, 0, 0, 1, &ev[6], &ev[7]));
   CHECK_OK(clWaitForEvents(8, ev));
   CHECK_OK(clFinish(q));
   const char *names[8] = {"write", "copy", "read", "read rect", "map", "unmap", "marker",
                           "copy rect"};
   for (int i = 0; i < 8; i++)
      check_order(ev[i], names[i]);

   /* Commands chained by wait lists follow one another in time. */
   cl_ulong t0[4], t1[4];
   if (times_of(ev[0], t0, "write") && times_of(ev[1], t1, "copy"))
      CHECK(t0[3] <= t1[2], " copy started (%llu) before the write it waits for ended (%llu)",
            (unsigned long long)t1[2], (unsigned long long)t0[3]);
   /* 16 MiB takes measurable time. */
   if (times_of(ev[0], t0, "write"))
      CHECK(t0[3] > t0[2], " a 16 MiB write took no time (START %llu END %llu)",
            (unsigned long long)t0[2], (unsigned long long)t0[3]);
   CHECK(kt_same(dst, src, N, "profiled copies"));

   /* Size handling of the query. */
   cl_ulong v;
   size_t ret = 0;
   CHECK_OK(clGetEventProfilingInfo(ev[0], CL_PROFILING_COMMAND_END, 0, NULL, &ret));
   CHECK(ret == sizeof(cl_ulong));
   CHECK_ERR(clGetEventProfilingInfo(ev[0], CL_PROFILING_COMMAND_END, 4, &v, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clGetEventProfilingInfo(ev[0], 0x1234, sizeof(v), &v, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clGetEventProfilingInfo(NULL, CL_PROFILING_COMMAND_END, sizeof(v), &v, NULL),
             CL_INVALID_EVENT);

   for (int i = 0; i < 8; i++)
      CHECK_OK(clReleaseEvent(ev[i]));
   CHECK_OK(clReleaseMemObject(a));
   CHECK_OK(clReleaseMemObject(b));
   free(src);
   free(dst);
}

static cl_ulong host_ns(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (cl_ulong)ts.tv_sec * 1000000000ull + (cl_ulong)ts.tv_nsec;
}

/* Several in-order queues, many commands, some waiting on another queue's:
 * one clock for all (Kiln's is CLOCK_MONOTONIC, docs/trace.md), so every
 * event is ordered in itself, each queue's commands follow one another,
 * a cross-queue wait shows in the times, and all of it lies between host
 * clock readings taken before the enqueues and after the waits. */
static void many_queues(struct kt_env *env)
{
   enum { QUEUES = 4, PER_QUEUE = 100, SIZE = 4096 };
   cl_command_queue q[QUEUES];
   for (int i = 0; i < QUEUES; i++)
      q[i] = kt_queue(env, env->context, CL_QUEUE_PROFILING_ENABLE);
   cl_mem m[QUEUES];
   static unsigned char host[QUEUES][SIZE];
   for (int i = 0; i < QUEUES; i++)
      m[i] = kt_buffer(env->context, 0, SIZE, NULL);
   static cl_event ev[QUEUES][PER_QUEUE];
   cl_ulong before = host_ns();
   for (int c = 0; c < PER_QUEUE; c++)
      for (int i = 0; i < QUEUES; i++) {
         /* Every tenth command waits for the previous queue's latest. */
         int other = (i + QUEUES - 1) % QUEUES;
         bool cross = c % 10 == 5 && (other < i || c > 0);
         const cl_event *wait = NULL;
         if (cross)
            wait = other < i ? &ev[other][c] : &ev[other][c - 1];
         if (c % 2)
            CHECK_OK(clEnqueueWriteBuffer(q[i], m[i], CL_FALSE, 0, SIZE, host[i], cross ? 1 : 0,
                                          wait, &ev[i][c]));
         else
            CHECK_OK(clEnqueueReadBuffer(q[i], m[i], CL_FALSE, 0, SIZE, host[i], cross ? 1 : 0,
                                         wait, &ev[i][c]));
      }
   for (int i = 0; i < QUEUES; i++)
      CHECK_OK(clFinish(q[i]));
   cl_ulong after = host_ns();
   int bad = 0;
   for (int i = 0; i < QUEUES; i++)
      for (int c = 0; c < PER_QUEUE && bad < 10; c++) {
         cl_ulong t[4], p[4];
         char what[64];
         snprintf(what, sizeof(what), "queue %d command %d", i, c);
         if (!times_of(ev[i][c], t, what)) {
            bad++;
            continue;
         }
         bool ok = t[0] <= t[1] && t[1] <= t[2] && t[2] <= t[3] && before <= t[0] &&
                   t[3] <= after;
         CHECK(ok, " %s: QUEUED %llu SUBMIT %llu START %llu END %llu, host clock %llu..%llu",
               what, (unsigned long long)t[0], (unsigned long long)t[1],
               (unsigned long long)t[2], (unsigned long long)t[3], (unsigned long long)before,
               (unsigned long long)after);
         bad += !ok;
         if (c > 0 && times_of(ev[i][c - 1], p, what)) {
            ok = p[0] <= t[0] && p[3] <= t[2];
            CHECK(ok, " %s: QUEUED %llu START %llu, the previous command QUEUED %llu END %llu",
                  what, (unsigned long long)t[0], (unsigned long long)t[2],
                  (unsigned long long)p[0], (unsigned long long)p[3]);
            bad += !ok;
         }
         int other = (i + QUEUES - 1) % QUEUES;
         if (c % 10 == 5 && (other < i || c > 0)) {
            cl_event dep = other < i ? ev[other][c] : ev[other][c - 1];
            if (times_of(dep, p, what)) {
               ok = p[3] <= t[2];
               CHECK(ok, " %s started at %llu before the command of queue %d it waits for "
                         "ended (%llu)",
                     what, (unsigned long long)t[2], other, (unsigned long long)p[3]);
               bad += !ok;
            }
         }
      }
   for (int i = 0; i < QUEUES; i++) {
      for (int c = 0; c < PER_QUEUE; c++)
         CHECK_OK(clReleaseEvent(ev[i][c]));
      CHECK_OK(clReleaseMemObject(m[i]));
      CHECK_OK(clReleaseCommandQueue(q[i]));
   }
}

/* Not complete yet, failed, user events, queues without profiling. */
static void unavailable(struct kt_env *env, cl_command_queue prof)
{
   unsigned char buf[64] = {0};
   cl_mem m = kt_buffer(env->context, 0, 64, NULL);
   cl_event gate = kt_user_event(env->context), w, f, plain;
   CHECK_OK(clEnqueueWriteBuffer(prof, m, CL_FALSE, 0, 64, buf, 1, &gate, &w));
   expect_unavailable(w, "pending command");
   expect_unavailable(gate, "user event, pending");
   CHECK_OK(clSetUserEventStatus(gate, CL_COMPLETE));
   CHECK_OK(clWaitForEvents(1, &w));
   check_order(w, "command that waited on a user event");
   expect_unavailable(gate, "user event, complete");

   cl_event bad = kt_user_event(env->context);
   CHECK_OK(clEnqueueWriteBuffer(prof, m, CL_FALSE, 0, 64, buf, 1, &bad, &f));
   CHECK_OK(clSetUserEventStatus(bad, -1));
   CHECK(kt_wait_end(f, 5000) < 0);
   expect_unavailable(f, "failed command");

   CHECK_OK(clEnqueueWriteBuffer(env->queue, m, CL_TRUE, 0, 64, buf, 0, NULL, &plain));
   expect_unavailable(plain, "queue without CL_QUEUE_PROFILING_ENABLE");

   cl_event events[] = {gate, w, bad, f, plain};
   for (unsigned i = 0; i < 5; i++)
      CHECK_OK(clReleaseEvent(events[i]));
   CHECK_OK(clReleaseMemObject(m));
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   cl_command_queue_properties supported = 0;
   CHECK_OK(clGetDeviceInfo(env.device, CL_DEVICE_QUEUE_PROPERTIES, sizeof(supported),
                            &supported, NULL));
   /* Every 1.1 device supports profiling (Table 4.3). */
   CHECK(supported & CL_QUEUE_PROFILING_ENABLE);
   cl_command_queue prof = kt_queue(&env, env.context, CL_QUEUE_PROFILING_ENABLE);
   every_command(&env, prof);
   unavailable(&env, prof);
   CHECK_OK(clReleaseCommandQueue(prof));
   many_queues(&env);
   if (supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
      cl_command_queue ooo = kt_queue(
         &env, env.context, CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
      every_command(&env, ooo);
      CHECK_OK(clReleaseCommandQueue(ooo));
   }
   kt_teardown(&env);
   return kt_result();
}
