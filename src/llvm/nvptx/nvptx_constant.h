/* OpenCL's __constant address space as global memory on NVPTX. */
#ifndef KILN_LLVM_NVPTX_CONSTANT_H
#define KILN_LLVM_NVPTX_CONSTANT_H

#include <stddef.h>

#include <llvm-c/Types.h>

#include "llvm/compiler.h"

struct kiln_build_log;

/* A copy of m (in m's context, for the caller to dispose) in which every
 * pointer and variable of NVPTX's constant address space (4) is in the
 * global one (1) instead.  m keeps its address spaces; its loads through
 * __constant pointers are marked !invariant.load on the way. */
enum kiln_build_status kiln_nvptx_constant_as_global(LLVMModuleRef m, LLVMModuleRef *out,
                                                     struct kiln_build_log *log);

/* The text substitution itself, exposed for its unit test: text with
 * "addrspace(4)" outside quoted strings and comments replaced by
 * "addrspace(1)" (same length, so in place).  Returns the count. */
size_t kiln_nvptx_constant_rewrite_text(char *text);

#endif
