#include "llvm/amdgpu/disasm.h"

#include <inttypes.h>
#include <llvm-c/Disassembler.h>
#include <stdio.h>
#include <string.h>

#include "llvm/amdgpu/amdgpu_target.h"
#include "llvm/build_log.h"
#include "llvm/guard.h"
#include "llvm/target.h"

struct disasm {
   const char *gfx;
   uint8_t *bytes; /* LLVMDisasmInstruction takes it non-const */
   size_t size;
   uint64_t address;
   struct kiln_build_log text;
};

static void disassemble(void *p)
{
   struct disasm *d = p;
   kiln_llvm_init_targets();
   LLVMDisasmContextRef dc =
      LLVMCreateDisasmCPU(KILN_AMDGPU_TRIPLE, d->gfx, NULL, 0, NULL, NULL);
   if (!dc)
      return;
   uint8_t *bytes = d->bytes;
   size_t size = d->size;
   uint64_t address = d->address;
   struct kiln_build_log text = {0};
   kiln_build_log_append(&text, "%s", "");
   for (size_t pos = 0; pos < size;) {
      char line[256];
      size_t n = LLVMDisasmInstruction(dc, bytes + pos, size - pos, address + pos, line,
                                       sizeof(line));
      if (n) {
         /* LLVM indents with a tab; the address column replaces it. */
         const char *s = line;
         while (*s == '\t' || *s == ' ')
            s++;
         kiln_build_log_append(&text, "  %08" PRIx64 ":  %s\n", address + pos, s);
         pos += n;
      } else {
         uint32_t word = 0;
         memcpy(&word, bytes + pos, size - pos < 4 ? size - pos : 4);
         kiln_build_log_append(&text, "  %08" PRIx64 ":  .long 0x%08" PRIx32 "\n",
                               address + pos, word);
         pos += 4;
      }
   }
   LLVMDisasmDispose(dc);
   d->text = text;
}

/* Under kiln_llvm_guard: LLVM running out of memory gives NULL, as the
 * other failures do, not the end of the process.  What a failed run held
 * is leaked (guard.h). */
char *kiln_llvm_disassemble_amdgpu(const char *gfx, const void *code, size_t size,
                                   uint64_t address)
{
   struct disasm d = {.gfx = gfx, .bytes = (uint8_t *)code, .size = size, .address = address};
   if (kiln_llvm_guard(disassemble, &d, NULL, 0) != KILN_LLVM_GUARD_OK)
      return NULL;
   return d.text.text;
}
