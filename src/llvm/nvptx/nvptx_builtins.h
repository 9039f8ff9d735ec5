/* OpenCL C built-ins libclc-19's nvptx library lacks or gets wrong,
 * defined by Kiln where a module declares them (as nvptx_atomics.c does
 * for 64-bit atom_*) or in place of libclc's:
 *   - mad_hi(a, b, c) for every integer type and vector (libclc has
 *     mul_hi but no mad_hi at all);
 *   - smoothstep(double, double, doubleN), the scalar-edge form of the
 *     double vectors;
 *   - sub_sat of signed integers (libclc: 0 - INT_MIN gives INT_MIN) and
 *     mad_sat of long and ulong (libclc: wrong near the limits).
 * src/llvm only. */
#ifndef KILN_LLVM_NVPTX_BUILTINS_H
#define KILN_LLVM_NVPTX_BUILTINS_H

#include <llvm-c/Types.h>

void kiln_nvptx_define_builtins(LLVMModuleRef m);

#endif
