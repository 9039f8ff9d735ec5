/* Little-endian byte streams (see bytes.h). */
#include "util/bytes.h"

#include <string.h>

void kiln_bytes_put(struct kiln_bytes_out *o, const void *data, size_t n)
{
   if (o->p && n)
      memcpy(o->p + o->pos, data, n);
   o->pos += n;
}

void kiln_bytes_put_le(struct kiln_bytes_out *o, uint64_t v, unsigned bytes)
{
   unsigned char b[8];
   for (unsigned i = 0; i < bytes; i++)
      b[i] = (unsigned char)(v >> (8 * i));
   kiln_bytes_put(o, b, bytes);
}

const unsigned char *kiln_bytes_take(struct kiln_bytes_in *in, size_t n)
{
   if (in->bad || n > in->left) {
      in->bad = true;
      return NULL;
   }
   const unsigned char *p = in->p;
   in->p += n;
   in->left -= n;
   return p;
}

uint64_t kiln_bytes_get_le(struct kiln_bytes_in *in, unsigned bytes)
{
   const unsigned char *p = kiln_bytes_take(in, bytes);
   uint64_t v = 0;
   for (unsigned i = bytes; p && i-- > 0;)
      v = v << 8 | p[i];
   return v;
}
