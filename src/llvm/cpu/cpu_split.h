/* Parts of a lowered CPU module, compiled one at a time (cpu_code.h). */
#ifndef KILN_LLVM_CPU_SPLIT_H
#define KILN_LLVM_CPU_SPLIT_H

#include <stdbool.h>
#include <stddef.h>

#include <llvm-c/Types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A new module in m's context defining the roots (global values of m)
 * and what they reach: with functions, every function reached (internal
 * ones as private copies) and the internal read-only variables; other
 * global variables are only declared (the common part defines them).
 * Without functions, functions are only declared (the common part: the
 * program's variables).  NULL for IR OpenCL C never makes (aliases). */
LLVMModuleRef kiln_cpu_split(LLVMModuleRef m, LLVMValueRef *roots, unsigned num_roots,
                             bool functions);

/* The module in data (bitcode, which must outlive it) with its function
 * bodies read only when kiln_cpu_split reaches them: the first kernel
 * compiled from a big program does not wait for every body to be read.
 * NULL when it does not parse. */
LLVMModuleRef kiln_cpu_read_lazy(LLVMContextRef ctx, const void *data, size_t size);

#ifdef __cplusplus
}
#endif

#endif
