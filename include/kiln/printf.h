/* OpenCL C printf (OpenCL 1.2 §6.12.13): what compiled kernels and the
 * host side that prints their output agree on (docs/printf.md).
 *
 * The compiler (src/llvm/printf_lower.c) replaces each printf call by
 * stores of one record into the launch's printf buffer.  A record holds
 * the number of an entry of the program's printf table and the call's
 * arguments as the kernel passed them; nothing is formatted on the
 * device.  After the launch, the host walks the records
 * (src/util/printf_format.c) and formats them with the format strings of
 * the table, which the compiler stores in the program's device code as
 * the global KILN_PRINTF_TABLE_SYM: it is part of the object, so it
 * survives the compile cache and program binaries with the code that
 * refers to it.  All integers are little-endian.
 */
#ifndef KILN_PRINTF_H
#define KILN_PRINTF_H

#include <stdint.h>

#define KILN_PRINTF_TABLE_SYM "__kiln_printf_table"
#define KILN_PRINTF_TABLE_MAGIC 0x4650434bu /* "KCPF" */

/* CL_DEVICE_PRINTF_BUFFER_SIZE: the spec's minimum for the full profile.
 * KILN_PRINTF_BUFFER_SIZE (bytes) overrides it, to test overflow. */
#define KILN_PRINTF_BUFFER_DEFAULT (1024u * 1024u)

/* The buffer a launch writes records to.  used grows by atomic adds; a
 * record whose end would pass capacity is not written, its printf returns
 * -1, and drop_at (an atomic minimum, UINT64_MAX when nothing was
 * dropped) marks where valid data stops. */
struct kiln_printf_buffer {
   uint64_t used;     /* offset 0 */
   uint64_t capacity; /* 8: bytes of data */
   uint64_t drop_at;  /* 16 */
   uint64_t pad;      /* 24 */
   unsigned char data[]; /* 32 */
};
#define KILN_PRINTF_BUFFER_DATA 32u

/* One record: this header, then the arguments at the offsets the entry
 * gives (from the start of the record).  size is a multiple of 8. */
struct kiln_printf_record {
   uint32_t size;
   uint32_t entry; /* index into the table */
   uint64_t item;  /* the work-item's linear global id: output is sorted by it */
};

enum kiln_printf_arg_kind {
   KILN_PRINTF_ARG_INT = 1,   /* elem_size 1, 2, 4 or 8 */
   KILN_PRINTF_ARG_FLOAT = 2, /* elem_size 2 (half), 4 or 8 */
   KILN_PRINTF_ARG_PTR = 3,   /* 8 bytes: an address */
   KILN_PRINTF_ARG_STRING = 4, /* 4 bytes: a table entry holding a constant string */
};

struct kiln_printf_arg {
   uint8_t kind;
   uint8_t elem_size;
   uint8_t count;  /* 1 for scalars, else the vector's length */
   uint8_t pad;
   uint32_t offset; /* in the record */
};

/* The table: a header, num_entries offsets (from the table's start) of
 * entries, then the entries, each 4-byte aligned:
 *    uint32 record_size  (0 for string entries)
 *    uint32 num_args
 *    struct kiln_printf_arg args[num_args]
 *    char text[]         NUL-terminated: a format, or a %s argument
 */
struct kiln_printf_table {
   uint32_t magic;
   uint32_t num_entries;
   uint32_t size; /* bytes of the whole table */
   uint32_t offsets[];
};

#endif
