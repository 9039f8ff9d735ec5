/* The OpenCL 2.x/3.0 entry points through the ICD loader: each one either
 * works (queues, samplers, buffers and images with property lists, context
 * destructor callbacks, clCloneKernel, the timers) or answers exactly as
 * 3.0 prescribes for an optional feature the device lacks (pipes where
 * CL_DEVICE_PIPE_SUPPORT is false, on-device queues, IL programs, program release callbacks, sub-groups;
 * SVM is exec_svm's).
 * Before these existed every one of them returned CL_INVALID_OPERATION. */
#define CL_TARGET_OPENCL_VERSION 300
#include "kt.h"

#include <string.h>

static void queues(struct kt_env *e)
{
   cl_int err;
   cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
   cl_command_queue q = clCreateCommandQueueWithProperties(e->context, e->device, props, &err);
   CHECK_OK(err);
   if (q) {
      cl_queue_properties got[4] = {0};
      size_t size = 0;
      CHECK_OK(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, sizeof(got), got, &size));
      CHECK(size == sizeof(props) && !memcmp(got, props, sizeof(props)), "size %zu", size);
      cl_command_queue_properties bits = 0;
      CHECK_OK(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof(bits), &bits, NULL));
      CHECK(bits == CL_QUEUE_PROFILING_ENABLE);
      cl_uint qsize;
      CHECK_ERR(clGetCommandQueueInfo(q, CL_QUEUE_SIZE, sizeof(qsize), &qsize, NULL),
                CL_INVALID_COMMAND_QUEUE);
      cl_command_queue def = (cl_command_queue)1;
      CHECK_OK(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE_DEFAULT, sizeof(def), &def, NULL));
      CHECK(def == NULL);
      clReleaseCommandQueue(q);
   }
   /* NULL list: a default queue whose property array is empty. */
   q = clCreateCommandQueueWithProperties(e->context, e->device, NULL, &err);
   CHECK_OK(err);
   if (q) {
      size_t size = 99;
      CHECK_OK(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, 0, NULL, &size));
      CHECK(size == 0, "size %zu", size);
      clReleaseCommandQueue(q);
   }
   /* 1.x queues too have an empty array. */
   size_t size = 99;
   CHECK_OK(clGetCommandQueueInfo(e->queue, CL_QUEUE_PROPERTIES_ARRAY, 0, NULL, &size));
   CHECK(size == 0, "size %zu", size);

   struct {
      cl_queue_properties p[6];
      cl_int want;
   } bad[] = {
      {{CL_QUEUE_SIZE, 1024, 0}, CL_INVALID_VALUE},
      {{CL_QUEUE_PROPERTIES, 0, CL_QUEUE_PROPERTIES, 0, 0}, CL_INVALID_VALUE},
      {{0x7777, 1, 0}, CL_INVALID_VALUE},
      {{CL_QUEUE_PROPERTIES, 1u << 20, 0}, CL_INVALID_VALUE},
      {{CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE, 0}, CL_INVALID_VALUE},
      {{CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE_DEFAULT | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0},
       CL_INVALID_VALUE},
      {{CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0},
       CL_INVALID_QUEUE_PROPERTIES},
      {{CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
        CL_QUEUE_SIZE, 4096, 0},
       CL_INVALID_QUEUE_PROPERTIES},
   };
   /* On-device queues are refused only by a device without them
    * (tests/cl/kernel/device_enqueue.c has those that have them). */
   cl_device_device_enqueue_capabilities devq = 0;
   CHECK_OK(clGetDeviceInfo(e->device, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES, sizeof(devq), &devq,
                            NULL));
   for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
      if (bad[i].want == CL_INVALID_QUEUE_PROPERTIES && (devq & CL_DEVICE_QUEUE_SUPPORTED))
         continue;
      err = CL_SUCCESS;
      q = clCreateCommandQueueWithProperties(e->context, e->device, bad[i].p, &err);
      CHECK(!q && err == bad[i].want, "case %zu: %s", i, kt_err_name(err));
      if (q)
         clReleaseCommandQueue(q);
   }
   q = clCreateCommandQueueWithProperties(NULL, e->device, NULL, &err);
   CHECK(!q && err == CL_INVALID_CONTEXT);
   q = clCreateCommandQueueWithProperties(e->context, NULL, NULL, &err);
   CHECK(!q && err == CL_INVALID_DEVICE);
}

static void samplers(struct kt_env *e)
{
   cl_int err;
   cl_sampler_properties props[] = {CL_SAMPLER_ADDRESSING_MODE, CL_ADDRESS_REPEAT,
                                    CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR, 0};
   cl_sampler s = clCreateSamplerWithProperties(e->context, props, &err);
   CHECK_OK(err);
   if (s) {
      cl_bool norm = CL_FALSE;
      cl_addressing_mode am = 0;
      cl_filter_mode fm = 0;
      CHECK_OK(clGetSamplerInfo(s, CL_SAMPLER_NORMALIZED_COORDS, sizeof(norm), &norm, NULL));
      CHECK_OK(clGetSamplerInfo(s, CL_SAMPLER_ADDRESSING_MODE, sizeof(am), &am, NULL));
      CHECK_OK(clGetSamplerInfo(s, CL_SAMPLER_FILTER_MODE, sizeof(fm), &fm, NULL));
      CHECK(norm == CL_TRUE && am == CL_ADDRESS_REPEAT && fm == CL_FILTER_LINEAR,
            "defaults: normalized %u, 0x%x, 0x%x", norm, am, fm);
      cl_sampler_properties got[5];
      size_t size = 0;
      CHECK_OK(clGetSamplerInfo(s, CL_SAMPLER_PROPERTIES, sizeof(got), got, &size));
      CHECK(size == sizeof(props) && !memcmp(got, props, sizeof(props)));
      clReleaseSampler(s);
   }
   s = clCreateSamplerWithProperties(e->context, NULL, &err);
   CHECK_OK(err);
   if (s) {
      cl_addressing_mode am = 0;
      CHECK_OK(clGetSamplerInfo(s, CL_SAMPLER_ADDRESSING_MODE, sizeof(am), &am, NULL));
      CHECK(am == CL_ADDRESS_CLAMP);
      size_t size = 99;
      CHECK_OK(clGetSamplerInfo(s, CL_SAMPLER_PROPERTIES, 0, NULL, &size));
      CHECK(size == 0);
      clReleaseSampler(s);
   }
   cl_sampler_properties bad1[] = {CL_SAMPLER_FILTER_MODE, 0x1234, 0};
   cl_sampler_properties bad2[] = {0x9999, 0, 0};
   cl_sampler_properties bad3[] = {CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR,
                                   CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR, 0};
   cl_sampler_properties bad4[] = {CL_SAMPLER_NORMALIZED_COORDS, 7, 0};
   const cl_sampler_properties *bad[] = {bad1, bad2, bad3, bad4};
   for (size_t i = 0; i < 4; i++) {
      s = clCreateSamplerWithProperties(e->context, bad[i], &err);
      CHECK(!s && err == CL_INVALID_VALUE, "case %zu: %s", i, kt_err_name(err));
   }
   s = clCreateSamplerWithProperties(NULL, NULL, &err);
   CHECK(!s && err == CL_INVALID_CONTEXT);
}

static void mems(struct kt_env *e)
{
   cl_int err;
   cl_mem_properties empty[] = {0};
   cl_mem b = clCreateBufferWithProperties(e->context, empty, CL_MEM_READ_WRITE, 64, NULL, &err);
   CHECK_OK(err);
   if (b) {
      cl_mem_properties got[2] = {7, 7};
      size_t size = 0;
      CHECK_OK(clGetMemObjectInfo(b, CL_MEM_PROPERTIES, sizeof(got), got, &size));
      CHECK(size == sizeof(cl_mem_properties) && got[0] == 0, "size %zu", size);
      cl_bool svm = CL_TRUE;
      CHECK_OK(clGetMemObjectInfo(b, CL_MEM_USES_SVM_POINTER, sizeof(svm), &svm, NULL));
      CHECK(svm == CL_FALSE);
      /* It is an ordinary buffer. */
      int in[16], out[16];
      kt_fill(in, sizeof(in), 3);
      CHECK_OK(clEnqueueWriteBuffer(e->queue, b, CL_TRUE, 0, sizeof(in), in, 0, NULL, NULL));
      CHECK_OK(clEnqueueReadBuffer(e->queue, b, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL));
      CHECK(kt_same(out, in, sizeof(in), "buffer with properties"));
      clReleaseMemObject(b);
   }
   b = clCreateBufferWithProperties(e->context, NULL, CL_MEM_READ_WRITE, 64, NULL, &err);
   CHECK_OK(err);
   if (b) {
      size_t size = 99;
      CHECK_OK(clGetMemObjectInfo(b, CL_MEM_PROPERTIES, 0, NULL, &size));
      CHECK(size == 0);
      clReleaseMemObject(b);
   }
   cl_mem_properties unknown[] = {0x4242, 1, 0};
   b = clCreateBufferWithProperties(e->context, unknown, CL_MEM_READ_WRITE, 64, NULL, &err);
   CHECK(!b && err == CL_INVALID_PROPERTY, "%s", kt_err_name(err));
   b = clCreateBufferWithProperties(NULL, unknown, CL_MEM_READ_WRITE, 64, NULL, &err);
   CHECK(!b && err == CL_INVALID_CONTEXT, "%s", kt_err_name(err));
   b = clCreateBufferWithProperties(e->context, NULL, CL_MEM_READ_WRITE, 0, NULL, &err);
   CHECK(!b && err == CL_INVALID_BUFFER_SIZE, "%s", kt_err_name(err));

   cl_bool images = CL_FALSE;
   clGetDeviceInfo(e->device, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images, NULL);
   if (!images)
      return;
   cl_image_format fmt = {CL_RGBA, CL_UNORM_INT8};
   cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 4, .image_height = 4};
   cl_mem img = clCreateImageWithProperties(e->context, empty, CL_MEM_READ_ONLY, &fmt, &desc, NULL,
                                            &err);
   CHECK_OK(err);
   if (img) {
      size_t size = 0;
      CHECK_OK(clGetMemObjectInfo(img, CL_MEM_PROPERTIES, 0, NULL, &size));
      CHECK(size == sizeof(cl_mem_properties));
      size_t w = 0;
      CHECK_OK(clGetImageInfo(img, CL_IMAGE_WIDTH, sizeof(w), &w, NULL));
      CHECK(w == 4);
      clReleaseMemObject(img);
   }
   img = clCreateImageWithProperties(e->context, unknown, CL_MEM_READ_ONLY, &fmt, &desc, NULL, &err);
   CHECK(!img && err == CL_INVALID_PROPERTY, "%s", kt_err_name(err));
   img = clCreateImageWithProperties(e->context, NULL, CL_MEM_READ_ONLY, &fmt, NULL, NULL, &err);
   CHECK(!img && err == CL_INVALID_IMAGE_DESCRIPTOR, "%s", kt_err_name(err));
   /* The 2.0 flag lists the formats a read_write argument takes: none
    * on a device without read-write images, else (Kiln's CPU device)
    * every format, as the same builtins read and write them all. */
   cl_uint n = 99, all = 0;
   CHECK_OK(clGetSupportedImageFormats(e->context, CL_MEM_KERNEL_READ_AND_WRITE,
                                       CL_MEM_OBJECT_IMAGE2D, 0, NULL, &n));
   CHECK_OK(clGetSupportedImageFormats(e->context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0,
                                       NULL, &all));
   cl_uint max_rw = kt_device_uint(e->device, CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS);
   CHECK(n == (max_rw ? all : 0), "%u read-write formats (%u in all), %u read_write arguments",
         n, all, max_rw);
}

static int destroyed[3];
static int order;
static void CL_CALLBACK on_destroy(cl_context ctx, void *data)
{
   (void)ctx;
   destroyed[(int)(intptr_t)data] = ++order;
}

static void context_destructor(struct kt_env *e)
{
   cl_context ctx = kt_context(e);
   CHECK_ERR(clSetContextDestructorCallback(ctx, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clSetContextDestructorCallback(NULL, on_destroy, NULL), CL_INVALID_CONTEXT);
   CHECK_OK(clSetContextDestructorCallback(ctx, on_destroy, (void *)(intptr_t)0));
   CHECK_OK(clSetContextDestructorCallback(ctx, on_destroy, (void *)(intptr_t)1));
   /* An object of the context keeps it (and the callbacks) alive. */
   cl_mem b = kt_buffer(ctx, CL_MEM_READ_WRITE, 16, NULL);
   clReleaseContext(ctx);
   CHECK(order == 0, "callbacks ran with a buffer still alive");
   clReleaseMemObject(b);
   /* Most recent first. */
   CHECK(destroyed[1] == 1 && destroyed[0] == 2, "order %d %d", destroyed[0], destroyed[1]);
}

static const char *src = "kernel void k(global int *out, int v, local int *tmp)\n"
                         "{ tmp[0] = v; out[get_global_id(0)] = tmp[0]; }\n";

/* src built for e's device: *p and its kernel k. */
static cl_kernel build_k(struct kt_env *e, cl_program *p)
{
   cl_int err;
   *p = clCreateProgramWithSource(e->context, 1, &src, NULL, &err);
   REQUIRE_OK(err);
   REQUIRE_OK(clBuildProgram(*p, 1, &e->device, NULL, NULL, NULL));
   cl_kernel k = clCreateKernel(*p, "k", &err);
   REQUIRE_OK(err);
   return k;
}

static void clone_kernel(struct kt_env *e)
{
   cl_int err;
   cl_program p;
   cl_kernel k = build_k(e, &p);
   cl_mem out1 = kt_buffer(e->context, CL_MEM_READ_WRITE, 4 * sizeof(int), NULL);
   cl_mem out2 = kt_buffer(e->context, CL_MEM_READ_WRITE, 4 * sizeof(int), NULL);
   int v = 41;
   CHECK_OK(clSetKernelArg(k, 0, sizeof(out1), &out1));
   CHECK_OK(clSetKernelArg(k, 1, sizeof(v), &v));
   CHECK_OK(clSetKernelArg(k, 2, sizeof(int), NULL));
   cl_kernel c = clCloneKernel(k, &err);
   CHECK_OK(err);
   REQUIRE(c != NULL);
   /* Independent afterwards: changing the original leaves the clone. */
   v = 7;
   CHECK_OK(clSetKernelArg(k, 1, sizeof(v), &v));
   CHECK_OK(clSetKernelArg(k, 0, sizeof(out2), &out2));
   size_t g = 4;
   CHECK_OK(clEnqueueNDRangeKernel(e->queue, c, 1, NULL, &g, NULL, 0, NULL, NULL));
   CHECK_OK(clEnqueueNDRangeKernel(e->queue, k, 1, NULL, &g, NULL, 0, NULL, NULL));
   int r1[4], r2[4];
   CHECK_OK(clEnqueueReadBuffer(e->queue, out1, CL_TRUE, 0, sizeof(r1), r1, 0, NULL, NULL));
   CHECK_OK(clEnqueueReadBuffer(e->queue, out2, CL_TRUE, 0, sizeof(r2), r2, 0, NULL, NULL));
   for (int i = 0; i < 4; i++)
      CHECK(r1[i] == 41 && r2[i] == 7, "[%d] clone %d, original %d", i, r1[i], r2[i]);
   char name[8] = "";
   CHECK_OK(clGetKernelInfo(c, CL_KERNEL_FUNCTION_NAME, sizeof(name), name, NULL));
   CHECK(!strcmp(name, "k"));
   cl_kernel bad = clCloneKernel(NULL, &err);
   CHECK(!bad && err == CL_INVALID_KERNEL);

   /* Sub-groups: one per work-group where the device has them
    * (kernel_collectives has the rest), else absent (SVM: exec_svm). */
   size_t sz = 0;
   cl_uint max_sg = 0;
   CHECK_OK(clGetDeviceInfo(e->device, CL_DEVICE_MAX_NUM_SUB_GROUPS, sizeof(max_sg), &max_sg,
                            NULL));
   if (max_sg) {
      CHECK_OK(clGetKernelSubGroupInfo(k, e->device, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL,
                                       sizeof(sz), &sz, NULL));
      CHECK(sz == 1, "%zu sub-groups", sz);
   } else {
      CHECK_ERR(clGetKernelSubGroupInfo(k, e->device, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL,
                                        sizeof(sz), &sz, NULL),
                CL_INVALID_OPERATION);
   }
   CHECK_ERR(clGetKernelSubGroupInfo(NULL, e->device, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL,
                                     sizeof(sz), &sz, NULL),
             CL_INVALID_KERNEL);
   CHECK_ERR(clGetKernelSubGroupInfo(k, (cl_device_id)e->context, CL_KERNEL_MAX_NUM_SUB_GROUPS,
                                     0, NULL, sizeof(sz), &sz, NULL),
             CL_INVALID_DEVICE);

   /* Programs: no IL, no specialization constants, no global
    * constructors or destructors. */
   CHECK_ERR(clSetProgramSpecializationConstant(p, 0, sizeof(v), &v), CL_INVALID_OPERATION);
   CHECK_ERR(clSetProgramSpecializationConstant(NULL, 0, sizeof(v), &v), CL_INVALID_PROGRAM);
   CHECK_ERR(clSetProgramReleaseCallback(p, (void(CL_CALLBACK *)(cl_program, void *))on_destroy,
                                         NULL),
             CL_INVALID_OPERATION);
   CHECK_ERR(clSetProgramReleaseCallback(p, NULL, NULL), CL_INVALID_VALUE);
   size_t il = 99;
   CHECK_OK(clGetProgramInfo(p, CL_PROGRAM_IL, 0, NULL, &il));
   CHECK(il == 0);
   cl_bool ctors = CL_TRUE;
   CHECK_OK(clGetProgramInfo(p, CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT, sizeof(ctors), &ctors,
                             NULL));
   CHECK(ctors == CL_FALSE);
   size_t gv = 99;
   CHECK_OK(clGetProgramBuildInfo(p, e->device, CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
                                  sizeof(gv), &gv, NULL));
   CHECK(gv == 0);

   clReleaseKernel(c);
   clReleaseKernel(k);
   clReleaseMemObject(out1);
   clReleaseMemObject(out2);
   clReleaseProgram(p);
}

static void absent(struct kt_env *e)
{
   cl_int err;
   cl_uint word = 0xDEADBEEF;
   cl_program p = clCreateProgramWithIL(e->context, &word, sizeof(word), &err);
   CHECK(!p && err == CL_INVALID_OPERATION, "%s", kt_err_name(err));
   p = clCreateProgramWithIL(e->context, NULL, 4, &err);
   CHECK(!p && err == CL_INVALID_VALUE, "%s", kt_err_name(err));
   p = clCreateProgramWithIL(NULL, &word, sizeof(word), &err);
   CHECK(!p && err == CL_INVALID_CONTEXT, "%s", kt_err_name(err));

   /* Pipes where the device has them are kernel_pipes' (the CPU device);
    * a context without such a device refuses them. */
   cl_bool pipes = CL_FALSE;
   CHECK_OK(clGetDeviceInfo(e->device, CL_DEVICE_PIPE_SUPPORT, sizeof(pipes), &pipes, NULL));
   cl_mem pipe = clCreatePipe(e->context, CL_MEM_HOST_NO_ACCESS, 4, 4, NULL, &err);
   if (pipes)
      CHECK(pipe && err == CL_SUCCESS, "%s", kt_err_name(err));
   else
      CHECK(!pipe && err == CL_INVALID_OPERATION, "%s", kt_err_name(err));
   if (pipe)
      clReleaseMemObject(pipe);
   cl_mem b = kt_buffer(e->context, CL_MEM_READ_WRITE, 4, NULL);
   cl_uint u;
   CHECK_ERR(clGetPipeInfo(b, CL_PIPE_PACKET_SIZE, sizeof(u), &u, NULL), CL_INVALID_MEM_OBJECT);
   clReleaseMemObject(b);

   /* A device with on-device queues refuses the host queue itself
    * (tests/cl/kernel/device_enqueue.c); one without, the operation. */
   cl_device_device_enqueue_capabilities devq = 0;
   CHECK_OK(clGetDeviceInfo(e->device, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES, sizeof(devq), &devq,
                            NULL));
   CHECK_ERR(clSetDefaultDeviceCommandQueue(e->context, e->device, e->queue),
             (devq & CL_DEVICE_QUEUE_REPLACEABLE_DEFAULT) ? CL_INVALID_COMMAND_QUEUE
                                                          : CL_INVALID_OPERATION);
   CHECK_ERR(clSetDefaultDeviceCommandQueue(NULL, e->device, e->queue), CL_INVALID_CONTEXT);
}

static void timers(struct kt_env *e)
{
   cl_ulong res = 0;
   CHECK_OK(clGetPlatformInfo(e->platform, CL_PLATFORM_HOST_TIMER_RESOLUTION, sizeof(res), &res,
                              NULL));
   CHECK(res > 0, "host timer resolution 0");
   cl_ulong d0 = 0, h0 = 0, d1 = 0, h1 = 0, h2 = 0;
   CHECK_OK(clGetDeviceAndHostTimer(e->device, &d0, &h0));
   CHECK_OK(clGetHostTimer(e->device, &h1));
   kt_sleep_ms(20);
   CHECK_OK(clGetDeviceAndHostTimer(e->device, &d1, &h2));
   CHECK(h1 >= h0 && h2 > h1 && d1 > d0, "timers do not advance");
   /* Both clocks measure the same 20 ms. */
   cl_ulong dd = d1 - d0, dh = h2 - h0;
   CHECK(dd >= 15000000 && dh >= 15000000 && (dd > dh ? dd - dh : dh - dd) < 10000000,
         "device %llu ns, host %llu ns", (unsigned long long)dd, (unsigned long long)dh);
   CHECK_ERR(clGetDeviceAndHostTimer(e->device, NULL, &h0), CL_INVALID_VALUE);
   CHECK_ERR(clGetHostTimer(e->device, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clGetHostTimer(NULL, &h0), CL_INVALID_DEVICE);
}

/* OpenCL 2.1+: a launch of no work-items (global_work_size NULL or
 * holding a 0) succeeds and completes once its wait list has, running
 * nothing; a 1.2 device refuses it. */
static void empty_launch(struct kt_env *e)
{
   cl_version v = 0;
   CHECK_OK(clGetDeviceInfo(e->device, CL_DEVICE_NUMERIC_VERSION, sizeof(v), &v, NULL));
   bool legal = CL_VERSION_MAJOR(v) * 10 + CL_VERSION_MINOR(v) >= 21;
   cl_program p;
   cl_kernel k = build_k(e, &p);
   int init[4] = {5, 5, 5, 5}, v41 = 41;
   cl_mem out = kt_buffer(e->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(init),
                          init);
   CHECK_OK(clSetKernelArg(k, 0, sizeof(out), &out));
   CHECK_OK(clSetKernelArg(k, 1, sizeof(v41), &v41));
   CHECK_OK(clSetKernelArg(k, 2, sizeof(int), NULL));
   const size_t zero2[2] = {4, 0}, zero3[3] = {0, 1, 1};
   cl_int want = legal ? CL_SUCCESS : CL_INVALID_GLOBAL_WORK_SIZE;
   CHECK_ERR(clEnqueueNDRangeKernel(e->queue, k, 1, NULL, NULL, NULL, 0, NULL, NULL), want);
   CHECK_ERR(clEnqueueNDRangeKernel(e->queue, k, 2, NULL, zero2, NULL, 0, NULL, NULL), want);
   /* The other arguments are still checked first. */
   CHECK_ERR(clEnqueueNDRangeKernel(e->queue, k, 4, NULL, zero3, NULL, 0, NULL, NULL),
             CL_INVALID_WORK_DIMENSION);
   if (legal) {
      cl_event gate = kt_user_event(e->context), ev;
      CHECK_OK(clEnqueueNDRangeKernel(e->queue, k, 3, NULL, zero3, NULL, 1, &gate, &ev));
      cl_command_type t = 0;
      CHECK_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(t), &t, NULL));
      CHECK(t == CL_COMMAND_NDRANGE_KERNEL, "command type 0x%x", t);
      CHECK_PENDING(ev, 30);
      CHECK_OK(clSetUserEventStatus(gate, CL_COMPLETE));
      CHECK_ENDS(ev, CL_COMPLETE);
      clReleaseEvent(gate);
      clReleaseEvent(ev);
   }
   int got[4] = {0};
   CHECK_OK(clEnqueueReadBuffer(e->queue, out, CL_TRUE, 0, sizeof(got), got, 0, NULL, NULL));
   CHECK(!memcmp(got, init, sizeof(got)), "an empty launch wrote %d %d %d %d", got[0], got[1],
         got[2], got[3]);
   clReleaseMemObject(out);
   clReleaseKernel(k);
   clReleaseProgram(p);
}

int main(void)
{
   struct kt_env e;
   kt_setup(&e, 0);
   queues(&e);
   samplers(&e);
   mems(&e);
   context_destructor(&e);
   clone_kernel(&e);
   empty_launch(&e);
   absent(&e);
   timers(&e);
   kt_teardown(&e);
   return kt_result();
}
