/* The compiler's target table: one entry per kind of code Kiln generates,
 * found by the name a device's caps give (pipe_caps.ir).  Everything that
 * differs between targets is here, so the one build pipeline (build.c,
 * backend.c, link.c) never asks which target it runs for, and a new
 * target is a new folder (src/llvm/<name>/) plus one line in
 * target_table.c.
 *
 * Internal to src/llvm: it speaks LLVM-C types. */
#ifndef KILN_LLVM_TARGET_TABLE_H
#define KILN_LLVM_TARGET_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include <llvm-c/TargetMachine.h>
#include <llvm-c/Types.h>

#include "llvm/compiler.h"

struct kiln_build_log;
struct kiln_llvm_job;

/* Where a target's OpenCL C builtins come from. */
enum kiln_llvm_builtins {
   KILN_LLVM_BUILTINS_KILN,   /* Kiln's own CPU library, built in (builtins.h) */
   KILN_LLVM_BUILTINS_LIBCLC, /* libclc's bitcode: <libclc_dir>/<machine.libclc> */
};

/* A target entry made concrete for one processor: what the front end and
 * code generation are given.  Strings are kiln_malloc'd (kiln_llvm_machine_fini). */
struct kiln_llvm_machine {
   const struct kiln_llvm_target *target;
   char *triple;   /* code generation's ("x86_64-pc-linux-gnu", "amdgcn-mesa-mesa3d") */
   char *cpu;      /* LLVM's processor: "znver3", "gfx1030", "sm_90" */
   char *features; /* "+avx2,..."; "" for the processor's defaults */
   char *libclc;   /* KILN_LLVM_BUILTINS_LIBCLC: the file under the libclc directory */
   /* Settings of Kiln's own passes that change the code, for the id
    * ("jam-prefetch=512": KILN_JAM_PREFETCH); NULL for none. */
   char *codegen;
};

struct kiln_llvm_target {
   /* pipe_caps.ir: "cpu", "amdgcn", "nvptx". */
   const char *name;
   /* The first field of this target's ids (kept from before the table:
    * binaries and cache entries already carry "cpu:" and "amdgpu:"). */
   const char *id_name;
   /* The front end's triple, which the builtins library is built for.
    * For the CPU a baseline x86-64: the IR calling convention of wide
    * vectors depends on CPU features, and kernels must call the library's
    * definitions with the signatures they have; the host's CPU and
    * features are applied after linking (machine.triple). */
   const char *triple;
   /* Makes the entry concrete for pipe_caps.ir_target (m->target is set;
    * "" is the target's default, the host for the CPU).  KILN_BUILD_FAILED
    * with a log line when Kiln does not compile for it. */
   enum kiln_build_status (*resolve)(const char *processor, struct kiln_llvm_machine *m,
                                     struct kiln_build_log *log);
   enum kiln_llvm_builtins builtins;
   /* Optional: a library of Kiln's linked before those builtins (nvptx:
    * the image functions, which call libclc). */
   const unsigned char *(*builtins_first)(size_t *size);
   /* Whether the front end gets -target-cpu and the machine's features
    * (GPU builtins are compiled per processor, nvptx's for a PTX ISA
    * version; the CPU's are a baseline, see triple). */
   bool frontend_cpu;
   /* KILN_CHECK=bounds can instrument this target's code. */
   bool bounds_check;
   /* Takes SPIR-V (clCreateProgramWithIL) when the translator is there:
    * the module it gives uses SPIR's address spaces and OpenCL C 1.2's
    * builtin names, which only the CPU's library and lowering match
    * (spirv/spirv_module.h). */
   bool spirv;
   /* The target's own work between the kernel descriptions and the
    * optimiser (CPU: work-group functions; GPUs: what their ABI needs).
    * It may replace job->m with a module it made in the same context
    * (nvptx rewrites its IR text); backend.c then disposes of that one.
    * KILN_BUILD_FAILED with the log saying why. */
   enum kiln_build_status (*lower)(struct kiln_llvm_job *job);
   /* The optimiser: [0] under -cl-opt-disable, [1] otherwise. */
   const char *passes[2];
   /* After the optimiser, before code generation (NULL: nothing): what the
    * target records of the optimised code (CPU: each work-group
    * function's stack), and what its code generator cannot compile turned
    * into a log line instead of an LLVM abort (nvptx: nvptx_math.c).
    * KILN_BUILD_FAILED with the log saying why. */
   enum kiln_build_status (*optimized)(struct kiln_llvm_job *job);
   /* Optional: instead of the optimiser and the final step over the
    * whole lowered module, what the build keeps so that each kernel is
    * compiled at its first use (CPU: cpu_code.h); job->out->object is
    * then that, for the target's driver to read.  Not used under
    * KILN_DUMP, which wants every intermediate file of the build. */
   enum kiln_build_status (*defer)(struct kiln_llvm_job *job);
   bool vectorize;  /* loop and SLP vectorisation in those passes */
   LLVMCodeGenOptLevel codegen_opt;
   LLVMCodeModel code_model;
   /* The final step: an ELF object (CPU: what the JIT loads; amdgcn: the
    * code object) or assembly (nvptx: PTX text for the driver's JIT). */
   LLVMCodeGenFileType emit;
   const char *emit_ext; /* KILN_DUMP's extension for it: "o", "ptx" */
};

/* The entry named ir, NULL when there is none. */
const struct kiln_llvm_target *kiln_llvm_target_find(const char *ir);

/* The entry for t->ir resolved for t->processor.  KILN_BUILD_FAILED and
 * KILN_BUILD_OUT_OF_MEMORY with the log saying why. */
enum kiln_build_status kiln_llvm_machine_init(struct kiln_llvm_machine *m,
                                              const struct kiln_compile_target *t,
                                              struct kiln_build_log *log);
void kiln_llvm_machine_fini(struct kiln_llvm_machine *m);

/* "<id_name>:<triple>:<cpu>[:<features>][:<codegen>][:check=bounds]" (kiln_malloc'd;
 * NULL when out of memory).  A target that cannot check has no suffix
 * either way: its builds under KILN_CHECK=bounds fail, and its binaries
 * stay usable. */
char *kiln_llvm_machine_id(const struct kiln_llvm_machine *m, bool bounds_check);

/* The machine's builtins library: *data borrowed for Kiln's own (*owned
 * false), kiln_malloc'd for libclc's (*owned true). */
enum kiln_build_status kiln_llvm_machine_builtins(const struct kiln_llvm_machine *m,
                                                  const void **data, size_t *size,
                                                  bool *owned, struct kiln_build_log *log);

/* The entries, one per folder of src/llvm. */
extern const struct kiln_llvm_target kiln_llvm_target_cpu;    /* cpu/cpu_target.c */
extern const struct kiln_llvm_target kiln_llvm_target_amdgcn; /* amdgpu/compiler_amdgpu.c */
extern const struct kiln_llvm_target kiln_llvm_target_nvptx;  /* nvptx/compiler_nvptx.c */

#endif
