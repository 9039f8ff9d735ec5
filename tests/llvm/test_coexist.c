/* Kiln's LLVM 19 beside another driver's LLVM in one process: PoCL (Debian's
 * uses the shared libLLVM-15). Both platforms load through the ICD loader,
 * PoCL compiles kernels with its LLVM while Kiln's front end compiles with
 * the static one, one after the other and at the same time. This is the
 * setup where two LLVMs sharing their registries crash clinfo ("Option
 * registered more than once"). Skipped without PoCL. */
#include <pthread.h>
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
#include <llvm-c/Core.h>

#include "kiln/cl_version.h"
#include "llvm/build_options.h"
#include "llvm/clc_frontend.h"
#include "llvm/target.h"

#ifndef KILN_LIBRARY
#error "meson passes the path of the freshly built libKilnOpenCL.so.1"
#endif

#define POCL_ICD "/etc/OpenCL/vendors/pocl.icd"

static char icd_dir[] = "/tmp/kiln-coexist-XXXXXX";
static cl_platform_id pocl, kiln;

static void write_file(const char *dir, const char *name, const char *text)
{
   char path[256];
   snprintf(path, sizeof(path), "%s/%s", dir, name);
   FILE *f = fopen(path, "w");
   if (f) {
      fputs(text, f);
      fclose(f);
   }
}

static void remove_file(const char *dir, const char *name)
{
   char path[256];
   snprintf(path, sizeof(path), "%s/%s", dir, name);
   unlink(path);
}

/* Must run before the first OpenCL call: the loader reads the vendors once. */
static int group_setup(void **state)
{
   (void)state;
   FILE *f = fopen(POCL_ICD, "r");
   if (!f)
      return 0; /* no PoCL: every test skips */
   char pocl_line[256] = "";
   if (!fgets(pocl_line, sizeof(pocl_line), f))
      pocl_line[0] = '\0';
   fclose(f);
   if (!mkdtemp(icd_dir))
      return -1;
   write_file(icd_dir, "pocl.icd", pocl_line);
   write_file(icd_dir, "kiln.icd", KILN_LIBRARY "\n");
   setenv("OCL_ICD_VENDORS", icd_dir, 1);
   /* Make PoCL run its LLVM on every build instead of reading its cache. */
   setenv("POCL_KERNEL_CACHE", "0", 1);

   cl_platform_id platforms[8];
   cl_uint n = 0;
   if (clGetPlatformIDs(8, platforms, &n) != CL_SUCCESS)
      return -1;
   for (cl_uint i = 0; i < n && i < 8; i++) {
      char name[128] = "";
      clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof(name), name, NULL);
      if (strcmp(name, "Kiln") == 0)
         kiln = platforms[i];
      else if (strstr(name, "Portable Computing Language"))
         pocl = platforms[i];
   }
   return 0;
}

static int group_teardown(void **state)
{
   (void)state;
   if (icd_dir[strlen(icd_dir) - 1] != 'X') {
      remove_file(icd_dir, "pocl.icd");
      remove_file(icd_dir, "kiln.icd");
      rmdir(icd_dir);
   }
   return 0;
}

static const char kernel_src[] =
   "kernel void scale(global float4 *p, float a)\n"
   "{\n"
   "   size_t i = get_global_id(0);\n"
   "   p[i] = p[i] * a + (float4)(sin(a));\n"
   "}\n";

/* One real PoCL build: CL_SUCCESS and a kernel that exists. */
static cl_int pocl_build(void)
{
   cl_device_id dev;
   cl_int err = clGetDeviceIDs(pocl, CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
   if (err != CL_SUCCESS)
      return err;
   cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
   if (!ctx)
      return err;
   const char *src = kernel_src;
   cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
   if (prog) {
      err = clBuildProgram(prog, 1, &dev, "-cl-mad-enable", NULL, NULL);
      if (err == CL_SUCCESS) {
         cl_kernel k = clCreateKernel(prog, "scale", &err);
         if (k)
            clReleaseKernel(k);
      }
      clReleaseProgram(prog);
   }
   clReleaseContext(ctx);
   return err;
}

/* One Kiln front-end build, with the LLVM linked into this program. */
static enum kiln_clc_status kiln_build(void)
{
   struct kiln_llvm_host host;
   if (!kiln_llvm_host_query(&host))
      return KILN_CLC_OUT_OF_MEMORY;
   struct kiln_clc_target t = {.triple = host.triple, .cpu = host.cpu,
                               .features = host.features, .opencl_version = 110};
   struct kiln_build_options opts;
   enum kiln_clc_status st = KILN_CLC_OUT_OF_MEMORY;
   if (kiln_build_options_parse("-cl-mad-enable", KILN_CL_STD_1_1, false, &opts, NULL, 0) ==
       KILN_BUILD_OPTIONS_OK) {
      LLVMContextRef ctx = LLVMContextCreate();
      LLVMModuleRef mod = NULL;
      char *log = NULL;
      st = kiln_clc_compile(kernel_src, strlen(kernel_src), &opts, &t, ctx, &mod, &log);
      if (st == KILN_CLC_OK && !LLVMGetNamedFunction(mod, "scale"))
         st = KILN_CLC_BUILD_FAILURE;
      if (mod)
         LLVMDisposeModule(mod);
      LLVMContextDispose(ctx);
      free(log);
   }
   kiln_build_options_fini(&opts);
   kiln_llvm_host_fini(&host);
   return st;
}

static void require_both(void)
{
   if (!pocl)
      skip();
   assert_non_null(kiln);
}

static void test_both_platforms_answer(void **state)
{
   (void)state;
   require_both();
   char version[128];
   assert_int_equal(clGetPlatformInfo(kiln, CL_PLATFORM_VERSION, sizeof(version),
                                      version, NULL), CL_SUCCESS);
   assert_non_null(strstr(version, "OpenCL " KILN_CL_VERSION_STRING " Kiln"));
   cl_device_id dev;
   assert_int_equal(clGetDeviceIDs(kiln, CL_DEVICE_TYPE_ALL, 1, &dev, NULL), CL_SUCCESS);
   assert_int_equal(clGetDeviceIDs(pocl, CL_DEVICE_TYPE_ALL, 1, &dev, NULL), CL_SUCCESS);
}

static void test_builds_in_turn(void **state)
{
   (void)state;
   require_both();
   assert_int_equal(pocl_build(), CL_SUCCESS);
   assert_int_equal(kiln_build(), KILN_CLC_OK);
   assert_int_equal(pocl_build(), CL_SUCCESS);
   assert_int_equal(kiln_build(), KILN_CLC_OK);
}

static void *pocl_thread(void *arg)
{
   cl_int *err = arg;
   for (int i = 0; i < 2 && *err == CL_SUCCESS; i++)
      *err = pocl_build();
   return NULL;
}

static void test_builds_at_once(void **state)
{
   (void)state;
   require_both();
   pthread_t t;
   cl_int pocl_err = CL_SUCCESS;
   assert_int_equal(pthread_create(&t, NULL, pocl_thread, &pocl_err), 0);
   enum kiln_clc_status kiln_st = KILN_CLC_OK;
   for (int i = 0; i < 8 && kiln_st == KILN_CLC_OK; i++)
      kiln_st = kiln_build();
   assert_int_equal(pthread_join(t, NULL), 0);
   assert_int_equal(pocl_err, CL_SUCCESS);
   assert_int_equal(kiln_st, KILN_CLC_OK);
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_both_platforms_answer),
      cmocka_unit_test(test_builds_in_turn),
      cmocka_unit_test(test_builds_at_once),
   };
   return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
