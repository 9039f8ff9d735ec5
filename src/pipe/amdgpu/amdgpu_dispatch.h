/* One kernel launch on an AMD GPU as memory and packets: the kernarg
 * segment, the HSA-style dispatch packet libclc reads sizes from, and the
 * PM4 that programs the COMPUTE_* registers and dispatches.  Pure
 * functions of their inputs: the context puts the results in BOs. */
#ifndef KILN_PIPE_AMDGPU_DISPATCH_H
#define KILN_PIPE_AMDGPU_DISPATCH_H

#include <CL/cl.h>
#include <stddef.h>
#include <stdint.h>

#include "pipe/amdgpu/amdgpu_code_object.h"
#include "pipe/amdgpu/amdgpu_pm4.h"

struct kiln_kernel_info;
struct pipe_grid_info;

#define AMDGPU_DISPATCH_PACKET_SIZE 64
/* Where Kiln's implicit arguments go, after the explicit ones (aligned to
 * 4): work_dim, global_offset[3], u32 each — the layout libclc-19's
 * mesa3d get_work_dim()/get_global_offset() read. */
#define AMDGPU_IMPLICIT_ARGS_SIZE 16
/* __local arguments' alignment: the largest OpenCL type (long16). */
#define AMDGPU_LOCAL_ALIGN 128u

/* Fills out[0..desc->kernarg_size) from core's argument buffer, which is
 * laid out as the hardware's (src/llvm/metadata.c on amdgcn) with the
 * by-value slots filled, then writes the bindings into it: buffer
 * addresses (the resource's GPU address plus the offset) and __local
 * offsets, placed after the kernel's static LDS.  *lds_bytes gets the
 * LDS a work-group needs.  CL_INVALID_KERNEL when the code object or a
 * binding disagrees with the metadata, CL_OUT_OF_RESOURCES when the LDS
 * does not fit in max_lds. */
cl_int amdgpu_kernarg_build(const struct pipe_grid_info *grid,
                            const struct amdgpu_kernel_desc *desc, uint32_t max_lds, uint8_t *out,
                            uint32_t *lds_bytes);

/* The 64-byte hsa_kernel_dispatch_packet_t layout. */
void amdgpu_dispatch_packet(uint8_t out[AMDGPU_DISPATCH_PACKET_SIZE],
                            const struct pipe_grid_info *grid,
                            const struct amdgpu_kernel_desc *desc, uint32_t lds_bytes,
                            uint64_t code_va, uint64_t kernarg_va);

struct amdgpu_launch {
   unsigned gfx_level;
   const struct amdgpu_kernel_desc *desc;
   uint64_t code_va;     /* the kernel's first instruction (256-byte aligned) */
   uint64_t kernarg_va;
   uint64_t dispatch_va; /* the dispatch packet */
   uint32_t lds_bytes;
   uint32_t local[3];    /* work-group size */
   uint32_t groups[3];   /* work-groups in each dimension */
   /* Scratch (amdgpu_scratch_size): 0 when the kernel needs none. */
   uint64_t scratch_va;
   uint32_t tmpring_size;
};

/* The scratch a kernel needs on a GPU of num_cu compute units: the
 * COMPUTE_TMPRING_SIZE value and the bytes of the scratch BO (0 and 0
 * without private memory). */
void amdgpu_scratch_size(unsigned gfx_level, const struct amdgpu_kernel_desc *desc,
                         unsigned num_cu, uint32_t *tmpring, uint64_t *bytes);

/* CL_SUCCESS, or CL_OUT_OF_RESOURCES for kernels this dispatch cannot
 * start (inputs Kiln does not provide: queue pointer, dispatch id, ...). */
cl_int amdgpu_launch_supported(const struct amdgpu_kernel_desc *desc);
void amdgpu_emit_dispatch(struct pm4_buf *b, const struct amdgpu_launch *l);

#endif
