/* The host half of OpenCL C printf: prints the records a launch left in
 * its printf buffer (include/kiln/printf.h) with the program's table.
 * Target-independent: any device whose kernels write that buffer can use it. */
#ifndef KILN_UTIL_PRINTF_FORMAT_H
#define KILN_UTIL_PRINTF_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct kiln_printf_buffer;
struct kiln_printf_table;

/* The capacity launches give their printf buffer: KILN_PRINTF_BUFFER_SIZE
 * when set to a number of bytes, else KILN_PRINTF_BUFFER_DEFAULT (read
 * once; CL_DEVICE_PRINTF_BUFFER_SIZE reports it). */
size_t kiln_printf_buffer_size(void);

/* Empties buf for a launch (capacity bytes of data after the header). */
void kiln_printf_buffer_reset(struct kiln_printf_buffer *buf, size_t capacity);

/* Writes every record of buf to out: the records of each work-item in the
 * order it made them, work-items in increasing linear global id; then
 * flushes out.  Records the table cannot describe are skipped.  Returns
 * the number of records printed. */
size_t kiln_printf_print(const struct kiln_printf_table *table,
                         const struct kiln_printf_buffer *buf, FILE *out);

/* For devices whose memory the host cannot address: how a %s argument
 * that is not a literal of the table (a pointer into the kernel's
 * memory) is read.  read_string writes the string at address, cut to
 * size - 1 bytes and NUL-terminated, into buf; false when it cannot
 * (then "(unreadable)" prints).  NULL reads the address as the host's. */
#define KILN_PRINTF_STRING_MAX 1024
struct kiln_printf_reader {
   bool (*read_string)(void *user, uint64_t address, char *buf, size_t size);
   void *user;
};

/* kiln_printf_print with a reader for device strings. */
size_t kiln_printf_print_with(const struct kiln_printf_table *table,
                              const struct kiln_printf_buffer *buf, FILE *out,
                              const struct kiln_printf_reader *reader);

#endif
