/* barrier() and __local memory (OpenCL 1.1 §6.11.9, §3.3): reductions at
 * many work-group sizes, a tiled matrix multiply, barriers in loops, after
 * uniform conditionals and in helper functions, static __local arrays with
 * __local arguments, private state that must survive barriers, 2D groups. */
#include "kk.h"

static const char *source =
   /* Tree reduction for any group size (not only powers of two). */
   "__kernel void reduce(__global const int *in, __global int *out, __local int *s)\n"
   "{\n"
   "  uint l = get_local_id(0), n = get_local_size(0);\n"
   "  s[l] = in[get_global_id(0)];\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  for (uint d = 1; d < n; d <<= 1) {\n"
   "    if ((l & (2 * d - 1)) == 0 && l + d < n) s[l] += s[l + d];\n"
   "    barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  }\n"
   "  if (l == 0) out[get_group_id(0)] = s[0];\n"
   "}\n"
   /* Float reduction the classic way (power-of-two groups), result by
    * every work-item to check they all see the same. */
   "__kernel void reduce_pow2(__global const float *in, __global float *out, __local float *s)\n"
   "{\n"
   "  uint l = get_local_id(0);\n"
   "  s[l] = in[get_global_id(0)];\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  for (uint d = get_local_size(0) / 2; d > 0; d >>= 1) {\n"
   "    if (l < d) s[l] += s[l + d];\n"
   "    barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  }\n"
   "  out[get_global_id(0)] = s[0];\n"
   "}\n"
   "#define TILE 16\n"
   "__kernel void matmul(__global const float *A, __global const float *B, __global float *C,\n"
   "                     int M, int N, int K)\n"
   "{\n"
   "  __local float As[TILE][TILE];\n"
   "  __local float Bs[TILE][TILE];\n"
   "  int tx = get_local_id(0), ty = get_local_id(1);\n"
   "  int col = get_global_id(0), row = get_global_id(1);\n"
   "  float acc = 0.0f;\n"
   "  for (int t = 0; t < K; t += TILE) {\n"
   "    As[ty][tx] = A[row * K + t + tx];\n"
   "    Bs[ty][tx] = B[(t + ty) * N + col];\n"
   "    barrier(CLK_LOCAL_MEM_FENCE);\n"
   "    for (int k = 0; k < TILE; k++) acc += As[ty][k] * Bs[k][tx];\n"
   "    barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  }\n"
   "  C[row * N + col] = acc;\n"
   "}\n"
   /* The same with the tiles as __local arguments and a tile size given at
    * run time (= the local size, square). */
   "__kernel void matmul_args(__global const float *A, __global const float *B,\n"
   "                          __global float *C, int M, int N, int K,\n"
   "                          __local float *As, __local float *Bs)\n"
   "{\n"
   "  int T = get_local_size(0);\n"
   "  int tx = get_local_id(0), ty = get_local_id(1);\n"
   "  int col = get_global_id(0), row = get_global_id(1);\n"
   "  float acc = 0.0f;\n"
   "  for (int t = 0; t < K; t += T) {\n"
   "    As[ty * T + tx] = A[row * K + t + tx];\n"
   "    Bs[ty * T + tx] = B[(t + ty) * N + col];\n"
   "    barrier(CLK_LOCAL_MEM_FENCE);\n"
   "    for (int k = 0; k < T; k++) acc += As[ty * T + k] * Bs[k * T + tx];\n"
   "    barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  }\n"
   "  C[row * N + col] = acc;\n"
   "}\n"
   /* Rotation through __local memory: after `steps` rounds each item holds
    * the value that started `steps` places to its right. */
   "__kernel void rotate_seq(__global int *io, __local int *buf)\n"
   "{\n"
   "  uint l = get_local_id(0), n = get_local_size(0);\n"
   "  int v = io[get_global_id(0)];\n"
   "  buf[l] = v; barrier(CLK_LOCAL_MEM_FENCE); v = buf[(l + 1) % n]; barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  buf[l] = v; barrier(CLK_LOCAL_MEM_FENCE); v = buf[(l + 1) % n]; barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  buf[l] = v; barrier(CLK_LOCAL_MEM_FENCE); v = buf[(l + 1) % n]; barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  buf[l] = v; barrier(CLK_LOCAL_MEM_FENCE); v = buf[(l + 1) % n]; barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  buf[l] = v; barrier(CLK_LOCAL_MEM_FENCE); v = buf[(l + 1) % n];\n"
   "  io[get_global_id(0)] = v;\n"
   "}\n"
   /* Barriers in loops with a uniform trip count (per group), inside
    * uniform conditionals, and after a divergent (barrier-free) branch. */
   "__kernel void loops(__global int *io, __local int *buf, int rounds)\n"
   "{\n"
   "  uint l = get_local_id(0), n = get_local_size(0), g = get_group_id(0);\n"
   "  __local int shared;\n"
   "  int v = io[get_global_id(0)];\n"
   "  if (l == 0) shared = (int)g * 10;\n"
   "  else if (l == n - 1) v += 1;\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  v += shared;\n"
   "  int trips = rounds + (int)(g % 3);\n"
   "  for (int r = 0; r < trips; r++) {\n"
   "    if (r % 2 == 0) {\n"
   "      buf[l] = v;\n"
   "      barrier(CLK_LOCAL_MEM_FENCE);\n"
   "      v = buf[(l + 1) % n] + 1;\n"
   "      barrier(CLK_LOCAL_MEM_FENCE);\n"
   "    } else {\n"
   "      buf[n - 1 - l] = v;\n"
   "      barrier(CLK_LOCAL_MEM_FENCE);\n"
   "      v = buf[l] * 2;\n"
   "      barrier(CLK_LOCAL_MEM_FENCE);\n"
   "    }\n"
   "  }\n"
   "  /* A while loop whose condition is read from __local memory. */\n"
   "  int iter = 0;\n"
   "  if (l == 0) shared = 3;\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  while (shared > 0) {\n"
   "    iter++;\n"
   "    barrier(CLK_LOCAL_MEM_FENCE);\n"
   "    if (l == 0) shared--;\n"
   "    barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  }\n"
   "  io[get_global_id(0)] = v * 4 + iter;\n"
   "}\n"
   /* A barrier inside helper functions, one of them not inlined. */
   "void exchange(__local int *buf, int *v)\n"
   "{\n"
   "  uint l = get_local_id(0), n = get_local_size(0);\n"
   "  buf[l] = *v;\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  *v = buf[n - 1 - l];\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "}\n"
   "__attribute__((noinline)) int sum_group(__local int *buf, int v)\n"
   "{\n"
   "  uint l = get_local_id(0), n = get_local_size(0);\n"
   "  buf[l] = v;\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  int s = 0;\n"
   "  for (uint i = 0; i < n; i++) s += buf[i];\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  return s;\n"
   "}\n"
   "__kernel void helpers(__global int *io, __local int *buf)\n"
   "{\n"
   "  int v = io[get_global_id(0)];\n"
   "  exchange(buf, &v);\n"
   "  int s = sum_group(buf, v);\n"
   "  exchange(buf, &v);\n"
   "  io[get_global_id(0)] = v * 1000 + s;\n"
   "}\n"
   /* Static __local arrays and __local arguments together, each with its
    * own pattern: overlapping allocations show up as wrong sums. */
   "__kernel void mixed_local(__global int *out, __local int *a, __local short *b,\n"
   "                          int n1, int n2, int n3)\n"
   "{\n"
   "  __local int s1[64];\n"
   "  __local char s2[3];\n"
   "  __local long s3[32];\n"
   "  uint l = get_local_id(0), n = get_local_size(0);\n"
   "  /* Run-time bounds (n1 = 64, n2 = 3, n3 = 32) keep the indices from\n"
   "   * becoming constants: see local_constant_index. */\n"
   "  for (uint i = l; i < n1; i += n) s1[i] = 1 + i;\n"
   "  for (uint i = l; i < n3; i += n) s3[i] = 100000 + i;\n"
   "  for (uint i = l; i < n; i += n) { a[i] = 7 * i; b[i] = (short)(3 * i); }\n"
   "  for (uint i = l; i < n2; i += n) s2[i] = (char)(i + 40);\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  long sum = 0;\n"
   "  for (uint i = 0; i < n1; i++) sum += s1[i];\n"
   "  for (uint i = 0; i < n3; i++) sum += s3[i];\n"
   "  for (uint i = 0; i < n; i++) sum += a[i] + b[i];\n"
   "  for (uint i = 0; i < n2; i++) sum += s2[i];\n"
   "  out[get_global_id(0)] = (int)sum;\n"
   "}\n"
   /* Private state across barriers: an array indexed at run time, a
    * vector, a pointer into the array, a loop counter. */
   "__kernel void private_state(__global int *io, __local int *buf)\n"
   "{\n"
   "  uint l = get_local_id(0), n = get_local_size(0), gid = get_global_id(0);\n"
   "  int p[16];\n"
   "  int4 vec = (int4)(gid, gid * 2, gid * 3, gid * 4);\n"
   "  for (int i = 0; i < 16; i++) p[i] = (int)gid * 16 + i;\n"
   "  int *ptr = &p[gid % 16];\n"
   "  int acc = 0;\n"
   "  for (int r = 0; r < 4; r++) {\n"
   "    buf[l] = p[(r * 5 + l) % 16];\n"
   "    barrier(CLK_LOCAL_MEM_FENCE);\n"
   "    acc += buf[(l + r + 1) % n];\n"
   "    barrier(CLK_LOCAL_MEM_FENCE);\n"
   "    p[(r + l) % 16] += r;\n"
   "  }\n"
   "  int s = 0;\n"
   "  for (int i = 0; i < 16; i++) s += p[i];\n"
   "  io[4 * gid] = s; io[4 * gid + 1] = *ptr; io[4 * gid + 2] = acc;\n"
   "  io[4 * gid + 3] = vec.x + vec.y + vec.z + vec.w;\n"
   "}\n"
   /* 2D groups: transpose through a padded __local tile. */
   "__kernel void transpose(__global const int *in, __global int *out, int W, int H)\n"
   "{\n"
   "  __local int tile[16][17];\n"
   "  int lx = get_local_id(0), ly = get_local_id(1);\n"
   "  int x = get_global_id(0), y = get_global_id(1);\n"
   "  tile[ly][lx] = in[y * W + x];\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  int ox = get_group_id(1) * get_local_size(1) + lx;\n"
   "  int oy = get_group_id(0) * get_local_size(0) + ly;\n"
   "  /* Square groups only: the tile's transpose is read back. */\n"
   "  out[oy * H + ox] = tile[lx][ly];\n"
   "}\n"
   /* 2D: every item sums its whole group's inputs from __local memory
    * after two phases separated by barriers. */
   "__kernel void group_sum_2d(__global const int *in, __global int *out, __local int *buf)\n"
   "{\n"
   "  int lx = get_local_id(0), ly = get_local_id(1), w = get_local_size(0), h = get_local_size(1);\n"
   "  int gi = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"
   "  buf[ly * w + lx] = in[gi];\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  int row = 0;\n"
   "  for (int i = 0; i < w; i++) row += buf[ly * w + i];\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  buf[ly * w + lx] = row;\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  int total = 0;\n"
   "  for (int j = 0; j < h; j++) total += buf[j * w + lx];\n"
   "  out[gi] = total;\n"
   "}\n"
   /* A kernel may call another kernel (§6.7.1): the callee's barrier and
    * work-item functions act for the caller's work-items. */
   "__kernel void inner(__global int *o, __local int *t)\n"
   "{\n"
   "  int l = get_local_id(0);\n"
   "  t[l] = get_global_id(0) * 2;\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  o[get_global_id(0)] = t[(l + 1) % get_local_size(0)];\n"
   "}\n"
   "__kernel void outer(__global int *o, __local int *t)\n"
   "{ inner(o, t); o[get_global_id(0)] += 1; }\n"
   /* Returning early after the last barrier (the usual bounds check). */
   "__kernel void early(__global int *o, __local int *t, int n)\n"
   "{\n"
   "  int l = get_local_id(0);\n"
   "  t[l] = l * 5;\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  if (get_global_id(0) >= n) return;\n"
   "  o[get_global_id(0)] = t[get_local_size(0) - 1 - l];\n"
   "}\n"
   /* Communication through global memory inside a group. */
   "__kernel void global_fence(__global int *scratch, __global int *out)\n"
   "{\n"
   "  uint l = get_local_id(0), n = get_local_size(0), base = get_group_id(0) * n;\n"
   "  scratch[base + l] = (int)(base + l) * 3;\n"
   "  barrier(CLK_GLOBAL_MEM_FENCE);\n"
   "  out[base + l] = scratch[base + (l + 1) % n];\n"
   "}\n";

static cl_program prog;

static void reductions(const struct kt_env *env)
{
   cl_kernel k = kk_kernel(prog, "reduce");
   size_t kmax = 0;
   CHECK_OK(clGetKernelWorkGroupInfo(k, env->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(kmax),
                                     &kmax, NULL));
   size_t sizes[] = {1, 2, 3, 7, 16, 33, 64, 100, 256, kmax / 2 + 1, kmax};
   enum { GROUPS = 6 };
   size_t maxn = kmax * GROUPS;
   cl_int *in = malloc(maxn * sizeof(cl_int));
   REQUIRE(in);
   for (size_t i = 0; i < maxn; i++)
      in[i] = (cl_int)((i * 7919) % 2001) - 1000;
   cl_mem min = kk_buffer_in(env, maxn * sizeof(cl_int), in);
   cl_mem mout = kk_buffer_in(env, GROUPS * sizeof(cl_int), NULL);
   KK_ARG(k, 0, min);
   KK_ARG(k, 1, mout);
   for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
      size_t l = sizes[s], g = l * GROUPS;
      if (l > kmax || l == 0)
         continue;
      KK_LOCAL(k, 2, l * sizeof(cl_int));
      cl_int err = kk_run(env, k, 1, NULL, &g, &l);
      if (err != CL_SUCCESS) {
         KT_FAIL("reduce, group %zu: %s", l, kt_err_name(err));
         continue;
      }
      cl_int out[GROUPS];
      kk_read(env, mout, sizeof(out), out);
      for (int gr = 0; gr < GROUPS; gr++) {
         cl_int want = 0;
         for (size_t i = 0; i < l; i++)
            want += in[gr * l + i];
         CHECK(out[gr] == want, " reduce, work-group size %zu: group %d sums to %d, expected %d",
               l, gr, out[gr], want);
      }
   }
   CHECK_OK(clReleaseMemObject(min));
   CHECK_OK(clReleaseMemObject(mout));
   CHECK_OK(clReleaseKernel(k));

   /* Float, powers of two, every item reads the result. */
   k = kk_kernel(prog, "reduce_pow2");
   size_t n = 4096;
   float *fin = malloc(n * sizeof(float)), *fout = malloc(n * sizeof(float));
   REQUIRE(fin && fout);
   for (size_t i = 0; i < n; i++)
      fin[i] = (float)(i % 17) * 0.25f; /* exact sums */
   min = kk_buffer_in(env, n * sizeof(float), fin);
   mout = kk_buffer_in(env, n * sizeof(float), NULL);
   KK_ARG(k, 0, min);
   KK_ARG(k, 1, mout);
   for (size_t l = 1; l <= kmax && l <= n; l *= 2) {
      KK_LOCAL(k, 2, l * sizeof(float));
      KK_RUN(env, k, 1, NULL, &n, &l);
      kk_read(env, mout, n * sizeof(float), fout);
      int bad = 0;
      for (size_t gr = 0; gr < n / l && bad < 4; gr++) {
         float want = 0;
         for (size_t i = 0; i < l; i++)
            want += fin[gr * l + i];
         for (size_t i = 0; i < l; i++)
            if (fout[gr * l + i] != want && bad++ < 4)
               KT_FAIL("reduce_pow2, group size %zu: item %zu reads %g, expected %g", l,
                       gr * l + i, fout[gr * l + i], want);
      }
   }
   free(fin);
   free(fout);
   free(in);
   CHECK_OK(clReleaseMemObject(min));
   CHECK_OK(clReleaseMemObject(mout));
   CHECK_OK(clReleaseKernel(k));
}

static void matmul_ref(const float *A, const float *B, float *C, int M, int N, int K)
{
   for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
         float acc = 0;
         for (int k = 0; k < K; k++)
            acc += A[i * K + k] * B[k * N + j];
         C[i * N + j] = acc;
      }
}

static void matmul_case(const struct kt_env *env, const char *name, int M, int N, int K, int T)
{
   float *A = malloc(sizeof(float) * M * K), *B = malloc(sizeof(float) * K * N),
         *C = malloc(sizeof(float) * M * N), *R = malloc(sizeof(float) * M * N);
   REQUIRE(A && B && C && R);
   /* Small integers: every partial sum is exact, so any order agrees. */
   for (int i = 0; i < M * K; i++)
      A[i] = (float)((i * 37) % 11 - 5);
   for (int i = 0; i < K * N; i++)
      B[i] = (float)((i * 53) % 13 - 6);
   matmul_ref(A, B, R, M, N, K);
   cl_kernel k = kk_kernel(prog, name);
   cl_mem ma = kk_buffer_in(env, sizeof(float) * M * K, A);
   cl_mem mb = kk_buffer_in(env, sizeof(float) * K * N, B);
   cl_mem mc = kk_buffer_in(env, sizeof(float) * M * N, NULL);
   KK_ARG(k, 0, ma);
   KK_ARG(k, 1, mb);
   KK_ARG(k, 2, mc);
   KK_ARG(k, 3, M);
   KK_ARG(k, 4, N);
   KK_ARG(k, 5, K);
   if (!strcmp(name, "matmul_args")) {
      KK_LOCAL(k, 6, sizeof(float) * T * T);
      KK_LOCAL(k, 7, sizeof(float) * T * T);
   }
   size_t g[2] = {(size_t)N, (size_t)M}, l[2] = {(size_t)T, (size_t)T};
   KK_RUN(env, k, 2, NULL, g, l);
   kk_read(env, mc, sizeof(float) * M * N, C);
   int bad = 0;
   for (int i = 0; i < M * N; i++)
      if (C[i] != R[i] && bad++ < 5)
         KT_FAIL("%s %dx%dx%d tile %d: C[%d][%d] = %g, expected %g", name, M, N, K, T, i / N,
                 i % N, C[i], R[i]);
   free(A);
   free(B);
   free(C);
   free(R);
   CHECK_OK(clReleaseMemObject(ma));
   CHECK_OK(clReleaseMemObject(mb));
   CHECK_OK(clReleaseMemObject(mc));
   CHECK_OK(clReleaseKernel(k));
}

static void matmul(const struct kt_env *env)
{
   matmul_case(env, "matmul", 64, 64, 64, 16);
   matmul_case(env, "matmul", 32, 80, 48, 16);
   matmul_case(env, "matmul_args", 48, 32, 80, 8);
   matmul_case(env, "matmul_args", 20, 25, 30, 5);
   matmul_case(env, "matmul_args", 16, 16, 16, 1);
}

/* Runs a 1D kernel (io, local ints) over in and returns the output. */
static void run_io(const struct kt_env *env, const char *name, const cl_int *in, cl_int *out,
                   size_t n, size_t l, size_t lbytes, const cl_int *extra)
{
   cl_kernel k = kk_kernel(prog, name);
   cl_mem m = kk_buffer_in(env, n * sizeof(cl_int), in);
   KK_ARG(k, 0, m);
   KK_LOCAL(k, 1, lbytes);
   if (extra)
      KK_ARG(k, 2, *extra);
   KK_RUN(env, k, 1, NULL, &n, &l);
   kk_read(env, m, n * sizeof(cl_int), out);
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseKernel(k));
}

static void sequences_and_loops(const struct kt_env *env)
{
   enum { N = 480 };
   cl_int in[N], out[N];
   for (int i = 0; i < N; i++)
      in[i] = i * 3 + 1;
   static const size_t ls[] = {1, 5, 16, 60, 96, 240};
   for (size_t t = 0; t < sizeof(ls) / sizeof(ls[0]); t++) {
      size_t l = ls[t];
      run_io(env, "rotate_seq", in, out, N, l, l * sizeof(cl_int), NULL);
      for (int i = 0; i < N; i++) {
         int base = i - i % (int)l, li = i % (int)l;
         int want = in[base + (li + 5) % (int)l];
         if (out[i] != want) {
            KT_FAIL("rotate_seq (5 barrier pairs), group %zu: item %d = %d, expected %d", l, i,
                    out[i], want);
            break;
         }
      }

      cl_int rounds = 3;
      run_io(env, "loops", in, out, N, l, l * sizeof(cl_int), &rounds);
      for (int gbase = 0; gbase < N; gbase += (int)l) {
         int n = (int)l, g = gbase / n;
         int v[512], buf[512];
         for (int li = 0; li < n; li++) {
            v[li] = in[gbase + li];
            if (li != 0 && li == n - 1)
               v[li] += 1;
            v[li] += g * 10;
         }
         int trips = rounds + g % 3;
         for (int r = 0; r < trips; r++) {
            if (r % 2 == 0) {
               for (int li = 0; li < n; li++)
                  buf[li] = v[li];
               for (int li = 0; li < n; li++)
                  v[li] = buf[(li + 1) % n] + 1;
            } else {
               for (int li = 0; li < n; li++)
                  buf[n - 1 - li] = v[li];
               for (int li = 0; li < n; li++)
                  v[li] = buf[li] * 2;
            }
         }
         for (int li = 0; li < n; li++)
            if (out[gbase + li] != v[li] * 4 + 3) {
               KT_FAIL("loops, group size %zu: item %d = %d, expected %d", l, gbase + li,
                       out[gbase + li], v[li] * 4 + 3);
               gbase = N;
               break;
            }
      }

      run_io(env, "helpers", in, out, N, l, l * sizeof(cl_int), NULL);
      for (int gbase = 0; gbase < N; gbase += (int)l) {
         int n = (int)l, s = 0;
         for (int li = 0; li < n; li++)
            s += in[gbase + n - 1 - li];
         for (int li = 0; li < n; li++) {
            int want = in[gbase + li] * 1000 + s;
            if (out[gbase + li] != want) {
               KT_FAIL("helpers (barrier in functions), group size %zu: item %d = %d, "
                       "expected %d", l, gbase + li, out[gbase + li], want);
               gbase = N;
               break;
            }
         }
      }

   }
}

static void private_state(const struct kt_env *env)
{
   enum { N = 240 };
   static const size_t ls[] = {1, 3, 16, 48, 240};
   cl_kernel k = kk_kernel(prog, "private_state");
   cl_mem m = kk_buffer_in(env, 4 * N * sizeof(cl_int), NULL);
   KK_ARG(k, 0, m);
   for (size_t t = 0; t < sizeof(ls) / sizeof(ls[0]); t++) {
      size_t l = ls[t], n = N;
      KK_LOCAL(k, 1, l * sizeof(cl_int));
      KK_RUN(env, k, 1, NULL, &n, &l);
      cl_int out[4 * N];
      kk_read(env, m, sizeof(out), out);
      for (int gbase = 0; gbase < N; gbase += (int)l) {
         int ln = (int)l;
         int p[512][16], acc[512] = {0}, buf[512];
         for (int li = 0; li < ln; li++)
            for (int i = 0; i < 16; i++)
               p[li][i] = (gbase + li) * 16 + i;
         for (int r = 0; r < 4; r++) {
            for (int li = 0; li < ln; li++)
               buf[li] = p[li][(r * 5 + li) % 16];
            for (int li = 0; li < ln; li++)
               acc[li] += buf[(li + r + 1) % ln];
            for (int li = 0; li < ln; li++)
               p[li][(r + li) % 16] += r;
         }
         for (int li = 0; li < ln; li++) {
            int gid = gbase + li, s = 0;
            for (int i = 0; i < 16; i++)
               s += p[li][i];
            int want[4] = {s, p[li][gid % 16], acc[li], gid * 10};
            static const char *what[] = {"sum of the private array", "*ptr", "acc",
                                         "int4 components"};
            for (int f = 0; f < 4; f++)
               if (out[4 * gid + f] != want[f]) {
                  KT_FAIL("private_state, group size %zu: item %d: %s = %d, expected %d", l,
                          gid, what[f], out[4 * gid + f], want[f]);
                  gbase = N;
                  break;
               }
            if (gbase == N)
               break;
         }
      }
   }
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseKernel(k));
}

static void mixed_local(const struct kt_env *env)
{
   cl_kernel k = kk_kernel(prog, "mixed_local");
   enum { N = 192 };
   cl_mem m = kk_buffer_in(env, N * sizeof(cl_int), NULL);
   KK_ARG(k, 0, m);
   static const size_t ls[] = {1, 4, 24, 64, 192};
   for (size_t t = 0; t < sizeof(ls) / sizeof(ls[0]); t++) {
      size_t l = ls[t], n = N;
      KK_LOCAL(k, 1, l * sizeof(cl_int));
      KK_LOCAL(k, 2, l * sizeof(cl_short));
      cl_int n1 = 64, n2 = 3, n3 = 32;
      KK_ARG(k, 3, n1);
      KK_ARG(k, 4, n2);
      KK_ARG(k, 5, n3);
      KK_RUN(env, k, 1, NULL, &n, &l);
      cl_int out[N];
      kk_read(env, m, sizeof(out), out);
      long want = 64 * 65 / 2 + 32 * 100000 + 32 * 31 / 2 + 40 + 41 + 42;
      for (size_t i = 0; i < l; i++)
         want += 7 * (long)i + 3 * (long)i;
      for (int i = 0; i < N; i++)
         if (out[i] != (cl_int)want) {
            KT_FAIL("mixed_local, group %zu: item %d sums %d, expected %ld", l, i, out[i], want);
            break;
         }
   }
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseKernel(k));
}

static void two_d(const struct kt_env *env)
{
   enum { W = 64, H = 48 };
   cl_int in[W * H], out[W * H];
   for (int i = 0; i < W * H; i++)
      in[i] = i * 7 - 1000;
   cl_kernel k = kk_kernel(prog, "transpose");
   cl_mem mi = kk_buffer_in(env, sizeof(in), in), mo = kk_buffer_in(env, sizeof(out), NULL);
   KK_ARG(k, 0, mi);
   KK_ARG(k, 1, mo);
   cl_int w = W, h = H;
   KK_ARG(k, 2, w);
   KK_ARG(k, 3, h);
   static const size_t tiles[] = {1, 4, 8, 16};
   for (size_t t = 0; t < 4; t++) {
      size_t g[2] = {W, H}, l[2] = {tiles[t], tiles[t]};
      KK_RUN(env, k, 2, NULL, g, l);
      kk_read(env, mo, sizeof(out), out);
      int bad = 0;
      for (int y = 0; y < H; y++)
         for (int x = 0; x < W; x++)
            if (out[x * H + y] != in[y * W + x] && bad++ < 3)
               KT_FAIL("transpose, %zux%zu groups: out[%d][%d] = %d, expected %d", l[0], l[1],
                       x, y, out[x * H + y], in[y * W + x]);
   }
   CHECK_OK(clReleaseKernel(k));

   k = kk_kernel(prog, "group_sum_2d");
   KK_ARG(k, 0, mi);
   KK_ARG(k, 1, mo);
   static const size_t shapes[][2] = {{1, 1}, {4, 3}, {16, 6}, {2, 16}, {64, 4}, {8, 48}};
   for (size_t t = 0; t < sizeof(shapes) / sizeof(shapes[0]); t++) {
      size_t g[2] = {W, H}, l[2] = {shapes[t][0], shapes[t][1]};
      KK_LOCAL(k, 2, l[0] * l[1] * sizeof(cl_int));
      KK_RUN(env, k, 2, NULL, g, l);
      kk_read(env, mo, sizeof(out), out);
      int bad = 0;
      for (int y = 0; y < H; y++)
         for (int x = 0; x < W; x++) {
            int gx = x - x % (int)l[0], gy = y - y % (int)l[1], want = 0;
            for (int j = 0; j < (int)l[1]; j++)
               for (int i = 0; i < (int)l[0]; i++)
                  want += in[(gy + j) * W + gx + i];
            if (out[y * W + x] != want && bad++ < 3)
               KT_FAIL("group_sum_2d, %zux%zu groups: item (%d,%d) = %d, expected %d", l[0],
                       l[1], x, y, out[y * W + x], want);
         }
   }
   CHECK_OK(clReleaseMemObject(mi));
   CHECK_OK(clReleaseMemObject(mo));
   CHECK_OK(clReleaseKernel(k));
}

static void global_fence(const struct kt_env *env)
{
   enum { N = 512 };
   cl_kernel k = kk_kernel(prog, "global_fence");
   cl_mem s = kk_buffer_in(env, N * sizeof(cl_int), NULL), o = kk_buffer_in(env, N * sizeof(cl_int), NULL);
   KK_ARG(k, 0, s);
   KK_ARG(k, 1, o);
   static const size_t ls[] = {1, 8, 64, 512};
   for (size_t t = 0; t < 4; t++) {
      size_t n = N, l = ls[t];
      KK_RUN(env, k, 1, NULL, &n, &l);
      cl_int out[N];
      kk_read(env, o, sizeof(out), out);
      for (int i = 0; i < N; i++) {
         int base = i - i % (int)l;
         int want = (base + (i - base + 1) % (int)l) * 3;
         if (out[i] != want) {
            KT_FAIL("global_fence, group %zu: item %d = %d, expected %d", l, i, out[i], want);
            break;
         }
      }
   }
   CHECK_OK(clReleaseMemObject(s));
   CHECK_OK(clReleaseMemObject(o));
   CHECK_OK(clReleaseKernel(k));
}

/* A __local array read or written at a constant index other than 0: the
 * kernel's IR then holds a constant GEP expression of the __local global.
 * Run in a child process: Kiln's compiler used to loop forever on it. */
static int child(const char *name)
{
   struct kt_env env;
   kt_setup(&env, 0);
   static const char *srcs[] = {
      "__kernel void k(__global int *o)\n"
      "{\n"
      "  __local int s[4];\n"
      "  s[get_local_id(0)] = get_local_id(0) * 10;\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  o[get_global_id(0)] = s[1] + s[3];\n"
      "}\n",
      "__kernel void k(__global int *o)\n"
      "{\n"
      "  __local int s[4];\n"
      "  if (get_local_id(0) == 0) { s[1] = 10; s[3] = 30; }\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  o[get_global_id(0)] = s[1] + s[3];\n"
      "}\n",
   };
   int which = atoi(name);
   cl_program p = kk_build(&env, srcs[which], NULL);
   cl_kernel k = kk_kernel(p, "k");
   cl_mem m = kk_buffer_in(&env, 16 * sizeof(cl_int), NULL);
   KK_ARG(k, 0, m);
   size_t g = 16, l = 4;
   KK_RUN(&env, k, 1, NULL, &g, &l);
   cl_int out[16];
   kk_read(&env, m, sizeof(out), out);
   for (int i = 0; i < 16; i++)
      CHECK(out[i] == 40, " local_constant_index %d: out[%d] = %d, expected 40", which, i,
            out[i]);
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseKernel(k));
   CHECK_OK(clReleaseProgram(p));
   kt_teardown(&env);
   return kt_result();
}

static void local_constant_index(void)
{
   static const char *what[] = {"read at s[1], s[3]", "written and read at s[1], s[3]"};
   /* One case only (each hang costs the watchdog's time); child "1" is the
    * store-and-load variant. */
   for (int i = 0; i < 1; i++) {
      char name[8];
      snprintf(name, sizeof(name), "%d", i);
      int st = kk_child(name, 6);
      /* src/llvm/cpu/workgroup.c expand_constant_users: LLVMBuildGEP2 with all
       * constant operands folds back to the same constant expression, so
       * the replacement never happens and the loop never ends. */
      CHECK(st == 0,
                "__local int s[4] %s (constant index into a __local array): child %s (%d)",
                what[i], st == 2 ? "hung in clBuildProgram, watchdog expired" : "failed", st);
   }
}

static void calls_and_returns(const struct kt_env *env)
{
   enum { N = 384 };
   cl_int out[N];
   cl_kernel k = kk_kernel(prog, "outer");
   cl_mem m = kk_buffer_in(env, sizeof(out), NULL);
   KK_ARG(k, 0, m);
   static const size_t ls[] = {1, 8, 96, 384};
   for (size_t t = 0; t < 4; t++) {
      size_t n = N, l = ls[t];
      KK_LOCAL(k, 1, l * sizeof(cl_int));
      KK_RUN(env, k, 1, NULL, &n, &l);
      kk_read(env, m, sizeof(out), out);
      for (int i = 0; i < N; i++) {
         int base = i - i % (int)l;
         int want = (base + (i - base + 1) % (int)l) * 2 + 1;
         if (out[i] != want) {
            KT_FAIL("kernel calling a kernel with a barrier, group %zu: item %d = %d, expected %d",
                    l, i, out[i], want);
            break;
         }
      }
   }
   CHECK_OK(clReleaseKernel(k));

   k = kk_kernel(prog, "early");
   KK_ARG(k, 0, m);
   for (size_t t = 0; t < 4; t++) {
      size_t n = N, l = ls[t];
      cl_int limit = N - 37;
      for (int i = 0; i < N; i++)
         out[i] = -99;
      REQUIRE_OK(clEnqueueWriteBuffer(env->queue, m, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL));
      KK_LOCAL(k, 1, l * sizeof(cl_int));
      KK_ARG(k, 2, limit);
      KK_RUN(env, k, 1, NULL, &n, &l);
      kk_read(env, m, sizeof(out), out);
      for (int i = 0; i < N; i++) {
         int li = i % (int)l;
         int want = i < limit ? ((int)l - 1 - li) * 5 : -99;
         if (out[i] != want) {
            KT_FAIL("return after the last barrier, group %zu: item %d = %d, expected %d", l, i,
                    out[i], want);
            break;
         }
      }
   }
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseKernel(k));
}

int main(int argc, char **argv)
{
   KK_CHILD_MAIN(argc, argv, child);
   struct kt_env env;
   kt_setup(&env, 0);
   prog = kk_build(&env, source, NULL);
   reductions(&env);
   matmul(&env);
   sequences_and_loops(&env);
   private_state(&env);
   mixed_local(&env);
   two_d(&env);
   global_fence(&env);
   calls_and_returns(&env);
   local_constant_index();
   CHECK_OK(clReleaseProgram(prog));
   kt_teardown(&env);
   return kt_result();
}
