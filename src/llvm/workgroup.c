#include "llvm/workgroup.h"

#include <llvm-c/Target.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kiln/cpu_abi.h"
#include "kiln/kernel_info.h"
#include "llvm/value_map.h"
#include "llvm/wg_liveness.h"
#include "llvm/wg_loop_split.h"
#include "llvm/wg_uniform.h"
#include "util/alloc.h"

/* Work-item functions and barriers, as Clang mangles them. */
enum wi_fn {
   WI_GLOBAL_ID,
   WI_LOCAL_ID,
   WI_GROUP_ID,
   WI_GLOBAL_SIZE,
   WI_LOCAL_SIZE,
   WI_NUM_GROUPS,
   WI_GLOBAL_OFFSET,
   WI_WORK_DIM,
   WI_CTX, /* KILN_WG_CTX_FN */
   WI_BARRIER,
   WI_MEM_FENCE,
   WI_READ_MEM_FENCE,
   WI_WRITE_MEM_FENCE,
   WI_COUNT,
   WI_NONE = WI_COUNT,
};

static const char *const wi_names[WI_COUNT] = {
   "_Z13get_global_idj",  "_Z12get_local_idj",   "_Z12get_group_idj",
   "_Z15get_global_sizej", "_Z14get_local_sizej", "_Z14get_num_groupsj",
   "_Z17get_global_offsetj", "_Z12get_work_dimv", KILN_WG_CTX_FN,      "_Z7barrierj",
   "_Z9mem_fencej",       "_Z14read_mem_fencej", "_Z15write_mem_fencej",
};

bool kiln_wg_is_work_item_function(const char *name)
{
   for (int i = 0; i < WI_COUNT; i++)
      if (!strcmp(name, wi_names[i]))
         return true;
   return false;
}

static enum wi_fn wi_kind(LLVMValueRef call)
{
   LLVMValueRef callee = LLVMGetCalledValue(call);
   if (!callee || !LLVMIsAFunction(callee))
      return WI_NONE;
   size_t len;
   const char *name = LLVMGetValueName2(callee, &len);
   for (int i = 0; i < WI_COUNT; i++)
      if (!strcmp(name, wi_names[i]))
         return (enum wi_fn)i;
   return WI_NONE;
}

static bool is_call(LLVMValueRef inst)
{
   return LLVMGetInstructionOpcode(inst) == LLVMCall;
}

/* ---- always-inline marking --------------------------------------- */

static bool calls_marked(LLVMValueRef fn, unsigned kind_id)
{
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
         if (!is_call(i))
            continue;
         LLVMValueRef callee = LLVMGetCalledValue(i);
         if (!callee || !LLVMIsAFunction(callee))
            continue;
         if (wi_kind(i) != WI_NONE ||
             LLVMGetEnumAttributeAtIndex(callee, LLVMAttributeFunctionIndex, kind_id))
            return true;
      }
   return false;
}

static void set_always_inline(LLVMContextRef ctx, LLVMValueRef fn)
{
   unsigned ai = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
   unsigned ni = LLVMGetEnumAttributeKindForName("noinline", 8);
   unsigned on = LLVMGetEnumAttributeKindForName("optnone", 7);
   LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, ni);
   LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, on);
   LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(ctx, ai, 0));
}

void kiln_wg_mark_inlining(LLVMModuleRef m)
{
   LLVMContextRef ctx = LLVMGetModuleContext(m);
   unsigned ai = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
   /* Kernels are always inlined into their work-group functions; other
    * functions when they reach a work-item function, until nothing changes
    * (call chains are short: OpenCL has no recursion). */
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
      if (LLVMGetFunctionCallConv(fn) == LLVMSPIRKERNELCallConv && LLVMGetFirstBasicBlock(fn))
         set_always_inline(ctx, fn);
   bool changed = true;
   while (changed) {
      changed = false;
      for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
         if (!LLVMGetFirstBasicBlock(fn) ||
             LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, ai))
            continue;
         if (calls_marked(fn, ai)) {
            set_always_inline(ctx, fn);
            changed = true;
         }
      }
   }
}

/* ---- the work-group function ------------------------------------- */

struct wg {
   LLVMModuleRef m;
   LLVMContextRef c;
   LLVMTargetDataRef td;
   LLVMBuilderRef b;
   LLVMValueRef fn, kernel;
   LLVMTypeRef i32, i64, i8, ptr, ctx_type;
   LLVMBasicBlockRef setup, body;
   LLVMValueRef args, wctx;
   LLVMValueRef lid;       /* [3 x i64] alloca: this work-item's local id */
   LLVMValueRef next;      /* i32 alloca: region the work-items go to next */
   LLVMValueRef lsize[3];  /* local sizes, loaded in setup */
   LLVMValueRef wg_items;  /* product of the local sizes */
   bool oom;               /* an allocation failed: the result is unusable */
};

static LLVMTypeRef ctx_struct_type(LLVMContextRef c)
{
   LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
   LLVMTypeRef a3 = LLVMArrayType2(i64, 3);
   LLVMTypeRef fields[] = {a3, a3, a3, a3, a3, LLVMPointerTypeInContext(c, 0),
                           LLVMInt32TypeInContext(c), LLVMInt32TypeInContext(c),
                           LLVMPointerTypeInContext(c, 0), LLVMPointerTypeInContext(c, 0)};
   return LLVMStructTypeInContext(c, fields, 10, 0);
}

/* Pointer to ctx->field[idx] (idx NULL for scalar fields). */
static LLVMValueRef ctx_field(struct wg *w, enum kiln_wg_ctx_field field, LLVMValueRef idx)
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

static LLVMValueRef load_i64(struct wg *w, LLVMValueRef p)
{
   LLVMValueRef v = LLVMBuildLoad2(w->b, w->i64, p, "");
   LLVMSetAlignment(v, 8);
   return v;
}

static LLVMValueRef lid_ptr(struct wg *w, LLVMValueRef idx)
{
   LLVMValueRef ix[] = {LLVMConstInt(w->i32, 0, 0), idx};
   return LLVMBuildInBoundsGEP2(w->b, LLVMArrayType2(w->i64, 3), w->lid, ix, 2, "");
}

/* Replaces one work-item function call (builder placed before it). */
static void lower_wi_call(struct wg *w, LLVMValueRef call, enum wi_fn kind)
{
   if (kind == WI_CTX) {
      LLVMReplaceAllUsesWith(call, w->wctx);
      return;
   }
   if (kind == WI_WORK_DIM) {
      LLVMValueRef v = LLVMBuildLoad2(w->b, w->i32, ctx_field(w, KILN_CTX_WORK_DIM, NULL), "");
      LLVMReplaceAllUsesWith(call, v);
      return;
   }
   /* dimindx outside 0..2 gives 0 for ids and offsets, 1 for sizes. */
   LLVMValueRef dim = LLVMGetOperand(call, 0);
   LLVMValueRef idx = dim, in_range = NULL;
   if (!LLVMIsAConstantInt(dim) || LLVMConstIntGetZExtValue(dim) > 2) {
      in_range = LLVMBuildICmp(w->b, LLVMIntULT, dim, LLVMConstInt(w->i32, 3, 0), "");
      idx = LLVMBuildSelect(w->b, in_range, dim, LLVMConstInt(w->i32, 0, 0), "");
   }
   LLVMValueRef v;
   bool is_size = false;
   switch (kind) {
   case WI_LOCAL_ID:
      v = load_i64(w, lid_ptr(w, idx));
      break;
   case WI_GLOBAL_ID: {
      LLVMValueRef g = load_i64(w, ctx_field(w, KILN_CTX_GROUP_ID, idx));
      LLVMValueRef l = load_i64(w, ctx_field(w, KILN_CTX_LOCAL_SIZE, idx));
      LLVMValueRef o = load_i64(w, ctx_field(w, KILN_CTX_GLOBAL_OFFSET, idx));
      v = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, g, l, ""), load_i64(w, lid_ptr(w, idx)), "");
      v = LLVMBuildAdd(w->b, v, o, "");
      break;
   }
   case WI_GROUP_ID:
      v = load_i64(w, ctx_field(w, KILN_CTX_GROUP_ID, idx));
      break;
   case WI_GLOBAL_OFFSET:
      v = load_i64(w, ctx_field(w, KILN_CTX_GLOBAL_OFFSET, idx));
      break;
   case WI_GLOBAL_SIZE:
      v = load_i64(w, ctx_field(w, KILN_CTX_GLOBAL_SIZE, idx));
      is_size = true;
      break;
   case WI_LOCAL_SIZE:
      v = load_i64(w, ctx_field(w, KILN_CTX_LOCAL_SIZE, idx));
      is_size = true;
      break;
   case WI_NUM_GROUPS:
      v = load_i64(w, ctx_field(w, KILN_CTX_NUM_GROUPS, idx));
      is_size = true;
      break;
   default:
      return;
   }
   if (in_range)
      v = LLVMBuildSelect(w->b, in_range, v, LLVMConstInt(w->i64, is_size ? 1 : 0, 0), "");
   if (LLVMTypeOf(call) != w->i64)
      v = LLVMBuildTrunc(w->b, v, LLVMTypeOf(call), "");
   LLVMReplaceAllUsesWith(call, v);
}

/* Lowers every work-item function call; fences vanish (a work-group runs
 * on one thread).  Barrier calls stay: they delimit regions.  Returns the
 * number of barriers. */
static unsigned lower_wi_calls(struct wg *w)
{
   unsigned barriers = 0;
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(w->fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
      LLVMValueRef i = LLVMGetFirstInstruction(bb);
      while (i) {
         LLVMValueRef next = LLVMGetNextInstruction(i);
         enum wi_fn k = is_call(i) ? wi_kind(i) : WI_NONE;
         if (k == WI_BARRIER) {
            barriers++;
         } else if (k == WI_MEM_FENCE || k == WI_READ_MEM_FENCE || k == WI_WRITE_MEM_FENCE) {
            LLVMInstructionEraseFromParent(i);
         } else if (k != WI_NONE) {
            LLVMPositionBuilderBefore(w->b, i);
            lower_wi_call(w, i, k);
            LLVMInstructionEraseFromParent(i);
         }
         i = next;
      }
   }
   return barriers;
}

/* ---- __local variables -------------------------------------------- */

/* The value of constant expression v with g replaced by p, built as
 * instructions at the builder's position (p is an instruction, so nothing
 * folds back into a constant).  v itself when g does not occur in it. */
static LLVMValueRef rebuild_constant(struct wg *w, LLVMValueRef v, LLVMValueRef g, LLVMValueRef p)
{
   if (v == g)
      return p;
   if (!LLVMIsAConstantExpr(v))
      return v;
   unsigned n = (unsigned)LLVMGetNumOperands(v);
   LLVMValueRef ops[16];
   bool changed = false;
   if (n > 16)
      return v;
   for (unsigned k = 0; k < n; k++) {
      ops[k] = rebuild_constant(w, LLVMGetOperand(v, k), g, p);
      changed |= ops[k] != LLVMGetOperand(v, k);
   }
   if (!changed)
      return v;
   LLVMOpcode op = LLVMGetConstOpcode(v);
   if (op == LLVMGetElementPtr)
      return LLVMBuildGEP2(w->b, LLVMGetGEPSourceElementType(v), ops[0], ops + 1, n - 1, "");
   if (n == 1)
      return LLVMBuildCast(w->b, op, ops[0], LLVMTypeOf(v), "");
   if (n == 2)
      return LLVMBuildBinOp(w->b, op, ops[0], ops[1], "");
   return v;
}

/* Points every use of g in the work-group function at p, including uses
 * inside constant expressions (a GEP into a __local array). */
static void replace_global_uses(struct wg *w, LLVMValueRef g, LLVMValueRef p)
{
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(w->fn); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
         if (i == p)
            continue;
         unsigned n = (unsigned)LLVMGetNumOperands(i);
         for (unsigned k = 0; k < n; k++) {
            LLVMValueRef op = LLVMGetOperand(i, k);
            if (op != g && !LLVMIsAConstantExpr(op))
               continue;
            /* Operands of a phi are computed at the end of their block. */
            if (LLVMIsAPHINode(i))
               LLVMPositionBuilderBefore(w->b, LLVMGetBasicBlockTerminator(LLVMGetIncomingBlock(i, k)));
            else
               LLVMPositionBuilderBefore(w->b, i);
            LLVMValueRef repl = rebuild_constant(w, op, g, p);
            if (repl != op)
               LLVMSetOperand(i, k, repl);
         }
      }
}

/* Whether fn uses v, directly or inside constant expressions. */
static bool used_in(LLVMValueRef v, LLVMValueRef fn)
{
   for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (LLVMIsAInstruction(user) && LLVMGetBasicBlockParent(LLVMGetInstructionParent(user)) == fn)
         return true;
      if (LLVMIsAConstantExpr(user) && used_in(user, fn))
         return true;
   }
   return false;
}

/* Places the kernel's __local variables (address space 3 globals) in the
 * work-group's arena; returns their total size. */
static uint64_t place_local_variables(struct wg *w)
{
   uint64_t size = 0;
   LLVMPositionBuilderBefore(w->b, LLVMGetBasicBlockTerminator(w->setup));
   LLVMValueRef arena = NULL;
   for (LLVMValueRef g = LLVMGetFirstGlobal(w->m); g; g = LLVMGetNextGlobal(g)) {
      if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != 3 || !used_in(g, w->fn))
         continue;
      LLVMPositionBuilderBefore(w->b, LLVMGetBasicBlockTerminator(w->setup));
      if (!arena)
         arena = LLVMBuildLoad2(w->b, w->ptr, ctx_field(w, KILN_CTX_LOCAL_MEM, NULL), "local_mem");
      uint64_t align = LLVMGetAlignment(g);
      if (align < 16)
         align = 16;
      size = (size + align - 1) & ~(align - 1);
      LLVMValueRef off = LLVMConstInt(w->i64, size, 0);
      LLVMValueRef p = LLVMBuildInBoundsGEP2(w->b, w->i8, arena, &off, 1, "");
      p = LLVMBuildAddrSpaceCast(w->b, p, LLVMTypeOf(g), LLVMGetValueName(g));
      size += LLVMABISizeOfType(w->td, LLVMGlobalGetValueType(g));
      replace_global_uses(w, g, p);
   }
   return size;
}

/* ---- work-item loops ----------------------------------------------- */

/* Builds, for one region, the nest
 *    for z, for y, for x: lid = (x, y, z); <body>
 * Returns the nest's entry block; the body must branch to *latch when a
 * work-item is done, and the nest continues at done. */
static LLVMBasicBlockRef build_loop_nest(struct wg *w, LLVMBasicBlockRef body,
                                         LLVMBasicBlockRef done, LLVMBasicBlockRef *latch)
{
   LLVMBasicBlockRef pre = LLVMAppendBasicBlockInContext(w->c, w->fn, "wi.pre");
   LLVMBasicBlockRef cond[3], init[3], inc[3];
   for (int d = 2; d >= 0; d--) {
      init[d] = d == 2 ? pre : LLVMAppendBasicBlockInContext(w->c, w->fn, "wi.init");
      cond[d] = LLVMAppendBasicBlockInContext(w->c, w->fn, "wi.cond");
   }
   for (int d = 0; d < 3; d++)
      inc[d] = LLVMAppendBasicBlockInContext(w->c, w->fn, "wi.inc");
   LLVMBasicBlockRef enter = LLVMAppendBasicBlockInContext(w->c, w->fn, "wi.body");

   for (int d = 2; d >= 0; d--) {
      LLVMPositionBuilderAtEnd(w->b, init[d]);
      LLVMBuildStore(w->b, LLVMConstInt(w->i64, 0, 0), lid_ptr(w, LLVMConstInt(w->i32, d, 0)));
      LLVMBuildBr(w->b, cond[d]);
      LLVMPositionBuilderAtEnd(w->b, cond[d]);
      LLVMValueRef v = load_i64(w, lid_ptr(w, LLVMConstInt(w->i32, d, 0)));
      LLVMValueRef more = LLVMBuildICmp(w->b, LLVMIntULT, v, w->lsize[d], "");
      LLVMBuildCondBr(w->b, more, d ? init[d - 1] : enter, d == 2 ? done : inc[d + 1]);
   }
   LLVMPositionBuilderAtEnd(w->b, enter);
   LLVMBuildBr(w->b, body);
   for (int d = 0; d < 3; d++) {
      LLVMPositionBuilderAtEnd(w->b, inc[d]);
      LLVMValueRef p = lid_ptr(w, LLVMConstInt(w->i32, d, 0));
      LLVMValueRef v = load_i64(w, p);
      LLVMBuildStore(w->b, LLVMBuildAdd(w->b, v, LLVMConstInt(w->i64, 1, 0), ""), p);
      LLVMBuildBr(w->b, cond[d]);
   }
   *latch = inc[0];
   return pre;
}

/* ---- privatisation -------------------------------------------------- */

static LLVMValueRef flat_local_id(struct wg *w)
{
   LLVMValueRef x = load_i64(w, lid_ptr(w, LLVMConstInt(w->i32, 0, 0)));
   LLVMValueRef y = load_i64(w, lid_ptr(w, LLVMConstInt(w->i32, 1, 0)));
   LLVMValueRef z = load_i64(w, lid_ptr(w, LLVMConstInt(w->i32, 2, 0)));
   LLVMValueRef v = LLVMBuildAdd(w->b, y, LLVMBuildMul(w->b, z, w->lsize[1], ""), "");
   return LLVMBuildAdd(w->b, x, LLVMBuildMul(w->b, v, w->lsize[0], ""), "");
}

static bool is_intrinsic_call(LLVMValueRef inst, const char *prefix)
{
   if (!is_call(inst))
      return false;
   LLVMValueRef callee = LLVMGetCalledValue(inst);
   size_t len;
   return callee && LLVMIsAFunction(callee) &&
          !strncmp(LLVMGetValueName2(callee, &len), prefix, strlen(prefix));
}

/* An alloca only ever written in setup holds a value common to the whole
 * work-group (an argument, a size): one slot serves every work-item. */
static bool setup_only(struct wg *w, LLVMValueRef a)
{
   for (LLVMUseRef u = LLVMGetFirstUse(a); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (LLVMIsALoadInst(user))
         continue;
      if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == a &&
          LLVMGetInstructionParent(user) == w->setup)
         continue;
      return false;
   }
   return true;
}

/* Gives every work-item its own copy of each private variable: values
 * that must survive a barrier while the other work-items run. */
static void privatize_alloca(struct wg *w, LLVMValueRef a)
{
   LLVMTypeRef t = LLVMGetAllocatedType(a);
   uint64_t count = 1;
   LLVMValueRef n = LLVMGetOperand(a, 0);
   if (LLVMIsAConstantInt(n))
      count = LLVMConstIntGetZExtValue(n);
   uint64_t align = LLVMGetAlignment(a);
   if (align < LLVMABIAlignmentOfType(w->td, t))
      align = LLVMABIAlignmentOfType(w->td, t);
   uint64_t stride = LLVMABISizeOfType(w->td, t) * count;
   stride = (stride + align - 1) / align * align;

   LLVMPositionBuilderBefore(w->b, LLVMGetBasicBlockTerminator(w->setup));
   LLVMValueRef bytes = LLVMBuildMul(w->b, w->wg_items, LLVMConstInt(w->i64, stride, 0), "");
   LLVMValueRef slots = LLVMBuildArrayAlloca(w->b, w->i8, bytes, "priv");
   LLVMSetAlignment(slots, (unsigned)align);

   LLVMUseRef u = LLVMGetFirstUse(a);
   while (u) {
      LLVMUseRef unext = LLVMGetNextUse(u);
      LLVMValueRef user = LLVMGetUser(u);
      if (is_intrinsic_call(user, "llvm.lifetime.") || is_intrinsic_call(user, "llvm.dbg.")) {
         LLVMInstructionEraseFromParent(user);
         u = unext;
         continue;
      }
      LLVMPositionBuilderBefore(w->b, user);
      LLVMValueRef off = LLVMBuildMul(w->b, flat_local_id(w), LLVMConstInt(w->i64, stride, 0), "");
      LLVMValueRef p = LLVMBuildInBoundsGEP2(w->b, w->i8, slots, &off, 1, "");
      for (unsigned k = 0; k < (unsigned)LLVMGetNumOperands(user); k++)
         if (LLVMGetOperand(user, k) == a)
            LLVMSetOperand(user, k, p);
      u = unext;
   }
   LLVMInstructionEraseFromParent(a);
}

/* Gives every work-item its own copy of each private variable that must
 * survive a barrier while the other work-items run (wg_liveness.h).
 * Privatizing only some of them would be wrong code: without memory for
 * the list, nothing is done and w->oom is set.  Allocas in `shared` keep
 * one slot for the group (plan_uniform). */
static void privatize_allocas(struct wg *w, const struct kiln_wg_cfg *cfg,
                              const struct kiln_value_map *shared)
{
   /* Collect first: privatizing adds allocas of its own to setup. */
   unsigned n = 0, cap = 0;
   LLVMValueRef *list = NULL;
   for (LLVMValueRef i = LLVMGetFirstInstruction(w->setup); i; i = LLVMGetNextInstruction(i)) {
      if (!LLVMIsAAllocaInst(i) || i == w->lid || i == w->next || setup_only(w, i))
         continue;
      if (cfg && !kiln_wg_needs_slot(cfg, i))
         continue;
      if (shared && kiln_value_map_get(shared, i))
         continue;
      if (n == cap) {
         cap = cap ? cap * 2 : 32;
         LLVMValueRef *grown = kiln_realloc(list, cap * sizeof(*list));
         if (!grown) {
            w->oom = true;
            kiln_free(list);
            return;
         }
         list = grown;
      }
      list[n++] = i;
   }
   for (unsigned k = 0; k < n; k++)
      privatize_alloca(w, list[k]);
   kiln_free(list);
}

/* ---- regions between barriers -------------------------------------- */

struct regions {
   unsigned n;                /* barriers */
   LLVMBasicBlockRef *before; /* block ending at barrier j (its br crosses it) */
   LLVMBasicBlockRef *after;  /* where work-items resume after barrier j */
};

/* Splits blocks so that each barrier call ends a block whose branch to the
 * next block crosses the barrier; the call itself is removed. */
/* Records the barriers: kiln_wg_isolate_barriers left each call last in
 * its block, before a branch to where work-items resume; the calls go. */
static bool split_at_barriers(struct wg *w, struct regions *r, unsigned max)
{
   r->before = kiln_calloc(max, sizeof(*r->before));
   r->after = kiln_calloc(max, sizeof(*r->after));
   if (!r->before || !r->after) {
      w->oom = true;
      return false;
   }
   for (LLVMBasicBlockRef bb = LLVMGetNextBasicBlock(w->setup); bb; bb = LLVMGetNextBasicBlock(bb)) {
      LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
      LLVMValueRef call = NULL;
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
         if (is_call(i) && wi_kind(i) == WI_BARRIER)
            call = i;
      if (!call)
         continue;
      /* reg2mem may have put loads and stores of phi values between the
       * barrier and the branch: accesses to a work-item's own variables,
       * which can as well happen before the barrier. */
      for (LLVMValueRef i = LLVMGetNextInstruction(call); i != term; i = LLVMGetNextInstruction(i)) {
         bool store = LLVMIsAStoreInst(i) && LLVMIsAAllocaInst(LLVMGetOperand(i, 1));
         bool load = LLVMIsALoadInst(i) && LLVMIsAAllocaInst(LLVMGetOperand(i, 0));
         if (!store && !load)
            return false;
      }
      if (r->n == max || LLVMGetNumSuccessors(term) != 1)
         return false;
      LLVMInstructionEraseFromParent(call);
      r->before[r->n] = bb;
      r->after[r->n] = LLVMGetSuccessor(term, 0);
      r->n++;
   }
   /* Any barrier left elsewhere means the function was not prepared. */
   for (LLVMBasicBlockRef bb = LLVMGetNextBasicBlock(w->setup); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
         if (is_call(i) && wi_kind(i) == WI_BARRIER)
            return false;
   return true;
}

/* Moves the start of bb up to and including `upto` into a new block that
 * takes over bb's predecessors.  Moving the head (not the tail) keeps
 * every phi valid: bb's phis move with their predecessors, and bb's
 * successors still see bb. */
static void split_head(LLVMValueRef fn, LLVMBasicBlockRef bb, LLVMValueRef upto)
{
   LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
   LLVMBasicBlockRef head = LLVMInsertBasicBlockInContext(c, bb, "barrier");
   for (LLVMBasicBlockRef p = LLVMGetFirstBasicBlock(fn); p; p = LLVMGetNextBasicBlock(p)) {
      LLVMValueRef term = LLVMGetBasicBlockTerminator(p);
      for (unsigned s = 0; p != head && term && s < LLVMGetNumSuccessors(term); s++)
         if (LLVMGetSuccessor(term, s) == bb)
            LLVMSetSuccessor(term, s, head);
   }
   LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
   LLVMPositionBuilderAtEnd(b, head);
   LLVMValueRef i = LLVMGetFirstInstruction(bb);
   for (;;) {
      LLVMValueRef next = LLVMGetNextInstruction(i);
      LLVMInstructionRemoveFromParent(i);
      LLVMInsertIntoBuilder(b, i);
      if (i == upto)
         break;
      i = next;
   }
   LLVMBuildBr(b, bb);
   LLVMDisposeBuilder(b);
}

void kiln_wg_isolate_barriers(LLVMValueRef fn)
{
   bool again = true;
   while (again) {
      again = false;
      for (LLVMBasicBlockRef bb = LLVMGetNextBasicBlock(LLVMGetFirstBasicBlock(fn)); bb && !again;
           bb = LLVMGetNextBasicBlock(bb))
         for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
            if (!is_call(i) || wi_kind(i) != WI_BARRIER)
               continue;
            LLVMValueRef next = LLVMGetNextInstruction(i);
            if (LLVMIsABranchInst(next) && !LLVMIsConditional(next))
               continue; /* already last before a plain branch */
            split_head(fn, bb, i);
            again = true;
            break;
         }
   }
}

static int barrier_ending(const struct regions *r, LLVMBasicBlockRef bb)
{
   for (unsigned j = 0; j < r->n; j++)
      if (r->before[j] == bb)
         return (int)j;
   return -1;
}

/* Copies the blocks reachable from start without crossing a barrier into a
 * new work-item loop nest; returns the nest's entry. */
static LLVMBasicBlockRef clone_region(struct wg *w, const struct regions *r,
                                      LLVMBasicBlockRef start, LLVMBasicBlockRef dispatch,
                                      LLVMBasicBlockRef *old_blocks, unsigned num_old, bool once)
{
   struct kiln_value_map map;
   kiln_value_map_init(&map);
   bool *reach = kiln_calloc(num_old, sizeof(bool));
   LLVMBasicBlockRef *stack = kiln_malloc(num_old * sizeof(*stack));
   LLVMBasicBlockRef *copy = kiln_calloc(num_old, sizeof(*copy));
   LLVMBasicBlockRef latch, nest = NULL;
   if (!reach || !stack || !copy) {
      w->oom = true;
      goto out;
   }

   /* Which blocks the region holds. */
   unsigned sp = 0;
   for (unsigned k = 0; k < num_old; k++)
      if (old_blocks[k] == start) {
         reach[k] = true;
         stack[sp++] = start;
      }
   while (sp) {
      LLVMBasicBlockRef bb = stack[--sp];
      if (barrier_ending(r, bb) >= 0)
         continue;
      LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
      for (unsigned s = 0; s < LLVMGetNumSuccessors(term); s++) {
         LLVMBasicBlockRef succ = LLVMGetSuccessor(term, s);
         for (unsigned k = 0; k < num_old; k++)
            if (old_blocks[k] == succ && !reach[k]) {
               reach[k] = true;
               stack[sp++] = succ;
            }
      }
   }

   LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(w->c, w->fn, "region.done");
   LLVMPositionBuilderAtEnd(w->b, done);
   LLVMBuildBr(w->b, dispatch);
   for (unsigned k = 0; k < num_old; k++)
      if (reach[k]) {
         copy[k] = LLVMAppendBasicBlockInContext(w->c, w->fn, "r");
         if (!kiln_value_map_put(&map, LLVMBasicBlockAsValue(old_blocks[k]),
                                 LLVMBasicBlockAsValue(copy[k]))) {
            w->oom = true;
            goto out;
         }
      }
   LLVMBasicBlockRef entry = LLVMValueAsBasicBlock(
      kiln_value_map_get(&map, LLVMBasicBlockAsValue(start)));
   if (once) {
      /* The same for every work-item (it reads no work-item value): the
       * group runs it once. */
      latch = LLVMAppendBasicBlockInContext(w->c, w->fn, "once.end");
      LLVMPositionBuilderAtEnd(w->b, latch);
      LLVMBuildBr(w->b, done);
      nest = entry;
   } else {
      nest = build_loop_nest(w, entry, done, &latch);
   }

   /* Copy instructions; a block ending at barrier j records j, a return
    * records -1, and either ends the work-item. */
   for (unsigned k = 0; k < num_old; k++) {
      if (!reach[k])
         continue;
      LLVMPositionBuilderAtEnd(w->b, copy[k]);
      int j = barrier_ending(r, old_blocks[k]);
      for (LLVMValueRef i = LLVMGetFirstInstruction(old_blocks[k]); i;
           i = LLVMGetNextInstruction(i)) {
         bool term = i == LLVMGetBasicBlockTerminator(old_blocks[k]);
         if (term && (j >= 0 || LLVMIsAReturnInst(i))) {
            LLVMBuildStore(w->b, LLVMConstInt(w->i32, (unsigned long long)j, 1), w->next);
            LLVMBuildBr(w->b, latch);
            break;
         }
         LLVMValueRef c = LLVMInstructionClone(i);
         LLVMInsertIntoBuilder(w->b, c);
         if (!kiln_value_map_put(&map, i, c)) {
            /* Copies pointing at the originals would be wrong code. */
            w->oom = true;
            nest = NULL;
            goto out;
         }
      }
   }
   /* Point operands and successors at the copies. */
   for (unsigned k = 0; k < num_old; k++) {
      if (!reach[k])
         continue;
      for (LLVMValueRef i = LLVMGetFirstInstruction(copy[k]); i; i = LLVMGetNextInstruction(i)) {
         unsigned n = (unsigned)LLVMGetNumOperands(i);
         for (unsigned o = 0; o < n; o++) {
            LLVMValueRef op = LLVMGetOperand(i, o);
            LLVMValueRef mapped = op ? kiln_value_map_get(&map, op) : NULL;
            if (mapped)
               LLVMSetOperand(i, o, mapped);
         }
      }
   }
out:
   kiln_value_map_fini(&map);
   kiln_free(reach);
   kiln_free(stack);
   kiln_free(copy);
   return nest;
}

/* ---- regions the group runs once ------------------------------------ */

static bool in_region(const struct kiln_wg_cfg *cfg, unsigned r, unsigned b)
{
   return cfg->reach[r][b / 64] >> (b % 64) & 1;
}

/* Whether region r does the same for every work-item: uniform values and
 * branches, and no effect but stores to uniform private variables. */
static bool region_uniform(const struct kiln_wg_cfg *cfg, unsigned r,
                           const struct kiln_wg_uniform *u)
{
   for (unsigned b = 0; b < cfg->num_blocks; b++) {
      if (!in_region(cfg, r, b))
         continue;
      if (!kiln_wg_uniform_block(u, cfg->blocks[b]))
         return false;
      for (LLVMValueRef i = LLVMGetFirstInstruction(cfg->blocks[b]); i; i = LLVMGetNextInstruction(i)) {
         if (LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMVoidTypeKind) {
            if (!kiln_wg_uniform_value(u, i))
               return false;
            continue;
         }
         switch (LLVMGetInstructionOpcode(i)) {
         case LLVMStore:
            if (LLVMGetVolatile(i) || !kiln_wg_uniform_alloca(u, LLVMGetOperand(i, 1)))
               return false;
            break;
         case LLVMBr:
            if (LLVMIsConditional(i) && !kiln_wg_uniform_value(u, LLVMGetCondition(i)))
               return false;
            break;
         case LLVMSwitch:
            if (!kiln_wg_uniform_value(u, LLVMGetOperand(i, 0)))
               return false;
            break;
         case LLVMRet:
         case LLVMUnreachable:
            break;
         case LLVMCall:
            if (!is_intrinsic_call(i, "llvm.lifetime.") && !is_intrinsic_call(i, "llvm.dbg."))
               return false;
            break;
         default:
            return false;
         }
      }
   }
   return true;
}

/* Chooses the regions to run once and the uniform private variables that
 * keep one slot for the group (into `shared`).  A shared slot is wrong in
 * a region every work-item runs if the region both reads and writes it
 * (work-item 1 would read what work-item 0 wrote); such a variable gets
 * a slot per work-item, and then no once-region may touch it. */
static void plan_uniform(struct wg *w, const struct kiln_wg_cfg *cfg,
                         const struct kiln_wg_uniform *u, bool *once,
                         struct kiln_value_map *shared)
{
   unsigned nr = cfg->num_regions, nc = 0;
   for (unsigned r = 0; r < nr; r++)
      once[r] = region_uniform(cfg, r, u);
   for (LLVMValueRef a = LLVMGetFirstInstruction(w->setup); a; a = LLVMGetNextInstruction(a))
      nc += LLVMIsAAllocaInst(a) != NULL;
   LLVMValueRef *cand = kiln_malloc((nc ? nc : 1) * sizeof(*cand));
   unsigned char *use = kiln_calloc((size_t)(nc ? nc : 1) * nr, 1); /* 1 load, 2 store */
   bool *keep = kiln_malloc(nc ? nc : 1);
   if (!cand || !use || !keep) {
      memset(once, 0, nr * sizeof(bool));
      kiln_free(cand), kiln_free(use), kiln_free(keep);
      return;
   }
   nc = 0;
   for (LLVMValueRef a = LLVMGetFirstInstruction(w->setup); a; a = LLVMGetNextInstruction(a)) {
      if (!LLVMIsAAllocaInst(a) || a == w->lid || a == w->next || setup_only(w, a) ||
          !kiln_wg_uniform_alloca(u, a) || !kiln_wg_needs_slot(cfg, a))
         continue;
      for (LLVMUseRef x = LLVMGetFirstUse(a); x; x = LLVMGetNextUse(x)) {
         LLVMValueRef user = LLVMGetUser(x);
         unsigned char kind = LLVMIsALoadInst(user) ? 1 : LLVMIsAStoreInst(user) ? 2 : 0;
         LLVMValueRef bi = kiln_value_map_get(&cfg->index, LLVMBasicBlockAsValue(LLVMGetInstructionParent(user)));
         if (!kind || !bi)
            continue;
         for (unsigned r = 0; r < nr; r++)
            if (in_region(cfg, r, (unsigned)((uintptr_t)bi - 1)))
               use[(size_t)nc * nr + r] |= kind;
      }
      keep[nc] = true;
      cand[nc++] = a;
   }
   bool changed = true;
   while (changed) {
      changed = false;
      for (unsigned c = 0; c < nc; c++)
         for (unsigned r = 0; r < nr && keep[c]; r++)
            if (!once[r] && use[(size_t)c * nr + r] == 3)
               keep[c] = false, changed = true;
      for (unsigned r = 0; r < nr; r++)
         for (unsigned c = 0; c < nc && once[r]; c++)
            if (!keep[c] && use[(size_t)c * nr + r])
               once[r] = false, changed = true;
   }
   for (unsigned c = 0; c < nc; c++)
      if (keep[c] && !kiln_value_map_put(shared, cand[c], cand[c])) {
         /* Out of memory: the slot per work-item is always right. */
         memset(once, 0, nr * sizeof(bool));
         kiln_value_map_fini(shared);
         kiln_value_map_init(shared);
         break;
      }
   kiln_free(cand);
   kiln_free(use);
   kiln_free(keep);
}

/* Replaces the body (every block but setup) by one work-item loop nest per
 * region and a dispatcher that follows the barrier the work-items reached. */
static bool build_regions(struct wg *w, unsigned num_barriers)
{
   struct regions r = {0};
   bool ok = split_at_barriers(w, &r, num_barriers);
   unsigned num_old = 0;
   for (LLVMBasicBlockRef bb = LLVMGetNextBasicBlock(w->setup); bb; bb = LLVMGetNextBasicBlock(bb))
      num_old++;
   LLVMBasicBlockRef *old = kiln_malloc((num_old ? num_old : 1) * sizeof(*old));
   LLVMBasicBlockRef *entry = kiln_calloc(r.n + 1, sizeof(*entry));
   bool *cut = kiln_calloc(num_old ? num_old : 1, sizeof(bool));
   if (ok && (!old || !entry || !cut))
      w->oom = true;
   if (!ok || w->oom) {
      kiln_free(old);
      kiln_free(entry);
      kiln_free(cut);
      kiln_free(r.before);
      kiln_free(r.after);
      return false;
   }
   num_old = 0;
   for (LLVMBasicBlockRef bb = LLVMGetNextBasicBlock(w->setup); bb; bb = LLVMGetNextBasicBlock(bb)) {
      cut[num_old] = barrier_ending(&r, bb) >= 0;
      old[num_old++] = bb;
   }

   /* Private slots only for what lives across a barrier; without memory
    * for the analysis, every variable gets one. */
   LLVMBasicBlockRef *starts = entry; /* borrowed until the regions exist */
   starts[0] = w->body;
   for (unsigned j = 0; j < r.n; j++)
      starts[j + 1] = r.after[j];
   struct kiln_wg_cfg cfg;
   bool analysed = kiln_wg_cfg_init(&cfg, old, num_old, cut, starts, r.n + 1);
   bool *once = kiln_calloc(r.n + 1, sizeof(bool));
   struct kiln_value_map shared;
   kiln_value_map_init(&shared);
   if (analysed && once) {
      struct kiln_wg_uniform u;
      if (kiln_wg_uniform_init(&u, w->fn, w->lid))
         plan_uniform(w, &cfg, &u, once, &shared);
      kiln_wg_uniform_fini(&u);
   }
   privatize_allocas(w, analysed ? &cfg : NULL, &shared);
   kiln_value_map_fini(&shared);
   kiln_wg_cfg_fini(&cfg);
   kiln_free(cut);
   if (w->oom) {
      kiln_free(once);
      kiln_free(old);
      kiln_free(entry);
      kiln_free(r.before);
      kiln_free(r.after);
      return false;
   }

   LLVMBasicBlockRef dispatch = LLVMAppendBasicBlockInContext(w->c, w->fn, "dispatch");
   LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(w->c, w->fn, "exit");
   LLVMPositionBuilderAtEnd(w->b, exit);
   LLVMBuildRetVoid(w->b);

   entry[0] = clone_region(w, &r, w->body, dispatch, old, num_old, once && once[0]);
   for (unsigned j = 0; j < r.n; j++)
      entry[j + 1] = clone_region(w, &r, r.after[j], dispatch, old, num_old, once && once[j + 1]);
   kiln_free(once);
   for (unsigned j = 0; j <= r.n; j++)
      ok &= entry[j] != NULL;

   if (ok) {
      LLVMPositionBuilderAtEnd(w->b, dispatch);
      LLVMValueRef n = LLVMBuildLoad2(w->b, w->i32, w->next, "");
      LLVMValueRef sw = LLVMBuildSwitch(w->b, n, exit, r.n);
      for (unsigned j = 0; j < r.n; j++)
         LLVMAddCase(sw, LLVMConstInt(w->i32, j, 0), entry[j + 1]);
      LLVMValueRef term = LLVMGetBasicBlockTerminator(w->setup);
      LLVMSetSuccessor(term, 0, entry[0]);
   } else {
      /* Nothing may keep branching into the blocks deleted below. */
      LLVMSetSuccessor(LLVMGetBasicBlockTerminator(w->setup), 0, exit);
   }

   /* The original body is dead: cut its values loose, then drop it.  Its
    * blocks branch to one another, so every instruction goes before any
    * block does: a block deleted while a later one still branched to it
    * left that branch's use pointing into freed memory (valgrind). */
   for (unsigned k = 0; k < num_old; k++)
      for (LLVMValueRef i = LLVMGetFirstInstruction(old[k]); i; i = LLVMGetNextInstruction(i))
         if (LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMVoidTypeKind)
            LLVMReplaceAllUsesWith(i, LLVMGetPoison(LLVMTypeOf(i)));
   for (unsigned k = 0; k < num_old; k++)
      for (LLVMValueRef i; (i = LLVMGetLastInstruction(old[k]));)
         LLVMInstructionEraseFromParent(i);
   for (unsigned k = 0; k < num_old; k++)
      LLVMDeleteBasicBlock(old[k]);
   kiln_free(old);
   kiln_free(entry);
   kiln_free(r.before);
   kiln_free(r.after);
   return ok;
}

/* Without barriers the body runs as is, once per work-item. */
static void build_single_region(struct wg *w)
{
   LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(w->c, w->fn, "done");
   LLVMPositionBuilderAtEnd(w->b, done);
   LLVMBuildRetVoid(w->b);
   LLVMBasicBlockRef latch;
   LLVMBasicBlockRef nest = build_loop_nest(w, w->body, done, &latch);
   for (LLVMBasicBlockRef bb = LLVMGetNextBasicBlock(w->setup); bb; bb = LLVMGetNextBasicBlock(bb)) {
      LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
      if (bb == done || !term || !LLVMIsAReturnInst(term))
         continue;
      LLVMPositionBuilderBefore(w->b, term);
      LLVMBuildBr(w->b, latch);
      LLVMInstructionEraseFromParent(term);
   }
   LLVMSetSuccessor(LLVMGetBasicBlockTerminator(w->setup), 0, nest);
}

/* ---- entry points --------------------------------------------------- */

/* Can v be recomputed anywhere in the body from what it is made of: a
 * pure expression of work-item values and values common to the group
 * (constants, arguments, anything computed in setup)? */
static bool rematerializable(LLVMValueRef v, LLVMBasicBlockRef setup, int depth)
{
   if (!LLVMIsAInstruction(v))
      return true; /* constants, arguments */
   if (LLVMGetInstructionParent(v) == setup)
      return true;
   if (depth > 6)
      return false;
   if (is_call(v)) {
      enum wi_fn k = wi_kind(v);
      return k <= WI_CTX && rematerializable(LLVMGetOperand(v, 0), setup, depth + 1);
   }
   switch (LLVMGetInstructionOpcode(v)) {
   case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMShl: case LLVMLShr: case LLVMAShr:
   case LLVMAnd: case LLVMOr: case LLVMXor: case LLVMTrunc: case LLVMZExt: case LLVMSExt:
   case LLVMICmp: case LLVMSelect: case LLVMGetElementPtr: case LLVMAddrSpaceCast:
   case LLVMBitCast: case LLVMPtrToInt: case LLVMIntToPtr:
      break;
   default:
      return false;
   }
   for (unsigned k = 0; k < (unsigned)LLVMGetNumOperands(v); k++)
      if (!rematerializable(LLVMGetOperand(v, k), setup, depth + 1))
         return false;
   return true;
}

/* A copy of expression v at the builder's position (operands copied too,
 * down to values from setup). */
static LLVMValueRef recompute(LLVMBuilderRef b, LLVMValueRef v, LLVMBasicBlockRef setup)
{
   if (!LLVMIsAInstruction(v) || LLVMGetInstructionParent(v) == setup)
      return v;
   LLVMValueRef c = LLVMInstructionClone(v);
   for (unsigned k = 0; k < (unsigned)LLVMGetNumOperands(v); k++) {
      LLVMValueRef op = LLVMGetOperand(v, k);
      if (LLVMIsAInstruction(op))
         LLVMSetOperand(c, k, recompute(b, op, setup));
   }
   LLVMInsertIntoBuilder(b, c);
   return c;
}

void kiln_wg_rematerialize(LLVMValueRef fn)
{
   LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(LLVMGetGlobalParent(fn)));
   LLVMBasicBlockRef setup = LLVMGetFirstBasicBlock(fn);
   for (LLVMBasicBlockRef bb = LLVMGetNextBasicBlock(setup); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
         if (LLVMGetTypeKind(LLVMTypeOf(i)) == LLVMVoidTypeKind || !rematerializable(i, setup, 0))
            continue;
         LLVMUseRef u = LLVMGetFirstUse(i);
         while (u) {
            LLVMUseRef next = LLVMGetNextUse(u);
            LLVMValueRef user = LLVMGetUser(u);
            LLVMBasicBlockRef at = LLVMGetInstructionParent(user);
            if (LLVMIsAPHINode(user)) {
               /* The incoming block of this operand computes it. */
               for (unsigned op = 0; op < LLVMCountIncoming(user); op++)
                  if (LLVMGetOperand(user, op) == i) {
                     at = LLVMGetIncomingBlock(user, op);
                     LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(at));
                     break;
                  }
            } else {
               LLVMPositionBuilderBefore(b, user);
            }
            if (at != bb) {
               LLVMValueRef again = recompute(b, i, setup);
               for (unsigned op = 0; op < (unsigned)LLVMGetNumOperands(user); op++)
                  if (LLVMGetOperand(user, op) == i)
                     LLVMSetOperand(user, op, again);
            }
            u = next;
         }
      }
   LLVMDisposeBuilder(b);
}

bool kiln_wg_has_barrier(LLVMValueRef fn)
{
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
         if (is_call(i) && wi_kind(i) == WI_BARRIER)
            return true;
   return false;
}

static void wg_types(struct wg *w, LLVMModuleRef m)
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
   struct wg w = {0};
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

enum kiln_wg_status kiln_wg_finish(LLVMModuleRef m, LLVMValueRef fn,
                                   struct kiln_kernel_info *info)
{
   struct wg w = {0};
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
      LLVMBuildStore(w.b, LLVMConstInt(w.i64, 0, 0), lid_ptr(&w, LLVMConstInt(w.i32, d, 0)));
      w.lsize[d] = load_i64(&w, ctx_field(&w, KILN_CTX_LOCAL_SIZE, LLVMConstInt(w.i32, d, 0)));
   }
   w.wg_items = LLVMBuildMul(w.b, LLVMBuildMul(w.b, w.lsize[0], w.lsize[1], ""), w.lsize[2], "");

   info->local_mem_size = place_local_variables(&w);
   unsigned barriers = lower_wi_calls(&w);
   bool ok = true;
   if (!barriers) {
      build_single_region(&w);
   } else {
      barriers += kiln_wg_split_uniform_loops(fn, w.lid, LLVMGetNamedFunction(m, wi_names[WI_BARRIER]));
      ok = build_regions(&w, barriers);
   }
   LLVMDisposeBuilder(w.b);
   return w.oom ? KILN_WG_OUT_OF_MEMORY : ok ? KILN_WG_OK : KILN_WG_UNSUPPORTED;
}
