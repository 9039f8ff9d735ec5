/* KILN_CHECK=bounds on the CPU device: the run-time functions checked
 * kernel code calls (include/kiln/cpu_abi.h).
 *
 * A failed check calls bounds_fail, which records the first violation of
 * the launch in its bounds table and longjmps out of the work-group
 * function back to cpu_bounds_run_group: the access never happens, the
 * work-group ends there, and the worker pool starts no further groups of
 * the launch (cpu_tpool.c).  Work-group functions hold no resources (their
 * per-work-item state is on the worker's stack, their __local memory is
 * the worker's arena), so leaving one midway is safe.  Core reports the
 * violation once the launch is over (src/core/ndrange.c).
 */
#include "pipe/cpu/cpu_bounds.h"

#include <setjmp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "kiln/bounds.h"
#include "llvm/cpu/jit.h"
#include "util/tls.h"

/* The work-group this thread runs under checks. */
static _Thread_local jmp_buf *current_group KILN_TLS_MODEL;

static unsigned space_of(uint32_t flags)
{
   return (flags >> KILN_BOUNDS_AS_SHIFT) & 0xffu;
}

/* Whether [addr, addr + size) lies in [base, base + limit). */
static bool inside(uint64_t addr, uint64_t size, uint64_t base, uint64_t limit)
{
   uint64_t off = addr - base;
   return addr >= base && off <= limit && size <= limit - off;
}

static int32_t bounds_find(const struct kiln_wg_ctx *ctx, uint64_t addr, uint64_t size,
                           uint32_t flags)
{
   const struct kiln_bounds *b = ctx->bounds;
   if (space_of(flags) == 3)
      return inside(addr, size, (uint64_t)(uintptr_t)ctx->local_mem, b->local_total);
   if (b->flags & KILN_BOUNDS_SVM)
      return 1;
   /* A buffer may be bound both as __global and as __constant. */
   for (uint32_t i = 0; i < b->num_args; i++) {
      const struct kiln_bounds_arg *a = &b->args[i];
      if ((a->space == 1 || a->space == 2) && inside(addr, size, a->base, a->size))
         return 1;
   }
   return 0;
}

/* An address no check could tie to an argument: name the nearest object
 * of its address space, which is almost always the one the kernel meant. */
static void locate(const struct kiln_wg_ctx *ctx, struct kiln_bounds_violation *v)
{
   const struct kiln_bounds *b = ctx->bounds;
   unsigned space = space_of(v->flags);
   uint64_t addr = (uint64_t)v->offset;
   if (space == 3)
      addr -= (uint64_t)(uintptr_t)ctx->local_mem;
   uint64_t best = UINT64_MAX;
   for (uint32_t i = 0; i < b->num_args; i++) {
      const struct kiln_bounds_arg *a = &b->args[i];
      if (space == 3 ? a->space != 3 : a->space != 1 && a->space != 2)
         continue;
      uint64_t dist = addr < a->base ? a->base - addr
                      : addr - a->base >= a->size ? addr - a->base - a->size
                                                  : 0;
      if (dist < best) {
         best = dist;
         v->what = (int32_t)i;
         v->offset = (int64_t)(addr - a->base);
         v->limit = a->size;
      }
   }
}

static _Noreturn void bounds_fail(const struct kiln_wg_ctx *ctx, int32_t what, int64_t offset,
                                  uint64_t size, uint64_t limit, uint32_t flags,
                                  const char *name, uint64_t lid0, uint64_t lid1, uint64_t lid2)
{
   struct kiln_bounds *b = ctx->bounds;
   if (atomic_fetch_add(&b->violations, 1) == 0) {
      struct kiln_bounds_violation *v = &b->first;
      v->what = what;
      v->flags = flags;
      v->offset = offset;
      v->size = size;
      v->limit = limit;
      v->name = name;
      uint64_t lid[3] = {lid0, lid1, lid2};
      for (int d = 0; d < 3; d++) {
         v->group_id[d] = ctx->group_id[d];
         v->global_id[d] = ctx->group_id[d] * ctx->local_size[d] + lid[d] + ctx->global_offset[d];
      }
      if (what == KILN_BOUNDS_UNKNOWN)
         locate(ctx, v);
   }
   if (!current_group) {
      /* Checked code outside cpu_bounds_run_group: a Kiln bug. */
      fprintf(stderr, "kiln: bounds: out-of-bounds access outside a checked launch\n");
      abort();
   }
   longjmp(*current_group, 1);
}

const struct kiln_jit_symbol cpu_bounds_symbols[] = {
   {KILN_BOUNDS_FAIL_FN, (void (*)(void))bounds_fail},
   {KILN_BOUNDS_FIND_FN, (void (*)(void))bounds_find},
};
const unsigned cpu_bounds_num_symbols = sizeof(cpu_bounds_symbols) / sizeof(cpu_bounds_symbols[0]);

bool cpu_bounds_run_group(kiln_wg_fn fn, const void *args, const struct kiln_wg_ctx *ctx)
{
   jmp_buf group;
   jmp_buf *outer = current_group;
   if (setjmp(group)) {
      current_group = outer;
      return false;
   }
   current_group = &group;
   fn(args, ctx);
   current_group = outer;
   return true;
}
