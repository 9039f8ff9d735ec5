/* Regions that start with `if (get_local_id(0) < bound)`, the bound
 * shared by the group, and whose other work-items only reach the next
 * barrier: on the CPU device their work-item loop stops at the bound
 * (src/llvm/cpu/wg_trim.c).  Each kernel is checked against the host at
 * several local sizes (1D and 2D) and bounds, including 0, a negative
 * one (signed test), and one past the local size; kernels of the same
 * shape that must run every work-item (an else branch, a bound written in
 * the region) check the same way.  Last, the tree reduction's optimised IR
 * (KILN_DUMP) must clamp a work-item loop to a bound (`llvm.umin.i64`). */
#include <stdint.h>
#include <string.h>

#include "kk.h"

static const char *source =
   /* The tree of a reduction: one region per level. */
   "__kernel void tree(__global const int *in, __global int *out)\n"
   "{\n"
   "  __local int s[256];\n"
   "  uint l = get_local_id(0), ls = get_local_size(0);\n"
   "  s[l] = in[get_global_id(0)];\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  for (uint off = ls / 2; off > 0; off >>= 1) {\n"
   "    if (l < off) s[l] += s[l + off];\n"
   "    barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  }\n"
   "  if (l == 0) out[get_group_id(0)] = s[0];\n"
   "}\n"
   /* A bound from an argument, signed; 2D groups: the test is on x only. */
   "__kernel void bound_arg(__global int *out, int n)\n"
   "{\n"
   "  __local int s[256];\n"
   "  int x = get_local_id(0), y = get_local_id(1), w = get_local_size(0);\n"
   "  int l = y * w + x;\n"
   "  s[l] = -1;\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  if (x < n) s[l] = l * 3 + 1;\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  int h = get_local_size(0) * get_local_size(1);\n"
   "  out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = s[(l + 1) % h];\n"
   "}\n"
   /* Unsigned, the bound on the right. */
   "__kernel void bound_right(__global int *out, uint n)\n"
   "{\n"
   "  __local int s[256];\n"
   "  uint l = get_local_id(0);\n"
   "  s[l] = -1;\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  if (n > l) s[l] = (int)l * 3 + 1;\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  out[get_global_id(0)] = s[(l + 1) % get_local_size(0)];\n"
   "}\n"
   /* The other work-items do something: every one must run. */
   "__kernel void with_else(__global int *out, int n)\n"
   "{\n"
   "  __local int s[256];\n"
   "  int l = get_local_id(0);\n"
   "  s[l] = -1;\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  if (l < n) s[l] = l * 3 + 1; else s[l] = 7;\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  out[get_global_id(0)] = s[(l + 1) % get_local_size(0)];\n"
   "}\n";

static void check_tree(const struct kt_env *env, cl_program p)
{
   enum { G = 1024 };
   static int in[G];
   for (int i = 0; i < G; i++)
      in[i] = (i * 37) % 101 - 50;
   cl_kernel k = kk_kernel(p, "tree");
   cl_mem min = kk_buffer_in(env, sizeof(in), in);
   cl_mem out = kk_buffer_in(env, G * sizeof(int), NULL);
   static const size_t locals[] = {1, 2, 16, 64, 256};
   for (size_t t = 0; t < sizeof(locals) / sizeof(locals[0]); t++) {
      size_t global = G, local = locals[t];
      KK_ARG(k, 0, min);
      KK_ARG(k, 1, out);
      KK_RUN(env, k, 1, NULL, &global, &local);
      int got[G];
      kk_read(env, out, G / local * sizeof(int), got);
      for (size_t g = 0; g < G / local; g++) {
         int want = 0;
         for (size_t i = 0; i < local; i++)
            want += in[g * local + i];
         if (got[g] != want) {
            KT_FAIL("tree, local %zu: group %zu = %d, expected %d", local, g, got[g], want);
            break;
         }
      }
   }
   CHECK_OK(clReleaseMemObject(min));
   CHECK_OK(clReleaseMemObject(out));
   CHECK_OK(clReleaseKernel(k));
}

/* out[g] = s[(l + 1) % h] where s[l] = l * 3 + 1 for the work-items that
 * passed (x < n), -1 for the others; else_value replaces -1 where the
 * kernel has an else branch. */
static void check_bound(const struct kt_env *env, cl_program p, const char *name, bool two_d,
                        int else_value)
{
   enum { GX = 64, GY = 4 };
   cl_kernel k = kk_kernel(p, name);
   cl_mem out = kk_buffer_in(env, GX * GY * sizeof(int), NULL);
   static const int bounds[] = {0, -5, 1, 3, 8, 13, 64, 300};
   static const size_t lx_sizes[] = {1, 7, 8, 32, 64};
   for (size_t li = 0; li < sizeof(lx_sizes) / sizeof(lx_sizes[0]); li++)
      for (size_t bi = 0; bi < sizeof(bounds) / sizeof(bounds[0]); bi++) {
         int n = bounds[bi];
         if (n < 0 && strcmp(name, "bound_right") == 0)
            continue; /* unsigned: a negative bound is a huge one */
         size_t lx = lx_sizes[li], ly = two_d ? 4 : 1;
         if (GX % lx)
            continue;
         size_t global[2] = {GX, two_d ? GY : 1}, local[2] = {lx, ly};
         KK_ARG(k, 0, out);
         KK_ARG(k, 1, n);
         KK_RUN(env, k, two_d ? 2 : 1, NULL, global, local);
         int got[GX * GY];
         size_t items = GX * (two_d ? GY : 1);
         kk_read(env, out, items * sizeof(int), got);
         for (size_t gy = 0; gy < global[1]; gy++)
            for (size_t gx = 0; gx < GX; gx++) {
               int x = (int)(gx % lx), y = (int)(gy % ly), h = (int)(lx * ly);
               int l = y * (int)lx + x, m = (l + 1) % h;
               int mx = m % (int)lx;
               int want = mx < n ? m * 3 + 1 : else_value;
               int v = got[gy * GX + gx];
               if (v != want) {
                  KT_FAIL("%s, local %zux%zu, n %d: item (%zu, %zu) = %d, expected %d", name, lx,
                          ly, n, gx, gy, v, want);
                  goto done;
               }
            }
      }
done:
   CHECK_OK(clReleaseMemObject(out));
   CHECK_OK(clReleaseKernel(k));
}

static bool umin_64(const char *line)
{
   return strstr(line, "call i64 @llvm.umin.i64(") != NULL;
}

int main(void)
{
   char dir[] = "/tmp/kiln-guarded-XXXXXX";
   kk_dump_begin(dir);
   struct kt_env env;
   kt_setup(&env, 0);
   cl_program p = kk_build(&env, source, NULL);
   check_tree(&env, p);
   check_bound(&env, p, "bound_arg", false, -1);
   check_bound(&env, p, "bound_arg", true, -1);
   check_bound(&env, p, "bound_right", false, -1);
   check_bound(&env, p, "with_else", false, 7);
   cl_device_type type = 0;
   CHECK_OK(clGetDeviceInfo(env.device, CL_DEVICE_TYPE, sizeof(type), &type, NULL));
   if (type & CL_DEVICE_TYPE_CPU) {
      int m = kk_dumped_ir_matches(dir, "tree", umin_64);
      CHECK(m >= 0, "KILN_DUMP wrote no optimised IR for tree");
      CHECK(m != 0, "tree: no work-item loop of a level stops at its bound (no llvm.umin.i64 "
                     "in the optimised IR)");
   }
   CHECK_OK(clReleaseProgram(p));
   kt_teardown(&env);
   kk_dump_end(dir);
   return kt_result();
}
