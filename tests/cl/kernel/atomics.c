/* Atomic functions (OpenCL 1.1 §6.11.11) on global and local int/uint,
 * with contention from many work-items and work-groups at once, the
 * cl_khr_{global,local}_int32_{base,extended}_atomics atom_* names, and
 * cl_khr_int64_{base,extended}_atomics on long and ulong where the device
 * reports them. */
#include "kk.h"

#define N 65536
#define L 256 /* work-group size for the local tests */

static const char *source =
   "__kernel void g_ops(__global int *c, __global int *ret, __global uint *uc)\n"
   "{\n"
   "  int i = get_global_id(0);\n"
   "  atomic_add(&c[0], i);\n"
   "  atomic_sub(&c[1], i);\n"
   "  ret[i] = atomic_inc(&c[2]);\n"
   "  atomic_dec(&c[3]);\n"
   "  atomic_min(&c[4], (i * 7919) % 100003 - 50000);\n"
   "  atomic_max(&c[5], (i * 7919) % 100003 - 50000);\n"
   "  atomic_or(&c[6], 1 << (i % 31));\n"
   "  atomic_and(&c[7], ~(1 << (i % 29)));\n"
   "  atomic_xor(&c[8], i);\n"
   "  /* A lock-free increment through compare-and-swap. */\n"
   "  int old = c[9], seen;\n"
   "  while ((seen = atomic_cmpxchg(&c[9], old, old + 2)) != old) old = seen;\n"
   "  /* Unsigned min/max compare as unsigned. */\n"
   "  atomic_max(&uc[0], (uint)i * 65537u);\n"
   "  atomic_min(&uc[1], 0xffffffffu - (uint)i);\n"
   "  atomic_add(&uc[2], 0x10000u);\n"
   "}\n"
   /* xchg: every item swaps its id in; the returned values plus the final
    * one are each id exactly once, plus the initial value. */
   "__kernel void g_xchg(__global int *c, __global int *ret)\n"
   "{ int i = get_global_id(0); ret[i] = atomic_xchg(&c[0], i); }\n"
   "__kernel void g_xchg_f(__global float *c, __global float *ret)\n"
   "{ int i = get_global_id(0); ret[i] = atomic_xchg(&c[0], (float)i + 0.5f); }\n"
   /* cmpxchg semantics: stores only when equal, returns the old value. */
   "__kernel void cmpxchg_sem(__global int *c, __global int *r)\n"
   "{\n"
   "  r[0] = atomic_cmpxchg(&c[0], 5, 9);  /* c[0] = 5: swaps */\n"
   "  r[1] = atomic_cmpxchg(&c[1], 5, 9);  /* c[1] = 6: does not */\n"
   "  r[2] = c[0]; r[3] = c[1];\n"
   "}\n"
   /* The counters are a __local argument: a static __local array indexed
    * by constants hangs Kiln's compiler (see static_local_child). */
   "__kernel void l_ops(__global int *out, __global int *tickets, __local int *c)\n"
   "{\n"
   "  int l = get_local_id(0), g = get_group_id(0);\n"
   "  if (l == 0) {\n"
   "    c[0] = 0; c[1] = 0; c[2] = 0; c[3] = 1000; c[4] = INT_MAX; c[5] = INT_MIN;\n"
   "    c[6] = 0; c[7] = -1; c[8] = 0; c[9] = 0;\n"
   "  }\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  int v = (l * 37 + g * 11) % 101 - 50;\n"
   "  atomic_add(&c[0], v);\n"
   "  atomic_sub(&c[1], l);\n"
   "  tickets[get_global_id(0)] = atomic_inc(&c[2]);\n"
   "  atomic_dec(&c[3]);\n"
   "  atomic_min(&c[4], v);\n"
   "  atomic_max(&c[5], v);\n"
   "  atomic_or(&c[6], 1 << (l % 31));\n"
   "  atomic_and(&c[7], ~(1 << (l % 13)));\n"
   "  int old = c[9], seen;\n"
   "  while ((seen = atomic_cmpxchg(&c[9], old, old + 3)) != old) old = seen;\n"
   "  atomic_xchg(&c[8], l == 17 ? 17 : c[8]);\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  if (l < 10) out[g * 10 + l] = c[l];\n"
   "}\n"
   "#pragma OPENCL EXTENSION cl_khr_global_int32_base_atomics : enable\n"
   "#pragma OPENCL EXTENSION cl_khr_global_int32_extended_atomics : enable\n"
   "#pragma OPENCL EXTENSION cl_khr_local_int32_base_atomics : enable\n"
   "#pragma OPENCL EXTENSION cl_khr_local_int32_extended_atomics : enable\n"
   "__kernel void atom_ops(__global int *c, __global int *ret, __global int *lout,\n"
   "                       __local int *lc)\n"
   "{\n"
   "  int i = get_global_id(0), l = get_local_id(0);\n"
   "  if (l == 0) { lc[0] = 0; lc[1] = 0; lc[2] = INT_MAX; lc[3] = 0; }\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  atom_add(&c[0], 3);\n"
   "  ret[i] = atom_inc(&c[1]);\n"
   "  atom_min(&c[2], -i);\n"
   "  atom_max(&c[3], i);\n"
   "  int old = c[4], seen;\n"
   "  while ((seen = atom_cmpxchg(&c[4], old, old + 1)) != old) old = seen;\n"
   "  atom_xchg(&c[5], 42);\n"
   "  atom_add(&lc[0], 2);\n"
   "  atom_inc(&lc[1]);\n"
   "  atom_min(&lc[2], l);\n"
   "  atom_or(&lc[3], 1 << (l & 15));\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  if (l < 4) lout[get_group_id(0) * 4 + l] = lc[l];\n"
   "}\n";

static bool has_ext(const struct kt_env *env, const char *ext)
{
   char buf[4096] = "";
   CHECK_OK(clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS, sizeof(buf), buf, NULL));
   return strstr(buf, ext) != NULL;
}

static void global_ops(const struct kt_env *env, cl_program p)
{
   cl_kernel k = kk_kernel(p, "g_ops");
   cl_int c[10] = {0, 0, 0, 0, INT32_MAX, INT32_MIN, 0, -1, 0, 0};
   cl_uint uc[3] = {0, 0xffffffffu, 0};
   cl_int *ret = malloc(N * sizeof(cl_int));
   REQUIRE(ret);
   cl_mem mc = kk_buffer_in(env, sizeof(c), c), mr = kk_buffer_in(env, N * sizeof(cl_int), NULL),
          mu = kk_buffer_in(env, sizeof(uc), uc);
   KK_ARG(k, 0, mc);
   KK_ARG(k, 1, mr);
   KK_ARG(k, 2, mu);
   size_t g = N, l = 64;
   KK_RUN(env, k, 1, NULL, &g, &l);
   kk_read(env, mc, sizeof(c), c);
   kk_read(env, mr, N * sizeof(cl_int), ret);
   kk_read(env, mu, sizeof(uc), uc);
   int64_t sum = (int64_t)N * (N - 1) / 2;
   int mn = INT32_MAX, mx = INT32_MIN, orv = 0, andv = -1, xorv = 0;
   for (int i = 0; i < N; i++) {
      int v = (int)(((int64_t)i * 7919) % 100003) - 50000;
      mn = v < mn ? v : mn;
      mx = v > mx ? v : mx;
      orv |= 1 << (i % 31);
      andv &= ~(1 << (i % 29));
      xorv ^= i;
   }
   CHECK(c[0] == (cl_int)(uint32_t)sum, " atomic_add: %d, expected %d", c[0], (cl_int)(uint32_t)sum);
   CHECK(c[1] == (cl_int)(uint32_t)-sum, " atomic_sub: %d", c[1]);
   CHECK(c[2] == N, " atomic_inc: %d, expected %d", c[2], N);
   CHECK(c[3] == -N, " atomic_dec: %d, expected %d", c[3], -N);
   CHECK(c[4] == mn, " atomic_min: %d, expected %d", c[4], mn);
   CHECK(c[5] == mx, " atomic_max: %d, expected %d", c[5], mx);
   CHECK(c[6] == orv, " atomic_or: 0x%x, expected 0x%x", c[6], orv);
   CHECK(c[7] == andv, " atomic_and: 0x%x, expected 0x%x", c[7], andv);
   CHECK(c[8] == xorv, " atomic_xor: 0x%x, expected 0x%x", c[8], xorv);
   CHECK(c[9] == 2 * N, " atomic_cmpxchg loop: %d, expected %d", c[9], 2 * N);
   CHECK(uc[0] == (cl_uint)(N - 1) * 65537u, " atomic_max(uint): 0x%x, expected 0x%x", uc[0],
         (cl_uint)(N - 1) * 65537u);
   CHECK(uc[1] == 0xffffffffu - (N - 1), " atomic_min(uint): 0x%x", uc[1]);
   CHECK(uc[2] == (cl_uint)N * 0x10000u, " atomic_add(uint) wraps: 0x%x", uc[2]);
   /* atomic_inc hands out each ticket once. */
   unsigned char *seen = calloc(N, 1);
   REQUIRE(seen);
   int dup = 0;
   for (int i = 0; i < N; i++) {
      if (ret[i] < 0 || ret[i] >= N || seen[ret[i]]++) {
         if (dup++ < 3)
            KT_FAIL("atomic_inc returned %d to item %d (duplicate or out of range)", ret[i], i);
      }
   }
   free(seen);
   CHECK_OK(clReleaseKernel(k));

   /* xchg chain */
   k = kk_kernel(p, "g_xchg");
   cl_int init = -7;
   REQUIRE_OK(clEnqueueWriteBuffer(env->queue, mc, CL_TRUE, 0, sizeof(init), &init, 0, NULL, NULL));
   KK_ARG(k, 0, mc);
   KK_ARG(k, 1, mr);
   KK_RUN(env, k, 1, NULL, &g, NULL);
   kk_read(env, mc, sizeof(c), c);
   kk_read(env, mr, N * sizeof(cl_int), ret);
   seen = calloc(N + 1, 1);
   REQUIRE(seen);
   seen[c[0] >= 0 && c[0] < N ? c[0] : N]++;
   int bad = 0;
   for (int i = 0; i < N; i++) {
      int v = ret[i] == -7 ? N : ret[i];
      if (v < 0 || v > N || seen[v]++)
         if (bad++ < 3)
            KT_FAIL("atomic_xchg: value %d seen twice or out of range", ret[i]);
   }
   for (int v = 0; v <= N; v++)
      if (seen[v] != 1 && bad++ < 3)
         KT_FAIL("atomic_xchg: value %d seen %d times", v == N ? -7 : v, seen[v]);
   free(seen);
   CHECK_OK(clReleaseKernel(k));

   /* float xchg, fewer items. */
   k = kk_kernel(p, "g_xchg_f");
   float finit = -1.0f, fc;
   float *fret = malloc(1024 * sizeof(float));
   REQUIRE(fret);
   REQUIRE_OK(clEnqueueWriteBuffer(env->queue, mc, CL_TRUE, 0, sizeof(finit), &finit, 0, NULL, NULL));
   KK_ARG(k, 0, mc);
   KK_ARG(k, 1, mr);
   size_t gf = 1024;
   KK_RUN(env, k, 1, NULL, &gf, NULL);
   REQUIRE_OK(clEnqueueReadBuffer(env->queue, mc, CL_TRUE, 0, sizeof(fc), &fc, 0, NULL, NULL));
   REQUIRE_OK(clEnqueueReadBuffer(env->queue, mr, CL_TRUE, 0, 1024 * sizeof(float), fret, 0, NULL,
                                  NULL));
   double total = fc;
   for (int i = 0; i < 1024; i++)
      total += fret[i];
   double want = -1.0;
   for (int i = 0; i < 1024; i++)
      want += i + 0.5;
   CHECK(total == want, " atomic_xchg(float): values sum to %g, expected %g", total, want);
   free(fret);
   CHECK_OK(clReleaseKernel(k));

   k = kk_kernel(p, "cmpxchg_sem");
   cl_int cs[2] = {5, 6}, r[4];
   REQUIRE_OK(clEnqueueWriteBuffer(env->queue, mc, CL_TRUE, 0, sizeof(cs), cs, 0, NULL, NULL));
   KK_ARG(k, 0, mc);
   KK_ARG(k, 1, mr);
   size_t one = 1;
   KK_RUN(env, k, 1, NULL, &one, NULL);
   REQUIRE_OK(clEnqueueReadBuffer(env->queue, mr, CL_TRUE, 0, sizeof(r), r, 0, NULL, NULL));
   CHECK(r[0] == 5 && r[2] == 9, " cmpxchg(5 == 5): returned %d, stored %d", r[0], r[2]);
   CHECK(r[1] == 6 && r[3] == 6, " cmpxchg(6 != 5): returned %d, left %d", r[1], r[3]);
   CHECK_OK(clReleaseKernel(k));

   free(ret);
   CHECK_OK(clReleaseMemObject(mc));
   CHECK_OK(clReleaseMemObject(mr));
   CHECK_OK(clReleaseMemObject(mu));
}

static void local_ops(const struct kt_env *env, cl_program p)
{
   enum { G = 64 };
   cl_kernel k = kk_kernel(p, "l_ops");
   cl_int out[G * 10];
   cl_int *tickets = malloc(G * L * sizeof(cl_int));
   REQUIRE(tickets);
   cl_mem mo = kk_buffer_in(env, sizeof(out), NULL), mt = kk_buffer_in(env, G * L * sizeof(cl_int), NULL);
   KK_ARG(k, 0, mo);
   KK_ARG(k, 1, mt);
   KK_LOCAL(k, 2, 10 * sizeof(cl_int));
   size_t g = G * L, l = L;
   KK_RUN(env, k, 1, NULL, &g, &l);
   kk_read(env, mo, sizeof(out), out);
   kk_read(env, mt, G * L * sizeof(cl_int), tickets);
   for (int gr = 0; gr < G; gr++) {
      int sum = 0, mn = INT32_MAX, mx = INT32_MIN, orv = 0, andv = -1;
      for (int li = 0; li < L; li++) {
         int v = (li * 37 + gr * 11) % 101 - 50;
         sum += v;
         mn = v < mn ? v : mn;
         mx = v > mx ? v : mx;
         orv |= 1 << (li % 31);
         andv &= ~(1 << (li % 13));
      }
      const cl_int *c = out + gr * 10;
      int want[10] = {sum, -(L * (L - 1) / 2), L, 1000 - L, mn, mx, orv, andv, c[8], 3 * L};
      static const char *what[] = {"atomic_add", "atomic_sub", "atomic_inc", "atomic_dec",
                                   "atomic_min", "atomic_max", "atomic_or", "atomic_and",
                                   "atomic_xchg", "atomic_cmpxchg loop"};
      for (int f = 0; f < 10; f++)
         CHECK(c[f] == want[f], " local %s, group %d: %d, expected %d", what[f], gr, c[f], want[f]);
      unsigned char seen[L] = {0};
      for (int li = 0; li < L; li++) {
         int t = tickets[gr * L + li];
         if (t < 0 || t >= L || seen[t]++) {
            KT_FAIL("local atomic_inc, group %d: ticket %d handed out twice or out of range", gr, t);
            break;
         }
      }
   }
   free(tickets);
   CHECK_OK(clReleaseMemObject(mo));
   CHECK_OK(clReleaseMemObject(mt));
   CHECK_OK(clReleaseKernel(k));
}

static void atom_names(const struct kt_env *env, cl_program p)
{
   bool base = has_ext(env, "cl_khr_global_int32_base_atomics") &&
               has_ext(env, "cl_khr_local_int32_base_atomics");
   bool ext = has_ext(env, "cl_khr_global_int32_extended_atomics") &&
              has_ext(env, "cl_khr_local_int32_extended_atomics");
   CHECK(base && ext, " the CPU device should advertise the 1.0 int32 atomics extensions");
   if (!base || !ext)
      return;
   enum { G = 32, LS = 128, NA = G * LS };
   cl_kernel k = kk_kernel(p, "atom_ops");
   cl_int c[6] = {0, 0, 0, INT32_MIN, 0, 0}, lout[G * 4];
   cl_int *ret = malloc(NA * sizeof(cl_int));
   REQUIRE(ret);
   cl_mem mc = kk_buffer_in(env, sizeof(c), c), mr = kk_buffer_in(env, NA * sizeof(cl_int), NULL),
          ml = kk_buffer_in(env, sizeof(lout), NULL);
   KK_ARG(k, 0, mc);
   KK_ARG(k, 1, mr);
   KK_ARG(k, 2, ml);
   KK_LOCAL(k, 3, 4 * sizeof(cl_int));
   size_t g = NA, l = LS;
   KK_RUN(env, k, 1, NULL, &g, &l);
   kk_read(env, mc, sizeof(c), c);
   kk_read(env, mr, NA * sizeof(cl_int), ret);
   kk_read(env, ml, sizeof(lout), lout);
   CHECK(c[0] == 3 * NA, " atom_add: %d", c[0]);
   CHECK(c[1] == NA, " atom_inc: %d", c[1]);
   CHECK(c[2] == -(NA - 1), " atom_min: %d", c[2]);
   CHECK(c[3] == NA - 1, " atom_max: %d", c[3]);
   CHECK(c[4] == NA, " atom_cmpxchg loop: %d", c[4]);
   CHECK(c[5] == 42, " atom_xchg: %d", c[5]);
   long long tsum = 0;
   for (int i = 0; i < NA; i++)
      tsum += ret[i];
   CHECK(tsum == (long long)NA * (NA - 1) / 2, " atom_inc tickets sum to %lld", tsum);
   for (int gr = 0; gr < G; gr++)
      CHECK(lout[4 * gr] == 2 * LS && lout[4 * gr + 1] == LS && lout[4 * gr + 2] == 0 &&
               lout[4 * gr + 3] == 0xffff,
            " local atom_*, group %d: add %d inc %d min %d or 0x%x", gr, lout[4 * gr],
            lout[4 * gr + 1], lout[4 * gr + 2], lout[4 * gr + 3]);
   free(ret);
   CHECK_OK(clReleaseMemObject(mc));
   CHECK_OK(clReleaseMemObject(mr));
   CHECK_OK(clReleaseMemObject(ml));
   CHECK_OK(clReleaseKernel(k));
}

/* 64-bit atom_*: every function, global and local, with values that
 * carry into the high word, so that a 32-bit operation cannot pass. */
static const char *source64 =
   "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
   "#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\n"
   "__kernel void k(__global long *c, __global ulong *u, __global long *lout,\n"
   "                __local long *lc)\n"
   "{\n"
   "  long i = get_global_id(0), l = get_local_id(0);\n"
   "  if (l == 0) { lc[0] = 0; lc[1] = LONG_MAX; lc[2] = 0; lc[3] = 0; }\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  atom_add(&c[0], 0x100000001L);\n"
   "  atom_sub(&c[1], 0x100000000L);\n"
   "  atom_inc(&c[2]);\n"
   "  atom_dec(&c[3]);\n"
   "  atom_min(&c[4], -(i << 33));\n"
   "  atom_max(&c[5], i << 33);\n"
   "  atom_or(&c[6], 1L << (32 + (i & 31)));\n"
   "  atom_and(&c[7], ~(1L << (40 + (i & 7))));\n"
   "  atom_xor(&c[8], i << 32);\n"
   "  long old = c[9], seen;\n"
   "  while ((seen = atom_cmpxchg(&c[9], old, old + 0x100000000L)) != old) old = seen;\n"
   "  atom_xchg(&c[10], 0x123456789abL);\n"
   "  atom_max(&u[0], (ulong)i << 48);  /* unsigned: above LONG_MAX */\n"
   "  atom_min(&u[1], ~((ulong)i << 40));\n"
   "  atom_add(&lc[0], 0x100000000L);\n"
   "  atom_min(&lc[1], l << 34);\n"
   "  atom_or(&lc[2], 1L << (32 + (l & 31)));\n"
   "  atom_inc(&lc[3]);\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  if (l < 4) lout[get_group_id(0) * 4 + l] = lc[l];\n"
   "}\n";

static void int64_atoms(const struct kt_env *env)
{
   if (!has_ext(env, "cl_khr_int64_base_atomics") ||
       !has_ext(env, "cl_khr_int64_extended_atomics")) {
      printf("64-bit atomics: not reported by this device, skipped\n");
      return;
   }
   enum { G = 16, LS = 64, NA = G * LS };
   cl_program p = kk_build(env, source64, NULL);
   cl_kernel k = kk_kernel(p, "k");
   cl_long c[11] = {0, 0, 0, 0, 0, INT64_MIN, 0, -1, 0, 0, 0}, lout[G * 4];
   cl_ulong u[2] = {0, UINT64_MAX};
   cl_mem mc = kk_buffer_in(env, sizeof(c), c), mu = kk_buffer_in(env, sizeof(u), u),
          ml = kk_buffer_in(env, sizeof(lout), NULL);
   KK_ARG(k, 0, mc);
   KK_ARG(k, 1, mu);
   KK_ARG(k, 2, ml);
   KK_LOCAL(k, 3, 4 * sizeof(cl_long));
   size_t g = NA, l = LS;
   KK_RUN(env, k, 1, NULL, &g, &l);
   kk_read(env, mc, sizeof(c), c);
   kk_read(env, mu, sizeof(u), u);
   kk_read(env, ml, sizeof(lout), lout);
   cl_long x = 0;
   for (cl_long i = 0; i < NA; i++)
      x ^= i << 32;
   const cl_long want[11] = {NA * 0x100000001LL, -NA * 0x100000000LL, NA, -NA,
                             -((cl_long)(NA - 1) << 33), (cl_long)(NA - 1) << 33,
                             (cl_long)0xffffffff00000000ULL, ~(cl_long)0xff0000000000LL, x,
                             NA * 0x100000000LL, 0x123456789abLL};
   static const char *names[11] = {"add", "sub", "inc", "dec", "min", "max", "or", "and",
                                   "xor", "cmpxchg loop", "xchg"};
   for (int i = 0; i < 11; i++)
      CHECK(c[i] == want[i], " atom_%s(long): 0x%llx, expected 0x%llx", names[i],
            (unsigned long long)c[i], (unsigned long long)want[i]);
   CHECK(u[0] == (cl_ulong)(NA - 1) << 48, " atom_max(ulong): 0x%llx", (unsigned long long)u[0]);
   CHECK(u[1] == ~((cl_ulong)(NA - 1) << 40), " atom_min(ulong): 0x%llx",
         (unsigned long long)u[1]);
   for (int gr = 0; gr < G; gr++)
      CHECK(lout[4 * gr] == LS * 0x100000000LL && lout[4 * gr + 1] == 0 &&
               lout[4 * gr + 2] == (cl_long)0xffffffff00000000ULL && lout[4 * gr + 3] == LS,
            " local atom_*(long), group %d: add 0x%llx min %lld or 0x%llx inc %lld", gr,
            (unsigned long long)lout[4 * gr], (long long)lout[4 * gr + 1],
            (unsigned long long)lout[4 * gr + 2], (long long)lout[4 * gr + 3]);
   CHECK_OK(clReleaseMemObject(mc));
   CHECK_OK(clReleaseMemObject(mu));
   CHECK_OK(clReleaseMemObject(ml));
   CHECK_OK(clReleaseKernel(k));
   CHECK_OK(clReleaseProgram(p));
}

/* Atomics on a static __local array at constant indices, the way most
 * kernels write them; in a child process because it hangs the compiler. */
static int static_local_child(const char *name)
{
   (void)name;
   struct kt_env env;
   kt_setup(&env, 0);
   const char *src =
      "__kernel void k(__global int *out)\n"
      "{\n"
      "  __local int c[2];\n"
      "  if (get_local_id(0) == 0) { c[0] = 0; c[1] = 0; }\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  atomic_inc(&c[1]);\n"
      "  atomic_add(&c[0], 2);\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  if (get_local_id(0) == 0) { out[2 * get_group_id(0)] = c[0]; out[2 * get_group_id(0) + 1] = c[1]; }\n"
      "}\n";
   cl_program p = kk_build(&env, src, NULL);
   cl_kernel k = kk_kernel(p, "k");
   cl_int out[8];
   cl_mem m = kk_buffer_in(&env, sizeof(out), NULL);
   KK_ARG(k, 0, m);
   size_t g = 4 * 64, l = 64;
   KK_RUN(&env, k, 1, NULL, &g, &l);
   kk_read(&env, m, sizeof(out), out);
   for (int i = 0; i < 4; i++)
      CHECK(out[2 * i] == 128 && out[2 * i + 1] == 64, " group %d: %d %d", i, out[2 * i],
            out[2 * i + 1]);
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseKernel(k));
   CHECK_OK(clReleaseProgram(p));
   kt_teardown(&env);
   return kt_result();
}

int main(int argc, char **argv)
{
   KK_CHILD_MAIN(argc, argv, static_local_child);
   struct kt_env env;
   kt_setup(&env, 0);
   cl_program p = kk_build(&env, source, NULL);
   global_ops(&env, p);
   local_ops(&env, p);
   atom_names(&env, p);
   int64_atoms(&env);
   int st = kk_child("static_local", 6);
   /* The hang of barriers.c's local_constant_index: workgroup.c
    * expand_constant_users never terminates on a constant GEP of a __local
    * global. */
   CHECK(st == 0, "atomic_inc(&c[1]) on `__local int c[2]`: child %s (%d)",
             st == 2 ? "hung in clBuildProgram, watchdog expired" : "failed", st);
   CHECK_OK(clReleaseProgram(p));
   kt_teardown(&env);
   return kt_result();
}
