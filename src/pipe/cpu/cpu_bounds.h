/* The CPU driver's run-time for KILN_CHECK=bounds: what checked kernel
 * code calls (include/kiln/cpu_abi.h), and running a work-group so that a
 * failed check can leave it. */
#ifndef KILN_PIPE_CPU_BOUNDS_H
#define KILN_PIPE_CPU_BOUNDS_H

#include <stdbool.h>

#include "kiln/cpu_abi.h"
#include "llvm/cpu/jit.h"

/* The functions checked code calls, for the JIT to define. */
extern const struct kiln_jit_symbol cpu_bounds_symbols[];
extern const unsigned cpu_bounds_num_symbols;

/* Runs one work-group of a launch with a bounds table (ctx->bounds);
 * false when an access failed its check, which ended the group there. */
bool cpu_bounds_run_group(kiln_wg_fn fn, const void *args, const struct kiln_wg_ctx *ctx);

#endif
