/* PM4 type-3 packets for the compute ring, and the COMPUTE_* registers
 * Kiln writes, from AMD's public CP packet and register documentation
 * (register byte addresses; SET_SH_REG takes them relative to the SH
 * register base 0xB000, in dwords). */
#ifndef KILN_PIPE_AMDGPU_PM4_H
#define KILN_PIPE_AMDGPU_PM4_H

#include <stdbool.h>
#include <stdint.h>

#include "pipe/amdgpu/amdgpu_regs.h"

/* Header: type 3, body length - 1, opcode, SHADER_TYPE = compute. */
#define PM4_PKT3(op, body_dwords) \
   ((3u << 30) | ((uint32_t)((body_dwords) - 1) << 16) | ((uint32_t)(op) << 8) | (1u << 1))
#define PM4_PKT_TYPE(h) ((h) >> 30)
#define PM4_PKT3_OPCODE(h) (((h) >> 8) & 0xffu)
#define PM4_PKT3_BODY(h) ((((h) >> 16) & 0x3fffu) + 1)
/* One-dword filler the CP skips. */
#define PM4_NOP_FILLER 0xffff1000u

enum pm4_opcode {
   PM4_NOP = 0x10,
   PM4_DISPATCH_DIRECT = 0x15,
   PM4_EVENT_WRITE = 0x46,
   PM4_ACQUIRE_MEM = 0x58,
   PM4_SET_SH_REG = 0x76,
};

#define SH_REG_BASE 0xb000u

/* COMPUTE_* registers (byte addresses). */
#define R_COMPUTE_DISPATCH_INITIATOR 0xb800u
#define R_COMPUTE_START_X 0xb810u
#define R_COMPUTE_START_Y 0xb814u
#define R_COMPUTE_START_Z 0xb818u
#define R_COMPUTE_NUM_THREAD_X 0xb81cu
#define R_COMPUTE_NUM_THREAD_Y 0xb820u
#define R_COMPUTE_NUM_THREAD_Z 0xb824u
#define R_COMPUTE_PGM_LO 0xb830u
#define R_COMPUTE_PGM_HI 0xb834u
#define R_COMPUTE_DISPATCH_SCRATCH_BASE_LO 0xb840u /* gfx11 */
#define R_COMPUTE_DISPATCH_SCRATCH_BASE_HI 0xb844u
#define R_COMPUTE_PGM_RSRC1 0xb848u
#define R_COMPUTE_PGM_RSRC2 0xb84cu
#define R_COMPUTE_RESOURCE_LIMITS 0xb854u
#define R_COMPUTE_STATIC_THREAD_MGMT_SE0 0xb858u
#define R_COMPUTE_STATIC_THREAD_MGMT_SE1 0xb85cu
#define R_COMPUTE_TMPRING_SIZE 0xb860u
#define R_COMPUTE_STATIC_THREAD_MGMT_SE2 0xb864u
#define R_COMPUTE_STATIC_THREAD_MGMT_SE3 0xb868u
#define R_COMPUTE_PGM_RSRC3 0xb8a0u
#define R_COMPUTE_USER_ACCUM_0 0xb890u /* gfx11: four of them */
#define R_COMPUTE_USER_DATA_0 0xb900u  /* sixteen */

/* COMPUTE_TMPRING_SIZE: scratch waves and bytes per wave, in granules of
 * 1 KiB (gfx9/10) or 256 bytes (gfx11). */
#define TMPRING_WAVES(v) AMDGPU_FIELD(v, 0, 12)
#define TMPRING_WAVESIZE(v) AMDGPU_FIELD(v, 12, 15)
#define TMPRING_WAVESIZE_GET(v) AMDGPU_FIELD_GET(v, 12, 15)

/* The scratch buffer resource (V#) of gfx9/10 kernels, in s[0:3]:
 * word1 SWIZZLE_ENABLE; word3 the channel selects X Y Z W, then per
 * generation the 32-bit format, per-lane interleaving (INDEX_STRIDE =
 * wave size, ADD_TID_ENABLE). */
#define BUF_WORD1_SWIZZLE_ENABLE (1u << 31)
#define BUF_WORD3_DST_SEL_XYZW (4u | 5u << 3 | 6u << 6 | 7u << 9)
#define BUF_WORD3_GFX9_NUM_FORMAT_FLOAT AMDGPU_FIELD(7, 12, 3)
#define BUF_WORD3_GFX9_DATA_FORMAT_32 AMDGPU_FIELD(4, 15, 4)
#define BUF_WORD3_GFX9_ELEMENT_SIZE_4 AMDGPU_FIELD(1, 19, 2)
#define BUF_WORD3_GFX10_FORMAT_32_FLOAT AMDGPU_FIELD(22, 12, 7)
#define BUF_WORD3_GFX10_RESOURCE_LEVEL (1u << 24)
#define BUF_WORD3_GFX10_OOB_SELECT_RAW AMDGPU_FIELD(3, 28, 2)
#define BUF_WORD3_INDEX_STRIDE(v) AMDGPU_FIELD(v, 21, 2) /* 2: 32 lanes, 3: 64 */
#define BUF_WORD3_ADD_TID_ENABLE (1u << 23)

/* COMPUTE_DISPATCH_INITIATOR */
#define DISPATCH_COMPUTE_SHADER_EN (1u << 0)
#define DISPATCH_FORCE_START_AT_000 (1u << 2)
#define DISPATCH_CS_W32_EN (1u << 15) /* gfx10+: wave32 */

/* EVENT_WRITE: CS_PARTIAL_FLUSH waits until earlier dispatches of the
 * queue have ended (event index 4: a partial flush). */
#define EVENT_TYPE(v) AMDGPU_FIELD(v, 0, 6)
#define EVENT_INDEX(v) AMDGPU_FIELD(v, 8, 4)
#define EVENT_CS_PARTIAL_FLUSH 0x07

/* ACQUIRE_MEM, gfx9: CP_COHER_CNTL actions. */
#define COHER_TC_WB_ACTION_ENA (1u << 18)    /* L2 write-back */
#define COHER_TCL1_ACTION_ENA (1u << 22)     /* vector L1 invalidate */
#define COHER_TC_ACTION_ENA (1u << 23)       /* L2 invalidate */
#define COHER_SH_KCACHE_ACTION_ENA (1u << 27) /* scalar cache */
#define COHER_SH_ICACHE_ACTION_ENA (1u << 29) /* instruction cache */
/* ACQUIRE_MEM, gfx10+: GCR_CNTL (the last body dword). */
#define GCR_GLI_INV_ALL (1u << 0) /* GLI_INV [1:0] = 1 */
#define GCR_GLK_INV (1u << 7)
#define GCR_GLV_INV (1u << 8)
#define GCR_GL1_INV (1u << 9)
#define GCR_GL2_INV (1u << 14)
#define GCR_GL2_WB (1u << 15)

/* A growing IB; running out of room is remembered, not fatal, so that
 * emitters stay straight-line code and the caller checks once. */
struct pm4_buf {
   uint32_t *dw;
   unsigned n, cap;
   bool overflow;
};

void pm4_emit(struct pm4_buf *b, uint32_t v);
/* SET_SH_REG of count consecutive registers from reg. */
void pm4_set_sh_regs(struct pm4_buf *b, uint32_t reg, const uint32_t *values, unsigned count);
void pm4_set_sh_reg(struct pm4_buf *b, uint32_t reg, uint32_t value);
/* Pads with fillers to a multiple of 8 dwords (what the CP fetches). */
void pm4_pad(struct pm4_buf *b);

#endif
