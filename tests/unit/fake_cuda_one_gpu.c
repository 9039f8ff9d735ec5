/* For tests/cl programs linked with Kiln and the fake libcuda instead of
 * the ICD loader (tests/unit/meson.build, the exec_*_fake_cuda tests):
 * they have their own main(), so the fake gets its one H100 (sm_90) and
 * the kernels those programs build before main(), as fake_cuda_cl_open()
 * and the cmocka tests do.  The fake cannot run PTX: a kernel whose
 * results a program reads is a host function over the launch's
 * parameters (src/pipe/cuda/cuda_abi.h: the arguments, then the global
 * offset x, y, z and work_dim). */
#include <stdint.h>

#include "fake_cuda.h"

/* cl30_api.c's k(global int *out, int v, local int *tmp): out[i] = v. */
static void run_k(const struct fake_cuda_launch *l)
{
   uint64_t out, offset;
   int32_t v;
   fake_cuda_param(l, 0, &out, sizeof(out));
   fake_cuda_param(l, 1, &v, sizeof(v));
   fake_cuda_param(l, 3, &offset, sizeof(offset));
   size_t n = (size_t)l->grid[0] * l->block[0];
   int32_t *p = fake_cuda_ptr(out + offset * sizeof(int32_t), n * sizeof(int32_t));
   for (size_t i = 0; p && i < n; i++)
      p[i] = v;
}

__attribute__((constructor)) static void one_gpu(void)
{
   fake_cuda_reset_h100s(1);
   static const unsigned k[] = {8, 4, 4, 8, 8, 8, 4};
   fake_cuda_define_kernel("k", 7, k, run_k);
   /* svm.c's kernels, which a device without SVM builds but never runs. */
   static const unsigned scale[] = {8, 8, 4, 8, 8, 8, 4};
   static const unsigned count[] = {8, 8, 8, 8, 4};
   static const unsigned walk[] = {8, 8, 8, 8, 8, 4};
   fake_cuda_define_kernel("scale", 7, scale, NULL);
   fake_cuda_define_kernel("count", 5, count, NULL);
   fake_cuda_define_kernel("walk", 6, walk, NULL);
   /* non_uniform.c's record(global ulong *out, local ulong *tmp), whose
    * launches a device without non-uniform work-groups refuses. */
   static const unsigned record[] = {8, 4, 8, 8, 8, 4};
   fake_cuda_define_kernel("record", 6, record, NULL);
}
