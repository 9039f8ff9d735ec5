/* The back half of a build, from a front-end module to device code: one
 * implementation per device kind, shared by clBuildProgram's pipeline
 * (compiler.c, compiler_amdgpu.c) and clLinkProgram's (link.c), so that a
 * linked program is built exactly as one compiled in one piece. */
#ifndef KILN_LLVM_BACKEND_H
#define KILN_LLVM_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include <llvm-c/Types.h>

#include "llvm/compiler.h"

struct kiln_build_log;

/* The triple the builtins library is built for (src/llvm/builtins): CPU
 * front ends target it, and the host's CPU is applied after linking. */
#define KILN_CPU_TRIPLE "x86_64-unknown-linux-gnu"

/* m (the caller keeps and disposes it) becomes the CPU device's code:
 * out->bitcode (m before code generation), target_id, kernels, object.
 * linked: unresolved symbols are named as a link error.  id numbers the
 * KILN_DUMP files. */
enum kiln_build_status kiln_llvm_cpu_finish(LLVMModuleRef m,
                                            const struct kiln_compile_target *target,
                                            bool optimize, bool linked, unsigned id,
                                            struct kiln_build_output *out,
                                            struct kiln_build_log *log);

/* The same for the AMD GPU processor gfx. */
enum kiln_build_status kiln_llvm_amdgpu_finish(LLVMModuleRef m, const char *gfx, bool optimize,
                                               bool linked, struct kiln_build_output *out,
                                               struct kiln_build_log *log);

/* libclc's bitcode for gfx (*data kiln_malloc'd), or the reason in log. */
enum kiln_build_status kiln_llvm_amdgpu_libclc(const char *gfx, void **data, size_t *size,
                                               struct kiln_build_log *log);

/* A fresh number for KILN_DUMP's files. */
unsigned kiln_llvm_next_build_id(void);

#endif
