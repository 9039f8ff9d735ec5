/* The translator's SPIR module to the module clang would have made
 * (spirv_module.h).  What differs, and why each step is here:
 * - triple and data layout: spir64's; the builtins are x86-64's.
 * - spir_func: clang gives x86 functions the C convention, and a call
 *   whose convention differs from its callee's is undefined behaviour,
 *   which the optimiser turns into `unreachable`.  spir_kernel stays: it
 *   is what clang gives kernels on every triple (metadata.c finds them by
 *   it).
 * - builtin names: SPIR writes address spaces its own way
 *   (spirv_mangle.h).
 * - builtin signatures: the x86-64 C convention passes some vectors as
 *   something else (float2 as a double, 32-byte vectors through memory,
 *   byval), which clang writes into the library's IR; the translator
 *   calls with the vector itself.  A small internal function of the
 *   SPIR signature calls the library's definition the way it takes its
 *   arguments, and inlining removes it.
 * Address spaces need nothing: SPIR's 1 global, 2 constant, 3 local,
 * 4 generic are the CPU target's own (-ffake-address-space-map). */
#include "llvm/spirv/spirv_module.h"

#include <stdio.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

#include "llvm/build_log.h"
#include "llvm/clc_frontend.h"
#include "llvm/spirv/spirv_mangle.h"
#include "util/alloc.h"

static void plain_calls(LLVMModuleRef m)
{
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
      if (LLVMGetFunctionCallConv(fn) == LLVMSPIRFUNCCallConv)
         LLVMSetFunctionCallConv(fn, LLVMCCallConv);
      for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
         for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
            if (LLVMIsACallInst(i) && LLVMGetInstructionCallConv(i) == LLVMSPIRFUNCCallConv)
               LLVMSetInstructionCallConv(i, LLVMCCallConv);
   }
}

/* What LLVM 19 makes of LLVM 15's typed pointers, in the shape clang's
 * modules have: a bitcast from a pointer to the same pointer type (one
 * per pointer cast of the translator) is its operand, and a variable of
 * the constant address space is constant (printf's format must be a
 * constant string, printf_lower.c).  Instructions, not constant
 * expressions: the translator writes casts as instructions. */
static void tidy(LLVMModuleRef m)
{
   for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
      if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) == 2 && LLVMGetInitializer(g))
         LLVMSetGlobalConstant(g, 1);
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
      for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
         for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;) {
            LLVMValueRef next = LLVMGetNextInstruction(i);
            if (LLVMGetInstructionOpcode(i) == LLVMBitCast &&
                LLVMTypeOf(i) == LLVMTypeOf(LLVMGetOperand(i, 0))) {
               LLVMReplaceAllUsesWith(i, LLVMGetOperand(i, 0));
               LLVMInstructionEraseFromParent(i);
            }
            i = next;
         }
}

static unsigned attr_kind(const char *name)
{
   return LLVMGetEnumAttributeKindForName(name, strlen(name));
}

/* v (of its type) as type `to`, through memory: the bytes stay, as the
 * calling convention's coercions keep them. */
static LLVMValueRef coerce(LLVMBuilderRef b, LLVMTargetDataRef td, LLVMValueRef v,
                           LLVMTypeRef to)
{
   LLVMTypeRef from = LLVMTypeOf(v);
   if (from == to)
      return v;
   LLVMContextRef c = LLVMGetTypeContext(to);
   unsigned long long a = LLVMABISizeOfType(td, from), z = LLVMABISizeOfType(td, to);
   LLVMValueRef slot = LLVMBuildAlloca(b, LLVMArrayType2(LLVMInt8TypeInContext(c),
                                                         a > z ? a : z), "");
   LLVMSetAlignment(slot, 64);
   LLVMBuildStore(b, v, slot);
   return LLVMBuildLoad2(b, to, slot, "");
}

/* decl (the SPIR signature) becomes an internal function calling def's
 * copy in m, named name, the way def takes its arguments.  false when
 * the two signatures do not correspond. */
static bool adapt(LLVMModuleRef m, LLVMValueRef decl, LLVMValueRef def, const char *name)
{
   LLVMContextRef c = LLVMGetModuleContext(m);
   LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
   LLVMTypeRef ft = LLVMGlobalGetValueType(decl), lt = LLVMGlobalGetValueType(def);
   unsigned nf = LLVMCountParamTypes(ft), nl = LLVMCountParamTypes(lt);
   unsigned byval = attr_kind("byval"), sret = attr_kind("sret");
   bool has_sret = nl == nf + 1 && LLVMGetEnumAttributeAtIndex(def, 1, sret);
   if (nl != nf + has_sret || LLVMIsFunctionVarArg(ft) || LLVMIsFunctionVarArg(lt))
      return false;

   /* The SPIR name may be the library's own (sqrt of a float8). */
   size_t len;
   const char *old = LLVMGetValueName2(decl, &len);
   char *spir = kiln_malloc(len + 8);
   if (!spir)
      return false;
   memcpy(spir, old, len);
   memcpy(spir + len, ".spir", 6);
   LLVMSetValueName2(decl, spir, len + 5);
   kiln_free(spir);
   LLVMValueRef callee = LLVMGetNamedFunction(m, name);
   if (!callee)
      callee = LLVMAddFunction(m, name, lt);
   if (LLVMGlobalGetValueType(callee) != lt)
      return false;
   for (unsigned i = 1; i <= nl; i++) {
      LLVMAttributeRef a;
      if ((a = LLVMGetEnumAttributeAtIndex(def, i, byval)))
         LLVMAddAttributeAtIndex(callee, i, a);
      if ((a = LLVMGetEnumAttributeAtIndex(def, i, sret)))
         LLVMAddAttributeAtIndex(callee, i, a);
   }

   LLVMTypeRef *pt = kiln_calloc(nl + 1, sizeof(*pt));
   LLVMValueRef *args = kiln_calloc(nl + 1, sizeof(*args));
   if (!pt || !args) {
      kiln_free(pt);
      kiln_free(args);
      return false;
   }
   LLVMGetParamTypes(lt, pt);
   LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
   LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, decl, "entry"));
   LLVMTypeRef ret = LLVMGetReturnType(ft);
   LLVMValueRef ret_slot = NULL;
   if (has_sret) {
      LLVMTypeRef st = LLVMGetTypeAttributeValue(LLVMGetEnumAttributeAtIndex(def, 1, sret));
      ret_slot = LLVMBuildAlloca(b, st, "");
      LLVMSetAlignment(ret_slot, 64);
      args[0] = ret_slot;
   }
   for (unsigned i = 0; i < nf; i++) {
      unsigned k = i + has_sret;
      LLVMValueRef v = LLVMGetParam(decl, i);
      LLVMAttributeRef bv = LLVMGetEnumAttributeAtIndex(def, k + 1, byval);
      if (bv) {
         LLVMValueRef slot = LLVMBuildAlloca(b, LLVMGetTypeAttributeValue(bv), "");
         LLVMSetAlignment(slot, 64);
         LLVMBuildStore(b, v, slot);
         args[k] = slot;
      } else {
         args[k] = coerce(b, td, v, pt[k]);
      }
   }
   LLVMValueRef call = LLVMBuildCall2(b, lt, callee, args, nl, "");
   for (unsigned i = 1; i <= nl; i++) {
      LLVMAttributeRef a;
      if ((a = LLVMGetEnumAttributeAtIndex(def, i, byval)))
         LLVMAddCallSiteAttribute(call, i, a);
      if ((a = LLVMGetEnumAttributeAtIndex(def, i, sret)))
         LLVMAddCallSiteAttribute(call, i, a);
   }
   if (LLVMGetTypeKind(ret) == LLVMVoidTypeKind)
      LLVMBuildRetVoid(b);
   else if (has_sret)
      LLVMBuildRet(b, LLVMBuildLoad2(b, ret, ret_slot, ""));
   else
      LLVMBuildRet(b, coerce(b, td, call, ret));
   LLVMDisposeBuilder(b);
   kiln_free(pt);
   kiln_free(args);
   LLVMSetLinkage(decl, LLVMInternalLinkage);
   LLVMAddAttributeAtIndex(decl, LLVMAttributeFunctionIndex,
                           LLVMCreateEnumAttribute(c, attr_kind("alwaysinline"), 0));
   return true;
}

/* Gives decl the library's name and signature for it; left alone when
 * the library has no such builtin (the build then names it undefined). */
static void resolve(LLVMModuleRef m, LLVMModuleRef library, LLVMValueRef decl,
                    struct kiln_build_log *log)
{
   /* A copy: renaming decl frees the name LLVM holds. */
   size_t len;
   char spir[512];
   snprintf(spir, sizeof(spir), "%s", LLVMGetValueName2(decl, &len));
   char kiln[512];
   enum kiln_spirv_mangle_status ms = kiln_spirv_remangle(spir, kiln, sizeof(kiln));
   const char *name = ms == KILN_SPIRV_MANGLE_RENAMED ? kiln : spir;
   LLVMValueRef def = LLVMGetNamedFunction(library, name);
   if (!def || LLVMIsDeclaration(def))
      return;
   if (name == spir && LLVMGlobalGetValueType(def) == LLVMGlobalGetValueType(decl))
      return; /* linked as it is */
   if (LLVMGlobalGetValueType(def) == LLVMGlobalGetValueType(decl)) {
      LLVMValueRef other = LLVMGetNamedFunction(m, name);
      if (other && other != decl) {
         LLVMReplaceAllUsesWith(decl, other);
         LLVMDeleteFunction(decl);
      } else {
         LLVMSetValueName2(decl, name, strlen(name));
      }
      return;
   }
   if (!adapt(m, decl, def, name))
      kiln_build_log_append(log, "warning: the builtin %s is called with a signature Kiln's "
                                 "library does not have\n", spir);
}

enum kiln_build_status kiln_spirv_module_fix(LLVMModuleRef m, LLVMModuleRef library,
                                             struct kiln_build_log *log)
{
   LLVMSetTarget(m, LLVMGetTarget(library));
   LLVMSetDataLayout(m, LLVMGetDataLayoutStr(library));
   plain_calls(m);
   tidy(m);

   /* The declarations first: resolving adds functions to m. */
   unsigned n = 0;
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
      n++;
   LLVMValueRef *decls = kiln_calloc(n + 1, sizeof(*decls));
   if (!decls) {
      LLVMDisposeModule(library);
      return KILN_BUILD_OUT_OF_MEMORY;
   }
   unsigned k = 0;
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
      size_t len;
      const char *name = LLVMGetValueName2(fn, &len);
      if (LLVMIsDeclaration(fn) && len > 2 && !strncmp(name, "_Z", 2))
         decls[k++] = fn;
   }
   for (unsigned i = 0; i < k; i++)
      resolve(m, library, decls[i], log);
   kiln_free(decls);

   if (!kiln_clc_link_builtins(m, library)) {
      kiln_build_log_append(log, "error: the builtins could not be linked with the IL's "
                                 "module\n");
      return KILN_BUILD_FAILED;
   }
   return KILN_BUILD_OK;
}
