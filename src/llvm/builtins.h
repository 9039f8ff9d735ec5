/* Kiln's OpenCL C builtins library for the CPU device, as LLVM bitcode
 * embedded in the driver (built from src/llvm/builtins/ at build time). */
#ifndef KILN_LLVM_BUILTINS_H
#define KILN_LLVM_BUILTINS_H

#include <stddef.h>

const unsigned char *kiln_builtins_bitcode(size_t *size);

#endif
