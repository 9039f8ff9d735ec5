/* The IL front end: SPIR-V to the module the rest of a build takes, as
 * clc_frontend.h is for OpenCL C.  Internal to src/llvm. */
#ifndef KILN_LLVM_SPIRV_FRONTEND_H
#define KILN_LLVM_SPIRV_FRONTEND_H

#include <stddef.h>

#include <llvm-c/Types.h>

#include "llvm/compiler.h"

struct kiln_build_log;
struct kiln_llvm_machine;

/* il translated (spirv_tool.h), read into context c as *m, fixed up and
 * given the machine's builtins (spirv_module.h).  KILN_BUILD_FAILED with
 * the log saying why (a device that takes no IL, the translator's
 * complaint, a module LLVM cannot read). */
enum kiln_build_status kiln_spirv_frontend(const struct kiln_llvm_machine *machine,
                                           const void *il, size_t size,
                                           const char *spec_consts, LLVMContextRef c,
                                           LLVMModuleRef *m, struct kiln_build_log *log);

#endif
