/* KILN_TRACE=1 or KILN_TRACE=<file> (docs/trace.md): every command's timeline in Chrome's
 * trace-event JSON, which Perfetto and chrome://tracing open, and the
 * objects the application leaked, listed when the process exits. */
#ifndef KILN_CORE_TRACE_H
#define KILN_CORE_TRACE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <CL/cl.h>

/* What a command tells the trace about itself (kiln_command_ops'
 * describe). */
struct kiln_trace_info {
   const char *kernel; /* NDRange and task commands */
   unsigned work_dim;
   uint64_t global[3], local[3]; /* as launched */
   uint64_t bytes;                /* moved by transfers, fills, copies */
};

/* Set once, before the first queue exists; read on every command's
 * completion, so that a process without KILN_TRACE pays one load. */
extern atomic_bool kiln_trace_on;

/* Reads KILN_TRACE and opens the file: "1" is kiln-trace-<pid>.json in
 * the current directory, named on stderr at exit; anything else but "0"
 * is the file's path (called with the platform). */
void kiln_trace_init(void);

static inline bool kiln_trace_enabled(void)
{
   return atomic_load_explicit(&kiln_trace_on, memory_order_relaxed);
}

/* Writes the event of a command that just completed with status; its
 * timestamps are final and its payload still there. */
void kiln_trace_command(cl_event ev, cl_int status);

#endif
