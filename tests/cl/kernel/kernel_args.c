/* clSetKernelArg (OpenCL 1.1 §5.7.2) for every kind of argument: buffers,
 * NULL buffers, __constant buffers, __local sizes, scalars of every type,
 * vectors (3-vectors have the size of 4), structs by value; its errors;
 * CL_INVALID_KERNEL_ARGS for unset arguments; values captured at enqueue. */
#include "kk.h"

#include <stdatomic.h>
#include <time.h>

static const char *source =
   "__kernel void scalars(__global ulong *o, char c, uchar uc, short s, ushort us, int i,\n"
   "                      uint ui, long l, ulong ul, float f)\n"
   "{\n"
   "  o[0] = (ulong)(long)c; o[1] = uc; o[2] = (ulong)(long)s; o[3] = us;\n"
   "  o[4] = (ulong)(long)i; o[5] = ui; o[6] = (ulong)l; o[7] = ul; o[8] = as_uint(f);\n"
   "}\n"
   /* Alternating narrow and wide arguments test the argument packing. */
   "__kernel void packing(__global long *o, char a, long b, char c, short d, char e, int f,\n"
   "                      char g, float h, uchar i, ulong j)\n"
   "{\n"
   "  o[0] = a; o[1] = b; o[2] = c; o[3] = d; o[4] = e; o[5] = f; o[6] = g;\n"
   "  o[7] = as_int(h); o[8] = i; o[9] = (long)j;\n"
   "}\n"
   "__kernel void vectors(__global int *oi, __global float *of, __global long *ol,\n"
   "                      char2 a, uchar3 b, short4 c, int8 d, float16 e, long2 f, float3 g,\n"
   "                      int3 h, ushort16 k, uint2 m, ulong3 n, char16 p, float2 q,\n"
   "                      float4 r, float8 s, char3 t, short3 u)\n"
   "{\n"
   "  int x = 0, y = 0, z = 0;\n"
   "  oi[x++] = a.s0; oi[x++] = a.s1;\n"
   "  oi[x++] = b.s0; oi[x++] = b.s1; oi[x++] = b.s2;\n"
   "  oi[x++] = c.s0; oi[x++] = c.s1; oi[x++] = c.s2; oi[x++] = c.s3;\n"
   "  for (int j = 0; j < 8; j++) oi[x++] = ((int *)&d)[j];\n"
   "  oi[x++] = h.x; oi[x++] = h.y; oi[x++] = h.z;\n"
   "  for (int j = 0; j < 16; j++) oi[x++] = ((ushort *)&k)[j];\n"
   "  oi[x++] = m.x; oi[x++] = m.y;\n"
   "  for (int j = 0; j < 16; j++) oi[x++] = ((char *)&p)[j];\n"
   "  oi[x++] = t.x; oi[x++] = t.y; oi[x++] = t.z;\n"
   "  oi[x++] = u.x; oi[x++] = u.y; oi[x++] = u.z;\n"
   "  for (int j = 0; j < 16; j++) of[y++] = ((float *)&e)[j];\n"
   "  of[y++] = g.x; of[y++] = g.y; of[y++] = g.z;\n"
   "  of[y++] = q.x; of[y++] = q.y;\n"
   "  of[y++] = r.x; of[y++] = r.y; of[y++] = r.z; of[y++] = r.w;\n"
   "  for (int j = 0; j < 8; j++) of[y++] = ((float *)&s)[j];\n"
   "  ol[z++] = f.x; ol[z++] = f.y;\n"
   "  ol[z++] = n.x; ol[z++] = n.y; ol[z++] = n.z;\n"
   "}\n"
   "typedef struct { char c; int i; float f; short s[3]; long l; } small_t;\n"
   "typedef struct { float4 v; char tag; small_t inner; uint u[5]; } big_t;\n"
   "__kernel void structs(__global long *o, char before, small_t a, big_t b, int after)\n"
   "{\n"
   "  o[0] = before; o[1] = a.c; o[2] = a.i; o[3] = as_int(a.f); o[4] = a.s[0];\n"
   "  o[5] = a.s[1]; o[6] = a.s[2]; o[7] = a.l;\n"
   "  o[8] = as_int(b.v.x); o[9] = as_int(b.v.w); o[10] = b.tag; o[11] = b.inner.c;\n"
   "  o[12] = b.inner.i; o[13] = b.inner.l; o[14] = b.u[0]; o[15] = b.u[4]; o[16] = after;\n"
   "  o[17] = sizeof(small_t); o[18] = sizeof(big_t);\n"
   "}\n"
   "__kernel void buffers(__global int *flags, __global int *maybe, __constant int *table,\n"
   "                      __global const int *in)\n"
   "{\n"
   "  int i = get_global_id(0);\n"
   "  if (i == 0) flags[0] = maybe == 0 ? 1 : 2;\n"
   "  if (maybe) maybe[i] = in[i] * table[i % 4];\n"
   "}\n"
   "__kernel void locals(__global int *o, __local int *a, __local int *b, int na, int nb)\n"
   "{\n"
   "  int l = get_local_id(0), n = get_local_size(0);\n"
   "  for (int j = l; j < na; j += n) a[j] = 1000 + j;\n"
   "  for (int j = l; j < nb; j += n) b[j] = 2000 + j;\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  /* Sums show whether a and b overlap or were cut short. */\n"
   "  int sa = 0, sb = 0;\n"
   "  for (int j = 0; j < na; j++) sa += a[j];\n"
   "  for (int j = 0; j < nb; j++) sb += b[j];\n"
   "  o[2 * get_global_id(0)] = sa; o[2 * get_global_id(0) + 1] = sb;\n"
   "}\n"
   "__kernel void one_int(__global int *o, int v) { o[get_global_id(0)] = v; }\n"
   /* 248 bytes of arguments besides the buffer (the minimum
    * CL_DEVICE_MAX_PARAMETER_SIZE is 256 with it). */
   "#define A6(p) int p##0, int p##1, int p##2, int p##3, int p##4, int p##5\n"
   "__kernel void many(__global int *o, A6(a), A6(b), A6(c), A6(d), A6(e),\n"
   "                   float16 f, float16 g)\n"
   "{\n"
   "  o[0] = a0 + a1 * 2 + a2 * 3 + a3 * 4 + a4 * 5 + a5 * 6;\n"
   "  o[1] = b0 + b1 * 2 + b2 * 3 + b3 * 4 + b4 * 5 + b5 * 6;\n"
   "  o[2] = c0 + c1 * 2 + c2 * 3 + c3 * 4 + c4 * 5 + c5 * 6;\n"
   "  o[3] = d0 + d1 * 2 + d2 * 3 + d3 * 4 + d4 * 5 + d5 * 6;\n"
   "  o[4] = e0 + e1 * 2 + e2 * 3 + e3 * 4 + e4 * 5 + e5 * 6;\n"
   "  o[5] = (int)(f.s0 + f.sf * 10.0f); o[6] = (int)(g.s0 + g.sf * 10.0f);\n"
   "}\n";

static cl_program prog;

static void scalars(const struct kt_env *env)
{
   cl_kernel k = kk_kernel(prog, "scalars");
   cl_mem m = kk_buffer_in(env, 9 * sizeof(cl_ulong), NULL);
   KK_ARG(k, 0, m);
   struct {
      cl_char c;
      cl_uchar uc;
      cl_short s;
      cl_ushort us;
      cl_int i;
      cl_uint ui;
      cl_long l;
      cl_ulong ul;
      cl_float f;
   } v[] = {
      {-128, 255, -32768, 65535, INT32_MIN, UINT32_MAX, INT64_MIN, UINT64_MAX, -0.0f},
      {127, 0, 32767, 0, INT32_MAX, 0, INT64_MAX, 0, 3.0e38f},
      {-1, 0x80, -2, 0x8001, -3, 0x80000001u, -4, 0x8000000000000001ull, 1.0f / 3.0f},
   };
   for (size_t t = 0; t < sizeof(v) / sizeof(v[0]); t++) {
      KK_ARG(k, 1, v[t].c);
      KK_ARG(k, 2, v[t].uc);
      KK_ARG(k, 3, v[t].s);
      KK_ARG(k, 4, v[t].us);
      KK_ARG(k, 5, v[t].i);
      KK_ARG(k, 6, v[t].ui);
      KK_ARG(k, 7, v[t].l);
      KK_ARG(k, 8, v[t].ul);
      KK_ARG(k, 9, v[t].f);
      size_t g = 1;
      KK_RUN(env, k, 1, NULL, &g, NULL);
      cl_ulong o[9];
      kk_read(env, m, sizeof(o), o);
      uint32_t fbits;
      memcpy(&fbits, &v[t].f, 4);
      cl_ulong want[9] = {
         (cl_ulong)(int64_t)v[t].c, v[t].uc, (cl_ulong)(int64_t)v[t].s, v[t].us,
         (cl_ulong)(int64_t)v[t].i, v[t].ui, (cl_ulong)v[t].l, v[t].ul, fbits,
      };
      static const char *names[] = {"char", "uchar", "short", "ushort", "int", "uint", "long",
                                    "ulong", "float"};
      for (int j = 0; j < 9; j++)
         CHECK(o[j] == want[j], " set %zu: %s argument reads 0x%llx, expected 0x%llx", t,
               names[j], (unsigned long long)o[j], (unsigned long long)want[j]);
   }

   /* Errors: wrong sizes, NULL values. */
   cl_int i = 0;
   cl_long l = 0;
   cl_char c = 0;
   CHECK_ERR(clSetKernelArg(k, 5, sizeof(cl_long), &l), CL_INVALID_ARG_SIZE);
   CHECK_ERR(clSetKernelArg(k, 5, sizeof(cl_short), &i), CL_INVALID_ARG_SIZE);
   CHECK_ERR(clSetKernelArg(k, 5, 0, &i), CL_INVALID_ARG_SIZE);
   CHECK_ERR(clSetKernelArg(k, 1, sizeof(cl_int), &i), CL_INVALID_ARG_SIZE);
   CHECK_ERR(clSetKernelArg(k, 7, sizeof(cl_int), &i), CL_INVALID_ARG_SIZE);
   CHECK_ERR(clSetKernelArg(k, 9, sizeof(double), &l), CL_INVALID_ARG_SIZE);
   CHECK_ERR(clSetKernelArg(k, 2, sizeof(c), NULL), CL_INVALID_ARG_VALUE);
   CHECK_ERR(clSetKernelArg(k, 5, sizeof(i), NULL), CL_INVALID_ARG_VALUE);
   CHECK_ERR(clSetKernelArg(k, 9, sizeof(cl_float), NULL), CL_INVALID_ARG_VALUE);
   /* A buffer argument given a scalar's size. */
   CHECK_ERR(clSetKernelArg(k, 0, sizeof(cl_int), &i), CL_INVALID_ARG_SIZE);
   /* Indices. */
   CHECK_ERR(clSetKernelArg(k, 10, sizeof(i), &i), CL_INVALID_ARG_INDEX);
   CHECK_ERR(clSetKernelArg(k, 0xffffffffu, sizeof(i), &i), CL_INVALID_ARG_INDEX);
   CHECK_ERR(clSetKernelArg(NULL, 0, sizeof(i), &i), CL_INVALID_KERNEL);
   CHECK_ERR(clSetKernelArg((cl_kernel)m, 0, sizeof(i), &i), CL_INVALID_KERNEL);
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseKernel(k));
}

static void packing(const struct kt_env *env)
{
   cl_kernel k = kk_kernel(prog, "packing");
   cl_mem m = kk_buffer_in(env, 10 * sizeof(cl_long), NULL);
   KK_ARG(k, 0, m);
   cl_char a = -5, c = 7, e = -9, g = 11;
   cl_long b = 0x123456789abcdefll;
   cl_short d = -1234;
   cl_int f = -123456789;
   cl_float h = 2.5f;
   cl_uchar i = 200;
   cl_ulong j = 0xfedcba9876543210ull;
   KK_ARG(k, 1, a);
   KK_ARG(k, 2, b);
   KK_ARG(k, 3, c);
   KK_ARG(k, 4, d);
   KK_ARG(k, 5, e);
   KK_ARG(k, 6, f);
   KK_ARG(k, 7, g);
   KK_ARG(k, 8, h);
   KK_ARG(k, 9, i);
   KK_ARG(k, 10, j);
   size_t n = 1;
   KK_RUN(env, k, 1, NULL, &n, NULL);
   cl_long o[10];
   kk_read(env, m, sizeof(o), o);
   int32_t hb;
   memcpy(&hb, &h, 4);
   cl_long want[10] = {a, b, c, d, e, f, g, hb, i, (cl_long)j};
   for (int x = 0; x < 10; x++)
      CHECK(o[x] == want[x], " packing: argument %d reads %lld, expected %lld", x + 1,
            (long long)o[x], (long long)want[x]);
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseKernel(k));
}

static void vectors(const struct kt_env *env)
{
   cl_kernel k = kk_kernel(prog, "vectors");
   cl_mem mi = kk_buffer_in(env, 128 * sizeof(cl_int), NULL);
   cl_mem mf = kk_buffer_in(env, 64 * sizeof(cl_float), NULL);
   cl_mem ml = kk_buffer_in(env, 8 * sizeof(cl_long), NULL);
   KK_ARG(k, 0, mi);
   KK_ARG(k, 1, mf);
   KK_ARG(k, 2, ml);
   cl_char2 a = {{-3, 4}};
   cl_uchar3 b = {{250, 1, 128, 99}};
   cl_short4 c = {{-30000, 30000, -1, 7}};
   cl_int8 d;
   for (int j = 0; j < 8; j++)
      d.s[j] = j * 1000003 - 4000000;
   cl_float16 e;
   for (int j = 0; j < 16; j++)
      e.s[j] = j * 0.25f - 2.0f;
   cl_long2 f = {{-1234567890123ll, 9876543210987ll}};
   cl_float3 g = {{1.5f, -2.5f, 3.25f, 99.0f}};
   cl_int3 h = {{-7, 8, -9, 12345}};
   cl_ushort16 kk;
   for (int j = 0; j < 16; j++)
      kk.s[j] = (cl_ushort)(65535 - j * 1111);
   cl_uint2 m = {{0xdeadbeefu, 17}};
   cl_ulong3 n = {{1, 0xffffffffffffffffull, 0x8000000000000000ull, 5}};
   cl_char16 p;
   for (int j = 0; j < 16; j++)
      p.s[j] = (cl_char)(j * 17 - 128);
   cl_float2 q = {{-0.5f, 1e-30f}};
   cl_float4 r = {{1, 2, 3, 4}};
   cl_float8 s;
   for (int j = 0; j < 8; j++)
      s.s[j] = (float)(j * j) - 10.5f;
   cl_char3 t = {{-1, -2, -3, 0}};
   cl_short3 u = {{300, -300, 3000, 0}};
   /* 3-vectors take the size of 4. */
   CHECK(sizeof(cl_float3) == 16 && sizeof(cl_uchar3) == 4);
   CHECK_ERR(clSetKernelArg(k, 9, 3 * sizeof(cl_float), &g), CL_INVALID_ARG_SIZE);
   CHECK_ERR(clSetKernelArg(k, 10, 3 * sizeof(cl_int), &h), CL_INVALID_ARG_SIZE);
   CHECK_ERR(clSetKernelArg(k, 4, 3, &b), CL_INVALID_ARG_SIZE);
   CHECK_ERR(clSetKernelArg(k, 13, 3 * sizeof(cl_ulong), &n), CL_INVALID_ARG_SIZE);
   CHECK_ERR(clSetKernelArg(k, 8, sizeof(cl_long), &f), CL_INVALID_ARG_SIZE);
   CHECK_ERR(clSetKernelArg(k, 7, sizeof(cl_float8), &e), CL_INVALID_ARG_SIZE);
   CHECK_ERR(clSetKernelArg(k, 6, sizeof(cl_int4), &d), CL_INVALID_ARG_SIZE);
   CHECK_ERR(clSetKernelArg(k, 6, sizeof(cl_int8), NULL), CL_INVALID_ARG_VALUE);
   KK_ARG(k, 3, a);
   KK_ARG(k, 4, b);
   KK_ARG(k, 5, c);
   KK_ARG(k, 6, d);
   KK_ARG(k, 7, e);
   KK_ARG(k, 8, f);
   KK_ARG(k, 9, g);
   KK_ARG(k, 10, h);
   KK_ARG(k, 11, kk);
   KK_ARG(k, 12, m);
   KK_ARG(k, 13, n);
   KK_ARG(k, 14, p);
   KK_ARG(k, 15, q);
   KK_ARG(k, 16, r);
   KK_ARG(k, 17, s);
   KK_ARG(k, 18, t);
   KK_ARG(k, 19, u);
   size_t one = 1;
   KK_RUN(env, k, 1, NULL, &one, NULL);
   cl_int oi[128];
   cl_float of[64];
   cl_long ol[8];
   kk_read(env, mi, sizeof(oi), oi);
   kk_read(env, mf, sizeof(of), of);
   kk_read(env, ml, sizeof(ol), ol);

   cl_int wi[128];
   int x = 0;
   wi[x++] = a.s[0], wi[x++] = a.s[1];
   for (int j = 0; j < 3; j++)
      wi[x++] = b.s[j];
   for (int j = 0; j < 4; j++)
      wi[x++] = c.s[j];
   for (int j = 0; j < 8; j++)
      wi[x++] = d.s[j];
   for (int j = 0; j < 3; j++)
      wi[x++] = h.s[j];
   for (int j = 0; j < 16; j++)
      wi[x++] = kk.s[j];
   wi[x++] = (cl_int)m.s[0], wi[x++] = (cl_int)m.s[1];
   for (int j = 0; j < 16; j++)
      wi[x++] = p.s[j];
   for (int j = 0; j < 3; j++)
      wi[x++] = t.s[j];
   for (int j = 0; j < 3; j++)
      wi[x++] = u.s[j];
   static const char *iname[] = {"char2", "uchar3", "short4", "int8", "int3", "ushort16",
                                 "uint2", "char16", "char3", "short3"};
   static const int iw[] = {2, 3, 4, 8, 3, 16, 2, 16, 3, 3};
   for (int j = 0, v = 0, at = 0; j < x; j++, at++) {
      if (at == iw[v])
         v++, at = 0;
      CHECK(oi[j] == wi[j], " %s argument component %d reads %d, expected %d", iname[v], at,
            oi[j], wi[j]);
   }
   cl_float wf[64];
   int y = 0;
   for (int j = 0; j < 16; j++)
      wf[y++] = e.s[j];
   for (int j = 0; j < 3; j++)
      wf[y++] = g.s[j];
   wf[y++] = q.s[0], wf[y++] = q.s[1];
   for (int j = 0; j < 4; j++)
      wf[y++] = r.s[j];
   for (int j = 0; j < 8; j++)
      wf[y++] = s.s[j];
   static const char *fname[] = {"float16", "float3", "float2", "float4", "float8"};
   static const int fw[] = {16, 3, 2, 4, 8};
   for (int j = 0, v = 0, at = 0; j < y; j++, at++) {
      if (at == fw[v])
         v++, at = 0;
      CHECK(of[j] == wf[j], " %s argument component %d reads %g, expected %g", fname[v], at,
            of[j], wf[j]);
   }
   cl_long wl[5] = {f.s[0], f.s[1], (cl_long)n.s[0], (cl_long)n.s[1], (cl_long)n.s[2]};
   for (int j = 0; j < 5; j++)
      CHECK(ol[j] == wl[j], " %s argument component %d reads %lld, expected %lld",
            j < 2 ? "long2" : "ulong3", j < 2 ? j : j - 2, (long long)ol[j], (long long)wl[j]);
   CHECK_OK(clReleaseMemObject(mi));
   CHECK_OK(clReleaseMemObject(mf));
   CHECK_OK(clReleaseMemObject(ml));
   CHECK_OK(clReleaseKernel(k));
}

/* Host mirrors of the kernel's structs (the OpenCL C layout is the C ABI's
 * on this target). */
typedef struct {
   cl_char c;
   cl_int i;
   cl_float f;
   cl_short s[3];
   cl_long l;
} small_t;
typedef struct {
   cl_float4 v;
   cl_char tag;
   small_t inner;
   cl_uint u[5];
} big_t;

static void structs(const struct kt_env *env)
{
   cl_kernel k = kk_kernel(prog, "structs");
   cl_mem m = kk_buffer_in(env, 19 * sizeof(cl_long), NULL);
   KK_ARG(k, 0, m);
   cl_char before = -77;
   small_t a = {-5, 123456, 1.25f, {-1, 2, -3}, -9000000000ll};
   big_t b;
   memset(&b, 0xee, sizeof(b)); /* padding garbage must not matter */
   b.v.s[0] = 0.5f, b.v.s[1] = 1, b.v.s[2] = 2, b.v.s[3] = -4.0f;
   b.tag = 42;
   b.inner = (small_t){9, -8, 7.0f, {6, 5, 4}, 3};
   for (int i = 0; i < 5; i++)
      b.u[i] = 0xa0000000u + i;
   cl_int after = 31337;
   CHECK_ERR(clSetKernelArg(k, 2, sizeof(a) - 1, &a), CL_INVALID_ARG_SIZE);
   CHECK_ERR(clSetKernelArg(k, 2, sizeof(a) + 8, &a), CL_INVALID_ARG_SIZE);
   CHECK_ERR(clSetKernelArg(k, 3, sizeof(b) - 16, &b), CL_INVALID_ARG_SIZE);
   CHECK_ERR(clSetKernelArg(k, 3, sizeof(b), NULL), CL_INVALID_ARG_VALUE);
   KK_ARG(k, 1, before);
   KK_ARG(k, 2, a);
   KK_ARG(k, 3, b);
   KK_ARG(k, 4, after);
   size_t one = 1;
   KK_RUN(env, k, 1, NULL, &one, NULL);
   cl_long o[19];
   kk_read(env, m, sizeof(o), o);
   int32_t af, bx, bw;
   memcpy(&af, &a.f, 4);
   memcpy(&bx, &b.v.s[0], 4);
   memcpy(&bw, &b.v.s[3], 4);
   cl_long want[19] = {before, a.c, a.i, af, a.s[0], a.s[1], a.s[2], a.l, bx, bw, b.tag,
                       b.inner.c, b.inner.i, b.inner.l, b.u[0], b.u[4], after,
                       sizeof(small_t), sizeof(big_t)};
   static const char *what[] = {"before", "a.c", "a.i", "a.f", "a.s[0]", "a.s[1]", "a.s[2]",
                                "a.l", "b.v.x", "b.v.w", "b.tag", "b.inner.c", "b.inner.i",
                                "b.inner.l", "b.u[0]", "b.u[4]", "after", "sizeof(small_t)",
                                "sizeof(big_t)"};
   for (int j = 0; j < 19; j++)
      CHECK(o[j] == want[j], " struct argument: %s reads %lld, expected %lld", what[j],
            (long long)o[j], (long long)want[j]);
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseKernel(k));
}

static void buffers(const struct kt_env *env)
{
   cl_kernel k = kk_kernel(prog, "buffers");
   enum { N = 256 };
   cl_int in[N], table[4] = {2, -3, 5, 7}, out[N], flags[1];
   for (int i = 0; i < N; i++)
      in[i] = i - 100;
   cl_mem mflags = kk_buffer_in(env, sizeof(flags), NULL);
   cl_mem mout = kk_buffer_in(env, sizeof(out), NULL);
   cl_mem mtable = kt_buffer(env->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                             sizeof(table), table);
   cl_mem min = kt_buffer(env->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(in), in);
   KK_ARG(k, 0, mflags);
   KK_ARG(k, 1, mout);
   KK_ARG(k, 2, mtable);
   KK_ARG(k, 3, min);
   size_t g = N;
   KK_RUN(env, k, 1, NULL, &g, NULL);
   kk_read(env, mflags, sizeof(flags), flags);
   kk_read(env, mout, sizeof(out), out);
   CHECK(flags[0] == 2, " a real buffer reads as NULL in the kernel");
   for (int i = 0; i < N; i++)
      CHECK(out[i] == in[i] * table[i % 4], " out[%d] = %d", i, out[i]);

   /* NULL buffer, both ways: arg_value NULL, and a pointer to a NULL cl_mem. */
   CHECK_OK(clSetKernelArg(k, 1, sizeof(cl_mem), NULL));
   KK_RUN(env, k, 1, NULL, &g, NULL);
   kk_read(env, mflags, sizeof(flags), flags);
   CHECK(flags[0] == 1, " arg_value NULL: the kernel sees a non-NULL pointer");
   KK_ARG(k, 1, mout);
   cl_mem null_mem = NULL;
   CHECK_OK(clSetKernelArg(k, 1, sizeof(cl_mem), &null_mem));
   KK_RUN(env, k, 1, NULL, &g, NULL);
   kk_read(env, mflags, sizeof(flags), flags);
   CHECK(flags[0] == 1, " NULL cl_mem: the kernel sees a non-NULL pointer");

   /* A sub-buffer: the kernel sees its origin. */
   cl_uint align_bits = kt_device_uint(env->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN);
   size_t origin = align_bits / 8;
   if (origin < sizeof(cl_int) * 4)
      origin = sizeof(cl_int) * 4;
   cl_buffer_region region = {origin, 64 * sizeof(cl_int)};
   cl_int err;
   cl_mem sub = clCreateSubBuffer(min, CL_MEM_READ_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &region,
                                  &err);
   CHECK(sub && err == CL_SUCCESS, " clCreateSubBuffer: %s", kt_err_name(err));
   if (sub && origin + 64 * sizeof(cl_int) <= sizeof(in)) {
      KK_ARG(k, 1, mout);
      KK_ARG(k, 3, sub);
      size_t g64 = 64;
      KK_RUN(env, k, 1, NULL, &g64, NULL);
      kk_read(env, mout, sizeof(out), out);
      size_t o = origin / sizeof(cl_int);
      for (int i = 0; i < 64; i++)
         CHECK(out[i] == in[o + i] * table[i % 4], " sub-buffer arg: out[%d] = %d", i, out[i]);
   }

   /* Errors. */
   cl_mem bogus = (cl_mem)(uintptr_t)&err;
   CHECK_ERR(clSetKernelArg(k, 1, sizeof(cl_mem), &bogus), CL_INVALID_MEM_OBJECT);
   cl_mem not_mem = (cl_mem)env->queue;
   CHECK_ERR(clSetKernelArg(k, 1, sizeof(cl_mem), &not_mem), CL_INVALID_MEM_OBJECT);
   CHECK_ERR(clSetKernelArg(k, 2, sizeof(cl_mem), &not_mem), CL_INVALID_MEM_OBJECT);
   cl_mem released = kt_buffer(env->context, 0, 64, NULL);
   CHECK_OK(clReleaseMemObject(released));
   CHECK_ERR(clSetKernelArg(k, 1, sizeof(cl_mem), &released), CL_INVALID_MEM_OBJECT);
   CHECK_ERR(clSetKernelArg(k, 1, sizeof(cl_mem) / 2, &mout), CL_INVALID_ARG_SIZE);
   CHECK_ERR(clSetKernelArg(k, 1, sizeof(cl_mem) * 2, &mout), CL_INVALID_ARG_SIZE);
   /* A buffer given where a __local pointer goes is a size, not a value. */
   cl_kernel kl = kk_kernel(prog, "locals");
   CHECK_ERR(clSetKernelArg(kl, 1, sizeof(cl_mem), &mout), CL_INVALID_ARG_VALUE);
   CHECK_OK(clReleaseKernel(kl));

   if (sub)
      CHECK_OK(clReleaseMemObject(sub));
   CHECK_OK(clReleaseMemObject(mflags));
   CHECK_OK(clReleaseMemObject(mout));
   CHECK_OK(clReleaseMemObject(mtable));
   CHECK_OK(clReleaseMemObject(min));
   CHECK_OK(clReleaseKernel(k));
}

static void locals(const struct kt_env *env)
{
   cl_kernel k = kk_kernel(prog, "locals");
   enum { G = 64 };
   cl_int out[2 * G];
   cl_mem m = kk_buffer_in(env, sizeof(out), NULL);
   KK_ARG(k, 0, m);
   static const int sizes[][2] = {{1, 1}, {16, 300}, {1000, 3}, {2048, 2048}};
   static const size_t lsizes[] = {1, 16, 64, 8};
   for (size_t t = 0; t < 4; t++) {
      cl_int na = sizes[t][0], nb = sizes[t][1];
      KK_LOCAL(k, 1, na * sizeof(cl_int));
      KK_LOCAL(k, 2, nb * sizeof(cl_int));
      KK_ARG(k, 3, na);
      KK_ARG(k, 4, nb);
      size_t g = G, l = lsizes[t];
      KK_RUN(env, k, 1, NULL, &g, &l);
      kk_read(env, m, sizeof(out), out);
      cl_int wa = 1000 * na + na * (na - 1) / 2, wb = 2000 * nb + nb * (nb - 1) / 2;
      for (int i = 0; i < G; i++) {
         CHECK(out[2 * i] == wa, " __local %d + %d ints, group %zu: sum a %d, expected %d", na,
               nb, l, out[2 * i], wa);
         CHECK(out[2 * i + 1] == wb, " __local %d + %d ints, group %zu: sum b %d, expected %d",
               na, nb, l, out[2 * i + 1], wb);
      }
   }
   cl_int dummy = 0;
   CHECK_ERR(clSetKernelArg(k, 1, 16, &dummy), CL_INVALID_ARG_VALUE);
   CHECK_ERR(clSetKernelArg(k, 1, 0, NULL), CL_INVALID_ARG_SIZE);
   /* More __local than the device has fails at enqueue. */
   cl_ulong lmem = kt_device_ulong(env->device, CL_DEVICE_LOCAL_MEM_SIZE);
   CHECK_OK(clSetKernelArg(k, 1, (size_t)lmem, NULL));
   KK_LOCAL(k, 2, 4);
   size_t g = 1;
   cl_int err = clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &g, &g, 0, NULL, NULL);
   CHECK(err == CL_OUT_OF_RESOURCES || err == CL_INVALID_KERNEL_ARGS,
         " __local beyond CL_DEVICE_LOCAL_MEM_SIZE: %s", kt_err_name(err));
   CHECK_OK(clFinish(env->queue));
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseKernel(k));
}

/* Unset arguments, and values captured when the kernel is enqueued. */
static void CL_CALLBACK count_destructor(cl_mem m, void *data)
{
   (void)m;
   atomic_fetch_add((atomic_int *)data, 1);
}

static void missing_and_capture(const struct kt_env *env)
{
   cl_kernel k = kk_kernel(prog, "one_int");
   size_t g = 16;
   CHECK_ERR(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &g, NULL, 0, NULL, NULL),
             CL_INVALID_KERNEL_ARGS);
   cl_int v = 5;
   KK_ARG(k, 1, v);
   CHECK_ERR(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &g, NULL, 0, NULL, NULL),
             CL_INVALID_KERNEL_ARGS);
   CHECK_ERR(clEnqueueTask(env->queue, k, 0, NULL, NULL), CL_INVALID_KERNEL_ARGS);
   /* A failed clSetKernelArg does not count as setting it. */
   cl_kernel k2 = kk_kernel(prog, "one_int");
   cl_long wrong = 0;
   CHECK_ERR(clSetKernelArg(k2, 1, sizeof(wrong), &wrong), CL_INVALID_ARG_SIZE);
   cl_mem m0 = kk_buffer_in(env, 64, NULL);
   KK_ARG(k2, 0, m0);
   CHECK_ERR(clEnqueueNDRangeKernel(env->queue, k2, 1, NULL, &g, NULL, 0, NULL, NULL),
             CL_INVALID_KERNEL_ARGS);
   CHECK_OK(clReleaseKernel(k2));
   CHECK_OK(clReleaseMemObject(m0));

   /* Two enqueues held back by a user event, with arguments changed in
    * between (and the first buffer released by the application). */
   cl_mem m1 = kk_buffer_in(env, g * sizeof(cl_int), NULL);
   cl_mem m2 = kk_buffer_in(env, g * sizeof(cl_int), NULL);
   cl_event gate = kt_user_event(env->context);
   KK_ARG(k, 0, m1);
   v = 111;
   KK_ARG(k, 1, v);
   CHECK_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &g, NULL, 1, &gate, NULL));
   v = 222;
   KK_ARG(k, 1, v);
   KK_ARG(k, 0, m2);
   CHECK_OK(clRetainMemObject(m1));
   CHECK_OK(clReleaseMemObject(m1));
   CHECK_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &g, NULL, 0, NULL, NULL));
   v = 333;
   CHECK_OK(clSetUserEventStatus(gate, CL_COMPLETE));
   CHECK_OK(clFinish(env->queue));
   cl_int o1[16], o2[16];
   kk_read(env, m1, sizeof(o1), o1);
   kk_read(env, m2, sizeof(o2), o2);
   for (int i = 0; i < 16; i++) {
      CHECK(o1[i] == 111, " first enqueue: o1[%d] = %d, expected 111 (captured at enqueue)", i,
            o1[i]);
      CHECK(o2[i] == 222, " second enqueue: o2[%d] = %d, expected 222", i, o2[i]);
   }
   CHECK_OK(clReleaseEvent(gate));
   /* A buffer that is no longer an argument can go; the kernel still runs. */
   CHECK_OK(clReleaseMemObject(m1));
   KK_RUN(env, k, 1, NULL, &g, NULL);

   /* Setting a buffer as an argument does not keep it alive: its last
    * release deletes it at once (1.1 5.4.1: only pending commands delay
    * that; the CTS's api retain_mem_object_set_kernel_arg waits for the
    * destructor callback), and a launch then refuses the stale argument. */
   static atomic_int destroyed;
   atomic_store(&destroyed, 0);
   CHECK_OK(clSetMemObjectDestructorCallback(m2, count_destructor, &destroyed));
   CHECK_OK(clReleaseMemObject(m2));
   /* The last launch's command may drop its reference on the executor
    * thread a moment after clFinish returned: wait up to 5 s. */
   for (int t = 0; t < 500 && atomic_load(&destroyed) == 0; t++)
      nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
   CHECK(atomic_load(&destroyed) == 1,
         " released argument buffer: destructor ran %d times, expected 1",
         atomic_load(&destroyed));
   CHECK_ERR(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &g, NULL, 0, NULL, NULL),
             CL_INVALID_KERNEL_ARGS);
   CHECK_ERR(clEnqueueTask(env->queue, k, 0, NULL, NULL), CL_INVALID_KERNEL_ARGS);
   /* A new buffer with the handle's memory reused must not pass for it. */
   cl_mem m3 = kk_buffer_in(env, g * sizeof(cl_int), NULL);
   if (m3 == m2)
      CHECK_ERR(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &g, NULL, 0, NULL, NULL),
                CL_INVALID_KERNEL_ARGS);
   KK_ARG(k, 0, m3);
   KK_RUN(env, k, 1, NULL, &g, NULL);
   kk_read(env, m3, sizeof(o2), o2);
   CHECK(o2[0] == 222, " after a new buffer argument: %d, expected 222", o2[0]);
   CHECK_OK(clReleaseMemObject(m3));
   CHECK_OK(clReleaseKernel(k));
}

static void many_args(const struct kt_env *env)
{
   size_t maxp = 0;
   CHECK_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_PARAMETER_SIZE, sizeof(maxp), &maxp, NULL));
   CHECK(maxp >= 256, " CL_DEVICE_MAX_PARAMETER_SIZE %zu < 256", maxp);
   cl_kernel k = kk_kernel(prog, "many");
   cl_uint nargs = 0;
   CHECK_OK(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof(nargs), &nargs, NULL));
   CHECK(nargs == 33, " %u args", nargs);
   cl_int o[7];
   cl_mem m = kk_buffer_in(env, sizeof(o), NULL);
   KK_ARG(k, 0, m);
   for (cl_uint i = 0; i < 30; i++) {
      cl_int v = (cl_int)(i * 100 + 1);
      KK_ARG(k, 1 + i, v);
   }
   cl_float16 f, g;
   for (int i = 0; i < 16; i++)
      f.s[i] = (float)i, g.s[i] = (float)(100 + i);
   KK_ARG(k, 31, f);
   KK_ARG(k, 32, g);
   size_t one = 1;
   KK_RUN(env, k, 1, NULL, &one, NULL);
   kk_read(env, m, sizeof(o), o);
   for (int r = 0; r < 5; r++) {
      int want = 0;
      for (int j = 0; j < 6; j++)
         want += ((r * 6 + j) * 100 + 1) * (j + 1);
      CHECK(o[r] == want, " many args: row %d = %d, expected %d", r, o[r], want);
   }
   CHECK(o[5] == 150 && o[6] == 100 + 1150, " many args: float16 %d %d", o[5], o[6]);
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseKernel(k));
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   prog = kk_build(&env, source, NULL);
   scalars(&env);
   packing(&env);
   vectors(&env);
   structs(&env);
   buffers(&env);
   locals(&env);
   missing_and_capture(&env);
   many_args(&env);
   CHECK_OK(clReleaseProgram(prog));
   kt_teardown(&env);
   return kt_result();
}
