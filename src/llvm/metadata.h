/* Reads kernel descriptions (include/kiln/kernel_info.h) from a module. */
#ifndef KILN_LLVM_METADATA_H
#define KILN_LLVM_METADATA_H

#include <llvm-c/Core.h>
#include <stdbool.h>

struct kiln_kernel_info;

/* One entry per kernel with a body, in module order, with the argument
 * buffer laid out.  Returns 0, or -1 when out of memory. */
int kiln_metadata_kernels(LLVMModuleRef m, struct kiln_kernel_info **kernels, unsigned *count);

bool kiln_is_kernel(LLVMValueRef fn);

/* Every defined function but the kernels, and every defined global,
 * becomes internal, so the optimiser may inline or drop them. */
void kiln_internalize_non_kernels(LLVMModuleRef m);

/* Marks the kernels of a program compiled without -cl-kernel-arg-info:
 * their descriptions get no_arg_info, and clGetKernelArgInfo then reports
 * names as not available.  Clang's names stay (bounds-check messages use
 * them). */
void kiln_metadata_hide_arg_info(LLVMModuleRef m);

/* Marks every kernel of m as one that may run in non-uniform work-groups
 * (compiled as OpenCL C 2.0 or later without -cl-uniform-work-group-size):
 * their descriptions get non_uniform_work_groups. */
void kiln_metadata_allow_non_uniform(LLVMModuleRef m);

#endif
