/* Shared virtual memory (OpenCL 2.0/3.0 SVM): a context's clSVMAlloc
 * allocations and the SVM commands.  Only devices whose memory is the
 * host's (pipe_caps::svm_capabilities non-zero: the CPU device) take part,
 * so an SVM pointer is the same address on the host and in a kernel;
 * docs/svm.md. */
#ifndef KILN_CORE_SVM_H
#define KILN_CORE_SVM_H

#include "core/command.h"
#include "core/object.h"

/* One clSVMAlloc allocation. */
struct kiln_svm_block {
   char *ptr;
   size_t size;
   cl_svm_mem_flags flags;
};

/* Frees what the application left allocated (the context goes away). */
void kiln_svm_release_all(cl_context ctx);

/* The SVM capabilities of any device of ctx, or'ed. */
cl_device_svm_capabilities kiln_context_svm_caps(cl_context ctx);

/* clSVMAlloc after the API layer checked its arguments: NULL when out of
 * memory. */
void *kiln_svm_alloc(cl_context ctx, cl_svm_mem_flags flags, size_t size, size_t alignment);

/* clSVMFree: ptr must be an allocation's first byte (anything else,
 * NULL included, is ignored). */
void kiln_svm_free(cl_context ctx, void *ptr);

/* The allocation holding [ptr, ptr + size) (size 0: the byte at ptr), if
 * any: copied to *out. */
bool kiln_svm_find(cl_context ctx, const void *ptr, size_t size, struct kiln_svm_block *out);

/* size bytes at dst filled with copies of the pattern (its size divides
 * size), on the host. */
void kiln_svm_fill_host(void *dst, const void *pattern, size_t pattern_size, size_t size);

typedef void(CL_CALLBACK *kiln_svm_free_fn)(cl_command_queue, cl_uint, void *[], void *);

cl_int kiln_enqueue_svm_memcpy(cl_command_queue q, void *dst, const void *src, size_t size,
                               struct kiln_wait_list wait, cl_event *out);
cl_int kiln_enqueue_svm_fill(cl_command_queue q, void *dst, const void *pattern,
                             size_t pattern_size, size_t size, struct kiln_wait_list wait,
                             cl_event *out);
cl_int kiln_enqueue_svm_free(cl_command_queue q, cl_uint num, void *ptrs[], kiln_svm_free_fn fn,
                             void *user_data, struct kiln_wait_list wait, cl_event *out);

#endif
