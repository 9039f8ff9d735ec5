#include "util/printf_spec.h"

#include <string.h>

static bool is_digit(char c)
{
   return c >= '0' && c <= '9';
}

/* A decimal field; values past a few digits make no sense as widths and
 * are clamped so that nothing overflows. */
static int number(const char **p)
{
   int v = 0;
   while (is_digit(**p)) {
      if (v < 100000)
         v = v * 10 + (**p - '0');
      (*p)++;
   }
   return v;
}

const char *kiln_printf_spec_next(const char *p, struct kiln_printf_spec *s)
{
   const char *pct = strchr(p, '%');
   if (!pct)
      return NULL;
   memset(s, 0, sizeof(*s));
   s->width = -1;
   s->precision = -1;
   const char *q = pct + 1;
   if (*q == '%') {
      s->conversion = '%';
      s->len = 2;
      return pct;
   }
   size_t nflags = 0;
   while (*q && strchr("-+ #0", *q)) {
      if (!strchr(s->flags, *q) && nflags < sizeof(s->flags) - 1)
         s->flags[nflags++] = *q;
      q++;
   }
   if (is_digit(*q))
      s->width = number(&q);
   if (*q == '.') {
      q++;
      s->precision = number(&q); /* "." alone is precision 0, as in C */
   }
   bool ok = true;
   if (*q == 'v') {
      q++;
      int n = number(&q);
      if (n == 2 || n == 3 || n == 4 || n == 8 || n == 16)
         s->vector = (unsigned)n;
      else
         ok = false;
   }
   if (q[0] == 'h' && q[1] == 'h') {
      s->length = KILN_PRINTF_LEN_HH;
      q += 2;
   } else if (q[0] == 'h' && q[1] == 'l') {
      s->length = KILN_PRINTF_LEN_HL;
      q += 2;
   } else if (q[0] == 'h') {
      s->length = KILN_PRINTF_LEN_H;
      q++;
   } else if (q[0] == 'l') {
      s->length = KILN_PRINTF_LEN_L;
      q++;
   }
   char c = *q;
   if (c && strchr("diouxXfFeEgGaAcsp", c)) {
      q++;
      /* §6.12.13.2: hl only with a vector; vectors of c, s and p do not
       * exist. */
      if (s->length == KILN_PRINTF_LEN_HL && !s->vector)
         ok = false;
      if (s->vector && strchr("csp", c))
         ok = false;
      /* Length modifiers apply to integer and floating conversions only. */
      if (s->length != KILN_PRINTF_LEN_NONE && strchr("csp", c))
         ok = false;
      s->conversion = ok ? c : 0;
   } else {
      s->conversion = 0;
   }
   s->len = (size_t)(q - pct);
   return pct;
}

bool kiln_printf_spec_takes_arg(const struct kiln_printf_spec *s)
{
   return s->conversion && s->conversion != '%';
}
