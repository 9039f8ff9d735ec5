/* Work-item stubs and helpers for the builtins tests.  The library leaves
 * the work-item functions and barrier undefined (Kiln's work-group pass
 * replaces them in kernels); here each thread plays one work-item. */
#include "harness.h"

#include <float.h>

int test_failures;
long test_checks;

_Thread_local size_t test_local_id[3];
_Thread_local size_t test_local_size[3] = {1, 1, 1};
_Thread_local int test_barriers;

unsigned _Z12get_work_dimv(void) { return 3; }
size_t _Z12get_local_idj(unsigned d) { return d < 3 ? test_local_id[d] : 0; }
size_t _Z14get_local_sizej(unsigned d) { return d < 3 ? test_local_size[d] : 1; }
size_t _Z13get_global_idj(unsigned d) { return d < 3 ? test_local_id[d] : 0; }
size_t _Z15get_global_sizej(unsigned d) { return d < 3 ? test_local_size[d] : 1; }
size_t _Z14get_num_groupsj(unsigned d) { (void)d; return 1; }
size_t _Z12get_group_idj(unsigned d) { (void)d; return 0; }
size_t _Z17get_global_offsetj(unsigned d) { (void)d; return 0; }
size_t _Z23get_enqueued_local_sizej(unsigned d) { return d < 3 ? test_local_size[d] : 1; }
void _Z7barrierj(unsigned flags) { (void)flags; test_barriers++; }
/* The collectives' scratch area (collective.cl), which the work-group
 * pass gives each group; these tests call no collective. */
unsigned long *__kiln_wg_scratch(void);
unsigned long *__kiln_wg_scratch(void) { return NULL; }
void __kiln_wg_sub_group(void);
void __kiln_wg_sub_group(void) {}
/* The generic address space's ranges (generic.cl), which the work-group
 * pass reads from the launch; these tests call no to_local/to_private:
 * no __local block, no private range. */
unsigned long __kiln_wg_local_mem(void);
unsigned long __kiln_wg_local_mem(void) { return 0; }
unsigned long __kiln_wg_local_mem_size(void);
unsigned long __kiln_wg_local_mem_size(void) { return 0; }
unsigned long __kiln_wg_private_top(void);
unsigned long __kiln_wg_private_top(void) { return 0; }
/* The launch context and the device-side enqueue run-time
 * (enqueue.cl, enqueue_glue.ll), which only kernels reach; these tests
 * enqueue nothing. */
void *__kiln_wg_ctx(void);
void *__kiln_wg_ctx(void) { return NULL; }
#define DEVQ_STUB(R, NAME) \
   R __kiln_devq_##NAME(void); \
   R __kiln_devq_##NAME(void) { return (R)0; }
DEVQ_STUB(int, enqueue)
DEVQ_STUB(int, kernel_query)
DEVQ_STUB(void *, default_queue)
DEVQ_STUB(int, marker)
DEVQ_STUB(void *, user_event)
DEVQ_STUB(int, is_valid)
void __kiln_devq_retain(void);
void __kiln_devq_retain(void) {}
void __kiln_devq_release(void);
void __kiln_devq_release(void) {}
void __kiln_devq_set_status(void);
void __kiln_devq_set_status(void) {}
void __kiln_devq_capture(void);
void __kiln_devq_capture(void) {}
void _Z9mem_fencej(unsigned flags) { (void)flags; }
void _Z14read_mem_fencej(unsigned flags) { (void)flags; }
void _Z15write_mem_fencej(unsigned flags) { (void)flags; }

int test_report(const char *name)
{
   printf("%s: %ld checks, %d failures\n", name, test_checks, test_failures);
   return test_failures ? 1 : 0;
}

static double ulp_err(long double got, long double ref, int mant, int emin, long double maxv)
{
   if (isnan(ref))
      return isnan(got) ? 0 : INFINITY;
   if (isinf(ref) || fabsl(ref) > maxv) {
      /* The correctly rounded result is inf, or within an ulp of max. */
      if (isinf(got))
         return (got > 0) == (ref > 0) ? 0 : INFINITY;
      if (isinf(ref))
         return INFINITY;
   }
   if (isnan(got))
      return INFINITY;
   int e;
   frexpl(ref, &e);                 /* ref = m * 2^e, 0.5 <= |m| < 1 */
   if (ref == 0)
      e = emin;
   if (e - 1 < emin)
      e = emin + 1;                 /* denormal range: fixed ulp */
   long double ulp = ldexpl(1.0L, e - mant);
   return (double)(fabsl(got - ref) / ulp);
}

double ulp_err_f(float got, long double ref)
{
   return ulp_err(got, ref, 24, -126, FLT_MAX);
}

double ulp_err_d(double got, long double ref)
{
   return ulp_err(got, ref, 53, -1022, DBL_MAX);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

uint64_t test_rand(void)
{
   rng ^= rng << 13;
   rng ^= rng >> 7;
   rng ^= rng << 17;
   return rng;
}

float rand_float_bits(void)
{
   return u2f((uint32_t)test_rand());
}
