/* The back half of every build (backend.h):
 *   module --target's lower step--> --optimiser--> --final step--> code,
 * with KILN_DUMP's .ll, .opt.ll and final file on the way. */
#include "llvm/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "llvm/block_kernels.h"
#include "llvm/build_log.h"
#include "llvm/dump.h"
#include "llvm/guard.h"
#include "llvm/metadata.h"
#include "llvm/recursion.h"
#include "llvm/target.h"
#include "util/alloc.h"

bool kiln_llvm_take_buffer(LLVMMemoryBufferRef buf, void **data, size_t *size)
{
   *size = LLVMGetBufferSize(buf);
   /* One byte more, zero: text a target emits (PTX) reaches its driver
    * NUL-terminated, as cuModuleLoadData wants it. */
   char *copy = kiln_malloc(*size + 1);
   if (copy) {
      memcpy(copy, LLVMGetBufferStart(buf), *size);
      copy[*size] = 0;
   }
   LLVMDisposeMemoryBuffer(buf);
   *data = copy;
   return copy != NULL;
}

bool kiln_llvm_run_passes(const struct kiln_llvm_job *job, const char *passes)
{
   LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
   if (job->machine->target->vectorize) {
      LLVMPassBuilderOptionsSetLoopVectorization(po, 1);
      LLVMPassBuilderOptionsSetSLPVectorization(po, 1);
   }
   LLVMErrorRef err = LLVMRunPasses(job->m, passes, job->tm, po);
   LLVMDisposePassBuilderOptions(po);
   if (err) {
      char *msg = LLVMGetErrorMessage(err);
      kiln_build_log_append(job->log, "error: internal: passes '%s': %s\n", passes, msg);
      LLVMDisposeErrorMessage(msg);
      return false;
   }
   return true;
}

bool kiln_llvm_check_undefined(const struct kiln_llvm_job *job, kiln_llvm_provided_fn provided,
                               const char *undefined_why, const char *unresolved_why)
{
   bool ok = true;
   for (LLVMValueRef fn = LLVMGetFirstFunction(job->m); fn; fn = LLVMGetNextFunction(fn)) {
      if (LLVMGetFirstBasicBlock(fn) || !LLVMGetFirstUse(fn))
         continue;
      size_t len;
      const char *name = LLVMGetValueName2(fn, &len);
      if (!strncmp(name, "llvm.", 5) || (provided && provided(name)))
         continue;
      if (job->linked)
         kiln_build_log_append(job->log, "error: unresolved symbol '%s': no program given to "
                                         "clLinkProgram defines it, and %s\n",
                               name, unresolved_why);
      else
         kiln_build_log_append(job->log, "error: undefined function '%s' (%s)\n", name,
                               undefined_why);
      ok = false;
   }
   return ok;
}

/* An error diagnostic the code generator reports (NVPTX: "no libcall
 * available for ...") would end the process without a handler; with this
 * one it fails the build and the log says why. */
struct codegen_diagnostics {
   struct kiln_build_log *log;
   bool failed;
};

static void codegen_diagnostic(LLVMDiagnosticInfoRef info, void *ctx)
{
   struct codegen_diagnostics *d = ctx;
   if (LLVMGetDiagInfoSeverity(info) != LLVMDSError)
      return;
   char *text = LLVMGetDiagInfoDescription(info);
   kiln_build_log_append(d->log, "error: internal: code generation: %s\n", text ? text : "?");
   LLVMDisposeMessage(text);
   d->failed = true;
}

LLVMTargetMachineRef kiln_llvm_create_machine(const struct kiln_llvm_machine *mach, bool optimize,
                                              struct kiln_build_log *log)
{
   LLVMTargetRef t;
   char *msg = NULL;
   if (LLVMGetTargetFromTriple(mach->triple, &t, &msg)) {
      kiln_build_log_append(log, "error: internal: no LLVM target for %s: %s\n", mach->triple,
                            msg);
      LLVMDisposeMessage(msg);
      return NULL;
   }
   return LLVMCreateTargetMachine(t, mach->triple, mach->cpu, mach->features,
                                  optimize ? mach->target->codegen_opt : LLVMCodeGenLevelNone,
                                  LLVMRelocPIC, mach->target->code_model);
}

/* The module takes the machine's data layout and triple: a CPU module was
 * compiled for a baseline x86-64, and a linked one must agree with the
 * code generator whatever its inputs said. */
void kiln_llvm_adopt_machine(LLVMModuleRef m, LLVMTargetMachineRef tm, const char *triple)
{
   LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
   char *dl = LLVMCopyStringRepOfTargetData(td);
   LLVMSetDataLayout(m, dl);
   LLVMDisposeMessage(dl);
   LLVMDisposeTargetData(td);
   LLVMSetTarget(m, triple);
}

/* kiln_llvm_finish's steps after the target machine exists. */
struct steps {
   struct kiln_llvm_job job;
   enum kiln_build_status st;
};

enum kiln_build_status kiln_llvm_codegen(struct kiln_llvm_job *job)
{
   const struct kiln_llvm_target *t = job->machine->target;
   enum kiln_build_status st;
   if (!kiln_llvm_run_passes(job, t->passes[job->optimize]))
      return KILN_BUILD_FAILED;
   if (t->optimized && (st = t->optimized(job)))
      return st;
   kiln_llvm_dump_module(job->dump, "opt.ll", job->m);

   char *msg = NULL;
   LLVMMemoryBufferRef code;
   /* Errors of the code generator come as diagnostics: into the log, and
    * the build fails, where LLVM's default handler would end the process. */
   LLVMContextRef ctx = LLVMGetModuleContext(job->m);
   LLVMDiagnosticHandler old_handler = LLVMContextGetDiagnosticHandler(ctx);
   void *old_ctx = LLVMContextGetDiagnosticContext(ctx);
   struct codegen_diagnostics diags = {job->log, false};
   LLVMContextSetDiagnosticHandler(ctx, codegen_diagnostic, &diags);
   LLVMBool emit_failed =
      LLVMTargetMachineEmitToMemoryBuffer(job->tm, job->m, t->emit, &msg, &code);
   LLVMContextSetDiagnosticHandler(ctx, old_handler, old_ctx);
   if (emit_failed) {
      kiln_build_log_append(job->log, "error: internal: code generation for %s failed: %s\n",
                            job->machine->cpu, msg);
      LLVMDisposeMessage(msg);
      return KILN_BUILD_FAILED;
   }
   if (diags.failed) {
      LLVMDisposeMemoryBuffer(code);
      return KILN_BUILD_FAILED;
   }
   if (!kiln_llvm_take_buffer(code, &job->out->object, &job->out->object_size))
      return KILN_BUILD_OUT_OF_MEMORY;
   kiln_llvm_dump_bytes(job->dump, t->emit_ext, job->out->object, job->out->object_size);
   return KILN_BUILD_OK;
}

static void run_steps(void *p)
{
   struct steps *s = p;
   struct kiln_llvm_job *job = &s->job;
   const struct kiln_llvm_target *t = job->machine->target;
   s->st = t->lower(job);
   if (s->st)
      return;
   kiln_llvm_dump_module(job->dump, "ll", job->m);
   /* A target that compiles kernels when they are first needed keeps the
    * lowered module instead (KILN_DUMP wants every file now). */
   if (t->defer && !kiln_llvm_dumping())
      s->st = t->defer(job);
   else
      s->st = kiln_llvm_codegen(job);
}

/* The program's __global variables (OpenCL C 3.0's program-scope ones
 * and static ones in functions): their total for
 * CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE, and none larger than the
 * device allows. */
static enum kiln_build_status global_variables(LLVMModuleRef m,
                                               const struct kiln_compile_target *target,
                                               struct kiln_build_output *out,
                                               struct kiln_build_log *log)
{
   LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
   uint64_t total = 0;
   for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
      if (LLVMIsDeclaration(g) || LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != 1)
         continue;
      uint64_t size = LLVMABISizeOfType(td, LLVMGlobalGetValueType(g));
      if (size > target->max_global_variable_size) {
         size_t len;
         kiln_build_log_append(log,
                               "error: __global variable '%s' takes %llu bytes; the device "
                               "allows %llu (CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE)\n",
                               LLVMGetValueName2(g, &len), (unsigned long long)size,
                               (unsigned long long)target->max_global_variable_size);
         return KILN_BUILD_FAILED;
      }
      total += size;
   }
   out->global_variable_size = total;
   return KILN_BUILD_OK;
}

enum kiln_build_status kiln_llvm_finish(LLVMModuleRef m, const struct kiln_llvm_machine *machine,
                                        const struct kiln_compile_target *target,
                                        bool optimize, bool linked,
                                        const struct kiln_llvm_dump *dump,
                                        struct kiln_build_output *out,
                                        struct kiln_build_log *log)
{
   kiln_llvm_init_targets();
   /* Before anything inlines: a cycle is the program's error, not an
    * internal one of a later step. */
   if (!kiln_block_kernels_prepare(m))
      return KILN_BUILD_OUT_OF_MEMORY;
   enum kiln_build_status rst = kiln_llvm_check_recursion(m, log);
   if (!rst)
      rst = global_variables(m, target, out, log);
   if (rst)
      return rst;
   LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(m);
   out->target_id = kiln_llvm_machine_id(machine, target->bounds_check);
   if (!bc || !kiln_llvm_take_buffer(bc, &out->bitcode, &out->bitcode_size) ||
       !out->target_id || kiln_metadata_kernels(m, &out->kernels, &out->num_kernels))
      return KILN_BUILD_OUT_OF_MEMORY;
   LLVMTargetMachineRef tm = kiln_llvm_create_machine(machine, optimize, log);
   if (!tm)
      return KILN_BUILD_FAILED;
   kiln_llvm_adopt_machine(m, tm, machine->triple);

   struct steps s = {
      .job = {
         .m = m,
         .tm = tm,
         .machine = machine,
         .target = target,
         .optimize = optimize,
         .linked = linked,
         .dump = dump,
         .out = out,
         .log = log,
      },
   };
   /* Guarded here too, so that the machine and a module the lower step
    * made are disposed of whatever happens (guard.h). */
   char why[512];
   enum kiln_build_status st = KILN_BUILD_FAILED;
   switch (kiln_llvm_guard(run_steps, &s, why, sizeof(why))) {
   case KILN_LLVM_GUARD_OK:
      st = s.st;
      break;
   case KILN_LLVM_GUARD_OUT_OF_MEMORY:
      st = KILN_BUILD_OUT_OF_MEMORY;
      break;
   case KILN_LLVM_GUARD_FATAL:
      kiln_build_log_append(log, "error: internal compiler error: LLVM: %s\n", why);
      st = KILN_BUILD_FAILED;
      break;
   }
   /* A module the lower step made in m's place (target_table.h). */
   if (s.job.m != m)
      LLVMDisposeModule(s.job.m);
   LLVMDisposeTargetMachine(tm);
   return st;
}
