#include "winsys/amdgpu/amdgpu_drm.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/log.h"

static int sys_open(const char *path, int flags)
{
   return open(path, flags);
}

static int sys_close(int fd)
{
   return close(fd);
}

/* dlsym into a typed slot. */
static bool sym(void *lib, const char *name, void *slot)
{
   void *p = dlsym(lib, name);
   if (!p) {
      kiln_log(KILN_LOG_PIPE, "amdgpu: %s is missing from libdrm", name);
      return false;
   }
   *(void **)slot = p;
   return true;
}

struct amdgpu_drm *amdgpu_drm_load(void)
{
   void *drm_lib = dlopen("libdrm.so.2", RTLD_NOW | RTLD_LOCAL);
   void *amd_lib = drm_lib ? dlopen("libdrm_amdgpu.so.1", RTLD_NOW | RTLD_LOCAL) : NULL;
   struct amdgpu_drm *d = amd_lib ? kiln_calloc(1, sizeof(*d)) : NULL;
   if (!d) {
      kiln_log(KILN_LOG_PIPE, "amdgpu: libdrm_amdgpu.so.1 not loaded");
      if (amd_lib)
         dlclose(amd_lib);
      if (drm_lib)
         dlclose(drm_lib);
      return NULL;
   }
   d->libdrm = drm_lib;
   d->libdrm_amdgpu = amd_lib;
   d->open = sys_open;
   d->close = sys_close;
   bool ok = sym(drm_lib, "drmGetDevices2", &d->drmGetDevices2) &&
             sym(drm_lib, "drmFreeDevices", &d->drmFreeDevices) &&
             sym(drm_lib, "drmGetVersion", &d->drmGetVersion) &&
             sym(drm_lib, "drmFreeVersion", &d->drmFreeVersion);
#define AMD(name) ok = ok && sym(amd_lib, #name, &d->name)
   AMD(amdgpu_device_initialize);
   AMD(amdgpu_device_deinitialize);
   AMD(amdgpu_query_info);
   AMD(amdgpu_get_marketing_name);
   AMD(amdgpu_bo_alloc);
   AMD(amdgpu_bo_free);
   AMD(amdgpu_bo_cpu_map);
   AMD(amdgpu_bo_cpu_unmap);
   AMD(amdgpu_va_range_alloc);
   AMD(amdgpu_va_range_free);
   AMD(amdgpu_bo_va_op);
   AMD(amdgpu_cs_ctx_create);
   AMD(amdgpu_cs_ctx_free);
   AMD(amdgpu_bo_list_create);
   AMD(amdgpu_bo_list_destroy);
   AMD(amdgpu_cs_submit);
   AMD(amdgpu_cs_query_fence_status);
   AMD(amdgpu_cs_query_reset_state2);
#undef AMD
   /* Optional: without it buffers on application memory are copies. */
   if (ok)
      *(void **)&d->amdgpu_create_bo_from_user_mem = dlsym(amd_lib, "amdgpu_create_bo_from_user_mem");
   if (!ok) {
      amdgpu_drm_unload(d);
      return NULL;
   }
   return d;
}

void amdgpu_drm_unload(struct amdgpu_drm *drm)
{
   if (!drm)
      return;
   if (drm->libdrm_amdgpu)
      dlclose(drm->libdrm_amdgpu);
   if (drm->libdrm)
      dlclose(drm->libdrm);
   kiln_free(drm);
}
