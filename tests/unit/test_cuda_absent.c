/* Without libcuda.so.1, or with a driver that finds no GPU, the CUDA
 * driver adds no device and prints nothing: it must stay silent where it
 * has nothing to drive (most machines).  KILN_DEBUG is unset here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fake_cuda.h"
#include "pipe/cuda/cuda_screen.h"

enum mode { FAKE, NO_LIBRARY, REAL };
static enum mode mode;
static unsigned loads;

struct cuda_api *__real_cuda_api_load(void);
struct cuda_api *__wrap_cuda_api_load(void);
void __wrap_cuda_api_unload(struct cuda_api *api);
void __real_cuda_api_unload(struct cuda_api *api);

struct cuda_api *__wrap_cuda_api_load(void)
{
   loads++;
   if (mode == REAL)
      return __real_cuda_api_load();
   return mode == NO_LIBRARY ? NULL : (struct cuda_api *)fake_cuda_table();
}

void __wrap_cuda_api_unload(struct cuda_api *api)
{
   if (mode == REAL)
      __real_cuda_api_unload(api);
}

/* Probes with stderr captured; returns the screens found and how many
 * bytes were printed. */
static unsigned probe_silently(off_t *printed)
{
   char path[] = "/tmp/kiln-cuda-absent-XXXXXX";
   int fd = mkstemp(path);
   assert_true(fd >= 0);
   fflush(stderr);
   int saved = dup(2);
   dup2(fd, 2);
   struct pipe_screen *screens[4];
   unsigned n = cuda_screen_probe(screens, 4);
   for (unsigned i = 0; i < n; i++)
      screens[i]->destroy(screens[i]);
   fflush(stderr);
   dup2(saved, 2);
   close(saved);
   *printed = lseek(fd, 0, SEEK_END);
   close(fd);
   unlink(path);
   return n;
}

static void test_no_library(void **state)
{
   (void)state;
   mode = NO_LIBRARY;
   loads = 0;
   off_t printed;
   assert_int_equal(probe_silently(&printed), 0);
   assert_int_equal(loads, 1);
   assert_int_equal(printed, 0);
}

static void test_no_device(void **state)
{
   (void)state;
   /* The driver is installed, the machine has no GPU (or it is hidden
    * with CUDA_VISIBLE_DEVICES=""). */
   fake_cuda_reset();
   fake_cuda.init_result = CUDA_ERROR_NO_DEVICE;
   mode = FAKE;
   off_t printed;
   assert_int_equal(probe_silently(&printed), 0);
   assert_int_equal(printed, 0);
   assert_int_equal(fake_cuda_live(), 0);

   /* cuInit works but lists nothing. */
   fake_cuda_reset();
   assert_int_equal(probe_silently(&printed), 0);
   assert_int_equal(printed, 0);
   assert_int_equal(fake_cuda_live(), 0);
}

static void test_device_failing_to_open(void **state)
{
   (void)state;
   /* A GPU whose context cannot be made (out of memory, exclusive mode
    * taken) is skipped without a word; the other one is found. */
   fake_cuda_reset();
   fake_cuda_add_device("GPU 0");
   fake_cuda_add_device("GPU 1");
   fake_cuda_fail("cuDevicePrimaryCtxRetain", CUDA_ERROR_OUT_OF_MEMORY);
   mode = FAKE;
   off_t printed;
   assert_int_equal(probe_silently(&printed), 1);
   assert_int_equal(printed, 0);
   assert_int_equal(fake_cuda_live(), 0);
}

static void test_real_loader(void **state)
{
   (void)state;
   /* The real dlopen: on a machine without the NVIDIA driver (CI) no
    * device and no output.  Where libcuda.so.1 exists this says nothing
    * about absence: skip. */
   mode = REAL;
   struct cuda_api *api = __real_cuda_api_load();
   if (api) {
      __real_cuda_api_unload(api);
      skip();
   }
   off_t printed;
   assert_int_equal(probe_silently(&printed), 0);
   assert_int_equal(printed, 0);
}

int main(void)
{
   unsetenv("KILN_DEBUG");
   unsetenv("KILN_LOG");
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_no_library),
      cmocka_unit_test(test_no_device),
      cmocka_unit_test(test_device_failing_to_open),
      cmocka_unit_test(test_real_loader),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
