/* What an NVIDIA GPU reports as an OpenCL device: its own numbers from
 * cuDeviceGetAttribute, not a template (132 compute units on an H100 SXM,
 * its real memory and limits). */
#include <stdio.h>
#include <string.h>

#include "llvm/nvptx/nvptx_target.h"
#include "pipe/cuda/cuda_abi.h"
#include "pipe/cuda/cuda_caps.h"
#include "util/printf_format.h"
#include "pipe/cuda/cuda_priv.h"
#include "pipe/pipe_image.h"

static size_t at_least(int value, size_t floor)
{
   return value > 0 && (size_t)value > floor ? (size_t)value : floor;
}

void cuda_fill_caps(struct cuda_screen *s, struct pipe_caps *c)
{
   struct cuda_winsys *ws = s->ws;
   const struct cuda_ws_info *info = cuda_winsys_info(ws);
#define ATTR(name, fallback) cuda_ws_attribute(ws, CU_DEVICE_ATTRIBUTE_##name, fallback)

   /* PTX from src/llvm's nvptx target for this compute capability
    * ("sm_90"); an sm Kiln does not compile for has no compiler, and
    * reports so rather than failing every build. */
   snprintf(c->ir_target, sizeof(c->ir_target), "sm_%d%d", info->cc_major, info->cc_minor);
   c->compiler_available = kiln_nvptx_target_find(c->ir_target) != NULL;
   snprintf(c->ir, sizeof(c->ir), "%s", c->compiler_available ? "nvptx" : "");

   c->type = CL_DEVICE_TYPE_GPU;
   c->vendor_id = 0x10de;
   snprintf(c->name, sizeof(c->name), "%s", info->name);
   snprintf(c->vendor, sizeof(c->vendor), "NVIDIA Corporation");
   c->max_compute_units = (cl_uint)at_least(ATTR(MULTIPROCESSOR_COUNT, 1), 1);
   /* kHz; CUDA 13 may not report it (0): 0 MHz then, not a guess. */
   c->max_clock_frequency = (cl_uint)(at_least(ATTR(CLOCK_RATE, 0), 0) / 1000);
   c->address_bits = 64;

   c->max_work_group_size = at_least(ATTR(MAX_THREADS_PER_BLOCK, 1024), 1);
   c->max_work_item_sizes[0] = at_least(ATTR(MAX_BLOCK_DIM_X, 1024), 1);
   c->max_work_item_sizes[1] = at_least(ATTR(MAX_BLOCK_DIM_Y, 1024), 1);
   c->max_work_item_sizes[2] = at_least(ATTR(MAX_BLOCK_DIM_Z, 64), 1);
   s->max_grid[0] = (unsigned)at_least(ATTR(MAX_GRID_DIM_X, 65535), 1);
   s->max_grid[1] = (unsigned)at_least(ATTR(MAX_GRID_DIM_Y, 65535), 1);
   s->max_grid[2] = (unsigned)at_least(ATTR(MAX_GRID_DIM_Z, 65535), 1);
   /* Blocks per grid dimension (2^31-1 x 65535 x 65535 on every GPU so
    * far): core refuses larger grids at enqueue. */
   for (int d = 0; d < 3; d++)
      c->max_grid_groups[d] = s->max_grid[d];
   /* cuLaunchKernel queues the launch on the stream and returns. */
   c->launch_records_async = true;
   s->warp_size = (unsigned)at_least(ATTR(WARP_SIZE, 32), 1);
   c->preferred_work_group_size_multiple = s->warp_size; /* as every kernel's */
   s->max_pitch = at_least(ATTR(MAX_PITCH, 0x7fffffff), 0);

   /* Scalar hardware: one lane per work-item, vectors are loops. */
   static const cl_uint widths[7] = {1, 1, 1, 1, 1, 1, 0};
   memcpy(c->preferred_vector_width, widths, sizeof(widths));
   memcpy(c->native_vector_width, widths, sizeof(widths));

   c->global_mem_size = info->total_mem;
   /* A quarter of the memory (the spec's floor, and what NVIDIA's OpenCL
    * reports): one buffer may not starve the others, and conformance
    * tests that allocate several maximal buffers fit. */
   cl_ulong quarter = info->total_mem / 4;
   c->max_mem_alloc_size = quarter > (128u << 20) ? quarter : (128u << 20);
   if (c->max_mem_alloc_size > info->total_mem)
      c->max_mem_alloc_size = info->total_mem;
   c->global_mem_cache_type = CL_READ_WRITE_CACHE;
   c->global_mem_cacheline_size = 128;
   c->global_mem_cache_size = (cl_ulong)at_least(ATTR(L2_CACHE_SIZE, 0), 0);
   c->max_constant_buffer_size = (cl_ulong)at_least(ATTR(TOTAL_CONSTANT_MEMORY, 65536), 65536);
   c->max_constant_args = 8;

   /* Shared memory: 48 KiB per block without opting in, more (227 KiB on
    * Hopper) with cuFuncSetAttribute, which launch_grid does. */
   s->shared_default = (unsigned)at_least(ATTR(MAX_SHARED_MEMORY_PER_BLOCK, 49152), 0);
   s->shared_optin = (unsigned)at_least(ATTR(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 0),
                                        s->shared_default);
   c->local_mem_type = CL_LOCAL;
   c->local_mem_size = s->shared_optin;

   /* CUDA takes 4 KiB of kernel parameters on every GPU (more on newer
    * drivers and GPUs only); the hidden ones come out of it. */
   c->max_parameter_size = 4096 - sizeof(struct cuda_abi_hidden) - 4;
   c->mem_base_addr_align = 128 * 8; /* bits: a long16; cuMemAlloc gives 256 bytes */
   c->min_data_type_align_size = 128;
   /* IEEE rounding unless the program relaxes it.  No CL_FP_DENORM for
    * float: Kiln's arithmetic keeps denormals, but libclc 19's nvptx
    * library is built for float without them (its
    * __clc_fp32_subnormals_supported() is false), so exp, erfc, rootn,
    * remainder, remquo, ... flush results below FLT_MIN to 0, which only
    * a device without CL_FP_DENORM may do (the CTS's test_bruteforce
    * caught five).  double keeps them in libclc too
    * (double_fp_config: cuda_kernel_caps). */
   c->single_fp_config = CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST | CL_FP_FMA;

   /* Images are linear device memory that Kiln's image functions read
    * and write through a descriptor (cuda_image.c), as on the CPU: every
    * format and sampler of OpenCL 1.2.  Those the texture units map
    * exactly also get a CUDA array, sampled through texture objects and
    * written through surface objects (docs/cuda.md, "Images"); the limits
    * stay the linear path's, which every image can fall back to.  2^27
    * pixels per 1D image buffer is what NVIDIA's OpenCL reports. */
   pipe_image_linear_caps(c, (size_t)1 << 27);
   /* Each printing launch gets a device buffer of this size (cuda_printf.c;
    * KILN_PRINTF_BUFFER_SIZE changes it, and core reports that). */
   c->printf_buffer_size = kiln_printf_buffer_size();

   c->error_correction = ATTR(ECC_ENABLED, 0) != 0;
   c->host_unified_memory = ATTR(INTEGRATED, 0) != 0;
   c->endian_little = true;
   /* cuEventElapsedTime's resolution is about half a microsecond. */
   c->profiling_timer_resolution = 500;
   c->execution_capabilities = CL_EXEC_KERNEL;
   c->queue_properties = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;
   /* OpenCL 3.0 with the optional features the nvptx compiler and this
    * driver carry out, the same list kiln-compile builds with; images
    * and doubles among them (issue 21; docs/cuda.md, "OpenCL 3.0"). */
   cuda_kernel_caps(c);
#undef ATTR
}
