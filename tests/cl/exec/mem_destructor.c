/* clSetMemObjectDestructorCallback (1.1): callbacks run once each, in
 * reverse order of registration, after the last release and only once the
 * commands using the object are done (so an application may free a
 * USE_HOST_PTR region in its callback). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "kt.h"

#define MAXCALLS 16

struct log {
   atomic_int n;
   int order[MAXCALLS];
   cl_mem mem[MAXCALLS];
   /* For the pending-command case: what the host memory held when the
    * callback ran. */
   unsigned char *host;
   size_t host_size;
   bool host_ok_at_call;
   const unsigned char *host_want;
};

struct tag {
   struct log *log;
   int id;
};

static void CL_CALLBACK record(cl_mem mem, void *user_data)
{
   struct tag *t = user_data;
   int i = atomic_fetch_add(&t->log->n, 1);
   if (i < MAXCALLS) {
      t->log->order[i] = t->id;
      t->log->mem[i] = mem;
   }
   if (t->log->host)
      t->log->host_ok_at_call = !memcmp(t->log->host, t->log->host_want, t->log->host_size);
}

/* Waits (bounded) for n calls; callbacks may run on a Kiln thread. */
static int calls_after(struct log *log, int n, int timeout_ms)
{
   for (int t = 0; atomic_load(&log->n) < n && t < timeout_ms; t++)
      kt_sleep_ms(1);
   return atomic_load(&log->n);
}

static void reverse_order(struct kt_env *env)
{
   struct log log = {0};
   struct tag tags[3] = {{&log, 1}, {&log, 2}, {&log, 3}};
   cl_mem m = kt_buffer(env->context, 0, 64, NULL);
   for (int i = 0; i < 3; i++)
      CHECK_OK(clSetMemObjectDestructorCallback(m, record, &tags[i]));
   /* Not on a release that is not the last. */
   CHECK_OK(clRetainMemObject(m));
   CHECK_OK(clReleaseMemObject(m));
   kt_sleep_ms(20);
   CHECK(atomic_load(&log.n) == 0, " %d callbacks ran before the last release",
         atomic_load(&log.n));
   CHECK_OK(clReleaseMemObject(m));
   calls_after(&log, 3, 2000);
   kt_sleep_ms(20); /* and no more than 3 */
   int n = atomic_load(&log.n);
   CHECK(n == 3, " %d callbacks ran, expected 3", n);
   if (n == 3) {
      CHECK(log.order[0] == 3 && log.order[1] == 2 && log.order[2] == 1,
            " callback order %d %d %d, expected 3 2 1", log.order[0], log.order[1],
            log.order[2]);
      for (int i = 0; i < 3; i++)
         CHECK(log.mem[i] == m, " callback %d got memobj %p, expected %p", i,
               (void *)log.mem[i], (void *)m);
   }
}

/* The object is released right after a large non-blocking write into its
 * USE_HOST_PTR storage was enqueued: when the callback runs, the write has
 * completed and its data is in place. */
struct pending_check {
   cl_event write;
   atomic_int calls;
   atomic_int write_status_at_call;
   bool data_ok_at_call;
   const unsigned char *host, *want;
   size_t size;
};

static void CL_CALLBACK check_pending(cl_mem mem, void *user_data)
{
   (void)mem;
   struct pending_check *pc = user_data;
   cl_int st = 1;
   clGetEventInfo(pc->write, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL);
   atomic_store(&pc->write_status_at_call, st);
   pc->data_ok_at_call = !memcmp(pc->host, pc->want, pc->size);
   atomic_fetch_add(&pc->calls, 1);
}

static void pending_large_write(struct kt_env *env)
{
   enum { BIG = 64 << 20 };
   unsigned char *host = calloc(1, BIG), *want = malloc(BIG);
   REQUIRE(host && want);
   kt_fill(want, BIG, 31);
   struct pending_check pc = {.host = host, .want = want, .size = BIG};
   atomic_init(&pc.calls, 0);
   atomic_init(&pc.write_status_at_call, 1);
   cl_mem m = kt_buffer(env->context, CL_MEM_USE_HOST_PTR, BIG, host);
   CHECK_OK(clSetMemObjectDestructorCallback(m, check_pending, &pc));
   CHECK_OK(clEnqueueWriteBuffer(env->queue, m, CL_FALSE, 0, BIG, want, 0, NULL, &pc.write));
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clWaitForEvents(1, &pc.write));
   for (int t = 0; atomic_load(&pc.calls) < 1 && t < 5000; t++)
      kt_sleep_ms(1);
   CHECK_OK(clFinish(env->queue));
   CHECK(atomic_load(&pc.calls) == 1, " destructor ran %d times", atomic_load(&pc.calls));
   CHECK(atomic_load(&pc.write_status_at_call) == CL_COMPLETE,
         " destructor ran while the write had status %s",
         kt_err_name(atomic_load(&pc.write_status_at_call)));
   /* Where the device shares host memory, USE_HOST_PTR data is there
    * without a map (a device with memory of its own keeps a copy). */
   if (kt_device_uint(env->device, CL_DEVICE_HOST_UNIFIED_MEMORY))
      CHECK(pc.data_ok_at_call, " host memory did not hold the written data in the destructor");
   CHECK_OK(clReleaseEvent(pc.write));
   free(host);
   free(want);
}

/* The same with the commands held back by a user event.  1.1 calls
 * releasing non-event objects while user events gate commands undefined;
 * Kiln defines it (pending commands keep their objects), and this checks
 * that definition: no callback until the commands ran. */
static void pending_gated(struct kt_env *env)
{
   enum { N = 4096 };
   struct log log = {0};
   struct tag tag = {&log, 7};
   unsigned char *host = calloc(1, N), want[N], readback[N];
   REQUIRE(host);
   kt_fill(want, N, 30);
   log.host = host;
   log.host_size = N;
   log.host_want = want;

   cl_mem m = kt_buffer(env->context, CL_MEM_USE_HOST_PTR, N, host);
   CHECK_OK(clSetMemObjectDestructorCallback(m, record, &tag));
   cl_event gate = kt_user_event(env->context), wr, rd;
   CHECK_OK(clEnqueueWriteBuffer(env->queue, m, CL_FALSE, 0, N, want, 1, &gate, &wr));
   memset(readback, 0, N);
   CHECK_OK(clEnqueueReadBuffer(env->queue, m, CL_FALSE, 0, N, readback, 0, NULL, &rd));
   CHECK_OK(clReleaseMemObject(m));
   kt_sleep_ms(50);
   CHECK(atomic_load(&log.n) == 0, " destructor ran while commands on the object were pending");
   CHECK(kt_status(wr) > CL_COMPLETE);

   CHECK_OK(clSetUserEventStatus(gate, CL_COMPLETE));
   CHECK_ENDS(wr, CL_COMPLETE);
   CHECK_ENDS(rd, CL_COMPLETE);
   CHECK_OK(clFinish(env->queue));
   CHECK(calls_after(&log, 1, 2000) == 1, " destructor ran %d times", atomic_load(&log.n));
   if (kt_device_uint(env->device, CL_DEVICE_HOST_UNIFIED_MEMORY))
      CHECK(log.host_ok_at_call, " host memory did not hold the written data when the "
                                 "destructor ran");
   CHECK(kt_same(readback, want, N, "read enqueued before the release"));
   CHECK_OK(clReleaseEvent(wr));
   CHECK_OK(clReleaseEvent(rd));
   CHECK_OK(clReleaseEvent(gate));
   free(host);
}

/* A sub-buffer has its own callbacks; the parent's run when it goes. */
static void sub_buffers(struct kt_env *env)
{
   struct log plog = {0}, slog = {0};
   struct tag ptag = {&plog, 1}, stag = {&slog, 2};
   cl_uint align = kt_device_uint(env->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8;
   cl_mem p = kt_buffer(env->context, 0, 4 * (size_t)align, NULL);
   cl_buffer_region r = {align, align};
   cl_int err;
   cl_mem s = clCreateSubBuffer(p, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
   REQUIRE(s, " %s", kt_err_name(err));
   CHECK_OK(clSetMemObjectDestructorCallback(p, record, &ptag));
   CHECK_OK(clSetMemObjectDestructorCallback(s, record, &stag));
   CHECK_OK(clReleaseMemObject(s));
   CHECK(calls_after(&slog, 1, 2000) == 1, " sub-buffer destructor ran %d times",
         atomic_load(&slog.n));
   CHECK(atomic_load(&plog.n) == 0, " the parent's destructor ran with the sub-buffer's");
   if (atomic_load(&slog.n))
      CHECK(slog.mem[0] == s);
   CHECK_OK(clReleaseMemObject(p));
   CHECK(calls_after(&plog, 1, 2000) == 1, " parent destructor ran %d times",
         atomic_load(&plog.n));
}

static void errors(struct kt_env *env)
{
   struct log log = {0};
   struct tag tag = {&log, 1};
   cl_mem m = kt_buffer(env->context, 0, 64, NULL);
   CHECK_ERR(clSetMemObjectDestructorCallback(m, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clSetMemObjectDestructorCallback(NULL, record, &tag), CL_INVALID_MEM_OBJECT);
   CHECK_ERR(clSetMemObjectDestructorCallback((cl_mem)env->queue, record, &tag),
             CL_INVALID_MEM_OBJECT);
   CHECK_OK(clReleaseMemObject(m));
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   reverse_order(&env);
   pending_large_write(&env);
   pending_gated(&env);
   sub_buffers(&env);
   errors(&env);
   kt_teardown(&env);
   return kt_result();
}
