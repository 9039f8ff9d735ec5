/* OpenCL C source → LLVM module, through Clang running in this process.
 * The C face of src/llvm/clc_frontend.cpp (Kiln's one C++ file).
 * It speaks LLVM-C types, so only src/llvm includes it; core sees
 * build_options.h and src/llvm's program-level interface. */
#ifndef KILN_LLVM_CLC_FRONTEND_H
#define KILN_LLVM_CLC_FRONTEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <llvm-c/Types.h>

#include "llvm/build_options.h"

#ifdef __cplusplus
extern "C" {
#endif

#include "llvm/compiler.h"

/* Diagnostics name the source after this file; Kiln has no file of it. */
#define KILN_CLC_SOURCE_NAME "input.cl"
/* Where the libraries to link appear to Clang (in-memory files). */
#define KILN_CLC_LINK_DIR "/kiln-builtins"
#define KILN_CLC_LINK_NAME KILN_CLC_LINK_DIR "/library.bc"
#define KILN_CLC_LINK_FIRST_NAME KILN_CLC_LINK_DIR "/first.bc"
/* Where clCompileProgram's input headers appear to Clang (in memory): the
 * first -I directory, so "name" and "dir/name" resolve as the application
 * named them, and includes between headers resolve relative to them. */
#define KILN_CLC_HEADER_DIR "/kiln-input-headers"

/* A build's limits (docs/design.md, "Compiler limits"), each a fatal error
 * in the log.  Tokens: every token the preprocessor lexes, in directives
 * and macro arguments too, so that an exponential macro stops in seconds.
 * Operators: the punctuators of one statement (the chain `a + b + ...`
 * that Clang parses in a loop but checks and compiles by recursion). */
#define KILN_CLC_MAX_TOKENS ((uint64_t)1 << 24)
#define KILN_CLC_MAX_OPERATORS 20000

/* What a device compiles for. Strings are borrowed for the call. */
struct kiln_clc_target {
   const char *triple;   /* "x86_64-pc-linux-gnu", "amdgcn-mesa-mesa3d", ... */
   const char *cpu;      /* -target-cpu; NULL or "" for the triple's default */
   const char *features; /* "+a,-b,..." as LLVM writes them; NULL for none */
   /* clang -cl-ext list ("-all,+cl_khr_fp64,..."): the extensions the device
    * reports, so that exactly their macros are defined. NULL keeps clang's
    * per-triple default (on x86 that is every extension, fp16 included). */
   const char *cl_ext;
   /* CL_DEVICE_VERSION as 110 for "OpenCL 1.1": clang leaves
    * __OPENCL_VERSION__ (§6.9) to the implementation. 0 leaves it undefined. */
   int opencl_version;
   bool image_support;   /* defines __IMAGE_SUPPORT__ (§6.9) */
   /* Bitcode library whose definitions the program uses (Kiln's builtins):
    * clang links in only what the program reaches, made internal, as
    * -mlink-builtin-bitcode does.  NULL for none. */
   const void *link_bitcode;
   size_t link_bitcode_size;
   /* Linked before link_bitcode, which then also gives what this one's
    * definitions call (nvptx: Kiln's image functions over libclc).  NULL
    * for none. */
   const void *link_first;
   size_t link_first_size;
   /* clCompileProgram's input_headers (NULL, 0 for none). */
   const struct kiln_header *headers;
   unsigned num_headers;
};

enum kiln_clc_status {
   KILN_CLC_OK = 0,
   KILN_CLC_BUILD_FAILURE, /* → CL_BUILD_PROGRAM_FAILURE; the log says why */
   KILN_CLC_OUT_OF_MEMORY, /* → CL_OUT_OF_HOST_MEMORY */
};

/* Compiles source[0..source_size) (no NUL needed) for `target` with the
 * parsed `options`, into a new module owned by the caller and living in
 * `context`, which the caller created and keeps for the module's lifetime.
 *
 * The module is returned in memory rather than as bitcode: the next stages
 * (linking builtins, optimisation, code generation) work on modules in the
 * same context, so a write/read round trip would only cost time. Clang runs
 * its front end only (no LLVM passes) and without optnone, so every
 * kernel's metadata survives and the later pipeline decides the
 * optimisation level (it sees options->flags, -cl-opt-disable included).
 *
 * *log receives a malloc'ed, NUL-terminated build log (free() it): every
 * Clang diagnostic as clang prints it ("input.cl:3:5: error: ..."), never
 * empty when the result is KILN_CLC_BUILD_FAILURE. It may be NULL after
 * KILN_CLC_OUT_OF_MEMORY.
 *
 * Thread-safe: concurrent calls may run as long as each uses its own
 * context (an LLVMContext is not thread-safe). */
enum kiln_clc_status
kiln_clc_compile(const char *source, size_t source_size,
                 const struct kiln_build_options *options,
                 const struct kiln_clc_target *target,
                 LLVMContextRef context, LLVMModuleRef *module, char **log);

/* As kiln_clc_compile, and also lists in *deps (kiln_malloc'd array of
 * *num_deps, NULL when none) every file the source included, with the
 * hash of its contents as Clang read them; Clang's own headers and the
 * in-memory files are left out (the LLVM version and builtins hash stand
 * for them).  Out of memory while listing: KILN_CLC_OUT_OF_MEMORY. */
enum kiln_clc_status
kiln_clc_compile_deps(const char *source, size_t source_size,
                      const struct kiln_build_options *options,
                      const struct kiln_clc_target *target,
                      LLVMContextRef context, LLVMModuleRef *module, char **log,
                      struct kiln_build_dep **deps, unsigned *num_deps);

/* The IL front end's builtins link: what module uses of library (both in
 * one context; library is consumed) is linked in and made internal, as
 * clang's -mlink-builtin-bitcode does for source.  false when the link
 * fails (the context's diagnostic handler hears why). */
bool kiln_clc_link_builtins(LLVMModuleRef module, LLVMModuleRef library);

#ifdef __cplusplus
}
#endif

#endif
