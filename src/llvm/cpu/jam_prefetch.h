/* KILN_JAM_PREFETCH (docs/env.md, experimental): a software prefetch in
 * the wide rounds of jammed row loops (wg_jam_wide.h), to learn whether
 * the hardware prefetchers follow 8 rows read 32 bytes at a time in turn
 * (issue 19). */
#ifndef KILN_LLVM_CPU_JAM_PREFETCH_H
#define KILN_LLVM_CPU_JAM_PREFETCH_H

/* How many bytes ahead of each wide load's address a wide round
 * prefetches: 0 (the default, unset or 0) for no prefetch.  *invalid,
 * where not NULL: the variable's value when it is not a number of bytes
 * from 1 to KILN_JAM_PREFETCH_MAX (then ignored), else NULL.  Read once
 * per process. */
#define KILN_JAM_PREFETCH_MAX 65536u
unsigned kiln_jam_prefetch_bytes(const char **invalid);

#endif
