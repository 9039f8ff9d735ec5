/* Pipes (OpenCL 3.0 §5.3 and OpenCL C §6.15.15, __opencl_c_pipes) on a
 * device that reports them (Kiln's CPU device); a device that does not
 * must refuse them exactly as 3.0 says.
 *
 * API: clCreatePipe's errors in the spec's order, clGetPipeInfo,
 * clGetMemObjectInfo on a pipe, buffer commands refusing a pipe, pipe
 * kernel arguments (clSetKernelArg and clGetKernelArgInfo).
 * Kernels: a producer launch fills a pipe and a consumer launch empties
 * it, for every pair of write and read forms (read_pipe/write_pipe with 2
 * and 4 arguments, reservations of one and two packets, the work-group
 * and sub-group reservations), with packets of three shapes (int; a
 * 3-byte struct of alignment 1; long16, 128 bytes); every packet must come
 * out exactly once and whole.  Also: a full pipe refuses writes and an
 * empty one reads, get_pipe_num_packets/get_pipe_max_packets, and commits
 * made out of reservation order.  With the argument `devices`: a pipe
 * filled on one device of a context and emptied on another. */
#define CL_TARGET_OPENCL_VERSION 300
#include "kk.h"

#define CL30 "-cl-std=CL3.0"
#define N 4096   /* work-items of a launch: many work-groups on many threads */
#define LOCAL 16 /* work-group (and so sub-group) size */

static const char *src =
   "typedef struct { char c[3]; } s3;\n"
   "#if KIND == 0\n"
   "typedef int T;\n"
   "T mk(int v) { return v; }\n"
   "int key(T t) { return t; }\n"
   "#elif KIND == 1\n"
   "typedef s3 T;\n"
   "T mk(int v) { T t; t.c[0] = (char)v; t.c[1] = (char)(v >> 8); t.c[2] = (char)(v * 7); return t; }\n"
   "int key(T t) { int v = (uchar)t.c[0] | (uchar)t.c[1] << 8;\n"
   "               return t.c[2] == (char)(v * 7) ? v : -1; }\n"
   "#else\n"
   "typedef long16 T;\n"
   "T mk(int v) { return (long16)(v) * 3 + (long16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15); }\n"
   "int key(T t) { long16 d = t - (long16)(t.s0); int v = (int)(t.s0 / 3);\n"
   "  return all(d == (long16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)) && t.s0 % 3 == 0\n"
   "         ? v : -1; }\n"
   "#endif\n"
   "\n"
   /* Writers: ok[gid] is 1 where the work-item's packet went in. */
   "kernel void w2(write_only pipe T p, global int *ok)\n"
   "{ int g = get_global_id(0); T v = mk(g); ok[g] = write_pipe(p, &v) == 0; }\n"
   "kernel void w_res(write_only pipe T p, global int *ok)\n"
   "{ int g = get_global_id(0); int s = 0; reserve_id_t r = reserve_write_pipe(p, 1);\n"
   "  if (is_valid_reserve_id(r)) { T v = mk(g); s = write_pipe(p, r, 0, &v) == 0; commit_write_pipe(p, r); }\n"
   "  ok[g] = s; }\n"
   /* Two packets per work-item, the second one written first. */
   "kernel void w_res2(write_only pipe T p, global int *ok)\n"
   "{ int g = get_global_id(0); int s = 0; reserve_id_t r = reserve_write_pipe(p, 2);\n"
   "  if (is_valid_reserve_id(r)) { T a = mk(2 * g), b = mk(2 * g + 1);\n"
   "    s = write_pipe(p, r, 1, &b) == 0 && write_pipe(p, r, 0, &a) == 0; commit_write_pipe(p, r); }\n"
   "  ok[2 * g] = ok[2 * g + 1] = s; }\n"
   "kernel void w_wg(write_only pipe T p, global int *ok)\n"
   "{ int g = get_global_id(0); int s = 0;\n"
   "  reserve_id_t r = work_group_reserve_write_pipe(p, get_local_size(0));\n"
   "  if (is_valid_reserve_id(r)) { T v = mk(g); s = write_pipe(p, r, get_local_id(0), &v) == 0;\n"
   "    work_group_commit_write_pipe(p, r); }\n"
   "  ok[g] = s; }\n"
   "kernel void w_sg(write_only pipe T p, global int *ok)\n"
   "{ int g = get_global_id(0); int s = 0;\n"
   "  reserve_id_t r = sub_group_reserve_write_pipe(p, get_sub_group_size());\n"
   "  if (is_valid_reserve_id(r)) { T v = mk(g); s = write_pipe(p, r, get_sub_group_local_id(), &v) == 0;\n"
   "    sub_group_commit_write_pipe(p, r); }\n"
   "  ok[g] = s; }\n"
   /* Reservations committed out of order: odd work-items first. */
   "kernel void w_shuffled(write_only pipe T p, global int *ok)\n"
   "{ int g = get_global_id(0); reserve_id_t r = reserve_write_pipe(p, 1);\n"
   "  int s = is_valid_reserve_id(r); T v = mk(g); if (s) s = write_pipe(p, r, 0, &v) == 0;\n"
   "  barrier(CLK_GLOBAL_MEM_FENCE);\n"
   "  if (s && (get_local_id(0) & 1)) commit_write_pipe(p, r);\n"
   "  barrier(CLK_GLOBAL_MEM_FENCE);\n"
   "  if (s && !(get_local_id(0) & 1)) commit_write_pipe(p, r);\n"
   "  ok[g] = s; }\n"
   /* Readers: out[gid] is the packet's key, -2 where nothing was read. */
   "kernel void r2(read_only pipe T p, global int *out)\n"
   "{ int g = get_global_id(0); T v; out[g] = read_pipe(p, &v) == 0 ? key(v) : -2; }\n"
   "kernel void r_res(read_only pipe T p, global int *out)\n"
   "{ int g = get_global_id(0); int k = -2; reserve_id_t r = reserve_read_pipe(p, 1);\n"
   "  if (is_valid_reserve_id(r)) { T v; k = read_pipe(p, r, 0, &v) == 0 ? key(v) : -3; commit_read_pipe(p, r); }\n"
   "  out[g] = k; }\n"
   "kernel void r_res2(read_only pipe T p, global int *out)\n"
   "{ int g = get_global_id(0); int a = -2, b = -2; reserve_id_t r = reserve_read_pipe(p, 2);\n"
   "  if (is_valid_reserve_id(r)) { T x, y; a = read_pipe(p, r, 1, &y) == 0 ? key(y) : -3;\n"
   "    b = read_pipe(p, r, 0, &x) == 0 ? key(x) : -3; commit_read_pipe(p, r); }\n"
   "  out[2 * g] = a; out[2 * g + 1] = b; }\n"
   "kernel void r_wg(read_only pipe T p, global int *out)\n"
   "{ int g = get_global_id(0); int k = -2;\n"
   "  reserve_id_t r = work_group_reserve_read_pipe(p, get_local_size(0));\n"
   "  if (is_valid_reserve_id(r)) { T v; k = read_pipe(p, r, get_local_id(0), &v) == 0 ? key(v) : -3;\n"
   "    work_group_commit_read_pipe(p, r); }\n"
   "  out[g] = k; }\n"
   "kernel void r_sg(read_only pipe T p, global int *out)\n"
   "{ int g = get_global_id(0); int k = -2;\n"
   "  reserve_id_t r = sub_group_reserve_read_pipe(p, get_sub_group_size());\n"
   "  if (is_valid_reserve_id(r)) { T v; k = read_pipe(p, r, get_sub_group_local_id(), &v) == 0 ? key(v) : -3;\n"
   "    sub_group_commit_read_pipe(p, r); }\n"
   "  out[g] = k; }\n"
   "kernel void query_r(read_only pipe T p, global int *o)\n"
   "{ o[0] = get_pipe_num_packets(p); o[1] = get_pipe_max_packets(p); }\n"
   "kernel void query_w(write_only pipe T p, global int *o)\n"
   "{ o[0] = get_pipe_num_packets(p); o[1] = get_pipe_max_packets(p); }\n"
   "kernel void not_a_pipe(global int *o) { o[0] = 1; }\n";

static const size_t packet_sizes[] = {4, 3, 128};

struct form {
   const char *name;
   unsigned per_item; /* packets each work-item moves */
};
static const struct form writers[] = {
   {"w2", 1}, {"w_res", 1}, {"w_res2", 2}, {"w_wg", 1}, {"w_sg", 1}, {"w_shuffled", 1}};
static const struct form readers[] = {
   {"r2", 1}, {"r_res", 1}, {"r_res2", 2}, {"r_wg", 1}, {"r_sg", 1}};

static void run(const struct kt_env *e, cl_kernel k, cl_mem pipe, cl_mem buf, size_t items)
{
   KK_ARG(k, 0, pipe);
   KK_ARG(k, 1, buf);
   size_t global = items, local = LOCAL;
   KK_RUN(e, k, 1, NULL, &global, &local);
}

static void query(const struct kt_env *e, cl_program p, const char *name, cl_mem pipe,
                  int *out)
{
   cl_kernel k = kk_kernel(p, name);
   cl_mem o = kk_buffer_in(e, 2 * sizeof(int), NULL);
   KK_ARG(k, 0, pipe);
   KK_ARG(k, 1, o);
   size_t one = 1;
   KK_RUN(e, k, 1, NULL, &one, NULL);
   kk_read(e, o, 2 * sizeof(int), out);
   clReleaseMemObject(o);
   clReleaseKernel(k);
}

/* Every key in 0..n-1 exactly once in out[0..n) (-1: a torn packet). */
static void check_all_once(const int *out, int n, const char *what)
{
   char *seen = calloc((size_t)n, 1);
   REQUIRE(seen);
   int bad = 0, first_bad = -1;
   for (int i = 0; i < n; i++) {
      if (out[i] < 0 || out[i] >= n || seen[out[i]]) {
         if (!bad++)
            first_bad = i;
         continue;
      }
      seen[out[i]] = 1;
   }
   CHECK(!bad, "%s: %d wrong packets, first out[%d] = %d", what, bad, first_bad,
         first_bad >= 0 ? out[first_bad] : 0);
   free(seen);
}

/* Producer launch, queries, consumer launch, for one pair of forms. */
static void pair(const struct kt_env *e, cl_program p, int kind, const struct form *w,
                 const struct form *r)
{
   char what[96];
   snprintf(what, sizeof(what), "packet kind %d, %s then %s", kind, w->name, r->name);
   cl_int err;
   cl_mem pipe = clCreatePipe(e->context, 0, (cl_uint)packet_sizes[kind], N, NULL, &err);
   REQUIRE(pipe && err == CL_SUCCESS, "%s", kt_err_name(err));
   cl_mem ok = kk_buffer_in(e, N * sizeof(int), NULL);
   cl_mem out = kk_buffer_in(e, N * sizeof(int), NULL);
   cl_kernel wk = kk_kernel(p, w->name), rk = kk_kernel(p, r->name);

   run(e, wk, pipe, ok, N / w->per_item);
   int *host = malloc(N * sizeof(int));
   REQUIRE(host);
   kk_read(e, ok, N * sizeof(int), host);
   int written = 0;
   for (int i = 0; i < N; i++)
      written += host[i] == 1;
   CHECK(written == N, "%s: %d packets written", what, written);
   int q[2];
   query(e, p, "query_r", pipe, q);
   CHECK(q[0] == N && q[1] == N, "%s: num %d, max %d", what, q[0], q[1]);

   run(e, rk, pipe, out, N / r->per_item);
   kk_read(e, out, N * sizeof(int), host);
   check_all_once(host, N, what);
   query(e, p, "query_w", pipe, q);
   CHECK(q[0] == 0 && q[1] == N, "%s: num %d, max %d after reading", what, q[0], q[1]);

   free(host);
   clReleaseKernel(wk);
   clReleaseKernel(rk);
   clReleaseMemObject(ok);
   clReleaseMemObject(out);
   clReleaseMemObject(pipe);
}

/* A pipe of N / 2 packets: half the writes fail (whole work-groups for
 * the group form), and reading N finds exactly those written. */
static void full_and_empty(const struct kt_env *e, cl_program p, const char *wname,
                           const char *rname)
{
   cl_int err;
   cl_mem pipe = clCreatePipe(e->context, 0, 4, N / 2, NULL, &err);
   REQUIRE(pipe && err == CL_SUCCESS, "%s", kt_err_name(err));
   cl_mem ok = kk_buffer_in(e, N * sizeof(int), NULL);
   cl_mem out = kk_buffer_in(e, N * sizeof(int), NULL);
   cl_kernel wk = kk_kernel(p, wname), rk = kk_kernel(p, rname);
   run(e, wk, pipe, ok, N);
   int *okh = malloc(N * sizeof(int)), *outh = malloc(N * sizeof(int));
   REQUIRE(okh && outh);
   kk_read(e, ok, N * sizeof(int), okh);
   int written = 0;
   for (int i = 0; i < N; i++)
      written += okh[i];
   CHECK(written == N / 2, "%s into a pipe of %d: %d written", wname, N / 2, written);
   run(e, rk, pipe, out, N);
   kk_read(e, out, N * sizeof(int), outh);
   int read = 0, wrong = 0, empty = 0;
   for (int i = 0; i < N; i++) {
      if (outh[i] == -2)
         empty++;
      else if (outh[i] < 0 || outh[i] >= N || !okh[outh[i]])
         wrong++;
      else
         read++, okh[outh[i]] = 0; /* each at most once */
   }
   CHECK(read == N / 2 && empty == N / 2 && !wrong, "%s/%s: %d read, %d empty, %d wrong", wname,
         rname, read, empty, wrong);
   free(okh);
   free(outh);
   clReleaseKernel(wk);
   clReleaseKernel(rk);
   clReleaseMemObject(ok);
   clReleaseMemObject(out);
   clReleaseMemObject(pipe);
}

static void api(const struct kt_env *e, cl_program p)
{
   cl_int err;
   cl_uint max_packet = 0;
   REQUIRE_OK(clGetDeviceInfo(e->device, CL_DEVICE_PIPE_MAX_PACKET_SIZE, sizeof(max_packet),
                              &max_packet, NULL));
   cl_mem m = clCreatePipe(NULL, 0, 4, 4, NULL, &err);
   CHECK(!m && err == CL_INVALID_CONTEXT, "%s", kt_err_name(err));
   static const cl_mem_flags bad_flags[] = {CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY,
                                            CL_MEM_COPY_HOST_PTR, CL_MEM_HOST_READ_ONLY,
                                            CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR};
   for (size_t i = 0; i < sizeof(bad_flags) / sizeof(bad_flags[0]); i++) {
      m = clCreatePipe(e->context, bad_flags[i], 4, 4, NULL, &err);
      CHECK(!m && err == CL_INVALID_VALUE, "flags 0x%llx: %s",
            (unsigned long long)bad_flags[i], kt_err_name(err));
   }
   const cl_pipe_properties empty[] = {0};
   m = clCreatePipe(e->context, 0, 4, 4, empty, &err);
   CHECK(!m && err == CL_INVALID_VALUE, "properties: %s", kt_err_name(err));
   /* Flags come before sizes. */
   m = clCreatePipe(e->context, CL_MEM_READ_ONLY, 0, 0, NULL, &err);
   CHECK(!m && err == CL_INVALID_VALUE, "%s", kt_err_name(err));
   m = clCreatePipe(e->context, 0, 0, 4, NULL, &err);
   CHECK(!m && err == CL_INVALID_PIPE_SIZE, "packet size 0: %s", kt_err_name(err));
   m = clCreatePipe(e->context, 0, max_packet + 1, 4, NULL, &err);
   CHECK(!m && err == CL_INVALID_PIPE_SIZE, "packet size %u: %s", max_packet + 1,
         kt_err_name(err));
   m = clCreatePipe(e->context, 0, 4, 0, NULL, &err);
   CHECK(!m && err == CL_INVALID_PIPE_SIZE, "0 packets: %s", kt_err_name(err));
   m = clCreatePipe(e->context, 0, max_packet, 0xffffffffu, NULL, &err);
   CHECK(!m && err == CL_MEM_OBJECT_ALLOCATION_FAILURE, "4 Gi packets: %s", kt_err_name(err));

   static const cl_mem_flags good_flags[] = {0, CL_MEM_READ_WRITE, CL_MEM_HOST_NO_ACCESS,
                                             CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS};
   for (size_t i = 0; i < sizeof(good_flags) / sizeof(good_flags[0]); i++) {
      m = clCreatePipe(e->context, good_flags[i], max_packet, 3, NULL, &err);
      CHECK(m && err == CL_SUCCESS, "flags 0x%llx: %s", (unsigned long long)good_flags[i],
            kt_err_name(err));
      if (m)
         clReleaseMemObject(m);
   }

   cl_mem pipe = clCreatePipe(e->context, CL_MEM_HOST_NO_ACCESS, 12, 100, NULL, &err);
   REQUIRE(pipe && err == CL_SUCCESS, "%s", kt_err_name(err));
   cl_uint u = 0;
   size_t size = 0;
   CHECK_OK(clGetPipeInfo(pipe, CL_PIPE_PACKET_SIZE, sizeof(u), &u, &size));
   CHECK(u == 12 && size == sizeof(cl_uint), "%u, size %zu", u, size);
   CHECK_OK(clGetPipeInfo(pipe, CL_PIPE_MAX_PACKETS, sizeof(u), &u, NULL));
   CHECK(u == 100, "%u", u);
   size = 99;
   CHECK_OK(clGetPipeInfo(pipe, CL_PIPE_PROPERTIES, 0, NULL, &size));
   CHECK(size == 0, "CL_PIPE_PROPERTIES size %zu", size);
   CHECK_ERR(clGetPipeInfo(pipe, CL_PIPE_PACKET_SIZE, 2, &u, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clGetPipeInfo(pipe, 0x1234, sizeof(u), &u, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clGetPipeInfo(NULL, CL_PIPE_PACKET_SIZE, sizeof(u), &u, NULL),
             CL_INVALID_MEM_OBJECT);
   cl_mem buf = kk_buffer_in(e, 64, NULL);
   CHECK_ERR(clGetPipeInfo(buf, CL_PIPE_PACKET_SIZE, sizeof(u), &u, NULL),
             CL_INVALID_MEM_OBJECT);

   cl_mem_object_type type = 0;
   CHECK_OK(clGetMemObjectInfo(pipe, CL_MEM_TYPE, sizeof(type), &type, NULL));
   CHECK(type == CL_MEM_OBJECT_PIPE, "CL_MEM_TYPE 0x%x", type);
   cl_mem_flags flags = 0;
   CHECK_OK(clGetMemObjectInfo(pipe, CL_MEM_FLAGS, sizeof(flags), &flags, NULL));
   CHECK(flags == (CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS), "flags 0x%llx",
         (unsigned long long)flags);
   size_t msize = 0;
   CHECK_OK(clGetMemObjectInfo(pipe, CL_MEM_SIZE, sizeof(msize), &msize, NULL));
   CHECK(msize >= 12 * 100, "CL_MEM_SIZE %zu", msize);
   cl_context ctx = NULL;
   CHECK_OK(clGetMemObjectInfo(pipe, CL_MEM_CONTEXT, sizeof(ctx), &ctx, NULL));
   CHECK(ctx == e->context);

   /* Not a buffer: the host cannot read, write, map or cut it. */
   char bytes[16];
   CHECK_ERR(clEnqueueReadBuffer(e->queue, pipe, CL_TRUE, 0, 4, bytes, 0, NULL, NULL),
             CL_INVALID_MEM_OBJECT);
   CHECK_ERR(clEnqueueWriteBuffer(e->queue, pipe, CL_TRUE, 0, 4, bytes, 0, NULL, NULL),
             CL_INVALID_MEM_OBJECT);
   CHECK_ERR(clEnqueueCopyBuffer(e->queue, pipe, buf, 0, 0, 4, 0, NULL, NULL),
             CL_INVALID_MEM_OBJECT);
   void *map = clEnqueueMapBuffer(e->queue, pipe, CL_TRUE, CL_MAP_READ, 0, 4, 0, NULL, NULL,
                                  &err);
   CHECK(!map && err == CL_INVALID_MEM_OBJECT, "map: %s", kt_err_name(err));
   cl_buffer_region region = {0, 4};
   m = clCreateSubBuffer(pipe, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
   CHECK(!m && err == CL_INVALID_MEM_OBJECT, "sub-buffer: %s", kt_err_name(err));

   /* Kernel arguments: a pipe takes a pipe, a buffer a buffer. */
   cl_kernel k = kk_kernel(p, "query_r");
   CHECK_ERR(clSetKernelArg(k, 0, sizeof(cl_mem), &buf), CL_INVALID_ARG_VALUE);
   cl_mem none = NULL;
   CHECK_ERR(clSetKernelArg(k, 0, sizeof(cl_mem), &none), CL_INVALID_ARG_VALUE);
   CHECK_ERR(clSetKernelArg(k, 0, sizeof(cl_mem), NULL), CL_INVALID_ARG_VALUE);
   CHECK_ERR(clSetKernelArg(k, 0, 4, &pipe), CL_INVALID_ARG_SIZE);
   CHECK_OK(clSetKernelArg(k, 0, sizeof(cl_mem), &pipe));
   /* Nor does an SVM pointer make a pipe. */
   cl_device_svm_capabilities svm = 0;
   CHECK_OK(clGetDeviceInfo(e->device, CL_DEVICE_SVM_CAPABILITIES, sizeof(svm), &svm, NULL));
   if (svm) {
      void *ptr = clSVMAlloc(e->context, CL_MEM_READ_WRITE, 4096, 0);
      CHECK(ptr != NULL);
      CHECK_ERR(clSetKernelArgSVMPointer(k, 0, ptr), CL_INVALID_ARG_VALUE);
      CHECK_OK(clSetKernelArgSVMPointer(k, 1, ptr));
      clSVMFree(e->context, ptr);
   }
   CHECK_ERR(clSetKernelArg(k, 1, sizeof(cl_mem), &pipe), CL_INVALID_MEM_OBJECT);
   cl_kernel_arg_type_qualifier tq = 0;
   cl_kernel_arg_address_qualifier aq = 0;
   cl_kernel_arg_access_qualifier acc = 0;
   char name[32] = "";
   CHECK_OK(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof(tq), &tq, NULL));
   CHECK(tq == CL_KERNEL_ARG_TYPE_PIPE, "type qualifier 0x%llx", (unsigned long long)tq);
   CHECK_OK(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(aq), &aq, NULL));
   CHECK(aq == CL_KERNEL_ARG_ADDRESS_GLOBAL, "address qualifier 0x%x", aq);
   CHECK_OK(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof(acc), &acc, NULL));
   CHECK(acc == CL_KERNEL_ARG_ACCESS_READ_ONLY, "access qualifier 0x%x", acc);
   CHECK_OK(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_TYPE_NAME, sizeof(name), name, NULL));
   CHECK(!strcmp(name, "T"), "type name '%s'", name);
   CHECK_OK(clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof(tq), &tq, NULL));
   CHECK(tq == CL_KERNEL_ARG_TYPE_NONE, "buffer's type qualifier 0x%llx",
         (unsigned long long)tq);
   clReleaseKernel(k);
   k = kk_kernel(p, "query_w");
   CHECK_OK(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof(acc), &acc, NULL));
   CHECK(acc == CL_KERNEL_ARG_ACCESS_WRITE_ONLY, "access qualifier 0x%x", acc);
   clReleaseKernel(k);
   k = kk_kernel(p, "not_a_pipe");
   CHECK_ERR(clSetKernelArg(k, 0, sizeof(cl_mem), &pipe), CL_INVALID_MEM_OBJECT);
   clReleaseKernel(k);

   /* A new pipe is empty. */
   int q[2] = {-1, -1};
   query(e, p, "query_r", pipe, q);
   CHECK(q[0] == 0 && q[1] == 100, "new pipe: num %d, max %d", q[0], q[1]);
   clReleaseMemObject(buf);
   clReleaseMemObject(pipe);
}

/* A pipe filled on one device and emptied on another of the same context
 * (and back), for `devices`: the pipe's bytes (header, marks, packets)
 * migrate between the devices' copies like a buffer's. */
static void two_devices(void)
{
   kt_watchdog_start();
   cl_platform_id plat = kt_find_kiln();
   cl_device_id all[8], devs[2];
   cl_uint n = 0, found = 0;
   REQUIRE_OK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 8, all, &n));
   for (cl_uint i = 0; i < n && i < 8 && found < 2; i++) {
      cl_bool pipes = CL_FALSE;
      REQUIRE_OK(clGetDeviceInfo(all[i], CL_DEVICE_PIPE_SUPPORT, sizeof(pipes), &pipes, NULL));
      if (pipes)
         devs[found++] = all[i];
   }
   REQUIRE(found == 2, "%u devices with pipes (KILN_DEVICES=cpu,cpu-discrete has two)", found);
   cl_int err;
   cl_context ctx = clCreateContext(NULL, 2, devs, NULL, NULL, &err);
   REQUIRE(ctx && err == CL_SUCCESS, "%s", kt_err_name(err));
   struct kt_env e[2];
   for (int d = 0; d < 2; d++) {
      e[d] = (struct kt_env){plat, devs[d], ctx, clCreateCommandQueue(ctx, devs[d], 0, &err)};
      REQUIRE(e[d].queue && err == CL_SUCCESS, "%s", kt_err_name(err));
   }
   cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
   REQUIRE(p && err == CL_SUCCESS, "%s", kt_err_name(err));
   err = clBuildProgram(p, 2, devs, CL30 " -DKIND=2", NULL, NULL);
   REQUIRE(err == CL_SUCCESS, "build: %s", kt_err_name(err));
   cl_mem pipe = clCreatePipe(ctx, 0, (cl_uint)packet_sizes[2], N, NULL, &err);
   REQUIRE(pipe && err == CL_SUCCESS, "%s", kt_err_name(err));
   int *host = malloc(N * sizeof(int));
   REQUIRE(host);
   static const char *const names[2][2] = {{"w_res", "r_wg"}, {"w_sg", "r2"}};
   for (int round = 0; round < 2; round++) {
      const struct kt_env *wenv = &e[round], *renv = &e[1 - round];
      cl_mem ok = kk_buffer_in(wenv, N * sizeof(int), NULL);
      cl_mem out = kk_buffer_in(renv, N * sizeof(int), NULL);
      cl_kernel wk = kk_kernel(p, names[round][0]), rk = kk_kernel(p, names[round][1]);
      run(wenv, wk, pipe, ok, N);
      run(renv, rk, pipe, out, N);
      kk_read(renv, out, N * sizeof(int), host);
      char what[64];
      snprintf(what, sizeof(what), "%s on device %d, %s on device %d", names[round][0], round,
               names[round][1], 1 - round);
      check_all_once(host, N, what);
      clReleaseKernel(wk);
      clReleaseKernel(rk);
      clReleaseMemObject(ok);
      clReleaseMemObject(out);
   }
   free(host);
   clReleaseMemObject(pipe);
   clReleaseProgram(p);
   for (int d = 0; d < 2; d++)
      clReleaseCommandQueue(e[d].queue);
   clReleaseContext(ctx);
}

int main(int argc, char **argv)
{
   if (argc > 1 && !strcmp(argv[1], "devices")) {
      two_devices();
      return kt_result();
   }
   struct kt_env env;
   kt_setup(&env, 0);
   cl_bool pipes = CL_FALSE;
   REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_PIPE_SUPPORT, sizeof(pipes), &pipes, NULL));
   cl_device_type type = 0;
   REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_TYPE, sizeof(type), &type, NULL));
   if (type & CL_DEVICE_TYPE_CPU)
      CHECK(pipes, "the CPU device has no pipes");
   if (!pipes) {
      cl_int err;
      cl_mem m = clCreatePipe(env.context, 0, 4, 4, NULL, &err);
      CHECK(!m && err == CL_INVALID_OPERATION, "%s", kt_err_name(err));
      printf("no pipes on this device\n");
      kt_teardown(&env);
      return kt_result();
   }
   /* OpenCL C 1.2 has no pipes. */
   cl_program p12;
   CHECK(kk_try_build(&env, "#define KIND 0\n" "kernel void k(read_only pipe int p) {}", NULL,
                      &p12) == CL_BUILD_PROGRAM_FAILURE);
   if (p12)
      clReleaseProgram(p12);

   for (int kind = 0; kind < 3; kind++) {
      char opts[64];
      snprintf(opts, sizeof(opts), CL30 " -cl-kernel-arg-info -DKIND=%d", kind);
      cl_program p = kk_build(&env, src, opts);
      if (kind == 0) {
         api(&env, p);
         full_and_empty(&env, p, "w2", "r2");
         full_and_empty(&env, p, "w_res", "r_res");
         full_and_empty(&env, p, "w_wg", "r_wg");
         full_and_empty(&env, p, "w_sg", "r_sg");
      }
      for (size_t w = 0; w < sizeof(writers) / sizeof(writers[0]); w++)
         for (size_t r = 0; r < sizeof(readers) / sizeof(readers[0]); r++)
            pair(&env, p, kind, &writers[w], &readers[r]);
      clReleaseProgram(p);
   }
   kt_teardown(&env);
   return kt_result();
}
