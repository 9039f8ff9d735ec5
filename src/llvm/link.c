/* clLinkProgram's half of separate compilation: compiled objects and
 * libraries (bitcode, build.c's kiln_llvm_compile) linked into one module with LLVM's
 * IR linker, then either kept as bitcode (-create-library) or given to the
 * device's back half (backend.h) exactly once, as a build would be. */
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/Linker.h>
#include <stdio.h>
#include <string.h>

#include "llvm/backend.h"
#include "llvm/dump.h"
#include "llvm/build_log.h"
#include "llvm/build_options.h"
#include "llvm/compiler.h"
#include "llvm/guard.h"
#include "llvm/target_table.h"
#include "util/alloc.h"

/* Functions of a library created without -enable-link-options carry this
 * attribute: link options of the executable leave them as compiled
 * (§5.6.5.1). */
#define LOCKED_ATTR "kiln-no-link-options"

enum kiln_build_status kiln_llvm_check_link_options(const char *options, bool *library,
                                                    char **log)
{
   struct kiln_link_options lo;
   char reason[KILN_BUILD_OPTIONS_REASON_SIZE] = "";
   enum kiln_build_options_status st =
      kiln_link_options_parse(options, &lo, reason, sizeof(reason));
   if (library)
      *library = lo.link & KILN_LINK_CREATE_LIBRARY;
   if (st == KILN_BUILD_OPTIONS_OK)
      return KILN_BUILD_OK;
   if (st == KILN_BUILD_OPTIONS_OUT_OF_MEMORY)
      return KILN_BUILD_OUT_OF_MEMORY;
   if (log) {
      size_t n = strlen(reason) + 64;
      *log = kiln_malloc(n);
      if (*log)
         snprintf(*log, n, "error: invalid link options: %s\n", reason);
   }
   return KILN_BUILD_INVALID_OPTIONS;
}

/* LLVM reports link errors (a symbol defined twice) as diagnostics; without
 * a handler an error diagnostic ends the process. */
static void diagnostic(LLVMDiagnosticInfoRef info, void *ctx)
{
   struct kiln_build_log *log = ctx;
   char *text = LLVMGetDiagInfoDescription(info);
   LLVMDiagnosticSeverity sev = LLVMGetDiagInfoSeverity(info);
   if (sev == LLVMDSError || sev == LLVMDSWarning)
      kiln_build_log_append(log, "%s: link: %s\n", sev == LLVMDSError ? "error" : "warning",
                            text ? text : "?");
   LLVMDisposeMessage(text);
}

static void set_attr(LLVMValueRef fn, const char *name, const char *value)
{
   LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
   LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                           LLVMCreateStringAttribute(c, name, (unsigned)strlen(name), value,
                                                     (unsigned)strlen(value)));
}

/* The program linking options of §5.6.5.2, as the function attributes the
 * same compile options give the code generator (and the compile options
 * of IL programs, which no clang sees). */
void kiln_llvm_apply_math_options(LLVMModuleRef m, unsigned flags)
{
   bool fast = flags & KILN_BUILD_FAST_RELAXED_MATH;
   bool unsafe = fast || (flags & KILN_BUILD_UNSAFE_MATH);
   bool finite = fast || (flags & KILN_BUILD_FINITE_MATH_ONLY);
   bool nsz = unsafe || (flags & KILN_BUILD_NO_SIGNED_ZEROS);
   bool daz = flags & KILN_BUILD_DENORMS_ARE_ZERO;
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
      if (!LLVMGetFirstBasicBlock(fn) ||
          LLVMGetStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LOCKED_ATTR,
                                        (unsigned)strlen(LOCKED_ATTR)))
         continue;
      if (unsafe) {
         set_attr(fn, "unsafe-fp-math", "true");
         set_attr(fn, "approx-func-fp-math", "true");
      }
      if (finite) {
         set_attr(fn, "no-infs-fp-math", "true");
         set_attr(fn, "no-nans-fp-math", "true");
      }
      if (nsz)
         set_attr(fn, "no-signed-zeros-fp-math", "true");
      if (daz)
         set_attr(fn, "denormal-fp-math-f32", "preserve-sign,preserve-sign");
   }
}

static void lock_link_options(LLVMModuleRef m)
{
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
      if (LLVMGetFirstBasicBlock(fn))
         set_attr(fn, LOCKED_ATTR, "");
}

/* Parses and links every input into *dest; false with the log saying why. */
static enum kiln_build_status link_inputs(LLVMContextRef c, const struct kiln_bitcode *inputs,
                                          unsigned n, LLVMModuleRef *dest,
                                          struct kiln_build_log *log)
{
   *dest = NULL;
   for (unsigned i = 0; i < n; i++) {
      LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(
         inputs[i].data, inputs[i].size, "kiln-link-input", 0);
      if (!buf)
         return KILN_BUILD_OUT_OF_MEMORY;
      LLVMModuleRef m = NULL;
      bool bad = LLVMParseBitcodeInContext2(c, buf, &m);
      LLVMDisposeMemoryBuffer(buf);
      if (bad) {
         kiln_build_log_append(log, "error: link: input program %u holds no valid LLVM "
                                    "bitcode\n", i);
         return KILN_BUILD_FAILED;
      }
      if (!*dest) {
         *dest = m;
      } else if (LLVMLinkModules2(*dest, m)) {
         /* The diagnostic handler logged which symbol. */
         kiln_build_log_append(log, "error: link: input program %u cannot be linked with "
                                    "the ones before it\n", i);
         return KILN_BUILD_FAILED;
      }
   }
   return *dest ? KILN_BUILD_OK : KILN_BUILD_FAILED;
}

/* A link under way, outside the compiler thread's frames (guard.h). */
struct link_job {
   const struct kiln_bitcode *inputs;
   unsigned n;
   const struct kiln_compile_target *target;
   struct kiln_build_output *out;
   struct kiln_link_options lo;
   struct kiln_build_log log;
   struct kiln_llvm_machine machine;
   LLVMContextRef c;
   LLVMModuleRef m;
   enum kiln_build_status status;
   struct kiln_llvm_dump dump; /* KILN_DUMP's files */
   bool caught; /* a guard caught LLVM throwing: leak l->m and l->c */
};

static void link_steps(struct link_job *l)
{
   l->c = LLVMContextCreate();
   LLVMContextSetDiagnosticHandler(l->c, diagnostic, &l->log);
   l->status = kiln_llvm_machine_init(&l->machine, l->target, &l->log);
   if (!l->status)
      l->status = link_inputs(l->c, l->inputs, l->n, &l->m, &l->log);
   if (l->status)
      return;
   kiln_llvm_dump_name(&l->dump, l->m);
   if (l->lo.link & KILN_LINK_CREATE_LIBRARY) {
      if (!(l->lo.link & KILN_LINK_ENABLE_LINK_OPTIONS))
         lock_link_options(l->m);
      l->out->target_id = kiln_llvm_machine_id(&l->machine, l->target->bounds_check);
      LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(l->m);
      bool copied = bc && kiln_llvm_take_buffer(bc, &l->out->bitcode, &l->out->bitcode_size);
      l->status = copied && l->out->target_id ? KILN_BUILD_OK : KILN_BUILD_OUT_OF_MEMORY;
      return;
   }
   kiln_llvm_apply_math_options(l->m, l->lo.flags);
   l->status = kiln_llvm_finish(l->m, &l->machine, l->target, true, true,
                                &l->dump, l->out, &l->log);
}

static void link_body(void *p)
{
   struct link_job *l = p;
   unsigned catches = kiln_llvm_guard_catches();
   link_steps(l);
   l->caught = kiln_llvm_guard_catches() != catches;
}

enum kiln_build_status kiln_llvm_link(const struct kiln_bitcode *inputs, unsigned n,
                                      const char *options,
                                      const struct kiln_compile_target *target,
                                      struct kiln_build_output *out)
{
   memset(out, 0, sizeof(*out));
   struct link_job l = {.inputs = inputs, .n = n, .target = target, .out = out,
                        .status = KILN_BUILD_FAILED};
   kiln_build_log_append(&l.log, "%s", "");
   kiln_llvm_dump_begin_link(&l.dump, inputs, n);
   char reason[KILN_BUILD_OPTIONS_REASON_SIZE] = "";
   enum kiln_build_options_status ost =
      kiln_link_options_parse(options, &l.lo, reason, sizeof(reason));
   if (ost != KILN_BUILD_OPTIONS_OK) {
      kiln_build_log_append(&l.log, "error: invalid link options: %s\n", reason);
      if (l.log.text)
         kiln_llvm_dump_bytes(&l.dump, "log", l.log.text, l.log.len);
      out->log = l.log.text;
      return ost == KILN_BUILD_OPTIONS_INVALID ? KILN_BUILD_INVALID_OPTIONS
                                               : KILN_BUILD_OUT_OF_MEMORY;
   }
   enum kiln_build_status st = kiln_llvm_run(link_body, &l, &l.log);
   if (st)
      l.status = st;
   /* After LLVM threw during the link (out of it: st, or to a guard in
    * it), its objects are leaked, not freed: they may be half built
    * (guard.h; build.c's job_close). */
   bool leak = st || l.caught;
   if (l.m && !leak)
      LLVMDisposeModule(l.m);
   if (l.c && !leak)
      LLVMContextDispose(l.c);
   kiln_llvm_machine_fini(&l.machine);
   if (l.status == KILN_BUILD_FAILED && l.log.len == 0)
      kiln_build_log_append(&l.log, "error: the link failed for a reason Kiln did not record\n");
   if (l.log.text)
      kiln_llvm_dump_bytes(&l.dump, "log", l.log.text, l.log.len);
   out->log = l.log.text;
   if (l.status != KILN_BUILD_OK) {
      char *keep = out->log;
      out->log = NULL;
      kiln_build_output_fini(out);
      out->log = keep;
   }
   return l.status;
}
