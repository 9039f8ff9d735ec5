/* Loads LLVM 19's NVPTX code generator compiles wrongly.  src/llvm only. */
#ifndef KILN_LLVM_NVPTX_LOADS_H
#define KILN_LLVM_NVPTX_LOADS_H

#include <llvm-c/Types.h>

/* After the optimiser, before code generation: a load of <16 x i8> known
 * aligned to less than 4 bytes (vload16 of char or uchar at any address)
 * becomes four <4 x i8> loads with that alignment.  The code generator
 * turns the whole load into ld.v4.u32 whatever its alignment: at an
 * address that is not a multiple of 4 the kernel dies with an illegal
 * address. */
void kiln_nvptx_split_byte_vector_loads(LLVMModuleRef m);

#endif
