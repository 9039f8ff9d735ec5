/* 256-bit vectors for kernels that only stream, on AMD's cores with
 * AVX-512 (docs/kernels.md, "Kernels that only stream").
 *
 * Kiln prefers 512-bit vectors where the CPU has them (vector_width.h):
 * that doubled clpeak's scalar float kernel.  On a Zen 5 VM, though, a
 * kernel that only moves memory (saxpy: two loads, one multiply-add and
 * a store per element) ran 10-20% slower in 512-bit operations than in
 * 256-bit ones, which is PoCL's lead there; on the 16-core Xeon of the GPU
 * machine 256 bits gained nothing (docs/performance.md). */
#ifndef KILN_LLVM_CPU_STREAM_WIDTH_H
#define KILN_LLVM_CPU_STREAM_WIDTH_H

#include <llvm-c/Core.h>
#include <stdbool.h>

/* Whether the rule applies to code for this CPU (LLVM's name) and
 * features: znver4 and later, preferring 512-bit vectors
 * ("-prefer-256-bit", the default of KILN_CPU_VECTOR_WIDTH). */
bool kiln_cpu_stream_narrow(const char *cpu, const char *features);

/* Whether the kernel function (before the work-group pass) only
 * streams: it reads or writes __global or __constant memory, does at
 * most two arithmetic operations per element it moves (floating-point
 * operations, integer multiplications and divisions, cheap math
 * intrinsics; address arithmetic aside), and neither touches __local
 * memory (a tiled algorithm computes on what it cached), nor uses
 * atomics, nor calls anything but work-item queries and intrinsics
 * (a builtin or a function of its own: work not counted here). */
bool kiln_kernel_only_streams(LLVMValueRef kernel);

/* Marks fn to prefer 256-bit vectors ("prefer-vector-width"): the
 * kernel when it only streams, then its work-group function (which
 * kiln_wg_finish may rebuild). */
void kiln_wg_prefer_256(LLVMValueRef fn);

/* Whether fn is so marked. */
bool kiln_wg_prefers_256(LLVMValueRef fn);

#endif
