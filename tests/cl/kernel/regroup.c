/* Work-groups merged in dimension 0 (src/llvm/cpu/wg_regroup.h): kernels
 * that read the local id, group id and local size of dimension 0 only as
 * `get_local_size(0) * get_group_id(0) + get_local_id(0)` (pyopencl's
 * elementwise kernels), or none of them, may run several work-groups as
 * one on the CPU device.  Each kernel is checked against the host at
 * several local sizes, 1D and 2D, with grids of few groups (which the
 * driver merges) and many; kernels that read those values otherwise
 * (written out, or the local id used alone) must see the groups the
 * application asked for.  The optimised IR (KILN_DUMP) must mark exactly
 * the first kind (`@__kiln_regroup_<kernel>`). */
#include <stdint.h>
#include <string.h>

#include "kk.h"

/* pyopencl's elementwise template, as it writes it. */
static const char *grid_stride_src =
   "__kernel void grid_stride(__global float *z, float a, __global const float *x,\n"
   "                          float b, __global const float *y, long n)\n"
   "{\n"
   "  int lid = get_local_id(0);\n"
   "  int gsize = get_global_size(0);\n"
   "  int work_group_start = get_local_size(0)*get_group_id(0);\n"
   "  long i;\n"
   "  for (i = work_group_start + lid; i < n; i += gsize)\n"
   "    z[i] = a*x[i] + b*y[i];\n"
   "}\n";

/* The global id alone, in two dimensions. */
static const char *global_ids_src =
   "__kernel void global_ids(__global int *out)\n"
   "{\n"
   "  size_t w = get_global_size(0);\n"
   "  out[get_global_id(1) * w + get_global_id(0)] =\n"
   "     (int)(get_global_id(0) * 7 + get_global_id(1) * 1000);\n"
   "}\n";

/* The group's own values, written out: never merged. */
static const char *group_values_src =
   "__kernel void group_values(__global int *out)\n"
   "{\n"
   "  size_t g = get_global_id(0);\n"
   "  out[4 * g] = get_local_id(0);\n"
   "  out[4 * g + 1] = get_group_id(0);\n"
   "  out[4 * g + 2] = get_local_size(0);\n"
   "  out[4 * g + 3] = get_num_groups(0);\n"
   "}\n";

/* The index of the pattern, and the local id alone besides. */
static const char *mixed_src =
   "__kernel void mixed(__global int *out)\n"
   "{\n"
   "  int i = get_group_id(0) * get_local_size(0) + get_local_id(0);\n"
   "  out[i] = i * 2 + (get_local_id(0) == 0);\n"
   "}\n";

static void write_all(const struct kt_env *env, cl_mem m, size_t size, const void *host)
{
   CHECK_OK(clEnqueueWriteBuffer(env->queue, m, CL_TRUE, 0, size, host, 0, NULL, NULL));
}

static void check_grid_stride(const struct kt_env *env, cl_program p)
{
   enum { N = 100003 };
   static float x[N], y[N], z[N];
   for (int i = 0; i < N; i++) {
      x[i] = (float)(i % 1000);
      y[i] = (float)(i % 77) - 30.0f;
   }
   cl_kernel k = kk_kernel(p, "grid_stride");
   cl_mem mx = kk_buffer_in(env, sizeof(x), x), my = kk_buffer_in(env, sizeof(y), y);
   cl_mem mz = kk_buffer_in(env, sizeof(z), NULL);
   float a = 2.0f, b = 3.0f;
   cl_long n = N;
   /* Few groups (pyopencl: compute units * 32 groups of 128), and many. */
   static const size_t shapes[][2] = {{8192, 128}, {4096, 32}, {512, 8}, {64, 1},
                                      {96, 3},     {N, 1},      {65536, 64}};
   for (size_t t = 0; t < sizeof(shapes) / sizeof(shapes[0]); t++) {
      size_t global = shapes[t][0], local = shapes[t][1];
      memset(z, 0, sizeof(z));
      write_all(env, mz, sizeof(z), z);
      KK_ARG(k, 0, mz);
      KK_ARG(k, 1, a);
      KK_ARG(k, 2, mx);
      KK_ARG(k, 3, b);
      KK_ARG(k, 4, my);
      KK_ARG(k, 5, n);
      KK_RUN(env, k, 1, NULL, &global, &local);
      kk_read(env, mz, sizeof(z), z);
      int bad = 0;
      for (int i = 0; i < N; i++)
         if (z[i] != a * x[i] + b * y[i] && bad++ < 3)
            CHECK(false, "grid_stride %zu/%zu: z[%d] = %g, want %g", global, local, i, z[i],
                  a * x[i] + b * y[i]);
   }
   clReleaseMemObject(mx);
   clReleaseMemObject(my);
   clReleaseMemObject(mz);
   CHECK_OK(clReleaseKernel(k));
}

static void check_global_ids(const struct kt_env *env, cl_program p)
{
   enum { W = 96, H = 5 };
   static int out[W * H];
   cl_kernel k = kk_kernel(p, "global_ids");
   cl_mem m = kk_buffer_in(env, sizeof(out), NULL);
   static const size_t locals[][2] = {{1, 1}, {4, 1}, {3, 5}, {32, 1}};
   for (size_t t = 0; t < sizeof(locals) / sizeof(locals[0]); t++) {
      size_t global[2] = {W, H}, local[2] = {locals[t][0], locals[t][1]};
      memset(out, 0xff, sizeof(out));
      write_all(env, m, sizeof(out), out);
      KK_ARG(k, 0, m);
      KK_RUN(env, k, 2, NULL, global, local);
      kk_read(env, m, sizeof(out), out);
      for (int yy = 0; yy < H; yy++)
         for (int xx = 0; xx < W; xx++)
            CHECK(out[yy * W + xx] == xx * 7 + yy * 1000, "global_ids %zux%zu: (%d,%d) = %d",
                  local[0], local[1], xx, yy, out[yy * W + xx]);
   }
   clReleaseMemObject(m);
   CHECK_OK(clReleaseKernel(k));
}

static void check_group_values(const struct kt_env *env, cl_program p)
{
   enum { G = 256 };
   static int out[4 * G];
   cl_kernel k = kk_kernel(p, "group_values");
   cl_mem m = kk_buffer_in(env, sizeof(out), NULL);
   static const size_t locals[] = {1, 2, 8, 64};
   for (size_t t = 0; t < sizeof(locals) / sizeof(locals[0]); t++) {
      size_t global = G, local = locals[t];
      KK_ARG(k, 0, m);
      KK_RUN(env, k, 1, NULL, &global, &local);
      kk_read(env, m, sizeof(out), out);
      for (int g = 0; g < G; g++) {
         int want[4] = {g % (int)local, g / (int)local, (int)local, G / (int)local};
         CHECK(!memcmp(&out[4 * g], want, sizeof(want)),
               "group_values local %zu, item %d: %d %d %d %d, want %d %d %d %d", local, g,
               out[4 * g], out[4 * g + 1], out[4 * g + 2], out[4 * g + 3], want[0], want[1],
               want[2], want[3]);
      }
   }
   clReleaseMemObject(m);
   CHECK_OK(clReleaseKernel(k));
}

static void check_mixed(const struct kt_env *env, cl_program p)
{
   enum { G = 128 };
   static int out[G];
   cl_kernel k = kk_kernel(p, "mixed");
   cl_mem m = kk_buffer_in(env, sizeof(out), NULL);
   static const size_t locals[] = {1, 4, 16};
   for (size_t t = 0; t < sizeof(locals) / sizeof(locals[0]); t++) {
      size_t global = G, local = locals[t];
      KK_ARG(k, 0, m);
      KK_RUN(env, k, 1, NULL, &global, &local);
      kk_read(env, m, sizeof(out), out);
      for (int i = 0; i < G; i++)
         CHECK(out[i] == i * 2 + (i % (int)local == 0), "mixed local %zu: out[%d] = %d", local,
               i, out[i]);
   }
   clReleaseMemObject(m);
   CHECK_OK(clReleaseKernel(k));
}

static const char *marked_kernel;

static bool marks(const char *line)
{
   char want[96];
   snprintf(want, sizeof(want), "@__kiln_regroup_%s = ", marked_kernel);
   return strstr(line, want) != NULL;
}

/* Whether kernel's optimised IR in dir marks it mergeable (CPU only). */
static void check_mark(const struct kt_env *env, const char *dir, const char *kernel, bool want)
{
   cl_device_type type = 0;
   CHECK_OK(clGetDeviceInfo(env->device, CL_DEVICE_TYPE, sizeof(type), &type, NULL));
   if (!(type & CL_DEVICE_TYPE_CPU))
      return;
   marked_kernel = kernel;
   int m = kk_dumped_ir_matches(dir, kernel, marks);
   CHECK(m >= 0, "KILN_DUMP wrote no optimised IR for %s", kernel);
   CHECK(m == want, "%s: %s", kernel,
         want ? "not marked mergeable (no @__kiln_regroup_ in its IR)"
              : "marked mergeable, but it reads its group's values");
}

int main(void)
{
   char dir[] = "/tmp/kiln-regroup-XXXXXX";
   kk_dump_begin(dir);
   struct kt_env env;
   kt_setup(&env, 0);
   static const struct {
      const char **src, *name;
      void (*check)(const struct kt_env *, cl_program);
      bool mergeable;
   } cases[] = {
      {&grid_stride_src, "grid_stride", check_grid_stride, true},
      {&global_ids_src, "global_ids", check_global_ids, true},
      {&group_values_src, "group_values", check_group_values, false},
      {&mixed_src, "mixed", check_mixed, false},
   };
   for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
      cl_program p = kk_build(&env, *cases[i].src, NULL);
      cases[i].check(&env, p);
      check_mark(&env, dir, cases[i].name, cases[i].mergeable);
      CHECK_OK(clReleaseProgram(p));
   }
   kt_teardown(&env);
   kk_dump_end(dir);
   return kt_result();
}
