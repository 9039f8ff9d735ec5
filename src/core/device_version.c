#include "core/device_version.h"

#include <stdio.h>
#include <string.h>

#include "core/device.h"
#include "kiln/cl_command_buffer.h"

static cl_uint caps_cl_version(const struct pipe_caps *c)
{
   return c->opencl_version ? c->opencl_version : 120;
}

cl_uint kiln_device_cl_version(cl_device_id dev)
{
   return caps_cl_version(dev->caps);
}

static bool caps_device_enqueue(const struct pipe_caps *c)
{
   /* Clang requires the generic address space and program-scope
    * variables of a device that enqueues from kernels. */
   return caps_cl_version(c) >= 300 && c->max_on_device_queues && c->generic_address_space &&
          c->max_global_variable_size;
}

bool kiln_device_enqueue_supported(cl_device_id dev)
{
   return caps_device_enqueue(dev->caps);
}

static void put(cl_name_version *out, size_t i, cl_version v, const char *name)
{
   if (!out)
      return;
   out[i].version = v;
   snprintf(out[i].name, sizeof(out[i].name), "%s", name);
}

size_t kiln_device_c_versions(cl_device_id dev, cl_name_version *out)
{
   /* Every Kiln device compiles OpenCL C 1.0 to 1.2, a 3.0 device 3.0 too
    * (-cl-std=CL3.0; src/llvm/build_options.c takes the newest version
    * from the device's) and 2.0 where it has all of 2.0. */
   size_t n = 0;
   put(out, n++, CL_MAKE_VERSION(1, 0, 0), "OpenCL C");
   put(out, n++, CL_MAKE_VERSION(1, 1, 0), "OpenCL C");
   put(out, n++, CL_MAKE_VERSION(1, 2, 0), "OpenCL C");
   if (kiln_device_c20(dev))
      put(out, n++, CL_MAKE_VERSION(2, 0, 0), "OpenCL C");
   if (kiln_device_cl_version(dev) >= 300)
      put(out, n++, CL_MAKE_VERSION(3, 0, 0), "OpenCL C");
   return n;
}

static cl_device_atomic_capabilities caps_atomic_memory(const struct pipe_caps *caps)
{
   /* 3.0's minimum: what OpenCL C 1.2's atomic_* functions give. */
   cl_device_atomic_capabilities c = caps->atomic_memory_capabilities;
   return c ? c : CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP;
}

cl_device_atomic_capabilities kiln_device_atomic_memory_caps(cl_device_id dev)
{
   return caps_atomic_memory(dev->caps);
}

cl_device_atomic_capabilities kiln_device_atomic_fence_caps(cl_device_id dev)
{
   /* 3.0's minimum: barrier()'s work-group fence. */
   cl_device_atomic_capabilities c = dev->caps->atomic_fence_capabilities;
   return c ? c
            : CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
                 CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP;
}

static bool has_extension(const char *list, const char *name)
{
   size_t len = strlen(name);
   for (const char *p = list; (p = strstr(p, name)); p += len)
      if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == 0))
         return true;
   return false;
}

static size_t caps_c_features(const struct pipe_caps *c, cl_name_version *out)
{
   if (caps_cl_version(c) < 300)
      return 0;
   const cl_version v = CL_MAKE_VERSION(3, 0, 0);
   size_t n = 0;
   /* A full-profile device has 64-bit integers. */
   put(out, n++, v, "__opencl_c_int64");
   if (c->image_support) {
      put(out, n++, v, "__opencl_c_images");
      if (has_extension(c->extensions, "cl_khr_3d_image_writes"))
         put(out, n++, v, "__opencl_c_3d_image_writes");
      if (c->max_read_write_image_args)
         put(out, n++, v, "__opencl_c_read_write_images");
   }
   if (c->double_fp_config)
      put(out, n++, v, "__opencl_c_fp64");
   if (c->half_fp_config)
      put(out, n++, v, "__opencl_c_fp16");
   if (c->max_global_variable_size)
      put(out, n++, v, "__opencl_c_program_scope_global_variables");
   if (c->work_group_collective_functions)
      put(out, n++, v, "__opencl_c_work_group_collective_functions");
   if (c->max_num_sub_groups)
      put(out, n++, v, "__opencl_c_subgroups");
   if (c->generic_address_space)
      put(out, n++, v, "__opencl_c_generic_address_space");
   /* Clang refuses __opencl_c_pipes without the generic address space. */
   if (c->pipe_max_packet_size && c->generic_address_space)
      put(out, n++, v, "__opencl_c_pipes");
   if (caps_device_enqueue(c))
      put(out, n++, v, "__opencl_c_device_enqueue");
   /* The C11 atomics' orders and scopes (OpenCL C 3.0 §6.2.1: the macros
    * follow CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES). */
   const cl_device_atomic_capabilities a = caps_atomic_memory(c);
   if (a & CL_DEVICE_ATOMIC_ORDER_ACQ_REL)
      put(out, n++, v, "__opencl_c_atomic_order_acq_rel");
   if (a & CL_DEVICE_ATOMIC_ORDER_SEQ_CST)
      put(out, n++, v, "__opencl_c_atomic_order_seq_cst");
   if (a & CL_DEVICE_ATOMIC_SCOPE_DEVICE)
      put(out, n++, v, "__opencl_c_atomic_scope_device");
   if (a & CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES)
      put(out, n++, v, "__opencl_c_atomic_scope_all_devices");
   return n;
}

size_t kiln_device_c_features(cl_device_id dev, cl_name_version *out)
{
   return caps_c_features(dev->caps, out);
}

static bool listed(const cl_name_version *f, size_t n, const char *name)
{
   for (size_t i = 0; i < n; i++)
      if (!strcmp(f[i].name, name))
         return true;
   return false;
}

bool kiln_device_has_pipes(cl_device_id dev)
{
   cl_name_version f[KILN_MAX_C_FEATURES];
   return listed(f, caps_c_features(dev->caps, f), "__opencl_c_pipes");
}

/* OpenCL C 2.0's features as 3.0 made them optional: a 3.0 device may
 * report OpenCL C 2.0 only with all of them (3.0, CL_DEVICE_OPENCL_C_VERSION:
 * "the highest fully backwards compatible OpenCL C version"; the CTS's
 * test_compiler opencl_c_versions checks this list), and with images,
 * also 3D image writes and read-write images. */
static bool caps_c20(const struct pipe_caps *c)
{
   static const char *const required[] = {
      "__opencl_c_atomic_order_acq_rel",  "__opencl_c_atomic_order_seq_cst",
      "__opencl_c_atomic_scope_device",   "__opencl_c_atomic_scope_all_devices",
      "__opencl_c_device_enqueue",        "__opencl_c_generic_address_space",
      "__opencl_c_pipes",                 "__opencl_c_program_scope_global_variables",
      "__opencl_c_work_group_collective_functions",
   };
   static const char *const with_images[] = {"__opencl_c_3d_image_writes",
                                              "__opencl_c_read_write_images"};
   cl_name_version f[KILN_MAX_C_FEATURES];
   size_t n = caps_c_features(c, f);
   for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++)
      if (!listed(f, n, required[i]))
         return false;
   for (size_t i = 0; c->image_support && i < sizeof(with_images) / sizeof(with_images[0]); i++)
      if (!listed(f, n, with_images[i]))
         return false;
   return true;
}

bool kiln_device_c20(cl_device_id dev)
{
   return caps_c20(dev->caps);
}

bool kiln_caps_c20(const struct pipe_caps *caps)
{
   return caps_c20(caps);
}

/* Extensions whose version is not 1.0.0. */
static const struct {
   const char *name;
   cl_version version;
} extension_versions[] = {
   {"cl_khr_command_buffer", KILN_CL_KHR_COMMAND_BUFFER_EXTENSION_VERSION},
};

size_t kiln_extensions_with_version(const char *list, cl_name_version *out, size_t max)
{
   size_t n = 0;
   const char *p = list;
   while (*p) {
      while (*p == ' ')
         p++;
      size_t len = strcspn(p, " ");
      if (!len)
         break;
      if (out && n < max) {
         char name[CL_NAME_VERSION_MAX_NAME_SIZE];
         snprintf(name, sizeof(name), "%.*s", (int)len, p);
         cl_version v = CL_MAKE_VERSION(1, 0, 0);
         for (size_t i = 0; i < sizeof(extension_versions) / sizeof(extension_versions[0]); i++)
            if (!strcmp(name, extension_versions[i].name))
               v = extension_versions[i].version;
         put(out, n, v, name);
      }
      n++;
      p += len;
   }
   return n;
}

void kiln_device_clang_ext(cl_device_id dev, char *buf, size_t size)
{
   kiln_caps_clang_ext(dev->caps, buf, size);
}

void kiln_caps_clang_ext(const struct pipe_caps *caps, char *buf, size_t size)
{
   size_t m = (size_t)snprintf(buf, size, "%s", caps->clang_extensions);
   cl_name_version features[KILN_MAX_C_FEATURES];
   size_t n = caps_c_features(caps, features);
   for (size_t i = 0; i < n && m < size; i++)
      m += (size_t)snprintf(buf + m, size - m, "%s+%s", m ? "," : "", features[i].name);
}
