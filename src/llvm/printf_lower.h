/* OpenCL C printf for devices that format on the host (include/kiln/printf.h,
 * docs/printf.md): each call becomes a record written to the launch's
 * printf buffer, and the program's format strings a table in its code. */
#ifndef KILN_LLVM_PRINTF_LOWER_H
#define KILN_LLVM_PRINTF_LOWER_H

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <stdbool.h>

struct kiln_build_log;

enum kiln_printf_lower_status {
   KILN_PRINTF_LOWER_OK,
   KILN_PRINTF_LOWER_FAILED,        /* the log says which call and why */
   KILN_PRINTF_LOWER_OUT_OF_MEMORY,
};

/* How lowered code finds the launch's struct kiln_printf_buffer.  The
 * records themselves are target-independent IR; only this differs. */
enum kiln_printf_buffer_source {
   /* The CPU device: a field of the launch context (include/kiln/cpu_abi.h),
    * read through KILN_WG_CTX_FN, which the work-group pass lowers. */
   KILN_PRINTF_FROM_WG_CTX,
   /* A call of KILN_PRINTF_BUFFER_FN (no arguments, returns a generic
    * pointer, NULL when the launch has no buffer), which the target
    * defines after the lowering: NVPTX reads a hidden kernel parameter. */
   KILN_PRINTF_FROM_FN,
};

#define KILN_PRINTF_BUFFER_FN "__kiln_printf_buffer"

/* Replaces every call to printf in m and adds the table global
 * KILN_PRINTF_TABLE_SYM when there was one.  Runs before the work-group
 * pass (the records hold get_global_id()/get_global_size() calls).  td is
 * the target's data layout. */
enum kiln_printf_lower_status kiln_printf_lower(LLVMModuleRef m, LLVMTargetDataRef td,
                                                enum kiln_printf_buffer_source source,
                                                struct kiln_build_log *log);

/* Whether m calls printf (for targets that cannot run it). */
bool kiln_printf_used(LLVMModuleRef m);

#endif
