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
};

struct _cl_program {
   struct kiln_object obj;
   cl_context context;
   char *source; /* NULL for programs from binaries */
   size_t source_size;
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

/* The serialized binary of device i (clGetProgramInfo CL_PROGRAM_BINARIES):
 * size only when out is NULL. */
size_t kiln_program_binary(cl_program prog, unsigned i, unsigned char *out);

/* The same for one build (the compile cache stores it): Kiln's binary
 * container of b, written to out (NULL: only measured); its size. */
size_t kiln_program_build_write(const struct kiln_program_build *b, unsigned char *out);

#endif
