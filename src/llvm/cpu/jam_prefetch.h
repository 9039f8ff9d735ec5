/* KILN_JAM_PREFETCH (docs/env.md): a software prefetch in the wide rounds
 * of jammed row loops (wg_jam_wide.h).  The hardware prefetchers follow 8
 * rows read 32 bytes at a time in turn poorly: on the 16-core Xeon of the
 * GPU machine kiln_bench's chunked reduction went from 0.63-0.68 to
 * 0.85-1.00 of the triad bound with a prefetch of each row's next block
 * (docs/performance.md). */
#ifndef KILN_LLVM_CPU_JAM_PREFETCH_H
#define KILN_LLVM_CPU_JAM_PREFETCH_H

enum kiln_jam_prefetch_kind {
   KILN_JAM_PREFETCH_OFF,   /* KILN_JAM_PREFETCH=0 */
   KILN_JAM_PREFETCH_FIXED, /* KILN_JAM_PREFETCH=D: D bytes ahead */
   KILN_JAM_PREFETCH_ROWS,  /* unset, empty, "rows" or "rows+F": from the rows' length */
};

struct kiln_jam_prefetch {
   enum kiln_jam_prefetch_kind kind;
   unsigned bytes; /* FIXED: the distance, 1 to KILN_JAM_PREFETCH_MAX */
   unsigned far;   /* ROWS: a second prefetch this far beyond the first, 0 for none */
};

/* The default, ROWS: each wide round prefetches a row's next jammed
 * block, the same row of the block of K rows that follows (K the jam
 * width, 8 or 16: jam_width.h), assuming the rows lie one after another
 * (a chunk per work-item, a matrix row per work-item).  The row length is
 * the loop's trip count times the load's element size, both as the loop
 * starts (wg_jam_wide.c), so the distance is K rows:
 *
 *    K * row bytes, at least KILN_JAM_PREFETCH_ROWS_LO, where that is at
 *    most KILN_JAM_PREFETCH_ROWS_HI;
 *    KILN_JAM_PREFETCH_ROWS_LONG (within the row itself) for longer rows.
 *
 * Rows of more than HI / K bytes (4 KiB for K = 8) would keep over HI
 * bytes prefetched but not yet read per work-item, and a distance that
 * is a multiple of the row length below K rows lands where another row
 * of the same block reads in the same round: useless.  LONG is below
 * every such row's length, so it is a plain streaming prefetch in the
 * row.  On the
 * VM (read_pattern, 4 GiB, docs/performance.md) rows of 4 KiB gained
 * most from the next block (0.89 of a contiguous read, 0.80-0.81 in-row),
 * rows of 8 KiB as much from either (0.86 / 0.87 with 512 in-row), rows
 * of 16 KiB most from 512 in-row (0.92; 1024: 0.90, 2048: 0.88, the next
 * block: 0.85-0.86).
 * Where rows are not adjacent (a pitch larger than the row), K rows'
 * length is another in-row or beyond-row distance ahead: a prefetch
 * never faults, it only may fetch a line nobody reads. */
#define KILN_JAM_PREFETCH_ROWS_LO 512u
#define KILN_JAM_PREFETCH_ROWS_HI 32768u
#define KILN_JAM_PREFETCH_ROWS_LONG 512u

/* ROWS also prefetches each line a second time, FAR bytes beyond that
 * distance ("rows+F" sets F, "rows+0" leaves the one prefetch).  One
 * prefetch a block ahead keeps a single stream of lines in flight per
 * worker, which on the 2-core Zen 5 VM read 0.88-0.93 of a plain C loop
 * over the same buffer; the second, further ahead, has more lines in
 * flight at once and took kiln_bench's chunked reduction to 1.07-1.13 of
 * that loop, and rows of 64 bytes from 0.59-0.65 to 0.89-0.92 (launches
 * alternating in one process, docs/performance.md).  8 KiB did best
 * there: 24 KiB gained little, 32 KiB lost on short rows (L1 is 48 KiB).
 * A single prefetch at the far distance did not gain.  On the 16-core
 * Xeon, where one stream already reads what the memory gives, it is
 * neutral. */
#define KILN_JAM_PREFETCH_FAR_DEFAULT 8192u
#define KILN_JAM_PREFETCH_MAX 65536u

/* The setting (read once per process).  *invalid, where not NULL: the
 * variable's value when it is neither "rows", "rows+F" nor a number of
 * bytes (F and the number at most KILN_JAM_PREFETCH_MAX; then ignored:
 * the default applies), else NULL. */
struct kiln_jam_prefetch kiln_jam_prefetch_setting(const char **invalid);

#endif
