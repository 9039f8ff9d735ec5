/* The kernel ABI of Kiln's PTX: what src/llvm/nvptx generates and what
 * the CUDA pipe driver (src/pipe/cuda) passes to cuLaunchKernel.  No LLVM
 * or CUDA types: both sides include it.
 *
 * Parameters.  A kernel with n OpenCL arguments is a PTX `.entry` with
 * n + 4 parameters, in this order:
 *
 *   0 .. n-1  the OpenCL arguments, one PTX parameter each, of the size
 *             the kernel's metadata (struct kiln_arg_info.size) gives:
 *             - __global / __constant pointer: the 64-bit device address
 *               (CUdeviceptr plus the buffer offset).  __constant is
 *               ordinary device memory, not CUDA's constant banks: Kiln
 *               compiles that address space as global memory (program-
 *               scope constant variables are read-only .global data;
 *               nvptx_constant.c says why);
 *             - by-value scalar, vector or struct: the value itself, the
 *               bytes clSetKernelArg was given.  A vector of elements
 *               narrower than 32 bits (char2, uchar4, short3, char16 ...)
 *               is declared as an integer of its size (.u16, .u32, .u64)
 *               up to 8 bytes and as 32-bit words beyond (.align 16 .b8
 *               [16] for a char16): LLVM 19 reads .param arrays of such
 *               vectors wrongly.  Same bytes, size and alignment;
 *             - __local pointer: a 32-bit unsigned byte offset into the
 *               launch's dynamic shared memory (see below); its slot in
 *               core's argument buffer is 4 bytes, as on amdgcn.
 *   n + 0 .. n + 2  global work offset x, y, z (uint64 each);
 *   n + 3           work_dim (uint32, 1..3);
 *   n + 4           only in programs that call printf (the module then
 *                   has the global KILN_PRINTF_TABLE_SYM): the device
 *                   address (uint64) of the launch's struct
 *                   kiln_printf_buffer (include/kiln/printf.h), 0 for none
 *                   (printf then returns -1).  The kernel appends its
 *                   records there with atom.add on `used`; the driver
 *                   reads the buffer back once the launch is done and
 *                   prints it with src/util/printf_format.c.
 *
 * Core's argument buffer lays arguments 0..n-1 out exactly as the PTX
 * parameter space does (each at its natural alignment, in order), so the
 * driver may either pass kernelParams[i] = buffer + args[i].offset, or
 * pack the whole list for CU_LAUNCH_PARAM_BUFFER_POINTER: then the hidden
 * parameters start at KILN_NVPTX_HIDDEN_OFFSET(args_size).
 *
 * get_global_id(d) is group_id * local_size + local_id + offset[d];
 * get_global_offset and get_work_dim return the hidden parameters (libclc's
 * nvptx library has neither; Kiln defines them).  For d >= 3 the sizes
 * and group counts are 1 and the ids and offsets 0 (§6.12.1); for
 * work_dim <= d < 3 the driver's 1-wide grid and zero offsets give the
 * same.  get_global_size and
 * get_num_groups come from the grid, so the driver launches exactly
 * global_size / local_size blocks (OpenCL 1.2: uniform work-groups).
 *
 * __local arguments.  Each kernel that has any declares one
 *   .extern .shared .align 128 .b8 KILN_NVPTX_DYNAMIC_SMEM[];
 * and reads argument i at KILN_NVPTX_DYNAMIC_SMEM + offset_i.  The driver
 * lays the launch's __local arguments out in that region, each offset a
 * multiple of KILN_NVPTX_LOCAL_ALIGN, and passes the total as the
 * launch's sharedMemBytes.  Static __local variables are ordinary
 * `.shared` variables that CUDA places before the dynamic region
 * (CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES counts them, and the
 * KILN_NVPTX_HIDDEN_SMEM bytes Kiln keeps for the hidden values).
 *
 * The object.  struct kiln_build_output.object holds the PTX text,
 * NUL-terminated one byte past object_size (which does not count it), as
 * every target's assembly (src/llvm/backend.c): the bytes can be handed to
 * cuModuleLoadDataEx as they are.  The PTX targets the sm that
 * kiln_nvptx_target_find() maps the device's to (an sm newer than LLVM 19
 * knows gets sm_90 PTX, which the driver JIT-compiles forward), with PTX
 * ISA KILN_NVPTX_PTX_VERSION (ISA 7.8: CUDA 11.8 and every CUDA 12 or 13
 * driver load it), except sm_90a, which needs ISA 8.0.
 *
 * Image arguments are the address of a struct kiln_image_hw and samplers
 * their CLK_* bits (src/pipe/cuda/cuda_abi.h); Kiln's image functions
 * (src/llvm/builtins/image.cl with KILN_IMAGE_HW, image_hw_nvptx.ll) read
 * them.
 */
#ifndef KILN_LLVM_NVPTX_ABI_H
#define KILN_LLVM_NVPTX_ABI_H

/* The one triple Kiln generates PTX for. */
#define KILN_NVPTX_TRIPLE "nvptx64-nvidia-cuda"

/* PTX ISA version emitted (".version 7.8"), as LLVM's feature name. */
#define KILN_NVPTX_PTX_VERSION 78

/* Hidden parameters after the OpenCL arguments. */
#define KILN_NVPTX_NUM_HIDDEN 4
#define KILN_NVPTX_HIDDEN_GLOBAL_OFFSET 0 /* 3 x uint64: x, y, z */
#define KILN_NVPTX_HIDDEN_WORK_DIM 3      /* uint32 */
/* One more, after work_dim, in programs that call printf (uint64). */
#define KILN_NVPTX_HIDDEN_PRINTF_BUFFER 4

/* Byte offsets of the hidden parameters in a packed parameter buffer
 * whose OpenCL arguments take args_size bytes. */
#define KILN_NVPTX_HIDDEN_OFFSET(args_size) ((((args_size) + 7u) / 8u) * 8u)
#define KILN_NVPTX_HIDDEN_SIZE 28u /* 3 * 8 + 4 */

/* The dynamic shared memory symbol and the alignment of its base and of
 * every __local argument's offset: OpenCL C's largest type's (long16,
 * double16), which a __local argument may point to (CTS basic
 * kernel_memory_alignment_local checks its address). */
#define KILN_NVPTX_DYNAMIC_SMEM "__kiln_nvptx_dynamic_smem"
#define KILN_NVPTX_LOCAL_ALIGN 128u

/* Static shared memory Kiln's code itself may use per block: copies of
 * the hidden values, stored at kernel entry for helper functions that
 * were not inlined (-cl-opt-disable); none when every reader is inlined
 * (nvptx_kernel_abi.c says why shared memory). */
#define KILN_NVPTX_HIDDEN_SMEM 32u

#endif
