/* The options string of clBuildProgram (OpenCL 1.1 §5.6.3), parsed once into
 * plain data so that the front end never sees the raw string and every
 * device of a build compiles with the same, already validated, options. */
#ifndef KILN_LLVM_BUILD_OPTIONS_H
#define KILN_LLVM_BUILD_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

/* OpenCL C versions, as clang and __OPENCL_C_VERSION__ spell them. */
enum kiln_cl_std {
   KILN_CL_STD_1_0 = 100,
   KILN_CL_STD_1_1 = 110,
   KILN_CL_STD_1_2 = 120,
   KILN_CL_STD_2_0 = 200, /* -cl-std=CL2.0, where the device has all of it */
   KILN_CL_STD_3_0 = 300, /* asked for with -cl-std=CL3.0 only */
};

/* One bit per option that takes no argument. */
enum kiln_build_flag {
   KILN_BUILD_OPT_DISABLE = 1u << 0,              /* -cl-opt-disable */
   KILN_BUILD_SINGLE_PRECISION_CONSTANT = 1u << 1,
   KILN_BUILD_DENORMS_ARE_ZERO = 1u << 2,
   KILN_BUILD_STRICT_ALIASING = 1u << 3,          /* 1.1 only; no effect */
   KILN_BUILD_MAD_ENABLE = 1u << 4,
   KILN_BUILD_NO_SIGNED_ZEROS = 1u << 5,
   KILN_BUILD_UNSAFE_MATH = 1u << 6,              /* -cl-unsafe-math-optimizations */
   KILN_BUILD_FINITE_MATH_ONLY = 1u << 7,
   KILN_BUILD_FAST_RELAXED_MATH = 1u << 8,
   KILN_BUILD_NO_WARNINGS = 1u << 9,              /* -w */
   KILN_BUILD_WERROR = 1u << 10,
   KILN_BUILD_KERNEL_ARG_INFO = 1u << 11,         /* 1.2's option; accepted */
   KILN_BUILD_UNIFORM_WORK_GROUPS = 1u << 12,     /* -cl-uniform-work-group-size */
   KILN_BUILD_FLAGS_ALL = (1u << 13) - 1,         /* every bit above */
};

enum kiln_build_options_status {
   KILN_BUILD_OPTIONS_OK = 0,
   KILN_BUILD_OPTIONS_INVALID,       /* the API maps it to CL_INVALID_BUILD_OPTIONS */
   KILN_BUILD_OPTIONS_OUT_OF_MEMORY, /* ... and this to CL_OUT_OF_HOST_MEMORY */
};

struct kiln_define {
   char *name;  /* identifier, possibly followed by "(params)" */
   char *value; /* NULL for "-D name", which clang defines as 1 */
};

struct kiln_build_options {
   struct kiln_define *defines; /* in command-line order: later ones win */
   size_t num_defines;
   char **include_dirs;         /* in search order */
   size_t num_include_dirs;
   unsigned flags;              /* enum kiln_build_flag bits */
   enum kiln_cl_std cl_std;
};

/* A reason fits in this many bytes, NUL included; longer ones are cut. */
#define KILN_BUILD_OPTIONS_REASON_SIZE 256

/* Parses `options` (NULL or "" mean no options) into *out, which the caller
 * releases with kiln_build_options_fini whatever the result. max_std is the
 * newest OpenCL C the device compiles (its OpenCL version): the default
 * without -cl-std (up to 1.2), and the newest -cl-std accepted (asking for
 * more is invalid, as §5.6.3.5 says); c20: whether CL2.0 is one of them
 * (CL_DEVICE_OPENCL_C_ALL_VERSIONS; a 3.0 device need not have it).
 * CL1.2 is known so that a 1.2 device needs no parser change; a 1.1 device
 * passes KILN_CL_STD_1_1 and gets CL1.2 rejected. On KILN_BUILD_OPTIONS_INVALID, reason (when not
 * NULL) receives one line for the build log. Keeps no state between calls,
 * so concurrent builds may parse at the same time. */
enum kiln_build_options_status
kiln_build_options_parse(const char *options, enum kiln_cl_std max_std, bool c20,
                         struct kiln_build_options *out,
                         char *reason, size_t reason_size);

void kiln_build_options_fini(struct kiln_build_options *opts);

/* clLinkProgram's options (OpenCL 1.2 §5.6.5.1-2): the two library options
 * and the program linking options, which are build flags of the same name
 * (-cl-denorms-are-zero, -cl-no-signed-zeros, -cl-unsafe-math-optimizations,
 * -cl-finite-math-only, -cl-fast-relaxed-math). */
enum kiln_link_flag {
   KILN_LINK_CREATE_LIBRARY = 1u << 0,      /* -create-library */
   KILN_LINK_ENABLE_LINK_OPTIONS = 1u << 1, /* -enable-link-options */
};

struct kiln_link_options {
   unsigned link;  /* enum kiln_link_flag bits */
   unsigned flags; /* enum kiln_build_flag bits, of the five above only */
};

/* Parses a link options string; anything else (compile options included)
 * is KILN_BUILD_OPTIONS_INVALID, as is -enable-link-options without
 * -create-library (§5.6.5.1), with a reason for the log.  No allocation
 * survives the call. */
enum kiln_build_options_status
kiln_link_options_parse(const char *options, struct kiln_link_options *out, char *reason,
                        size_t reason_size);

#endif
