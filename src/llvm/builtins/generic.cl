/* OpenCL C 3.0 §6.7 (generic address space) on the CPU device:
 * to_global, to_local, to_private (§6.15.10 address space qualifier
 * functions), get_fence, and the __generic overloads of the math
 * functions with a pointer argument (frexp, modf, fract, lgamma_r, sincos,
 * remquo).  The other __generic overloads (vload*, vstore*, the C11
 * atomics) come from their own files compiled a second time with
 * KILN_GENERIC_AS (meson.build).
 *
 * Compiled as OpenCL C 3.0 with __opencl_c_generic_address_space, as a
 * kernel of the device is, so that each definition gets the mangled name
 * of Clang's declaration (_Z5fractfPU9CLgenericf) and Clang's runtime
 * names for the address space functions (__to_global and so on).
 *
 * Where each space lives (docs/kernels.md, "Generic address space"):
 *
 *   __local    the work-group's block of the worker's __local arena:
 *              [ctx->local_mem, ctx->local_mem + ctx->local_mem_size),
 *              the kernel's __local variables and then its __local
 *              arguments, as src/pipe/cpu/cpu_compute.c binds them and
 *              src/llvm/cpu/wg_local.c places the variables.
 *   __private  the stack of the thread running the work-group, between
 *              the current stack pointer (less the 128-byte red zone of
 *              the x86-64 ABI, where a leaf function may keep its locals)
 *              and the work-group function's return-address slot: the
 *              kernel's variables, the per-work-item copies kept across
 *              barriers and the frames of called functions all lie there
 *              (src/llvm/cpu/wg_work_item.c, private_top).
 *   __global   every other address: buffers, SVM, program-scope
 *              variables.  (__constant data cannot be cast to generic.)
 *
 * Both ranges are read from the running work-group, never guessed from an
 * address's value, so to_private of a __local pointer and to_local of a
 * private one are NULL whatever the arena's or the stack's placement.
 * The three helpers are work-item functions that the work-group pass
 * lowers (src/llvm/cpu/wg_work_item.c); a function calling them is
 * inlined into the kernel like every caller of get_local_id. */
#include "kiln_cl.h"

ulong __kiln_wg_local_mem(void);
ulong __kiln_wg_local_mem_size(void);
ulong __kiln_wg_private_top(void);
/* generic_glue.ll: the stack pointer where it is called. */
ulong __kiln_stack_pointer(void);

#define KILN_RED_ZONE 128

static inline __attribute__((always_inline)) bool kiln_is_local(const __generic void *p)
{
   ulong a = (ulong)p;
   /* Unsigned: an address below the block wraps to a large offset. */
   return a - __kiln_wg_local_mem() < __kiln_wg_local_mem_size();
}

static inline __attribute__((always_inline)) bool kiln_is_private(const __generic void *p)
{
   ulong a = (ulong)p;
   return a >= __kiln_stack_pointer() - KILN_RED_ZONE && a < __kiln_wg_private_top();
}

__global void *__to_global(__generic void *p)
{
   return p && !kiln_is_local(p) && !kiln_is_private(p) ? (__global void *)p : NULL;
}

__local void *__to_local(__generic void *p)
{
   return p && kiln_is_local(p) ? (__local void *)p : NULL;
}

__private void *__to_private(__generic void *p)
{
   return p && kiln_is_private(p) ? (__private void *)p : NULL;
}

/* A fence on __local for __local memory, on __global for the rest:
 * private memory is seen by its own work-item only, for which any fence
 * is valid, and the __global one is what a work-item sharing such a
 * pointer would need were it global. */
OVL cl_mem_fence_flags get_fence(__generic void *p)
{
   return kiln_is_local(p) ? CLK_LOCAL_MEM_FENCE : CLK_GLOBAL_MEM_FENCE;
}

OVL cl_mem_fence_flags get_fence(const __generic void *p)
{
   return kiln_is_local(p) ? CLK_LOCAL_MEM_FENCE : CLK_GLOBAL_MEM_FENCE;
}

/* The math functions with an output pointer: the __private forms
 * (math_ptr.cl, half_math.cl) are declared here, since Clang declares only
 * the __generic ones in this mode, and called with the pointer cast to
 * __private.  That cast keeps the address: on the CPU every space is the
 * host's flat memory, and the __private bodies are plain stores. */
#define GEN_PTR_N(R, T, P, F, n) \
  OVL R##n F(T##n x, __private P##n *o); \
  OVL R##n F(T##n x, __generic P##n *o) { return F(x, (__private P##n *)o); }
#define GEN_PTR(R, T, P, F) \
  GEN_PTR_N(R, T, P, F, ) GEN_PTR_N(R, T, P, F, 2) GEN_PTR_N(R, T, P, F, 3) \
  GEN_PTR_N(R, T, P, F, 4) GEN_PTR_N(R, T, P, F, 8) GEN_PTR_N(R, T, P, F, 16)
#define GEN_PTR2_N(R, T, P, F, n) \
  OVL R##n F(T##n x, T##n y, __private P##n *o); \
  OVL R##n F(T##n x, T##n y, __generic P##n *o) { return F(x, y, (__private P##n *)o); }
#define GEN_PTR2(R, T, P, F) \
  GEN_PTR2_N(R, T, P, F, ) GEN_PTR2_N(R, T, P, F, 2) GEN_PTR2_N(R, T, P, F, 3) \
  GEN_PTR2_N(R, T, P, F, 4) GEN_PTR2_N(R, T, P, F, 8) GEN_PTR2_N(R, T, P, F, 16)

#define GEN_FUNCS(T) \
  GEN_PTR(T, T, int, frexp) GEN_PTR(T, T, T, modf) GEN_PTR(T, T, T, fract) \
  GEN_PTR(T, T, int, lgamma_r) GEN_PTR(T, T, T, sincos) GEN_PTR2(T, T, int, remquo)
GEN_FUNCS(float)
GEN_FUNCS(double)
#ifdef cl_khr_fp16
GEN_FUNCS(half)
#endif
