/* Prefetches of later rounds in grid-stride loops
 * (src/llvm/cpu/wg_round_prefetch.h), in the code launches run: each
 * kernel compiled on its own at first use (llvm/cpu/cpu_code.h), from a
 * part split off the program's module, not KILN_DUMP's whole module.
 * The marker calls need their vector variants declared in that part, or
 * the loop vectorizer keeps the work-item loop scalar (it did: the
 * grid-stride reduction then ran at 4 GB/s instead of 9 without
 * prefetches and 33 with them).
 *
 * The kernels' results are exact (each work-item adds in its own order);
 * the objects in the program's binary, disassembled, hold prefetch
 * instructions in the grid-stride kernels, also in a vectorized loop, and
 * none in a kernel without such a loop; under KILN_ROUND_PREFETCH=0
 * (meson.build: round_prefetch_off) none anywhere; under a value that is
 * no number (round_prefetch_bad) as by default, with a warning in the
 * build log; the binary's target id names the setting where it is not
 * the default. */
#include "kiln_test.h"

#include <elf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <llvm-c/Disassembler.h>
#include <llvm-c/Target.h>

#include "core/binary.h"
#include "core/program_cache.h"
#include "llvm/cpu/cpu_code.h"

static const char *source =
   /* kiln_bench's grid-stride sum without the __local tree. */
   "kernel void sum(global const float *in, global float *out, uint n) {\n"
   "   uint gid = get_global_id(0), gsize = get_global_size(0);\n"
   "   float s = 0.0f;\n"
   "   for (uint i = gid; i < n; i += gsize) s += in[i];\n"
   "   out[gid] = s;\n"
   "}\n"
   /* pyopencl's elementwise template: a read and a written address. */
   "kernel void axpy(float a, global const float *x, global float *y, long n) {\n"
   "   int lid = get_local_id(0), gsize = get_global_size(0);\n"
   "   int start = get_local_size(0) * get_group_id(0);\n"
   "   for (long i = start + lid; i < n; i += gsize) y[i] = a * x[i] + y[i];\n"
   "}\n"
   "kernel void plain(global float *a) { a[get_global_id(0)] *= 2.0f; }\n";

enum { N = 10007, G = 256, L = 64 };

static cl_kernel kernel(cl_program p, const char *name)
{
   cl_int err;
   cl_kernel k = clCreateKernel(p, name, &err);
   assert_int_equal(err, CL_SUCCESS);
   return k;
}

static cl_mem buffer(cl_context ctx, size_t size, void *host)
{
   cl_int err;
   cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), size,
                             host, &err);
   assert_int_equal(err, CL_SUCCESS);
   return m;
}

static void run(cl_command_queue q, cl_kernel k)
{
   size_t global = G, local = L;
   assert_int_equal(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL),
                    CL_SUCCESS);
   assert_int_equal(clFinish(q), CL_SUCCESS);
}

/* Launches sum and axpy (their first use compiles them) and checks the
 * results bit for bit. */
static void launch(cl_context ctx, cl_program p)
{
   static float in[N], y[N], want_y[N];
   float out[G], want[G];
   for (unsigned i = 0; i < N; i++) {
      in[i] = (float)(i % 97) * 0.37f + 1.0f / (float)(i + 1);
      y[i] = (float)(i % 13) - 6.5f;
   }
   cl_command_queue q = kt_queue(ctx, 0);
   cl_mem min = buffer(ctx, sizeof(in), in), mout = buffer(ctx, sizeof(out), NULL);
   cl_mem my = buffer(ctx, sizeof(y), y);
   cl_kernel k = kernel(p, "sum");
   cl_uint n = N;
   assert_int_equal(clSetKernelArg(k, 0, sizeof(min), &min), CL_SUCCESS);
   assert_int_equal(clSetKernelArg(k, 1, sizeof(mout), &mout), CL_SUCCESS);
   assert_int_equal(clSetKernelArg(k, 2, sizeof(n), &n), CL_SUCCESS);
   run(q, k);
   assert_int_equal(clEnqueueReadBuffer(q, mout, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL),
                    CL_SUCCESS);
   for (unsigned g = 0; g < G; g++) {
      want[g] = 0.0f;
      for (unsigned i = g; i < N; i += G)
         want[g] += in[i];
      assert_memory_equal(&out[g], &want[g], sizeof(float));
   }
   clReleaseKernel(k);

   k = kernel(p, "axpy");
   float a = 1.5f;
   cl_long ln = N;
   assert_int_equal(clSetKernelArg(k, 0, sizeof(a), &a), CL_SUCCESS);
   assert_int_equal(clSetKernelArg(k, 1, sizeof(min), &min), CL_SUCCESS);
   assert_int_equal(clSetKernelArg(k, 2, sizeof(my), &my), CL_SUCCESS);
   assert_int_equal(clSetKernelArg(k, 3, sizeof(ln), &ln), CL_SUCCESS);
   run(q, k);
   assert_int_equal(clEnqueueReadBuffer(q, my, CL_TRUE, 0, sizeof(y), y, 0, NULL, NULL),
                    CL_SUCCESS);
   /* Contracted into an fma or not: OpenCL C allows either. */
   for (unsigned i = 0; i < N; i++) {
      float y0 = (float)(i % 13) - 6.5f, fused = fmaf(a, in[i], y0);
      want_y[i] = a * in[i] + y0;
      if (memcmp(&y[i], &fused, sizeof(float)))
         assert_memory_equal(&y[i], &want_y[i], sizeof(float));
   }
   clReleaseKernel(k);
   clReleaseMemObject(min);
   clReleaseMemObject(mout);
   clReleaseMemObject(my);
   clReleaseCommandQueue(q);
}

/* Prefetch instructions in the executable sections of an ELF object. */
static unsigned count_prefetches(const unsigned char *obj, size_t size)
{
   assert_true(size >= sizeof(Elf64_Ehdr));
   const Elf64_Ehdr *eh = (const Elf64_Ehdr *)obj;
   assert_true(eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) <= size);
   const Elf64_Shdr *sh = (const Elf64_Shdr *)(obj + eh->e_shoff);
   LLVMDisasmContextRef dc = LLVMCreateDisasm("x86_64-unknown-linux-gnu", NULL, 0, NULL, NULL);
   assert_non_null(dc);
   unsigned prefetches = 0;
   for (unsigned s = 0; s < eh->e_shnum; s++) {
      if (sh[s].sh_type != SHT_PROGBITS || !(sh[s].sh_flags & SHF_EXECINSTR))
         continue;
      assert_true(sh[s].sh_offset + sh[s].sh_size <= size);
      uint8_t *code = (uint8_t *)obj + sh[s].sh_offset;
      for (uint64_t at = 0; at < sh[s].sh_size;) {
         char text[128];
         size_t n = LLVMDisasmInstruction(dc, code + at, sh[s].sh_size - at, at, text, sizeof(text));
         if (!n) {
            at++; /* padding the disassembler does not take */
            continue;
         }
         prefetches += strstr(text, "prefetch") != NULL;
         at += n;
      }
   }
   LLVMDisasmDispose(dc);
   return prefetches;
}

static void test_prefetches_in_launched_code(void **state)
{
   (void)state;
   kiln_program_cache_use(NULL, 0); /* compile here, not from an earlier run's cache */
   LLVMInitializeX86TargetInfo();
   LLVMInitializeX86TargetMC();
   LLVMInitializeX86Disassembler();
   const char *e = getenv("KILN_ROUND_PREFETCH");
   bool on = !e || strcmp(e, "0"), bad = e && *e && (*e < '0' || *e > '9');
   cl_device_id dev = kt_device();
   cl_context ctx = kt_context();
   cl_int err;
   cl_program p = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_int_equal(clBuildProgram(p, 1, &dev, NULL, NULL, NULL), CL_SUCCESS);
   char log[4096] = "";
   assert_int_equal(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL),
                    CL_SUCCESS);
   /* A value that is no number is ignored, with a warning; the default applies. */
   assert_int_equal(strstr(log, "warning: KILN_ROUND_PREFETCH=") != NULL, bad);
   unsigned long before = kiln_cpu_code_compiles();
   launch(ctx, p);
   assert_int_equal(kiln_cpu_code_compiles(), before + 2); /* one kernel at a time */

   size_t size;
   assert_int_equal(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, NULL),
                    CL_SUCCESS);
   unsigned char *bin = malloc(size), *bins[1] = {bin};
   assert_non_null(bin);
   assert_int_equal(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bins), bins, NULL),
                    CL_SUCCESS);
   struct kiln_binary_contents bc;
   assert_int_equal(kiln_binary_read(bin, size, &bc), KILN_BINARY_OK);
   /* The setting is part of the target where not the default, so that
    * the compile cache and binaries keep the two kinds of code apart. */
   assert_int_equal(strstr(bc.target, "round-prefetch=0") != NULL, !on);
   assert_int_equal(strstr(bc.target, "round-prefetch") != NULL, !on);
   char *why = NULL;
   struct kiln_cpu_code *code = kiln_cpu_code_open(bc.object, bc.object_size, &why);
   assert_non_null(code);
   unsigned seen = 0;
   for (unsigned i = 0; i < kiln_cpu_code_num_kernels(code); i++) {
      const char *name = kiln_cpu_code_kernel_name(code, i);
      size_t osize = 0;
      const void *obj = kiln_cpu_code_object(code, (int)i, &osize);
      assert_non_null(obj);
      unsigned n = count_prefetches(obj, osize);
      print_message("%s: %u prefetch instructions\n", name, n);
      if (!strcmp(name, "plain") || !on)
         assert_int_equal(n, 0);
      else
         assert_true(n > 0);
      seen++;
   }
   assert_int_equal(seen, 3);
   kiln_cpu_code_close(code);
   kiln_binary_contents_fini(&bc);
   free(bin);
   clReleaseProgram(p);
   clReleaseContext(ctx);
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_prefetches_in_launched_code),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
