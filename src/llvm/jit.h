/* Runs compiled CPU programs in this process. */
#ifndef KILN_LLVM_JIT_H
#define KILN_LLVM_JIT_H

#include <stddef.h>

struct kiln_jit;

/* Links the object (from kiln_llvm_build) into memory; NULL if it cannot,
 * with *error (kiln_malloc'd) saying why, or left NULL when Kiln ran out
 * of host memory. */
struct kiln_jit *kiln_jit_load(const void *object, size_t size, char **error);
/* Address of a symbol of the loaded object; fails as kiln_jit_load. */
void *kiln_jit_lookup(struct kiln_jit *jit, const char *name, char **error);
void kiln_jit_destroy(struct kiln_jit *jit);

#endif
