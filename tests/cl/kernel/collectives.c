/* Work-group collective functions (OpenCL C 3.0 §6.15.16,
 * __opencl_c_work_group_collective_functions) and sub-groups
 * (cl_khr_subgroups, __opencl_c_subgroups, §6.15.17): every collective
 * and sub-group builtin for int, uint, long, ulong, float and double, on
 * 1D, 2D and 3D grids with power-of-two, odd, single-item, maximal and
 * non-uniform work-groups (-cl-std=CL3.0), each result checked on the
 * host against the work-items' inputs; the sub-group work-item queries
 * against docs/subgroups.md's mapping (one sub-group per work-group);
 * clGetKernelSubGroupInfo (and clGetKernelSubGroupInfoKHR) with every
 * query and the spec's error codes; and, on the CPU device, that the code
 * around a collective still vectorizes across work-items (KILN_DUMP).  A device without the features must
 * say so consistently and answer CL_INVALID_OPERATION.
 *
 * cl_khr_subgroups in OpenCL C 1.x programs (the extension has no version
 * dependency, and the default -cl-std is CL1.2): on a device that lists
 * it, the same sub-group kernels built with -cl-std=CL1.2, CL1.1, CL1.0
 * and none, with and without the extension's pragma (with -Werror: the
 * pragma must not warn), define the macro and give the same results; a
 * pragma for an extension the device lacks still warns; a device without
 * it fails such a build; and a 1.2 program's own functions of those names
 * are its own on every device. */
#define CL_TARGET_OPENCL_VERSION 300
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kk.h"

#define CL30 "-cl-std=CL3.0"

/* The global linear id, which OpenCL C 1.x lacks (no offsets here); and
 * for 1.x sub-group builds (-DKHR_1X), the macro cl_khr_subgroups must
 * say the extension is there, and -DPRAGMA enables it as a 1.2 program
 * written for other drivers does. */
#define KHR_1X_PRELUDE                                                         \
   "#ifdef PRAGMA\n"                                                           \
   "#pragma OPENCL EXTENSION cl_khr_subgroups : enable\n"                      \
   "#endif\n"                                                                  \
   "#if defined(KHR_1X) && !defined(cl_khr_subgroups)\n"                       \
   "#error cl_khr_subgroups is not defined\n"                                  \
   "#endif\n"                                                                  \
   "#if __OPENCL_C_VERSION__ >= 200\n"                                         \
   "#define LINEAR_ID() get_global_linear_id()\n"                              \
   "#else\n"                                                                   \
   "#define LINEAR_ID() ((get_global_id(2) * get_global_size(1) + "            \
   "get_global_id(1)) * get_global_size(0) + get_global_id(0))\n"              \
   "#endif\n"

/* Results per work-item of the arithmetic kernel: reduce, inclusive and
 * exclusive scan for add/min/max, then broadcast. */
enum { R_RED, R_INC = 3, R_EXC = 6, R_BCAST = 9, RESULTS };

/* PRE is work_group_ or sub_group_; BCAST the broadcast of the last
 * work-item in each dimension (work_dim's form) or of the sub-group's
 * last work-item. */
static const char *arith_src =
   KHR_1X_PRELUDE
   "#define CAT2(a, b) a##b\n"
   "#define CAT(a, b) CAT2(a, b)\n"
   "#define F(name) CAT(PRE, name)\n"
   "kernel void arith(global const T *in, global T *out)\n"
   "{\n"
   "  size_t g = LINEAR_ID();\n"
   "  T x = in[g];\n"
   "  global T *o = out + g * 10;\n"
   "  o[0] = F(reduce_add)(x);\n"
   "  o[1] = F(reduce_min)(x);\n"
   "  o[2] = F(reduce_max)(x);\n"
   "  o[3] = F(scan_inclusive_add)(x);\n"
   "  o[4] = F(scan_inclusive_min)(x);\n"
   "  o[5] = F(scan_inclusive_max)(x);\n"
   "  o[6] = F(scan_exclusive_add)(x);\n"
   "  o[7] = F(scan_exclusive_min)(x);\n"
   "  o[8] = F(scan_exclusive_max)(x);\n"
   "#ifdef SUB\n"
   "  o[9] = sub_group_broadcast(x, get_sub_group_size() - 1);\n"
   "#else\n"
   "  size_t bx = get_local_size(0) - 1, by = get_local_size(1) / 2, bz = get_local_size(2) - 1;\n"
   "  if (get_work_dim() == 1)\n"
   "    o[9] = work_group_broadcast(x, bx);\n"
   "  else if (get_work_dim() == 2)\n"
   "    o[9] = work_group_broadcast(x, bx, by);\n"
   "  else\n"
   "    o[9] = work_group_broadcast(x, bx, by, bz);\n"
   "#endif\n"
   "}\n";

/* Votes, the sub-group queries, and both sub_group_barrier forms
 * ordering __local memory: each work-item reads its neighbour's store.
 * In OpenCL C 1.x (cl_khr_subgroups there) the work-group votes, the
 * enqueued count and the memory_scope barrier (2.0's) give way to their
 * sub-group twins, which answer the same with one sub-group per group. */
enum { V_WALL, V_WANY, V_SALL, V_SANY, V_SIZE, V_MAX, V_NUM, V_ENQ, V_ID, V_LID, V_NEXT, V_NEXT2,
       VOTES };
static const char *vote_src =
   KHR_1X_PRELUDE
   "kernel void vote(global const int *in, global uint *out, local uint *tmp)\n"
   "{\n"
   "  size_t g = LINEAR_ID();\n"
   "  int x = in[g];\n"
   "  global uint *o = out + g * 12;\n"
   "#if __OPENCL_C_VERSION__ >= 200\n"
   "  o[0] = work_group_all(x);\n"
   "  o[1] = work_group_any(x);\n"
   "#else\n"
   "  o[0] = sub_group_all(x);\n"
   "  o[1] = sub_group_any(x);\n"
   "#endif\n"
   "  o[2] = sub_group_all(x);\n"
   "  o[3] = sub_group_any(x);\n"
   "  o[4] = get_sub_group_size();\n"
   "  o[5] = get_max_sub_group_size();\n"
   "  o[6] = get_num_sub_groups();\n"
   "#if __OPENCL_C_VERSION__ >= 200\n"
   "  o[7] = get_enqueued_num_sub_groups();\n"
   "#else\n"
   "  o[7] = get_num_sub_groups();\n"
   "#endif\n"
   "  o[8] = get_sub_group_id();\n"
   "  o[9] = get_sub_group_local_id();\n"
   "  uint l = get_sub_group_local_id(), n = get_sub_group_size();\n"
   "  tmp[l] = l * 3 + 1;\n"
   "  sub_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  o[10] = tmp[(l + 1) % n];\n"
   "#if __OPENCL_C_VERSION__ >= 200\n"
   "  sub_group_barrier(CLK_LOCAL_MEM_FENCE, memory_scope_sub_group);\n"
   "  tmp[l] = l * 5 + 2;\n"
   "  sub_group_barrier(CLK_LOCAL_MEM_FENCE, memory_scope_work_group);\n"
   "#else\n"
   "  sub_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  tmp[l] = l * 5 + 2;\n"
   "  sub_group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n"
   "#endif\n"
   "  o[11] = tmp[(l + n - 1) % n];\n"
   "}\n";

enum type { T_INT, T_UINT, T_LONG, T_ULONG, T_FLOAT, T_DOUBLE, T_COUNT };
static const char *const type_names[T_COUNT] = {"int", "uint", "long", "ulong", "float", "double"};
static const size_t type_sizes[T_COUNT] = {4, 4, 8, 8, 4, 8};

/* Values as doubles: every input is a small integer, so every sum is
 * exact in every type and order, and float results compare exactly. */
static double get(enum type t, const void *p, size_t i)
{
   switch (t) {
   case T_INT: return ((const cl_int *)p)[i];
   case T_UINT: return ((const cl_uint *)p)[i];
   case T_LONG: return (double)((const cl_long *)p)[i];
   case T_ULONG: return (double)((const cl_ulong *)p)[i];
   case T_FLOAT: return ((const cl_float *)p)[i];
   default: return ((const cl_double *)p)[i];
   }
}

static void put(enum type t, void *p, size_t i, long v)
{
   switch (t) {
   case T_INT: ((cl_int *)p)[i] = (cl_int)v; break;
   case T_UINT: ((cl_uint *)p)[i] = (cl_uint)v; break;
   case T_LONG: ((cl_long *)p)[i] = v; break;
   case T_ULONG: ((cl_ulong *)p)[i] = (cl_ulong)v; break;
   case T_FLOAT: ((cl_float *)p)[i] = (cl_float)v; break;
   default: ((cl_double *)p)[i] = (double)v; break;
   }
}

/* The identities of min and max as doubles (what the exclusive scans
 * give the first work-item). */
static double type_max(enum type t)
{
   switch (t) {
   case T_INT: return INT32_MAX;
   case T_UINT: return UINT32_MAX;
   case T_LONG: return (double)INT64_MAX;
   case T_ULONG: return (double)UINT64_MAX;
   default: return INFINITY;
   }
}

static double type_min(enum type t)
{
   switch (t) {
   case T_INT: return INT32_MIN;
   case T_UINT: case T_ULONG: return 0;
   case T_LONG: return (double)INT64_MIN;
   default: return -INFINITY;
   }
}

/* One launch's geometry and the work-items of each group. */
struct grid {
   cl_uint dim;
   size_t global[3], local[3];
   size_t total;
};

/* Calls fn for each work-group with the global linear ids of its
 * work-items in local linear order and the group's size in each dimension. */
typedef void (*group_fn)(void *ctx, const size_t *items, size_t n, const size_t *lsize);

static void for_each_group(const struct grid *g, group_fn fn, void *ctx)
{
   size_t ng[3];
   for (int d = 0; d < 3; d++)
      ng[d] = (g->global[d] + g->local[d] - 1) / g->local[d];
   size_t *items = malloc(g->local[0] * g->local[1] * g->local[2] * sizeof(*items));
   REQUIRE(items);
   for (size_t gz = 0; gz < ng[2]; gz++)
      for (size_t gy = 0; gy < ng[1]; gy++)
         for (size_t gx = 0; gx < ng[0]; gx++) {
            size_t base[3] = {gx * g->local[0], gy * g->local[1], gz * g->local[2]};
            size_t ls[3];
            for (int d = 0; d < 3; d++) {
               size_t left = g->global[d] - base[d];
               ls[d] = left < g->local[d] ? left : g->local[d];
            }
            size_t n = 0;
            for (size_t z = 0; z < ls[2]; z++)
               for (size_t y = 0; y < ls[1]; y++)
                  for (size_t x = 0; x < ls[0]; x++)
                     items[n++] = ((base[2] + z) * g->global[1] + base[1] + y) * g->global[0] +
                                  base[0] + x;
            fn(ctx, items, n, ls);
         }
   free(items);
}

struct arith_check {
   enum type t;
   const void *in, *out;
   bool sub;
   const char *what;
   int errors;
};

static void arith_group(void *vctx, const size_t *items, size_t n, const size_t *ls)
{
   struct arith_check *c = vctx;
   double sum = 0, mn = type_max(c->t), mx = type_min(c->t);
   for (size_t i = 0; i < n; i++) {
      double v = get(c->t, c->in, items[i]);
      sum += v, mn = v < mn ? v : mn, mx = v > mx ? v : mx;
   }
   size_t src = c->sub ? n - 1 : ((ls[2] - 1) * ls[1] + ls[1] / 2) * ls[0] + ls[0] - 1;
   double isum = 0, imn = type_max(c->t), imx = type_min(c->t);
   for (size_t i = 0; i < n; i++) {
      double v = get(c->t, c->in, items[i]);
      double want[RESULTS] = {sum, mn, mx, isum + v, v < imn ? v : imn, v > imx ? v : imx,
                              isum, imn, imx, get(c->t, c->in, items[src])};
      isum += v, imn = v < imn ? v : imn, imx = v > imx ? v : imx;
      for (int r = 0; r < RESULTS; r++) {
         double got = get(c->t, c->out, items[i] * RESULTS + r);
         if (got != want[r] && c->errors++ < 8)
            KT_FAIL("%s %s: item %zu of %zu (global %zu) result %d: got %.17g, want %.17g",
                    c->what, type_names[c->t], i, n, items[i], r, got, want[r]);
      }
   }
}

static void fill_inputs(enum type t, void *in, size_t n, unsigned seed)
{
   srand(seed);
   bool is_unsigned = t == T_UINT || t == T_ULONG;
   for (size_t i = 0; i < n; i++) {
      long v = rand() % 2001;
      put(t, in, i, is_unsigned ? v : v - 1000);
   }
}

static void check_arith(const struct kt_env *env, cl_kernel k, enum type t, const struct grid *g,
                        bool sub)
{
   size_t sz = type_sizes[t];
   void *in = malloc(g->total * sz), *out = malloc(g->total * sz * RESULTS);
   REQUIRE(in && out);
   fill_inputs(t, in, g->total, (unsigned)(g->total * 31 + t));
   cl_mem min = kk_buffer_in(env, g->total * sz, in);
   cl_mem mout = kk_buffer_in(env, g->total * sz * RESULTS, NULL);
   KK_ARG(k, 0, min);
   KK_ARG(k, 1, mout);
   KK_RUN(env, k, g->dim, NULL, g->global, g->local);
   kk_read(env, mout, g->total * sz * RESULTS, out);
   char what[96];
   snprintf(what, sizeof(what), "%s %uD %zux%zux%zu / %zux%zux%zu", sub ? "sub_group" : "work_group",
            g->dim, g->global[0], g->global[1], g->global[2], g->local[0], g->local[1],
            g->local[2]);
   struct arith_check c = {t, in, out, sub, what, 0};
   for_each_group(g, arith_group, &c);
   clReleaseMemObject(min);
   clReleaseMemObject(mout);
   free(in);
   free(out);
}

struct vote_check {
   const cl_int *in;
   const cl_uint *out;
   size_t enq;
   const char *what;
   int errors;
};

static void vote_group(void *vctx, const size_t *items, size_t n, const size_t *ls)
{
   (void)ls;
   struct vote_check *c = vctx;
   cl_uint all = 1, any = 0;
   for (size_t i = 0; i < n; i++) {
      all &= c->in[items[i]] != 0;
      any |= c->in[items[i]] != 0;
   }
   for (size_t i = 0; i < n; i++) {
      cl_uint want[VOTES] = {all, any, all, any, (cl_uint)n, (cl_uint)c->enq, 1, 1, 0,
                             (cl_uint)i, (cl_uint)(((i + 1) % n) * 3 + 1),
                             (cl_uint)(((i + n - 1) % n) * 5 + 2)};
      for (int r = 0; r < VOTES; r++) {
         cl_uint got = c->out[items[i] * VOTES + r];
         if (got != want[r] && c->errors++ < 8)
            KT_FAIL("vote %s: item %zu of %zu result %d: got %u, want %u", c->what, i, n, r, got,
                    want[r]);
      }
   }
}

/* Inputs that give each kind of group: all true, all false, one false,
 * one true (by group, through the global linear ids). */
struct vote_fill {
   cl_int *in;
   unsigned group;
};

static void vote_fill_group(void *vctx, const size_t *items, size_t n, const size_t *ls)
{
   (void)ls;
   struct vote_fill *f = vctx;
   unsigned mode = f->group++ % 4;
   size_t odd = n / 2;
   for (size_t i = 0; i < n; i++) {
      bool t = mode == 0 || (mode == 2 && i != odd) || (mode == 3 && i == odd);
      f->in[items[i]] = t ? (cl_int)(i % 7) + 1 : 0;
   }
}

static void check_vote(const struct kt_env *env, cl_kernel k, const struct grid *g)
{
   cl_int *in = malloc(g->total * sizeof(*in));
   cl_uint *out = malloc(g->total * VOTES * sizeof(*out));
   REQUIRE(in && out);
   struct vote_fill f = {in, 0};
   for_each_group(g, vote_fill_group, &f);
   cl_mem min = kk_buffer_in(env, g->total * sizeof(*in), in);
   cl_mem mout = kk_buffer_in(env, g->total * VOTES * sizeof(*out), NULL);
   KK_ARG(k, 0, min);
   KK_ARG(k, 1, mout);
   KK_LOCAL(k, 2, g->local[0] * g->local[1] * g->local[2] * sizeof(cl_uint));
   KK_RUN(env, k, g->dim, NULL, g->global, g->local);
   kk_read(env, mout, g->total * VOTES * sizeof(*out), out);
   char what[96];
   snprintf(what, sizeof(what), "%uD %zux%zux%zu / %zux%zux%zu", g->dim, g->global[0],
            g->global[1], g->global[2], g->local[0], g->local[1], g->local[2]);
   struct vote_check c = {in, out, g->local[0] * g->local[1] * g->local[2], what, 0};
   for_each_group(g, vote_group, &c);
   clReleaseMemObject(min);
   clReleaseMemObject(mout);
   free(in);
   free(out);
}

static size_t kernel_wg_size(const struct kt_env *env, cl_kernel k)
{
   size_t s = 0;
   REQUIRE_OK(clGetKernelWorkGroupInfo(k, env->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(s), &s,
                                       NULL));
   return s;
}

/* The grids every kernel runs on; the first one's size is the largest
 * group the kernel allows.  OpenCL C 1.x kernels get the uniform ones
 * (non-uniform work-groups are 2.0's). */
static size_t make_grids(struct grid *g, size_t max, bool uniform)
{
   struct grid list[] = {
      {1, {max, 1, 1}, {max, 1, 1}, 0},     /* one full group of the maximum */
      {1, {300, 1, 1}, {300, 1, 1}, 0},     /* not a power of two */
      {1, {100, 1, 1}, {7, 1, 1}, 0},       /* 14 groups of 7, one of 2 */
      {1, {64, 1, 1}, {1, 1, 1}, 0},        /* single work-items */
      {1, {256, 1, 1}, {64, 1, 1}, 0},
      {2, {13, 9, 1}, {4, 3, 1}, 0},        /* non-uniform in x and y */
      {3, {6, 5, 7}, {3, 2, 4}, 0},         /* non-uniform in y and z */
      {2, {12, 9, 1}, {4, 3, 1}, 0},        /* uniform 2D and 3D (for 1.x) */
      {3, {6, 4, 8}, {3, 2, 4}, 0},
   };
   size_t n = 0;
   for (size_t i = 0; i < sizeof(list) / sizeof(list[0]); i++) {
      struct grid x = list[i];
      if (x.local[0] * x.local[1] * x.local[2] > max)
         continue;
      if (uniform && (x.global[0] % x.local[0] || x.global[1] % x.local[1] ||
                      x.global[2] % x.local[2]))
         continue;
      x.total = x.global[0] * x.global[1] * x.global[2];
      g[n++] = x;
   }
   return n;
}

typedef cl_int(CL_API_CALL *sub_group_info_fn)(cl_kernel, cl_device_id, cl_kernel_sub_group_info,
                                                size_t, const void *, size_t, void *, size_t *);

static void check_sub_group_info(const struct kt_env *env, cl_kernel k, sub_group_info_fn info,
                                 const char *name)
{
   size_t l2[2] = {4, 3}, l3[3] = {5, 3, 2}, l1 = 7, v = 0, ret = 0;
   REQUIRE_OK(info(k, env->device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof(l2), l2,
                   sizeof(v), &v, &ret));
   CHECK(v == 12 && ret == sizeof(size_t), "%s: max size for 4x3: %zu (%zu bytes)", name, v, ret);
   REQUIRE_OK(info(k, NULL, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof(l3), l3, sizeof(v),
                   &v, NULL));
   CHECK(v == 30, "%s: max size for 5x3x2: %zu", name, v);
   REQUIRE_OK(info(k, env->device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, sizeof(l1), &l1,
                   sizeof(v), &v, &ret));
   CHECK(v == 1 && ret == sizeof(size_t), "%s: count for 7: %zu", name, v);
   /* Errors: the local size input, param_value too small, bad handles. */
   CHECK_ERR(info(k, env->device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, sizeof(l1), NULL,
                  sizeof(v), &v, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(info(k, env->device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, 0, l3, sizeof(v), &v,
                  NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(info(k, env->device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, 5, l3, sizeof(v), &v,
                  NULL),
             CL_INVALID_VALUE);
   size_t l4[4] = {1, 1, 1, 1};
   CHECK_ERR(info(k, env->device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof(l4), l4,
                  sizeof(v), &v, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(info(k, env->device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof(l2), l2, 4, &v,
                  NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(info(NULL, env->device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, sizeof(l1), &l1,
                  sizeof(v), &v, NULL),
             CL_INVALID_KERNEL);
   CHECK_ERR(info(k, (cl_device_id)env->context, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                  sizeof(l1), &l1, sizeof(v), &v, NULL),
             CL_INVALID_DEVICE);
}

static void check_core_info(const struct kt_env *env, cl_kernel k)
{
   size_t v = 7, ret = 0, count = 1, max = kernel_wg_size(env, k);
   size_t loc[3] = {9, 9, 9};
   REQUIRE_OK(clGetKernelSubGroupInfo(k, env->device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                                      sizeof(count), &count, 0, NULL, &ret));
   CHECK(ret == 3 * sizeof(size_t), "local size for a count: %zu bytes", ret);
   REQUIRE_OK(clGetKernelSubGroupInfo(k, env->device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                                      sizeof(count), &count, sizeof(loc), loc, &ret));
   CHECK(loc[0] == max && loc[1] == 1 && loc[2] == 1 && ret == sizeof(loc),
         "local size for 1 sub-group: %zu %zu %zu", loc[0], loc[1], loc[2]);
   loc[1] = 9;
   REQUIRE_OK(clGetKernelSubGroupInfo(k, env->device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                                      sizeof(count), &count, sizeof(size_t), loc, &ret));
   CHECK(loc[0] == max && loc[1] == 9 && ret == sizeof(size_t), "1D local size: %zu", loc[0]);
   count = 2;
   REQUIRE_OK(clGetKernelSubGroupInfo(k, env->device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                                      sizeof(count), &count, sizeof(loc), loc, NULL));
   CHECK(!loc[0] && !loc[1] && !loc[2], "local size for 2 sub-groups: %zu %zu %zu", loc[0],
         loc[1], loc[2]);
   CHECK_ERR(clGetKernelSubGroupInfo(k, env->device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                                     sizeof(cl_uint), &count, sizeof(loc), loc, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clGetKernelSubGroupInfo(k, env->device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                                     sizeof(count), NULL, sizeof(loc), loc, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clGetKernelSubGroupInfo(k, env->device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                                     sizeof(count), &count, 4 * sizeof(size_t), loc, NULL),
             CL_INVALID_VALUE);
   cl_uint dev_max = 0;
   REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_NUM_SUB_GROUPS, sizeof(dev_max),
                              &dev_max, NULL));
   REQUIRE_OK(clGetKernelSubGroupInfo(k, env->device, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL,
                                      sizeof(v), &v, &ret));
   CHECK(v == 1 && v <= dev_max && ret == sizeof(size_t), "max sub-groups %zu (device %u)", v,
         dev_max);
   v = 7;
   REQUIRE_OK(clGetKernelSubGroupInfo(k, env->device, CL_KERNEL_COMPILE_NUM_SUB_GROUPS, 0, NULL,
                                      sizeof(v), &v, NULL));
   CHECK(v == 0, "compile sub-groups %zu", v);
   CHECK_ERR(clGetKernelSubGroupInfo(k, env->device, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL, 1, &v,
                                     NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clGetKernelSubGroupInfo(k, env->device, 0x1234, 0, NULL, sizeof(v), &v, NULL),
             CL_INVALID_VALUE);
}

static bool has_extension(const struct kt_env *env, const char *name)
{
   char ext[4096] = "";
   REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS, sizeof(ext), ext, NULL));
   size_t len = strlen(name);
   for (const char *p = ext; (p = strstr(p, name)); p += len)
      if ((p == ext || p[-1] == ' ') && (p[len] == ' ' || !p[len]))
         return true;
   return false;
}

static bool has_feature(const struct kt_env *env, const char *name)
{
   cl_name_version f[64];
   size_t size = 0;
   REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_FEATURES, sizeof(f), f, &size));
   for (size_t i = 0; i < size / sizeof(f[0]); i++)
      if (!strcmp(f[i].name, name))
         return true;
   return false;
}

/* Work-group functions are loops over the work-items; the collectives'
 * barriers cut them into regions, and the regions around a collective
 * must still vectorize (docs/subgroups.md): the optimised IR of a float
 * kernel (KILN_DUMP, docs/dump.md) holds float vectors. */
static void check_vectorized(const struct kt_env *env)
{
   static const char *src =
      "kernel void k(global const float *in, global float *out)\n"
      "{\n"
      "  size_t g = get_global_id(0);\n"
      "  float x = in[g] * 2.0f + 1.0f;\n"
      "  out[g] = work_group_scan_inclusive_add(x) + x;\n"
      "}\n";
   char dir[] = "/tmp/kiln-collectives-XXXXXX";
   REQUIRE(mkdtemp(dir));
   setenv("KILN_DUMP", dir, 1);
   cl_program p = kk_build(env, src, CL30);
   unsetenv("KILN_DUMP");
   bool found = false, vector = false;
   DIR *d = opendir(dir);
   REQUIRE(d);
   struct dirent *e;
   while ((e = readdir(d))) {
      char path[512];
      snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
      size_t len = strlen(e->d_name);
      if (len > 7 && !strcmp(e->d_name + len - 7, ".opt.ll")) {
         found = true;
         FILE *f = fopen(path, "r");
         char line[4096];
         while (f && fgets(line, sizeof(line), f))
            vector |= strstr(line, " x float>") != NULL;
         if (f)
            fclose(f);
      }
      if (e->d_name[0] != '.')
         unlink(path);
   }
   closedir(d);
   rmdir(dir);
   CHECK(found, "no .opt.ll dumped");
   CHECK(vector, "a kernel with a scan has no float vector code");
   clReleaseProgram(p);
}

/* cl_khr_subgroups in OpenCL C 1.x programs (see the top). */
static void check_khr_1x(const struct kt_env *env, bool khr)
{
   static const char *const sub_src = "kernel void k(global uint *o)\n"
                                      "{ o[get_global_id(0)] = get_sub_group_size(); }\n";
   cl_program p = NULL;
   cl_int err;
   if (!khr) {
      err = kk_try_build(env, sub_src, "-cl-std=CL1.2", &p);
      CHECK(err == CL_BUILD_PROGRAM_FAILURE, "1.2 sub-group kernel without cl_khr_subgroups: %d",
            err);
      if (p)
         clReleaseProgram(p);
   }
   /* A 1.2 program's own functions of the builtins' names are its own,
    * with or without the extension. */
   static const char *const own_src =
      "uint get_sub_group_size(void) { return 7; }\n"
      "int sub_group_reduce_add(int x) { return x + 1; }\n"
      "kernel void own(global uint *o)\n"
      "{ o[get_global_id(0)] = get_sub_group_size() + (uint)sub_group_reduce_add(2); }\n";
   p = kk_build(env, own_src, "-cl-std=CL1.2");
   cl_kernel k = kk_kernel(p, "own");
   size_t four = 4;
   cl_uint own_out[4] = {0};
   cl_mem m = kk_buffer_in(env, sizeof(own_out), NULL);
   KK_ARG(k, 0, m);
   KK_RUN(env, k, 1, NULL, &four, &four);
   kk_read(env, m, sizeof(own_out), own_out);
   for (int i = 0; i < 4; i++)
      CHECK(own_out[i] == 10, "own get_sub_group_size + sub_group_reduce_add: %u, want 10",
            own_out[i]);
   clReleaseMemObject(m);
   clReleaseKernel(k);
   clReleaseProgram(p);
   if (!khr)
      return;

   /* The pragma is quiet for cl_khr_subgroups alone: one for an
    * extension that 1.2 lacks, after it, still warns. */
   static const char *const pragma_src =
      "#pragma OPENCL EXTENSION cl_khr_subgroups : enable\n"
      "#pragma OPENCL EXTENSION cl_khr_srgb_image_writes : enable\n"
      "kernel void k(global uint *o) { o[get_global_id(0)] = get_sub_group_size(); }\n";
   err = kk_try_build(env, pragma_src, "-cl-std=CL1.2", &p);
   CHECK(err == CL_SUCCESS, "1.2 build with the pragmas: %d", err);
   if (p) {
      char *log = kk_build_log(p, env->device);
      CHECK(strstr(log, "'cl_khr_srgb_image_writes'"), "no warning for the unsupported pragma: %s",
            log);
      CHECK(!strstr(log, "'cl_khr_subgroups'"), "the cl_khr_subgroups pragma warns: %s", log);
      free(log);
      clReleaseProgram(p);
   }

   static const struct {
      const char *std;
      bool pragma, every_type;
   } builds[] = {
      {"-cl-std=CL1.2", true, true}, {"-cl-std=CL1.2", false, false},
      {"-cl-std=CL1.1", true, false}, {"-cl-std=CL1.0", false, false},
      {"", true, false}, /* no -cl-std: OpenCL C 1.2 */
      {"", false, false},
   };
   for (size_t b = 0; b < sizeof(builds) / sizeof(builds[0]); b++) {
      char base[128];
      snprintf(base, sizeof(base), "%s -Werror -DKHR_1X%s", builds[b].std,
               builds[b].pragma ? " -DPRAGMA" : "");
      for (enum type t = 0; t < (builds[b].every_type ? T_COUNT : 1); t++) {
         char opts[192];
         snprintf(opts, sizeof(opts), "%s -DT=%s -DPRE=sub_group_ -DSUB", base, type_names[t]);
         p = kk_build(env, arith_src, opts);
         k = kk_kernel(p, "arith");
         struct grid g[16];
         size_t n = make_grids(g, kernel_wg_size(env, k), true);
         for (size_t i = 0; i < n; i++)
            check_arith(env, k, t, &g[i], true);
         clReleaseKernel(k);
         clReleaseProgram(p);
      }
      p = kk_build(env, vote_src, base);
      k = kk_kernel(p, "vote");
      struct grid g[16];
      size_t n = make_grids(g, kernel_wg_size(env, k), true);
      for (size_t i = 0; i < n; i++)
         check_vote(env, k, &g[i]);
      clReleaseKernel(k);
      clReleaseProgram(p);
   }
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   cl_bool wgc = CL_FALSE, ifp = CL_FALSE;
   cl_uint max_sg = 0;
   REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT,
                              sizeof(wgc), &wgc, NULL));
   REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_MAX_NUM_SUB_GROUPS, sizeof(max_sg), &max_sg,
                              NULL));
   REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS,
                              sizeof(ifp), &ifp, NULL));
   bool khr = has_extension(&env, "cl_khr_subgroups");
   printf("collectives %s, max sub-groups %u, IFP %s, cl_khr_subgroups %s\n",
          wgc ? "yes" : "no", max_sg, ifp ? "yes" : "no", khr ? "yes" : "no");
   /* Kiln's CPU device has both (docs/subgroups.md); other devices may
    * lack them, consistently. */
   cl_device_type type = 0;
   REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_TYPE, sizeof(type), &type, NULL));
   if (type & CL_DEVICE_TYPE_CPU) {
      CHECK(wgc && max_sg == 1 && ifp && khr, "the CPU device lacks collectives or sub-groups");
      if (wgc)
         check_vectorized(&env);
   }
   /* The queries agree with each other and with the feature macros. */
   CHECK(has_feature(&env, "__opencl_c_work_group_collective_functions") == (wgc == CL_TRUE));
   CHECK(has_feature(&env, "__opencl_c_subgroups") == (max_sg > 0));
   CHECK(!khr || (max_sg > 0 && ifp), "cl_khr_subgroups needs sub-groups with IFP");
   CHECK(max_sg > 0 || !ifp);

   sub_group_info_fn khr_fn = (sub_group_info_fn)clGetExtensionFunctionAddressForPlatform(
      env.platform, "clGetKernelSubGroupInfoKHR");
   CHECK(!khr || khr_fn, "cl_khr_subgroups without clGetKernelSubGroupInfoKHR");

   /* A 1.2 device (the AMD one) refuses -cl-std=CL3.0 and
    * has neither feature; its kernels still answer the query. */
   char version[64] = "";
   REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_VERSION, sizeof(version), version, NULL));
   bool v3 = !strncmp(version, "OpenCL 3", 8);
   CHECK(v3 || (!wgc && !max_sg), "%s with collectives or sub-groups", version);
   cl_program plain =
      kk_build(&env, "kernel void k(global int *o) { o[0] = 1; }", v3 ? CL30 : NULL);
   cl_kernel kplain = kk_kernel(plain, "k");
   if (!max_sg) {
      size_t l = 1, v = 0;
      CHECK_ERR(clGetKernelSubGroupInfo(kplain, env.device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                                        sizeof(l), &l, sizeof(v), &v, NULL),
                CL_INVALID_OPERATION);
   } else {
      check_sub_group_info(&env, kplain, clGetKernelSubGroupInfo, "core");
      if (khr_fn)
         check_sub_group_info(&env, kplain, khr_fn, "KHR");
      check_core_info(&env, kplain);
   }

   /* Every type, and int once more without optimisation (the work-group
    * pass then sees the builtins' code as Clang left it). */
   for (int pass = 0; wgc && pass <= T_COUNT; pass++) {
      enum type t = pass < T_COUNT ? (enum type)pass : T_INT;
      char opts[160];
      snprintf(opts, sizeof(opts), CL30 " -DT=%s -DPRE=work_group_%s", type_names[t],
               pass < T_COUNT ? "" : " -cl-opt-disable");
      cl_program p = kk_build(&env, arith_src, opts);
      cl_kernel k = kk_kernel(p, "arith");
      struct grid g[16];
      size_t n = make_grids(g, kernel_wg_size(&env, k), false);
      for (size_t i = 0; i < n; i++)
         check_arith(&env, k, t, &g[i], false);
      clReleaseKernel(k);
      clReleaseProgram(p);
   }
   for (enum type t = 0; max_sg && t < T_COUNT; t++) {
      char opts[128];
      snprintf(opts, sizeof(opts), CL30 " -DT=%s -DPRE=sub_group_ -DSUB", type_names[t]);
      cl_program p = kk_build(&env, arith_src, opts);
      cl_kernel k = kk_kernel(p, "arith");
      struct grid g[16];
      size_t n = make_grids(g, kernel_wg_size(&env, k), false);
      for (size_t i = 0; i < n; i++)
         check_arith(&env, k, t, &g[i], true);
      clReleaseKernel(k);
      clReleaseProgram(p);
   }
   if (wgc && max_sg) {
      cl_program p = kk_build(&env, vote_src, CL30);
      cl_kernel k = kk_kernel(p, "vote");
      /* A kernel calling sub-group functions runs in groups (= sub-groups)
       * of at most 128 work-items; one with only work-group collectives
       * keeps the device's limit (docs/subgroups.md). */
      size_t dev_max = 0;
      REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(dev_max),
                                 &dev_max, NULL));
      size_t sg_max = kernel_wg_size(&env, k);
      CHECK(sg_max <= 128, "a sub-group kernel allows groups of %zu", sg_max);
      if (type & CL_DEVICE_TYPE_CPU)
         CHECK(sg_max == 128 && kernel_wg_size(&env, kplain) > 128,
               "group limits %zu (sub-groups) and %zu", sg_max, kernel_wg_size(&env, kplain));
      size_t count = 1, loc[3] = {0, 0, 0};
      REQUIRE_OK(clGetKernelSubGroupInfo(k, env.device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                                         sizeof(count), &count, sizeof(loc), loc, NULL));
      CHECK(loc[0] == sg_max, "local size for one sub-group %zu, kernel limit %zu", loc[0],
            sg_max);
      if (dev_max > sg_max) {
         size_t big = sg_max * 2 <= dev_max ? sg_max * 2 : dev_max;
         cl_mem tmp_in = kk_buffer_in(&env, big * sizeof(cl_int), NULL);
         cl_mem tmp_out = kk_buffer_in(&env, big * VOTES * sizeof(cl_uint), NULL);
         KK_ARG(k, 0, tmp_in);
         KK_ARG(k, 1, tmp_out);
         KK_LOCAL(k, 2, big * sizeof(cl_uint));
         CHECK_ERR(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &big, &big, 0, NULL, NULL),
                   CL_INVALID_WORK_GROUP_SIZE);
         clReleaseMemObject(tmp_in);
         clReleaseMemObject(tmp_out);
      }
      struct grid g[16];
      size_t n = make_grids(g, kernel_wg_size(&env, k), false);
      for (size_t i = 0; i < n; i++)
         check_vote(&env, k, &g[i]);
      /* What the kernel says of its sub-groups is what the API says. */
      size_t l = g[2].local[0], v = 0;
      REQUIRE_OK(clGetKernelSubGroupInfo(k, env.device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                         sizeof(l), &l, sizeof(v), &v, NULL));
      CHECK(v == l, "max sub-group size %zu for local size %zu", v, l);
      clReleaseKernel(k);
      clReleaseProgram(p);
   }
   check_khr_1x(&env, khr);
   clReleaseKernel(kplain);
   clReleaseProgram(plain);
   kt_teardown(&env);
   return kt_result();
}
