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

void amdgpu_code_object_fini(struct amdgpu_code_object *co)
{
   for (unsigned i = 0; co->kernels && i < co->num_kernels; i++)
      kiln_free(co->kernels[i].name);
   kiln_free(co->kernels);
   memset(co, 0, sizeof(*co));
}
