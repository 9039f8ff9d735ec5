/* -cl-denorms-are-zero on the CPU device (see wg_denormals.c). */
#ifndef KILN_LLVM_CPU_WG_DENORMALS_H
#define KILN_LLVM_CPU_WG_DENORMALS_H

#include <llvm-c/Core.h>
#include <stdbool.h>

/* Whether the kernel was built to flush single-precision denormals (its
 * denormal-fp-math-f32 attribute, which -cl-denorms-are-zero sets). */
bool kiln_wg_flushes_denormals(LLVMValueRef kernel);

/* Makes the work-group function wg run with MXCSR's flush-to-zero and
 * denormals-are-zero bits set, restoring the thread's MXCSR on return. */
void kiln_wg_flush_denormals(LLVMModuleRef m, LLVMValueRef wg);

#endif
