/* Helpers shared by Kiln's unit tests.
 *
 * The tests link libkiln_static and call the cl* entry points directly,
 * without an ICD loader, so every check sees exactly what Kiln returns. */
#ifndef KILN_TEST_H
#define KILN_TEST_H

/* cmocka.h needs these before it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <stdbool.h>
#include <string.h>

/* A bug in src/ that the lead knows about (listed in the test report).
 * While the wrong result is the one described, the test is skipped so the
 * suite passes; once src/ is fixed the test runs on and must pass, and any
 * third result still fails. */
#define KNOWN_BUG(still_wrong, ...)                                            \
   do {                                                                        \
      if (still_wrong) {                                                       \
         print_message("KNOWN BUG: " __VA_ARGS__);                             \
         print_message("\n");                                                  \
         skip();                                                               \
      }                                                                        \
   } while (0)

/* The Kiln platform and its first CPU device (asserted to exist). */
cl_platform_id kt_platform(void);
cl_device_id kt_device(void);

/* A fresh context on kt_device() / a queue on it; asserted to succeed. */
cl_context kt_context(void);
cl_command_queue kt_queue(cl_context ctx, cl_command_queue_properties props);

/* Handles of each kind that are no longer valid: created, then released
 * until their count reached zero.  Each call makes a new one; callers must
 * not create an object of the same kind before using it, or malloc could
 * hand the same address to the new object. */
cl_context kt_released_context(void);
cl_command_queue kt_released_queue(void);

/* The clGet*Info functions, with the handle as a plain pointer so one
 * checker serves them all. */
typedef cl_int (*kt_info_fn)(const void *handle, cl_uint param, size_t size, void *value,
                             size_t *size_ret);
cl_int kt_platform_info(const void *h, cl_uint p, size_t s, void *v, size_t *r);
cl_int kt_device_info(const void *h, cl_uint p, size_t s, void *v, size_t *r);
cl_int kt_context_info(const void *h, cl_uint p, size_t s, void *v, size_t *r);
cl_int kt_queue_info(const void *h, cl_uint p, size_t s, void *v, size_t *r);

/* Checks the size/param_value/param_value_size_ret protocol for one
 * query: a size-only query, an exact fetch (nothing written past it), a
 * bigger buffer, a buffer one byte short and a zero size (CL_INVALID_VALUE,
 * buffer untouched), and both pointers NULL.  want_size 0 means "any
 * non-zero size".  Returns the size. */
size_t kt_check_info(kt_info_fn fn, const void *handle, cl_uint param, size_t want_size);

/* Fetches a char[] query; asserts it is NUL-terminated and that the size
 * reported is strlen + 1.  The caller frees the string. */
char *kt_info_string(kt_info_fn fn, const void *handle, cl_uint param);

/* Fetches a fixed-size query, asserting its size is exactly size. */
void kt_info_value(kt_info_fn fn, const void *handle, cl_uint param, void *out, size_t size);

/* True when word appears in the space-separated list. */
bool kt_has_word(const char *list, const char *word);

#endif
