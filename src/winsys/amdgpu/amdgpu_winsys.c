/* Finding AMD GPUs and describing them. */
#include "winsys/amdgpu/amdgpu_winsys_priv.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/log.h"
#include "winsys/amdgpu/amdgpu_gfx_id.h"

#define PCI_VENDOR_AMD 0x1002
#define MAX_DRM_DEVICES 64

static bool is_amdgpu_driver(const struct amdgpu_drm *drm, int fd)
{
   drmVersionPtr v = drm->drmGetVersion(fd);
   if (!v)
      return false;
   bool yes = v->name && v->name_len == 6 && !strncmp(v->name, "amdgpu", 6);
   drm->drmFreeVersion(v);
   return yes;
}

/* Fills ws->info from the kernel's answers; false (logged) when the GPU
 * is not one Kiln drives or the kernel would not say. */
static bool query_info(struct amdgpu_winsys *ws, const char *node)
{
   const struct amdgpu_drm *drm = ws->drm;
   struct drm_amdgpu_info_device dev;
   struct drm_amdgpu_memory_info mem;
   memset(&dev, 0, sizeof(dev));
   memset(&mem, 0, sizeof(mem));
   int r = drm->amdgpu_query_info(ws->dev, AMDGPU_INFO_DEV_INFO, sizeof(dev), &dev);
   if (!r)
      r = drm->amdgpu_query_info(ws->dev, AMDGPU_INFO_MEMORY, sizeof(mem), &mem);
   if (r) {
      kiln_log(KILN_LOG_PIPE, "amdgpu: %s: device queries failed (%d)", node, r);
      return false;
   }
   const struct amdgpu_gfx_id *id = amdgpu_gfx_id_lookup(dev.family, dev.external_rev);
   if (!id) {
      kiln_log(KILN_LOG_PIPE, "amdgpu: %s: family %u revision 0x%x is not supported", node,
               dev.family, dev.external_rev);
      return false;
   }
   struct amdgpu_ws_info *info = &ws->info;
   snprintf(info->gfx, sizeof(info->gfx), "%s", id->gfx);
   info->gfx_level = id->gfx_level;
   info->accum_offset = id->accum_offset;
   info->pci_device_id = dev.device_id;
   info->family = dev.family;
   info->external_rev = dev.external_rev;
   info->num_cu = dev.cu_active_number;
   info->num_se = dev.num_shader_engines;
   info->max_clock_mhz = (unsigned)(dev.max_engine_clock / 1000); /* kHz */
   info->vram_size = mem.vram.usable_heap_size;
   info->vram_visible_size = mem.cpu_accessible_vram.usable_heap_size;
   info->gtt_size = mem.gtt.usable_heap_size;
   const char *market = drm->amdgpu_get_marketing_name(ws->dev);
   if (market && *market)
      snprintf(info->name, sizeof(info->name), "%s", market);
   else
      snprintf(info->name, sizeof(info->name), "AMD Radeon (%s)", id->chip);
   return true;
}

/* Opens one render node; NULL when it is not a GPU Kiln can use. */
static struct amdgpu_winsys *open_node(const struct amdgpu_drm *drm, const char *node)
{
   int fd = drm->open(node, O_RDWR | O_CLOEXEC);
   if (fd < 0) {
      kiln_log(KILN_LOG_PIPE, "amdgpu: cannot open %s", node);
      return NULL;
   }
   if (!is_amdgpu_driver(drm, fd)) {
      drm->close(fd);
      return NULL;
   }
   struct amdgpu_winsys *ws = kiln_calloc(1, sizeof(*ws));
   if (!ws) {
      drm->close(fd);
      return NULL;
   }
   ws->drm = drm;
   ws->fd = fd;
   uint32_t major, minor;
   int r = drm->amdgpu_device_initialize(fd, &major, &minor, &ws->dev);
   if (r) {
      kiln_log(KILN_LOG_PIPE, "amdgpu: %s: amdgpu_device_initialize failed (%d)", node, r);
      ws->dev = NULL;
   } else if (query_info(ws, node)) {
      r = drm->amdgpu_cs_ctx_create(ws->dev, &ws->ring.ctx);
      if (!r) {
         pthread_mutex_init(&ws->ring.submit_lock, NULL);
         kiln_log(KILN_LOG_PIPE, "amdgpu: %s: %s (%s), %u CUs, DRM %u.%u", node, ws->info.name,
                  ws->info.gfx, ws->info.num_cu, major, minor);
         return ws;
      }
      kiln_log(KILN_LOG_PIPE, "amdgpu: %s: amdgpu_cs_ctx_create failed (%d)", node, r);
      ws->ring.ctx = NULL;
   }
   if (ws->dev)
      drm->amdgpu_device_deinitialize(ws->dev);
   drm->close(fd);
   kiln_free(ws);
   return NULL;
}

unsigned amdgpu_winsys_probe(const struct amdgpu_drm *drm, struct amdgpu_winsys **out,
                             unsigned max)
{
   if (!drm || !max)
      return 0;
   drmDevicePtr devices[MAX_DRM_DEVICES];
   int n = drm->drmGetDevices2(0, devices, MAX_DRM_DEVICES);
   if (n <= 0)
      return 0;
   if (n > MAX_DRM_DEVICES)
      n = MAX_DRM_DEVICES;
   unsigned found = 0;
   for (int i = 0; i < n && found < max; i++) {
      drmDevicePtr d = devices[i];
      if (!(d->available_nodes & (1 << DRM_NODE_RENDER)) || d->bustype != DRM_BUS_PCI ||
          !d->deviceinfo.pci || d->deviceinfo.pci->vendor_id != PCI_VENDOR_AMD)
         continue;
      struct amdgpu_winsys *ws = open_node(drm, d->nodes[DRM_NODE_RENDER]);
      if (ws)
         out[found++] = ws;
   }
   drm->drmFreeDevices(devices, n);
   return found;
}

void amdgpu_winsys_destroy(struct amdgpu_winsys *ws)
{
   if (!ws)
      return;
   const struct amdgpu_drm *drm = ws->drm;
   drm->amdgpu_cs_ctx_free(ws->ring.ctx);
   drm->amdgpu_device_deinitialize(ws->dev);
   drm->close(ws->fd);
   pthread_mutex_destroy(&ws->ring.submit_lock);
   kiln_free(ws);
}

const struct amdgpu_ws_info *amdgpu_winsys_info(const struct amdgpu_winsys *ws)
{
   return &ws->info;
}

bool amdgpu_winsys_lost(const struct amdgpu_winsys *ws)
{
   return atomic_load(&ws->lost);
}
