/* OpenCL 3.0's queries on the platform and each Kiln device, through the
 * ICD loader: the version strings and numbers agree, every *_WITH_VERSION
 * list matches its string form, the OpenCL C features are exactly what
 * the device's other answers imply, and each absent optional feature
 * reads as absent everywhere the spec asks (the entry points' errors are
 * tests/cl/exec/cl30_api.c). */
#define CL_TARGET_OPENCL_VERSION 300
#include "kt.h"

#include <CL/cl_ext.h> /* CL_DEVICE_HALF_FP_CONFIG */

#include <stdlib.h>
#include <string.h>

static void *query(cl_device_id d, cl_device_info p, size_t *size)
{
   *size = 0;
   cl_int err = clGetDeviceInfo(d, p, 0, NULL, size);
   if (err) {
      KT_FAIL("clGetDeviceInfo(0x%x) size: %s", p, kt_err_name(err));
      return NULL;
   }
   void *v = calloc(1, *size + 1);
   err = clGetDeviceInfo(d, p, *size, v, NULL);
   if (err)
      KT_FAIL("clGetDeviceInfo(0x%x): %s", p, kt_err_name(err));
   return v;
}

/* Whether the name_version list holds exactly the space-separated words. */
static bool same_names(const cl_name_version *v, size_t n, const char *words)
{
   size_t count = 0;
   for (const char *p = words; *p;) {
      while (*p == ' ')
         p++;
      size_t len = strcspn(p, " ");
      if (!len)
         break;
      bool found = false;
      for (size_t i = 0; i < n; i++)
         found |= strlen(v[i].name) == len && !strncmp(v[i].name, p, len);
      if (!found)
         return false;
      count++;
      p += len;
   }
   return count == n;
}

static bool has(const cl_name_version *v, size_t n, const char *name, cl_version ver)
{
   for (size_t i = 0; i < n; i++)
      if (!strcmp(v[i].name, name) && v[i].version == ver)
         return true;
   return false;
}

static void platform(cl_platform_id p)
{
   char s[256] = "";
   CHECK_OK(clGetPlatformInfo(p, CL_PLATFORM_VERSION, sizeof(s), s, NULL));
   CHECK(!strncmp(s, "OpenCL 3.0 Kiln ", 16), "CL_PLATFORM_VERSION \"%s\"", s);
   cl_version v = 0;
   CHECK_OK(clGetPlatformInfo(p, CL_PLATFORM_NUMERIC_VERSION, sizeof(v), &v, NULL));
   CHECK(v == CL_MAKE_VERSION(3, 0, 0), "numeric 0x%x", v);
   char ext[512] = "";
   CHECK_OK(clGetPlatformInfo(p, CL_PLATFORM_EXTENSIONS, sizeof(ext), ext, NULL));
   cl_name_version nv[16];
   size_t size = 0;
   CHECK_OK(clGetPlatformInfo(p, CL_PLATFORM_EXTENSIONS_WITH_VERSION, sizeof(nv), nv, &size));
   CHECK(size % sizeof(cl_name_version) == 0);
   CHECK(same_names(nv, size / sizeof(cl_name_version), ext), "platform extensions differ");
   CHECK(has(nv, size / sizeof(cl_name_version), "cl_khr_icd", CL_MAKE_VERSION(1, 0, 0)));
   cl_ulong res = 0;
   CHECK_OK(clGetPlatformInfo(p, CL_PLATFORM_HOST_TIMER_RESOLUTION, sizeof(res), &res, NULL));
   CHECK(res > 0);
}

static void device(cl_device_id d)
{
   size_t size;
   char *ver = query(d, CL_DEVICE_VERSION, &size);
   unsigned major = 0, minor = 0;
   CHECK(ver && sscanf(ver, "OpenCL %u.%u ", &major, &minor) == 2, "\"%s\"", ver);
   cl_version num = 0;
   CHECK_OK(clGetDeviceInfo(d, CL_DEVICE_NUMERIC_VERSION, sizeof(num), &num, NULL));
   CHECK(num == CL_MAKE_VERSION(major, minor, 0), "numeric 0x%x for \"%s\"", num, ver);
   char *cver = query(d, CL_DEVICE_OPENCL_C_VERSION, &size);
   /* 3.0: the newest OpenCL C all of whose features the device has. */
   bool c20 = cver && !strncmp(cver, "OpenCL C 2.0 ", 13);
   CHECK(cver && (c20 || !strncmp(cver, "OpenCL C 1.2 ", 13)), "\"%s\"", cver);

   char *ext = query(d, CL_DEVICE_EXTENSIONS, &size);
   cl_name_version *ev = query(d, CL_DEVICE_EXTENSIONS_WITH_VERSION, &size);
   CHECK(ext && ev && same_names(ev, size / sizeof(*ev), ext), "device extensions differ");

   cl_name_version *cv = query(d, CL_DEVICE_OPENCL_C_ALL_VERSIONS, &size);
   size_t ncv = size / sizeof(*cv);
   for (unsigned m = 0; m <= 2; m++)
      CHECK(cv && has(cv, ncv, "OpenCL C", CL_MAKE_VERSION(1, m, 0)), "OpenCL C 1.%u missing", m);
   /* A 3.0 device compiles OpenCL C 3.0 (-cl-std=CL3.0); a 1.2 one not. */
   CHECK(cv && has(cv, ncv, "OpenCL C", CL_MAKE_VERSION(3, 0, 0)) == (major >= 3),
         "OpenCL C 3.0 %s on a %u.%u device", major >= 3 ? "missing" : "listed", major, minor);
   CHECK(cv && has(cv, ncv, "OpenCL C", CL_MAKE_VERSION(2, 0, 0)) == c20,
         "OpenCL C 2.0 listed in CL_DEVICE_OPENCL_C_ALL_VERSIONS %s \"%s\"",
         c20 ? "without" : "with", cver);

   /* Features: a 1.2 device lists none; a 3.0 one those its other
    * answers imply, and nothing it lacks. */
   cl_name_version *fv = query(d, CL_DEVICE_OPENCL_C_FEATURES, &size);
   size_t nf = size / sizeof(*fv);
   const cl_version v3 = CL_MAKE_VERSION(3, 0, 0);
   cl_bool images = CL_FALSE;
   clGetDeviceInfo(d, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images, NULL);
   /* OpenCL C 2.0 exactly where every feature 3.0 made optional out of
    * it is listed (with images, 3D image writes and read-write images
    * too): the CTS's test_compiler opencl_c_versions list. */
   static const char *const c20_features[] = {
      "__opencl_c_atomic_order_acq_rel", "__opencl_c_atomic_order_seq_cst",
      "__opencl_c_atomic_scope_device", "__opencl_c_atomic_scope_all_devices",
      "__opencl_c_device_enqueue", "__opencl_c_generic_address_space", "__opencl_c_pipes",
      "__opencl_c_program_scope_global_variables", "__opencl_c_work_group_collective_functions",
      "__opencl_c_3d_image_writes", "__opencl_c_read_write_images",
   };
   bool all20 = true;
   for (size_t i = 0; i < sizeof(c20_features) / sizeof(c20_features[0]); i++)
      if ((i < 9 || images) && !has(fv, nf, c20_features[i], v3))
         all20 = false;
   CHECK(all20 == c20, "OpenCL C %s with%s every 2.0 feature", c20 ? "2.0" : "1.2",
         all20 ? "" : "out");
   cl_device_fp_config dbl = kt_device_ulong(d, CL_DEVICE_DOUBLE_FP_CONFIG);
   cl_device_fp_config half = kt_device_ulong(d, CL_DEVICE_HALF_FP_CONFIG);
   if (major < 3) {
      CHECK(nf == 0, "a %u.%u device lists %zu features", major, minor, nf);
   } else {
      CHECK(has(fv, nf, "__opencl_c_int64", v3));
      CHECK(has(fv, nf, "__opencl_c_images", v3) == (images == CL_TRUE));
      CHECK(has(fv, nf, "__opencl_c_fp64", v3) == (dbl != 0));
      CHECK(has(fv, nf, "__opencl_c_fp16", v3) == (half != 0));
      CHECK((half != 0) == (strstr(ext, "cl_khr_fp16") != NULL));
      CHECK(has(fv, nf, "__opencl_c_3d_image_writes", v3) ==
            (images && strstr(ext, "cl_khr_3d_image_writes") != NULL));
      /* Collectives and sub-groups exactly where the device's queries
       * say so (kernel_collectives runs them). */
      cl_bool wgc = CL_FALSE;
      cl_uint max_sg = 0;
      CHECK_OK(clGetDeviceInfo(d, CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT,
                               sizeof(wgc), &wgc, NULL));
      CHECK_OK(clGetDeviceInfo(d, CL_DEVICE_MAX_NUM_SUB_GROUPS, sizeof(max_sg), &max_sg, NULL));
      CHECK(has(fv, nf, "__opencl_c_work_group_collective_functions", v3) == (wgc == CL_TRUE));
      CHECK(has(fv, nf, "__opencl_c_subgroups", v3) == (max_sg != 0));
      /* Read-write images where the device takes read_write arguments
       * (kernel_read_write_images runs them), at least 3.0's 64. */
      cl_uint max_rw = kt_device_uint(d, CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS);
      CHECK(has(fv, nf, "__opencl_c_read_write_images", v3) == (images && max_rw != 0));
      CHECK(max_rw == 0 || (images && max_rw >= 64), "CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS %u",
            max_rw);
      /* The generic address space exactly where the device says so
       * (kernel_generic_address_space uses it). */
      cl_bool generic = CL_FALSE;
      CHECK_OK(clGetDeviceInfo(d, CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT, sizeof(generic),
                               &generic, NULL));
      CHECK(has(fv, nf, "__opencl_c_generic_address_space", v3) == (generic == CL_TRUE));
      /* Pipes exactly where the device says it has them, and only with
       * the generic address space (kernel_pipes runs them). */
      cl_bool pipes = CL_FALSE;
      CHECK_OK(clGetDeviceInfo(d, CL_DEVICE_PIPE_SUPPORT, sizeof(pipes), &pipes, NULL));
      CHECK(has(fv, nf, "__opencl_c_pipes", v3) == (pipes == CL_TRUE));
      CHECK(!pipes || generic, "pipes without the generic address space");
      /* Program-scope __global variables exactly where the device says
       * how large one may be (kernel_program_globals uses them). */
      size_t gmax = 0;
      CHECK_OK(clGetDeviceInfo(d, CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE, sizeof(gmax), &gmax, NULL));
      CHECK(has(fv, nf, "__opencl_c_program_scope_global_variables", v3) == (gmax != 0),
            "program-scope globals listed against max size %zu", gmax);
   }

   cl_device_atomic_capabilities mem = 0, fence = 0;
   CHECK_OK(clGetDeviceInfo(d, CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES, sizeof(mem), &mem, NULL));
   CHECK_OK(clGetDeviceInfo(d, CL_DEVICE_ATOMIC_FENCE_CAPABILITIES, sizeof(fence), &fence, NULL));
   /* 3.0's minimum everywhere, exactly that on a 1.2 device. */
   const cl_device_atomic_capabilities min_mem =
      CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP;
   const cl_device_atomic_capabilities min_fence =
      CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
      CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP;
   CHECK((mem & min_mem) == min_mem && (fence & min_fence) == min_fence,
         "atomic capabilities %#llx / %#llx", (unsigned long long)mem, (unsigned long long)fence);
   if (major < 3) {
      CHECK(mem == min_mem && fence == min_fence);
   } else {
      /* The atomic feature macros follow the memory capabilities. */
      static const struct {
         const char *name;
         cl_device_atomic_capabilities bit;
      } atomic_features[] = {
         {"__opencl_c_atomic_order_acq_rel", CL_DEVICE_ATOMIC_ORDER_ACQ_REL},
         {"__opencl_c_atomic_order_seq_cst", CL_DEVICE_ATOMIC_ORDER_SEQ_CST},
         {"__opencl_c_atomic_scope_device", CL_DEVICE_ATOMIC_SCOPE_DEVICE},
         {"__opencl_c_atomic_scope_all_devices", CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES},
      };
      for (size_t i = 0; i < sizeof(atomic_features) / sizeof(atomic_features[0]); i++)
         CHECK(has(fv, nf, atomic_features[i].name, v3) == !!(mem & atomic_features[i].bit),
               "%s against capabilities %#llx", atomic_features[i].name,
               (unsigned long long)mem);
   }

   if (major < 3) {
      cl_bool generic = CL_TRUE;
      CHECK_OK(clGetDeviceInfo(d, CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT, sizeof(generic),
                               &generic, NULL));
      CHECK(generic == CL_FALSE, "generic address space on a %u.%u device", major, minor);
   }
   /* Pipe limits: 3.0's minimums on a device with pipes, 0 elsewhere. */
   cl_bool pipes = CL_TRUE;
   CHECK_OK(clGetDeviceInfo(d, CL_DEVICE_PIPE_SUPPORT, sizeof(pipes), &pipes, NULL));
   CHECK(pipes == CL_FALSE || major >= 3, "pipes on a %u.%u device", major, minor);
   static const struct {
      cl_device_info name;
      cl_uint min;
   } pipe_limits[] = {{CL_DEVICE_MAX_PIPE_ARGS, 16},
                      {CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS, 1},
                      {CL_DEVICE_PIPE_MAX_PACKET_SIZE, 1024}};
   for (size_t i = 0; i < sizeof(pipe_limits) / sizeof(pipe_limits[0]); i++) {
      cl_uint u = 7;
      CHECK_OK(clGetDeviceInfo(d, pipe_limits[i].name, sizeof(u), &u, NULL));
      CHECK(pipes ? u >= pipe_limits[i].min : u == 0, "0x%x is %u (pipes %u)",
            pipe_limits[i].name, u, pipes);
   }
   static const cl_device_info zero_uints[] = {
      CL_DEVICE_IMAGE_PITCH_ALIGNMENT, CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT};
   for (size_t i = 0; i < sizeof(zero_uints) / sizeof(zero_uints[0]); i++) {
      cl_uint u = 7;
      CHECK_OK(clGetDeviceInfo(d, zero_uints[i], sizeof(u), &u, NULL));
      CHECK(u == 0, "0x%x is %u", zero_uints[i], u);
   }
   /* Device-side enqueue: the queries agree with the feature
    * (tests/cl/kernel/device_enqueue.c tests a device that has it). */
   bool devq = has(fv, nf, "__opencl_c_device_enqueue", v3);
   cl_ulong devq_caps = kt_device_ulong(d, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES);
   CHECK(devq == ((devq_caps & CL_DEVICE_QUEUE_SUPPORTED) != 0), "caps %#llx",
         (unsigned long long)devq_caps);
   static const cl_device_info devq_uints[] = {
      CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE, CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE,
      CL_DEVICE_MAX_ON_DEVICE_QUEUES, CL_DEVICE_MAX_ON_DEVICE_EVENTS};
   for (size_t i = 0; i < sizeof(devq_uints) / sizeof(devq_uints[0]); i++) {
      cl_uint u = 7;
      CHECK_OK(clGetDeviceInfo(d, devq_uints[i], sizeof(u), &u, NULL));
      CHECK(devq ? u > 0 : u == 0, "0x%x is %u", devq_uints[i], u);
   }
   CHECK((kt_device_ulong(d, CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES) != 0) == devq);
   /* SVM (exec_svm): none, or at least coarse-grain buffers (3.0). */
   cl_ulong svm = kt_device_ulong(d, CL_DEVICE_SVM_CAPABILITIES);
   CHECK(svm == 0 || (svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER), "SVM capabilities 0x%llx",
         (unsigned long long)svm);
   size_t pref = 0;
   CHECK_OK(clGetDeviceInfo(d, CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof(pref), &pref,
                            NULL));
   CHECK(pref >= 1);

   /* IL: an empty string (size 1) and an empty list (size 0). */
   char *il = query(d, CL_DEVICE_IL_VERSION, &size);
   CHECK(size == 1 && il && !il[0]);
   free(query(d, CL_DEVICE_ILS_WITH_VERSION, &size));
   CHECK(size == 0);
   free(query(d, CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION, &size));
   CHECK(size == 0);
   char *conf = query(d, CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED, &size);
   CHECK(conf && conf[0] == 'v', "\"%s\"", conf);
   /* The 2.0 name of CL_DEVICE_QUEUE_PROPERTIES still answers. */
   CHECK(kt_device_ulong(d, CL_DEVICE_QUEUE_ON_HOST_PROPERTIES) & CL_QUEUE_PROFILING_ENABLE);

   free(ver), free(cver), free(ext), free(ev), free(cv), free(fv), free(il), free(conf);
}

int main(void)
{
   struct kt_env e;
   kt_setup(&e, 0);
   platform(e.platform);
   cl_uint n = 0;
   REQUIRE_OK(clGetDeviceIDs(e.platform, CL_DEVICE_TYPE_ALL, 0, NULL, &n));
   cl_device_id devs[16];
   REQUIRE_OK(clGetDeviceIDs(e.platform, CL_DEVICE_TYPE_ALL, n < 16 ? n : 16, devs, NULL));
   for (cl_uint i = 0; i < n && i < 16; i++)
      device(devs[i]);
   /* The CPU device is a 3.0 one. */
   cl_device_id cpu;
   if (clGetDeviceIDs(e.platform, CL_DEVICE_TYPE_CPU, 1, &cpu, NULL) == CL_SUCCESS) {
      cl_version v = 0;
      CHECK_OK(clGetDeviceInfo(cpu, CL_DEVICE_NUMERIC_VERSION, sizeof(v), &v, NULL));
      CHECK(v == CL_MAKE_VERSION(3, 0, 0), "CPU device 0x%x", v);
   }
   kt_teardown(&e);
   return kt_result();
}
