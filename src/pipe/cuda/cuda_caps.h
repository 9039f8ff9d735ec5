/* What NVIDIA GPU devices report to kernels: their OpenCL C extensions.
 * The screen and kiln-compile use the same list, so a binary built
 * offline sees exactly the macros a build in the driver would. */
#ifndef KILN_PIPE_CUDA_CAPS_H
#define KILN_PIPE_CUDA_CAPS_H

/* The five OpenCL C 1.1 requires (libclc's nvptx library implements the
 * atomics) and doubles, which every GPU CUDA 12 supports executes
 * natively. */
#define CUDA_EXTENSIONS                                                                       \
   "cl_khr_byte_addressable_store cl_khr_global_int32_base_atomics "                         \
   "cl_khr_global_int32_extended_atomics cl_khr_local_int32_base_atomics "                   \
   "cl_khr_local_int32_extended_atomics cl_khr_fp64"
#define CUDA_CLANG_EXTENSIONS                                                                 \
   "-all,+cl_khr_byte_addressable_store,+cl_khr_global_int32_base_atomics,"                  \
   "+cl_khr_global_int32_extended_atomics,+cl_khr_local_int32_base_atomics,"                 \
   "+cl_khr_local_int32_extended_atomics,+cl_khr_fp64"

#endif
