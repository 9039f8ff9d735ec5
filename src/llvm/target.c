#include "llvm/target.h"
#include "llvm/guard.h"
#include "util/alloc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>

/* LLVM hands out strings it wants back through LLVMDisposeMessage; Kiln's
 * callers kiln_free() theirs, so copy. */
static char *take_message(char *msg)
{
   char *copy = msg ? kiln_strdup(msg) : NULL;
   LLVMDisposeMessage(msg);
   return copy;
}

static void host_query(void *p)
{
   struct kiln_llvm_host *host = p;
   host->triple = take_message(LLVMGetDefaultTargetTriple());
   host->cpu = take_message(LLVMGetHostCPUName());
   host->features = take_message(LLVMGetHostCPUFeatures());
}

/* Core asks for this outside any build (the compile cache's key, program
 * binaries' target check): guarded here, since LLVM running out of memory
 * outside kiln_llvm_guard ends the process. */
bool kiln_llvm_host_query(struct kiln_llvm_host *host)
{
   *host = (struct kiln_llvm_host){0};
   if (kiln_llvm_guard(host_query, host, NULL, 0) == KILN_LLVM_GUARD_OK && host->triple &&
       host->cpu && host->features)
      return true;
   kiln_llvm_host_fini(host);
   return false;
}

void kiln_llvm_host_fini(struct kiln_llvm_host *host)
{
   kiln_free(host->triple);
   kiln_free(host->cpu);
   kiln_free(host->features);
   host->triple = host->cpu = host->features = NULL;
}

static void init_targets_once(void)
{
   /* One line per pipe driver. Each pulls that back end into the library,
    * so the list is exactly what src/pipe can use. */
   LLVMInitializeX86TargetInfo();
   LLVMInitializeX86Target();
   LLVMInitializeX86TargetMC();
   LLVMInitializeX86AsmPrinter();

   LLVMInitializeAMDGPUTargetInfo();
   LLVMInitializeAMDGPUTarget();
   LLVMInitializeAMDGPUTargetMC();
   LLVMInitializeAMDGPUAsmPrinter();
   LLVMInitializeAMDGPUDisassembler(); /* kiln-compile --disassemble */

   LLVMInitializeNVPTXTargetInfo();
   LLVMInitializeNVPTXTarget();
   LLVMInitializeNVPTXTargetMC();
   LLVMInitializeNVPTXAsmPrinter();
}

void kiln_llvm_init_targets(void)
{
   static pthread_once_t once = PTHREAD_ONCE_INIT;
   pthread_once(&once, init_targets_once);
}
