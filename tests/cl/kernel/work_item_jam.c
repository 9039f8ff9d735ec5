/* Loops that read a row per work-item run in jammed blocks of 8
 * work-items on the CPU device (src/llvm/cpu/wg_jam.c): the blocks run
 * the loop together while every work-item of the block goes on, then each
 * finishes alone.  Every result is checked bit for bit against the host
 * (float sums in the kernel's own order), with trip counts that differ
 * between work-items (0, 1, odd, longer than the others), group sizes
 * that are not a multiple of 8 or smaller than 8, loop tests whose
 * values live on after the loop, a jammed loop inside a loop with
 * barriers, loops behind guards that vary, and 2D groups.  Last, KILN_DUMP's
 * optimised IR of a row sum must show 8 accumulators side by side
 * (vector adds, or 8 scalar chains). */
#include <math.h>
#include <stdint.h>

#include "kk.h"

static const char *source =
   /* Trips (g * 7 + n) % 13: 0 to 12, differing between neighbours. */
   "__kernel void row_sum(__global const float *in, __global float *out, uint n)\n"
   "{\n"
   "  uint g = get_global_id(0);\n"
   "  uint begin = g * 16u, end = begin + (g * 7u + n) % 13u;\n"
   "  float s = 0.5f;\n"
   "  for (uint i = begin; i < end; i++) s += in[i];\n"
   "  out[g] = s;\n"
   "}\n"
   /* The same trip count n in every work-item. */
   "__kernel void dot_rows(__global const float *A, __global const float *x,\n"
   "                       __global float *y, uint n)\n"
   "{\n"
   "  uint r = get_global_id(0);\n"
   "  float s = 0.0f;\n"
   "  for (uint k = 0; k < n; k++) s = fma(A[r * n + k], x[k], s);\n"
   "  y[r] = s;\n"
   "}\n"
   /* A branch inside, integer state, the counter used after the loop. */
   "__kernel void branchy(__global const uint *in, __global uint *out, uint n)\n"
   "{\n"
   "  uint g = get_global_id(0), acc = g, i = g * 16u;\n"
   "  uint end = i + (g % 11u + n) % 16u;\n"
   "  while (i < end) {\n"
   "    uint v = in[i];\n"
   "    if (v & 1u) acc = acc * 3u + v; else acc ^= v << 1;\n"
   "    i++;\n"
   "  }\n"
   "  out[g] = acc + i;\n"
   "}\n"
   /* Values the loop test computes, used in the body and after the
    * loop; trips g % 7 + n % 2. */
   "__kernel void header_values(__global const uint *in, __global uint *out, uint n)\n"
   "{\n"
   "  uint g = get_global_id(0), acc = 1, i = g * 16u, t = 0;\n"
   "  for (; (t = i * 3u + n) < g * 48u + (g % 7u + n % 2u) * 3u + n; i++)\n"
   "    acc = acc * 7u + in[i] + t;\n"
   "  out[g] = acc ^ (t << 8) ^ i;\n"
   "}\n"
   /* The same, with one trip count for every work-item of every other
    * 16 (their blocks end together: wg_jam.c's all_exit) and differing
    * ones in the others. */
   "__kernel void header_values_even(__global const uint *in, __global uint *out, uint n,\n"
   "                                 uint limit)\n"
   "{\n"
   "  uint g = get_global_id(0), acc = limit, i = g * 16u, t = 0;\n"
   "  uint trips = (g / 16u) % 2u ? g % 7u + n % 2u : n % 5u + 1u;\n"
   "  for (; (t = i * 3u + n) < (g * 16u + trips) * 3u + n; i++)\n"
   "    acc = acc * 7u + in[i] + t;\n"
   "  out[g] = acc ^ (t << 8) ^ i;\n"
   "}\n"
   /* Behind a guard that varies: the loop runs for every work-item, and
    * its test fails at once where the guard did (wg_jam.h). */
   "__kernel void guarded(__global const float *in, __global float *out, uint n, uint limit)\n"
   "{\n"
   "  uint g = get_global_id(0);\n"
   "  if (g >= limit) return;\n"
   "  float s = 1.0f;\n"
   "  for (uint i = g * 16u; i < g * 16u + (g * 3u + n) % 11u; i++) s += in[i];\n"
   "  out[g] = s;\n"
   "}\n"
   "__kernel void guarded_else(__global const uint *in, __global uint *out, uint n, uint limit)\n"
   "{\n"
   "  uint g = get_global_id(0), acc = g + limit;\n"
   "  if (g % 3u != 1u) {\n"
   "    for (uint i = g * 16u; i < g * 16u + n % 9u + g % 4u; i++) acc = acc * 5u + in[i];\n"
   "    out[g] = acc;\n"
   "  } else {\n"
   "    out[g] = 7u;\n"
   "  }\n"
   "}\n"
   /* Two guards: the inner one is not reached by every work-item, so the
    * loop is not jammed, but it still runs behind its guard as above. */
   "__kernel void guarded_and(__global const uint *in, __global uint *out, uint n, uint limit)\n"
   "{\n"
   "  uint g = get_global_id(0), acc = g;\n"
   "  if (g % 5u != 2u && g < limit)\n"
   "    for (uint i = g * 16u; i < g * 16u + n % 9u + g % 4u; i++) acc = acc * 3u + in[i];\n"
   "  out[g] = acc;\n"
   "}\n"
   /* A guard inside a branch that varies: the loop runs behind its
    * guard as above, but not every work-item reaches it (not jammed). */
   "__kernel void guarded_nested(__global const uint *in, __global uint *out, uint n,\n"
   "                             uint limit)\n"
   "{\n"
   "  uint g = get_global_id(0);\n"
   "  out[g] = 3u;\n"
   "  if (g & 1u) {\n"
   "    if (g < limit) {\n"
   "      uint acc = g;\n"
   "      for (uint i = g * 16u; i < g * 16u + n % 9u + g % 4u; i++) acc = acc * 3u + in[i];\n"
   "      out[g] = acc;\n"
   "    }\n"
   "  }\n"
   "}\n"
   /* Inside a uniform loop with barriers: the jammed region runs again
    * in every round. */
   "__kernel void outer_rows(__global const float *in, __global float *out, uint n,\n"
   "                         __local float *buf)\n"
   "{\n"
   "  uint g = get_global_id(0), l = get_local_id(0), ls = get_local_size(0);\n"
   "  float acc = 0.0f;\n"
   "  for (uint t = 0; t < 3u; t++) {\n"
   "    float s = 0.0f;\n"
   "    for (uint i = g * 16u; i < g * 16u + (g + t * 5u + n) % 13u; i++) s += in[i];\n"
   "    buf[l] = s;\n"
   "    barrier(CLK_LOCAL_MEM_FENCE);\n"
   "    acc += buf[(l + 1u) % ls];\n"
   "    barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  }\n"
   "  out[g] = acc;\n"
   "}\n"
   /* 2D: rows by the linear global id, a __local tree after the loop. */
   "__kernel void rows_2d(__global const float *in, __global float *out, uint n,\n"
   "                      __local float *buf)\n"
   "{\n"
   "  uint g = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"
   "  uint l = get_local_id(1) * get_local_size(0) + get_local_id(0);\n"
   "  uint ln = get_local_size(0) * get_local_size(1);\n"
   "  uint begin = g * 16u, end = begin + (g * 5u + n) % 17u;\n"
   "  float s = 0.0f;\n"
   "  for (uint i = begin; i < end; i++) s += in[i] - 0.25f;\n"
   "  buf[l] = s;\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  out[g] = s + buf[(l ^ 1u) % ln];\n"
   "}\n";

/* The chunked reduction of bench/kernels.cl: its loop must be jammed. */
static const char *chunked_source =
   "__kernel void chunked(__global const float *in, __global float *out, uint n)\n"
   "{\n"
   "  uint gid = get_global_id(0), gsize = get_global_size(0);\n"
   "  uint chunk = (n + gsize - 1) / gsize;\n"
   "  uint begin = gid * chunk, end = min(begin + chunk, n);\n"
   "  float s = 0.0f;\n"
   "  for (uint i = begin; i < end; i++) s += in[i];\n"
   "  out[gid] = s;\n"
   "}\n";

/* Rows read 8 elements at a time (src/llvm/cpu/wg_jam_wide.h): trip
 * counts base + (g * 5 + n) % span, rows that start 37 elements apart at
 * any alignment; float, double and integer state, the test as <, <= and
 * !=, 32-bit, signed, size_t and ulong counters, 8-, 16-, 32- and 64-bit
 * elements, an index with an offset, two loads per iteration. */
static const char *wide_source =
   "__kernel void wide_f(__global const float *in, __global float *out, uint base, uint span,\n"
   "                     uint n)\n"
   "{\n"
   "  uint g = get_global_id(0);\n"
   "  uint begin = g * 37u + g % 5u, end = begin + base + (g * 5u + n) % span;\n"
   "  float s = 0.25f;\n"
   "  for (uint i = begin; i < end; i++) s += in[i];\n"
   "  out[g] = s;\n"
   "}\n"
   "__kernel void wide_i(__global const int *in, __global uint *out, int base, int span, int n)\n"
   "{\n"
   "  int g = (int)get_global_id(0);\n"
   "  int begin = g * 37 + g % 5, last = begin + base + (g * 5 + n) % span - 1;\n"
   "  uint acc = (uint)g;\n"
   "  for (int i = begin; i <= last; i++) acc = acc * 31u + (uint)in[i];\n"
   "  out[g] = acc;\n"
   "}\n"
   "__kernel void wide_dot(__global const float *a, __global const float *b,\n"
   "                       __global float *out, uint base, uint span, uint n)\n"
   "{\n"
   "  uint g = get_global_id(0);\n"
   "  uint begin = g * 37u, end = begin + base + (g * 5u + n) % span;\n"
   "  float s = 0.0f;\n"
   "  for (uint i = begin; i != end; i++) s = fma(a[i], b[i + 3u * g + 1u], s);\n"
   "  out[g] = s;\n"
   "}\n"
   "__kernel void wide_u16(__global const ushort *in, __global uint *out, uint base, uint span,\n"
   "                       uint n)\n"
   "{\n"
   "  size_t g = get_global_id(0);\n"
   "  size_t begin = g * 37 + 1, end = begin + base + (g * 5 + n) % span;\n"
   "  uint acc = 7u;\n"
   "  for (size_t i = begin; i < end; i++) acc = (acc ^ in[i]) * 0x9E3779B1u;\n"
   "  out[g] = acc;\n"
   "}\n"
   "__kernel void wide_c(__global const uchar *in, __global uint *out, int base, int span, int n)\n"
   "{\n"
   "  int g = (int)get_global_id(0);\n"
   "  int begin = g * 37 + 5, end = begin + base + (g * 5 + n) % span;\n"
   "  uint acc = 1u;\n"
   "  for (int i = begin; i < end; i++) acc = acc * 5u + in[i - 5];\n"
   "  out[g] = acc;\n"
   "}\n"
   "__kernel void wide_l(__global const long *in, __global uint *out, uint base, uint span,\n"
   "                     uint n)\n"
   "{\n"
   "  size_t g = get_global_id(0);\n"
   "  ulong trips = base + ((uint)g * 5u + n) % span, acc = 0;\n"
   "  for (ulong i = 0; i != trips; i++) acc = acc * 3u + (ulong)in[g * 37 + i];\n"
   "  out[g] = (uint)(acc ^ (acc >> 32));\n"
   "}\n";

/* The same with doubles, where the device has them. */
static const char *wide_double_source =
   "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
   "__kernel void wide_d(__global const double *in, __global uint *out, uint base, uint span,\n"
   "                     uint n)\n"
   "{\n"
   "  uint g = get_global_id(0);\n"
   "  uint begin = g * 37u + 2u, end = begin + base + (g * 5u + n) % span;\n"
   "  double s = 0.5;\n"
   "  for (uint i = begin; i < end; i++) s += in[i];\n"
   "  ulong b = as_ulong(s);\n"
   "  out[g] = (uint)(b ^ (b >> 32));\n"
   "}\n";

enum { ITEMS = 20, MAXG = 64 * ITEMS, ROW = 16, MAXN = 40, WIDE_N = MAXG * 41 + 256 };
static const size_t group_sizes[] = {1, 7, 8, 13, 64};
static const cl_uint trips[] = {0, 1, 5, 37};
static cl_program prog;
static float fin[MAXG * ROW + 32];
static cl_uint uin[MAXG * ROW + 32];
static float mat[MAXG * MAXN], vec[MAXN];
static float wa[WIDE_N], wb[WIDE_N];
static cl_int wi[WIDE_N];
static cl_ushort ws[WIDE_N];
static cl_uchar wc[WIDE_N];
static cl_long wl[WIDE_N];
static double wd[WIDE_N];

static float host_row_sum(uint32_t g, uint32_t n)
{
   float s = 0.5f;
   for (uint32_t i = g * 16u; i < g * 16u + (g * 7u + n) % 13u; i++)
      s += fin[i];
   return s;
}

static float host_dot(uint32_t r, uint32_t n)
{
   float s = 0.0f;
   for (uint32_t k = 0; k < n; k++)
      s = fmaf(mat[r * n + k], vec[k], s);
   return s;
}

static uint32_t host_branchy(uint32_t g, uint32_t n)
{
   uint32_t acc = g, i = g * 16u, end = i + (g % 11u + n) % 16u;
   for (; i < end; i++) {
      uint32_t v = uin[i];
      if (v & 1u)
         acc = acc * 3u + v;
      else
         acc ^= v << 1;
   }
   return acc + i;
}

static uint32_t host_header_values(uint32_t g, uint32_t n)
{
   uint32_t acc = 1, i = g * 16u, t;
   for (; (t = i * 3u + n) < g * 48u + (g % 7u + n % 2u) * 3u + n; i++)
      acc = acc * 7u + uin[i] + t;
   return acc ^ (t << 8) ^ i;
}

static uint32_t host_header_values_even(uint32_t g, uint32_t n, uint32_t limit)
{
   uint32_t acc = limit, i = g * 16u, t;
   uint32_t trips = (g / 16u) % 2u ? g % 7u + n % 2u : n % 5u + 1u;
   for (; (t = i * 3u + n) < (g * 16u + trips) * 3u + n; i++)
      acc = acc * 7u + uin[i] + t;
   return acc ^ (t << 8) ^ i;
}

static float host_outer_rows(uint32_t g, uint32_t ls, uint32_t n)
{
   uint32_t l = g % ls, p = g - l + (l + 1u) % ls;
   float acc = 0.0f;
   for (uint32_t t = 0; t < 3u; t++) {
      float s = 0.0f;
      for (uint32_t i = p * 16u; i < p * 16u + (p + t * 5u + n) % 13u; i++)
         s += fin[i];
      acc += s;
   }
   return acc;
}

static float host_guarded(uint32_t g, uint32_t n)
{
   float s = 1.0f;
   for (uint32_t i = g * 16u; i < g * 16u + (g * 3u + n) % 11u; i++)
      s += fin[i];
   return s;
}

static uint32_t host_guarded_else(uint32_t g, uint32_t n, uint32_t limit)
{
   uint32_t acc = g + limit;
   if (g % 3u == 1u)
      return 7u;
   for (uint32_t i = g * 16u; i < g * 16u + n % 9u + g % 4u; i++)
      acc = acc * 5u + uin[i];
   return acc;
}

static uint32_t host_guarded_and(uint32_t g, uint32_t n, uint32_t limit)
{
   uint32_t acc = g;
   if (g % 5u != 2u && g < limit)
      for (uint32_t i = g * 16u; i < g * 16u + n % 9u + g % 4u; i++)
         acc = acc * 3u + uin[i];
   return acc;
}

static uint32_t host_guarded_nested(uint32_t g, uint32_t n, uint32_t limit)
{
   if (!(g & 1u) || g >= limit)
      return 3u;
   uint32_t acc = g;
   for (uint32_t i = g * 16u; i < g * 16u + n % 9u + g % 4u; i++)
      acc = acc * 3u + uin[i];
   return acc;
}

static float host_row_2d(uint32_t g, uint32_t n)
{
   float s = 0.0f;
   for (uint32_t i = g * 16u; i < g * 16u + (g * 5u + n) % 17u; i++)
      s += fin[i] - 0.25f;
   return s;
}

static void check_1d(const struct kt_env *env)
{
   cl_mem mf = kk_buffer_in(env, sizeof(fin), fin), mu = kk_buffer_in(env, sizeof(uin), uin);
   cl_mem mm = kk_buffer_in(env, sizeof(mat), mat), mv = kk_buffer_in(env, sizeof(vec), vec);
   cl_mem out = kk_buffer_in(env, MAXG * sizeof(cl_uint), NULL);
   static const char *const names[] = {"row_sum", "dot_rows", "branchy", "header_values",
                                       "outer_rows", "guarded", "guarded_else", "guarded_and",
                                       "guarded_nested", "header_values_even"};
   for (size_t kn = 0; kn < sizeof(names) / sizeof(names[0]); kn++) {
      cl_kernel k = kk_kernel(prog, names[kn]);
      for (size_t s = 0; s < sizeof(group_sizes) / sizeof(group_sizes[0]); s++)
         for (size_t t = 0; t < sizeof(trips) / sizeof(trips[0]); t++) {
            size_t ls = group_sizes[s], global = ls * ITEMS;
            cl_uint n = trips[t], limit = (cl_uint)global - 3u;
            if (kn == 1) {
               KK_ARG(k, 0, mm);
               KK_ARG(k, 1, mv);
               KK_ARG(k, 2, out);
               KK_ARG(k, 3, n);
            } else {
               cl_mem src = kn == 2 || kn == 3 || kn >= 6 ? mu : mf;
               KK_ARG(k, 0, src);
               KK_ARG(k, 1, out);
               KK_ARG(k, 2, n);
               if (kn == 4)
                  KK_LOCAL(k, 3, ls * sizeof(float));
               if (kn >= 5)
                  KK_ARG(k, 3, limit);
            }
            KK_RUN(env, k, 1, NULL, &global, &ls);
            union {
               float f[MAXG];
               cl_uint u[MAXG];
            } got;
            kk_read(env, out, global * sizeof(cl_uint), &got);
            for (uint32_t g = 0; g < global; g++) {
               union {
                  float f;
                  cl_uint u;
               } want;
               if (kn == 5 && g >= limit)
                  break; /* returned without a store */
               if (kn == 9)
                  want.u = host_header_values_even(g, n, limit);
               else if (kn == 8)
                  want.u = host_guarded_nested(g, n, limit);
               else if (kn == 7)
                  want.u = host_guarded_and(g, n, limit);
               else if (kn == 6)
                  want.u = host_guarded_else(g, n, limit);
               else if (kn == 5)
                  want.f = host_guarded(g, n);
               else if (kn == 4)
                  want.f = host_outer_rows(g, (uint32_t)ls, n);
               else if (kn == 3)
                  want.u = host_header_values(g, n);
               else if (kn == 2)
                  want.u = host_branchy(g, n);
               else
                  want.f = kn ? host_dot(g, n) : host_row_sum(g, n);
               if (got.u[g] != want.u) {
                  KT_FAIL("%s, group size %zu, n %u: item %u = %#x, expected %#x", names[kn], ls,
                          n, g, got.u[g], want.u);
                  break;
               }
            }
         }
      CHECK_OK(clReleaseKernel(k));
   }
   CHECK_OK(clReleaseMemObject(mf));
   CHECK_OK(clReleaseMemObject(mu));
   CHECK_OK(clReleaseMemObject(mm));
   CHECK_OK(clReleaseMemObject(mv));
   CHECK_OK(clReleaseMemObject(out));
}

static void check_2d(const struct kt_env *env)
{
   static const size_t locals[][2] = {{16, 2}, {5, 3}, {8, 1}, {1, 8}};
   cl_mem mf = kk_buffer_in(env, sizeof(fin), fin);
   cl_mem out = kk_buffer_in(env, MAXG * sizeof(float), NULL);
   cl_kernel k = kk_kernel(prog, "rows_2d");
   for (size_t s = 0; s < sizeof(locals) / sizeof(locals[0]); s++)
      for (size_t t = 0; t < sizeof(trips) / sizeof(trips[0]); t++) {
         size_t global[2] = {locals[s][0] * 4, locals[s][1] * 5};
         cl_uint n = trips[t];
         KK_ARG(k, 0, mf);
         KK_ARG(k, 1, out);
         KK_ARG(k, 2, n);
         KK_LOCAL(k, 3, locals[s][0] * locals[s][1] * sizeof(float));
         KK_RUN(env, k, 2, NULL, global, locals[s]);
         float got[MAXG];
         kk_read(env, out, global[0] * global[1] * sizeof(float), got);
         for (uint32_t y = 0; y < global[1]; y++)
            for (uint32_t x = 0; x < global[0]; x++) {
               uint32_t g = y * (uint32_t)global[0] + x;
               /* The partner (l ^ 1) % ln in the group, by linear local id. */
               uint32_t lw = (uint32_t)locals[s][0], ln = lw * (uint32_t)locals[s][1];
               uint32_t lx = x % lw, ly = y % (uint32_t)locals[s][1];
               uint32_t pl = ((ly * lw + lx) ^ 1u) % ln;
               uint32_t px = x - lx + pl % lw, py = y - ly + pl / lw;
               float want = host_row_2d(g, n) + host_row_2d(py * (uint32_t)global[0] + px, n);
               if (memcmp(&got[g], &want, sizeof(want))) {
                  KT_FAIL("rows_2d, local %zux%zu, n %u: item (%u, %u) = %a, expected %a",
                          locals[s][0], locals[s][1], n, x, y, got[g], want);
                  y = (uint32_t)global[1];
                  break;
               }
            }
      }
   CHECK_OK(clReleaseKernel(k));
   CHECK_OK(clReleaseMemObject(mf));
   CHECK_OK(clReleaseMemObject(out));
}

static uint32_t wide_trips(uint32_t g, uint32_t base, uint32_t span, uint32_t n)
{
   return base + (g * 5u + n) % span;
}

/* The host's result of wide kernel kn for work-item g, bits. */
static uint32_t host_wide(unsigned kn, uint32_t g, uint32_t base, uint32_t span, uint32_t n)
{
   uint32_t trips = wide_trips(g, base, span, n), bits;
   if (kn == 0) {
      float s = 0.25f;
      for (uint32_t i = g * 37u + g % 5u, e = i + trips; i < e; i++)
         s += wa[i];
      memcpy(&bits, &s, sizeof(s));
   } else if (kn == 1) {
      uint32_t acc = g;
      for (uint32_t i = g * 37u + g % 5u, e = i + trips; i < e; i++)
         acc = acc * 31u + (uint32_t)wi[i];
      bits = acc;
   } else if (kn == 2) {
      float s = 0.0f;
      for (uint32_t i = g * 37u, e = i + trips; i != e; i++)
         s = fmaf(wa[i], wb[i + 3u * g + 1u], s);
      memcpy(&bits, &s, sizeof(s));
   } else if (kn == 3) {
      uint32_t acc = 7u;
      for (uint32_t i = g * 37u + 1u, e = i + trips; i < e; i++)
         acc = (acc ^ ws[i]) * 0x9E3779B1u;
      bits = acc;
   } else if (kn == 4) {
      uint32_t acc = 1u;
      for (uint32_t i = g * 37u + 5u, e = i + trips; i < e; i++)
         acc = acc * 5u + wc[i - 5];
      bits = acc;
   } else if (kn == 5) {
      uint64_t acc = 0;
      for (uint64_t i = 0; i != trips; i++)
         acc = acc * 3u + (uint64_t)wl[g * 37u + i];
      bits = (uint32_t)(acc ^ (acc >> 32));
   } else {
      double s = 0.5;
      for (uint32_t i = g * 37u + 2u, e = i + trips; i < e; i++)
         s += wd[i];
      uint64_t b;
      memcpy(&b, &s, sizeof(b));
      bits = (uint32_t)(b ^ (b >> 32));
   }
   return bits;
}

static const char *const wide_names[] = {"wide_f", "wide_i", "wide_dot", "wide_u16",
                                         "wide_c", "wide_l", "wide_d"};
enum { WIDE_KERNELS = 6, WIDE_DOUBLE = 6 };

/* The wide kernels kn of p, from `first` to `last`. */
static void check_wide(const struct kt_env *env, cl_program p, unsigned first, unsigned last)
{
   const char *const *names = wide_names;
   /* (base, span): differing trips from 0, from 16 (every block goes on
    * for two rounds, then apart), 64 everywhere (kiln_bench's chunks), 3,
    * 8 and 9 everywhere, 9 to 15.  Groups of 24: a block of 16 and 8
    * work-items left (KILN_JAM_WIDTH=16), or three blocks of 8. */
   static const cl_uint shapes[][2] = {{0, 29}, {16, 13}, {64, 1}, {3, 1}, {8, 1}, {9, 7}};
   static const size_t locals[] = {3, 8, 13, 24, 64};
   cl_mem ma = kk_buffer_in(env, sizeof(wa), wa), mb = kk_buffer_in(env, sizeof(wb), wb);
   cl_mem mi = kk_buffer_in(env, sizeof(wi), wi), ms = kk_buffer_in(env, sizeof(ws), ws);
   cl_mem mc = kk_buffer_in(env, sizeof(wc), wc), ml = kk_buffer_in(env, sizeof(wl), wl);
   cl_mem md = kk_buffer_in(env, sizeof(wd), wd);
   cl_mem out = kk_buffer_in(env, MAXG * sizeof(cl_uint), NULL);
   cl_mem ins[] = {ma, mi, ma, ms, mc, ml, md};
   for (unsigned kn = first; kn <= last; kn++) {
      cl_kernel k = kk_kernel(p, names[kn]);
      bool failed = false;
      for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]) && !failed; sh++)
         for (size_t ls = 0; ls < sizeof(locals) / sizeof(locals[0]) && !failed; ls++)
            for (cl_uint n = 0; n < 10 && !failed; n += 5) {
               size_t global = locals[ls] * ITEMS;
               cl_uint base = shapes[sh][0], span = shapes[sh][1];
               unsigned a = 0;
               KK_ARG(k, a++, ins[kn]);
               if (kn == 2)
                  KK_ARG(k, a++, mb);
               KK_ARG(k, a++, out);
               KK_ARG(k, a++, base);
               KK_ARG(k, a++, span);
               KK_ARG(k, a++, n);
               KK_RUN(env, k, 1, NULL, &global, &locals[ls]);
               cl_uint got[MAXG];
               kk_read(env, out, global * sizeof(cl_uint), got);
               for (uint32_t g = 0; g < global; g++) {
                  uint32_t want = host_wide(kn, g, base, span, n);
                  if (got[g] != want) {
                     KT_FAIL("%s, group size %zu, base %u, span %u, n %u: item %u (%u trips) = "
                             "%#x, expected %#x",
                             names[kn], locals[ls], base, span, n, g,
                             wide_trips(g, base, span, n), got[g], want);
                     failed = true;
                     break;
                  }
               }
            }
      CHECK_OK(clReleaseKernel(k));
   }
   CHECK_OK(clReleaseMemObject(ma));
   CHECK_OK(clReleaseMemObject(mb));
   CHECK_OK(clReleaseMemObject(mi));
   CHECK_OK(clReleaseMemObject(ms));
   CHECK_OK(clReleaseMemObject(mc));
   CHECK_OK(clReleaseMemObject(ml));
   CHECK_OK(clReleaseMemObject(md));
   CHECK_OK(clReleaseMemObject(out));
}

static bool has_fp64(const struct kt_env *env)
{
   char ext[8192] = "";
   CHECK_OK(clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS, sizeof(ext) - 1, ext, NULL));
   return strstr(ext, "cl_khr_fp64") != NULL;
}

static bool is_cpu(const struct kt_env *env)
{
   cl_device_type type = 0;
   CHECK_OK(clGetDeviceInfo(env->device, CL_DEVICE_TYPE, sizeof(type), &type, NULL));
   return type & CL_DEVICE_TYPE_CPU;
}

/* Whether a line defines a float phi; its name into name. */
static bool float_phi(const char *line, char *name, size_t size)
{
   const char *eq = strstr(line, " = phi float ");
   const char *p = strchr(line, '%');
   if (!eq || !p || p > eq || (size_t)(eq - p) >= size)
      return false;
   memcpy(name, p, (size_t)(eq - p));
   name[eq - p] = 0;
   return true;
}

/* Accumulators side by side in one file of optimised IR: a vector fadd,
 * or scalar fadds onto at least 8 different float phis. */
static void find_side_by_side(FILE *f, void *arg)
{
   enum { MAXPHI = 256 };
   static char phis[MAXPHI][32];
   unsigned nphi = 0, vector = 0;
   char line[4096];
   while (fgets(line, sizeof(line), f)) {
      if (nphi < MAXPHI && float_phi(line, phis[nphi], sizeof(phis[0])))
         nphi++;
      vector += strstr(line, " = fadd <") != NULL;
   }
   /* Scalar fadds onto distinct phis. */
   rewind(f);
   bool used[MAXPHI] = {0};
   unsigned chains = 0;
   while (fgets(line, sizeof(line), f)) {
      const char *a = strstr(line, " = fadd float ");
      if (!a)
         continue;
      a += strlen(" = fadd float ");
      for (unsigned k = 0; k < nphi; k++) {
         size_t pl = strlen(phis[k]);
         if (!used[k] && !strncmp(a, phis[k], pl) && a[pl] == ',') {
            used[k] = true;
            chains++;
         }
      }
   }
   *(bool *)arg |= vector > 0 || chains >= 8;
}

/* Accumulators side by side in the optimised IR of kernel (dumped in
 * dir); -1 when there is no such file. */
static int side_by_side(const char *dir, const char *kernel)
{
   bool found = false;
   return kk_each_dumped_ir(dir, kernel, find_side_by_side, &found) > 0 ? found : -1;
}

/* Per work-group function of a dumped file: whether it gathers, and
 * whether it loads rows as vectors (8 elements, or the transposition's
 * halves of 4). */
struct row_loads {
   const char *fn;   /* "__kiln_wg_<kernel>(" */
   bool found, gather, vector;
};

static void find_row_loads(FILE *f, void *arg)
{
   struct row_loads *r = arg;
   char line[4096];
   bool in = false;
   while (kk_next_line_in(f, r->fn, line, sizeof(line), &in)) {
      r->found = true;
      r->gather |= strstr(line, "llvm.masked.gather") != NULL;
      r->vector |= strstr(line, " = load <8 x ") != NULL || strstr(line, " = load <4 x ") != NULL;
   }
}

/* The jammed rows of kernel in the dump of dir read 8 elements at a time
 * (wg_jam_wide.h): vector loads, no gathers. */
static void check_no_gather(const struct kt_env *env, const char *dir, const char *first,
                            const char *kernel)
{
   const char *check = getenv("KILN_CHECK");
   if (!is_cpu(env) || (check && strstr(check, "bounds")))
      return;
   char fn[128];
   snprintf(fn, sizeof(fn), "@__kiln_wg_%s(", kernel);
   struct row_loads r = {.fn = fn};
   CHECK(kk_each_dumped_ir(dir, first, find_row_loads, &r) > 0 && r.found,
         "KILN_DUMP wrote no optimised IR for %s", kernel);
   CHECK(r.vector && !r.gather, "%s: the jammed rows are not read 8 elements at a time "
                                "(vector loads: %d, gathers: %d)", kernel, r.vector, r.gather);
}

static void check_chunked(const struct kt_env *env, const char *dir)
{
   cl_program p = kk_build(env, chunked_source, NULL);
   /* Bounds checks (KILN_CHECK=bounds, the _checked run) put their own
    * code in the loop, which then is not jammed: results only. */
   const char *check = getenv("KILN_CHECK");
   if (is_cpu(env) && !(check && strstr(check, "bounds"))) {
      int m = side_by_side(dir, "chunked");
      CHECK(m >= 0, "KILN_DUMP wrote no optimised IR for chunked");
      CHECK(m != 0, "chunked: the row loop was not jammed (no vector fadd and fewer than 8 "
                    "scalar accumulators in the optimised IR)");
   }
   check_no_gather(env, dir, "chunked", "chunked");
   cl_kernel k = kk_kernel(p, "chunked");
   cl_mem min = kk_buffer_in(env, sizeof(fin), fin);
   enum { G = 256 };
   cl_mem out = kk_buffer_in(env, G * sizeof(float), NULL);
   static const cl_uint sizes[] = {0, 5, 256, 1000, 4096, 4099, MAXG * ROW};
   for (size_t t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++) {
      cl_uint n = sizes[t];
      size_t global = G, local = 64;
      KK_ARG(k, 0, min);
      KK_ARG(k, 1, out);
      KK_ARG(k, 2, n);
      KK_RUN(env, k, 1, NULL, &global, &local);
      float got[G];
      kk_read(env, out, sizeof(got), got);
      cl_uint chunk = (n + G - 1) / G;
      for (cl_uint g = 0; g < G; g++) {
         float want = 0.0f;
         cl_uint end = g * chunk + chunk < n ? g * chunk + chunk : n;
         for (cl_uint i = g * chunk; i < end; i++)
            want += fin[i];
         if (memcmp(&got[g], &want, sizeof(want))) {
            KT_FAIL("chunked, n %u: item %u = %a, expected %a", n, g, got[g], want);
            break;
         }
      }
   }
   CHECK_OK(clReleaseMemObject(min));
   CHECK_OK(clReleaseMemObject(out));
   CHECK_OK(clReleaseKernel(k));
   CHECK_OK(clReleaseProgram(p));
}

int main(void)
{
   /* Values whose float sums depend on the order of the adds. */
   for (size_t i = 0; i < sizeof(fin) / sizeof(fin[0]); i++) {
      fin[i] = (float)((i * 2654435761u) % 1000u) * 0.001f + (i % 7 ? 1e-7f : 1e4f);
      uin[i] = (cl_uint)(i * 2246822519u);
   }
   for (size_t i = 0; i < sizeof(mat) / sizeof(mat[0]); i++)
      mat[i] = (float)((i * 40503u) % 977u) * 0.01f - 3.0f;
   for (size_t i = 0; i < MAXN; i++)
      vec[i] = 1.0f / (float)(i + 3);
   for (size_t i = 0; i < WIDE_N; i++) {
      wa[i] = (float)((i * 2246822519u) % 1013u) * 0.01f + (i % 5 ? 3e-6f : 7e3f);
      wb[i] = (float)((i * 40503u) % 977u) * 0.001f - 0.5f;
      wi[i] = (cl_int)(i * 2654435761u);
      ws[i] = (cl_ushort)(i * 40503u);
      wc[i] = (cl_uchar)(i * 2246822519u >> 13);
      wl[i] = (cl_long)(i * 0x9E3779B97F4A7C15ull);
      wd[i] = (double)((i * 2654435761u) % 1009u) * 1e-3 + (i % 3 ? 1e-12 : 1e9);
   }
   char dir[] = "/tmp/kiln-jam-XXXXXX";
   kk_dump_begin(dir);
   struct kt_env env;
   kt_setup(&env, 0);
   prog = kk_build(&env, source, NULL);
   check_1d(&env);
   check_2d(&env);
   check_chunked(&env, dir);
   cl_program wide = kk_build(&env, wide_source, NULL);
   for (unsigned k = 0; k < WIDE_KERNELS; k++)
      check_no_gather(&env, dir, "wide_f", wide_names[k]);
   check_wide(&env, wide, 0, WIDE_KERNELS - 1);
   CHECK_OK(clReleaseProgram(wide));
   if (has_fp64(&env)) {
      wide = kk_build(&env, wide_double_source, NULL);
      check_no_gather(&env, dir, "wide_d", "wide_d");
      check_wide(&env, wide, WIDE_DOUBLE, WIDE_DOUBLE);
      CHECK_OK(clReleaseProgram(wide));
   }
   CHECK_OK(clReleaseProgram(prog));
   kt_teardown(&env);
   kk_dump_end(dir);
   return kt_result();
}
