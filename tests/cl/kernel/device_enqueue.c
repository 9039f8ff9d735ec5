/* Device-side enqueue (OpenCL C 3.0 __opencl_c_device_enqueue) on a
 * device that reports it (Kiln's CPU device): the on-device queue API
 * (creation and its errors, the default queue, clSetDefaultDeviceCommandQueue,
 * queue info, host enqueues refused, queue_t arguments); kernels that
 * enqueue blocks as child ND-ranges writing a buffer, through the default
 * queue and a queue_t argument, in 1, 2 and 3 dimensions; nested
 * enqueues (children enqueue grandchildren); events between children
 * (a wait list, markers, user events set by a kernel, retain/release,
 * is_valid_event, profiling); blocks with __local pointer arguments; the
 * block queries; the host command completing after its descendants; and
 * CLK_INVALID_* returns.  A device without the feature reports 0 and
 * refuses on-device queues. */
#undef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#include <stdlib.h>
#include <string.h>

#include "kk.h"

#define CL30 "-cl-std=CL3.0"
#define N 64

static const char *src =
   "void child_fn(global int *out, int v) { out[get_global_id(0)] = v + (int)get_global_id(0); }\n"
   /* A child ND-range of N work-items writing the buffer. */
   "kernel void parent(global int *out, int v)\n"
   "{\n"
   "  if (get_global_id(0) != 0) return;\n"
   "  out[N] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL,\n"
   "                          ndrange_1D(N, 16), ^{ child_fn(out, v); });\n"
   "}\n"
   /* Through a queue_t argument, with no local size, one child per
    * work-item of the parent. */
   "kernel void per_item(global int *out, queue_t q)\n"
   "{\n"
   "  int i = (int)get_global_id(0);\n"
   "  int r = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
   "                         ^{ out[i] = i * 3; });\n"
   "  if (r != CLK_SUCCESS) out[i] = -1000 + r;\n"
   "}\n"
   /* 2D and 3D ranges with an offset. */
   "kernel void dims(global int *out)\n"
   "{\n"
   "  size_t off2[2] = {1, 2}, g2[2] = {4, 3}, l2[2] = {2, 3};\n"
   "  size_t g3[3] = {2, 2, 2};\n"
   "  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_2D(off2, g2, l2),\n"
   "    ^{ out[get_global_id(1) * 8 + get_global_id(0)] = (int)(get_global_size(0) * 100\n"
   "         + get_local_size(1) * 10 + get_work_dim()); });\n"
   "  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_3D(g3),\n"
   "    ^{ out[40 + get_global_id(2) * 4 + get_global_id(1) * 2 + get_global_id(0)] = 7; });\n"
   "}\n"
   /* Nested: each level enqueues the next, three deep; the last writes. */
   "void level(global int *out, int depth)\n"
   "{\n"
   "  if (depth == 3) { out[get_global_id(0)] += 1000; return; }\n"
   "  out[get_global_id(0)] += 1;\n"
   "  if (get_global_id(0) == 0)\n"
   "    enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL, ndrange_1D(4),\n"
   "                   ^{ level(out, depth + 1); });\n"
   "}\n"
   "kernel void nested(global int *out) { level(out, 0); }\n"
   /* Events: b waits for a (which writes first), a marker waits for both,
    * c waits for the marker and a user event that a later kernel sets;
    * profiling of a is captured by c. */
   "global ulong prof[2];\n"
   "kernel void events(global int *out)\n"
   "{\n"
   "  queue_t q = get_default_queue();\n"
   "  clk_event_t a, b, m, u = create_user_event();\n"
   "  out[10] = is_valid_event(u);\n"
   "  out[11] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 1, &u, &a,\n"
   "                          ^{ out[0] = 1; });\n"
   "  out[12] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 1, &a, &b,\n"
   "                          ^{ out[1] = out[0] + 1; });\n"
   "  clk_event_t ab[2] = {a, b};\n"
   "  out[13] = enqueue_marker(q, 2, ab, &m);\n"
   "  retain_event(a);\n"
   "  out[14] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 1, &m, NULL,\n"
   "       ^{ out[2] = out[1] + 1; capture_event_profiling_info(a, CLK_PROFILING_COMMAND_EXEC_TIME, prof);\n"
   "          out[3] = prof[0] > 0 && prof[1] > 0; release_event(a); });\n"
   "  out[15] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
   "                          ^{ out[4] = out[0]; set_user_event_status(u, CL_COMPLETE); });\n"
   "  release_event(a); release_event(b); release_event(m); release_event(u);\n"
   "  out[16] = is_valid_event(CLK_NULL_EVENT);\n"
   "}\n"
   /* __local pointer arguments of a block: each group sums its items in
    * one and counts them in the other. */
   "kernel void locals(global int *out)\n"
   "{\n"
   "  out[N + 1] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL,\n"
   "    ndrange_1D(N, 16), ^(local void *a, local void *b) {\n"
   "      local int *s = a; local int *c = b;\n"
   "      if (get_local_id(0) == 0) { *s = 0; c[3] = 0; }\n"
   "      barrier(CLK_LOCAL_MEM_FENCE);\n"
   "      atomic_add(s, (int)get_global_id(0)); atomic_inc(&c[3]);\n"
   "      barrier(CLK_LOCAL_MEM_FENCE);\n"
   "      out[get_global_id(0)] = *s * 100 + c[3]; }, 4u, 64u);\n"
   "}\n"
   /* A child writing past the end of the parent's buffer. */
   "kernel void past_end(global int *out)\n"
   "{\n"
   "  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(N + 1),\n"
   "                 ^{ out[get_global_id(0)] = 1; });\n"
   "}\n"
   /* A wait list of 100 events, on a marker and on a kernel. */
   "kernel void many(global int *out)\n"
   "{\n"
   "  clk_event_t ev[100], m;\n"
   "  for (int i = 0; i < 100; i++)\n"
   "    enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 0, NULL,\n"
   "                   &ev[i], ^{ out[i] = i; });\n"
   "  out[100] = enqueue_marker(get_default_queue(), 100, ev, &m);\n"
   "  out[101] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 100, ev,\n"
   "                            NULL, ^{ int s = 0; for (int i = 0; i < 100; i++) s += out[i]; out[102] = s; });\n"
   "  out[103] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 1, &m,\n"
   "                            NULL, ^{ out[104] = out[99]; });\n"
   "  for (int i = 0; i < 100; i++) release_event(ev[i]);\n"
   "  release_event(m);\n"
   "}\n"
   /* Enqueues until the device queue is full: how many went in, and the
    * code that stopped them; every one that went in runs. */
   "kernel void fill(global int *out, queue_t q)\n"
   "{\n"
   "  int n = 0, r = 0;\n"
   "  while (n < 1000000 && (r = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT,\n"
   "                                            ndrange_1D(1), ^{ atomic_inc(out + 2); })) == CLK_SUCCESS)\n"
   "    n++;\n"
   "  out[0] = n; out[1] = r;\n"
   "}\n"
   /* Queries and errors. */
   "kernel void queries(global int *out)\n"
   "{\n"
   "  void (^blk)(void) = ^{ out[9] = 1; };\n"
   "  out[0] = get_kernel_work_group_size(blk);\n"
   "  out[1] = get_kernel_preferred_work_group_size_multiple(blk);\n"
   "  size_t z[3] = {0, 4, 4};\n"
   "  out[2] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_3D(z), blk);\n"
   "  clk_event_t e;\n"
   "  out[4] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 1, 0, &e, blk);\n"
   "  out[5] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(4, 100000), blk);\n"
   "  out[6] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
   "                          ^(local void *p){ out[8] = 1; }, 0u);\n"
   "}\n";

static cl_command_queue device_queue(const struct kt_env *env, cl_command_queue_properties extra,
                                     cl_int *err)
{
   cl_queue_properties props[] = {
      CL_QUEUE_PROPERTIES,
      CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_ON_DEVICE | extra, 0};
   return clCreateCommandQueueWithProperties(env->context, env->device, props, err);
}

static void test_api(const struct kt_env *env, cl_command_queue def)
{
   cl_uint size = 0, max = kt_device_uint(env->device, CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE);
   CHECK(max >= 256 * 1024, "max size %u", max);
   CHECK(kt_device_uint(env->device, CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE) >= 16 * 1024);
   CHECK(kt_device_uint(env->device, CL_DEVICE_MAX_ON_DEVICE_QUEUES) >= 1);
   CHECK(kt_device_uint(env->device, CL_DEVICE_MAX_ON_DEVICE_EVENTS) >= 1024);
   cl_command_queue_properties qp = 0;
   CHECK_OK(clGetDeviceInfo(env->device, CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES, sizeof(qp), &qp,
                            NULL));
   CHECK(qp == (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE));

   /* The default: created once, the same handle again (retained). */
   cl_int err;
   cl_command_queue again = device_queue(env, CL_QUEUE_ON_DEVICE_DEFAULT, &err);
   CHECK_OK(err);
   CHECK(again == def);
   cl_uint refs = 0;
   CHECK_OK(clGetCommandQueueInfo(def, CL_QUEUE_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
   CHECK(refs == 2, "%u references", refs);
   CHECK_OK(clReleaseCommandQueue(again));
   CHECK_OK(clGetCommandQueueInfo(def, CL_QUEUE_SIZE, sizeof(size), &size, NULL));
   CHECK(size == kt_device_uint(env->device, CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE));
   cl_command_queue got = NULL;
   CHECK_OK(clGetCommandQueueInfo(env->queue, CL_QUEUE_DEVICE_DEFAULT, sizeof(got), &got, NULL));
   CHECK(got == def);
   cl_queue_properties list[4] = {0};
   size_t list_size = 0;
   CHECK_OK(clGetCommandQueueInfo(def, CL_QUEUE_PROPERTIES_ARRAY, sizeof(list), list, &list_size));
   CHECK(list_size == 3 * sizeof(cl_queue_properties) && list[0] == CL_QUEUE_PROPERTIES &&
            list[2] == 0,
         "properties array of %zu bytes", list_size);
   cl_command_queue_properties bits = 0;
   CHECK_OK(clGetCommandQueueInfo(def, CL_QUEUE_PROPERTIES, sizeof(bits), &bits, NULL));
   CHECK(bits == (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_ON_DEVICE |
                  CL_QUEUE_ON_DEVICE_DEFAULT));

   /* Sizes: a given one kept, one above the maximum refused. */
   cl_queue_properties sized[] = {
      CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_ON_DEVICE,
      CL_QUEUE_SIZE, 64 * 1024, 0};
   cl_command_queue q = clCreateCommandQueueWithProperties(env->context, env->device, sized, &err);
   CHECK_OK(err);
   if (q) {
      CHECK_OK(clGetCommandQueueInfo(q, CL_QUEUE_SIZE, sizeof(size), &size, NULL));
      CHECK(size == 64 * 1024);
      /* A host command to an on-device queue. */
      cl_mem buf = kk_buffer_in(env, 16, NULL);
      int zero = 0;
      CHECK_ERR(clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, 4, &zero, 0, NULL, NULL),
                CL_INVALID_COMMAND_QUEUE);
      CHECK_ERR(clFinish(q), CL_INVALID_COMMAND_QUEUE);
      CHECK_ERR(clEnqueueMarkerWithWaitList(q, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
      clReleaseMemObject(buf);
      /* Replacing the default, and back. */
      CHECK_OK(clSetDefaultDeviceCommandQueue(env->context, env->device, q));
      CHECK_OK(clGetCommandQueueInfo(env->queue, CL_QUEUE_DEVICE_DEFAULT, sizeof(got), &got,
                                     NULL));
      CHECK(got == q);
      CHECK_OK(clSetDefaultDeviceCommandQueue(env->context, env->device, def));
      clReleaseCommandQueue(q);
   }
   sized[3] = (cl_queue_properties)max + 1;
   q = clCreateCommandQueueWithProperties(env->context, env->device, sized, &err);
   CHECK(!q);
   CHECK_ERR(err, CL_INVALID_VALUE);
   /* On-device without out-of-order: invalid. */
   cl_queue_properties in_order[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE, 0};
   q = clCreateCommandQueueWithProperties(env->context, env->device, in_order, &err);
   CHECK(!q);
   CHECK_ERR(err, CL_INVALID_VALUE);
   CHECK_ERR(clSetDefaultDeviceCommandQueue(env->context, env->device, env->queue),
             CL_INVALID_COMMAND_QUEUE);
   CHECK_ERR(clSetDefaultDeviceCommandQueue(NULL, env->device, def), CL_INVALID_CONTEXT);
}

/* Runs "parent" of p and checks what its child wrote. */
static void run_parent(const struct kt_env *env, cl_program p, const char *how)
{
   cl_kernel k = kk_kernel(p, "parent");
   cl_mem out = kk_buffer_in(env, (N + 2) * sizeof(int), NULL);
   int v = 9;
   KK_ARG(k, 0, out);
   KK_ARG(k, 1, v);
   size_t g = 1;
   KK_RUN(env, k, 1, NULL, &g, NULL);
   int got[N + 2];
   kk_read(env, out, sizeof(got), got);
   bool ok = got[N] == 0;
   for (int i = 0; i < N; i++)
      ok &= got[i] == 9 + i;
   CHECK(ok, "%s: the child did not write (returned %d, out[1] = %d)", how, got[N], got[1]);
   clReleaseMemObject(out);
   clReleaseKernel(k);
}

/* The program's binary, loaded again; and the source compiled and
 * linked separately: block kernels and their names survive both. */
static void test_binary_and_link(const struct kt_env *env, cl_program p, const char *opts)
{
   size_t size = 0;
   REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, NULL));
   unsigned char *bin = malloc(size);
   REQUIRE(bin);
   REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL));
   cl_int err, status;
   const unsigned char *cbin = bin;
   cl_program b = clCreateProgramWithBinary(env->context, 1, &env->device, &size, &cbin, &status,
                                            &err);
   REQUIRE_OK(err);
   REQUIRE_OK(clBuildProgram(b, 1, &env->device, NULL, NULL, NULL));
   run_parent(env, b, "from its binary");
   clReleaseProgram(b);
   free(bin);

   cl_program c = clCreateProgramWithSource(env->context, 1, &src, NULL, &err);
   REQUIRE_OK(err);
   REQUIRE_OK(clCompileProgram(c, 1, &env->device, opts, 0, NULL, NULL, NULL, NULL));
   cl_program l = clLinkProgram(env->context, 1, &env->device, NULL, 1, &c, NULL, NULL, &err);
   REQUIRE_OK(err);
   run_parent(env, l, "compiled and linked");
   clReleaseProgram(l);
   clReleaseProgram(c);
}

static void test_parent(const struct kt_env *env, cl_program p)
{
   cl_kernel k = kk_kernel(p, "parent");
   cl_mem out = kk_buffer_in(env, (N + 2) * sizeof(int), NULL);
   int v = 5;
   KK_ARG(k, 0, out);
   KK_ARG(k, 1, v);
   size_t g = 4;
   cl_event ev;
   cl_queue_properties prof[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
   cl_int err;
   cl_command_queue hq =
      clCreateCommandQueueWithProperties(env->context, env->device, prof, &err);
   REQUIRE_OK(err);
   REQUIRE_OK(clEnqueueNDRangeKernel(hq, k, 1, NULL, &g, NULL, 0, NULL, &ev));
   /* The host command completes with (after) its child; its COMPLETE
    * time (2.0: children included) is known, not before its END. */
   CHECK_OK(clWaitForEvents(1, &ev));
   cl_ulong end = 0, complete = 0;
   CHECK_OK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(end), &end, NULL));
   CHECK_OK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_COMPLETE, sizeof(complete),
                                    &complete, NULL));
   CHECK(end && complete >= end, "END %llu COMPLETE %llu", (unsigned long long)end,
         (unsigned long long)complete);
   clReleaseCommandQueue(hq);
   int got[N + 2];
   kk_read(env, out, sizeof(got), got);
   CHECK(got[N] == 0, "enqueue_kernel returned %d", got[N]);
   for (int i = 0; i < N; i++)
      CHECK(got[i] == 5 + i, "out[%d] = %d", i, got[i]);
   clReleaseEvent(ev);
   clReleaseMemObject(out);
   clReleaseKernel(k);
}

static void test_queue_arg(const struct kt_env *env, cl_program p, cl_command_queue def)
{
   cl_kernel k = kk_kernel(p, "per_item");
   cl_mem out = kk_buffer_in(env, N * sizeof(int), NULL);
   KK_ARG(k, 0, out);
   /* Only on-device queues: a host queue is CL_INVALID_DEVICE_QUEUE. */
   CHECK_ERR(clSetKernelArg(k, 1, sizeof(cl_command_queue), &env->queue), CL_INVALID_DEVICE_QUEUE);
   CHECK_ERR(clSetKernelArg(k, 1, 4, &def), CL_INVALID_ARG_SIZE);
   KK_ARG(k, 1, def);
   size_t g = N, l = 8;
   KK_RUN(env, k, 1, NULL, &g, &l);
   int got[N];
   kk_read(env, out, sizeof(got), got);
   for (int i = 0; i < N; i++)
      CHECK(got[i] == i * 3, "out[%d] = %d", i, got[i]);
   clReleaseMemObject(out);
   clReleaseKernel(k);
}

/* Runs kernel name of p on global work-items (local size NULL) with an
 * int buffer of n elements as argument 0, and reads it into got. */
static void run_into(const struct kt_env *env, cl_program p, const char *name, size_t global,
                     int *got, size_t n)
{
   cl_kernel k = kk_kernel(p, name);
   cl_mem out = kk_buffer_in(env, n * sizeof(int), NULL);
   KK_ARG(k, 0, out);
   KK_RUN(env, k, 1, NULL, &global, NULL);
   kk_read(env, out, n * sizeof(int), got);
   clReleaseMemObject(out);
   clReleaseKernel(k);
}

static void test_dims(const struct kt_env *env, cl_program p)
{
   int got[48];
   run_into(env, p, "dims", 1, got, 48);
   for (int y = 0; y < 5; y++)
      for (int x = 0; x < 8; x++) {
         bool in = x >= 1 && x < 5 && y >= 2 && y < 5;
         CHECK(got[y * 8 + x] == (in ? 432 : 0), "2D out[%d][%d] = %d", y, x, got[y * 8 + x]);
      }
   for (int i = 40; i < 48; i++)
      CHECK(got[i] == 7, "3D out[%d] = %d", i, got[i]);
}

static void test_nested(const struct kt_env *env, cl_program p)
{
   int got[4];
   run_into(env, p, "nested", 2, got, 4);
   /* Item 0 and 1 at depth 0 (+1 each); depths 1, 2 run 4 items (+1);
    * depth 3 runs 4 items (+1000). */
   int want[4] = {1003, 1003, 1002, 1002};
   for (int i = 0; i < 4; i++)
      CHECK(got[i] == want[i], "out[%d] = %d, want %d", i, got[i], want[i]);
}

static void test_events(const struct kt_env *env, cl_program p)
{
   int got[20];
   run_into(env, p, "events", 1, got, 20);
   CHECK(got[0] == 1 && got[1] == 2 && got[2] == 3, "chain %d %d %d", got[0], got[1], got[2]);
   CHECK(got[3] == 1, "profiling of a finished child");
   /* The kernel that sets the user event ran before what waited for it. */
   CHECK(got[4] == 0, "out[4] = %d", got[4]);
   CHECK(got[10] == 1, "is_valid_event(user event) = %d", got[10]);
   for (int i = 11; i <= 15; i++)
      CHECK(got[i] == 0, "enqueue %d returned %d", i, got[i]);
   CHECK(got[16] == 0, "is_valid_event(CLK_NULL_EVENT) = %d", got[16]);
}

static void test_locals(const struct kt_env *env, cl_program p)
{
   int got[N + 2];
   run_into(env, p, "locals", 1, got, N + 2);
   CHECK(got[N + 1] == 0, "enqueue_kernel returned %d", got[N + 1]);
   for (int i = 0; i < N; i++) {
      int base = i / 16 * 16, sum = 0;
      for (int j = 0; j < 16; j++)
         sum += base + j;
      CHECK(got[i] == sum * 100 + 16, "out[%d] = %d", i, got[i]);
   }
}

static void test_queries(const struct kt_env *env, cl_program p)
{
   int got[10];
   run_into(env, p, "queries", 1, got, 10);
   CHECK(got[0] >= 1 && (size_t)got[0] <= kt_device_ulong(env->device, CL_DEVICE_MAX_WORK_GROUP_SIZE),
         "work-group size %d", got[0]);
   CHECK(got[1] >= 1, "preferred multiple %d", got[1]);
   CHECK(got[2] == -160, "global size 0: %d, want CLK_INVALID_NDRANGE", got[2]);
   CHECK(got[4] == -57, "1 event, no list: %d, want CLK_INVALID_EVENT_WAIT_LIST", got[4]);
   CHECK(got[5] == -160, "local size too large: %d, want CLK_INVALID_NDRANGE", got[5]);
   CHECK(got[6] == -51, "__local size 0: %d, want CLK_INVALID_ARG_SIZE", got[6]);
   CHECK(got[8] == 0 && got[9] == 0, "no refused child ran");
}

/* KILN_CHECK=bounds (kernel_device_enqueue_checked): a child's access
 * past its parent's buffer fails the host command as the parent's own
 * would; without checks the child writes into the slack Kiln gives
 * every buffer (not run then). */
static void test_bounds(const struct kt_env *env, cl_program p)
{
   const char *check = getenv("KILN_CHECK");
   if (!check || strcmp(check, "bounds"))
      return;
   cl_kernel k = kk_kernel(p, "past_end");
   cl_mem out = kk_buffer_in(env, N * sizeof(int), NULL);
   KK_ARG(k, 0, out);
   size_t g = 1;
   cl_event ev;
   REQUIRE_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &g, NULL, 0, NULL, &ev));
   CHECK_ERR(clWaitForEvents(1, &ev), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
   CHECK(kt_status(ev) == CL_OUT_OF_RESOURCES, "status %s", kt_err_name(kt_status(ev)));
   clReleaseEvent(ev);
   clReleaseMemObject(out);
   clReleaseKernel(k);
}

static void test_many(const struct kt_env *env, cl_program p)
{
   int got[105];
   run_into(env, p, "many", 1, got, 105);
   CHECK(got[100] == 0 && got[101] == 0 && got[103] == 0, "enqueues returned %d %d %d", got[100],
         got[101], got[103]);
   CHECK(got[102] == 4950, "sum after 100 events: %d", got[102]);
   CHECK(got[104] == 99, "after the marker: %d", got[104]);
}

/* CLK_DEVICE_QUEUE_FULL once a queue's pending commands fill its
 * CL_QUEUE_SIZE: a queue four times larger holds about four times as
 * many. */
static int fill(const struct kt_env *env, cl_program p, cl_uint size)
{
   cl_queue_properties props[] = {
      CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_ON_DEVICE,
      CL_QUEUE_SIZE, size, 0};
   cl_int err;
   cl_command_queue q = clCreateCommandQueueWithProperties(env->context, env->device, props, &err);
   REQUIRE_OK(err);
   cl_kernel k = kk_kernel(p, "fill");
   cl_mem out = kk_buffer_in(env, 3 * sizeof(int), NULL);
   KK_ARG(k, 0, out);
   KK_ARG(k, 1, q);
   size_t g = 1;
   KK_RUN(env, k, 1, NULL, &g, NULL);
   int got[3];
   kk_read(env, out, sizeof(got), got);
   CHECK(got[1] == -161, "stopped by %d, want CLK_DEVICE_QUEUE_FULL", got[1]);
   CHECK(got[0] > 0 && (cl_uint)got[0] <= size / 64, "%d enqueued in %u bytes", got[0], size);
   CHECK(got[2] == got[0], "%d of %d ran", got[2], got[0]);
   printf("queue of %u bytes full after %d commands\n", size, got[0]);
   clReleaseMemObject(out);
   clReleaseKernel(k);
   clReleaseCommandQueue(q);
   return got[0];
}

static void test_full(const struct kt_env *env, cl_program p)
{
   int small = fill(env, p, 64 * 1024), large = fill(env, p, 256 * 1024);
   CHECK(large > 3 * small && large < 5 * small, "%d and %d commands", small, large);
}

/* Block kernels are the device's: not among the program's kernels. */
static void test_hidden(cl_program p)
{
   size_t size = 0;
   CHECK_OK(clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &size));
   char *names = malloc(size ? size : 1);
   CHECK_OK(clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, size, names, NULL));
   CHECK(!strstr(names, "block_invoke"), "kernel names: %s", names);
   free(names);
   cl_int err;
   cl_kernel k = clCreateKernel(p, "__parent_block_invoke_kernel", &err);
   CHECK(!k);
   CHECK_ERR(err, CL_INVALID_KERNEL_NAME);
}

static bool has_feature(cl_device_id dev)
{
   size_t size = 0;
   if (clGetDeviceInfo(dev, CL_DEVICE_OPENCL_C_FEATURES, 0, NULL, &size) || !size)
      return false;
   cl_name_version *f = malloc(size);
   bool found = false;
   if (f && !clGetDeviceInfo(dev, CL_DEVICE_OPENCL_C_FEATURES, size, f, NULL))
      for (size_t i = 0; i < size / sizeof(*f); i++)
         found |= !strcmp(f[i].name, "__opencl_c_device_enqueue");
   free(f);
   return found;
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   cl_device_device_enqueue_capabilities caps = 0;
   CHECK_OK(clGetDeviceInfo(env.device, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES, sizeof(caps), &caps,
                            NULL));
   bool feature = has_feature(env.device);
   /* Kiln's CPU device has it (pipe_caps::max_on_device_queues). */
   cl_device_type type = 0;
   CHECK_OK(clGetDeviceInfo(env.device, CL_DEVICE_TYPE, sizeof(type), &type, NULL));
   if (type & CL_DEVICE_TYPE_CPU)
      CHECK(caps & CL_DEVICE_QUEUE_SUPPORTED, "the CPU device enqueues from kernels");
   CHECK(feature == ((caps & CL_DEVICE_QUEUE_SUPPORTED) != 0), "feature and capabilities agree");
   if (!(caps & CL_DEVICE_QUEUE_SUPPORTED)) {
      /* Without the feature: none, and on-device queues refused. */
      CHECK(kt_device_uint(env.device, CL_DEVICE_MAX_ON_DEVICE_QUEUES) == 0);
      cl_int err;
      CHECK(!device_queue(&env, 0, &err));
      CHECK_ERR(err, CL_INVALID_QUEUE_PROPERTIES);
      printf("device-side enqueue: not supported by the device\n");
      kt_teardown(&env);
      return kt_result();
   }
   CHECK(caps == (CL_DEVICE_QUEUE_SUPPORTED | CL_DEVICE_QUEUE_REPLACEABLE_DEFAULT));
   cl_int err;
   cl_command_queue def = device_queue(&env, CL_QUEUE_ON_DEVICE_DEFAULT, &err);
   REQUIRE_OK(err);
   test_api(&env, def);
   char opts[64];
   snprintf(opts, sizeof(opts), CL30 " -DN=%d", N);
   cl_program p = kk_build(&env, src, opts);
   test_hidden(p);
   test_parent(&env, p);
   test_queue_arg(&env, p, def);
   test_dims(&env, p);
   test_nested(&env, p);
   test_events(&env, p);
   test_locals(&env, p);
   test_queries(&env, p);
   test_bounds(&env, p);
   test_many(&env, p);
   test_full(&env, p);
   test_binary_and_link(&env, p, opts);
   clReleaseProgram(p);
   clReleaseCommandQueue(def);
   kt_teardown(&env);
   return kt_result();
}
