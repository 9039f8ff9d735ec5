/* Entry points called from many threads at once (OpenCL 1.1 A.2: all of
 * these are thread-safe).  Each thread creates, retains, queries and
 * releases its own contexts and queues and shares one context with the
 * others; afterwards no handle may be left alive and every count must be
 * back where it started. */
#include "kiln_test.h"

#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/object.h"

enum { THREADS = 8, ROUNDS = 20000 };

static pthread_barrier_t start;
static cl_context shared_ctx;

struct result {
   int rounds; /* completed, so a thread that quit early is noticed */
   int failures;
   char what[160];
};

#define CHECK(cond)                                                            \
   do {                                                                        \
      if (!(cond)) {                                                           \
         r->failures++;                                                        \
         snprintf(r->what, sizeof(r->what), "line %d: %s", __LINE__, #cond);   \
         return NULL;                                                          \
      }                                                                        \
   } while (0)

static void *worker(void *arg)
{
   struct result *r = arg;
   /* Every thread makes its first Kiln call at the same moment, so the
    * one-time platform and dispatch setup is raced too. */
   pthread_barrier_wait(&start);

   cl_platform_id p = NULL;
   CHECK(clGetPlatformIDs(1, &p, NULL) == CL_SUCCESS && p);
   cl_device_id d = NULL;
   CHECK(clGetDeviceIDs(p, CL_DEVICE_TYPE_CPU, 1, &d, NULL) == CL_SUCCESS && d);
   cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p, 0};

   for (int i = 0; i < ROUNDS; i++) {
      cl_int err = -1;
      cl_context ctx = i % 2 ? clCreateContext(props, 1, &d, NULL, NULL, &err)
                             : clCreateContextFromType(NULL, CL_DEVICE_TYPE_CPU, NULL, NULL,
                                                       &err);
      CHECK(err == CL_SUCCESS && ctx);
      CHECK(clRetainContext(ctx) == CL_SUCCESS);

      cl_command_queue q = clCreateCommandQueue(ctx, d, CL_QUEUE_PROFILING_ENABLE, &err);
      CHECK(err == CL_SUCCESS && q);
      cl_command_queue sq = clCreateCommandQueue(shared_ctx, d, 0, &err);
      CHECK(err == CL_SUCCESS && sq);
      CHECK(clRetainContext(shared_ctx) == CL_SUCCESS);
      CHECK(clRetainCommandQueue(q) == CL_SUCCESS);

      cl_uint n = 0;
      CHECK(clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof(n), &n, NULL) ==
            CL_SUCCESS);
      CHECK(n == 2);
      CHECK(clGetContextInfo(ctx, CL_CONTEXT_REFERENCE_COUNT, sizeof(n), &n, NULL) ==
            CL_SUCCESS);
      CHECK(n == 2);
      cl_context qc = NULL;
      CHECK(clGetCommandQueueInfo(sq, CL_QUEUE_CONTEXT, sizeof(qc), &qc, NULL) == CL_SUCCESS);
      CHECK(qc == shared_ctx);
      char name[128];
      CHECK(clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof(name), name, NULL) == CL_SUCCESS);

      CHECK(clFlush(q) == CL_SUCCESS);
      CHECK(clFinish(sq) == CL_SUCCESS);
      cl_command_queue_properties old = 0;
      CHECK(clSetCommandQueueProperty(sq, CL_QUEUE_PROFILING_ENABLE, CL_TRUE, &old) ==
            CL_SUCCESS);

      /* Release in an order that differs from creation. */
      CHECK(clReleaseContext(ctx) == CL_SUCCESS);
      CHECK(clReleaseCommandQueue(q) == CL_SUCCESS);
      CHECK(clReleaseCommandQueue(sq) == CL_SUCCESS);
      CHECK(clReleaseContext(shared_ctx) == CL_SUCCESS);
      CHECK(clReleaseContext(ctx) == CL_SUCCESS);
      CHECK(clReleaseCommandQueue(q) == CL_SUCCESS);
      /* No check that q is dead now: malloc may already have given its
       * address to another thread's new queue. */
      r->rounds++;
   }
   return NULL;
}

static void many_threads_no_leaks(void **state)
{
   (void)state;
   /* Counts before any Kiln call in this process: everything is 0. */
   assert_int_equal(kiln_object_count_live(KILN_TYPE_CONTEXT), 0);
   assert_int_equal(kiln_object_count_live(KILN_TYPE_QUEUE), 0);

   /* The shared context must exist before the threads start, which means
    * one Kiln call ahead of them; the platform race is in test 2. */
   shared_ctx = clCreateContextFromType(NULL, CL_DEVICE_TYPE_CPU, NULL, NULL, NULL);
   assert_non_null(shared_ctx);

   pthread_t tids[THREADS];
   struct result results[THREADS] = {0};
   pthread_barrier_init(&start, NULL, THREADS);
   for (int i = 0; i < THREADS; i++)
      assert_int_equal(pthread_create(&tids[i], NULL, worker, &results[i]), 0);
   for (int i = 0; i < THREADS; i++)
      pthread_join(tids[i], NULL);
   pthread_barrier_destroy(&start);
   for (int i = 0; i < THREADS; i++) {
      if (results[i].failures)
         fail_msg("thread %d: %s", i, results[i].what);
      assert_int_equal(results[i].rounds, ROUNDS);
   }

   cl_uint n = 0;
   assert_int_equal(clGetContextInfo(shared_ctx, CL_CONTEXT_REFERENCE_COUNT, sizeof(n), &n, NULL),
                    CL_SUCCESS);
   assert_int_equal(n, 1);
   assert_int_equal(clReleaseContext(shared_ctx), CL_SUCCESS);
   assert_int_equal(kiln_object_count_live(KILN_TYPE_CONTEXT), 0);
   assert_int_equal(kiln_object_count_live(KILN_TYPE_QUEUE), 0);
   assert_int_equal(kiln_object_count_live(KILN_TYPE_PLATFORM), 1);
}

struct first {
   int index;
   cl_platform_id got;
};

static void *first_call(void *arg)
{
   struct first *f = arg;
   pthread_barrier_wait(&start);
   /* Half the threads start with a device query, half with platforms. */
   if (f->index % 2) {
      cl_device_id d = NULL;
      if (clGetDeviceIDs(NULL, CL_DEVICE_TYPE_ALL, 1, &d, NULL) == CL_SUCCESS)
         clGetDeviceInfo(d, CL_DEVICE_PLATFORM, sizeof(f->got), &f->got, NULL);
   } else {
      clGetPlatformIDs(1, &f->got, NULL);
   }
   return NULL;
}

/* In a child process, so that these are the process's first Kiln calls
 * whatever ran before. */
static void first_calls_race_once(void)
{
   pid_t pid = fork();
   assert_true(pid >= 0);
   if (pid == 0) {
      pthread_t tids[THREADS];
      struct first f[THREADS];
      pthread_barrier_init(&start, NULL, THREADS);
      for (int i = 0; i < THREADS; i++) {
         f[i] = (struct first){.index = i};
         pthread_create(&tids[i], NULL, first_call, &f[i]);
      }
      for (int i = 0; i < THREADS; i++)
         pthread_join(tids[i], NULL);
      int bad = 0;
      /* One platform for all, with its dispatch table installed. */
      for (int i = 0; i < THREADS; i++)
         bad |= !f[i].got || f[i].got != f[0].got || !*(void **)f[i].got;
      /* Exactly one platform and its devices were registered. */
      bad |= kiln_object_count_live(KILN_TYPE_PLATFORM) != 1;
      cl_uint ndev = 0;
      bad |= clGetDeviceIDs(NULL, CL_DEVICE_TYPE_ALL, 0, NULL, &ndev) != CL_SUCCESS;
      bad |= kiln_object_count_live(KILN_TYPE_DEVICE) != ndev;
      _exit(bad);
   }
   int status = 0;
   assert_int_equal(waitpid(pid, &status, 0), pid);
   assert_true(WIFEXITED(status));
   assert_int_equal(WEXITSTATUS(status), 0);
}

static void first_calls_race(void **state)
{
   (void)state;
   /* A race shows up only on some runs. */
   for (int i = 0; i < 50; i++)
      first_calls_race_once();
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(first_calls_race),
      cmocka_unit_test(many_threads_no_leaks),
   };
   return cmocka_run_group_tests_name("thread", tests, NULL, NULL);
}
