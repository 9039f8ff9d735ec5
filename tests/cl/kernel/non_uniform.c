/* Non-uniform work-groups (OpenCL 2.0+, 3.0's optional
 * CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT): with a program of OpenCL C
 * 3.0, a local size that does not divide the global size makes the last
 * group of each such dimension smaller.  Every work-item of 1D, 2D and 3D
 * launches (with a global offset, a NULL local size, a barrier and
 * __local memory in the groups) records what the work-item functions say
 * and the host checks each against the grid it asked for.  OpenCL C 1.2
 * programs and -cl-uniform-work-group-size keep 1.x's
 * CL_INVALID_WORK_GROUP_SIZE, as does a device without the support. */
#define CL_TARGET_OPENCL_VERSION 300
#include <stdlib.h>
#include <string.h>

#include "kk.h"

/* Per work-item: global id, local id, group id, local size, enqueued
 * local size, number of groups (3 each), and the sum of the group's local
 * ids in x after a barrier (every work-item of the group took part). */
enum { F_GID, F_LID = 3, F_GRP = 6, F_LSZ = 9, F_ELS = 12, F_NGR = 15, F_SUM = 18, FIELDS };

static const char *src =
   "kernel void record(global ulong *out, local ulong *tmp)\n"
   "{\n"
   "  size_t lin = get_global_linear_id();\n"
   "  global ulong *o = out + lin * 19;\n"
   "  for (uint d = 0; d < 3; d++) {\n"
   "    o[0 + d] = get_global_id(d);\n"
   "    o[3 + d] = get_local_id(d);\n"
   "    o[6 + d] = get_group_id(d);\n"
   "    o[9 + d] = get_local_size(d);\n"
   "    o[12 + d] = get_enqueued_local_size(d);\n"
   "    o[15 + d] = get_num_groups(d);\n"
   "  }\n"
   "  size_t l = get_local_linear_id();\n"
   "  tmp[l] = get_local_id(0);\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  ulong s = 0;\n"
   "  size_t n = get_local_size(0) * get_local_size(1) * get_local_size(2);\n"
   "  for (size_t i = 0; i < n; i++) s += tmp[i];\n"
   "  o[18] = s;\n"
   "}\n";

static int check_grid(const struct kt_env *env, cl_kernel k, cl_uint dim, const size_t off[3],
                      const size_t global[3], const size_t *local_in)
{
   size_t items = global[0] * global[1] * global[2];
   cl_mem out = kk_buffer_in(env, items * FIELDS * 8, NULL);
   KK_ARG(k, 0, out);
   size_t lmax = 1;
   for (int d = 0; d < 3; d++)
      lmax *= local_in ? local_in[d] : global[d];
   KK_LOCAL(k, 1, lmax * 8);
   cl_int err = kk_run(env, k, dim, off, global, local_in);
   CHECK_OK(err);
   if (err) {
      clReleaseMemObject(out);
      return 1;
   }
   uint64_t *r = malloc(items * FIELDS * 8);
   kk_read(env, out, items * FIELDS * 8, r);
   size_t local[3];
   for (int d = 0; d < 3; d++)
      local[d] = r[F_ELS + d]; /* NULL: what the runtime chose */
   int bad = 0;
   for (size_t z = 0; z < global[2]; z++)
      for (size_t y = 0; y < global[1]; y++)
         for (size_t x = 0; x < global[0]; x++) {
            const uint64_t *o = r + ((z * global[1] + y) * global[0] + x) * FIELDS;
            size_t id[3] = {x, y, z};
            uint64_t sum = 0;
            size_t lsz[3];
            for (int d = 0; d < 3; d++) {
               size_t g = id[d] / local[d], ng = (global[d] + local[d] - 1) / local[d];
               lsz[d] = g + 1 < ng ? local[d] : global[d] - g * local[d];
               /* Unused dimensions have no offset. */
               if (o[F_GID + d] != id[d] + ((cl_uint)d < dim ? off[d] : 0) || o[F_LID + d] != id[d] % local[d] ||
                   o[F_GRP + d] != g || o[F_LSZ + d] != lsz[d] || o[F_NGR + d] != ng ||
                   (local_in && o[F_ELS + d] != local_in[d])) {
                  if (bad++ < 4)
                     KT_FAIL("dim %u item (%zu,%zu,%zu) d%d: gid %llu lid %llu grp %llu lsz "
                             "%llu els %llu ngr %llu",
                             dim, x, y, z, d, (unsigned long long)o[F_GID + d],
                             (unsigned long long)o[F_LID + d], (unsigned long long)o[F_GRP + d],
                             (unsigned long long)o[F_LSZ + d], (unsigned long long)o[F_ELS + d],
                             (unsigned long long)o[F_NGR + d]);
               }
            }
            for (size_t i = 0; i < lsz[0]; i++)
               sum += i;
            sum *= lsz[1] * lsz[2];
            if (o[F_SUM] != sum && bad++ < 4)
               KT_FAIL("dim %u item (%zu,%zu,%zu): group sum %llu, want %llu", dim, x, y, z,
                       (unsigned long long)o[F_SUM], (unsigned long long)sum);
         }
   free(r);
   clReleaseMemObject(out);
   return bad;
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   cl_bool support = CL_FALSE;
   REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT,
                              sizeof(support), &support, NULL));
   char version[64] = "";
   REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_VERSION, sizeof(version), version, NULL));
   bool v3 = !strncmp(version, "OpenCL 3", 8);
   printf("%s, non-uniform work-groups: %s\n", version, support ? "yes" : "no");
   size_t one[3] = {1, 1, 1}, zero[3] = {0, 0, 0};

   /* OpenCL C 1.2: uniform work-groups only, on any device. */
   cl_program p12 = kk_build(&env,
                             "kernel void record(global ulong *out, local ulong *tmp)\n"
                             "{ out[get_global_id(0)] = 1; }\n",
                             NULL);
   cl_kernel k12 = kk_kernel(p12, "record");
   cl_mem dummy = kk_buffer_in(&env, 100 * FIELDS * 8, NULL);
   KK_ARG(k12, 0, dummy);
   KK_LOCAL(k12, 1, 64 * 8);
   size_t g100[3] = {100, 1, 1}, l16[3] = {16, 1, 1};
   CHECK_ERR(clEnqueueNDRangeKernel(env.queue, k12, 1, NULL, g100, l16, 0, NULL, NULL),
             CL_INVALID_WORK_GROUP_SIZE);
   if (v3) {
      cl_program pu = kk_build(&env, src, "-cl-std=CL3.0 -cl-uniform-work-group-size");
      cl_kernel ku = kk_kernel(pu, "record");
      KK_ARG(ku, 0, dummy);
      KK_LOCAL(ku, 1, 64 * 8);
      CHECK_ERR(clEnqueueNDRangeKernel(env.queue, ku, 1, NULL, g100, l16, 0, NULL, NULL),
                CL_INVALID_WORK_GROUP_SIZE);
      clReleaseKernel(ku);
      clReleaseProgram(pu);

      cl_program p = kk_build(&env, src, "-cl-std=CL3.0");
      cl_kernel k = kk_kernel(p, "record");
      if (!support) {
         KK_ARG(k, 0, dummy);
         KK_LOCAL(k, 1, 64 * 8);
         CHECK_ERR(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, g100, l16, 0, NULL, NULL),
                   CL_INVALID_WORK_GROUP_SIZE);
      } else {
         size_t off[3] = {5, 7, 3};
         check_grid(&env, k, 1, zero, g100, l16);            /* 6 x 16 + 4 */
         size_t g2[3] = {37, 11, 1}, l2[3] = {8, 4, 1};       /* 4x8+5, 2x4+3 */
         check_grid(&env, k, 2, off, g2, l2);
         size_t g3[3] = {9, 5, 7}, l3[3] = {4, 2, 3};
         check_grid(&env, k, 3, off, g3, l3);
         size_t g1[3] = {3, 1, 1}, l1[3] = {8, 1, 1};         /* one partial group */
         check_grid(&env, k, 1, zero, g1, l1);
         check_grid(&env, k, 1, zero, g100, NULL);            /* runtime's choice */
         check_grid(&env, k, 1, zero, one, one);
         /* The same program through a binary keeps the permission. */
         size_t bsize = 0;
         REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(bsize), &bsize, NULL));
         unsigned char *bin = malloc(bsize);
         REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL));
         cl_int st, err;
         const unsigned char *bins[1] = {bin};
         cl_program pb =
            clCreateProgramWithBinary(env.context, 1, &env.device, &bsize, bins, &st, &err);
         REQUIRE_OK(err);
         REQUIRE_OK(clBuildProgram(pb, 1, &env.device, NULL, NULL, NULL));
         cl_kernel kb = kk_kernel(pb, "record");
         check_grid(&env, kb, 2, off, g2, l2);
         clReleaseKernel(kb);
         clReleaseProgram(pb);
         free(bin);
      }
      clReleaseKernel(k);
      clReleaseProgram(p);
   }
   clReleaseMemObject(dummy);
   clReleaseKernel(k12);
   clReleaseProgram(p12);
   kt_teardown(&env);
   return kt_result();
}
