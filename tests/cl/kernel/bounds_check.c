/* KILN_CHECK=bounds (docs/env.md): kernels that step outside their
 * buffers, __local memory or __constant data by one element are stopped
 * at that access; the launch's event fails with CL_OUT_OF_RESOURCES, one
 * "kiln: bounds:" line on stderr names the kernel, the argument or
 * variable, the byte offset and the work-item, and the memory next to the
 * buffer keeps its contents.  Correct kernels run as before.
 *
 * Run twice by meson: `bounds_check on` with KILN_CHECK=bounds, and
 * `bounds_check off` without it, where the program's code must carry no
 * check at all. */
#define CL_TARGET_OPENCL_VERSION 300
#include <fcntl.h>
#include <unistd.h>

#include "kk.h"

static const char *source =
   "__kernel void copy_n(__global const int *in, __global int *out, int n)\n"
   "{ int i = get_global_id(0); if (i <= n) out[i] = in[i]; }\n"
   "__kernel void read_next(__constant int *tab, __global int *out)\n"
   "{ int i = get_global_id(0); out[i] = tab[i + 1]; }\n"
   "__kernel void shift_local(__global int *out, __local int *tmp)\n"
   "{\n"
   "  int l = get_local_id(0);\n"
   "  tmp[l + 1] = l;\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  out[get_global_id(0)] = tmp[l];\n"
   "}\n"
   "__kernel void shift_static(__global int *out)\n"
   "{\n"
   "  __local int buf[64];\n"
   "  int l = get_local_id(0);\n"
   "  buf[l] = l;\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  out[get_global_id(0)] = buf[l + 1];\n"
   "}\n"
   "__constant int primes[8] = {2, 3, 5, 7, 11, 13, 17, 19};\n"
   "__kernel void lookup(__global int *out)\n"
   "{ int i = get_global_id(0); out[i] = primes[i]; }\n"
   /* Either argument: the check cannot know which at compile time. */
   "__kernel void pick(__global int *a, __global int *b, int which)\n"
   "{ __global int *p = which ? a : b; int i = get_global_id(0); p[i] = i; }\n"
   /* A pointer walked in a loop: still traced to its argument. */
   "__kernel void walk(__global int *p, int n)\n"
   "{ if (get_global_id(0) == 0) for (__global int *q = p; q <= p + n; q++) *q = 1; }\n"
   /* Every kind of access, all in bounds. */
   "typedef struct { int a; float b; long c; } rec;\n"
   "__kernel void fine(__global const float *in, __global float *out, __constant float *k,\n"
   "                   __local float *tile, __global int *count, __global rec *recs,\n"
   "                   __global const rec *src)\n"
   "{\n"
   "  __local float stat[64];\n"
   "  int g = get_global_id(0), l = get_local_id(0), n = get_local_size(0);\n"
   "  tile[l] = in[g] * k[l % 4];\n"
   "  stat[l] = (float)primes[l % 8];\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  out[g] = tile[n - 1 - l] + stat[(l + 1) % n];\n"
   "  atomic_inc(count);\n"
   "  recs[g] = src[g];\n"
   "  if (g % 4 == 0) vstore4(vload4(g / 4, in) * 2.0f, g / 4, out + 4096);\n"
   "  __global const float *two[2] = {in, out};\n"
   "  if (two[g & 1][g] < 0.0f) count[1] = 1;\n"
   "}\n";

#define N 1024
#define GUARD 256 /* bytes after a buffer that must keep their contents */

/* ---- stderr capture -------------------------------------------------- */

static int saved_stderr = -1;
static char capture_path[] = "/tmp/kiln-bounds-XXXXXX";

static void capture_begin(void)
{
   fflush(stderr);
   int fd = mkstemp(capture_path);
   REQUIRE(fd >= 0);
   saved_stderr = dup(2);
   REQUIRE(saved_stderr >= 0 && dup2(fd, 2) == 2);
   close(fd);
}

/* What reached stderr since capture_begin (malloc'd), also echoed. */
static char *capture_end(void)
{
   fflush(stderr);
   REQUIRE(dup2(saved_stderr, 2) == 2);
   close(saved_stderr);
   FILE *f = fopen(capture_path, "r");
   REQUIRE(f);
   char *text = calloc(1, 65536);
   REQUIRE(text);
   size_t n = fread(text, 1, 65535, f);
   text[n] = 0;
   fclose(f);
   unlink(capture_path);
   strcpy(capture_path, "/tmp/kiln-bounds-XXXXXX");
   fprintf(stderr, "%s", text);
   return text;
}

#define CHECK_HAS(text, want) CHECK(strstr((text), (want)), " stderr lacks \"%s\"", (want))

/* ---- helpers ---------------------------------------------------------- */

static cl_event launch(const struct kt_env *env, cl_kernel k, size_t global, size_t local)
{
   cl_event ev = NULL;
   REQUIRE_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, local ? &local : NULL, 0,
                                     NULL, &ev));
   return ev;
}

/* Runs k and expects it to fail its bounds check: the event's status, the
 * waits, and the one report line (returned, malloc'd). */
static char *launch_failing(const struct kt_env *env, cl_kernel k, size_t global, size_t local)
{
   capture_begin();
   cl_event ev = launch(env, k, global, local);
   cl_int wait = clWaitForEvents(1, &ev);
   cl_int fin = clFinish(env->queue);
   char *text = capture_end();
   CHECK(wait == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, " clWaitForEvents: %s",
         kt_err_name(wait));
   CHECK(fin == CL_SUCCESS, " clFinish: %s", kt_err_name(fin));
   cl_int st = kt_status(ev);
   CHECK(st == CL_OUT_OF_RESOURCES, " event status %s, expected CL_OUT_OF_RESOURCES",
         kt_err_name(st));
   CHECK_OK(clReleaseEvent(ev));
   CHECK_HAS(text, "kiln: bounds: ");
   char *line = strstr(text, "kiln: bounds: ");
   CHECK(!line || !strstr(line + 1, "kiln: bounds: "), " more than one report");
   return text;
}

static void run_ok(const struct kt_env *env, cl_kernel k, size_t global, size_t local)
{
   cl_event ev = launch(env, k, global, local);
   CHECK_OK(clWaitForEvents(1, &ev));
   cl_int st = kt_status(ev);
   CHECK(st == CL_COMPLETE, " event status %s", kt_err_name(st));
   CHECK_OK(clReleaseEvent(ev));
}

/* The work-item a report names. */
static long long reported_item(const char *text)
{
   const char *p = strstr(text, "in work-item (");
   return p ? atoll(p + strlen("in work-item (")) : -1;
}

/* ---- cases ------------------------------------------------------------- */

/* `if (i <= n) out[i] = in[i]` over n + 1 work-items: out[n] is one past
 * the end.  out is a sub-buffer at the start of a larger buffer, whose
 * bytes after out are the guard. */
static void global_write(const struct kt_env *env, cl_program p)
{
   cl_kernel k = kk_kernel(p, "copy_n");
   int in[N + 1];
   for (int i = 0; i <= N; i++)
      in[i] = i * 3 + 1;
   unsigned char whole[N * 4 + GUARD], after[N * 4 + GUARD];
   kt_fill(whole, sizeof(whole), 7);
   cl_mem min = kk_buffer_in(env, sizeof(in), in);
   cl_mem parent = kk_buffer_in(env, sizeof(whole), whole);
   cl_buffer_region r = {0, N * 4};
   cl_int err;
   cl_mem out = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
   REQUIRE_OK(err);
   int n = N;
   KK_ARG(k, 0, min);
   KK_ARG(k, 1, out);
   KK_ARG(k, 2, n);
   char *text = launch_failing(env, k, N + 1, 0);
   CHECK_HAS(text, "kernel 'copy_n' wrote 4 bytes at byte offset 4096 of argument 1 'out' "
                   "(__global, 4096 bytes) in work-item (1024,0,0)");
   free(text);
   kk_read(env, parent, sizeof(after), after);
   CHECK(kt_same(after + N * 4, whole + N * 4, GUARD, "the guard after 'out'"));
   /* The queue goes on: the same kernel within bounds completes. */
   run_ok(env, k, N, 0);
   kk_read(env, parent, sizeof(after), after);
   CHECK(kt_same(after, in, N * 4, "out after a correct run"));
   CHECK(kt_same(after + N * 4, whole + N * 4, GUARD, "the guard after a correct run"));
   clReleaseMemObject(out);
   clReleaseMemObject(parent);
   clReleaseMemObject(min);
   clReleaseKernel(k);
}

/* copy_n on SVM pointers: out is an interior pointer, N ints before the
 * end of its clSVMAlloc allocation, so out[N] is one past it. */
static void svm_write(const struct kt_env *env, cl_program p)
{
   cl_ulong caps = kt_device_ulong(env->device, CL_DEVICE_SVM_CAPABILITIES);
   if (!caps)
      return;
   cl_kernel k = kk_kernel(p, "copy_n");
   int *in = clSVMAlloc(env->context, CL_MEM_SVM_FINE_GRAIN_BUFFER, (N + 1) * 4, 0);
   int *out = clSVMAlloc(env->context, CL_MEM_SVM_FINE_GRAIN_BUFFER, (N + 8) * 4, 0);
   REQUIRE(in && out);
   int n = N;
   REQUIRE_OK(clSetKernelArgSVMPointer(k, 0, in));
   REQUIRE_OK(clSetKernelArgSVMPointer(k, 1, out + 8));
   KK_ARG(k, 2, n);
   char *text = launch_failing(env, k, N + 1, 0);
   CHECK_HAS(text, "kernel 'copy_n' wrote 4 bytes at byte offset 4096 of argument 1 'out' "
                   "(__global, 4096 bytes) in work-item (1024,0,0)");
   free(text);
   run_ok(env, k, N, 0);
   clReleaseKernel(k);
   clSVMFree(env->context, in);
   clSVMFree(env->context, out);
}

/* A program-scope __global array (OpenCL C 3.0, where the device has
 * them) written one past its end. */
static void global_variable(const struct kt_env *env)
{
   size_t max = 0;
   REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE, sizeof(max), &max,
                              NULL));
   if (!max)
      return;
   cl_program p = kk_build(env,
                           "global int slots[8];\n"
                           "kernel void fill(global int *out)\n"
                           "{ int i = get_global_id(0); slots[i] = i; out[i] = slots[i]; }\n",
                           "-cl-std=CL3.0");
   cl_kernel k = kk_kernel(p, "fill");
   cl_mem mo = kk_buffer_in(env, 9 * 4, NULL);
   KK_ARG(k, 0, mo);
   char *text = launch_failing(env, k, 9, 9);
   CHECK_HAS(text, "kernel 'fill' wrote 4 bytes at byte offset 32 of __global variable "
                   "'slots' (32 bytes) in work-item (8,0,0)");
   free(text);
   run_ok(env, k, 8, 8);
   clReleaseMemObject(mo);
   clReleaseKernel(k);
   clReleaseProgram(p);
}

/* OpenCL C 3.0 generic pointers (docs/kernels.md): one that comes from a
 * __global or __local argument is checked as that argument, through a
 * function taking a generic pointer; one to private memory is left alone. */
static void generic_pointer(const struct kt_env *env)
{
   cl_bool generic = CL_FALSE;
   if (clGetDeviceInfo(env->device, CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT, sizeof(generic),
                       &generic, NULL) != CL_SUCCESS || !generic)
      return;
   cl_program p = kk_build(env,
                           "void put(int *p, int i, int v) { p[i] = v; }\n"
                           "kernel void gen(global int *out, local int *tmp, int at)\n"
                           "{ int i = get_global_id(0), l = get_local_id(0), priv[4];\n"
                           "  put(priv, l & 3, i); put(tmp, l, priv[l & 3]);\n"
                           "  barrier(CLK_LOCAL_MEM_FENCE);\n"
                           "  put(out, i + at, tmp[l]); }\n",
                           "-cl-std=CL3.0");
   cl_kernel k = kk_kernel(p, "gen");
   cl_mem mo = kk_buffer_in(env, 64 * 4, NULL);
   KK_ARG(k, 0, mo);
   KK_LOCAL(k, 1, 16 * sizeof(int));
   int at = 1;
   KK_ARG(k, 2, at);
   char *text = launch_failing(env, k, 64, 16);
   CHECK_HAS(text, "kernel 'gen' wrote 4 bytes at byte offset 256 of argument 0 'out' "
                   "(__global, 256 bytes) in work-item (63,0,0)");
   free(text);
   at = 0;
   KK_ARG(k, 2, at);
   run_ok(env, k, 64, 16);
   clReleaseMemObject(mo);
   clReleaseKernel(k);
   clReleaseProgram(p);
}

/* tab[i + 1] over as many work-items as tab has elements. */
static void constant_read(const struct kt_env *env, cl_program p)
{
   cl_kernel k = kk_kernel(p, "read_next");
   int tab[N];
   for (int i = 0; i < N; i++)
      tab[i] = i;
   cl_mem mt = kk_buffer_in(env, sizeof(tab), tab), mo = kk_buffer_in(env, sizeof(tab), NULL);
   KK_ARG(k, 0, mt);
   KK_ARG(k, 1, mo);
   char *text = launch_failing(env, k, N, 64);
   CHECK_HAS(text, "kernel 'read_next' read 4 bytes at byte offset 4096 of argument 0 'tab' "
                   "(__constant, 4096 bytes) in work-item (1023,0,0)");
   free(text);
   clReleaseMemObject(mt);
   clReleaseMemObject(mo);
   clReleaseKernel(k);
}

/* tmp[l + 1] with tmp one element per work-item: the group's last
 * work-item writes past it. */
static void local_arg(const struct kt_env *env, cl_program p)
{
   cl_kernel k = kk_kernel(p, "shift_local");
   cl_mem mo = kk_buffer_in(env, 256 * 4, NULL);
   KK_ARG(k, 0, mo);
   KK_LOCAL(k, 1, 64 * sizeof(int));
   char *text = launch_failing(env, k, 256, 64);
   CHECK_HAS(text, "kernel 'shift_local' wrote 4 bytes at byte offset 256 of argument 1 'tmp' "
                   "(__local, 256 bytes)");
   long long item = reported_item(text);
   CHECK(item >= 0 && item % 64 == 63, " work-item %lld is not the last of its group", item);
   free(text);
   /* Large enough, the same kernel completes. */
   KK_LOCAL(k, 1, 65 * sizeof(int));
   run_ok(env, k, 256, 64);
   clReleaseMemObject(mo);
   clReleaseKernel(k);
}

static void local_variable(const struct kt_env *env, cl_program p)
{
   cl_kernel k = kk_kernel(p, "shift_static");
   cl_mem mo = kk_buffer_in(env, 256 * 4, NULL);
   KK_ARG(k, 0, mo);
   char *text = launch_failing(env, k, 256, 64);
   CHECK_HAS(text, "kernel 'shift_static' read 4 bytes at byte offset 256 of __local variable "
                   "'buf' (256 bytes)");
   long long item = reported_item(text);
   CHECK(item >= 0 && item % 64 == 63, " work-item %lld is not the last of its group", item);
   free(text);
   clReleaseMemObject(mo);
   clReleaseKernel(k);
}

static void constant_variable(const struct kt_env *env, cl_program p)
{
   cl_kernel k = kk_kernel(p, "lookup");
   cl_mem mo = kk_buffer_in(env, 9 * 4, NULL);
   KK_ARG(k, 0, mo);
   char *text = launch_failing(env, k, 9, 9);
   CHECK_HAS(text, "kernel 'lookup' read 4 bytes at byte offset 32 of __constant variable "
                   "'primes' (32 bytes) in work-item (8,0,0)");
   free(text);
   run_ok(env, k, 8, 8);
   int got[8];
   kk_read(env, mo, sizeof(got), got);
   static const int want[8] = {2, 3, 5, 7, 11, 13, 17, 19};
   CHECK(kt_same(got, want, sizeof(want), "primes"));
   clReleaseMemObject(mo);
   clReleaseKernel(k);
}

static void pointer_loop(const struct kt_env *env, cl_program p)
{
   cl_kernel k = kk_kernel(p, "walk");
   unsigned char whole[N * 4 + GUARD], after[N * 4 + GUARD];
   kt_fill(whole, sizeof(whole), 5);
   cl_mem parent = kk_buffer_in(env, sizeof(whole), whole);
   cl_buffer_region r = {0, N * 4};
   cl_int err;
   cl_mem mp = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
   REQUIRE_OK(err);
   int n = N;
   KK_ARG(k, 0, mp);
   KK_ARG(k, 1, n);
   char *text = launch_failing(env, k, 1, 1);
   CHECK_HAS(text, "kernel 'walk' wrote 4 bytes at byte offset 4096 of argument 0 'p' "
                   "(__global, 4096 bytes) in work-item (0,0,0)");
   free(text);
   kk_read(env, parent, sizeof(after), after);
   CHECK(kt_same(after + N * 4, whole + N * 4, GUARD, "the guard after 'p'"));
   clReleaseMemObject(mp);
   clReleaseMemObject(parent);
   clReleaseKernel(k);
}

/* The pointer is one of two arguments: checked by searching the launch's
 * buffers, reported against the one it ran off. */
static void unknown_origin(const struct kt_env *env, cl_program p)
{
   cl_kernel k = kk_kernel(p, "pick");
   unsigned char whole[N * 4 + GUARD], after[N * 4 + GUARD];
   kt_fill(whole, sizeof(whole), 11);
   cl_mem ma = kk_buffer_in(env, 64 * 1024, NULL);
   cl_mem parent = kk_buffer_in(env, sizeof(whole), whole);
   cl_buffer_region r = {0, N * 4};
   cl_int err;
   cl_mem mb = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
   REQUIRE_OK(err);
   int which = 0;
   KK_ARG(k, 0, ma);
   KK_ARG(k, 1, mb);
   KK_ARG(k, 2, which);
   char *text = launch_failing(env, k, N + 1, 0);
   CHECK_HAS(text, "kernel 'pick' wrote 4 bytes at byte offset 4096 of argument 1 'b' "
                   "(__global, 4096 bytes; the nearest object to an address of unknown origin) "
                   "in work-item (1024,0,0)");
   free(text);
   kk_read(env, parent, sizeof(after), after);
   CHECK(kt_same(after + N * 4, whole + N * 4, GUARD, "the guard after 'b'"));
   run_ok(env, k, N, 0);
   clReleaseMemObject(mb);
   clReleaseMemObject(parent);
   clReleaseMemObject(ma);
   clReleaseKernel(k);
}

typedef struct {
   cl_int a;
   cl_float b;
   cl_long c;
} rec;

/* Correct code under the check: same results, CL_COMPLETE. */
static void correct(const struct kt_env *env, cl_program p)
{
   cl_kernel k = kk_kernel(p, "fine");
   enum { G = 4096, L = 64 };
   float *in = malloc(G * sizeof(float)), *out = malloc(2 * G * sizeof(float));
   rec *src = malloc(G * sizeof(rec)), *recs = malloc(G * sizeof(rec));
   REQUIRE(in && out && src && recs);
   for (int i = 0; i < G; i++) {
      in[i] = (float)i * 0.25f;
      src[i] = (rec){i, (float)i * 0.5f, (cl_long)i << 33};
   }
   float kv[4] = {1.0f, 2.0f, 3.0f, 4.0f};
   cl_int zero[2] = {0, 0};
   cl_mem m_in = kk_buffer_in(env, G * sizeof(float), in);
   cl_mem m_out = kk_buffer_in(env, 2 * G * sizeof(float), NULL);
   cl_mem m_k = kk_buffer_in(env, sizeof(kv), kv);
   cl_mem m_count = kk_buffer_in(env, sizeof(zero), zero);
   cl_mem m_recs = kk_buffer_in(env, G * sizeof(rec), NULL);
   cl_mem m_src = kk_buffer_in(env, G * sizeof(rec), src);
   KK_ARG(k, 0, m_in);
   KK_ARG(k, 1, m_out);
   KK_ARG(k, 2, m_k);
   KK_LOCAL(k, 3, L * sizeof(float));
   KK_ARG(k, 4, m_count);
   KK_ARG(k, 5, m_recs);
   KK_ARG(k, 6, m_src);
   run_ok(env, k, G, L);
   kk_read(env, m_out, 2 * G * sizeof(float), out);
   kk_read(env, m_recs, G * sizeof(rec), recs);
   cl_int count[2] = {0, 0};
   kk_read(env, m_count, sizeof(count), count);
   static const int primes[8] = {2, 3, 5, 7, 11, 13, 17, 19};
   int bad = 0;
   for (int g = 0; g < G && bad < 5; g++) {
      int l = g % L, base = g - l, r = L - 1 - l;
      float want = in[base + r] * kv[r % 4] + (float)primes[((l + 1) % L) % 8];
      if (out[g] != want) {
         KT_FAIL("out[%d] = %g, expected %g", g, out[g], want);
         bad++;
      }
      if (out[G + g] != in[g] * 2.0f) {
         KT_FAIL("vstore4: out[%d] = %g, expected %g", G + g, out[G + g], in[g] * 2.0f);
         bad++;
      }
      if (recs[g].a != src[g].a || recs[g].b != src[g].b || recs[g].c != src[g].c) {
         KT_FAIL("recs[%d] differs", g);
         bad++;
      }
   }
   CHECK(count[0] == G, " atomic_inc counted %d, expected %d", count[0], G);
   CHECK(count[1] == 0, " a pointer from a private array read a negative value");
   cl_mem all[] = {m_in, m_out, m_k, m_count, m_recs, m_src};
   for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
      clReleaseMemObject(all[i]);
   free(in);
   free(out);
   free(src);
   free(recs);
   clReleaseKernel(k);
}

static unsigned char *get_binary(cl_program p, size_t *size)
{
   REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(*size), size, NULL));
   unsigned char *bin = malloc(*size);
   REQUIRE(bin);
   unsigned char *bins[1] = {bin};
   REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bins), bins, NULL));
   return bin;
}

/* Whether the program's device code calls the checks' run-time. */
static bool has_checks(cl_program p)
{
   size_t size;
   unsigned char *bin = get_binary(p, &size);
   static const char sym[] = "__kiln_bounds_fail";
   bool found = false;
   for (size_t i = 0; i + sizeof(sym) - 1 <= size && !found; i++)
      found = !memcmp(bin + i, sym, sizeof(sym) - 1);
   free(bin);
   return found;
}

/* A binary of a checked build is checked code: it loads in a checked
 * process and still stops the off-by-one. */
static void checked_binary(const struct kt_env *env, cl_program p)
{
   size_t size;
   unsigned char *bin = get_binary(p, &size);
   const unsigned char *bins[1] = {bin};
   cl_int st, err;
   cl_program q = clCreateProgramWithBinary(env->context, 1, &env->device, &size, bins, &st, &err);
   REQUIRE_OK(err);
   REQUIRE_OK(clBuildProgram(q, 1, &env->device, NULL, NULL, NULL));
   cl_kernel k = kk_kernel(q, "read_next");
   int tab[64] = {0};
   cl_mem mt = kk_buffer_in(env, sizeof(tab), tab), mo = kk_buffer_in(env, sizeof(tab), NULL);
   KK_ARG(k, 0, mt);
   KK_ARG(k, 1, mo);
   char *text = launch_failing(env, k, 64, 64);
   CHECK_HAS(text, "of argument 0 'tab' (__constant, 256 bytes) in work-item (63,0,0)");
   free(text);
   clReleaseMemObject(mt);
   clReleaseMemObject(mo);
   clReleaseKernel(k);
   clReleaseProgram(q);
   free(bin);
}

/* Child, without KILN_CHECK: writes an unchecked build's binary to the
 * file BOUNDS_BINARY names. */
static int child_main(const char *name)
{
   if (strcmp(name, "unchecked_binary"))
      return 3;
   struct kt_env env;
   kt_setup(&env, 0);
   cl_program p = kk_build(&env, source, NULL);
   size_t size;
   unsigned char *bin = get_binary(p, &size);
   FILE *f = fopen(getenv("BOUNDS_BINARY"), "wb");
   REQUIRE(f && fwrite(bin, 1, size, f) == size);
   fclose(f);
   free(bin);
   clReleaseProgram(p);
   kt_teardown(&env);
   return kt_result();
}

/* A binary built without checks is refused in a checked process, so
 * nothing runs unchecked behind the application's back. */
static void unchecked_binary(const struct kt_env *env)
{
   char path[] = "/tmp/kiln-bounds-bin-XXXXXX";
   int fd = mkstemp(path);
   REQUIRE(fd >= 0);
   close(fd);
   char *check = strdup(getenv("KILN_CHECK"));
   setenv("BOUNDS_BINARY", path, 1);
   unsetenv("KILN_CHECK");
   int rc = kk_child("unchecked_binary", 60);
   setenv("KILN_CHECK", check, 1);
   free(check);
   REQUIRE(rc == 0, " the child building without checks failed (%d)", rc);
   FILE *f = fopen(path, "rb");
   REQUIRE(f);
   static unsigned char bin[1 << 20];
   size_t size = fread(bin, 1, sizeof(bin), f);
   fclose(f);
   unlink(path);
   REQUIRE(size > 0 && size < sizeof(bin));
   const unsigned char *bins[1] = {bin};
   cl_int st = 0, err = 0;
   capture_begin();
   cl_program q = clCreateProgramWithBinary(env->context, 1, &env->device, &size, bins, &st, &err);
   char *text = capture_end();
   CHECK(err == CL_INVALID_BINARY && st == CL_INVALID_BINARY && !q,
         " an unchecked binary gave %s/%s", kt_err_name(err), kt_err_name(st));
   CHECK_HAS(text, "built without bounds checks is refused");
   free(text);
   if (q)
      clReleaseProgram(q);
}

int main(int argc, char **argv)
{
   KK_CHILD_MAIN(argc, argv, child_main);
   bool on = argc == 2 && !strcmp(argv[1], "on");
   bool off = argc == 2 && !strcmp(argv[1], "off");
   const char *env_check = getenv("KILN_CHECK");
   bool env_on = env_check && strstr(env_check, "bounds");
   if ((!on && !off) || on != env_on) {
      fprintf(stderr, "usage: KILN_CHECK=bounds %s on | %s off\n", argv[0], argv[0]);
      return 2;
   }

   struct kt_env env;
   kt_setup(&env, 0);
   cl_program p = kk_build(&env, source, NULL);
   if (off) {
      /* Zero cost: not one check in the code, and correct kernels run. */
      CHECK(!has_checks(p), " the code calls the bounds checks without KILN_CHECK");
      correct(&env, p);
   } else {
      CHECK(has_checks(p), " the code has no bounds checks");
      global_write(&env, p);
      svm_write(&env, p);
      global_variable(&env);
      generic_pointer(&env);
      pointer_loop(&env, p);
      constant_read(&env, p);
      local_arg(&env, p);
      local_variable(&env, p);
      constant_variable(&env, p);
      unknown_origin(&env, p);
      correct(&env, p);
      checked_binary(&env, p);
      unchecked_binary(&env);
      /* Unoptimised code is checked the same way. */
      cl_program o = kk_build(&env, source, "-cl-opt-disable");
      global_write(&env, o);
      local_arg(&env, o);
      correct(&env, o);
      clReleaseProgram(o);
   }
   clReleaseProgram(p);
   kt_teardown(&env);
   return kt_result();
}
