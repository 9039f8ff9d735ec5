/* Hands Kiln's CUDA winsys the fake libcuda instead of dlopen()ing
 * libcuda.so.1: the tests link with -Wl,--wrap=cuda_api_load and
 * --wrap=cuda_api_unload (tests/unit/meson.build, cuda_test_args), so the
 * winsys's calls land here.  test_cuda_absent.c has its own wraps (it
 * also reaches the real loader) and does not link this file. */
#include "fake_cuda.h"

struct cuda_api *__wrap_cuda_api_load(void);
void __wrap_cuda_api_unload(struct cuda_api *api);

struct cuda_api *__wrap_cuda_api_load(void)
{
   return (struct cuda_api *)fake_cuda_table();
}

void __wrap_cuda_api_unload(struct cuda_api *api)
{
   (void)api;
}
