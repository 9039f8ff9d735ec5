/* build_bench: how long clBuildProgram of a 1000-line kernel takes on the
 * first platform whose name holds "Kiln", with and without the compile
 * cache (docs/cache.md, docs/performance.md).  Each measurement runs in a
 * fresh process (this program again, with --child), so nothing of an
 * earlier build stays in memory:
 *   no cache     KILN_CACHE=0: Clang, the work-group passes, O3, codegen
 *   cold         an empty cache directory: the same plus the store
 *   warm         the directory the cold run filled: a hit
 *   warm again   a second build of the same source in the warm process
 * Medians of --runs children (default 5).
 *
 *   build_bench [--runs N] [--lines N]
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <CL/cl.h>

static double now_ms(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A kernel of about `lines` lines: helper functions of a dozen lines
 * each, all called from the kernel so none is dropped unparsed. */
static char *make_source(int lines)
{
   int helpers = lines / 12;
   size_t cap = (size_t)lines * 80 + 4096;
   char *s = malloc(cap);
   if (!s)
      return NULL;
   size_t n = 0;
   for (int h = 0; h < helpers; h++)
      n += (size_t)snprintf(s + n, cap - n,
                            "float helper_%d(float x, int i)\n"
                            "{\n"
                            "   float acc = x * %d.0f;\n"
                            "   for (int k = 0; k < (i & 7); k++) {\n"
                            "      acc = mad(acc, 0.5f, (float)k);\n"
                            "      if (acc > 1000.0f)\n"
                            "         acc = sqrt(acc);\n"
                            "   }\n"
                            "   acc += fabs(x) * %d.0f;\n"
                            "   acc -= (float)(i %% %d);\n"
                            "   return acc;\n"
                            "}\n",
                            h, h + 1, h % 5, h + 3);
   n += (size_t)snprintf(s + n, cap - n,
                         "__kernel void big(__global float *out, __global const float *in)\n"
                         "{\n   int i = get_global_id(0);\n   float v = in[i];\n");
   for (int h = 0; h < helpers; h++)
      n += (size_t)snprintf(s + n, cap - n, "   v = helper_%d(v, i);\n", h);
   snprintf(s + n, cap - n, "   out[i] = v;\n}\n");
   return s;
}

static int count_lines(const char *s)
{
   int n = 0;
   for (; *s; s++)
      n += *s == '\n';
   return n;
}

static cl_device_id kiln_device(void)
{
   cl_platform_id ps[16];
   cl_uint np = 0;
   if (clGetPlatformIDs(16, ps, &np))
      return NULL;
   for (cl_uint i = 0; i < np && i < 16; i++) {
      char name[128] = "";
      clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof(name), name, NULL);
      cl_device_id d;
      if (strstr(name, "Kiln") && !clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_ALL, 1, &d, NULL))
         return d;
   }
   return NULL;
}

/* One process's builds: prints "TIMES first second". */
static int child(int lines)
{
   cl_device_id dev = kiln_device();
   if (!dev) {
      fprintf(stderr, "build_bench: no Kiln platform (OCL_ICD_VENDORS?)\n");
      return 1;
   }
   cl_int err;
   cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
   char *src = make_source(lines);
   if (err || !src)
      return 1;
   double t[2];
   for (int i = 0; i < 2; i++) {
      const char *s = src;
      double t0 = now_ms();
      cl_program p = clCreateProgramWithSource(ctx, 1, &s, NULL, &err);
      if (!err)
         err = clBuildProgram(p, 1, &dev, "", NULL, NULL);
      t[i] = now_ms() - t0;
      if (err) {
         char log[4096] = "";
         clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
         fprintf(stderr, "build_bench: build failed (%d):\n%s\n", err, log);
         return 1;
      }
      clReleaseProgram(p);
   }
   printf("TIMES %.3f %.3f\n", t[0], t[1]);
   clReleaseContext(ctx);
   free(src);
   return 0;
}

/* Runs a child with the settings in env; its two build times in t. */
static bool run_child(const char *lines, const char *const *env, double t[2])
{
   int fd[2];
   if (pipe(fd))
      return false;
   fflush(NULL);
   pid_t pid = fork();
   if (pid == 0) {
      dup2(fd[1], STDOUT_FILENO);
      close(fd[0]);
      close(fd[1]);
      for (; *env; env++)
         putenv((char *)*env);
      execl("/proc/self/exe", "build_bench", "--child", lines, (char *)NULL);
      _exit(127);
   }
   close(fd[1]);
   char buf[256] = "";
   ssize_t got = read(fd[0], buf, sizeof(buf) - 1);
   buf[got > 0 ? got : 0] = 0;
   close(fd[0]);
   int st;
   waitpid(pid, &st, 0);
   return pid > 0 && sscanf(buf, "TIMES %lf %lf", &t[0], &t[1]) == 2;
}

static int by_value(const void *a, const void *b)
{
   double x = *(const double *)a, y = *(const double *)b;
   return (x > y) - (x < y);
}

static double median(double *v, int n)
{
   qsort(v, (size_t)n, sizeof(*v), by_value);
   return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
   int runs = 5, lines = 1000;
   for (int i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "--child") && i + 1 < argc)
         return child(atoi(argv[i + 1]));
      if (!strcmp(argv[i], "--runs") && i + 1 < argc)
         runs = atoi(argv[++i]);
      else if (!strcmp(argv[i], "--lines") && i + 1 < argc)
         lines = atoi(argv[++i]);
      else {
         fprintf(stderr, "usage: build_bench [--runs N] [--lines N]\n");
         return 2;
      }
   }
   if (runs < 1 || runs > 100 || lines < 24)
      return 2;
   char lines_s[16];
   snprintf(lines_s, sizeof(lines_s), "%d", lines);
   char *src = make_source(lines);
   printf("build_bench: a kernel of %d lines, %d fresh processes per row (median)\n",
          src ? count_lines(src) : 0, runs);
   free(src);
   double none[100], cold[100], warm[100], again[100];
   for (int r = 0; r < runs; r++) {
      char dir[] = "/tmp/kiln_build_bench_XXXXXX";
      if (!mkdtemp(dir))
         return 1;
      static char cache_dir[64];
      snprintf(cache_dir, sizeof(cache_dir), "KILN_CACHE_DIR=%s/c", dir);
      static const char *const off[] = {"KILN_CACHE=0", NULL};
      const char *on[] = {"KILN_CACHE=1", cache_dir, NULL};
      double t[2], w[2];
      if (!run_child(lines_s, off, t))
         return 1;
      none[r] = t[0];
      if (!run_child(lines_s, on, t) || !run_child(lines_s, on, w))
         return 1;
      cold[r] = t[0];
      warm[r] = w[0];
      again[r] = w[1];
      char cmd[96];
      snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
      if (system(cmd))
         return 1;
   }
   printf("| clBuildProgram, %d-line kernel | ms |\n|---|---:|\n", lines);
   printf("| KILN_CACHE=0 (fresh process) | %.1f |\n", median(none, runs));
   printf("| cold: empty cache (fresh process; build + store) | %.1f |\n", median(cold, runs));
   printf("| warm: cache hit (fresh process) | %.2f |\n", median(warm, runs));
   printf("| warm: cache hit (2nd build in that process) | %.2f |\n", median(again, runs));
   return 0;
}
