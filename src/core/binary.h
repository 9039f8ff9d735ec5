/* Program binaries (include/kiln/binary_format.h): build results of one
 * device, serialized and read back. */
#ifndef KILN_CORE_BINARY_H
#define KILN_CORE_BINARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kiln_kernel_info;

struct kiln_binary_contents {
   char *target;  /* the device's target id */
   char *options;
   void *object;
   size_t object_size;
   void *bitcode; /* optional */
   size_t bitcode_size;
   struct kiln_kernel_info *kernels;
   unsigned num_kernels;
   /* CL_PROGRAM_BINARY_TYPE_EXECUTABLE, _COMPILED_OBJECT or _LIBRARY (the
    * last two hold bitcode and no object); a reader gets EXECUTABLE from
    * binaries written before the type was recorded. */
   unsigned binary_type;
   uint64_t global_variable_size; /* bytes of __global variables; 0 when absent */
};

/* Serializes c into out (which must hold the returned size), or only
 * measures it when out is NULL. */
size_t kiln_binary_write(const struct kiln_binary_contents *c, unsigned char *out);

enum kiln_binary_status {
   KILN_BINARY_OK,
   KILN_BINARY_INVALID,       /* malformed: CL_INVALID_BINARY */
   KILN_BINARY_OUT_OF_MEMORY, /* CL_OUT_OF_HOST_MEMORY */
};

/* Parses and checks a binary (c is empty unless it returns OK).  The
 * caller compares c->target with the device's. */
enum kiln_binary_status kiln_binary_read(const unsigned char *data, size_t size,
                                         struct kiln_binary_contents *c);

void kiln_binary_contents_fini(struct kiln_binary_contents *c);

#endif
