/* Loops that contain barriers (OpenCL 1.1 §6.12.8): the CPU device runs
 * their uniform control once per work-group and keeps uniform counters in
 * one slot (src/llvm/cpu/wg_loop_split.c, wg_uniform.c).  Each kernel mixes
 * uniform and per-work-item state in the ways that analysis must tell
 * apart; every result is checked against a host simulation of the group,
 * at several group sizes (1, odd, a power of two). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kk.h"

static const char *source =
   /* do-while; a uniform variable read and updated in the same region as
    * per-work-item work (it must not share one slot there). */
   "__kernel void dowhile(__global int *io, __local int *buf, int rounds)\n"
   "{\n"
   "  uint l = get_local_id(0), n = get_local_size(0);\n"
   "  int v = io[get_global_id(0)], k = 0, u = 1;\n"
   "  do {\n"
   "    buf[l] = v + u;\n"
   "    u = u * 3 + 1;\n"
   "    barrier(CLK_LOCAL_MEM_FENCE);\n"
   "    v = buf[(l + 1) % n];\n"
   "    barrier(CLK_LOCAL_MEM_FENCE);\n"
   "    k++;\n"
   "  } while (k < rounds);\n"
   "  io[get_global_id(0)] = v + u;\n"
   "}\n"
   /* break and continue on uniform conditions, one path with an extra
    * barrier. */
   "__kernel void brk(__global int *io, __local int *buf, int limit)\n"
   "{\n"
   "  uint l = get_local_id(0), n = get_local_size(0);\n"
   "  int acc = io[get_global_id(0)];\n"
   "  for (int i = 0; i < 100; i++) {\n"
   "    if (i == limit) break;\n"
   "    buf[l] = acc + i;\n"
   "    barrier(CLK_LOCAL_MEM_FENCE);\n"
   "    if (i % 3 == 1) { barrier(CLK_LOCAL_MEM_FENCE); continue; }\n"
   "    acc += buf[n - 1 - l];\n"
   "    barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  }\n"
   "  io[get_global_id(0)] = acc;\n"
   "}\n"
   /* A variable that looks like a counter but is updated under a
    * per-work-item condition: it varies. */
   "__kernel void varying_update(__global int *io, __local int *buf)\n"
   "{\n"
   "  uint l = get_local_id(0), n = get_local_size(0);\n"
   "  int s = 5, acc = 0;\n"
   "  for (int r = 0; r < 4; r++) {\n"
   "    if (l & 1) s += r + 1;\n"
   "    for (uint i = 0; i < l % 3; i++) s += 2;\n"
   "    buf[l] = s;\n"
   "    barrier(CLK_LOCAL_MEM_FENCE);\n"
   "    acc += buf[(l + 1) % n] & 7;\n"
   "    barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  }\n"
   "  io[get_global_id(0)] = s * 1000 + acc;\n"
   "}\n"
   /* Loop bounds from the group's sizes and ids, in 2D. */
   "__kernel void two_d(__global int *out, __local int *buf)\n"
   "{\n"
   "  uint x = get_local_id(0), y = get_local_id(1);\n"
   "  uint w = get_local_size(0), h = get_local_size(1), f = y * w + x;\n"
   "  buf[f] = (int)(get_group_id(0) * 7 + get_group_id(1) * 3 + f);\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  for (uint s = w * h / 2; s > 0; s >>= 1) {\n"
   "    if (f < s) buf[f] += buf[f + s];\n"
   "    barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  }\n"
   "  for (uint t = get_group_id(0); t < get_group_id(0) + get_group_id(1) + 2; t++) {\n"
   "    if (f == 0) buf[0] += (int)t;\n"
   "    barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  }\n"
   "  out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = buf[0] + (int)f;\n"
   "}\n"
   /* An outer loop whose trip count differs between groups, an inner loop
    * without barriers (stays inside the work-item loop) and one with. */
   "__kernel void nested(__global int *io, __local int *buf, int m)\n"
   "{\n"
   "  uint l = get_local_id(0), n = get_local_size(0);\n"
   "  int v = io[get_global_id(0)];\n"
   "  for (int i = 0; i < m + (int)get_group_id(0); i++) {\n"
   "    int t = 0;\n"
   "    for (int k = 0; k < 4; k++) t += k * v;\n"
   "    for (int j = 0; j < 2; j++) {\n"
   "      buf[l] = v + t + j;\n"
   "      barrier(CLK_LOCAL_MEM_FENCE);\n"
   "      v = (buf[(l + j + 1) % n] - i) & 0xffff;\n"
   "      barrier(CLK_LOCAL_MEM_FENCE);\n"
   "    }\n"
   "  }\n"
   "  io[get_global_id(0)] = v;\n"
   "}\n"
   /* The whole group returns from inside the loop. */
   "__kernel void early_ret(__global int *io, __local int *buf, int stop)\n"
   "{\n"
   "  uint l = get_local_id(0), n = get_local_size(0);\n"
   "  int v = io[get_global_id(0)];\n"
   "  for (int i = 0; i < 10; i++) {\n"
   "    io[get_global_id(0)] = v;\n"
   "    if (i == stop) return;\n"
   "    buf[l] = v;\n"
   "    barrier(CLK_LOCAL_MEM_FENCE);\n"
   "    v = buf[(l + 1) % n] + 1;\n"
   "    barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  }\n"
   "  io[get_global_id(0)] = -v;\n"
   "}\n";

enum { N = 420, MAXL = 105 };
static const size_t sizes[] = {1, 7, 105, 4};
static cl_program prog;

/* Runs kernel `name` on io (1D, N items, local size l) with an int
 * argument at index 2 when has_arg. */
static void run1d(const struct kt_env *env, const char *name, cl_int *io, size_t l, bool has_arg,
                  cl_int arg)
{
   cl_kernel k = kk_kernel(prog, name);
   cl_mem m = kk_buffer_in(env, N * sizeof(cl_int), io);
   KK_ARG(k, 0, m);
   KK_LOCAL(k, 1, l * sizeof(cl_int));
   if (has_arg)
      KK_ARG(k, 2, arg);
   size_t n = N;
   KK_RUN(env, k, 1, NULL, &n, &l);
   kk_read(env, m, N * sizeof(cl_int), io);
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseKernel(k));
}

static bool compare(const char *what, size_t l, const cl_int *got, const cl_int *want)
{
   for (int i = 0; i < N; i++)
      if (got[i] != want[i]) {
         KT_FAIL("%s, group size %zu: item %d = %d, expected %d", what, l, i, got[i], want[i]);
         return false;
      }
   return true;
}

static void input(cl_int *io)
{
   for (int i = 0; i < N; i++)
      io[i] = (i * 37) % 101 - 20;
}

static void dowhile(const struct kt_env *env)
{
   static const cl_int rounds[] = {1, 3};
   for (size_t t = 0; t < 4; t++)
      for (int r = 0; r < 2; r++) {
         size_t l = sizes[t];
         cl_int io[N], want[N], buf[MAXL];
         input(io);
         for (int g = 0; g < N; g += (int)l) {
            int v[MAXL], u = 1;
            for (size_t i = 0; i < l; i++)
               v[i] = io[g + (int)i];
            int k = 0;
            do {
               for (size_t i = 0; i < l; i++)
                  buf[i] = v[i] + u;
               u = u * 3 + 1;
               for (size_t i = 0; i < l; i++)
                  v[i] = buf[(i + 1) % l];
               k++;
            } while (k < rounds[r]);
            for (size_t i = 0; i < l; i++)
               want[g + (int)i] = v[i] + u;
         }
         run1d(env, "dowhile", io, l, true, rounds[r]);
         compare("do-while with a uniform update", l, io, want);
      }
}

static void brk(const struct kt_env *env)
{
   static const cl_int limits[] = {0, 1, 5};
   for (size_t t = 0; t < 4; t++)
      for (int c = 0; c < 3; c++) {
         size_t l = sizes[t];
         cl_int io[N], want[N], buf[MAXL];
         input(io);
         for (int g = 0; g < N; g += (int)l) {
            int acc[MAXL];
            for (size_t i = 0; i < l; i++)
               acc[i] = io[g + (int)i];
            for (int i = 0; i < 100 && i != limits[c]; i++) {
               for (size_t x = 0; x < l; x++)
                  buf[x] = acc[x] + i;
               if (i % 3 == 1)
                  continue;
               for (size_t x = 0; x < l; x++)
                  acc[x] += buf[l - 1 - x];
            }
            for (size_t i = 0; i < l; i++)
               want[g + (int)i] = acc[i];
         }
         run1d(env, "brk", io, l, true, limits[c]);
         compare("break and continue", l, io, want);
      }
}

static void varying_update(const struct kt_env *env)
{
   for (size_t t = 0; t < 4; t++) {
      size_t l = sizes[t];
      cl_int io[N], want[N], buf[MAXL];
      for (int g = 0; g < N; g += (int)l) {
         int s[MAXL], acc[MAXL];
         for (size_t i = 0; i < l; i++)
            s[i] = 5, acc[i] = 0;
         for (int r = 0; r < 4; r++) {
            for (size_t i = 0; i < l; i++) {
               if (i & 1)
                  s[i] += r + 1;
               s[i] += 2 * (int)(i % 3);
               buf[i] = s[i];
            }
            for (size_t i = 0; i < l; i++)
               acc[i] += buf[(i + 1) % l] & 7;
         }
         for (size_t i = 0; i < l; i++)
            want[g + (int)i] = s[i] * 1000 + acc[i];
      }
      input(io);
      run1d(env, "varying_update", io, l, false, 0);
      compare("per-work-item update under a divergent branch", l, io, want);
   }
}

static void two_d(const struct kt_env *env)
{
   enum { W = 16, H = 8 };
   static const size_t locals[][2] = {{4, 2}, {8, 8}, {1, 1}, {16, 4}};
   cl_kernel k = kk_kernel(prog, "two_d");
   cl_mem m = kk_buffer_in(env, W * H * sizeof(cl_int), NULL);
   KK_ARG(k, 0, m);
   for (size_t t = 0; t < 4; t++) {
      size_t glob[2] = {W, H}, loc[2] = {locals[t][0], locals[t][1]};
      KK_LOCAL(k, 1, loc[0] * loc[1] * sizeof(cl_int));
      KK_RUN(env, k, 2, NULL, glob, loc);
      cl_int out[W * H];
      kk_read(env, m, sizeof(out), out);
      for (int y = 0; y < H; y++)
         for (int x = 0; x < W; x++) {
            int gx = x / (int)loc[0], gy = y / (int)loc[1];
            int items = (int)(loc[0] * loc[1]);
            int f = (y % (int)loc[1]) * (int)loc[0] + x % (int)loc[0];
            int sum = 0;
            for (int i = 0; i < items; i++)
               sum += gx * 7 + gy * 3 + i;
            for (int g = gx; g < gx + gy + 2; g++)
               sum += g;
            int want = sum + f;
            if (out[y * W + x] != want) {
               KT_FAIL("2D tree and group-id loop, local %zux%zu: (%d,%d) = %d, expected %d",
                       loc[0], loc[1], x, y, out[y * W + x], want);
               t = 4;
               y = H;
               break;
            }
         }
   }
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseKernel(k));
}

static void nested(const struct kt_env *env)
{
   for (size_t t = 0; t < 4; t++) {
      size_t l = sizes[t];
      cl_int io[N], want[N], buf[MAXL];
      const int mm = 2;
      input(io);
      for (int g = 0; g < N; g += (int)l) {
         int v[MAXL], tt[MAXL];
         for (size_t i = 0; i < l; i++)
            v[i] = io[g + (int)i];
         for (int i = 0; i < mm + g / (int)l; i++) {
            for (size_t x = 0; x < l; x++) {
               tt[x] = 0;
               for (int k = 0; k < 4; k++)
                  tt[x] += k * v[x];
            }
            for (int j = 0; j < 2; j++) {
               for (size_t x = 0; x < l; x++)
                  buf[x] = v[x] + tt[x] + j;
               for (size_t x = 0; x < l; x++)
                  v[x] = (buf[(x + (size_t)j + 1) % l] - i) & 0xffff;
            }
         }
         for (size_t i = 0; i < l; i++)
            want[g + (int)i] = v[i];
      }
      run1d(env, "nested", io, l, true, mm);
      compare("nested loops, trip count per group", l, io, want);
   }
}

static void early_ret(const struct kt_env *env)
{
   static const cl_int stops[] = {0, 3, 99};
   for (size_t t = 0; t < 4; t++)
      for (int c = 0; c < 3; c++) {
         size_t l = sizes[t];
         cl_int io[N], want[N], buf[MAXL];
         input(io);
         for (int g = 0; g < N; g += (int)l) {
            int v[MAXL];
            bool returned = false;
            for (size_t i = 0; i < l; i++)
               v[i] = io[g + (int)i];
            for (int i = 0; i < 10 && !returned; i++) {
               for (size_t x = 0; x < l; x++)
                  want[g + (int)x] = v[x];
               if (i == stops[c]) {
                  returned = true;
                  break;
               }
               for (size_t x = 0; x < l; x++)
                  buf[x] = v[x];
               for (size_t x = 0; x < l; x++)
                  v[x] = buf[(x + 1) % l] + 1;
            }
            if (!returned)
               for (size_t x = 0; x < l; x++)
                  want[g + (int)x] = -v[x];
         }
         run1d(env, "early_ret", io, l, true, stops[c]);
         compare("return from inside the loop", l, io, want);
      }
}

/* Tiled matrix product: a constant-trip loop right behind a barrier
 * (`barrier(); for (k = 0; k < TS; k++) acc += As[ty][k] * Bs[k][tx];`).
 * Its start is the region's own (wg_regions.c, kiln_wg_isolate_barriers),
 * so the optimiser unrolls it and vectorizes the work-items across it: on
 * the CPU device the optimised IR (KILN_DUMP) holds a vector multiply-add.
 * Integer-valued floats: every sum is exact, fused or not. */
static const char *matmul_source =
   "#define TS 16\n"
   "__kernel void matmul(int n, __global const float *A, __global const float *B,\n"
   "                     __global float *C)\n"
   "{\n"
   "  __local float As[TS][TS], Bs[TS][TS];\n"
   "  int tx = get_local_id(0), ty = get_local_id(1);\n"
   "  int col = get_group_id(0) * TS + tx, row = get_group_id(1) * TS + ty;\n"
   "  float acc = 0.0f;\n"
   "  for (int t = 0; t < n; t += TS) {\n"
   "    As[ty][tx] = A[row * n + t + tx];\n"
   "    Bs[ty][tx] = B[(t + ty) * n + col];\n"
   "    barrier(CLK_LOCAL_MEM_FENCE);\n"
   "    for (int k = 0; k < TS; k++)\n"
   "      acc += As[ty][k] * Bs[k][tx];\n"
   "    barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  }\n"
   "  C[row * n + col] = acc;\n"
   "}\n";

static void find_vector_fma(FILE *f, void *arg)
{
   bool *found = arg;
   char line[8192];
   while (fgets(line, sizeof(line), f))
      *found |= strstr(line, "@llvm.fmuladd.v") || strstr(line, "@llvm.fma.v");
}

static void tiled_matmul(const struct kt_env *env)
{
   enum { MN = 48 };
   static cl_float a[MN * MN], b[MN * MN], c[MN * MN], want[MN * MN];
   for (int i = 0; i < MN * MN; i++) {
      a[i] = (cl_float)((i * 7) % 9 - 4);
      b[i] = (cl_float)((i * 5) % 7 - 3);
   }
   for (int r = 0; r < MN; r++)
      for (int col = 0; col < MN; col++) {
         float acc = 0.0f;
         for (int k = 0; k < MN; k++)
            acc += a[r * MN + k] * b[k * MN + col];
         want[r * MN + col] = acc;
      }
   cl_device_type type = 0;
   REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_TYPE, sizeof(type), &type, NULL));
   char dir[] = "/tmp/kiln-barrier-loops-XXXXXX";
   bool dump = (type & CL_DEVICE_TYPE_CPU) && mkdtemp(dir);
   if (dump)
      setenv("KILN_DUMP", dir, 1);
   cl_program p = kk_build(env, matmul_source, NULL);
   if (dump)
      unsetenv("KILN_DUMP");
   cl_kernel k = kk_kernel(p, "matmul");
   cl_mem ma = kk_buffer_in(env, sizeof(a), a), mb = kk_buffer_in(env, sizeof(b), b);
   cl_mem mc = kk_buffer_in(env, sizeof(c), NULL);
   cl_int n = MN;
   KK_ARG(k, 0, n);
   KK_ARG(k, 1, ma);
   KK_ARG(k, 2, mb);
   KK_ARG(k, 3, mc);
   size_t global[2] = {MN, MN}, local[2] = {16, 16};
   KK_RUN(env, k, 2, NULL, global, local);
   kk_read(env, mc, sizeof(c), c);
   for (int i = 0; i < MN * MN; i++)
      if (c[i] != want[i]) {
         KT_FAIL("tiled matmul: C[%d] = %g, expected %g", i, (double)c[i], (double)want[i]);
         break;
      }
   if (dump) {
      bool found = false;
      CHECK(kk_each_dumped_ir(dir, "matmul", find_vector_fma, &found) > 0,
            "KILN_DUMP wrote no optimised IR for matmul");
      CHECK(found, "the tiled product's inner loop is not vectorized across work-items");
      char cmd[128];
      snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
      if (system(cmd))
         fprintf(stderr, "could not remove %s\n", dir);
   }
   CHECK_OK(clReleaseMemObject(ma));
   CHECK_OK(clReleaseMemObject(mb));
   CHECK_OK(clReleaseMemObject(mc));
   CHECK_OK(clReleaseKernel(k));
   CHECK_OK(clReleaseProgram(p));
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   prog = kk_build(&env, source, NULL);
   dowhile(&env);
   brk(&env);
   varying_update(&env);
   two_d(&env);
   nested(&env);
   early_ret(&env);
   tiled_matmul(&env);
   CHECK_OK(clReleaseProgram(prog));
   kt_teardown(&env);
   return kt_result();
}
