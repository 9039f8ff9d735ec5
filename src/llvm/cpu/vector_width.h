/* The vector width the CPU device's code prefers (KILN_CPU_VECTOR_WIDTH,
 * docs/env.md). */
#ifndef KILN_LLVM_CPU_VECTOR_WIDTH_H
#define KILN_LLVM_CPU_VECTOR_WIDTH_H

/* The x86 tuning feature to add to the host's features (a comma-separated
 * LLVM feature list): "-prefer-256-bit" for 512-bit vectors,
 * "+prefer-256-bit" for 256-bit ones; NULL where the host has no
 * AVX-512, whose widest vectors are the 256-bit ones anyway.  *invalid:
 * the variable's value when it is neither 256 nor 512 (then ignored),
 * else NULL. */
const char *kiln_cpu_vector_width_feature(const char *features, const char **invalid);

#endif
