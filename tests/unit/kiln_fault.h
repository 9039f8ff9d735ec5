/* Allocation failure injection for test_faults (docs/testing.md).
 *
 * test_faults links Kiln statically with -Wl,--wrap=<f> for every function
 * of src/util/alloc.h and for kiln_object_alloc/kiln_object_free, so each
 * of Kiln's own allocations passes through kiln_fault.c: it can be made to
 * fail, and live allocations are counted.  Allocations inside LLVM and
 * Clang, and those of the C library itself, are not seen. */
#ifndef KILN_FAULT_H
#define KILN_FAULT_H

#include <stdbool.h>

/* From now on, Kiln's allocation number n (0 = the next one, counted over
 * every thread) fails; with persistent, so does every one after it. */
void kt_fault_arm(long n, bool persistent);
/* Stops failing allocations; true if one failed since kt_fault_arm. */
bool kt_fault_disarm(void);

/* What Kiln holds now: blocks from util/alloc.h not yet freed, and
 * objects from kiln_object_alloc not yet given back. */
struct kt_alloc_count {
   long blocks, objects;
};
struct kt_alloc_count kt_alloc_live(void);

/* For leak reports: a mark, and then where each block allocated after it
 * and still live was made (and any kiln_free of a block util/alloc.h did
 * not hand out), on stderr as file+offset for addr2line. */
unsigned long kt_alloc_mark(void);
void kt_alloc_report(unsigned long mark);

#endif
