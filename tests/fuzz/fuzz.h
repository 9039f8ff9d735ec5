/* Shared by the libFuzzer targets of tests/fuzz.
 *
 * Each target defines LLVMFuzzerInitialize and LLVMFuzzerTestOneInput.
 * Built with -Dfuzz=true (clang, -fsanitize=fuzzer) they are fuzzers; in
 * the normal build replay.c links all of them under other names (see
 * meson.build) and feeds them the committed corpora, so the inputs that
 * once crashed stay tested by `meson test --suite unit`.
 *
 * A target checks what Kiln answers, not only that it does not crash:
 * FUZZ_CHECK aborts, which libFuzzer reports as a crash with the input. */
#ifndef KILN_FUZZ_H
#define KILN_FUZZ_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CL/cl.h>

#define FUZZ_CHECK(cond, ...)                                                            \
   do {                                                                                  \
      if (!(cond)) {                                                                     \
         fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);        \
         fprintf(stderr, __VA_ARGS__);                                                   \
         fputc('\n', stderr);                                                            \
         abort();                                                                        \
      }                                                                                  \
   } while (0)

/* Known bugs a fuzzing run may step over, so that one open report does not
 * stop every run at its first input: KILN_FUZZ_KNOWN="name,name" (each
 * name is documented where a target checks it).  Replays in `meson test`
 * never set it. */
static inline bool fuzz_known(const char *name)
{
   const char *list = getenv("KILN_FUZZ_KNOWN");
   if (!list)
      return false;
   size_t n = strlen(name);
   for (const char *p = list; (p = strstr(p, name)); p += n)
      if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
         return true;
   return false;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The CPU device and a context on it; aborts when there is none (a fuzzer
 * without a device tests nothing). */
static inline cl_device_id fuzz_device(void)
{
   cl_platform_id plat = NULL;
   cl_device_id dev = NULL;
   /* Fuzzed programs would fill the user's compile cache (docs/cache.md),
    * and a hit would hide the compiler from the fuzzer. */
   setenv("KILN_CACHE", "0", 0);
   cl_int err = clGetPlatformIDs(1, &plat, NULL);
   FUZZ_CHECK(err == CL_SUCCESS, "clGetPlatformIDs: %d", err);
   err = clGetDeviceIDs(plat, CL_DEVICE_TYPE_CPU, 1, &dev, NULL);
   FUZZ_CHECK(err == CL_SUCCESS, "clGetDeviceIDs: %d (KILN_DEVICES?)", err);
   return dev;
}

static inline cl_context fuzz_context(cl_device_id dev)
{
   cl_int err = -1;
   cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
   FUZZ_CHECK(ctx && err == CL_SUCCESS, "clCreateContext: %d", err);
   return ctx;
}

#endif
