/* The libdrm and libdrm_amdgpu functions the amdgpu winsys calls, as a
 * table: the driver fills it by dlopen()ing the libraries (so Kiln loads
 * on machines without them, and shows no AMD device there), unit tests
 * fill it with a fake GPU (tests/unit/fake_drm.c).  Only libdrm's headers
 * are needed to build Kiln. */
#ifndef KILN_WINSYS_AMDGPU_DRM_H
#define KILN_WINSYS_AMDGPU_DRM_H

#include <amdgpu.h>
#include <amdgpu_drm.h>
#include <stdbool.h>
#include <stdint.h>
#include <xf86drm.h>

struct amdgpu_drm {
   /* System calls too, so a fake can hand out render nodes. */
   int (*open)(const char *path, int flags);
   int (*close)(int fd);

   int (*drmGetDevices2)(uint32_t flags, drmDevicePtr devices[], int max_devices);
   void (*drmFreeDevices)(drmDevicePtr devices[], int count);
   drmVersionPtr (*drmGetVersion)(int fd);
   void (*drmFreeVersion)(drmVersionPtr version);

   int (*amdgpu_device_initialize)(int fd, uint32_t *major, uint32_t *minor,
                                   amdgpu_device_handle *dev);
   int (*amdgpu_device_deinitialize)(amdgpu_device_handle dev);
   int (*amdgpu_query_info)(amdgpu_device_handle dev, unsigned info_id, unsigned size,
                            void *value);
   const char *(*amdgpu_get_marketing_name)(amdgpu_device_handle dev);

   int (*amdgpu_bo_alloc)(amdgpu_device_handle dev, struct amdgpu_bo_alloc_request *req,
                          amdgpu_bo_handle *bo);
   int (*amdgpu_bo_free)(amdgpu_bo_handle bo);
   int (*amdgpu_bo_cpu_map)(amdgpu_bo_handle bo, void **cpu);
   int (*amdgpu_bo_cpu_unmap)(amdgpu_bo_handle bo);
   int (*amdgpu_va_range_alloc)(amdgpu_device_handle dev, enum amdgpu_gpu_va_range type,
                                uint64_t size, uint64_t alignment, uint64_t base_required,
                                uint64_t *va, amdgpu_va_handle *handle, uint64_t flags);
   int (*amdgpu_va_range_free)(amdgpu_va_handle handle);
   int (*amdgpu_bo_va_op)(amdgpu_bo_handle bo, uint64_t offset, uint64_t size, uint64_t addr,
                          uint64_t flags, uint32_t ops);
   /* Application pages as a BO (userptr); NULL where libdrm lacks it
    * (CL_MEM_USE_HOST_PTR then gets a device copy from core). */
   int (*amdgpu_create_bo_from_user_mem)(amdgpu_device_handle dev, void *cpu, uint64_t size,
                                         amdgpu_bo_handle *bo);

   int (*amdgpu_cs_ctx_create)(amdgpu_device_handle dev, amdgpu_context_handle *ctx);
   int (*amdgpu_cs_ctx_free)(amdgpu_context_handle ctx);
   int (*amdgpu_bo_list_create)(amdgpu_device_handle dev, uint32_t count,
                                amdgpu_bo_handle *resources, uint8_t *priorities,
                                amdgpu_bo_list_handle *list);
   int (*amdgpu_bo_list_destroy)(amdgpu_bo_list_handle list);
   int (*amdgpu_cs_submit)(amdgpu_context_handle ctx, uint64_t flags,
                           struct amdgpu_cs_request *requests, uint32_t count);
   int (*amdgpu_cs_query_fence_status)(struct amdgpu_cs_fence *fence, uint64_t timeout_ns,
                                       uint64_t flags, uint32_t *expired);
   int (*amdgpu_cs_query_reset_state2)(amdgpu_context_handle ctx, uint64_t *flags);

   void *libdrm, *libdrm_amdgpu; /* dlopen handles; NULL for a fake */
};

/* The system's libdrm.so.2 and libdrm_amdgpu.so.1; NULL when either is
 * missing or lacks a function (no AMD device then, and nothing printed).
 * Release with amdgpu_drm_unload. */
struct amdgpu_drm *amdgpu_drm_load(void);
void amdgpu_drm_unload(struct amdgpu_drm *drm);

#endif
