/* Helpers shared by the end-to-end execution tests (tests/cl/exec).
 *
 * Every test runs through the system ICD loader, so it sees Kiln exactly as
 * an application does; kt_setup finds the platform by its name.  Failed
 * checks print file:line and the reason and make kt_result() non-zero; a
 * watchdog turns a deadlock into a message instead of a silent timeout.
 */
#ifndef KILN_TESTS_KT_H
#define KILN_TESTS_KT_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 110
#endif
#ifndef CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#endif

#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct kt_env {
   cl_platform_id platform;
   cl_device_id device;
   cl_context context;
   cl_command_queue queue; /* created with the properties given to kt_setup */
};

/* Finds the "Kiln" platform and its first device, makes a context and one
 * queue.  Exits with a message if any of it fails. */
void kt_setup(struct kt_env *env, cl_command_queue_properties props);
void kt_teardown(struct kt_env *env);

/* What kt_setup does first, for tests that make their own contexts: the
 * watchdog (KT_WATCHDOG_S seconds, default 100), and the "Kiln" platform
 * (exits with a message when there is none). */
void kt_watchdog_start(void);
cl_platform_id kt_find_kiln(void);

/* A second context (on the same device), for cross-context checks. */
cl_context kt_context(const struct kt_env *env);
cl_command_queue kt_queue(const struct kt_env *env, cl_context ctx,
                          cl_command_queue_properties props);

/* 0 if every check passed, 1 otherwise; prints a summary line. */
int kt_result(void);

void kt_fail_at(const char *file, int line, const char *fmt, ...)
   __attribute__((format(printf, 3, 4)));
void kt_die_at(const char *file, int line, const char *fmt, ...)
   __attribute__((format(printf, 3, 4), noreturn));
/* A failed CHECK (fatal: a failed REQUIRE, which exits). */
void kt_check_at(const char *file, int line, bool fatal, const char *cond, const char *fmt, ...)
   __attribute__((format(printf, 5, 6)));
const char *kt_err_name(cl_int err);

#define KT_FAIL(...) kt_fail_at(__FILE__, __LINE__, __VA_ARGS__)
#define KT_DIE(...) kt_die_at(__FILE__, __LINE__, __VA_ARGS__)

/* CHECK(cond) or CHECK(cond, "printf format", args...). */
#define CHECK(cond, ...)                                                       \
   do {                                                                        \
      if (!(cond))                                                             \
         kt_check_at(__FILE__, __LINE__, false, #cond, " " __VA_ARGS__);        \
   } while (0)

/* expr must evaluate to the cl_int `want`. */
#define CHECK_ERR(expr, want)                                                  \
   do {                                                                        \
      cl_int kt_got_ = (expr);                                                 \
      if (kt_got_ != (want))                                                   \
         KT_FAIL("%s returned %s, expected %s", #expr, kt_err_name(kt_got_),   \
                 kt_err_name(want));                                           \
   } while (0)
#define CHECK_OK(expr) CHECK_ERR(expr, CL_SUCCESS)

/* Setup steps the rest of a test cannot do without. */
#define REQUIRE_OK(expr)                                                       \
   do {                                                                        \
      cl_int kt_got_ = (expr);                                                 \
      if (kt_got_ != CL_SUCCESS)                                               \
         KT_DIE("%s returned %s", #expr, kt_err_name(kt_got_));                \
   } while (0)
#define REQUIRE(cond, ...)                                                     \
   do {                                                                        \
      if (!(cond))                                                             \
         kt_check_at(__FILE__, __LINE__, true, #cond, " " __VA_ARGS__);         \
   } while (0)

/* Event state.  kt_status returns CL_EVENT_COMMAND_EXECUTION_STATUS (or a
 * failure of the query itself, reported). */
cl_int kt_status(cl_event ev);
/* Polls until ev has ended (status <= CL_COMPLETE) or timeout_ms passed;
 * returns the last status seen.  Lets a test assert "this completes" without
 * hanging when it does not. */
cl_int kt_wait_end(cl_event ev, int timeout_ms);
/* Asserts ev is still pending (status > CL_COMPLETE) after ms. */
#define CHECK_PENDING(ev, ms)                                                  \
   do {                                                                        \
      kt_sleep_ms(ms);                                                         \
      cl_int kt_st_ = kt_status(ev);                                           \
      if (kt_st_ <= CL_COMPLETE)                                               \
         KT_FAIL("event %s ended (%s) but must still be pending", #ev,         \
                 kt_err_name(kt_st_));                                         \
   } while (0)
/* Asserts ev ends with status want within a few seconds. */
#define CHECK_ENDS(ev, want)                                                   \
   do {                                                                        \
      cl_int kt_st_ = kt_wait_end((ev), 5000);                                 \
      if (kt_st_ != (want))                                                    \
         KT_FAIL("event %s has status %s, expected %s", #ev,                   \
                 kt_err_name(kt_st_), kt_err_name(want));                      \
   } while (0)

cl_event kt_user_event(cl_context ctx);
cl_mem kt_buffer(cl_context ctx, cl_mem_flags flags, size_t size, void *host_ptr);

/* Fills p with a pattern that differs per seed and per byte position. */
void kt_fill(void *p, size_t size, unsigned seed);
/* Compares; on mismatch reports the first differing offset. */
bool kt_same(const void *got, const void *want, size_t size, const char *what);

void kt_sleep_ms(int ms);
/* Runs fn(arg) on a new thread after delay_ms; kt_join waits for it.  Used
 * to complete user events while the main thread blocks. */
struct kt_later;
struct kt_later *kt_after(int delay_ms, void (*fn)(void *), void *arg);
void kt_join(struct kt_later *later);

/* 10 * major + minor of CL_PLATFORM_VERSION ("OpenCL 1.1 ..." is 11). */
int kt_platform_version(cl_platform_id platform);

/* Information queries that cannot fail in a passing test. */
cl_ulong kt_device_ulong(cl_device_id dev, cl_device_info param);
cl_uint kt_device_uint(cl_device_id dev, cl_device_info param);

#endif
