/* What core asks of the compiler: OpenCL C source in, a loadable object
 * and kernel descriptions out.  No LLVM type crosses this interface. */
#ifndef KILN_LLVM_COMPILER_H
#define KILN_LLVM_COMPILER_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

struct kiln_kernel_info;

enum kiln_build_status {
   KILN_BUILD_OK,
   KILN_BUILD_INVALID_OPTIONS, /* CL_INVALID_BUILD_OPTIONS */
   KILN_BUILD_FAILED,          /* CL_BUILD_PROGRAM_FAILURE; the log says why */
   KILN_BUILD_OUT_OF_MEMORY,   /* CL_OUT_OF_HOST_MEMORY */
};

/* The device a program is built for: core fills it from the device's
 * caps; src/llvm picks the target table's entry by ir (target_table.h). */
struct kiln_compile_target {
   const char *ir;        /* pipe_caps.ir: "cpu", "amdgcn", "nvptx" */
   const char *processor; /* pipe_caps.ir_target: "gfx1030", "sm_90"; "" for the
                           * target's default (the CPU: this machine's) */
   int opencl_version;   /* 110 for 1.1: also the newest -cl-std allowed */
   bool opencl_c_20;     /* -cl-std=CL2.0 too (CL_DEVICE_OPENCL_C_ALL_VERSIONS) */
   bool image_support;
   const char *cl_ext;   /* clang -cl-ext list of the device's extensions */
   bool bounds_check;    /* KILN_CHECK=bounds: instrument every access */
   /* CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE: a larger program-scope __global
    * variable fails the build (0: the device has none). */
   uint64_t max_global_variable_size;
};

/* A header given to clCompileProgram: source that `#include "name"`
 * finds (name may hold directories).  Borrowed for the call. */
struct kiln_header {
   const char *name;
   const char *text;
   size_t size;
};

/* One compiled object or library for kiln_llvm_link (borrowed). */
struct kiln_bitcode {
   const void *data;
   size_t size;
   /* The OpenCL C it was compiled from, when known (NULL otherwise): only
    * KILN_DUMP's .cl of the link shows it. */
   const char *source;
   size_t source_size;
};

/* A file the source included (through -I or a quoted #include), with the
 * SHA-256 of the bytes Clang read: the compile cache re-hashes these to
 * tell whether a cached build still matches the files on disk. */
struct kiln_build_dep {
   char *path;                  /* as Clang opened it */
   unsigned char sha256[32];
};

struct kiln_build_output {
   char *log;            /* never NULL after a build; "" when clean */
   char *target_id;      /* what the object runs on (kiln_llvm_target_id) */
   void *bitcode;        /* the program before code generation */
   size_t bitcode_size;
   void *object;         /* the target's final step: ELF object (CPU: holding
                          * __kiln_wg_<kernel>), code object, PTX text */
   size_t object_size;
   struct kiln_kernel_info *kernels;
   unsigned num_kernels;
   /* CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE: bytes of the program's
    * __global variables (program scope and static in functions). */
   uint64_t global_variable_size;
   unsigned bounds_checked;  /* bounds_check: accesses given a check */
   unsigned bounds_searched; /* of those, checked by searching every object */
   struct kiln_build_dep *deps; /* included files, in the order first seen */
   unsigned num_deps;
};

/* clBuildProgram: builds source for target (bitcode, kernel descriptions
 * and the target's code in out).  A target src/llvm has no entry or
 * processor for is KILN_BUILD_FAILED with the log saying so.  Thread-safe. */
enum kiln_build_status kiln_llvm_build(const char *source, size_t size, const char *options,
                                       const struct kiln_compile_target *target,
                                       struct kiln_build_output *out);

/* The same two for a program of SPIR-V (clCreateProgramWithIL): il is
 * translated to LLVM IR (spirv/spirv_tool.h), given the builtins and
 * handed to the same pipeline as clang's module.  spec_consts: the
 * translator's "--spec-const=<id>:i<bits>:<value> ..." argument, or NULL.
 * Compiler options that apply to OpenCL C alone (-D, -I, -cl-std) are
 * accepted and have nothing to act on. */
enum kiln_build_status kiln_llvm_build_il(const void *il, size_t size, const char *spec_consts,
                                          const char *options,
                                          const struct kiln_compile_target *target,
                                          struct kiln_build_output *out);
enum kiln_build_status kiln_llvm_compile_il(const void *il, size_t size,
                                            const char *spec_consts, const char *options,
                                            const struct kiln_compile_target *target,
                                            struct kiln_build_output *out);

/* The intermediate languages a device of target family ir takes, as
 * CL_DEVICE_IL_VERSION lists them ("SPIR-V_1.0 SPIR-V_1.1 ..."); NULL
 * for none (no translator in this process, or a target that cannot take
 * its output).  Decided once per process. */
const char *kiln_llvm_il_versions(const char *ir);
/* The translator's path ("" when none): compile cache keys of IL name it. */
const char *kiln_llvm_il_translator(void);
/* Those versions as minor numbers of SPIR-V 1.x (n of them; 0 for none). */
unsigned kiln_llvm_il_minors(const char *ir, unsigned *minor, unsigned max);

/* Whether il[0..size) is a SPIR-V module of a version ir's devices take
 * (its header; the translator judges the rest at the build). */
bool kiln_llvm_il_ok(const char *ir, const void *il, size_t size);

/* The ids and byte sizes of il's specialization constants, at most max of
 * them; -1 when the translator cannot tell (a malformed module). */
int kiln_llvm_il_spec_constants(const void *il, size_t size, unsigned *ids, unsigned *sizes,
                                int max);

/* clCompileProgram: source (and headers) to a compiled object, LLVM
 * bitcode in out->bitcode, with out->target_id naming the device it is
 * for, and out->deps the files it included from disk (as a build's, for
 * the compile cache).  Kernel descriptions and device code come only from
 * kiln_llvm_link.  Thread-safe. */
enum kiln_build_status kiln_llvm_compile(const char *source, size_t size, const char *options,
                                         const struct kiln_header *headers,
                                         unsigned num_headers,
                                         const struct kiln_compile_target *target,
                                         struct kiln_build_output *out);

/* clLinkProgram: links compiled objects and libraries (bitcode of the
 * same target) with the link options (kiln_link_options_parse).  With
 * -create-library the result is bitcode alone; otherwise the same back
 * half as a build runs once over the linked module (work-group functions,
 * code generation) and out holds everything a build gives.  Unresolved
 * and duplicate symbols are KILN_BUILD_FAILED with the log naming them;
 * bad options KILN_BUILD_INVALID_OPTIONS.  Thread-safe. */
enum kiln_build_status kiln_llvm_link(const struct kiln_bitcode *inputs, unsigned n,
                                      const char *options,
                                      const struct kiln_compile_target *target,
                                      struct kiln_build_output *out);

/* Checks clLinkProgram's options alone, as kiln_llvm_check_options does
 * for builds; *library tells whether -create-library was given. */
enum kiln_build_status kiln_llvm_check_link_options(const char *options, bool *library,
                                                    char **log);

/* Checks the options alone (clBuildProgram reports CL_INVALID_BUILD_OPTIONS
 * before any work): KILN_BUILD_OK, KILN_BUILD_INVALID_OPTIONS with a reason
 * in *log (kiln_malloc'd, when there is memory for it), or
 * KILN_BUILD_OUT_OF_MEMORY. */
enum kiln_build_status kiln_llvm_check_options(const char *options, char **log);

void kiln_build_output_fini(struct kiln_build_output *out);
void kiln_build_deps_free(struct kiln_build_dep *deps, unsigned n);

/* The id of the code target runs, which binaries and the compile cache
 * must match (*id kiln_malloc'd): "<kind>:<triple>:<processor>[:<features>]",
 * e.g. "cpu:x86_64-pc-linux-gnu:znver3:+avx2,...", "amdgpu:amdgcn-mesa-mesa3d:
 * gfx1030", followed by ":check=bounds" for code built with bounds checks
 * (which expects a bounds table with every launch).  KILN_BUILD_FAILED
 * when src/llvm does not compile for target; KILN_BUILD_OUT_OF_MEMORY. */
enum kiln_build_status kiln_llvm_target_id(const struct kiln_compile_target *target,
                                           char **id);

/* "LLVM 19.1.7" (for the compile cache key and logs). */
const char *kiln_llvm_version(void);

/* What identifies the builtins a build for target links, and the header
 * every build reads (for the compile cache key): "sha256:..." of Kiln's
 * own library and header, with libclc's file, size and modification time
 * for targets that link libclc (kiln_malloc'd; NULL when out of memory or
 * for a target src/llvm does not know). */
char *kiln_llvm_builtins_id(const struct kiln_compile_target *target);

/* Whether KILN_DUMP asks for each build's, compile's and link's
 * intermediate files (a cached result has none to give, so the cache is
 * not read then). */
bool kiln_llvm_dumping(void);

#endif
