/* The LLVM half of the NVPTX back end: what a compiler target table
 * (clBuildProgram, clCompileProgram, clLinkProgram) calls with modules.
 * Only src/llvm includes it. */
#ifndef KILN_LLVM_NVPTX_BACKEND_H
#define KILN_LLVM_NVPTX_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include <llvm-c/Types.h>

#include "llvm/compiler.h"

struct kiln_build_log;
struct kiln_nvptx_target;

/* libclc's nvptx64 bitcode (*data kiln_malloc'd), or the reason in log. */
enum kiln_build_status kiln_llvm_nvptx_libclc(void **data, size_t *size,
                                              struct kiln_build_log *log);

/* What the front end is given for sm: its LLVM processor and the
 * "+ptxNN" feature string (into features, at least 16 bytes). */
void kiln_llvm_nvptx_clc_features(const struct kiln_nvptx_target *t, char *features,
                                  size_t size);

/* m (front-end output with libclc linked; the caller keeps and disposes
 * it) becomes PTX for sm: out->bitcode (m before code generation),
 * target_id, kernels, object.  linked: unresolved symbols are named as a
 * link error.  Code generation works on a copy: m gains only
 * !invariant.load marks (nvptx_constant.h). */
enum kiln_build_status kiln_llvm_nvptx_finish(LLVMModuleRef m, const char *sm, bool optimize,
                                              bool linked, struct kiln_build_output *out,
                                              struct kiln_build_log *log);

#endif
