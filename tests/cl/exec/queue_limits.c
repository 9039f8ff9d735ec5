/* What many or endless commands must not do to a queue:
 * - a kernel that never ends holds back its own queue only: a blocking
 *   write on another queue of the same device returns while it runs;
 * - a long chain of dependent commands on an out-of-order queue enqueues
 *   in time proportional to its length (each enqueue used to scan every
 *   pending command);
 * - kernels enqueued faster than they run do not pile up without bound:
 *   the enqueuing thread waits once a queue has many commands ready
 *   (docs/design.md, "Back-pressure"). */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "kt.h"

static cl_kernel build(struct kt_env *env, const char *src, const char *name)
{
   cl_int err;
   cl_program p = clCreateProgramWithSource(env->context, 1, &src, NULL, &err);
   REQUIRE_OK(err);
   REQUIRE_OK(clBuildProgram(p, 1, &env->device, NULL, NULL, NULL));
   cl_kernel k = clCreateKernel(p, name, &err);
   REQUIRE_OK(err);
   CHECK_OK(clReleaseProgram(p));
   return k;
}

/* The kernel spins until the host sets the flag, which it reads through
 * memory the host shares with the device (CL_MEM_USE_HOST_PTR on a device
 * of unified memory); meanwhile another queue must serve a blocking write. */
static void endless_kernel(struct kt_env *env)
{
   if (!kt_device_uint(env->device, CL_DEVICE_HOST_UNIFIED_MEMORY)) {
      printf("endless kernel: skipped (the host cannot stop a kernel on this device)\n");
      return;
   }
   static const char src[] = "kernel void spin(volatile global int *flag, global int *out)\n"
                             "{\n"
                             "   int n = 0;\n"
                             "   while (!flag[0])\n"
                             "      n++;\n"
                             "   out[0] = n;\n"
                             "}\n";
   cl_kernel k = build(env, src, "spin");
   static volatile int flag;
   flag = 0;
   cl_mem f = kt_buffer(env->context, CL_MEM_USE_HOST_PTR, sizeof(int), (void *)&flag);
   cl_mem out = kt_buffer(env->context, 0, sizeof(int), NULL);
   cl_mem other = kt_buffer(env->context, 0, sizeof(int), NULL);
   CHECK_OK(clSetKernelArg(k, 0, sizeof(f), &f));
   CHECK_OK(clSetKernelArg(k, 1, sizeof(out), &out));
   cl_command_queue q2 = kt_queue(env, env->context, 0);
   size_t one = 1;
   cl_event run;
   CHECK_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &one, &one, 0, NULL, &run));
   CHECK_OK(clFlush(env->queue));
   /* Until the kernel runs, the write below proves nothing. */
   while (kt_status(run) > CL_RUNNING)
      kt_sleep_ms(1);
   int v = 42, back = 0;
   CHECK_OK(clEnqueueWriteBuffer(q2, other, CL_TRUE, 0, sizeof(v), &v, 0, NULL, NULL));
   CHECK_OK(clEnqueueReadBuffer(q2, other, CL_TRUE, 0, sizeof(back), &back, 0, NULL, NULL));
   CHECK(back == 42, "read %d", back);
   CHECK(kt_status(run) == CL_RUNNING, "the kernel must still spin: status %s",
         kt_err_name(kt_status(run)));
   flag = 1;
   CHECK_ENDS(run, CL_COMPLETE);
   CHECK_OK(clReleaseEvent(run));
   CHECK_OK(clReleaseCommandQueue(q2));
   CHECK_OK(clReleaseMemObject(f));
   CHECK_OK(clReleaseMemObject(out));
   CHECK_OK(clReleaseMemObject(other));
   CHECK_OK(clReleaseKernel(k));
}

/* N writes, each waiting for the one before, held back by a user event
 * until all are enqueued: N pending commands at the end. */
static void out_of_order_chain(struct kt_env *env)
{
   cl_command_queue_properties props = 0;
   CHECK_OK(clGetDeviceInfo(env->device, CL_DEVICE_QUEUE_PROPERTIES, sizeof(props), &props,
                            NULL));
   if (!(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
      printf("out-of-order chain: skipped (no out-of-order queues)\n");
      return;
   }
   enum { N = 100000 };
   cl_command_queue q = kt_queue(env, env->context, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
   cl_mem m = kt_buffer(env->context, 0, sizeof(cl_uint), NULL);
   static cl_uint values[N];
   cl_event prev = kt_user_event(env->context), gate = prev;
   CHECK_OK(clRetainEvent(gate));
   for (cl_uint i = 0; i < N; i++) {
      values[i] = i;
      cl_event next;
      cl_int err = clEnqueueWriteBuffer(q, m, CL_FALSE, 0, sizeof(cl_uint), &values[i], 1, &prev,
                                        &next);
      CHECK_OK(clReleaseEvent(prev));
      if (err) {
         KT_FAIL("write %u: %s", i, kt_err_name(err));
         return;
      }
      prev = next;
   }
   CHECK(kt_status(prev) > CL_COMPLETE, "the last write ran before the gate opened");
   CHECK_OK(clSetUserEventStatus(gate, CL_COMPLETE));
   CHECK_OK(clReleaseEvent(gate));
   CHECK_OK(clFinish(q));
   CHECK(kt_status(prev) == CL_COMPLETE);
   cl_uint got = 0;
   CHECK_OK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof(got), &got, 0, NULL, NULL));
   CHECK(got == N - 1, "the chain ran out of order: last value %u", got);
   CHECK_OK(clReleaseEvent(prev));
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseCommandQueue(q));
}

static long peak_kib(void)
{
   struct rusage ru;
   getrusage(RUSAGE_SELF, &ru);
   return ru.ru_maxrss;
}

/* Many tiny kernels and no clFinish: what is pending must stay bounded.
 * ASan keeps freed memory in quarantine, so the peak says nothing there. */
static void back_pressure(struct kt_env *env)
{
#if defined(__SANITIZE_ADDRESS__)
   printf("back-pressure: memory not checked under AddressSanitizer\n");
   const int n = 20000;
#else
   const int n = 150000;
#endif
   cl_kernel k = build(env, "kernel void nothing(void) {}", "nothing");
   size_t one = 1;
   /* Once, so the first launch's one-time costs are in the baseline. */
   CHECK_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &one, &one, 0, NULL, NULL));
   CHECK_OK(clFinish(env->queue));
   long before = peak_kib();
   for (int i = 0; i < n; i++) {
      cl_int err = clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &one, &one, 0, NULL, NULL);
      if (err) {
         KT_FAIL("launch %d: %s", i, kt_err_name(err));
         break;
      }
   }
   long grown = peak_kib() - before;
   CHECK_OK(clFinish(env->queue));
   printf("back-pressure: %d launches, peak grew by %ld KiB\n", n, grown);
#if !defined(__SANITIZE_ADDRESS__)
   CHECK(grown < 48 * 1024, "%d pending launches grew the peak by %ld KiB", n, grown);
#endif
   CHECK_OK(clReleaseKernel(k));
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   endless_kernel(&env);
   out_of_order_chain(&env);
   back_pressure(&env);
   kt_teardown(&env);
   return kt_result();
}
