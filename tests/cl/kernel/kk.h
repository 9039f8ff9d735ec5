/* Helpers for the end-to-end program and kernel tests (tests/cl/kernel),
 * on top of the execution tests' kt.h: build a program from source with
 * its log shown on failure, create kernels, set arguments, run NDRanges.
 *
 * KNOWN_BUG(cond, ...) is a check whose failure is a Kiln bug already
 * reported: it prints "KNOWN BUG file:line: ..." and does not fail the
 * test, so the suite stays green while the bug is open.  When the check
 * starts passing it prints "KNOWN BUG FIXED?" so the marker can go. */
#ifndef KILN_TESTS_KK_H
#define KILN_TESTS_KK_H

#include "kt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void kk_known_bug_at(const char *file, int line, const char *cond, const char *fmt, ...)
   __attribute__((format(printf, 4, 5)));
void kk_known_fixed_at(const char *file, int line, const char *cond);

#define KNOWN_BUG(cond, ...)                                                   \
   do {                                                                        \
      if (!(cond))                                                             \
         kk_known_bug_at(__FILE__, __LINE__, #cond, " " __VA_ARGS__);           \
      else                                                                     \
         kk_known_fixed_at(__FILE__, __LINE__, #cond);                         \
   } while (0)

/* Builds src for the env's device; on failure prints the build log and
 * exits (the rest of a test needs the program). */
cl_program kk_build_at(const char *file, int line, const struct kt_env *env, const char *src,
                       const char *options);
#define kk_build(env, src, options) kk_build_at(__FILE__, __LINE__, env, src, options)

/* Creates the program and builds it; returns clBuildProgram's result and
 * the program (NULL only if creation failed).  For tests of failures. */
cl_int kk_try_build(const struct kt_env *env, const char *src, const char *options,
                    cl_program *out);

/* The device's build log / options (malloc'd, never NULL). */
char *kk_build_log(cl_program p, cl_device_id dev);
char *kk_build_options(cl_program p, cl_device_id dev);
cl_build_status kk_build_status(cl_program p, cl_device_id dev);

cl_kernel kk_kernel_at(const char *file, int line, cl_program p, const char *name);
#define kk_kernel(p, name) kk_kernel_at(__FILE__, __LINE__, p, name)

/* clSetKernelArg(k, i, sizeof(v), &v), required to succeed. */
#define KK_ARG(k, i, v) REQUIRE_OK(clSetKernelArg((k), (i), sizeof(v), &(v)))
#define KK_LOCAL(k, i, size) REQUIRE_OK(clSetKernelArg((k), (i), (size), NULL))

/* Enqueues and waits; returns the enqueue's result (clFinish must work). */
cl_int kk_run(const struct kt_env *env, cl_kernel k, cl_uint dim, const size_t *offset,
              const size_t *global, const size_t *local);
#define KK_RUN(env, k, dim, off, glob, loc) REQUIRE_OK(kk_run(env, k, dim, off, glob, loc))

/* A buffer initialised from host memory (or zeroed when host is NULL), and
 * a blocking read of a whole buffer. */
cl_mem kk_buffer_in(const struct kt_env *env, size_t size, const void *host);
void kk_read(const struct kt_env *env, cl_mem m, size_t size, void *host);

/* A fresh directory from dir_template ("/tmp/...-XXXXXX", rewritten in
 * place) that KILN_DUMP (docs/dump.md) then names, before the first
 * build; kk_dump_end removes it and what Kiln wrote there. */
void kk_dump_begin(char *dir_template);
void kk_dump_end(const char *dir);

/* Calls fn(f, arg) on each optimised-IR file that KILN_DUMP (docs/dump.md)
 * wrote into dir for kernel ("...-<kernel>.opt.ll"); the number of such
 * files, -1 when dir cannot be read. */
int kk_each_dumped_ir(const char *dir, const char *kernel, void (*fn)(FILE *f, void *arg),
                      void *arg);
/* Whether a line of kernel's optimised IR that KILN_DUMP left in dir
 * matches: 1 or 0, -1 when there is no such file. */
int kk_dumped_ir_matches(const char *dir, const char *kernel, bool (*match)(const char *line));

/* Reads f's next line into line (size bytes) that lies inside the function
 * whose `define` line contains fn ("@__kiln_wg_<kernel>("); false at the
 * end of f.  *in carries the state between calls (false to start). */
bool kk_next_line_in(FILE *f, const char *fn, char *line, size_t size, bool *in);

/* ULP distance between two floats (0 for equal, INT64_MAX if one is NaN and
 * the other not). */
int64_t kk_ulps(float got, float want);

/* Runs this test program again as `<self> --child <name>` with a watchdog
 * of timeout_s seconds, for cases that may hang or crash Kiln.  Returns the
 * child's exit status (2: its watchdog expired), or 128 + the signal that
 * killed it.  KK_CHILD_MAIN dispatches such a call in main(). */
int kk_child(const char *name, int timeout_s);
#define KK_CHILD_MAIN(argc, argv, fn)                                          \
   do {                                                                        \
      if ((argc) == 3 && !strcmp((argv)[1], "--child"))                        \
         return fn((argv)[2]);                                                 \
   } while (0)

#endif
