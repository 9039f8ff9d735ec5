/* cl_khr_command_buffer through the ICD loader: the extension string and
 * device queries, entry points found by clGetExtensionFunctionAddress(For
 * Platform), every clCreateCommandBufferKHR error of the spec, recording
 * with sync points (fill, NDRange, copy, copy-rect, barrier), argument
 * capture at record time, finalize/enqueue/replay and the state machine,
 * pipelined replays (0.9.8: no Pending state), the recording and enqueue errors, and objects the
 * application released while a command buffer still uses them (Kiln keeps
 * them alive: docs/command_buffer.md), and SVM copies and fills among
 * recorded launches where the device has SVM (their errors where not). */
#undef CL_TARGET_OPENCL_VERSION /* clGetExtensionFunctionAddressForPlatform, SVM */
#define CL_TARGET_OPENCL_VERSION 300
#include <stdlib.h>
#include <string.h>

#include "kiln/cl_command_buffer.h"
#include "kk.h"

static struct {
   kiln_clCreateCommandBufferKHR_fn create;
   kiln_clFinalizeCommandBufferKHR_fn finalize;
   kiln_clRetainCommandBufferKHR_fn retain;
   kiln_clReleaseCommandBufferKHR_fn release;
   kiln_clEnqueueCommandBufferKHR_fn enqueue;
   kiln_clGetCommandBufferInfoKHR_fn info;
   kiln_clCommandBarrierWithWaitListKHR_fn barrier;
   kiln_clCommandCopyBufferKHR_fn copy;
   kiln_clCommandCopyBufferRectKHR_fn copy_rect;
   kiln_clCommandFillBufferKHR_fn fill;
   kiln_clCommandNDRangeKernelKHR_fn ndrange;
   kiln_clCommandSVMMemcpyKHR_fn svm_copy;
   kiln_clCommandSVMMemFillKHR_fn svm_fill;
} F;

static const char *src =
   "kernel void add(global const int *a, global const int *b, global int *c)\n"
   "{ size_t i = get_global_id(0); c[i] = a[i] + b[i]; }\n"
   "kernel void scale(global int *x, int k)\n"
   "{ size_t i = get_global_id(0); x[i] *= k; }\n"
   "kernel void inc(global int *x)\n"
   "{ x[get_global_id(0)] += 1; }\n"
   "kernel void copy(global const int *a, global int *b)\n"
   "{ size_t i = get_global_id(0); b[i] = a[i]; }\n";

enum { N = 256 };

static bool has_word(const char *list, const char *word)
{
   size_t n = strlen(word);
   for (const char *p = list; (p = strstr(p, word)); p += n)
      if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0))
         return true;
   return false;
}

static void *lookup(cl_platform_id platform, const char *name)
{
   /* ocl-icd answers the 1.1 clGetExtensionFunctionAddress itself for
    * names without a vendor suffix (it returns NULL for KHR extensions it
    * does not know), so only the platform's lookup is certain to reach
    * Kiln; when the loader does forward the 1.1 call, both must agree. */
   void *a = clGetExtensionFunctionAddress(name);
   void *b = clGetExtensionFunctionAddressForPlatform(platform, name);
   CHECK(b != NULL, "%s not found by clGetExtensionFunctionAddressForPlatform", name);
   CHECK(!a || a == b, "%s: the two lookups disagree", name);
   return b;
}

static void queries_and_entry_points(struct kt_env *env)
{
   char ext[2048];
   REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS, sizeof(ext), ext, NULL));
   REQUIRE(has_word(ext, "cl_khr_command_buffer"), "device extensions: %s", ext);
   REQUIRE_OK(clGetPlatformInfo(env->platform, CL_PLATFORM_EXTENSIONS, sizeof(ext), ext, NULL));
   CHECK(has_word(ext, "cl_khr_command_buffer"), "platform extensions: %s", ext);

   cl_device_command_buffer_capabilities_khr caps = 0;
   CHECK_OK(clGetDeviceInfo(env->device, CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR,
                            sizeof(caps), &caps, NULL));
   /* Printf in recorded launches exactly where kernels can printf. */
   size_t printf_size = 0;
   CHECK_OK(clGetDeviceInfo(env->device, CL_DEVICE_PRINTF_BUFFER_SIZE, sizeof(printf_size),
                            &printf_size, NULL));
   CHECK(caps == (CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR |
                  CL_COMMAND_BUFFER_CAPABILITY_OUT_OF_ORDER_KHR |
                  (printf_size ? CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR : 0)),
         "capabilities 0x%llx", (unsigned long long)caps);
   cl_command_queue_properties req = 99, sup = 0;
   CHECK_OK(clGetDeviceInfo(env->device, CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR,
                            sizeof(req), &req, NULL));
   CHECK(req == 0);
   CHECK_OK(clGetDeviceInfo(env->device,
                            CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR,
                            sizeof(sup), &sup, NULL));
   CHECK(sup & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);

   cl_platform_id p = env->platform;
   F.create = (kiln_clCreateCommandBufferKHR_fn)lookup(p, "clCreateCommandBufferKHR");
   F.finalize = (kiln_clFinalizeCommandBufferKHR_fn)lookup(p, "clFinalizeCommandBufferKHR");
   F.retain = (kiln_clRetainCommandBufferKHR_fn)lookup(p, "clRetainCommandBufferKHR");
   F.release = (kiln_clReleaseCommandBufferKHR_fn)lookup(p, "clReleaseCommandBufferKHR");
   F.enqueue = (kiln_clEnqueueCommandBufferKHR_fn)lookup(p, "clEnqueueCommandBufferKHR");
   F.info = (kiln_clGetCommandBufferInfoKHR_fn)lookup(p, "clGetCommandBufferInfoKHR");
   F.barrier =
      (kiln_clCommandBarrierWithWaitListKHR_fn)lookup(p, "clCommandBarrierWithWaitListKHR");
   F.copy = (kiln_clCommandCopyBufferKHR_fn)lookup(p, "clCommandCopyBufferKHR");
   F.copy_rect = (kiln_clCommandCopyBufferRectKHR_fn)lookup(p, "clCommandCopyBufferRectKHR");
   F.fill = (kiln_clCommandFillBufferKHR_fn)lookup(p, "clCommandFillBufferKHR");
   F.ndrange = (kiln_clCommandNDRangeKernelKHR_fn)lookup(p, "clCommandNDRangeKernelKHR");
   F.svm_copy = (kiln_clCommandSVMMemcpyKHR_fn)lookup(p, "clCommandSVMMemcpyKHR");
   F.svm_fill = (kiln_clCommandSVMMemFillKHR_fn)lookup(p, "clCommandSVMMemFillKHR");
   REQUIRE(F.create && F.finalize && F.retain && F.release && F.enqueue && F.info &&
           F.barrier && F.copy && F.copy_rect && F.fill && F.ndrange && F.svm_copy &&
           F.svm_fill);
   /* Image commands exist (applications look every entry point up) and
    * refuse a buffer where an image belongs (images: command_buffer_images.c). */
   typedef cl_int(CL_API_CALL * fill_image_fn)(
      cl_command_buffer_khr, cl_command_queue, const cl_command_properties_khr *, cl_mem,
      const void *, const size_t *, const size_t *, cl_uint, const cl_sync_point_khr *,
      cl_sync_point_khr *, cl_mutable_command_khr *);
   fill_image_fn fill_image = (fill_image_fn)lookup(p, "clCommandFillImageKHR");
   lookup(p, "clCommandCopyImageKHR");
   lookup(p, "clCommandCopyImageToBufferKHR");
   lookup(p, "clCommandCopyBufferToImageKHR");
   cl_int err;
   cl_command_buffer_khr cb = F.create(1, &env->queue, NULL, &err);
   REQUIRE_OK(err);
   cl_mem buf = kt_buffer(env->context, 0, 64, NULL);
   float color[4] = {0};
   size_t origin[3] = {0, 0, 0}, region[3] = {1, 1, 1};
   if (fill_image)
      CHECK_ERR(fill_image(cb, NULL, NULL, buf, color, origin, region, 0, NULL, NULL, NULL),
                CL_INVALID_MEM_OBJECT);
   CHECK_OK(clReleaseMemObject(buf));
   CHECK_OK(F.release(cb));
}

static cl_int create_err(cl_uint n, const cl_command_queue *qs,
                         const cl_command_buffer_properties_khr *props)
{
   cl_int err = 12345;
   cl_command_buffer_khr cb = F.create(n, qs, props, &err);
   CHECK(cb == NULL, "creation should fail");
   if (cb)
      F.release(cb);
   return err;
}

static void create_errors(struct kt_env *env)
{
   cl_command_queue q = env->queue;
   cl_command_queue two[2] = {q, q};
   CHECK_ERR(create_err(1, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(create_err(0, &q, NULL), CL_INVALID_VALUE);
   CHECK_ERR(create_err(2, two, NULL), CL_INVALID_VALUE);
   /* Not a queue: another kind of handle, and a released queue. */
   cl_command_queue bogus = (cl_command_queue)env->context;
   CHECK_ERR(create_err(1, &bogus, NULL), CL_INVALID_COMMAND_QUEUE);
   cl_int err;
   cl_command_queue gone = clCreateCommandQueue(env->context, env->device, 0, &err);
   REQUIRE_OK(err);
   CHECK_OK(clReleaseCommandQueue(gone));
   CHECK_ERR(create_err(1, &gone, NULL), CL_INVALID_COMMAND_QUEUE);
   /* Queues of different contexts. */
   cl_context ctx2 = kt_context(env);
   cl_command_queue q2 = kt_queue(env, ctx2, 0);
   cl_command_queue mixed[2] = {q, q2};
   CHECK_ERR(create_err(2, mixed, NULL), CL_INVALID_CONTEXT);
   CHECK_OK(clReleaseCommandQueue(q2));
   CHECK_OK(clReleaseContext(ctx2));

   cl_command_buffer_properties_khr dup[] = {
      CL_COMMAND_BUFFER_FLAGS_KHR, CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR,
      CL_COMMAND_BUFFER_FLAGS_KHR, CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR, 0};
   CHECK_ERR(create_err(1, &q, dup), CL_INVALID_VALUE);
   cl_command_buffer_properties_khr bad_flag[] = {CL_COMMAND_BUFFER_FLAGS_KHR,
                                                  (cl_command_buffer_properties_khr)1 << 40, 0};
   CHECK_ERR(create_err(1, &q, bad_flag), CL_INVALID_VALUE);
   cl_command_buffer_properties_khr bad_name[] = {0x4242, 0, 0};
   CHECK_ERR(create_err(1, &q, bad_name), CL_INVALID_VALUE);
   /* Valid flags of extensions Kiln does not support. */
   cl_command_buffer_properties_khr mutable_flag[] = {CL_COMMAND_BUFFER_FLAGS_KHR,
                                                      CL_COMMAND_BUFFER_MUTABLE_KHR, 0};
   CHECK_ERR(create_err(1, &q, mutable_flag), CL_INVALID_PROPERTY);
   cl_command_buffer_properties_khr sync_flag[] = {CL_COMMAND_BUFFER_FLAGS_KHR,
                                                   CL_COMMAND_BUFFER_DEVICE_SIDE_SYNC_KHR, 0};
   CHECK_ERR(create_err(1, &q, sync_flag), CL_INVALID_PROPERTY);

   /* errcode_ret may be NULL, on success and on failure. */
   CHECK(F.create(0, &q, NULL, NULL) == NULL);
   cl_command_buffer_khr cb = F.create(1, &q, NULL, NULL);
   CHECK(cb != NULL);
   if (cb)
      CHECK_OK(F.release(cb));
}

static void info_and_refcounts(struct kt_env *env)
{
   cl_int err;
   cl_command_buffer_properties_khr props[] = {CL_COMMAND_BUFFER_FLAGS_KHR,
                                               CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR, 0};
   cl_command_buffer_khr cb = F.create(1, &env->queue, props, &err);
   REQUIRE_OK(err);
   cl_command_queue q = NULL;
   cl_uint n = 0, rc = 0;
   cl_command_buffer_state_khr st = 99;
   cl_context ctx = NULL;
   CHECK_OK(F.info(cb, CL_COMMAND_BUFFER_QUEUES_KHR, sizeof(q), &q, NULL));
   CHECK(q == env->queue);
   CHECK_OK(F.info(cb, CL_COMMAND_BUFFER_NUM_QUEUES_KHR, sizeof(n), &n, NULL));
   CHECK(n == 1);
   CHECK_OK(F.info(cb, CL_COMMAND_BUFFER_STATE_KHR, sizeof(st), &st, NULL));
   CHECK(st == CL_COMMAND_BUFFER_STATE_RECORDING_KHR);
   CHECK_OK(F.info(cb, CL_COMMAND_BUFFER_CONTEXT_KHR, sizeof(ctx), &ctx, NULL));
   CHECK(ctx == env->context);
   cl_command_buffer_properties_khr got[8];
   size_t size = 0;
   CHECK_OK(F.info(cb, CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR, sizeof(got), got, &size));
   CHECK(size == sizeof(props) && !memcmp(got, props, sizeof(props)), "size %zu", size);
   CHECK_ERR(F.info(cb, CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR, 1, got, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(F.info(cb, 0x4242, sizeof(n), &n, NULL), CL_INVALID_VALUE);

   CHECK_OK(F.retain(cb));
   CHECK_OK(F.info(cb, CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR, sizeof(rc), &rc, NULL));
   CHECK(rc == 2, "reference count %u", rc);
   CHECK_OK(F.release(cb));
   CHECK_OK(F.info(cb, CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR, sizeof(rc), &rc, NULL));
   CHECK(rc == 1, "reference count %u", rc);
   CHECK_OK(F.release(cb));
   /* Released: the handle is dead everywhere. */
   CHECK_ERR(F.retain(cb), CL_INVALID_COMMAND_BUFFER_KHR);
   CHECK_ERR(F.release(cb), CL_INVALID_COMMAND_BUFFER_KHR);
   CHECK_ERR(F.finalize(cb), CL_INVALID_COMMAND_BUFFER_KHR);
   CHECK_ERR(F.info(cb, CL_COMMAND_BUFFER_STATE_KHR, sizeof(st), &st, NULL),
             CL_INVALID_COMMAND_BUFFER_KHR);
   CHECK_ERR(F.enqueue(0, NULL, cb, 0, NULL, NULL), CL_INVALID_COMMAND_BUFFER_KHR);
   CHECK_ERR(F.barrier(cb, NULL, NULL, 0, NULL, NULL, NULL), CL_INVALID_COMMAND_BUFFER_KHR);
   CHECK_ERR(F.retain(NULL), CL_INVALID_COMMAND_BUFFER_KHR);

   /* NULL properties: an empty array. */
   cb = F.create(1, &env->queue, NULL, &err);
   REQUIRE_OK(err);
   CHECK_OK(F.info(cb, CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR, 0, NULL, &size));
   CHECK(size == 0, "size %zu", size);
   CHECK_OK(F.release(cb));
}

static void read_ints(struct kt_env *env, cl_mem m, int *out)
{
   REQUIRE_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, N * sizeof(int), out, 0, NULL,
                                  NULL));
}

/* fill a, fill b -> c = a + b -> copy c to d -> rect-copy d's first half
 * into e -> barrier -> e *= 3 (argument captured at record time). */
static void record_and_replay(struct kt_env *env, cl_program prog)
{
   cl_int err;
   cl_mem a = kk_buffer_in(env, N * sizeof(int), NULL), b = kk_buffer_in(env, N * sizeof(int), NULL);
   cl_mem c = kk_buffer_in(env, N * sizeof(int), NULL), d = kk_buffer_in(env, N * sizeof(int), NULL);
   cl_mem e = kk_buffer_in(env, N * sizeof(int), NULL), other = kk_buffer_in(env, N * sizeof(int), NULL);
   cl_kernel add = kk_kernel(prog, "add"), scale = kk_kernel(prog, "scale");
   KK_ARG(add, 0, a);
   KK_ARG(add, 1, b);
   KK_ARG(add, 2, c);
   int three = 3;
   KK_ARG(scale, 0, e);
   KK_ARG(scale, 1, three);

   cl_command_buffer_khr cb = F.create(1, &env->queue, NULL, &err);
   REQUIRE_OK(err);
   cl_sync_point_khr sp[8] = {0};
   int pa = 7, pb = 35;
   size_t global = N;
   CHECK_OK(F.fill(cb, NULL, NULL, a, &pa, sizeof(pa), 0, N * sizeof(int), 0, NULL, &sp[0], NULL));
   CHECK_OK(F.fill(cb, NULL, NULL, b, &pb, sizeof(pb), 0, N * sizeof(int), 0, NULL, &sp[1], NULL));
   CHECK(sp[0] && sp[1] && sp[0] != sp[1]);
   CHECK_OK(F.ndrange(cb, NULL, NULL, add, 1, NULL, &global, NULL, 2, sp, &sp[2], NULL));
   CHECK_OK(F.copy(cb, NULL, NULL, c, d, 0, 0, N * sizeof(int), 1, &sp[2], &sp[3], NULL));
   /* Rows of 16 ints: the first 8 ints of each of the 16 rows. */
   size_t origin[3] = {0, 0, 0}, region[3] = {8 * sizeof(int), 16, 1};
   CHECK_OK(F.copy_rect(cb, NULL, NULL, d, e, origin, origin, region, 16 * sizeof(int), 0,
                        16 * sizeof(int), 0, 1, &sp[3], &sp[4], NULL));
   CHECK_OK(F.barrier(cb, NULL, NULL, 1, &sp[4], &sp[5], NULL));
   CHECK_OK(F.ndrange(cb, NULL, NULL, scale, 1, NULL, &global, NULL, 1, &sp[5], &sp[6], NULL));
   /* Later argument changes do not reach the recorded command. */
   int seven = 7;
   KK_ARG(scale, 0, other);
   KK_ARG(scale, 1, seven);

   /* Recording errors. */
   CHECK_ERR(F.barrier(cb, env->queue, NULL, 0, NULL, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
   cl_sync_point_khr bad = 99, zero = 0;
   CHECK_ERR(F.barrier(cb, NULL, NULL, 1, &bad, NULL, NULL), CL_INVALID_SYNC_POINT_WAIT_LIST_KHR);
   CHECK_ERR(F.barrier(cb, NULL, NULL, 1, &zero, NULL, NULL), CL_INVALID_SYNC_POINT_WAIT_LIST_KHR);
   CHECK_ERR(F.barrier(cb, NULL, NULL, 1, NULL, NULL, NULL), CL_INVALID_SYNC_POINT_WAIT_LIST_KHR);
   CHECK_ERR(F.barrier(cb, NULL, NULL, 0, sp, NULL, NULL), CL_INVALID_SYNC_POINT_WAIT_LIST_KHR);
   cl_mutable_command_khr mh;
   CHECK_ERR(F.barrier(cb, NULL, NULL, 0, NULL, NULL, &mh), CL_INVALID_VALUE);
   cl_command_properties_khr cprops[] = {0x4242, 1, 0};
   CHECK_ERR(F.copy(cb, NULL, cprops, c, d, 0, 0, 4, 0, NULL, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(F.copy(cb, NULL, NULL, c, (cl_mem)env->queue, 0, 0, 4, 0, NULL, NULL, NULL),
             CL_INVALID_MEM_OBJECT);
   CHECK_ERR(F.copy(cb, NULL, NULL, c, c, 0, 2, 8, 0, NULL, NULL, NULL), CL_MEM_COPY_OVERLAP);
   CHECK_ERR(F.copy(cb, NULL, NULL, c, d, 0, 0, N * sizeof(int) + 4, 0, NULL, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(F.copy(cb, NULL, NULL, c, d, 0, 0, 0, 0, NULL, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(F.fill(cb, NULL, NULL, a, &pa, 3, 0, 12, 0, NULL, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(F.fill(cb, NULL, NULL, a, NULL, 4, 0, 16, 0, NULL, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(F.copy_rect(cb, NULL, NULL, d, e, origin, origin, NULL, 0, 0, 0, 0, 0, NULL, NULL,
                         NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(F.ndrange(cb, NULL, NULL, (cl_kernel)a, 1, NULL, &global, NULL, 0, NULL, NULL, NULL),
             CL_INVALID_KERNEL);
   CHECK_ERR(F.ndrange(cb, NULL, NULL, add, 0, NULL, &global, NULL, 0, NULL, NULL, NULL),
             CL_INVALID_WORK_DIMENSION);
   cl_kernel unset = kk_kernel(prog, "add");
   CHECK_ERR(F.ndrange(cb, NULL, NULL, unset, 1, NULL, &global, NULL, 0, NULL, NULL, NULL),
             CL_INVALID_KERNEL_ARGS);
   CHECK_OK(clReleaseKernel(unset));
   cl_context ctx2 = kt_context(env);
   cl_mem foreign = clCreateBuffer(ctx2, 0, 64, NULL, &err);
   REQUIRE_OK(err);
   CHECK_ERR(F.copy(cb, NULL, NULL, c, foreign, 0, 0, 4, 0, NULL, NULL, NULL), CL_INVALID_CONTEXT);

   /* Not finalized yet. */
   CHECK_ERR(F.enqueue(0, NULL, cb, 0, NULL, NULL), CL_INVALID_OPERATION);
   CHECK_OK(F.finalize(cb));
   CHECK_ERR(F.finalize(cb), CL_INVALID_OPERATION);
   CHECK_ERR(F.barrier(cb, NULL, NULL, 0, NULL, NULL, NULL), CL_INVALID_OPERATION);
   cl_command_buffer_state_khr st;
   CHECK_OK(F.info(cb, CL_COMMAND_BUFFER_STATE_KHR, sizeof(st), &st, NULL));
   CHECK(st == CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR);

   /* Enqueue errors. */
   cl_command_queue q = env->queue;
   CHECK_ERR(F.enqueue(1, NULL, cb, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(F.enqueue(0, &q, cb, 0, NULL, NULL), CL_INVALID_VALUE);
   cl_command_queue qq[2] = {q, q};
   CHECK_ERR(F.enqueue(2, qq, cb, 0, NULL, NULL), CL_INVALID_VALUE);
   cl_command_queue bogus = (cl_command_queue)a;
   CHECK_ERR(F.enqueue(1, &bogus, cb, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
   cl_command_queue q_other_ctx = kt_queue(env, ctx2, 0);
   CHECK_ERR(F.enqueue(1, &q_other_ctx, cb, 0, NULL, NULL), CL_INVALID_CONTEXT);
   /* 0.9.8: a queue with other (supported) properties is compatible; on
    * one device no queue is CL_INCOMPATIBLE_COMMAND_QUEUE_KHR.  The
    * substitution itself is tested in pending_and_replays. */
   CHECK_ERR(F.enqueue(0, NULL, cb, 1, NULL, NULL), CL_INVALID_EVENT_WAIT_LIST);
   cl_event foreign_ev = kt_user_event(ctx2);
   CHECK_ERR(F.enqueue(0, NULL, cb, 1, &foreign_ev, NULL), CL_INVALID_CONTEXT);
   CHECK_OK(clSetUserEventStatus(foreign_ev, CL_COMPLETE));
   CHECK_OK(clReleaseEvent(foreign_ev));

   int want[N], got[N];
   for (int i = 0; i < N; i++)
      want[i] = (i % 16) < 8 ? (pa + pb) * 3 : 0;
   cl_event ev = NULL;
   CHECK_OK(F.enqueue(0, NULL, cb, 0, NULL, &ev));
   REQUIRE(ev != NULL);
   CHECK_ENDS(ev, CL_COMPLETE);
   cl_command_type type = 0;
   CHECK_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL));
   CHECK(type == CL_COMMAND_COMMAND_BUFFER_KHR, "type 0x%x", type);
   CHECK_OK(clReleaseEvent(ev));
   read_ints(env, e, got);
   CHECK(kt_same(got, want, sizeof(got), "first replay"));
   read_ints(env, other, got);
   int zeros[N] = {0};
   CHECK(kt_same(got, zeros, sizeof(got), "buffer set after recording untouched"));

   /* Replay: reset the outputs, enqueue twice more (the second replay
    * scales e again), and on a substituted compatible queue. */
   CHECK_OK(clEnqueueWriteBuffer(q, e, CL_TRUE, 0, sizeof(zeros), zeros, 0, NULL, NULL));
   CHECK_OK(clEnqueueWriteBuffer(q, c, CL_TRUE, 0, sizeof(zeros), zeros, 0, NULL, NULL));
   CHECK_OK(F.enqueue(0, NULL, cb, 0, NULL, NULL));
   cl_command_queue q_same = kt_queue(env, env->context, 0);
   CHECK_OK(clFinish(q));
   CHECK_OK(F.enqueue(1, &q_same, cb, 0, NULL, NULL));
   CHECK_OK(clFinish(q_same));
   read_ints(env, e, got);
   CHECK(kt_same(got, want, sizeof(got), "replays"));
   read_ints(env, c, got);
   for (int i = 0; i < N; i++)
      want[i] = pa + pb;
   CHECK(kt_same(got, want, sizeof(got), "replayed kernel output"));

   CHECK_OK(F.release(cb));
   CHECK_OK(clReleaseCommandQueue(q_same));
   CHECK_OK(clReleaseCommandQueue(q_other_ctx));
   CHECK_OK(clReleaseMemObject(foreign));
   CHECK_OK(clReleaseContext(ctx2));
   cl_mem all[] = {a, b, c, d, e, other};
   for (unsigned i = 0; i < 6; i++)
      CHECK_OK(clReleaseMemObject(all[i]));
   CHECK_OK(clReleaseKernel(add));
   CHECK_OK(clReleaseKernel(scale));
}

/* Version 0.9.8 has no Pending state: a replay blocked on a user event
 * leaves the command buffer EXECUTABLE, and a second enqueue is accepted
 * with or without SIMULTANEOUS_USE (here ordered after the first by its
 * event, on a substituted queue of other properties when subst). */
static void pending_and_replays(struct kt_env *env, cl_program prog, bool simultaneous,
                                cl_command_queue_properties qprops, bool subst)
{
   cl_int err;
   cl_command_queue q = kt_queue(env, env->context, qprops);
   cl_command_queue q2 = kt_queue(env, env->context, CL_QUEUE_PROFILING_ENABLE);
   cl_mem x = kk_buffer_in(env, N * sizeof(int), NULL);
   cl_kernel inc = kk_kernel(prog, "inc");
   KK_ARG(inc, 0, x);
   cl_command_buffer_properties_khr props[] = {CL_COMMAND_BUFFER_FLAGS_KHR,
                                               CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR, 0};
   cl_command_buffer_khr cb = F.create(1, &q, simultaneous ? props : NULL, &err);
   REQUIRE_OK(err);
   size_t global = N;
   CHECK_OK(F.ndrange(cb, NULL, NULL, inc, 1, NULL, &global, NULL, 0, NULL, NULL, NULL));
   CHECK_OK(F.finalize(cb));
   cl_event gate = kt_user_event(env->context), ev1 = NULL, ev2 = NULL;
   CHECK_OK(F.enqueue(0, NULL, cb, 1, &gate, &ev1));
   cl_command_buffer_state_khr st;
   CHECK_OK(F.info(cb, CL_COMMAND_BUFFER_STATE_KHR, sizeof(st), &st, NULL));
   CHECK(st == CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR, "state %u", st);
   CHECK_OK(F.enqueue(subst ? 1 : 0, subst ? &q2 : NULL, cb, 1, &ev1, &ev2));
   CHECK_PENDING(ev1, 20);
   CHECK(kt_status(ev2) > CL_COMPLETE, "the second replay ran before the first");
   CHECK_OK(clSetUserEventStatus(gate, CL_COMPLETE));
   CHECK_ENDS(ev1, CL_COMPLETE);
   CHECK_ENDS(ev2, CL_COMPLETE);
   if (subst) {
      cl_ulong t0 = 0, t1 = 0;
      CHECK_OK(clGetEventProfilingInfo(ev2, CL_PROFILING_COMMAND_START, sizeof(t0), &t0, NULL));
      CHECK_OK(clGetEventProfilingInfo(ev2, CL_PROFILING_COMMAND_END, sizeof(t1), &t1, NULL));
      CHECK(t0 && t1 >= t0, "profiling %llu..%llu", (unsigned long long)t0,
            (unsigned long long)t1);
   }
   CHECK_OK(clFinish(q));
   CHECK_OK(clFinish(q2));
   int got[N], want[N];
   for (int i = 0; i < N; i++)
      want[i] = 2;
   read_ints(env, x, got);
   CHECK(kt_same(got, want, sizeof(got), "two pipelined replays"));
   CHECK_OK(F.enqueue(0, NULL, cb, 0, NULL, NULL));
   CHECK_OK(clFinish(q));
   CHECK_OK(clReleaseEvent(ev1));
   CHECK_OK(clReleaseEvent(ev2));
   CHECK_OK(clReleaseEvent(gate));
   CHECK_OK(F.release(cb));
   CHECK_OK(clReleaseKernel(inc));
   CHECK_OK(clReleaseMemObject(x));
   CHECK_OK(clReleaseCommandQueue(q));
   CHECK_OK(clReleaseCommandQueue(q2));
}

/* The application releases everything a recorded command uses (input
 * buffer, kernel, program, the command buffer's queue), and then the
 * command buffer itself while a replay is pending: the replay still runs
 * and writes the output. */
static void released_objects(struct kt_env *env)
{
   cl_int err;
   cl_program prog = kk_build(env, src, NULL);
   cl_command_queue q = kt_queue(env, env->context, 0);
   int in[N], zeros[N] = {0}, got[N];
   kt_fill(in, sizeof(in), 5);
   cl_mem a = kk_buffer_in(env, sizeof(in), in), out = kk_buffer_in(env, sizeof(in), NULL);
   cl_kernel copy = kk_kernel(prog, "copy");
   KK_ARG(copy, 0, a);
   KK_ARG(copy, 1, out);
   cl_command_buffer_khr cb = F.create(1, &q, NULL, &err);
   REQUIRE_OK(err);
   size_t global = N;
   CHECK_OK(F.ndrange(cb, NULL, NULL, copy, 1, NULL, &global, NULL, 0, NULL, NULL, NULL));

   /* A kernel whose argument buffer was released cannot be recorded. */
   cl_mem tmp = kk_buffer_in(env, sizeof(in), NULL);
   cl_kernel k2 = kk_kernel(prog, "copy");
   KK_ARG(k2, 0, tmp);
   KK_ARG(k2, 1, out);
   CHECK_OK(clReleaseMemObject(tmp));
   CHECK_ERR(F.ndrange(cb, NULL, NULL, k2, 1, NULL, &global, NULL, 0, NULL, NULL, NULL),
             CL_INVALID_KERNEL_ARGS);
   CHECK_OK(clReleaseKernel(k2));

   CHECK_OK(F.finalize(cb));
   CHECK_OK(clReleaseMemObject(a));
   CHECK_OK(clReleaseKernel(copy));
   CHECK_OK(clReleaseProgram(prog));
   CHECK_OK(clReleaseCommandQueue(q));
   cl_event gate = kt_user_event(env->context), ev = NULL;
   CHECK_OK(F.enqueue(0, NULL, cb, 1, &gate, &ev));
   CHECK_OK(F.release(cb));
   CHECK_ERR(F.retain(cb), CL_INVALID_COMMAND_BUFFER_KHR);
   CHECK_OK(clSetUserEventStatus(gate, CL_COMPLETE));
   CHECK_ENDS(ev, CL_COMPLETE);
   read_ints(env, out, got);
   CHECK(kt_same(got, in, sizeof(got), "replay after the application released its objects"));
   (void)zeros;
   CHECK_OK(clReleaseEvent(ev));
   CHECK_OK(clReleaseEvent(gate));
   CHECK_OK(clReleaseMemObject(out));
}

/* fill(svm a) -> inc(buffer over svm a) -> copy(a -> b), replayed twice
 * with the host changing nothing in between but b: each replay redoes it. */
static void svm_commands(struct kt_env *env, cl_program prog)
{
   cl_int err;
   cl_command_buffer_khr cb = F.create(1, &env->queue, NULL, &err);
   REQUIRE_OK(err);
   int pattern = 41;
   cl_ulong caps = kt_device_ulong(env->device, CL_DEVICE_SVM_CAPABILITIES);
   if (!caps) {
      int *bogus = (int *)(uintptr_t)0x1000;
      CHECK_ERR(F.svm_fill(cb, NULL, NULL, bogus, &pattern, 4, 16, 0, NULL, NULL, NULL),
                CL_INVALID_OPERATION);
      CHECK_ERR(F.svm_copy(cb, NULL, NULL, bogus, bogus + 64, 16, 0, NULL, NULL, NULL),
                CL_INVALID_OPERATION);
      CHECK_OK(F.release(cb));
      return;
   }
   int *a = clSVMAlloc(env->context, CL_MEM_READ_WRITE, N * sizeof(int), 0);
   int *b = clSVMAlloc(env->context, CL_MEM_READ_WRITE, N * sizeof(int), 0);
   REQUIRE(a && b);
   cl_kernel inc = kk_kernel(prog, "inc");
   REQUIRE_OK(clSetKernelArgSVMPointer(inc, 0, a));
   size_t global = N;
   cl_sync_point_khr sp[3];
   CHECK_OK(F.svm_fill(cb, NULL, NULL, a, &pattern, sizeof(pattern), N * sizeof(int), 0, NULL,
                       &sp[0], NULL));
   CHECK_OK(F.ndrange(cb, NULL, NULL, inc, 1, NULL, &global, NULL, 1, &sp[0], &sp[1], NULL));
   CHECK_OK(F.svm_copy(cb, NULL, NULL, b, a, N * sizeof(int), 1, &sp[1], &sp[2], NULL));
   CHECK_ERR(F.svm_copy(cb, env->queue, NULL, b, a, 4, 0, NULL, NULL, NULL),
             CL_INVALID_COMMAND_QUEUE);
   CHECK_ERR(F.svm_copy(cb, NULL, NULL, NULL, a, 4, 0, NULL, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(F.svm_copy(cb, NULL, NULL, a + 1, a, 8, 0, NULL, NULL, NULL), CL_MEM_COPY_OVERLAP);
   CHECK_ERR(F.svm_fill(cb, NULL, NULL, a, &pattern, 3, 12, 0, NULL, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(F.svm_fill(cb, NULL, NULL, a, &pattern, 4, 10, 0, NULL, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(F.svm_fill(cb, NULL, NULL, a, NULL, 4, 12, 0, NULL, NULL, NULL), CL_INVALID_VALUE);
   CHECK_OK(F.finalize(cb));
   for (int round = 0; round < 2; round++) {
      memset(b, 0, N * sizeof(int));
      CHECK_OK(F.enqueue(1, &env->queue, cb, 0, NULL, NULL));
      CHECK_OK(clFinish(env->queue));
      int bad = 0;
      for (int i = 0; i < N; i++)
         bad += b[i] != 42;
      CHECK(bad == 0, "replay %d: %d of %d wrong (b[0] = %d)", round, bad, N, b[0]);
   }
   CHECK_OK(F.release(cb));
   CHECK_OK(clReleaseKernel(inc));
   clSVMFree(env->context, a);
   clSVMFree(env->context, b);
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   queries_and_entry_points(&env);
   create_errors(&env);
   info_and_refcounts(&env);
   cl_program prog = kk_build(&env, src, NULL);
   record_and_replay(&env, prog);
   pending_and_replays(&env, prog, false, 0, false);
   pending_and_replays(&env, prog, false, 0, true);
   pending_and_replays(&env, prog, true, 0, false);
   pending_and_replays(&env, prog, true, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, true);
   svm_commands(&env, prog);
   CHECK_OK(clReleaseProgram(prog));
   released_objects(&env);
   kt_teardown(&env);
   return kt_result();
}
