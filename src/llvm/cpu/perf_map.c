/* perf's map of JIT'd code (perf_map.h).  Functions are written once
 * their object is linked: ORC links an object at the first lookup that
 * needs it, and looking a symbol up earlier would link objects the
 * program may never run (and fail on references not yet added). */
#include "llvm/cpu/perf_map.h"

#include <elf.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/env.h"

struct perf_func {
   char *name;
   uint64_t size;
   unsigned object; /* 0: the base */
};

struct kiln_perf_map {
   struct perf_func *funcs;
   size_t count, cap;
   unsigned objects;
};

static bool map_on;
static pthread_once_t map_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t file_lock = PTHREAD_MUTEX_INITIALIZER;

static void read_env(void)
{
   const char *e = getenv("KILN_PERF_MAP");
   map_on = e && *e && !kiln_env_off(e);
}

bool kiln_perf_map_on(void)
{
   pthread_once(&map_once, read_env);
   return map_on;
}

static void add_func(struct kiln_perf_map *m, const char *name, uint64_t size, unsigned object)
{
   if (m->count == m->cap) {
      size_t cap = m->cap ? 2 * m->cap : 16;
      struct perf_func *f = kiln_realloc(m->funcs, cap * sizeof(*f));
      if (!f)
         return;
      m->funcs = f;
      m->cap = cap;
   }
   char *copy = kiln_strdup(name);
   if (copy)
      m->funcs[m->count++] = (struct perf_func){copy, size, object};
}

void kiln_perf_map_note(struct kiln_perf_map **map, const void *object, size_t size)
{
   (void)size; /* kiln_elf_check checked every offset below against it */
   if (!*map && !(*map = kiln_calloc(1, sizeof(**map))))
      return;
   struct kiln_perf_map *m = *map;
   unsigned id = m->objects++;
   const unsigned char *p = object;
   Elf64_Ehdr eh;
   memcpy(&eh, p, sizeof(eh));
   for (unsigned i = 0; i < eh.e_shnum; i++) {
      Elf64_Shdr sh, strtab;
      memcpy(&sh, p + eh.e_shoff + i * sizeof(sh), sizeof(sh));
      if (sh.sh_type != SHT_SYMTAB)
         continue;
      memcpy(&strtab, p + eh.e_shoff + sh.sh_link * sizeof(strtab), sizeof(strtab));
      for (size_t k = 0; k < sh.sh_size / sizeof(Elf64_Sym); k++) {
         Elf64_Sym sym;
         memcpy(&sym, p + sh.sh_offset + k * sizeof(sym), sizeof(sym));
         /* Local functions cannot be looked up: most are inlined. */
         if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || ELF64_ST_BIND(sym.st_info) == STB_LOCAL ||
             sym.st_shndx == SHN_UNDEF || !sym.st_size)
            continue;
         const char *name = (const char *)p + strtab.sh_offset + sym.st_name;
         /* The checked string table may lack a final NUL. */
         if (memchr(name, 0, strtab.sh_size - sym.st_name))
            add_func(m, name, sym.st_size, id);
      }
   }
}

void kiln_perf_map_found(struct kiln_perf_map *m, const char *name,
                         void *(*resolve)(void *ctx, const char *name), void *ctx)
{
   if (!m)
      return;
   size_t i = 0;
   while (i < m->count && strcmp(m->funcs[i].name, name))
      i++;
   unsigned object = i < m->count ? m->funcs[i].object : 0;
   pthread_mutex_lock(&file_lock);
   char path[64];
   snprintf(path, sizeof(path), "/tmp/perf-%ld.map", (long)getpid());
   FILE *f = fopen(path, "a");
   for (i = 0; i < m->count;) {
      struct perf_func *fn = &m->funcs[i];
      if (fn->object != object && fn->object != 0) {
         i++;
         continue;
      }
      void *addr = resolve(ctx, fn->name);
      if (f && addr)
         fprintf(f, "%" PRIxPTR " %" PRIx64 " %s\n", (uintptr_t)addr, fn->size, fn->name);
      kiln_free(fn->name);
      *fn = m->funcs[--m->count];
   }
   if (f)
      fclose(f);
   pthread_mutex_unlock(&file_lock);
}

void kiln_perf_map_free(struct kiln_perf_map *m)
{
   if (!m)
      return;
   for (size_t i = 0; i < m->count; i++)
      kiln_free(m->funcs[i].name);
   kiln_free(m->funcs);
   kiln_free(m);
}
