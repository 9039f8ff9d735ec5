#include "llvm/cpu/value_map.h"
#include "util/alloc.h"

#include <stdint.h>
#include <stdlib.h>

static size_t slot(LLVMValueRef key, size_t cap)
{
   uintptr_t h = (uintptr_t)key;
   h ^= h >> 29;
   h *= 0xbf58476d1ce4e5b9ULL;
   h ^= h >> 32;
   return h & (cap - 1);
}

void kiln_value_map_init(struct kiln_value_map *m)
{
   m->keys = m->vals = NULL;
   m->cap = m->used = 0;
}

void kiln_value_map_fini(struct kiln_value_map *m)
{
   kiln_free(m->keys);
   kiln_free(m->vals);
   kiln_value_map_init(m);
}

static bool grow(struct kiln_value_map *m)
{
   size_t cap = m->cap ? m->cap * 2 : 64;
   LLVMValueRef *keys = kiln_calloc(cap, sizeof(*keys)), *vals = kiln_calloc(cap, sizeof(*vals));
   if (!keys || !vals) {
      kiln_free(keys);
      kiln_free(vals);
      return false;
   }
   for (size_t i = 0; i < m->cap; i++) {
      if (!m->keys[i])
         continue;
      size_t s = slot(m->keys[i], cap);
      while (keys[s])
         s = (s + 1) & (cap - 1);
      keys[s] = m->keys[i];
      vals[s] = m->vals[i];
   }
   kiln_free(m->keys);
   kiln_free(m->vals);
   m->keys = keys;
   m->vals = vals;
   m->cap = cap;
   return true;
}

bool kiln_value_map_reserve(struct kiln_value_map *m, size_t n)
{
   /* put grows when (used + 1) * 2 > cap, also for a key it has. */
   while ((n + 1) * 2 > m->cap)
      if (!grow(m))
         return false;
   return true;
}

bool kiln_value_map_put(struct kiln_value_map *m, LLVMValueRef key, LLVMValueRef val)
{
   if ((m->used + 1) * 2 > m->cap && !grow(m))
      return false;
   size_t s = slot(key, m->cap);
   while (m->keys[s] && m->keys[s] != key)
      s = (s + 1) & (m->cap - 1);
   if (!m->keys[s])
      m->used++;
   m->keys[s] = key;
   m->vals[s] = val;
   return true;
}

LLVMValueRef kiln_value_map_get(const struct kiln_value_map *m, LLVMValueRef key)
{
   if (!m->cap)
      return NULL;
   size_t s = slot(key, m->cap);
   while (m->keys[s]) {
      if (m->keys[s] == key)
         return m->vals[s];
      s = (s + 1) & (m->cap - 1);
   }
   return NULL;
}

LLVMValueRef kiln_value_map_clone(struct kiln_value_map *m, LLVMBuilderRef b, LLVMValueRef i)
{
   LLVMValueRef c = LLVMInstructionClone(i);
   for (unsigned o = 0, n = (unsigned)LLVMGetNumOperands(c); o < n; o++) {
      LLVMValueRef op = LLVMGetOperand(c, o), to = op ? kiln_value_map_get(m, op) : NULL;
      if (to)
         LLVMSetOperand(c, o, to);
   }
   LLVMInsertIntoBuilder(b, c);
   return kiln_value_map_put(m, i, c) ? c : NULL;
}
