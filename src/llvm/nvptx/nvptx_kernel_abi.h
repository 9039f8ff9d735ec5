/* Rewrites a module's kernels onto the PTX kernel ABI of nvptx_abi.h:
 * __local pointer arguments become offsets into dynamic shared memory,
 * the hidden global-offset and work_dim parameters are appended, and the
 * work-item functions that need them are defined.  src/llvm only. */
#ifndef KILN_LLVM_NVPTX_KERNEL_ABI_H
#define KILN_LLVM_NVPTX_KERNEL_ABI_H

#include <stdbool.h>

#include <llvm-c/Types.h>

/* Defines get_global_id (offset included), get_global_offset,
 * get_work_dim, get_local_size, get_num_groups and get_global_size
 * wherever the module declares or defines them, replacing libclc's (whose
 * sizes are 0 for a dimension >= 3; §6.12.1 says 1).  They read the hidden values from per-block
 * shared variables that kiln_nvptx_lower_kernels has every kernel store
 * at entry. */
void kiln_nvptx_define_work_items(LLVMModuleRef m);

/* Defines KILN_PRINTF_BUFFER_FN (printf_lower.c's way to the buffer)
 * where the module declares it: it reads the per-block copy of the hidden
 * printf-buffer parameter, which kiln_nvptx_lower_kernels then gives
 * every entry (nvptx_abi.h).  Call before kiln_nvptx_lower_kernels. */
void kiln_nvptx_define_printf_buffer(LLVMModuleRef m);

/* Turns every kernel K into an internal, always-inlined function called
 * by a new entry of K's name with the ABI's parameter list, which stores
 * the hidden values, turns each __local offset into a pointer and each
 * by-value vector of sub-32-bit elements from integer words back into
 * the vector (nvptx_abi.h).  Calls
 * of K from other kernels keep calling the original.  nvvm.annotations
 * move to the entry; reqd_work_group_size becomes reqntid.  False when
 * out of memory (the build then fails; the module is not to be used). */
bool kiln_nvptx_lower_kernels(LLVMModuleRef m);

/* After always-inline: in each entry, loads of the per-block copies of
 * the hidden values become the entry's parameters themselves (nothing
 * but the entry's own stores ever writes them, and every thread stores
 * the same values).  A barrier between the stores and a get_global_id
 * would otherwise keep a shared-memory load, and the copies' shared
 * memory, alive. */
void kiln_nvptx_forward_hidden(LLVMModuleRef m);

/* "target-cpu" and "target-features" of the first defined function that
 * has them, copied onto fn: the inliner joins only functions that agree. */
void kiln_nvptx_copy_target_attrs(LLVMModuleRef m, LLVMValueRef fn);

/* A new definition of `name` of type fnty, internal: any function of that
 * name already there (libclc's, or a declaration) is replaced, its calls
 * now calling the new one. */
LLVMValueRef kiln_nvptx_redefine(LLVMModuleRef m, const char *name, LLVMTypeRef fnty);

/* Makes the declaration `decl` ready to receive a body of Kiln's, in
 * place (internal, always-inline, the module's target attributes): its
 * calls stay as they are. */
void kiln_nvptx_define_in_place(LLVMModuleRef m, LLVMValueRef decl);

#endif
