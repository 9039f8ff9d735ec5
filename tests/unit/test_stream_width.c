/* Kernels that only stream (src/llvm/cpu/stream_width.h): which kernels
 * count as streaming, judged on small kernels in LLVM IR as the front
 * end hands them to the work-group pass, and on which CPUs the rule
 * applies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>
#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>

#include "llvm/cpu/stream_width.h"

/* Whether @k of the IR text only streams. */
static bool streams(const char *ir)
{
   LLVMContextRef c = LLVMContextCreate();
   LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, strlen(ir), "k");
   LLVMModuleRef m = NULL;
   char *msg = NULL;
   if (LLVMParseIRInContext(c, buf, &m, &msg)) {
      print_error("%s\n", msg);
      fail();
   }
   LLVMValueRef k = LLVMGetNamedFunction(m, "k");
   assert_non_null(k);
   bool s = kiln_kernel_only_streams(k);
   LLVMDisposeModule(m);
   LLVMContextDispose(c);
   return s;
}

#define DECLS                                                                                  \
   "declare i64 @_Z13get_global_idj(i32)\n"                                                    \
   "declare float @_Z3sinf(float)\n"                                                           \
   "declare float @llvm.fmuladd.f32(float, float, float)\n"

/* y[i] = a * x[i] + y[i]: two loads, a multiply-add, a store. */
static const char saxpy[] = DECLS
   "define void @k(float %a, ptr addrspace(1) %x, ptr addrspace(1) %y) {\n"
   "  %i = call i64 @_Z13get_global_idj(i32 0)\n"
   "  %px = getelementptr float, ptr addrspace(1) %x, i64 %i\n"
   "  %py = getelementptr float, ptr addrspace(1) %y, i64 %i\n"
   "  %vx = load float, ptr addrspace(1) %px\n"
   "  %vy = load float, ptr addrspace(1) %py\n"
   "  %r = call float @llvm.fmuladd.f32(float %a, float %vx, float %vy)\n"
   "  store float %r, ptr addrspace(1) %py\n"
   "  ret void\n"
   "}\n";

/* The same with eight multiplications more: it computes. */
static const char heavy[] = DECLS
   "define void @k(float %a, ptr addrspace(1) %x, ptr addrspace(1) %y) {\n"
   "  %i = call i64 @_Z13get_global_idj(i32 0)\n"
   "  %px = getelementptr float, ptr addrspace(1) %x, i64 %i\n"
   "  %v = load float, ptr addrspace(1) %px\n"
   "  %m1 = fmul float %v, %a\n  %m2 = fmul float %m1, %a\n  %m3 = fmul float %m2, %a\n"
   "  %m4 = fmul float %m3, %a\n  %m5 = fmul float %m4, %a\n  %m6 = fmul float %m5, %a\n"
   "  %m7 = fmul float %m6, %a\n  %m8 = fmul float %m7, %a\n"
   "  store float %m8, ptr addrspace(1) %px\n"
   "  ret void\n"
   "}\n";

/* float4 loads and stores: four elements each. */
static const char vectors[] = DECLS
   "define void @k(ptr addrspace(1) %x, ptr addrspace(1) %y) {\n"
   "  %i = call i64 @_Z13get_global_idj(i32 0)\n"
   "  %px = getelementptr <4 x float>, ptr addrspace(1) %x, i64 %i\n"
   "  %py = getelementptr <4 x float>, ptr addrspace(1) %y, i64 %i\n"
   "  %v = load <4 x float>, ptr addrspace(1) %px\n"
   "  %w = fmul <4 x float> %v, %v\n"
   "  %s = fadd <4 x float> %w, %v\n"
   "  store <4 x float> %s, ptr addrspace(1) %py\n"
   "  ret void\n"
   "}\n";

/* __local memory: a tiled algorithm. */
static const char local[] = DECLS
   "define void @k(ptr addrspace(1) %x, ptr addrspace(3) %l) {\n"
   "  %i = call i64 @_Z13get_global_idj(i32 0)\n"
   "  %px = getelementptr float, ptr addrspace(1) %x, i64 %i\n"
   "  %v = load float, ptr addrspace(1) %px\n"
   "  store float %v, ptr addrspace(3) %l\n"
   "  ret void\n"
   "}\n";

/* A builtin call: work not counted. */
static const char builtin[] = DECLS
   "define void @k(ptr addrspace(1) %x) {\n"
   "  %i = call i64 @_Z13get_global_idj(i32 0)\n"
   "  %px = getelementptr float, ptr addrspace(1) %x, i64 %i\n"
   "  %v = load float, ptr addrspace(1) %px\n"
   "  %s = call float @_Z3sinf(float %v)\n"
   "  store float %s, ptr addrspace(1) %px\n"
   "  ret void\n"
   "}\n";

/* An atomic. */
static const char atomic[] = DECLS
   "define void @k(ptr addrspace(1) %x) {\n"
   "  %o = atomicrmw add ptr addrspace(1) %x, i32 1 seq_cst\n"
   "  ret void\n"
   "}\n";

/* No global memory at all. */
static const char empty[] = DECLS "define void @k() {\n  ret void\n}\n";

static void which_kernels(void **state)
{
   (void)state;
   assert_true(streams(saxpy));
   assert_true(streams(vectors));
   assert_false(streams(heavy));
   assert_false(streams(local));
   assert_false(streams(builtin));
   assert_false(streams(atomic));
   assert_false(streams(empty));
}

static void which_cpus(void **state)
{
   (void)state;
   assert_true(kiln_cpu_stream_narrow("znver5", "+avx512f,-prefer-256-bit"));
   assert_true(kiln_cpu_stream_narrow("znver4", "+avx512f,-prefer-256-bit"));
   /* KILN_CPU_VECTOR_WIDTH=256 makes every kernel 256-bit anyway. */
   assert_false(kiln_cpu_stream_narrow("znver5", "+avx512f,+prefer-256-bit"));
   /* No AVX-512 (no tuning feature): nothing to narrow. */
   assert_false(kiln_cpu_stream_narrow("znver3", "+avx2"));
   assert_false(kiln_cpu_stream_narrow("sapphirerapids", "+avx512f,-prefer-256-bit"));
   assert_false(kiln_cpu_stream_narrow("icelake-server", "+avx512f,-prefer-256-bit"));
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(which_kernels),
      cmocka_unit_test(which_cpus),
   };
   return cmocka_run_group_tests_name("stream_width", tests, NULL, NULL);
}
