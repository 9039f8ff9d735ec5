/* Integer division that cannot trap on the CPU device (see safe_div.c). */
#ifndef KILN_LLVM_SAFE_DIV_H
#define KILN_LLVM_SAFE_DIV_H

#include <llvm-c/Core.h>

/* Rewrites the divisor of every sdiv/udiv/srem/urem in m so that none
 * divides by zero or computes MIN / -1.  Run before optimisation. */
void kiln_safe_divisions(LLVMModuleRef m);

#endif
