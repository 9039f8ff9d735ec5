/* kiln_llvm_on_compiler_stack (guard.h): builds run on a thread of their
 * own, because Clang's parser, semantic checks and code generation recurse
 * once per level of a program's nesting, and an application's thread (8 MiB
 * on Linux, often less off the main thread) overflows on programs as small
 * as 5,000 nested unary operators.  The stack is reserved at once and
 * committed only as it is used; glibc caches it between builds. */
#include "llvm/guard.h"

#include <pthread.h>
#include <stdint.h>

#include "llvm/build_log.h"
#include "util/tls.h"

/* Set for the lifetime of a compiler thread: the parser's limit. */
static _Thread_local const char *stack_floor KILN_TLS_MODEL;

const char *kiln_llvm_stack_floor(void)
{
   return stack_floor;
}

struct call {
   void (*fn)(void *);
   void *arg;
};

static void *compiler_thread(void *p)
{
   struct call *c = p;
   char here;
   /* Measured from this frame, the top of everything the build runs. */
   stack_floor = (const char *)((uintptr_t)&here - KILN_LLVM_PARSER_STACK);
   /* Clang's note goes on this thread's own stack, half of it below here:
    * far below the parser's share, untouched unless a later stage recurses
    * that deep, and by then the note is history. */
   char *far = (char *)(((uintptr_t)&here - KILN_LLVM_COMPILER_STACK / 2) & ~(uintptr_t)63);
   kiln_llvm_note_stack(far, (size_t)64 << 10);
   c->fn(c->arg);
   return NULL;
}

bool kiln_llvm_on_compiler_stack(void (*fn)(void *), void *arg)
{
   if (stack_floor) {
      fn(arg);
      return true;
   }
   struct call c = {fn, arg};
   pthread_attr_t attr;
   if (pthread_attr_init(&attr))
      return false;
   /* A guard larger than the default page: some of Clang's frames are
    * several KiB, and one must not step over the guard into other memory. */
   bool ok = !pthread_attr_setstacksize(&attr, KILN_LLVM_COMPILER_STACK) &&
             !pthread_attr_setguardsize(&attr, (size_t)1 << 20);
   pthread_t t;
   ok = ok && !pthread_create(&t, &attr, compiler_thread, &c);
   pthread_attr_destroy(&attr);
   if (ok)
      pthread_join(t, NULL);
   return ok;
}

struct guarded {
   void (*fn)(void *);
   void *arg;
   enum kiln_llvm_guard_status status;
   char why[512];
};

static void run_guarded(void *p)
{
   struct guarded *g = p;
   g->status = kiln_llvm_guard(g->fn, g->arg, g->why, sizeof(g->why));
}

enum kiln_build_status kiln_llvm_run(void (*fn)(void *), void *arg, struct kiln_build_log *log)
{
   struct guarded g = {.fn = fn, .arg = arg};
   if (!kiln_llvm_on_compiler_stack(run_guarded, &g))
      return KILN_BUILD_OUT_OF_MEMORY;
   switch (g.status) {
   case KILN_LLVM_GUARD_OK:
      return KILN_BUILD_OK;
   case KILN_LLVM_GUARD_OUT_OF_MEMORY:
      return KILN_BUILD_OUT_OF_MEMORY;
   case KILN_LLVM_GUARD_FATAL:
      break;
   }
   kiln_build_log_append(log, "error: internal compiler error: LLVM: %s\n", g.why);
   return KILN_BUILD_FAILED;
}
