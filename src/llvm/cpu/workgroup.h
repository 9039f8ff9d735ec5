/* Turns an OpenCL kernel into a CPU work-group function: one function
 * that runs every work-item of a work-group as loops, so LLVM can
 * vectorize across work-items (include/kiln/cpu_abi.h has the ABI).
 *
 * Kernels without barrier() become one loop nest around the kernel body.
 * Kernels with barriers are cut at each barrier into regions; every region
 * runs as its own loop nest over the work-items, and a dispatcher picks the
 * next region by the barrier the work-items stopped at (all work-items of
 * a group reach the same barrier, as the spec requires).  Values a
 * work-item keeps across a barrier live in per-work-item slots.
 */
#ifndef KILN_LLVM_WORKGROUP_H
#define KILN_LLVM_WORKGROUP_H

#include <llvm-c/Core.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kiln_kernel_info;

/* Step 1: adds __kiln_wg_<name>, which reads the kernel's arguments from
 * the buffer layout in info and calls the kernel once.  NULL when out of
 * memory. */
LLVMValueRef kiln_wg_create(LLVMModuleRef m, LLVMValueRef kernel,
                            const struct kiln_kernel_info *info);

enum kiln_wg_status {
   KILN_WG_OK,
   KILN_WG_UNSUPPORTED,   /* the code has a shape Kiln cannot transform */
   KILN_WG_OUT_OF_MEMORY, /* fn is left half-transformed: drop the module */
};

/* Step 2, once the always-inline pass has put the kernel into fn (and, for
 * kernels with barriers, reg2mem has demoted values crossing blocks to
 * memory): builds the work-item loops, and records the kernel's static
 * __local size in info. */
enum kiln_wg_status kiln_wg_finish(LLVMModuleRef m, LLVMValueRef fn,
                                   struct kiln_kernel_info *info);

/* Step 3, on the optimised module before code generation: completes each
 * kernel's __kiln_stack_<k> (include/kiln/cpu_abi.h) with the frames its
 * work-group function has now.  False when out of memory. */
bool kiln_wg_measure_stack(LLVMModuleRef m);

/* Work-item functions, barrier() and fences: the calls this pass
 * replaces, which no library defines. */
bool kiln_wg_is_work_item_function(const char *name);

/* Before reg2mem on a function with barriers: recomputes work-item values
 * (get_local_id, get_global_id, ...) and pure expressions of them in every
 * block that uses them, so they are not carried across barriers in
 * per-work-item slots. */
void kiln_wg_rematerialize(LLVMValueRef fn);

/* Before reg2mem on a function with barriers: leaves every barrier call
 * last in its block, before an unconditional branch, so values crossing
 * a barrier cross blocks and reg2mem puts them in memory. */
void kiln_wg_isolate_barriers(LLVMValueRef fn);

/* Whether fn (after inlining) calls barrier(). */
bool kiln_wg_has_barrier(LLVMValueRef fn);

/* Marks every function that (directly or not) calls barrier() or a
 * work-item function always-inline, so the work-group function sees all
 * of them in its own body. */
void kiln_wg_mark_inlining(LLVMModuleRef m);

#endif
