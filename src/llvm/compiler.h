/* What core asks of the compiler: OpenCL C source in, a loadable object
 * and kernel descriptions out.  No LLVM type crosses this interface. */
#ifndef KILN_LLVM_COMPILER_H
#define KILN_LLVM_COMPILER_H

#include <stdbool.h>
#include <stddef.h>

struct kiln_kernel_info;

enum kiln_build_status {
   KILN_BUILD_OK,
   KILN_BUILD_INVALID_OPTIONS, /* CL_INVALID_BUILD_OPTIONS */
   KILN_BUILD_FAILED,          /* CL_BUILD_PROGRAM_FAILURE; the log says why */
   KILN_BUILD_OUT_OF_MEMORY,   /* CL_OUT_OF_HOST_MEMORY */
};

/* The device a program is built for (pipe drivers fill it). */
struct kiln_compile_target {
   int opencl_version;   /* 110 for 1.1: also the newest -cl-std allowed */
   bool image_support;
   const char *cl_ext;   /* clang -cl-ext list of the device's extensions */
   bool bounds_check;    /* KILN_CHECK=bounds: instrument every access */
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
   char *target_id;      /* what the object runs on (kiln_llvm_cpu_target_id) */
   void *bitcode;        /* the program before code generation */
   size_t bitcode_size;
   void *object;         /* ELF relocatable holding __kiln_wg_<kernel> */
   size_t object_size;
   struct kiln_kernel_info *kernels;
   unsigned num_kernels;
   unsigned bounds_checked;  /* bounds_check: accesses given a check */
   unsigned bounds_searched; /* of those, checked by searching every object */
   struct kiln_build_dep *deps; /* included files, in the order first seen */
   unsigned num_deps;
};

/* Builds source for the host CPU.  Thread-safe. */
enum kiln_build_status kiln_llvm_build_cpu(const char *source, size_t size, const char *options,
                                           const struct kiln_compile_target *target,
                                           struct kiln_build_output *out);

/* Builds source for the AMD GPU processor gfx ("gfx1030"; the list is
 * llvm/amdgpu_target.h): an amdgcn-mesa-mesa3d ELF relocatable with one
 * amd_kernel_code_t-headed symbol per kernel (docs/amdgpu.md), linked with
 * libclc.  target->bounds_check is refused.  Thread-safe. */
enum kiln_build_status kiln_llvm_build_amdgpu(const char *source, size_t size,
                                              const char *options,
                                              const struct kiln_compile_target *target,
                                              const char *gfx, struct kiln_build_output *out);

/* "amdgpu:amdgcn-mesa-mesa3d:<gfx>" (kiln_malloc'd; NULL when out of
 * memory): the target id of program binaries for that processor. */
char *kiln_llvm_amdgpu_target_id(const char *gfx);

/* Checks the options alone (clBuildProgram reports CL_INVALID_BUILD_OPTIONS
 * before any work): KILN_BUILD_OK, KILN_BUILD_INVALID_OPTIONS with a reason
 * in *log (kiln_malloc'd, when there is memory for it), or
 * KILN_BUILD_OUT_OF_MEMORY. */
enum kiln_build_status kiln_llvm_check_options(const char *options, char **log);

void kiln_build_output_fini(struct kiln_build_output *out);
void kiln_build_deps_free(struct kiln_build_dep *deps, unsigned n);

/* Identifies the code this machine's CPU runs: "cpu:<triple>:<cpu>:<features>",
 * followed by ":check=bounds" for code built with bounds checks, which
 * expects a bounds table with every launch (malloc'd; NULL when out of
 * memory).  Binaries built for another id are refused. */
char *kiln_llvm_cpu_target_id(bool bounds_check);

/* "LLVM 19.1.7" (for the compile cache key and logs). */
const char *kiln_llvm_version(void);

/* "sha256:..." of the builtins library and header every CPU build links
 * (for the compile cache key). */
const char *kiln_llvm_builtins_id(void);

/* Whether KILN_DUMP asks for each build's intermediate files (a cached
 * build has none to give, so the cache is not read then). */
bool kiln_llvm_dumping(void);

#endif
