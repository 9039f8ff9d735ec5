/* KILN_CHECK=bounds: instruments every __global, __constant and __local
 * access of a program so that one outside its object stops the launch
 * instead of touching memory (docs/env.md, include/kiln/bounds.h).  Runs
 * on the module before the work-group pass; the checks call into the CPU
 * driver's run-time (include/kiln/cpu_abi.h). */
#ifndef KILN_LLVM_BOUNDS_CHECK_H
#define KILN_LLVM_BOUNDS_CHECK_H

#include <llvm-c/Core.h>
#include <stdbool.h>

struct kiln_kernel_info;

struct kiln_bounds_stats {
   unsigned checked;  /* accesses given a check */
   unsigned searched; /* of those, checked against every object of the launch */
};

/* Step 1: marks always-inline every function that takes or returns a
 * __global, __constant or __local pointer, so that after the always-inline
 * pass every access through one sits in a kernel, where its pointer can be
 * traced to the kernel argument it comes from. */
void kiln_bounds_mark_inlining(LLVMModuleRef m);

/* Step 2, after inlining and SROA: puts a check before each access.  The
 * kernels are described by kernels[] in module order.  False when out of
 * memory. */
bool kiln_bounds_instrument(LLVMModuleRef m, const struct kiln_kernel_info *kernels,
                            unsigned num_kernels, struct kiln_bounds_stats *stats);

#endif
