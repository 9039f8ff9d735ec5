/* Builtin names of SPIR (what the SPIR-V translator calls) to the names
 * of Kiln's CPU builtins library.  Both are Itanium manglings of the same
 * OpenCL C declarations; they differ in how a pointer's address space is
 * written: SPIR's target spelling "U3AS1" (global), "U3AS2" (constant),
 * "U3AS3" (local), "U3AS4" (generic) and no qualifier for private, against
 * clang's language spelling for x86 "U8CLglobal", "U10CLconstant",
 * "U7CLlocal", "U9CLgeneric", "U9CLprivate".  An added qualifier shifts
 * the substitutions (S_, S0_, ...) after it, so the name is parsed and
 * written again, not edited as text.  Plain C, no LLVM. */
#ifndef KILN_LLVM_SPIRV_MANGLE_H
#define KILN_LLVM_SPIRV_MANGLE_H

#include <stddef.h>

enum kiln_spirv_mangle_status {
   KILN_SPIRV_MANGLE_SAME,      /* nothing to rename (no pointer argument) */
   KILN_SPIRV_MANGLE_RENAMED,   /* out holds Kiln's name */
   KILN_SPIRV_MANGLE_UNKNOWN,   /* not a mangling this parser knows: left alone */
};

/* Kiln's name for the SPIR builtin `name` in out[0..size). */
enum kiln_spirv_mangle_status kiln_spirv_remangle(const char *name, char *out, size_t size);

#endif
