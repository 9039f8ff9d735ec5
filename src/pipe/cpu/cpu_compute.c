/* Programs and launches on the CPU driver: device code is an ELF object
 * that src/llvm's JIT links into the process; a launch hands the kernel's
 * work-group function to the worker pool.  Programs that call printf
 * carry a table of their formats (include/kiln/printf.h): their launches
 * get a printf buffer, printed to stdout when the last group is done,
 * before the launch returns and so before its event completes. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <CL/cl.h>

#include "kiln/bounds.h"
#include "kiln/cpu_abi.h"
#include "kiln/image.h"
#include "kiln/kernel_info.h"
#include "kiln/printf.h"
#include "llvm/cpu/cpu_code.h"
#include "llvm/cpu/jit.h"
#include "pipe/cpu/cpu_bounds.h"
#include "pipe/cpu/cpu_context.h"
#include "pipe/cpu/cpu_devq.h"
#include "pipe/cpu/cpu_kernel.h"
#include "pipe/cpu/cpu_screen.h"
#include "pipe/cpu/cpu_tpool.h"
#include "pipe/pipe_image.h"
#include "util/alloc.h"
#include "util/log.h"
#include "util/printf_format.h"

/* What get_kernel hands out: the work-group function and what a launch
 * of it needs besides.  Owned by the program (the pipe interface has no
 * call that releases a kernel). */
struct cpu_kernel {
   /* Set once fn and stack are: kernels of deferred code
    * (llvm/cpu/cpu_code.h) are compiled at their first launch or query. */
   atomic_bool ready;
   kiln_wg_fn fn;
   /* __kiln_stack_<k>: NULL in binaries from before Kiln recorded it. */
   const uint64_t *stack;
   /* __kiln_max_items_<k>: NULL where the kernel has no limit of its own
    * (only kernels that call sub-group functions have one). */
   const uint64_t *max_items;
   /* __kiln_local_<k>: NULL where the kernel has no __local bytes of its
    * own (launches from core take the size from the description). */
   const uint64_t *local_size;
   /* __kiln_regroup_<k>: NULL unless the kernel may run merged
    * work-groups (src/llvm/cpu/wg_regroup.h). */
   const uint64_t *regroup;
   const struct kiln_printf_table *printf_table; /* NULL: no printf */
   struct cpu_program *program;
   unsigned index; /* in the program's code (deferred code) */
   bool added;     /* its object is in the JIT (deferred code) */
   char *name;     /* whole-program objects: kept per name asked for */
   struct cpu_kernel *next;
};

/* A kernel's name, for finding it by binary search. */
struct cpu_kernel_name {
   const char *name;
   unsigned index;
};

struct cpu_program {
   struct kiln_jit *jit;
   const struct kiln_printf_table *printf_table;
   pthread_mutex_t lock; /* kernels, the JIT, code: one compile at a time */
   /* Deferred code: every kernel, compiled or not, and their names in
     * strcmp order.  NULL for a whole-program object. */
   struct kiln_cpu_code *code;
   struct cpu_kernel *table;
   struct cpu_kernel_name *names;
   unsigned num_kernels;
   bool changed; /* kernels compiled since program_create or program_code */
   struct cpu_kernel *kernels; /* whole-program objects: the ones asked for */
};

/* What the JIT defines for every program: the run-time of bounds checks
 * and of device-side enqueue. */
static struct kiln_jit_symbol runtime_symbols[16];
static unsigned num_runtime_symbols;
static pthread_once_t runtime_symbols_once = PTHREAD_ONCE_INIT;

static void runtime_symbols_init(void)
{
   for (unsigned i = 0; i < cpu_bounds_num_symbols; i++)
      runtime_symbols[num_runtime_symbols++] = cpu_bounds_symbols[i];
   for (unsigned i = 0; i < cpu_devq_num_symbols; i++)
      runtime_symbols[num_runtime_symbols++] = cpu_devq_symbols[i];
}

static const struct kiln_jit_symbol *cpu_runtime_symbols(unsigned *n)
{
   pthread_once(&runtime_symbols_once, runtime_symbols_init);
   *n = num_runtime_symbols;
   return runtime_symbols;
}

static int name_order(const void *a, const void *b)
{
   return strcmp(((const struct cpu_kernel_name *)a)->name,
                 ((const struct cpu_kernel_name *)b)->name);
}

/* Deferred code: the common object loaded, and the objects of kernels
 * already compiled (in a binary or cache entry) added, not yet linked. */
static bool load_deferred(struct cpu_program *p, const void *code, size_t size, char **error)
{
   p->code = kiln_cpu_code_open(code, size, error);
   if (!p->code)
      return false;
   size_t common_size;
   const void *common = kiln_cpu_code_object(p->code, -1, &common_size);
   unsigned nsym;
   const struct kiln_jit_symbol *sym = cpu_runtime_symbols(&nsym);
   p->jit = kiln_jit_load(common, common_size, sym, nsym, error);
   if (!p->jit)
      return false;
   unsigned n = kiln_cpu_code_num_kernels(p->code);
   p->table = kiln_calloc(n ? n : 1, sizeof(*p->table));
   p->names = kiln_calloc(n ? n : 1, sizeof(*p->names));
   if (!p->table || !p->names)
      return false;
   p->num_kernels = n;
   for (unsigned i = 0; i < n; i++) {
      struct cpu_kernel *k = &p->table[i];
      k->program = p;
      k->index = i;
      p->names[i] = (struct cpu_kernel_name){kiln_cpu_code_kernel_name(p->code, i), i};
      size_t osize;
      const void *obj = kiln_cpu_code_object(p->code, (int)i, &osize);
      if (obj && !(k->added = kiln_jit_add(p->jit, obj, osize, error)))
         return false;
   }
   qsort(p->names, n, sizeof(*p->names), name_order);
   return true;
}

static void cpu_program_destroy(struct pipe_screen *screen, void *program);
static void *cpu_get_kernel(struct pipe_screen *screen, void *program, const char *name,
                            char **error);
static void cpu_get_kernel_info(struct pipe_screen *screen, void *kernel,
                                const struct kiln_kernel_info *meta, struct pipe_kernel_info *out);

static void *cpu_program_create(struct pipe_screen *screen, const void *code, size_t size,
                                char **error)
{
   (void)screen;
   struct cpu_program *p = kiln_calloc(1, sizeof(*p));
   if (!p)
      return NULL;
   pthread_mutex_init(&p->lock, NULL);
   unsigned nsym;
   const struct kiln_jit_symbol *sym = cpu_runtime_symbols(&nsym);
   bool ok = kiln_cpu_code_recognize(code, size)
                ? load_deferred(p, code, size, error)
                : (p->jit = kiln_jit_load(code, size, sym, nsym, error)) != NULL;
   if (!ok) {
      cpu_program_destroy(screen, p);
      return NULL;
   }
   /* Absent unless some kernel calls printf. */
   char *missing = NULL;
   p->printf_table = kiln_jit_lookup(p->jit, KILN_PRINTF_TABLE_SYM, &missing);
   kiln_free(missing);
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
   kiln_cpu_code_close(p->code);
   kiln_free(p->table);
   kiln_free(p->names);
   pthread_mutex_destroy(&p->lock);
   kiln_free(p);
}

/* fn and stack of a kernel whose object is in the JIT. */
static bool resolve(struct cpu_program *p, struct cpu_kernel *k, const char *name, char **error)
{
   size_t n = strlen(KILN_WG_PREFIX) + strlen(KILN_STACK_PREFIX) +
              strlen(KILN_MAX_ITEMS_PREFIX) + strlen(KILN_LOCAL_PREFIX) +
              strlen(KILN_REGROUP_PREFIX) + strlen(name) + 1;
   char *sym = kiln_malloc(n);
   if (!sym)
      return false;
   snprintf(sym, n, "%s%s", KILN_WG_PREFIX, name);
   void *fn = kiln_jit_lookup(p->jit, sym, error);
   if (fn) {
      char *missing = NULL;
      snprintf(sym, n, "%s%s", KILN_STACK_PREFIX, name);
      k->stack = kiln_jit_lookup(p->jit, sym, &missing);
      kiln_free(missing);
      missing = NULL;
      snprintf(sym, n, "%s%s", KILN_MAX_ITEMS_PREFIX, name);
      k->max_items = kiln_jit_lookup(p->jit, sym, &missing);
      kiln_free(missing);
      missing = NULL;
      snprintf(sym, n, "%s%s", KILN_LOCAL_PREFIX, name);
      k->local_size = kiln_jit_lookup(p->jit, sym, &missing);
      kiln_free(missing);
      missing = NULL;
      snprintf(sym, n, "%s%s", KILN_REGROUP_PREFIX, name);
      k->regroup = kiln_jit_lookup(p->jit, sym, &missing);
      kiln_free(missing);
      k->fn = (kiln_wg_fn)(uintptr_t)fn;
      k->printf_table = p->printf_table;
   }
   kiln_free(sym);
   return fn != NULL;
}

/* Compiles (cpu_code.h) and adds k's object unless it is there; p->lock
 * held. */
static bool compile_locked(struct cpu_program *p, struct cpu_kernel *k, char **error)
{
   if (k->added)
      return true;
   struct timespec t0, t1;
   clock_gettime(CLOCK_MONOTONIC, &t0);
   if (!kiln_cpu_code_compile(p->code, k->index, error))
      return false;
   size_t size;
   const void *obj = kiln_cpu_code_object(p->code, (int)k->index, &size);
   if (!kiln_jit_add(p->jit, obj, size, error))
      return false;
   k->added = true;
   p->changed = true;
   clock_gettime(CLOCK_MONOTONIC, &t1);
   kiln_log(KILN_LOG_COMPILE, "compiled kernel %s at its first use (%.1f ms)",
            kiln_cpu_code_kernel_name(p->code, k->index),
            (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
   return true;
}

/* A kernel of deferred code made runnable: compiled, linked, its
 * work-group function found.  Once per kernel; concurrent first uses
 * wait for the one compile (OpenCL 1.1 A.2: kernels of one program may
 * be enqueued from several threads). */
static bool cpu_kernel_ready(struct cpu_kernel *k)
{
   if (atomic_load_explicit(&k->ready, memory_order_acquire))
      return true;
   struct cpu_program *p = k->program;
   if (!p)
      return false;
   char *error = NULL;
   pthread_mutex_lock(&p->lock);
   bool ok = atomic_load_explicit(&k->ready, memory_order_relaxed);
   if (!ok) {
      const char *name = kiln_cpu_code_kernel_name(p->code, k->index);
      ok = compile_locked(p, k, &error) && resolve(p, k, name, &error);
      if (ok)
         atomic_store_explicit(&k->ready, true, memory_order_release);
      else
         kiln_log(KILN_LOG_COMPILE, "kernel %s could not be compiled: %s", name,
                  error ? error : "out of host memory");
   }
   pthread_mutex_unlock(&p->lock);
   kiln_free(error);
   return ok;
}

static void *cpu_get_kernel(struct pipe_screen *screen, void *program, const char *name,
                            char **error)
{
   (void)screen;
   struct cpu_program *p = program;
   if (p->code) {
      /* Found, not compiled: that waits for its first use. */
      struct cpu_kernel_name key = {name, 0};
      const struct cpu_kernel_name *hit =
         bsearch(&key, p->names, p->num_kernels, sizeof(*p->names), name_order);
      if (hit)
         return &p->table[hit->index];
      size_t n = strlen(name) + 64;
      *error = kiln_malloc(n);
      if (*error)
         snprintf(*error, n, "no kernel '%s' in the program's code", name);
      return NULL;
   }
   struct cpu_kernel *found = NULL;
   pthread_mutex_lock(&p->lock);
   for (struct cpu_kernel *k = p->kernels; k && !found; k = k->next)
      if (!strcmp(k->name, name))
         found = k;
   if (found) {
      pthread_mutex_unlock(&p->lock);
      return found;
   }
   struct cpu_kernel *k = kiln_calloc(1, sizeof(*k));
   char *copy = kiln_strdup(name);
   if (!k || !copy || !resolve(p, k, name, error)) { /* *error NULL: out of memory */
      kiln_free(k);
      kiln_free(copy);
      pthread_mutex_unlock(&p->lock);
      return NULL;
   }
   k->name = copy;
   k->program = p;
   atomic_store(&k->ready, true);
   k->next = p->kernels;
   p->kernels = k;
   pthread_mutex_unlock(&p->lock);
   return k;
}

static void *cpu_program_code(struct pipe_screen *screen, void *program, bool all_kernels,
                              size_t *size)
{
   (void)screen;
   struct cpu_program *p = program;
   *size = 0;
   if (!p->code)
      return NULL;
   void *out = NULL;
   pthread_mutex_lock(&p->lock);
   for (unsigned i = 0; all_kernels && i < p->num_kernels; i++) {
      char *error = NULL;
      if (!compile_locked(p, &p->table[i], &error))
         kiln_log(KILN_LOG_COMPILE, "kernel %s could not be compiled: %s",
                  kiln_cpu_code_kernel_name(p->code, i), error ? error : "out of host memory");
      kiln_free(error);
   }
   if (p->changed && (out = kiln_cpu_code_write(p->code, size)))
      p->changed = false;
   pthread_mutex_unlock(&p->lock);
   return out;
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

/* Launches of at most REGROUP_MAX_GROUPS work-groups per worker (a GPU
 * program's "enough groups to fill the device", each looping over the
 * data) get merged groups of at most REGROUP_MAX_WIDTH work-items in
 * dimension 0, at least REGROUP_GROUPS_PER_THREAD of them per worker (for
 * the pool to balance them, and so that the launching thread's first
 * group, run before the workers wake, stays a small share).  On the
 * 2-core VM, pyopencl's 8192-item grid-stride launch in groups of 128
 * over 16M floats ran at 15.0 GB/s unmerged, 21.1 at 512 wide, 22.9 at
 * 1024, 21.6 at 2048; a launch of one work-item per element (16M items)
 * lost from 28.9 to 23.7 GB/s merged to 1024, hence the bound on the
 * number of groups (docs/performance.md). */
#define REGROUP_MAX_GROUPS 256u
#define REGROUP_MAX_WIDTH 1024u
#define REGROUP_GROUPS_PER_THREAD 8u

/* grid with its uniform work-groups of dimension 0 merged G at a time,
 * for a kernel that allows it (wg_regroup.h) and a launch of few groups
 * (above): the largest G that divides their number and keeps to the
 * limits above and to what the kernel's work-groups may hold.  Indices
 * must fit 31 bits, as the kernel may compute them in int. */
static struct pipe_grid_info regrouped(struct pipe_context *ctx, const struct cpu_kernel *k,
                                       const struct pipe_grid_info *grid, unsigned threads)
{
   struct pipe_grid_info g = *grid;
   uint64_t l = grid->local_size[0], n = grid->global_size[0];
   if (!k->regroup || !*k->regroup || !l || n % l || l >= REGROUP_MAX_WIDTH ||
       grid->global_offset[0] + n > INT32_MAX)
      return g;
   uint64_t others = 1;
   for (int d = 1; d < 3; d++)
      if (grid->local_size[d])
         others *= (grid->global_size[d] + grid->local_size[d] - 1) / grid->local_size[d];
   uint64_t groups = n / l, best = 1;
   /* Tiny launches (one group: the launch rows' empty kernel) leave here,
    * before the kernel's limits are looked up. */
   if (groups < 2 || groups * others > (uint64_t)threads * REGROUP_MAX_GROUPS)
      return g;
   struct pipe_kernel_info limits = {.max_work_group_size = ctx->screen->caps.max_work_group_size};
   cpu_get_kernel_info(ctx->screen, (void *)k, NULL, &limits);
   uint64_t rest = (uint64_t)grid->local_size[1] * grid->local_size[2];
   for (uint64_t f = 2; f * l <= REGROUP_MAX_WIDTH && f <= groups; f++) {
      if (groups % f || f * l * rest > limits.max_work_group_size ||
          groups / f * others < (uint64_t)threads * REGROUP_GROUPS_PER_THREAD)
         continue;
      best = f;
   }
   g.local_size[0] = best * l;
   return g;
}

int cpu_kernel_run(struct pipe_context *ctx, const struct cpu_kernel *k,
                   const struct pipe_grid_info *grid_in, const void *args, size_t local_mem_size,
                   struct cpu_devq *dq)
{
   struct cpu_tpool *pool = cpu_context_tpool(ctx);
   if (!pool)
      return CL_OUT_OF_RESOURCES;
   /* Compiled at enqueue already (get_kernel_info); a launch that comes
    * another way still gets its code here. */
   if (!cpu_kernel_ready((struct cpu_kernel *)k))
      return CL_OUT_OF_RESOURCES;
   struct pipe_grid_info merged = regrouped(ctx, k, grid_in, cpu_tpool_size(pool));
   const struct pipe_grid_info *grid = &merged;
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
      uint64_t items = (uint64_t)grid->local_size[0] * grid->local_size[1] * grid->local_size[2];
      uint64_t fixed = k->stack[KILN_STACK_FIXED], per = k->stack[KILN_STACK_PER_ITEM];
      size_t left = cpu_tpool_stack_left();
      inline_ok = left > CPU_WORKER_STACK_RESERVE && fixed <= left - CPU_WORKER_STACK_RESERVE &&
                  (!per || items <= (left - CPU_WORKER_STACK_RESERVE - fixed) / per);
   }
   if (inline_ok)
      inline_ok = !atomic_flag_test_and_set(&cctx->inline_busy);
   int err = cpu_tpool_launch(pool, k->fn, grid, args, local_mem_size, buf, dq,
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

int cpu_launch_run(struct pipe_context *ctx, const struct cpu_launch *l)
{
   /* Device-side enqueue: the state of this launch's descendants, which
    * run (cpu_devq_finish) before the launch returns. */
   struct cpu_devq dq;
   cpu_devq_init(&dq, ctx, l->kernel, &l->grid);
   int err = cpu_kernel_run(ctx, l->kernel, &l->grid, l->args, l->local_mem_size, &dq);
   int child_err = cpu_devq_finish(&dq);
   return err ? err : child_err;
}

struct cpu_program *cpu_kernel_program(const struct cpu_kernel *k)
{
   return k->program;
}

struct cpu_kernel *cpu_program_ready_kernel(struct cpu_program *p, const char *name)
{
   char *error = NULL;
   struct cpu_kernel *k = cpu_get_kernel(NULL, p, name, &error);
   kiln_free(error);
   return k && cpu_kernel_ready(k) ? k : NULL;
}

uint64_t cpu_kernel_local_size(const struct cpu_kernel *k)
{
   return k->local_size ? *k->local_size : 0;
}

void cpu_kernel_limits(struct pipe_screen *screen, const struct cpu_kernel *k,
                       struct pipe_kernel_info *out)
{
   *out = (struct pipe_kernel_info){.max_work_group_size = screen->caps.max_work_group_size};
   cpu_get_kernel_info(screen, (void *)k, NULL, out);
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
   /* The stack measure below comes from the compiled code. */
   if (k && !cpu_kernel_ready((struct cpu_kernel *)k))
      k = NULL;
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
   screen->program_code = cpu_program_code;
}
