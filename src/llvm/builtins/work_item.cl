/* The OpenCL C 2.0/3.0 work-item functions and work_group_barrier, built
 * from the 1.x ones.  They call barrier(), get_local_id() and the other
 * work-item functions, so Kiln's work-group pass inlines them into the
 * kernel (wg_inline.c) and lowers those calls there, as it does for a
 * kernel's own.  Compiled as OpenCL C 3.0: memory_scope is a 2.0 type. */
#include "kiln_cl.h"

/* A work-group's work-items run on one thread, which the barrier's
 * regions order; the scope asks for nothing more. */
OVL void work_group_barrier(cl_mem_fence_flags flags, memory_scope scope)
{
   (void)scope;
   barrier(flags);
}

OVL void work_group_barrier(cl_mem_fence_flags flags)
{
   barrier(flags);
}

/* get_enqueued_local_size is a work-item function of the work-group
 * pass (wg_work_item.c), like get_local_size: not defined here. */

#include "linear_ids.h"
