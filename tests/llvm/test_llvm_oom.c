/* LLVM running out of memory outside a build (issue 20, item 3): core asks
 * src/llvm for the host CPU's name and features outside any compiler step
 * (the compile cache's key, a binary's target check).  There, LLVM's
 * bad-alloc handler found no kiln_llvm_guard to throw to and ended the
 * process ("LLVM ERROR: out of memory", abort).
 *
 * This program links the shared libLLVM (src/llvm/meson.build), so its
 * own LLVMGetHostCPUName below takes the place of LLVM's for Kiln's
 * objects: armed, it reports running out of memory the way LLVM's
 * allocators do (llvm::report_bad_alloc_error, called by its mangled
 * name); disarmed, it forwards to LLVM's. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <CL/cl.h>

#include "llvm/compiler.h"
#include "llvm/target.h"
#include "util/alloc.h"

/* llvm::report_bad_alloc_error(const char *, bool): never returns. */
void _ZN4llvm22report_bad_alloc_errorEPKcb(const char *reason, bool gen_crash_diag)
   __attribute__((noreturn));

static bool armed;
static unsigned calls;

char *LLVMGetHostCPUName(void);
char *LLVMGetHostCPUName(void)
{
   calls++;
   if (armed)
      _ZN4llvm22report_bad_alloc_errorEPKcb("LLVMGetHostCPUName (test)", false);
   char *(*real)(void) = (char *(*)(void))dlsym(RTLD_NEXT, "LLVMGetHostCPUName");
   assert_non_null(real);
   return real();
}

static void host_query(void **state)
{
   (void)state;
   struct kiln_llvm_host host;
   calls = 0;
   armed = true;
   assert_false(kiln_llvm_host_query(&host));
   armed = false;
   assert_int_equal(calls, 1); /* the failure came from here */
   assert_null(host.triple);
   assert_true(kiln_llvm_host_query(&host));
   assert_non_null(host.cpu);
   kiln_llvm_host_fini(&host);
}

static void target_id(void **state)
{
   (void)state;
   const struct kiln_compile_target cpu = {.ir = "cpu", .processor = "", .opencl_version = 120};
   char *id = NULL;
   armed = true;
   assert_int_equal(kiln_llvm_target_id(&cpu, &id), KILN_BUILD_OUT_OF_MEMORY);
   assert_null(kiln_llvm_builtins_id(&cpu));
   armed = false;
   assert_null(id);
   assert_int_equal(kiln_llvm_target_id(&cpu, &id), KILN_BUILD_OK);
   assert_non_null(id);
   kiln_free(id);
}

/* Through the API: the build fails with CL_OUT_OF_HOST_MEMORY, and the
 * same program builds once memory is back. */
static void build_program(void **state)
{
   (void)state;
   cl_platform_id platform;
   cl_device_id device;
   cl_int err;
   assert_int_equal(clGetPlatformIDs(1, &platform, NULL), CL_SUCCESS);
   assert_int_equal(clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device, NULL), CL_SUCCESS);
   cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
   assert_non_null(ctx);
   const char *src = "kernel void k(global int *a) { a[0] = 1; }\n";
   cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
   assert_non_null(p);
   armed = true;
   calls = 0;
   err = clBuildProgram(p, 1, &device, "", NULL, NULL);
   armed = false;
   assert_true(calls > 0);
   assert_int_equal(err, CL_OUT_OF_HOST_MEMORY);
   assert_int_equal(clBuildProgram(p, 1, &device, "", NULL, NULL), CL_SUCCESS);
   clReleaseProgram(p);
   clReleaseContext(ctx);
}

int main(void)
{
   /* The compile cache would answer the build without asking the host. */
   setenv("KILN_CACHE", "0", 1);
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(host_query),
      cmocka_unit_test(target_id),
      cmocka_unit_test(build_program),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
