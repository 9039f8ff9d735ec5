/* OpenCL C built for an NVIDIA GPU through clBuildProgram, over the fake
 * libcuda (as test_cuda_cl.c): the device's caps name the nvptx target,
 * the PTX handed to cuModuleLoadDataEx holds the kernel's .entry with the
 * parameter list of nvptx_abi.h, a launch passes what that ABI says, and
 * a program built twice hits the compile cache the second time (read
 * from its KILN_DEBUG=compile lines, as test_amdgpu_cache.c does).  The
 * fake cannot run PTX: the kernel's work is a host function over the
 * launch's recorded parameters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <CL/cl.h>

#include "fake_cuda.h"
#include "fake_cuda_cl.h"

static cl_device_id device;
static char root[64];
static char log_path[128];

static const char *source =
   "__kernel void scale(__global float *p, float f) { p[get_global_id(0)] *= f; }\n";

/* What scale() does, from the parameters nvptx_abi.h lays out: p, f,
 * then global offset x, y, z and work_dim. */
static void run_scale(const struct fake_cuda_launch *l)
{
   uint64_t p, offset[3];
   float f;
   uint32_t dim;
   fake_cuda_param(l, 0, &p, sizeof(p));
   fake_cuda_param(l, 1, &f, sizeof(f));
   for (unsigned d = 0; d < 3; d++)
      fake_cuda_param(l, 2 + d, &offset[d], sizeof(offset[d]));
   fake_cuda_param(l, 5, &dim, sizeof(dim));
   assert_int_equal(dim, 1);
   size_t n = (size_t)l->grid[0] * l->block[0];
   float *data = fake_cuda_ptr(p + offset[0] * sizeof(float), n * sizeof(float));
   assert_non_null(data);
   for (size_t i = 0; i < n; i++)
      data[i] *= f;
}

static int count(const char *text, const char *what)
{
   int n = 0;
   for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
      n++;
   return n;
}

struct counts {
   int hits, misses, stored;
};

static struct counts read_counts(void)
{
   struct counts c = {0};
   FILE *f = fopen(log_path, "rb");
   if (!f)
      return c;
   static char text[1 << 20];
   size_t n = fread(text, 1, sizeof(text) - 1, f);
   text[n] = 0;
   fclose(f);
   c.hits = count(text, "cache: hit ");
   c.misses = count(text, "cache: miss ");
   c.stored = count(text, "cache: stored ");
   return c;
}

/* clBuildProgram for the device, printing the log when it fails. */
static cl_int build(cl_program p)
{
   cl_int err = clBuildProgram(p, 1, &device, "", NULL, NULL);
   if (err) {
      char log[8192] = "";
      clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
      fprintf(stderr, "%s\n", log);
   }
   return err;
}

/* Builds source in a fresh context, runs scale over 256 floats with a
 * global offset of 64 and checks the result. */
static void build_and_run(void)
{
   cl_int err;
   cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   cl_program p = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   unsigned loads = fake_cuda.modules_loaded;
   assert_int_equal(build(p), CL_SUCCESS);
   /* The PTX the driver was given: the kernel's entry, its two
    * arguments and the four hidden parameters, for the device's sm. */
   assert_int_equal(fake_cuda.modules_loaded, loads + 1);
   const char *ptx = fake_cuda.last_module;
   assert_non_null(ptx);
   assert_non_null(strstr(ptx, ".target sm_90"));
   assert_non_null(strstr(ptx, ".entry scale("));
   assert_non_null(strstr(ptx, "scale_param_5"));
   assert_null(strstr(ptx, "scale_param_6"));

   cl_kernel k = clCreateKernel(p, "scale", &err);
   assert_int_equal(err, CL_SUCCESS);
   cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
   assert_int_equal(err, CL_SUCCESS);
   enum { N = 256 };
   float data[N];
   for (int i = 0; i < N; i++)
      data[i] = (float)i;
   cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(data),
                               data, &err);
   assert_int_equal(err, CL_SUCCESS);
   float f = 3.0f;
   assert_int_equal(clSetKernelArg(k, 0, sizeof(buf), &buf), CL_SUCCESS);
   assert_int_equal(clSetKernelArg(k, 1, sizeof(f), &f), CL_SUCCESS);
   size_t offset = 64, global = N - 64, local = 64;
   assert_int_equal(clEnqueueNDRangeKernel(q, k, 1, &offset, &global, &local, 0, NULL, NULL),
                    CL_SUCCESS);
   assert_int_equal(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof(data), data, 0, NULL, NULL),
                    CL_SUCCESS);
   for (int i = 0; i < N; i++)
      assert_true(data[i] == (i < 64 ? (float)i : 3.0f * (float)i));
   clReleaseMemObject(buf);
   clReleaseCommandQueue(q);
   clReleaseKernel(k);
   clReleaseProgram(p);
   clReleaseContext(ctx);
}

static void test_device_compiles(void **state)
{
   (void)state;
   cl_bool compiler;
   assert_int_equal(
      clGetDeviceInfo(device, CL_DEVICE_COMPILER_AVAILABLE, sizeof(compiler), &compiler, NULL),
      CL_SUCCESS);
   assert_int_equal(compiler, CL_TRUE);
   /* The extensions the compiler builds and the driver runs. */
   char ext[2048];
   assert_int_equal(clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, sizeof(ext), ext, NULL),
                    CL_SUCCESS);
   assert_non_null(strstr(ext, "cl_khr_fp64"));
   assert_non_null(strstr(ext, "cl_khr_int64_base_atomics"));
   assert_non_null(strstr(ext, "cl_khr_int64_extended_atomics"));
}

/* The extensions reach the front end: the macros exist, 64-bit atomics
 * and doubles compile. */
static void test_extensions_in_kernels(void **state)
{
   (void)state;
   const char *src =
      "#if !defined(cl_khr_fp64) || !defined(cl_khr_int64_base_atomics) || \\\n"
      "    !defined(cl_khr_int64_extended_atomics) || !defined(cl_khr_byte_addressable_store)\n"
      "#error extension macro missing\n"
      "#endif\n"
      "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
      "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
      "#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\n"
      "__kernel void ext(__global double *d, __global long *c)\n"
      "{ d[get_global_id(0)] *= 2.0; atom_add(c, 1L); atom_max(c + 1, (long)get_global_id(0)); }\n";
   cl_int err;
   cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   static const unsigned sizes[] = {8, 8, 8, 8, 8, 4};
   fake_cuda_define_kernel("ext", 6, sizes, NULL);
   assert_int_equal(build(p), CL_SUCCESS);
   assert_non_null(strstr(fake_cuda.last_module, "atom.global.add.u64"));
   assert_non_null(strstr(fake_cuda.last_module, "atom.global.max.s64"));
   clReleaseProgram(p);
   clReleaseContext(ctx);
}

/* Kiln's own float exp/log/sin/cos/pow/rsqrt (math_nvptx.cl) replace
 * libclc's, scalar and vector; exp2 and rsqrt are PTX's approximations
 * (refined), sin and cos reduce in double.  tgamma, double and float
 * (which goes through the double one), is Kiln's (math_tgamma_f64.h):
 * its coefficient table is in the PTX, and libclc's (exp of its lgamma,
 * whose polynomials have 0.0772156649015328655 = 0d3FB3C467E37DB0C8 for
 * a constant term) is not. */
static void test_math_replacements(void **state)
{
   (void)state;
   const char *src =
      "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
      "__kernel void fm(__global float4 *v, __global float *f, __global double *d)\n"
      "{ size_t i = get_global_id(0); float x = f[i]; float4 y = v[i];\n"
      "  f[i] = sin(x) + cos(x) + exp(x) + exp2(x) + exp10(x) + log(x) + log2(x) + log10(x)\n"
      "       + pow(x, 1.5f) + rsqrt(x) + tgamma(x) + erfc(x);\n"
      "  v[i] = sin(y) + exp2(y) + pow(y, y) + rsqrt(y) + tgamma(y);\n"
      "  d[i] = tgamma(d[i]) + tgamma((double2)(d[i + 1], d[i + 2])).y; }\n";
   cl_int err;
   cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   static const unsigned sizes[] = {8, 8, 8, 8, 8, 8, 4};
   fake_cuda_define_kernel("fm", 7, sizes, NULL);
   assert_int_equal(build(p), CL_SUCCESS);
   const char *ptx = fake_cuda.last_module;
   assert_non_null(strstr(ptx, "ex2.approx.ftz.f32"));
   assert_non_null(strstr(ptx, "rsqrt.approx.ftz.f32"));
   assert_non_null(strstr(ptx, "cvt.rni.f64.f64"));
   assert_non_null(strstr(ptx, "km_tgamma_coef"));
   assert_null(strstr(ptx, "0d3FB3C467E37DB0C8"));
   clReleaseProgram(p);
   clReleaseContext(ctx);
}

/* Image functions become texture and surface instructions on the
 * handles of the image argument (struct kiln_image_hw), with the
 * software path beside them for images without a CUDA array. */
static void test_image_instructions(void **state)
{
   (void)state;
   const char *src =
      "#pragma OPENCL EXTENSION cl_khr_3d_image_writes : enable\n"
      "const sampler_t near = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP |\n"
      "                       CLK_FILTER_NEAREST;\n"
      "__kernel void img(read_only image2d_t a, sampler_t s, write_only image2d_t b,\n"
      "                  read_only image1d_array_t c, read_only image3d_t d,\n"
      "                  write_only image3d_t e, read_only image2d_array_t f)\n"
      "{\n"
      "   int2 i = (int2)(get_global_id(0), get_global_id(1));\n"
      "   float4 v = read_imagef(a, s, (float2)(i.x * 0.5f, i.y * 0.5f));\n"
      "   v += read_imagef(a, near, i);\n"
      "   v += convert_float4(read_imageui(c, s, (float2)(i.x, 1.0f)));\n"
      "   v += read_imagef(d, s, (float4)(0.5f, 0.5f, 0.5f, 0.0f));\n"
      "   v += convert_float4(read_imagei(f, s, (float4)(0.5f, 0.5f, 1.0f, 0.0f)));\n"
      "   write_imagef(b, i, v);\n"
      "   write_imageui(e, (int4)(i, 1, 0), as_uint4(v));\n"
      "}\n";
   cl_int err;
   cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   static const unsigned sizes[] = {8, 4, 8, 8, 8, 8, 8, 8, 8, 8, 4};
   fake_cuda_define_kernel("img", 11, sizes, NULL);
   assert_int_equal(build(p), CL_SUCCESS);
   const char *ptx = fake_cuda.last_module;
   assert_non_null(strstr(ptx, "tex.2d.v4.f32.f32"));
   assert_non_null(strstr(ptx, "tex.a1d.v4.u32.f32"));
   assert_non_null(strstr(ptx, "tex.3d.v4.f32.f32"));
   assert_non_null(strstr(ptx, "tex.a2d.v4.s32.f32"));
   assert_non_null(strstr(ptx, "sust.b.2d."));
   assert_non_null(strstr(ptx, "sust.b.3d."));
   clReleaseProgram(p);
   clReleaseContext(ctx);
}

static void test_second_build_hits(void **state)
{
   (void)state;
   struct counts c0 = read_counts();
   build_and_run();
   struct counts c1 = read_counts();
   assert_int_equal(c1.misses - c0.misses, 1);
   assert_int_equal(c1.stored - c0.stored, 1);
   assert_int_equal(c1.hits - c0.hits, 0);
   char *first = strdup(fake_cuda.last_module);
   assert_non_null(first);
   build_and_run();
   struct counts c2 = read_counts();
   assert_int_equal(c2.hits - c1.hits, 1);
   assert_int_equal(c2.misses - c1.misses, 0);
   assert_int_equal(c2.stored - c1.stored, 0);
   /* The cached PTX is the built PTX. */
   assert_string_equal(fake_cuda.last_module, first);
   free(first);
}

/* A program's binary (clGetProgramInfo) makes a program again on the
 * same device: clCreateProgramWithBinary, clBuildProgram, a kernel; with
 * a __local argument, whose slot holds a 32-bit shared-memory offset on
 * NVIDIA GPUs (the binary reader refused that, CL_INVALID_BINARY on the
 * H200). */
static void test_binary_round_trip(void **state)
{
   (void)state;
   cl_int err;
   cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   const char *src = "__kernel void loc(__global float *p, __local float *t)\n"
                     "{ t[get_local_id(0)] = p[get_global_id(0)]; barrier(CLK_LOCAL_MEM_FENCE);\n"
                     "  p[get_global_id(0)] = t[0]; }\n";
   static const unsigned sizes[] = {8, 4, 8, 8, 8, 4};
   fake_cuda_define_kernel("loc", 6, sizes, NULL);
   cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_int_equal(clBuildProgram(p, 1, &device, "", NULL, NULL), CL_SUCCESS);
   size_t size = 0;
   assert_int_equal(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, NULL),
                    CL_SUCCESS);
   assert_true(size > 0);
   unsigned char *bin = malloc(size);
   assert_non_null(bin);
   assert_int_equal(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL),
                    CL_SUCCESS);
   const unsigned char *cbin = bin;
   cl_int status = -1;
   cl_program q = clCreateProgramWithBinary(ctx, 1, &device, &size, &cbin, &status, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_int_equal(status, CL_SUCCESS);
   assert_int_equal(clBuildProgram(q, 1, &device, "", NULL, NULL), CL_SUCCESS);
   cl_kernel k = clCreateKernel(q, "loc", &err);
   assert_int_equal(err, CL_SUCCESS);
   clReleaseKernel(k);
   clReleaseProgram(q);
   clReleaseProgram(p);
   free(bin);
   clReleaseContext(ctx);
}

int main(void)
{
   snprintf(root, sizeof(root), "/tmp/kiln-cuda-build-XXXXXX");
   if (!mkdtemp(root)) {
      perror("mkdtemp");
      return 1;
   }
   char cache[128];
   snprintf(cache, sizeof(cache), "%s/cache", root);
   snprintf(log_path, sizeof(log_path), "%s/log", root);
   /* Read at the first build and the first log line, both still to come. */
   setenv("KILN_CACHE_DIR", cache, 1);
   setenv("KILN_DEBUG", "compile", 1);
   setenv("KILN_LOG", log_path, 1);
   setenv("KILN_DEVICES", "cuda", 1);
   unsetenv("KILN_CACHE");
   unsetenv("KILN_CACHE_SIZE");
   unsetenv("KILN_DUMP");

   if (fake_cuda_cl_open(1, NULL, &device, 1)) /* one H100: sm_90 */
      return 1;
   static const unsigned sizes[] = {8, 4, 8, 8, 8, 4};
   fake_cuda_define_kernel("scale", 6, sizes, run_scale);
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_device_compiles),
      cmocka_unit_test(test_extensions_in_kernels),
      cmocka_unit_test(test_image_instructions),
      cmocka_unit_test(test_math_replacements),
      cmocka_unit_test(test_second_build_hits),
      cmocka_unit_test(test_binary_round_trip),
   };
   int failed = cmocka_run_group_tests(tests, NULL, NULL);
   char cmd[128];
   snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
   if (!failed && system(cmd) != 0)
      fprintf(stderr, "could not remove %s\n", root);
   return failed;
}
