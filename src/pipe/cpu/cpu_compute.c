/* Programs and launches on the CPU driver: device code is an ELF object
 * that src/llvm's JIT links into the process; a launch hands the kernel's
 * work-group function to the worker pool.  Programs that call printf
 * carry a table of their formats (include/kiln/printf.h): their launches
 * get a printf buffer, printed to stdout when the last group is done,
 * before the launch returns and so before its event completes. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CL/cl.h>

#include "kiln/bounds.h"
#include "kiln/cpu_abi.h"
#include "kiln/image.h"
#include "kiln/kernel_info.h"
#include "kiln/printf.h"
#include "llvm/cpu/jit.h"
#include "pipe/cpu/cpu_bounds.h"
#include "pipe/cpu/cpu_context.h"
#include "pipe/cpu/cpu_screen.h"
#include "pipe/cpu/cpu_tpool.h"
#include "pipe/pipe_image.h"
#include "util/alloc.h"
#include "util/printf_format.h"

/* What get_kernel hands out: the work-group function and what a launch
 * of it needs besides.  Owned by the program, which keeps one per name
 * (the pipe interface has no call that releases a kernel). */
struct cpu_kernel {
   kiln_wg_fn fn;
   /* __kiln_stack_<k>: NULL in binaries from before Kiln recorded it. */
   const uint64_t *stack;
   /* __kiln_max_items_<k>: NULL where the kernel has no limit of its own
    * (only kernels that call sub-group functions have one). */
   const uint64_t *max_items;
   const struct kiln_printf_table *printf_table; /* NULL: no printf */
   char *name;
   struct cpu_kernel *next;
};

struct cpu_program {
   struct kiln_jit *jit;
   const struct kiln_printf_table *printf_table;
   pthread_mutex_t lock;
   struct cpu_kernel *kernels;
};

static void *cpu_program_create(struct pipe_screen *screen, const void *code, size_t size,
                                char **error)
{
   (void)screen;
   struct cpu_program *p = kiln_calloc(1, sizeof(*p));
   if (!p)
      return NULL;
   p->jit = kiln_jit_load(code, size, cpu_bounds_symbols, cpu_bounds_num_symbols, error);
   if (!p->jit) {
      kiln_free(p);
      return NULL;
   }
   /* Absent unless some kernel calls printf. */
   char *missing = NULL;
   p->printf_table = kiln_jit_lookup(p->jit, KILN_PRINTF_TABLE_SYM, &missing);
   kiln_free(missing);
   pthread_mutex_init(&p->lock, NULL);
   return p;
}

static void cpu_program_destroy(struct pipe_screen *screen, void *program)
{
   (void)screen;
   struct cpu_program *p = program;
   if (!p)
      return;
   for (struct cpu_kernel *k = p->kernels, *next; k; k = next) {
      next = k->next;
      kiln_free(k->name);
      kiln_free(k);
   }
   kiln_jit_destroy(p->jit);
   pthread_mutex_destroy(&p->lock);
   kiln_free(p);
}

static void *cpu_get_kernel(struct pipe_screen *screen, void *program, const char *name,
                            char **error)
{
   (void)screen;
   struct cpu_program *p = program;
   struct cpu_kernel *found = NULL;
   pthread_mutex_lock(&p->lock);
   for (struct cpu_kernel *k = p->kernels; k && !found; k = k->next)
      if (!strcmp(k->name, name))
         found = k;
   if (found) {
      pthread_mutex_unlock(&p->lock);
      return found;
   }
   size_t n = strlen(KILN_WG_PREFIX) + strlen(KILN_STACK_PREFIX) +
              strlen(KILN_MAX_ITEMS_PREFIX) + strlen(name) + 1;
   char *sym = kiln_malloc(n);
   struct cpu_kernel *k = kiln_calloc(1, sizeof(*k));
   char *copy = kiln_strdup(name);
   void *fn = NULL;
   if (sym && k && copy) {
      snprintf(sym, n, "%s%s", KILN_WG_PREFIX, name);
      fn = kiln_jit_lookup(p->jit, sym, error);
   }
   if (fn) {
      char *missing = NULL;
      snprintf(sym, n, "%s%s", KILN_STACK_PREFIX, name);
      k->stack = kiln_jit_lookup(p->jit, sym, &missing);
      kiln_free(missing);
      missing = NULL;
      snprintf(sym, n, "%s%s", KILN_MAX_ITEMS_PREFIX, name);
      k->max_items = kiln_jit_lookup(p->jit, sym, &missing);
      kiln_free(missing);
   }
   kiln_free(sym);
   if (!fn) { /* *error stays NULL when out of host memory */
      kiln_free(k);
      kiln_free(copy);
      pthread_mutex_unlock(&p->lock);
      return NULL;
   }
   k->fn = (kiln_wg_fn)(uintptr_t)fn;
   k->printf_table = p->printf_table;
   k->name = copy;
   k->next = p->kernels;
   p->kernels = k;
   pthread_mutex_unlock(&p->lock);
   return k;
}

/* __local arguments lie after the kernel's own __local variables in each
 * work-group's arena, each at a multiple of this (core checks the same
 * layout against the device's local memory size). */
#define LOCAL_ALIGN 128

static uint64_t align_local(uint64_t n)
{
   return (n + LOCAL_ALIGN - 1) / LOCAL_ALIGN * LOCAL_ALIGN;
}

/* Writes what the kernel receives for each binding into args (a copy of
 * the argument buffer): buffer addresses, __local offsets, image
 * descriptors (in images, one per argument), sampler bits.  Returns the
 * arena size a work-group needs. */
static size_t cpu_bind(const struct pipe_grid_info *info, unsigned char *args,
                       struct kiln_image_desc *images)
{
   const struct kiln_kernel_info *ki = info->info;
   uint64_t local = align_local(ki->local_mem_size);
   for (uint32_t i = 0; i < info->num_bindings; i++) {
      const struct pipe_binding *b = &info->bindings[i];
      const struct kiln_arg_info *ai = &ki->args[b->arg];
      unsigned char *slot = args + ai->offset;
      uint64_t v = 0;
      switch (b->kind) {
      case PIPE_BIND_GLOBAL:
         if (b->res)
            v = (uint64_t)(uintptr_t)((char *)cpu_resource_data(b->res) + b->offset);
         break;
      case PIPE_BIND_LOCAL:
         v = local;
         local += align_local(b->local_size);
         break;
      case PIPE_BIND_IMAGE: {
         struct kiln_image_desc *d = &images[b->arg];
         *d = pipe_image_desc(b->image,
                              (uint64_t)(uintptr_t)((char *)cpu_resource_data(b->res) + b->offset));
         v = (uint64_t)(uintptr_t)d;
         break;
      }
      case PIPE_BIND_SAMPLER:
         v = b->sampler_bits;
         break;
      }
      memcpy(slot, &v, ai->size < sizeof(v) ? ai->size : sizeof(v));
      if (info->bounds && (b->kind == PIPE_BIND_GLOBAL || b->kind == PIPE_BIND_LOCAL))
         info->bounds->args[b->arg].base = v;
   }
   if (info->bounds)
      info->bounds->local_total = local;
   return local;
}

/* A launch bound and ready to run: what the discrete test mode keeps
 * until its context's thread gets to it. */
struct cpu_launch {
   const struct cpu_kernel *kernel;
   struct pipe_grid_info grid; /* bindings not kept: already bound */
   size_t local_mem_size;
   struct kiln_image_desc *images;
   unsigned char *args; /* after the struct, or on the caller's stack */
};

struct cpu_launch *cpu_launch_bind(const struct pipe_grid_info *info)
{
   struct cpu_launch *l = kiln_malloc(sizeof(*l) + (info->args_size ? info->args_size : 1));
   if (!l)
      return NULL;
   l->images = NULL;
   l->args = (unsigned char *)(l + 1);
   for (uint32_t i = 0; i < info->num_bindings && !l->images; i++)
      if (info->bindings[i].kind == PIPE_BIND_IMAGE &&
          !(l->images = kiln_calloc(info->info->num_args, sizeof(*l->images)))) {
         kiln_free(l);
         return NULL;
      }
   l->kernel = info->kernel;
   l->grid = *info;
   l->grid.bindings = NULL;
   l->grid.num_bindings = 0;
   memcpy(l->args, info->args, info->args_size);
   l->local_mem_size = cpu_bind(info, l->args, l->images);
   l->grid.args = l->args;
   return l;
}

void cpu_launch_free(struct cpu_launch *l)
{
   if (l)
      kiln_free(l->images);
   kiln_free(l);
}

int cpu_launch_run(struct pipe_context *ctx, const struct cpu_launch *l)
{
   struct cpu_tpool *pool = cpu_context_tpool(ctx);
   if (!pool)
      return CL_OUT_OF_RESOURCES;
   const struct cpu_kernel *k = l->kernel;
   struct kiln_printf_buffer *buf = NULL;
   if (k->printf_table) {
      /* Untouched pages cost nothing: a launch that prints little maps
       * little of its buffer. */
      size_t cap = kiln_printf_buffer_size();
      buf = kiln_malloc(sizeof(*buf) + cap);
      if (!buf)
         return CL_OUT_OF_RESOURCES;
      kiln_printf_buffer_reset(buf, cap);
   }
   /* This thread runs the first groups itself (cpu_tpool.h) where its
    * stack holds a work-group of the kernel with the workers' margin, and
    * the context's arena is free.  Not for a sub-device, whose work-groups
    * run on its own CPUs only. */
   struct cpu_context *cctx = (struct cpu_context *)ctx;
   struct cpu_tpool_caller here = {&cctx->inline_arena, &cctx->inline_arena_size};
   bool inline_ok = false;
   if (k->stack && !cctx->num_cpus) {
      uint64_t items = (uint64_t)l->grid.local_size[0] * l->grid.local_size[1] *
                       l->grid.local_size[2];
      uint64_t fixed = k->stack[KILN_STACK_FIXED], per = k->stack[KILN_STACK_PER_ITEM];
      size_t left = cpu_tpool_stack_left();
      inline_ok = left > CPU_WORKER_STACK_RESERVE && fixed <= left - CPU_WORKER_STACK_RESERVE &&
                  (!per || items <= (left - CPU_WORKER_STACK_RESERVE - fixed) / per);
   }
   if (inline_ok)
      inline_ok = !atomic_flag_test_and_set(&cctx->inline_busy);
   int err = cpu_tpool_launch(pool, k->fn, &l->grid, l->args, l->local_mem_size, buf,
                              inline_ok ? &here : NULL)
                ? CL_OUT_OF_RESOURCES
                : CL_SUCCESS;
   if (inline_ok)
      atomic_flag_clear(&cctx->inline_busy);
   if (buf) {
      kiln_printf_print(k->printf_table, buf, stdout);
      kiln_free(buf);
   }
   return err;
}

/* Most launches have small argument buffers and no images: bind them on
 * the stack and run at once. */
int cpu_launch_grid_now(struct pipe_context *ctx, const struct pipe_grid_info *info)
{
   _Alignas(16) unsigned char args[256];
   bool has_images = false;
   for (uint32_t i = 0; i < info->num_bindings; i++)
      has_images |= info->bindings[i].kind == PIPE_BIND_IMAGE;
   if (info->args_size > sizeof(args) || has_images) {
      struct cpu_launch *l = cpu_launch_bind(info);
      if (!l)
         return CL_OUT_OF_HOST_MEMORY;
      int err = cpu_launch_run(ctx, l);
      cpu_launch_free(l);
      return err;
   }
   struct cpu_launch l = {.kernel = info->kernel, .grid = *info, .args = args};
   memcpy(args, info->args, info->args_size);
   l.local_mem_size = cpu_bind(info, args, NULL);
   l.grid.args = args;
   return cpu_launch_run(ctx, &l);
}

static void cpu_get_kernel_info(struct pipe_screen *screen, void *kernel,
                                const struct kiln_kernel_info *meta, struct pipe_kernel_info *out)
{
   const struct cpu_kernel *k = kernel;
   /* Work-items are vectorized in x by the float vector width. */
   cl_uint w = screen->caps.preferred_vector_width[4];
   out->preferred_work_group_size_multiple = w ? w : 1;
   /* A work-group runs on one worker's stack (cpu_tpool.h).  Without the
    * compiler's measure (older binaries), the kernel's own variables. */
   out->private_group_fixed = k && k->stack ? k->stack[KILN_STACK_FIXED]
                              : meta ? meta->private_mem_size
                                     : 0;
   out->private_group_per_item = k && k->stack ? k->stack[KILN_STACK_PER_ITEM] : 0;
   out->private_group_limit = CPU_WORKER_STACK_SIZE - CPU_WORKER_STACK_RESERVE;
   /* As many work-items as their per-item copies leave room for: what
    * CL_KERNEL_WORK_GROUP_SIZE reports, and the most a NULL local size
    * picks.  At least 1; a kernel whose frame alone does not fit is
    * refused at enqueue. */
   if (k && k->max_items && *k->max_items && *k->max_items < out->max_work_group_size)
      out->max_work_group_size = (size_t)*k->max_items;
   uint64_t per = out->private_group_per_item;
   if (per && out->private_group_fixed < out->private_group_limit) {
      uint64_t fit = (out->private_group_limit - out->private_group_fixed) / per;
      if (fit < out->max_work_group_size)
         out->max_work_group_size = fit ? (size_t)fit : 1;
   }
}

void cpu_screen_init_compute_functions(struct pipe_screen *screen)
{
   screen->program_create = cpu_program_create;
   screen->program_destroy = cpu_program_destroy;
   screen->get_kernel = cpu_get_kernel;
   screen->get_kernel_info = cpu_get_kernel_info;
}
