/* clEnqueueMapBuffer / clEnqueueUnmapMemObject (5.2.8): data through
 * mappings, CL_MEM_MAP_COUNT, non-blocking maps, failed maps, errors. */
#include <stdlib.h>
#include <string.h>

#include "kt.h"

#define N 65536

static cl_uint map_count(cl_mem m)
{
   cl_uint n = 999;
   CHECK_OK(clGetMemObjectInfo(m, CL_MEM_MAP_COUNT, sizeof(n), &n, NULL));
   return n;
}

static void data_and_count(struct kt_env *env, cl_command_queue q)
{
   unsigned char *b0 = malloc(N), *want = malloc(N), *got = malloc(N);
   REQUIRE(b0 && want && got);
   kt_fill(b0, N, 70);
   memcpy(want, b0, N);
   cl_mem m = kt_buffer(env->context, CL_MEM_COPY_HOST_PTR, N, b0);
   cl_int err;
   cl_event ev;

   unsigned char *r = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ, 0, N, 0, NULL, &ev, &err);
   CHECK(r && err == CL_SUCCESS, " %s", kt_err_name(err));
   REQUIRE(r);
   CHECK(kt_status(ev) == CL_COMPLETE, " blocking map returned before completing");
   cl_command_type t = 0;
   CHECK_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(t), &t, NULL));
   CHECK(t == CL_COMMAND_MAP_BUFFER, " map event type 0x%x", t);
   CHECK_OK(clReleaseEvent(ev));
   CHECK(kt_same(r, want, N, "read mapping"));
   CHECK(map_count(m) == 1, " map count %u after one map", map_count(m));

   /* A second mapping of a different range. */
   unsigned char *w = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_WRITE, 1000, 3000, 0, NULL, NULL,
                                         &err);
   CHECK(w && err == CL_SUCCESS, " %s", kt_err_name(err));
   REQUIRE(w);
   CHECK(map_count(m) == 2, " map count %u after two maps", map_count(m));
   memset(w, 0x3c, 3000);
   memset(want + 1000, 0x3c, 3000);
   CHECK_OK(clEnqueueUnmapMemObject(q, m, w, 0, NULL, &ev));
   CHECK_OK(clWaitForEvents(1, &ev));
   CHECK_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(t), &t, NULL));
   CHECK(t == CL_COMMAND_UNMAP_MEM_OBJECT, " unmap event type 0x%x", t);
   CHECK_OK(clReleaseEvent(ev));
   CHECK_OK(clEnqueueUnmapMemObject(q, m, r, 0, NULL, NULL));
   CHECK_OK(clFinish(q));
   CHECK(map_count(m) == 0, " map count %u after unmapping both", map_count(m));
   CHECK_OK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, N, got, 0, NULL, NULL));
   CHECK(kt_same(got, want, N, "buffer after writing through a mapping"));

   /* The same range mapped twice: two mappings, each unmapped once. */
   void *m1 = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ, 64, 64, 0, NULL, NULL, &err);
   void *m2 = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ, 64, 64, 0, NULL, NULL, &err);
   CHECK(m1 && m2);
   CHECK(map_count(m) == 2);
   CHECK_OK(clEnqueueUnmapMemObject(q, m, m1, 0, NULL, NULL));
   CHECK_OK(clEnqueueUnmapMemObject(q, m, m2, 0, NULL, NULL));
   CHECK_OK(clFinish(q));
   CHECK(map_count(m) == 0);
   /* No mapping left at that pointer. */
   CHECK_ERR(clEnqueueUnmapMemObject(q, m, m1, 0, NULL, NULL), CL_INVALID_VALUE);

   CHECK_OK(clReleaseMemObject(m));
   free(b0);
   free(want);
   free(got);
}

/* A map waiting on a user event: the pointer comes back at once, the data
 * is valid only once the map's event completed. */
static void non_blocking(struct kt_env *env, cl_command_queue q)
{
   unsigned char src[256], later[256];
   kt_fill(src, 256, 71);
   kt_fill(later, 256, 72);
   cl_mem m = kt_buffer(env->context, CL_MEM_COPY_HOST_PTR, 256, src);
   cl_event gate = kt_user_event(env->context), wr, mp;
   /* The write runs before the map (wait list), after the gate. */
   CHECK_OK(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, 256, later, 1, &gate, &wr));
   cl_int err;
   unsigned char *p = clEnqueueMapBuffer(q, m, CL_FALSE, CL_MAP_READ, 0, 256, 1, &wr, &mp, &err);
   CHECK(p && err == CL_SUCCESS, " %s", kt_err_name(err));
   CHECK_PENDING(mp, 10);
   CHECK_OK(clSetUserEventStatus(gate, CL_COMPLETE));
   CHECK_OK(clWaitForEvents(1, &mp));
   if (p) {
      CHECK(kt_same(p, later, 256, "non-blocking map after its wait list"));
      CHECK_OK(clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL));
   }
   CHECK_OK(clFinish(q));
   CHECK(map_count(m) == 0);
   CHECK_OK(clReleaseEvent(gate));
   CHECK_OK(clReleaseEvent(wr));
   CHECK_OK(clReleaseEvent(mp));
   CHECK_OK(clReleaseMemObject(m));
}

/* A blocking map whose wait list failed returns NULL and leaves no
 * mapping. */
static void failed_map(struct kt_env *env)
{
   cl_mem m = kt_buffer(env->context, 0, 256, NULL);
   cl_event gate = kt_user_event(env->context);
   CHECK_OK(clSetUserEventStatus(gate, -1));
   cl_int err = 0;
   void *p = clEnqueueMapBuffer(env->queue, m, CL_TRUE, CL_MAP_READ, 0, 256, 1, &gate, NULL,
                                &err);
   CHECK(!p && err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
         " map with a failed wait list: %p / %s", p, kt_err_name(err));
   CHECK(map_count(m) == 0, " map count %u after a failed map", map_count(m));
   CHECK_OK(clReleaseEvent(gate));
   CHECK_OK(clReleaseMemObject(m));
}

static void errors(struct kt_env *env)
{
   cl_mem m = kt_buffer(env->context, 0, 256, NULL), other = kt_buffer(env->context, 0, 256, NULL);
   cl_command_queue q = env->queue;
   cl_int err;
   void *p;
#define MAP_FAILS(expr, want)                                                  \
   do {                                                                        \
      err = 0;                                                                 \
      p = (expr);                                                              \
      CHECK(!p && err == (want), " %s gave %p / %s", #expr, p, kt_err_name(err)); \
   } while (0)
   MAP_FAILS(clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ, 0, 257, 0, NULL, NULL, &err),
             CL_INVALID_VALUE);
   MAP_FAILS(clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ, 256, 1, 0, NULL, NULL, &err),
             CL_INVALID_VALUE);
   MAP_FAILS(clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ, 0, 0, 0, NULL, NULL, &err),
             CL_INVALID_VALUE);
   MAP_FAILS(clEnqueueMapBuffer(q, m, CL_TRUE, (cl_map_flags)1 << 40, 0, 4, 0, NULL, NULL, &err),
             CL_INVALID_VALUE);
   MAP_FAILS(clEnqueueMapBuffer(NULL, m, CL_TRUE, CL_MAP_READ, 0, 4, 0, NULL, NULL, &err),
             CL_INVALID_COMMAND_QUEUE);
   MAP_FAILS(clEnqueueMapBuffer(q, NULL, CL_TRUE, CL_MAP_READ, 0, 4, 0, NULL, NULL, &err),
             CL_INVALID_MEM_OBJECT);
   MAP_FAILS(clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ, 0, 4, 1, NULL, NULL, &err),
             CL_INVALID_EVENT_WAIT_LIST);
   CHECK(map_count(m) == 0);

   p = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_WRITE, 0, 16, 0, NULL, NULL, &err);
   REQUIRE(p);
   /* Unmapping with the wrong object, a pointer that is no mapping, twice. */
   CHECK_ERR(clEnqueueUnmapMemObject(q, other, p, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueUnmapMemObject(q, m, (char *)p + 1, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueUnmapMemObject(q, m, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueUnmapMemObject(NULL, m, p, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
   CHECK_ERR(clEnqueueUnmapMemObject(q, NULL, p, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
   CHECK(map_count(m) == 1);
   CHECK_OK(clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL));
   CHECK_ERR(clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_OK(clFinish(q));
   CHECK(map_count(m) == 0);
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseMemObject(other));
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   cl_command_queue ooo = kt_queue(&env, env.context, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
   data_and_count(&env, env.queue);
   data_and_count(&env, ooo);
   non_blocking(&env, env.queue);
   non_blocking(&env, ooo);
   failed_map(&env);
   errors(&env);
   CHECK_OK(clReleaseCommandQueue(ooo));
   kt_teardown(&env);
   return kt_result();
}
