/* AMDGPU screens: device caps from the winsys, programs as code objects
 * uploaded to a BO, per-kernel limits from their descriptors.  Resources
 * are amdgpu_resource.c's, fences amdgpu_queue.c's. */
#include "pipe/amdgpu/amdgpu_screen.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kiln/kernel_info.h"
#include "pipe/amdgpu/amdgpu_caps.h"
#include "util/alloc.h"
#include "util/log.h"
#include "winsys/amdgpu/amdgpu_drm.h"
#include "winsys/amdgpu/amdgpu_winsys.h"

#define MAX_GPUS 16

/* The libdrm table, shared by the screens of one probe. */
struct amdgpu_drm_shared {
   struct amdgpu_drm *drm;
   atomic_uint refs;
};

static void drm_release(struct amdgpu_drm_shared *d)
{
   if (atomic_fetch_sub(&d->refs, 1) == 1) {
      amdgpu_drm_unload(d->drm);
      kiln_free(d);
   }
}

static void screen_destroy(struct pipe_screen *screen)
{
   struct amdgpu_screen *s = amdgpu_screen(screen);
   amdgpu_winsys_destroy(s->ws);
   drm_release(s->drm);
   kiln_free(s);
}

static uint64_t screen_timestamp(struct pipe_screen *screen)
{
   (void)screen;
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- programs ---- */

static char *error_text(const char *msg)
{
   return kiln_strdup(msg);
}

static void program_destroy(struct pipe_screen *screen, void *program)
{
   struct amdgpu_screen *s = amdgpu_screen(screen);
   struct amdgpu_program *p = program;
   if (!p)
      return;
   amdgpu_ws_bo_destroy(s->ws, p->code);
   amdgpu_code_object_fini(&p->co);
   kiln_free(p->kernels);
   kiln_free(p);
}

static void *program_create(struct pipe_screen *screen, const void *code, size_t size,
                            char **error)
{
   struct amdgpu_screen *s = amdgpu_screen(screen);
   *error = NULL;
   struct amdgpu_program *p = kiln_calloc(1, sizeof(*p));
   if (!p)
      return NULL;
   char why[256] = "";
   enum amdgpu_code_object_status st =
      amdgpu_code_object_parse(code, size, &s->isa, &p->co, why, sizeof(why));
   if (st) {
      kiln_free(p);
      if (st == AMDGPU_CODE_OBJECT_INVALID)
         *error = error_text(why);
      return NULL;
   }
   p->kernels = kiln_calloc(p->co.num_kernels ? p->co.num_kernels : 1, sizeof(*p->kernels));
   if (!p->kernels) {
      program_destroy(screen, p);
      return NULL;
   }
   for (unsigned i = 0; i < p->co.num_kernels; i++) {
      p->kernels[i].desc = &p->co.kernels[i];
      p->kernels[i].program = p;
   }
   void *cpu = NULL;
   /* Code and program-scope __constant data, relocated for where the BO
    * sits in the GPU's address space. */
   cl_int err = amdgpu_ws_bo_create(s->ws, p->co.image_size ? p->co.image_size : 1, 256,
                                    AMDGPU_WS_GTT, true, &p->code);
   if (!err)
      err = amdgpu_ws_bo_map(s->ws, p->code, &cpu);
   if (err) {
      program_destroy(screen, p);
      *error = error_text("cannot allocate GPU memory for the program's code");
      return NULL;
   }
   st = amdgpu_code_object_load(&p->co, code, size, p->code->va, cpu, why, sizeof(why));
   if (st) {
      program_destroy(screen, p);
      if (st == AMDGPU_CODE_OBJECT_INVALID)
         *error = error_text(why);
      return NULL;
   }
   return p;
}

static void *get_kernel(struct pipe_screen *screen, void *program, const char *name,
                        char **error)
{
   (void)screen;
   struct amdgpu_program *p = program;
   *error = NULL;
   for (unsigned i = 0; i < p->co.num_kernels; i++)
      if (!strcmp(p->kernels[i].desc->name, name))
         return &p->kernels[i];
   *error = error_text("no such kernel in the code object");
   return NULL;
}

/* What CL_KERNEL_WORK_GROUP_SIZE and friends report, from the kernel's
 * descriptor: the wave size, the scratch and LDS LLVM gave it.  Clang
 * compiles for at most 256 work-items per group
 * ("amdgpu-flat-work-group-size"="1,256") unless reqd_work_group_size
 * says exactly how many. */
static void get_kernel_info(struct pipe_screen *screen, void *kernel,
                            const struct kiln_kernel_info *meta, struct pipe_kernel_info *out)
{
   const struct amdgpu_kernel_desc *d = ((const struct amdgpu_kernel *)kernel)->desc;
   size_t max = screen->caps.max_work_group_size;
   if (meta && meta->reqd_work_group_size[0]) {
      uint64_t reqd = meta->reqd_work_group_size[0] * meta->reqd_work_group_size[1] *
                      meta->reqd_work_group_size[2];
      if (reqd && reqd < max)
         max = (size_t)reqd;
   }
   out->max_work_group_size = max;
   out->preferred_work_group_size_multiple = d->wave32 ? 32 : 64;
   out->private_mem_size = d->private_segment_size;
   out->static_local_mem_size = d->group_segment_size;
}

/* ---- caps ---- */

static void fill_caps(struct pipe_caps *c, const struct amdgpu_ws_info *info)
{
   snprintf(c->ir, sizeof(c->ir), "amdgcn");
   snprintf(c->ir_target, sizeof(c->ir_target), "%s", info->gfx);
   c->type = CL_DEVICE_TYPE_GPU;
   c->vendor_id = 0x1002;
   snprintf(c->name, sizeof(c->name), "%s", info->name);
   snprintf(c->vendor, sizeof(c->vendor), "Advanced Micro Devices, Inc.");
   c->max_compute_units = info->num_cu ? info->num_cu : 1;
   c->max_clock_frequency = info->max_clock_mhz;
   c->address_bits = 64;
   /* Clang compiles OpenCL kernels without reqd_work_group_size for at
    * most 256 work-items ("amdgpu-flat-work-group-size"="1,256"): larger
    * groups would break its register allocation. */
   c->max_work_group_size = 256;
   for (int d = 0; d < 3; d++) {
      c->max_work_item_sizes[d] = 256;
      /* The dispatch packet's grid_size and the implicit global offsets
       * libclc reads are 32-bit (amdgpu_dispatch.c), and so are the
       * DISPATCH_DIRECT group counts: larger grids would wrap. */
      c->max_grid_size[d] = UINT32_MAX;
      c->max_grid_offset[d] = UINT32_MAX;
      c->max_grid_groups[d] = UINT32_MAX;
   }
   static const cl_uint widths[7] = {1, 1, 1, 1, 1, 1, 0};
   memcpy(c->preferred_vector_width, widths, sizeof(widths));
   memcpy(c->native_vector_width, widths, sizeof(widths));
   /* Buffers are GTT BOs (amdgpu_screen.c): system memory is the limit. */
   c->global_mem_size = info->gtt_size;
   c->max_mem_alloc_size = info->gtt_size / 4 > (128u << 20) ? info->gtt_size / 4 : (128u << 20);
   c->global_mem_cache_type = CL_READ_WRITE_CACHE;
   c->global_mem_cacheline_size = info->gfx_level >= 10 ? 128 : 64;
   c->global_mem_cache_size = 0; /* the kernel does not report L2 */
   c->max_constant_buffer_size = 64 << 10;
   c->max_constant_args = 8;
   c->local_mem_type = CL_LOCAL;
   c->local_mem_size = 64 << 10;
   c->max_parameter_size = 1024;
   c->mem_base_addr_align = 128 * 8;
   c->min_data_type_align_size = 128;
   /* FLOAT_MODE as LLVM sets it: fp32 denormals flushed, fp64 kept. */
   c->single_fp_config = CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST | CL_FP_FMA;
   c->double_fp_config = CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO |
                         CL_FP_ROUND_TO_INF | CL_FP_INF_NAN | CL_FP_DENORM;
   c->image_support = false;
   c->error_correction = false;
   c->host_unified_memory = false;
   c->endian_little = true;
   c->compiler_available = true;
   /* Not yet validated as a 3.0 device on hardware: 1.2 (issue 21). */
   c->opencl_version = 120;
   c->profiling_timer_resolution = 1;
   c->execution_capabilities = CL_EXEC_KERNEL;
   c->queue_properties = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;
   snprintf(c->extensions, sizeof(c->extensions), "%s", AMDGPU_EXTENSIONS);
   snprintf(c->clang_extensions, sizeof(c->clang_extensions), "%s", AMDGPU_CLANG_EXTENSIONS);
}

/* KILN_AMDGPU_TIMEOUT_MS: how long work may run before its fence fails. */
static uint64_t fence_timeout_ns(void)
{
   const char *e = getenv("KILN_AMDGPU_TIMEOUT_MS");
   char *end;
   unsigned long long ms = e && *e ? strtoull(e, &end, 10) : 0;
   if (!e || !*e || *end || !ms)
      ms = 60000;
   return ms * 1000000ull;
}

static struct pipe_screen *screen_create(struct amdgpu_winsys *ws, struct amdgpu_drm_shared *drm)
{
   struct amdgpu_screen *s = kiln_calloc(1, sizeof(*s));
   if (!s)
      return NULL;
   const struct amdgpu_ws_info *info = amdgpu_winsys_info(ws);
   s->ws = ws;
   s->drm = drm;
   s->isa.gfx_level = info->gfx_level;
   s->isa.accum_offset = info->accum_offset;
   s->fence_timeout_ns = fence_timeout_ns();
   s->base.driver_name = "amdgpu";
   s->base.destroy = screen_destroy;
   s->base.get_timestamp = screen_timestamp;
   amdgpu_resource_init_screen(s);
   amdgpu_fence_init_screen(s);
   s->base.context_create = amdgpu_context_create;
   s->base.program_create = program_create;
   s->base.program_destroy = program_destroy;
   s->base.get_kernel = get_kernel;
   s->base.get_kernel_info = get_kernel_info;
   fill_caps(&s->base.caps, info);
   return &s->base;
}

unsigned amdgpu_screen_probe(struct pipe_screen **screens, unsigned max)
{
   struct amdgpu_drm *drm = amdgpu_drm_load();
   if (!drm)
      return 0;
   struct amdgpu_drm_shared *shared = kiln_calloc(1, sizeof(*shared));
   if (!shared) {
      amdgpu_drm_unload(drm);
      return 0;
   }
   shared->drm = drm;
   atomic_init(&shared->refs, 1); /* the probe's own */
   struct amdgpu_winsys *ws[MAX_GPUS];
   unsigned n = amdgpu_winsys_probe(drm, ws, max < MAX_GPUS ? max : MAX_GPUS), added = 0;
   for (unsigned i = 0; i < n; i++) {
      atomic_fetch_add(&shared->refs, 1);
      struct pipe_screen *s = screen_create(ws[i], shared);
      if (s) {
         screens[added++] = s;
      } else {
         amdgpu_winsys_destroy(ws[i]);
         drm_release(shared);
      }
   }
   drm_release(shared);
   return added;
}
