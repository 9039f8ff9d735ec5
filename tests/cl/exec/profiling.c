/* clGetEventProfilingInfo (5.9): with CL_QUEUE_PROFILING_ENABLE every
 * completed command has QUEUED <= SUBMIT <= START <= END; without it, for
 * user events and for commands not yet complete (or failed) the answer is
 * CL_PROFILING_INFO_NOT_AVAILABLE. */
#include <stdlib.h>
#include <string.h>

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
   if (supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
      cl_command_queue ooo = kt_queue(
         &env, env.context, CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
      every_command(&env, ooo);
      CHECK_OK(clReleaseCommandQueue(ooo));
   }
   kt_teardown(&env);
   return kt_result();
}
