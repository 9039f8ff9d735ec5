#include "pipe/cpu/cpu_screen.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kiln/printf.h"
#include "pipe/cpu/cpu_info.h"
#include "pipe/cpu/cpu_topology.h"
#include "pipe/cpu/cpu_tpool.h"
#include "pipe/pipe_image.h"
#include "winsys/sw/sw_winsys.h"
#include "util/alloc.h"

struct cpu_screen {
   struct pipe_screen base;
   struct cpu_info info;
   pthread_mutex_t tpool_lock;
   /* Set once, under tpool_lock; read by every launch without it. */
   struct cpu_tpool *_Atomic tpool;
};

static struct cpu_screen *cpu_screen(struct pipe_screen *screen)
{
   return (struct cpu_screen *)screen;
}

/* The pool starts with the first launch, not when clinfo merely looks. */
struct cpu_tpool *cpu_screen_tpool(struct pipe_screen *screen)
{
   struct cpu_screen *s = cpu_screen(screen);
   struct cpu_tpool *pool = atomic_load_explicit(&s->tpool, memory_order_acquire);
   if (pool)
      return pool;
   pthread_mutex_lock(&s->tpool_lock);
   pool = atomic_load_explicit(&s->tpool, memory_order_relaxed);
   if (!pool) {
      pool = cpu_tpool_pinned() && s->info.cpus
                ? cpu_tpool_create(s->info.cores, s->info.cpus, s->info.cores, true)
                : cpu_tpool_create(s->info.cores, NULL, 0, false);
      atomic_store_explicit(&s->tpool, pool, memory_order_release);
   }
   pthread_mutex_unlock(&s->tpool_lock);
   return pool;
}

static void cpu_screen_destroy(struct pipe_screen *screen)
{
   cpu_tpool_destroy(cpu_screen(screen)->tpool);
   cpu_topology_free(&screen->topology);
   kiln_free(cpu_screen(screen)->info.cpus);
   kiln_free(screen);
}

static uint64_t cpu_get_timestamp(struct pipe_screen *screen)
{
   (void)screen;
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t clamp_u64(uint64_t v, uint64_t lo, uint64_t hi)
{
   return v < lo ? lo : v > hi ? hi : v;
}

static void fill_caps(struct pipe_caps *c, const struct cpu_info *info)
{
   c->type = CL_DEVICE_TYPE_CPU;
   c->vendor_id = info->vendor_pci_id;
   snprintf(c->name, sizeof(c->name), "%s", info->model);
   snprintf(c->vendor, sizeof(c->vendor), "%s", info->vendor);
   c->max_compute_units = info->cores;
   c->max_clock_frequency = info->mhz;
   c->address_bits = sizeof(void *) * 8;

   /* Work-groups run as loops over work-items on one thread, so any size
    * works; 1024 bounds the per-work-item state a barrier must keep. */
   c->max_work_group_size = 1024;
   for (int i = 0; i < 3; i++)
      c->max_work_item_sizes[i] = c->max_work_group_size;

   /* Vector widths follow the widest register: AVX without AVX2 has no
    * 256-bit integer operations. */
   unsigned fbytes = info->simd_bytes;
   unsigned ibytes = info->avx2 || info->simd_bytes == 16 ? info->simd_bytes : 16;
   const unsigned sizes[7] = {1, 2, 4, 8, 4, 8, 2};
   for (int i = 0; i < 7; i++) {
      unsigned bytes = (i == 4 || i == 5) ? fbytes : ibytes;
      c->preferred_vector_width[i] = bytes / sizes[i];
      c->native_vector_width[i] = bytes / sizes[i];
   }
   /* cl_khr_fp16: x86 computes half in float lanes (F16C converts, where
    * there is no AVX512-FP16), so a half vector is as wide as a float one. */
   c->preferred_vector_width[6] = c->preferred_vector_width[4];
   c->native_vector_width[6] = c->native_vector_width[4];

   c->global_mem_size = sw_winsys_total_memory();
   /* The spec's minimum is max(1/4 of global memory, 128 MiB); a CPU can
    * give a single buffer half the machine without harm. */
   c->max_mem_alloc_size = c->global_mem_size / 2;
   if (c->max_mem_alloc_size < 128ull << 20)
      c->max_mem_alloc_size = 128ull << 20;

   c->global_mem_cache_type = CL_READ_WRITE_CACHE;
   c->global_mem_cacheline_size = info->cacheline;
   c->global_mem_cache_size = info->llc_size;

   c->max_constant_buffer_size = 1u << 20;
   c->max_constant_args = 8;
   /* __local memory is ordinary host memory per worker thread; sizing it
    * like L2 keeps a work-group's tile in cache. */
   c->local_mem_type = CL_GLOBAL;
   c->local_mem_size = clamp_u64(info->l2_size, 64u << 10, 4u << 20);
   c->max_parameter_size = 1024;
   /* long16 is the largest type: 128 bytes. */
   c->mem_base_addr_align = 128 * 8;
   c->min_data_type_align_size = 128;

   c->single_fp_config = CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST;
   if (info->fma)
      c->single_fp_config |= CL_FP_FMA;
   /* cl_khr_fp64: what §9.3 requires of a double-precision device.  FMA
    * is exact everywhere: without the instruction, fma() is glibc's
    * correctly rounded software fma. */
   c->double_fp_config = CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO |
                         CL_FP_ROUND_TO_INF | CL_FP_INF_NAN | CL_FP_DENORM;
   /* cl_khr_fp16: LLVM computes each half operation in float and rounds
    * to nearest even (correctly rounded: float has more than twice half's
    * precision), half denormals are float normals and are kept, inf and
    * NaN pass through, and the library's fma(half) is correctly rounded
    * (in double; docs/builtins.md).  No directed rounding of arithmetic. */
   c->half_fp_config = CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN | CL_FP_DENORM;

   /* Images are linear host memory read and written by the builtins
    * library (src/llvm/builtins/image.cl). */
   pipe_image_linear_caps(c, INT32_MAX);
   /* read_write images are the same linear texels: the builtins' _rw
    * forms are the read_only and write_only code (image.cl), and a
    * work-item's write then read of a texel is ordinary stores and loads
    * in program order.  64 is OpenCL 3.0's minimum, as for writes. */
   c->max_read_write_image_args = 64;
   /* Full profile's minimum; kernels' printf output goes through it. */
   c->printf_buffer_size = KILN_PRINTF_BUFFER_DEFAULT;

   c->error_correction = false;
   c->host_unified_memory = true;
   c->endian_little = true;
   snprintf(c->ir, sizeof(c->ir), "cpu"); /* this machine's CPU: ir_target stays "" */
   c->compiler_available = true;
   /* OpenCL 3.0 with the optional features listed in docs/conformance.md. */
   c->opencl_version = 300;
   /* The C11 atomics and fences of the builtins library (atomic_c11.cl)
    * honour every order; every scope is carried out at system scope. */
   c->atomic_memory_capabilities = c->atomic_fence_capabilities =
      CL_DEVICE_ATOMIC_ORDER_RELAXED | CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
      CL_DEVICE_ATOMIC_ORDER_SEQ_CST | CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM |
      CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP | CL_DEVICE_ATOMIC_SCOPE_DEVICE |
      CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES;
   /* Kernels run in the application's address space: any host address is
    * an SVM pointer, and atomics are the host's (docs/svm.md). */
   /* Program-scope __global variables live in the JIT's data sections of
    * each loaded program (one copy per program and device): any size the
    * host's memory holds; 64 MiB per variable keeps a typo from asking
    * for gigabytes of zeroed pages. */
   c->max_global_variable_size = c->global_variable_preferred_total_size = 64u << 20;
   /* Each group's size is in its launch context (cpu_tpool.c). */
   c->non_uniform_work_groups = true;
   /* Collectives and sub-groups are builtins over a per-group scratch
    * area and barriers (src/llvm/builtins/collective.cl).  A work-group is
    * one sub-group (docs/subgroups.md): its work-items already run as one
    * loop on one thread, and with a single sub-group per group there is
    * no other sub-group of the group to wait for, so independent forward
    * progress holds and cl_khr_subgroups can be offered. */
   c->work_group_collective_functions = true;
   c->max_num_sub_groups = 1;
   /* Every address space is the host's flat memory, so generic pointers
    * are plain addresses; to_local/to_private tell the spaces apart by
    * the work-group's __local block and the work-group function's stack
    * (src/llvm/builtins/generic.cl). */
   c->generic_address_space = true;
   /* Kernels enqueue blocks (src/pipe/cpu/cpu_devq.c): a child runs once
    * its parent's groups are done, before the host command completes.
    * A queue's size bounds its commands not yet complete (each takes a
    * record of about 200 bytes plus its block's captures). */
   c->max_on_device_queues = 32;
   c->queue_on_device_preferred_size = 256u << 10;
   c->queue_on_device_max_size = 8u << 20;
   c->max_on_device_events = 1024;
   c->sub_group_independent_forward_progress = true;
   /* Pipes are builtins over the pipe's own header (a lock and four
    * counters, include/kiln/pipe_layout.h): any packet size and count the
    * memory holds.  1024 bytes and 16 pipe arguments are 3.0's minimums,
    * and what kernels are tested with; a reservation is a value the
    * work-item holds, so the number active is not bounded by the device:
    * one per work-item per pipe is reported. */
   c->pipe_max_packet_size = 1024;
   c->max_pipe_args = 16;
   c->pipe_max_active_reservations = 1;
   c->svm_capabilities = CL_DEVICE_SVM_COARSE_GRAIN_BUFFER | CL_DEVICE_SVM_FINE_GRAIN_BUFFER |
                         CL_DEVICE_SVM_FINE_GRAIN_SYSTEM | CL_DEVICE_SVM_ATOMICS;
   /* Work-items are vectorized in x by the float vector width, for every
    * kernel (cpu_get_kernel_info). */
   c->preferred_work_group_size_multiple =
      c->preferred_vector_width[4] ? c->preferred_vector_width[4] : 1;
   c->profiling_timer_resolution = 1;
   c->execution_capabilities = CL_EXEC_KERNEL | CL_EXEC_NATIVE_KERNEL;
   c->queue_properties = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;
   /* What OpenCL C 1.1 requires of every device, double and half
    * precision and 64-bit atomics; each is implemented by the builtins
    * library (atomics, atom_* on long and ulong too, every double and half
    * builtin) or the compiler (byte stores, double and half arithmetic;
    * the JIT resolves the half conversions x86 code calls, jit.c). */
   static const char *const exts[] = {
      "cl_khr_byte_addressable_store",        "cl_khr_global_int32_base_atomics",
      "cl_khr_global_int32_extended_atomics", "cl_khr_local_int32_base_atomics",
      "cl_khr_local_int32_extended_atomics",  "cl_khr_int64_base_atomics",
      "cl_khr_int64_extended_atomics",        "cl_khr_fp64",
      "cl_khr_3d_image_writes",               "cl_khr_fp16",
      "cl_khr_subgroups",
   };
   size_t n = 0, m = snprintf(c->clang_extensions, sizeof(c->clang_extensions), "-all");
   for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
      n += snprintf(c->extensions + n, sizeof(c->extensions) - n, "%s%s", i ? " " : "", exts[i]);
      m += snprintf(c->clang_extensions + m, sizeof(c->clang_extensions) - m, ",+%s", exts[i]);
   }
}

/* Immediate mode hands back no fence; these are never called then. */
static int cpu_fence_wait(struct pipe_screen *screen, struct pipe_fence *fence,
                          uint64_t timeout_ns)
{
   (void)screen;
   (void)fence;
   (void)timeout_ns;
   return PIPE_FENCE_SIGNALLED;
}

static void cpu_fence_destroy(struct pipe_screen *screen, struct pipe_fence *fence)
{
   (void)screen;
   (void)fence;
}

struct pipe_screen *cpu_screen_create(bool discrete)
{
   struct cpu_screen *s = kiln_calloc(1, sizeof(*s));
   if (!s)
      return NULL;
   cpu_info_probe(&s->info);
   s->base.driver_name = "cpu";
   s->base.destroy = cpu_screen_destroy;
   s->base.get_timestamp = cpu_get_timestamp;
   s->base.context_create = cpu_context_create;
   s->base.fence_wait = cpu_fence_wait;
   s->base.fence_destroy = cpu_fence_destroy;
   pthread_mutex_init(&s->tpool_lock, NULL);
   cpu_screen_init_compute_functions(&s->base);
   cpu_screen_init_resource_functions(&s->base);
   fill_caps(&s->base.caps, &s->info);
   /* Sub-devices divide the CPUs this process may run on; without a
    * topology (out of memory) there are none. */
   if (cpu_topology_read("/sys/devices/system", s->info.cpus, s->info.cpus ? s->info.cores : 0,
                         &s->base.topology) &&
       s->base.topology.num_units)
      s->base.context_create_on_units = cpu_context_create_on_units;
   if (discrete)
      cpu_discrete_init_screen(&s->base);
   return &s->base;
}
