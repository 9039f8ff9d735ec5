/* The AMDGPU pipe driver: a GCN/RDNA GPU as an OpenCL device, through
 * src/winsys/amdgpu. */
#ifndef KILN_PIPE_AMDGPU_SCREEN_H
#define KILN_PIPE_AMDGPU_SCREEN_H

#include "pipe/amdgpu/amdgpu_code_object.h"
#include "pipe/pipe.h"

/* Adds a screen per AMD GPU found (none, silently, without one or
 * without libdrm_amdgpu); returns how many. */
unsigned amdgpu_screen_probe(struct pipe_screen **screens, unsigned max);

/* Driver-internal: shared by the files of src/pipe/amdgpu. */
struct amdgpu_winsys;
struct amdgpu_ws_bo;
struct amdgpu_drm_shared;

/* A buffer: GTT the CPU maps for the BO's whole life, or application
 * pages imported as a BO (userptr).  cpu and va are the resource's first
 * byte (an imported range starts inside its first page). */
struct amdgpu_resource {
   struct pipe_resource base;
   struct amdgpu_ws_bo *bo;
   void *cpu;
   uint64_t va;
};

static inline struct amdgpu_resource *amdgpu_resource(struct pipe_resource *r)
{
   return (struct amdgpu_resource *)r;
}

struct amdgpu_program;

struct amdgpu_kernel {
   const struct amdgpu_kernel_desc *desc;
   struct amdgpu_program *program;
};

struct amdgpu_program {
   struct amdgpu_code_object co;
   struct amdgpu_ws_bo *code; /* .text, where the GPU runs it */
   struct amdgpu_kernel *kernels;
};

struct amdgpu_screen {
   struct pipe_screen base;
   struct amdgpu_winsys *ws;
   struct amdgpu_drm_shared *drm;
   struct amdgpu_isa isa;
   /* How long work may run before it counts as hung and its fence
    * fails (KILN_AMDGPU_TIMEOUT_MS). */
   uint64_t fence_timeout_ns;
};

static inline struct amdgpu_screen *amdgpu_screen(struct pipe_screen *s)
{
   return (struct amdgpu_screen *)s;
}

struct pipe_context *amdgpu_context_create(struct pipe_screen *screen);
/* The resource slots of the screen (amdgpu_resource.c). */
void amdgpu_resource_init_screen(struct amdgpu_screen *s);
/* The fence slots of the screen (amdgpu_queue.c). */
void amdgpu_fence_init_screen(struct amdgpu_screen *s);

#endif
