/* LLVM's view of the machines Kiln compiles for. */
#ifndef KILN_LLVM_TARGET_H
#define KILN_LLVM_TARGET_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The host, as the CPU device hands it to the front end. */
struct kiln_llvm_host {
   char *triple;   /* e.g. "x86_64-pc-linux-gnu" */
   char *cpu;      /* e.g. "znver3"; clang's -target-cpu */
   char *features; /* "+sse2,+avx,-avx512f,..."; clang's -target-feature list */
};

/* Fills *host with malloc'ed strings (release them with kiln_llvm_host_fini).
 * Returns false when out of memory, leaving *host empty. */
bool kiln_llvm_host_query(struct kiln_llvm_host *host);
void kiln_llvm_host_fini(struct kiln_llvm_host *host);

/* Registers the LLVM targets Kiln generates code for (X86, AMDGPU, NVPTX).
 * Idempotent and safe to call from any number of threads at once; every
 * entry point of src/llvm that needs a target calls it first. */
void kiln_llvm_init_targets(void);

#ifdef __cplusplus
}
#endif

#endif
