/* Programs and launches on the CPU driver: device code is an ELF object
 * that src/llvm's JIT links into the process; a launch hands the kernel's
 * work-group function to the worker pool. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CL/cl.h>

#include "kiln/cpu_abi.h"
#include "llvm/jit.h"
#include "pipe/cpu/cpu_bounds.h"
#include "pipe/cpu/cpu_screen.h"
#include "pipe/cpu/cpu_tpool.h"
#include "util/alloc.h"

static void *cpu_program_create(struct pipe_screen *screen, const void *code, size_t size,
                                char **error)
{
   (void)screen;
   return kiln_jit_load(code, size, cpu_bounds_symbols, cpu_bounds_num_symbols, error);
}

static void cpu_program_destroy(struct pipe_screen *screen, void *program)
{
   (void)screen;
   kiln_jit_destroy(program);
}

static void *cpu_get_kernel(struct pipe_screen *screen, void *program, const char *name,
                            char **error)
{
   (void)screen;
   size_t n = strlen(KILN_WG_PREFIX) + strlen(name) + 1;
   char *sym = kiln_malloc(n);
   if (!sym)
      return NULL; /* *error stays NULL: out of host memory */
   snprintf(sym, n, "%s%s", KILN_WG_PREFIX, name);
   void *fn = kiln_jit_lookup(program, sym, error);
   kiln_free(sym);
   return fn;
}

int cpu_launch_grid(struct pipe_context *ctx, const struct pipe_grid_info *info)
{
   struct cpu_tpool *pool = cpu_context_tpool(ctx);
   if (!pool)
      return CL_OUT_OF_RESOURCES;
   kiln_wg_fn fn = (kiln_wg_fn)(uintptr_t)info->kernel;
   return cpu_tpool_launch(pool, fn, info) ? CL_OUT_OF_RESOURCES : CL_SUCCESS;
}

void cpu_screen_init_compute_functions(struct pipe_screen *screen)
{
   screen->program_create = cpu_program_create;
   screen->program_destroy = cpu_program_destroy;
   screen->get_kernel = cpu_get_kernel;
}
