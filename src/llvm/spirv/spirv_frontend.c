/* The IL front end (spirv_frontend.h) and what the API asks of IL
 * (compiler.h: kiln_llvm_il_*).  The translator runs outside this
 * process; what it writes is read with LLVM 19's bitcode reader, which
 * takes LLVM 15's bitcode. */
#include "llvm/spirv/spirv_frontend.h"

#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>

#include "llvm/build_log.h"
#include "llvm/spirv/spirv_module.h"
#include "llvm/spirv/spirv_tool.h"
#include "llvm/target_table.h"
#include "util/alloc.h"

/* The translator, for devices of family ir. */
static const struct kiln_spirv_tool *tool_for(const char *ir)
{
   const struct kiln_llvm_target *t = ir ? kiln_llvm_target_find(ir) : NULL;
   return t && t->spirv ? kiln_spirv_tool() : NULL;
}

const char *kiln_llvm_il_versions(const char *ir)
{
   const struct kiln_spirv_tool *tool = tool_for(ir);
   return tool ? tool->versions : NULL;
}

const char *kiln_llvm_il_translator(void)
{
   const struct kiln_spirv_tool *tool = kiln_spirv_tool();
   return tool ? tool->path : "";
}

unsigned kiln_llvm_il_minors(const char *ir, unsigned *minor, unsigned max)
{
   const struct kiln_spirv_tool *tool = tool_for(ir);
   unsigned n = 0;
   for (; tool && n < tool->num_versions && n < max; n++)
      minor[n] = tool->minor[n];
   return n;
}

bool kiln_llvm_il_ok(const char *ir, const void *il, size_t size)
{
   return kiln_spirv_header_ok(tool_for(ir), il, size);
}

int kiln_llvm_il_spec_constants(const void *il, size_t size, unsigned *ids, unsigned *sizes,
                                int max)
{
   const struct kiln_spirv_tool *tool = kiln_spirv_tool();
   return tool ? kiln_spirv_spec_constants(tool, il, size, ids, sizes, max) : -1;
}

/* LLVM reports a failed link as a diagnostic, and without a handler an
 * error diagnostic ends the process. */
static void diagnostic(LLVMDiagnosticInfoRef info, void *ctx)
{
   struct kiln_build_log *log = ctx;
   LLVMDiagnosticSeverity sev = LLVMGetDiagInfoSeverity(info);
   if (sev != LLVMDSError && sev != LLVMDSWarning)
      return;
   char *text = LLVMGetDiagInfoDescription(info);
   kiln_build_log_append(log, "%s: %s\n", sev == LLVMDSError ? "error" : "warning",
                         text ? text : "?");
   LLVMDisposeMessage(text);
}

enum kiln_build_status kiln_spirv_frontend(const struct kiln_llvm_machine *machine,
                                           const void *il, size_t size,
                                           const char *spec_consts, LLVMContextRef c,
                                           LLVMModuleRef *m, struct kiln_build_log *log)
{
   *m = NULL;
   const struct kiln_spirv_tool *tool = machine->target->spirv ? kiln_spirv_tool() : NULL;
   if (!tool) {
      kiln_build_log_append(log, "error: %s devices take no IL programs%s\n",
                            machine->target->name,
                            machine->target->spirv ? " (no SPIR-V translator was found)" : "");
      return KILN_BUILD_FAILED;
   }
   void *bc;
   size_t bc_size;
   enum kiln_build_status st =
      kiln_spirv_translate(tool, il, size, spec_consts, &bc, &bc_size, log);
   if (st)
      return st;
   const void *lib;
   size_t lib_size;
   bool owned;
   st = kiln_llvm_machine_builtins(machine, &lib, &lib_size, &owned, log);
   if (st) {
      kiln_free(bc);
      return st;
   }
   LLVMContextSetDiagnosticHandler(c, diagnostic, log);
   LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(bc, bc_size, "il.bc", 0);
   /* The library is read lazily: the link materialises what the program
    * reaches.  The module owns its copy of the bytes. */
   LLVMMemoryBufferRef lib_buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(lib, lib_size, "builtins.bc");
   if (owned)
      kiln_free((void *)lib);
   LLVMModuleRef library = NULL;
   if (!buf || !lib_buf) {
      st = KILN_BUILD_OUT_OF_MEMORY;
   } else if (LLVMParseBitcodeInContext2(c, buf, m)) {
      *m = NULL;
      kiln_build_log_append(log, "error: LLVM %s could not read the translator's bitcode\n",
                            kiln_llvm_version());
      st = KILN_BUILD_FAILED;
   } else if (LLVMGetBitcodeModuleInContext2(c, lib_buf, &library)) {
      kiln_build_log_append(log, "error: the builtins library could not be read\n");
      st = KILN_BUILD_FAILED;
   } else {
      lib_buf = NULL; /* the library module's now */
      st = kiln_spirv_module_fix(*m, library, log);
   }
   if (buf)
      LLVMDisposeMemoryBuffer(buf);
   if (lib_buf)
      LLVMDisposeMemoryBuffer(lib_buf);
   kiln_free(bc);
   return st;
}
