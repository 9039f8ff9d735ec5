/* Many threads using one context at once (OpenCL 1.1 A.2: every entry
 * point but clSetKernelArg is thread-safe).
 *
 * THREADS threads each run ITERS iterations of: create a buffer (varying
 * flags and sizes) / write / read / map / write through the map / unmap /
 * read back / release, alternating between a shared in-order and a shared
 * out-of-order queue, with the commands chained by events.  Each thread
 * also hands events to the others, which wait on them, and gates some
 * writes on user events that another thread completes.  Every byte read
 * is checked.  Meant to run under ThreadSanitizer too (suite 'stress'). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "kt.h"

#define THREADS 8
#define DEFAULT_ITERS 1000
#define MAX_SIZE 4096
#define GATE_EVERY 50

static struct kt_env env;
static cl_command_queue queues[2]; /* in-order, out-of-order */
static int iters = DEFAULT_ITERS;

/* Events passed between threads: pushed by one, waited on and released
 * by another. */
#define RING 64
static struct {
   pthread_mutex_t lock;
   cl_event events[RING];
   int owner[RING];
   unsigned head, count;
} ring = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* User events some thread must complete. */
static struct {
   pthread_mutex_t lock;
   cl_event events[THREADS * (DEFAULT_ITERS / GATE_EVERY + 1) * 4];
   unsigned count;
} gates = {.lock = PTHREAD_MUTEX_INITIALIZER};

static atomic_int waited_elsewhere, gates_set_elsewhere;
static atomic_int callbacks_registered, callbacks_called;

static void CL_CALLBACK count_callback(cl_event ev, cl_int status, void *data)
{
   (void)ev;
   (void)data;
   if (status != CL_COMPLETE)
      KT_FAIL("event callback with status %s", kt_err_name(status));
   atomic_fetch_add(&callbacks_called, 1);
}

static void add_callback(cl_event ev)
{
   atomic_fetch_add(&callbacks_registered, 1);
   CHECK_OK(clSetEventCallback(ev, CL_COMPLETE, count_callback, NULL));
}

/* Returns false when the ring is full (the caller waits itself). */
static bool ring_push(cl_event ev, int owner)
{
   bool ok = false;
   pthread_mutex_lock(&ring.lock);
   if (ring.count < RING) {
      unsigned slot = (ring.head + ring.count++) % RING;
      ring.events[slot] = ev;
      ring.owner[slot] = owner;
      ok = true;
   }
   pthread_mutex_unlock(&ring.lock);
   return ok;
}

/* Takes the oldest event not pushed by `me` (any event if me < 0). */
static cl_event ring_pop(int me)
{
   cl_event ev = NULL;
   pthread_mutex_lock(&ring.lock);
   for (unsigned i = 0; i < ring.count; i++) {
      unsigned slot = (ring.head + i) % RING;
      if (ring.owner[slot] == me)
         continue;
      ev = ring.events[slot];
      /* Close the gap: move the older entries up by one. */
      for (unsigned j = i; j > 0; j--) {
         unsigned to = (ring.head + j) % RING, from = (ring.head + j - 1) % RING;
         ring.events[to] = ring.events[from];
         ring.owner[to] = ring.owner[from];
      }
      ring.head = (ring.head + 1) % RING;
      ring.count--;
      break;
   }
   pthread_mutex_unlock(&ring.lock);
   return ev;
}

static void wait_foreign(cl_event ev)
{
   add_callback(ev);
   CHECK_OK(clWaitForEvents(1, &ev));
   cl_int st = kt_status(ev);
   CHECK(st == CL_COMPLETE, " event waited by another thread has status %s", kt_err_name(st));
   CHECK_OK(clReleaseEvent(ev));
}

static void gate_push(cl_event ev)
{
   pthread_mutex_lock(&gates.lock);
   REQUIRE(gates.count < sizeof(gates.events) / sizeof(gates.events[0]));
   gates.events[gates.count++] = ev;
   pthread_mutex_unlock(&gates.lock);
}

/* Completes (and drops) every pending gate; false if there was none. */
static bool gates_open_all(void)
{
   cl_event mine[sizeof(gates.events) / sizeof(gates.events[0])];
   pthread_mutex_lock(&gates.lock);
   unsigned n = gates.count;
   memcpy(mine, gates.events, n * sizeof(cl_event));
   gates.count = 0;
   pthread_mutex_unlock(&gates.lock);
   for (unsigned i = 0; i < n; i++) {
      CHECK_OK(clSetUserEventStatus(mine[i], CL_COMPLETE));
      CHECK_OK(clReleaseEvent(mine[i]));
   }
   return n != 0;
}

/* A write held by a user event that some other thread completes; checked
 * at the end of the thread. */
struct gated {
   cl_mem mem;
   cl_event write;
   unsigned char data[64];
};

struct worker {
   int id;
   unsigned seed;
   struct gated *gated;
   int ngated;
};

static unsigned next_rand(unsigned *s)
{
   *s = *s * 1103515245u + 12345u;
   return *s >> 8;
}

static void one_iteration(struct worker *w, int it)
{
   cl_command_queue q = queues[it & 1];
   size_t size = 1 + next_rand(&w->seed) % MAX_SIZE;
   unsigned char src[MAX_SIZE], dst[MAX_SIZE], init[MAX_SIZE];
   unsigned char *host = NULL;
   kt_fill(src, size, (unsigned)(w->id * 100000 + it));
   kt_fill(init, size, (unsigned)(w->id * 100000 + it + 7));

   cl_mem_flags flags;
   void *ptr = NULL;
   switch (it % 4) {
   case 0: flags = CL_MEM_READ_WRITE; break;
   case 1: flags = CL_MEM_COPY_HOST_PTR; ptr = init; break;
   case 2: flags = CL_MEM_ALLOC_HOST_PTR; break;
   default:
      host = malloc(size);
      REQUIRE(host);
      memcpy(host, init, size);
      flags = CL_MEM_USE_HOST_PTR;
      ptr = host;
      break;
   }
   cl_int err;
   cl_mem m = clCreateBuffer(env.context, flags, size, ptr, &err);
   REQUIRE(m && err == CL_SUCCESS, " thread %d iteration %d: clCreateBuffer: %s", w->id, it,
           kt_err_name(err));

   /* Non-blocking write, read after it (explicit wait: the queue may be
    * out of order). */
   cl_event ew, er, em, eu;
   CHECK_OK(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, size, src, 0, NULL, &ew));
   memset(dst, 0, size);
   CHECK_OK(clEnqueueReadBuffer(q, m, CL_FALSE, 0, size, dst, 1, &ew, &er));
   add_callback(er);

   /* Hand the read's event to another thread; wait for one of theirs. */
   CHECK_OK(clRetainEvent(er));
   cl_event foreign = ring_pop(w->id);
   if (foreign) {
      wait_foreign(foreign);
      atomic_fetch_add(&waited_elsewhere, 1);
   }
   if (!ring_push(er, w->id))
      wait_foreign(er);

   /* Map after the read, check, write through the mapping. */
   unsigned char *p = clEnqueueMapBuffer(q, m, CL_FALSE, CL_MAP_READ | CL_MAP_WRITE, 0, size, 1,
                                         &er, &em, &err);
   CHECK(p && err == CL_SUCCESS, " map: %s", kt_err_name(err));
   CHECK_OK(clWaitForEvents(1, &em));
   CHECK(kt_same(dst, src, size, "non-blocking read"), " thread %d iteration %d queue %s",
         w->id, it, it & 1 ? "OOO" : "in-order");
   if (p) {
      CHECK(kt_same(p, src, size, "mapping"), " thread %d iteration %d", w->id, it);
      for (size_t i = 0; i < size; i += 97)
         p[i] ^= 0x5a;
      CHECK_OK(clEnqueueUnmapMemObject(q, m, p, 0, NULL, &eu));
      for (size_t i = 0; i < size; i += 97)
         src[i] ^= 0x5a;
      /* Blocking read after the unmap. */
      CHECK_OK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, size, dst, 1, &eu, NULL));
      CHECK(kt_same(dst, src, size, "read after writing through a mapping"),
            " thread %d iteration %d", w->id, it);
      CHECK_OK(clReleaseEvent(eu));
   }
   cl_uint maps = 99;
   CHECK_OK(clGetMemObjectInfo(m, CL_MEM_MAP_COUNT, sizeof(maps), &maps, NULL));
   CHECK(maps == 0, " map count %u", maps);
   CHECK(kt_status(ew) == CL_COMPLETE && kt_status(er) == CL_COMPLETE);
   CHECK_OK(clReleaseEvent(ew));
   CHECK_OK(clReleaseEvent(er));
   CHECK_OK(clReleaseEvent(em));
   CHECK_OK(clReleaseMemObject(m));
   /* USE_HOST_PTR memory may go once the commands using it are done:
    * the blocking read above was the last. */
   free(host);

   if (it % GATE_EVERY == GATE_EVERY / 2) {
      struct gated *g = &w->gated[w->ngated++];
      g->mem = kt_buffer(env.context, 0, sizeof(g->data), NULL);
      kt_fill(g->data, sizeof(g->data), (unsigned)(w->id * 7 + it));
      cl_event gate = kt_user_event(env.context);
      /* Out-of-order queue only: gated, it holds back nothing else.  On
       * the shared in-order queue it would stall every thread until the
       * gate opened, and the threads that open gates could be among the
       * stalled ones. */
      CHECK_OK(clEnqueueWriteBuffer(queues[1], g->mem, CL_FALSE, 0,
                                    sizeof(g->data), g->data, 1, &gate, &g->write));
      gate_push(gate);
   }
   /* Markers and barriers on the shared in-order queue, among the other
    * threads' commands.  (Not on the out-of-order one: there they would
    * wait for gated writes, and hold up everything after them.) */
   if (it % 10 == 3) {
      cl_event mk;
      CHECK_OK(clEnqueueMarker(queues[0], &mk));
      CHECK_OK(clWaitForEvents(1, &mk));
      CHECK(kt_status(mk) == CL_COMPLETE);
      CHECK_OK(clReleaseEvent(mk));
   }
   if (it % 25 == 7)
      CHECK_OK(clEnqueueBarrier(queues[0]));

   /* Complete gates other threads made, now and then. */
   if (it % 16 == w->id % 16 && gates_open_all())
      atomic_fetch_add(&gates_set_elsewhere, 1);
}

static void *worker_main(void *arg)
{
   struct worker *w = arg;
   for (int it = 0; it < iters; it++)
      one_iteration(w, it);
   /* Our gates may still be pending: open them all, then check the
    * gated writes.  A gate taken by another thread is set right after. */
   gates_open_all();
   for (int i = 0; i < w->ngated; i++) {
      struct gated *g = &w->gated[i];
      CHECK_OK(clWaitForEvents(1, &g->write));
      unsigned char got[sizeof(g->data)];
      CHECK_OK(clEnqueueReadBuffer(queues[i & 1], g->mem, CL_TRUE, 0, sizeof(got), got, 0, NULL,
                                   NULL));
      CHECK(kt_same(got, g->data, sizeof(got), "gated write"), " thread %d gate %d", w->id, i);
      CHECK_OK(clReleaseEvent(g->write));
      CHECK_OK(clReleaseMemObject(g->mem));
   }
   return NULL;
}

int main(int argc, char **argv)
{
   if (argc > 1)
      iters = atoi(argv[1]);
   REQUIRE(iters > 0 && iters <= DEFAULT_ITERS, " iterations %d", iters);
   kt_setup(&env, 0);
   queues[0] = env.queue;
   queues[1] = kt_queue(&env, env.context, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);

   pthread_t threads[THREADS];
   struct worker workers[THREADS];
   for (int t = 0; t < THREADS; t++) {
      workers[t] = (struct worker){.id = t, .seed = 12345u + (unsigned)t};
      workers[t].gated = calloc(iters / GATE_EVERY + 1, sizeof(struct gated));
      REQUIRE(workers[t].gated);
      REQUIRE(!pthread_create(&threads[t], NULL, worker_main, &workers[t]));
   }
   for (int t = 0; t < THREADS; t++)
      pthread_join(threads[t], NULL);
   /* Events still in the ring. */
   for (cl_event ev; (ev = ring_pop(-1));)
      wait_foreign(ev);
   gates_open_all();
   printf("%d threads x %d iterations; %d events waited by other threads, %d gate batches "
          "opened mid-run\n",
          THREADS, iters, atomic_load(&waited_elsewhere), atomic_load(&gates_set_elsewhere));

   CHECK_OK(clFinish(queues[1]));
   CHECK_OK(clFinish(queues[0]));
   /* Callbacks may still be running on a Kiln thread. */
   for (int i = 0; i < 5000 && atomic_load(&callbacks_called) < atomic_load(&callbacks_registered);
        i++)
      kt_sleep_ms(1);
   CHECK(atomic_load(&callbacks_called) == atomic_load(&callbacks_registered),
         " %d event callbacks registered, %d called", atomic_load(&callbacks_registered),
         atomic_load(&callbacks_called));
   CHECK_OK(clReleaseCommandQueue(queues[1]));
   for (int t = 0; t < THREADS; t++)
      free(workers[t].gated);
   kt_teardown(&env);
   return kt_result();
}
