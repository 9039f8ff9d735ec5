/* The build error for recursion, which OpenCL C forbids (recursion.c). */
#ifndef KILN_LLVM_RECURSION_H
#define KILN_LLVM_RECURSION_H

#include <llvm-c/Types.h>

#include "llvm/compiler.h"

struct kiln_build_log;

/* KILN_BUILD_FAILED with one log line per cycle of m's call graph (each
 * naming its functions), KILN_BUILD_OK when there is none, or
 * KILN_BUILD_OUT_OF_MEMORY. */
enum kiln_build_status kiln_llvm_check_recursion(LLVMModuleRef m, struct kiln_build_log *log);

#endif
