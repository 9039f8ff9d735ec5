/* Kernel objects (OpenCL 1.1 §5.7.1, 5.7.3): clCreateKernel,
 * clCreateKernelsInProgram, clGetKernelInfo, clGetKernelWorkGroupInfo. */
#include "kk.h"

static const char *source =
   "int not_a_kernel(int x) { return x + 1; }\n"
   "__kernel void plain(__global int *o) { o[get_global_id(0)] = not_a_kernel(41); }\n"
   "__kernel __attribute__((reqd_work_group_size(4, 2, 1)))\n"
   "void required(__global int *o) { o[get_global_id(1) * get_global_size(0) + get_global_id(0)] = 7; }\n"
   "__kernel void locals(__global float *o, __local float *a, __local int *b, int n)\n"
   "{\n"
   "  __local float s1[100];\n"
   "  __local int s2[10];\n"
   "  int l = get_local_id(0);\n"
   "  s1[l] = l; s2[l % 10] = l; a[l] = 2 * l; b[l] = 3 * l;\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  o[get_global_id(0)] = s1[l] + s2[l % 10] + a[l] + b[l] + n;\n"
   "}\n"
   "__kernel void private_array(__global float *o, int k)\n"
   "{\n"
   "  float p[512];\n"
   "  for (int i = 0; i < 512; i++) p[i] = i * (float)k;\n"
   "  o[get_global_id(0)] = p[(get_global_id(0) * 37 + k) & 511];\n"
   "}\n";

static void create(const struct kt_env *env)
{
   cl_int err;
   cl_program p = clCreateProgramWithSource(env->context, 1, &source, NULL, &err);
   REQUIRE(p);
   /* Not built yet. */
   CHECK(!clCreateKernel(p, "plain", &err));
   CHECK_ERR(err, CL_INVALID_PROGRAM_EXECUTABLE);
   cl_uint n = 99;
   CHECK_ERR(clCreateKernelsInProgram(p, 0, NULL, &n), CL_INVALID_PROGRAM_EXECUTABLE);
   REQUIRE_OK(clBuildProgram(p, 0, NULL, NULL, NULL, NULL));

   CHECK(!clCreateKernel(p, "no_such_kernel", &err));
   CHECK_ERR(err, CL_INVALID_KERNEL_NAME);
   CHECK(!clCreateKernel(p, "not_a_kernel", &err));
   CHECK_ERR(err, CL_INVALID_KERNEL_NAME);
   CHECK(!clCreateKernel(p, "plai", &err));
   CHECK_ERR(err, CL_INVALID_KERNEL_NAME);
   CHECK(!clCreateKernel(p, "plainx", &err));
   CHECK_ERR(err, CL_INVALID_KERNEL_NAME);
   CHECK(!clCreateKernel(p, "", &err));
   CHECK_ERR(err, CL_INVALID_KERNEL_NAME);
   CHECK(!clCreateKernel(p, NULL, &err));
   CHECK_ERR(err, CL_INVALID_VALUE);
   CHECK(!clCreateKernel(NULL, "plain", &err));
   CHECK_ERR(err, CL_INVALID_PROGRAM);

   /* clCreateKernelsInProgram: count, too small an array, then all. */
   CHECK_OK(clCreateKernelsInProgram(p, 0, NULL, &n));
   CHECK(n == 4, " %u kernels, expected 4", n);
   cl_kernel ks[8] = {NULL};
   CHECK_ERR(clCreateKernelsInProgram(p, 3, ks, NULL), CL_INVALID_VALUE);
   CHECK(!ks[0], " a refused call created kernels");
   CHECK_ERR(clCreateKernelsInProgram(p, 1, ks, &n), CL_INVALID_VALUE);
   cl_uint got = 0;
   CHECK_OK(clCreateKernelsInProgram(p, 8, ks, &got));
   CHECK(got == 4);
   const char *want[] = {"plain", "required", "locals", "private_array"};
   int seen[4] = {0};
   for (cl_uint i = 0; i < got && i < 8; i++) {
      char name[64] = "";
      CHECK_OK(clGetKernelInfo(ks[i], CL_KERNEL_FUNCTION_NAME, sizeof(name), name, NULL));
      for (int w = 0; w < 4; w++)
         if (!strcmp(name, want[w]))
            seen[w]++;
   }
   for (int w = 0; w < 4; w++)
      CHECK(seen[w] == 1, " kernel %s created %d times", want[w], seen[w]);
   CHECK(ks[4] == NULL, " wrote past the kernels");

   /* The kernels from the array run. */
   for (cl_uint i = 0; i < got; i++) {
      char name[64] = "";
      CHECK_OK(clGetKernelInfo(ks[i], CL_KERNEL_FUNCTION_NAME, sizeof(name), name, NULL));
      if (!strcmp(name, "plain")) {
         cl_int out[16];
         cl_mem m = kk_buffer_in(env, sizeof(out), NULL);
         KK_ARG(ks[i], 0, m);
         size_t g = 16;
         KK_RUN(env, ks[i], 1, NULL, &g, NULL);
         kk_read(env, m, sizeof(out), out);
         CHECK(out[15] == 42);
         CHECK_OK(clReleaseMemObject(m));
      }
      CHECK_OK(clReleaseKernel(ks[i]));
   }

   /* Two kernel objects of one function are independent. */
   cl_kernel a = kk_kernel(p, "plain"), b = kk_kernel(p, "plain");
   CHECK(a != b);
   cl_mem ma = kk_buffer_in(env, 64, NULL), mb = kk_buffer_in(env, 64, NULL);
   KK_ARG(a, 0, ma);
   KK_ARG(b, 0, mb);
   size_t g = 16;
   KK_RUN(env, a, 1, NULL, &g, NULL);
   cl_int out[16];
   kk_read(env, mb, sizeof(out), out);
   CHECK(out[0] == 0, " running one kernel object used the other's argument");
   CHECK_OK(clReleaseKernel(a));
   CHECK_OK(clReleaseKernel(b));
   CHECK_OK(clReleaseMemObject(ma));
   CHECK_OK(clReleaseMemObject(mb));

   /* A kernel keeps its program alive. */
   cl_kernel k = kk_kernel(p, "plain");
   CHECK_OK(clReleaseProgram(p));
   cl_program kp = NULL;
   CHECK_OK(clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof(kp), &kp, NULL));
   CHECK(kp == p);
   cl_mem m = kk_buffer_in(env, sizeof(out), NULL);
   KK_ARG(k, 0, m);
   KK_RUN(env, k, 1, NULL, &g, NULL);
   kk_read(env, m, sizeof(out), out);
   CHECK(out[3] == 42);
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseKernel(k));
}

static void info(const struct kt_env *env)
{
   cl_program p = kk_build(env, source, NULL);
   cl_kernel k = kk_kernel(p, "locals");
   char name[64] = "";
   size_t sz = 0;
   CHECK_OK(clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof(name), name, &sz));
   CHECK(!strcmp(name, "locals") && sz == 7, " name '%s', size %zu", name, sz);
   CHECK_ERR(clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, 3, name, NULL), CL_INVALID_VALUE);
   cl_uint nargs = 0, refs = 0;
   CHECK_OK(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof(nargs), &nargs, NULL));
   CHECK(nargs == 4, " %u args", nargs);
   CHECK_OK(clGetKernelInfo(k, CL_KERNEL_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
   CHECK(refs == 1);
   CHECK_OK(clRetainKernel(k));
   CHECK_OK(clGetKernelInfo(k, CL_KERNEL_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
   CHECK(refs == 2);
   CHECK_OK(clReleaseKernel(k));
   cl_context ctx = NULL;
   CHECK_OK(clGetKernelInfo(k, CL_KERNEL_CONTEXT, sizeof(ctx), &ctx, NULL));
   CHECK(ctx == env->context);
   cl_program kp = NULL;
   CHECK_OK(clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof(kp), &kp, NULL));
   CHECK(kp == p);
   CHECK_ERR(clGetKernelInfo(k, 0x7fff, sizeof(refs), &refs, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, 2, &nargs, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clGetKernelInfo(NULL, CL_KERNEL_NUM_ARGS, sizeof(nargs), &nargs, NULL),
             CL_INVALID_KERNEL);
   CHECK_ERR(clGetKernelInfo((cl_kernel)p, CL_KERNEL_NUM_ARGS, sizeof(nargs), &nargs, NULL),
             CL_INVALID_KERNEL);
   CHECK_OK(clReleaseKernel(k));
   CHECK_OK(clReleaseProgram(p));
}

static size_t wg_size(cl_kernel k, cl_device_id dev, cl_kernel_work_group_info param)
{
   size_t v = 0;
   CHECK_OK(clGetKernelWorkGroupInfo(k, dev, param, sizeof(v), &v, NULL));
   return v;
}

static cl_ulong wg_ulong(cl_kernel k, cl_device_id dev, cl_kernel_work_group_info param)
{
   cl_ulong v = 0;
   CHECK_OK(clGetKernelWorkGroupInfo(k, dev, param, sizeof(v), &v, NULL));
   return v;
}

static void work_group_info(const struct kt_env *env)
{
   cl_program p = kk_build(env, source, NULL);
   cl_kernel plain = kk_kernel(p, "plain"), req = kk_kernel(p, "required"),
             loc = kk_kernel(p, "locals"), priv = kk_kernel(p, "private_array");
   size_t dev_max = 0;
   CHECK_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(dev_max),
                            &dev_max, NULL));

   size_t wgs = wg_size(plain, env->device, CL_KERNEL_WORK_GROUP_SIZE);
   CHECK(wgs >= 1 && wgs <= dev_max, " WORK_GROUP_SIZE %zu (device max %zu)", wgs, dev_max);
   /* device may be NULL with one device. */
   CHECK(wg_size(plain, NULL, CL_KERNEL_WORK_GROUP_SIZE) == wgs);
   cl_device_id bogus = (cl_device_id)(uintptr_t)&wgs;
   CHECK_ERR(clGetKernelWorkGroupInfo(plain, bogus, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wgs),
                                      &wgs, NULL),
             CL_INVALID_DEVICE);
   CHECK_ERR(clGetKernelWorkGroupInfo(plain, env->device, 0x7fff, sizeof(wgs), &wgs, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clGetKernelWorkGroupInfo(plain, env->device, CL_KERNEL_WORK_GROUP_SIZE, 1, &wgs,
                                      NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clGetKernelWorkGroupInfo(NULL, env->device, CL_KERNEL_WORK_GROUP_SIZE,
                                      sizeof(wgs), &wgs, NULL),
             CL_INVALID_KERNEL);

   /* A kernel with a work-group size in its source can run a group that
    * size. */
   size_t rw = wg_size(req, env->device, CL_KERNEL_WORK_GROUP_SIZE);
   CHECK(rw >= 8, " WORK_GROUP_SIZE %zu for reqd_work_group_size(4,2,1)", rw);

   size_t c[3] = {9, 9, 9};
   size_t sz = 0;
   CHECK_OK(clGetKernelWorkGroupInfo(plain, env->device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                     sizeof(c), c, &sz));
   CHECK(sz == sizeof(c) && c[0] == 0 && c[1] == 0 && c[2] == 0,
         " COMPILE_WORK_GROUP_SIZE %zu,%zu,%zu without the attribute", c[0], c[1], c[2]);
   CHECK_OK(clGetKernelWorkGroupInfo(req, env->device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                     sizeof(c), c, NULL));
   CHECK(c[0] == 4 && c[1] == 2 && c[2] == 1, " COMPILE_WORK_GROUP_SIZE %zu,%zu,%zu", c[0], c[1],
         c[2]);
   CHECK_ERR(clGetKernelWorkGroupInfo(req, env->device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                      2 * sizeof(size_t), c, NULL),
             CL_INVALID_VALUE);

   /* Local memory: none; static arrays (400 + 40 bytes); plus arguments. */
   cl_ulong none = wg_ulong(plain, env->device, CL_KERNEL_LOCAL_MEM_SIZE);
   CHECK(none == 0, " LOCAL_MEM_SIZE %llu for a kernel without __local", (unsigned long long)none);
   cl_ulong stat = wg_ulong(loc, env->device, CL_KERNEL_LOCAL_MEM_SIZE);
   CHECK(stat >= 440 && stat <= 440 + 256, " LOCAL_MEM_SIZE %llu, static arrays take 440",
         (unsigned long long)stat);
   KK_LOCAL(loc, 1, 1000);
   KK_LOCAL(loc, 2, 24);
   cl_ulong both = wg_ulong(loc, env->device, CL_KERNEL_LOCAL_MEM_SIZE);
   CHECK(both >= 440 + 1024 && both <= 440 + 1024 + 512,
         " LOCAL_MEM_SIZE %llu with 1000 + 24 bytes of __local arguments (static %llu)",
         (unsigned long long)both, (unsigned long long)stat);
   KK_LOCAL(loc, 1, 4);
   cl_ulong smaller = wg_ulong(loc, env->device, CL_KERNEL_LOCAL_MEM_SIZE);
   CHECK(smaller < both, " resetting a __local argument smaller did not shrink LOCAL_MEM_SIZE");

   /* And that kernel runs with those sizes. */
   {
      float out[64];
      cl_mem m = kk_buffer_in(env, sizeof(out), NULL);
      KK_ARG(loc, 0, m);
      KK_LOCAL(loc, 1, 16 * sizeof(float));
      KK_LOCAL(loc, 2, 16 * sizeof(int));
      cl_int n = 5;
      KK_ARG(loc, 3, n);
      size_t g = 64, l = 16;
      KK_RUN(env, loc, 1, NULL, &g, &l);
      kk_read(env, m, sizeof(out), out);
      for (int i = 0; i < 64; i++) {
         int li = i % 16;
         /* s2[li % 10] was written by li and li + 10 (if < 16), racing;
          * only lanes whose slot has one writer are exact. */
         float want_s2 = (li % 10 + 10 < 16) ? -1 : (float)li;
         if (want_s2 < 0)
            continue;
         float want = li + want_s2 + 2 * li + 3 * li + 5;
         CHECK(out[i] == want, " locals: out[%d] = %g, expected %g", i, out[i], want);
      }
      CHECK_OK(clReleaseMemObject(m));
   }

   size_t mult = wg_size(plain, env->device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE);
   CHECK(mult >= 1 && mult <= wgs, " PREFERRED_WORK_GROUP_SIZE_MULTIPLE %zu", mult);

   cl_ulong pm = wg_ulong(priv, env->device, CL_KERNEL_PRIVATE_MEM_SIZE);
   /* Kiln never computes it (kiln_kernel_info.private_mem_size stays 0). */
   CHECK(pm >= 512 * sizeof(float),
             "PRIVATE_MEM_SIZE %llu for a kernel with a dynamically indexed float[512]",
             (unsigned long long)pm);
   cl_ulong pm0 = wg_ulong(plain, env->device, CL_KERNEL_PRIVATE_MEM_SIZE);
   CHECK(pm0 <= pm, " PRIVATE_MEM_SIZE %llu of a trivial kernel, %llu with float[512]",
         (unsigned long long)pm0, (unsigned long long)pm);
   {
      float out[32];
      cl_mem m = kk_buffer_in(env, sizeof(out), NULL);
      KK_ARG(priv, 0, m);
      cl_int kk = 3;
      KK_ARG(priv, 1, kk);
      size_t g = 32;
      KK_RUN(env, priv, 1, NULL, &g, NULL);
      kk_read(env, m, sizeof(out), out);
      for (int i = 0; i < 32; i++)
         CHECK(out[i] == (float)(((i * 37 + 3) & 511) * 3), " private_array out[%d] = %g", i,
               out[i]);
      CHECK_OK(clReleaseMemObject(m));
   }

   CHECK_OK(clReleaseKernel(plain));
   CHECK_OK(clReleaseKernel(req));
   CHECK_OK(clReleaseKernel(loc));
   CHECK_OK(clReleaseKernel(priv));
   CHECK_OK(clReleaseProgram(p));
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   create(&env);
   info(&env);
   work_group_info(&env);
   kt_teardown(&env);
   return kt_result();
}
