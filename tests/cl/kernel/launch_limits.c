/* Launches at the edge of what a device can run (docs/design.md, "Launch
 * limits"):
 *  - grids whose every size is a legal size_t but whose work-item count
 *    is not (2^32 x 2^32 ...) are refused with CL_INVALID_GLOBAL_WORK_SIZE,
 *    instead of completing at once with nothing run;
 *  - offset + size up to SIZE_MAX runs with the right ids, one past it is
 *    CL_INVALID_GLOBAL_OFFSET;
 *  - on CPU devices, a kernel whose private arrays do not fit a worker's
 *    stack is refused with CL_OUT_OF_RESOURCES (and a KILN_DEBUG=api line
 *    with the sizes) instead of crashing the process; a kernel with
 *    barriers, whose work-items each keep their array, reports as
 *    CL_KERNEL_WORK_GROUP_SIZE what fits and runs at that size; moderate
 *    private arrays still run.
 * The stack cases run in child processes: Kiln without the check dies. */
#include "kk.h"

#include <stdint.h>
#include <unistd.h>

static const char *grid_source =
   "__kernel void count(__global uint *n) { atomic_inc(n); }\n"
   "__kernel void ids(__global ulong *o, ulong base)\n"
   "{\n"
   "  o[get_global_id(0) - base] = get_global_id(0);\n"
   "}\n";

static cl_uint read_count(const struct kt_env *env, cl_mem m)
{
   cl_uint n = 0;
   kk_read(env, m, sizeof(n), &n);
   return n;
}

/* Grids of 2^64 and 2^96 work-items: each size fits a size_t, the count
 * does not.  Nothing may run and no event may be made. */
static void huge_grids(const struct kt_env *env, cl_program prog)
{
   cl_kernel k = kk_kernel(prog, "count");
   cl_mem m = kk_buffer_in(env, sizeof(cl_uint), NULL);
   KK_ARG(k, 0, m);
   static const struct {
      cl_uint dim;
      size_t global[3];
      bool with_local;
   } cases[] = {
      {2, {(size_t)1 << 32, (size_t)1 << 32, 1}, false},
      {3, {(size_t)1 << 32, (size_t)1 << 32, 1}, false},
      {3, {(size_t)1 << 32, (size_t)1 << 32, (size_t)1 << 32}, false},
      {3, {(size_t)1 << 32, (size_t)1 << 32, 1}, true},
      {3, {1, (size_t)1 << 32, (size_t)1 << 32}, true},
      {2, {SIZE_MAX, 2, 1}, false},
      {3, {(size_t)1 << 22, (size_t)1 << 21, (size_t)1 << 21}, false},
   };
   for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
      cl_event ev = NULL;
      const size_t one[3] = {1, 1, 1};
      cl_int err = clEnqueueNDRangeKernel(env->queue, k, cases[i].dim, NULL, cases[i].global,
                                          cases[i].with_local ? one : NULL, 0, NULL, &ev);
      CHECK(err == CL_INVALID_GLOBAL_WORK_SIZE,
            " %uD grid %zux%zux%zu%s: %s, expected CL_INVALID_GLOBAL_WORK_SIZE", cases[i].dim,
            cases[i].global[0], cases[i].global[1], cases[i].global[2],
            cases[i].with_local ? " (local 1x1x1)" : "", kt_err_name(err));
      CHECK(!ev, " a refused launch made an event");
      if (ev) {
         clWaitForEvents(1, &ev);
         clReleaseEvent(ev);
      }
   }
   CHECK_OK(clFinish(env->queue));
   CHECK(read_count(env, m) == 0, " a refused launch ran %u work-items", read_count(env, m));

   /* The kernel itself runs: what was refused was the grid. */
   size_t ok[2] = {1, 64};
   CHECK_OK(clEnqueueNDRangeKernel(env->queue, k, 2, NULL, ok, NULL, 0, NULL, NULL));
   CHECK_OK(clFinish(env->queue));
   CHECK(read_count(env, m) == 64, " 1x64 grid ran %u work-items", read_count(env, m));
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseKernel(k));
}

/* Global ids up to SIZE_MAX - 1: offset + size == SIZE_MAX is legal
 * (§5.8: greater than SIZE_MAX is the error). */
static void top_offsets(const struct kt_env *env, cl_program prog)
{
   cl_kernel k = kk_kernel(prog, "ids");
   enum { N = 16 };
   cl_mem m = kk_buffer_in(env, N * sizeof(cl_ulong), NULL);
   KK_ARG(k, 0, m);
   size_t n = N;
   size_t off = SIZE_MAX - N;
   cl_ulong base = off;
   KK_ARG(k, 1, base);
   cl_int err = clEnqueueNDRangeKernel(env->queue, k, 1, &off, &n, NULL, 0, NULL, NULL);
   cl_device_type type = 0;
   CHECK_OK(clGetDeviceInfo(env->device, CL_DEVICE_TYPE, sizeof(type), &type, NULL));
   if (type & CL_DEVICE_TYPE_CPU) {
      CHECK_OK(err);
   } else {
      /* A GPU with 32-bit offsets refuses it; it must not wrap them. */
      CHECK(err == CL_SUCCESS || err == CL_INVALID_GLOBAL_OFFSET, " offset 2^64-17: %s",
            kt_err_name(err));
   }
   if (err == CL_SUCCESS) {
      cl_ulong got[N];
      kk_read(env, m, sizeof(got), got);
      for (int i = 0; i < N; i++)
         CHECK(got[i] == (cl_ulong)off + (cl_ulong)i, " work-item %d has global id %llu", i,
               (unsigned long long)got[i]);
   }
   size_t past = SIZE_MAX - N + 1;
   CHECK_ERR(clEnqueueNDRangeKernel(env->queue, k, 1, &past, &n, NULL, 0, NULL, NULL),
             CL_INVALID_GLOBAL_OFFSET);
   size_t off3[3] = {0, SIZE_MAX - 1, 0}, g3[3] = {1, 2, 1};
   CHECK_ERR(clEnqueueNDRangeKernel(env->queue, k, 3, off3, g3, NULL, 0, NULL, NULL),
             CL_INVALID_GLOBAL_OFFSET);
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseKernel(k));
}

/* ---- private memory (CPU devices) ---- */

static const char *stack_source =
   /* 64 MiB per work-item, all live at once: no worker stack holds it. */
   "__kernel void huge(__global int *o, int n)\n"
   "{\n"
   "  int p[1 << 24];\n"
   "  for (int i = 0; i < n; i++) p[(i * 7919) & ((1 << 24) - 1)] = i;\n"
   "  o[get_global_id(0)] = p[o[0] & ((1 << 24) - 1)];\n"
   "}\n"
   /* 400 KB per work-item kept across a barrier: each work-item of a group
    * has its own copy at once. */
   "#define WIDE 100000\n"
   "__kernel void wide(__global int *o, int n)\n"
   "{\n"
   "  int p[WIDE];\n"
   "  for (int i = 0; i < WIDE; i++) p[i] = i * n + (int)get_local_id(0);\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  int s = 0;\n"
   "  for (int i = 0; i < WIDE; i += 997) s += p[(i + (int)get_global_id(0)) % WIDE];\n"
   "  o[get_global_id(0)] = s;\n"
   "}\n"
   /* What piglit-sized kernels have: a few KB, with and without barriers. */
   "__kernel void modest(__global int *o, int n)\n"
   "{\n"
   "  int p[4096];\n"
   "  for (int i = 0; i < 4096; i++) p[i] = i ^ n;\n"
   "  o[get_global_id(0)] = p[get_global_id(0) % 4096];\n"
   "}\n"
   "__kernel void modest_barrier(__global int *o, __local int *l)\n"
   "{\n"
   "  int p[1024];\n"
   "  for (int i = 0; i < 1024; i++) p[i] = i + (int)get_global_id(0);\n"
   "  l[get_local_id(0)] = 1;\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  o[get_global_id(0)] = p[get_global_id(0) % 1024] + l[0];\n"
   "}\n";

static int wide_ref(size_t gid, size_t lid, int n)
{
   int s = 0;
   for (int i = 0; i < 100000; i += 997)
      s += ((i + (int)gid) % 100000) * n + (int)lid;
   return s;
}

static char log_path[256];

static int stack_child(const char *name)
{
   /* The API log, with the reason of every error, in a file to check. */
   setenv("KILN_DEBUG", "api", 1);
   setenv("KILN_LOG", log_path, 1);
   struct kt_env env;
   kt_setup(&env, 0);
   cl_program prog = kk_build(&env, stack_source, NULL);
   cl_device_id dev = env.device;
   int n = 3;

   if (!strcmp(name, "huge")) {
      cl_kernel k = kk_kernel(prog, "huge");
      cl_mem m = kk_buffer_in(&env, 64 * sizeof(cl_int), NULL);
      KK_ARG(k, 0, m);
      KK_ARG(k, 1, n);
      cl_ulong priv = 0;
      CHECK_OK(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof(priv),
                                        &priv, NULL));
      CHECK(priv >= (64u << 20), " CL_KERNEL_PRIVATE_MEM_SIZE %llu", (unsigned long long)priv);
      size_t g = 64, one = 1;
      cl_event ev = NULL;
      CHECK_ERR(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &g, NULL, 0, NULL, &ev),
                CL_OUT_OF_RESOURCES);
      CHECK(!ev, " a refused launch made an event");
      CHECK_ERR(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &g, &one, 0, NULL, NULL),
                CL_OUT_OF_RESOURCES);
      CHECK_ERR(clEnqueueTask(env.queue, k, 0, NULL, NULL), CL_OUT_OF_RESOURCES);
      CHECK_OK(clFinish(env.queue));
      CHECK_OK(clReleaseMemObject(m));
      CHECK_OK(clReleaseKernel(k));
      /* The log says how much was needed and how much there is. */
      FILE *f = fopen(log_path, "r");
      CHECK(f, " no log at %s", log_path);
      if (f) {
         char line[1024];
         bool found = false;
         while (fgets(line, sizeof(line), f))
            if (strstr(line, "'huge'") && strstr(line, "67108864") &&
                strstr(line, "private memory"))
               found = true;
         fclose(f);
         CHECK(found, " no KILN_DEBUG=api line names kernel 'huge' and its 67108864 bytes");
      }
      unlink(log_path);
   } else if (!strcmp(name, "wide")) {
      cl_kernel k = kk_kernel(prog, "wide");
      size_t kwg = 0, maxwg = 0;
      CHECK_OK(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof(kwg), &kwg,
                                        NULL));
      CHECK_OK(clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(maxwg), &maxwg, NULL));
      /* 400 KB a work-item: a 64 MiB stack holds about 160 of them. */
      CHECK(kwg >= 1 && kwg < maxwg && kwg * 400000 <= (64u << 20),
            " CL_KERNEL_WORK_GROUP_SIZE %zu for 400 KB kept per work-item (device max %zu)",
            kwg, maxwg);
      size_t g = 2 * kwg;
      cl_mem m = kk_buffer_in(&env, g * sizeof(cl_int), NULL);
      KK_ARG(k, 0, m);
      KK_ARG(k, 1, n);
      /* At the size the kernel reports: it runs, with the right results. */
      CHECK_OK(kk_run(&env, k, 1, NULL, &g, &kwg));
      cl_int *got = malloc(g * sizeof(cl_int));
      REQUIRE(got);
      kk_read(&env, m, g * sizeof(cl_int), got);
      for (size_t i = 0; i < g; i++)
         if (got[i] != wide_ref(i, i % kwg, n)) {
            KT_FAIL("wide: o[%zu] = %d, expected %d", i, got[i], wide_ref(i, i % kwg, n));
            break;
         }
      /* Left to Kiln: it picks a group that fits. */
      CHECK_OK(kk_run(&env, k, 1, NULL, &g, NULL));
      /* One more work-item per group is a group larger than reported. */
      size_t g2 = 2 * (kwg + 1), l2 = kwg + 1;
      if (kwg < maxwg)
         CHECK_ERR(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &g2, &l2, 0, NULL, NULL),
                   CL_INVALID_WORK_GROUP_SIZE);
      free(got);
      CHECK_OK(clReleaseMemObject(m));
      CHECK_OK(clReleaseKernel(k));
   } else if (!strcmp(name, "modest")) {
      size_t maxwg = 0;
      CHECK_OK(clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(maxwg), &maxwg, NULL));
      size_t g = 4 * maxwg;
      cl_mem m = kk_buffer_in(&env, g * sizeof(cl_int), NULL);
      cl_int *got = malloc(g * sizeof(cl_int));
      REQUIRE(got);
      cl_kernel k = kk_kernel(prog, "modest");
      KK_ARG(k, 0, m);
      KK_ARG(k, 1, n);
      CHECK_OK(kk_run(&env, k, 1, NULL, &g, &maxwg));
      kk_read(&env, m, g * sizeof(cl_int), got);
      for (size_t i = 0; i < g; i++)
         if (got[i] != (int)((i % 4096) ^ (size_t)n)) {
            KT_FAIL("modest: o[%zu] = %d", i, got[i]);
            break;
         }
      CHECK_OK(clReleaseKernel(k));
      /* 4 KB kept across a barrier by each of the device's largest group. */
      k = kk_kernel(prog, "modest_barrier");
      size_t kwg = 0;
      CHECK_OK(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof(kwg), &kwg,
                                        NULL));
      CHECK(kwg == maxwg, " 4 KB kept per work-item limits the group to %zu (device max %zu)",
            kwg, maxwg);
      KK_ARG(k, 0, m);
      KK_LOCAL(k, 1, maxwg * sizeof(cl_int));
      CHECK_OK(kk_run(&env, k, 1, NULL, &g, &kwg));
      kk_read(&env, m, g * sizeof(cl_int), got);
      for (size_t i = 0; i < g; i++)
         if (got[i] != (int)(i % 1024 + i + 1)) {
            KT_FAIL("modest_barrier: o[%zu] = %d, expected %d", i, got[i],
                    (int)(i % 1024 + i + 1));
            break;
         }
      free(got);
      CHECK_OK(clReleaseMemObject(m));
      CHECK_OK(clReleaseKernel(k));
   }
   CHECK_OK(clReleaseProgram(prog));
   kt_teardown(&env);
   return kt_result();
}

int main(int argc, char **argv)
{
   snprintf(log_path, sizeof(log_path), "%s/kiln-launch-limits-%d.log",
            getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
   KK_CHILD_MAIN(argc, argv, stack_child);

   struct kt_env env;
   kt_setup(&env, 0);
   cl_program prog = kk_build(&env, grid_source, NULL);
   huge_grids(&env, prog);
   top_offsets(&env, prog);
   CHECK_OK(clReleaseProgram(prog));

   cl_device_type type = 0;
   CHECK_OK(clGetDeviceInfo(env.device, CL_DEVICE_TYPE, sizeof(type), &type, NULL));
   kt_teardown(&env);
   if (type & CL_DEVICE_TYPE_CPU) {
      static const char *const cases[] = {"huge", "wide", "modest"};
      for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
         int rc = kk_child(cases[i], 100);
         CHECK(rc == 0, " stack case '%s': the child %s %d", cases[i],
               rc > 128 ? "died of signal" : "exited with", rc > 128 ? rc - 128 : rc);
      }
   } else {
      printf("private memory cases skipped: not a CPU device\n");
   }
   return kt_result();
}
