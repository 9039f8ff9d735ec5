/* Kernels whose own loops have the same trip count in every work-item
 * run those loops outside the loop over work-items on the CPU device, so
 * that the work-item loop vectorizes (src/llvm/cpu/wg_interchange.c).
 * Each kernel below mixes uniform loop control with per-work-item state
 * in a way the transformation must keep exact (and some must not be
 * transformed at all); every result is checked against the host, at
 * group sizes 1, 7 and 64 and several trip counts.  Last, KILN_DUMP's
 * optimised IR of clpeak's scalar kernel must show a vector fma: the
 * work-item loop around its 128-iteration loop was vectorized. */
#include <stdint.h>

#include "kk.h"

static const char *source =
   "__kernel void recur(__global uint *out, uint n)\n"
   "{\n"
   "  uint l = get_local_id(0), g = get_global_id(0);\n"
   "  uint x = g * 2654435761u, y = l + 1;\n"
   "  for (uint i = 0; i < n; i++) { x = x * 1664525u + y; y ^= x >> 7; }\n"
   "  out[g] = x ^ y;\n"
   "}\n"
   /* A uniform break and a per-work-item continue. */
   "__kernel void brk(__global uint *out, uint n)\n"
   "{\n"
   "  uint g = get_global_id(0), acc = g;\n"
   "  for (uint i = 0; i < n; i++) {\n"
   "    if (i == n / 2 + 1) break;\n"
   "    if ((g + i) % 3 == 0) continue;\n"
   "    acc = acc * 31u + i;\n"
   "  }\n"
   "  out[g] = acc;\n"
   "}\n"
   "__kernel void nested(__global uint *out, uint n)\n"
   "{\n"
   "  uint g = get_global_id(0), acc = 1;\n"
   "  for (uint i = 0; i < n; i++)\n"
   "    for (uint j = 0; j < n % 4 + 1; j++) acc = acc * 3u + (g ^ i) * (j + 1);\n"
   "  out[g] = acc;\n"
   "}\n"
   /* Not uniform: the loop sits in a branch that varies, or its trip
    * count varies. */
   "__kernel void in_branch(__global uint *out, uint n)\n"
   "{\n"
   "  uint g = get_global_id(0), acc = g;\n"
   "  if (get_local_id(0) & 1) { for (uint i = 0; i < n; i++) acc = acc * 7u + i; }\n"
   "  else acc = 5;\n"
   "  out[g] = acc;\n"
   "}\n"
   "__kernel void varying_trip(__global uint *out, uint n)\n"
   "{\n"
   "  uint g = get_global_id(0), acc = g;\n"
   "  for (uint i = 0; i < n + get_local_id(0) % 5; i++) acc = acc * 7u + i;\n"
   "  out[g] = acc;\n"
   "}\n"
   /* A private array indexed at run time, live across iterations. */
   "__kernel void priv(__global uint *out, uint n)\n"
   "{\n"
   "  uint g = get_global_id(0), a[16], acc = 0;\n"
   "  for (uint j = 0; j < 16; j++) a[j] = j + g;\n"
   "  for (uint i = 0; i < n; i++) a[(i * g) & 15] += i;\n"
   "  for (uint j = 0; j < 16; j++) acc = acc * 5u + a[j];\n"
   "  out[g] = acc;\n"
   "}\n"
   /* __local memory written before a barrier, read in the loop. */
   "__kernel void local_read(__global uint *out, uint n, __local uint *buf)\n"
   "{\n"
   "  uint l = get_local_id(0), g = get_global_id(0), s = get_local_size(0), acc = 0;\n"
   "  buf[l] = g * 3u;\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  for (uint i = 0; i < n; i++) acc = acc * 3u + buf[(l + i) % s];\n"
   "  out[g] = acc;\n"
   "}\n"
   /* One work-item stores inside the uniform loop. */
   "__kernel void one_store(__global uint *out, uint n, __global uint *side)\n"
   "{\n"
   "  uint g = get_global_id(0), acc = 0;\n"
   "  for (uint i = 0; i < n; i++) {\n"
   "    if (get_local_id(0) == 0) side[get_group_id(0) * n + i] = i * 3u + g;\n"
   "    acc += i ^ g;\n"
   "  }\n"
   "  out[g] = acc;\n"
   "}\n"
   /* Trip counts that differ between work-items (wg_predicate.c): a
    * GPU-style grid-stride loop whose counter is used after it, one over
    * the group's items before a barrier, and one inside a uniform loop. */
   "__kernel void grid_stride(__global uint *out, uint n)\n"
   "{\n"
   "  uint g = get_global_id(0), gs = get_global_size(0), acc = g, i;\n"
   "  for (i = g; i < n * 97u + 13u; i += gs) acc = acc * 5u + i;\n"
   "  out[g] = acc ^ (i * 3u);\n"
   "}\n"
   "__kernel void stride_local(__global uint *out, uint n, __local uint *buf)\n"
   "{\n"
   "  uint l = get_local_id(0), g = get_global_id(0), s = get_local_size(0), acc = 0;\n"
   "  for (uint i = l; i < n * 3u; i += s) acc += (i * i) ^ g;\n"
   "  buf[l] = acc;\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  out[g] = buf[(l + 1) % s] * 7u + acc;\n"
   "}\n"
   "__kernel void outer_inner(__global uint *out, uint n)\n"
   "{\n"
   "  uint g = get_global_id(0), acc = g;\n"
   "  for (uint j = 0; j < n; j++)\n"
   "    for (uint i = get_local_id(0); i < j * 3u; i += 4u) acc = acc * 3u + i + j;\n"
   "  out[g] = acc;\n"
   "}\n"
   /* A varying trip count with a data-dependent break and an early
    * return: three ways out of the loop. */
   "__kernel void find_first(__global uint *out, uint n)\n"
   "{\n"
   "  uint g = get_global_id(0), gs = get_global_size(0), found = 0xffffffffu, i;\n"
   "  for (i = g; i < n * 41u + 7u; i += gs) {\n"
   "    uint h = (i * 2654435761u) >> 28;\n"
   "    if (h == (g & 15u)) { found = i; break; }\n"
   "    if (h == 15u - (g & 7u) && i > 50u) { out[g] = i * 7u; return; }\n"
   "  }\n"
   "  out[g] = found ^ (i * 3u);\n"
   "}\n"
   /* A work-item value reaching the join after an `&&` guard from two
    * blocks, around a marked loop (wg_remat.c copies it into each). */
   "__kernel void and_guard(__global uint *out, uint n)\n"
   "{\n"
   "  uint g = get_global_id(0), acc = g;\n"
   "  if (g % 5u != 2u && g < n * 11u)\n"
   "    for (uint i = 0; i < n; i++) acc = acc * 3u + (i ^ g);\n"
   "  out[g] = acc;\n"
   "}\n"
   "__kernel void matmul(__global const uint *A, __global const uint *B, __global uint *C,\n"
   "                     uint K)\n"
   "{\n"
   "  uint col = get_global_id(0), row = get_global_id(1), N = get_global_size(0);\n"
   "  uint acc = 0;\n"
   "  for (uint k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];\n"
   "  C[row * N + col] = acc;\n"
   "}\n";

/* clpeak 1.1.2's compute_sp_v1, shortened. */
static const char *sp_source =
   "#define MAD_4(x, y) x = mad(y, x, y); y = mad(x, y, x); x = mad(y, x, y); y = mad(x, y, x);\n"
   "#define MAD_16(x, y) MAD_4(x, y); MAD_4(x, y); MAD_4(x, y); MAD_4(x, y);\n"
   "__kernel void compute_sp_scalar(__global float *ptr, float _A)\n"
   "{\n"
   "  float x = _A, y = (float)get_local_id(0);\n"
   "  for (int i = 0; i < 128; i++) { MAD_16(x, y); }\n"
   "  ptr[get_global_id(0)] = y;\n"
   "}\n";

/* A GPU-style grid-stride sum: each work-item's trip count depends on
 * its id, so the loop runs predicated (wg_predicate.c), with contiguous
 * masked loads across work-items. */
static const char *gs_source =
   "__kernel void gs_sum(__global const float *in, __global float *out, uint n)\n"
   "{\n"
   "  float s = 0.0f;\n"
   "  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) s += in[i];\n"
   "  out[get_global_id(0)] = s;\n"
   "}\n";

enum { N = 448 };
static const size_t group_sizes[] = {1, 7, 64};
static const cl_uint trips[] = {0, 1, 5, 37};
static cl_program prog;

static uint32_t host_kernel(const char *name, uint32_t g, uint32_t l, uint32_t ls, uint32_t n)
{
   uint32_t acc = 0;
   if (!strcmp(name, "recur")) {
      uint32_t x = g * 2654435761u, y = l + 1;
      for (uint32_t i = 0; i < n; i++) {
         x = x * 1664525u + y;
         y ^= x >> 7;
      }
      return x ^ y;
   }
   if (!strcmp(name, "brk")) {
      acc = g;
      for (uint32_t i = 0; i < n && i != n / 2 + 1; i++)
         if ((g + i) % 3)
            acc = acc * 31u + i;
      return acc;
   }
   if (!strcmp(name, "nested")) {
      acc = 1;
      for (uint32_t i = 0; i < n; i++)
         for (uint32_t j = 0; j < n % 4 + 1; j++)
            acc = acc * 3u + (g ^ i) * (j + 1);
      return acc;
   }
   if (!strcmp(name, "in_branch")) {
      if (!(l & 1))
         return 5;
      acc = g;
      for (uint32_t i = 0; i < n; i++)
         acc = acc * 7u + i;
      return acc;
   }
   if (!strcmp(name, "varying_trip")) {
      acc = g;
      for (uint32_t i = 0; i < n + l % 5; i++)
         acc = acc * 7u + i;
      return acc;
   }
   if (!strcmp(name, "priv")) {
      uint32_t a[16];
      for (uint32_t j = 0; j < 16; j++)
         a[j] = j + g;
      for (uint32_t i = 0; i < n; i++)
         a[(i * g) & 15] += i;
      for (uint32_t j = 0; j < 16; j++)
         acc = acc * 5u + a[j];
      return acc;
   }
   if (!strcmp(name, "local_read")) {
      uint32_t base = g - l;
      for (uint32_t i = 0; i < n; i++)
         acc = acc * 3u + (base + (l + i) % ls) * 3u;
      return acc;
   }
   if (!strcmp(name, "grid_stride")) {
      uint32_t i;
      acc = g;
      for (i = g; i < n * 97u + 13u; i += N)
         acc = acc * 5u + i;
      return acc ^ (i * 3u);
   }
   if (!strcmp(name, "stride_local")) {
      uint32_t own = 0, next = 0, ln = (l + 1) % ls;
      for (uint32_t i = l; i < n * 3u; i += ls)
         own += (i * i) ^ g;
      for (uint32_t i = ln; i < n * 3u; i += ls)
         next += (i * i) ^ (g - l + ln);
      return next * 7u + own;
   }
   if (!strcmp(name, "outer_inner")) {
      acc = g;
      for (uint32_t j = 0; j < n; j++)
         for (uint32_t i = l; i < j * 3u; i += 4u)
            acc = acc * 3u + i + j;
      return acc;
   }
   if (!strcmp(name, "find_first")) {
      uint32_t found = 0xffffffffu, i;
      for (i = g; i < n * 41u + 7u; i += N) {
         uint32_t h = (i * 2654435761u) >> 28;
         if (h == (g & 15u)) {
            found = i;
            break;
         }
         if (h == 15u - (g & 7u) && i > 50u)
            return i * 7u;
      }
      return found ^ (i * 3u);
   }
   if (!strcmp(name, "and_guard")) {
      acc = g;
      if (g % 5u != 2u && g < n * 11u)
         for (uint32_t i = 0; i < n; i++)
            acc = acc * 3u + (i ^ g);
      return acc;
   }
   /* one_store */
   for (uint32_t i = 0; i < n; i++)
      acc += i ^ g;
   return acc;
}

static void check_kernel(const struct kt_env *env, const char *name)
{
   for (size_t s = 0; s < sizeof(group_sizes) / sizeof(group_sizes[0]); s++)
      for (size_t t = 0; t < sizeof(trips) / sizeof(trips[0]); t++) {
         size_t ls = group_sizes[s], n = N;
         cl_uint trip = trips[t];
         cl_kernel k = kk_kernel(prog, name);
         cl_mem out = kk_buffer_in(env, N * sizeof(cl_uint), NULL);
         size_t side_size = (N / ls) * (trip ? trip : 1) * sizeof(cl_uint);
         cl_mem side = kk_buffer_in(env, side_size, NULL);
         KK_ARG(k, 0, out);
         KK_ARG(k, 1, trip);
         if (!strcmp(name, "local_read") || !strcmp(name, "stride_local"))
            KK_LOCAL(k, 2, ls * sizeof(cl_uint));
         if (!strcmp(name, "one_store"))
            KK_ARG(k, 2, side);
         KK_RUN(env, k, 1, NULL, &n, &ls);
         cl_uint got[N];
         kk_read(env, out, sizeof(got), got);
         for (uint32_t g = 0; g < N; g++) {
            uint32_t want = host_kernel(name, g, g % (uint32_t)ls, (uint32_t)ls, trip);
            if (got[g] != want) {
               KT_FAIL("%s, group size %zu, %u trips: item %u = %u, expected %u", name, ls,
                       trip, g, got[g], want);
               break;
            }
         }
         if (!strcmp(name, "one_store") && trip) {
            cl_uint *sd = malloc(side_size);
            REQUIRE(sd, "out of memory");
            kk_read(env, side, side_size, sd);
            for (uint32_t grp = 0; grp < N / ls; grp++)
               for (uint32_t i = 0; i < trip; i++)
                  if (sd[grp * trip + i] != i * 3u + grp * (uint32_t)ls) {
                     KT_FAIL("one_store, group size %zu: side[%u] = %u", ls, grp * trip + i,
                             sd[grp * trip + i]);
                     grp = N;
                     break;
                  }
            free(sd);
         }
         CHECK_OK(clReleaseMemObject(side));
         CHECK_OK(clReleaseMemObject(out));
         CHECK_OK(clReleaseKernel(k));
      }
}

static void check_matmul(const struct kt_env *env)
{
   enum { M = 24, K = 19, NC = 40 };
   cl_uint a[M * K], b[K * NC], c[M * NC];
   for (int i = 0; i < M * K; i++)
      a[i] = (cl_uint)(i * 7 + 3);
   for (int i = 0; i < K * NC; i++)
      b[i] = (cl_uint)(i * 13 + 1);
   cl_kernel k = kk_kernel(prog, "matmul");
   cl_mem ma = kk_buffer_in(env, sizeof(a), a), mb = kk_buffer_in(env, sizeof(b), b);
   cl_mem mc = kk_buffer_in(env, sizeof(c), NULL);
   cl_uint kk = K;
   KK_ARG(k, 0, ma);
   KK_ARG(k, 1, mb);
   KK_ARG(k, 2, mc);
   KK_ARG(k, 3, kk);
   size_t global[2] = {NC, M}, local[2] = {8, 3};
   KK_RUN(env, k, 2, NULL, global, local);
   kk_read(env, mc, sizeof(c), c);
   for (int r = 0; r < M; r++)
      for (int col = 0; col < NC; col++) {
         cl_uint want = 0;
         for (int i = 0; i < K; i++)
            want += a[r * K + i] * b[i * NC + col];
         if (c[r * NC + col] != want) {
            KT_FAIL("matmul: C[%d][%d] = %u, expected %u", r, col, c[r * NC + col], want);
            r = M;
            break;
         }
      }
   CHECK_OK(clReleaseMemObject(ma));
   CHECK_OK(clReleaseMemObject(mb));
   CHECK_OK(clReleaseMemObject(mc));
   CHECK_OK(clReleaseKernel(k));
}

static bool vector_fma(const char *line)
{
   return strstr(line, "@llvm.fmuladd.v") || strstr(line, "@llvm.fma.v");
}

static bool fma_512(const char *line)
{
   return strstr(line, "@llvm.fmuladd.v16f32") || strstr(line, "@llvm.fma.v16f32");
}

static bool vector_global_load(const char *line)
{
   return strstr(line, "@llvm.masked.load.v") && strstr(line, "addrspace(1)");
}

/* A per-work-item integer slot stored back in every round: the only
 * integer vectors a predicated round should store are the cleared
 * active flags (zeros); a stepped trip counter would be another. */
static bool stepped_counter(const char *line)
{
   const char *at = strstr(line, "call void @llvm.masked.store.v");
   return at && strstr(at, " x i32> ") && !strstr(at, "zeroinitializer");
}

static bool is_cpu(const struct kt_env *env)
{
   cl_device_type type = 0;
   CHECK_OK(clGetDeviceInfo(env->device, CL_DEVICE_TYPE, sizeof(type), &type, NULL));
   return type & CL_DEVICE_TYPE_CPU;
}

/* The grid-stride sum's work-item loop was vectorized (CPU devices),
 * and the sums are right for bounds that are and are not multiples of
 * the global size. */
static void check_grid_stride_sum(const struct kt_env *env, const char *dir)
{
   cl_program p = kk_build(env, gs_source, NULL);
   /* Only the CPU device's work-group pass interchanges (GPUs run
    * work-items in lanes already). */
   if (is_cpu(env)) {
      int m = kk_dumped_ir_matches(dir, "gs_sum", vector_global_load);
      CHECK(m >= 0, "KILN_DUMP wrote no optimised IR for gs_sum");
      CHECK(m != 0, "gs_sum: the predicated grid-stride loop was not vectorized (no masked "
                    "vector load of global memory in the optimised IR)");
      CHECK(kk_dumped_ir_matches(dir, "gs_sum", stepped_counter) == 0,
            "gs_sum: a round still loads and stores a trip counter per work-item (wg_faint.c)");
   }
   enum { G = 256, MAXN = 4099 };
   static float in[MAXN];
   for (int i = 0; i < MAXN; i++)
      in[i] = (float)(i % 17);
   cl_kernel k = kk_kernel(p, "gs_sum");
   cl_mem min = kk_buffer_in(env, sizeof(in), in);
   cl_mem out = kk_buffer_in(env, G * sizeof(float), NULL);
   static const cl_uint sizes[] = {0, 5, 256, 1000, 4096, 4099};
   for (size_t t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++) {
      cl_uint n = sizes[t];
      KK_ARG(k, 0, min);
      KK_ARG(k, 1, out);
      KK_ARG(k, 2, n);
      size_t global = G, local = 64;
      KK_RUN(env, k, 1, NULL, &global, &local);
      float got[G];
      kk_read(env, out, sizeof(got), got);
      for (cl_uint g = 0; g < G; g++) {
         float want = 0.0f;
         for (cl_uint i = g; i < n; i += G)
            want += in[i];
         if (got[g] != want) {
            KT_FAIL("gs_sum, n %u: item %u = %g, expected %g", n, g, got[g], want);
            break;
         }
      }
   }
   CHECK_OK(clReleaseMemObject(min));
   CHECK_OK(clReleaseMemObject(out));
   CHECK_OK(clReleaseKernel(k));
   CHECK_OK(clReleaseProgram(p));
}

/* The scalar kernel's optimised IR, as KILN_DUMP left it, has vector
 * fmas; and the kernel computes what the host does. */
static void check_vectorized(const struct kt_env *env, const char *dir)
{
   cl_program p = kk_build(env, sp_source, NULL);
   if (is_cpu(env)) {
      int m = kk_dumped_ir_matches(dir, "compute_sp_scalar", vector_fma);
      CHECK(m >= 0, "KILN_DUMP wrote no optimised IR for compute_sp_scalar");
      CHECK(m != 0, "clpeak's scalar kernel: the work-item loop around its own loop was not "
                    "vectorized (no vector fma in the optimised IR)");
      /* 512-bit vectors where the CPU has them (KILN_CPU_VECTOR_WIDTH's
       * default), as its float16 code gets. */
      const char *w = getenv("KILN_CPU_VECTOR_WIDTH");
      if (__builtin_cpu_supports("avx512f") && (!w || strcmp(w, "256")))
         CHECK(kk_dumped_ir_matches(dir, "compute_sp_scalar", fma_512) == 1,
               "clpeak's scalar kernel: no 16-wide fma on an AVX-512 CPU");
   }
   enum { G = 128 };
   cl_kernel k = kk_kernel(p, "compute_sp_scalar");
   cl_mem out = kk_buffer_in(env, G * sizeof(float), NULL);
   float a = 0.25f;
   KK_ARG(k, 0, out);
   KK_ARG(k, 1, a);
   size_t global = G, local = 32;
   KK_RUN(env, k, 1, NULL, &global, &local);
   float got[G];
   kk_read(env, out, sizeof(got), got);
   for (int g = 0; g < G; g++) {
      /* Values saturate to inf or NaN within a few steps except for
       * y = 0 (work-item 0 of each group): x stays 0.25 * 0 + 0 = 0. */
      float x = a, y = (float)(g % 32);
      for (int i = 0; i < 128 * 16; i++) {
         x = y * x + y;
         y = x * y + x;
      }
      bool same = (isnan(got[g]) && isnan(y)) || got[g] == y;
      if (!same) {
         KT_FAIL("compute_sp_scalar: item %d = %g, expected %g", g, got[g], y);
         break;
      }
   }
   CHECK_OK(clReleaseMemObject(out));
   CHECK_OK(clReleaseKernel(k));
   CHECK_OK(clReleaseProgram(p));
}

int main(void)
{
   char dir[] = "/tmp/kiln-interchange-XXXXXX";
   kk_dump_begin(dir);
   struct kt_env env;
   kt_setup(&env, 0);
   prog = kk_build(&env, source, NULL);
   static const char *const names[] = {"recur", "brk", "nested", "in_branch", "varying_trip",
                                       "priv", "local_read", "one_store", "grid_stride",
                                       "stride_local", "outer_inner", "find_first",
                                       "and_guard"};
   for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
      check_kernel(&env, names[i]);
   check_matmul(&env);
   check_vectorized(&env, dir);
   check_grid_stride_sum(&env, dir);
   CHECK_OK(clReleaseProgram(prog));
   kt_teardown(&env);
   kk_dump_end(dir);
   return kt_result();
}
