/* Program-scope __global variables (OpenCL C 3.0's optional
 * __opencl_c_program_scope_global_variables): zero-initialised and
 * initialised variables, a pointer variable initialised with another's
 * address, a static variable in a function, all shared by the program's
 * kernels and kept between launches; each program (and a program from a
 * binary of it) has its own; CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE;
 * a variable over CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE and OpenCL C 1.2's
 * refusal fail the build with the reason in the log.  On a device without
 * the feature, such a program fails to build. */
#define CL_TARGET_OPENCL_VERSION 300
#include <stdlib.h>
#include <string.h>

#include "kk.h"

static const char *src =
   "global int counter;\n"
   "global int table[4] = {1, 2, 3, 4};\n"
   "global int *global ptr = &table[2];\n"
   "global float4 vec = (float4)(1.0f, 2.0f, 3.0f, 4.0f);\n"
   "int next(void) { static global int n = 100; return n++; }\n"
   "kernel void bump(global int *out)\n"
   "{ atomic_inc(&counter); out[get_global_id(0)] = table[get_global_id(0) % 4] + *ptr; }\n"
   "kernel void read_counter(global int *out) { out[0] = counter; out[1] = (int)vec.w; }\n"
   "kernel void seq(global int *out) { out[0] = next(); }\n"
   "kernel void write_table(int i, int v) { table[i] = v; }\n";

static int run1(const struct kt_env *env, cl_kernel k, cl_mem out, size_t n)
{
   KK_ARG(k, 0, out);
   size_t g = n;
   KK_RUN(env, k, 1, NULL, &g, NULL);
   int r[2];
   kk_read(env, out, sizeof(r), r);
   return r[0];
}

static void check_program(const struct kt_env *env, cl_program p, const char *what)
{
   cl_kernel bump = kk_kernel(p, "bump"), rc = kk_kernel(p, "read_counter");
   cl_kernel seq = kk_kernel(p, "seq"), wt = kk_kernel(p, "write_table");
   cl_mem out = kk_buffer_in(env, 64 * sizeof(int), NULL);
   int got[64];
   run1(env, bump, out, 64);
   kk_read(env, out, sizeof(got), got);
   for (int i = 0; i < 64; i++)
      CHECK(got[i] == (i % 4) + 1 + 3, "%s: bump[%d] = %d", what, i, got[i]);
   CHECK(run1(env, rc, out, 1) == 64, "%s: counter after one launch", what);
   int vw[2];
   kk_read(env, out, sizeof(vw), vw);
   CHECK(vw[1] == 4, "%s: vec.w = %d", what, vw[1]);
   run1(env, bump, out, 64);
   CHECK(run1(env, rc, out, 1) == 128, "%s: counter after two launches", what);
   CHECK(run1(env, seq, out, 1) == 100, "%s: first static", what);
   CHECK(run1(env, seq, out, 1) == 101, "%s: second static", what);
   int i = 2, v = 40;
   KK_ARG(wt, 0, i);
   KK_ARG(wt, 1, v);
   size_t one = 1;
   KK_RUN(env, wt, 1, NULL, &one, NULL);
   run1(env, bump, out, 4);
   kk_read(env, out, 4 * sizeof(int), got);
   /* table[2] is 40 now, and ptr points at it. */
   CHECK(got[0] == 1 + 40 && got[2] == 40 + 40, "%s: after write_table: %d %d", what, got[0],
         got[2]);
   size_t gv = 0;
   CHECK_OK(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
                                  sizeof(gv), &gv, NULL));
   /* counter 4, table 16, ptr 8, vec 16, n 4 */
   CHECK(gv == 48, "%s: CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE %zu", what, gv);
   clReleaseMemObject(out);
   clReleaseKernel(bump);
   clReleaseKernel(rc);
   clReleaseKernel(seq);
   clReleaseKernel(wt);
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   size_t max = 0, pref = 0;
   REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE, sizeof(max), &max,
                              NULL));
   REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE,
                              sizeof(pref), &pref, NULL));
   char version[64] = "";
   REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_VERSION, sizeof(version), version, NULL));
   printf("%s: CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE %zu, preferred total %zu\n", version, max,
          pref);
   cl_program p = NULL;
   if (strncmp(version, "OpenCL 3", 8)) {
      CHECK(max == 0 && pref == 0);
   } else if (!max) {
      CHECK(pref == 0);
      CHECK_ERR(kk_try_build(&env, src, "-cl-std=CL3.0", &p), CL_BUILD_PROGRAM_FAILURE);
      clReleaseProgram(p);
   } else {
      /* 3.0's minimum for a device with the feature. */
      CHECK(max >= 65536 && pref >= max, "max %zu, preferred %zu", max, pref);
      cl_program a = kk_build(&env, src, "-cl-std=CL3.0");
      check_program(&env, a, "first program");
      /* Another program of the same source: storage of its own. */
      cl_program b = kk_build(&env, src, "-cl-std=CL3.0");
      check_program(&env, b, "second program");
      /* Through a binary: the size is kept, the storage is fresh. */
      size_t bsize = 0;
      REQUIRE_OK(clGetProgramInfo(a, CL_PROGRAM_BINARY_SIZES, sizeof(bsize), &bsize, NULL));
      unsigned char *bin = malloc(bsize);
      REQUIRE_OK(clGetProgramInfo(a, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL));
      const unsigned char *bins[1] = {bin};
      cl_int st, err;
      cl_program c = clCreateProgramWithBinary(env.context, 1, &env.device, &bsize, bins, &st, &err);
      REQUIRE_OK(err);
      REQUIRE_OK(clBuildProgram(c, 1, &env.device, NULL, NULL, NULL));
      check_program(&env, c, "program from a binary");
      free(bin);
      clReleaseProgram(a);
      clReleaseProgram(b);
      clReleaseProgram(c);

      /* One byte over the limit. */
      char big[256];
      snprintf(big, sizeof(big),
               "global uchar big[%zu];\nkernel void k(global uchar *o) { o[0] = big[1]; }\n",
               max + 1);
      CHECK_ERR(kk_try_build(&env, big, "-cl-std=CL3.0", &p), CL_BUILD_PROGRAM_FAILURE);
      char *log = kk_build_log(p, env.device);
      CHECK(strstr(log, "CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE"), "log: %s", log);
      free(log);
      clReleaseProgram(p);
      /* A variable of the largest size builds. */
      snprintf(big, sizeof(big),
               "global uchar big[%zu];\nkernel void k(global uchar *o) { o[0] = big[%zu]; }\n",
               max, max - 1);
      cl_program ok = kk_build(&env, big, "-cl-std=CL3.0");
      size_t gv = 0;
      CHECK_OK(clGetProgramBuildInfo(ok, env.device, CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
                                     sizeof(gv), &gv, NULL));
      CHECK(gv == max, "total %zu", gv);
      clReleaseProgram(ok);
   }
   /* OpenCL C 1.2 has no __global variables. */
   CHECK_ERR(kk_try_build(&env, src, NULL, &p), CL_BUILD_PROGRAM_FAILURE);
   clReleaseProgram(p);
   kt_teardown(&env);
   return kt_result();
}
