// kiln_llvm_guard (guard.h): the try/catch at the boundary between Kiln's
// C and Clang/LLVM's C++, and the LLVM error handlers that throw to it.
// Kiln's second C++ file, and the only one compiled with exceptions.

#include "llvm/guard.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include <pthread.h>
#include <ucontext.h>

#include <clang/Basic/Stack.h>
#include <llvm/Support/ErrorHandling.h>

namespace {

// How many kiln_llvm_guard frames this thread is inside: the handlers throw
// only where something will catch.
thread_local unsigned guard_depth;

// report_fatal_error's message, carried to the catch.  A fixed array: the
// handler may run because memory ran out.
struct Fatal {
   char why[512];
};

[[noreturn]] void bad_alloc_handler(void *, const char *reason, bool)
{
   if (guard_depth)
      throw std::bad_alloc();
   // Outside a guard: what LLVM does without a handler.
   std::fprintf(stderr, "LLVM ERROR: out of memory: %s\n", reason ? reason : "");
   std::abort();
}

void fatal_error_handler(void *, const char *reason, bool)
{
   if (guard_depth) {
      Fatal f;
      std::snprintf(f.why, sizeof(f.why), "%s", reason ? reason : "unknown error");
      throw f;
   }
   // Returning lets LLVM exit as it always did; it prints nothing itself
   // once a handler is installed.
   std::fprintf(stderr, "LLVM ERROR: %s\n", reason ? reason : "");
}

pthread_once_t handlers_once = PTHREAD_ONCE_INIT;

void install_handlers()
{
   llvm::install_bad_alloc_error_handler(bad_alloc_handler, nullptr);
   llvm::install_fatal_error_handler(fatal_error_handler, nullptr);
}

struct Depth {
   Depth() { guard_depth++; }
   ~Depth() { guard_depth--; }
};

} // namespace

extern "C" enum kiln_llvm_guard_status kiln_llvm_guard(void (*fn)(void *), void *arg,
                                                        char *why, size_t why_size)
{
   pthread_once(&handlers_once, install_handlers);
   if (why && why_size)
      why[0] = 0;
   try {
      Depth d;
      fn(arg);
      return KILN_LLVM_GUARD_OK;
   } catch (const std::bad_alloc &) {
      return KILN_LLVM_GUARD_OUT_OF_MEMORY;
   } catch (const Fatal &f) {
      if (why && why_size)
         std::snprintf(why, why_size, "%s", f.why);
      return KILN_LLVM_GUARD_FATAL;
   } catch (...) {
      // Nothing else is thrown by LLVM; a std::length_error from a string
      // that could not grow is running out of memory all the same.
      return KILN_LLVM_GUARD_OUT_OF_MEMORY;
   }
}

// Clang's own stack check (clang/Basic/Stack.h) measures from the first
// address noteBottomOfStack() saw on a thread, and assumes an 8 MiB stack:
// between 7.75 and 8 MiB from it, some of Sema's steps warn "stack nearly
// exhausted" (an error under -Werror) and move to a new thread of 8 MiB,
// where neither the compiler thread's stack nor Kiln's limit applies.
// Kiln's compiler thread notes, before Clang can, an address in the heap,
// far (more than 8 MiB) from any stack: Clang then never considers the
// stack nearly exhausted, and Kiln's limit is the only one.  The note has
// to come from code running there, hence the small context below.
namespace {

void note_far_bottom()
{
   clang::noteBottomOfStack();
}

} // namespace

extern "C" void kiln_llvm_note_stack(void)
{
#if defined(__SANITIZE_ADDRESS__)
   // AddressSanitizer warns about every swapcontext; its builds keep
   // Clang's check (only programs nested 8 MiB deep notice).
#else
   const size_t size = 64 << 10; // under malloc's mmap threshold: the heap
   void *stack = std::malloc(size);
   if (!stack)
      return;
   ucontext_t here, there;
   if (!getcontext(&there)) {
      there.uc_stack.ss_sp = stack;
      there.uc_stack.ss_size = size;
      there.uc_link = &here;
      makecontext(&there, note_far_bottom, 0);
      swapcontext(&here, &there);
   }
   std::free(stack);
#endif
}
