/* Built-ins libclc-19's nvptx library lacks (nvptx_builtins.h), each a
 * few instructions of IR given to the declaration the kernel calls. */
#include "llvm/nvptx/nvptx_builtins.h"

#include <llvm-c/Core.h>
#include <stdbool.h>
#include <string.h>

#include "llvm/nvptx/nvptx_kernel_abi.h"
#include "util/alloc.h"

/* The element letter of an Itanium-mangled argument: "i", "Dv4_i". */
static char element_letter(const char *arg)
{
   if (!strncmp(arg, "Dv", 2)) {
      arg += 2;
      while (*arg >= '0' && *arg <= '9')
         arg++;
      if (*arg++ != '_')
         return 0;
   }
   return *arg;
}

/* A new body for decl (replaced by kiln_nvptx_redefine), the builder at
 * its entry; NULL when out of memory (decl then stays undefined, and the
 * build says so). */
static LLVMValueRef begin(LLVMModuleRef m, LLVMValueRef decl, LLVMBuilderRef b)
{
   size_t len = 0;
   const char *old = LLVMGetValueName2(decl, &len); /* before len is read */
   char *name = kiln_strndup(old, len);
   if (!name)
      return NULL;
   LLVMValueRef fn = kiln_nvptx_redefine(m, name, LLVMGlobalGetValueType(decl));
   kiln_free(name);
   LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(LLVMGetModuleContext(m), fn, ""));
   return fn;
}

/* Integers twice as wide as t's (elements). */
static LLVMTypeRef widened(LLVMTypeRef t)
{
   LLVMContextRef c = LLVMGetTypeContext(t);
   if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
      return LLVMVectorType(widened(LLVMGetElementType(t)), LLVMGetVectorSize(t));
   return LLVMIntTypeInContext(c, 2 * LLVMGetIntTypeWidth(t));
}

static unsigned element_bits(LLVMTypeRef t)
{
   if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
      t = LLVMGetElementType(t);
   return LLVMGetIntTypeWidth(t);
}

static LLVMValueRef splat(LLVMBuilderRef b, LLVMTypeRef t, LLVMValueRef scalar)
{
   if (LLVMGetTypeKind(t) != LLVMVectorTypeKind)
      return scalar;
   LLVMValueRef v = LLVMGetPoison(t);
   LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetTypeContext(t));
   for (unsigned i = 0; i < LLVMGetVectorSize(t); i++)
      v = LLVMBuildInsertElement(b, v, scalar, LLVMConstInt(i32, i, 0), "");
   return v;
}

/* mad_hi(a, b, c) = mul_hi(a, b) + c: the high half of the product in
 * twice the width (NVPTX selects mul.hi for it), plus c, wrapping. */
static void define_mad_hi(LLVMModuleRef m, LLVMValueRef decl, bool is_signed, LLVMBuilderRef b)
{
   LLVMValueRef fn = begin(m, decl, b);
   if (!fn)
      return;
   LLVMTypeRef t = LLVMTypeOf(LLVMGetParam(fn, 0)), w = widened(t);
   LLVMValueRef x = LLVMGetParam(fn, 0), y = LLVMGetParam(fn, 1);
   x = is_signed ? LLVMBuildSExt(b, x, w, "") : LLVMBuildZExt(b, x, w, "");
   y = is_signed ? LLVMBuildSExt(b, y, w, "") : LLVMBuildZExt(b, y, w, "");
   LLVMValueRef bits = splat(b, w, LLVMConstInt(LLVMGetTypeKind(w) == LLVMVectorTypeKind
                                                   ? LLVMGetElementType(w)
                                                   : w,
                                                element_bits(t), 0));
   LLVMValueRef hi = LLVMBuildLShr(b, LLVMBuildMul(b, x, y, ""), bits, "");
   LLVMBuildRet(b, LLVMBuildAdd(b, LLVMBuildTrunc(b, hi, t, ""), LLVMGetParam(fn, 2), ""));
}

/* smoothstep(e0, e1, x) with scalar edges, per §6.12.4:
 * t = clamp((x - e0) / (e1 - e0), 0, 1); t * t * (3 - 2 * t). */
static void define_smoothstep(LLVMModuleRef m, LLVMValueRef decl, LLVMBuilderRef b)
{
   LLVMValueRef fn = begin(m, decl, b);
   if (!fn)
      return;
   LLVMTypeRef t = LLVMTypeOf(LLVMGetParam(fn, 2));
   LLVMTypeRef et = LLVMGetElementType(t);
   LLVMValueRef e0 = splat(b, t, LLVMGetParam(fn, 0)), e1 = splat(b, t, LLVMGetParam(fn, 1));
   LLVMValueRef zero = LLVMConstNull(t);
   LLVMValueRef one = splat(b, t, LLVMConstReal(et, 1.0));
   LLVMValueRef v = LLVMBuildFDiv(b, LLVMBuildFSub(b, LLVMGetParam(fn, 2), e0, ""),
                                  LLVMBuildFSub(b, e1, e0, ""), "");
   v = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLT, v, zero, ""), zero, v, "");
   v = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGT, v, one, ""), one, v, "");
   LLVMValueRef poly = LLVMBuildFSub(b, splat(b, t, LLVMConstReal(et, 3.0)),
                                     LLVMBuildFMul(b, splat(b, t, LLVMConstReal(et, 2.0)), v, ""),
                                     "");
   LLVMBuildRet(b, LLVMBuildFMul(b, LLVMBuildFMul(b, v, v, ""), poly, ""));
}

static bool is_smoothstep_dd_vector(const char *name, LLVMValueRef fn)
{
   static const char prefix[] = "_Z10smoothstepddDv";
   if (strncmp(name, prefix, sizeof(prefix) - 1))
      return false;
   LLVMTypeRef fnty = LLVMGlobalGetValueType(fn);
   if (LLVMCountParamTypes(fnty) != 3)
      return false;
   LLVMTypeRef ps[3];
   LLVMGetParamTypes(fnty, ps);
   return LLVMGetTypeKind(ps[2]) == LLVMVectorTypeKind &&
          LLVMGetTypeKind(LLVMGetElementType(ps[2])) == LLVMDoubleTypeKind &&
          LLVMGetTypeKind(ps[0]) == LLVMDoubleTypeKind && LLVMGetReturnType(fnty) == ps[2];
}

void kiln_nvptx_define_builtins(LLVMModuleRef m)
{
   static const char mad_hi[] = "_Z6mad_hi";
   LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
   LLVMValueRef next;
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = next) {
      next = LLVMGetNextFunction(fn);
      size_t len;
      const char *name = LLVMGetValueName2(fn, &len);
      if (LLVMGetFirstBasicBlock(fn))
         continue;
      if (!strncmp(name, mad_hi, sizeof(mad_hi) - 1)) {
         char e = element_letter(name + sizeof(mad_hi) - 1);
         const char *sign = strchr("aclsi", e), *unsign = strchr("hmtj", e);
         LLVMTypeRef fnty = LLVMGlobalGetValueType(fn);
         if (e && (sign || unsign) && LLVMCountParamTypes(fnty) == 3)
            define_mad_hi(m, fn, sign != NULL, b);
      } else if (is_smoothstep_dd_vector(name, fn)) {
         define_smoothstep(m, fn, b);
      }
   }
   LLVMDisposeBuilder(b);
}
