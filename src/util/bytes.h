/* Little-endian byte streams for Kiln's own serialized formats (the
 * compile cache's payload, the CPU device's code container): a writer
 * that can measure first (p NULL) and then fill a buffer of that size,
 * and a reader that turns bad at the first read past its end. */
#ifndef KILN_UTIL_BYTES_H
#define KILN_UTIL_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kiln_bytes_out {
   unsigned char *p; /* NULL: only measure */
   size_t pos;
};

void kiln_bytes_put(struct kiln_bytes_out *o, const void *data, size_t n);
/* The low `bytes` bytes of v (1 to 8), least significant first. */
void kiln_bytes_put_le(struct kiln_bytes_out *o, uint64_t v, unsigned bytes);

struct kiln_bytes_in {
   const unsigned char *p;
   size_t left;
   bool bad;
};

/* The next n bytes, or NULL (and bad) when fewer are left. */
const unsigned char *kiln_bytes_take(struct kiln_bytes_in *in, size_t n);
/* A `bytes`-byte little-endian integer; 0 once bad. */
uint64_t kiln_bytes_get_le(struct kiln_bytes_in *in, unsigned bytes);

#endif
