/* The SPIR-V translator's module made one Kiln's pipeline takes after its
 * front end, as if clang had compiled the program (docs/design.md,
 * "SPIR-V").  Internal to src/llvm. */
#ifndef KILN_LLVM_SPIRV_MODULE_H
#define KILN_LLVM_SPIRV_MODULE_H

#include <llvm-c/Types.h>

#include "llvm/compiler.h"

struct kiln_build_log;

/* m: the translator's SPIR module (spir64, SPIR's address spaces, which
 * are the ones Kiln's CPU modules use, spir_func calls, OpenCL C 1.2's
 * builtin names in SPIR's mangling).  library: the builtins, parsed into
 * m's context (lazily is fine).  Gives m the library's triple and data
 * layout, plain C calls, and every builtin call the name and signature
 * of its definition in the library (through a small internal function
 * where the x86 calling convention passes a vector differently), then
 * links the builtins m uses, consuming library.  KILN_BUILD_FAILED with
 * the log saying why. */
enum kiln_build_status kiln_spirv_module_fix(LLVMModuleRef m, LLVMModuleRef library,
                                             struct kiln_build_log *log);

#endif
