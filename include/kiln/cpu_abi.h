/* The calling convention between kernels compiled for the CPU device
 * (src/llvm/workgroup.c generates the code) and the CPU pipe driver that
 * calls them (src/pipe/cpu).  Both sides must agree on every offset here.
 *
 * Each kernel <k> becomes a work-group function
 *     void __kiln_wg_<k>(const void *args, const struct kiln_wg_ctx *ctx)
 * that runs all work-items of one work-group.  args holds the kernel's
 * arguments at the offsets recorded in the kernel's metadata: global and
 * constant buffers as pointers, __local arguments as byte offsets into
 * ctx->local_mem, everything else by value.
 */
#ifndef KILN_CPU_ABI_H
#define KILN_CPU_ABI_H

#include <stdint.h>

#define KILN_WG_PREFIX "__kiln_wg_"

struct kiln_wg_ctx {
   uint64_t global_offset[3];  /* offset 0 */
   uint64_t global_size[3];    /* 24 */
   uint64_t local_size[3];     /* 48 */
   uint64_t num_groups[3];     /* 72 */
   uint64_t group_id[3];       /* 96 */
   char *local_mem;            /* 120: this work-group's __local arena */
   uint32_t work_dim;          /* 128 */
   uint32_t pad;
};

/* Field indices as the LLVM struct type sees them (workgroup.c). */
enum kiln_wg_ctx_field {
   KILN_CTX_GLOBAL_OFFSET,
   KILN_CTX_GLOBAL_SIZE,
   KILN_CTX_LOCAL_SIZE,
   KILN_CTX_NUM_GROUPS,
   KILN_CTX_GROUP_ID,
   KILN_CTX_LOCAL_MEM,
   KILN_CTX_WORK_DIM,
};

typedef void (*kiln_wg_fn)(const void *args, const struct kiln_wg_ctx *ctx);

#endif
