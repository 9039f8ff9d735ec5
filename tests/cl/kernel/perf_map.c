/* KILN_PERF_MAP=1 (docs/env.md, docs/debug.md): the CPU device writes
 * each linked work-group function to /tmp/perf-<pid>.map, where perf
 * finds names for JIT'd code.  Checked: every kernel that ran has a line
 * "start size __kiln_wg_<kernel>" whose range lies in executable memory
 * of this process, for a program built from source (compiled here) and
 * for the same program found in the compile cache (its kernels' objects
 * added one by one), and the kernels still compute what they should. */
#include <inttypes.h>
#include <stdint.h>
#include <unistd.h>

#include "kk.h"

static const char *src = "__kernel void mapped_a(__global int *o) { o[get_global_id(0)] += 1; }\n"
                         "__kernel void mapped_b(__global int *o) { o[get_global_id(0)] *= 3; }\n";

static char map_path[64];

/* Whether [start, start + size) lies in one executable mapping. */
static bool executable(uintptr_t start, uintptr_t size)
{
   FILE *f = fopen("/proc/self/maps", "r");
   if (!f)
      return false;
   char line[512];
   bool found = false;
   while (!found && fgets(line, sizeof(line), f)) {
      uintptr_t lo, hi;
      char perms[8];
      if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s", &lo, &hi, perms) == 3)
         found = perms[2] == 'x' && start >= lo && start + size <= hi;
   }
   fclose(f);
   return found;
}

/* How many lines of the map name the kernel's work-group function, each
 * checked for its form and its range. */
static int lines_for(const char *kernel)
{
   char want[128];
   snprintf(want, sizeof(want), "__kiln_wg_%s", kernel);
   FILE *f = fopen(map_path, "r");
   if (!f)
      return 0;
   char line[512];
   int n = 0;
   while (fgets(line, sizeof(line), f)) {
      uintptr_t start, size;
      char name[256];
      if (sscanf(line, "%" SCNxPTR " %" SCNxPTR " %255s", &start, &size, name) != 3) {
         CHECK(false, "malformed map line: %s", line);
         continue;
      }
      if (strcmp(name, want))
         continue;
      n++;
      CHECK(size > 0 && executable(start, size),
            "%s at %" PRIxPTR " (%" PRIuPTR " bytes) is not in executable memory", name, start,
            size);
   }
   fclose(f);
   return n;
}

/* Runs a then b over {0, 1, ...}: each element becomes (i + 1) * 3. */
static void run_both(const struct kt_env *env, cl_program p)
{
   enum { N = 64 };
   int host[N];
   for (int i = 0; i < N; i++)
      host[i] = i;
   cl_mem buf = kk_buffer_in(env, sizeof(host), host);
   const char *names[] = {"mapped_a", "mapped_b"};
   size_t global = N;
   for (int k = 0; k < 2; k++) {
      cl_kernel kern = kk_kernel(p, names[k]);
      KK_ARG(kern, 0, buf);
      KK_RUN(env, kern, 1, NULL, &global, NULL);
      clReleaseKernel(kern);
   }
   kk_read(env, buf, sizeof(host), host);
   for (int i = 0; i < N; i++)
      CHECK(host[i] == (i + 1) * 3, "element %d is %d, want %d", i, host[i], (i + 1) * 3);
   clReleaseMemObject(buf);
}

int main(void)
{
   char cache[] = "/tmp/kiln-test-perf-map-XXXXXX";
   REQUIRE(mkdtemp(cache));
   snprintf(map_path, sizeof(map_path), "/tmp/perf-%ld.map", (long)getpid());
   unlink(map_path);
   /* Set before Kiln reads them: a cache of our own, so that the first
    * build compiles and the second finds it. */
   setenv("KILN_PERF_MAP", "1", 1);
   setenv("KILN_CACHE", "1", 1);
   setenv("KILN_CACHE_DIR", cache, 1);
   struct kt_env env;
   kt_setup(&env, 0);
   cl_device_type type = 0;
   CHECK_OK(clGetDeviceInfo(env.device, CL_DEVICE_TYPE, sizeof(type), &type, NULL));
   if (!(type & CL_DEVICE_TYPE_CPU)) {
      printf("SKIP: not a CPU device (the map is the CPU device's)\n");
      kt_teardown(&env);
      return 77;
   }
   cl_program built = kk_build(&env, src, "");
   run_both(&env, built);
   CHECK(lines_for("mapped_a") == 1 && lines_for("mapped_b") == 1,
         "compiled program: %d and %d lines for mapped_a and mapped_b, want 1 each",
         lines_for("mapped_a"), lines_for("mapped_b"));
   /* Kept alive, so that the cached copy's code lies elsewhere. */
   cl_program cached = kk_build(&env, src, "");
   run_both(&env, cached);
   CHECK(lines_for("mapped_a") == 2 && lines_for("mapped_b") == 2,
         "cached program: %d and %d lines for mapped_a and mapped_b, want 2 each",
         lines_for("mapped_a"), lines_for("mapped_b"));
   clReleaseProgram(cached);
   clReleaseProgram(built);
   kt_teardown(&env);
   unlink(map_path);
   char cmd[128];
   snprintf(cmd, sizeof(cmd), "rm -rf %s", cache);
   if (system(cmd))
      return 1;
   return kt_result();
}
