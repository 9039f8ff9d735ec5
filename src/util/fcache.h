/* A persistent store of blobs under 32-byte keys, in one directory, safe
 * to share between processes: the compile cache's disk half
 * (docs/cache.md).  Knows nothing of OpenCL.
 *
 * Each entry is one file, <64 hex digits of the key>.kce, holding a header
 * (magic, format version, the key, the payload's size), the payload, and
 * the SHA-256 of everything before it.  Writers fill a temporary file
 * created with O_EXCL and rename it into place, so a reader sees a whole
 * old entry or a whole new one, never half of either.  A reader trusts
 * nothing: a short, foreign (other key, other version) or corrupted entry
 * is a miss, and is removed so that the next build writes a good one.
 *
 * The directory must belong to this user and be writable by no one else
 * (no group or other write bit: 0700 and 0755 are both fine); one that is
 * not, or a symbolic link, is refused rather than used: its entries are
 * machine code the process would run, so nobody else may place or swap
 * them.  Entries themselves are mode 0600. */
#ifndef KILN_UTIL_FCACHE_H
#define KILN_UTIL_FCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KILN_FCACHE_KEY_SIZE 32

/* Lives in the caller's storage: opening allocates nothing, so a
 * process-wide cache costs no heap block that outlives every object. */
struct kiln_fcache {
   int dir; /* the directory's descriptor; every access goes through it */
   uint64_t max_bytes;
   char path[4096]; /* for log lines */
   char error[4200]; /* after a failed kiln_fcache_open: why, naming dir */
};

/* Opens (creating it, mode 0700, and its missing parents) the directory
 * dir, whose entries may take max_bytes in all.  False when it cannot be
 * used, with the reason in c->error (the caller decides who hears it). */
bool kiln_fcache_open(struct kiln_fcache *c, const char *dir, uint64_t max_bytes);
void kiln_fcache_close(struct kiln_fcache *c);

enum kiln_fcache_result {
   KILN_FCACHE_HIT,
   KILN_FCACHE_MISS,    /* absent, or unusable and now removed */
   KILN_FCACHE_NO_MEMORY,
};

/* The payload stored under key, in *data (kiln_malloc'd) and *size.  A hit
 * marks the entry as recently used (its mtime), for eviction. */
enum kiln_fcache_result kiln_fcache_get(struct kiln_fcache *c,
                                        const unsigned char key[KILN_FCACHE_KEY_SIZE],
                                        void **data, size_t *size);

/* Stores payload under key, replacing any entry, then evicts the least
 * recently used entries while the total exceeds the limit.  False when it
 * could not (disk full, out of memory): the cache is only an accelerator,
 * and callers go on without it. */
bool kiln_fcache_put(struct kiln_fcache *c, const unsigned char key[KILN_FCACHE_KEY_SIZE],
                     const void *data, size_t size);

/* Removes the entry of key, if any. */
void kiln_fcache_remove(struct kiln_fcache *c, const unsigned char key[KILN_FCACHE_KEY_SIZE]);

/* Bytes the entries take (as eviction counts them). */
uint64_t kiln_fcache_size(struct kiln_fcache *c);

/* The entry file name of a key: "<64 hex>.kce" into out[69]. */
void kiln_fcache_entry_name(const unsigned char key[KILN_FCACHE_KEY_SIZE], char out[69]);

#endif
