/* Threads launching one kernel object at once (OpenCL 1.1 A.2: enqueues
 * of one kernel from several threads are safe; only clSetKernelArg is
 * not).  What the launch path shares between them (docs/performance.md,
 * "Launch path"): the kernel's remembered geometry and driver limits,
 * its arguments' liveness check, each thread's handle look-up hits, the
 * events of launches without an event pointer, the object pool.
 *
 * THREADS threads each enqueue ITERS launches, alternating two global
 * and two local sizes (and a NULL local size), on a queue of their own
 * and now and then on a shared one, waiting on every fourth launch's
 * event and trying a local size that does not divide in between (which
 * must still fail).  Work-item 0 of every launch counts it: the count
 * must be every launch.  Meant to run under ThreadSanitizer too (suite
 * 'stress'). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "kt.h"

#define THREADS 4
#define ITERS 3000

static struct kt_env env;
static cl_kernel kernel;
static atomic_int launched;

static const char *source =
   "__kernel void count(__global int *n) { if (get_global_id(0) == 0) atomic_inc(n); }\n";

static void *worker_main(void *arg)
{
   (void)arg;
   cl_int err;
   cl_command_queue own = clCreateCommandQueue(env.context, env.device, 0, &err);
   REQUIRE_OK(err);
   for (int i = 0; i < ITERS; i++) {
      size_t g = i % 3 ? 128 : 64, l = i % 2 ? 8 : 16;
      cl_command_queue q = i % 5 ? own : env.queue;
      cl_event ev = NULL;
      err = clEnqueueNDRangeKernel(q, kernel, 1, NULL, &g, i % 7 ? &l : NULL, 0, NULL,
                                   i % 4 ? NULL : &ev);
      CHECK(err == CL_SUCCESS, " launch %d: %s", i, kt_err_name(err));
      if (err)
         break;
      atomic_fetch_add(&launched, 1);
      if (ev) {
         CHECK_OK(clWaitForEvents(1, &ev));
         CHECK_OK(clReleaseEvent(ev));
      }
      if (i % 11 == 0)
         CHECK_ERR(clEnqueueNDRangeKernel(q, kernel, 1, NULL, &g, (size_t[]){7}, 0, NULL, NULL),
                   CL_INVALID_WORK_GROUP_SIZE);
   }
   CHECK_OK(clFinish(own));
   CHECK_OK(clReleaseCommandQueue(own));
   return NULL;
}

int main(void)
{
   kt_setup(&env, 0);
   cl_int err;
   cl_program prog = clCreateProgramWithSource(env.context, 1, &source, NULL, &err);
   REQUIRE_OK(err);
   REQUIRE_OK(clBuildProgram(prog, 1, &env.device, "", NULL, NULL));
   kernel = clCreateKernel(prog, "count", &err);
   REQUIRE_OK(err);
   cl_mem n = clCreateBuffer(env.context, CL_MEM_READ_WRITE, sizeof(cl_int), NULL, &err);
   REQUIRE_OK(err);
   cl_int zero = 0, got = -1;
   CHECK_OK(clEnqueueWriteBuffer(env.queue, n, CL_TRUE, 0, sizeof(zero), &zero, 0, NULL, NULL));
   CHECK_OK(clSetKernelArg(kernel, 0, sizeof(n), &n));
   pthread_t threads[THREADS];
   for (int t = 0; t < THREADS; t++)
      REQUIRE(!pthread_create(&threads[t], NULL, worker_main, NULL));
   for (int t = 0; t < THREADS; t++)
      pthread_join(threads[t], NULL);
   CHECK_OK(clFinish(env.queue));
   CHECK_OK(clEnqueueReadBuffer(env.queue, n, CL_TRUE, 0, sizeof(got), &got, 0, NULL, NULL));
   CHECK(got == atomic_load(&launched) && got == THREADS * ITERS,
         " the kernel counted %d launches; %d were enqueued, %d meant", got,
         atomic_load(&launched), THREADS * ITERS);
   CHECK_OK(clReleaseMemObject(n));
   CHECK_OK(clReleaseKernel(kernel));
   CHECK_OK(clReleaseProgram(prog));
   kt_teardown(&env);
   return kt_result();
}
