/* §6.11.10 wait_group_events.
 *
 * Compiled as OpenCL C 2.0 (see meson.build): Clang's builtin declarations
 * give its event list a __generic pointer, even for OpenCL C 1.1 kernels
 * (_Z17wait_group_eventsiPU9CLgeneric9ocl_event), and only 2.0 can spell
 * that address space.
 *
 * The async copies are done by the time they return, by each work-item
 * for its share (async.cl); waiting is a barrier so that every share is in
 * place before any work-item reads the destination.  always_inline: the
 * barrier must sit in the kernel body for Kiln's work-group pass. */
#include "kiln_cl.h"

__attribute__((overloadable, always_inline))
void wait_group_events(int n, __generic event_t *events)
{
   (void)n;
   (void)events;
   barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}
