/* Kiln's program binary (clGetProgramInfo CL_PROGRAM_BINARIES, accepted
 * back by clCreateProgramWithBinary).  All integers little-endian.
 *
 *   offset 0   char     magic[8]      "KILNBIN" and a NUL
 *          8   uint32   version       KILN_BINARY_VERSION
 *         12   uint32   num_sections
 *         16   sections, each:
 *                uint32 type          enum kiln_binary_section
 *                uint32 reserved      0
 *                uint64 size          bytes of data that follow
 *                data, then zero padding to a multiple of 8
 *
 * Sections: TARGET (the device's target id, a string: code for one CPU
 * model does not run on another; code built with KILN_CHECK=bounds has
 * ":check=bounds" appended, as it needs launches that bring a bounds
 * table, and a process with checks must not run unchecked code),
 * KILN_VERSION, OPTIONS (build options as the application gave them),
 * OBJECT (device code), KERNELS (kernel descriptions, see
 * src/core/binary.c for their encoding), BITCODE (the program as LLVM
 * bitcode before device code generation), PROGRAM (optional, OpenCL 1.2:
 * uint32 CL_PROGRAM_BINARY_TYPE_* and uint32 flags, bit 0 meaning the
 * program was compiled without -cl-kernel-arg-info, so clGetKernelArgInfo
 * hides the names the KERNELS section still holds; absent, the binary is
 * an executable whose names are visible), and last CHECKSUM: the 64-bit
 * FNV-1a hash of every byte before that section's header.  Strings carry
 * no NUL.  A reader rejects unknown versions, a missing or wrong
 * CHECKSUM, missing TARGET/KERNELS, a missing OBJECT in an executable
 * or a missing BITCODE in a compiled object or library, any size that runs past the
 * end, and a TARGET that is not the device's.  The checksum matters: the
 * object is machine code run in the process, and a corrupted one must be
 * refused before it reaches the JIT linker.
 */
#ifndef KILN_BINARY_FORMAT_H
#define KILN_BINARY_FORMAT_H

#define KILN_BINARY_MAGIC "KILNBIN"
#define KILN_BINARY_VERSION 2u

enum kiln_binary_section {
   KILN_SECTION_TARGET = 1,
   KILN_SECTION_KILN_VERSION = 2,
   KILN_SECTION_OPTIONS = 3,
   KILN_SECTION_OBJECT = 4,
   KILN_SECTION_KERNELS = 5,
   KILN_SECTION_BITCODE = 6,
   KILN_SECTION_CHECKSUM = 7,
   KILN_SECTION_PROGRAM = 8,
};

/* Bits of the PROGRAM section's flags. */
#define KILN_BINARY_NO_ARG_NAMES 1u
/* Every kernel may run in non-uniform work-groups (kiln_kernel_info). */
#define KILN_BINARY_NON_UNIFORM 2u

#endif
