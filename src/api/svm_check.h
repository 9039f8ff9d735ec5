/* The argument checks clEnqueueSVMMemcpy/MemFill and their command-buffer
 * forms (clCommandSVMMemcpyKHR/MemFillKHR) share (api/svm.c). */
#ifndef KILN_API_SVM_CHECK_H
#define KILN_API_SVM_CHECK_H

#include <stddef.h>

#include <CL/cl.h>

/* CL_INVALID_VALUE for a NULL pointer, CL_MEM_COPY_OVERLAP for ranges
 * that overlap. */
cl_int kiln_api_check_svm_copy(void *dst, const void *src, size_t size, const char *func);

/* CL_INVALID_VALUE for a NULL pointer or pattern, a pattern size not a
 * power of two up to 128, a pointer or size not a multiple of it. */
cl_int kiln_api_check_svm_fill(void *ptr, const void *pattern, size_t pattern_size, size_t size,
                               const char *func);

#endif
