/* kernels_bench: build time of a program of many small kernels, per
 * kernel, on the CPU device of every platform the ICD loader lists (Kiln
 * and PoCL side by side, docs/performance.md).  The source holds N
 * kernels
 *    kernel void kI(global int *a) { a[get_global_id(0)] += I; }
 * and each measurement runs in a fresh process (this program again, with
 * --child) with the platforms' compile caches off (KILN_CACHE=0,
 * POCL_KERNEL_CACHE=0), so every build compiles everything.  Timed:
 * clCreateProgramWithSource + clBuildProgram, then
 * clCreateKernelsInProgram apart (PoCL does part of its work per kernel
 * there and at the first launch, which this does not time).
 *
 *   kernels_bench [--runs R] [--platform SUBSTR] [N ...]   (default 100 1000 5000)
 *
 * SUBSTR: only platforms whose name contains it, case-insensitive.
 *
 * Not a test: its timings are reported, never checked.
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

static char *make_source(int kernels)
{
   size_t cap = (size_t)kernels * 80 + 1;
   char *s = malloc(cap);
   if (!s)
      return NULL;
   size_t n = 0;
   s[0] = 0;
   for (int k = 0; k < kernels; k++)
      n += (size_t)snprintf(s + n, cap - n,
                            "kernel void k%d(global int *a) { a[get_global_id(0)] += %d; }\n",
                            k, k);
   return s;
}

/* The CPU device of platform number index, and its name. */
static cl_device_id platform_cpu(int index, char *name, size_t name_size)
{
   cl_platform_id ps[16];
   cl_uint np = 0;
   if (clGetPlatformIDs(16, ps, &np) || index < 0 || (cl_uint)index >= np || index >= 16)
      return NULL;
   clGetPlatformInfo(ps[index], CL_PLATFORM_NAME, name_size, name, NULL);
   cl_device_id d;
   if (clGetDeviceIDs(ps[index], CL_DEVICE_TYPE_CPU, 1, &d, NULL))
      return NULL;
   return d;
}

/* One process's build: prints "TIMES build_ms kernels_ms". */
static int child(int index, int kernels)
{
   char name[128] = "";
   cl_device_id dev = platform_cpu(index, name, sizeof(name));
   if (!dev)
      return 1;
   cl_int err;
   cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
   char *src = make_source(kernels);
   if (err || !src)
      return 1;
   const char *s = src;
   double t0 = now_ms();
   cl_program p = clCreateProgramWithSource(ctx, 1, &s, NULL, &err);
   if (!err)
      err = clBuildProgram(p, 1, &dev, "", NULL, NULL);
   double t1 = now_ms();
   if (err) {
      char log[4096] = "";
      clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
      fprintf(stderr, "kernels_bench: %s: build failed (%d):\n%s\n", name, err, log);
      return 1;
   }
   cl_kernel *ks = malloc((size_t)kernels * sizeof(*ks));
   cl_uint got = 0;
   if (!ks || clCreateKernelsInProgram(p, (cl_uint)kernels, ks, &got) || got != (cl_uint)kernels) {
      fprintf(stderr, "kernels_bench: %s: clCreateKernelsInProgram failed\n", name);
      return 1;
   }
   double t2 = now_ms();
   for (cl_uint i = 0; i < got; i++)
      clReleaseKernel(ks[i]);
   free(ks);
   printf("TIMES %.3f %.3f\n", t1 - t0, t2 - t1);
   clReleaseProgram(p);
   clReleaseContext(ctx);
   free(src);
   return 0;
}

/* Runs a child for platform index and n kernels; its times in t. */
static bool run_child(int index, int n, double t[2])
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
      putenv("KILN_CACHE=0");
      putenv("POCL_KERNEL_CACHE=0");
      char is[16], ns[16];
      snprintf(is, sizeof(is), "%d", index);
      snprintf(ns, sizeof(ns), "%d", n);
      execl("/proc/self/exe", "kernels_bench", "--child", is, ns, (char *)NULL);
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
   int runs = 1, sizes[16], num_sizes = 0;
   const char *filter = NULL;
   for (int i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "--child") && i + 2 < argc)
         return child(atoi(argv[i + 1]), atoi(argv[i + 2]));
      if (!strcmp(argv[i], "--runs") && i + 1 < argc)
         runs = atoi(argv[++i]);
      else if (!strcmp(argv[i], "--platform") && i + 1 < argc)
         filter = argv[++i];
      else if (argv[i][0] != '-' && atoi(argv[i]) > 0 && num_sizes < 16)
         sizes[num_sizes++] = atoi(argv[i]);
      else {
         fprintf(stderr, "usage: kernels_bench [--runs R] [--platform SUBSTR] [N ...]\n");
         return 2;
      }
   }
   if (runs < 1 || runs > 100)
      return 2;
   if (!num_sizes) {
      sizes[0] = 100, sizes[1] = 1000, sizes[2] = 5000;
      num_sizes = 3;
   }
   cl_platform_id ps[16];
   cl_uint np = 0;
   if (clGetPlatformIDs(16, ps, &np) || !np) {
      fprintf(stderr, "kernels_bench: no OpenCL platform (OCL_ICD_VENDORS?)\n");
      return 1;
   }
   double load[3] = {0};
   FILE *la = fopen("/proc/loadavg", "r");
   if (la) {
      if (fscanf(la, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3)
         load[0] = load[1] = load[2] = 0;
      fclose(la);
   }
   printf("kernels_bench: N one-line kernels per program, compile caches off, "
          "%d fresh process(es) per row (median); load average %.2f %.2f %.2f\n",
          runs, load[0], load[1], load[2]);
   printf("| platform | N | clBuildProgram ms | ms/kernel | clCreateKernelsInProgram ms |\n"
          "|---|---:|---:|---:|---:|\n");
   int status = 0;
   bool any = false;
   for (cl_uint p = 0; p < np && p < 16; p++) {
      char name[128] = "";
      cl_device_id d;
      clGetPlatformInfo(ps[p], CL_PLATFORM_NAME, sizeof(name), name, NULL);
      if ((filter && !strcasestr(name, filter)) ||
          clGetDeviceIDs(ps[p], CL_DEVICE_TYPE_CPU, 1, &d, NULL))
         continue;
      any = true;
      for (int s = 0; s < num_sizes; s++) {
         double build[100], kern[100];
         bool ok = true;
         for (int r = 0; r < runs && ok; r++) {
            double t[2];
            ok = run_child((int)p, sizes[s], t);
            build[r] = t[0];
            kern[r] = t[1];
         }
         if (!ok) {
            printf("| %s | %d | failed | | |\n", name, sizes[s]);
            status = 1;
            continue;
         }
         double b = median(build, runs);
         printf("| %s | %d | %.1f | %.3f | %.1f |\n", name, sizes[s], b, b / sizes[s],
                median(kern, runs));
         fflush(stdout);
      }
   }
   if (!any) {
      fprintf(stderr, "kernels_bench: no platform%s%s has a CPU device\n",
              filter ? " matching " : "", filter ? filter : "");
      return 1;
   }
   return status;
}
