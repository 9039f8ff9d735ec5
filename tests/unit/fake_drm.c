#include "fake_drm.h"

#include "pipe/amdgpu/amdgpu_pm4.h"
#include "pipe/amdgpu/amdgpu_regs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fake_drm_state fake;

/* Take-once failure injection. */
static int take(int *slot)
{
   int r = *slot;
   *slot = 0;
   return r;
}

void fake_drm_reset(void)
{
   for (unsigned i = 0; i < FAKE_MAX_BOS; i++)
      if (!fake.bos[i].user)
         free(fake.bos[i].mem);
   for (unsigned i = 0; i < fake.num_submits; i++) {
      free(fake.submits[i].ib);
      for (unsigned k = 0; k < fake.submits[i].num_bos; k++)
         free(fake.submits[i].bo_copy[k]);
   }
   memset(&fake, 0, sizeof(fake));
   /* Far from 0, like the kernel's VA space, so a 0 address is a bug. */
   fake.next_va = 0x100000000ull;
   fake.next_seq = 1;
}

struct fake_gpu *fake_drm_add_gpu(uint32_t family, uint32_t external_rev, const char *name)
{
   struct fake_gpu *g = &fake.gpus[fake.num_gpus];
   memset(g, 0, sizeof(*g));
   g->pci_vendor = 0x1002;
   g->driver = "amdgpu";
   g->family = family;
   g->external_rev = external_rev;
   g->device_id = 0x7300 + fake.num_gpus;
   g->num_cu = 40;
   g->num_se = 4;
   g->max_engine_clock_khz = 2500000;
   g->vram = 16ull << 30;
   g->vram_visible = 256ull << 20;
   g->gtt = 8ull << 30;
   g->marketing_name = name;
   snprintf(g->node, sizeof(g->node), "/dev/dri/renderD%u", 128 + fake.num_gpus);
   g->fd = -1;
   fake.num_gpus++;
   return g;
}

static struct fake_gpu *gpu_of_fd(int fd)
{
   for (unsigned i = 0; i < fake.num_gpus; i++)
      if (fake.gpus[i].fd == fd)
         return &fake.gpus[i];
   return NULL;
}

/* ---- libc and libdrm ---- */

static int f_open(const char *path, int flags)
{
   (void)flags;
   for (unsigned i = 0; i < fake.num_gpus; i++)
      if (!strcmp(fake.gpus[i].node, path)) {
         if (fake.gpus[i].fd >= 0)
            return -1; /* the driver opens each node once */
         fake.gpus[i].fd = 1000 + (int)i;
         return fake.gpus[i].fd;
      }
   errno = ENOENT;
   return -1;
}

static int f_close(int fd)
{
   struct fake_gpu *g = gpu_of_fd(fd);
   if (!g)
      return -1;
   g->fd = -1;
   return 0;
}

static drmDevice devices[FAKE_MAX_GPUS];
static drmPciDeviceInfo pci[FAKE_MAX_GPUS];
static char *nodes[FAKE_MAX_GPUS][DRM_NODE_MAX];

static int f_getdevices2(uint32_t flags, drmDevicePtr out[], int max)
{
   (void)flags;
   if (!out)
      return (int)fake.num_gpus;
   int n = 0;
   for (unsigned i = 0; i < fake.num_gpus && n < max; i++) {
      memset(&devices[i], 0, sizeof(devices[i]));
      memset(nodes[i], 0, sizeof(nodes[i]));
      nodes[i][DRM_NODE_RENDER] = fake.gpus[i].node;
      pci[i].vendor_id = fake.gpus[i].pci_vendor;
      pci[i].device_id = (uint16_t)fake.gpus[i].device_id;
      devices[i].nodes = nodes[i];
      devices[i].available_nodes = 1 << DRM_NODE_RENDER;
      devices[i].bustype = DRM_BUS_PCI;
      devices[i].deviceinfo.pci = &pci[i];
      out[n++] = &devices[i];
   }
   if (n)
      fake.device_lists++; /* libdrm allocates nothing for no device */
   return n;
}

static void f_freedevices(drmDevicePtr d[], int count)
{
   (void)d;
   (void)count;
   fake.device_lists--;
}

static drmVersionPtr f_getversion(int fd)
{
   struct fake_gpu *g = gpu_of_fd(fd);
   if (!g)
      return NULL;
   drmVersionPtr v = calloc(1, sizeof(*v));
   v->name = strdup(g->driver);
   v->name_len = (int)strlen(g->driver);
   fake.versions++;
   return v;
}

static void f_freeversion(drmVersionPtr v)
{
   free(v->name);
   free(v);
   fake.versions--;
}

/* ---- libdrm_amdgpu: devices ---- */

static int f_dev_init(int fd, uint32_t *major, uint32_t *minor, amdgpu_device_handle *dev)
{
   struct fake_gpu *g = gpu_of_fd(fd);
   if (!g)
      return -EINVAL;
   g->initialized = true;
   *major = 3;
   *minor = 57;
   *dev = (amdgpu_device_handle)g;
   return 0;
}

static int f_dev_deinit(amdgpu_device_handle dev)
{
   ((struct fake_gpu *)dev)->initialized = false;
   return 0;
}

static int f_query_info(amdgpu_device_handle dev, unsigned id, unsigned size, void *value)
{
   struct fake_gpu *g = (struct fake_gpu *)dev;
   int r = take(&fake.fail_query_info);
   if (r)
      return r;
   if (id == AMDGPU_INFO_DEV_INFO && size == sizeof(struct drm_amdgpu_info_device)) {
      struct drm_amdgpu_info_device *d = value;
      memset(d, 0, sizeof(*d));
      d->device_id = g->device_id;
      d->family = g->family;
      d->external_rev = g->external_rev;
      d->cu_active_number = g->num_cu;
      d->num_shader_engines = g->num_se;
      d->max_engine_clock = g->max_engine_clock_khz;
      d->wave_front_size = g->family >= 143 ? 32 : 64;
      return 0;
   }
   if (id == AMDGPU_INFO_MEMORY && size == sizeof(struct drm_amdgpu_memory_info)) {
      struct drm_amdgpu_memory_info *m = value;
      memset(m, 0, sizeof(*m));
      m->vram.total_heap_size = m->vram.usable_heap_size = g->vram;
      m->cpu_accessible_vram.total_heap_size = m->cpu_accessible_vram.usable_heap_size =
         g->vram_visible;
      m->gtt.total_heap_size = m->gtt.usable_heap_size = g->gtt;
      return 0;
   }
   return -EINVAL;
}

static const char *f_marketing(amdgpu_device_handle dev)
{
   return ((struct fake_gpu *)dev)->marketing_name;
}

/* ---- buffer objects and VA ---- */

int fake_drm_bo_index(const void *handle)
{
   const struct fake_bo *b = handle;
   if (b < fake.bos || b >= fake.bos + FAKE_MAX_BOS)
      return -1;
   return (int)(b - fake.bos);
}

static int f_bo_alloc(amdgpu_device_handle dev, struct amdgpu_bo_alloc_request *req,
                      amdgpu_bo_handle *out)
{
   (void)dev;
   int r = take(&fake.fail_bo_alloc);
   if (r)
      return r;
   for (unsigned i = 0; i < FAKE_MAX_BOS; i++)
      if (!fake.bos[i].live && !fake.bos[i].mem) {
         fake.bos[i].live = true;
         fake.bos[i].req = *req;
         fake.bos[i].mem = calloc(1, req->alloc_size);
         *out = (amdgpu_bo_handle)&fake.bos[i];
         return 0;
      }
   return -ENOMEM;
}

/* A handle the driver holds must be one the fake gave out: a scribbled
 * BO structure shows here instead of crashing the test. */
static bool bad(amdgpu_bo_handle h)
{
   int i = fake_drm_bo_index(h);
   if (i < 0 || ((uintptr_t)h - (uintptr_t)fake.bos) % sizeof(fake.bos[0]) || !fake.bos[i].live) {
      fake.bad_handles++;
      return true;
   }
   return false;
}

static int f_bo_free(amdgpu_bo_handle h)
{
   if (bad(h))
      return -EINVAL;
   struct fake_bo *b = (struct fake_bo *)h;
   b->live = false; /* mem stays for the test to read until reset */
   if (b->user) {
      /* The application's memory is not the fake's to keep. */
      b->mem = NULL;
      b->user = false;
   }
   return 0;
}

static int f_bo_from_user(amdgpu_device_handle dev, void *cpu, uint64_t size,
                          amdgpu_bo_handle *out)
{
   (void)dev;
   int r = take(&fake.fail_bo_alloc);
   if (r)
      return r;
   /* What the kernel checks: whole pages. */
   if ((uintptr_t)cpu % 4096 || !size || size % 4096)
      return -EINVAL;
   for (unsigned i = 0; i < FAKE_MAX_BOS; i++)
      if (!fake.bos[i].live && !fake.bos[i].mem) {
         fake.bos[i].live = true;
         fake.bos[i].user = true;
         memset(&fake.bos[i].req, 0, sizeof(fake.bos[i].req));
         fake.bos[i].req.alloc_size = size;
         fake.bos[i].req.preferred_heap = AMDGPU_GEM_DOMAIN_CPU;
         fake.bos[i].mem = cpu;
         *out = (amdgpu_bo_handle)&fake.bos[i];
         return 0;
      }
   return -ENOMEM;
}

static int f_cpu_map(amdgpu_bo_handle h, void **cpu)
{
   int r = take(&fake.fail_cpu_map);
   if (r)
      return r;
   if (bad(h))
      return -EINVAL;
   struct fake_bo *b = (struct fake_bo *)h;
   b->cpu_maps++;
   *cpu = b->mem;
   return 0;
}

static int f_cpu_unmap(amdgpu_bo_handle h)
{
   if (bad(h))
      return -EINVAL;
   ((struct fake_bo *)h)->cpu_maps--;
   return 0;
}

static int f_va_alloc(amdgpu_device_handle dev, enum amdgpu_gpu_va_range type, uint64_t size,
                      uint64_t align, uint64_t base, uint64_t *va, amdgpu_va_handle *h,
                      uint64_t flags)
{
   (void)dev, (void)type, (void)base, (void)flags;
   int r = take(&fake.fail_va_alloc);
   if (r)
      return r;
   for (unsigned i = 0; i < FAKE_MAX_BOS; i++)
      if (!fake.vas[i].live) {
         uint64_t a = align ? align : 4096;
         fake.next_va = (fake.next_va + a - 1) / a * a;
         fake.vas[i].live = true;
         fake.vas[i].start = fake.next_va;
         fake.vas[i].size = size;
         fake.next_va += size;
         *va = fake.vas[i].start;
         *h = (amdgpu_va_handle)&fake.vas[i];
         return 0;
      }
   return -ENOMEM;
}

static int f_va_free(amdgpu_va_handle h)
{
   ((struct fake_va_range *)h)->live = false;
   return 0;
}

static int f_va_op(amdgpu_bo_handle h, uint64_t offset, uint64_t size, uint64_t addr,
                   uint64_t flags, uint32_t ops)
{
   (void)flags;
   fake.va_ops++;
   if (bad(h))
      return -EINVAL;
   struct fake_bo *b = (struct fake_bo *)h;
   if (ops == AMDGPU_VA_OP_MAP) {
      int r = take(&fake.fail_va_op);
      if (r)
         return r;
      if (offset || size != b->req.alloc_size || b->va)
         return -EINVAL;
      b->va = addr;
      return 0;
   }
   if (ops == AMDGPU_VA_OP_UNMAP) {
      if (b->va != addr)
         return -EINVAL;
      b->va = 0;
      return 0;
   }
   return -EINVAL;
}

void *fake_drm_va_to_cpu(uint64_t va, uint64_t size)
{
   for (unsigned i = 0; i < FAKE_MAX_BOS; i++) {
      struct fake_bo *b = &fake.bos[i];
      if (b->live && b->va && va >= b->va && size <= b->req.alloc_size &&
          va - b->va <= b->req.alloc_size - size)
         return (char *)b->mem + (va - b->va);
   }
   return NULL;
}

const void *fake_submit_va_to_cpu(const struct fake_submit *s, uint64_t va, uint64_t size)
{
   for (unsigned i = 0; i < s->num_bos; i++)
      if (s->bo_va[i] && va >= s->bo_va[i] && size <= s->bo_size[i] &&
          va - s->bo_va[i] <= s->bo_size[i] - size)
         return (const char *)s->bo_copy[i] + (va - s->bo_va[i]);
   return NULL;
}

bool fake_submit_dispatch(const struct fake_submit *s, struct fake_dispatch *d)
{
   memset(d, 0, sizeof(*d));
   uint32_t user[16] = {0}, pgm[2] = {0, 0};
   bool dispatch = false;
   for (uint32_t i = 0; i < s->ib_dwords;) {
      uint32_t h = s->ib[i];
      if (h == PM4_NOP_FILLER || PM4_PKT_TYPE(h) != 3) {
         i++;
         continue;
      }
      uint32_t n = PM4_PKT3_BODY(h);
      const uint32_t *body = &s->ib[i + 1];
      if (i + 1 + n > s->ib_dwords)
         return false;
      if (PM4_PKT3_OPCODE(h) == PM4_SET_SH_REG)
         for (uint32_t k = 1; k < n; k++) {
            uint32_t reg = SH_REG_BASE + 4 * (body[0] + k - 1);
            if (reg >= R_COMPUTE_USER_DATA_0 && reg < R_COMPUTE_USER_DATA_0 + 64)
               user[(reg - R_COMPUTE_USER_DATA_0) / 4] = body[k];
            if (reg == R_COMPUTE_PGM_LO || reg == R_COMPUTE_PGM_HI)
               pgm[reg == R_COMPUTE_PGM_HI] = body[k];
         }
      if (PM4_PKT3_OPCODE(h) == PM4_DISPATCH_DIRECT)
         dispatch = true;
      i += 1 + n;
   }
   if (!dispatch)
      return false;
   uint64_t code = (uint64_t)pgm[1] << 40 | (uint64_t)pgm[0] << 8;
   const uint8_t *akc = fake_drm_va_to_cpu(code - AKC_SIZE, AKC_SIZE);
   if (!akc)
      return false;
   uint32_t props;
   memcpy(&props, akc + AKC_CODE_PROPERTIES, 4);
   /* User SGPRs in AMDGPUUsage's order. */
   unsigned sg = 0;
   int dispatch_ptr = -1, kernarg_ptr = -1;
   if (props & AKC_PROP_PRIVATE_SEGMENT_BUFFER)
      sg += 4;
   if (props & AKC_PROP_DISPATCH_PTR) {
      dispatch_ptr = (int)sg;
      sg += 2;
   }
   if (props & AKC_PROP_QUEUE_PTR)
      sg += 2;
   if (props & AKC_PROP_KERNARG_SEGMENT_PTR)
      kernarg_ptr = (int)sg;
   if (dispatch_ptr < 0 || kernarg_ptr < 0)
      return false;
   uint64_t pva = user[dispatch_ptr] | (uint64_t)user[dispatch_ptr + 1] << 32;
   uint64_t kva = user[kernarg_ptr] | (uint64_t)user[kernarg_ptr + 1] << 32;
   d->packet = fake_drm_va_to_cpu(pva, 64);
   uint64_t kernarg_size;
   memcpy(&kernarg_size, akc + AKC_KERNARG_SEGMENT_SIZE, 8);
   d->kernarg = fake_drm_va_to_cpu(kva, kernarg_size ? kernarg_size : 1);
   if (d->packet)
      for (int k = 0; k < 3; k++) {
         uint16_t l;
         memcpy(&l, d->packet + 4 + 2 * k, 2);
         d->local[k] = l;
         memcpy(&d->global[k], d->packet + 12 + 4 * k, 4);
      }
   return true;
}

/* ---- contexts, submission, fences ---- */

/* Each context a handle of its own: fences belong to one. */
static int f_ctx_create(amdgpu_device_handle dev, amdgpu_context_handle *ctx)
{
   (void)dev;
   int r = take(&fake.fail_ctx_create);
   if (r)
      return r;
   fake.contexts++;
   *ctx = (amdgpu_context_handle)calloc(1, 16);
   return 0;
}

static int f_ctx_free(amdgpu_context_handle ctx)
{
   free(ctx);
   fake.contexts--;
   return 0;
}

struct fake_list {
   unsigned n;
   int bos[FAKE_MAX_LIST];
};

static int f_list_create(amdgpu_device_handle dev, uint32_t n, amdgpu_bo_handle *bos,
                         uint8_t *prio, amdgpu_bo_list_handle *out)
{
   (void)dev, (void)prio;
   int r = take(&fake.fail_bo_list);
   if (r)
      return r;
   if (n > FAKE_MAX_LIST)
      return -EINVAL;
   struct fake_list *l = calloc(1, sizeof(*l));
   l->n = n;
   for (uint32_t i = 0; i < n; i++) {
      l->bos[i] = fake_drm_bo_index(bos[i]);
      if (l->bos[i] < 0 || !fake.bos[l->bos[i]].live) {
         free(l);
         return -ENOENT;
      }
   }
   fake.bo_lists++;
   *out = (amdgpu_bo_list_handle)l;
   return 0;
}

static int f_list_destroy(amdgpu_bo_list_handle h)
{
   free(h);
   fake.bo_lists--;
   return 0;
}

static int f_submit(amdgpu_context_handle ctx, uint64_t flags, struct amdgpu_cs_request *req,
                    uint32_t count)
{
   (void)ctx, (void)flags;
   int r = take(&fake.fail_submit);
   if (r)
      return r;
   if (count != 1 || req->number_of_ibs != 1 || fake.num_submits == FAKE_MAX_SUBMITS)
      return -EINVAL;
   struct fake_list *l = (struct fake_list *)req->resources;
   struct fake_submit *s = &fake.submits[fake.num_submits];
   memset(s, 0, sizeof(*s));
   s->ip_type = req->ip_type;
   s->ip_instance = req->ip_instance;
   s->ring = req->ring;
   s->ib_va = req->ibs[0].ib_mc_address;
   s->ib_dwords = req->ibs[0].size;
   const void *ib = fake_drm_va_to_cpu(s->ib_va, (uint64_t)s->ib_dwords * 4);
   if (!ib)
      return -EFAULT; /* what the kernel says of an IB outside every BO */
   s->ib = malloc((size_t)s->ib_dwords * 4);
   memcpy(s->ib, ib, (size_t)s->ib_dwords * 4);
   s->num_bos = l->n;
   memcpy(s->bos, l->bos, sizeof(s->bos));
   for (unsigned i = 0; i < l->n; i++) {
      const struct fake_bo *b = &fake.bos[l->bos[i]];
      s->bo_va[i] = b->va;
      s->bo_size[i] = b->req.alloc_size;
      s->bo_copy[i] = malloc(b->req.alloc_size);
      memcpy(s->bo_copy[i], b->mem, b->req.alloc_size);
   }
   s->seq = req->seq_no = fake.next_seq++;
   s->ctx = ctx;
   s->tag = fake.tag;
   fake.num_submits++;
   return 0;
}

/* The context's work up to seq ends: run it. */
static void execute_until(const void *ctx, uint64_t seq)
{
   for (unsigned i = 0; i < fake.num_submits; i++) {
      struct fake_submit *s = &fake.submits[i];
      if (s->ctx == ctx && s->seq <= seq && !s->executed) {
         s->executed = true;
         fake.executed++;
         if (fake.execute)
            fake.execute(s);
      }
   }
}

static int f_fence(struct amdgpu_cs_fence *f, uint64_t timeout, uint64_t flags,
                   uint32_t *expired)
{
   (void)timeout, (void)flags;
   int r = take(&fake.fail_fence);
   if (r)
      return r;
   if (f->fence == 0 || f->fence >= fake.next_seq)
      return -EINVAL;
   *expired = fake.fence_never_signals ? 0 : 1;
   if (*expired)
      execute_until(f->context, f->fence);
   return 0;
}

static int f_reset_state2(amdgpu_context_handle ctx, uint64_t *flags)
{
   (void)ctx;
   *flags = fake.reset ? AMDGPU_CTX_QUERY2_FLAGS_RESET | AMDGPU_CTX_QUERY2_FLAGS_GUILTY : 0;
   return 0;
}

static const struct amdgpu_drm table = {
   .open = f_open,
   .close = f_close,
   .drmGetDevices2 = f_getdevices2,
   .drmFreeDevices = f_freedevices,
   .drmGetVersion = f_getversion,
   .drmFreeVersion = f_freeversion,
   .amdgpu_device_initialize = f_dev_init,
   .amdgpu_device_deinitialize = f_dev_deinit,
   .amdgpu_query_info = f_query_info,
   .amdgpu_get_marketing_name = f_marketing,
   .amdgpu_bo_alloc = f_bo_alloc,
   .amdgpu_bo_free = f_bo_free,
   .amdgpu_bo_cpu_map = f_cpu_map,
   .amdgpu_bo_cpu_unmap = f_cpu_unmap,
   .amdgpu_va_range_alloc = f_va_alloc,
   .amdgpu_va_range_free = f_va_free,
   .amdgpu_bo_va_op = f_va_op,
   .amdgpu_cs_ctx_create = f_ctx_create,
   .amdgpu_cs_ctx_free = f_ctx_free,
   .amdgpu_bo_list_create = f_list_create,
   .amdgpu_bo_list_destroy = f_list_destroy,
   .amdgpu_cs_submit = f_submit,
   .amdgpu_cs_query_fence_status = f_fence,
   .amdgpu_cs_query_reset_state2 = f_reset_state2,
};

const struct amdgpu_drm *fake_drm_table(void)
{
   static struct amdgpu_drm with;
   with = table;
   with.amdgpu_create_bo_from_user_mem = fake.no_userptr ? NULL : f_bo_from_user;
   return &with;
}

unsigned fake_drm_live(void)
{
   unsigned n = 0;
   for (unsigned i = 0; i < fake.num_gpus; i++)
      n += (fake.gpus[i].fd >= 0) + fake.gpus[i].initialized;
   for (unsigned i = 0; i < FAKE_MAX_BOS; i++)
      n += fake.bos[i].live + (fake.bos[i].cpu_maps != 0) + (fake.bos[i].va != 0) +
           fake.vas[i].live;
   return n + (unsigned)(fake.device_lists + fake.versions + fake.contexts + fake.bo_lists);
}
