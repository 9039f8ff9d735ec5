#include "llvm/build_log.h"

#include <stdarg.h>
#include <stdio.h>

#include "util/alloc.h"

void kiln_build_log_append(struct kiln_build_log *l, const char *fmt, ...)
{
   va_list ap, again;
   va_start(ap, fmt);
   va_copy(again, ap);
   int n = vsnprintf(NULL, 0, fmt, ap);
   va_end(ap);
   if (n >= 0 && l->len + (size_t)n + 1 > l->cap) {
      size_t cap = (l->len + (size_t)n + 1) * 2;
      char *t = kiln_realloc(l->text, cap);
      if (t) {
         l->text = t;
         l->cap = cap;
      } else {
         n = -1; /* out of memory: keep what the log has */
      }
   }
   if (n >= 0) {
      vsnprintf(l->text + l->len, (size_t)n + 1, fmt, again);
      l->len += (size_t)n;
   }
   va_end(again);
}
