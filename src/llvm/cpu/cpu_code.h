/* A CPU program's device code when its kernels are compiled at their
 * first use (docs/design.md, "Kernels compiled when first needed"):
 * clBuildProgram runs the front end and the module-wide lowering (every
 * error a program can have is found there) and keeps the lowered module;
 * each kernel's work-group function is optimised and code-generated on
 * its own, when the driver first needs it, into an ELF object the JIT
 * adds to the program.  The container (what core stores as the build's
 * object, in binaries and the compile cache) holds:
 *   the machine (triple, CPU, features) and whether to optimise,
 *   the lowered module's bitcode,
 *   the common object: the program's variables, defined once,
 *   per kernel: its name and its object, once compiled.
 * Not thread-safe: the driver serializes calls on one kiln_cpu_code. */
#ifndef KILN_LLVM_CPU_CODE_H
#define KILN_LLVM_CPU_CODE_H

#include <stdbool.h>
#include <stddef.h>

struct kiln_cpu_code;
struct kiln_llvm_job;

/* cpu_target.c's defer step: job->out->object becomes the container of
 * job->m (lowered), no kernel compiled yet. */
enum kiln_build_status kiln_cpu_code_defer(struct kiln_llvm_job *job);

/* Whether data is such a container (else: a whole program's ELF object,
 * as KILN_DUMP builds and binaries of older Kiln have it). */
bool kiln_cpu_code_recognize(const void *data, size_t size);

/* Reads a container (copied); NULL with *error (kiln_malloc'd) when it
 * is malformed, or left NULL when out of host memory. */
struct kiln_cpu_code *kiln_cpu_code_open(const void *data, size_t size, char **error);
void kiln_cpu_code_close(struct kiln_cpu_code *c);

unsigned kiln_cpu_code_num_kernels(const struct kiln_cpu_code *c);
const char *kiln_cpu_code_kernel_name(const struct kiln_cpu_code *c, unsigned i);
/* Kernel i's object (NULL until compiled); i == -1: the common object. */
const void *kiln_cpu_code_object(const struct kiln_cpu_code *c, int i, size_t *size);

/* Optimises and code-generates kernel i (on the compiler stack, guarded):
 * true with its object in c; false with *error (kiln_malloc'd) saying
 * why, or NULL when out of host memory. */
bool kiln_cpu_code_compile(struct kiln_cpu_code *c, unsigned i, char **error);

/* The container as it stands now (kiln_malloc'd; NULL when out of
 * memory). */
void *kiln_cpu_code_write(const struct kiln_cpu_code *c, size_t *size);

/* How many kernels this process compiled with kiln_cpu_code_compile (for
 * tests: a kernel never launched nor queried is never compiled). */
unsigned long kiln_cpu_code_compiles(void);

#endif
