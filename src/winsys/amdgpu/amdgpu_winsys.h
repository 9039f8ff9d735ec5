/* The amdgpu winsys: one AMD GPU reached through the kernel's amdgpu DRM
 * driver and libdrm_amdgpu (no ROCm).  Buffer objects with GPU virtual
 * addresses, compute contexts (rings: one per queue that asks, each with
 * its own fence sequence), indirect-buffer submission, fences.  Every failure the kernel reports becomes a CL
 * error code; a lost device (GPU reset) makes every later submission
 * fail at once instead of hanging. */
#ifndef KILN_WINSYS_AMDGPU_WINSYS_H
#define KILN_WINSYS_AMDGPU_WINSYS_H

#include <CL/cl.h>
#include <stdbool.h>
#include <stdint.h>

struct amdgpu_drm;
struct amdgpu_winsys;

/* What the pipe reports as device info. */
struct amdgpu_ws_info {
   char name[128];           /* marketing name, or "AMD Radeon (Navi 21)" */
   char gfx[16];             /* LLVM processor: "gfx1030" */
   unsigned gfx_level;       /* 9, 10, 11 */
   bool accum_offset;        /* gfx90a-style RSRC3.ACCUM_OFFSET */
   uint32_t pci_device_id;
   uint32_t family, external_rev;
   unsigned num_cu;          /* active compute units */
   unsigned num_se;          /* shader engines */
   unsigned max_clock_mhz;
   uint64_t vram_size;       /* usable */
   uint64_t vram_visible_size; /* VRAM the CPU can map */
   uint64_t gtt_size;        /* usable system memory the GPU can reach */
};

enum amdgpu_ws_domain {
   AMDGPU_WS_VRAM, /* device memory: kernels' buffers */
   AMDGPU_WS_GTT,  /* system memory: IBs, kernarg, staging */
};

/* A buffer object, mapped at va in the GPU's address space for its whole
 * life; cpu is NULL until amdgpu_ws_bo_map. */
struct amdgpu_ws_bo {
   uint64_t va;
   uint64_t size;
   enum amdgpu_ws_domain domain;
   bool host_visible;
   void *cpu;
   bool user;       /* application pages (amdgpu_ws_bo_from_user): cpu is theirs */
   void *handle;    /* amdgpu_bo_handle */
   void *va_handle; /* amdgpu_va_handle */
};

/* Opens every amdgpu render node of a GPU Kiln supports, up to max;
 * returns how many.  Anything else (no device, another driver, an old
 * GPU, a failing ioctl) is skipped with a KILN_DEBUG=pipe line only. */
unsigned amdgpu_winsys_probe(const struct amdgpu_drm *drm, struct amdgpu_winsys **out,
                             unsigned max);
void amdgpu_winsys_destroy(struct amdgpu_winsys *ws);
const struct amdgpu_ws_info *amdgpu_winsys_info(const struct amdgpu_winsys *ws);
/* A reset or a lost context was seen: the device can run nothing more. */
bool amdgpu_winsys_lost(const struct amdgpu_winsys *ws);

/* host_visible: the CPU will map it (VRAM then comes from the visible
 * part).  CL_MEM_OBJECT_ALLOCATION_FAILURE when the GPU is out of memory,
 * CL_OUT_OF_HOST_MEMORY, CL_OUT_OF_RESOURCES for any other failure. */
cl_int amdgpu_ws_bo_create(struct amdgpu_winsys *ws, uint64_t size, uint64_t alignment,
                           enum amdgpu_ws_domain domain, bool host_visible,
                           struct amdgpu_ws_bo **out);
/* Maps for the CPU (once; later calls return the same pointer). */
cl_int amdgpu_ws_bo_map(struct amdgpu_winsys *ws, struct amdgpu_ws_bo *bo, void **cpu);
void amdgpu_ws_bo_destroy(struct amdgpu_winsys *ws, struct amdgpu_ws_bo *bo);

/* size bytes of application memory at ptr (both multiples of the 4 KiB
 * page) as a BO the GPU reaches at its own va (libdrm's userptr import);
 * bo->cpu is ptr.  CL_INVALID_OPERATION when libdrm cannot import,
 * CL_MEM_OBJECT_ALLOCATION_FAILURE / CL_OUT_OF_RESOURCES as bo_create. */
cl_int amdgpu_ws_bo_from_user(struct amdgpu_winsys *ws, void *ptr, uint64_t size,
                              struct amdgpu_ws_bo **out);
bool amdgpu_ws_has_userptr(const struct amdgpu_winsys *ws);

/* An amdgpu context: submissions on one ring run in order, and their
 * fence numbers belong to it.  Two rings run independently, which is
 * what lets two queues of one GPU overlap. */
struct amdgpu_ws_ring;
cl_int amdgpu_ws_ring_create(struct amdgpu_winsys *ws, struct amdgpu_ws_ring **out);
void amdgpu_ws_ring_destroy(struct amdgpu_winsys *ws, struct amdgpu_ws_ring *ring);

/* Runs ib_dwords dwords of PM4 from the start of ib on the ring's compute
 * queue; bos are every other buffer the work touches (the kernel makes
 * them resident).  *seq identifies the submission's fence.  Returns at
 * once: nothing waits for the work. */
cl_int amdgpu_ws_ring_submit(struct amdgpu_winsys *ws, struct amdgpu_ws_ring *ring,
                             struct amdgpu_ws_bo *ib, uint32_t ib_dwords,
                             struct amdgpu_ws_bo *const *bos, unsigned num_bos, uint64_t *seq);
/* Waits up to timeout_ns (0: a test) for submission seq of ring.
 * CL_SUCCESS when it ended; CL_OUT_OF_RESOURCES when it did not in time
 * (*timed_out set) or when the device was lost (amdgpu_winsys_lost then
 * says so). */
cl_int amdgpu_ws_ring_wait(struct amdgpu_winsys *ws, struct amdgpu_ws_ring *ring, uint64_t seq,
                           uint64_t timeout_ns, bool *timed_out);

/* The same on the winsys's own ring (created with it). */
cl_int amdgpu_ws_submit(struct amdgpu_winsys *ws, struct amdgpu_ws_bo *ib, uint32_t ib_dwords,
                        struct amdgpu_ws_bo *const *bos, unsigned num_bos, uint64_t *seq);
cl_int amdgpu_ws_fence_wait(struct amdgpu_winsys *ws, uint64_t seq, uint64_t timeout_ns,
                            bool *timed_out);

#endif
