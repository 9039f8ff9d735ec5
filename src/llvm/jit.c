/* Loads a compiled CPU program (a relocatable ELF object from
 * kiln_llvm_build) into this process with ORC's LLJIT, and finds its
 * work-group functions.  One LLJIT per loaded program: unloading the
 * program disposes it and frees the code. */
#include "llvm/jit.h"

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <stdlib.h>
#include <string.h>

#include "llvm/elf_check.h"
#include "llvm/target.h"
#include "util/alloc.h"

struct kiln_jit {
   LLVMOrcLLJITRef jit;
};

static char *take_error(LLVMErrorRef err)
{
   char *msg = LLVMGetErrorMessage(err);
   char *copy = kiln_strdup(msg ? msg : "unknown LLVM error");
   LLVMDisposeErrorMessage(msg);
   return copy;
}

/* Only names a program may call outside itself reach the process: the
 * compiler already refused programs calling anything else. */
static int allow_process_symbol(void *ctx, LLVMOrcSymbolStringPoolEntryRef sym)
{
   (void)ctx;
   const char *name = LLVMOrcSymbolStringPoolEntryStr(sym);
   return strncmp(name, "_Z", 2) != 0 && strncmp(name, "clGet", 5) != 0;
}

struct kiln_jit *kiln_jit_load(const void *object, size_t size, char **error)
{
   if (!kiln_elf_check(object, size)) {
      *error = kiln_strdup("the program's object code is malformed");
      return NULL;
   }
   kiln_llvm_init_targets();
   struct kiln_jit *j = kiln_calloc(1, sizeof(*j));
   if (!j)
      return NULL; /* *error stays NULL: out of host memory */
   LLVMErrorRef err = LLVMOrcCreateLLJIT(&j->jit, NULL);
   if (err) {
      *error = take_error(err);
      kiln_free(j);
      return NULL;
   }
   LLVMOrcJITDylibRef main = LLVMOrcLLJITGetMainJITDylib(j->jit);
   LLVMOrcDefinitionGeneratorRef gen;
   err = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
      &gen, LLVMOrcLLJITGetGlobalPrefix(j->jit), allow_process_symbol, NULL);
   if (!err) {
      LLVMOrcJITDylibAddGenerator(main, gen);
      LLVMMemoryBufferRef buf =
         LLVMCreateMemoryBufferWithMemoryRangeCopy(object, size, "kiln-program");
      err = LLVMOrcLLJITAddObjectFile(j->jit, main, buf);
   }
   if (err) {
      *error = take_error(err);
      kiln_jit_destroy(j);
      return NULL;
   }
   return j;
}

void *kiln_jit_lookup(struct kiln_jit *j, const char *name, char **error)
{
   LLVMOrcExecutorAddress addr = 0;
   LLVMErrorRef err = LLVMOrcLLJITLookup(j->jit, &addr, name);
   if (err) {
      *error = take_error(err);
      return NULL;
   }
   return (void *)(uintptr_t)addr;
}

void kiln_jit_destroy(struct kiln_jit *j)
{
   if (!j)
      return;
   if (j->jit) {
      LLVMErrorRef err = LLVMOrcDisposeLLJIT(j->jit);
      if (err)
         LLVMConsumeError(err);
   }
   kiln_free(j);
}
