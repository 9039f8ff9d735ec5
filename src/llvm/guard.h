/* Every way into Clang and LLVM that Kiln takes runs through here, so that
 * what they do when things go wrong ends the build, not the process:
 *
 * - Running out of memory: LLVM's `new` throws std::bad_alloc and its
 *   malloc wrappers call the bad-alloc handler (which aborted).  Kiln's
 *   handler throws std::bad_alloc too, and kiln_llvm_guard catches it.
 * - LLVM's fatal errors (report_fatal_error: a back end that cannot select
 *   an instruction, ...) exited the process.  Kiln's handler throws them
 *   as an exception kiln_llvm_guard turns into a build failure with the
 *   message, on a thread inside kiln_llvm_guard; anywhere else it prints
 *   the message and lets LLVM exit, as before.
 * - Deep recursion: a build runs on a thread of its own with a large stack
 *   (kiln_llvm_on_compiler_stack), and the front end stops a program
 *   before it uses more than a fixed share of it (docs/design.md,
 *   "Compiler limits").
 *
 * Clang and LLVM are built without exceptions: unwinding through them runs
 * none of their destructors.  What such a build held in LLVM is leaked,
 * never freed (a half-built module could not be freed safely); the process
 * and every other build stay intact.  Kiln's own state is cleaned up where
 * the guard sits close to the call (the front end, the back end's passes). */
#ifndef KILN_LLVM_GUARD_H
#define KILN_LLVM_GUARD_H

#include <stdbool.h>
#include <stddef.h>

#include "llvm/compiler.h"

#ifdef __cplusplus
extern "C" {
#endif

enum kiln_llvm_guard_status {
   KILN_LLVM_GUARD_OK,
   KILN_LLVM_GUARD_OUT_OF_MEMORY, /* std::bad_alloc, or LLVM's bad-alloc handler */
   KILN_LLVM_GUARD_FATAL,         /* report_fatal_error; the message is in why */
};

/* Runs fn(arg), catching what Clang and LLVM throw (above).  why (size
 * why_size, may be NULL) receives LLVM's message after a fatal error.
 * Guards nest: the innermost catches. */
enum kiln_llvm_guard_status kiln_llvm_guard(void (*fn)(void *), void *arg, char *why,
                                            size_t why_size);

/* How many times kiln_llvm_guard caught something on this thread: a
 * build that saw it change holds LLVM objects that may be half built,
 * which are then leaked, never freed (build.c's job_close). */
unsigned kiln_llvm_guard_catches(void);
/* Runs fn(arg) on a thread whose stack is KILN_LLVM_COMPILER_STACK bytes
 * (the calling thread waits), or right here when this thread is already
 * one.  false when no such thread could be made (out of memory). */
bool kiln_llvm_on_compiler_stack(void (*fn)(void *), void *arg);

/* Called first on a compiler thread: keeps Clang's own, 8 MiB stack check
 * (clang/Basic/Stack.h) from moving work to threads of its own.  stack
 * (size bytes, a few KiB used) must lie more than 8 MiB from every stack
 * address the build will use. */
void kiln_llvm_note_stack(void *stack, size_t size);

/* The lowest stack address the front end lets the parser reach on this
 * thread (the program is refused past it); NULL off a compiler thread. */
const char *kiln_llvm_stack_floor(void);

struct kiln_build_log;

/* A build's step on the compiler stack (kiln_llvm_on_compiler_stack) under
 * kiln_llvm_guard: KILN_BUILD_OK when fn returned (its own result is its
 * business), KILN_BUILD_OUT_OF_MEMORY when memory ran out in LLVM or for
 * the thread, KILN_BUILD_FAILED with the log saying why after a fatal
 * LLVM error. */
enum kiln_build_status kiln_llvm_run(void (*fn)(void *), void *arg, struct kiln_build_log *log);

/* The compiler thread's stack (reserved, committed only as used), and the
 * share of it the parser may use: the rest is for the later stages, which
 * walk the same nesting again (Clang's semantic checks and code generation,
 * LLVM's passes). */
#define KILN_LLVM_COMPILER_STACK ((size_t)256 << 20)
#define KILN_LLVM_PARSER_STACK ((size_t)64 << 20)

#ifdef __cplusplus
}
#endif

#endif
