/* util/printf_spec.c and util/printf_format.c: the host half of OpenCL C
 * printf, on hand-made tables and buffers (include/kiln/printf.h): records
 * sorted by work-item and kept in program order within one, the buffer's
 * end found from used/capacity/drop_at, vectors element by element, and
 * malformed records or tables stopping the walk without reading outside. */
#include "kiln_test.h"

#include <stdio.h>
#include <stdlib.h>

#include "kiln/printf.h"
#include "util/printf_format.h"
#include "util/printf_spec.h"

/* ---- the spec parser ---- */

static void test_spec(void **state)
{
   (void)state;
   struct kiln_printf_spec s;
   const char *f = "ab %-+08.3v4hlx cd";
   const char *at = kiln_printf_spec_next(f, &s);
   assert_ptr_equal(at, f + 3);
   assert_string_equal(s.flags, "-+0");
   assert_int_equal(s.width, 8);
   assert_int_equal(s.precision, 3);
   assert_int_equal(s.vector, 4);
   assert_int_equal(s.length, KILN_PRINTF_LEN_HL);
   assert_int_equal(s.conversion, 'x');
   assert_int_equal(s.len, strlen("%-+08.3v4hlx"));
   assert_null(kiln_printf_spec_next(at + s.len, &s));

   kiln_printf_spec_next("%%", &s);
   assert_int_equal(s.conversion, '%');
   assert_false(kiln_printf_spec_takes_arg(&s));
   /* hl needs a vector; vectors of %s do not exist; v5 is no width. */
   const char *bad[] = {"%hld", "%v4s", "%v5d", "%lc", "%q", "%v2hhp"};
   for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
      assert_non_null(kiln_printf_spec_next(bad[i], &s));
      assert_int_equal(s.conversion, 0);
      assert_false(kiln_printf_spec_takes_arg(&s));
   }
   kiln_printf_spec_next("%.f", &s);
   assert_int_equal(s.precision, 0);
   assert_int_equal(s.conversion, 'f');
   kiln_printf_spec_next("%v16hhu", &s);
   assert_int_equal(s.vector, 16);
   assert_int_equal(s.length, KILN_PRINTF_LEN_HH);
}

/* ---- tables and buffers built by hand ---- */

struct tb {
   unsigned char bytes[4096];
   uint32_t n, at;
   uint32_t offsets[16];
};

static uint32_t tb_entry(struct tb *t, uint32_t record_size, const struct kiln_printf_arg *args,
                         uint32_t num_args, const char *text)
{
   uint32_t off = t->at;
   memcpy(t->bytes + off, &record_size, 4);
   memcpy(t->bytes + off + 4, &num_args, 4);
   if (num_args)
      memcpy(t->bytes + off + 8, args, num_args * sizeof(*args));
   strcpy((char *)t->bytes + off + 8 + num_args * 8, text);
   t->at += (uint32_t)((8 + num_args * 8 + strlen(text) + 1 + 3) / 4 * 4);
   t->offsets[t->n] = off;
   return t->n++;
}

/* The table, with the entries moved behind the header. */
static struct kiln_printf_table *tb_finish(struct tb *t)
{
   size_t head = sizeof(struct kiln_printf_table) + t->n * 4;
   size_t size = head + t->at;
   struct kiln_printf_table *table = calloc(1, size);
   assert_non_null(table);
   table->magic = KILN_PRINTF_TABLE_MAGIC;
   table->num_entries = t->n;
   table->size = (uint32_t)size;
   for (uint32_t i = 0; i < t->n; i++)
      table->offsets[i] = (uint32_t)(head + t->offsets[i]);
   memcpy((unsigned char *)table + head, t->bytes, t->at);
   return table;
}

static struct kiln_printf_buffer *buffer(size_t capacity)
{
   struct kiln_printf_buffer *b = calloc(1, sizeof(*b) + capacity);
   assert_non_null(b);
   kiln_printf_buffer_reset(b, capacity);
   return b;
}

/* Appends a record as lowered code does: header, then the argument bytes. */
static void put(struct kiln_printf_buffer *b, uint32_t entry, uint64_t item, uint32_t size,
                const void *args, size_t args_size)
{
   unsigned char *r = b->data + b->used;
   memcpy(r, &size, 4);
   memcpy(r + 4, &entry, 4);
   memcpy(r + 8, &item, 8);
   memcpy(r + 16, args, args_size);
   b->used += size;
}

static char *print(const struct kiln_printf_table *t, const struct kiln_printf_buffer *b,
                   size_t *records)
{
   char *text = NULL;
   size_t len = 0;
   FILE *f = open_memstream(&text, &len);
   assert_non_null(f);
   *records = kiln_printf_print(t, b, f);
   fclose(f);
   return text;
}

static void test_order(void **state)
{
   (void)state;
   struct tb t = {0};
   struct kiln_printf_arg a = {KILN_PRINTF_ARG_INT, 4, 1, 0, 16};
   uint32_t e = tb_entry(&t, 24, &a, 1, "item %d\n");
   struct kiln_printf_table *table = tb_finish(&t);
   struct kiln_printf_buffer *b = buffer(1024);
   /* Items interleaved as threads would leave them; item 1 printed 10
    * then 11. */
   int32_t v[] = {30, 10, 20, 11, 0};
   uint64_t item[] = {3, 1, 2, 1, 0};
   for (int i = 0; i < 5; i++)
      put(b, e, item[i], 24, &v[i], 4);
   size_t n;
   char *out = print(table, b, &n);
   assert_int_equal(n, 5);
   assert_string_equal(out, "item 0\nitem 10\nitem 11\nitem 20\nitem 30\n");
   free(out);

   /* Dropped from the fourth record on: the reservation passed the end. */
   b->drop_at = 3 * 24;
   b->used += 100;
   out = print(table, b, &n);
   assert_int_equal(n, 3);
   assert_string_equal(out, "item 10\nitem 20\nitem 30\n");
   free(out);

   /* A used count past the capacity (later reservations) changes nothing
    * within it; a record claiming to run past the end stops the walk. */
   b->drop_at = UINT64_MAX;
   b->used = 5000;
   b->capacity = 4 * 24 + 8;
   out = print(table, b, &n);
   assert_int_equal(n, 4);
   free(out);
   free(b);
   free(table);
}

static void test_conversions(void **state)
{
   (void)state;
   struct tb t = {0};
   struct kiln_printf_arg vec = {KILN_PRINTF_ARG_FLOAT, 4, 4, 0, 16};
   struct kiln_printf_arg two[2] = {{KILN_PRINTF_ARG_INT, 1, 3, 0, 16},
                                    {KILN_PRINTF_ARG_STRING, 4, 1, 0, 24}};
   struct kiln_printf_arg one_l = {KILN_PRINTF_ARG_INT, 8, 1, 0, 16};
   uint32_t ev = tb_entry(&t, 32, &vec, 1, "v=%5.1v4hlf;");
   uint32_t es = tb_entry(&t, 0, NULL, 0, "lit");
   uint32_t ec = tb_entry(&t, 32, two, 2, "[%v3hhd] %s %% %q %d|");
   uint32_t el = tb_entry(&t, 24, &one_l, 1, "%ld %lx %hhd");
   struct kiln_printf_table *table = tb_finish(&t);
   struct kiln_printf_buffer *b = buffer(256);
   float f[4] = {1.25f, -0.0f, 1e30f, -2.0f};
   put(b, ev, 0, 32, f, sizeof(f));
   unsigned char args[16] = {0xff, 2, 0x80, 0, 0, 0, 0, 0};
   memcpy(args + 8, &es, 4);
   put(b, ec, 1, 32, args, sizeof(args));
   int64_t l = -5;
   put(b, el, 2, 24, &l, 8);
   size_t n;
   char *out = print(table, b, &n);
   assert_int_equal(n, 3);
   /* An invalid specification (%q) prints as it stands and takes nothing;
    * a conversion past the last argument prints as it stands too. */
   assert_string_equal(out, "v=  1.2, -0.0,1000000015047466219876688855040.0, -2.0;"
                            "[-1,2,-128] lit % %q %d|"
                            "-5 %lx %hhd");
   free(out);

   /* An entry number outside the table: skipped. */
   b->used = 0;
   put(b, 99, 0, 24, &l, 8);
   put(b, el, 1, 24, &l, 8);
   out = print(table, b, &n);
   assert_int_equal(n, 1);
   free(out);

   /* A record smaller than a header ends the walk. */
   b->used = 0;
   put(b, el, 0, 24, &l, 8);
   memset(b->data + b->used, 0, 24);
   b->used += 24;
   out = print(table, b, &n);
   assert_int_equal(n, 1);
   free(out);

   /* Not a table at all. */
   table->magic = 0;
   out = print(table, b, &n);
   assert_int_equal(n, 0);
   assert_string_equal(out, "");
   free(out);
   free(b);
   free(table);
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_spec),
      cmocka_unit_test(test_order),
      cmocka_unit_test(test_conversions),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
