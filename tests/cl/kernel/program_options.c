/* Build options (OpenCL 1.1 §5.6.3): -D, -I, optimisation and math
 * options, warnings, unknown options. */
#include <sys/stat.h>
#include <unistd.h>

#include "kk.h"

#define N 64

/* Runs kernel "k" (one int buffer) over N items. */
static void run_k(const struct kt_env *env, cl_program p, cl_int *out)
{
   cl_kernel k = kk_kernel(p, "k");
   cl_mem m = kk_buffer_in(env, N * sizeof(cl_int), NULL);
   KK_ARG(k, 0, m);
   size_t n = N;
   KK_RUN(env, k, 1, NULL, &n, NULL);
   kk_read(env, m, N * sizeof(cl_int), out);
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseKernel(k));
}

static void defines(const struct kt_env *env)
{
   const char *src = "__kernel void k(__global int *o)\n"
                     "{\n"
                     "  int i = get_global_id(0);\n"
                     "#ifndef FLAG\n"
                     "  o[i] = -1; return;\n"
                     "#endif\n"
                     "  o[i] = A * i + B + FLAG + SUM(i, 1000);\n"
                     "}\n";
   /* Glued and separate forms, a bare name (defined as 1), a function-like
    * macro with quotes protecting its spaces. */
   cl_program p = kk_build(env, src, "-DA=3 -D B=100 -D FLAG \"-DSUM(x, y)=((x) + (y))\"");
   cl_int out[N];
   run_k(env, p, out);
   for (int i = 0; i < N; i++)
      CHECK(out[i] == 3 * i + 100 + 1 + i + 1000, " out[%d] = %d", i, out[i]);
   CHECK_OK(clReleaseProgram(p));

   /* Without them the source does not compile (A is undeclared). */
   cl_program q;
   CHECK_ERR(kk_try_build(env, src, "-DFLAG=0", &q), CL_BUILD_PROGRAM_FAILURE);
   CHECK_OK(clReleaseProgram(q));

   /* The value may hold a float literal or an expression. */
   const char *fsrc = "__kernel void k(__global int *o)\n"
                      "{ o[get_global_id(0)] = (int)(SCALE * 4.0f) + (WORDS); }\n";
   p = kk_build(env, fsrc, "-D SCALE=2.5f -DWORDS=(7*6)");
   run_k(env, p, out);
   CHECK(out[5] == 10 + 42, " out[5] = %d", out[5]);
   CHECK_OK(clReleaseProgram(p));

   /* __OPENCL_VERSION__ and friends are predefined. */
   const char *vsrc = "__kernel void k(__global int *o)\n"
                      "{ o[0] = __OPENCL_VERSION__; o[1] = __OPENCL_C_VERSION__;\n"
                      "  o[2] = __ENDIAN_LITTLE__; o[3] = 0;\n"
                      "#ifdef __FAST_RELAXED_MATH__\n  o[4] = 1;\n#else\n  o[4] = 0;\n#endif\n"
                      "  o[5] = CL_VERSION_1_0; o[6] = CL_VERSION_1_1; }\n";
   p = kk_build(env, vsrc, NULL);
   run_k(env, p, out);
   /* __OPENCL_VERSION__ is the device's version, __OPENCL_C_VERSION__
    * its OpenCL C version by default (kernel_opencl_c_12 covers -cl-std):
    * 300 and 120 on a 3.0 device. */
   char ver[128] = "", cver[128] = "";
   REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_VERSION, sizeof(ver), ver, NULL));
   REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_VERSION, sizeof(cver), cver, NULL));
   int major = 0, minor = 0, cmajor = 0, cminor = 0;
   REQUIRE(sscanf(ver, "OpenCL %d.%d", &major, &minor) == 2, " '%s'", ver);
   REQUIRE(sscanf(cver, "OpenCL C %d.%d", &cmajor, &cminor) == 2, " '%s'", cver);
   CHECK(out[0] == major * 100 + minor * 10, " __OPENCL_VERSION__ %d for '%s'", out[0], ver);
   /* Without -cl-std, the newest OpenCL C 1.x (3.0, 5.8.6.5). */
   int cdefault = cmajor * 100 + cminor * 10 > 120 ? 120 : cmajor * 100 + cminor * 10;
   CHECK(out[1] == cdefault, " __OPENCL_C_VERSION__ %d for '%s'", out[1], cver);
   CHECK(out[2] == 1);
   CHECK(out[4] == 0, " __FAST_RELAXED_MATH__ defined without the option");
   CHECK(out[5] == 100 && out[6] == 110);
   CHECK_OK(clReleaseProgram(p));
   p = kk_build(env, vsrc, "-cl-fast-relaxed-math");
   run_k(env, p, out);
   CHECK(out[4] == 1, " -cl-fast-relaxed-math must define __FAST_RELAXED_MATH__");
   CHECK_OK(clReleaseProgram(p));
}

static void include_dirs(const struct kt_env *env)
{
   char dir[] = "/tmp/kiln-kernel-XXXXXX";
   REQUIRE(mkdtemp(dir));
   char sub[600], path[700], path2[700];
   snprintf(path, sizeof(path), "%s/kiln_test_values.h", dir);
   snprintf(sub, sizeof(sub), "%s/more dir", dir);
   REQUIRE(mkdir(sub, 0700) == 0);
   snprintf(path2, sizeof(path2), "%s/second.h", sub);
   FILE *f = fopen(path, "w");
   REQUIRE(f);
   fputs("#ifndef KILN_TEST_VALUES_H\n#define KILN_TEST_VALUES_H\n"
         "#define HEADER_VALUE 4242\n"
         "int header_fn(int x) { return x * 3 + 1; }\n#endif\n", f);
   fclose(f);
   f = fopen(path2, "w");
   REQUIRE(f);
   fputs("#define SECOND_VALUE 17\n", f);
   fclose(f);

   const char *src = "#include \"kiln_test_values.h\"\n"
                     "#include <second.h>\n"
                     "__kernel void k(__global int *o)\n"
                     "{ int i = get_global_id(0); o[i] = HEADER_VALUE + header_fn(i) + SECOND_VALUE; }\n";
   char opts[1600];
   /* A directory with a space, quoted; the other one glued to -I. */
   snprintf(opts, sizeof(opts), "-I%s -I \"%s\"", dir, sub);
   cl_program p = kk_build(env, src, opts);
   cl_int out[N];
   run_k(env, p, out);
   for (int i = 0; i < N; i++)
      CHECK(out[i] == 4242 + 3 * i + 1 + 17, " out[%d] = %d", i, out[i]);
   CHECK_OK(clReleaseProgram(p));

   /* Without -I the header is not found, and the log says which. */
   cl_program q;
   CHECK_ERR(kk_try_build(env, src, NULL, &q), CL_BUILD_PROGRAM_FAILURE);
   char *log = kk_build_log(q, env->device);
   CHECK(strstr(log, "kiln_test_values.h"), " log does not name the header:\n%s", log);
   CHECK(strstr(log, "input.cl:1:"), " log does not point at line 1:\n%s", log);
   free(log);
   CHECK_OK(clReleaseProgram(q));
   unlink(path2);
   rmdir(sub);
   unlink(path);
   rmdir(dir);
}

/* Same results with and without optimisation, and with the math options
 * (on exact integer arithmetic and exactly representable floats). */
static void optimisation(const struct kt_env *env)
{
   const char *src =
      "int helper(int x) { int s = 0; for (int j = 0; j < x % 17; j++) s += j * x; return s; }\n"
      "__kernel void k(__global int *o)\n"
      "{\n"
      "  int i = get_global_id(0);\n"
      "  float f = (float)i * 0.5f + 0.25f;\n"
      "  o[i] = helper(i) ^ (int)(f * 4.0f) ^ (i << 20);\n"
      "}\n";
   cl_int ref[N], out[N];
   for (int i = 0; i < N; i++) {
      int s = 0;
      for (int j = 0; j < i % 17; j++)
         s += j * i;
      ref[i] = s ^ (int)((i * 0.5f + 0.25f) * 4.0f) ^ (i << 20);
   }
   const char *variants[] = {
      NULL, "-cl-opt-disable", "-cl-fast-relaxed-math",
      "-cl-mad-enable -cl-no-signed-zeros -cl-unsafe-math-optimizations -cl-finite-math-only",
      "-cl-single-precision-constant -cl-denorms-are-zero -cl-strict-aliasing",
      "-cl-std=CL1.1", "-cl-std=CL1.0 -cl-kernel-arg-info",
      "-cl-opt-disable -cl-fast-relaxed-math -w",
   };
   for (size_t v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
      cl_program p;
      cl_int err = kk_try_build(env, src, variants[v], &p);
      if (err != CL_SUCCESS) {
         char *log = kk_build_log(p, env->device);
         KT_FAIL("options \"%s\": %s; log:\n%s", variants[v] ? variants[v] : "(NULL)",
                 kt_err_name(err), log);
         free(log);
         CHECK_OK(clReleaseProgram(p));
         continue;
      }
      run_k(env, p, out);
      for (int i = 0; i < N; i++)
         CHECK(out[i] == ref[i], " options \"%s\": out[%d] = %d, expected %d",
               variants[v] ? variants[v] : "(NULL)", i, out[i], ref[i]);
      CHECK_OK(clReleaseProgram(p));
   }
}

/* A literal conversion warns by default; -w silences it, -Werror makes it
 * fail the build. */
static void warnings(const struct kt_env *env)
{
   const char *src = "__kernel void k(__global int *o)\n"
                     "{\n"
                     "  int x = 3.5f;\n"
                     "  o[get_global_id(0)] = x;\n"
                     "}\n";
   cl_program p;
   cl_int out[N];
   CHECK_OK(kk_try_build(env, src, NULL, &p));
   char *log = kk_build_log(p, env->device);
   CHECK(strstr(log, "input.cl:3:11: warning"),
         " the log of a build with a warning lacks 'input.cl:3:11: warning':\n%s", log);
   free(log);
   run_k(env, p, out);
   CHECK(out[0] == 3);
   CHECK_OK(clReleaseProgram(p));

   CHECK_OK(kk_try_build(env, src, "-w", &p));
   log = kk_build_log(p, env->device);
   CHECK(!strstr(log, "warning"), " -w still logs a warning:\n%s", log);
   free(log);
   CHECK_OK(clReleaseProgram(p));

   CHECK_ERR(kk_try_build(env, src, "-Werror", &p), CL_BUILD_PROGRAM_FAILURE);
   CHECK(kk_build_status(p, env->device) == CL_BUILD_ERROR);
   log = kk_build_log(p, env->device);
   CHECK(strstr(log, "input.cl:3:11: error"), " -Werror log lacks 'input.cl:3:11: error':\n%s",
         log);
   free(log);
   cl_int err = 0;
   CHECK(!clCreateKernel(p, "k", &err));
   CHECK_ERR(err, CL_INVALID_PROGRAM_EXECUTABLE);
   CHECK_OK(clReleaseProgram(p));

   /* Correct code builds with -Werror and logs no warning, including code
    * with 256- and 512-bit vector types (float8, ulong4, int16). */
   const char *wide = "__kernel void k(__global int *o)\n"
                      "{\n"
                      "  size_t i = get_global_id(0);\n"
                      "  float8 f = (float8)(i) * 0.5f;\n"
                      "  ulong4 u = (ulong4)(i) << 2;\n"
                      "  int16 v = vload16(0, o) + 1;\n"
                      "  o[i] = (int)(f.s7 * 4.0f) + (int)u.w + v.sf;\n"
                      "}\n";
   cl_int err2 = kk_try_build(env, wide, NULL, &p);
   CHECK_OK(err2);
   log = kk_build_log(p, env->device);
   /* The front end is not told the CPU's features, so Clang warns
    * "AVX vector return of type ... without 'avx' enabled changes the ABI
    * [-Wpsabi]" for every 256/512-bit vector passed to or returned from a
    * function (builtins included). */
   CHECK(!strstr(log, "warning"), "a clean kernel using float8/ulong4/int16 logs warnings: "
             "%.160s...", log);
   free(log);
   CHECK_OK(clReleaseProgram(p));
   err2 = kk_try_build(env, wide, "-Werror", &p);
   CHECK(err2 == CL_SUCCESS, "a correct kernel using float8/ulong4/int16 fails to build "
             "with -Werror: %s (-Wpsabi)", kt_err_name(err2));
   CHECK_OK(clReleaseProgram(p));

   /* -w wins over -Werror for warnings that are not emitted at all. */
   CHECK_OK(kk_try_build(env, src, "-w -Werror", &p));
   CHECK_OK(clReleaseProgram(p));
}

static void invalid_options(const struct kt_env *env)
{
   const char *src = "__kernel void k(__global int *o) { o[0] = 1; }";
   const char *bad[] = {
      "-cl-no-such-option", "-O2", "--help", "-cl-std=CL2.2", "-cl-std=CL9.9", "-D",
      "-I", "-D 1BAD=2", "-DA=1 -cl-bogus", "\"-DA=1", "-x c++", "-cl-opt-disable=1",
   };
   for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
      cl_program p;
      cl_int err = kk_try_build(env, src, bad[i], &p);
      CHECK(err == CL_INVALID_BUILD_OPTIONS, " options '%s': %s, expected CL_INVALID_BUILD_OPTIONS",
            bad[i], kt_err_name(err));
      char *log = kk_build_log(p, env->device);
      CHECK(strlen(log) > 5, " options '%s': no reason in the build log ('%s')", bad[i], log);
      free(log);
      cl_build_status st = kk_build_status(p, env->device);
      CHECK(st == CL_BUILD_ERROR || st == CL_BUILD_NONE, " options '%s': status %d", bad[i], st);
      cl_int e2 = 0;
      CHECK(!clCreateKernel(p, "k", &e2));
      /* The same program builds with good options afterwards. */
      if (i == 0) {
         CHECK_OK(clBuildProgram(p, 0, NULL, "-cl-mad-enable", NULL, NULL));
         CHECK(kk_build_status(p, env->device) == CL_BUILD_SUCCESS);
      }
      CHECK_OK(clReleaseProgram(p));
   }
   /* The log names the unknown option. */
   cl_program p;
   CHECK_ERR(kk_try_build(env, src, "-cl-fast -cl-kiln-unknown-xyz", &p),
             CL_INVALID_BUILD_OPTIONS);
   char *log = kk_build_log(p, env->device);
   CHECK(strstr(log, "-cl-fast"), " log does not name the bad option: '%s'", log);
   free(log);
   CHECK_OK(clReleaseProgram(p));
}

/* -cl-denorms-are-zero: Kiln's devices flush single-precision denormals
 * (on the CPU device through MXCSR's FTZ and DAZ bits for the kernel's
 * run); without the option a device reporting CL_FP_DENORM keeps them,
 * also right after a flushing kernel ran (the bits are restored). */
static void denormals(const struct kt_env *env)
{
   static const char *src = "__kernel void k(__global uint *o, __global const float *in)\n"
                            "{\n"
                            "  int i = get_global_id(0);\n"
                            "  o[i] = as_uint(in[i] + as_float(64));\n"
                            "}\n";
   cl_device_fp_config fp = 0;
   CHECK_OK(clGetDeviceInfo(env->device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof(fp), &fp, NULL));
   /* 0, a denormal, 1 */
   static const cl_uint in_bits[3] = {0, 32, 0x3f800000};
   cl_mem in = kk_buffer_in(env, sizeof(in_bits), in_bits);
   for (int round = 0; round < 4; round++) {
      bool flush = !(round & 1);
      cl_program p = kk_build(env, src, flush ? "-cl-denorms-are-zero" : NULL);
      cl_kernel k = kk_kernel(p, "k");
      cl_mem out = kk_buffer_in(env, sizeof(in_bits), NULL);
      KK_ARG(k, 0, out);
      KK_ARG(k, 1, in);
      size_t n = 3;
      KK_RUN(env, k, 1, NULL, &n, NULL);
      cl_uint got[3];
      kk_read(env, out, sizeof(got), got);
      if (flush) {
         CHECK(got[0] == 0 && got[1] == 0, "-cl-denorms-are-zero: 0 + 64 = 0x%x, 32 + 64 = 0x%x, "
                                           "expected 0 and 0", got[0], got[1]);
      } else if (fp & CL_FP_DENORM) {
         CHECK(got[0] == 64 && got[1] == 96, "without the option: 0 + 64 = 0x%x, 32 + 64 = 0x%x, "
                                             "expected 0x40 and 0x60", got[0], got[1]);
      }
      CHECK(got[2] == 0x3f800000, "1 + a denormal = 0x%x", got[2]);
      CHECK_OK(clReleaseMemObject(out));
      CHECK_OK(clReleaseKernel(k));
      CHECK_OK(clReleaseProgram(p));
   }
   CHECK_OK(clReleaseMemObject(in));
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   defines(&env);
   include_dirs(&env);
   optimisation(&env);
   warnings(&env);
   invalid_options(&env);
   denormals(&env);
   kt_teardown(&env);
   return kt_result();
}
