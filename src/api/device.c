/* clGetDeviceIDs, clGetDeviceInfo (sub-devices: api/subdevice.c). */
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "kiln/cl_command_buffer.h"
#include "api/icd.h"
#include "core/device.h"
#include "core/device_partition.h"
#include "core/device_version.h"
#include "core/platform.h"
#include "llvm/compiler.h"
#include "util/printf_format.h"

/* CL_DEVICE_TYPE_CUSTOM is a type from OpenCL 1.2 on (one no Kiln device
 * has); to a platform reporting 1.1 it is an unknown bit. */
#define VALID_DEVICE_TYPES                                                     \
   (CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |         \
    CL_DEVICE_TYPE_ACCELERATOR |                                               \
    (KILN_CL_VERSION_NUMBER >= 120 ? CL_DEVICE_TYPE_CUSTOM : 0))

CL_API_ENTRY cl_int CL_API_CALL clGetDeviceIDs(cl_platform_id platform,
                                               cl_device_type device_type, cl_uint num_entries,
                                               cl_device_id *devices, cl_uint *num_devices)
{
   cl_platform_id p = kiln_api_platform();
   if (platform && platform != p)
      return API_FAIL(CL_INVALID_PLATFORM, "%p is not a Kiln platform", (void *)platform);
   if (device_type != CL_DEVICE_TYPE_ALL &&
       (!device_type || (device_type & ~(cl_device_type)VALID_DEVICE_TYPES)))
      return API_FAIL(CL_INVALID_DEVICE_TYPE, "device_type 0x%llx",
                      (unsigned long long)device_type);
   if ((num_entries == 0 && devices) || (!devices && !num_devices))
      return API_FAIL(CL_INVALID_VALUE, "num_entries %u, devices %p, num_devices %p",
                      num_entries, (void *)devices, (void *)num_devices);

   cl_uint found = 0;
   for (cl_uint i = 0; i < p->num_devices; i++) {
      cl_device_id dev = p->devices[i];
      /* The default device is the first one the loader found. */
      bool match = device_type == CL_DEVICE_TYPE_ALL ||
                   (dev->caps->type & device_type) ||
                   ((device_type & CL_DEVICE_TYPE_DEFAULT) && i == 0);
      if (!match)
         continue;
      if (devices && found < num_entries)
         devices[found] = dev;
      found++;
   }
   if (!found)
      return API_FAIL(CL_DEVICE_NOT_FOUND, "no device of type 0x%llx",
                      (unsigned long long)device_type);
   if (num_devices)
      *num_devices = found;
   return CL_SUCCESS;
}

/* The driver's extensions (those the compiler must know about too) and
 * cl_khr_command_buffer, which core implements on top of any pipe driver
 * (core/cmdbuf.h). */
#define CORE_EXTENSIONS "cl_khr_command_buffer"
/* Where the compiler takes SPIR-V (the CPU device with the translator
 * installed, api/program_il.c). */
#define IL_EXTENSION " cl_khr_il_program"
#define EXTENSIONS_SIZE (sizeof(((struct pipe_caps *)0)->extensions) + \
                         sizeof(CORE_EXTENSIONS) + sizeof(IL_EXTENSION) + 1)

static const char *device_extensions(cl_device_id dev, char *buf, size_t size)
{
   const char *drv = dev->caps->extensions;
   snprintf(buf, size, "%s%s%s%s", drv, *drv ? " " : "", CORE_EXTENSIONS,
            kiln_llvm_il_versions(dev->caps->ir) ? IL_EXTENSION : "");
   return buf;
}

/* CL_DEVICE_ILS_WITH_VERSION: one entry per SPIR-V version. */
static size_t device_ils(cl_device_id dev, cl_name_version *out, size_t max)
{
   unsigned minor[8];
   size_t n = kiln_llvm_il_minors(dev->caps->ir, minor, 8);
   for (size_t i = 0; i < n && i < max; i++) {
      memset(&out[i], 0, sizeof(out[i]));
      out[i].version = CL_MAKE_VERSION(1, minor[i], 0);
      snprintf(out[i].name, sizeof(out[i].name), "SPIR-V");
   }
   return n < max ? n : max;
}

/* The queries OpenCL 2.x and 3.0 added.  Kiln answers them for every
 * device, 1.2 ones included (a 3.0 platform may hold those, and their
 * answers must agree with what they report).  Every optional feature no
 * device has reads as absent: the entry points of api/absent.c agree. */
static cl_int device_info_30(cl_device_id dev, cl_device_info param_name,
                             size_t param_value_size, void *param_value,
                             size_t *param_value_size_ret)
{
   const struct pipe_caps *c = dev->caps;
   switch (param_name) {
   case CL_DEVICE_NUMERIC_VERSION: {
      cl_uint n = kiln_device_cl_version(dev);
      INFO_VALUE(cl_version, CL_MAKE_VERSION(n / 100, n / 10 % 10, 0));
   }
   case CL_DEVICE_EXTENSIONS_WITH_VERSION: {
      char buf[EXTENSIONS_SIZE];
      const char *list = device_extensions(dev, buf, sizeof(buf));
      cl_name_version v[64];
      size_t n = kiln_extensions_with_version(list, v, 64);
      INFO_ARRAY(v, n < 64 ? n : 64);
   }
   case CL_DEVICE_OPENCL_C_ALL_VERSIONS: {
      cl_name_version v[KILN_MAX_C_VERSIONS];
      INFO_ARRAY(v, kiln_device_c_versions(dev, v));
   }
   case CL_DEVICE_OPENCL_C_FEATURES: {
      cl_name_version v[KILN_MAX_C_FEATURES];
      INFO_ARRAY(v, kiln_device_c_features(dev, v));
   }
   case CL_DEVICE_IL_VERSION: {
      /* "" where the device takes no IL (api/program_il.c). */
      const char *il = kiln_llvm_il_versions(c->ir);
      INFO_STRING(il ? il : "");
   }
   case CL_DEVICE_ILS_WITH_VERSION: {
      cl_name_version v[8];
      INFO_ARRAY(v, device_ils(dev, v, 8));
   }
   case CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION:
      INFO_ARRAY((const cl_name_version *)NULL, 0);
   case CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED:
      /* Kiln has not been through the Khronos conformance process; this
       * is the value 3.0 implementations without a submission report. */
      INFO_STRING("v0000-01-01-00");
   case CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES:
      INFO_VALUE(cl_device_atomic_capabilities, kiln_device_atomic_memory_caps(dev));
   case CL_DEVICE_ATOMIC_FENCE_CAPABILITIES:
      INFO_VALUE(cl_device_atomic_capabilities, kiln_device_atomic_fence_caps(dev));
   case CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT:
      INFO_VALUE(cl_bool, dev->caps->non_uniform_work_groups ? CL_TRUE : CL_FALSE);
   case CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT:
      INFO_VALUE(cl_bool, c->work_group_collective_functions ? CL_TRUE : CL_FALSE);
   case CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS:
      INFO_VALUE(cl_bool, c->max_num_sub_groups && c->sub_group_independent_forward_progress
                             ? CL_TRUE
                             : CL_FALSE);
   case CL_DEVICE_MAX_NUM_SUB_GROUPS:
      INFO_VALUE(cl_uint, c->max_num_sub_groups);
   case CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT:
      INFO_VALUE(cl_bool, c->generic_address_space && kiln_device_cl_version(dev) >= 300
                             ? CL_TRUE
                             : CL_FALSE);
   case CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS:
      /* 0 where the device has no read_write images (3.0: optional). */
      INFO_VALUE(cl_uint, c->image_support ? c->max_read_write_image_args : 0);
   case CL_DEVICE_PIPE_SUPPORT:
      INFO_VALUE(cl_bool, kiln_device_has_pipes(dev) ? CL_TRUE : CL_FALSE);
   /* 0 where the device has no pipes (3.0, table 5). */
   case CL_DEVICE_MAX_PIPE_ARGS:
      INFO_VALUE(cl_uint, kiln_device_has_pipes(dev) ? c->max_pipe_args : 0);
   case CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS:
      INFO_VALUE(cl_uint, kiln_device_has_pipes(dev) ? c->pipe_max_active_reservations : 0);
   case CL_DEVICE_PIPE_MAX_PACKET_SIZE:
      INFO_VALUE(cl_uint, kiln_device_has_pipes(dev) ? c->pipe_max_packet_size : 0);
   /* On-device queues (pipe_caps::max_on_device_queues): 0 everywhere
    * on a device without them, as 3.0 asks of one. */
   case CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES:
      INFO_VALUE(cl_device_device_enqueue_capabilities,
                 kiln_device_enqueue_supported(dev)
                    ? CL_DEVICE_QUEUE_SUPPORTED | CL_DEVICE_QUEUE_REPLACEABLE_DEFAULT
                    : 0);
   case CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES:
      INFO_VALUE(cl_command_queue_properties,
                 kiln_device_enqueue_supported(dev)
                    ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE
                    : 0);
   case CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE:
      INFO_VALUE(cl_uint, kiln_device_enqueue_supported(dev)
                             ? dev->caps->queue_on_device_preferred_size : 0);
   case CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE:
      INFO_VALUE(cl_uint, kiln_device_enqueue_supported(dev) ? dev->caps->queue_on_device_max_size
                                                            : 0);
   case CL_DEVICE_MAX_ON_DEVICE_QUEUES:
      INFO_VALUE(cl_uint, kiln_device_enqueue_supported(dev) ? dev->caps->max_on_device_queues
                                                            : 0);
   case CL_DEVICE_MAX_ON_DEVICE_EVENTS:
      INFO_VALUE(cl_uint, kiln_device_enqueue_supported(dev) ? dev->caps->max_on_device_events
                                                            : 0);
   case CL_DEVICE_SVM_CAPABILITIES:
      INFO_VALUE(cl_device_svm_capabilities, dev->caps->svm_capabilities);
   /* No cl_khr_image2d_from_buffer: both alignments are 0 (3.0). */
   case CL_DEVICE_IMAGE_PITCH_ALIGNMENT:
   case CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT:
   /* 0: atomics need only their natural alignment. */
   case CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT:
   case CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT:
   case CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT:
      INFO_VALUE(cl_uint, 0);
   case CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE:
      INFO_VALUE(size_t, c->max_global_variable_size);
   case CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE:
      INFO_VALUE(size_t, c->global_variable_preferred_total_size);
   case CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
      /* The driver's guess before any kernel; kernels may differ. */
      INFO_VALUE(size_t, c->preferred_work_group_size_multiple
                            ? c->preferred_work_group_size_multiple
                            : 1);
   default:
      return API_FAIL(CL_INVALID_VALUE, "unknown param_name 0x%x", param_name);
   }
}

CL_API_ENTRY cl_int CL_API_CALL clGetDeviceInfo(cl_device_id device, cl_device_info param_name,
                                                size_t param_value_size, void *param_value,
                                                size_t *param_value_size_ret)
{
   kiln_api_platform();
   cl_device_id dev = kiln_device_from(device);
   if (!dev)
      return API_FAIL(CL_INVALID_DEVICE, "%p is not a device", (void *)device);
   const struct pipe_caps *c = dev->caps;

   switch (param_name) {
   case CL_DEVICE_TYPE:
      INFO_VALUE(cl_device_type, c->type);
   case CL_DEVICE_VENDOR_ID:
      INFO_VALUE(cl_uint, c->vendor_id);
   case CL_DEVICE_MAX_COMPUTE_UNITS:
      INFO_VALUE(cl_uint, c->max_compute_units);
   case CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS:
      INFO_VALUE(cl_uint, 3);
   case CL_DEVICE_MAX_WORK_ITEM_SIZES:
      INFO_ARRAY(c->max_work_item_sizes, 3);
   case CL_DEVICE_MAX_WORK_GROUP_SIZE:
      INFO_VALUE(size_t, c->max_work_group_size);
   case CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR:
   case CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT:
   case CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT:
   case CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG:
   case CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT:
   case CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE:
      INFO_VALUE(cl_uint, c->preferred_vector_width[param_name - CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR]);
   case CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF:
      INFO_VALUE(cl_uint, c->preferred_vector_width[6]);
   case CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR:
   case CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT:
   case CL_DEVICE_NATIVE_VECTOR_WIDTH_INT:
   case CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG:
   case CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT:
   case CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE:
   case CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF:
      INFO_VALUE(cl_uint, c->native_vector_width[param_name - CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR]);
   case CL_DEVICE_MAX_CLOCK_FREQUENCY:
      INFO_VALUE(cl_uint, c->max_clock_frequency);
   case CL_DEVICE_ADDRESS_BITS:
      INFO_VALUE(cl_uint, c->address_bits);
   case CL_DEVICE_MAX_MEM_ALLOC_SIZE:
      INFO_VALUE(cl_ulong, c->max_mem_alloc_size);
   case CL_DEVICE_IMAGE_SUPPORT:
      INFO_VALUE(cl_bool, c->image_support ? CL_TRUE : CL_FALSE);
   case CL_DEVICE_MAX_READ_IMAGE_ARGS:
      INFO_VALUE(cl_uint, c->max_read_image_args);
   case CL_DEVICE_MAX_WRITE_IMAGE_ARGS:
      INFO_VALUE(cl_uint, c->max_write_image_args);
   case CL_DEVICE_IMAGE2D_MAX_WIDTH:
      INFO_VALUE(size_t, c->image2d_max_width);
   case CL_DEVICE_IMAGE2D_MAX_HEIGHT:
      INFO_VALUE(size_t, c->image2d_max_height);
   case CL_DEVICE_IMAGE3D_MAX_WIDTH:
      INFO_VALUE(size_t, c->image3d_max_width);
   case CL_DEVICE_IMAGE3D_MAX_HEIGHT:
      INFO_VALUE(size_t, c->image3d_max_height);
   case CL_DEVICE_IMAGE3D_MAX_DEPTH:
      INFO_VALUE(size_t, c->image3d_max_depth);
   case CL_DEVICE_MAX_SAMPLERS:
      INFO_VALUE(cl_uint, c->max_samplers);
   case CL_DEVICE_MAX_PARAMETER_SIZE:
      INFO_VALUE(size_t, c->max_parameter_size);
   case CL_DEVICE_MEM_BASE_ADDR_ALIGN:
      INFO_VALUE(cl_uint, c->mem_base_addr_align);
   case CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE:
      INFO_VALUE(cl_uint, c->min_data_type_align_size);
   case CL_DEVICE_SINGLE_FP_CONFIG:
      INFO_VALUE(cl_device_fp_config, c->single_fp_config);
   case CL_DEVICE_DOUBLE_FP_CONFIG:
      INFO_VALUE(cl_device_fp_config, c->double_fp_config);
   case CL_DEVICE_HALF_FP_CONFIG:
      /* 0 without cl_khr_fp16, which is what the CTS expects of a device
       * without half arithmetic. */
      INFO_VALUE(cl_device_fp_config, c->half_fp_config);
   case CL_DEVICE_GLOBAL_MEM_CACHE_TYPE:
      INFO_VALUE(cl_device_mem_cache_type, c->global_mem_cache_type);
   case CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE:
      INFO_VALUE(cl_uint, c->global_mem_cacheline_size);
   case CL_DEVICE_GLOBAL_MEM_CACHE_SIZE:
      INFO_VALUE(cl_ulong, c->global_mem_cache_size);
   case CL_DEVICE_GLOBAL_MEM_SIZE:
      INFO_VALUE(cl_ulong, c->global_mem_size);
   case CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE:
      INFO_VALUE(cl_ulong, c->max_constant_buffer_size);
   case CL_DEVICE_MAX_CONSTANT_ARGS:
      INFO_VALUE(cl_uint, c->max_constant_args);
   case CL_DEVICE_LOCAL_MEM_TYPE:
      INFO_VALUE(cl_device_local_mem_type, c->local_mem_type);
   case CL_DEVICE_LOCAL_MEM_SIZE:
      INFO_VALUE(cl_ulong, c->local_mem_size);
   case CL_DEVICE_ERROR_CORRECTION_SUPPORT:
      INFO_VALUE(cl_bool, c->error_correction ? CL_TRUE : CL_FALSE);
   case CL_DEVICE_HOST_UNIFIED_MEMORY:
      INFO_VALUE(cl_bool, c->host_unified_memory ? CL_TRUE : CL_FALSE);
   case CL_DEVICE_PROFILING_TIMER_RESOLUTION:
      INFO_VALUE(size_t, c->profiling_timer_resolution);
   case CL_DEVICE_ENDIAN_LITTLE:
      INFO_VALUE(cl_bool, c->endian_little ? CL_TRUE : CL_FALSE);
   case CL_DEVICE_AVAILABLE:
      INFO_VALUE(cl_bool, CL_TRUE);
   case CL_DEVICE_COMPILER_AVAILABLE:
      INFO_VALUE(cl_bool, c->compiler_available ? CL_TRUE : CL_FALSE);
   case CL_DEVICE_EXECUTION_CAPABILITIES:
      INFO_VALUE(cl_device_exec_capabilities, c->execution_capabilities);
   case CL_DEVICE_QUEUE_PROPERTIES:
      INFO_VALUE(cl_command_queue_properties, c->queue_properties);
   case CL_DEVICE_PLATFORM:
      INFO_VALUE(cl_platform_id, dev->platform);
   case CL_DEVICE_NAME:
      INFO_STRING(c->name);
   case CL_DEVICE_VENDOR:
      INFO_STRING(c->vendor);
   case CL_DRIVER_VERSION:
      INFO_STRING(KILN_VERSION);
   case CL_DEVICE_PROFILE:
      INFO_STRING("FULL_PROFILE");
   case CL_DEVICE_VERSION: {
      /* "OpenCL<space><major.minor><space><vendor-specific>" */
      char v[64];
      cl_uint n = kiln_device_cl_version(dev);
      snprintf(v, sizeof(v), "OpenCL %u.%u Kiln " KILN_VERSION, n / 100, n / 10 % 10);
      INFO_STRING(v);
   }
   case CL_DEVICE_OPENCL_C_VERSION:
      /* 3.0: the newest OpenCL C the device has all of. */
      INFO_STRING(kiln_device_c20(dev) ? "OpenCL C 2.0 " : KILN_OPENCL_C_VERSION);
   case CL_DEVICE_EXTENSIONS: {
      char buf[EXTENSIONS_SIZE];
      INFO_STRING(device_extensions(dev, buf, sizeof(buf)));
   }
   /* cl_khr_command_buffer.  Every recorded command runs in record order
    * on the device's executor, whatever the queue's mode, so out-of-order
    * queues are fine and so are overlapping replays.  A recorded launch
    * prints like an enqueued one (the pipe prints when the grid ends), so
    * devices whose kernels printf have the printf capability.  No
    * device-side enqueue. */
   case CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR:
      INFO_VALUE(cl_device_command_buffer_capabilities_khr,
                 CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR |
                    CL_COMMAND_BUFFER_CAPABILITY_OUT_OF_ORDER_KHR |
                    (c->printf_buffer_size ? CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR
                                           : 0));
   case CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR:
      INFO_VALUE(cl_command_queue_properties, 0);
   case CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR:
      INFO_VALUE(cl_command_queue_properties, c->queue_properties);

   /* OpenCL 1.2 (table 4.3). */
   case CL_DEVICE_IMAGE_MAX_BUFFER_SIZE:
      INFO_VALUE(size_t, c->image_support ? c->image_max_buffer_size : 0);
   case CL_DEVICE_IMAGE_MAX_ARRAY_SIZE:
      INFO_VALUE(size_t, c->image_support ? c->image_max_array_size : 0);
   case CL_DEVICE_LINKER_AVAILABLE:
      /* clLinkProgram runs wherever the compiler does. */
      INFO_VALUE(cl_bool, c->compiler_available ? CL_TRUE : CL_FALSE);
   case CL_DEVICE_BUILT_IN_KERNELS:
      INFO_STRING(""); /* none offered */
   case CL_DEVICE_PRINTF_BUFFER_SIZE:
      /* What launches really get (KILN_PRINTF_BUFFER_SIZE; docs/printf.md),
       * on devices whose kernels can printf at all. */
      INFO_VALUE(size_t, c->printf_buffer_size ? kiln_printf_buffer_size() : 0);
   case CL_DEVICE_PREFERRED_INTEROP_USER_SYNC:
      /* No interop (GL, D3D) at all, so nothing for the user to sync. */
      INFO_VALUE(cl_bool, CL_TRUE);
   case CL_DEVICE_PARENT_DEVICE:
      INFO_VALUE(cl_device_id, dev->parent);
   case CL_DEVICE_PARTITION_MAX_SUB_DEVICES:
      /* One compute unit each at most; 0 where the driver cannot split. */
      INFO_VALUE(cl_uint, kiln_device_can_partition(dev) ? dev->num_units : 0);
   case CL_DEVICE_PARTITION_PROPERTIES: {
      cl_device_partition_property props[4] = {0};
      size_t n = 0;
      if (kiln_device_can_partition(dev)) {
         props[n++] = CL_DEVICE_PARTITION_EQUALLY;
         props[n++] = CL_DEVICE_PARTITION_BY_COUNTS;
         if (kiln_device_affinity_domains(dev))
            props[n++] = CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN;
      }
      /* None supported: a list holding only 0, as the spec says. */
      INFO_ARRAY(props, n ? n : 1);
   }
   case CL_DEVICE_PARTITION_AFFINITY_DOMAIN:
      INFO_VALUE(cl_device_affinity_domain, kiln_device_affinity_domains(dev));
   case CL_DEVICE_PARTITION_TYPE:
      /* The properties the sub-device was made with; for a root device
       * 1.2 returns nothing (size 0). */
      INFO_ARRAY(dev->partition, dev->partition_len);
   case CL_DEVICE_REFERENCE_COUNT:
      /* Root devices are not counted: always 1. */
      INFO_VALUE(cl_uint, kiln_object_refcount(&dev->obj));
   default:
      return device_info_30(dev, param_name, param_value_size, param_value, param_value_size_ret);
   }
}
