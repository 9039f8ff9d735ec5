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

#include "kiln/cpu_abi.h"
#include "kiln/printf.h"
#include "llvm/cpu/jit.h"
#include "pipe/cpu/cpu_bounds.h"
#include "pipe/cpu/cpu_screen.h"
#include "pipe/cpu/cpu_tpool.h"
#include "util/alloc.h"
#include "util/printf_format.h"

/* What get_kernel hands out: the work-group function and what a launch
 * of it needs besides.  Owned by the program, which keeps one per name
 * (the pipe interface has no call that releases a kernel). */
struct cpu_kernel {
   kiln_wg_fn fn;
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
   size_t n = strlen(KILN_WG_PREFIX) + strlen(name) + 1;
   char *sym = kiln_malloc(n);
   struct cpu_kernel *k = kiln_calloc(1, sizeof(*k));
   char *copy = kiln_strdup(name);
   void *fn = NULL;
   if (sym && k && copy) {
      snprintf(sym, n, "%s%s", KILN_WG_PREFIX, name);
      fn = kiln_jit_lookup(p->jit, sym, error);
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

int cpu_launch_grid(struct pipe_context *ctx, const struct pipe_grid_info *info)
{
   struct cpu_tpool *pool = cpu_context_tpool(ctx);
   if (!pool)
      return CL_OUT_OF_RESOURCES;
   const struct cpu_kernel *k = info->kernel;
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
   int err = cpu_tpool_launch(pool, k->fn, info, buf) ? CL_OUT_OF_RESOURCES : CL_SUCCESS;
   if (buf) {
      kiln_printf_print(k->printf_table, buf, stdout);
      kiln_free(buf);
   }
   return err;
}

void cpu_screen_init_compute_functions(struct pipe_screen *screen)
{
   screen->program_create = cpu_program_create;
   screen->program_destroy = cpu_program_destroy;
   screen->get_kernel = cpu_get_kernel;
}
