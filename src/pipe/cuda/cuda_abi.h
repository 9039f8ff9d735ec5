/* The kernel ABI between Kiln's NVPTX code generator (src/llvm) and the
 * CUDA pipe driver (cuda_launch.c): what cuLaunchKernel hands a kernel.
 * Both sides include this header; change them together.
 *
 * Kernel parameters, in order (each one .param of the PTX entry):
 *   1. One parameter per OpenCL kernel argument, of the size the kernel
 *      metadata gives that argument (include/kiln/kernel_info.h,
 *      kiln_arg_info::size), in argument order:
 *      - by-value arguments (scalars, vectors, structs): their bytes, as
 *        the OpenCL C ABI lays them out (a struct is one .param .b8
 *        array);
 *      - __global and __constant pointers: the 8-byte device address of
 *        the buffer's first byte (0 for a NULL argument).  __constant
 *        buffers live in global memory like the others: the code
 *        generator must reach them through the generic/global address
 *        space, not PTX's .const bank;
 *      - __local pointers: a 32-bit byte offset (CUDA_ABI_LOCAL_OFFSET_SIZE)
 *        into the kernel's dynamic shared memory (`extern .shared`),
 *        which the kernel adds to the dynamic shared memory's base.  The
 *        driver places the __local arguments one after another in binding
 *        order, each at an offset aligned to CUDA_ABI_LOCAL_ALIGN, and
 *        launches with the sum as the dynamic shared memory size; the
 *        kernel's own __local variables are static shared memory, which
 *        CUDA adds on top;
 *      - samplers: their CLK_* bits as a 32-bit value (in the low half of
 *        the argument's slot);
 *      - images: the 8-byte device address of the view's struct
 *        kiln_image_hw (include/kiln/image.h, cuda_image.c): the linear
 *        descriptor, then the surface object and the texture objects
 *        per sampler setting of its CUDA array (0 where it has none).
 *   2. Hidden parameters after the last argument (struct cuda_abi_hidden,
 *      one parameter per field):
 *      - global_offset_x, global_offset_y, global_offset_z: uint64 each,
 *        the NDRange's global work offset (get_global_offset(d); and
 *        get_global_id(d) = offset + blockIdx*blockDim + threadIdx);
 *      - work_dim: uint32, get_work_dim();
 *      - printf_buffer: uint64, only for kernels of programs that call
 *        printf (the module defines KILN_PRINTF_TABLE_SYM): the device
 *        address of the launch's struct kiln_printf_buffer
 *        (include/kiln/printf.h), which cuda_printf.c prints after the
 *        launch.
 *
 * Launch geometry: blockDim = the local work size, gridDim = global work
 * size / local work size per dimension (the global size is a multiple of
 * the local size: OpenCL 1.x uniform work-groups).  get_group_id(d) is
 * blockIdx, get_num_groups(d) gridDim, get_local_size(d) blockDim and
 * get_global_size(d) gridDim * blockDim.  The grid limits (2^31-1 blocks
 * in x, 65535 in y and z) are the device's: a larger NDRange fails to
 * launch with CL_OUT_OF_RESOURCES.
 */
#ifndef KILN_PIPE_CUDA_ABI_H
#define KILN_PIPE_CUDA_ABI_H

#include <stdint.h>

#define CUDA_ABI_LOCAL_OFFSET_SIZE 4 /* bytes of a __local argument */
#define CUDA_ABI_LOCAL_ALIGN 128     /* of each __local argument's offset: a long16's */
#define CUDA_ABI_NUM_HIDDEN 4        /* parameters after the kernel's own */
#define CUDA_ABI_HIDDEN_PRINTF_BUFFER 4 /* one more where the program prints */

struct cuda_abi_hidden {
   uint64_t global_offset[3];
   uint32_t work_dim;
   uint64_t printf_buffer;
};

#endif
