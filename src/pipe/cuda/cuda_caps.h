/* What NVIDIA GPU devices report to kernels: their OpenCL C extensions.
 * The screen and kiln-compile use the same list, so a binary built
 * offline sees exactly the macros a build in the driver would. */
#ifndef KILN_PIPE_CUDA_CAPS_H
#define KILN_PIPE_CUDA_CAPS_H

#include <stdio.h>

#include "pipe/pipe.h"

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

/* What a kernel built for an NVIDIA GPU sees, the same for the driver
 * (cuda_fill_caps) and kiln-compile (which has no GPU): OpenCL 3.0 with
 * these extensions and exactly the optional features the nvptx compiler
 * and this driver carry out (docs/cuda.md, "OpenCL 3.0"); core derives
 * CL_DEVICE_OPENCL_C_FEATURES and the __opencl_c_* macros from them
 * (core/device_version.c).  Off, because nothing implements them for
 * NVPTX yet: the generic address space, program-scope __global
 * variables, work-group collectives, sub-groups, non-uniform work-groups
 * (a launch is a grid of equal blocks), SVM, pipes, device-side enqueue,
 * IL programs, half precision. */
static inline void cuda_kernel_caps(struct pipe_caps *c)
{
   c->opencl_version = 300;
   /* The C11 atomics and fences of src/llvm/builtins/cl30_nvptx.cl:
    * relaxed atom.* / ld.volatile / st.volatile with membar.cta or
    * membar.gl around them for the stronger orders; device scope at
    * most (all-devices scope would need memory shared with the host). */
   c->atomic_memory_capabilities = CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
                                   CL_DEVICE_ATOMIC_ORDER_SEQ_CST |
                                   CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP | CL_DEVICE_ATOMIC_SCOPE_DEVICE;
   c->atomic_fence_capabilities = c->atomic_memory_capabilities | CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM;
   /* Linear images (cuda_image.c) and native doubles. */
   c->image_support = true;
   c->double_fp_config = CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO |
                         CL_FP_ROUND_TO_INF | CL_FP_INF_NAN | CL_FP_DENORM;
   c->svm_capabilities = 0;
   c->max_global_variable_size = c->global_variable_preferred_total_size = 0;
   c->non_uniform_work_groups = false;
   c->work_group_collective_functions = false;
   c->generic_address_space = false;
   c->max_num_sub_groups = 0;
   c->half_fp_config = 0;
   snprintf(c->extensions, sizeof(c->extensions), "%s", CUDA_EXTENSIONS);
   snprintf(c->clang_extensions, sizeof(c->clang_extensions), "%s", CUDA_CLANG_EXTENSIONS);
}

#endif
