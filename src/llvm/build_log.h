/* The build log a compile pipeline appends to (CPU and AMDGPU share it). */
#ifndef KILN_LLVM_BUILD_LOG_H
#define KILN_LLVM_BUILD_LOG_H

#include <stddef.h>

/* A growing, NUL-terminated text; kiln_malloc'd. */
struct kiln_build_log {
   char *text;
   size_t len, cap;
};

/* printf into the log.  Out of memory keeps what the log already has: a
 * log line is never worth failing a build for. */
void kiln_build_log_append(struct kiln_build_log *l, const char *fmt, ...)
   __attribute__((format(printf, 2, 3)));

#endif
