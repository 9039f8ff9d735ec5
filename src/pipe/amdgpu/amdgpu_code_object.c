/* amdgcn code objects: a strict ELF64 reader (every offset and size is
 * checked against the blob, which may come from a hostile program binary)
 * and the decoding of amd_kernel_code_t. */
#include "pipe/amdgpu/amdgpu_code_object.h"

#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pipe/amdgpu/amdgpu_regs.h"
#include "util/alloc.h"

#ifndef EM_AMDGPU
#define EM_AMDGPU 224
#endif
#define STT_AMDGPU_HSA_KERNEL 10

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t *p) { return rd16(p) | (uint32_t)rd16(p + 2) << 16; }
static uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

static bool in_bounds(uint64_t off, uint64_t len, uint64_t size)
{
   return off <= size && len <= size - off;
}

static enum amdgpu_code_object_status fail(char *error, size_t n, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   if (error && n)
      vsnprintf(error, n, fmt, ap);
   va_end(ap);
   return AMDGPU_CODE_OBJECT_INVALID;
}

/* The user SGPRs in the order the hardware loads them. */
static void layout_user_sgprs(struct amdgpu_kernel_desc *k)
{
   int next = 0;
   uint32_t p = k->code_properties;
#define TAKE(flag, field, count)                                                              \
   k->field = (p & (flag)) ? next : -1;                                                       \
   if (p & (flag))                                                                            \
      next += (count);
   TAKE(AKC_PROP_PRIVATE_SEGMENT_BUFFER, sgpr_private_segment_buffer, 4)
   TAKE(AKC_PROP_DISPATCH_PTR, sgpr_dispatch_ptr, 2)
   TAKE(AKC_PROP_QUEUE_PTR, sgpr_queue_ptr, 2)
   TAKE(AKC_PROP_KERNARG_SEGMENT_PTR, sgpr_kernarg_ptr, 2)
   TAKE(AKC_PROP_DISPATCH_ID, sgpr_dispatch_id, 2)
   TAKE(AKC_PROP_FLAT_SCRATCH_INIT, sgpr_flat_scratch_init, 2)
   TAKE(AKC_PROP_PRIVATE_SEGMENT_SIZE, sgpr_private_segment_size, 1)
#undef TAKE
}

static enum amdgpu_code_object_status decode_kernel(const uint8_t *text, uint64_t text_size,
                                                    uint64_t offset, uint64_t sym_size,
                                                    const struct amdgpu_isa *isa,
                                                    struct amdgpu_kernel_desc *k, char *error,
                                                    size_t error_size)
{
   if (!in_bounds(offset, AKC_SIZE, text_size) || sym_size < AKC_SIZE ||
       !in_bounds(offset, sym_size, text_size))
      return fail(error, error_size, "kernel '%s' lies outside .text", k->name);
   const uint8_t *h = text + offset;
   if (rd32(h + AKC_VERSION_MAJOR) != 1)
      return fail(error, error_size, "kernel '%s': amd_kernel_code_t version %u, not 1", k->name,
                  rd32(h + AKC_VERSION_MAJOR));
   uint64_t entry = rd64(h + AKC_ENTRY_BYTE_OFFSET);
   /* PGM_LO holds the address >> 8: the entry must be 256-byte aligned. */
   if (entry < AKC_SIZE || entry % 256 || entry > sym_size)
      return fail(error, error_size, "kernel '%s': bad entry offset %llu", k->name,
                  (unsigned long long)entry);
   k->header_offset = offset;
   k->code_offset = offset + entry;
   k->code_size = sym_size - entry;
   k->rsrc1 = rd32(h + AKC_PGM_RSRC1);
   k->rsrc2 = rd32(h + AKC_PGM_RSRC2);
   k->code_properties = rd32(h + AKC_CODE_PROPERTIES);
   k->private_segment_size = rd32(h + AKC_PRIVATE_SEGMENT_SIZE);
   k->group_segment_size = rd32(h + AKC_GROUP_SEGMENT_SIZE);
   k->kernarg_size = rd64(h + AKC_KERNARG_SEGMENT_SIZE);
   k->kernarg_align = h[AKC_KERNARG_SEGMENT_ALIGNMENT] < 16 ? 1u << h[AKC_KERNARG_SEGMENT_ALIGNMENT]
                                                             : 0;
   k->sgpr_count = rd16(h + AKC_WAVEFRONT_SGPR_COUNT);
   k->vgpr_count = rd16(h + AKC_WORKITEM_VGPR_COUNT);
   k->wave32 = (k->code_properties & AKC_PROP_WAVEFRONT_SIZE32) != 0;
   uint8_t wave_log2 = h[AKC_WAVEFRONT_SIZE];
   if (wave_log2 != (k->wave32 ? 5 : 6))
      return fail(error, error_size, "kernel '%s': wavefront size 2^%u disagrees with its flags",
                  k->name, wave_log2);
   if (!k->kernarg_align || k->kernarg_size > (1u << 20))
      return fail(error, error_size, "kernel '%s': bad kernarg segment", k->name);
   k->user_sgpr_count = RSRC2_USER_SGPR(k->rsrc2);
   layout_user_sgprs(k);
   /* The inputs asked for must fit in the user SGPRs the hardware loads
    * (gfx11 may reserve more than it asks for, never fewer). */
   int last = k->sgpr_private_segment_size >= 0 ? k->sgpr_private_segment_size + 1
              : k->sgpr_flat_scratch_init >= 0   ? k->sgpr_flat_scratch_init + 2
              : k->sgpr_dispatch_id >= 0         ? k->sgpr_dispatch_id + 2
              : k->sgpr_kernarg_ptr >= 0         ? k->sgpr_kernarg_ptr + 2
              : k->sgpr_queue_ptr >= 0           ? k->sgpr_queue_ptr + 2
              : k->sgpr_dispatch_ptr >= 0        ? k->sgpr_dispatch_ptr + 2
              : k->sgpr_private_segment_buffer >= 0 ? 4
                                                    : 0;
   if ((unsigned)last > k->user_sgpr_count)
      return fail(error, error_size, "kernel '%s': %d user SGPRs asked for, %u loaded", k->name,
                  last, k->user_sgpr_count);
   /* amd_kernel_code_t predates RSRC3.  gfx10/11 kernels run with 0
    * (no shared VGPRs, no instruction prefetch); gfx90a's accumulation
    * VGPRs are put after every VGPR the kernel uses. */
   k->rsrc3 = 0;
   /* RDNA allocates all SGPRs; the field is reserved and must be 0 there,
    * but LLVM's mesa3d path still fills it in. */
   if (isa->gfx_level >= 10)
      k->rsrc1 &= ~AMDGPU_FIELD(0xf, 6, 4);
   if (isa->accum_offset) {
      unsigned quads = (k->vgpr_count + 3u) / 4u;
      k->rsrc3 = RSRC3_GFX90A_ACCUM_OFFSET(quads ? quads - 1 : 0);
   }
   return AMDGPU_CODE_OBJECT_OK;
}

enum amdgpu_code_object_status amdgpu_code_object_parse(const void *elf, size_t size,
                                                        const struct amdgpu_isa *isa,
                                                        struct amdgpu_code_object *out,
                                                        char *error, size_t error_size)
{
   memset(out, 0, sizeof(*out));
   const uint8_t *b = elf;
   if (!b || size < sizeof(Elf64_Ehdr) || memcmp(b, ELFMAG, SELFMAG))
      return fail(error, error_size, "not an ELF file");
   if (b[EI_CLASS] != ELFCLASS64 || b[EI_DATA] != ELFDATA2LSB)
      return fail(error, error_size, "not a little-endian ELF64 file");
   Elf64_Ehdr eh;
   memcpy(&eh, b, sizeof(eh));
   if (eh.e_machine != EM_AMDGPU)
      return fail(error, error_size, "ELF machine %u is not AMDGPU", eh.e_machine);
   if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
       !in_bounds(eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr), size) ||
       eh.e_shstrndx >= eh.e_shnum)
      return fail(error, error_size, "bad section headers");
   Elf64_Shdr *sh = kiln_calloc(eh.e_shnum, sizeof(*sh));
   if (!sh)
      return AMDGPU_CODE_OBJECT_OUT_OF_MEMORY;
   memcpy(sh, b + eh.e_shoff, (size_t)eh.e_shnum * sizeof(*sh));
   enum amdgpu_code_object_status st = AMDGPU_CODE_OBJECT_OK;
   for (unsigned i = 0; i < eh.e_shnum && !st; i++)
      if (sh[i].sh_type != SHT_NOBITS && !in_bounds(sh[i].sh_offset, sh[i].sh_size, size))
         st = fail(error, error_size, "section %u lies outside the file", i);
   const Elf64_Shdr *names = &sh[eh.e_shstrndx];
   unsigned text = 0, symtab = 0;
   for (unsigned i = 1; i < eh.e_shnum && !st; i++) {
      if (sh[i].sh_name >= names->sh_size)
         st = fail(error, error_size, "section %u has a bad name", i);
      else if (!strncmp((const char *)b + names->sh_offset + sh[i].sh_name, ".text",
                        names->sh_size - sh[i].sh_name))
         text = i;
      if (sh[i].sh_type == SHT_SYMTAB)
         symtab = i;
      if (sh[i].sh_type == SHT_REL || sh[i].sh_type == SHT_RELA)
         out->num_relocations += (unsigned)(sh[i].sh_entsize ? sh[i].sh_size / sh[i].sh_entsize : 0);
   }
   if (!st && (!text || !symtab))
      st = fail(error, error_size, "no .text or no symbol table");
   if (!st && (sh[symtab].sh_entsize != sizeof(Elf64_Sym) || sh[symtab].sh_link >= eh.e_shnum))
      st = fail(error, error_size, "bad symbol table");
   if (st) {
      kiln_free(sh);
      return st;
   }
   out->text_file_offset = sh[text].sh_offset;
   out->text_size = sh[text].sh_size;
   if (sh[text].sh_type != SHT_PROGBITS) {
      kiln_free(sh);
      return fail(error, error_size, ".text is not PROGBITS");
   }
   /* The image: .text at 0 (kernel code offsets are relative to it), then
    * the other allocated sections at their alignment. */
   out->sections = kiln_calloc(eh.e_shnum, sizeof(*out->sections));
   if (!out->sections) {
      kiln_free(sh);
      return AMDGPU_CODE_OBJECT_OUT_OF_MEMORY;
   }
   uint64_t end = 0;
   for (unsigned pass = 0; pass < 2 && !st; pass++)
      for (unsigned i = 1; i < eh.e_shnum && !st; i++) {
         if ((pass == 0) != (i == text) || !(sh[i].sh_flags & SHF_ALLOC) || !sh[i].sh_size)
            continue;
         if (sh[i].sh_type != SHT_PROGBITS && sh[i].sh_type != SHT_NOBITS) {
            st = fail(error, error_size, "allocated section %u of type %u", i, sh[i].sh_type);
            break;
         }
         uint64_t align = sh[i].sh_addralign ? sh[i].sh_addralign : 1;
         if (align > 65536 || (align & (align - 1)) || sh[i].sh_size > (1ull << 32)) {
            st = fail(error, error_size, "section %u has a bad alignment or size", i);
            break;
         }
         struct amdgpu_co_section *cs = &out->sections[out->num_sections++];
         cs->index = i;
         cs->nobits = sh[i].sh_type == SHT_NOBITS;
         cs->file_offset = cs->nobits ? 0 : sh[i].sh_offset;
         cs->size = sh[i].sh_size;
         cs->image_offset = (end + align - 1) & ~(align - 1);
         end = cs->image_offset + cs->size;
      }
   out->image_size = end;
   if (st) {
      kiln_free(sh);
      amdgpu_code_object_fini(out);
      return st;
   }
   const Elf64_Shdr *strs = &sh[sh[symtab].sh_link];
   size_t nsyms = sh[symtab].sh_size / sizeof(Elf64_Sym);
   out->kernels = kiln_calloc(nsyms ? nsyms : 1, sizeof(*out->kernels));
   if (!out->kernels)
      st = AMDGPU_CODE_OBJECT_OUT_OF_MEMORY;
   for (size_t i = 0; i < nsyms && !st; i++) {
      Elf64_Sym s;
      memcpy(&s, b + sh[symtab].sh_offset + i * sizeof(s), sizeof(s));
      if (ELF64_ST_TYPE(s.st_info) != STT_AMDGPU_HSA_KERNEL)
         continue;
      if (s.st_shndx != text) {
         st = fail(error, error_size, "a kernel symbol is outside .text");
         break;
      }
      if (s.st_name >= strs->sh_size ||
          !memchr(b + strs->sh_offset + s.st_name, 0, strs->sh_size - s.st_name)) {
         st = fail(error, error_size, "a kernel symbol has a bad name");
         break;
      }
      struct amdgpu_kernel_desc *k = &out->kernels[out->num_kernels];
      k->name = kiln_strdup((const char *)b + strs->sh_offset + s.st_name);
      if (!k->name) {
         st = AMDGPU_CODE_OBJECT_OUT_OF_MEMORY;
         break;
      }
      out->num_kernels++;
      st = decode_kernel(b + out->text_file_offset, out->text_size, s.st_value, s.st_size,
                         isa, k, error, error_size);
   }
   kiln_free(sh);
   if (st)
      amdgpu_code_object_fini(out);
   return st;
}

const struct amdgpu_kernel_desc *amdgpu_code_object_find(const struct amdgpu_code_object *co,
                                                         const char *name)
{
   for (unsigned i = 0; i < co->num_kernels; i++)
      if (!strcmp(co->kernels[i].name, name))
         return &co->kernels[i];
   return NULL;
}

/* ---- loading ---- */

enum {
   R_AMDGPU_ABS32_LO = 1,
   R_AMDGPU_ABS32_HI = 2,
   R_AMDGPU_ABS64 = 3,
   R_AMDGPU_REL32 = 4,
   R_AMDGPU_REL64 = 5,
   R_AMDGPU_ABS32 = 6,
   R_AMDGPU_REL32_LO = 10,
   R_AMDGPU_REL32_HI = 11,
};

static const struct amdgpu_co_section *image_section(const struct amdgpu_code_object *co,
                                                     unsigned index)
{
   for (unsigned i = 0; i < co->num_sections; i++)
      if (co->sections[i].index == index)
         return &co->sections[i];
   return NULL;
}

static void wr32(uint8_t *p, uint32_t v)
{
   for (int i = 0; i < 4; i++)
      p[i] = (uint8_t)(v >> (8 * i));
}

/* One REL or RELA section against its target. */
static enum amdgpu_code_object_status relocate(const struct amdgpu_code_object *co,
                                               const uint8_t *b, size_t size,
                                               const Elf64_Shdr *sh, unsigned shnum,
                                               const Elf64_Shdr *rel, uint64_t base_va,
                                               uint8_t *dst, char *error, size_t error_size)
{
   bool rela = rel->sh_type == SHT_RELA;
   size_t ent = rela ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel);
   const struct amdgpu_co_section *target = image_section(co, rel->sh_info);
   if (!target)
      return AMDGPU_CODE_OBJECT_OK; /* relocations of debug info and the like */
   if (rel->sh_entsize != ent || rel->sh_link >= shnum || sh[rel->sh_link].sh_type != SHT_SYMTAB)
      return fail(error, error_size, "bad relocation section");
   const Elf64_Shdr *symtab = &sh[rel->sh_link];
   uint64_t nsyms = symtab->sh_size / sizeof(Elf64_Sym);
   for (uint64_t i = 0; i < rel->sh_size / ent; i++) {
      Elf64_Rela r = {0};
      memcpy(&r, b + rel->sh_offset + i * ent, ent);
      uint32_t type = (uint32_t)ELF64_R_TYPE(r.r_info), symi = (uint32_t)ELF64_R_SYM(r.r_info);
      unsigned width = type == R_AMDGPU_ABS64 || type == R_AMDGPU_REL64 ? 8 : 4;
      if (target->nobits || r.r_offset > target->size || width > target->size - r.r_offset)
         return fail(error, error_size, "relocation outside its section");
      if (symi == 0 || symi >= nsyms)
         return fail(error, error_size, "relocation against a bad symbol");
      Elf64_Sym s;
      memcpy(&s, b + symtab->sh_offset + symi * sizeof(s), sizeof(s));
      const struct amdgpu_co_section *ss = s.st_shndx < shnum ? image_section(co, s.st_shndx) : NULL;
      if (!ss)
         return fail(error, error_size, "relocation against an undefined symbol");
      uint8_t *at = dst + target->image_offset + r.r_offset;
      /* REL keeps the addend in the field itself. */
      int64_t addend = r.r_addend;
      if (!rela) {
         uint64_t v = 0;
         for (unsigned k = 0; k < width; k++)
            v |= (uint64_t)at[k] << (8 * k);
         /* LLVM writes the whole addend in both halves of a LO/HI pair. */
         addend = width == 8 ? (int64_t)v : (int64_t)(int32_t)v;
      }
      uint64_t S = base_va + ss->image_offset + s.st_value;
      uint64_t P = base_va + target->image_offset + r.r_offset;
      uint64_t v;
      switch (type) {
      case R_AMDGPU_ABS32_LO: case R_AMDGPU_ABS32: v = (S + addend) & 0xffffffffu; break;
      case R_AMDGPU_ABS32_HI: v = (S + addend) >> 32; break;
      case R_AMDGPU_ABS64: v = S + addend; break;
      case R_AMDGPU_REL32: case R_AMDGPU_REL32_LO: v = (S + addend - P) & 0xffffffffu; break;
      case R_AMDGPU_REL32_HI: v = (S + addend - P) >> 32; break;
      case R_AMDGPU_REL64: v = S + addend - P; break;
      default:
         return fail(error, error_size, "relocation type %u is not supported", type);
      }
      wr32(at, (uint32_t)v);
      if (width == 8)
         wr32(at + 4, (uint32_t)(v >> 32));
   }
   (void)size;
   return AMDGPU_CODE_OBJECT_OK;
}

enum amdgpu_code_object_status amdgpu_code_object_load(const struct amdgpu_code_object *co,
                                                       const void *elf, size_t size,
                                                       uint64_t base_va, void *dst,
                                                       char *error, size_t error_size)
{
   const uint8_t *b = elf;
   uint8_t *d = dst;
   memset(d, 0, co->image_size);
   for (unsigned i = 0; i < co->num_sections; i++)
      if (!co->sections[i].nobits)
         memcpy(d + co->sections[i].image_offset, b + co->sections[i].file_offset,
                co->sections[i].size);
   /* The headers were checked by amdgpu_code_object_parse. */
   Elf64_Ehdr eh;
   memcpy(&eh, b, sizeof(eh));
   Elf64_Shdr *sh = kiln_calloc(eh.e_shnum, sizeof(*sh));
   if (!sh)
      return AMDGPU_CODE_OBJECT_OUT_OF_MEMORY;
   memcpy(sh, b + eh.e_shoff, (size_t)eh.e_shnum * sizeof(*sh));
   enum amdgpu_code_object_status st = AMDGPU_CODE_OBJECT_OK;
   for (unsigned i = 1; i < eh.e_shnum && !st; i++)
      if (sh[i].sh_type == SHT_REL || sh[i].sh_type == SHT_RELA)
         st = relocate(co, b, size, sh, eh.e_shnum, &sh[i], base_va, d, error, error_size);
   kiln_free(sh);
   return st;
}

void amdgpu_code_object_fini(struct amdgpu_code_object *co)
{
   kiln_free(co->sections);
   for (unsigned i = 0; co->kernels && i < co->num_kernels; i++)
      kiln_free(co->kernels[i].name);
   kiln_free(co->kernels);
   memset(co, 0, sizeof(*co));
}
