/* A structural check of an ELF64 relocatable object before LLVM's JIT
 * linker sees it: JITLink trusts its input, and a program binary comes
 * from the application.  It checks what a linker dereferences: headers and
 * sections inside the file, section indices of symbols and relocations,
 * symbol indices of relocations, string offsets. */
#include "llvm/cpu/elf_check.h"

#include <elf.h>
#include <stdint.h>
#include <string.h>

static bool inside(size_t off, size_t len, size_t size)
{
   return off <= size && len <= size - off;
}

bool kiln_elf_check(const void *data, size_t size)
{
   const unsigned char *p = data;
   Elf64_Ehdr eh;
   if (!data || size < sizeof(eh))
      return false;
   memcpy(&eh, p, sizeof(eh));
   if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
       eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_type != ET_REL || eh.e_machine != EM_X86_64 ||
       eh.e_shentsize != sizeof(Elf64_Shdr) || !eh.e_shnum || eh.e_shstrndx >= eh.e_shnum ||
       !inside(eh.e_shoff, (size_t)eh.e_shnum * sizeof(Elf64_Shdr), size))
      return false;

   const Elf64_Shdr *sh = NULL;
   Elf64_Shdr shs[512];
   if (eh.e_shnum > 512)
      return false;
   memcpy(shs, p + eh.e_shoff, (size_t)eh.e_shnum * sizeof(Elf64_Shdr));
   sh = shs;
   for (unsigned i = 0; i < eh.e_shnum; i++) {
      if (sh[i].sh_type != SHT_NOBITS && !inside(sh[i].sh_offset, sh[i].sh_size, size))
         return false;
      if (sh[i].sh_link >= eh.e_shnum)
         return false;
   }
   if (sh[eh.e_shstrndx].sh_type != SHT_STRTAB)
      return false;
   for (unsigned i = 0; i < eh.e_shnum; i++)
      if (sh[i].sh_name >= sh[eh.e_shstrndx].sh_size)
         return false;

   for (unsigned i = 0; i < eh.e_shnum; i++) {
      if (sh[i].sh_type == SHT_SYMTAB) {
         const Elf64_Shdr *strtab = &sh[sh[i].sh_link];
         if (sh[i].sh_entsize != sizeof(Elf64_Sym) || sh[i].sh_size % sizeof(Elf64_Sym) ||
             strtab->sh_type != SHT_STRTAB)
            return false;
         size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
         for (size_t k = 0; k < n; k++) {
            Elf64_Sym sym;
            memcpy(&sym, p + sh[i].sh_offset + k * sizeof(sym), sizeof(sym));
            if (sym.st_name >= strtab->sh_size)
               return false;
            if (sym.st_shndx != SHN_UNDEF && sym.st_shndx < SHN_LORESERVE &&
                sym.st_shndx >= eh.e_shnum)
               return false;
            if (sym.st_shndx >= SHN_LORESERVE && sym.st_shndx != SHN_ABS &&
                sym.st_shndx != SHN_COMMON)
               return false;
            /* Defined symbols must lie in sections the image holds. */
            if (sym.st_shndx != SHN_UNDEF && sym.st_shndx < eh.e_shnum &&
                ELF64_ST_TYPE(sym.st_info) != STT_SECTION &&
                ELF64_ST_TYPE(sym.st_info) != STT_FILE &&
                !(sh[sym.st_shndx].sh_flags & SHF_ALLOC) && sh[sym.st_shndx].sh_type != SHT_NULL)
               return false;
         }
      } else if (sh[i].sh_type == SHT_RELA) {
         const Elf64_Shdr *symtab = &sh[sh[i].sh_link];
         if (sh[i].sh_entsize != sizeof(Elf64_Rela) || sh[i].sh_size % sizeof(Elf64_Rela) ||
             symtab->sh_type != SHT_SYMTAB || sh[i].sh_info >= eh.e_shnum)
            return false;
         size_t nsym = symtab->sh_size / sizeof(Elf64_Sym);
         const Elf64_Shdr *target = &sh[sh[i].sh_info];
         size_t n = sh[i].sh_size / sizeof(Elf64_Rela);
         for (size_t k = 0; k < n; k++) {
            Elf64_Rela r;
            memcpy(&r, p + sh[i].sh_offset + k * sizeof(r), sizeof(r));
            if (ELF64_R_SYM(r.r_info) >= nsym || r.r_offset >= target->sh_size)
               return false;
         }
      } else if (sh[i].sh_type == SHT_REL) {
         return false; /* x86-64 objects from LLVM use RELA only */
      }
   }
   return true;
}
