/* Why not only KILN_VERSION: Kiln's version changes at releases, but the
 * compile cache must never hand a process the code an older build of the
 * compiler made, for instance while someone develops Kiln itself. */
#include "util/build_id.h"

#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static char id[2 * 64 + 1];
static pthread_once_t once = PTHREAD_ONCE_INIT;

struct search {
   uintptr_t inside; /* an address of Kiln's code */
   bool found;
};

static bool holds(const struct dl_phdr_info *info, uintptr_t addr)
{
   for (int i = 0; i < info->dlpi_phnum; i++) {
      const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
      uintptr_t start = info->dlpi_addr + ph->p_vaddr;
      if (ph->p_type == PT_LOAD && addr >= start && addr < start + ph->p_memsz)
         return true;
   }
   return false;
}

static int visit(struct dl_phdr_info *info, size_t size, void *data)
{
   (void)size;
   struct search *s = data;
   if (!holds(info, s->inside))
      return 0;
   for (int i = 0; i < info->dlpi_phnum; i++) {
      const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type != PT_NOTE)
         continue;
      const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
      const unsigned char *end = p + ph->p_memsz;
      while (p + sizeof(ElfW(Nhdr)) <= end) {
         const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
         const unsigned char *name = p + sizeof(*n);
         const unsigned char *desc = name + ((n->n_namesz + 3) & ~3u);
         if (desc + n->n_descsz > end)
            break;
         if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
             n->n_descsz && n->n_descsz <= 64) {
            for (unsigned b = 0; b < n->n_descsz; b++)
               snprintf(id + 2 * b, 3, "%02x", desc[b]);
            s->found = true;
            return 1;
         }
         p = desc + ((n->n_descsz + 3) & ~3u);
      }
   }
   return 1;
}

static void find_id(void)
{
   struct search s = {(uintptr_t)&find_id, false};
   dl_iterate_phdr(visit, &s);
   if (!s.found)
      snprintf(id, sizeof(id), "%s built %s %s", KILN_VERSION, __DATE__, __TIME__);
}

const char *kiln_build_id(void)
{
   pthread_once(&once, find_id);
   return id;
}
