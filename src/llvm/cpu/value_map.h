/* A map from LLVM values to LLVM values (open addressing on the pointer),
 * for cloning code: old instruction or block -> its copy. */
#ifndef KILN_LLVM_VALUE_MAP_H
#define KILN_LLVM_VALUE_MAP_H

#include <llvm-c/Core.h>
#include <stdbool.h>
#include <stddef.h>

struct kiln_value_map {
   LLVMValueRef *keys, *vals;
   size_t cap, used;
};

void kiln_value_map_init(struct kiln_value_map *m);
void kiln_value_map_fini(struct kiln_value_map *m);
/* Room for n keys: until the map holds n, put cannot fail.  False when
 * out of memory. */
bool kiln_value_map_reserve(struct kiln_value_map *m, size_t n);
/* False when out of memory. */
bool kiln_value_map_put(struct kiln_value_map *m, LLVMValueRef key, LLVMValueRef val);
LLVMValueRef kiln_value_map_get(const struct kiln_value_map *m, LLVMValueRef key);
/* Clones instruction i at the builder, its operands through m (those not
 * in m stay), and records i -> the clone in m; NULL when out of memory. */
LLVMValueRef kiln_value_map_clone(struct kiln_value_map *m, LLVMBuilderRef b, LLVMValueRef i);

#endif
