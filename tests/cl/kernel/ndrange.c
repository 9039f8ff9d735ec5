/* clEnqueueNDRangeKernel and clEnqueueTask (OpenCL 1.1 §5.8): 1, 2 and 3
 * dimensions, with and without global offsets and local sizes; every
 * work-item checks in with every work-item function (§6.11.1); the launch
 * errors; reqd_work_group_size. */
#include "kk.h"

static const char *source =
   "#define REC 24\n"
   "__kernel void ids(__global uint *o, __global uint *stray, uint4 off, uint4 gs)\n"
   "{\n"
   "  uint x = get_global_id(0) - off.x, y = get_global_id(1) - off.y,\n"
   "       z = get_global_id(2) - off.z;\n"
   "  if (x >= gs.x || y >= gs.y || z >= gs.z) { atomic_inc(stray); return; }\n"
   "  __global uint *r = o + REC * (x + gs.x * (y + gs.y * z));\n"
   "  uint dim = get_work_dim();\n"
   "  r[0] = dim;\n"
   "  for (uint d = 0; d < 3; d++) {\n"
   "    r[1 + d] = get_global_id(d); r[4 + d] = get_local_id(d); r[7 + d] = get_group_id(d);\n"
   "    r[10 + d] = get_global_size(d); r[13 + d] = get_local_size(d);\n"
   "    r[16 + d] = get_num_groups(d); r[19 + d] = get_global_offset(d);\n"
   "  }\n"
   "  atomic_inc(&r[22]);\n"
   "  /* Dimensions at or beyond work_dim, and the first invalid index. */\n"
   "  uint bad = 0;\n"
   "  for (uint d = dim; d < 5; d++) {\n"
   "    bad |= (get_global_id(d) != 0) << 0; bad |= (get_local_id(d) != 0) << 1;\n"
   "    bad |= (get_group_id(d) != 0) << 2; bad |= (get_global_size(d) != 1) << 3;\n"
   "    bad |= (get_local_size(d) != 1) << 4; bad |= (get_num_groups(d) != 1) << 5;\n"
   "    bad |= (get_global_offset(d) != 0) << 6;\n"
   "  }\n"
   "  r[23] = bad;\n"
   "}\n"
   "__kernel __attribute__((reqd_work_group_size(4, 2, 1)))\n"
   "void fixed(__global uint *o)\n"
   "{\n"
   "  uint i = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"
   "  o[3 * i] = get_local_size(0); o[3 * i + 1] = get_local_size(1);\n"
   "  o[3 * i + 2] = get_local_size(2);\n"
   "}\n"
   "__kernel void task(__global uint *o, uint v)\n"
   "{\n"
   "  o[0] = v; o[1] = get_work_dim(); o[2] = get_global_size(0); o[3] = get_local_size(0);\n"
   "  o[4] = get_global_id(0); o[5] = get_num_groups(0);\n"
   "}\n"
   "__kernel void big(__global uint *o) { o[get_global_id(0)] = get_global_id(0) * 3u; }\n";

#define REC 24
static cl_program prog;

static const char *fmt3(const size_t *v, cl_uint dim, char *buf)
{
   if (!v)
      return "NULL";
   sprintf(buf, "%zu", v[0]);
   for (cl_uint d = 1; d < dim; d++)
      sprintf(buf + strlen(buf), "x%zu", v[d]);
   return buf;
}

/* Runs "ids" and checks every work-item's record. */
static void ids_case(const struct kt_env *env, cl_uint dim, const size_t *offset,
                     const size_t *global, const size_t *local)
{
   char b1[64], b2[64], b3[64];
   char what[256];
   snprintf(what, sizeof(what), "%uD global %s offset %s local %s", dim, fmt3(global, dim, b1),
            fmt3(offset, dim, b2), fmt3(local, dim, b3));
   size_t G[3] = {1, 1, 1}, O[3] = {0, 0, 0};
   size_t total = 1;
   for (cl_uint d = 0; d < dim; d++) {
      G[d] = global[d];
      O[d] = offset ? offset[d] : 0;
      total *= G[d];
   }
   cl_kernel k = kk_kernel(prog, "ids");
   size_t bytes = total * REC * sizeof(cl_uint);
   cl_uint *rec = malloc(bytes);
   REQUIRE(rec);
   cl_mem m = kk_buffer_in(env, bytes, NULL);
   cl_mem stray = kk_buffer_in(env, sizeof(cl_uint), NULL);
   cl_uint4 off = {{(cl_uint)O[0], (cl_uint)O[1], (cl_uint)O[2], 0}};
   cl_uint4 gs = {{(cl_uint)G[0], (cl_uint)G[1], (cl_uint)G[2], 0}};
   KK_ARG(k, 0, m);
   KK_ARG(k, 1, stray);
   KK_ARG(k, 2, off);
   KK_ARG(k, 3, gs);
   cl_int err = kk_run(env, k, dim, offset, global, local);
   /* Again on the same kernel object, after clearing the records: the
    * same sizes once more take the kernel's remembered geometry
    * (api/ndrange_memo.h), which must give the same launch. */
   cl_uint zero = 0;
   if (err == CL_SUCCESS) {
      CHECK_OK(clEnqueueFillBuffer(env->queue, m, &zero, sizeof(zero), 0, bytes, 0, NULL, NULL));
      CHECK_OK(clEnqueueFillBuffer(env->queue, stray, &zero, sizeof(zero), 0, sizeof(zero), 0,
                                   NULL, NULL));
      err = kk_run(env, k, dim, offset, global, local);
   }
   if (err != CL_SUCCESS) {
      KT_FAIL("%s: clEnqueueNDRangeKernel returned %s", what, kt_err_name(err));
      goto out;
   }
   kk_read(env, m, bytes, rec);
   cl_uint nstray = 0;
   kk_read(env, stray, sizeof(nstray), &nstray);
   CHECK(nstray == 0, " %s: %u work-items had ids outside the range", what, nstray);

   /* The local size: as given, or as the driver chose (read from item 0,
    * then the same for everyone, and dividing the global size). */
   size_t L[3] = {1, 1, 1};
   for (cl_uint d = 0; d < 3; d++)
      L[d] = local && d < dim ? local[d] : rec[13 + d];
   for (cl_uint d = 0; d < 3; d++)
      if (!L[d] || G[d] % L[d]) {
         KT_FAIL("%s: local size %zu in dimension %u does not divide %zu", what, L[d], d, G[d]);
         goto out;
      }
   if (!local) {
      size_t lt = L[0] * L[1] * L[2];
      size_t maxwg = 0;
      CHECK_OK(clGetKernelWorkGroupInfo(k, env->device, CL_KERNEL_WORK_GROUP_SIZE,
                                        sizeof(maxwg), &maxwg, NULL));
      CHECK(lt <= maxwg, " %s: the driver chose %zu work-items per group (max %zu)", what, lt,
            maxwg);
   }
   int reported = 0;
   for (size_t z = 0; z < G[2]; z++)
      for (size_t y = 0; y < G[1]; y++)
         for (size_t x = 0; x < G[0]; x++) {
            size_t idx = x + G[0] * (y + G[1] * z);
            const cl_uint *r = rec + REC * idx;
            size_t pos[3] = {x, y, z};
            cl_uint want[REC];
            want[0] = dim;
            for (int d = 0; d < 3; d++) {
               want[1 + d] = (cl_uint)(O[d] + pos[d]);
               want[4 + d] = (cl_uint)(pos[d] % L[d]);
               want[7 + d] = (cl_uint)(pos[d] / L[d]);
               want[10 + d] = (cl_uint)G[d];
               want[13 + d] = (cl_uint)L[d];
               want[16 + d] = (cl_uint)(G[d] / L[d]);
               want[19 + d] = (cl_uint)O[d];
            }
            want[22] = 1;
            want[23] = 0;
            static const char *field[] = {
               "get_work_dim()", "get_global_id(0)", "get_global_id(1)", "get_global_id(2)",
               "get_local_id(0)", "get_local_id(1)", "get_local_id(2)", "get_group_id(0)",
               "get_group_id(1)", "get_group_id(2)", "get_global_size(0)",
               "get_global_size(1)", "get_global_size(2)", "get_local_size(0)",
               "get_local_size(1)", "get_local_size(2)", "get_num_groups(0)",
               "get_num_groups(1)", "get_num_groups(2)", "get_global_offset(0)",
               "get_global_offset(1)", "get_global_offset(2)", "number of runs",
               "out-of-range dimension results (bits: gid lid grp gsize lsize ngroups off)",
            };
            for (int f = 0; f < REC; f++)
               if (r[f] != want[f] && reported < 12) {
                  reported++;
                  KT_FAIL("%s: work-item (%zu,%zu,%zu): %s = %u, expected %u", what, x, y, z,
                          field[f], r[f], want[f]);
               }
         }
out:
   free(rec);
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseMemObject(stray));
   CHECK_OK(clReleaseKernel(k));
}

/* A geometry that differs from the kernel's last good one in any one
 * respect is checked in full (api/ndrange_memo.h remembers only what
 * passed): each error follows a good launch of nearly the same sizes. */
static void remembered_geometry(const struct kt_env *env)
{
   cl_kernel k = kk_kernel(prog, "big");
   cl_mem m = kk_buffer_in(env, 1 << 16, NULL);
   KK_ARG(k, 0, m);
   cl_command_queue q = env->queue;
   size_t maxwg = 0;
   CHECK_OK(clGetKernelWorkGroupInfo(k, env->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(maxwg),
                                     &maxwg, NULL));
   size_t g = 64, l = 8;
   for (int i = 0; i < 2; i++)
      CHECK_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL));
   CHECK_ERR(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, (size_t[]){7}, 0, NULL, NULL),
             CL_INVALID_WORK_GROUP_SIZE);
   CHECK_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL));
   CHECK_ERR(clEnqueueNDRangeKernel(q, k, 1, (size_t[]){SIZE_MAX - 3}, &g, &l, 0, NULL, NULL),
             CL_INVALID_GLOBAL_OFFSET);
   CHECK_OK(clEnqueueNDRangeKernel(q, k, 1, (size_t[]){0}, &g, &l, 0, NULL, NULL));
   CHECK_ERR(clEnqueueNDRangeKernel(q, k, 2, NULL, (size_t[]){64, 9}, (size_t[]){8, 2}, 0, NULL,
                                    NULL),
             CL_INVALID_WORK_GROUP_SIZE);
   CHECK_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL));
   CHECK_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, (size_t[]){2 * maxwg}, &maxwg, 0, NULL, NULL));
   CHECK_ERR(clEnqueueNDRangeKernel(q, k, 1, NULL, (size_t[]){2 * maxwg},
                                    (size_t[]){2 * maxwg}, 0, NULL, NULL),
             CL_INVALID_WORK_GROUP_SIZE);
   CHECK_OK(clFinish(q));
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseKernel(k));
}

static void shapes(const struct kt_env *env)
{
   size_t maxwg = 0;
   CHECK_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(maxwg), &maxwg,
                            NULL));
   /* 1D */
   ids_case(env, 1, NULL, (size_t[]){1000}, (size_t[]){8});
   ids_case(env, 1, (size_t[]){17}, (size_t[]){1000}, (size_t[]){40});
   ids_case(env, 1, NULL, (size_t[]){997}, NULL);
   ids_case(env, 1, (size_t[]){5}, (size_t[]){997}, NULL);
   ids_case(env, 1, NULL, (size_t[]){1}, NULL);
   ids_case(env, 1, NULL, (size_t[]){1}, (size_t[]){1});
   ids_case(env, 1, NULL, (size_t[]){2 * maxwg}, (size_t[]){maxwg});
   ids_case(env, 1, (size_t[]){0x7fff0000}, (size_t[]){4096}, NULL);
   /* 2D */
   ids_case(env, 2, NULL, (size_t[]){24, 10}, (size_t[]){4, 5});
   ids_case(env, 2, (size_t[]){3, 100}, (size_t[]){24, 10}, (size_t[]){6, 2});
   ids_case(env, 2, (size_t[]){1, 2}, (size_t[]){31, 17}, NULL);
   ids_case(env, 2, NULL, (size_t[]){64, 64}, NULL);
   ids_case(env, 2, NULL, (size_t[]){1, 50}, (size_t[]){1, 25});
   /* 3D */
   ids_case(env, 3, NULL, (size_t[]){6, 4, 10}, (size_t[]){3, 2, 5});
   ids_case(env, 3, (size_t[]){1, 2, 3}, (size_t[]){6, 4, 10}, (size_t[]){2, 4, 1});
   ids_case(env, 3, (size_t[]){7, 0, 9}, (size_t[]){5, 7, 11}, NULL);
   ids_case(env, 3, NULL, (size_t[]){16, 16, 16}, NULL);
   ids_case(env, 3, NULL, (size_t[]){1, 1, 33}, (size_t[]){1, 1, 11});
}

static void launch_errors(const struct kt_env *env)
{
   cl_kernel k = kk_kernel(prog, "big");
   cl_mem m = kk_buffer_in(env, 1 << 16, NULL);
   KK_ARG(k, 0, m);
   cl_command_queue q = env->queue;
   size_t maxwg = 0;
   CHECK_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(maxwg), &maxwg,
                            NULL));
   size_t items[3] = {0, 0, 0};
   CHECK_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof(items), items,
                            NULL));
   size_t kwg = 0;
   CHECK_OK(clGetKernelWorkGroupInfo(k, env->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(kwg), &kwg,
                                     NULL));
   size_t g1[3] = {64, 4, 2}, l1[3] = {8, 2, 2};

   CHECK_ERR(clEnqueueNDRangeKernel(q, k, 0, NULL, g1, l1, 0, NULL, NULL),
             CL_INVALID_WORK_DIMENSION);
   CHECK_ERR(clEnqueueNDRangeKernel(q, k, 4, NULL, (size_t[]){1, 1, 1, 1},
                                    (size_t[]){1, 1, 1, 1}, 0, NULL, NULL),
             CL_INVALID_WORK_DIMENSION);
   /* No work-items: an error before OpenCL 2.1, an empty launch since
    * (exec/cl30_api.c checks what one does). */
   char version[64] = "";
   CHECK_OK(clGetDeviceInfo(env->device, CL_DEVICE_VERSION, sizeof(version), version, NULL));
   int major = 0, minor = 0;
   sscanf(version, "OpenCL %d.%d", &major, &minor);
   cl_int no_items = major * 10 + minor >= 21 ? CL_SUCCESS : CL_INVALID_GLOBAL_WORK_SIZE;
   CHECK_ERR(clEnqueueNDRangeKernel(q, k, 1, NULL, NULL, NULL, 0, NULL, NULL), no_items);
   CHECK_ERR(clEnqueueNDRangeKernel(q, k, 1, NULL, (size_t[]){0}, NULL, 0, NULL, NULL), no_items);
   CHECK_ERR(clEnqueueNDRangeKernel(q, k, 2, NULL, (size_t[]){8, 0}, NULL, 0, NULL, NULL),
             no_items);
   CHECK_ERR(clEnqueueNDRangeKernel(q, k, 3, NULL, (size_t[]){8, 8, 0}, (size_t[]){1, 1, 1}, 0,
                                    NULL, NULL),
             no_items);
   /* Offset + size past SIZE_MAX. */
   CHECK_ERR(clEnqueueNDRangeKernel(q, k, 1, (size_t[]){SIZE_MAX - 3}, (size_t[]){8}, NULL, 0,
                                    NULL, NULL),
             CL_INVALID_GLOBAL_OFFSET);
   /* Non-dividing local sizes, in each dimension. */
   CHECK_ERR(clEnqueueNDRangeKernel(q, k, 1, NULL, (size_t[]){100}, (size_t[]){7}, 0, NULL, NULL),
             CL_INVALID_WORK_GROUP_SIZE);
   CHECK_ERR(clEnqueueNDRangeKernel(q, k, 2, NULL, (size_t[]){8, 9}, (size_t[]){8, 2}, 0, NULL,
                                    NULL),
             CL_INVALID_WORK_GROUP_SIZE);
   CHECK_ERR(clEnqueueNDRangeKernel(q, k, 3, NULL, (size_t[]){8, 8, 9}, (size_t[]){1, 1, 2}, 0,
                                    NULL, NULL),
             CL_INVALID_WORK_GROUP_SIZE);
   CHECK_ERR(clEnqueueNDRangeKernel(q, k, 1, NULL, (size_t[]){16}, (size_t[]){0}, 0, NULL, NULL),
             CL_INVALID_WORK_GROUP_SIZE);
   CHECK_ERR(clEnqueueNDRangeKernel(q, k, 1, NULL, (size_t[]){16}, (size_t[]){32}, 0, NULL, NULL),
             CL_INVALID_WORK_GROUP_SIZE);
   /* Too many work-items in a group, each dimension within its limit. */
   size_t side = 1;
   while (side * side <= kwg)
      side *= 2;
   if (side <= items[0] && side <= items[1]) {
      CHECK_ERR(clEnqueueNDRangeKernel(q, k, 2, NULL, (size_t[]){side, side},
                                       (size_t[]){side, side}, 0, NULL, NULL),
                CL_INVALID_WORK_GROUP_SIZE);
   }
   /* One dimension past its CL_DEVICE_MAX_WORK_ITEM_SIZES entry. */
   {
      size_t l = items[0] + 1, g = l * 2;
      cl_int err = clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL);
      /* Past the total too when items[0] == max: either error is right. */
      if (l > kwg)
         CHECK(err == CL_INVALID_WORK_ITEM_SIZE || err == CL_INVALID_WORK_GROUP_SIZE,
               " local %zu > max item size %zu and > max group %zu: %s", l, items[0], kwg,
               kt_err_name(err));
      else
         CHECK_ERR(err, CL_INVALID_WORK_ITEM_SIZE);
   }
   for (int d = 0; d < 3; d++)
      if (items[d] < kwg) {
         size_t g[3] = {1, 1, 1}, l[3] = {1, 1, 1};
         l[d] = items[d] + 1;
         g[d] = l[d];
         CHECK_ERR(clEnqueueNDRangeKernel(q, k, 3, NULL, g, l, 0, NULL, NULL),
                   CL_INVALID_WORK_ITEM_SIZE);
      }
   /* Bad handles. */
   CHECK_ERR(clEnqueueNDRangeKernel(NULL, k, 1, NULL, g1, NULL, 0, NULL, NULL),
             CL_INVALID_COMMAND_QUEUE);
   CHECK_ERR(clEnqueueNDRangeKernel(q, NULL, 1, NULL, g1, NULL, 0, NULL, NULL),
             CL_INVALID_KERNEL);
   CHECK_ERR(clEnqueueNDRangeKernel(q, k, 1, NULL, g1, NULL, 1, NULL, NULL),
             CL_INVALID_EVENT_WAIT_LIST);
   CHECK_ERR(clEnqueueNDRangeKernel(q, k, 1, NULL, g1, NULL, 0, (cl_event[]){NULL}, NULL),
             CL_INVALID_EVENT_WAIT_LIST);
   /* A queue of another context. */
   cl_context ctx2 = kt_context(env);
   cl_command_queue q2 = kt_queue(env, ctx2, 0);
   CHECK_ERR(clEnqueueNDRangeKernel(q2, k, 1, NULL, g1, NULL, 0, NULL, NULL),
             CL_INVALID_CONTEXT);
   CHECK_ERR(clEnqueueTask(q2, k, 0, NULL, NULL), CL_INVALID_CONTEXT);
   CHECK_OK(clReleaseCommandQueue(q2));
   CHECK_OK(clReleaseContext(ctx2));

   /* Nothing above ran: the buffer is still zero. */
   CHECK_OK(clFinish(q));
   cl_uint z[64];
   kk_read(env, m, sizeof(z), z);
   for (int i = 0; i < 64; i++)
      CHECK(z[i] == 0, " a refused enqueue ran: [%d] = %u", i, z[i]);

   /* The event of a launch. */
   cl_event ev;
   size_t n = 1 << 14;
   CHECK_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, &ev));
   CHECK_OK(clWaitForEvents(1, &ev));
   cl_command_type type = 0;
   CHECK_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL));
   CHECK(type == CL_COMMAND_NDRANGE_KERNEL, " command type 0x%x", type);
   CHECK(kt_status(ev) == CL_COMPLETE);
   CHECK_OK(clReleaseEvent(ev));
   cl_uint *big = malloc(n * sizeof(cl_uint));
   REQUIRE(big);
   kk_read(env, m, n * sizeof(cl_uint), big);
   for (size_t i = 0; i < n; i++)
      if (big[i] != i * 3u) {
         KT_FAIL("big: o[%zu] = %u", i, big[i]);
         break;
      }
   free(big);
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseKernel(k));
}

static void required_size(const struct kt_env *env)
{
   cl_kernel k = kk_kernel(prog, "fixed");
   cl_uint out[3 * 64];
   cl_mem m = kk_buffer_in(env, sizeof(out), NULL);
   KK_ARG(k, 0, m);
   cl_command_queue q = env->queue;
   size_t g[2] = {8, 8};
   CHECK_ERR(clEnqueueNDRangeKernel(q, k, 2, NULL, g, (size_t[]){2, 4}, 0, NULL, NULL),
             CL_INVALID_WORK_GROUP_SIZE);
   CHECK_ERR(clEnqueueNDRangeKernel(q, k, 2, NULL, g, (size_t[]){8, 1}, 0, NULL, NULL),
             CL_INVALID_WORK_GROUP_SIZE);
   CHECK_ERR(clEnqueueNDRangeKernel(q, k, 2, NULL, g, (size_t[]){4, 1}, 0, NULL, NULL),
             CL_INVALID_WORK_GROUP_SIZE);
   /* Global not a multiple of the required size, local left to the driver. */
   CHECK_ERR(clEnqueueNDRangeKernel(q, k, 2, NULL, (size_t[]){6, 8}, NULL, 0, NULL, NULL),
             CL_INVALID_WORK_GROUP_SIZE);
   CHECK_ERR(clEnqueueNDRangeKernel(q, k, 2, NULL, (size_t[]){8, 3}, NULL, 0, NULL, NULL),
             CL_INVALID_WORK_GROUP_SIZE);
   /* 1D launch of a kernel requiring 4x2x1: the local size is 4x1x1 then. */
   CHECK_ERR(clEnqueueNDRangeKernel(q, k, 1, NULL, (size_t[]){8}, (size_t[]){4}, 0, NULL, NULL),
             CL_INVALID_WORK_GROUP_SIZE);

   CHECK_OK(kk_run(env, k, 2, NULL, g, (size_t[]){4, 2}));
   kk_read(env, m, sizeof(out), out);
   for (int i = 0; i < 64; i++)
      CHECK(out[3 * i] == 4 && out[3 * i + 1] == 2 && out[3 * i + 2] == 1,
            " explicit 4x2: item %d sees local size %ux%ux%u", i, out[3 * i], out[3 * i + 1],
            out[3 * i + 2]);
   memset(out, 0, sizeof(out));
   REQUIRE_OK(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL));
   /* With local NULL the driver must use the required size. */
   CHECK_OK(kk_run(env, k, 2, NULL, g, NULL));
   kk_read(env, m, sizeof(out), out);
   for (int i = 0; i < 64; i++)
      CHECK(out[3 * i] == 4 && out[3 * i + 1] == 2 && out[3 * i + 2] == 1,
            " local NULL: item %d sees local size %ux%ux%u, the kernel requires 4x2x1", i,
            out[3 * i], out[3 * i + 1], out[3 * i + 2]);
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseKernel(k));
}

static void task(const struct kt_env *env)
{
   cl_kernel k = kk_kernel(prog, "task");
   cl_uint out[6] = {0};
   cl_mem m = kk_buffer_in(env, sizeof(out), NULL);
   KK_ARG(k, 0, m);
   cl_uint v = 0xc0ffee;
   KK_ARG(k, 1, v);
   cl_event ev;
   CHECK_OK(clEnqueueTask(env->queue, k, 0, NULL, &ev));
   CHECK_OK(clWaitForEvents(1, &ev));
   cl_command_type type = 0;
   CHECK_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL));
   /* src/api/enqueue.c: clEnqueueTask goes through enqueue_ndrange, which
    * always records CL_COMMAND_NDRANGE_KERNEL. */
   CHECK(type == CL_COMMAND_TASK, "clEnqueueTask's event has command type 0x%x, expected "
             "CL_COMMAND_TASK (0x%x)", type, CL_COMMAND_TASK);
   CHECK_OK(clReleaseEvent(ev));
   kk_read(env, m, sizeof(out), out);
   CHECK(out[0] == v, " the task did not run (%x)", out[0]);
   CHECK(out[1] == 1 && out[2] == 1 && out[3] == 1 && out[4] == 0 && out[5] == 1,
         " task: work_dim %u, global %u, local %u, id %u, groups %u", out[1], out[2], out[3],
         out[4], out[5]);
   /* A task of a kernel that requires a larger work-group is refused. */
   cl_kernel f = kk_kernel(prog, "fixed");
   KK_ARG(f, 0, m);
   CHECK_ERR(clEnqueueTask(env->queue, f, 0, NULL, NULL), CL_INVALID_WORK_GROUP_SIZE);
   CHECK_ERR(clEnqueueTask(NULL, k, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
   CHECK_ERR(clEnqueueTask(env->queue, NULL, 0, NULL, NULL), CL_INVALID_KERNEL);
   CHECK_OK(clReleaseKernel(f));
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseKernel(k));
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   prog = kk_build(&env, source, NULL);
   shapes(&env);
   remembered_geometry(&env);
   launch_errors(&env);
   required_size(&env);
   task(&env);
   CHECK_OK(clReleaseProgram(prog));
   kt_teardown(&env);
   return kt_result();
}
