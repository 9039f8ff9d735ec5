/* OpenCL C printf (1.2 §6.12.13) on Kiln's devices (docs/printf.md): the
 * output of kernels, captured from this process's stdout, must be exactly
 * what the host's own printf makes of the same formats and values, for
 * every conversion, flag, length modifier and vector width, special
 * floating-point values included; each work-item's lines come in program
 * order, work-items in order of their linear global id; a full buffer
 * makes printf return -1 and drops only what did not fit; the formats
 * survive program binaries and the compile cache.
 *
 * printf is OpenCL C 1.2: on a device that reports less the test skips. */
#include <fcntl.h>
#include <float.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kk.h"

#define SKIP 77
#define OPTIONS "-cl-std=CL1.2"

/* ---- stdout capture ---- */

static FILE *cap_file;
static int cap_saved = -1;

static void capture_begin(void)
{
   fflush(stdout);
   cap_file = tmpfile();
   REQUIRE(cap_file);
   cap_saved = dup(1);
   REQUIRE(cap_saved >= 0 && dup2(fileno(cap_file), 1) == 1);
}

/* What the kernels printed since capture_begin (malloc'd). */
static char *capture_end(void)
{
   fflush(stdout);
   REQUIRE(dup2(cap_saved, 1) == 1);
   close(cap_saved);
   long n = lseek(fileno(cap_file), 0, SEEK_END);
   REQUIRE(n >= 0);
   char *s = calloc((size_t)n + 1, 1);
   REQUIRE(s);
   REQUIRE(pread(fileno(cap_file), s, (size_t)n, 0) == n);
   fclose(cap_file);
   return s;
}

/* ---- the expected text, built with the host's printf ---- */

static char *want;
static size_t want_len, want_cap;

static void __attribute__((format(printf, 1, 2))) P(const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   int n = vsnprintf(NULL, 0, fmt, ap);
   va_end(ap);
   REQUIRE(n >= 0);
   if (want_len + (size_t)n + 1 > want_cap) {
      want_cap = (want_len + (size_t)n + 1) * 2;
      want = realloc(want, want_cap);
      REQUIRE(want);
   }
   va_start(ap, fmt);
   vsnprintf(want + want_len, (size_t)n + 1, fmt, ap);
   va_end(ap);
   want_len += (size_t)n;
}

static void want_reset(void)
{
   want_len = 0;
   if (want)
      want[0] = 0;
}

/* Reports the first difference between got and want. */
static void compare(const char *what, const char *got)
{
   const char *w = want ? want : "";
   if (!strcmp(got, w))
      return;
   size_t i = 0;
   while (got[i] && got[i] == w[i])
      i++;
   size_t line_start = i;
   while (line_start && w[line_start - 1] != '\n')
      line_start--;
   KT_FAIL("%s: output differs at byte %zu\n  want: %.200s\n  got:  %.200s", what, i,
           w + line_start, got + line_start);
}

/* ---- the values ---- */

enum { NV = 16 };
static int i[NV] = {0, -1, 42, -42, 7, 8, 123, 0x7fffffff, -2147483647 - 1, 0xbeef, 511, 8, 3000000000u, 5, -6, 99};
static signed char c[NV] = {-128, -1, 0x41, 'a', 'Z', '~', 127, 0, 1, 2, 3, -3, 'x', 'y', 'z', 10};
static short s[NV] = {-32768, -1, 0x7fff, 12345, 0, 1, -2, 300, 4000, -5000, 60, 7, 8, 9, 10, 11};
static long l[NV] = {0x7fffffffffffffffl, -0x7fffffffffffffffl - 1, -1, 0x123456789abcl, 01234567l,
                     42, -42, 1000000000000l, 5, 6, 7, 8, 9, 10, 11, 12};
static unsigned u[NV] = {0xffffffffu, 0, 0x80000000u, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29};
static unsigned long ul[NV] = {0xfffffffffffffffful, 0, 0xdeadbeefcafef00dul, 3, 4, 5, 6, 7, 8, 9,
                               10, 11, 12, 13, 14, 15};
static float f[NV];
static double d[NV];

static void init_floats(void)
{
   const float fv[NV] = {1.5f, -0.0f, NAN, INFINITY, -INFINITY, 1e-40f, FLT_MAX, FLT_MIN,
                         1.0f / 3, -2.5e10f, 0.1f, 123456.789f, -NAN, 1e-45f, 65504.f, 0.0f};
   const double dv[NV] = {1.5, -0.0, NAN, -INFINITY, 4.9e-324, DBL_MAX, DBL_MIN, 1.0 / 3,
                          1e300, -1e-300, 0.1, 2.5, 1e15, 123.456, -7, INFINITY};
   memcpy(f, fv, sizeof(f));
   memcpy(d, dv, sizeof(d));
}

/* The statements run both as OpenCL C (stringified, with P printf and
 * the arrays as kernel arguments) and here (P appends to `want`). */
#define STR_(...) #__VA_ARGS__
#define STR(...) STR_(__VA_ARGS__)
#define SCALAR_BODY                                                                           \
   P("int %d %i %5d|%-5d|%+d|% d|%05d|%x|%X|%#x|%o|%#o|%u\n", i[0], i[1], i[2], i[3], i[4],     \
     i[5], i[6], i[7], i[8], i[9], i[10], i[11], i[12]);                                       \
   P("int %.3d|%8.4d|%-+8d|%d|%x\n", i[4], i[2], i[6], i[8], i[8]);                            \
   P("char %hhd %hhu %hhx %c%c%c|%3c|%-3c|\n", c[0], c[1], c[2], c[3], c[4], c[5], c[12],      \
     c[13]);                                                                                   \
   P("short %hd %hu %hx %6hd %hi %#ho\n", s[0], s[1], s[2], s[3], s[6], s[7]);                 \
   P("long %ld %li %lu %lx %lo %+ld %20ld|%-20lX|\n", l[0], l[1], l[2], l[3], l[4], l[5], l[6], \
     l[7]);                                                                                    \
   P("uint %u %x %o %#X\n", u[0], u[1], u[2], u[3]);                                           \
   P("ulong %lu %lx %#lX %lo\n", ul[0], ul[1], ul[2], ul[3]);                                  \
   for (int k = 0; k < 16; k++)                                                                \
      P("float %f|%e|%g|%a|%E|%G|%A|%.3f|%10.2e|%-12g|%+.0f|%#g|%F\n", f[k], f[k], f[k], f[k],  \
        f[k], f[k], f[k], f[k], f[k], f[k], f[k], f[k], f[k]);                                 \
   for (int k = 0; k < 16; k++)                                                                \
      P("double %f|%.17g|%a|%e|%.0e|%lf|%lg|% .3E|%015.4f\n", d[k], d[k], d[k], d[k], d[k],     \
        d[k], d[k], d[k], d[k]);                                                               \
   P("str %s|%10s|%-6s|%.2s|%s|%5.1s|\n", "hello", "right", "left", "truncate", "", "xyz");     \
   P("pct 100%% %d%%%%\n", i[2]);                                                              \
   P("no arguments at all\n");                                                                 \
   P("%d%d%d\n", i[13], i[14], i[15]);                                                         \
   helper(i[2], f[0]);

static void helper(int x, float y)
{
   P("helper %d %.1f\n", x, y);
}

static const char *scalar_decls =
   "#define P printf\n"
   "void helper(int x, float y) { printf(\"helper %d %.1f\\n\", x, y); }\n"
   "__kernel void scalars(__global const int *i, __global const char *c,\n"
   "   __global const short *s, __global const long *l, __global const uint *u,\n"
   "   __global const ulong *ul, __global const float *f, __global const double *d,\n"
   "   __global int *ret)\n"
   "{\n";

static cl_mem in_buf(struct kt_env *env, const void *p, size_t size)
{
   return kk_buffer_in(env, size, p);
}

static void run_scalars(struct kt_env *env, cl_program prog, const char *what)
{
   cl_kernel k = kk_kernel(prog, "scalars");
   cl_mem m[9] = {in_buf(env, i, sizeof(i)), in_buf(env, c, sizeof(c)),
                  in_buf(env, s, sizeof(s)), in_buf(env, l, sizeof(l)),
                  in_buf(env, u, sizeof(u)), in_buf(env, ul, sizeof(ul)),
                  in_buf(env, f, sizeof(f)), in_buf(env, d, sizeof(d)),
                  kk_buffer_in(env, sizeof(int), NULL)};
   for (cl_uint a = 0; a < 9; a++)
      KK_ARG(k, a, m[a]);
   size_t one = 1;
   capture_begin();
   cl_int err = kk_run(env, k, 1, NULL, &one, &one);
   char *got = capture_end();
   CHECK_OK(err);
   want_reset();
   SCALAR_BODY
   compare(what, got);
   int ret = 1;
   kk_read(env, m[8], sizeof(ret), &ret);
   CHECK(ret == 0, "%s: printf returned %d", what, ret);
   free(got);
   for (int a = 0; a < 9; a++)
      clReleaseMemObject(m[a]);
   clReleaseKernel(k);
}

static char *scalar_source(void)
{
   /* The kernel's statements are the host's. */
   static const char body[] = STR(SCALAR_BODY);
   char *src = malloc(strlen(scalar_decls) + sizeof(body) + 64);
   REQUIRE(src);
   strcpy(src, scalar_decls);
   strcat(src, body);
   strcat(src, "\n ret[0] = printf(\"\"); }\n");
   return src;
}

/* ---- vectors: each element as the host prints it, joined by commas ---- */

struct vcase {
   const char *spec; /* as the kernel writes it */
   const char *elem; /* the host's format for one element */
   char type;        /* which array */
   int n;
};

static const struct vcase vcases[] = {
   {"%v2hhd", "%hhd", 'c', 2},   {"%v3hhx", "%hhx", 'c', 3},     {"%v16hhu", "%hhu", 'c', 16},
   {"%v4hd", "%hd", 's', 4},     {"%v8hu", "%hu", 's', 8},       {"%#v3ho", "%#ho", 's', 3},
   {"%v2hld", "%d", 'i', 2},     {"%v4hlx", "%x", 'i', 4},       {"%#v16hlx", "%#x", 'i', 16},
   {"%5v3hli", "%5i", 'i', 3},   {"%-4v8hlu", "%-4u", 'i', 8},   {"%v2ld", "%ld", 'l', 2},
   {"%v16lu", "%lu", 'l', 16},   {"%v8lx", "%lx", 'l', 8},       {"%+v3ld", "%+ld", 'l', 3},
   {"%v2hlf", "%f", 'f', 2},     {"%v4hle", "%e", 'f', 4},       {"%v8hlg", "%g", 'f', 8},
   {"%v16hla", "%a", 'f', 16},   {"%.2v3hlf", "%.2f", 'f', 3},   {"%10.3v4hlE", "%10.3E", 'f', 4},
   {"%v2lf", "%f", 'd', 2},      {"%v4lg", "%g", 'd', 4},        {"%v8la", "%a", 'd', 8},
   {"%+v16le", "%+e", 'd', 16},  {"%v3lf", "%f", 'd', 3},
};

static const char *vec_type(char t)
{
   switch (t) {
   case 'c': return "char";
   case 's': return "short";
   case 'i': return "int";
   case 'l': return "long";
   case 'f': return "float";
   default: return "double";
   }
}

static void __attribute__((format(printf, 1, 0))) velem(const char *fmt, char t, int k)
{
   switch (t) {
   case 'c': P(fmt, c[k]); break;
   case 's': P(fmt, s[k]); break;
   case 'i': P(fmt, i[k]); break;
   case 'l': P(fmt, l[k]); break;
   case 'f': P(fmt, f[k]); break;
   default: P(fmt, d[k]); break;
   }
}

static void vectors(struct kt_env *env)
{
   size_t n = sizeof(vcases) / sizeof(vcases[0]);
   char *src = malloc(8192);
   REQUIRE(src);
   int len = snprintf(src, 8192,
                      "__kernel void vecs(__global const char *c, __global const short *s,\n"
                      "   __global const int *i, __global const long *l,\n"
                      "   __global const float *f, __global const double *d)\n{\n");
   for (size_t v = 0; v < n; v++) {
      const struct vcase *vc = &vcases[v];
      /* The second half of each array, so every value meets each width. */
      len += snprintf(src + len, 8192 - (size_t)len, "   printf(\"%s|%s\\n\", vload%d(0, %c), vload%d(0, %c + %d));\n",
                      vc->spec, vc->spec, vc->n, vc->type, vc->n, vc->type, 16 - vc->n);
   }
   snprintf(src + len, 8192 - (size_t)len, "}\n");
   cl_program p = kk_build(env, src, OPTIONS);
   cl_kernel k = kk_kernel(p, "vecs");
   cl_mem m[6] = {in_buf(env, c, sizeof(c)), in_buf(env, s, sizeof(s)), in_buf(env, i, sizeof(i)),
                  in_buf(env, l, sizeof(l)), in_buf(env, f, sizeof(f)), in_buf(env, d, sizeof(d))};
   for (cl_uint a = 0; a < 6; a++)
      KK_ARG(k, a, m[a]);
   size_t one = 1;
   capture_begin();
   cl_int err = kk_run(env, k, 1, NULL, &one, &one);
   char *got = capture_end();
   CHECK_OK(err);
   want_reset();
   for (size_t v = 0; v < n; v++) {
      const struct vcase *vc = &vcases[v];
      for (int half = 0; half < 2; half++) {
         int base = half ? 16 - vc->n : 0;
         for (int e = 0; e < vc->n; e++) {
            if (e)
               P(",");
            velem(vc->elem, vc->type, base + e);
         }
         P(half ? "\n" : "|");
      }
   }
   compare("vectors", got);
   free(got);
   free(src);
   for (int a = 0; a < 6; a++)
      clReleaseMemObject(m[a]);
   clReleaseKernel(k);
   clReleaseProgram(p);
   (void)vec_type;
}

/* ---- many work-items, a barrier between two printfs ---- */

static const char *many_src =
   "__kernel void many(__global int *ret)\n"
   "{\n"
   "   int g = get_global_id(0) + 100 * get_global_id(1);\n"
   "   int r = printf(\"wi %d first\\n\", g);\n"
   "   barrier(CLK_LOCAL_MEM_FENCE);\n"
   "   r |= printf(\"wi %d second %d %s\\n\", g, (int)get_local_id(0), g & 1 ? \"odd\" : \"even\");\n"
   "   ret[get_global_id(0) + get_global_size(0) * get_global_id(1)] = r;\n"
   "}\n";

static void many(struct kt_env *env)
{
   cl_program p = kk_build(env, many_src, OPTIONS);
   cl_kernel k = kk_kernel(p, "many");
   enum { W = 50, H = 20 };
   cl_mem r = kk_buffer_in(env, W * H * sizeof(int), NULL);
   KK_ARG(k, 0, r);
   size_t global[2] = {W, H}, local[2] = {10, 4}, offset[2] = {0, 0};
   capture_begin();
   cl_int err = kk_run(env, k, 2, offset, global, local);
   char *got = capture_end();
   CHECK_OK(err);
   want_reset();
   for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
         int g = x + 100 * y;
         P("wi %d first\n", g);
         P("wi %d second %d %s\n", g, x % 10, g & 1 ? "odd" : "even");
      }
   compare("many work-items", got);
   int ret[W * H];
   kk_read(env, r, sizeof(ret), ret);
   for (int n = 0; n < W * H; n++)
      if (ret[n]) {
         KT_FAIL("work-item %d: printf returned %d", n, ret[n]);
         break;
      }
   /* With a global offset the order is still by global id. */
   size_t off2[2] = {3, 1}, g2[2] = {10, 2}, l2[2] = {5, 1};
   capture_begin();
   err = kk_run(env, k, 2, off2, g2, l2);
   free(got);
   got = capture_end();
   CHECK_OK(err);
   want_reset();
   for (int y = 1; y < 3; y++)
      for (int x = 3; x < 13; x++) {
         int g = x + 100 * y;
         P("wi %d first\n", g);
         P("wi %d second %d %s\n", g, (x - 3) % 5, g & 1 ? "odd" : "even");
      }
   compare("many work-items with an offset", got);
   free(got);
   clReleaseMemObject(r);
   clReleaseKernel(k);
   clReleaseProgram(p);
}

/* ---- %p ---- */

static void pointers(struct kt_env *env)
{
   const char *src = "__kernel void ptr(__global int *p, __global ulong *out)\n"
                     "{ printf(\"%p|%p\\n\", p, (__global int *)0); out[0] = (ulong)p; }\n";
   cl_program p = kk_build(env, src, OPTIONS);
   cl_kernel k = kk_kernel(p, "ptr");
   cl_mem m = kk_buffer_in(env, 64, NULL), o = kk_buffer_in(env, 8, NULL);
   KK_ARG(k, 0, m);
   KK_ARG(k, 1, o);
   size_t one = 1;
   capture_begin();
   cl_int err = kk_run(env, k, 1, NULL, &one, &one);
   char *got = capture_end();
   CHECK_OK(err);
   cl_ulong addr = 0;
   kk_read(env, o, 8, &addr);
   want_reset();
   P("%p|%p\n", (void *)(uintptr_t)addr, (void *)0);
   compare("%p", got);
   free(got);
   clReleaseMemObject(m);
   clReleaseMemObject(o);
   clReleaseKernel(k);
   clReleaseProgram(p);
}

/* ---- errors the compiler reports ---- */

static void bad_format(struct kt_env *env)
{
   const char *src = "__constant char fmt[] = \"x\";\n"
                     "__kernel void k(__global int *o, int n)\n"
                     "{ o[0] = printf(n ? fmt : \"%d\", 1); }\n";
   cl_program p;
   cl_int err = kk_try_build(env, src, OPTIONS, &p);
   CHECK(err == CL_BUILD_PROGRAM_FAILURE, "a format that is not a literal: %s", kt_err_name(err));
   if (err == CL_BUILD_PROGRAM_FAILURE) {
      char *log = kk_build_log(p, env->device);
      CHECK(strstr(log, "printf: the format must be a string literal"), "log: %s", log);
      free(log);
   }
   clReleaseProgram(p);
}

/* ---- program binaries ---- */

static void binary_round_trip(struct kt_env *env)
{
   char *src = scalar_source();
   cl_program p = kk_build(env, src, OPTIONS);
   size_t size = 0;
   REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, NULL));
   unsigned char *bin = malloc(size);
   REQUIRE(bin);
   REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL));
   clReleaseProgram(p);
   cl_int st, err;
   const unsigned char *b = bin;
   cl_program q = clCreateProgramWithBinary(env->context, 1, &env->device, &size, &b, &st, &err);
   REQUIRE(q && err == CL_SUCCESS && st == CL_SUCCESS);
   REQUIRE_OK(clBuildProgram(q, 1, &env->device, NULL, NULL, NULL));
   run_scalars(env, q, "scalars from a program binary");
   clReleaseProgram(q);
   free(bin);
   free(src);
}

/* ---- child cases: a small buffer; the compile cache ---- */

static const char *items_src =
   "__kernel void items(__global int *ret)\n"
   "{ int g = get_global_id(0); ret[g] = printf(\"item %d\\n\", g); }\n";

/* KILN_PRINTF_BUFFER_SIZE=1000: 41 records of 24 bytes fit, the rest of
 * 200 are dropped, and the next launch starts with an empty buffer. */
static int child_overflow(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   size_t sz = 0;
   CHECK_OK(clGetDeviceInfo(env.device, CL_DEVICE_PRINTF_BUFFER_SIZE, sizeof(sz), &sz, NULL));
   CHECK(sz == 1000, "CL_DEVICE_PRINTF_BUFFER_SIZE %zu with KILN_PRINTF_BUFFER_SIZE=1000", sz);
   cl_program p = kk_build(&env, items_src, OPTIONS);
   cl_kernel k = kk_kernel(p, "items");
   enum { N = 200, FIT = 41 };
   cl_mem r = kk_buffer_in(&env, N * sizeof(int), NULL);
   KK_ARG(k, 0, r);
   for (int round = 0; round < 2; round++) {
      size_t global = N, local = 20;
      capture_begin();
      cl_int err = kk_run(&env, k, 1, NULL, &global, &local);
      char *got = capture_end();
      CHECK_OK(err);
      int ret[N];
      kk_read(&env, r, sizeof(ret), ret);
      int ok = 0, failed = 0;
      want_reset();
      for (int g = 0; g < N; g++) {
         if (ret[g] == 0) {
            ok++;
            P("item %d\n", g);
         } else {
            failed += ret[g] == -1;
         }
      }
      CHECK(ok == FIT && failed == N - FIT, "round %d: %d printed, %d returned -1", round, ok,
            failed);
      compare("overflow: the records that fit, in order", got);
      free(got);
   }
   clReleaseMemObject(r);
   clReleaseKernel(k);
   clReleaseProgram(p);
   kt_teardown(&env);
   return kt_result();
}

static int child_cached(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   init_floats();
   char *src = scalar_source();
   cl_program p = kk_build(&env, src, OPTIONS);
   run_scalars(&env, p, "scalars (compile cache)");
   clReleaseProgram(p);
   free(src);
   free(want);
   kt_teardown(&env);
   return kt_result();
}

static int child(const char *name)
{
   if (!strcmp(name, "overflow"))
      return child_overflow();
   if (!strcmp(name, "cached"))
      return child_cached();
   return 1;
}

static void compile_cache(void)
{
   char dir[] = "/tmp/kiln-printf-XXXXXX";
   REQUIRE(mkdtemp(dir));
   char log[sizeof(dir) + 8];
   snprintf(log, sizeof(log), "%s/log", dir);
   setenv("KILN_CACHE", "1", 1);
   setenv("KILN_CACHE_DIR", dir, 1);
   setenv("KILN_DEBUG", "compile", 1);
   setenv("KILN_LOG", log, 1);
   CHECK(kk_child("cached", 60) == 0, "first build (stored in the cache)");
   CHECK(kk_child("cached", 60) == 0, "second build (from the cache)");
   unsetenv("KILN_CACHE_DIR");
   unsetenv("KILN_DEBUG");
   unsetenv("KILN_LOG");
   unsetenv("KILN_CACHE");
   FILE *f = fopen(log, "r");
   CHECK(f, "no log at %s", log);
   bool hit = false;
   char line[512];
   while (f && fgets(line, sizeof(line), f))
      hit |= strstr(line, "cache: hit") != NULL;
   if (f)
      fclose(f);
   CHECK(hit, "the second build did not come from the cache");
   char cmd[sizeof(dir) + 16];
   snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
   if (system(cmd))
      KT_FAIL("cannot remove %s", dir);
}

int main(int argc, char **argv)
{
   KK_CHILD_MAIN(argc, argv, child);
   struct kt_env env;
   kt_setup(&env, 0);
   char ver[128] = "";
   REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_OPENCL_C_VERSION, sizeof(ver), ver, NULL));
   int major = 0, minor = 0;
   if (sscanf(ver, "OpenCL C %d.%d", &major, &minor) != 2 || major * 10 + minor < 12) {
      printf("SKIP: printf is OpenCL C 1.2; the device has \"%s\"\n", ver);
      kt_teardown(&env);
      return SKIP;
   }
   size_t sz = 0;
   CHECK_OK(clGetDeviceInfo(env.device, CL_DEVICE_PRINTF_BUFFER_SIZE, sizeof(sz), &sz, NULL));
   CHECK(sz >= 1024 * 1024, "CL_DEVICE_PRINTF_BUFFER_SIZE %zu, below the 1 MiB minimum", sz);
   init_floats();
   char *src = scalar_source();
   cl_program p = kk_build(&env, src, OPTIONS);
   run_scalars(&env, p, "scalars");
   clReleaseProgram(p);
   free(src);
   vectors(&env);
   many(&env);
   pointers(&env);
   bad_format(&env);
   binary_round_trip(&env);
   setenv("KILN_PRINTF_BUFFER_SIZE", "1000", 1);
   CHECK(kk_child("overflow", 60) == 0, "overflow case failed");
   unsetenv("KILN_PRINTF_BUFFER_SIZE");
   compile_cache();
   free(want);
   kt_teardown(&env);
   return kt_result();
}
