/* A fake libdrm/libdrm_amdgpu behind src/winsys/amdgpu's function table
 * (amdgpu_drm.h): render nodes, GPUs, buffer objects with real host
 * memory behind them, VA ranges, contexts, submissions and fences, all
 * recorded so tests can assert exactly what the driver asked for, with
 * failures to inject and a count of what was never released. */
#ifndef KILN_TESTS_FAKE_DRM_H
#define KILN_TESTS_FAKE_DRM_H

#include <stdbool.h>
#include <stdint.h>

#include "winsys/amdgpu/amdgpu_drm.h"

#define FAKE_MAX_GPUS 8
#define FAKE_MAX_BOS 256
#define FAKE_MAX_SUBMITS 256
#define FAKE_MAX_LIST 64

struct fake_gpu {
   uint16_t pci_vendor;
   const char *driver;    /* drmGetVersion name: "amdgpu" */
   uint32_t family, external_rev, device_id;
   uint32_t num_cu, num_se;
   uint64_t max_engine_clock_khz;
   uint64_t vram, vram_visible, gtt;
   const char *marketing_name; /* NULL: libdrm knows no name */
   /* Set by the fake. */
   char node[32];
   int fd;            /* -1 closed */
   bool initialized;  /* amdgpu_device_initialize'd, not deinitialized */
};

struct fake_bo {
   bool live;
   bool user;        /* amdgpu_create_bo_from_user_mem: mem is the caller's */
   struct amdgpu_bo_alloc_request req;
   void *mem;        /* the BO's contents */
   int cpu_maps;     /* amdgpu_bo_cpu_map minus unmap */
   uint64_t va;      /* 0: not mapped in the GPU's VA space */
};

struct fake_va_range {
   bool live;
   uint64_t start, size;
};

struct fake_submit {
   unsigned ip_type, ip_instance, ring;
   uint64_t ib_va;
   uint32_t ib_dwords;
   uint32_t *ib;            /* a copy of the IB's dwords at submission */
   unsigned num_bos;
   int bos[FAKE_MAX_LIST];  /* indexes into fake.bos */
   /* Each listed BO as it was at submission (the driver frees its
    * launch BOs once the fence signals). */
   uint64_t bo_va[FAKE_MAX_LIST], bo_size[FAKE_MAX_LIST];
   void *bo_copy[FAKE_MAX_LIST];
   uint64_t seq;
   const void *ctx;         /* the amdgpu context it was submitted on */
   int tag;                 /* fake.tag when it was submitted */
   bool executed;           /* fake.execute saw it */
};

struct fake_drm_state {
   struct fake_gpu gpus[FAKE_MAX_GPUS];
   unsigned num_gpus;
   struct fake_bo bos[FAKE_MAX_BOS];
   struct fake_va_range vas[FAKE_MAX_BOS];
   struct fake_submit submits[FAKE_MAX_SUBMITS];
   unsigned num_submits;
   uint64_t next_va, next_seq;
   int device_lists;   /* drmGetDevices2 minus drmFreeDevices */
   int versions;       /* drmGetVersion minus drmFreeVersion */
   int contexts;       /* amdgpu_cs_ctx_create minus free */
   int bo_lists;
   unsigned va_ops;    /* every amdgpu_bo_va_op call */

   /* Failure injection: the next call of that function returns the
    * value (a negative errno) instead of working; 0 for none. */
   int fail_bo_alloc, fail_va_alloc, fail_va_op, fail_cpu_map;
   int fail_ctx_create, fail_bo_list, fail_submit, fail_fence, fail_query_info;
   bool fence_never_signals; /* fences time out */
   bool no_userptr;          /* the table has no amdgpu_create_bo_from_user_mem */
   /* The "GPU": a submission runs when its fence (or a later one of its
    * context) is first found signalled, in submission order, as a real
    * GPU runs work some time after the CPU handed it over.  Tests set
    * this to emulate the kernels they launch (on live BO memory, through
    * fake_drm_va_to_cpu); NULL runs nothing. */
   void (*execute)(const struct fake_submit *s);
   unsigned executed;        /* submissions run so far */
   int tag;                  /* copied into each submission: tells execute what it is */
   unsigned bad_handles;     /* calls with a BO handle the fake never gave out */
   bool reset;               /* amdgpu_cs_query_reset_state2 reports a reset */
};

extern struct fake_drm_state fake;

/* Forgets everything (after checking nothing is live, in tests). */
void fake_drm_reset(void);
/* A GPU on /dev/dri/renderD<128+n>. */
struct fake_gpu *fake_drm_add_gpu(uint32_t family, uint32_t external_rev, const char *name);
const struct amdgpu_drm *fake_drm_table(void);
/* How many objects the driver still holds: fds, devices, BOs, VA ranges,
 * CPU maps, contexts, lists, drm structures.  0 after a clean teardown. */
unsigned fake_drm_live(void);
/* The fake BO an amdgpu_bo_handle is (-1 if none). */
int fake_drm_bo_index(const void *handle);
/* Host memory behind GPU address va, with size bytes valid (NULL if no
 * live, GPU-mapped BO holds them). */
void *fake_drm_va_to_cpu(uint64_t va, uint64_t size);
/* The same in a submission's snapshot of its BOs. */
const void *fake_submit_va_to_cpu(const struct fake_submit *s, uint64_t va, uint64_t size);

/* What a dispatch of s sees, decoded from its IB (COMPUTE_PGM_*,
 * COMPUTE_USER_DATA_*) and the kernel's amd_kernel_code_t: its kernarg
 * segment and dispatch packet, in live BO memory (NULL when an address
 * is in no live BO), and the grid.  False when s has no dispatch. */
struct fake_dispatch {
   uint8_t *kernarg;
   const uint8_t *packet;
   uint32_t global[3], local[3];
};
bool fake_submit_dispatch(const struct fake_submit *s, struct fake_dispatch *d);

#endif
