/* The LLVM/SPIR-V translator Kiln reads SPIR-V with: a separate program
 * (Debian's llvm-spirv-15), run as a child process.  Its library is built
 * on LLVM 15, which cannot share a process with Kiln's LLVM 19; its
 * output, LLVM 15 bitcode, is what LLVM 19's bitcode reader takes.
 * No LLVM here. */
#ifndef KILN_LLVM_SPIRV_TOOL_H
#define KILN_LLVM_SPIRV_TOOL_H

#include <stdbool.h>
#include <stddef.h>

#include "llvm/compiler.h"

struct kiln_build_log;

#define KILN_SPIRV_MAX_VERSIONS 8

struct kiln_spirv_tool {
   char path[4096];
   /* The SPIR-V versions it reads, as minor numbers of 1.x, ascending
    * (from its --help: the values --spirv-max-version takes, up to 1.3:
    * spirv_tool.c says why). */
   unsigned minor[KILN_SPIRV_MAX_VERSIONS];
   unsigned num_versions;
   char versions[128]; /* CL_DEVICE_IL_VERSION: "SPIR-V_1.0 SPIR-V_1.1 ..." */
};

/* The translator of this process, looked up once (KILN_LLVM_SPIRV, else
 * llvm-spirv-15 or -14 in the usual directories, docs/env.md); NULL when
 * there is none, or it does not answer --help as a translator does. */
const struct kiln_spirv_tool *kiln_spirv_tool(void);

/* Whether il[0..size) starts as a SPIR-V module of a version tool reads
 * (magic number, version word, a whole number of words, the header). */
bool kiln_spirv_header_ok(const struct kiln_spirv_tool *tool, const void *il, size_t size);

/* SPIR-V to LLVM bitcode (*bitcode kiln_malloc'd), with OpenCL C 1.2's
 * builtin calls.  spec_consts: "--spec-const=..." or NULL.  What the tool
 * prints goes to log.  KILN_BUILD_FAILED when it fails (the log says
 * why), KILN_BUILD_OUT_OF_MEMORY.  Thread-safe: each call works in a
 * directory of its own, removed before it returns. */
enum kiln_build_status kiln_spirv_translate(const struct kiln_spirv_tool *tool, const void *il,
                                            size_t size, const char *spec_consts,
                                            void **bitcode, size_t *bitcode_size,
                                            struct kiln_build_log *log);

/* The ids and sizes of il's specialization constants (--spec-const-info),
 * at most max; -1 when the tool fails. */
int kiln_spirv_spec_constants(const struct kiln_spirv_tool *tool, const void *il, size_t size,
                              unsigned *ids, unsigned *sizes, int max);

#endif
