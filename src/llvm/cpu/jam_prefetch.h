/* KILN_JAM_PREFETCH (docs/env.md): a software prefetch in the wide rounds
 * of jammed row loops (wg_jam_wide.h).  The hardware prefetchers follow 8
 * rows read 32 bytes at a time in turn poorly: on the 16-core Xeon of the
 * GPU machine kiln_bench's chunked reduction went from 0.63-0.68 to
 * 0.85-1.00 of the triad bound with 2048 bytes (docs/performance.md). */
#ifndef KILN_LLVM_CPU_JAM_PREFETCH_H
#define KILN_LLVM_CPU_JAM_PREFETCH_H

/* How many bytes ahead of each wide load's address a wide round
 * prefetches: KILN_JAM_PREFETCH_DEFAULT where the variable is unset or
 * empty, 0 for none.  *invalid, where not NULL: the variable's value when
 * it is not a number of bytes up to KILN_JAM_PREFETCH_MAX (then ignored),
 * else NULL.  Read once per process.  The default is a block of 8 rows of
 * 256 bytes ahead (kiln_bench's chunks of 64 floats): a row's next block. */
#define KILN_JAM_PREFETCH_DEFAULT 2048u
#define KILN_JAM_PREFETCH_MAX 65536u
unsigned kiln_jam_prefetch_bytes(const char **invalid);

#endif
