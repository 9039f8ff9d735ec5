/* KILN_JAM_WIDTH (docs/env.md): how many work-items a jammed row loop
 * runs side by side (wg_jam.h).  Each work-item's sum is a chain of
 * strict-order adds; a block of K work-items keeps K chains in the lanes
 * of one round's vectors, so the round's add latency is shared by K
 * work-items.  Where the cores outrun that chain, more lanes pay: on a
 * Zen 5 VM blocks of 16 read the chunked reduction 20-28% faster than
 * blocks of 8; on the GPU machine's 16-core Xeon, bound by memory there,
 * they measured from 12% slower to 9% faster, and an Ice Lake-class VM
 * showed no gain (docs/performance.md).  So the default follows the
 * CPU. */
#ifndef KILN_LLVM_CPU_JAM_WIDTH_H
#define KILN_LLVM_CPU_JAM_WIDTH_H

/* The widths there are: a block is transposed 8 work-items at a time
 * (wg_jam_transpose.c). */
#define KILN_JAM_WIDTH_MIN 8u
#define KILN_JAM_WIDTH_MAX 16u

/* The default for a CPU that LLVM names cpu (LLVMGetHostCPUName): 16 on
 * AMD's cores with AVX-512 (znver4 and later), 8 elsewhere. */
unsigned kiln_jam_width_for_cpu(const char *cpu);

/* The setting (read once per process): KILN_JAM_WIDTH when it is 8 or
 * 16, else the host CPU's default.  *invalid, where not NULL: the
 * variable's value when it is set to anything else (then ignored), else
 * NULL. */
unsigned kiln_jam_width(const char **invalid);

#endif
