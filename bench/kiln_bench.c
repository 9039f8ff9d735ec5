/* kiln_bench: the same OpenCL kernels on Kiln and on every other OpenCL
 * platform in the process (PoCL, NVIDIA, ...), on each platform's first
 * CPU device (--device cpu, the default) or first GPU (--device gpu), side
 * by side.  See docs/performance.md for how to run it and what it found.
 *
 * Benchmarks (bench/kernels.cl, one source for every platform):
 *   saxpy        y = a*x + y on 64M floats, local size 256 (and NULL); and
 *                as pyopencl's elementwise kernels run it: a grid-stride
 *                loop over compute units x 32 groups of 128 work-items
 *   sgemm        1024x1024 tiled SGEMM, 16x16 __local tiles, 2 barriers/step
 *   reduce       sum of 64M floats, GPU-style grid-stride loads then a
 *                __local tree (4096 groups of 256), group sums added on
 *                the host
 *   reduce-chunk the same sum and grid, each work-item adding one
 *                contiguous chunk (the CPU-friendly access pattern)
 *   reduce-1pw   the grid-stride kernel with one element per work-item
 *                (n/256 groups): work-group and barrier overhead dominate
 *   launch       an empty kernel: 1000 launches of 1 work-item back to back
 *                then one clFinish; enqueue + clFinish round trips (median
 *                of 200); 1000 launches of 4096 work-items in groups of 64;
 *                an empty kernel and a blocking read of 16 KiB (median of 200)
 *   bound        the memory bound of the same run: on a GPU
 *                clEnqueueCopyBuffer between the saxpy buffers, on a CPU a
 *                STREAM-style triad in plain C on as many threads as the
 *                device has compute units; saxpy and the reductions are
 *                also reported as a fraction of it; on a CPU also a
 *                read-only pass in C (the bits of one array summed as
 *                integers, same threads), the reductions as a fraction of
 *                that too: what reading alone gets from the memory
 *   build        cold (first in the process) and warm clBuildProgram, and
 *                the first launches (PoCL compiles work-group functions
 *                at the first launch, not at clBuildProgram)
 *
 * Each timing is the median of --runs launches after one warm-up, taken
 * on the host clock around enqueue + clFinish.  Every result is checked
 * against a host reference; a wrong result marks the row INVALID.
 */
#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <CL/cl.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "bench_version.h"
#include "kernels_cl.h"

#define MAX_PLATFORMS 16
#define MAX_FILTERS 8
#define SAXPY_LOCAL 256
#define TS 16  /* as in kernels.cl */
#define RL 256 /* as in kernels.cl */
#define REDUCE_GROUPS 4096
#define LAUNCH_BATCH 1000   /* launches per back-to-back sample */
#define ROUND_TRIPS 200     /* enqueue + clFinish samples */
#define READ_TRIP_FLOATS 4096 /* what the reductions read back */
#define LAUNCH_WIDE 4096    /* work-items of the wide empty launch */
#define LAUNCH_WIDE_LOCAL 64

/* ---- options ------------------------------------------------------ */

struct options {
   const char *filters[MAX_FILTERS];
   int num_filters;
   int platform_index; /* --platform-index (child runs), -1 = all */
   cl_device_type device_type; /* --device */
   const char *device_name;    /* "cpu" or "gpu", as given */
   int runs;
   int rounds;
   double scale;
   bool no_child;
   bool build_only;
   bool launch_only;
   const char *argv0;
};

static void usage(FILE *f, const char *argv0)
{
   fprintf(f,
           "usage: %s [--device cpu|gpu] [--platform SUBSTR]... [--runs N] [--rounds R]\n"
           "       [--size SCALE] [--no-child]\n"
           "\n"
           "Runs saxpy, tiled SGEMM, two __local tree reductions (grid-stride and\n"
           "chunked), a kernel of transcendental functions (sin, cos, exp, log, pow),\n"
           "empty-kernel launches and a memory-bandwidth bound on the first device of\n"
           "the chosen type of every OpenCL platform (or those whose name or vendor\n"
           "contains SUBSTR, case-insensitive; repeatable), checks each result against\n"
           "the host and prints a table with Kiln's speed relative to each other\n"
           "platform.  Platforms without such a device are listed and skipped.\n"
           "\n"
           "  --device T     cpu (default) or gpu: CL_DEVICE_TYPE_CPU or _GPU\n"
           "  --runs N       timed runs per benchmark, after one warm-up (default 5);\n"
           "                 the median is reported\n"
           "  --rounds R     the triad bound and every platform's rows R times over,\n"
           "                 platform after platform in turn (default 1); each row\n"
           "                 reports its best round, a failure in any round\n"
           "                 (memory that speeds up and slows down from minute to\n"
           "                 minute, as a VM's may, then favours no platform)\n"
           "  --size SCALE   problem size factor (default 1): saxpy and reduce use\n"
           "                 64M*SCALE floats, sgemm n = 1024*cbrt(SCALE) (multiple of 16)\n"
           "  --no-child     skip the build measurements in fresh processes\n"
           "                 (including PoCL with POCL_KERNEL_CACHE=0)\n"
           "  --build-only   only measure the build (used for the child processes)\n"
           "  --launch-only  only the launch-latency rows (no triad, no build children;\n"
           "                 tiny host data): quick to repeat while tuning the launch path\n"
           "  --platform-index I  only the I-th platform of clGetPlatformIDs\n",
           argv0);
}

static bool parse_options(int argc, char **argv, struct options *o)
{
   memset(o, 0, sizeof(*o));
   o->runs = 5;
   o->rounds = 1;
   o->scale = 1.0;
   o->platform_index = -1;
   o->device_type = CL_DEVICE_TYPE_CPU;
   o->device_name = "cpu";
   o->argv0 = argv[0];
   for (int i = 1; i < argc; i++) {
      const char *a = argv[i];
      const char *v = i + 1 < argc ? argv[i + 1] : NULL;
      if (!strcmp(a, "--platform") && v) {
         if (o->num_filters < MAX_FILTERS)
            o->filters[o->num_filters++] = v;
         i++;
      } else if (!strcmp(a, "--device") && v) {
         if (!strcmp(v, "cpu")) {
            o->device_type = CL_DEVICE_TYPE_CPU;
         } else if (!strcmp(v, "gpu")) {
            o->device_type = CL_DEVICE_TYPE_GPU;
         } else {
            fprintf(stderr, "kiln_bench: --device takes cpu or gpu, not '%s'\n", v);
            return false;
         }
         o->device_name = v;
         i++;
      } else if (!strcmp(a, "--runs") && v) {
         o->runs = atoi(v);
         i++;
      } else if (!strcmp(a, "--rounds") && v) {
         o->rounds = atoi(v);
         i++;
      } else if (!strcmp(a, "--size") && v) {
         o->scale = strtod(v, NULL);
         i++;
      } else if (!strcmp(a, "--platform-index") && v) {
         o->platform_index = atoi(v);
         i++;
      } else if (!strcmp(a, "--no-child")) {
         o->no_child = true;
      } else if (!strcmp(a, "--build-only")) {
         o->build_only = true;
      } else if (!strcmp(a, "--launch-only")) {
         o->launch_only = true;
         o->no_child = true;
      } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
         usage(stdout, argv[0]);
         exit(0);
      } else {
         fprintf(stderr, "kiln_bench: unknown or incomplete option '%s'\n", a);
         usage(stderr, argv[0]);
         return false;
      }
   }
   if (o->runs < 1 || o->runs > 1000 || o->rounds < 1 || o->rounds > 100 || !(o->scale > 0.0) ||
       o->scale > 64.0) {
      fprintf(stderr, "kiln_bench: --runs must be 1..1000, --rounds 1..100 and --size in "
                      "(0, 64]\n");
      return false;
   }
   return true;
}

/* ---- helpers ------------------------------------------------------- */

static double now_ms(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
   double x = *(const double *)a, y = *(const double *)b;
   return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
   qsort(v, (size_t)n, sizeof(*v), cmp_double);
   return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static bool contains_ci(const char *hay, const char *needle)
{
   size_t n = strlen(needle);
   for (; *hay; hay++) {
      size_t k = 0;
      while (k < n && hay[k] && tolower((unsigned char)hay[k]) == tolower((unsigned char)needle[k]))
         k++;
      if (k == n)
         return true;
   }
   return n == 0;
}

/* ---- results --------------------------------------------------------- */

enum status { ST_NOT_RUN, ST_OK, ST_INVALID, ST_ERROR };

enum bench_id {
   B_SAXPY,
   B_SAXPY_NULL,
   B_SAXPY_STRIDED, /* pyopencl's shape: CUs x 32 groups of 128, grid-stride */
   B_SGEMM,
   B_REDUCE,
   B_REDUCE_CHUNKED,
   B_REDUCE_1PW,
   B_MATH,
   B_LAUNCH,      /* empty kernel, 1 work-item, back to back */
   B_ROUND_TRIP,  /* empty kernel, enqueue + clFinish */
   B_LAUNCH_WIDE, /* empty kernel, 4096 work-items in groups of 64 */
   B_READ_TRIP,   /* empty kernel + blocking read of 16 KiB */
   B_BOUND,       /* copy (GPU) or triad (CPU) bandwidth */
   B_READ_BOUND,  /* CPU: a read-only pass in C (what a reduction can reach) */
   B_COUNT
};

struct result {
   enum status status;
   char note[160];
   double first_ms, median_ms, min_ms;
   double work;     /* bytes moved or flops per run */
   double launches; /* latency rows: launches per timed sample, else 0 */
};

enum kernel_id {
   K_SAXPY,
   K_SGEMM,
   K_REDUCE,
   K_REDUCE_CHUNKED,
   K_MATH,
   K_EMPTY,
   K_SAXPY_STRIDED,
   K_COUNT
};
static const char *const kernel_names[K_COUNT] = {
   "saxpy", "sgemm_tiled", "reduce_sum", "reduce_chunked", "math_mix", "empty", "saxpy_strided"};

struct build_times {
   enum status status;
   char note[160];
   double cold_ms, warm_ms;
   double first_launch_ms, second_launch_ms; /* the three kernels on tiny sizes */
};

struct child_build {
   const char *label;
   struct build_times b;
};

struct platform {
   int index; /* in clGetPlatformIDs order */
   cl_platform_id id;
   char name[128], vendor[128], version[128], short_name[24];
   char dev_name[128], driver[64];
   cl_uint compute_units;
   cl_ulong global_mem;
   bool is_kiln, is_pocl;
   cl_device_id dev;
   cl_context ctx;
   cl_command_queue q;
   cl_program prog;
   cl_kernel k[K_COUNT];
   struct build_times build;
   struct result r[B_COUNT];
   struct child_build child[3];
   int num_children;
};

static void set_error(enum status *st, char *note, size_t size, const char *what, cl_int err)
{
   *st = ST_ERROR;
   snprintf(note, size, "%s failed: %d", what, (int)err);
}

#define CHECK_R(res, call, what)                                              \
   do {                                                                       \
      cl_int err_ = (call);                                                   \
      if (err_ != CL_SUCCESS) {                                               \
         set_error(&(res)->status, (res)->note, sizeof((res)->note), what, err_); \
         goto out;                                                            \
      }                                                                       \
   } while (0)

/* ---- host data and references --------------------------------------- */

/* Every input is a small integer stored as float, so every sum the
 * kernels form is exact in single precision, whatever the order (tree,
 * vectorized, fused multiply-add): a correct platform matches the host
 * bit for bit, and the tolerances below only guard against rounding in
 * the comparison itself. */
struct host {
   size_t n;        /* saxpy / reduce elements */
   int gemm_n;      /* sgemm dimension */
   float *x, *y0;   /* saxpy inputs; x is also the reduction input */
   float *out;      /* read-back buffer, n floats */
   float *a, *b, *c_ref;
   double sum_ref;  /* sum of x */
};

static float x_value(size_t i) { return (float)(i % 16); }
static float y_value(size_t i) { return (float)(i % 5); }

static bool host_init(struct host *h, double scale)
{
   size_t n = (size_t)(64.0 * 1024 * 1024 * scale);
   n = (n + 4095) / 4096 * 4096;
   if (n < 4096)
      n = 4096;
   int g = (int)lround(1024.0 * cbrt(scale) / TS) * TS;
   if (g < TS)
      g = TS;
   h->n = n;
   h->gemm_n = g;
   h->x = malloc(n * sizeof(float));
   h->y0 = malloc(n * sizeof(float));
   h->out = malloc(n * sizeof(float));
   size_t gg = (size_t)g * g;
   h->a = malloc(gg * sizeof(float));
   h->b = malloc(gg * sizeof(float));
   h->c_ref = calloc(gg, sizeof(float));
   if (!h->x || !h->y0 || !h->out || !h->a || !h->b || !h->c_ref)
      return false;
   double s = 0;
   for (size_t i = 0; i < n; i++) {
      h->x[i] = x_value(i);
      h->y0[i] = y_value(i);
      s += h->x[i];
   }
   h->sum_ref = s;
   for (size_t i = 0; i < gg; i++) {
      h->a[i] = (float)((i * 7 + 3) % 9) - 4.0f;
      h->b[i] = (float)((i * 5 + 1) % 7) - 3.0f;
   }
   /* i-k-j order; exact in float (|sum| <= 12 n < 2^24). */
   for (int i = 0; i < g; i++)
      for (int k = 0; k < g; k++) {
         float aik = h->a[(size_t)i * g + k];
         const float *brow = h->b + (size_t)k * g;
         float *crow = h->c_ref + (size_t)i * g;
         for (int j = 0; j < g; j++)
            crow[j] += aik * brow[j];
      }
   return true;
}

static void host_fini(struct host *h)
{
   free(h->x);
   free(h->y0);
   free(h->out);
   free(h->a);
   free(h->b);
   free(h->c_ref);
}

/* ---- platform setup ---------------------------------------------------- */

static void get_platform_info(struct platform *p)
{
   clGetPlatformInfo(p->id, CL_PLATFORM_NAME, sizeof(p->name), p->name, NULL);
   clGetPlatformInfo(p->id, CL_PLATFORM_VENDOR, sizeof(p->vendor), p->vendor, NULL);
   clGetPlatformInfo(p->id, CL_PLATFORM_VERSION, sizeof(p->version), p->version, NULL);
   p->is_kiln = contains_ci(p->name, "kiln");
   p->is_pocl = contains_ci(p->name, "portable computing language") || contains_ci(p->name, "pocl");
   if (p->is_kiln)
      snprintf(p->short_name, sizeof(p->short_name), "Kiln");
   else if (p->is_pocl)
      snprintf(p->short_name, sizeof(p->short_name), "PoCL");
   else
      snprintf(p->short_name, sizeof(p->short_name), "%.12s", p->name);
}

/* The platform's first device of the chosen type and what the report
 * prints about it.  CL_DEVICE_NOT_FOUND when the platform has none. */
static cl_int platform_device(struct platform *p, cl_device_type type)
{
   cl_int err = clGetDeviceIDs(p->id, type, 1, &p->dev, NULL);
   if (err)
      return err;
   clGetDeviceInfo(p->dev, CL_DEVICE_NAME, sizeof(p->dev_name), p->dev_name, NULL);
   clGetDeviceInfo(p->dev, CL_DRIVER_VERSION, sizeof(p->driver), p->driver, NULL);
   clGetDeviceInfo(p->dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(p->compute_units),
                   &p->compute_units, NULL);
   clGetDeviceInfo(p->dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(p->global_mem), &p->global_mem,
                   NULL);
   return CL_SUCCESS;
}

static cl_int platform_open(struct platform *p, cl_device_type type)
{
   cl_int err = platform_device(p, type);
   if (err)
      return err;
   cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p->id, 0};
   p->ctx = clCreateContext(props, 1, &p->dev, NULL, NULL, &err);
   if (err)
      return err;
   p->q = clCreateCommandQueue(p->ctx, p->dev, 0, &err);
   return err;
}

static void platform_close(struct platform *p)
{
   for (int k = 0; k < K_COUNT; k++)
      if (p->k[k])
         clReleaseKernel(p->k[k]);
   if (p->prog)
      clReleaseProgram(p->prog);
   if (p->q)
      clReleaseCommandQueue(p->q);
   if (p->ctx)
      clReleaseContext(p->ctx);
   p->prog = NULL;
   p->q = NULL;
   p->ctx = NULL;
   memset(p->k, 0, sizeof(p->k));
}

static cl_int build_program(struct platform *p, cl_program *out, double *ms)
{
   const char *src = kiln_bench_source;
   cl_int err;
   double t0 = now_ms();
   cl_program prog = clCreateProgramWithSource(p->ctx, 1, &src, NULL, &err);
   if (err)
      return err;
   err = clBuildProgram(prog, 1, &p->dev, "", NULL, NULL);
   *ms = now_ms() - t0;
   if (err) {
      size_t size = 0;
      clGetProgramBuildInfo(prog, p->dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &size);
      char *log = malloc(size + 1);
      if (log && !clGetProgramBuildInfo(prog, p->dev, CL_PROGRAM_BUILD_LOG, size, log, NULL)) {
         log[size] = 0;
         fprintf(stderr, "kiln_bench: %s: build log:\n%.4000s\n", p->short_name, log);
      }
      free(log);
      clReleaseProgram(prog);
      return err;
   }
   *out = prog;
   return CL_SUCCESS;
}

/* Launches the three kernels once each on tiny problems with the local
 * sizes the benchmarks use, and returns the time for all three. */
static cl_int tiny_launches(struct platform *p, cl_kernel *k, double *ms)
{
   cl_int err;
   cl_mem a = clCreateBuffer(p->ctx, CL_MEM_READ_WRITE, 4096 * sizeof(float), NULL, &err);
   if (err)
      return err;
   cl_mem b = clCreateBuffer(p->ctx, CL_MEM_READ_WRITE, 4096 * sizeof(float), NULL, &err);
   if (err) {
      clReleaseMemObject(a);
      return err;
   }
   cl_mem c = clCreateBuffer(p->ctx, CL_MEM_READ_WRITE, 4096 * sizeof(float), NULL, &err);
   if (err) {
      clReleaseMemObject(a);
      clReleaseMemObject(b);
      return err;
   }
   /* OpenCL 1.1 has no clEnqueueFillBuffer. */
   static const float zeros[4096];
   if ((err = clEnqueueWriteBuffer(p->q, a, CL_TRUE, 0, sizeof(zeros), zeros, 0, NULL, NULL)) ||
       (err = clEnqueueWriteBuffer(p->q, b, CL_TRUE, 0, sizeof(zeros), zeros, 0, NULL, NULL)))
      goto out;
   float two = 2.0f;
   cl_int gn = 32;
   cl_uint rn = 4096;
   double t0 = now_ms();
   size_t g1 = 4096, l1 = SAXPY_LOCAL;
   if ((err = clSetKernelArg(k[K_SAXPY], 0, sizeof(two), &two)) ||
       (err = clSetKernelArg(k[K_SAXPY], 1, sizeof(a), &a)) ||
       (err = clSetKernelArg(k[K_SAXPY], 2, sizeof(b), &b)) ||
       (err = clEnqueueNDRangeKernel(p->q, k[K_SAXPY], 1, NULL, &g1, &l1, 0, NULL, NULL)) ||
       (err = clFinish(p->q)))
      goto out;
   size_t g2[2] = {32, 32}, l2[2] = {TS, TS};
   if ((err = clSetKernelArg(k[K_SGEMM], 0, sizeof(gn), &gn)) ||
       (err = clSetKernelArg(k[K_SGEMM], 1, sizeof(a), &a)) ||
       (err = clSetKernelArg(k[K_SGEMM], 2, sizeof(b), &b)) ||
       (err = clSetKernelArg(k[K_SGEMM], 3, sizeof(c), &c)) ||
       (err = clEnqueueNDRangeKernel(p->q, k[K_SGEMM], 2, NULL, g2, l2, 0, NULL, NULL)) ||
       (err = clFinish(p->q)))
      goto out;
   size_t g3 = 4096, l3 = RL;
   if ((err = clSetKernelArg(k[K_REDUCE], 0, sizeof(a), &a)) ||
       (err = clSetKernelArg(k[K_REDUCE], 1, sizeof(c), &c)) ||
       (err = clSetKernelArg(k[K_REDUCE], 2, sizeof(rn), &rn)) ||
       (err = clEnqueueNDRangeKernel(p->q, k[K_REDUCE], 1, NULL, &g3, &l3, 0, NULL, NULL)) ||
       (err = clFinish(p->q)))
      goto out;
   *ms = now_ms() - t0;
out:
   clReleaseMemObject(a);
   clReleaseMemObject(b);
   clReleaseMemObject(c);
   return err;
}

/* Cold build (the first of this process on this platform), the kernels'
 * first and second tiny launches, then a warm rebuild of the same source
 * (released again: the benchmarks use the first program). */
static void measure_build(struct platform *p)
{
   struct build_times *b = &p->build;
   cl_int err = build_program(p, &p->prog, &b->cold_ms);
   if (err) {
      set_error(&b->status, b->note, sizeof(b->note), "clBuildProgram", err);
      return;
   }
   for (int k = 0; k < K_COUNT; k++) {
      p->k[k] = clCreateKernel(p->prog, kernel_names[k], &err);
      if (err) {
         set_error(&b->status, b->note, sizeof(b->note), "clCreateKernel", err);
         return;
      }
   }
   if ((err = tiny_launches(p, p->k, &b->first_launch_ms)) ||
       (err = tiny_launches(p, p->k, &b->second_launch_ms))) {
      set_error(&b->status, b->note, sizeof(b->note), "first launches", err);
      return;
   }
   cl_program again;
   if ((err = build_program(p, &again, &b->warm_ms))) {
      set_error(&b->status, b->note, sizeof(b->note), "second clBuildProgram", err);
      return;
   }
   clReleaseProgram(again);
   b->status = ST_OK;
}

/* ---- benchmarks --------------------------------------------------------- */

static cl_int launch_once(struct platform *p, cl_kernel k, cl_uint dim, const size_t *g,
                          const size_t *l, double *ms)
{
   double t0 = now_ms();
   cl_int err = clEnqueueNDRangeKernel(p->q, k, dim, NULL, g, l, 0, NULL, NULL);
   if (!err)
      err = clFinish(p->q);
   *ms = now_ms() - t0;
   return err;
}

/* How bench_saxpy launches. */
enum saxpy_shape { SAXPY_ITEM_PER_ELEMENT, SAXPY_NULL_LOCAL, SAXPY_STRIDED };
#define STRIDED_GROUPS_PER_CU 32
#define STRIDED_LOCAL 128

static void bench_saxpy(struct platform *p, const struct host *h, int runs, enum saxpy_shape shape,
                        struct result *r)
{
   cl_int err;
   size_t bytes = h->n * sizeof(float);
   double *t = calloc((size_t)runs, sizeof(double));
   cl_mem x = clCreateBuffer(p->ctx, CL_MEM_READ_ONLY, bytes, NULL, &err);
   cl_mem y = err ? NULL : clCreateBuffer(p->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
   CHECK_R(r, err, "clCreateBuffer");
   CHECK_R(r, clEnqueueWriteBuffer(p->q, x, CL_TRUE, 0, bytes, h->x, 0, NULL, NULL),
           "write x");
   CHECK_R(r, clEnqueueWriteBuffer(p->q, y, CL_TRUE, 0, bytes, h->y0, 0, NULL, NULL),
           "write y");
   float a = 2.0f;
   cl_kernel k = p->k[shape == SAXPY_STRIDED ? K_SAXPY_STRIDED : K_SAXPY];
   CHECK_R(r, clSetKernelArg(k, 0, sizeof(a), &a), "clSetKernelArg");
   CHECK_R(r, clSetKernelArg(k, 1, sizeof(x), &x), "clSetKernelArg");
   CHECK_R(r, clSetKernelArg(k, 2, sizeof(y), &y), "clSetKernelArg");
   size_t g = h->n, l = SAXPY_LOCAL;
   if (shape == SAXPY_STRIDED) {
      cl_long n = (cl_long)h->n;
      CHECK_R(r, clSetKernelArg(k, 3, sizeof(n), &n), "clSetKernelArg");
      l = STRIDED_LOCAL;
      g = (size_t)p->compute_units * STRIDED_GROUPS_PER_CU * l;
   }
   const size_t *local = shape == SAXPY_NULL_LOCAL ? NULL : &l;
   CHECK_R(r, launch_once(p, k, 1, &g, local, &r->first_ms), "saxpy");
   for (int i = 0; i < runs; i++)
      CHECK_R(r, launch_once(p, k, 1, &g, local, &t[i]), "saxpy");
   r->min_ms = t[0];
   for (int i = 1; i < runs; i++)
      r->min_ms = t[i] < r->min_ms ? t[i] : r->min_ms;
   r->median_ms = median(t, runs);
   r->work = 3.0 * (double)bytes;
   CHECK_R(r, clEnqueueReadBuffer(p->q, y, CL_TRUE, 0, bytes, h->out, 0, NULL, NULL), "read y");
   /* After runs+1 launches, y = y0 + (runs+1)*a*x, exact in float. */
   r->status = ST_OK;
   for (size_t i = 0; i < h->n; i++) {
      float want = h->y0[i] + (float)(runs + 1) * a * h->x[i];
      if (h->out[i] != want) {
         r->status = ST_INVALID;
         snprintf(r->note, sizeof(r->note), "y[%zu] = %g, expected %g", i, h->out[i], want);
         break;
      }
   }
out:
   if (x)
      clReleaseMemObject(x);
   if (y)
      clReleaseMemObject(y);
   free(t);
}

static void bench_sgemm(struct platform *p, const struct host *h, int runs, struct result *r)
{
   cl_int err;
   int n = h->gemm_n;
   size_t bytes = (size_t)n * n * sizeof(float);
   double *t = calloc((size_t)runs, sizeof(double));
   cl_mem a = clCreateBuffer(p->ctx, CL_MEM_READ_ONLY, bytes, NULL, &err);
   cl_mem b = err ? NULL : clCreateBuffer(p->ctx, CL_MEM_READ_ONLY, bytes, NULL, &err);
   cl_mem c = err ? NULL : clCreateBuffer(p->ctx, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
   CHECK_R(r, err, "clCreateBuffer");
   CHECK_R(r, clEnqueueWriteBuffer(p->q, a, CL_TRUE, 0, bytes, h->a, 0, NULL, NULL), "write A");
   CHECK_R(r, clEnqueueWriteBuffer(p->q, b, CL_TRUE, 0, bytes, h->b, 0, NULL, NULL), "write B");
   /* C starts as NaN, so an element the kernel never writes fails. */
   for (size_t i = 0; i < (size_t)n * n; i++)
      h->out[i] = NAN;
   CHECK_R(r, clEnqueueWriteBuffer(p->q, c, CL_TRUE, 0, bytes, h->out, 0, NULL, NULL), "write C");
   cl_kernel k = p->k[K_SGEMM];
   cl_int ni = n;
   CHECK_R(r, clSetKernelArg(k, 0, sizeof(ni), &ni), "clSetKernelArg");
   CHECK_R(r, clSetKernelArg(k, 1, sizeof(a), &a), "clSetKernelArg");
   CHECK_R(r, clSetKernelArg(k, 2, sizeof(b), &b), "clSetKernelArg");
   CHECK_R(r, clSetKernelArg(k, 3, sizeof(c), &c), "clSetKernelArg");
   size_t g[2] = {(size_t)n, (size_t)n}, l[2] = {TS, TS};
   CHECK_R(r, launch_once(p, k, 2, g, l, &r->first_ms), "sgemm");
   for (int i = 0; i < runs; i++)
      CHECK_R(r, launch_once(p, k, 2, g, l, &t[i]), "sgemm");
   r->min_ms = t[0];
   for (int i = 1; i < runs; i++)
      r->min_ms = t[i] < r->min_ms ? t[i] : r->min_ms;
   r->median_ms = median(t, runs);
   r->work = 2.0 * n * (double)n * n;
   CHECK_R(r, clEnqueueReadBuffer(p->q, c, CL_TRUE, 0, bytes, h->out, 0, NULL, NULL), "read C");
   r->status = ST_OK;
   for (size_t i = 0; i < (size_t)n * n; i++) {
      float want = h->c_ref[i], got = h->out[i];
      if (!(fabsf(got - want) <= 1e-5f * fabsf(want) + 1e-3f)) {
         r->status = ST_INVALID;
         snprintf(r->note, sizeof(r->note), "C[%zu][%zu] = %g, expected %g", i / (size_t)n,
                  i % (size_t)n, got, want);
         break;
      }
   }
out:
   if (a)
      clReleaseMemObject(a);
   if (b)
      clReleaseMemObject(b);
   if (c)
      clReleaseMemObject(c);
   free(t);
}

/* One run: the kernel, reading the group sums back, adding them on the
 * host (all inside the timing: that is the whole reduction). */
static cl_int reduce_once(struct platform *p, cl_kernel k, cl_mem partial, size_t groups,
                          float *host_partial, double *sum, double *ms)
{
   size_t g = groups * RL, l = RL;
   double t0 = now_ms();
   cl_int err = clEnqueueNDRangeKernel(p->q, k, 1, NULL, &g, &l, 0, NULL, NULL);
   if (!err)
      err = clEnqueueReadBuffer(p->q, partial, CL_TRUE, 0, groups * sizeof(float), host_partial,
                                0, NULL, NULL);
   double s = 0;
   for (size_t i = 0; i < groups; i++)
      s += host_partial[i];
   *ms = now_ms() - t0;
   *sum = s;
   return err;
}

static void bench_reduce(struct platform *p, const struct host *h, int runs,
                         enum kernel_id kid, bool one_per_item, struct result *r)
{
   cl_int err;
   size_t bytes = h->n * sizeof(float);
   size_t groups = one_per_item ? h->n / RL : REDUCE_GROUPS;
   if (groups * RL > h->n)
      groups = h->n / RL;
   double *t = calloc((size_t)runs, sizeof(double));
   float *hp = calloc(groups, sizeof(float));
   cl_mem in = clCreateBuffer(p->ctx, CL_MEM_READ_ONLY, bytes, NULL, &err);
   cl_mem part = err ? NULL
                     : clCreateBuffer(p->ctx, CL_MEM_WRITE_ONLY, groups * sizeof(float), NULL,
                                      &err);
   CHECK_R(r, err, "clCreateBuffer");
   CHECK_R(r, clEnqueueWriteBuffer(p->q, in, CL_TRUE, 0, bytes, h->x, 0, NULL, NULL), "write");
   cl_kernel k = p->k[kid];
   cl_uint n = (cl_uint)h->n;
   CHECK_R(r, clSetKernelArg(k, 0, sizeof(in), &in), "clSetKernelArg");
   CHECK_R(r, clSetKernelArg(k, 1, sizeof(part), &part), "clSetKernelArg");
   CHECK_R(r, clSetKernelArg(k, 2, sizeof(n), &n), "clSetKernelArg");
   double sum;
   r->status = ST_OK;
   for (int i = -1; i < runs; i++) {
      double ms;
      CHECK_R(r, reduce_once(p, k, part, groups, hp, &sum, &ms), "reduce");
      if (i < 0)
         r->first_ms = ms;
      else
         t[i] = ms;
      /* Every run is checked: a group sum is exact, so any difference is
       * an error (a race on __local memory shows up as a wrong run). */
      if (r->status == ST_OK && !(fabs(sum - h->sum_ref) <= 1e-7 * h->sum_ref)) {
         r->status = ST_INVALID;
         snprintf(r->note, sizeof(r->note), "run %d: sum %.1f, expected %.1f", i + 1, sum,
                  h->sum_ref);
      }
   }
   r->min_ms = t[0];
   for (int i = 1; i < runs; i++)
      r->min_ms = t[i] < r->min_ms ? t[i] : r->min_ms;
   r->median_ms = median(t, runs);
   r->work = (double)bytes;
out:
   if (in)
      clReleaseMemObject(in);
   if (part)
      clReleaseMemObject(part);
   free(t);
   free(hp);
}

/* math_mix on n/16 elements (x in [0, 1) scaled to [-8, 8)): checked
 * against the same formula in double, within 4e-6 relative + 4e-6
 * absolute (a few ulp of each term: every function is inside its §7.4
 * limit on a conformant device). */
static void bench_math(struct platform *p, const struct host *h, int runs, struct result *r)
{
   cl_int err;
   size_t n = h->n / 16, bytes = n * sizeof(float);
   double *t = calloc((size_t)runs, sizeof(double));
   float *in = malloc(bytes);
   cl_mem x = NULL, y = NULL;
   if (!t || !in) {
      r->status = ST_ERROR;
      snprintf(r->note, sizeof(r->note), "out of host memory");
      goto out;
   }
   for (size_t i = 0; i < n; i++)
      in[i] = 16.0f * h->x[i] - 8.0f;
   x = clCreateBuffer(p->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, in, &err);
   y = err ? NULL : clCreateBuffer(p->ctx, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
   CHECK_R(r, err, "clCreateBuffer");
   cl_kernel k = p->k[K_MATH];
   CHECK_R(r, clSetKernelArg(k, 0, sizeof(x), &x), "clSetKernelArg");
   CHECK_R(r, clSetKernelArg(k, 1, sizeof(y), &y), "clSetKernelArg");
   CHECK_R(r, launch_once(p, k, 1, &n, NULL, &r->first_ms), "math_mix");
   for (int i = 0; i < runs; i++)
      CHECK_R(r, launch_once(p, k, 1, &n, NULL, &t[i]), "math_mix");
   r->min_ms = t[0];
   for (int i = 1; i < runs; i++)
      r->min_ms = t[i] < r->min_ms ? t[i] : r->min_ms;
   r->median_ms = median(t, runs);
   r->work = (double)n * 1e3; /* the table divides by 1e6 * ms: Melem/s */
   CHECK_R(r, clEnqueueReadBuffer(p->q, y, CL_TRUE, 0, bytes, h->out, 0, NULL, NULL), "read y");
   r->status = ST_OK;
   for (size_t i = 0; i < n; i++) {
      double a = in[i];
      double want = sin(a) + cos(a) * exp(-a * a) + log(1.0 + fabs(a)) + pow(fabs(a) + 1.0, 0.3);
      if (!(fabs(h->out[i] - want) <= 4e-6 * fabs(want) + 4e-6)) {
         r->status = ST_INVALID;
         snprintf(r->note, sizeof(r->note), "y[%zu] = %g, expected %g", i, h->out[i], want);
         break;
      }
   }
out:
   if (x)
      clReleaseMemObject(x);
   if (y)
      clReleaseMemObject(y);
   free(in);
   free(t);
}


/* ---- launch latency ---------------------------------------------------- */

static void set_min_median(struct result *r, double *t, int runs)
{
   r->min_ms = t[0];
   for (int i = 1; i < runs; i++)
      r->min_ms = t[i] < r->min_ms ? t[i] : r->min_ms;
   r->median_ms = median(t, runs);
}

/* B_LAUNCH and B_LAUNCH_WIDE: LAUNCH_BATCH launches of the empty kernel
 * enqueued back to back and one clFinish per sample (what a program of
 * many small kernels pays per launch); B_ROUND_TRIP: enqueue + clFinish
 * of one launch, ROUND_TRIPS samples (what a program that waits on every
 * launch pays); B_READ_TRIP: the same with a blocking read of 16 KiB
 * instead of the clFinish (what a reduction pays on top of its kernel:
 * reading the group sums back).  Nothing to check but the error codes. */
static void bench_launch(struct platform *p, int runs, enum bench_id which, struct result *r)
{
   cl_kernel k = p->k[K_EMPTY];
   bool wide = which == B_LAUNCH_WIDE;
   size_t g = wide ? LAUNCH_WIDE : 1, l = wide ? LAUNCH_WIDE_LOCAL : 1;
   bool trip = which == B_ROUND_TRIP || which == B_READ_TRIP;
   int samples = trip ? ROUND_TRIPS : runs;
   int per = trip ? 1 : LAUNCH_BATCH;
   double *t = calloc((size_t)samples, sizeof(double));
   float back[READ_TRIP_FLOATS];
   cl_mem buf = NULL;
   if (which == B_READ_TRIP) {
      cl_int err;
      buf = clCreateBuffer(p->ctx, CL_MEM_READ_WRITE, sizeof(back), NULL, &err);
      CHECK_R(r, err, "clCreateBuffer");
   }
   if (!t) {
      r->status = ST_ERROR;
      snprintf(r->note, sizeof(r->note), "out of host memory");
      return;
   }
   size_t wg = 0;
   clGetKernelWorkGroupInfo(k, p->dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg), &wg, NULL);
   if (wg < l) {
      r->status = ST_ERROR;
      snprintf(r->note, sizeof(r->note), "CL_KERNEL_WORK_GROUP_SIZE %zu < %zu", wg, l);
      goto out;
   }
   for (int s = -1; s < samples; s++) {
      double t0 = now_ms();
      for (int i = 0; i < per; i++)
         CHECK_R(r, clEnqueueNDRangeKernel(p->q, k, 1, NULL, &g, &l, 0, NULL, NULL),
                 "clEnqueueNDRangeKernel");
      if (buf)
         CHECK_R(r, clEnqueueReadBuffer(p->q, buf, CL_TRUE, 0, sizeof(back), back, 0, NULL, NULL),
                 "clEnqueueReadBuffer");
      else
         CHECK_R(r, clFinish(p->q), "clFinish");
      double ms = now_ms() - t0;
      if (s < 0)
         r->first_ms = ms;
      else
         t[s] = ms;
   }
   set_min_median(r, t, samples);
   r->launches = per;
   r->status = ST_OK;
out:
   if (buf)
      clReleaseMemObject(buf);
   free(t);
}

/* ---- the memory bound --------------------------------------------------- */

/* GPU: clEnqueueCopyBuffer from x to y, the saxpy buffers (what the
 * device's copy engine or copy kernel gets from its memory), counting the
 * bytes read and written.  Checked: y must equal x afterwards. */
static void bench_copy_bound(struct platform *p, const struct host *h, int runs,
                             struct result *r)
{
   cl_int err;
   size_t bytes = h->n * sizeof(float);
   double *t = calloc((size_t)runs, sizeof(double));
   cl_mem x = clCreateBuffer(p->ctx, CL_MEM_READ_ONLY, bytes, NULL, &err);
   cl_mem y = err ? NULL : clCreateBuffer(p->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
   CHECK_R(r, err, "clCreateBuffer");
   CHECK_R(r, t ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY, "calloc");
   CHECK_R(r, clEnqueueWriteBuffer(p->q, x, CL_TRUE, 0, bytes, h->x, 0, NULL, NULL),
           "write x");
   CHECK_R(r, clEnqueueWriteBuffer(p->q, y, CL_TRUE, 0, bytes, h->y0, 0, NULL, NULL),
           "write y");
   for (int i = -1; i < runs; i++) {
      double t0 = now_ms();
      CHECK_R(r, clEnqueueCopyBuffer(p->q, x, y, 0, 0, bytes, 0, NULL, NULL),
              "clEnqueueCopyBuffer");
      CHECK_R(r, clFinish(p->q), "clFinish");
      double ms = now_ms() - t0;
      if (i < 0)
         r->first_ms = ms;
      else
         t[i] = ms;
   }
   set_min_median(r, t, runs);
   r->work = 2.0 * (double)bytes;
   CHECK_R(r, clEnqueueReadBuffer(p->q, y, CL_TRUE, 0, bytes, h->out, 0, NULL, NULL), "read y");
   r->status = ST_OK;
   for (size_t i = 0; i < h->n; i++)
      if (h->out[i] != h->x[i]) {
         r->status = ST_INVALID;
         snprintf(r->note, sizeof(r->note), "y[%zu] = %g, expected %g", i, h->out[i], h->x[i]);
         break;
      }
out:
   if (x)
      clReleaseMemObject(x);
   if (y)
      clReleaseMemObject(y);
   free(t);
}

/* CPU: a STREAM-style triad a[i] = b[i] + s*c[i] over three fresh arrays
 * of the saxpy size (12 bytes per element, as saxpy), in plain C, on as
 * many threads as the device has compute units.  Each thread owns one
 * contiguous range and touches its pages first (the kernel allocates them
 * on that thread's NUMA node), then every run starts all threads at one
 * barrier and ends at another: the bandwidth the same threads get without
 * any OpenCL runtime in between. */

/* A barrier whose count can drop while threads wait at it (pthread's
 * cannot): if a worker cannot be created, the ones already waiting are
 * released with `stop` set and leave. */
struct gate {
   pthread_mutex_t lock;
   pthread_cond_t cond;
   unsigned count, arrived, generation;
   bool stop;
};

static void gate_init(struct gate *g, unsigned count)
{
   pthread_mutex_init(&g->lock, NULL);
   pthread_cond_init(&g->cond, NULL);
   g->count = count;
   g->arrived = 0;
   g->generation = 0;
   g->stop = false;
}

static void gate_fini(struct gate *g)
{
   pthread_mutex_destroy(&g->lock);
   pthread_cond_destroy(&g->cond);
}

static void gate_open_locked(struct gate *g)
{
   g->arrived = 0;
   g->generation++;
   pthread_cond_broadcast(&g->cond);
}

/* Returns false when the run was stopped. */
static bool gate_wait(struct gate *g)
{
   pthread_mutex_lock(&g->lock);
   if (g->stop) { /* a late worker of a stopped run */
      pthread_mutex_unlock(&g->lock);
      return false;
   }
   unsigned gen = g->generation;
   if (++g->arrived >= g->count)
      gate_open_locked(g);
   else
      while (gen == g->generation)
         pthread_cond_wait(&g->cond, &g->lock);
   bool go = !g->stop;
   pthread_mutex_unlock(&g->lock);
   return go;
}

static void gate_stop(struct gate *g)
{
   pthread_mutex_lock(&g->lock);
   g->stop = true;
   gate_open_locked(g);
   pthread_mutex_unlock(&g->lock);
}

struct triad {
   float *a, *b, *c;
   size_t n;
   unsigned threads;
   int samples; /* warm-up included */
   bool read_only; /* only sum b's bits (the read bound) */
   struct gate start, done;
};

struct triad_worker {
   struct triad *t;
   unsigned index;
   pthread_t thread;
   uint32_t sum; /* read_only: b's bits summed over the range */
};

/* The bits of b[begin, end) summed as integers: a pass that only reads,
 * with no floating-point order to keep, so it runs at what the memory
 * gives one thread. */
static uint32_t read_pass(const float *b, size_t begin, size_t end)
{
   const uint32_t *u = (const uint32_t *)b;
   uint32_t sum = 0;
   size_t i = begin;
#ifdef __SSE2__
   for (; i < end && ((uintptr_t)(u + i) & 15); i++)
      sum += u[i];
   __m128i s0 = _mm_setzero_si128(), s1 = s0, s2 = s0, s3 = s0;
   for (; i + 16 <= end; i += 16) {
      s0 = _mm_add_epi32(s0, _mm_load_si128((const __m128i *)(u + i)));
      s1 = _mm_add_epi32(s1, _mm_load_si128((const __m128i *)(u + i + 4)));
      s2 = _mm_add_epi32(s2, _mm_load_si128((const __m128i *)(u + i + 8)));
      s3 = _mm_add_epi32(s3, _mm_load_si128((const __m128i *)(u + i + 12)));
   }
   uint32_t lanes[4];
   _mm_storeu_si128((__m128i *)lanes,
                    _mm_add_epi32(_mm_add_epi32(s0, s1), _mm_add_epi32(s2, s3)));
   sum += lanes[0] + lanes[1] + lanes[2] + lanes[3];
#endif
   for (; i < end; i++)
      sum += u[i];
   return sum;
}

static void triad_range(const struct triad *t, unsigned index, size_t *begin, size_t *end)
{
   *begin = t->n * index / t->threads;
   *end = t->n * (index + 1) / t->threads;
}

static void *triad_main(void *arg)
{
   struct triad_worker *w = arg;
   struct triad *t = w->t;
   size_t begin, end;
   triad_range(t, w->index, &begin, &end);
   float *restrict a = t->a, *restrict b = t->b, *restrict c = t->c;
   for (size_t i = begin; i < end; i++) {
      a[i] = 0.0f;
      b[i] = x_value(i);
      c[i] = y_value(i);
   }
   const float s = 3.0f;
   for (int run = 0; run < t->samples; run++) {
      if (!gate_wait(&t->start))
         break;
      if (t->read_only) {
         w->sum = read_pass(b, begin, end);
         gate_wait(&t->done);
         continue;
      }
      size_t i = begin;
#ifdef __SSE2__
      /* Non-temporal stores: a plain store of a line that is not in the
       * cache reads it first (write-allocate), so a plain triad moves 16
       * bytes per element while counting 12, and a kernel that reads
       * what it writes (saxpy's y) would beat its "bound".  Streaming
       * stores move the 12 counted bytes, as saxpy does. */
      for (; i < end && ((uintptr_t)(a + i) & 15); i++)
         a[i] = b[i] + s * c[i];
      const __m128 sv = _mm_set1_ps(s);
      for (; i + 4 <= end; i += 4)
         _mm_stream_ps(a + i, _mm_add_ps(_mm_load_ps(b + i), _mm_mul_ps(sv, _mm_load_ps(c + i))));
      _mm_sfence();
#endif
      for (; i < end; i++)
         a[i] = b[i] + s * c[i];
      gate_wait(&t->done);
   }
   return NULL;
}

static void *map_floats(size_t n)
{
   /* mmap, not malloc: fresh pages that nobody has touched yet. */
   void *m = mmap(NULL, n * sizeof(float), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                  -1, 0);
   if (m == MAP_FAILED)
      return NULL;
#ifdef MADV_HUGEPAGE
   /* Huge pages where the kernel offers them on request, as Kiln's CPU
    * driver asks for its large buffers: the bound should not pay TLB
    * misses that the kernels do not.  A hint: errors are harmless. */
   madvise(m, n * sizeof(float), MADV_HUGEPAGE);
#endif
   return m;
}

static void bench_triad_bound(struct platform *p, const struct host *h, int runs,
                              bool read_only, struct result *r)
{
   struct triad t = {.n = h->n, .samples = runs + 1, .read_only = read_only};
   t.threads = p->compute_units ? p->compute_units : 1;
   if (t.threads > 1024)
      t.threads = 1024;
   double *times = calloc((size_t)runs, sizeof(double));
   struct triad_worker *w = calloc(t.threads, sizeof(*w));
   t.a = map_floats(t.n);
   t.b = map_floats(t.n);
   t.c = map_floats(t.n);
   r->status = ST_ERROR;
   if (!times || !w || !t.a || !t.b || !t.c) {
      snprintf(r->note, sizeof(r->note), "out of host memory");
      goto out;
   }
   gate_init(&t.start, t.threads + 1);
   gate_init(&t.done, t.threads + 1);
   for (unsigned i = 0; i < t.threads; i++) {
      w[i] = (struct triad_worker){.t = &t, .index = i};
      if (pthread_create(&w[i].thread, NULL, triad_main, &w[i])) {
         snprintf(r->note, sizeof(r->note), "pthread_create failed after %u threads", i);
         gate_stop(&t.start);
         for (unsigned j = 0; j < i; j++)
            pthread_join(w[j].thread, NULL);
         goto fini;
      }
   }
   for (int run = -1; run < runs; run++) {
      gate_wait(&t.start);
      double t0 = now_ms();
      gate_wait(&t.done);
      double ms = now_ms() - t0;
      if (run < 0)
         r->first_ms = ms;
      else
         times[run] = ms;
   }
   for (unsigned i = 0; i < t.threads; i++)
      pthread_join(w[i].thread, NULL);
   set_min_median(r, times, runs);
   r->status = ST_OK;
   if (read_only) {
      r->work = (double)(t.n * sizeof(float));
      uint32_t got = 0, want = 0;
      for (unsigned i = 0; i < t.threads; i++)
         got += w[i].sum;
      for (size_t i = 0; i < t.n; i++) {
         float v = x_value(i);
         uint32_t bits;
         memcpy(&bits, &v, sizeof(bits));
         want += bits;
      }
      if (got != want) {
         r->status = ST_INVALID;
         snprintf(r->note, sizeof(r->note), "sum of b's bits %u, expected %u", got, want);
      }
      goto fini;
   }
   r->work = 3.0 * (double)(t.n * sizeof(float));
   for (size_t i = 0; i < t.n; i++) {
      float want = x_value(i) + 3.0f * y_value(i);
      if (t.a[i] != want) {
         r->status = ST_INVALID;
         snprintf(r->note, sizeof(r->note), "a[%zu] = %g, expected %g", i, t.a[i], want);
         break;
      }
   }
fini:
   gate_fini(&t.start);
   gate_fini(&t.done);
out:
   if (t.a)
      munmap(t.a, t.n * sizeof(float));
   if (t.b)
      munmap(t.b, t.n * sizeof(float));
   if (t.c)
      munmap(t.c, t.n * sizeof(float));
   free(times);
   free(w);
}

/* --rounds: a row keeps its fastest round (the lowest median), or the
 * first round that failed: a failure is never hidden by a later pass. */
static void keep_best(struct result *best, const struct result *r, bool first)
{
   if (first || (best->status == ST_OK && (r->status != ST_OK || r->median_ms < best->median_ms)))
      *best = *r;
}

static void run_benchmarks(struct platform *p, const struct host *h, int runs,
                           cl_device_type type, bool launch_only)
{
   if (p->build.status != ST_OK) {
      for (int b = 0; b < B_COUNT; b++) {
         if (b == B_BOUND && p->r[b].status != ST_NOT_RUN)
            continue; /* the triad needs no program */
         p->r[b].status = ST_ERROR;
         snprintf(p->r[b].note, sizeof(p->r[b].note), "no program (%.140s)", p->build.note);
      }
      return;
   }
   if (launch_only)
      goto launches;
   size_t wg = 0;
   clGetKernelWorkGroupInfo(p->k[K_SGEMM], p->dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg), &wg,
                            NULL);
   /* A CPU's triad bound was measured before any platform ran (main). */
   if (type == CL_DEVICE_TYPE_GPU) {
      fprintf(stderr, "kiln_bench: %s: copy bound...\n", p->short_name);
      bench_copy_bound(p, h, runs, &p->r[B_BOUND]);
   }
   fprintf(stderr, "kiln_bench: %s: saxpy...\n", p->short_name);
   bench_saxpy(p, h, runs, SAXPY_ITEM_PER_ELEMENT, &p->r[B_SAXPY]);
   bench_saxpy(p, h, runs, SAXPY_NULL_LOCAL, &p->r[B_SAXPY_NULL]);
   bench_saxpy(p, h, runs, SAXPY_STRIDED, &p->r[B_SAXPY_STRIDED]);
   fprintf(stderr, "kiln_bench: %s: sgemm...\n", p->short_name);
   if (wg < TS * TS) {
      p->r[B_SGEMM].status = ST_ERROR;
      snprintf(p->r[B_SGEMM].note, sizeof(p->r[B_SGEMM].note),
               "CL_KERNEL_WORK_GROUP_SIZE %zu < %d", wg, TS * TS);
   } else {
      bench_sgemm(p, h, runs, &p->r[B_SGEMM]);
   }
   fprintf(stderr, "kiln_bench: %s: reduce...\n", p->short_name);
   bench_reduce(p, h, runs, K_REDUCE, false, &p->r[B_REDUCE]);
   bench_reduce(p, h, runs, K_REDUCE_CHUNKED, false, &p->r[B_REDUCE_CHUNKED]);
   bench_reduce(p, h, runs, K_REDUCE, true, &p->r[B_REDUCE_1PW]);
   fprintf(stderr, "kiln_bench: %s: math...\n", p->short_name);
   bench_math(p, h, runs, &p->r[B_MATH]);
launches:
   fprintf(stderr, "kiln_bench: %s: launches...\n", p->short_name);
   bench_launch(p, runs, B_LAUNCH, &p->r[B_LAUNCH]);
   bench_launch(p, runs, B_ROUND_TRIP, &p->r[B_ROUND_TRIP]);
   bench_launch(p, runs, B_LAUNCH_WIDE, &p->r[B_LAUNCH_WIDE]);
   bench_launch(p, runs, B_READ_TRIP, &p->r[B_READ_TRIP]);
}

/* ---- child processes for the build measurements ------------------------ */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
   (void)st;
   (void)flag;
   (void)ftw;
   return remove(path);
}

/* Runs this program again with --build-only for one platform, with the
 * variables in env ("NAME=value" strings) set, and reads its times. */
static void run_child(const struct options *o, const struct platform *p, const char *const *env,
                      struct build_times *b)
{
   b->status = ST_ERROR;
   int fd[2];
   if (pipe(fd)) {
      snprintf(b->note, sizeof(b->note), "pipe: %s", strerror(errno));
      return;
   }
   fflush(NULL);
   pid_t pid = fork();
   if (pid < 0) {
      snprintf(b->note, sizeof(b->note), "fork: %s", strerror(errno));
      close(fd[0]);
      close(fd[1]);
      return;
   }
   if (pid == 0) {
      dup2(fd[1], STDOUT_FILENO);
      close(fd[0]);
      close(fd[1]);
      for (; env && *env; env++)
         putenv((char *)*env);
      char idx[16];
      snprintf(idx, sizeof(idx), "%d", p->index);
      char *args[] = {(char *)"kiln_bench", (char *)"--build-only", (char *)"--platform-index",
                      idx, (char *)"--device", (char *)o->device_name, NULL};
      execv("/proc/self/exe", args);
      _exit(127);
   }
   close(fd[1]);
   char buf[512] = "";
   size_t len = 0;
   ssize_t got;
   while ((got = read(fd[0], buf + len, sizeof(buf) - 1 - len)) > 0)
      len += (size_t)got;
   buf[len] = 0;
   close(fd[0]);
   int wst;
   waitpid(pid, &wst, 0);
   const char *line = strstr(buf, "BUILD ");
   if (line && sscanf(line, "BUILD %lf %lf %lf %lf", &b->cold_ms, &b->first_launch_ms,
                      &b->second_launch_ms, &b->warm_ms) == 4) {
      b->status = ST_OK;
   } else {
      snprintf(b->note, sizeof(b->note), "child failed (status %d): %.100s", wst, buf);
   }
}

static void measure_children(const struct options *o, struct platform *p)
{
   if (p->is_pocl) {
      static const char *const no_cache[] = {"POCL_KERNEL_CACHE=0", NULL};
      p->child[0].label = "fresh process, POCL_KERNEL_CACHE=0";
      run_child(o, p, no_cache, &p->child[0].b);
      char dir[] = "/tmp/kiln_bench_pocl_XXXXXX";
      if (mkdtemp(dir)) {
         static char cache_dir[64];
         snprintf(cache_dir, sizeof(cache_dir), "POCL_CACHE_DIR=%s", dir);
         const char *empty_cache[] = {"POCL_KERNEL_CACHE=1", cache_dir, NULL};
         p->child[1].label = "fresh process, empty kernel cache";
         run_child(o, p, empty_cache, &p->child[1].b);
         nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
         p->num_children = 2;
      } else {
         p->num_children = 1;
      }
   } else if (p->is_kiln) {
      /* Kiln's compile cache (docs/cache.md): off, then a new one filled
       * by the first child (cold: a miss and a store; the child's second
       * build hits) and read by the second (warm: the first build hits). */
      static const char *const no_cache[] = {"KILN_CACHE=0", NULL};
      p->child[0].label = "fresh process, KILN_CACHE=0";
      run_child(o, p, no_cache, &p->child[0].b);
      p->num_children = 1;
      char dir[] = "/tmp/kiln_bench_cache_XXXXXX";
      if (mkdtemp(dir)) {
         static char cache_dir[64];
         snprintf(cache_dir, sizeof(cache_dir), "KILN_CACHE_DIR=%s/c", dir);
         const char *cache[] = {"KILN_CACHE=1", cache_dir, NULL};
         p->child[1].label = "fresh process, empty compile cache";
         run_child(o, p, cache, &p->child[1].b);
         p->child[2].label = "fresh process, warm compile cache";
         run_child(o, p, cache, &p->child[2].b);
         nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
         p->num_children = 3;
      }
   } else {
      p->child[0].label = "fresh process";
      run_child(o, p, NULL, &p->child[0].b);
      p->num_children = 1;
   }
}

/* ---- report --------------------------------------------------------------- */

static void cpu_model(char *out, size_t size)
{
   snprintf(out, size, "unknown CPU");
   FILE *f = fopen("/proc/cpuinfo", "r");
   if (!f)
      return;
   char line[256];
   while (fgets(line, sizeof(line), f)) {
      if (!strncmp(line, "model name", 10)) {
         char *v = strchr(line, ':');
         if (v) {
            v++;
            while (*v == ' ')
               v++;
            v[strcspn(v, "\n")] = 0;
            snprintf(out, size, "%s", v);
         }
         break;
      }
   }
   fclose(f);
}

static const char *status_text(const struct result *r)
{
   switch (r->status) {
   case ST_OK: return "ok";
   case ST_INVALID: return "INVALID";
   case ST_ERROR: return "ERROR";
   default: return "not run";
   }
}

static bool is_latency(enum bench_id b)
{
   return b == B_LAUNCH || b == B_ROUND_TRIP || b == B_LAUNCH_WIDE || b == B_READ_TRIP;
}

/* A table of rows[] as fractions of row `bound`, per platform, each of
 * its own run. */
static void print_fractions(const char *title, const struct platform *ps, int np,
                            const char *const *names, const enum bench_id *rows, int nrows,
                            enum bench_id bound)
{
   printf("\n| %s (same platform, same run) |", title);
   for (int i = 0; i < np; i++)
      printf(" %s |", ps[i].short_name);
   printf("\n|---|");
   for (int i = 0; i < np; i++)
      printf("---:|");
   printf("\n");
   for (int j = 0; j < nrows; j++) {
      printf("| %s |", names[rows[j]]);
      for (int i = 0; i < np; i++) {
         const struct result *r = &ps[i].r[rows[j]], *rb = &ps[i].r[bound];
         if (r->status == ST_OK && rb->status == ST_OK)
            printf(" %.3f |", (r->work / r->median_ms) / (rb->work / rb->median_ms));
         else
            printf(" - |");
      }
      printf("\n");
   }
}

static void print_report(const struct options *o, const struct host *h, struct platform *ps,
                         int np, char (*skipped)[512], int ns)
{
   char cpu[128], date[64];
   cpu_model(cpu, sizeof(cpu));
   time_t now = time(NULL);
   strftime(date, sizeof(date), "%Y-%m-%d %H:%M %Z", localtime(&now));
   printf("\n# kiln_bench %s, %s\n", KILN_BENCH_VCS, date);
   printf("host: %s, %ld online cores; runs=%d (median after 1 warm-up), size=%g", cpu,
          sysconf(_SC_NPROCESSORS_ONLN), o->runs, o->scale);
   if (o->rounds > 1)
      printf("; rounds=%d, platforms in turn, each row its best round", o->rounds);
   printf("\n");
   /* An array that fits the last-level cache is read partly from it, by
    * an amount that changes between processes (a 300 MiB L3 on the GPU
    * machine's host read a 256 MiB triad at 100 or at 300 GB/s). */
   long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
   double array = (double)h->n * sizeof(float);
   if (o->device_type != CL_DEVICE_TYPE_GPU && !o->launch_only && l3 > 0 && array < 2.0 * l3)
      printf("warning: each array is %.0f MiB against a %.0f MiB L3 cache: the bounds and the "
             "memory-bound rows may be served partly from it; --size %.0f or more avoids that\n",
             array / (1024 * 1024), l3 / (1024.0 * 1024), ceil(o->scale * 2.0 * l3 / array));
   printf("device type: %s (the first such device of each platform)\n", o->device_name);
   for (int i = 0; i < np; i++)
      printf("platform %d: %s | %s | device %s, %u compute units, %.1f GiB, driver %s\n",
             ps[i].index, ps[i].name, ps[i].version, ps[i].dev_name, ps[i].compute_units,
             ps[i].global_mem / (1024.0 * 1024 * 1024), ps[i].driver);
   for (int i = 0; i < ns; i++)
      printf("not measured: %s\n", skipped[i]);
   const char *pocl_cache = getenv("POCL_KERNEL_CACHE");
   printf("POCL_KERNEL_CACHE in this process: %s\n",
          pocl_cache ? pocl_cache : "unset (PoCL's default: on)");

   int kiln = -1;
   for (int i = 0; i < np; i++)
      if (ps[i].is_kiln && kiln < 0)
         kiln = i;

   bool gpu = o->device_type == CL_DEVICE_TYPE_GPU;
   static const char *const names[B_COUNT] = {
      "saxpy (local 256)",       "saxpy (local NULL)",
      "saxpy grid-stride (pyopencl's shape)", "sgemm 16x16 tiles",
      "reduce grid-stride (4096 groups)", "reduce chunked (4096 groups)",
      "reduce (1 elem/item)",    "math (sin cos exp log pow)", "empty kernel, back to back",
      "empty kernel, enqueue + clFinish", "empty kernel 4096/64, back to back",
      "empty kernel + blocking 16 KiB read", NULL, "bound: read in C"};
   const char *bound_name = gpu ? "bound: clEnqueueCopyBuffer" : "bound: triad in C";
   char sizes[B_COUNT][64];
   char nf[32];
   if (h->n >= (1u << 20))
      snprintf(nf, sizeof(nf), "%zuM floats", h->n >> 20);
   else
      snprintf(nf, sizeof(nf), "%zuK floats", h->n >> 10);
   snprintf(sizes[B_SAXPY], 64, "%s", nf);
   snprintf(sizes[B_SAXPY_NULL], 64, "%s", nf);
   snprintf(sizes[B_SAXPY_STRIDED], 64, "%s, CUs x %d groups of %d", nf, STRIDED_GROUPS_PER_CU,
            STRIDED_LOCAL);
   snprintf(sizes[B_SGEMM], 64, "%dx%d", h->gemm_n, h->gemm_n);
   snprintf(sizes[B_REDUCE], 64, "%s", nf);
   snprintf(sizes[B_REDUCE_CHUNKED], 64, "%s", nf);
   snprintf(sizes[B_REDUCE_1PW], 64, "%s, %zu groups", nf, h->n / RL);
   snprintf(sizes[B_MATH], 64, "%zuK floats", h->n >> 14);
   snprintf(sizes[B_LAUNCH], 64, "1 item, %d launches", LAUNCH_BATCH);
   snprintf(sizes[B_ROUND_TRIP], 64, "1 item, median of %d", ROUND_TRIPS);
   snprintf(sizes[B_LAUNCH_WIDE], 64, "%d items, %d launches", LAUNCH_WIDE, LAUNCH_BATCH);
   snprintf(sizes[B_READ_TRIP], 64, "1 item, median of %d", ROUND_TRIPS);
   snprintf(sizes[B_BOUND], 64, gpu ? "%s, x to y" : "3x %s, 1 thread/CU", nf);
   snprintf(sizes[B_READ_BOUND], 64, "%s, 1 thread/CU", nf);

   printf("\n| benchmark | size | unit |");
   for (int i = 0; i < np; i++)
      printf(" %s ms (first) | %s |", ps[i].short_name, ps[i].short_name);
   for (int i = 0; i < np; i++)
      if (kiln >= 0 && i != kiln)
         printf(" Kiln/%s |", ps[i].short_name);
   printf("\n|---|---|---|");
   for (int i = 0; i < np; i++)
      printf("---:|---:|");
   for (int i = 0; i < np; i++)
      if (kiln >= 0 && i != kiln)
         printf("---:|");
   printf("\n");
   for (int b = 0; b < B_COUNT; b++) {
      if (b == B_READ_BOUND && gpu)
         continue;
      bool gflops = b == B_SGEMM;
      printf("| %s | %s | %s |", b == B_BOUND ? bound_name : names[b], sizes[b],
             is_latency(b) ? "µs/launch" : gflops ? "GFLOP/s" : b == B_MATH ? "Melem/s" : "GB/s");
      for (int i = 0; i < np; i++) {
         const struct result *r = &ps[i].r[b];
         if (r->status == ST_OK || r->status == ST_INVALID)
            printf(" %.2f (%.1f) | %.2f%s |", r->median_ms, r->first_ms,
                   is_latency(b) ? r->median_ms * 1e3 / r->launches
                                 : r->work / (r->median_ms * 1e6),
                   r->status == ST_INVALID ? " INVALID" : "");
         else
            printf(" %s | - |", status_text(r));
      }
      for (int i = 0; i < np; i++) {
         if (kiln < 0 || i == kiln)
            continue;
         const struct result *rk = &ps[kiln].r[b], *ro = &ps[i].r[b];
         if (rk->status == ST_OK && ro->status == ST_OK)
            printf(" %.2f |", ro->median_ms / rk->median_ms);
         else
            printf(" - |");
      }
      printf("\n");
   }
   printf("\nThroughput: saxpy counts 12 bytes/element (read x, y; write y), reduce 4;\n"
          "sgemm 2n^3 flops, math elements; %s. Launch rows: µs per launch, \"ms\" per\n"
          "sample (%d launches and one clFinish; one launch for the round trip).\n"
          "Kiln/X > 1: Kiln is faster. \"first\" is the warm-up run.\n",
          gpu ? "the copy bound 8 bytes/element (read x, write y)"
              : "the triad bound 12 bytes/element (read b, c; write a) in plain C, each\n"
                "thread on one contiguous range whose pages it touched first",
          LAUNCH_BATCH);

   /* Each memory-bound row against the bound of the same platform and run;
    * on a CPU the reductions also against what reading alone gets. */
   static const enum bench_id bounded[] = {B_SAXPY, B_SAXPY_NULL, B_SAXPY_STRIDED, B_REDUCE,
                                           B_REDUCE_CHUNKED, B_REDUCE_1PW};
   print_fractions("fraction of the bound", ps, np, names, bounded, 6, B_BOUND);
   printf("A reduction only reads (4 bytes/element), so it can pass a bound that also "
          "writes.\n");
   if (!gpu)
      print_fractions("fraction of the read bound", ps, np, names, bounded + 3, 3, B_READ_BOUND);

   printf("\n| build (same source, %d kernels) |", K_COUNT);
   for (int i = 0; i < np; i++)
      printf(" %s ms |", ps[i].short_name);
   printf("\n|---|");
   for (int i = 0; i < np; i++)
      printf("---:|");
   printf("\n");
   static const char *const rows[4] = {"cold clBuildProgram (first in process)",
                                       "first launch of the 3 kernels (tiny sizes)",
                                       "second launch of the 3 kernels",
                                       "warm clBuildProgram (2nd, same source)"};
   for (int row = 0; row < 4; row++) {
      printf("| %s |", rows[row]);
      for (int i = 0; i < np; i++) {
         const struct build_times *b = &ps[i].build;
         double v = row == 0 ? b->cold_ms
                    : row == 1 ? b->first_launch_ms
                    : row == 2 ? b->second_launch_ms
                               : b->warm_ms;
         if (b->status == ST_OK)
            printf(" %.1f |", v);
         else
            printf(" ERROR |");
      }
      printf("\n");
   }
   for (int i = 0; i < np; i++)
      for (int c = 0; c < ps[i].num_children; c++) {
         const struct build_times *b = &ps[i].child[c].b;
         if (b->status == ST_OK)
            printf("%s, %s: cold build %.1f ms, first launches %.1f ms (second %.1f), "
                   "warm build %.1f ms\n",
                   ps[i].short_name, ps[i].child[c].label, b->cold_ms, b->first_launch_ms,
                   b->second_launch_ms, b->warm_ms);
         else
            printf("%s, %s: ERROR %s\n", ps[i].short_name, ps[i].child[c].label, b->note);
      }

   bool notes = false;
   for (int i = 0; i < np; i++) {
      if (ps[i].build.status == ST_ERROR) {
         printf("%s%s build: %s\n", notes ? "" : "\nnotes:\n", ps[i].short_name,
                ps[i].build.note);
         notes = true;
      }
      for (int b = 0; b < B_COUNT; b++)
         if (ps[i].r[b].status == ST_INVALID || ps[i].r[b].status == ST_ERROR) {
            printf("%s%s %s: %s: %s\n", notes ? "" : "\nnotes:\n", ps[i].short_name,
                   b == B_BOUND ? bound_name : names[b],
                   status_text(&ps[i].r[b]), ps[i].r[b].note);
            notes = true;
         }
   }
}

/* ---- main ----------------------------------------------------------------- */

int main(int argc, char **argv)
{
   struct options o;
   if (!parse_options(argc, argv, &o))
      return 2;
   setvbuf(stdout, NULL, _IOLBF, 0);

   cl_platform_id ids[MAX_PLATFORMS];
   cl_uint n_ids = 0;
   cl_int err = clGetPlatformIDs(MAX_PLATFORMS, ids, &n_ids);
   if (err || n_ids == 0) {
      fprintf(stderr, "kiln_bench: no OpenCL platform (clGetPlatformIDs: %d); "
                      "set OCL_ICD_VENDORS?\n", (int)err);
      return 1;
   }
   if (n_ids > MAX_PLATFORMS)
      n_ids = MAX_PLATFORMS;

   struct platform *ps = calloc(n_ids, sizeof(*ps));
   char skipped[MAX_PLATFORMS][512];
   int np = 0, ns = 0;
   for (cl_uint i = 0; i < n_ids; i++) {
      struct platform p = {.index = (int)i, .id = ids[i]};
      get_platform_info(&p);
      if (o.platform_index >= 0 && (int)i != o.platform_index)
         continue;
      bool want = o.num_filters == 0;
      for (int f = 0; f < o.num_filters; f++)
         want |= contains_ci(p.name, o.filters[f]) || contains_ci(p.vendor, o.filters[f]);
      if (!want)
         continue;
      err = platform_device(&p, o.device_type);
      if (err) {
         snprintf(skipped[ns++], sizeof(skipped[0]), "%s | %s | no %s device (%s), skipped",
                  p.name, p.version, o.device_name,
                  err == CL_DEVICE_NOT_FOUND ? "CL_DEVICE_NOT_FOUND" : "clGetDeviceIDs failed");
         continue;
      }
      /* A loader that reads both a vendors folder and OCL_ICD_FILENAMES
       * (the Khronos one) lists a driver named in both twice. */
      bool twice = false;
      for (int j = 0; j < np; j++)
         twice |= !strcmp(ps[j].name, p.name) && !strcmp(ps[j].version, p.version) &&
                  !strcmp(ps[j].dev_name, p.dev_name);
      if (twice) {
         snprintf(skipped[ns++], sizeof(skipped[0]),
                  "%s | %s | device %s listed twice by the ICD loader, skipped", p.name,
                  p.version, p.dev_name);
         continue;
      }
      ps[np++] = p;
   }
   for (int i = 0; i < ns; i++)
      fprintf(stderr, "kiln_bench: %s\n", skipped[i]);
   if (!np) {
      fprintf(stderr, "kiln_bench: no platform%s has a %s device\n",
              o.num_filters ? " matching --platform" : "", o.device_name);
      return 1;
   }
   /* Kiln first: its cold build is then the first compile in the process. */
   for (int i = 1; i < np; i++)
      if (ps[i].is_kiln && !ps[0].is_kiln) {
         struct platform t = ps[0];
         ps[0] = ps[i];
         ps[i] = t;
      }

   if (o.build_only) {
      struct platform *p = &ps[0];
      err = platform_open(p, o.device_type);
      if (!err)
         measure_build(p);
      if (err || p->build.status != ST_OK) {
         fprintf(stderr, "kiln_bench: %s: %s\n", p->short_name, p->build.note);
         return 1;
      }
      printf("BUILD %.3f %.3f %.3f %.3f\n", p->build.cold_ms, p->build.first_launch_ms,
             p->build.second_launch_ms, p->build.warm_ms);
      platform_close(p);
      return 0;
   }

   struct host h;
   fprintf(stderr, "kiln_bench: preparing host data and references...\n");
   if (!host_init(&h, o.launch_only ? 1.0 / 1024 : o.scale)) {
      fprintf(stderr, "kiln_bench: out of host memory\n");
      return 1;
   }
   struct result(*best)[B_COUNT] = calloc((size_t)np, sizeof(*best));
   if (!best) {
      fprintf(stderr, "kiln_bench: out of host memory\n");
      return 1;
   }
   for (int round = 0; round < o.rounds; round++) {
      if (o.rounds > 1)
         fprintf(stderr, "kiln_bench: round %d of %d\n", round + 1, o.rounds);
      /* The CPU bound before any platform has run: a driver's worker
       * threads (which may spin for a while after their last work, and
       * stay for the life of the process) would otherwise take cycles
       * from the triad's.  One triad per distinct thread count. */
      if (o.device_type != CL_DEVICE_TYPE_GPU && !o.launch_only)
         for (int i = 0; i < np; i++) {
            int same = -1;
            for (int j = 0; j < i && same < 0; j++)
               if (ps[j].compute_units == ps[i].compute_units)
                  same = j;
            if (same >= 0) {
               ps[i].r[B_BOUND] = ps[same].r[B_BOUND];
               ps[i].r[B_READ_BOUND] = ps[same].r[B_READ_BOUND];
               continue;
            }
            fprintf(stderr, "kiln_bench: triad and read bounds on %u threads...\n",
                    ps[i].compute_units);
            bench_triad_bound(&ps[i], &h, o.runs, false, &ps[i].r[B_BOUND]);
            bench_triad_bound(&ps[i], &h, o.runs, true, &ps[i].r[B_READ_BOUND]);
         }
      for (int i = 0; i < np; i++) {
         struct platform *p = &ps[i];
         /* The build rows are the first round's (later ones hit caches). */
         struct build_times first = p->build;
         fprintf(stderr, "kiln_bench: %s (%s)\n", p->short_name, p->name);
         err = platform_open(p, o.device_type);
         if (err) {
            set_error(&p->build.status, p->build.note, sizeof(p->build.note),
                      "device/context/queue", err);
         } else {
            measure_build(p);
         }
         run_benchmarks(p, &h, o.runs, o.device_type, o.launch_only);
         platform_close(p);
         if (round && p->build.status == ST_OK)
            p->build = first;
         for (int b = 0; b < B_COUNT; b++)
            keep_best(&best[i][b], &p->r[b], round == 0);
      }
   }
   int failures = 0;
   for (int i = 0; i < np; i++) {
      struct platform *p = &ps[i];
      memcpy(p->r, best[i], sizeof(best[i]));
      for (int b = 0; b < B_COUNT; b++)
         failures += p->r[b].status != ST_OK &&
                     !((o.launch_only || (b == B_READ_BOUND && o.device_type == CL_DEVICE_TYPE_GPU)) &&
                       p->r[b].status == ST_NOT_RUN);
   }
   free(best);
   if (!o.no_child)
      for (int i = 0; i < np; i++) {
         fprintf(stderr, "kiln_bench: %s: build in fresh processes...\n", ps[i].short_name);
         measure_children(&o, &ps[i]);
      }
   print_report(&o, &h, ps, np, skipped, ns);
   host_fini(&h);
   free(ps);
   return failures ? 3 : 0;
}
