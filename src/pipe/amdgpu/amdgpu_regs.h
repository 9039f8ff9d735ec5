/* Hardware definitions the AMDGPU pipe needs, written from AMD's public
 * documentation (LLVM's AMDGPUUsage: "amd_kernel_code_t", "Kernel
 * Descriptor", the COMPUTE_PGM_RSRC1/2/3 tables; AMD's GCN3/Vega/RDNA ISA
 * manuals; the PM4 packet format of the CP).  Only what Kiln uses. */
#ifndef KILN_PIPE_AMDGPU_REGS_H
#define KILN_PIPE_AMDGPU_REGS_H

#include <stdint.h>

/* Extracts / builds a bit field [lo, lo+width). */
#define AMDGPU_FIELD_GET(v, lo, width) (((uint32_t)(v) >> (lo)) & ((1u << (width)) - 1))
#define AMDGPU_FIELD(v, lo, width) (((uint32_t)(v) & ((1u << (width)) - 1)) << (lo))

/* ---- amd_kernel_code_t (code object v1/v2, what mesa3d kernels carry):
 * 256 bytes at the kernel symbol, the first instruction at
 * kernel_code_entry_byte_offset from it.  Byte offsets of the fields Kiln
 * reads. ---- */
#define AKC_SIZE 256
#define AKC_VERSION_MAJOR 0              /* uint32, 1 */
#define AKC_ENTRY_BYTE_OFFSET 16         /* int64 */
#define AKC_PGM_RSRC1 48                 /* uint32 (low half of the uint64) */
#define AKC_PGM_RSRC2 52                 /* uint32 (high half) */
#define AKC_CODE_PROPERTIES 56           /* uint32 */
#define AKC_PRIVATE_SEGMENT_SIZE 60      /* uint32, bytes per work-item */
#define AKC_GROUP_SEGMENT_SIZE 64        /* uint32, static LDS bytes */
#define AKC_KERNARG_SEGMENT_SIZE 72      /* uint64 */
#define AKC_WAVEFRONT_SGPR_COUNT 84      /* uint16 */
#define AKC_WORKITEM_VGPR_COUNT 86       /* uint16 */
#define AKC_KERNARG_SEGMENT_ALIGNMENT 100 /* uint8, log2 */
#define AKC_WAVEFRONT_SIZE 103           /* uint8, log2 (5: wave32, 6: wave64) */

/* code_properties bits: which user SGPRs the kernel expects, in this
 * order of SGPRs (AMDGPUUsage "Initial Kernel Execution State"). */
#define AKC_PROP_PRIVATE_SEGMENT_BUFFER (1u << 0) /* 4 SGPRs */
#define AKC_PROP_DISPATCH_PTR (1u << 1)           /* 2 */
#define AKC_PROP_QUEUE_PTR (1u << 2)              /* 2 */
#define AKC_PROP_KERNARG_SEGMENT_PTR (1u << 3)    /* 2 */
#define AKC_PROP_DISPATCH_ID (1u << 4)            /* 2 */
#define AKC_PROP_FLAT_SCRATCH_INIT (1u << 5)      /* 2 */
#define AKC_PROP_PRIVATE_SEGMENT_SIZE (1u << 6)   /* 1 */
#define AKC_PROP_GRID_WORKGROUP_COUNT_X (1u << 7) /* 1 each, x y z */
#define AKC_PROP_GRID_WORKGROUP_COUNT_Y (1u << 8)
#define AKC_PROP_GRID_WORKGROUP_COUNT_Z (1u << 9)
#define AKC_PROP_WAVEFRONT_SIZE32 (1u << 10)
#define AKC_PROP_IS_PTR64 (1u << 19)

/* ---- COMPUTE_PGM_RSRC1 ---- */
#define RSRC1_VGPRS(v) AMDGPU_FIELD_GET(v, 0, 6)   /* granulated VGPR count - 1 */
#define RSRC1_SGPRS(v) AMDGPU_FIELD_GET(v, 6, 4)   /* gfx9: granulated SGPRs - 1; gfx10+: 0 */
#define RSRC1_PRIORITY(v) AMDGPU_FIELD_GET(v, 10, 2)
#define RSRC1_FLOAT_MODE(v) AMDGPU_FIELD_GET(v, 12, 8)
#define RSRC1_PRIV(v) AMDGPU_FIELD_GET(v, 20, 1)
#define RSRC1_DX10_CLAMP(v) AMDGPU_FIELD_GET(v, 21, 1)
#define RSRC1_DEBUG_MODE(v) AMDGPU_FIELD_GET(v, 22, 1)
#define RSRC1_IEEE_MODE(v) AMDGPU_FIELD_GET(v, 23, 1)
#define RSRC1_WGP_MODE(v) AMDGPU_FIELD_GET(v, 29, 1)   /* gfx10+ */
#define RSRC1_MEM_ORDERED(v) AMDGPU_FIELD_GET(v, 30, 1) /* gfx10+ */
#define RSRC1_FWD_PROGRESS(v) AMDGPU_FIELD_GET(v, 31, 1) /* gfx10+ */

/* ---- COMPUTE_PGM_RSRC2 ---- */
#define RSRC2_SCRATCH_EN(v) AMDGPU_FIELD_GET(v, 0, 1)
#define RSRC2_USER_SGPR(v) AMDGPU_FIELD_GET(v, 1, 5)
#define RSRC2_TRAP_PRESENT(v) AMDGPU_FIELD_GET(v, 6, 1)
#define RSRC2_TGID_X_EN(v) AMDGPU_FIELD_GET(v, 7, 1)
#define RSRC2_TGID_Y_EN(v) AMDGPU_FIELD_GET(v, 8, 1)
#define RSRC2_TGID_Z_EN(v) AMDGPU_FIELD_GET(v, 9, 1)
#define RSRC2_TG_SIZE_EN(v) AMDGPU_FIELD_GET(v, 10, 1)
#define RSRC2_TIDIG_COMP_CNT(v) AMDGPU_FIELD_GET(v, 11, 2)
#define RSRC2_LDS_SIZE(v) AMDGPU_FIELD_GET(v, 15, 9) /* in 128-dword (512-byte) granules */
#define RSRC2_LDS_SIZE_MASK AMDGPU_FIELD(0x1ff, 15, 9)
#define RSRC2_LDS_GRANULE 512u

/* ---- COMPUTE_PGM_RSRC3 ---- */
/* gfx90a/gfx94x: where the accumulation VGPRs start, in 4-register units
 * minus one; TG_SPLIT at bit 16. */
#define RSRC3_GFX90A_ACCUM_OFFSET(v) AMDGPU_FIELD(v, 0, 6)
/* gfx10+: SHARED_VGPR_COUNT [3:0]; gfx11: INST_PREF_SIZE [9:4]. */

#endif
