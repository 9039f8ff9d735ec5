/* Program objects: source or binaries, and one build per device. */
#ifndef KILN_CORE_PROGRAM_H
#define KILN_CORE_PROGRAM_H

#include <pthread.h>

#include "core/object.h"

struct kiln_kernel_info;

/* A program as built for one device. */
struct kiln_program_build {
   cl_build_status status;
   char *log;     /* "" until a build */
   char *options; /* as given to the last build */
   void *object;  /* device code */
   size_t object_size;
   struct kiln_kernel_info *kernels;
   unsigned num_kernels;
   char *target;  /* id of the code's target (binary container) */
   void *bitcode; /* the program before code generation */
   size_t bitcode_size;
   void *loaded;  /* the pipe driver's loaded program */
   /* CL_PROGRAM_BINARY_TYPE_NONE, _COMPILED_OBJECT and _LIBRARY (bitcode,
    * no object) or _EXECUTABLE (object; loaded once built). */
   cl_program_binary_type binary_type;
   uint64_t global_variable_size; /* CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE */
   /* The compile cache's entry for this build, which gains the kernels
    * the driver compiles after the build (pipe_screen::program_code) when
    * the build is cleared. */
   bool cache_keyed;
   unsigned char cache_key[32];
   /* kernels' indices in name order, made at the first clCreateKernel
    * (under the program's lock): one binary search per kernel created. */
   unsigned *by_name;
};

struct _cl_program {
   struct kiln_object obj;
   cl_context context;
   char *source; /* NULL for programs from binaries and IL */
   size_t source_size;
   void *il;     /* clCreateProgramWithIL's SPIR-V; NULL for the others */
   size_t il_size;
   /* clSetProgramSpecializationConstant's values (program_il.c); NULL
    * until the first.  Under lock. */
   struct kiln_spec_constants *spec;
   cl_uint num_devices;
   cl_device_id *devices;
   struct kiln_program_build *builds; /* one per device, same order */

   pthread_mutex_t lock;
   unsigned num_kernel_objects; /* a build is refused while kernels exist */
   bool building;
};

static inline cl_program kiln_program_from(cl_program p)
{
   return (cl_program)kiln_object_lookup(p, KILN_TYPE_PROGRAM);
}

cl_int kiln_program_create_source(cl_context ctx, char *source, size_t size, cl_program *out);
/* binaries[i] of lengths[i] for devices[i]; status[i] per device. */
cl_int kiln_program_create_binary(cl_context ctx, cl_uint n, const cl_device_id *devices,
                                  const unsigned char **binaries, const size_t *lengths,
                                  cl_int *status, cl_program *out);

/* clCreateProgramWithIL after the API checks (the context has a device
 * that takes IL and il's header is one it reads): a program of every
 * device of ctx holding a copy of il. */
cl_int kiln_program_create_il(cl_context ctx, const void *il, size_t size, cl_program *out);

/* clSetProgramSpecializationConstant for an IL program: CL_SUCCESS,
 * CL_INVALID_SPEC_ID (no such constant in the module), CL_INVALID_VALUE
 * (spec_size is not its size), CL_OUT_OF_HOST_MEMORY. */
cl_int kiln_program_set_spec_constant(cl_program prog, cl_uint spec_id, size_t spec_size,
                                      const void *spec_value);

/* *out: the translator's argument for the constants set so far
 * ("--spec-const=3:i32:42 ..."), kiln_malloc'd, or NULL for a program
 * without IL or with none set.  CL_OUT_OF_HOST_MEMORY when it could not
 * be made.  Takes prog->lock. */
cl_int kiln_program_spec_arg(cl_program prog, char **out);

/* Builds for the given devices (all of the program's when n is 0).
 * Returns CL_SUCCESS, CL_BUILD_PROGRAM_FAILURE, CL_INVALID_BUILD_OPTIONS,
 * CL_INVALID_OPERATION (kernels attached or a build running) or
 * CL_OUT_OF_HOST_MEMORY. */
cl_int kiln_program_build(cl_program prog, cl_uint n, const cl_device_id *devices,
                          const char *options);

/* Index of dev in prog->devices, or -1. */
int kiln_program_device_index(cl_program prog, cl_device_id dev);

/* The program's kernel named name on its first built device, or NULL. */
const struct kiln_kernel_info *kiln_program_find_kernel(cl_program prog, const char *name);
/* Whether some device has a successful build. */
bool kiln_program_has_executable(cl_program prog);

/* clCompileProgram after the API checks: compiles the source for the
 * given devices (all when n is 0) with the headers (source of each
 * headers[i] visible as names[i]).  CL_SUCCESS, CL_COMPILE_PROGRAM_FAILURE,
 * CL_INVALID_COMPILER_OPTIONS, CL_COMPILER_NOT_AVAILABLE,
 * CL_INVALID_OPERATION (kernels attached or a build running) or
 * CL_OUT_OF_HOST_MEMORY. */
cl_int kiln_program_compile(cl_program prog, cl_uint n, const cl_device_id *devices,
                            const char *options, cl_uint num_headers, const cl_program *headers,
                            const char **names);

/* clLinkProgram after the API checks: a new program of ctx for devices
 * (all of ctx's when n is 0) linked from inputs.  *out is set whenever
 * the link could begin, also when it returns CL_LINK_PROGRAM_FAILURE (the
 * log says why); CL_INVALID_OPERATION when the inputs break §5.6.3's
 * rules (a build running, code for some devices only, none at all),
 * CL_LINKER_NOT_AVAILABLE, CL_OUT_OF_HOST_MEMORY. */
cl_int kiln_program_link(cl_context ctx, cl_uint n, const cl_device_id *devices,
                         const char *options, cl_uint num_inputs, const cl_program *inputs,
                         cl_program *out);

/* Whether b is an executable built for its device (kernels may come from
 * it). */
static inline bool kiln_program_build_executable(const struct kiln_program_build *b)
{
   return b->status == CL_BUILD_SUCCESS && b->binary_type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
}

/* For program.c and program_link.c only: */
struct kiln_compile_target;
/* What the compiler is told of dev (the same for builds, compiles, links):
 * its caps' target family and processor, language and extensions. */
void kiln_program_compile_target(cl_device_id dev, struct kiln_compile_target *t);
/* Whether dev has a compiler at all (pipe_caps.ir is not ""); which one is
 * src/llvm's business. */
bool kiln_program_device_compiles(cl_device_id dev);
cl_program kiln_program_alloc(cl_context ctx, cl_uint n, const cl_device_id *devices);
/* kiln_program_alloc, then made a live handle (NULL: out of memory). */
cl_program kiln_program_new(cl_context ctx, cl_uint n, const cl_device_id *devices);
void kiln_program_build_clear(cl_device_id dev, struct kiln_program_build *b);
/* Loads b's object into dev's driver (the log says why not). */
cl_int kiln_program_build_load(cl_device_id dev, struct kiln_program_build *b);
/* Installs fresh as device i's build under the lock; clears the old. */
void kiln_program_build_replace(cl_program prog, unsigned i, struct kiln_program_build *fresh);
/* The compile cache's answer for b, whose options and binary_type (what
 * is wanted) are set and the rest empty: true with b filled (an
 * executable also loaded into dev); false with b as it was, also when
 * KILN_DUMP is set (a cached result has no intermediate files to dump).
 * Cached code dev fails to load is removed from the cache: the caller
 * then compiles, and the build never fails because of the cache. */
struct kiln_fcache;
bool kiln_program_cache_fetch(cl_device_id dev, struct kiln_fcache *cache,
                              const unsigned char *key, const struct kiln_compile_target *target,
                              struct kiln_program_build *b);
/* Links the compiled object or library of device i (a program from such
 * a binary) into an executable: clBuildProgram's answer to one. */
cl_int kiln_program_link_one(cl_program prog, unsigned i);

/* Before device i's binary is written: a driver that compiles kernels
 * when first needed compiles the rest, and the build's object becomes
 * that code (a binary runs without compiling anything).  prog->lock
 * held (clGetProgramInfo's). */
void kiln_program_binary_complete(cl_program prog, unsigned i);

/* The serialized binary of device i (clGetProgramInfo CL_PROGRAM_BINARIES):
 * size only when out is NULL. */
size_t kiln_program_binary(cl_program prog, unsigned i, unsigned char *out);

/* The same for one build (the compile cache stores it): Kiln's binary
 * container of b, written to out (NULL: only measured); its size. */
size_t kiln_program_build_write(const struct kiln_program_build *b, unsigned char *out);

#endif
