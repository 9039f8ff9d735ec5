#include "llvm/amdgpu/disasm.h"

#include <inttypes.h>
#include <llvm-c/Disassembler.h>
#include <stdio.h>
#include <string.h>

#include "llvm/amdgpu/amdgpu_target.h"
#include "llvm/build_log.h"
#include "llvm/target.h"

char *kiln_llvm_disassemble_amdgpu(const char *gfx, const void *code, size_t size,
                                   uint64_t address)
{
   kiln_llvm_init_targets();
   LLVMDisasmContextRef dc = LLVMCreateDisasmCPU(KILN_AMDGPU_TRIPLE, gfx, NULL, 0, NULL, NULL);
   if (!dc)
      return NULL;
   struct kiln_build_log text = {0};
   kiln_build_log_append(&text, "%s", "");
   uint8_t *bytes = (uint8_t *)code;
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
   return text.text;
}
