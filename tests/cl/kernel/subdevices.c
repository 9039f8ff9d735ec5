/* clCreateSubDevices, clRetainDevice, clReleaseDevice and the OpenCL 1.2
 * device queries (OpenCL 1.2 §4.3, table 4.3), through the ICD loader.
 *
 * Checks: every partition scheme the CPU device offers, each error of
 * §4.3 in the spec's order, the info of sub-devices and sub-sub-devices,
 * kernels run on sub-devices (results, and no more concurrent
 * work-groups than the sub-device's compute units), the worker threads a
 * sub-device starts (no more than its compute units, pinned to fewer CPUs
 * than the process has, gone once the sub-device is; with KILN_CPU_PIN
 * on, the default, each worker of the root device and of a sub-device
 * keeps to one CPU), programs and
 * binaries shared between parent and sub-device, and lifetimes: a
 * released sub-device lives while its context does.  Meaningful on any
 * machine with 2 or more CPUs; on 1 CPU only the errors are checked. */
#include "kk.h"

#include <CL/cl_ext.h> /* CL_DEVICE_HALF_FP_CONFIG */

#include <dirent.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* KILN_CPU_PIN as Kiln reads it (util/env.c): on unless 0/off/no/false. */
static bool workers_pinned(void)
{
   const char *v = getenv("KILN_CPU_PIN");
   return !(v && (!strcmp(v, "0") || !strcasecmp(v, "off") || !strcasecmp(v, "no") ||
                  !strcasecmp(v, "false")));
}

static cl_uint cus(cl_device_id d)
{
   return kt_device_uint(d, CL_DEVICE_MAX_COMPUTE_UNITS);
}

static cl_device_id parent_of(cl_device_id d)
{
   cl_device_id p = (cl_device_id)1;
   CHECK_OK(clGetDeviceInfo(d, CL_DEVICE_PARENT_DEVICE, sizeof(p), &p, NULL));
   return p;
}

static cl_uint refcount(cl_device_id d)
{
   return kt_device_uint(d, CL_DEVICE_REFERENCE_COUNT);
}

/* CL_DEVICE_PARTITION_TYPE equals want (n entries, terminating 0 included). */
static void check_partition_type(cl_device_id d, const cl_device_partition_property *want,
                                 size_t n)
{
   cl_device_partition_property got[16];
   size_t size = 0;
   CHECK_OK(clGetDeviceInfo(d, CL_DEVICE_PARTITION_TYPE, sizeof(got), got, &size));
   CHECK(size == n * sizeof(*want), "partition type size %zu, expected %zu", size,
         n * sizeof(*want));
   for (size_t i = 0; i < n && i * sizeof(*want) < size; i++)
      CHECK(got[i] == want[i], "partition type [%zu] = %ld, expected %ld", i, (long)got[i],
            (long)want[i]);
}

static void root_info(cl_device_id root)
{
   CHECK(parent_of(root) == NULL);
   CHECK(refcount(root) == 1);
   /* Root devices are not counted: retain and release change nothing. */
   CHECK_OK(clRetainDevice(root));
   CHECK(refcount(root) == 1);
   CHECK_OK(clReleaseDevice(root));
   CHECK_OK(clReleaseDevice(root));
   CHECK(refcount(root) == 1);
   size_t size = 99;
   CHECK_OK(clGetDeviceInfo(root, CL_DEVICE_PARTITION_TYPE, 0, NULL, &size));
   CHECK(size == 0, "a root device's partition type has size %zu", size);

   CHECK(kt_device_uint(root, CL_DEVICE_PARTITION_MAX_SUB_DEVICES) == cus(root));
   cl_device_partition_property props[8] = {0};
   CHECK_OK(clGetDeviceInfo(root, CL_DEVICE_PARTITION_PROPERTIES, sizeof(props), props, &size));
   bool equally = false, counts = false, affinity = false;
   for (size_t i = 0; i < size / sizeof(props[0]); i++) {
      equally |= props[i] == CL_DEVICE_PARTITION_EQUALLY;
      counts |= props[i] == CL_DEVICE_PARTITION_BY_COUNTS;
      affinity |= props[i] == CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN;
   }
   CHECK(equally && counts, "the CPU device partitions equally and by counts");
   cl_device_affinity_domain dom = 0;
   CHECK_OK(clGetDeviceInfo(root, CL_DEVICE_PARTITION_AFFINITY_DOMAIN, sizeof(dom), &dom, NULL));
   CHECK(affinity == (dom != 0), "BY_AFFINITY_DOMAIN listed iff a domain is (0x%llx)",
         (unsigned long long)dom);
   CHECK(!dom || (dom & CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE));

   /* The other 1.2 queries, at the spec's minimums for a full profile. */
   char s[64] = "x";
   CHECK_OK(clGetDeviceInfo(root, CL_DEVICE_BUILT_IN_KERNELS, sizeof(s), s, &size));
   CHECK(size == 1 && s[0] == 0, "no built-in kernels");
   size_t v = 0;
   CHECK_OK(clGetDeviceInfo(root, CL_DEVICE_PRINTF_BUFFER_SIZE, sizeof(v), &v, NULL));
   CHECK(v >= 1024 * 1024, "printf buffer %zu", v);
   CHECK_OK(clGetDeviceInfo(root, CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, sizeof(v), &v, NULL));
   CHECK(v >= 65536, "image max buffer size %zu", v);
   CHECK_OK(clGetDeviceInfo(root, CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, sizeof(v), &v, NULL));
   CHECK(v >= 2048, "image max array size %zu", v);
   CHECK(kt_device_uint(root, CL_DEVICE_LINKER_AVAILABLE) == CL_TRUE);
   CHECK(kt_device_uint(root, CL_DEVICE_PREFERRED_INTEROP_USER_SYNC) == CL_TRUE);
   cl_device_fp_config fp = 0;
   CHECK_OK(clGetDeviceInfo(root, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof(fp), &fp, NULL));
   cl_device_fp_config need = CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN | CL_FP_DENORM;
   CHECK((fp & need) == need, "double fp config 0x%llx lacks 1.2's minimum",
         (unsigned long long)fp);
   /* cl_khr_fp16's minimum (§9.5): round to nearest or to zero, inf and
    * NaN; the CPU device lists it, the GPUs do not. */
   CHECK_OK(clGetDeviceInfo(root, CL_DEVICE_HALF_FP_CONFIG, sizeof(fp), &fp, NULL));
   char ext[2048] = "";
   CHECK_OK(clGetDeviceInfo(root, CL_DEVICE_EXTENSIONS, sizeof(ext), ext, NULL));
   if (strstr(ext, "cl_khr_fp16"))
      CHECK((fp & CL_FP_INF_NAN) && (fp & (CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO)),
            "half fp config 0x%llx lacks cl_khr_fp16's minimum", (unsigned long long)fp);
   else
      CHECK(fp == 0, "no cl_khr_fp16, no half config");
}

static void errors(cl_device_id root)
{
   cl_uint n = cus(root), num = 77;
   cl_device_id out[64];
   const cl_device_partition_property eq1[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
   CHECK_ERR(clCreateSubDevices(NULL, eq1, 0, NULL, &num), CL_INVALID_DEVICE);
   CHECK_ERR(clRetainDevice(NULL), CL_INVALID_DEVICE);
   CHECK_ERR(clReleaseDevice(NULL), CL_INVALID_DEVICE);
   CHECK_ERR(clCreateSubDevices(root, NULL, 0, NULL, &num), CL_INVALID_VALUE);
   const cl_device_partition_property bogus[] = {0x4242, 1, 0};
   CHECK_ERR(clCreateSubDevices(root, bogus, 0, NULL, &num), CL_INVALID_VALUE);
   const cl_device_partition_property empty[] = {0};
   CHECK_ERR(clCreateSubDevices(root, empty, 0, NULL, &num), CL_INVALID_VALUE);
   const cl_device_partition_property eq0[] = {CL_DEVICE_PARTITION_EQUALLY, 0, 0};
   CHECK_ERR(clCreateSubDevices(root, eq0, 0, NULL, &num), CL_INVALID_VALUE);
   const cl_device_partition_property eqjunk[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 5, 0};
   CHECK_ERR(clCreateSubDevices(root, eqjunk, 0, NULL, &num), CL_INVALID_VALUE);
   const cl_device_partition_property aff0[] = {CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, 0, 0};
   CHECK_ERR(clCreateSubDevices(root, aff0, 0, NULL, &num), CL_INVALID_VALUE);
   const cl_device_partition_property aff2[] = {
      CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
      CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE | CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE, 0};
   CHECK_ERR(clCreateSubDevices(root, aff2, 0, NULL, &num), CL_INVALID_VALUE);
   const cl_device_partition_property cempty[] = {CL_DEVICE_PARTITION_BY_COUNTS,
                                                  CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
   CHECK_ERR(clCreateSubDevices(root, cempty, 0, NULL, &num), CL_INVALID_VALUE);

   /* The whole device as one sub-device is no partition. */
   const cl_device_partition_property eqall[] = {CL_DEVICE_PARTITION_EQUALLY, n, 0};
   CHECK_ERR(clCreateSubDevices(root, eqall, 0, NULL, &num), CL_DEVICE_PARTITION_FAILED);
   const cl_device_partition_property call[] = {CL_DEVICE_PARTITION_BY_COUNTS, n,
                                                CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
   CHECK_ERR(clCreateSubDevices(root, call, 0, NULL, &num), CL_DEVICE_PARTITION_FAILED);
   /* More compute units than there are, negative counts, too many. */
   const cl_device_partition_property eqmore[] = {CL_DEVICE_PARTITION_EQUALLY, n + 1, 0};
   CHECK_ERR(clCreateSubDevices(root, eqmore, 0, NULL, &num), CL_INVALID_DEVICE_PARTITION_COUNT);
   const cl_device_partition_property cmore[] = {CL_DEVICE_PARTITION_BY_COUNTS, n, 1,
                                                 CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
   CHECK_ERR(clCreateSubDevices(root, cmore, 0, NULL, &num), CL_INVALID_DEVICE_PARTITION_COUNT);
   const cl_device_partition_property cneg[] = {CL_DEVICE_PARTITION_BY_COUNTS, -1,
                                                CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
   CHECK_ERR(clCreateSubDevices(root, cneg, 0, NULL, &num), CL_INVALID_DEVICE_PARTITION_COUNT);
   cl_device_partition_property cmany[70] = {CL_DEVICE_PARTITION_BY_COUNTS};
   for (cl_uint i = 0; i <= n && i < 66; i++)
      cmany[1 + i] = 1;
   if (n < 66)
      CHECK_ERR(clCreateSubDevices(root, cmany, 0, NULL, &num),
                CL_INVALID_DEVICE_PARTITION_COUNT);
   CHECK(num == 77, "num_devices_ret written on failure");

   if (n < 2)
      return;
   /* out_devices too small: an error, and nothing created. */
   CHECK_ERR(clCreateSubDevices(root, eq1, 0, out, &num), CL_INVALID_VALUE);
   CHECK_ERR(clCreateSubDevices(root, eq1, n - 1, out, &num), CL_INVALID_VALUE);
   CHECK(num == 77);
   /* Only the count. */
   CHECK_OK(clCreateSubDevices(root, eq1, 0, NULL, &num));
   CHECK(num == n, "equally by 1: %u sub-devices of %u units", num, n);
}

/* Creates the partition; checks each sub-device's info and returns how
 * many there are (0 when the partition failed as allowed). */
static cl_uint make(cl_device_id parent, const cl_device_partition_property *props, size_t nprops,
                    cl_device_id *out, cl_uint max)
{
   cl_uint num = 0;
   cl_int err = clCreateSubDevices(parent, props, 0, NULL, &num);
   if (err) {
      KT_FAIL("partition %ld of a %u-unit device: %s", (long)props[0], cus(parent),
              kt_err_name(err));
      return 0;
   }
   REQUIRE(num >= 1 && num <= max, "%u sub-devices", num);
   cl_uint again = 0;
   REQUIRE_OK(clCreateSubDevices(parent, props, num, out, &again));
   CHECK(again == num);
   cl_uint total = 0;
   for (cl_uint i = 0; i < num; i++) {
      CHECK(parent_of(out[i]) == parent);
      CHECK(refcount(out[i]) == 1);
      check_partition_type(out[i], props, nprops);
      cl_device_type t = 0;
      CHECK_OK(clGetDeviceInfo(out[i], CL_DEVICE_TYPE, sizeof(t), &t, NULL));
      CHECK(t == CL_DEVICE_TYPE_CPU);
      cl_uint u = cus(out[i]);
      CHECK(u >= 1);
      CHECK(kt_device_uint(out[i], CL_DEVICE_PARTITION_MAX_SUB_DEVICES) == u);
      total += u;
      for (cl_uint j = 0; j < i; j++)
         CHECK(out[i] != out[j]);
   }
   CHECK(total <= cus(parent), "sub-devices hold %u units of %u", total, cus(parent));
   if (num == 1)
      CHECK(total < cus(parent), "one sub-device must be smaller than its parent");
   return num;
}

static void release_all(cl_device_id *d, cl_uint n)
{
   for (cl_uint i = 0; i < n; i++)
      CHECK_OK(clReleaseDevice(d[i]));
}

static void schemes(cl_device_id root)
{
   cl_uint n = cus(root);
   cl_device_id sub[64], subsub[64];
   const cl_device_partition_property eq1[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
   cl_uint k = make(root, eq1, 3, sub, 64);
   CHECK(k == (n < 64 ? n : k));
   for (cl_uint i = 0; i < k; i++)
      CHECK(cus(sub[i]) == 1);
   /* One compute unit cannot be split further. */
   cl_uint num = 0;
   CHECK_ERR(clCreateSubDevices(sub[0], eq1, 0, NULL, &num), CL_DEVICE_PARTITION_FAILED);
   /* Retain/release count sub-devices. */
   CHECK_OK(clRetainDevice(sub[0]));
   CHECK(refcount(sub[0]) == 2);
   CHECK_OK(clReleaseDevice(sub[0]));
   CHECK(refcount(sub[0]) == 1);
   release_all(sub, k);
   /* Released to zero (and held by nothing): the handle is gone. */
   CHECK_ERR(clRetainDevice(sub[0]), CL_INVALID_DEVICE);
   CHECK_ERR(clGetDeviceInfo(sub[0], CL_DEVICE_TYPE, sizeof(cl_device_type), &(cl_device_type){0},
                             NULL),
             CL_INVALID_DEVICE);

   /* By counts: 1 and the rest; then the rest split again. */
   const cl_device_partition_property counts[] = {CL_DEVICE_PARTITION_BY_COUNTS, 1, n - 1,
                                                  CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
   k = make(root, counts, 5, sub, 64);
   CHECK(k == 2);
   if (k == 2) {
      CHECK(cus(sub[0]) == 1 && cus(sub[1]) == n - 1);
      if (n - 1 >= 2) {
         cl_uint kk = make(sub[1], eq1, 3, subsub, 64);
         CHECK(kk == n - 1);
         for (cl_uint i = 0; i < kk; i++)
            CHECK(parent_of(subsub[i]) == sub[1]);
         /* The parent may go first: its children keep it. */
         CHECK_OK(clReleaseDevice(sub[1]));
         CHECK(parent_of(subsub[0]) == sub[1]);
         CHECK(cus(sub[1]) == n - 1, "a parent stays valid while its sub-devices are");
         release_all(subsub, kk);
         CHECK_OK(clReleaseDevice(sub[0]));
      } else {
         release_all(sub, 2);
      }
   }

   /* Every affinity domain the device reports splits it. */
   cl_device_affinity_domain dom = 0;
   CHECK_OK(clGetDeviceInfo(root, CL_DEVICE_PARTITION_AFFINITY_DOMAIN, sizeof(dom), &dom, NULL));
   printf("affinity domains: 0x%llx\n", (unsigned long long)dom);
   for (cl_device_affinity_domain bit = 1; bit <= CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE;
        bit <<= 1) {
      const cl_device_partition_property aff[] = {CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
                                                  (cl_device_partition_property)bit, 0};
      if (!(dom & bit)) {
         /* Not reported: this machine has no such domain, or one only. */
         cl_int err = clCreateSubDevices(root, aff, 0, NULL, &num);
         CHECK(err == CL_DEVICE_PARTITION_FAILED || err == CL_INVALID_VALUE,
               "domain 0x%llx: %s", (unsigned long long)bit, kt_err_name(err));
         continue;
      }
      k = make(root, aff, 3, sub, 64);
      CHECK(k >= 2, "domain 0x%llx gave %u sub-devices", (unsigned long long)bit, k);
      release_all(sub, k);
   }
}

/* Threads of this process whose CPU affinity is narrower than the
 * process's: the workers of sub-devices.  *widest gets the most CPUs any
 * of them may use. */
static unsigned pinned_threads(unsigned *widest)
{
   cpu_set_t all;
   sched_getaffinity(0, sizeof(all), &all);
   unsigned n = 0;
   *widest = 0;
   DIR *d = opendir("/proc/self/task");
   if (!d)
      return 0;
   struct dirent *e;
   while ((e = readdir(d))) {
      if (e->d_name[0] == '.')
         continue;
      cpu_set_t set;
      if (sched_getaffinity(atoi(e->d_name), sizeof(set), &set))
         continue;
      unsigned c = (unsigned)CPU_COUNT(&set);
      if (c < (unsigned)CPU_COUNT(&all)) {
         n++;
         if (c > *widest)
            *widest = c;
      }
   }
   closedir(d);
   return n;
}

/* Each work-group counts itself in, waits a little for company, and
 * records the most work-groups it saw running at once. */
static const char *src =
   "__kernel void conc(__global volatile int *st, __global int *out) {\n"
   "   int now = atomic_inc(&st[0]) + 1;\n"
   "   atomic_max(&st[1], now);\n"
   "   for (int i = 0; i < 200000 && st[0] < 2; i++)\n"
   "      ;\n"
   "   atomic_max(&st[1], st[0]);\n"
   "   out[get_global_id(0)] = get_global_id(0) * 3 + 1;\n"
   "   atomic_dec(&st[0]);\n"
   "}\n";

/* Runs conc on q (a queue of dev); returns the most concurrent groups. */
static int run_conc(cl_context ctx, cl_command_queue q, cl_kernel k)
{
   enum { N = 64 };
   int st[2] = {0, 0}, out[N];
   cl_int err;
   cl_mem mst = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof(st), st, &err);
   REQUIRE_OK(err);
   cl_mem mout = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(out), NULL, &err);
   REQUIRE_OK(err);
   KK_ARG(k, 0, mst);
   KK_ARG(k, 1, mout);
   size_t global = N, local = 1;
   REQUIRE_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
   REQUIRE_OK(clEnqueueReadBuffer(q, mst, CL_TRUE, 0, sizeof(st), st, 0, NULL, NULL));
   REQUIRE_OK(clEnqueueReadBuffer(q, mout, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL));
   for (int i = 0; i < N; i++)
      CHECK(out[i] == i * 3 + 1, "out[%d] = %d", i, out[i]);
   CHECK(st[0] == 0);
   clReleaseMemObject(mst);
   clReleaseMemObject(mout);
   return st[1];
}

static void work(cl_device_id root)
{
   cl_uint n = cus(root);
   unsigned widest, before = pinned_threads(&widest);
   CHECK(before == 0, "%u pinned threads before any sub-device ran", before);

   const cl_device_partition_property counts[] = {CL_DEVICE_PARTITION_BY_COUNTS, 1, n - 1,
                                                  CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
   cl_device_id sub[2];
   REQUIRE(make(root, counts, 5, sub, 2) == 2);

   /* One context with the parent and both sub-devices; one program. */
   cl_device_id devs[3] = {root, sub[0], sub[1]};
   cl_int err;
   cl_context ctx = clCreateContext(NULL, 3, devs, NULL, NULL, &err);
   REQUIRE_OK(err);
   cl_device_id got[3];
   size_t size = 0;
   CHECK_OK(clGetContextInfo(ctx, CL_CONTEXT_DEVICES, sizeof(got), got, &size));
   CHECK(size == sizeof(got) && got[1] == sub[0] && got[2] == sub[1]);
   cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
   REQUIRE_OK(err);
   REQUIRE_OK(clBuildProgram(prog, 0, NULL, NULL, NULL, NULL));
   cl_kernel k = kk_kernel(prog, "conc");

   cl_command_queue q[3];
   for (int i = 0; i < 3; i++) {
      q[i] = clCreateCommandQueue(ctx, devs[i], 0, &err);
      REQUIRE_OK(err);
      cl_device_id qd = NULL;
      CHECK_OK(clGetCommandQueueInfo(q[i], CL_QUEUE_DEVICE, sizeof(qd), &qd, NULL));
      CHECK(qd == devs[i]);
   }
   /* The application lets go of the sub-devices: the context keeps them. */
   CHECK_OK(clReleaseDevice(sub[0]));
   CHECK_OK(clReleaseDevice(sub[1]));
   CHECK(cus(sub[0]) == 1, "a sub-device in a context stays valid");
   CHECK(refcount(sub[0]) == 1, "the context's implicit retain remains");

   int c0 = run_conc(ctx, q[1], k);
   CHECK(c0 == 1, "the 1-unit sub-device ran %d work-groups at once", c0);
   int c1 = run_conc(ctx, q[2], k);
   CHECK(c1 >= 1 && c1 <= (int)n - 1, "the %u-unit sub-device ran %d at once", n - 1, c1);
   int cr = run_conc(ctx, q[0], k);
   CHECK(cr >= 1 && cr <= (int)n, "the root ran %d at once", cr);
   printf("concurrent work-groups: sub(1) %d, sub(%u) %d, root(%u) %d\n", c0, n - 1, c1, n, cr);

   /* Each sub-device started one worker per compute unit, each limited
    * to that sub-device's CPUs; pinned, to one of them, like the root
    * device's workers. */
   bool one_each = workers_pinned();
   unsigned root_pinned = one_each ? n : 0;
   unsigned pinned = pinned_threads(&widest);
   CHECK(pinned == n + root_pinned, "%u pinned worker threads, expected %u", pinned,
         n + root_pinned);
   CHECK(widest <= (one_each ? 1 : n - 1), "a worker may use %u CPUs", widest);

   /* A build for the parent is a build for its sub-devices (the same
    * code), as the CTS's device_partition expects. */
   cl_program p3 = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
   REQUIRE_OK(err);
   err = clBuildProgram(p3, 1, &root, NULL, NULL, NULL);
   if (err)
      for (int i = 0; i < 3; i++) {
         char *log = kk_build_log(p3, devs[i]);
         fprintf(stderr, "device %d's build log:\n%s\n", i, log ? log : "(none)");
         free(log);
      }
   REQUIRE_OK(err);
   for (int i = 0; i < 3; i++) {
      cl_build_status bs = CL_BUILD_NONE;
      CHECK_OK(clGetProgramBuildInfo(p3, devs[i], CL_PROGRAM_BUILD_STATUS, sizeof(bs), &bs, NULL));
      CHECK(bs == CL_BUILD_SUCCESS, "device %d: build status %d", i, bs);
   }
   cl_kernel k3 = kk_kernel(p3, "conc");
   CHECK(run_conc(ctx, q[1], k3) == 1);
   clReleaseKernel(k3);
   clReleaseProgram(p3);

   /* OpenCL 2.0's queue creation, which the current CTS uses everywhere. */
   const cl_queue_properties qp[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
   cl_command_queue q4 = clCreateCommandQueueWithProperties(ctx, sub[1], qp, &err);
   CHECK_OK(err);
   if (q4) {
      cl_device_id qd = NULL;
      CHECK_OK(clGetCommandQueueInfo(q4, CL_QUEUE_DEVICE, sizeof(qd), &qd, NULL));
      CHECK(qd == sub[1]);
      clReleaseCommandQueue(q4);
   }
   const cl_queue_properties qsize[] = {CL_QUEUE_SIZE, 16, 0};
   CHECK(clCreateCommandQueueWithProperties(ctx, sub[1], qsize, &err) == NULL);
   CHECK_ERR(err, CL_INVALID_VALUE);

   /* The parent's binary runs on a sub-device. */
   size_t bsize = 0;
   size_t sizes[3];
   CHECK_OK(clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof(sizes), sizes, NULL));
   bsize = sizes[0];
   unsigned char *bin[3] = {malloc(sizes[0]), malloc(sizes[1]), malloc(sizes[2])};
   CHECK_OK(clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof(bin), bin, NULL));
   const unsigned char *b = bin[0];
   cl_int status = 1;
   cl_program p2 = clCreateProgramWithBinary(ctx, 1, &sub[0], &bsize, &b, &status, &err);
   REQUIRE_OK(err);
   CHECK_OK(status);
   REQUIRE_OK(clBuildProgram(p2, 0, NULL, NULL, NULL, NULL));
   cl_kernel k2 = kk_kernel(p2, "conc");
   CHECK(run_conc(ctx, q[1], k2) == 1);
   clReleaseKernel(k2);
   clReleaseProgram(p2);
   for (int i = 0; i < 3; i++)
      free(bin[i]);

   clReleaseKernel(k);
   clReleaseProgram(prog);
   for (int i = 0; i < 3; i++)
      clReleaseCommandQueue(q[i]);
   clReleaseContext(ctx);
   /* The last reference went with the context: sub-devices and their
    * workers are gone, once the queue threads have dropped their internal
    * references (they do so just after the last command completes, on
    * their own thread).  A retain that still succeeds is undone. */
   cl_int retained = CL_SUCCESS;
   for (int tries = 0; tries < 200; tries++) {
      retained = clRetainDevice(sub[0]);
      if (retained != CL_SUCCESS)
         break;
      clReleaseDevice(sub[0]);
      kt_sleep_ms(10);
   }
   CHECK_ERR(retained, CL_INVALID_DEVICE);
   /* The root device's workers stay with the platform. */
   for (int tries = 0; tries < 100 && pinned_threads(&widest) > root_pinned; tries++)
      kt_sleep_ms(10);
   CHECK(pinned_threads(&widest) == root_pinned, "workers of freed sub-devices remain");
}

/* A device that cannot be partitioned (the CUDA device) says so, and
 * every scheme is "not supported by the device": CL_INVALID_VALUE. */
static bool unpartitionable(cl_device_id root)
{
   cl_device_partition_property props[8] = {0};
   CHECK_OK(clGetDeviceInfo(root, CL_DEVICE_PARTITION_PROPERTIES, sizeof(props), props, NULL));
   if (props[0])
      return false;
   CHECK(kt_device_uint(root, CL_DEVICE_PARTITION_MAX_SUB_DEVICES) == 0);
   const cl_device_partition_property schemes[][4] = {
      {CL_DEVICE_PARTITION_EQUALLY, 1, 0},
      {CL_DEVICE_PARTITION_BY_COUNTS, 1, CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0},
      {CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE, 0},
   };
   for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++) {
      cl_uint num = 99;
      cl_device_id sub = NULL;
      CHECK(clCreateSubDevices(root, schemes[i], 1, &sub, &num) == CL_INVALID_VALUE,
            "scheme 0x%lx on a device without partitions", (long)schemes[i][0]);
      CHECK(sub == NULL && num == 99, "scheme 0x%lx: outputs written", (long)schemes[i][0]);
   }
   printf("this device cannot be partitioned: only that was checked\n");
   return true;
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   if (unpartitionable(env.device)) {
      kt_teardown(&env);
      return kt_result();
   }
   root_info(env.device);
   errors(env.device);
   if (cus(env.device) >= 2) {
      schemes(env.device);
      work(env.device);
   } else {
      printf("1 compute unit: partitions not checked\n");
   }
   kt_teardown(&env);
   return kt_result();
}
