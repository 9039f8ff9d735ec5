/* Why: clang gives OpenCL's __constant NVPTX's address space 4, which the
 * back end reads with ld.const, i.e. from the 64 KB constant banks that
 * only module-scope __constant__ variables live in.  A __constant kernel
 * argument is a cl_mem, though: ordinary device memory, which ld.const
 * cannot reach.  And a __constant pointer may point at either a buffer
 * or a program-scope constant variable, so the two cannot be told apart
 * per load.  Kiln therefore compiles the whole constant address space as
 * global memory: program-scope constant variables become read-only
 * .global data, and every load through a __constant pointer ld.global.
 *
 * How: LLVM-C cannot change a value's type, and the address space is part
 * of every pointer's type (parameters, allocas, GEPs, phis, calls,
 * globals, struct members).  The module is printed as IR text, each
 * "addrspace(4)" outside strings and comments becomes "addrspace(1)", and
 * the text is parsed back; the parser re-mangles intrinsic names that
 * carried the old address space (llvm.memcpy.p0.p4.i64).  Kernel argument
 * metadata keeps the language's address space (2 for __constant), so what
 * core reports does not change. */
#include "llvm/nvptx/nvptx_constant.h"

#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>
#include <string.h>

#include "llvm/build_log.h"

size_t kiln_nvptx_constant_rewrite_text(char *text)
{
   static const char from[] = "addrspace(4)";
   size_t count = 0;
   char *p = text;
   while (*p) {
      if (*p == '"') {
         /* Quoted names and strings: LLVM escapes '"' inside as \22. */
         char *end = strchr(p + 1, '"');
         if (!end)
            break;
         p = end + 1;
      } else if (*p == ';') {
         char *end = strchr(p, '\n');
         if (!end)
            break;
         p = end + 1;
      } else if (*p == 'a' && !strncmp(p, from, sizeof(from) - 1)) {
         p[sizeof("addrspace(") - 1] = '1';
         p += sizeof(from) - 1;
         count++;
      } else {
         p++;
      }
   }
   return count;
}

/* __constant memory does not change while a kernel runs (§3.3.1): every
 * load through a __constant pointer is !invariant.load, which keeps that
 * knowledge past the change of address space and lets the back end use
 * the read-only data cache (ld.global.nc). */
static void mark_invariant(LLVMModuleRef m)
{
   LLVMContextRef c = LLVMGetModuleContext(m);
   unsigned kind = LLVMGetMDKindIDInContext(c, "invariant.load", 14);
   LLVMValueRef empty = LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, NULL, 0));
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
      for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
         for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
            if (LLVMIsALoadInst(i) && !LLVMGetVolatile(i) &&
                LLVMGetPointerAddressSpace(LLVMTypeOf(LLVMGetOperand(i, 0))) == 4)
               LLVMSetMetadata(i, kind, empty);
}

enum kiln_build_status kiln_nvptx_constant_as_global(LLVMModuleRef m, LLVMModuleRef *out,
                                                     struct kiln_build_log *log)
{
   *out = NULL;
   mark_invariant(m);
   char *text = LLVMPrintModuleToString(m);
   if (!text)
      return KILN_BUILD_OUT_OF_MEMORY;
   kiln_nvptx_constant_rewrite_text(text);
   LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(text, strlen(text), "kiln-nvptx");
   LLVMDisposeMessage(text);
   if (!buf)
      return KILN_BUILD_OUT_OF_MEMORY;
   char *msg = NULL;
   /* Clang's context discards value names, and the IR parser refuses to
    * work in such a context (the text it reads may hold names). */
   LLVMContextRef c = LLVMGetModuleContext(m);
   LLVMBool discard = LLVMContextShouldDiscardValueNames(c);
   LLVMContextSetDiscardValueNames(c, 0);
   /* Takes buf, whatever the outcome. */
   LLVMBool failed = LLVMParseIRInContext(c, buf, out, &msg);
   LLVMContextSetDiscardValueNames(c, discard);
   if (failed) {
      kiln_build_log_append(log, "error: internal: __constant as global memory: %s\n",
                            msg ? msg : "the module did not parse back");
      LLVMDisposeMessage(msg);
      *out = NULL;
      return KILN_BUILD_FAILED;
   }
   return KILN_BUILD_OK;
}
