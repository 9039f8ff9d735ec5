/* clFlush/clFinish (5.10) and object lifetime (5.1, 5.2.3, 5.7): clFinish
 * returns only when every command of the queue has completed; released
 * handles are rejected with the CL_INVALID_* of their type; releasing a
 * handle does not cancel the commands that use it. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "kt.h"

enum { N = 1 << 16, CMDS = 64 };

static void open_gate(void *ev)
{
   CHECK_OK(clSetUserEventStatus((cl_event)ev, CL_COMPLETE));
}

static void finish_waits(struct kt_env *env, cl_command_queue_properties props)
{
   cl_command_queue q = kt_queue(env, env->context, props);
   unsigned char *src = malloc(N), *dst = malloc((size_t)CMDS * 1024);
   REQUIRE(src && dst);
   kt_fill(src, N, 120);
   memset(dst, 0, (size_t)CMDS * 1024);
   cl_mem m = kt_buffer(env->context, CL_MEM_COPY_HOST_PTR, N, src);
   cl_event gate = kt_user_event(env->context), evs[CMDS];
   for (int i = 0; i < CMDS; i++)
      CHECK_OK(clEnqueueReadBuffer(q, m, CL_FALSE, (size_t)i * 1024, 1024, dst + i * 1024,
                                   i % 4 == 0 ? 1 : 0, i % 4 == 0 ? &gate : NULL, &evs[i]));
   CHECK_OK(clFlush(q));
   struct kt_later *t = kt_after(100, open_gate, gate);
   CHECK_OK(clFinish(q));
   for (int i = 0; i < CMDS; i++)
      CHECK(kt_status(evs[i]) == CL_COMPLETE, " command %d has status %s after clFinish", i,
            kt_err_name(kt_status(evs[i])));
   CHECK(kt_same(dst, src, (size_t)CMDS * 1024, "reads complete at clFinish"));
   kt_join(t);
   /* An empty queue finishes at once; twice is fine. */
   CHECK_OK(clFinish(q));
   CHECK_OK(clFlush(q));
   for (int i = 0; i < CMDS; i++)
      CHECK_OK(clReleaseEvent(evs[i]));
   CHECK_OK(clReleaseEvent(gate));
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseCommandQueue(q));
   free(src);
   free(dst);
}

struct finisher {
   cl_command_queue q;
   atomic_int returned;
};

static void *finish_thread(void *arg)
{
   struct finisher *f = arg;
   CHECK_OK(clFinish(f->q));
   atomic_store(&f->returned, 1);
   return NULL;
}

/* clFinish waits for the commands queued before the call (5.10), not for
 * ones another thread enqueues while it waits: otherwise a thread calling
 * clFinish on a busy shared queue may never return. */
static void finish_ignores_later_commands(struct kt_env *env)
{
   cl_command_queue q = kt_queue(env, env->context, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
   cl_mem m = kt_buffer(env->context, 0, 64, NULL);
   unsigned char b[64] = {0};
   cl_event g1 = kt_user_event(env->context), g2 = kt_user_event(env->context), e1, e2;
   CHECK_OK(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, 64, b, 1, &g1, &e1));
   struct finisher f = {.q = q};
   atomic_init(&f.returned, 0);
   pthread_t t;
   REQUIRE(!pthread_create(&t, NULL, finish_thread, &f));
   kt_sleep_ms(100); /* the other thread is inside clFinish by now */
   CHECK(!atomic_load(&f.returned), " clFinish returned while a command was pending");
   CHECK_OK(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, 64, b, 1, &g2, &e2));
   CHECK_OK(clSetUserEventStatus(g1, CL_COMPLETE));
   CHECK_ENDS(e1, CL_COMPLETE);
   for (int i = 0; i < 2000 && !atomic_load(&f.returned); i++)
      kt_sleep_ms(1);
   CHECK(atomic_load(&f.returned),
         " clFinish still waits for a command enqueued after it was called");
   CHECK_OK(clSetUserEventStatus(g2, CL_COMPLETE));
   pthread_join(t, NULL);
   CHECK_OK(clFinish(q));
   CHECK_OK(clReleaseEvent(g1));
   CHECK_OK(clReleaseEvent(g2));
   CHECK_OK(clReleaseEvent(e1));
   CHECK_OK(clReleaseEvent(e2));
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseCommandQueue(q));
}

/* clFinish of one queue waits for its commands, not for another's. */
static void finish_is_per_queue(struct kt_env *env)
{
   cl_command_queue q1 = kt_queue(env, env->context, 0), q2 = kt_queue(env, env->context, 0);
   cl_mem m = kt_buffer(env->context, 0, 64, NULL);
   unsigned char b[64] = {0};
   cl_event gate = kt_user_event(env->context), stuck, done;
   CHECK_OK(clEnqueueWriteBuffer(q1, m, CL_FALSE, 0, 64, b, 1, &gate, &stuck));
   CHECK_OK(clEnqueueWriteBuffer(q2, m, CL_FALSE, 0, 64, b, 0, NULL, &done));
   CHECK_OK(clFinish(q2)); /* must not hang on q1's gated command */
   CHECK(kt_status(done) == CL_COMPLETE);
   CHECK(kt_status(stuck) > CL_COMPLETE);
   CHECK_OK(clSetUserEventStatus(gate, CL_COMPLETE));
   CHECK_OK(clFinish(q1));
   CHECK(kt_status(stuck) == CL_COMPLETE);
   CHECK_OK(clReleaseEvent(gate));
   CHECK_OK(clReleaseEvent(stuck));
   CHECK_OK(clReleaseEvent(done));
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseCommandQueue(q1));
   CHECK_OK(clReleaseCommandQueue(q2));
}

static void CL_CALLBACK never_called(cl_event ev, cl_int status, void *data)
{
   (void)ev;
   (void)data;
   KT_FAIL("callback on a released event ran (status %s)", kt_err_name(status));
}

/* Handles whose last application reference is gone are rejected, not
 * used.  The ICD loader reads the dispatch table through the handle
 * before Kiln sees the call, so a handle whose memory was freed cannot be
 * tested here (freed_handles.c does that, in child processes).  These
 * handles stay allocated because Kiln still holds them internally: a
 * buffer held by its sub-buffer, a context by its buffer, a queue by its
 * event, an event by its pending command.  Released handles passed where
 * the loader dispatches on another, live, handle are safe to test too. */
static void released_handles(struct kt_env *env)
{
   cl_context ctx = kt_context(env);
   cl_command_queue q = kt_queue(env, ctx, 0), live_q = kt_queue(env, ctx, 0);
   cl_mem m = kt_buffer(ctx, 0, 256, NULL), keep = kt_buffer(ctx, 0, 64, NULL);
   cl_event gate = kt_user_event(ctx), w, done;
   unsigned char b[256] = {0};
   cl_int err;

   /* Retain/release balance: the handle lives until the last release. */
   CHECK_OK(clRetainMemObject(m));
   CHECK_OK(clReleaseMemObject(m));
   cl_uint refs = 0;
   CHECK_OK(clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
   CHECK(refs == 1);

   /* An event whose command is still pending. */
   CHECK_OK(clEnqueueWriteBuffer(q, keep, CL_FALSE, 0, 64, b, 1, &gate, &w));
   CHECK_OK(clReleaseEvent(w));
   cl_int st;
   CHECK_ERR(clGetEventInfo(w, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL),
             CL_INVALID_EVENT);
   CHECK_ERR(clRetainEvent(w), CL_INVALID_EVENT);
   CHECK_ERR(clReleaseEvent(w), CL_INVALID_EVENT);
   CHECK_ERR(clSetEventCallback(w, CL_COMPLETE, never_called, NULL), CL_INVALID_EVENT);
   CHECK_ERR(clEnqueueReadBuffer(live_q, keep, CL_TRUE, 0, 64, b, 1, &w, NULL),
             CL_INVALID_EVENT_WAIT_LIST);
   CHECK_ERR(clEnqueueWaitForEvents(live_q, 1, &w), CL_INVALID_EVENT);
   CHECK_OK(clSetUserEventStatus(gate, CL_COMPLETE));
   CHECK_OK(clFinish(q));

   /* A buffer kept by its sub-buffer. */
   cl_buffer_region r = {0, 16};
   cl_mem sub = clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
   REQUIRE(sub, " %s", kt_err_name(err));
   CHECK_OK(clReleaseMemObject(m));
   size_t size;
   CHECK_ERR(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof(size), &size, NULL),
             CL_INVALID_MEM_OBJECT);
   CHECK_ERR(clRetainMemObject(m), CL_INVALID_MEM_OBJECT);
   CHECK_ERR(clReleaseMemObject(m), CL_INVALID_MEM_OBJECT);
   CHECK_ERR(clEnqueueReadBuffer(live_q, m, CL_TRUE, 0, 64, b, 0, NULL, NULL),
             CL_INVALID_MEM_OBJECT);
   CHECK_ERR(clEnqueueCopyBuffer(live_q, keep, m, 0, 0, 16, 0, NULL, NULL),
             CL_INVALID_MEM_OBJECT);
   cl_mem s2 = clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
   CHECK(!s2 && err == CL_INVALID_MEM_OBJECT, " sub-buffer of a released buffer: %s",
         kt_err_name(err));
   /* The sub-buffer is unaffected. */
   CHECK_OK(clEnqueueReadBuffer(live_q, sub, CL_TRUE, 0, 16, b, 0, NULL, NULL));

   /* A queue kept by an event of it. */
   CHECK_OK(clEnqueueMarker(q, &done));
   CHECK_OK(clReleaseCommandQueue(q));
   CHECK_ERR(clFinish(q), CL_INVALID_COMMAND_QUEUE);
   CHECK_ERR(clFlush(q), CL_INVALID_COMMAND_QUEUE);
   CHECK_ERR(clReleaseCommandQueue(q), CL_INVALID_COMMAND_QUEUE);
   cl_event mk;
   CHECK_ERR(clEnqueueMarker(q, &mk), CL_INVALID_COMMAND_QUEUE);
   CHECK_ERR(clEnqueueWriteBuffer(q, keep, CL_TRUE, 0, 4, b, 0, NULL, NULL),
             CL_INVALID_COMMAND_QUEUE);
   cl_command_queue eq = NULL;
   CHECK_OK(clGetEventInfo(done, CL_EVENT_COMMAND_QUEUE, sizeof(eq), &eq, NULL));
   CHECK(eq == q);
   CHECK_OK(clWaitForEvents(1, &done));

   /* A context kept by its buffers. */
   CHECK_OK(clReleaseContext(ctx));
   cl_mem none = clCreateBuffer(ctx, 0, 64, NULL, &err);
   CHECK(!none && err == CL_INVALID_CONTEXT, " buffer in a released context: %s",
         kt_err_name(err));
   cl_event e = clCreateUserEvent(ctx, &err);
   CHECK(!e && err == CL_INVALID_CONTEXT, " user event in a released context: %s",
         kt_err_name(err));
   CHECK_ERR(clReleaseContext(ctx), CL_INVALID_CONTEXT);
   CHECK_ERR(clRetainContext(ctx), CL_INVALID_CONTEXT);
   /* Objects of a released context keep working. */
   CHECK_OK(clEnqueueWriteBuffer(live_q, keep, CL_TRUE, 0, 64, b, 0, NULL, NULL));

   CHECK_OK(clReleaseEvent(done));
   CHECK_OK(clReleaseEvent(gate));
   CHECK_OK(clReleaseMemObject(sub));
   CHECK_OK(clReleaseMemObject(keep));
   CHECK_OK(clReleaseCommandQueue(live_q));
}

/* Releasing the queue, the buffer and the event of commands in flight
 * does not stop them.  A large write keeps the command busy without a
 * user event (releasing objects while a user event gates commands is
 * undefined in 1.1). */
static void release_in_flight(struct kt_env *env)
{
   enum { BIG = 32 << 20 };
   unsigned char *src = malloc(BIG), *host = calloc(1, BIG);
   REQUIRE(src && host);
   kt_fill(src, BIG, 121);
   for (int round = 0; round < 2; round++) {
      cl_command_queue q = kt_queue(env, env->context,
                                    round ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0);
      memset(host, 0, BIG);
      cl_mem m = kt_buffer(env->context, CL_MEM_USE_HOST_PTR, BIG, host);
      cl_event w, mk;
      CHECK_OK(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, BIG, src, 0, NULL, &w));
      CHECK_OK(clEnqueueMarker(q, &mk));
      CHECK_OK(clReleaseEvent(w));
      CHECK_OK(clReleaseMemObject(m));
      CHECK_OK(clReleaseCommandQueue(q));
      CHECK_OK(clWaitForEvents(1, &mk));
      CHECK(kt_status(mk) == CL_COMPLETE);
      /* A device that shares host memory (the CPU) keeps USE_HOST_PTR
       * data in host memory itself, so it is visible without a map once
       * the write completed. */
      if (kt_device_uint(env->device, CL_DEVICE_HOST_UNIFIED_MEMORY))
         CHECK(kt_same(host, src, BIG, "write whose queue, buffer and event were released"));
      CHECK_OK(clReleaseEvent(mk));
   }
   free(src);
   free(host);
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   finish_waits(&env, 0);
   finish_waits(&env, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
   finish_is_per_queue(&env);
   finish_ignores_later_commands(&env);
   released_handles(&env);
   release_in_flight(&env);
   CHECK_ERR(clFinish(NULL), CL_INVALID_COMMAND_QUEUE);
   CHECK_ERR(clFlush(NULL), CL_INVALID_COMMAND_QUEUE);
   kt_teardown(&env);
   return kt_result();
}
