/* The embedded library as the driver will see it: the accessor's bytes
 * parse as an LLVM module for Kiln's CPU triple that defines builtins,
 * leaves the work-group pass's functions undeclared-or-external, and comes
 * with a well-formed hash. */
#include "harness.h"

#include <ctype.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>

#include "llvm/builtins.h"

int main(void)
{
   size_t size = 0;
   const unsigned char *bc = kiln_builtins_bitcode(&size);
   CHECK(bc != NULL && size > 1024, "bitcode of %zu bytes", size);
   CHECK(((uintptr_t)bc & 3) == 0, "bitcode buffer aligned");
   CHECK(size >= 4 && bc[0] == 'B' && bc[1] == 'C' && bc[2] == 0xc0 && bc[3] == 0xde, "bitcode magic");

   const char *hash = kiln_builtins_hash();
   int hex = strncmp(hash, "sha256:", 7) == 0 && strlen(hash) == 7 + 64;
   for (int i = 7; hex && hash[i]; i++) hex = isxdigit((unsigned char)hash[i]) && !isupper((unsigned char)hash[i]);
   CHECK(hex, "hash \"%s\"", hash);

   LLVMContextRef ctx = LLVMContextCreate();
   LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange((const char *)bc, size, "kiln_builtins", 0);
   LLVMModuleRef mod = NULL;
   CHECK(!LLVMParseBitcodeInContext2(ctx, buf, &mod) && mod, "bitcode parses");
   if (mod) {
      CHECK(strcmp(LLVMGetTarget(mod), "x86_64-unknown-linux-gnu") == 0, "triple %s", LLVMGetTarget(mod));
      const char *defined[] = {"_Z3sinf", "_Z6vload4mPU8CLglobalKf", "_Z10atomic_addPU8CLglobalVii",
                               "_Z20convert_int4_sat_rteDv4_f", "_Z17wait_group_eventsiPU9CLgeneric9ocl_event",
                               /* OpenCL C 3.0 (atomic_c11.cl, work_item.cl, integer.cl) */
                               "_Z3ctzi", "_Z16atomic_fetch_addPU8CLglobalVU7_Atomicii",
                               "_Z18work_group_barrierj12memory_scope", "_Z20get_global_linear_idv"};
      for (size_t i = 0; i < sizeof(defined) / sizeof(defined[0]); i++) {
         LLVMValueRef f = LLVMGetNamedFunction(mod, defined[i]);
         CHECK(f && !LLVMIsDeclaration(f), "%s defined", defined[i]);
      }
      const char *external[] = {"_Z12get_local_idj", "_Z7barrierj", "sinf"};
      for (size_t i = 0; i < sizeof(external) / sizeof(external[0]); i++) {
         LLVMValueRef f = LLVMGetNamedFunction(mod, external[i]);
         CHECK(f && LLVMIsDeclaration(f), "%s left external", external[i]);
      }
      /* The work-item functions are the work-group pass's: at most declared
       * (get_global_linear_id calls get_global_id). */
      LLVMValueRef gid = LLVMGetNamedFunction(mod, "_Z13get_global_idj");
      CHECK(!gid || LLVMIsDeclaration(gid), "get_global_id not provided");
      LLVMDisposeModule(mod);
   }
   LLVMDisposeMemoryBuffer(buf);
   LLVMContextDispose(ctx);
   return test_report("builtins-embed");
}
