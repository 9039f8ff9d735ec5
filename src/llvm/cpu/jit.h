/* Runs compiled CPU programs in this process. */
#ifndef KILN_LLVM_JIT_H
#define KILN_LLVM_JIT_H

#include <stdbool.h>
#include <stddef.h>

struct kiln_jit;

/* A function of this process the loaded code may call by name (the
 * driver's run-time support: Kiln exports nothing but the OpenCL API, so
 * the process symbol search cannot find it). */
struct kiln_jit_symbol {
   const char *name;
   void (*address)(void);
};

/* Links the object (from kiln_llvm_build) into memory, with the given
 * symbols defined for it; NULL if it cannot, with *error (kiln_malloc'd)
 * saying why, or left NULL when Kiln ran out of host memory. */
struct kiln_jit *kiln_jit_load(const void *object, size_t size,
                               const struct kiln_jit_symbol *symbols, unsigned num_symbols,
                               char **error);
/* Adds another object to a loaded program (a kernel compiled later,
 * cpu_code.h): its symbols and the program's reach each other.  False as
 * kiln_jit_load fails. */
bool kiln_jit_add(struct kiln_jit *jit, const void *object, size_t size, char **error);
/* Address of a symbol of the loaded object; fails as kiln_jit_load. */
void *kiln_jit_lookup(struct kiln_jit *jit, const char *name, char **error);
void kiln_jit_destroy(struct kiln_jit *jit);

#endif
