/* The pipe interface: what core asks of a device driver.
 *
 * Gallium's idea trimmed to compute.  A pipe_screen is one device: it
 * reports its capabilities and owns its memory (resources) and timestamps.
 * Core never includes a driver's private header; it reaches drivers only
 * through these tables (created by pipe_loader.h).
 */
#ifndef KILN_PIPE_H
#define KILN_PIPE_H

#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Everything clGetDeviceInfo reports that depends on the device.  Filled by
 * the driver from the machine (CPU: cpuid, sysfs, sysconf). */
struct pipe_caps {
   /* What code the device runs: the compiler's target family ("cpu",
    * "amdgcn", "nvptx"; src/llvm/target_table.c has the list), "" for a
    * device without a compiler. */
   char ir[16];
   /* The family's processor: "gfx1030", "sm_90"; "" for the family's
    * default (CPU drivers: this machine's CPU). */
   char ir_target[32];
   cl_device_type type;
   cl_uint vendor_id;
   char name[128];
   char vendor[64];
   cl_uint max_compute_units;
   cl_uint max_clock_frequency; /* MHz */
   cl_uint address_bits;
   size_t max_work_item_sizes[3];
   size_t max_work_group_size;
   /* char short int long float double half */
   cl_uint preferred_vector_width[7];
   cl_uint native_vector_width[7];
   cl_ulong global_mem_size;
   cl_ulong max_mem_alloc_size;
   cl_device_mem_cache_type global_mem_cache_type;
   cl_uint global_mem_cacheline_size;
   cl_ulong global_mem_cache_size;
   cl_ulong max_constant_buffer_size;
   cl_uint max_constant_args;
   cl_device_local_mem_type local_mem_type;
   cl_ulong local_mem_size;
   size_t max_parameter_size;
   cl_uint mem_base_addr_align; /* bits */
   cl_uint min_data_type_align_size; /* bytes */
   cl_device_fp_config single_fp_config;
   cl_device_fp_config double_fp_config; /* 0: no cl_khr_fp64 */
   bool image_support;
   cl_uint max_read_image_args, max_write_image_args, max_samplers;
   size_t image2d_max_width, image2d_max_height;
   size_t image3d_max_width, image3d_max_height, image3d_max_depth;
   /* OpenCL 1.2: pixels of a 1D image buffer, images in an image array. */
   size_t image_max_buffer_size, image_max_array_size;
   size_t printf_buffer_size; /* bytes; 0 where kernels cannot printf */
   bool error_correction;
   bool host_unified_memory;
   bool endian_little;
   bool compiler_available;
   size_t profiling_timer_resolution; /* ns */
   cl_device_exec_capabilities execution_capabilities;
   cl_command_queue_properties queue_properties;
   char extensions[512]; /* space separated */
   /* The same list for clang's -cl-ext ("-all,+cl_khr_fp64,..."), so that
    * kernels see exactly the device's extension macros. */
   char clang_extensions[512];
};

/* Cache and memory domains, outermost first: the affinity domains of
 * clCreateSubDevices (CL_DEVICE_AFFINITY_DOMAIN_*). */
enum pipe_domain {
   PIPE_DOMAIN_NUMA,
   PIPE_DOMAIN_L4,
   PIPE_DOMAIN_L3,
   PIPE_DOMAIN_L2,
   PIPE_DOMAIN_L1,
   PIPE_DOMAIN_COUNT,
};

/* One compute unit of a partitionable device and the domains it belongs
 * to: units with the same domain[d] share that NUMA node or cache; -1
 * when the driver does not know (never grouped with anything). */
struct pipe_unit {
   int os_id; /* CPU driver: the CPU number sched_setaffinity takes */
   int domain[PIPE_DOMAIN_COUNT];
};

/* The compute units the driver can place work on individually (units[i]
 * is compute unit i of the root device); num_units 0 when it cannot
 * (clCreateSubDevices then reports no partition type). */
struct pipe_topology {
   unsigned num_units;
   struct pipe_unit *units;
};

/* Device memory holding one buffer. */
struct pipe_resource {
   struct pipe_screen *screen;
   size_t size;
   bool user_memory; /* wraps application memory (CL_MEM_USE_HOST_PTR) */
};

struct pipe_context;
struct kiln_bounds;
struct kiln_kernel_info;

/* One NDRange launch of a kernel of a loaded program. */
struct pipe_grid_info {
   void *kernel;            /* from pipe_screen::get_kernel */
   uint32_t work_dim;
   uint64_t global_offset[3];
   uint64_t global_size[3]; /* multiples of local_size */
   uint64_t local_size[3];
   const void *args;        /* argument buffer laid out as the kernel's metadata says */
   /* That metadata (include/kiln/kernel_info.h): which slots are what. */
   const struct kiln_kernel_info *info;
   size_t args_size;
   size_t local_mem_size;   /* __local bytes each work-group needs */
   /* KILN_CHECK=bounds (include/kiln/bounds.h): the launch's bounds table,
    * where the driver records the first out-of-bounds access; NULL when
    * the kernel was built without checks. */
   struct kiln_bounds *bounds;
};

struct pipe_screen {
   const char *driver_name; /* "cpu", "amdgpu", "cuda": KILN_DEVICES names */
   struct pipe_caps caps;

   void (*destroy)(struct pipe_screen *screen);
   /* Device time in ns, on the same clock as host CLOCK_MONOTONIC where the
    * device can: profiling timestamps must be comparable across queues. */
   uint64_t (*get_timestamp)(struct pipe_screen *screen);

   /* NULL when out of memory.  Contents are undefined. */
   struct pipe_resource *(*resource_create)(struct pipe_screen *screen, size_t size);
   /* Uses ptr itself as the storage where the device can (host-memory
    * devices); NULL if it cannot. */
   struct pipe_resource *(*resource_from_user_memory)(struct pipe_screen *screen, void *ptr,
                                                      size_t size);
   void (*resource_destroy)(struct pipe_screen *screen, struct pipe_resource *res);
   /* A host pointer to the whole resource that stays valid for its
    * lifetime, or NULL when the memory is not host-visible (then core must
    * go through the context's transfers). */
   void *(*resource_host_pointer)(struct pipe_screen *screen, struct pipe_resource *res);

   /* The address kernels use for the resource's first byte. */
   uint64_t (*resource_address)(struct pipe_screen *screen, struct pipe_resource *res);

   struct pipe_context *(*context_create)(struct pipe_screen *screen);
   /* Sub-devices: what topology lists, and a context whose launches run on
    * the given compute units only (indices into topology.units).  NULL
    * (function or result) when the driver cannot. */
   struct pipe_topology topology;
   struct pipe_context *(*context_create_on_units)(struct pipe_screen *screen,
                                                   const unsigned *units, unsigned num_units);

   /* Loads a program's device code (what the compiler produced for this
    * device); NULL when it cannot, with *error (kiln_malloc'd) saying why,
    * or *error left NULL when the reason is lack of host memory. */
   void *(*program_create)(struct pipe_screen *screen, const void *code, size_t size,
                           char **error);
   void (*program_destroy)(struct pipe_screen *screen, void *program);
   /* A kernel of a loaded program, for pipe_grid_info::kernel.  Fails as
    * program_create does. */
   void *(*get_kernel)(struct pipe_screen *screen, void *program, const char *name,
                       char **error);
};

/* Records and runs work on one device.  Core calls a context from one
 * thread at a time (its device's executor); every call has completed when
 * it returns unless the driver says otherwise through flush/fences. */
struct pipe_context {
   struct pipe_screen *screen;
   void (*destroy)(struct pipe_context *ctx);

   void (*buffer_write)(struct pipe_context *ctx, struct pipe_resource *dst, size_t offset,
                        size_t size, const void *src);
   void (*buffer_read)(struct pipe_context *ctx, struct pipe_resource *src, size_t offset,
                       size_t size, void *dst);
   /* Regions may overlap only when the API allowed it (never, in 1.1). */
   void (*resource_copy_region)(struct pipe_context *ctx, struct pipe_resource *dst,
                                size_t dst_offset, struct pipe_resource *src,
                                size_t src_offset, size_t size);
   /* Fills size bytes with a repeated pattern of pattern_size bytes. */
   void (*clear_buffer)(struct pipe_context *ctx, struct pipe_resource *res, size_t offset,
                        size_t size, const void *pattern, size_t pattern_size);
   /* Runs every work-group of the grid; returns CL_SUCCESS or an error
    * (CL_OUT_OF_RESOURCES when the work-groups cannot be given their
    * __local memory).  With info->bounds, an access that fails its check
    * is recorded there and ends the launch early; that alone is no error
    * here (core reports it). */
   int (*launch_grid)(struct pipe_context *ctx, const struct pipe_grid_info *info);
   /* Makes all previous work visible to the host and other contexts. */
   void (*flush)(struct pipe_context *ctx);
};

#endif
