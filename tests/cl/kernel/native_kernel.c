/* clEnqueueNativeKernel (OpenCL 1.1 §5.8): the argument block is copied,
 * memory objects named in mem_list are replaced by pointers to their
 * storage, ordering with OpenCL kernels on the queue; the errors. */
#include <stdatomic.h>

#include "kk.h"

struct args {
   cl_int scale;
   cl_mem in;  /* becomes a pointer to the storage */
   cl_int count;
   cl_mem out;
   char tag[13];
   const void *original; /* where the application's block was */
};

static atomic_int calls;
static const void *seen_block;
static struct args seen;

static void CL_CALLBACK scale_fn(void *p)
{
   struct args *a = p;
   seen_block = p;
   seen = *a;
   const cl_int *in = (const cl_int *)a->in;
   cl_int *out = (cl_int *)a->out;
   for (int i = 0; i < a->count; i++)
      out[i] = in[i] * a->scale;
   atomic_fetch_add(&calls, 1);
}

static void CL_CALLBACK count_fn(void *p)
{
   (void)p;
   atomic_fetch_add(&calls, 1);
}

static const char *source = "__kernel void fill(__global int *o) { o[get_global_id(0)] = get_global_id(0) + 1; }\n"
                            "__kernel void twice(__global int *o) { o[get_global_id(0)] *= 2; }\n";

static void basic(const struct kt_env *env)
{
   cl_uint caps = 0;
   cl_device_exec_capabilities ec = 0;
   CHECK_OK(clGetDeviceInfo(env->device, CL_DEVICE_EXECUTION_CAPABILITIES, sizeof(ec), &ec, NULL));
   (void)caps;
   if (!(ec & CL_EXEC_NATIVE_KERNEL)) {
      printf("the device runs no native kernels: only CL_INVALID_OPERATION is checked\n");
      CHECK_ERR(clEnqueueNativeKernel(env->queue, count_fn, NULL, 0, 0, NULL, NULL, 0, NULL,
                                      NULL),
                CL_INVALID_OPERATION);
      return;
   }
   enum { N = 1000 };
   cl_program p = kk_build(env, source, NULL);
   cl_kernel fill = kk_kernel(p, "fill"), twice = kk_kernel(p, "twice");
   cl_mem in = kk_buffer_in(env, N * sizeof(cl_int), NULL);
   cl_mem out = kk_buffer_in(env, N * sizeof(cl_int), NULL);
   KK_ARG(fill, 0, in);
   KK_ARG(twice, 0, out);
   size_t g = N;
   /* kernel -> native -> kernel, in order, nothing waited for in between;
    * the first command is held by a user event so that the native kernel's
    * argument block must have been copied at enqueue. */
   cl_event gate = kt_user_event(env->context), ev;
   CHECK_OK(clEnqueueNDRangeKernel(env->queue, fill, 1, NULL, &g, NULL, 1, &gate, NULL));
   struct args a = {7, in, N, out, "native-args", NULL};
   a.original = &a;
   const void *locs[2] = {&a.in, &a.out};
   cl_mem mems[2] = {in, out};
   atomic_store(&calls, 0);
   CHECK_OK(clEnqueueNativeKernel(env->queue, scale_fn, &a, sizeof(a), 2, mems, locs, 0, NULL,
                                  &ev));
   CHECK_OK(clEnqueueNDRangeKernel(env->queue, twice, 1, NULL, &g, NULL, 0, NULL, NULL));
   memset(&a, 0x55, sizeof(a));
   kt_sleep_ms(10);
   CHECK(atomic_load(&calls) == 0, " the native kernel ran before its predecessor");
   CHECK_OK(clSetUserEventStatus(gate, CL_COMPLETE));
   CHECK_OK(clFinish(env->queue));
   CHECK(atomic_load(&calls) == 1, " the native kernel ran %d times", atomic_load(&calls));
   cl_int res[N];
   kk_read(env, out, sizeof(res), res);
   for (int i = 0; i < N; i++)
      CHECK(res[i] == (i + 1) * 7 * 2, " out[%d] = %d, expected %d", i, res[i], (i + 1) * 14);
   CHECK(seen.scale == 7 && seen.count == N && !strcmp(seen.tag, "native-args"),
         " the argument block was not copied at enqueue (scale %d, count %d)", seen.scale,
         seen.count);
   CHECK(seen_block != seen.original, " the function got the application's block itself");
   CHECK((void *)seen.in != (void *)in && (void *)seen.out != (void *)out,
         " the cl_mem handles were not replaced by pointers");
   cl_command_type type = 0;
   CHECK_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL));
   CHECK(type == CL_COMMAND_NATIVE_KERNEL, " command type 0x%x", type);
   CHECK(kt_status(ev) == CL_COMPLETE);
   CHECK_OK(clReleaseEvent(ev));
   CHECK_OK(clReleaseEvent(gate));

   /* A sub-buffer's pointer is its origin; the parent's storage is what
    * the function sees. */
   cl_uint align = kt_device_uint(env->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8;
   size_t origin = align > 64 ? align : 64;
   cl_buffer_region r = {origin, 16 * sizeof(cl_int)};
   cl_int err;
   cl_mem sub = clCreateSubBuffer(in, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
   if (sub && origin + 16 * sizeof(cl_int) <= N * sizeof(cl_int)) {
      struct args b = {3, sub, 16, out, "sub", NULL};
      const void *bl[2] = {&b.in, &b.out};
      cl_mem bm[2] = {sub, out};
      CHECK_OK(clEnqueueNativeKernel(env->queue, scale_fn, &b, sizeof(b), 2, bm, bl, 0, NULL,
                                     NULL));
      CHECK_OK(clFinish(env->queue));
      kk_read(env, out, sizeof(res), res);
      int o = (int)(origin / sizeof(cl_int));
      for (int i = 0; i < 16; i++)
         CHECK(res[i] == (o + i + 1) * 3, " sub-buffer: out[%d] = %d, expected %d", i, res[i],
               (o + i + 1) * 3);
      CHECK_OK(clReleaseMemObject(sub));
   } else {
      KT_FAIL("clCreateSubBuffer: %s", kt_err_name(err));
   }

   /* No arguments at all. */
   atomic_store(&calls, 0);
   CHECK_OK(clEnqueueNativeKernel(env->queue, count_fn, NULL, 0, 0, NULL, NULL, 0, NULL, NULL));
   CHECK_OK(clFinish(env->queue));
   CHECK(atomic_load(&calls) == 1);

   /* Errors. */
   cl_command_queue q = env->queue;
   struct args c = {1, in, 1, out, "", NULL};
   const void *cl2[2] = {&c.in, &c.out};
   cl_mem cm[2] = {in, out};
   CHECK_ERR(clEnqueueNativeKernel(q, NULL, &c, sizeof(c), 2, cm, cl2, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueNativeKernel(q, scale_fn, NULL, sizeof(c), 0, NULL, NULL, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueNativeKernel(q, scale_fn, &c, 0, 0, NULL, NULL, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueNativeKernel(q, scale_fn, &c, sizeof(c), 2, NULL, cl2, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueNativeKernel(q, scale_fn, &c, sizeof(c), 2, cm, NULL, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueNativeKernel(q, scale_fn, &c, sizeof(c), 0, cm, cl2, 0, NULL, NULL),
             CL_INVALID_VALUE);
   cl_mem badm[2] = {in, (cl_mem)(uintptr_t)&c};
   CHECK_ERR(clEnqueueNativeKernel(q, scale_fn, &c, sizeof(c), 2, badm, cl2, 0, NULL, NULL),
             CL_INVALID_MEM_OBJECT);
   cl_mem nullm[2] = {in, NULL};
   CHECK_ERR(clEnqueueNativeKernel(q, scale_fn, &c, sizeof(c), 2, nullm, cl2, 0, NULL, NULL),
             CL_INVALID_MEM_OBJECT);
   CHECK_ERR(clEnqueueNativeKernel(NULL, scale_fn, &c, sizeof(c), 2, cm, cl2, 0, NULL, NULL),
             CL_INVALID_COMMAND_QUEUE);
   CHECK_ERR(clEnqueueNativeKernel(q, scale_fn, &c, sizeof(c), 2, cm, cl2, 1, NULL, NULL),
             CL_INVALID_EVENT_WAIT_LIST);
   CHECK_ERR(clEnqueueNativeKernel(q, scale_fn, &c, sizeof(c), 2, cm, cl2, 0,
                                   (cl_event[]){NULL}, NULL),
             CL_INVALID_EVENT_WAIT_LIST);
   /* A memory object of another context. */
   cl_context ctx2 = kt_context(env);
   cl_mem foreign = kt_buffer(ctx2, 0, 64, NULL);
   cl_mem fm[2] = {in, foreign};
   CHECK_ERR(clEnqueueNativeKernel(q, scale_fn, &c, sizeof(c), 2, fm, cl2, 0, NULL, NULL),
             CL_INVALID_MEM_OBJECT);
   CHECK_OK(clReleaseMemObject(foreign));
   CHECK_OK(clReleaseContext(ctx2));
   CHECK_OK(clFinish(q));

   CHECK_OK(clReleaseMemObject(in));
   CHECK_OK(clReleaseMemObject(out));
   CHECK_OK(clReleaseKernel(fill));
   CHECK_OK(clReleaseKernel(twice));
   CHECK_OK(clReleaseProgram(p));
}

/* The memory objects stay alive until the native kernel has run, even if
 * the application releases them right after enqueueing. */
static void held_objects(const struct kt_env *env)
{
   enum { N = 256 };
   cl_int init[N];
   for (int i = 0; i < N; i++)
      init[i] = i;
   cl_mem in = kt_buffer(env->context, CL_MEM_COPY_HOST_PTR, sizeof(init), init);
   cl_mem out = kk_buffer_in(env, sizeof(init), NULL);
   cl_event gate = kt_user_event(env->context);
   struct args a = {-2, in, N, out, "held", NULL};
   const void *locs[2] = {&a.in, &a.out};
   cl_mem mems[2] = {in, out};
   CHECK_OK(clEnqueueNativeKernel(env->queue, scale_fn, &a, sizeof(a), 2, mems, locs, 1, &gate,
                                  NULL));
   CHECK_OK(clReleaseMemObject(in));
   CHECK_OK(clRetainMemObject(out));
   CHECK_OK(clSetUserEventStatus(gate, CL_COMPLETE));
   CHECK_OK(clFinish(env->queue));
   cl_int res[N];
   kk_read(env, out, sizeof(res), res);
   for (int i = 0; i < N; i++)
      CHECK(res[i] == -2 * i, " held: out[%d] = %d", i, res[i]);
   CHECK_OK(clReleaseMemObject(out));
   CHECK_OK(clReleaseMemObject(out));
   CHECK_OK(clReleaseEvent(gate));
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   cl_device_exec_capabilities caps = 0;
   CHECK_OK(clGetDeviceInfo(env.device, CL_DEVICE_EXECUTION_CAPABILITIES, sizeof(caps), &caps,
                            NULL));
   if (!(caps & CL_EXEC_NATIVE_KERNEL)) {
      /* A device whose memory the host cannot see (the discrete test
       * device, GPUs) runs no host functions: 5.8 says so with
       * CL_INVALID_OPERATION. */
      cl_int v = 0;
      cl_mem m = kt_buffer(env.context, CL_MEM_COPY_HOST_PTR, sizeof(v), &v);
      struct args a = {1, m, 1, m, "none", NULL};
      const void *locs[1] = {&a.in};
      CHECK_ERR(clEnqueueNativeKernel(env.queue, scale_fn, &a, sizeof(a), 1, &m, locs, 0, NULL,
                                      NULL),
                CL_INVALID_OPERATION);
      CHECK_OK(clReleaseMemObject(m));
      kt_teardown(&env);
      return kt_result();
   }
   basic(&env);
   held_objects(&env);
   kt_teardown(&env);
   return kt_result();
}
