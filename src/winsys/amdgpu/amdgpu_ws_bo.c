/* Buffer objects: kernel memory (amdgpu_bo_alloc, or application pages
 * through amdgpu_create_bo_from_user_mem), a range of the GPU's
 * virtual address space (amdgpu_va_range_alloc) and the mapping between
 * them (amdgpu_bo_va_op), undone in reverse on every failure path. */
#include "winsys/amdgpu/amdgpu_winsys_priv.h"

#include <string.h>

#include "util/alloc.h"
#include "util/log.h"

/* The GPU's page: VA ranges and BO sizes are multiples of it. */
#define GPU_PAGE 4096u

static cl_int alloc_error(int r)
{
   return r == -ENOMEM ? CL_MEM_OBJECT_ALLOCATION_FAILURE : CL_OUT_OF_RESOURCES;
}

/* Gives kernel memory h a range of the GPU's address space; frees h and
 * bo when it cannot. */
static cl_int map_va(struct amdgpu_winsys *ws, struct amdgpu_ws_bo *bo, amdgpu_bo_handle h,
                     uint64_t alignment, struct amdgpu_ws_bo **out)
{
   const struct amdgpu_drm *drm = ws->drm;
   amdgpu_va_handle vh = NULL;
   uint64_t va = 0;
   int r = drm->amdgpu_va_range_alloc(ws->dev, amdgpu_gpu_va_range_general, bo->size, alignment, 0,
                                      &va, &vh, 0);
   if (r) {
      kiln_log(KILN_LOG_PIPE, "amdgpu: amdgpu_va_range_alloc failed (%d)", r);
      drm->amdgpu_bo_free(h);
      kiln_free(bo);
      return alloc_error(r);
   }
   r = drm->amdgpu_bo_va_op(h, 0, bo->size, va, 0, AMDGPU_VA_OP_MAP);
   if (r) {
      kiln_log(KILN_LOG_PIPE, "amdgpu: amdgpu_bo_va_op(MAP) failed (%d)", r);
      drm->amdgpu_va_range_free(vh);
      drm->amdgpu_bo_free(h);
      kiln_free(bo);
      return alloc_error(r);
   }
   bo->handle = h;
   bo->va_handle = vh;
   bo->va = va;
   *out = bo;
   return CL_SUCCESS;
}

cl_int amdgpu_ws_bo_create(struct amdgpu_winsys *ws, uint64_t size, uint64_t alignment,
                           enum amdgpu_ws_domain domain, bool host_visible,
                           struct amdgpu_ws_bo **out)
{
   const struct amdgpu_drm *drm = ws->drm;
   if (amdgpu_winsys_lost(ws))
      return CL_OUT_OF_RESOURCES;
   if (!size || size > UINT64_MAX - GPU_PAGE)
      return CL_INVALID_BUFFER_SIZE;
   if (alignment < GPU_PAGE)
      alignment = GPU_PAGE;
   struct amdgpu_ws_bo *bo = kiln_calloc(1, sizeof(*bo));
   if (!bo)
      return CL_OUT_OF_HOST_MEMORY;
   bo->size = (size + GPU_PAGE - 1) / GPU_PAGE * GPU_PAGE;
   bo->domain = domain;
   bo->host_visible = host_visible;

   struct amdgpu_bo_alloc_request req;
   memset(&req, 0, sizeof(req));
   req.alloc_size = bo->size;
   req.phys_alignment = alignment;
   req.preferred_heap = domain == AMDGPU_WS_VRAM ? AMDGPU_GEM_DOMAIN_VRAM : AMDGPU_GEM_DOMAIN_GTT;
   if (domain == AMDGPU_WS_VRAM)
      req.flags = host_visible ? AMDGPU_GEM_CREATE_CPU_ACCESS_REQUIRED
                               : AMDGPU_GEM_CREATE_NO_CPU_ACCESS;
   amdgpu_bo_handle h = NULL;
   int r = drm->amdgpu_bo_alloc(ws->dev, &req, &h);
   if (r) {
      kiln_log(KILN_LOG_PIPE, "amdgpu: amdgpu_bo_alloc(%llu) failed (%d)",
               (unsigned long long)bo->size, r);
      kiln_free(bo);
      return alloc_error(r);
   }
   return map_va(ws, bo, h, alignment, out);
}

cl_int amdgpu_ws_bo_from_user(struct amdgpu_winsys *ws, void *ptr, uint64_t size,
                              struct amdgpu_ws_bo **out)
{
   const struct amdgpu_drm *drm = ws->drm;
   if (!drm->amdgpu_create_bo_from_user_mem)
      return CL_INVALID_OPERATION;
   if (amdgpu_winsys_lost(ws))
      return CL_OUT_OF_RESOURCES;
   if (!size || size % GPU_PAGE || (uintptr_t)ptr % GPU_PAGE)
      return CL_INVALID_VALUE;
   struct amdgpu_ws_bo *bo = kiln_calloc(1, sizeof(*bo));
   if (!bo)
      return CL_OUT_OF_HOST_MEMORY;
   bo->size = size;
   bo->domain = AMDGPU_WS_GTT;
   bo->host_visible = true;
   bo->user = true;
   bo->cpu = ptr;
   amdgpu_bo_handle h = NULL;
   int r = drm->amdgpu_create_bo_from_user_mem(ws->dev, ptr, size, &h);
   if (r) {
      kiln_log(KILN_LOG_PIPE, "amdgpu: amdgpu_create_bo_from_user_mem(%llu) failed (%d)",
               (unsigned long long)size, r);
      kiln_free(bo);
      return alloc_error(r);
   }
   return map_va(ws, bo, h, GPU_PAGE, out);
}

bool amdgpu_ws_has_userptr(const struct amdgpu_winsys *ws)
{
   return ws->drm->amdgpu_create_bo_from_user_mem != NULL;
}

cl_int amdgpu_ws_bo_map(struct amdgpu_winsys *ws, struct amdgpu_ws_bo *bo, void **cpu)
{
   if (!bo->host_visible && bo->domain == AMDGPU_WS_VRAM)
      return CL_MAP_FAILURE; /* the caller goes through a staging buffer */
   if (!bo->cpu) {
      void *p = NULL;
      int r = ws->drm->amdgpu_bo_cpu_map(bo->handle, &p);
      if (r) {
         kiln_log(KILN_LOG_PIPE, "amdgpu: amdgpu_bo_cpu_map failed (%d)", r);
         return CL_MAP_FAILURE;
      }
      bo->cpu = p;
   }
   *cpu = bo->cpu;
   return CL_SUCCESS;
}

void amdgpu_ws_bo_destroy(struct amdgpu_winsys *ws, struct amdgpu_ws_bo *bo)
{
   if (!bo)
      return;
   const struct amdgpu_drm *drm = ws->drm;
   if (bo->cpu && !bo->user)
      drm->amdgpu_bo_cpu_unmap(bo->handle);
   /* Teardown must go on whatever the kernel answers (a lost device
    * refuses the unmap, and its memory goes with the file anyway). */
   drm->amdgpu_bo_va_op(bo->handle, 0, bo->size, bo->va, 0, AMDGPU_VA_OP_UNMAP);
   drm->amdgpu_va_range_free(bo->va_handle);
   drm->amdgpu_bo_free(bo->handle);
   kiln_free(bo);
}
