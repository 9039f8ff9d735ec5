/* A program for tests/cl/exec/check_trace.py, run with KILN_TRACE: known
 * commands on two queues (a write, a 2D kernel with a given local size,
 * a copy, a read, a marker), then it exits leaking on purpose.
 *   trace leak    exit() with a buffer of 1234 bytes, the kernel and
 *                 everything else still held
 *   trace _exit   _exit(): no exit handler runs, the file must still be
 *                 valid JSON */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kt.h"

static const char *src =
   "__kernel void scale(__global float *a, float f)\n"
   "{ size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0); a[i] *= f; }\n";

int main(int argc, char **argv)
{
   if (argc != 2)
      KT_DIE("usage: trace leak|_exit");
   struct kt_env env;
   kt_setup(&env, 0);
   cl_int err;
   cl_command_queue q2 =
      clCreateCommandQueue(env.context, env.device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
   REQUIRE_OK(err);
   cl_program p = clCreateProgramWithSource(env.context, 1, &src, NULL, &err);
   REQUIRE_OK(err);
   REQUIRE_OK(clBuildProgram(p, 1, &env.device, NULL, NULL, NULL));
   cl_kernel k = clCreateKernel(p, "scale", &err);
   REQUIRE_OK(err);
   enum { N = 1024 };
   float host[N], back[N];
   for (int i = 0; i < N; i++)
      host[i] = (float)i;
   cl_mem a = kt_buffer(env.context, CL_MEM_READ_WRITE, sizeof(host), NULL);
   cl_mem b = kt_buffer(env.context, CL_MEM_READ_WRITE, sizeof(host), NULL);
   cl_mem leaked = kt_buffer(env.context, CL_MEM_READ_WRITE, 1234, NULL);
   (void)leaked;
   float f = 2.0f;
   REQUIRE_OK(clSetKernelArg(k, 0, sizeof(a), &a));
   REQUIRE_OK(clSetKernelArg(k, 1, sizeof(f), &f));
   cl_event wrote, ran, copied;
   REQUIRE_OK(clEnqueueWriteBuffer(env.queue, a, CL_FALSE, 0, sizeof(host), host, 0, NULL,
                                   &wrote));
   size_t global[2] = {64, 16}, local[2] = {16, 2};
   REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 2, NULL, global, local, 0, NULL, &ran));
   /* On the other queue, after the kernel. */
   REQUIRE_OK(clEnqueueCopyBuffer(q2, a, b, 0, 0, sizeof(host), 1, &ran, &copied));
   REQUIRE_OK(clEnqueueReadBuffer(q2, b, CL_TRUE, 0, sizeof(back), back, 1, &copied, NULL));
   cl_event marker;
   REQUIRE_OK(clEnqueueMarker(env.queue, &marker));
   REQUIRE_OK(clFinish(env.queue));
   REQUIRE_OK(clFinish(q2));
   for (int i = 0; i < N; i++)
      CHECK(back[i] == 2.0f * (float)i, "back[%d] = %g", i, back[i]);
   clReleaseEvent(wrote);
   clReleaseEvent(ran);
   clReleaseEvent(copied);
   clReleaseEvent(marker);
   if (kt_result())
      return kt_result();
   if (!strcmp(argv[1], "_exit"))
      _exit(0);
   /* Leaves a, b, leaked, k, p, q2 and env's context and queue. */
   exit(0);
}
