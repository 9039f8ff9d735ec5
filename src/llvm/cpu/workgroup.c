/* The work-group function of a kernel: its signature and argument
 * unpacking (kiln_wg_create), the launch context it reads, and the order
 * in which the other wg_*.c files turn it into work-item loops
 * (kiln_wg_finish). */
#include "llvm/cpu/wg_internal.h"

#include <stdio.h>
#include <string.h>

#include "kiln/cpu_abi.h"
#include "kiln/kernel_info.h"
#include "llvm/cpu/wg_interchange.h"
#include "llvm/cpu/wg_loop_split.h"
#include "llvm/cpu/wg_regroup.h"
#include "util/alloc.h"

static LLVMTypeRef ctx_struct_type(LLVMContextRef c)
{
   LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
   LLVMTypeRef a3 = LLVMArrayType2(i64, 3);
   LLVMTypeRef fields[] = {a3, a3, a3, a3, a3, LLVMPointerTypeInContext(c, 0),
                           LLVMInt32TypeInContext(c), LLVMInt32TypeInContext(c),
                           LLVMPointerTypeInContext(c, 0), LLVMPointerTypeInContext(c, 0), a3,
                           i64, LLVMPointerTypeInContext(c, 0)};
   return LLVMStructTypeInContext(c, fields, 13, 0);
}

/* Pointer to ctx->field[idx] (idx NULL for scalar fields). */
LLVMValueRef kiln_wg_ctx_field(struct kiln_wg *w, enum kiln_wg_ctx_field field, LLVMValueRef idx)
{
   LLVMValueRef zero = LLVMConstInt(w->i32, 0, 0);
   LLVMValueRef f = LLVMConstInt(w->i32, field, 0);
   if (!idx) {
      LLVMValueRef ix[] = {zero, f};
      return LLVMBuildInBoundsGEP2(w->b, w->ctx_type, w->wctx, ix, 2, "");
   }
   LLVMValueRef ix[] = {zero, f, idx};
   return LLVMBuildInBoundsGEP2(w->b, w->ctx_type, w->wctx, ix, 3, "");
}

LLVMValueRef kiln_wg_load_i64(struct kiln_wg *w, LLVMValueRef p)
{
   LLVMValueRef v = LLVMBuildLoad2(w->b, w->i64, p, "");
   LLVMSetAlignment(v, 8);
   return v;
}

LLVMValueRef kiln_wg_lid_ptr(struct kiln_wg *w, LLVMValueRef idx)
{
   LLVMValueRef ix[] = {LLVMConstInt(w->i32, 0, 0), idx};
   return LLVMBuildInBoundsGEP2(w->b, LLVMArrayType2(w->i64, 3), w->lid, ix, 2, "");
}

static void wg_types(struct kiln_wg *w, LLVMModuleRef m)
{
   w->m = m;
   w->c = LLVMGetModuleContext(m);
   w->td = LLVMGetModuleDataLayout(m);
   w->i8 = LLVMInt8TypeInContext(w->c);
   w->i32 = LLVMInt32TypeInContext(w->c);
   w->i64 = LLVMInt64TypeInContext(w->c);
   w->ptr = LLVMPointerTypeInContext(w->c, 0);
   w->ctx_type = ctx_struct_type(w->c);
}

LLVMValueRef kiln_wg_create(LLVMModuleRef m, LLVMValueRef kernel,
                            const struct kiln_kernel_info *info)
{
   struct kiln_wg w = {0};
   wg_types(&w, m);
   size_t len;
   const char *kname = LLVMGetValueName2(kernel, &len);
   char *name = kiln_malloc(strlen(KILN_WG_PREFIX) + len + 1);
   if (!name)
      return NULL;
   sprintf(name, "%s%s", KILN_WG_PREFIX, kname);
   LLVMTypeRef params[] = {w.ptr, w.ptr};
   LLVMValueRef fn = LLVMAddFunction(m, name, LLVMFunctionType(LLVMVoidTypeInContext(w.c), params, 2, 0));
   kiln_free(name);
   LLVMSetLinkage(fn, LLVMExternalLinkage);
   /* Nothing the kernel writes aliases the argument buffer or the launch
    * context: saying so lets LLVM hoist work-item values out of the loops
    * and vectorize them. */
   unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
   for (unsigned p = 1; p <= 2; p++)
      LLVMAddAttributeAtIndex(fn, p, LLVMCreateEnumAttribute(w.c, noalias, 0));
   /* The whole context can be read anywhere: loads of its sizes and ids
    * under a condition (a header that only active work-items run,
    * wg_predicate.h) may then be hoisted out of the work-item loop. */
   uint64_t ctx_size = LLVMABISizeOfType(LLVMGetModuleDataLayout(m), w.ctx_type);
   LLVMAddAttributeAtIndex(fn, 2, LLVMCreateEnumAttribute(w.c, LLVMGetEnumAttributeKindForName("dereferenceable", 15), ctx_size));
   LLVMAddAttributeAtIndex(fn, 2, LLVMCreateEnumAttribute(w.c, LLVMGetEnumAttributeKindForName("align", 5),
                                                          LLVMABIAlignmentOfType(LLVMGetModuleDataLayout(m), w.ctx_type)));
   LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                           LLVMCreateEnumAttribute(w.c, LLVMGetEnumAttributeKindForName("nounwind", 8), 0));
   /* The kernel's target attributes (CPU, features) carry over. */
   LLVMAttributeRef cpu = LLVMGetStringAttributeAtIndex(kernel, LLVMAttributeFunctionIndex, "target-cpu", 10);
   LLVMAttributeRef feat = LLVMGetStringAttributeAtIndex(kernel, LLVMAttributeFunctionIndex, "target-features", 15);
   if (cpu)
      LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, cpu);
   if (feat)
      LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, feat);

   LLVMBuilderRef b = LLVMCreateBuilderInContext(w.c);
   LLVMBasicBlockRef setup = LLVMAppendBasicBlockInContext(w.c, fn, "setup");
   LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(w.c, fn, "body");
   LLVMPositionBuilderAtEnd(b, setup);
   LLVMValueRef argbuf = LLVMGetParam(fn, 0), wctx = LLVMGetParam(fn, 1);
   unsigned n = LLVMCountParams(kernel);
   LLVMValueRef *vals = kiln_calloc(n ? n : 1, sizeof(*vals));
   if (!vals) {
      LLVMDisposeBuilder(b);
      LLVMDeleteFunction(fn);
      return NULL;
   }
   unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
   for (unsigned i = 0; i < n; i++) {
      LLVMValueRef p = LLVMGetParam(kernel, i);
      LLVMTypeRef t = LLVMTypeOf(p);
      LLVMValueRef off = LLVMConstInt(w.i64, info->args[i].offset, 0);
      LLVMValueRef slot = LLVMBuildInBoundsGEP2(b, w.i8, argbuf, &off, 1, "");
      if (info->args[i].kind == KILN_ARG_LOCAL) {
         LLVMValueRef lo = LLVMBuildLoad2(b, w.i64, slot, "");
         LLVMValueRef f[] = {LLVMConstInt(w.i32, 0, 0), LLVMConstInt(w.i32, KILN_CTX_LOCAL_MEM, 0)};
         LLVMValueRef lmp = LLVMBuildInBoundsGEP2(b, w.ctx_type, wctx, f, 2, "");
         LLVMValueRef lm = LLVMBuildLoad2(b, w.ptr, lmp, "");
         LLVMValueRef v = LLVMBuildInBoundsGEP2(b, w.i8, lm, &lo, 1, "");
         vals[i] = LLVMGetPointerAddressSpace(t) ? LLVMBuildAddrSpaceCast(b, v, t, "") : v;
      } else if (LLVMGetEnumAttributeAtIndex(kernel, i + 1, byval)) {
         /* The inliner copies byval arguments for each work-item. */
         vals[i] = LLVMGetPointerAddressSpace(t) ? LLVMBuildAddrSpaceCast(b, slot, t, "") : slot;
      } else {
         LLVMValueRef v = LLVMBuildLoad2(b, t, slot, "");
         LLVMSetAlignment(v, 1);
         vals[i] = v;
      }
   }
   LLVMBuildBr(b, body);
   LLVMPositionBuilderAtEnd(b, body);
   LLVMValueRef call = LLVMBuildCall2(b, LLVMGlobalGetValueType(kernel), kernel, vals, n, "");
   LLVMSetInstructionCallConv(call, LLVMGetFunctionCallConv(kernel));
   LLVMBuildRetVoid(b);
   kiln_free(vals);
   LLVMDisposeBuilder(b);
   return fn;
}

/* __kiln_stack_<kernel> (include/kiln/cpu_abi.h): the per-work-item
 * slots are known now; kiln_wg_measure_stack adds the frame once the
 * optimiser has run.  False when out of memory. */
static bool emit_stack_info(struct kiln_wg *w, const char *kernel)
{
   char *name = kiln_malloc(strlen(KILN_STACK_PREFIX) + strlen(kernel) + 1);
   if (!name)
      return false;
   sprintf(name, "%s%s", KILN_STACK_PREFIX, kernel);
   LLVMTypeRef t = LLVMArrayType2(w->i64, KILN_STACK_FIELDS);
   LLVMValueRef g = LLVMAddGlobal(w->m, t, name);
   kiln_free(name);
   LLVMValueRef vals[KILN_STACK_FIELDS];
   vals[KILN_STACK_FIXED] = LLVMConstInt(w->i64, w->private_pad, 0);
   vals[KILN_STACK_PER_ITEM] = LLVMConstInt(w->i64, w->private_per_item, 0);
   LLVMSetInitializer(g, LLVMConstArray2(w->i64, vals, KILN_STACK_FIELDS));
   LLVMSetGlobalConstant(g, 1);
   LLVMSetLinkage(g, LLVMExternalLinkage);
   return true;
}

/* An external constant i64 named prefix + kernel (include/kiln/cpu_abi.h)
 * that the driver looks up.  False when out of memory. */
static bool emit_kernel_constant(struct kiln_wg *w, const char *prefix, const char *kernel,
                                 uint64_t value)
{
   char *name = kiln_malloc(strlen(prefix) + strlen(kernel) + 1);
   if (!name)
      return false;
   sprintf(name, "%s%s", prefix, kernel);
   LLVMValueRef g = LLVMAddGlobal(w->m, w->i64, name);
   kiln_free(name);
   LLVMSetInitializer(g, LLVMConstInt(w->i64, value, 0));
   LLVMSetGlobalConstant(g, 1);
   LLVMSetLinkage(g, LLVMExternalLinkage);
   return true;
}

/* __kiln_max_items_<kernel> (include/kiln/cpu_abi.h) for a kernel that
 * calls a sub-group function: a work-group is one sub-group, and
 * sub-groups hold at most KILN_SUB_GROUP_MAX_ITEMS work-items, the most a
 * 128-bit sub-group mask describes and what the Khronos CTS and portable
 * programs assume.  False when out of memory. */
static bool emit_max_items(struct kiln_wg *w, const char *kernel)
{
   return emit_kernel_constant(w, KILN_MAX_ITEMS_PREFIX, kernel, KILN_SUB_GROUP_MAX_ITEMS);
}

/* Whether the kernel may run several work-groups of dimension 0 as one
 * (wg_regroup.h): nothing __local either. */
static bool regroupable(const struct kiln_wg *w, const struct kiln_kernel_info *info)
{
   if (info->local_mem_size)
      return false;
   for (uint32_t i = 0; i < info->num_args; i++)
      if (info->args[i].kind == KILN_ARG_LOCAL)
         return false;
   return kiln_wg_regroupable(w->fn);
}

/* __kiln_local_<kernel> (include/kiln/cpu_abi.h) for a kernel with
 * __local bytes of its own.  False when out of memory. */
static bool emit_local_size(struct kiln_wg *w, const char *kernel, uint64_t size)
{
   return emit_kernel_constant(w, KILN_LOCAL_PREFIX, kernel, size);
}

enum kiln_wg_status kiln_wg_finish(LLVMModuleRef m, LLVMValueRef fn,
                                   struct kiln_kernel_info *info)
{
   struct kiln_wg w = {0};
   wg_types(&w, m);
   w.fn = fn;
   w.setup = LLVMGetFirstBasicBlock(fn);
   w.body = LLVMGetNextBasicBlock(w.setup);
   w.wctx = LLVMGetParam(fn, 1);
   w.b = LLVMCreateBuilderInContext(w.c);

   /* Setup: the local id, the next-region slot and the local sizes. */
   LLVMPositionBuilderBefore(w.b, LLVMGetFirstInstruction(w.setup));
   w.lid = LLVMBuildAlloca(w.b, LLVMArrayType2(w.i64, 3), "lid");
   w.next = LLVMBuildAlloca(w.b, w.i32, "next");
   LLVMPositionBuilderBefore(w.b, LLVMGetBasicBlockTerminator(w.setup));
   for (int d = 0; d < 3; d++) {
      LLVMBuildStore(w.b, LLVMConstInt(w.i64, 0, 0), kiln_wg_lid_ptr(&w, LLVMConstInt(w.i32, d, 0)));
      w.lsize[d] = kiln_wg_load_i64(&w, kiln_wg_ctx_field(&w, KILN_CTX_LOCAL_SIZE, LLVMConstInt(w.i32, d, 0)));
   }
   w.wg_items = LLVMBuildMul(w.b, LLVMBuildMul(w.b, w.lsize[0], w.lsize[1], ""), w.lsize[2], "");

   info->local_mem_size = kiln_wg_place_local_variables(&w);
   bool regroup = regroupable(&w, info);
   unsigned barriers = kiln_wg_lower_work_items(&w);
   barriers += kiln_wg_interchange(m, fn, w.lid, w.lsize[0]);
   bool ok = true;
   if (!barriers) {
      kiln_wg_build_single_region(&w);
   } else {
      barriers += kiln_wg_split_uniform_loops(fn, w.lid, LLVMGetNamedFunction(m, kiln_wi_names[WI_BARRIER]));
      ok = kiln_wg_build_regions(&w, barriers);
   }
   LLVMDisposeBuilder(w.b);
   if (!w.oom && ok && !emit_stack_info(&w, info->name))
      w.oom = true;
   if (!w.oom && ok && w.sub_groups && !emit_max_items(&w, info->name))
      w.oom = true;
   if (!w.oom && ok && info->local_mem_size &&
       !emit_local_size(&w, info->name, info->local_mem_size))
      w.oom = true;
   if (!w.oom && ok && regroup && !emit_kernel_constant(&w, KILN_REGROUP_PREFIX, info->name, 1))
      w.oom = true;
   return w.oom ? KILN_WG_OUT_OF_MEMORY : ok ? KILN_WG_OK : KILN_WG_UNSUPPORTED;
}
