/* What the files of the work-group pass share (workgroup.h is its face to
 * the rest of src/llvm): the state of one work-group function being built,
 * the work-item functions it recognises, and each file's step.
 *
 *   workgroup.c     signature, argument unpacking, launch-context access,
 *                   the order of the steps (kiln_wg_finish)
 *   wg_work_item.c  work-item functions and barrier(): names, lowering
 *   wg_inline.c     always-inline marking before the pass
 *   wg_remat.c      rematerialising work-item values before reg2mem
 *   wg_local.c      __local variables into the work-group's arena
 *   wg_loops.c      loop nests over the work-items; barrier-free kernels
 *   wg_regions.c    kernels with barriers: regions and their dispatcher
 *   wg_once.c       regions the group runs once, uniform variables
 *   wg_private.c    a slot per work-item for variables live across barriers
 *   wg_graph.c      reverse post-order, dominators and natural loops
 *   wg_loop_split.c barriers around the uniform control of loops with one
 *   wg_interchange.c barriers that put uniform loops outside the
 *                   work-item loop (own header: wg_interchange.h)
 *   wg_predicate.c  loops with varying trip counts in step (own header)
 *   wg_jam.c        row loops run by blocks of work-items interleaved
 *                   (own header: wg_jam.h)
 *   wg_jam_wide.c   such rows read 8 elements at a time (own header:
 *                   wg_jam_wide.h)
 *   wg_jam_transpose.c  a jammed round's rows transposed in registers
 *                   (own header: wg_jam_transpose.h)
 */
#ifndef KILN_LLVM_CPU_WG_INTERNAL_H
#define KILN_LLVM_CPU_WG_INTERNAL_H

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <stdbool.h>
#include <stdint.h>

#include "kiln/cpu_abi.h"
#include "llvm/cpu/value_map.h"
#include "llvm/cpu/wg_liveness.h"
#include "llvm/cpu/wg_uniform.h"
#include "llvm/cpu/workgroup.h"

/* Work-item functions and barriers, as Clang mangles them. */
enum kiln_wi_fn {
   WI_GLOBAL_ID,
   WI_LOCAL_ID,
   WI_GROUP_ID,
   WI_GLOBAL_SIZE,
   WI_LOCAL_SIZE,
   WI_NUM_GROUPS,
   WI_GLOBAL_OFFSET,
   WI_WORK_DIM,
   WI_ENQUEUED_LOCAL_SIZE,
   WI_SCRATCH, /* the collectives' scratch area (builtins/collective.cl) */
   /* Where the generic address space's builtins (builtins/generic.cl)
    * find the work-group's __local block and private stack. */
   WI_LOCAL_MEM,      /* ctx->local_mem as an integer */
   WI_LOCAL_MEM_SIZE, /* ctx->local_mem_size */
   WI_PRIVATE_TOP,    /* the work-group function's return-address slot */
   WI_CTX, /* KILN_WG_CTX_FN */
   WI_SUB_GROUP, /* marks a sub-group function (builtins/collective.cl) */
   WI_BARRIER,
   WI_MEM_FENCE,
   WI_READ_MEM_FENCE,
   WI_WRITE_MEM_FENCE,
   WI_COUNT,
   WI_NONE = WI_COUNT,
};

/* Indexed by enum kiln_wi_fn. */
extern const char *const kiln_wi_names[WI_COUNT];

/* One work-group function being built. */
struct kiln_wg {
   LLVMModuleRef m;
   LLVMContextRef c;
   LLVMTargetDataRef td;
   LLVMBuilderRef b;
   LLVMValueRef fn, kernel;
   LLVMTypeRef i32, i64, i8, ptr, ctx_type;
   LLVMBasicBlockRef setup, body;
   LLVMValueRef args, wctx;
   LLVMValueRef lid;       /* [3 x i64] alloca: this work-item's local id */
   LLVMValueRef next;      /* i32 alloca: region the work-items go to next */
   /* i8 array alloca of setup, (wg_items + 1) * 8 bytes: the scratch area
    * of the work-group collectives; NULL until a call asks for it. */
   LLVMValueRef scratch;
   /* i64 of setup: the address of the work-group function's return
    * address; NULL until a call asks for it. */
   LLVMValueRef private_top;
   bool sub_groups;        /* the kernel calls a sub-group function */
   LLVMValueRef lsize[3];  /* local sizes, loaded in setup */
   LLVMValueRef wg_items;  /* product of the local sizes */
   /* Stack bytes of the per-work-item slots (wg_private.c): a group of n
    * work-items takes n * private_per_item + private_pad of it. */
   uint64_t private_per_item, private_pad;
   bool oom;               /* an allocation failed: the result is unusable */
};

/* ---- wg_work_item.c ---- */

/* WI_NONE for anything but a call of a work-item function or barrier. */
enum kiln_wi_fn kiln_wi_kind(LLVMValueRef call);
bool kiln_wg_is_call(LLVMValueRef inst);
/* The calling convention of the existing calls of fn (C when none), for
 * the calls a pass adds. */
LLVMCallConv kiln_wg_call_conv(LLVMValueRef fn);
/* A new block before `before` holding only a barrier call and a branch to
 * `to`: the shape the work-group pass cuts regions at.  The caller points
 * edges at it. */
LLVMBasicBlockRef kiln_wg_barrier_block(LLVMValueRef barrier_fn, LLVMCallConv cc,
                                        LLVMBasicBlockRef before, LLVMBasicBlockRef to);
/* A call of a function whose name starts with prefix ("llvm.lifetime."). */
bool kiln_wg_is_intrinsic_call(LLVMValueRef inst, const char *prefix);
/* Lowers every work-item function call; fences vanish (a work-group runs
 * on one thread).  Barrier calls stay: they delimit regions.  Returns the
 * number of barriers. */
unsigned kiln_wg_lower_work_items(struct kiln_wg *w);

/* ---- workgroup.c: the launch context (include/kiln/cpu_abi.h) ---- */

/* Pointer to ctx->field[idx] (idx NULL for scalar fields), at the
 * builder's position. */
LLVMValueRef kiln_wg_ctx_field(struct kiln_wg *w, enum kiln_wg_ctx_field field,
                               LLVMValueRef idx);
LLVMValueRef kiln_wg_load_i64(struct kiln_wg *w, LLVMValueRef p);
/* Pointer to this work-item's local id in dimension idx. */
LLVMValueRef kiln_wg_lid_ptr(struct kiln_wg *w, LLVMValueRef idx);

/* ---- wg_local.c ---- */

/* Places the kernel's __local variables in the work-group's arena;
 * returns their total size. */
uint64_t kiln_wg_place_local_variables(struct kiln_wg *w);

/* ---- wg_loops.c ---- */

/* Builds, for one region, the nest
 *    for z, for y, for x: lid = (x, y, z); <body>
 * Returns the nest's entry block; the body must branch to *latch when a
 * work-item is done, and the nest continues at done. */
LLVMBasicBlockRef kiln_wg_loop_nest(struct kiln_wg *w, LLVMBasicBlockRef body,
                                    LLVMBasicBlockRef done, LLVMBasicBlockRef *latch);
/* Without barriers the body runs as is, once per work-item. */
void kiln_wg_build_single_region(struct kiln_wg *w);

/* ---- wg_trim.c ---- */

/* Where the region whose nest starts at `nest` and whose body (blocks,
 * entry first among them) starts at entry begins with `if (lid.x < U)`,
 * U the same for the whole group, and the work-items that fail it only
 * reach the region's barrier: its x loop stops at U.  Returns whether it
 * did. */
bool kiln_wg_trim_region(struct kiln_wg *w, LLVMBasicBlockRef nest, LLVMBasicBlockRef entry,
                         LLVMBasicBlockRef latch, LLVMBasicBlockRef *blocks, unsigned n);

/* ---- wg_private.c ---- */

/* An alloca only ever written in setup holds a value common to the whole
 * work-group (an argument, a size): one slot serves every work-item. */
bool kiln_wg_setup_only(struct kiln_wg *w, LLVMValueRef a);
/* Gives every work-item its own copy of each private variable that must
 * survive a barrier (cfg: wg_liveness.h; NULL: every variable).  Allocas
 * in `shared` (may be NULL) keep one slot for the group.  Sets w->oom
 * rather than privatising only some. */
void kiln_wg_privatize(struct kiln_wg *w, const struct kiln_wg_cfg *cfg,
                       const struct kiln_value_map *shared);

/* ---- wg_once.c ---- */

/* Chooses the regions to run once (once[r]) and the uniform private
 * variables that keep one slot for the group (into `shared`). */
void kiln_wg_plan_uniform(struct kiln_wg *w, const struct kiln_wg_cfg *cfg,
                          const struct kiln_wg_uniform *u, bool *once,
                          struct kiln_value_map *shared);

/* ---- wg_regions.c ---- */

/* Replaces the body (every block but setup) by one work-item loop nest per
 * region and a dispatcher that follows the barrier the work-items reached.
 * False when the function has a shape Kiln cannot transform (or w->oom). */
bool kiln_wg_build_regions(struct kiln_wg *w, unsigned num_barriers);

#endif
