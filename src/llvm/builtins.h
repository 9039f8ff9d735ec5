/* Kiln's CPU builtins library: the LLVM bitcode (x86-64, built from
 * src/llvm/builtins/ at build time) that defines the OpenCL C builtins
 * kernels call (_Z3sinf, _Z6vload4mPU8CLglobalKf, ...).  The CPU compile
 * path links it into each kernel module before optimisation.
 *
 * It leaves undefined, on purpose: the work-item functions, barrier and the
 * fences (replaced by Kiln's work-group pass), and C library math functions
 * (sinf, pow, ...) which the JIT resolves from the process (libm).
 */
#ifndef KILN_LLVM_BUILTINS_H
#define KILN_LLVM_BUILTINS_H

#include <stddef.h>

/* The bitcode; *size receives its length in bytes.  Static storage, never
 * freed; 16-byte aligned. */
const unsigned char *kiln_builtins_bitcode(size_t *size);

/* Kiln's functions for NVIDIA GPUs: builtins/image.cl compiled for
 * nvptx64 with its own handles (images are linear memory there too, read
 * through a struct kiln_image_desc), and the 3-component forms of the
 * async copies and prefetch (builtins/async.cl), which libclc lacks.  It
 * calls libclc, which the nvptx front end links after it.  Static
 * storage, 16-byte aligned. */
const unsigned char *kiln_builtins_nvptx_bitcode(size_t *size);

/* Clang's opencl-c-base.h as Kiln was built with it (the header
 * -finclude-default-header reads), so that a build needs no clang files
 * installed; *size receives its length.  Static storage. */
const char *kiln_builtins_base_header(size_t *size);

/* "sha256:<64 hex digits>" of those libraries and the header, fixed at
 * build time. */
const char *kiln_builtins_hash(void);

#endif
