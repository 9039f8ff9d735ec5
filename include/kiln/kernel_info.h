/* What core knows of a compiled kernel: its arguments and attributes.
 * Produced by src/llvm from the kernel's IR metadata, stored in program
 * binaries, read by core to validate clSetKernelArg and to lay out the
 * argument buffer of a launch. */
#ifndef KILN_KERNEL_INFO_H
#define KILN_KERNEL_INFO_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

enum kiln_arg_kind {
   KILN_ARG_VALUE,    /* by value: scalars, vectors, structs */
   KILN_ARG_GLOBAL,   /* __global pointer: a cl_mem */
   KILN_ARG_CONSTANT, /* __constant pointer: a cl_mem */
   KILN_ARG_LOCAL,    /* __local pointer: a size, no value */
   KILN_ARG_SAMPLER,
   KILN_ARG_IMAGE2D,
   KILN_ARG_IMAGE3D,
   /* OpenCL 1.2 image types (after the 1.1 ones: stored binaries keep
    * their numbers). */
   KILN_ARG_IMAGE1D,
   KILN_ARG_IMAGE1D_BUFFER,
   KILN_ARG_IMAGE1D_ARRAY,
   KILN_ARG_IMAGE2D_ARRAY,
   KILN_ARG_KIND_LAST = KILN_ARG_IMAGE2D_ARRAY,
};

static inline int kiln_arg_is_image(enum kiln_arg_kind k)
{
   return k == KILN_ARG_IMAGE2D || k == KILN_ARG_IMAGE3D ||
          (k >= KILN_ARG_IMAGE1D && k <= KILN_ARG_IMAGE2D_ARRAY);
}

struct kiln_arg_info {
   enum kiln_arg_kind kind;
   uint32_t size;   /* bytes clSetKernelArg must be given (VALUE); else slot size */
   uint32_t offset; /* of the argument's slot in the argument buffer */
   uint32_t address_qualifier; /* CL_KERNEL_ARG_ADDRESS_* */
   uint32_t access_qualifier;  /* CL_KERNEL_ARG_ACCESS_* */
   uint64_t type_qualifier;    /* CL_KERNEL_ARG_TYPE_* bits */
   char *type_name;
   char *name;
};

struct kiln_kernel_info {
   char *name;
   uint32_t num_args;
   struct kiln_arg_info *args;
   uint32_t args_size; /* bytes of the argument buffer */
   uint64_t reqd_work_group_size[3]; /* zeros when not given */
   uint64_t work_group_size_hint[3];
   char *vec_type_hint; /* "" when not given */
   uint64_t local_mem_size;   /* static __local variables */
   /* Compiled without -cl-kernel-arg-info: clGetKernelArgInfo gives no
    * type or argument names (Kiln keeps them for its own messages). */
   bool no_arg_info;
   /* Compiled as OpenCL C 2.0 or later without -cl-uniform-work-group-size:
    * a device with non-uniform work-groups may launch it with a global
    * size that is no multiple of the local size. */
   bool non_uniform_work_groups;
   uint64_t private_mem_size; /* per work-item, estimated */
};

void kiln_kernel_info_free(struct kiln_kernel_info *info);

/* Whether name is one Clang gives the kernel it makes of a block that a
 * kernel enqueues (__<function>_block_invoke[_<n>]_kernel): such kernels
 * are compiled and launched by the device, not seen by the application
 * (clCreateKernel, CL_PROGRAM_KERNEL_NAMES). */
static inline bool kiln_is_block_kernel_name(const char *name)
{
   size_t n = strlen(name);
   return n > 9 && !strncmp(name, "__", 2) && !strcmp(name + n - 7, "_kernel") &&
          strstr(name, "_block_invoke") != NULL;
}

#endif
