/* Comparisons LLVM 19's NVPTX code generator cannot select.  src/llvm
 * only. */
#ifndef KILN_LLVM_NVPTX_COMPARE_H
#define KILN_LLVM_NVPTX_COMPARE_H

#include <llvm-c/Types.h>

/* After the optimiser, before code generation: an integer comparison of
 * vectors of i16 becomes one comparison per element.  short2 and ushort2
 * are a legal type (two halves of a 32-bit register) for the code
 * generator, which folds `sext (icmp <2 x i16>)` (OpenCL C's vector
 * relational results: !x, x < y on short2) into a v2i16 setcc that it has
 * no pattern for: "Cannot select: v2i16 = setcc" (CTS integer_ops
 * quick_short_logic/compare). */
void kiln_nvptx_scalarize_i16_compares(LLVMModuleRef m);

#endif
