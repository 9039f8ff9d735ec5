/* What NVIDIA GPU devices report to kernels: their OpenCL C extensions.
 * The screen and kiln-compile use the same list, so a binary built
 * offline sees exactly the macros a build in the driver would. */
#ifndef KILN_PIPE_CUDA_CAPS_H
#define KILN_PIPE_CUDA_CAPS_H

/* What the nvptx compiler (src/llvm/nvptx) builds and this driver runs,
 * the same in both lists: the five OpenCL C 1.1 requires (libclc's nvptx
 * library implements the 32-bit atomics), doubles, which every GPU CUDA
 * 12 supports executes natively, and 64-bit atomics on global and local
 * memory, which src/llvm/nvptx/nvptx_atomics.c defines (atom.*.u64/s64/
 * b64; every sm Kiln compiles for, sm_50 on, has them). */
#define CUDA_EXTENSIONS                                                                       \
   "cl_khr_byte_addressable_store cl_khr_global_int32_base_atomics "                         \
   "cl_khr_global_int32_extended_atomics cl_khr_local_int32_base_atomics "                   \
   "cl_khr_local_int32_extended_atomics cl_khr_int64_base_atomics "                          \
   "cl_khr_int64_extended_atomics cl_khr_fp64 cl_khr_3d_image_writes"
#define CUDA_CLANG_EXTENSIONS                                                                 \
   "-all,+cl_khr_byte_addressable_store,+cl_khr_global_int32_base_atomics,"                  \
   "+cl_khr_global_int32_extended_atomics,+cl_khr_local_int32_base_atomics,"                 \
   "+cl_khr_local_int32_extended_atomics,+cl_khr_int64_base_atomics,"                        \
   "+cl_khr_int64_extended_atomics,+cl_khr_fp64,+cl_khr_3d_image_writes"

#endif
