/* Built-ins libclc-19's nvptx library lacks (nvptx_builtins.h), each a
 * few instructions of IR given to the declaration the kernel calls. */
#include "llvm/nvptx/nvptx_builtins.h"

#include <llvm-c/Core.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

static LLVMValueRef call_intrinsic2(LLVMModuleRef m, LLVMBuilderRef b, const char *name,
                                    LLVMValueRef x, LLVMValueRef y)
{
   unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
   LLVMTypeRef t = LLVMTypeOf(x);
   LLVMValueRef fn = LLVMGetIntrinsicDeclaration(m, id, &t, 1);
   LLVMValueRef args[2] = {x, y};
   return LLVMBuildCall2(b, LLVMIntrinsicGetType(LLVMGetModuleContext(m), id, &t, 1), fn, args,
                         2, "");
}

/* sub_sat of signed integers: libclc-19 saturates 0 - INT_MIN to INT_MIN
 * (it takes the direction of an overflow from x, not y). */
static void define_sub_sat(LLVMModuleRef m, LLVMValueRef decl, LLVMBuilderRef b)
{
   LLVMValueRef fn = begin(m, decl, b);
   if (fn)
      LLVMBuildRet(b, call_intrinsic2(m, b, "llvm.ssub.sat", LLVMGetParam(fn, 0),
                                      LLVMGetParam(fn, 1)));
}

/* mad_sat of 64-bit integers: a * b + c exactly, in 128 bits, then
 * clamped (libclc-19 gets products near the limits wrong). */
static void define_mad_sat64(LLVMModuleRef m, LLVMValueRef decl, bool is_signed, LLVMBuilderRef b)
{
   LLVMValueRef fn = begin(m, decl, b);
   if (!fn)
      return;
   LLVMTypeRef t = LLVMTypeOf(LLVMGetParam(fn, 0)), w = widened(t);
   LLVMValueRef v[3];
   for (unsigned i = 0; i < 3; i++)
      v[i] = is_signed ? LLVMBuildSExt(b, LLVMGetParam(fn, i), w, "")
                       : LLVMBuildZExt(b, LLVMGetParam(fn, i), w, "");
   LLVMValueRef r = LLVMBuildAdd(b, LLVMBuildMul(b, v[0], v[1], ""), v[2], "");
   LLVMTypeRef et = LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetElementType(t) : t;
   LLVMValueRef hi = LLVMConstInt(et, is_signed ? INT64_MAX : UINT64_MAX, 0);
   r = call_intrinsic2(m, b, is_signed ? "llvm.smin" : "llvm.umin", r,
                       is_signed ? LLVMBuildSExt(b, splat(b, t, hi), w, "")
                                 : LLVMBuildZExt(b, splat(b, t, hi), w, ""));
   if (is_signed)
      r = call_intrinsic2(m, b, "llvm.smax", r,
                          LLVMBuildSExt(b, splat(b, t, LLVMConstInt(et, (unsigned long long)INT64_MIN, 1)),
                                        w, ""));
   LLVMBuildRet(b, LLVMBuildTrunc(b, r, t, ""));
}

/* What a convert_* name says: destination and source element letters
 * (Itanium: c h s t i j l m f d), _sat, and the rounding ('e', 'z', 'p',
 * 'n'; 0 for the default). */
struct conversion {
   char dst, src;
   bool sat;
   char rounding;
};

static char letter_of(const char *type, size_t n)
{
   static const struct {
      const char *name;
      char letter;
   } types[] = {{"char", 'c'}, {"uchar", 'h'}, {"short", 's'}, {"ushort", 't'}, {"int", 'i'},
                {"uint", 'j'}, {"long", 'l'}, {"ulong", 'm'}, {"float", 'f'}, {"double", 'd'}};
   for (unsigned i = 0; i < sizeof(types) / sizeof(types[0]); i++)
      if (strlen(types[i].name) == n && !strncmp(types[i].name, type, n))
         return types[i].letter;
   return 0;
}

/* "_Z18convert_float4_rtzDv4_i" -> {f, i, false, 'z'}. */
static bool parse(const char *name, struct conversion *c)
{
   static const char prefix[] = "convert_";
   if (strncmp(name, "_Z", 2))
      return false;
   char *end;
   unsigned long len = strtoul(name + 2, &end, 10);
   if (end == name + 2 || len <= sizeof(prefix) - 1 || strncmp(end, prefix, sizeof(prefix) - 1))
      return false;
   const char *id = end, *id_end = end + len, *p = id + sizeof(prefix) - 1;
   const char *type = p;
   while (p < id_end && *p >= 'a' && *p <= 'z')
      p++;
   c->dst = letter_of(type, (size_t)(p - type));
   while (p < id_end && *p >= '0' && *p <= '9')
      p++;
   c->sat = id_end - p >= 4 && !strncmp(p, "_sat", 4);
   if (c->sat)
      p += 4;
   c->rounding = 0;
   if (id_end - p == 4 && !strncmp(p, "_rt", 3) && strchr("eznp", p[3]))
      c->rounding = p[3], p += 4;
   c->src = element_letter(id_end);
   return c->dst && c->src && p == id_end;
}

static bool is_float(char t)
{
   return t == 'f' || t == 'd';
}

static bool is_signed(char t)
{
   return strchr("csil", t) != NULL;
}

static LLVMValueRef intrinsic(LLVMModuleRef m, const char *name, LLVMTypeRef *types, unsigned n,
                              LLVMTypeRef *fnty)
{
   unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
   if (!id)
      return NULL;
   *fnty = LLVMIntrinsicGetType(LLVMGetModuleContext(m), id, types, n);
   return LLVMGetIntrinsicDeclaration(m, id, types, n);
}

/* Floating point to integer, saturating: round, then fpto[su]i.sat. */
static void define_sat(LLVMModuleRef m, LLVMValueRef decl, const struct conversion *c,
                       LLVMBuilderRef b)
{
   static const char *const round_fn[] = {['e'] = "llvm.roundeven", ['z'] = "llvm.trunc",
                                          ['p'] = "llvm.ceil", ['n'] = "llvm.floor"};
   LLVMTypeRef fnty = LLVMGlobalGetValueType(decl);
   LLVMTypeRef from = LLVMTypeOf(LLVMGetParam(decl, 0)), to = LLVMGetReturnType(fnty);
   LLVMTypeRef rty, sty;
   LLVMValueRef rfn = intrinsic(m, round_fn[c->rounding ? (int)c->rounding : 'z'], &from, 1, &rty);
   LLVMTypeRef pair[2] = {to, from};
   LLVMValueRef sfn = intrinsic(m, is_signed(c->dst) ? "llvm.fptosi.sat" : "llvm.fptoui.sat",
                                pair, 2, &sty);
   if (!rfn || !sfn)
      return;
   LLVMValueRef fn = begin(m, decl, b);
   if (!fn)
      return;
   LLVMValueRef x = LLVMGetParam(fn, 0);
   x = LLVMBuildCall2(b, rty, rfn, &x, 1, "");
   LLVMBuildRet(b, LLVMBuildCall2(b, sty, sfn, &x, 1, ""));
}

/* PTX's cvt with a rounding, as inline assembly: LLVM 19's optimiser turns
 * NVVM's rounded conversion intrinsics (llvm.nvvm.ull2d.rz) into plain
 * uitofp, which rounds to nearest.  "cvt.rz.f32.s32 $0, $1;" and its
 * constraints ("=f,r"). */
static void cvt_asm(const struct conversion *c, char *text, size_t size, char *cons, size_t csize)
{
   static const char *const mode[] = {['z'] = "rz", ['p'] = "rp", ['n'] = "rm"};
   bool wide = c->src == 'l' || c->src == 'm' || c->src == 'd';
   const char *from = c->src == 'd' ? "f64" : is_signed(c->src) ? (wide ? "s64" : "s32")
                                                                : (wide ? "u64" : "u32");
   snprintf(text, size, "cvt.%s.%s.%s $0, $1;", mode[(int)c->rounding],
            c->dst == 'f' ? "f32" : "f64", from);
   snprintf(cons, csize, "=%c,%c", c->dst == 'f' ? 'f' : 'd',
            c->src == 'd' ? 'd' : wide ? 'l' : 'r');
}

static void define_rounded(LLVMModuleRef m, LLVMValueRef decl, const struct conversion *c,
                           LLVMBuilderRef b)
{
   LLVMValueRef fn = begin(m, decl, b);
   if (!fn)
      return;
   LLVMContextRef ctx = LLVMGetModuleContext(m);
   LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
   LLVMValueRef x = LLVMGetParam(fn, 0);
   LLVMTypeRef xt = LLVMTypeOf(x), rt = LLVMGetReturnType(LLVMGlobalGetValueType(fn));
   bool vector = LLVMGetTypeKind(xt) == LLVMVectorTypeKind;
   unsigned n = vector ? LLVMGetVectorSize(xt) : 1;
   LLVMTypeRef et = vector ? LLVMGetElementType(xt) : xt, rte = vector ? LLVMGetElementType(rt) : rt;
   /* char and short widen exactly to the int the instruction takes. */
   LLVMTypeRef in = LLVMGetTypeKind(et) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(et) < 32
                       ? i32
                       : et;
   char text[64], cons[16];
   cvt_asm(c, text, sizeof(text), cons, sizeof(cons));
   LLVMTypeRef aty = LLVMFunctionType(rte, &in, 1, 0);
   LLVMValueRef cvt = LLVMGetInlineAsm(aty, text, strlen(text), cons, strlen(cons), 0, 0,
                                       LLVMInlineAsmDialectATT, 0);
   LLVMValueRef out = vector ? LLVMGetPoison(rt) : NULL;
   for (unsigned i = 0; i < n; i++) {
      LLVMValueRef e = vector ? LLVMBuildExtractElement(b, x, LLVMConstInt(i32, i, 0), "") : x;
      if (in != et)
         e = is_signed(c->src) ? LLVMBuildSExt(b, e, in, "") : LLVMBuildZExt(b, e, in, "");
      LLVMValueRef r = LLVMBuildCall2(b, aty, cvt, &e, 1, "");
      out = vector ? LLVMBuildInsertElement(b, out, r, LLVMConstInt(i32, i, 0), "") : r;
   }
   LLVMBuildRet(b, out);
}

/* Conversions libclc gets wrong (nvptx_builtins.h); false for others. */
static bool fix_conversion(LLVMModuleRef m, LLVMValueRef fn, const char *name, LLVMBuilderRef b)
{
   struct conversion c;
   if (!parse(name, &c) || LLVMCountParams(fn) != 1)
      return false;
   if (is_float(c.src) && !is_float(c.dst) && c.sat) {
      define_sat(m, fn, &c, b);
      return true;
   }
   if (c.rounding && c.rounding != 'e' &&
       ((!is_float(c.src) && c.dst == 'f') || (c.src == 'd' && c.dst == 'f') ||
        ((c.src == 'l' || c.src == 'm') && c.dst == 'd'))) {
      define_rounded(m, fn, &c, b);
      return true;
   }
   return false;
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
   static const char mad_hi[] = "_Z6mad_hi", sub_sat[] = "_Z7sub_sat", mad_sat[] = "_Z7mad_sat";
   LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
   /* New definitions go at the end of the list: stop before them. */
   LLVMValueRef last = LLVMGetLastFunction(m), next = LLVMGetFirstFunction(m);
   for (LLVMValueRef fn = next; fn && next; fn = next) {
      next = fn == last ? NULL : LLVMGetNextFunction(fn);
      size_t len;
      const char *name = LLVMGetValueName2(fn, &len);
      /* libclc's wrong definitions are replaced. */
      if (fix_conversion(m, fn, name, b))
         continue;
      LLVMTypeRef fnty = LLVMGlobalGetValueType(fn);
      if (!strncmp(name, sub_sat, sizeof(sub_sat) - 1) && LLVMCountParamTypes(fnty) == 2 &&
          strchr("acsil", element_letter(name + sizeof(sub_sat) - 1))) {
         define_sub_sat(m, fn, b);
         continue;
      }
      if (!strncmp(name, mad_sat, sizeof(mad_sat) - 1) && LLVMCountParamTypes(fnty) == 3) {
         char e = element_letter(name + sizeof(mad_sat) - 1);
         if (e && strchr("lm", e)) {
            define_mad_sat64(m, fn, e == 'l', b);
            continue;
         }
      }
      if (LLVMGetFirstBasicBlock(fn))
         continue;
      if (!strncmp(name, mad_hi, sizeof(mad_hi) - 1)) {
         char e = element_letter(name + sizeof(mad_hi) - 1);
         const char *sign = strchr("aclsi", e), *unsign = strchr("hmtj", e);
         if (e && (sign || unsign) && LLVMCountParamTypes(fnty) == 3)
            define_mad_hi(m, fn, sign != NULL, b);
      } else if (is_smoothstep_dd_vector(name, fn)) {
         define_smoothstep(m, fn, b);
      }
   }
   LLVMDisposeBuilder(b);
}
