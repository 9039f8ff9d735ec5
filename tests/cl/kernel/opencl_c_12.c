/* The OpenCL C language version a device compiles (OpenCL 1.2 §5.6.4.5,
 * §6.9, §6.12.3): the default -cl-std is the newest the device reports in
 * CL_DEVICE_OPENCL_C_VERSION, older versions stay selectable, newer ones
 * are refused; and, on a 1.2 device, what OpenCL C 1.2 adds — popcount,
 * `static` program-scope constants, double without the extension pragma,
 * and the predefined version macros. */
#include "kk.h"

#define N 64

/* 110 for "OpenCL C 1.1 ...". */
static int device_c_version(const struct kt_env *env)
{
   char s[128] = "";
   REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_VERSION, sizeof(s), s, NULL));
   int major = 0, minor = 0;
   REQUIRE(sscanf(s, "OpenCL C %d.%d", &major, &minor) == 2, " '%s'", s);
   return major * 100 + minor * 10;
}

static void run_ints(const struct kt_env *env, cl_program p, const char *name, cl_int *out,
                     size_t n)
{
   cl_kernel k = kk_kernel(p, name);
   cl_mem m = kk_buffer_in(env, n * sizeof(cl_int), NULL);
   KK_ARG(k, 0, m);
   KK_RUN(env, k, 1, NULL, &n, NULL);
   kk_read(env, m, n * sizeof(cl_int), out);
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseKernel(k));
}

static const char *macros_src =
   "__kernel void k(__global int *o)\n"
   "{ o[0] = __OPENCL_VERSION__; o[1] = __OPENCL_C_VERSION__;\n"
   "  o[2] = CL_VERSION_1_0; o[3] = CL_VERSION_1_1;\n"
   "#ifdef CL_VERSION_1_2\n  o[4] = CL_VERSION_1_2;\n#else\n  o[4] = 0;\n#endif\n"
   "}\n";

/* Each -cl-std the device accepts sets __OPENCL_C_VERSION__; the device's
 * own version (__OPENCL_VERSION__) does not change with it. */
/* __OPENCL_VERSION__: the device's OpenCL version (CL_DEVICE_VERSION),
 * 300 on a 3.0 device whose OpenCL C is still 1.2 by default. */
static int device_version(const struct kt_env *env)
{
   char ver[128] = "";
   REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_VERSION, sizeof(ver), ver, NULL));
   int major = 0, minor = 0;
   REQUIRE(sscanf(ver, "OpenCL %d.%d", &major, &minor) == 2, " '%s'", ver);
   return major * 100 + minor * 10;
}

static void versions(const struct kt_env *env, int dev)
{
   const int dev_version = device_version(env);
   static const struct {
      const char *option;
      int version;
   } stds[] = {{NULL, 0}, {"-cl-std=CL1.0", 100}, {"-cl-std=CL1.1", 110},
               {"-cl-std=CL1.2", 120}, {"-cl-std=CL2.0", 200}};
   for (size_t i = 0; i < sizeof(stds) / sizeof(stds[0]); i++) {
      /* Without -cl-std, the newest OpenCL C 1.x (3.0, 5.8.6.5). */
      int want = stds[i].version ? stds[i].version : dev > 120 ? 120 : dev;
      cl_program p;
      cl_int err = kk_try_build(env, macros_src, stds[i].option, &p);
      if (want > dev) {
         CHECK(err == CL_INVALID_BUILD_OPTIONS, " %s on an OpenCL C %d device: %s",
               stds[i].option, dev, kt_err_name(err));
         CHECK_OK(clReleaseProgram(p));
         continue;
      }
      CHECK(err == CL_SUCCESS, " %s: %s", stds[i].option ? stds[i].option : "(default)",
            kt_err_name(err));
      if (err == CL_SUCCESS) {
         cl_int o[5];
         run_ints(env, p, "k", o, 5);
         CHECK(o[0] == dev_version, " __OPENCL_VERSION__ %d, device %d", o[0], dev_version);
         /* Clang numbers CL1.0 as 100. */
         CHECK(o[1] == want, " %s: __OPENCL_C_VERSION__ %d, want %d",
               stds[i].option ? stds[i].option : "(default)", o[1], want);
         CHECK(o[2] == 100 && o[3] == 110);
         /* CL_VERSION_1_2 is defined whenever the compiler knows 1.2. */
         CHECK(o[4] == 0 || o[4] == 120, " CL_VERSION_1_2 = %d", o[4]);
         if (want >= 120)
            CHECK(o[4] == 120, " CL_VERSION_1_2 missing under %s", stds[i].option);
      }
      CHECK_OK(clReleaseProgram(p));
   }
}

static unsigned host_popcount(uint64_t x, unsigned bits)
{
   if (bits < 64)
      x &= (UINT64_C(1) << bits) - 1;
   return (unsigned)__builtin_popcountll(x);
}

/* popcount over every integer type, scalar and vector. */
static void popcount(const struct kt_env *env)
{
   const char *src =
      "__kernel void k(__global const ulong *in, __global int *o)\n"
      "{ size_t i = get_global_id(0); ulong v = in[i];\n"
      "  __global int *r = o + i * W;\n"
      "  r[0] = popcount((char)v);  r[1] = popcount((uchar)v);\n"
      "  r[2] = popcount((short)v); r[3] = popcount((ushort)v);\n"
      "  r[4] = popcount((int)v);   r[5] = popcount((uint)v);\n"
      "  r[6] = (int)popcount((long)v); r[7] = (int)popcount(v);\n"
      "  vstore4(popcount((int4)((int)v, (int)(v >> 32), (int)(v >> 16), -1)), 2, r);\n"
      /* v and ~v: 64 bits set between them, whatever v is. */
      "  uchar16 b = popcount(as_uchar16((ulong2)(v, ~v)));\n"
      "  int s = 0; for (int j = 0; j < 16; j++) s += ((uchar *)&b)[j];\n"
      "  r[12] = s;\n"
      "}\n";
   cl_program p = kk_build(env, src, "-DW=13");
   cl_kernel k = kk_kernel(p, "k");
   enum { W = 13 };
   cl_ulong in[N];
   uint64_t x = 0x9E3779B97F4A7C15u;
   for (int i = 0; i < N; i++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      in[i] = i == 0 ? 0 : i == 1 ? ~UINT64_C(0) : i == 2 ? 0x8000000000000001u : x;
   }
   cl_mem mi = kk_buffer_in(env, sizeof(in), in);
   cl_mem mo = kk_buffer_in(env, N * W * sizeof(cl_int), NULL);
   KK_ARG(k, 0, mi);
   KK_ARG(k, 1, mo);
   size_t n = N;
   KK_RUN(env, k, 1, NULL, &n, NULL);
   cl_int o[N * W];
   kk_read(env, mo, sizeof(o), o);
   for (int i = 0; i < N; i++) {
      uint64_t v = in[i];
      const unsigned bits[8] = {8, 8, 16, 16, 32, 32, 64, 64};
      for (int t = 0; t < 8; t++)
         CHECK(o[i * W + t] == (int)host_popcount(v, bits[t]), " popcount type %d of %#llx: %d",
               t, (unsigned long long)v, o[i * W + t]);
      const int want[5] = {(int)host_popcount(v, 32), (int)host_popcount(v >> 32, 32),
                           (int)host_popcount(v >> 16, 32), 32, 64};
      for (int t = 0; t < 5; t++)
         CHECK(o[i * W + 8 + t] == want[t], " vector popcount %d of %#llx: %d, want %d", t,
               (unsigned long long)v, o[i * W + 8 + t], want[t]);
   }
   CHECK_OK(clReleaseMemObject(mi));
   CHECK_OK(clReleaseMemObject(mo));
   CHECK_OK(clReleaseKernel(k));
   CHECK_OK(clReleaseProgram(p));
}

/* OpenCL C 1.2 §6.8: `static` at program scope (constant address space)
 * and in functions; `extern` declarations; and §6.1.1.1: double needs no
 * pragma when the device supports it. */
static void storage_and_double(const struct kt_env *env)
{
   const char *src =
      "static constant int table[4] = {3, 5, 7, 11};\n"
      "static int twice(int x) { return 2 * x; }\n"
      "extern int thrice(int x);\n"
      "int thrice(int x) { return 3 * x; }\n"
      "__kernel void k(__global int *o)\n"
      "{ int i = get_global_id(0);\n"
      "  o[i] = twice(table[i & 3]) + thrice(i);\n"
      "}\n"
      "__kernel void d(__global int *o)\n"
      "{ int i = get_global_id(0);\n"
      "  double x = (double)i / 3.0;\n"
      "  o[i] = (int)(x * 3.0 * 1e6 + 0.5) + (sizeof(double) == 8 ? 0 : 1000000000);\n"
      "}\n";
   char ext[4096] = "";
   REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS, sizeof(ext), ext, NULL));
   bool fp64 = strstr(ext, "cl_khr_fp64") != NULL;
   cl_program p;
   cl_int err = kk_try_build(env, src, NULL, &p);
   if (!fp64) {
      /* Without cl_khr_fp64 the double kernel must not compile. */
      CHECK(err == CL_BUILD_PROGRAM_FAILURE, " double accepted without cl_khr_fp64");
      CHECK_OK(clReleaseProgram(p));
      return;
   }
   if (err != CL_SUCCESS) {
      char *log = kk_build_log(p, env->device);
      KT_FAIL("OpenCL C 1.2 program failed to build: %s\n%s", kt_err_name(err), log);
      free(log);
      CHECK_OK(clReleaseProgram(p));
      return;
   }
   cl_int o[N];
   run_ints(env, p, "k", o, N);
   static const int table[4] = {3, 5, 7, 11};
   for (int i = 0; i < N; i++)
      CHECK(o[i] == 2 * table[i & 3] + 3 * i, " k: o[%d] = %d", i, o[i]);
   run_ints(env, p, "d", o, N);
   for (int i = 0; i < N; i++)
      CHECK(o[i] == i * 1000000, " d: o[%d] = %d", i, o[i]);
   CHECK_OK(clReleaseProgram(p));

   /* The same double kernel under -cl-std=CL1.1 needs the pragma. */
   cl_program q;
   CHECK_ERR(kk_try_build(env, src, "-cl-std=CL1.1", &q), CL_BUILD_PROGRAM_FAILURE);
   CHECK_OK(clReleaseProgram(q));
}

/* What OpenCL C 1.2 still forbids is refused with a log, not accepted: a
 * program-scope variable outside the constant address space, and a
 * __local variable outside a kernel's outermost scope. */
static void still_forbidden(const struct kt_env *env)
{
   const char *bad[] = {
      "global int counter;\n__kernel void k(__global int *o) { o[0] = counter; }\n",
      "static int s = 1;\n__kernel void k(__global int *o) { o[0] = s; }\n",
      "void f(__global int *o) { __local int t; t = 1; o[0] = t; }\n"
      "__kernel void k(__global int *o) { f(o); }\n",
   };
   for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
      cl_program p;
      cl_int err = kk_try_build(env, bad[i], NULL, &p);
      CHECK(err == CL_BUILD_PROGRAM_FAILURE, " case %zu: %s", i, kt_err_name(err));
      char *log = kk_build_log(p, env->device);
      CHECK(strstr(log, "error"), " case %zu: no error in the log:\n%s", i, log);
      free(log);
      CHECK_OK(clReleaseProgram(p));
   }
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   int dev = device_c_version(&env);
   CHECK(dev == 110 || dev == 120 || dev == 200, " unexpected OpenCL C version %d", dev);
   versions(&env, dev);
   if (dev >= 120) {
      popcount(&env);
      storage_and_double(&env);
      still_forbidden(&env);
   } else {
      printf("device compiles OpenCL C %d.%d: the 1.2 language cases are not run\n", dev / 100,
             dev % 100 / 10);
   }
   kt_teardown(&env);
   return kt_result();
}
