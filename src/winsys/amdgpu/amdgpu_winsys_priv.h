/* Driver-internal: shared by the files of src/winsys/amdgpu. */
#ifndef KILN_WINSYS_AMDGPU_WINSYS_PRIV_H
#define KILN_WINSYS_AMDGPU_WINSYS_PRIV_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

#include "winsys/amdgpu/amdgpu_drm.h"
#include "winsys/amdgpu/amdgpu_winsys.h"

struct amdgpu_ws_ring {
   amdgpu_context_handle ctx;
   /* libdrm's context is not for concurrent submission. */
   pthread_mutex_t submit_lock;
};

struct amdgpu_winsys {
   const struct amdgpu_drm *drm;
   int fd;
   amdgpu_device_handle dev;
   struct amdgpu_ws_ring ring; /* amdgpu_ws_submit's */
   struct amdgpu_ws_info info;
   atomic_bool lost;
};

/* Errors the kernel reports when a context or the device is gone. */
static inline bool amdgpu_ws_is_lost_error(int r)
{
   return r == -ECANCELED || r == -ENODEV || r == -EIO;
}

#endif
