/* math_bench: the speed of each math builtin, Kiln next to the other
 * OpenCL platforms of the loader (NVIDIA's on the GPU machine, PoCL on
 * the CPU), one kernel per function.  kiln_bench's "math" row mixes five
 * functions; this says which of them sets that row.
 *
 * Each work-item calls the function CALLS times on arguments that move a
 * little each call (so nothing is hoisted), from inputs spread over a
 * range where the function is defined and finite, and stores the sum:
 * the kernel is bound by the function, not by memory.  Reported: calls
 * per nanosecond (median of --runs), and Kiln's over each other platform's.
 *
 *   math_bench [--device gpu|cpu] [--runs R] [--size N] [--platform SUBSTR]
 *
 * Not a test: its timings are reported, never checked.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <CL/cl.h>

enum { CALLS = 16, MAX_PLATFORMS = 8 };

struct fn {
   const char *name; /* the builtin */
   const char *call; /* its call on a, b */
   float lo, hi;     /* where the inputs lie */
};

static const struct fn fns[] = {
   {"sin", "sin(a)", -100.0f, 100.0f},
   {"cos", "cos(a)", -100.0f, 100.0f},
   {"tan", "tan(a)", -1.5f, 1.5f},
   {"exp", "exp(a)", -80.0f, 80.0f},
   {"exp2", "exp2(a)", -120.0f, 120.0f},
   {"log", "log(a)", 0.001f, 1000.0f},
   {"log2", "log2(a)", 0.001f, 1000.0f},
   {"pow", "pow(a, b)", 0.01f, 10.0f},
   {"sqrt", "sqrt(a)", 0.0f, 1000.0f},
   {"rsqrt", "rsqrt(a)", 0.001f, 1000.0f},
   {"atan", "atan(a)", -100.0f, 100.0f},
   {"erf", "erf(a)", -3.0f, 3.0f},
   {"erfc", "erfc(a)", -3.0f, 9.0f},
   {"tgamma", "tgamma(a)", 0.1f, 30.0f},
   {"lgamma", "lgamma(a)", 0.1f, 100.0f},
   {"native_sin", "native_sin(a)", -100.0f, 100.0f},
   {"native_exp", "native_exp(a)", -80.0f, 80.0f},
};
#define NUM_FNS (sizeof(fns) / sizeof(fns[0]))

static double now_s(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
   double x = *(const double *)a, y = *(const double *)b;
   return (x > y) - (x < y);
}

/* One kernel per function and type: k_<name>_<type>. */
static char *make_source(bool fp64)
{
   size_t cap = 64 << 10, n = 0;
   char *s = malloc(cap);
   if (!s)
      return NULL;
   if (fp64)
      n += (size_t)snprintf(s + n, cap - n, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
   for (int t = 0; t < (fp64 ? 2 : 1); t++) {
      const char *ty = t ? "double" : "float";
      for (size_t i = 0; i < NUM_FNS; i++) {
         if (t && !strncmp(fns[i].name, "native_", 7))
            continue;
         n += (size_t)snprintf(
            s + n, cap - n,
            "__kernel void k_%s_%s(__global const %s *x, __global %s *y)\n"
            "{\n"
            "   size_t i = get_global_id(0);\n"
            "   %s a = x[i], b = (%s)1.5 - a * (%s)0.01, s = 0;\n"
            "   for (int k = 0; k < %d; k++) {\n"
            "      s += %s;\n"
            "      a += a * (%s)0.0001;\n"
            "   }\n"
            "   y[i] = s;\n"
            "}\n",
            fns[i].name, ty, ty, ty, ty, ty, ty, CALLS, fns[i].call, ty);
      }
   }
   return s;
}

struct platform_run {
   char name[128];
   double rate[2][NUM_FNS]; /* calls per ns; 0: not run */
};

static void run_platform(cl_platform_id pid, cl_device_type type, size_t size, int runs,
                         struct platform_run *out)
{
   cl_device_id dev;
   cl_int err;
   clGetPlatformInfo(pid, CL_PLATFORM_NAME, sizeof(out->name), out->name, NULL);
   if (clGetDeviceIDs(pid, type, 1, &dev, NULL)) {
      printf("%s: no such device\n", out->name);
      return;
   }
   char ext[4096] = "";
   clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof(ext), ext, NULL);
   bool fp64 = strstr(ext, "cl_khr_fp64") != NULL;
   cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
   cl_command_queue q = err ? NULL : clCreateCommandQueue(ctx, dev, 0, &err);
   char *src = make_source(fp64);
   cl_program prog = err || !src ? NULL
                                 : clCreateProgramWithSource(ctx, 1, (const char **)&src, NULL, &err);
   if (err || clBuildProgram(prog, 1, &dev, "", NULL, NULL)) {
      printf("%s: build failed\n", out->name);
      free(src);
      return;
   }
   free(src);
   double *host = malloc(size * sizeof(double));
   cl_mem x = clCreateBuffer(ctx, CL_MEM_READ_ONLY, size * sizeof(double), NULL, &err);
   cl_mem y = err ? NULL : clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, size * sizeof(double), NULL, &err);
   for (int t = 0; t < (fp64 ? 2 : 1) && host && !err; t++) {
      for (size_t f = 0; f < NUM_FNS; f++) {
         char kname[64];
         snprintf(kname, sizeof(kname), "k_%s_%s", fns[f].name, t ? "double" : "float");
         cl_kernel k = clCreateKernel(prog, kname, &err);
         if (err) {
            err = CL_SUCCESS; /* the native_ ones have no double form */
            continue;
         }
         /* Inputs spread over [lo, hi] in a fixed pseudo-random order. */
         uint32_t seed = 12345;
         for (size_t i = 0; i < size; i++) {
            seed = seed * 1664525u + 1013904223u;
            double u = fns[f].lo + (fns[f].hi - fns[f].lo) * ((seed >> 8) / 16777216.0);
            if (t)
               host[i] = u;
            else
               ((float *)host)[i] = (float)u;
         }
         clEnqueueWriteBuffer(q, x, CL_TRUE, 0, size * (t ? 8 : 4), host, 0, NULL, NULL);
         clSetKernelArg(k, 0, sizeof(x), &x);
         clSetKernelArg(k, 1, sizeof(y), &y);
         double times[32];
         int n = runs < 32 ? runs : 32;
         clEnqueueNDRangeKernel(q, k, 1, NULL, &size, NULL, 0, NULL, NULL); /* warm-up */
         clFinish(q);
         for (int r = 0; r < n; r++) {
            double t0 = now_s();
            clEnqueueNDRangeKernel(q, k, 1, NULL, &size, NULL, 0, NULL, NULL);
            clFinish(q);
            times[r] = now_s() - t0;
         }
         qsort(times, (size_t)n, sizeof(double), cmp_double);
         out->rate[t][f] = (double)size * CALLS / (times[n / 2] * 1e9);
         clReleaseKernel(k);
      }
   }
   free(host);
   if (x)
      clReleaseMemObject(x);
   if (y)
      clReleaseMemObject(y);
   clReleaseProgram(prog);
   clReleaseCommandQueue(q);
   clReleaseContext(ctx);
}

int main(int argc, char **argv)
{
   cl_device_type type = CL_DEVICE_TYPE_GPU;
   size_t size = 1 << 22;
   int runs = 5;
   const char *only = NULL;
   for (int i = 1; i < argc; i++) {
      const char *v = i + 1 < argc ? argv[i + 1] : NULL;
      if (!strcmp(argv[i], "--device") && v) {
         type = !strcmp(v, "cpu") ? CL_DEVICE_TYPE_CPU : CL_DEVICE_TYPE_GPU;
         i++;
      } else if (!strcmp(argv[i], "--runs") && v) {
         runs = atoi(v);
         i++;
      } else if (!strcmp(argv[i], "--size") && v) {
         size = (size_t)strtoull(v, NULL, 0);
         i++;
      } else if (!strcmp(argv[i], "--platform") && v) {
         only = v;
         i++;
      } else {
         fprintf(stderr, "usage: math_bench [--device gpu|cpu] [--runs R] [--size N] "
                         "[--platform SUBSTR]\n");
         return 2;
      }
   }
   if (runs < 1 || !size)
      return 2;
   cl_platform_id ids[MAX_PLATFORMS];
   cl_uint np = 0;
   if (clGetPlatformIDs(MAX_PLATFORMS, ids, &np) || !np) {
      fprintf(stderr, "math_bench: no OpenCL platform\n");
      return 1;
   }
   if (np > MAX_PLATFORMS)
      np = MAX_PLATFORMS;
   static struct platform_run runs_of[MAX_PLATFORMS];
   int kiln = -1, count = 0;
   cl_platform_id chosen[MAX_PLATFORMS];
   for (cl_uint p = 0; p < np; p++) {
      char name[128] = "";
      clGetPlatformInfo(ids[p], CL_PLATFORM_NAME, sizeof(name), name, NULL);
      if (only && !strstr(name, only))
         continue;
      chosen[count] = ids[p];
      if (kiln < 0 && strstr(name, "Kiln"))
         kiln = count;
      count++;
   }
   for (int p = 0; p < count; p++) {
      run_platform(chosen[p], type, size, runs, &runs_of[p]);
      printf("platform %d: %s\n", p, runs_of[p].name);
   }
   printf("\n| function | type |");
   for (int p = 0; p < count; p++)
      printf(" %s calls/ns |", runs_of[p].name);
   for (int p = 0; p < count; p++)
      if (p != kiln && kiln >= 0)
         printf(" Kiln/%s |", runs_of[p].name);
   printf("\n|---|---|");
   for (int p = 0; p < count; p++)
      printf("---:|");
   for (int p = 0; p < count; p++)
      if (p != kiln && kiln >= 0)
         printf("---:|");
   printf("\n");
   for (int t = 0; t < 2; t++) {
      for (size_t f = 0; f < NUM_FNS; f++) {
         bool any = false;
         for (int p = 0; p < count; p++)
            any |= runs_of[p].rate[t][f] > 0;
         if (!any)
            continue;
         printf("| %s | %s |", fns[f].name, t ? "double" : "float");
         for (int p = 0; p < count; p++)
            printf(" %.2f |", runs_of[p].rate[t][f]);
         for (int p = 0; p < count; p++) {
            if (p == kiln || kiln < 0)
               continue;
            double o = runs_of[p].rate[t][f], k = runs_of[kiln].rate[t][f];
            if (o > 0 && k > 0)
               printf(" %.2f |", k / o);
            else
               printf(" - |");
         }
         printf("\n");
      }
   }
   printf("\nKiln/X > 1: Kiln is faster.  %d calls per work-item, %zu work-items.\n", CALLS, size);
   return 0;
}
