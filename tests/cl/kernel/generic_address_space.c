/* The generic address space of OpenCL C 3.0 (§6.7, §6.15.10) on a device
 * that reports it (Kiln's CPU device): CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT
 * and __opencl_c_generic_address_space agree; generic pointers to
 * __global, __local (variables and arguments), private data (also kept
 * across a barrier) and program-scope __global variables load and store,
 * with pointer arithmetic, in inlined and non-inlined functions; to_global,
 * to_local and to_private classify each kind (NULL for the others);
 * get_fence; the C11 atomics, fract and vload through generic pointers;
 * and an OpenCL C 1.2 program still has no generic address space
 * (__constant data is not castable to generic at all: OpenCL C 3.0
 * §6.7.1, checked as a build failure). */
#include "kk.h"

#define CL30 "-cl-std=CL3.0"
#define LOCAL 16
#define GROUPS 4
#define N (LOCAL * GROUPS)
#define NOUT 24
/* OpenCL C's cl_mem_fence_flags values (§6.15.9). */
#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2

static const char *src =
   "global int gvar[4] = {7, 8, 9, 10};\n"
   /* Each kind's bits: 1 to_global, 2 to_local, 4 to_private. */
   "int classify(int *p)\n"
   "{ return (to_global(p) != NULL) | (to_local(p) != NULL) << 1 | (to_private(p) != NULL) << 2; }\n"
   /* to_* return the same address when they do not return NULL. */
   "int same(int *p)\n"
   "{ return (!to_global(p) || (int *)to_global(p) == p) && (!to_local(p) || (int *)to_local(p) == p)\n"
   "         && (!to_private(p) || (int *)to_private(p) == p); }\n"
   "int sum3(const int *p) { const int *q = p + 2; return p[0] + p[1] + *q--; }\n"
   /* A function Kiln keeps out of line: it only loads and stores. */
   "__attribute__((noinline)) int scale(int *p, int n, int f)\n"
   "{ int s = 0; for (int i = 0; i < n; i++) { p[i] *= f; s += p[i]; } return s; }\n"
   "__attribute__((noinline)) int bump(atomic_int *a, int v)\n"
   "{ return atomic_fetch_add_explicit(a, v, memory_order_relaxed, memory_scope_device); }\n"
   "\n"
   "kernel void with_barrier(global int *g, local int *larg, global int *out,\n"
   "                         global atomic_int *counter)\n"
   "{\n"
   "  local int lvar[16];\n"
   "  local atomic_int lcount;\n"
   "  int priv[4];\n"
   "  int gid = (int)get_global_id(0), lid = (int)get_local_id(0);\n"
   "  for (int i = 0; i < 4; i++) priv[i] = gid * 10 + i;\n"
   "  lvar[lid] = gid * 2; larg[lid] = gid * 3;\n"
   "  if (lid == 0) atomic_init(&lcount, 0);\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  global int *o = out + gid * 24;\n"
   "  int *gp = g + gid, *lp = lvar + lid, *ap = larg + lid, *pp = priv, *vp = gvar + 1;\n"
   "  o[0] = classify(gp); o[1] = classify(lp); o[2] = classify(ap);\n"
   "  o[3] = classify(pp); o[4] = classify(pp + 3); o[5] = classify(vp);\n"
   "  o[6] = get_fence(gp); o[7] = get_fence(lp); o[8] = get_fence(ap); o[9] = get_fence(pp);\n"
   "  o[10] = same(gp) & same(lp) & same(ap) & same(pp) & same(vp);\n"
   "  int *lbase = lvar + (lid & ~3);\n"
   "  o[11] = sum3(pp + 1) + sum3(g + gid % (64 - 2)) + sum3(lbase) + sum3(vp);\n"
   "  o[12] = scale(pp, 4, 2);\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  o[13] = scale(lp, 1, 3) + scale(ap, 1, 5);\n"
   "  o[14] = priv[3];\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  o[15] = lvar[lid] + larg[lid];\n"
   "  atomic_int *cg = counter, *cl = &lcount;\n"
   "  o[16] = bump(cg, 1) >= 0;\n"
   "  atomic_fetch_add(cl, gid);\n"
   "  int expected = 0, *ep = &expected;\n"
   "  o[17] = atomic_compare_exchange_strong((atomic_int *)(o + 22), ep, gid + 5);\n"
   "  expected = 1;\n"
   "  o[23] = atomic_compare_exchange_strong((atomic_int *)(o + 22), ep, -1) * 100 + expected;\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  o[18] = atomic_load(cl);\n"
   "  float ip, fr = fract(2.75f + gid, &ip);\n"
   "  o[19] = (int)(fr * 100) + (int)ip * 1000;\n"
   "  int4 v = vload4(0, lbase);\n"
   "  o[20] = v.x + v.y + v.z + v.w;\n"
   "  o[21] = classify(NULL);\n"
   "}\n"
   "\n"
   /* Generic pointers made before a barrier and used after it: to a
    * private array (kept per work-item across the barrier) and a select of
    * a __local and a private one. */
   "int get2(int *p, int i) { return p[i]; }\n"
   "kernel void across(global int *o)\n"
   "{\n"
   "  int gid = (int)get_global_id(0), lid = (int)get_local_id(0);\n"
   "  local int l[16];\n"
   "  int priv[4];\n"
   "  int *p = priv, *q = (gid & 1) ? (int *)(l + lid) : priv + 1;\n"
   "  for (int i = 0; i < 4; i++) p[i] = gid * 4 + i;\n"
   "  l[lid] = gid * 100;\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  int s = 0;\n"
   "  for (int i = 0; i < 4; i++) s += get2(p, i);\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  o[gid * 4] = s; o[gid * 4 + 1] = *q;\n"
   "  o[gid * 4 + 2] = (to_private(q) != 0) * 2 + (to_local(q) != 0);\n"
   "  o[gid * 4 + 3] = to_private(p) != 0;\n"
   "}\n"
   "\n"
   /* Kernel arguments by value are private too (§6.7). */
   "typedef struct { int a[8]; } S;\n"
   "kernel void by_value(global int *o, S s, int x)\n"
   "{\n"
   "  int gid = (int)get_global_id(0), *p = &s.a[gid & 7], *px = &x;\n"
   "  o[gid * 4] = classify(p); o[gid * 4 + 1] = *p; o[gid * 4 + 2] = classify(px);\n"
   "  o[gid * 4 + 3] = *px;\n"
   "}\n"
   "\n"
   /* No barrier: the work-items run one after another in one frame. */
   "kernel void no_barrier(global int *out)\n"
   "{\n"
   "  int a[3] = {1, 2, 3};\n"
   "  int *p = a, gid = (int)get_global_id(0);\n"
   "  global int *o = out + gid * 4;\n"
   "  o[0] = classify(p + 1); o[1] = classify(o); o[2] = scale(p, 3, gid); o[3] = get_fence(o);\n"
   "}\n";

static void kernel_run(const struct kt_env *env, cl_program p)
{
   cl_kernel k = kk_kernel(p, "with_barrier");
   cl_int g[N];
   for (int i = 0; i < N; i++)
      g[i] = 100 + i;
   cl_mem gm = kk_buffer_in(env, sizeof(g), g);
   cl_mem om = kk_buffer_in(env, sizeof(cl_int) * N * NOUT, NULL);
   cl_int zero = 0;
   cl_mem cm = kk_buffer_in(env, sizeof(zero), &zero);
   KK_ARG(k, 0, gm);
   KK_LOCAL(k, 1, LOCAL * sizeof(cl_int));
   KK_ARG(k, 2, om);
   KK_ARG(k, 3, cm);
   size_t global = N, local = LOCAL;
   KK_RUN(env, k, 1, NULL, &global, &local);
   static cl_int o[N * NOUT];
   kk_read(env, om, sizeof(o), o);
   cl_int count = 0;
   kk_read(env, cm, sizeof(count), &count);
   CHECK(count == N, " global counter %d, want %d", count, N);

   const int gvar[4] = {7, 8, 9, 10};
   for (int gid = 0; gid < N; gid++) {
      const cl_int *r = o + gid * NOUT;
      int lid = gid % LOCAL, group = gid / LOCAL;
      const int want_class[6] = {1, 2, 2, 4, 4, 1};
      static const char *const what[6] = {"__global", "__local variable", "__local argument",
                                          "private", "private + 3", "program-scope global"};
      for (int i = 0; i < 6; i++)
         CHECK(r[i] == want_class[i], " item %d: %s classified %d, want %d", gid, what[i], r[i],
               want_class[i]);
      CHECK(r[6] == CLK_GLOBAL_MEM_FENCE, " item %d: get_fence(global) %d", gid, r[6]);
      CHECK(r[7] == CLK_LOCAL_MEM_FENCE && r[8] == CLK_LOCAL_MEM_FENCE,
            " item %d: get_fence(local) %d %d", gid, r[7], r[8]);
      CHECK(r[9] == CLK_GLOBAL_MEM_FENCE, " item %d: get_fence(private) %d", gid, r[9]);
      CHECK(r[10] == 1, " item %d: to_* changed an address", gid);
      int priv[4];
      for (int i = 0; i < 4; i++)
         priv[i] = gid * 10 + i;
      int gsum = 0, g0 = gid % (N - 2);
      for (int i = 0; i < 3; i++)
         gsum += g[g0 + i];
      int lsum = 0, lb = group * LOCAL + (lid & ~3);
      for (int i = 0; i < 3; i++)
         lsum += (lb + i) * 2;
      int want11 = (priv[1] + priv[2] + priv[3]) + gsum + lsum + (gvar[1] + gvar[2] + gvar[3]);
      CHECK(r[11] == want11, " item %d: sums through generic pointers %d, want %d", gid, r[11],
            want11);
      CHECK(r[12] == 2 * (priv[0] + priv[1] + priv[2] + priv[3]), " item %d: scale(private) %d",
            gid, r[12]);
      CHECK(r[13] == gid * 2 * 3 + gid * 3 * 5, " item %d: scale(local) %d", gid, r[13]);
      CHECK(r[14] == 2 * priv[3], " item %d: private after the call %d", gid, r[14]);
      CHECK(r[15] == gid * 6 + gid * 15, " item %d: local after the calls %d", gid, r[15]);
      CHECK(r[16] == 1, " item %d: atomic on global through generic", gid);
      CHECK(r[17] == 1 && r[22] == gid + 5 && r[23] == gid + 5,
            " item %d: compare-exchange through generic pointers %d %d %d", gid, r[17], r[22], r[23]);
      int want18 = 0;
      for (int i = 0; i < LOCAL; i++)
         want18 += group * LOCAL + i;
      CHECK(r[18] == want18, " item %d: local atomic sum %d, want %d", gid, r[18], want18);
      CHECK(r[19] == 75 + (2 + gid) * 1000, " item %d: fract through generic %d", gid, r[19]);
      int want20 = 0;
      for (int i = 0; i < 4; i++)
         want20 += (lb + i) * 2 * 3;
      CHECK(r[20] == want20, " item %d: vload4 through generic %d, want %d", gid, r[20], want20);
      CHECK(r[21] == 0, " item %d: NULL classified %d", gid, r[21]);
   }
   CHECK_OK(clReleaseMemObject(gm));
   CHECK_OK(clReleaseMemObject(om));
   CHECK_OK(clReleaseMemObject(cm));
   CHECK_OK(clReleaseKernel(k));

   k = kk_kernel(p, "no_barrier");
   cl_mem nm = kk_buffer_in(env, sizeof(cl_int) * N * 4, NULL);
   KK_ARG(k, 0, nm);
   KK_RUN(env, k, 1, NULL, &global, &local);
   static cl_int n[N * 4];
   kk_read(env, nm, sizeof(n), n);
   for (int gid = 0; gid < N; gid++) {
      const cl_int *r = n + gid * 4;
      CHECK(r[0] == 4 && r[1] == 1 && r[2] == 6 * gid && r[3] == CLK_GLOBAL_MEM_FENCE,
            " item %d without barrier: %d %d %d %d", gid, r[0], r[1], r[2], r[3]);
   }
   CHECK_OK(clReleaseKernel(k));

   k = kk_kernel(p, "by_value");
   cl_int sv[8] = {10, 11, 12, 13, 14, 15, 16, 17}, x = 5;
   KK_ARG(k, 0, nm);
   KK_ARG(k, 1, sv);
   KK_ARG(k, 2, x);
   KK_RUN(env, k, 1, NULL, &global, &local);
   kk_read(env, nm, sizeof(n), n);
   for (int gid = 0; gid < N; gid++) {
      const cl_int *r = n + gid * 4;
      CHECK(r[0] == 4 && r[1] == sv[gid & 7] && r[2] == 4 && r[3] == 5,
            " item %d, arguments by value: %d %d %d %d", gid, r[0], r[1], r[2], r[3]);
   }
   CHECK_OK(clReleaseKernel(k));

   k = kk_kernel(p, "across");
   KK_ARG(k, 0, nm);
   KK_RUN(env, k, 1, NULL, &global, &local);
   kk_read(env, nm, sizeof(n), n);
   for (int gid = 0; gid < N; gid++) {
      const cl_int *r = n + gid * 4;
      int odd = gid & 1;
      CHECK(r[0] == 16 * gid + 6 && r[1] == (odd ? gid * 100 : gid * 4 + 1) &&
               r[2] == (odd ? 1 : 2) && r[3] == 1,
            " item %d across barriers: %d %d %d %d", gid, r[0], r[1], r[2], r[3]);
   }
   CHECK_OK(clReleaseMemObject(nm));
   CHECK_OK(clReleaseKernel(k));
}

/* What a program without the generic address space may not do. */
static void refusals(const struct kt_env *env, bool supported)
{
   static const char *const generic_src =
      "kernel void k(global int *g) { generic int *p = g; *p = 1; }\n";
   cl_program p;
   /* OpenCL C 1.2 (the default) has no generic address space. */
   CHECK_ERR(kk_try_build(env, generic_src, NULL, &p), CL_BUILD_PROGRAM_FAILURE);
   CHECK_OK(clReleaseProgram(p));
   /* ... and its unqualified pointers are private ones. */
   CHECK_ERR(kk_try_build(env, "kernel void k(global int *g) { int *p = g; *p = 1; }\n", NULL, &p),
             CL_BUILD_PROGRAM_FAILURE);
   CHECK_OK(clReleaseProgram(p));
   static const char *const macro_src =
      "#ifdef __opencl_c_generic_address_space\n#error defined\n#endif\n"
      "kernel void k(void) {}\n";
   p = kk_build(env, macro_src, NULL);
   CHECK_OK(clReleaseProgram(p));
   /* __constant data never converts to generic (OpenCL C 3.0 §6.7.1). */
   CHECK_ERR(kk_try_build(env, "kernel void k(constant int *c, global int *o)\n"
                               "{ int *p = (int *)c; *o = *p; }\n", CL30, &p),
             CL_BUILD_PROGRAM_FAILURE);
   CHECK_OK(clReleaseProgram(p));
   /* In 3.0, generic pointers build exactly when the device has them. */
   cl_int err = kk_try_build(env, generic_src, CL30, &p);
   CHECK(supported ? err == CL_SUCCESS : err == CL_BUILD_PROGRAM_FAILURE,
         " OpenCL C 3.0 with generic pointers: %d (device support %d)", err, supported);
   CHECK_OK(clReleaseProgram(p));
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   char ver[128] = "";
   REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_VERSION, sizeof(ver), ver, NULL));
   int major = 0, minor = 0;
   REQUIRE(sscanf(ver, "OpenCL %d.%d", &major, &minor) == 2, " '%s'", ver);
   cl_bool supported = CL_FALSE;
   if (major >= 3)
      REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT,
                                 sizeof(supported), &supported, NULL));
   cl_device_type type = 0;
   REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_TYPE, sizeof(type), &type, NULL));
   /* Kiln's CPU device has it; the GPU devices (AMD: OpenCL 1.2; CUDA: 3.0
    * without it, docs/cuda.md) do not. */
   if (type & CL_DEVICE_TYPE_CPU)
      CHECK(supported == CL_TRUE, " the CPU device lacks the generic address space");
   if (major >= 3)
      refusals(&env, supported == CL_TRUE);
   if (supported) {
      cl_program p = kk_build(&env, src, CL30);
      kernel_run(&env, p);
      CHECK_OK(clReleaseProgram(p));
      /* Unoptimised code too (no SROA to take the casts away). */
      p = kk_build(&env, src, CL30 " -cl-opt-disable");
      kernel_run(&env, p);
      CHECK_OK(clReleaseProgram(p));
   }
   kt_teardown(&env);
   return kt_result();
}
