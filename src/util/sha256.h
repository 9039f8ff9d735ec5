/* SHA-256 (FIPS 180-4), for the compile cache's keys and entry checksums:
 * a cache entry is machine code the process runs, so its integrity check
 * must not be one a chance corruption can pass. */
#ifndef KILN_UTIL_SHA256_H
#define KILN_UTIL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define KILN_SHA256_SIZE 32

struct kiln_sha256 {
   uint32_t h[8];
   uint64_t length; /* bytes hashed so far */
   unsigned char block[64];
   size_t used;     /* bytes waiting in block */
};

void kiln_sha256_init(struct kiln_sha256 *s);
void kiln_sha256_update(struct kiln_sha256 *s, const void *data, size_t size);
void kiln_sha256_final(struct kiln_sha256 *s, unsigned char digest[KILN_SHA256_SIZE]);

/* One call for a whole buffer. */
void kiln_sha256(const void *data, size_t size, unsigned char digest[KILN_SHA256_SIZE]);

/* 64 lowercase hex digits and a NUL into out[65]. */
void kiln_sha256_hex(const unsigned char digest[KILN_SHA256_SIZE], char out[65]);

#endif
