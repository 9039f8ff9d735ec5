/* KILN_DUMP=<dir> (docs/dump.md): the files one build, compile or link
 * leaves behind, named after the program so that the dumps of several
 * programs of one application can be told apart:
 *
 *   <dir>/kiln-<pid>-<n>-<hash>[-<kernel>].<ext>
 *
 * <n> counts the process's builds, compiles and links from 0; <hash> is the
 * first 8 hex digits of the SHA-256 of the .cl file (`sha256sum` finds it
 * again); <kernel> is the program's first kernel, once the front end (or
 * the link) has made the module, and absent when it never did. */
#ifndef KILN_LLVM_DUMP_H
#define KILN_LLVM_DUMP_H

#include <stdbool.h>
#include <stddef.h>

#include <llvm-c/Types.h>

struct kiln_bitcode;

struct kiln_llvm_dump {
   char base[4096]; /* "<dir>/kiln-..." without extension; "" when not dumping */
   bool named;      /* the kernel's name is in base (or there is none) */
};

/* Starts the dump of a build or compile of source (d->base "" unless
 * KILN_DUMP is set) and writes its .cl at once, so that a compiler that
 * crashes still leaves it. */
void kiln_llvm_dump_begin(struct kiln_llvm_dump *d, const char *source, size_t size);

/* The same for a link: the .cl holds each input's source where it is
 * known (struct kiln_bitcode's source), after a comment naming the input
 * and its bitcode's SHA-256. */
void kiln_llvm_dump_begin_link(struct kiln_llvm_dump *d, const struct kiln_bitcode *inputs,
                               unsigned n);

/* Adds m's first kernel to the name (once), renaming what was written. */
void kiln_llvm_dump_name(struct kiln_llvm_dump *d, LLVMModuleRef m);

/* <base>.<ext>; nothing when not dumping or the file cannot be written. */
void kiln_llvm_dump_bytes(const struct kiln_llvm_dump *d, const char *ext, const void *data,
                          size_t size);
void kiln_llvm_dump_module(const struct kiln_llvm_dump *d, const char *ext, LLVMModuleRef m);

#endif
