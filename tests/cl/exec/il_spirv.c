/* IL programs (clCreateProgramWithIL, cl_khr_il_program) on the CPU device:
 * SPIR-V modules assembled from tests/cl/exec/spirv/ at build time.
 *
 *   exec_il_spirv [--expect-il] <il_kernels.spv> <il_spec.spv> <il_rw_images.spv>
 *                                                   the device takes IL
 *   exec_il_spirv --absent                          run with KILN_LLVM_SPIRV
 *                                                   naming no program: none
 *   exec_il_spirv --no-spirv-as                     skips (77): no assembler
 *
 * Where the device reports no IL: a failure with --expect-il (meson found
 * the translator when the tests were configured), else a skip (77) with
 * its reason. */
#define CL_TARGET_OPENCL_VERSION 300
#include "kt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *read_all(const char *path, size_t *size)
{
   FILE *f = fopen(path, "rb");
   if (!f)
      KT_DIE("cannot open %s", path);
   fseek(f, 0, SEEK_END);
   long n = ftell(f);
   fseek(f, 0, SEEK_SET);
   void *data = malloc((size_t)n);
   if (!data || fread(data, 1, (size_t)n, f) != (size_t)n)
      KT_DIE("cannot read %s", path);
   fclose(f);
   *size = (size_t)n;
   return data;
}

static char *device_string(cl_device_id d, cl_device_info p)
{
   size_t n = 0;
   REQUIRE_OK(clGetDeviceInfo(d, p, 0, NULL, &n));
   char *s = malloc(n + 1);
   REQUIRE_OK(clGetDeviceInfo(d, p, n, s, NULL));
   s[n] = 0;
   return s;
}

static char *build_log(cl_program p, cl_device_id d)
{
   size_t n = 0;
   clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
   char *s = calloc(1, n + 1);
   clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, n, s, NULL);
   return s;
}

/* Without a translator: no IL anywhere, and 3.0's answers. */
static void absent(struct kt_env *e)
{
   char *il = device_string(e->device, CL_DEVICE_IL_VERSION);
   CHECK(!il[0], "CL_DEVICE_IL_VERSION \"%s\"", il);
   size_t n = 99;
   CHECK_OK(clGetDeviceInfo(e->device, CL_DEVICE_ILS_WITH_VERSION, 0, NULL, &n));
   CHECK(n == 0);
   char *ext = device_string(e->device, CL_DEVICE_EXTENSIONS);
   CHECK(!strstr(ext, "cl_khr_il_program"), "%s", ext);
   cl_uint word[5] = {0x07230203, 0x00010000, 0, 1, 0};
   cl_int err;
   cl_program p = clCreateProgramWithIL(e->context, word, sizeof(word), &err);
   CHECK(!p && err == CL_INVALID_OPERATION, "%s", kt_err_name(err));
   free(il);
   free(ext);
}

static cl_program build_il(struct kt_env *e, const void *il, size_t size, const char *options)
{
   cl_int err;
   cl_program p = clCreateProgramWithIL(e->context, il, size, &err);
   REQUIRE(p && err == CL_SUCCESS, "clCreateProgramWithIL: %s", kt_err_name(err));
   err = clBuildProgram(p, 1, &e->device, options, NULL, NULL);
   if (err) {
      char *log = build_log(p, e->device);
      KT_DIE("clBuildProgram: %s\n%s", kt_err_name(err), log);
   }
   return p;
}

/* reverse: global ids, a __local argument, a barrier, sqrt. */
static void run_reverse(struct kt_env *e, cl_program p)
{
   enum { N = 64, L = 16 };
   float in[N], out[N];
   for (int i = 0; i < N; i++)
      in[i] = (float)(i * i);
   cl_int err;
   cl_kernel k = clCreateKernel(p, "reverse", &err);
   REQUIRE(k && !err, "clCreateKernel: %s", kt_err_name(err));
   cl_mem bin = kt_buffer(e->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(in), in);
   cl_mem bout = kt_buffer(e->context, CL_MEM_WRITE_ONLY, sizeof(out), NULL);
   CHECK_OK(clSetKernelArg(k, 0, sizeof(cl_mem), &bout));
   CHECK_OK(clSetKernelArg(k, 1, sizeof(cl_mem), &bin));
   CHECK_OK(clSetKernelArg(k, 2, L * sizeof(float), NULL));
   size_t global = N, local = L;
   CHECK_OK(clEnqueueNDRangeKernel(e->queue, k, 1, NULL, &global, &local, 0, NULL, NULL));
   CHECK_OK(clEnqueueReadBuffer(e->queue, bout, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL));
   for (int i = 0; i < N; i++) {
      int mirror = i / L * L + (L - 1 - i % L);
      CHECK(out[i] == (float)mirror, "out[%d] = %g, expected %d", i, out[i], mirror);
   }
   /* The argument kinds come from the module (the __local one is local);
    * names only from source built with -cl-kernel-arg-info (3.0, 5.9.3). */
   cl_kernel_arg_address_qualifier aq = 0;
   CHECK_OK(clGetKernelArgInfo(k, 2, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(aq), &aq, NULL));
   CHECK(aq == CL_KERNEL_ARG_ADDRESS_LOCAL, "0x%x", (unsigned)aq);
   char name[64];
   cl_int ai = clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_TYPE_NAME, sizeof(name), name, NULL);
   CHECK(ai == CL_KERNEL_ARG_INFO_NOT_AVAILABLE, "%s", kt_err_name(ai));
   clReleaseMemObject(bin);
   clReleaseMemObject(bout);
   clReleaseKernel(k);
}

/* vec and wide: builtins whose names or signatures differ between SPIR
 * and x86-64 (spirv_module.c). */
static void run_vec(struct kt_env *e, cl_program p)
{
   enum { N = 16 };
   float out[4 * N], wide[8 * N];
   for (int i = 0; i < 8 * N; i++)
      wide[i] = (float)(i * i);
   cl_int err;
   cl_kernel k = clCreateKernel(p, "vec", &err);
   REQUIRE(k && !err, "clCreateKernel: %s", kt_err_name(err));
   cl_kernel w = clCreateKernel(p, "wide", &err);
   REQUIRE(w && !err, "clCreateKernel: %s", kt_err_name(err));
   cl_mem b = kt_buffer(e->context, CL_MEM_WRITE_ONLY, sizeof(out), NULL);
   cl_mem bw = kt_buffer(e->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(wide),
                         wide);
   CHECK_OK(clSetKernelArg(k, 0, sizeof(cl_mem), &b));
   CHECK_OK(clSetKernelArg(w, 0, sizeof(cl_mem), &bw));
   size_t global = N;
   CHECK_OK(clEnqueueNDRangeKernel(e->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL));
   CHECK_OK(clEnqueueNDRangeKernel(e->queue, w, 1, NULL, &global, NULL, 0, NULL, NULL));
   CHECK_OK(clEnqueueReadBuffer(e->queue, b, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL));
   CHECK_OK(clEnqueueReadBuffer(e->queue, bw, CL_TRUE, 0, sizeof(wide), wide, 0, NULL, NULL));
   for (int g = 0; g < N; g++) {
      const float *o = out + 4 * g;
      CHECK(fabsf(o[0] - sqrtf((float)g)) <= 1e-6f * (1 + o[0]), "sqrt.x %d: %g", g, o[0]);
      CHECK(fabsf(o[1] - sqrtf((float)g + 1)) <= 1e-6f * (1 + o[1]), "sqrt.y %d: %g", g, o[1]);
      CHECK(o[2] == (float)(g % 4) / 4, "fract %d: %g", g, o[2]);
      CHECK(o[3] == (float)(g / 4), "fract's whole part %d: %g", g, o[3]);
   }
   for (int i = 0; i < 8 * N; i++)
      CHECK(wide[i] == (float)i, "sqrt of float8, element %d: %g", i, wide[i]);
   clReleaseMemObject(b);
   clReleaseMemObject(bw);
   clReleaseKernel(k);
   clReleaseKernel(w);
}

/* rw: a read_write image read, fenced and written by each work-item
 * (OpImageRead/OpImageWrite on an image of access ReadWrite), where the
 * device has read-write images (Kiln's CPU device); elsewhere the
 * module needs a capability the device lacks and is not run. */
static void run_rw_image(struct kt_env *e, const char *path)
{
   cl_uint max_rw = kt_device_uint(e->device, CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS);
   cl_device_type type = 0;
   CHECK_OK(clGetDeviceInfo(e->device, CL_DEVICE_TYPE, sizeof(type), &type, NULL));
   CHECK(max_rw || !(type & CL_DEVICE_TYPE_CPU), "the CPU device has no read-write images");
   if (!max_rw)
      return;
   enum { W = 4, H = 8 };
   cl_uint texels[H][W][4], out[H][W][4];
   for (cl_uint i = 0; i < W * H * 4; i++)
      (&texels[0][0][0])[i] = i * 2654435761u;
   const cl_image_format fmt = {CL_RGBA, CL_UNSIGNED_INT32};
   cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = W,
                         .image_height = H};
   cl_int err;
   cl_mem img = clCreateImage(e->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, &fmt, &desc,
                              texels, &err);
   REQUIRE(img && !err, "clCreateImage: %s", kt_err_name(err));
   size_t size;
   void *il = read_all(path, &size);
   cl_program p = build_il(e, il, size, NULL);
   cl_kernel k = clCreateKernel(p, "rw", &err);
   REQUIRE(k && !err, "clCreateKernel: %s", kt_err_name(err));
   CHECK_OK(clSetKernelArg(k, 0, sizeof(img), &img));
   size_t global[2] = {W, H}, origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
   CHECK_OK(clEnqueueNDRangeKernel(e->queue, k, 2, NULL, global, NULL, 0, NULL, NULL));
   CHECK_OK(clEnqueueReadImage(e->queue, img, CL_TRUE, origin, region, 0, 0, out, 0, NULL,
                               NULL));
   for (cl_uint i = 0; i < W * H * 4; i++)
      CHECK((&out[0][0][0])[i] == (&texels[0][0][0])[i] + 3, "channel %u: %u, expected %u", i,
            (&out[0][0][0])[i], (&texels[0][0][0])[i] + 3);
   clReleaseKernel(k);
   clReleaseProgram(p);
   clReleaseMemObject(img);
   free(il);
}

static cl_uint run_spec(struct kt_env *e, cl_program p, cl_ulong *wide)
{
   cl_int err;
   cl_kernel k = clCreateKernel(p, "spec", &err);
   REQUIRE(k && !err, "clCreateKernel: %s", kt_err_name(err));
   cl_uint v = 0;
   cl_mem b = kt_buffer(e->context, CL_MEM_WRITE_ONLY, sizeof(v), NULL);
   cl_mem bw = kt_buffer(e->context, CL_MEM_WRITE_ONLY, sizeof(*wide), NULL);
   CHECK_OK(clSetKernelArg(k, 0, sizeof(cl_mem), &b));
   CHECK_OK(clSetKernelArg(k, 1, sizeof(cl_mem), &bw));
   size_t one = 1;
   CHECK_OK(clEnqueueNDRangeKernel(e->queue, k, 1, NULL, &one, NULL, 0, NULL, NULL));
   CHECK_OK(clEnqueueReadBuffer(e->queue, b, CL_TRUE, 0, sizeof(v), &v, 0, NULL, NULL));
   CHECK_OK(clEnqueueReadBuffer(e->queue, bw, CL_TRUE, 0, sizeof(*wide), wide, 0, NULL, NULL));
   clReleaseMemObject(b);
   clReleaseMemObject(bw);
   clReleaseKernel(k);
   return v;
}

static void present(struct kt_env *e, bool expect, const char *kernels_path,
                    const char *spec_path, const char *rw_path)
{
   char *il_version = device_string(e->device, CL_DEVICE_IL_VERSION);
   /* Kiln takes IL on its CPU device only, and only where the translator
    * is installed: --expect-il says it was where the tests were built,
    * which need not be where they run (the GPU machine has none). */
   cl_device_type type = 0;
   CHECK_OK(clGetDeviceInfo(e->device, CL_DEVICE_TYPE, sizeof(type), &type, NULL));
   if (!(type & CL_DEVICE_TYPE_CPU) ||
       (!getenv("KILN_LLVM_SPIRV") && access("/usr/bin/llvm-spirv-15", X_OK) &&
        access("/usr/bin/llvm-spirv-14", X_OK)))
      expect = false;
   if (!il_version[0] && expect)
      KT_DIE("the device takes no IL, yet the SPIR-V translator is installed");
   if (!il_version[0]) {
      printf("SKIP: the device takes no IL (is llvm-spirv-15 installed? docs/env.md)\n");
      free(il_version);
      kt_teardown(e);
      exit(77);
   }
   CHECK(!strncmp(il_version, "SPIR-V_1.0", 10), "\"%s\"", il_version);
   size_t n = 0;
   CHECK_OK(clGetDeviceInfo(e->device, CL_DEVICE_ILS_WITH_VERSION, 0, NULL, &n));
   CHECK(n >= sizeof(cl_name_version));
   cl_name_version ils[8];
   if (n <= sizeof(ils) && n) {
      CHECK_OK(clGetDeviceInfo(e->device, CL_DEVICE_ILS_WITH_VERSION, n, ils, NULL));
      CHECK(!strcmp(ils[0].name, "SPIR-V") && ils[0].version == CL_MAKE_VERSION(1, 0, 0),
            "%s %u", ils[0].name, ils[0].version);
   }
   char *ext = device_string(e->device, CL_DEVICE_EXTENSIONS);
   CHECK(strstr(ext, "cl_khr_il_program"), "%s", ext);
   CHECK(clGetExtensionFunctionAddressForPlatform(e->platform, "clCreateProgramWithILKHR"));

   size_t size, spec_size;
   void *il = read_all(kernels_path, &size);
   void *spec_il = read_all(spec_path, &spec_size);

   /* Errors: nothing, and bytes that are no SPIR-V. */
   cl_int err;
   cl_program bad = clCreateProgramWithIL(e->context, NULL, size, &err);
   CHECK(!bad && err == CL_INVALID_VALUE, "%s", kt_err_name(err));
   bad = clCreateProgramWithIL(e->context, il, 0, &err);
   CHECK(!bad && err == CL_INVALID_VALUE, "%s", kt_err_name(err));
   static const char garbage[] = "__kernel void k(void) {}   ";
   bad = clCreateProgramWithIL(e->context, garbage, sizeof(garbage) - 1, &err);
   CHECK(!bad && err == CL_INVALID_VALUE, "%s", kt_err_name(err));
   /* A SPIR-V header and nothing the translator can read: the build
    * fails with the translator's words in the log. */
   cl_uint header_only[8] = {0x07230203, 0x00010000, 0, 1, 0, 0xffffffff, 0xffffffff, 0};
   bad = clCreateProgramWithIL(e->context, header_only, sizeof(header_only), &err);
   CHECK(bad && err == CL_SUCCESS, "%s", kt_err_name(err));
   if (bad) {
      CHECK_ERR(clBuildProgram(bad, 1, &e->device, NULL, NULL, NULL), CL_BUILD_PROGRAM_FAILURE);
      char *log = build_log(bad, e->device);
      CHECK(strstr(log, "llvm-spirv"), "log: %s", log);
      free(log);
      clReleaseProgram(bad);
   }

   /* Build and run. */
   cl_program p = build_il(e, il, size, NULL);
   size_t got = 0;
   CHECK_OK(clGetProgramInfo(p, CL_PROGRAM_IL, 0, NULL, &got));
   CHECK(got == size, "CL_PROGRAM_IL: %zu bytes of %zu", got, size);
   void *back = malloc(size);
   CHECK_OK(clGetProgramInfo(p, CL_PROGRAM_IL, size, back, NULL));
   CHECK(!memcmp(back, il, size));
   free(back);
   char src[4] = "x";
   CHECK_OK(clGetProgramInfo(p, CL_PROGRAM_SOURCE, sizeof(src), src, &got));
   CHECK(got == 1 && !src[0]);
   run_reverse(e, p);
   run_vec(e, p);

   /* The program's binary runs without the IL. */
   size_t bin_size = 0;
   CHECK_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(bin_size), &bin_size, NULL));
   unsigned char *bin = malloc(bin_size);
   CHECK_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL));
   cl_int st;
   cl_program from_bin = clCreateProgramWithBinary(e->context, 1, &e->device, &bin_size,
                                                   (const unsigned char **)&bin, &st, &err);
   REQUIRE(from_bin && !err, "%s", kt_err_name(err));
   CHECK_OK(clBuildProgram(from_bin, 1, &e->device, NULL, NULL, NULL));
   run_reverse(e, from_bin);
   clReleaseProgram(from_bin);
   free(bin);
   clReleaseProgram(p);

   /* Compiler options that apply to IL are taken. */
   p = build_il(e, il, size, "-cl-fast-relaxed-math -cl-uniform-work-group-size");
   run_reverse(e, p);
   clReleaseProgram(p);

   /* clCompileProgram and clLinkProgram of IL. */
   p = clCreateProgramWithIL(e->context, il, size, &err);
   REQUIRE(p && !err, "%s", kt_err_name(err));
   CHECK_OK(clCompileProgram(p, 1, &e->device, NULL, 0, NULL, NULL, NULL, NULL));
   cl_program linked = clLinkProgram(e->context, 1, &e->device, NULL, 1, &p, NULL, NULL, &err);
   REQUIRE(linked && !err, "clLinkProgram: %s", kt_err_name(err));
   run_reverse(e, linked);
   clReleaseProgram(linked);
   clReleaseProgram(p);

   /* Specialization constants. */
   p = clCreateProgramWithIL(e->context, spec_il, spec_size, &err);
   REQUIRE(p && !err, "%s", kt_err_name(err));
   cl_uint v = 42;
   CHECK_ERR(clSetProgramSpecializationConstant(p, 3, sizeof(v), &v), CL_INVALID_SPEC_ID);
   CHECK_ERR(clSetProgramSpecializationConstant(p, 7, 8, &v), CL_INVALID_VALUE);
   CHECK_ERR(clSetProgramSpecializationConstant(p, 7, sizeof(v), NULL), CL_INVALID_VALUE);
   REQUIRE_OK(clBuildProgram(p, 1, &e->device, NULL, NULL, NULL));
   cl_ulong wide = 0;
   CHECK(run_spec(e, p, &wide) == 5);
   CHECK(wide == 1, "%llu", (unsigned long long)wide);
   CHECK_OK(clSetProgramSpecializationConstant(p, 7, sizeof(v), &v));
   cl_ulong big = 0xfedcba9876543210u;
   CHECK_OK(clSetProgramSpecializationConstant(p, 8, sizeof(big), &big));
   REQUIRE_OK(clBuildProgram(p, 1, &e->device, NULL, NULL, NULL));
   CHECK(run_spec(e, p, &wide) == 42);
   CHECK(wide == big, "0x%llx", (unsigned long long)wide);
   clReleaseProgram(p);
   /* A program from source has none to set. */
   const char *text = "kernel void k(void) {}";
   p = clCreateProgramWithSource(e->context, 1, &text, NULL, &err);
   CHECK_ERR(clSetProgramSpecializationConstant(p, 7, sizeof(v), &v), CL_INVALID_PROGRAM);
   size_t il_size = 99;
   CHECK_OK(clGetProgramInfo(p, CL_PROGRAM_IL, 0, NULL, &il_size));
   CHECK(il_size == 0);
   clReleaseProgram(p);

   run_rw_image(e, rw_path);

   free(il);
   free(spec_il);
   free(il_version);
   free(ext);
}

int main(int argc, char **argv)
{
   if (argc == 2 && !strcmp(argv[1], "--no-spirv-as")) {
      printf("SKIP: spirv-as (spirv-tools) was not found when the tests were built\n");
      return 77;
   }
   struct kt_env e;
   kt_setup(&e, 0);
   if (argc == 2 && !strcmp(argv[1], "--absent"))
      absent(&e);
   else if (argc == 4)
      present(&e, false, argv[1], argv[2], argv[3]);
   else if (argc == 5 && !strcmp(argv[1], "--expect-il"))
      present(&e, true, argv[2], argv[3], argv[4]);
   else
      KT_DIE("usage: %s [--expect-il] <il_kernels.spv> <il_spec.spv> <il_rw_images.spv> | "
             "--absent | --no-spirv-as", argv[0]);
   kt_teardown(&e);
   return kt_result();
}
