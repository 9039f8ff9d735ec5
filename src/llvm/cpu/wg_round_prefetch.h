/* A software prefetch of what a later round reads and writes, in loops
 * that the group runs in rounds (wg_predicate.h).
 *
 * A grid-stride loop run in rounds reads, per round and group, one
 * contiguous run of local_size elements, and the next round's run lies a
 * global size further on (kiln_bench's grid-stride reduction: 1 KiB
 * every 4 MiB).  The hardware prefetchers treat each run as a stream of
 * its own, too short for them to get ahead, and the out-of-order window
 * holds only a few rounds of the loop's masked loads, flag updates and
 * slots: the loop waits for memory once per round.  On the 2-core Zen 5
 * VM that reduction ran at 7-8 GB/s where a C loop over the same runs
 * reads 34 (docs/performance.md).
 *
 * So each load or store in such a loop's body whose address depends on
 * the round number (through integer arithmetic and GEPs only) gets a
 * prefetch of the same address `rounds` rounds later.  The work-item loop
 * still has to vectorize, and llvm.prefetch would keep it scalar, so the
 * prefetch is a call of a marker function that declares vector variants
 * (the "vector-function-abi-variant" attribute): where the address is
 * contiguous across work-items the loop vectorizer passes the first
 * lane's address (a linear parameter), and the lowering after the
 * optimiser turns that call into one llvm.prefetch per cache line of the
 * vector.  A marker call left scalar, or vectorized with a vector of
 * addresses (a gather), is dropped: there a prefetch per work-item would
 * cost more than it saves.
 */
#ifndef KILN_LLVM_WG_ROUND_PREFETCH_H
#define KILN_LLVM_WG_ROUND_PREFETCH_H

#include <llvm-c/Core.h>

#define KILN_ROUND_PREFETCH_DEFAULT 2048u
#define KILN_ROUND_PREFETCH_MAX 65536u

/* KILN_ROUND_PREFETCH (docs/env.md): how far ahead, in bytes of each
 * address's run, 0 for no prefetches.  *invalid, where not NULL: the
 * variable's value when it is not a number of bytes up to
 * KILN_ROUND_PREFETCH_MAX (then ignored: the default applies), else
 * NULL. */
unsigned kiln_wg_round_prefetch_setting(const char **invalid);

/* Adds the marker calls to the loop body `blocks`, where `iters` are the
 * loads of the round number (all of one integer type) and lsize0 the
 * local size in dimension 0 (an i64 of the entry block): the prefetch
 * goes as many rounds ahead as the setting's bytes take, each round
 * reading lsize0 elements of an address. */
void kiln_wg_round_prefetch(LLVMBasicBlockRef *blocks, unsigned nblocks, const LLVMValueRef *iters,
                            unsigned niters, LLVMValueRef lsize0);

/* Declares the markers' vector variants again in m, a part split off a
 * module (cpu_split.h copies only what the code reaches). */
void kiln_wg_round_prefetch_declare(LLVMModuleRef m);

/* After the optimiser: the marker calls become prefetches or go. */
void kiln_wg_round_prefetch_lower(LLVMModuleRef m);

#endif
