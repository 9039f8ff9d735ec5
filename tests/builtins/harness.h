/* Shared by the builtins tests: these call Kiln's builtins library (compiled
 * to a native object with the test wrappers, see meson.build) directly from
 * C, by mangled name or through the wrappers in wrappers.cl. */
#ifndef KILN_TEST_BUILTINS_HARNESS_H
#define KILN_TEST_BUILTINS_HARNESS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern int test_failures;
extern long test_checks;

#define CHECK(cond, ...) do { \
      test_checks++; \
      if (!(cond)) { \
         if (++test_failures <= 50) { \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__); \
            fputc('\n', stderr); \
         } \
      } \
   } while (0)

/* Exit status for main(): 0 when every CHECK held. */
int test_report(const char *name);

static inline uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint64_t d2u(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static inline double u2d(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }

/* Identical bits, or both NaN. */
static inline int same_f(float a, float b) { return (isnan(a) && isnan(b)) || f2u(a) == f2u(b); }
static inline int same_d(double a, double b) { return (isnan(a) && isnan(b)) || d2u(a) == d2u(b); }

/* Error of a float result in ulps of the float nearest the reference, as
 * the OpenCL CTS measures it; overflow to inf where the reference rounds
 * to inf is exact. */
double ulp_err_f(float got, long double ref);
double ulp_err_d(double got, long double ref);

/* xorshift, so runs are reproducible. */
uint64_t test_rand(void);
float rand_float_bits(void);   /* any bit pattern: all exponents, NaNs, infs */

/* Work-item state seen by the library's get_local_id()/get_local_size()
 * (this thread's simulated work-item) and the barrier count. */
extern _Thread_local size_t test_local_id[3];
extern _Thread_local size_t test_local_size[3];
extern _Thread_local int test_barriers;

#endif
