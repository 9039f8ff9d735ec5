/* Printing printf records on the host (docs/printf.md).
 *
 * Scalars go through the C library's own printf with a format rebuilt
 * from the parsed specification, so flags, width, precision, %a, inf and
 * nan all print as the host's printf prints them.  Vectors are Kiln's
 * loop: each element with the same specification, separated by commas
 * (§6.12.13.2).  The table comes from the program's own object, which
 * the program binary's checksum protects; it is still read with bounds
 * checks, as is every record, so that nothing a kernel wrote can make
 * this read outside the buffer.
 */
#include "util/printf_format.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kiln/printf.h"
#include "util/alloc.h"
#include "util/printf_spec.h"

static size_t buffer_size = KILN_PRINTF_BUFFER_DEFAULT;
static pthread_once_t size_once = PTHREAD_ONCE_INIT;

static void size_init(void)
{
   const char *env = getenv("KILN_PRINTF_BUFFER_SIZE");
   if (!env || !*env)
      return;
   char *end;
   unsigned long long v = strtoull(env, &end, 0);
   /* Room for at least one record header; at most 1 GiB. */
   if (!*end && v >= sizeof(struct kiln_printf_record) && v <= (1ull << 30))
      buffer_size = (size_t)v;
}

size_t kiln_printf_buffer_size(void)
{
   pthread_once(&size_once, size_init);
   return buffer_size;
}

void kiln_printf_buffer_reset(struct kiln_printf_buffer *buf, size_t capacity)
{
   buf->used = 0;
   buf->capacity = capacity;
   buf->drop_at = UINT64_MAX;
   buf->pad = 0;
}

static uint32_t get32(const unsigned char *p)
{
   return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_uint(const unsigned char *p, unsigned size)
{
   uint64_t v = 0;
   for (unsigned i = 0; i < size && i < 8; i++)
      v |= (uint64_t)p[i] << (8 * i);
   return v;
}

static int64_t get_int(const unsigned char *p, unsigned size)
{
   uint64_t v = get_uint(p, size);
   if (size < 8 && size && (v >> (size * 8 - 1)) & 1)
      v |= ~0ull << (size * 8);
   return (int64_t)v;
}

static double half_to_double(uint16_t h)
{
   unsigned e = (h >> 10) & 0x1f, m = h & 0x3ff;
   double v;
   if (e == 0)
      v = m / 16777216.0; /* m * 2^-24 */
   else if (e == 31)
      v = m ? __builtin_nan("") : __builtin_inf();
   else
      v = (1024 + m) * __builtin_ldexp(1.0, (int)e - 25);
   return h & 0x8000 ? -v : v;
}

static double get_float(const unsigned char *p, unsigned size)
{
   if (size == 8) {
      double d;
      memcpy(&d, p, 8);
      return d;
   }
   if (size == 4) {
      float f;
      memcpy(&f, p, 4);
      return f;
   }
   return half_to_double((uint16_t)get_uint(p, 2));
}

/* A float where the format wants an integer (a kernel's mistake): its
 * value when it has one, without the undefined conversion of C. */
static int64_t float_to_int(double v)
{
   if (!(v > -9.2e18 && v < 9.2e18))
      return 0;
   return (int64_t)v;
}

/* An entry of the table, checked to lie inside it. */
struct entry {
   uint32_t record_size;
   uint32_t num_args;
   const unsigned char *args;
   const char *text;
};

static bool get_entry(const struct kiln_printf_table *t, uint32_t index, struct entry *e)
{
   if (index >= t->num_entries)
      return false;
   const unsigned char *base = (const unsigned char *)t;
   uint32_t off = t->offsets[index];
   if (off < sizeof(*t) || off > t->size || t->size - off < 8)
      return false;
   e->record_size = get32(base + off);
   e->num_args = get32(base + off + 4);
   if (e->num_args > (t->size - off - 8) / 8)
      return false;
   e->args = base + off + 8;
   e->text = (const char *)(e->args + (size_t)e->num_args * 8);
   size_t room = t->size - (size_t)((const unsigned char *)e->text - base);
   return room && memchr(e->text, 0, room);
}

/* "%" flags width .precision, then `length` and the conversion. */
static void c_format(char *out, size_t size, const struct kiln_printf_spec *s, const char *length,
                     char conv)
{
   int n = snprintf(out, size, "%%%s", s->flags);
   if (s->width >= 0)
      n += snprintf(out + n, size - (size_t)n, "%d", s->width);
   if (s->precision >= 0)
      n += snprintf(out + n, size - (size_t)n, ".%d", s->precision);
   snprintf(out + n, size - (size_t)n, "%s%c", length, conv);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

/* One element (or the scalar) of an argument. */
static void print_elem(FILE *out, const struct kiln_printf_spec *s,
                       const struct kiln_printf_table *t, const struct kiln_printf_arg *a,
                       const unsigned char *p, const struct kiln_printf_reader *reader)
{
   char fmt[64];
   char conv = s->conversion;
   unsigned size = a->elem_size;
   if (strchr("di", conv)) {
      int64_t v = a->kind == KILN_PRINTF_ARG_FLOAT ? float_to_int(get_float(p, size))
                                                   : get_int(p, size);
      /* The length modifier says what the value is (hh: char, h: short,
       * none/hl: int, l: long), as C's printf converts it. */
      switch (s->length) {
      case KILN_PRINTF_LEN_HH: v = (signed char)v; break;
      case KILN_PRINTF_LEN_H: v = (short)v; break;
      case KILN_PRINTF_LEN_L: break;
      default: v = (int)v; break;
      }
      c_format(fmt, sizeof(fmt), s, "ll", conv);
      fprintf(out, fmt, (long long)v);
   } else if (strchr("ouxX", conv)) {
      uint64_t v = get_uint(p, size);
      switch (s->length) {
      case KILN_PRINTF_LEN_HH: v = (unsigned char)v; break;
      case KILN_PRINTF_LEN_H: v = (unsigned short)v; break;
      case KILN_PRINTF_LEN_L: break;
      default: v = (unsigned)v; break;
      }
      c_format(fmt, sizeof(fmt), s, "ll", conv);
      fprintf(out, fmt, (unsigned long long)v);
   } else if (strchr("fFeEgGaA", conv)) {
      double v = a->kind == KILN_PRINTF_ARG_FLOAT ? get_float(p, size)
                                                  : (double)get_int(p, size);
      c_format(fmt, sizeof(fmt), s, "", conv);
      fprintf(out, fmt, v);
   } else if (conv == 'c') {
      c_format(fmt, sizeof(fmt), s, "", 'c');
      fprintf(out, fmt, (int)(unsigned char)get_uint(p, size));
   } else if (conv == 's') {
      const char *str = NULL;
      struct entry e;
      if (a->kind == KILN_PRINTF_ARG_STRING && get_entry(t, get32(p), &e))
         str = e.text;
      else if (a->kind == KILN_PRINTF_ARG_PTR && !reader)
         /* A string the compiler could not see: on host-memory devices
          * the kernel's address is the host's. */
         str = (const char *)(uintptr_t)get_uint(p, 8);
      char copy[KILN_PRINTF_STRING_MAX];
      if (a->kind == KILN_PRINTF_ARG_PTR && reader) {
         /* Elsewhere the device's memory, which only the driver reads. */
         uint64_t address = get_uint(p, 8);
         if (address && reader->read_string(reader->user, address, copy, sizeof(copy)))
            str = copy;
         else if (address)
            str = "(unreadable)";
      }
      c_format(fmt, sizeof(fmt), s, "", 's');
      fprintf(out, fmt, str ? str : "(null)");
   } else if (conv == 'p') {
      c_format(fmt, sizeof(fmt), s, "", 'p');
      fprintf(out, fmt, (void *)(uintptr_t)get_uint(p, size));
   }
}

#pragma GCC diagnostic pop

/* One record: the format's text with each specification replaced. */
static bool print_record(FILE *out, const struct kiln_printf_table *t, const unsigned char *rec,
                         uint32_t rec_size, const struct kiln_printf_reader *reader)
{
   struct entry e;
   if (!get_entry(t, get32(rec + 4), &e) || e.record_size != rec_size)
      return false;
   const char *cur = e.text;
   uint32_t next = 0;
   struct kiln_printf_spec s;
   for (const char *pct; (pct = kiln_printf_spec_next(cur, &s)); cur = pct + s.len) {
      fwrite(cur, 1, (size_t)(pct - cur), out);
      if (s.conversion == '%') {
         fputc('%', out);
         continue;
      }
      if (!kiln_printf_spec_takes_arg(&s) || next >= e.num_args) {
         fwrite(pct, 1, s.len, out); /* as it stands */
         continue;
      }
      const unsigned char *ad = e.args + (size_t)next++ * 8;
      struct kiln_printf_arg a = {ad[0], ad[1], ad[2], 0, get32(ad + 4)};
      unsigned count = a.count ? a.count : 1;
      if (!a.elem_size || a.offset > rec_size || (size_t)a.elem_size * count > rec_size - a.offset)
         return false;
      /* A scalar specification prints the first element, a vector one as
       * many as both have. */
      unsigned n = s.vector ? (s.vector < count ? s.vector : count) : 1;
      for (unsigned i = 0; i < n; i++) {
         if (i)
            fputc(',', out);
         print_elem(out, &s, t, &a, rec + a.offset + (size_t)i * a.elem_size, reader);
      }
   }
   fputs(cur, out);
   return true;
}

struct rec_ref {
   uint64_t item;
   uint64_t pos;
};

static int rec_cmp(const void *a, const void *b)
{
   const struct rec_ref *x = a, *y = b;
   if (x->item != y->item)
      return x->item < y->item ? -1 : 1;
   return x->pos < y->pos ? -1 : x->pos > y->pos;
}

size_t kiln_printf_print(const struct kiln_printf_table *table,
                         const struct kiln_printf_buffer *buf, FILE *out)
{
   return kiln_printf_print_with(table, buf, out, NULL);
}

size_t kiln_printf_print_with(const struct kiln_printf_table *table,
                              const struct kiln_printf_buffer *buf, FILE *out,
                              const struct kiln_printf_reader *reader)
{
   if (!table || table->magic != KILN_PRINTF_TABLE_MAGIC)
      return 0;
   uint64_t end = buf->used;
   if (end > buf->capacity)
      end = buf->capacity;
   if (end > buf->drop_at)
      end = buf->drop_at;
   /* Every record is at least a header: count them on the way. */
   size_t max = (size_t)(end / sizeof(struct kiln_printf_record));
   struct rec_ref *refs = kiln_malloc((max ? max : 1) * sizeof(*refs));
   if (!refs)
      return 0;
   size_t n = 0;
   for (uint64_t pos = 0; pos + sizeof(struct kiln_printf_record) <= end;) {
      const unsigned char *r = buf->data + pos;
      uint32_t size = get32(r);
      if (size < sizeof(struct kiln_printf_record) || size % 8 || size > end - pos)
         break;
      memcpy(&refs[n].item, r + 8, 8);
      refs[n++].pos = pos;
      pos += size;
   }
   qsort(refs, n, sizeof(*refs), rec_cmp);
   size_t printed = 0;
   flockfile(out);
   for (size_t i = 0; i < n; i++)
      printed += print_record(out, table, buf->data + refs[i].pos,
                              get32(buf->data + refs[i].pos), reader);
   funlockfile(out);
   fflush(out);
   kiln_free(refs);
   return printed;
}
