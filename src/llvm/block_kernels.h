/* The kernels Clang makes of blocks that kernels enqueue (device-side
 * enqueue, OpenCL C 3.0 6.15.16): how they become kernels Kiln compiles
 * like any other, and how the code that enqueues one names it. */
#ifndef KILN_LLVM_BLOCK_KERNELS_H
#define KILN_LLVM_BLOCK_KERNELS_H

#include <llvm-c/Core.h>
#include <stdbool.h>

/* For every block kernel of m (Clang's __<f>_block_invoke[_<n>]_kernel,
 * which has no kernel_arg_* metadata): the metadata of a kernel taking
 * the block literal by value (a private pointer) and its __local pointer
 * arguments, so that its description lays them out as the run-time fills
 * them (offset 0, then 8 per __local argument); and every use of the
 * function's address (the "invoke" operand of __enqueue_kernel_* and
 * __get_kernel_*_impl) replaced by a constant string of its name, which
 * the run-time looks up in the program (include/kiln/devq_abi.h).  Run
 * on every module before its kernels are described; a second run changes
 * nothing.  False when out of host memory. */
bool kiln_block_kernels_prepare(LLVMModuleRef m);

#endif
