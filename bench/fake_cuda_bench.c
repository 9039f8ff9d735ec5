/* kiln_bench over the fake libcuda (fake_cuda.c), for tuning the CUDA
 * device's launch path on a machine without a GPU: the fake's own cost
 * is a mutex and a small allocation per call, so what kiln_bench then
 * measures is Kiln's (docs/performance.md, "CUDA launch path").
 *
 *   KILN_DEVICES=cuda build/tests/unit/kiln_bench_fake_cuda --device gpu --launch-only
 *
 * FAKE_CUDA_LAUNCH_NS=4100 makes each launch cost what the driver's does.
 *
 * The fake runs no PTX: every kernel a module declares (".entry name(")
 * is defined here with the parameter sizes the PTX gives and does
 * nothing, so results are not checked (kiln_bench checks none on the
 * launch rows).  Linked with --wrap=cuda_api_load like the unit tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_cuda.h"

struct cuda_api *__wrap_cuda_api_load(void);
void __wrap_cuda_api_unload(struct cuda_api *api);

static struct cuda_api table;
static CUresult (*real_module_load)(CUmodule *, const void *, unsigned, CUjit_option *, void **);

static bool defined(const char *name, size_t len)
{
   for (unsigned i = 0; i < fake_cuda.num_kernels; i++)
      if (strlen(fake_cuda.kernels[i].name) == len && !strncmp(fake_cuda.kernels[i].name, name, len))
         return true;
   return false;
}

/* The size of one ".param" declaration: ".param .u64 k_param_0" or
 * ".param .align 8 .b8 k_param_1[24]". */
static unsigned param_size(const char *p, const char *end)
{
   const char *bracket = memchr(p, '[', (size_t)(end - p));
   if (bracket)
      return (unsigned)strtoul(bracket + 1, NULL, 10);
   const char *type = strstr(p + 6, " .");
   if (!type || type >= end)
      return 4;
   unsigned bits = (unsigned)strtoul(type + 3, NULL, 10);
   return bits >= 8 ? bits / 8 : 4;
}

/* Defines every kernel of the PTX the fake does not know yet. */
static void define_entries(const char *ptx)
{
   for (const char *e = strstr(ptx, ".entry "); e; e = strstr(e + 1, ".entry ")) {
      const char *name = e + 7, *open = strchr(name, '(');
      const char *close = open ? strchr(open, ')') : NULL;
      if (!close || defined(name, (size_t)(open - name)) ||
          fake_cuda.num_kernels == FAKE_CUDA_MAX_KERNELS)
         continue;
      unsigned sizes[FAKE_CUDA_MAX_PARAMS], n = 0;
      for (const char *p = strstr(open, ".param "); p && p < close && n < FAKE_CUDA_MAX_PARAMS;
           p = strstr(p + 1, ".param ")) {
         const char *end = strpbrk(p, ",)");
         sizes[n++] = param_size(p, end ? end : close);
      }
      char *copy = strndup(name, (size_t)(open - name));
      if (copy)
         fake_cuda_define_kernel(copy, n, sizes, NULL);
   }
}

static CUresult module_load(CUmodule *module, const void *image, unsigned num_options,
                            CUjit_option *options, void **values)
{
   if (image)
      define_entries(image);
   return real_module_load(module, image, num_options, options, values);
}

/* Calls of the entry points a launch uses, printed at exit: what Kiln asks
 * of the driver per launch (each call of the winsys is a push, the call
 * and a pop of the context). */
static unsigned long n_push, n_launch, n_record, n_sync, n_query, n_attr;
static CUresult (*real_push)(CUcontext);
static CUresult (*real_launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                               unsigned, unsigned, CUstream, void **, void **);
static CUresult (*real_record)(CUevent, CUstream);
static CUresult (*real_sync)(CUevent);
static CUresult (*real_query)(CUevent);
static CUresult (*real_attr)(int *, int, CUfunction);

static CUresult count_push(CUcontext c)
{
   __atomic_add_fetch(&n_push, 1, __ATOMIC_RELAXED);
   return real_push(c);
}

/* FAKE_CUDA_LAUNCH_NS: the CPU time a real cuLaunchKernel takes (about
 * 4,100 ns on the H200 machine), spent spinning, so that back-to-back
 * launches here are bound by the launching thread as on the GPU machine
 * and what Kiln adds per launch shows as time above it. */
static long launch_ns;

static void spin_ns(long ns)
{
   struct timespec t0, t;
   clock_gettime(CLOCK_MONOTONIC, &t0);
   do
      clock_gettime(CLOCK_MONOTONIC, &t);
   while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < ns);
}

static CUresult count_launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                             unsigned by, unsigned bz, unsigned shared, CUstream s,
                             void **params, void **extra)
{
   __atomic_add_fetch(&n_launch, 1, __ATOMIC_RELAXED);
   if (launch_ns)
      spin_ns(launch_ns);
   return real_launch(f, gx, gy, gz, bx, by, bz, shared, s, params, extra);
}

static CUresult count_record(CUevent e, CUstream s)
{
   __atomic_add_fetch(&n_record, 1, __ATOMIC_RELAXED);
   return real_record(e, s);
}

static CUresult count_sync(CUevent e)
{
   __atomic_add_fetch(&n_sync, 1, __ATOMIC_RELAXED);
   return real_sync(e);
}

static CUresult count_query(CUevent e)
{
   __atomic_add_fetch(&n_query, 1, __ATOMIC_RELAXED);
   return real_query(e);
}

static CUresult count_attr(int *v, int attrib, CUfunction f)
{
   __atomic_add_fetch(&n_attr, 1, __ATOMIC_RELAXED);
   return real_attr(v, attrib, f);
}

static void print_counts(void)
{
   double n = n_launch ? (double)n_launch : 1;
   fprintf(stderr,
           "fake libcuda: %lu launches; per launch %.2f cuEventRecord, %.2f cuEventSynchronize, "
           "%.2f cuEventQuery, %.2f cuFuncGetAttribute, %.2f context pushes\n",
           n_launch, n_record / n, n_sync / n, n_query / n, n_attr / n, n_push / n);
}

struct cuda_api *__wrap_cuda_api_load(void)
{
   fake_cuda_reset();
   fake_cuda_add_device("Fake NVIDIA H100 (tests/unit/fake_cuda.c)");
   table = *fake_cuda_table();
   real_module_load = table.cuModuleLoadDataEx;
   table.cuModuleLoadDataEx = module_load;
   real_push = table.cuCtxPushCurrent;
   table.cuCtxPushCurrent = count_push;
   real_launch = table.cuLaunchKernel;
   table.cuLaunchKernel = count_launch;
   real_record = table.cuEventRecord;
   table.cuEventRecord = count_record;
   real_sync = table.cuEventSynchronize;
   table.cuEventSynchronize = count_sync;
   real_query = table.cuEventQuery;
   table.cuEventQuery = count_query;
   real_attr = table.cuFuncGetAttribute;
   table.cuFuncGetAttribute = count_attr;
   const char *cost = getenv("FAKE_CUDA_LAUNCH_NS");
   launch_ns = cost ? strtol(cost, NULL, 10) : 0;
   if (getenv("FAKE_CUDA_COUNT"))
      atexit(print_counts);
   return &table;
}

void __wrap_cuda_api_unload(struct cuda_api *api)
{
   (void)api;
}
