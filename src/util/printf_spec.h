/* Conversion specifications of OpenCL C printf format strings (OpenCL 1.2
 * §6.12.13.2): %[flags][width][.precision][vector][length]conversion.
 * One parser for both halves of printf: the compiler reads a format to
 * know which arguments are %s strings, the host to print them. */
#ifndef KILN_UTIL_PRINTF_SPEC_H
#define KILN_UTIL_PRINTF_SPEC_H

#include <stdbool.h>
#include <stddef.h>

enum kiln_printf_length {
   KILN_PRINTF_LEN_NONE,
   KILN_PRINTF_LEN_HH,
   KILN_PRINTF_LEN_H,
   KILN_PRINTF_LEN_HL, /* vectors only: 32-bit elements */
   KILN_PRINTF_LEN_L,
};

struct kiln_printf_spec {
   size_t len;        /* characters from the '%' on */
   char flags[8];     /* NUL-terminated, at most one of each of "-+ #0" */
   int width;         /* -1 when not given */
   int precision;     /* -1 when not given */
   unsigned vector;   /* 0 for a scalar, else 2, 3, 4, 8 or 16 */
   enum kiln_printf_length length;
   char conversion;   /* one of "diouxXfFeEgGaAcsp%", or 0 when invalid */
};

/* The next conversion specification at or after p: returns where its '%'
 * is and describes it in *s, or NULL when no '%' is left.  An invalid
 * specification has s->conversion 0 and s->len covering what was read
 * (the host then prints it as it stands and takes no argument). */
const char *kiln_printf_spec_next(const char *p, struct kiln_printf_spec *s);

/* Whether the specification takes an argument (all but "%%" and invalid ones). */
bool kiln_printf_spec_takes_arg(const struct kiln_printf_spec *s);

#endif
