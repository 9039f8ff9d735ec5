/* OpenCL C to PTX for NVIDIA GPUs: the face the CUDA driver and core see,
 * shaped like kiln_llvm_build_amdgpu.  No LLVM type crosses it; the
 * kernel ABI of the PTX is nvptx_abi.h. */
#ifndef KILN_LLVM_NVPTX_COMPILER_H
#define KILN_LLVM_NVPTX_COMPILER_H

#include <stddef.h>

#include "llvm/compiler.h"

/* Builds source for the NVIDIA GPU of compute capability sm ("sm_90"; the
 * list is nvptx_target.h), linking libclc's nvptx64 library:
 *   out->object    PTX text, NUL included in object_size (nvptx_abi.h);
 *   out->kernels   one description per kernel, argument buffer laid out in
 *                  PTX parameter order (__local slots 4 bytes: offsets);
 *   out->bitcode   the module before code generation (clLinkProgram and
 *                  program binaries), target_id kiln_llvm_nvptx_target_id;
 *   out->log       clang's diagnostics and Kiln's own errors.
 * printf, images, samplers and target->bounds_check are refused with a
 * log line.  Thread-safe. */
enum kiln_build_status kiln_llvm_build_nvptx(const char *source, size_t size,
                                             const char *options,
                                             const struct kiln_compile_target *target,
                                             const char *sm, struct kiln_build_output *out);

/* "nvptx:nvptx64-nvidia-cuda:<sm>" (kiln_malloc'd; NULL when out of
 * memory): the target id of program binaries for that device. */
char *kiln_llvm_nvptx_target_id(const char *sm);

#endif
