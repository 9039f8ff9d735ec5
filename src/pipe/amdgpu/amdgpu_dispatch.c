#include "pipe/amdgpu/amdgpu_dispatch.h"

#include <string.h>

#include "kiln/kernel_info.h"
#include "pipe/amdgpu/amdgpu_regs.h"
#include "pipe/amdgpu/amdgpu_screen.h"
#include "pipe/pipe.h"

static void put16(uint8_t *p, uint16_t v)
{
   p[0] = (uint8_t)v;
   p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
   put16(p, (uint16_t)v);
   put16(p + 2, (uint16_t)(v >> 16));
}

static void put64(uint8_t *p, uint64_t v)
{
   put32(p, (uint32_t)v);
   put32(p + 4, (uint32_t)(v >> 32));
}

/* The kernarg slot of binding b: where it lies, checked against the
 * metadata (core and the compiler must agree on it). */
static uint8_t *binding_slot(const struct pipe_grid_info *grid, const struct pipe_binding *b,
                             uint8_t *out, uint32_t size)
{
   const struct kiln_kernel_info *info = grid->info;
   if (b->arg >= info->num_args)
      return NULL;
   const struct kiln_arg_info *a = &info->args[b->arg];
   bool kind_ok = b->kind == PIPE_BIND_GLOBAL
                     ? a->kind == KILN_ARG_GLOBAL || a->kind == KILN_ARG_CONSTANT
                     : b->kind == PIPE_BIND_LOCAL && a->kind == KILN_ARG_LOCAL;
   if (!kind_ok || a->size != size || a->offset > info->args_size - size)
      return NULL;
   return out + a->offset;
}

cl_int amdgpu_kernarg_build(const struct pipe_grid_info *grid,
                            const struct amdgpu_kernel_desc *desc, uint32_t max_lds, uint8_t *out,
                            uint32_t *lds_bytes)
{
   const struct kiln_kernel_info *info = grid->info;
   uint32_t implicit = (info->args_size + 3u) & ~3u;
   if (desc->kernarg_size < implicit + AMDGPU_IMPLICIT_ARGS_SIZE || grid->args_size != info->args_size)
      return CL_INVALID_KERNEL;
   memset(out, 0, desc->kernarg_size);
   memcpy(out, grid->args, info->args_size);
   /* __local arguments follow the LDS LLVM allocated for the kernel's
    * own __local variables, each aligned for any OpenCL type. */
   uint64_t lds = desc->group_segment_size;
   for (uint32_t i = 0; i < grid->num_bindings; i++) {
      const struct pipe_binding *b = &grid->bindings[i];
      if (b->kind == PIPE_BIND_GLOBAL) {
         uint8_t *slot = binding_slot(grid, b, out, 8);
         if (!slot)
            return CL_INVALID_KERNEL;
         uint64_t va = 0; /* a NULL buffer argument */
         if (b->res) {
            const struct amdgpu_resource *r = amdgpu_resource(b->res);
            if (b->offset > b->res->size)
               return CL_INVALID_MEM_OBJECT;
            va = r->va + b->offset;
         }
         put64(slot, va);
      } else if (b->kind == PIPE_BIND_LOCAL) {
         uint8_t *slot = binding_slot(grid, b, out, 4);
         if (!slot)
            return CL_INVALID_KERNEL; /* built by a compiler that did not lay out for amdgcn */
         uint64_t at = (lds + AMDGPU_LOCAL_ALIGN - 1) / AMDGPU_LOCAL_ALIGN * AMDGPU_LOCAL_ALIGN;
         if (b->local_size > max_lds || at + b->local_size > max_lds)
            return CL_OUT_OF_RESOURCES;
         put32(slot, (uint32_t)at);
         lds = at + b->local_size;
      } else {
         /* The device reports no image support: core sends no images. */
         return CL_INVALID_KERNEL;
      }
   }
   if (lds > max_lds)
      return CL_OUT_OF_RESOURCES;
   *lds_bytes = (uint32_t)lds;
   put32(out + implicit, grid->work_dim);
   for (int d = 0; d < 3; d++)
      put32(out + implicit + 4 + 4 * d, (uint32_t)grid->global_offset[d]);
   return CL_SUCCESS;
}

void amdgpu_dispatch_packet(uint8_t out[AMDGPU_DISPATCH_PACKET_SIZE],
                            const struct pipe_grid_info *grid,
                            const struct amdgpu_kernel_desc *desc, uint32_t lds_bytes,
                            uint64_t code_va, uint64_t kernarg_va)
{
   memset(out, 0, AMDGPU_DISPATCH_PACKET_SIZE);
   put16(out + 2, (uint16_t)grid->work_dim); /* setup: dimensions */
   for (int d = 0; d < 3; d++) {
      put16(out + 4 + 2 * d, (uint16_t)grid->local_size[d]);
      put32(out + 12 + 4 * d, (uint32_t)grid->global_size[d]);
   }
   put32(out + 24, desc->private_segment_size);
   put32(out + 28, lds_bytes);
   put64(out + 32, code_va);
   put64(out + 40, kernarg_va);
}

void amdgpu_scratch_size(unsigned gfx_level, const struct amdgpu_kernel_desc *desc,
                         unsigned num_cu, uint32_t *tmpring, uint64_t *bytes)
{
   *tmpring = 0;
   *bytes = 0;
   if (!desc->private_segment_size)
      return;
   uint64_t granule = gfx_level >= 11 ? 256 : 1024;
   uint64_t per_wave = (uint64_t)desc->private_segment_size * (desc->wave32 ? 32 : 64);
   per_wave = (per_wave + granule - 1) / granule * granule;
   /* Room for 32 waves per CU at once (what a CU can hold of a kernel
    * this size, generously); more wait for a slot. */
   uint64_t waves = (uint64_t)(num_cu ? num_cu : 1) * 32;
   if (waves > 4095)
      waves = 4095;
   *tmpring = TMPRING_WAVES((uint32_t)waves) | TMPRING_WAVESIZE((uint32_t)(per_wave / granule));
   *bytes = waves * per_wave;
}

cl_int amdgpu_launch_supported(const struct amdgpu_kernel_desc *desc)
{
   /* Queue pointers, dispatch ids (HSA's) and the private segment size
    * SGPR are inputs Kiln does not provide. */
   if (desc->sgpr_queue_ptr >= 0 || desc->sgpr_dispatch_id >= 0 ||
       desc->sgpr_private_segment_size >= 0 ||
       (desc->code_properties & (AKC_PROP_GRID_WORKGROUP_COUNT_X | AKC_PROP_GRID_WORKGROUP_COUNT_Y |
                                 AKC_PROP_GRID_WORKGROUP_COUNT_Z)) ||
       desc->user_sgpr_count > 16)
      return CL_OUT_OF_RESOURCES;
   return CL_SUCCESS;
}

/* Launches are not waited for: the ring's previous dispatch may still
 * run when this IB starts.  Wait for it, then write back and invalidate
 * the caches, so that this dispatch sees what the previous one and the
 * host (through GTT) wrote: instructions, kernarg, scalar, vector and L2
 * data.  The write-back at the end comes with the kernel's end-of-IB
 * fence (docs/amdgpu.md). */
static void emit_invalidate(struct pm4_buf *b, unsigned gfx_level)
{
   pm4_emit(b, PM4_PKT3(PM4_EVENT_WRITE, 1));
   pm4_emit(b, EVENT_TYPE(EVENT_CS_PARTIAL_FLUSH) | EVENT_INDEX(4));
   if (gfx_level >= 10) {
      pm4_emit(b, PM4_PKT3(PM4_ACQUIRE_MEM, 7));
      pm4_emit(b, 0);          /* CP_COHER_CNTL: actions are in GCR_CNTL */
      pm4_emit(b, 0xffffffff); /* CP_COHER_SIZE: everything */
      pm4_emit(b, 0x01ffffff); /* CP_COHER_SIZE_HI */
      pm4_emit(b, 0);          /* CP_COHER_BASE */
      pm4_emit(b, 0);          /* CP_COHER_BASE_HI */
      pm4_emit(b, 0x0a);       /* POLL_INTERVAL */
      pm4_emit(b, GCR_GLI_INV_ALL | GCR_GLK_INV | GCR_GLV_INV | GCR_GL1_INV | GCR_GL2_INV |
                     GCR_GL2_WB);
   } else {
      pm4_emit(b, PM4_PKT3(PM4_ACQUIRE_MEM, 6));
      pm4_emit(b, COHER_SH_ICACHE_ACTION_ENA | COHER_SH_KCACHE_ACTION_ENA | COHER_TC_ACTION_ENA |
                     COHER_TC_WB_ACTION_ENA | COHER_TCL1_ACTION_ENA);
      pm4_emit(b, 0xffffffff); /* CP_COHER_SIZE */
      pm4_emit(b, 0xff);       /* CP_COHER_SIZE_HI */
      pm4_emit(b, 0);          /* CP_COHER_BASE */
      pm4_emit(b, 0);          /* CP_COHER_BASE_HI */
      pm4_emit(b, 0x0a);       /* POLL_INTERVAL */
   }
}

void amdgpu_emit_dispatch(struct pm4_buf *b, const struct amdgpu_launch *l)
{
   const struct amdgpu_kernel_desc *k = l->desc;
   emit_invalidate(b, l->gfx_level);
   /* Every COMPUTE_* register in every IB: a compute queue keeps no state
    * Kiln may rely on between submissions. */
   const uint32_t start[3] = {0, 0, 0};
   pm4_set_sh_regs(b, R_COMPUTE_START_X, start, 3);
   pm4_set_sh_regs(b, R_COMPUTE_NUM_THREAD_X, l->local, 3);
   const uint32_t pgm[2] = {(uint32_t)(l->code_va >> 8), (uint32_t)(l->code_va >> 40)};
   pm4_set_sh_regs(b, R_COMPUTE_PGM_LO, pgm, 2);
   uint32_t lds_granules = (l->lds_bytes + RSRC2_LDS_GRANULE - 1) / RSRC2_LDS_GRANULE;
   const uint32_t rsrc[2] = {k->rsrc1,
                             (k->rsrc2 & ~RSRC2_LDS_SIZE_MASK) | AMDGPU_FIELD(lds_granules, 15, 9)};
   pm4_set_sh_regs(b, R_COMPUTE_PGM_RSRC1, rsrc, 2);
   if (l->gfx_level >= 10 || k->rsrc3)
      pm4_set_sh_reg(b, R_COMPUTE_PGM_RSRC3, k->rsrc3);
   pm4_set_sh_reg(b, R_COMPUTE_RESOURCE_LIMITS, 0);
   const uint32_t all_cus[2] = {0xffffffff, 0xffffffff};
   pm4_set_sh_regs(b, R_COMPUTE_STATIC_THREAD_MGMT_SE0, all_cus, 2);
   pm4_set_sh_regs(b, R_COMPUTE_STATIC_THREAD_MGMT_SE2, all_cus, 2);
   pm4_set_sh_reg(b, R_COMPUTE_TMPRING_SIZE, l->tmpring_size);
   if (l->gfx_level >= 11 && l->scratch_va) {
      /* gfx11 scratch is flat: the hardware gives each wave its slice of
       * this base. */
      const uint32_t base[2] = {(uint32_t)(l->scratch_va >> 8), (uint32_t)(l->scratch_va >> 40)};
      pm4_set_sh_regs(b, R_COMPUTE_DISPATCH_SCRATCH_BASE_LO, base, 2);
   }
   if (l->gfx_level >= 11) {
      const uint32_t zero[4] = {0, 0, 0, 0};
      pm4_set_sh_regs(b, R_COMPUTE_USER_ACCUM_0, zero, 4);
   }
   /* User SGPRs in the order the kernel descriptor asked for them; SGPRs
    * gfx11 reserves beyond the inputs stay 0. */
   uint32_t user[16] = {0};
   if (k->sgpr_private_segment_buffer >= 0 && l->scratch_va) {
      /* gfx9/10: scratch through a buffer resource whose records are
       * interleaved per lane; the hardware adds each wave's offset. */
      uint32_t *v = &user[k->sgpr_private_segment_buffer];
      v[0] = (uint32_t)l->scratch_va;
      v[1] = (uint32_t)(l->scratch_va >> 32) | BUF_WORD1_SWIZZLE_ENABLE;
      v[2] = 0xffffffffu;
      v[3] = BUF_WORD3_DST_SEL_XYZW | BUF_WORD3_INDEX_STRIDE(k->wave32 ? 2 : 3) |
             BUF_WORD3_ADD_TID_ENABLE;
      if (l->gfx_level >= 10)
         v[3] |= BUF_WORD3_GFX10_FORMAT_32_FLOAT | BUF_WORD3_GFX10_RESOURCE_LEVEL |
                 BUF_WORD3_GFX10_OOB_SELECT_RAW;
      else
         v[3] |= BUF_WORD3_GFX9_NUM_FORMAT_FLOAT | BUF_WORD3_GFX9_DATA_FORMAT_32 |
                 BUF_WORD3_GFX9_ELEMENT_SIZE_4;
   }
   if (k->sgpr_flat_scratch_init >= 0) {
      /* gfx9/10 kernel prologs add their wave's offset to this to set
       * FLAT_SCRATCH: the start of the scratch backing memory. */
      user[k->sgpr_flat_scratch_init] = (uint32_t)l->scratch_va;
      user[k->sgpr_flat_scratch_init + 1] = (uint32_t)(l->scratch_va >> 32);
   }
   if (k->sgpr_dispatch_ptr >= 0) {
      user[k->sgpr_dispatch_ptr] = (uint32_t)l->dispatch_va;
      user[k->sgpr_dispatch_ptr + 1] = (uint32_t)(l->dispatch_va >> 32);
   }
   if (k->sgpr_kernarg_ptr >= 0) {
      user[k->sgpr_kernarg_ptr] = (uint32_t)l->kernarg_va;
      user[k->sgpr_kernarg_ptr + 1] = (uint32_t)(l->kernarg_va >> 32);
   }
   if (k->user_sgpr_count)
      pm4_set_sh_regs(b, R_COMPUTE_USER_DATA_0, user, k->user_sgpr_count);
   pm4_emit(b, PM4_PKT3(PM4_DISPATCH_DIRECT, 4));
   pm4_emit(b, l->groups[0]);
   pm4_emit(b, l->groups[1]);
   pm4_emit(b, l->groups[2]);
   pm4_emit(b, DISPATCH_COMPUTE_SHADER_EN | DISPATCH_FORCE_START_AT_000 |
                  (k->wave32 ? DISPATCH_CS_W32_EN : 0));
   pm4_pad(b);
}
