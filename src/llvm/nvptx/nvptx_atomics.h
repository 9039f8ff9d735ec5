/* The 64-bit atom_* functions of cl_khr_int64_base_atomics and
 * cl_khr_int64_extended_atomics, which libclc-19's nvptx library lacks
 * (it has the 32-bit ones only). */
#ifndef KILN_LLVM_NVPTX_ATOMICS_H
#define KILN_LLVM_NVPTX_ATOMICS_H

#include <llvm-c/Types.h>

/* Gives every declared, undefined 64-bit atom_* of the module (global or
 * local pointer, long or ulong) a body of one atomic instruction. */
void kiln_nvptx_define_atomics64(LLVMModuleRef m);

#endif
