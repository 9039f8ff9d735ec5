/* Without an AMD GPU (fake libdrm listing none), or without libdrm at all
 * (amdgpu_drm_load failing), the platform shows the CPU device alone and
 * Kiln prints nothing: the amdgpu driver must stay silent where it has
 * nothing to drive.  KILN_DEVICES is unset (every driver probes). */
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

#include "fake_drm.h"

static bool no_libdrm;
static unsigned loads;

struct amdgpu_drm *__wrap_amdgpu_drm_load(void);
void __wrap_amdgpu_drm_unload(struct amdgpu_drm *drm);

struct amdgpu_drm *__wrap_amdgpu_drm_load(void)
{
   loads++;
   return no_libdrm ? NULL : (struct amdgpu_drm *)fake_drm_table();
}

void __wrap_amdgpu_drm_unload(struct amdgpu_drm *drm)
{
   (void)drm;
}

static void test_cpu_only_and_silent(void **state)
{
   (void)state;
   /* Platform discovery happens once per process: the fake lists render
    * nodes of no AMD GPU (another vendor's, another driver's). */
   fake_drm_reset();
   fake_drm_add_gpu(143, 0x28, NULL)->pci_vendor = 0x10de;
   fake_drm_add_gpu(143, 0x28, NULL)->driver = "i915";
   char path[] = "/tmp/kiln-absent-XXXXXX";
   int fd = mkstemp(path);
   assert_true(fd >= 0);
   fflush(stderr);
   int saved = dup(2);
   dup2(fd, 2);
   cl_platform_id p;
   cl_device_id devs[4];
   cl_uint n = 0;
   cl_int err = clGetPlatformIDs(1, &p, NULL);
   if (!err)
      err = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 4, devs, &n);
   cl_uint gpus = 0;
   cl_int gerr = clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 0, NULL, &gpus);
   fflush(stderr);
   dup2(saved, 2);
   close(saved);
   off_t printed = lseek(fd, 0, SEEK_END);
   close(fd);
   unlink(path);
   assert_int_equal(err, CL_SUCCESS);
   assert_int_equal(loads, 1); /* the amdgpu driver did probe */
   assert_int_equal(n, 1);
   cl_device_type type;
   assert_int_equal(clGetDeviceInfo(devs[0], CL_DEVICE_TYPE, sizeof(type), &type, NULL),
                    CL_SUCCESS);
   assert_int_equal(type, CL_DEVICE_TYPE_CPU);
   assert_int_equal(gerr, CL_DEVICE_NOT_FOUND);
   assert_int_equal(printed, 0);
   /* Every node it opened to look at was closed again. */
   assert_int_equal(fake_drm_live(), 0);
}

int main(int argc, char **argv)
{
   /* "nolib": amdgpu_drm_load finds no libdrm_amdgpu. */
   no_libdrm = argc > 1 && !strcmp(argv[1], "nolib");
   unsetenv("KILN_DEVICES");
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cpu_only_and_silent),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
