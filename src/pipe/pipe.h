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
   /* The largest grid the device can launch, per dimension: global sizes,
    * global offsets and work-group counts; 0 where nothing but the size_t
    * range of address_bits limits it.  Core refuses a launch past them at
    * enqueue (docs/design.md, "Launch limits"), so a driver never sees
    * a grid it would have to wrap. */
   uint64_t max_grid_size[3];
   uint64_t max_grid_offset[3];
   uint64_t max_grid_groups[3];
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
   cl_device_fp_config half_fp_config; /* 0: no cl_khr_fp16 */
   bool image_support;
   cl_uint max_read_image_args, max_write_image_args, max_samplers;
   size_t image2d_max_width, image2d_max_height;
   size_t image3d_max_width, image3d_max_height, image3d_max_depth;
   /* OpenCL 1.2: pixels of a 1D image buffer, images in an image array. */
   size_t image_max_buffer_size, image_max_array_size;
   /* CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS (0: no read_write image
    * arguments).  Non-zero on a 3.0 device with images means OpenCL C's
    * __opencl_c_read_write_images: the driver's image builtins take
    * read_write images (sampler-less reads, writes, queries) and every
    * format clGetSupportedImageFormats lists can be read and written
    * through one argument. */
   cl_uint max_read_write_image_args;
   size_t printf_buffer_size; /* bytes; 0 where kernels cannot printf */
   bool error_correction;
   bool host_unified_memory;
   bool endian_little;
   bool compiler_available;
   /* The OpenCL version the device implements (CL_DEVICE_VERSION), as
    * 100 * major + 10 * minor: 300 or 120 (0 counts as 120).  A 3.0
    * device's optional features are what the other caps say (images,
    * fp64, ...): core derives CL_DEVICE_OPENCL_C_FEATURES from them
    * (core/device_version.c). */
   cl_uint opencl_version;
   /* CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES / _FENCE_CAPABILITIES of a 3.0
    * device: the orders and scopes its OpenCL C 3.0 atomics and fences
    * carry out (0: 3.0's minimum, relaxed work-group atomics and
    * relaxed/acq_rel work-group fences).  Core derives the
    * __opencl_c_atomic_* feature macros from the memory capabilities. */
   cl_device_atomic_capabilities atomic_memory_capabilities;
   cl_device_atomic_capabilities atomic_fence_capabilities;
   /* CL_DEVICE_SVM_CAPABILITIES: non-zero only where a kernel may use
    * host addresses as they are (the CPU device): core then passes SVM
    * pointers in the argument buffer and runs the SVM commands on the host
    * (core/svm.c). */
   cl_device_svm_capabilities svm_capabilities;
   /* CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE (0: no program-scope __global
    * variables, OpenCL C 3.0's optional feature) and
    * CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE. */
   size_t max_global_variable_size, global_variable_preferred_total_size;
   /* CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT: launches whose local size
    * does not divide the global size (pipe_grid_info::global_size). */
   bool non_uniform_work_groups;
   /* launch_grid only records the launch, which the device runs later
    * behind the context's earlier work, and returns at once (CUDA: one
    * cuLaunchKernel on the stream).  Core then records a launch on the
    * thread that enqueues it whenever nothing of its queue is ahead of it,
    * rather than handing it to the queue's executor thread (docs/design.md,
    * "Executor: the launch path").  False where launch_grid runs the work
    * (the CPU), which must not happen inside clEnqueueNDRangeKernel. */
   bool launch_records_async;
   /* CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT of a 3.0 device:
    * OpenCL C's work_group_all/any/broadcast/reduce/scan (core then lists
    * __opencl_c_work_group_collective_functions). */
   bool work_group_collective_functions;
   /* CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT of a 3.0 device: OpenCL C
    * 3.0 programs may use the generic address space (unqualified pointers,
    * addrspacecasts, to_global/to_local/to_private, get_fence); core then
    * lists __opencl_c_generic_address_space.  The driver must tell a
    * generic pointer's space from its address alone (docs/kernels.md,
    * "Generic address space"). */
   bool generic_address_space;
   /* Pipes (__opencl_c_pipes) of a 3.0 device: CL_DEVICE_PIPE_MAX_PACKET_SIZE,
    * 0 where the device has none (then CL_DEVICE_PIPE_SUPPORT is false and
    * the other two read 0, as 3.0 asks), CL_DEVICE_MAX_PIPE_ARGS and
    * CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS.  The device must run the
    * pipe builtins on the layout of include/kiln/pipe_layout.h, which
    * core writes at clCreatePipe; they need the generic address space. */
   cl_uint pipe_max_packet_size;
   cl_uint max_pipe_args;
   cl_uint pipe_max_active_reservations;
   /* Device-side enqueue (OpenCL C 3.0 __opencl_c_device_enqueue): the
    * most on-device queues a context may have per device, 0 where the
    * driver has none (core then refuses CL_QUEUE_ON_DEVICE and reports
    * every on-device query as 0).  Non-zero means the driver's kernels
    * may call enqueue_kernel (src/pipe/cpu/cpu_devq.h) and take the sizes
    * below: CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE, _MAX_SIZE and
    * CL_DEVICE_MAX_ON_DEVICE_EVENTS. */
   cl_uint max_on_device_queues;
   cl_uint queue_on_device_preferred_size;
   cl_uint queue_on_device_max_size;
   cl_uint max_on_device_events;
   /* CL_DEVICE_MAX_NUM_SUB_GROUPS (0: no sub-groups).  Non-zero on a 3.0
    * device means __opencl_c_subgroups; the driver lists cl_khr_subgroups
    * in `extensions` itself where it has independent forward progress. */
   cl_uint max_num_sub_groups;
   /* CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS. */
   bool sub_group_independent_forward_progress;
   /* CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE: what most kernels'
    * pipe_kernel_info will say (0: unknown before a kernel exists, 1 is
    * reported). */
   size_t preferred_work_group_size_multiple;
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

/* Device memory holding one buffer (or an image, which is linear in it).
 * A cl_mem has one per device that used it (core/mem.h); which of them
 * holds the current bytes is core's business, not the driver's. */
struct pipe_resource {
   struct pipe_screen *screen;
   size_t size;
   bool user_memory; /* the driver imported application memory */
};

/* Work a context handed to its device; signalled when all of it is done
 * (pipe_context::flush).  Owned by the driver; core destroys each. */
struct pipe_fence;
/* One host access to a resource (pipe_context::transfer_map). */
struct pipe_transfer;

struct pipe_context;
struct kiln_bounds;
struct kiln_kernel_info;

/* A byte rectangle in a linear resource or in host memory: the address of
 * its first byte (an offset in the resource, or a host pointer for the
 * host side), and the pitches of its rows and slices. */
struct pipe_rect {
   size_t offset;
   size_t row_pitch, slice_pitch;
};

/* What an image argument is: the storage layout core chose (linear,
 * row/slice pitches, core/mem.h) and the format.  The driver turns it
 * into whatever its kernels read (the CPU driver's kiln_image_desc, a
 * texture object, a hardware descriptor). */
struct pipe_image_view {
   cl_mem_object_type type;
   cl_image_format format;
   uint32_t elem_size; /* bytes per pixel */
   size_t width, height, depth, array_size;
   size_t row_pitch, slice_pitch; /* bytes; slice_pitch 0 without slices */
};

/* How one kernel argument is bound at launch.  Core fills the by-value
 * arguments into pipe_grid_info::args itself and lists every other
 * argument here; the driver writes what the kernel receives for it
 * (an address, a __local offset, an image descriptor, sampler bits) into
 * the argument slot that the kernel metadata (info->args[arg]) names. */
enum pipe_binding_kind {
   PIPE_BIND_GLOBAL,  /* __global or __constant buffer; res NULL: a NULL argument */
   PIPE_BIND_LOCAL,   /* __local pointer: local_size bytes for each work-group */
   PIPE_BIND_IMAGE,   /* image: res, offset and *image */
   PIPE_BIND_SAMPLER, /* sampler: sampler_bits (CLK_* values, include/kiln/image.h) */
};

struct pipe_binding {
   uint32_t arg; /* argument index */
   enum pipe_binding_kind kind;
   struct pipe_resource *res; /* on the launching device's screen */
   size_t offset;             /* of the buffer's or image's first byte in res */
   size_t local_size;
   uint32_t sampler_bits;
   const struct pipe_image_view *image;
};

/* One NDRange launch of a kernel of a loaded program. */
struct pipe_grid_info {
   void *kernel;            /* from pipe_screen::get_kernel */
   uint32_t work_dim;
   uint64_t global_offset[3];
   /* Multiples of local_size, except on a device with
    * non_uniform_work_groups (then each dimension's last group is smaller
    * where local_size does not divide it). */
   uint64_t global_size[3];
   uint64_t local_size[3];
   /* The argument buffer laid out as the kernel's metadata says
    * (include/kiln/kernel_info.h), by-value slots filled.  The driver
    * copies it before it writes bindings: core may reuse it at once. */
   const void *args;
   size_t args_size;
   const struct kiln_kernel_info *info;
   const struct pipe_binding *bindings;
   uint32_t num_bindings;
   /* KILN_CHECK=bounds (include/kiln/bounds.h): the launch's bounds table,
    * where the driver records the first out-of-bounds access; NULL when
    * the kernel was built without checks.  Drivers that cannot check
    * refuse such programs at program_create. */
   struct kiln_bounds *bounds;
   /* Devices with on-device queues (pipe_caps::max_on_device_queues): the
    * handle the kernel's get_default_queue() returns (the context's
    * default on-device queue, NULL where there is none).  The driver never
    * dereferences it; queue_t arguments hold such handles too. */
   void *default_device_queue;
   /* The CL_QUEUE_SIZE of the on-device queue behind a queue_t handle, 0
    * where the handle is no on-device queue: the driver bounds each
    * queue's pending commands by it.  Set with default_device_queue. */
   uint32_t (*device_queue_size)(void *handle);
};

/* Per-kernel limits, as the driver knows them once the kernel is loaded
 * (register and shared-memory use, SIMD width): what
 * CL_KERNEL_WORK_GROUP_SIZE and friends report. */
struct pipe_kernel_info {
   size_t max_work_group_size;
   size_t preferred_work_group_size_multiple; /* warp/wave size, CPU vector width */
   uint64_t private_mem_size;                 /* bytes per work-item */
   uint64_t static_local_mem_size;            /* __local variables of the kernel itself */
   /* Drivers whose work-groups keep private memory in storage of a fixed
    * size (the CPU workers' stacks): a group of n work-items needs
    * private_group_fixed + n * private_group_per_item bytes of it, and
    * private_group_limit are there (0: nothing to check).  Core refuses
    * a launch that needs more with CL_OUT_OF_RESOURCES;
    * max_work_group_size already says how many work-items fit. */
   uint64_t private_group_fixed;
   uint64_t private_group_per_item;
   uint64_t private_group_limit;
};

/* pipe_screen::fence_wait results besides a (negative) CL error, which
 * says that the fenced work failed (CL_OUT_OF_RESOURCES for a faulting
 * kernel or a lost device). */
#define PIPE_FENCE_SIGNALLED 0
#define PIPE_FENCE_BUSY 1
#define PIPE_TIMEOUT_INFINITE UINT64_MAX

/* transfer_map flags. */
#define PIPE_MAP_READ 0x1    /* the host reads: the pointer shows the resource's bytes */
#define PIPE_MAP_WRITE 0x2   /* the host writes: they reach the resource at unmap */
#define PIPE_MAP_DISCARD 0x4 /* with WRITE: the old bytes of the range are not needed */

struct pipe_screen {
   const char *driver_name; /* "cpu", "amdgpu", "cuda": KILN_DEVICES names */
   struct pipe_caps caps;

   void (*destroy)(struct pipe_screen *screen);
   /* Device time in ns, on the same clock as host CLOCK_MONOTONIC where the
    * device can: profiling timestamps must be comparable across queues. */
   uint64_t (*get_timestamp)(struct pipe_screen *screen);

   /* NULL when out of memory.  Contents are undefined. */
   struct pipe_resource *(*resource_create)(struct pipe_screen *screen, size_t size);
   /* A resource whose storage is ptr itself (host-memory devices, or GPU
    * memory that imports user pages); NULL when the device cannot, and
    * core keeps a device copy synchronised with ptr instead. */
   struct pipe_resource *(*resource_from_user_memory)(struct pipe_screen *screen, void *ptr,
                                                      size_t size);
   void (*resource_destroy)(struct pipe_screen *screen, struct pipe_resource *res);
   /* A host pointer to the whole resource, valid for its lifetime and
    * coherent with the device once the work touching it is fenced; NULL
    * when the memory is not host-visible (core then goes through
    * transfer_map or buffer_read/buffer_write).  An optimisation only. */
   void *(*resource_host_pointer)(struct pipe_screen *screen, struct pipe_resource *res);

   /* One context records work for one queue (a stream, a ring); several
    * contexts of one screen run independently. */
   struct pipe_context *(*context_create)(struct pipe_screen *screen);
   /* Sub-devices: what topology lists, and a context whose launches run on
    * the given compute units only (indices into topology.units).  NULL
    * (function or result) when the driver cannot. */
   struct pipe_topology topology;
   struct pipe_context *(*context_create_on_units)(struct pipe_screen *screen,
                                                   const unsigned *units, unsigned num_units);

   /* Waits up to timeout_ns for the fence: PIPE_FENCE_SIGNALLED,
    * PIPE_FENCE_BUSY, or a negative CL error when the work failed.  Any
    * thread may wait on any fence. */
   int (*fence_wait)(struct pipe_screen *screen, struct pipe_fence *fence, uint64_t timeout_ns);
   /* Device times (host CLOCK_MONOTONIC ns) at which the fenced work
    * started and ended, once signalled; false (or a NULL slot) when the
    * device cannot tell, and core uses host times. */
   bool (*fence_times)(struct pipe_screen *screen, struct pipe_fence *fence, uint64_t *start,
                       uint64_t *end);
   void (*fence_destroy)(struct pipe_screen *screen, struct pipe_fence *fence);

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
   /* The kernel's limits; meta is what the compiler said of it.  A driver
    * that compiles kernels when first needed compiles this one now. */
   void (*get_kernel_info)(struct pipe_screen *screen, void *kernel,
                           const struct kiln_kernel_info *meta, struct pipe_kernel_info *out);
   /* Optional, for drivers whose kernels are compiled when first needed
    * (the CPU's: a kernel's first launch or get_kernel_info): the
    * program's device code as it stands, in the form program_create takes
    * (kiln_malloc'd, *size set), with every kernel compiled so far, and
    * first every other one too when all_kernels (what a program binary
    * must hold).  NULL when it holds nothing program_create's code or the
    * last such call did not, or when out of memory. */
   void *(*program_code)(struct pipe_screen *screen, void *program, bool all_kernels,
                         size_t *size);
};

/* Records work for one device queue.  Core calls a context from one thread
 * at a time.  Copies, fills, writes, reads and launches are *recorded*: they
 * may run later, in the order recorded, and are complete once the fence of
 * a later flush signals (a driver may run them at once and hand back no
 * fence).  Host memory passed to buffer_write/buffer_read must stay valid
 * until then, which the OpenCL API already demands of applications. */
struct pipe_context {
   struct pipe_screen *screen;
   /* Set by core before it records a command: whether the next fence must
    * carry device times (fence_times; the queue profiles).  A driver may
    * skip what only those times need while it is false. */
   bool timed;
   void (*destroy)(struct pipe_context *ctx);

   void (*buffer_write)(struct pipe_context *ctx, struct pipe_resource *dst, size_t offset,
                        size_t size, const void *src);
   void (*buffer_read)(struct pipe_context *ctx, struct pipe_resource *src, size_t offset,
                       size_t size, void *dst);
   /* Regions may overlap only when the API allowed it (never, in 1.1). */
   void (*resource_copy_region)(struct pipe_context *ctx, struct pipe_resource *dst,
                                size_t dst_offset, struct pipe_resource *src,
                                size_t src_offset, size_t size);
   /* Rectangles of region[0] bytes x region[1] rows x region[2] slices.
    * The host side's rect offset is 0 relative to host.  pipe_util.h has
    * row-by-row versions built on the calls above. */
   void (*buffer_write_rect)(struct pipe_context *ctx, struct pipe_resource *dst,
                             const struct pipe_rect *d, const void *host,
                             const struct pipe_rect *h, const size_t region[3]);
   void (*buffer_read_rect)(struct pipe_context *ctx, struct pipe_resource *src,
                            const struct pipe_rect *s, void *host, const struct pipe_rect *h,
                            const size_t region[3]);
   void (*resource_copy_rect)(struct pipe_context *ctx, struct pipe_resource *dst,
                              const struct pipe_rect *d, struct pipe_resource *src,
                              const struct pipe_rect *s, const size_t region[3]);
   /* Fills size bytes with a repeated pattern of pattern_size bytes (1 to
    * 128, a power of two; offset and size multiples of it). */
   void (*clear_buffer)(struct pipe_context *ctx, struct pipe_resource *res, size_t offset,
                        size_t size, const void *pattern, size_t pattern_size);
   /* Records a launch of every work-group of the grid; CL_SUCCESS or an
    * error found while recording (CL_OUT_OF_RESOURCES when the work-groups
    * cannot be given their __local memory, CL_OUT_OF_HOST_MEMORY).  With
    * info->bounds, an access that fails its check is recorded there and
    * ends the launch early; that alone is no error (core reports it once
    * the fence signalled). */
   int (*launch_grid)(struct pipe_context *ctx, const struct pipe_grid_info *info);
   /* Hands everything recorded to the device.  With fence non-NULL, *fence
    * becomes a fence that signals when ALL work recorded on this context so
    * far is complete (earlier flushes' included: a marker with nothing of
    * its own to do relies on it), or NULL only when all of it is complete
    * already. */
   void (*flush)(struct pipe_context *ctx, struct pipe_fence **fence);
   /* Optional.  Waits until all work recorded on this context so far is
    * complete, for a thread that would otherwise make a fence only to wait
    * for it at once (a clFinish): where all of it succeeded, the next
    * flush then hands out no fence for it.  Where it failed, or the work
    * wants what only a fence gives (device times), it leaves the context
    * as it was and the next flush makes the fence that reports it.
    * Cheaper than a fence where the device can wait for its queue
    * directly (a CUDA stream synchronize against an event recorded and
    * waited for: docs/performance.md). */
   void (*finish)(struct pipe_context *ctx);

   /* Host access to [offset, offset+size) of res, synchronous: waits for
    * the context's recorded work, returns a pointer to the bytes (the
    * resource itself where host-visible, a staging copy otherwise), or
    * NULL when out of memory.  transfer_unmap writes a PIPE_MAP_WRITE
    * range back before later work of this context runs. */
   void *(*transfer_map)(struct pipe_context *ctx, struct pipe_resource *res, size_t offset,
                         size_t size, unsigned flags, struct pipe_transfer **transfer);
   void (*transfer_unmap)(struct pipe_context *ctx, struct pipe_transfer *transfer);
};

#endif
