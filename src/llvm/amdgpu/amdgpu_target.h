/* The AMD GPUs Kiln compiles for, and which libclc bitcode each links.
 * No LLVM types: core, src/pipe/amdgpu and kiln-compile use it. */
#ifndef KILN_LLVM_AMDGPU_TARGET_H
#define KILN_LLVM_AMDGPU_TARGET_H

#include <stdbool.h>

/* The one ABI Kiln generates amdgcn code for (docs/amdgpu.md says why). */
#define KILN_AMDGPU_TRIPLE "amdgcn-mesa-mesa3d"

struct kiln_amdgpu_target {
   const char *gfx;    /* LLVM's processor name: "gfx1030" */
   unsigned gfx_level; /* 9, 10, 11, 12: what the dispatch code branches on */
   /* The libclc file linked: <libclc_dir>/<libclc>-amdgcn-mesa-mesa3d.bc.
    * Not always gfx: Debian's libclc-19 has no file for some processors
    * LLVM 19 knows, which then link the nearest family member's. */
   const char *libclc;
};

/* NULL when Kiln does not compile for gfx. */
const struct kiln_amdgpu_target *kiln_amdgpu_target_find(const char *gfx);

/* The n-th supported target, NULL past the end (kiln-compile --help). */
const struct kiln_amdgpu_target *kiln_amdgpu_target_at(unsigned n);

#endif
