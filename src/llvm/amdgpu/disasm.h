/* Machine code as text, for kiln-compile --disassemble.  No LLVM types. */
#ifndef KILN_LLVM_DISASM_H
#define KILN_LLVM_DISASM_H

#include <stddef.h>
#include <stdint.h>

/* The instructions of code[0..size), which the GPU sees at `address`, for
 * AMD processor gfx: one line per instruction ("  <address>: <text>"),
 * undecodable words as ".long".  kiln_malloc'd; NULL when out of memory
 * or when LLVM has no disassembler for gfx. */
char *kiln_llvm_disassemble_amdgpu(const char *gfx, const void *code, size_t size,
                                   uint64_t address);

#endif
