/* Checks that a CPU program object is well-formed enough to link. */
#ifndef KILN_LLVM_ELF_CHECK_H
#define KILN_LLVM_ELF_CHECK_H

#include <stdbool.h>
#include <stddef.h>

/* True when data is an x86-64 ELF relocatable whose headers, sections,
 * symbols and relocations all point inside the file. */
bool kiln_elf_check(const void *data, size_t size);

#endif
