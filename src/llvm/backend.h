/* The back half of a build, from a front-end module to device code, for
 * every target: clBuildProgram's pipeline (build.c) and clLinkProgram's
 * (link.c) both end here, so that a linked program is built exactly as one
 * compiled in one piece.  What differs per target comes from the target
 * table (target_table.h); the helpers below are what the targets' lower
 * steps share. */
#ifndef KILN_LLVM_BACKEND_H
#define KILN_LLVM_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include <llvm-c/TargetMachine.h>
#include <llvm-c/Types.h>

#include "llvm/compiler.h"
#include "llvm/target_table.h"

struct kiln_build_log;
struct kiln_llvm_dump;

/* One module on its way to device code (what a target's lower step sees). */
struct kiln_llvm_job {
   LLVMModuleRef m;
   LLVMTargetMachineRef tm; /* m's data layout and triple are already tm's */
   const struct kiln_llvm_machine *machine;
   const struct kiln_compile_target *target;
   bool optimize; /* not -cl-opt-disable */
   bool linked;   /* from clLinkProgram: unresolved symbols are link errors */
   const struct kiln_llvm_dump *dump; /* KILN_DUMP's files (dump.h) */
   struct kiln_build_output *out; /* kernels already described */
   struct kiln_build_log *log;
};

/* m (the caller keeps and disposes it) becomes the device's code:
 * out->bitcode (m before code generation), target_id, kernels, object. */
enum kiln_build_status kiln_llvm_finish(LLVMModuleRef m, const struct kiln_llvm_machine *machine,
                                        const struct kiln_compile_target *target,
                                        bool optimize, bool linked,
                                        const struct kiln_llvm_dump *dump,
                                        struct kiln_build_output *out,
                                        struct kiln_build_log *log);

/* The optimiser, the target's optimized step and its final step on
 * job->m, into job->out->object (what a build does after the lower step;
 * a target's defer step runs it per kernel later). */
enum kiln_build_status kiln_llvm_codegen(struct kiln_llvm_job *job);

/* The code generator for mach (NULL with a log line when LLVM has no
 * such target), and a module made to agree with it. */
LLVMTargetMachineRef kiln_llvm_create_machine(const struct kiln_llvm_machine *mach, bool optimize,
                                              struct kiln_build_log *log);
void kiln_llvm_adopt_machine(LLVMModuleRef m, LLVMTargetMachineRef tm, const char *triple);

/* Runs an LLVM pass pipeline on the job's module; false with a log line. */
bool kiln_llvm_run_passes(const struct kiln_llvm_job *job, const char *passes);

/* Whether a function the module only declares is provided at run time
 * anyway (by the process, the driver, an intrinsic). */
typedef bool (*kiln_llvm_provided_fn)(const char *name);

/* Every function still only declared and used must be provided, else the
 * log names it (as a link error for a linked job); `from` says what the
 * builtins are ("an OpenCL C builtin Kiln provides", "in libclc"). */
bool kiln_llvm_check_undefined(const struct kiln_llvm_job *job, kiln_llvm_provided_fn provided,
                               const char *undefined_why, const char *unresolved_why);

/* -cl-fast-relaxed-math and the other math options (flags of
 * build_options.h) as function attributes on every definition of m
 * (link.c; clLinkProgram's options and IL programs' build options). */
void kiln_llvm_apply_math_options(LLVMModuleRef m, unsigned flags);

/* A copy of an LLVM memory buffer, which is disposed of (false, and
 * *data NULL, when out of memory). */
bool kiln_llvm_take_buffer(LLVMMemoryBufferRef buf, void **data, size_t *size);

#endif
