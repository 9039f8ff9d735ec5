/* The start the CUDA tests that go through cl* and core share
 * (test_cuda_cl.c, test_cuda_launch.c, test_cuda_build.c,
 * test_cuda_mixed.c): the fake libcuda with H100s, then Kiln's platform
 * and its devices. */
#ifndef KILN_TESTS_FAKE_CUDA_CL_H
#define KILN_TESTS_FAKE_CUDA_CL_H

#include <CL/cl.h>

/* fake_cuda_reset_h100s(gpus), then Kiln's platform and its devices, as
 * KILN_DEVICES (which the test sets first) makes them, into platform
 * (may be NULL) and devices[count].  0 when the platform has exactly
 * count devices; else -1 after saying why on stderr.  Kernels for the
 * fake (fake_cuda_define_kernel) are defined after this: the reset
 * forgets them. */
int fake_cuda_cl_open(unsigned gpus, cl_platform_id *platform, cl_device_id *devices,
                      cl_uint count);

#endif
