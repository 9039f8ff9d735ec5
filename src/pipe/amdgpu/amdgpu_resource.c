/* AMDGPU resources: GTT BOs mapped for the CPU, or application memory
 * imported as a userptr BO.  Both are host-visible: core reads and
 * writes them through the context (amdgpu_context.c), which waits for
 * the GPU first. */
#include <stdint.h>

#include "pipe/amdgpu/amdgpu_screen.h"
#include "util/alloc.h"
#include "util/log.h"
#include "winsys/amdgpu/amdgpu_winsys.h"

#define PAGE 4096u

/* Buffers live in GTT (system memory the GPU reaches), mapped for the
 * CPU for their whole life.  VRAM with staging copies is not done yet
 * (docs/amdgpu.md). */
static struct pipe_resource *resource_create(struct pipe_screen *screen, size_t size)
{
   struct amdgpu_screen *s = amdgpu_screen(screen);
   struct amdgpu_resource *r = kiln_calloc(1, sizeof(*r));
   if (!r)
      return NULL;
   r->base.screen = screen;
   r->base.size = size;
   if (amdgpu_ws_bo_create(s->ws, size ? size : 1, 256, AMDGPU_WS_GTT, true, &r->bo)) {
      kiln_free(r);
      return NULL;
   }
   if (amdgpu_ws_bo_map(s->ws, r->bo, &r->cpu)) {
      amdgpu_ws_bo_destroy(s->ws, r->bo);
      kiln_free(r);
      return NULL;
   }
   r->va = r->bo->va;
   return &r->base;
}

/* CL_MEM_USE_HOST_PTR: the pages holding [ptr, ptr+size) become a BO, so
 * the kernel works on the application's bytes.  NULL where libdrm cannot
 * import (or the kernel refuses, e.g. file-backed pages): core keeps a
 * device copy synchronised with ptr instead. */
static struct pipe_resource *resource_from_user_memory(struct pipe_screen *screen, void *ptr,
                                                       size_t size)
{
   struct amdgpu_screen *s = amdgpu_screen(screen);
   if (!amdgpu_ws_has_userptr(s->ws) || !ptr || !size || (uintptr_t)ptr > UINTPTR_MAX - size - PAGE)
      return NULL;
   uintptr_t start = (uintptr_t)ptr / PAGE * PAGE;
   uintptr_t end = ((uintptr_t)ptr + size + PAGE - 1) / PAGE * PAGE;
   struct amdgpu_resource *r = kiln_calloc(1, sizeof(*r));
   if (!r)
      return NULL;
   cl_int err = amdgpu_ws_bo_from_user(s->ws, (void *)start, end - start, &r->bo);
   if (err) {
      kiln_log(KILN_LOG_PIPE, "amdgpu: no userptr BO for %zu bytes at %p (%d): a device copy",
               size, ptr, err);
      kiln_free(r);
      return NULL;
   }
   r->base.screen = screen;
   r->base.size = size;
   r->base.user_memory = true;
   r->cpu = ptr;
   r->va = r->bo->va + ((uintptr_t)ptr - start);
   return &r->base;
}

static void resource_destroy(struct pipe_screen *screen, struct pipe_resource *res)
{
   struct amdgpu_screen *s = amdgpu_screen(screen);
   struct amdgpu_resource *r = amdgpu_resource(res);
   amdgpu_ws_bo_destroy(s->ws, r->bo);
   kiln_free(r);
}

static void *resource_host_pointer(struct pipe_screen *screen, struct pipe_resource *res)
{
   (void)screen;
   return amdgpu_resource(res)->cpu;
}

void amdgpu_resource_init_screen(struct amdgpu_screen *s)
{
   s->base.resource_create = resource_create;
   s->base.resource_from_user_memory = resource_from_user_memory;
   s->base.resource_destroy = resource_destroy;
   s->base.resource_host_pointer = resource_host_pointer;
}
