/* KILN_CHECK=bounds: the bounds table of one launch (docs/env.md).
 *
 * Core fills it for each NDRange launch when checks are on
 * (src/core/ndrange.c); the code src/llvm/cpu/bounds_check.c puts before every
 * __global, __constant and __local access reads it through the launch
 * context (struct kiln_wg_ctx::bounds on the CPU device); the device's
 * run-time records the first access that falls outside its object, stops
 * the launch, and core reports it.  The generated code reads only
 * `args` and `args[i].size` (offsets taken from this header with
 * offsetof); everything else belongs to C code.
 */
#ifndef KILN_BOUNDS_H
#define KILN_BOUNDS_H

#include <stdatomic.h>
#include <stdint.h>

/* One kernel argument.  __global/__constant: the buffer's first byte and
 * its size (0 and 0 for a NULL buffer); __local: its byte offset in the
 * work-group's arena and the size given to clSetKernelArg; other kinds:
 * zeros (never checked). */
struct kiln_bounds_arg {
   uint64_t base;
   uint64_t size;
   uint32_t space; /* 1 __global, 2 __constant, 3 __local; 0: not a pointer */
   uint32_t pad;
};

/* kiln_bounds_violation::what, besides an argument index. */
#define KILN_BOUNDS_UNKNOWN (-1)  /* the address is in no object of the launch */
#define KILN_BOUNDS_VARIABLE (-2) /* a program-scope __constant or __global, or a __local variable */

/* kiln_bounds_violation::flags and the flags the generated code passes. */
#define KILN_BOUNDS_WRITE 1u      /* a store (or the destination of a copy) */
#define KILN_BOUNDS_ATOMIC 2u     /* an atomic read-modify-write */
#define KILN_BOUNDS_SEARCHED 4u   /* the pointer's origin was not known at
                                   * compile time: the address was looked up
                                   * among the launch's objects */
#define KILN_BOUNDS_AS_SHIFT 8    /* bits 8..15: the address space (1 global,
                                   * 2 constant, 3 local) */

struct kiln_bounds_violation {
   int32_t what;        /* argument index, or KILN_BOUNDS_UNKNOWN/_VARIABLE */
   uint32_t flags;
   int64_t offset;      /* bytes from the object's first byte; UNKNOWN: the address */
   uint64_t size;       /* bytes accessed */
   uint64_t limit;      /* bytes the object has */
   const char *name;    /* VARIABLE: its name (in the program's code) */
   uint64_t global_id[3];
   uint64_t group_id[3];
};

#define KILN_BOUNDS_SVM 1u

struct kiln_bounds {
   struct kiln_bounds_arg *args; /* one per kernel argument; the driver writes base */
   uint32_t num_args;
   /* KILN_BOUNDS_SVM: the kernel has SVM arguments, so __global and
    * __constant addresses of unknown origin (pointers read from memory)
    * may be anywhere in the host's memory: they are not checked. */
   uint32_t flags;
   uint64_t local_total;  /* __local bytes of a work-group (its arena) */
   /* Written by the device's run-time during the launch. */
   atomic_uint violations; /* how many work-items hit one before the stop */
   struct kiln_bounds_violation first;
};

#endif
