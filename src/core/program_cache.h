/* The persistent compile cache of program builds (docs/cache.md): what
 * clBuildProgram, clCompileProgram or clLinkProgram produced for one
 * device, found again by a hash of everything it depended on, so that a
 * warm build runs neither Clang nor LLVM. */
#ifndef KILN_CORE_PROGRAM_CACHE_H
#define KILN_CORE_PROGRAM_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/fcache.h"

struct kiln_compile_target;
struct kiln_program_build;
struct kiln_build_dep;
struct kiln_header;
struct kiln_bitcode;

/* The process's cache (KILN_CACHE, KILN_CACHE_DIR, XDG_CACHE_HOME, HOME,
 * KILN_CACHE_SIZE, read once), or NULL when it is off or unusable. */
struct kiln_fcache *kiln_program_cache(void);

/* For tests (tests/unit/test_faults.c): the process's cache becomes one
 * in dir, or none when dir is NULL.  No build may be running. */
void kiln_program_cache_use(const char *dir, uint64_t max_bytes);

/* The key of a build: the source's bytes, the options, the device's target
 * id, language version, extensions and image support, and the versions of
 * Kiln (its build-id), LLVM and the target's builtins.  False when out of
 * host memory or for a target src/llvm does not compile for (no cache). */
bool kiln_program_cache_key(const char *source, size_t size, const char *options,
                            const struct kiln_compile_target *target,
                            unsigned char key[KILN_FCACHE_KEY_SIZE]);
/* The same for an IL program's build or compile: its SPIR-V, the
 * specialization constants' argument (NULL: none) and the translator. */
bool kiln_program_cache_il_key(const void *il, size_t size, const char *spec,
                               const char *options, bool compile,
                               const struct kiln_compile_target *target,
                               unsigned char key[KILN_FCACHE_KEY_SIZE]);

/* The key of a clCompileProgram: as a build's, under another name (a
 * compiled object is not an executable), with each header given to it,
 * name and contents, in order. */
bool kiln_program_cache_compile_key(const char *source, size_t size, const char *options,
                                    const struct kiln_header *headers, unsigned num_headers,
                                    const struct kiln_compile_target *target,
                                    unsigned char key[KILN_FCACHE_KEY_SIZE]);

/* The key of a clLinkProgram for one device: the link options and every
 * input's bitcode, in order (what the link reads; an input compiled from
 * a cached entry has the same bytes as a fresh one), and the same device
 * and version fields as a build's. */
bool kiln_program_cache_link_key(const struct kiln_bitcode *inputs, unsigned n,
                                 const char *options, const struct kiln_compile_target *target,
                                 unsigned char key[KILN_FCACHE_KEY_SIZE]);

/* A hit fills b's object, kernels, target, bitcode, options, binary type
 * and log (b must be empty of those) and returns true.  A miss, an entry
 * for another target or of another binary type than binary_type
 * (CL_PROGRAM_BINARY_TYPE_*), or one whose included files changed on
 * disk, returns false with b untouched. */
bool kiln_program_cache_load(struct kiln_fcache *c, const unsigned char key[KILN_FCACHE_KEY_SIZE],
                             const struct kiln_compile_target *target, unsigned binary_type,
                             struct kiln_program_build *b);

/* Stores a successful build with the files it included.  Failures (disk
 * full, out of memory) are only logged: the build stands without it. */
void kiln_program_cache_store(struct kiln_fcache *c, const unsigned char key[KILN_FCACHE_KEY_SIZE],
                              const struct kiln_program_build *b,
                              const struct kiln_build_dep *deps, unsigned num_deps);

/* Replaces the binary of an entry already stored (its included files and
 * log kept) with b's: the CPU device compiles kernels when first needed,
 * and the entry gains them when the program is released.  Nothing when
 * the entry is gone. */
void kiln_program_cache_update(struct kiln_fcache *c, const unsigned char key[KILN_FCACHE_KEY_SIZE],
                               const struct kiln_program_build *b);

#endif
