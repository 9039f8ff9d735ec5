/* The NVIDIA GPUs Kiln compiles for: which LLVM processor and PTX ISA
 * version a device's compute capability gets.  No LLVM types: core,
 * src/pipe/cuda and kiln-compile use it. */
#ifndef KILN_LLVM_NVPTX_TARGET_H
#define KILN_LLVM_NVPTX_TARGET_H

struct kiln_nvptx_target {
   const char *sm;   /* the device's: "sm_90" (what callers pass) */
   /* LLVM's processor PTX is generated for: sm itself, or for an sm
    * LLVM 19 does not know (sm_88, Blackwell), the newest older one it
    * knows without arch-specific features, whose PTX the driver
    * JIT-compiles forward. */
   const char *llvm_cpu;
   unsigned ptx;     /* PTX ISA version: 78 for ".version 7.8" */
};

/* NULL when Kiln does not compile for sm ("sm_90", "sm_100", ...). */
const struct kiln_nvptx_target *kiln_nvptx_target_find(const char *sm);

/* The n-th supported target, NULL past the end (kiln-compile --help). */
const struct kiln_nvptx_target *kiln_nvptx_target_at(unsigned n);

/* "sm_90" for compute capability 9.0 into buf (at least 16 bytes): how the
 * CUDA driver turns cuDeviceGetAttribute's major/minor into a target. */
void kiln_nvptx_sm_name(int major, int minor, char *buf, unsigned size);

#endif
