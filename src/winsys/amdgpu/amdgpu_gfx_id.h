/* Which processor (LLVM's gfx name) a GPU is, from the family and
 * external revision the kernel reports (AMDGPU_INFO_DEV_INFO). */
#ifndef KILN_WINSYS_AMDGPU_GFX_ID_H
#define KILN_WINSYS_AMDGPU_GFX_ID_H

#include <stdbool.h>
#include <stdint.h>

struct amdgpu_gfx_id {
   const char *gfx;    /* "gfx1030" */
   const char *chip;   /* "Navi 21": for the device name when libdrm has none */
   unsigned gfx_level; /* 9, 10, 11 */
   bool accum_offset;  /* gfx90a's unified VGPR file (RSRC3.ACCUM_OFFSET) */
};

/* NULL for GPUs Kiln does not drive (GFX8 and older, newer than it knows). */
const struct amdgpu_gfx_id *amdgpu_gfx_id_lookup(uint32_t family, uint32_t external_rev);

#endif
