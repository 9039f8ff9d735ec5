/* KILN_CHECK=bounds: a check before every __global, __constant and __local
 * access (loads, stores, atomics, memcpy/memmove/memset), and every access
 * through a generic pointer (OpenCL C 3.0) that comes from one of those.
 *
 * Each access's pointer is traced back through GEPs and casts (and through
 * selects and phis whose inputs all agree) to where it comes from:
 *
 *   - a kernel argument: the check compares the access's byte offset from
 *     the argument with the size in the launch's bounds table
 *     (include/kiln/bounds.h), read through the launch context;
 *   - a __local variable or a program-scope __constant: its size is known
 *     here, so the check compares with a constant;
 *   - anything else (a pointer loaded from memory, a select of two
 *     arguments): the address is looked up among every object of the
 *     launch by the driver's run-time (__kiln_bounds_find).
 *
 * A check is a call to a small helper defined here (internal,
 * always-inline); its failure branch calls __kiln_bounds_fail, which
 * records the access and never returns (it leaves the work-group function,
 * include/kiln/cpu_abi.h), so the access itself never happens and LLVM
 * knows every access after a check is in bounds.  The helpers reach the
 * launch context through KILN_WG_CTX_FN and report the work-item through
 * get_local_id(), both of which the work-group pass lowers later.
 */
#include "llvm/cpu/bounds_check.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Target.h>

#include "kiln/bounds.h"
#include "kiln/cpu_abi.h"
#include "kiln/kernel_info.h"
#include "llvm/metadata.h"
#include "util/alloc.h"

#define HELPER_ARG "__kiln_bounds_arg"
#define HELPER_VAR "__kiln_bounds_var"
#define HELPER_ANY "__kiln_bounds_any"

struct bc {
   LLVMModuleRef m;
   LLVMContextRef c;
   LLVMTargetDataRef td;
   LLVMBuilderRef b;
   LLVMTypeRef i1, i8, i32, i64, ptr, void_t;
   LLVMValueRef h_arg, h_var, h_any;
   struct kiln_bounds_stats *stats;
};

/* The fake address-space map's generic space (OpenCL C 3.0). */
#define AS_GENERIC 4

/* __global (1), __constant (2), __local (3), and generic pointers, whose
 * accesses are checked when they trace back to an object of one of those
 * (instrument_site). */
static bool checked_space(LLVMTypeRef t)
{
   if (LLVMGetTypeKind(t) != LLVMPointerTypeKind)
      return false;
   unsigned as = LLVMGetPointerAddressSpace(t);
   return as >= 1 && as <= AS_GENERIC;
}

static void add_fn_attr(LLVMContextRef c, LLVMValueRef fn, const char *name)
{
   unsigned k = LLVMGetEnumAttributeKindForName(name, strlen(name));
   LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(c, k, 0));
}

static void remove_fn_attr(LLVMValueRef fn, const char *name)
{
   unsigned k = LLVMGetEnumAttributeKindForName(name, strlen(name));
   LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, k);
}

void kiln_bounds_mark_inlining(LLVMModuleRef m)
{
   LLVMContextRef c = LLVMGetModuleContext(m);
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
      if (!LLVMGetFirstBasicBlock(fn))
         continue;
      LLVMTypeRef ft = LLVMGlobalGetValueType(fn);
      bool pointers = checked_space(LLVMGetReturnType(ft));
      unsigned n = LLVMCountParamTypes(ft);
      LLVMTypeRef *params = kiln_malloc((n ? n : 1) * sizeof(*params));
      if (!params)
         continue; /* its accesses are then checked by address search */
      LLVMGetParamTypes(ft, params);
      for (unsigned i = 0; i < n; i++)
         pointers |= checked_space(params[i]);
      kiln_free(params);
      if (!pointers)
         continue;
      remove_fn_attr(fn, "noinline");
      remove_fn_attr(fn, "optnone");
      add_fn_attr(c, fn, "alwaysinline");
   }
}

/* ---- helpers ---------------------------------------------------------- */

static LLVMValueRef declare(struct bc *c, const char *name, LLVMTypeRef ret, LLVMTypeRef *params,
                            unsigned n)
{
   LLVMValueRef f = LLVMGetNamedFunction(c->m, name);
   if (!f)
      f = LLVMAddFunction(c->m, name, LLVMFunctionType(ret, params, n, 0));
   return f;
}

static LLVMValueRef call(struct bc *c, LLVMValueRef fn, LLVMValueRef *args, unsigned n)
{
   return LLVMBuildCall2(c->b, LLVMGlobalGetValueType(fn), fn, args, n, "");
}

static LLVMValueRef const64(struct bc *c, uint64_t v)
{
   return LLVMConstInt(c->i64, v, 0);
}

static LLVMValueRef const32(struct bc *c, int64_t v)
{
   return LLVMConstInt(c->i32, (unsigned long long)v, 1);
}

static LLVMValueRef byte_gep(struct bc *c, LLVMValueRef p, LLVMValueRef off)
{
   return LLVMBuildInBoundsGEP2(c->b, c->i8, p, &off, 1, "");
}

/* A load of launch data that does not change while kernels run, so LLVM
 * may hoist it out of the work-item loops despite the kernel's stores. */
static LLVMValueRef load_invariant(struct bc *c, LLVMTypeRef t, LLVMValueRef p)
{
   LLVMValueRef v = LLVMBuildLoad2(c->b, t, p, "");
   LLVMSetAlignment(v, 8);
   unsigned kind = LLVMGetMDKindIDInContext(c->c, "invariant.load", 14);
   LLVMSetMetadata(v, kind, LLVMMetadataAsValue(c->c, LLVMMDNodeInContext2(c->c, NULL, 0)));
   return v;
}

/* off <= limit && size <= limit - off, all unsigned: the access
 * [off, off + size) lies in [0, limit) without any sum overflowing. */
static LLVMValueRef in_bounds(struct bc *c, LLVMValueRef off, LLVMValueRef size, LLVMValueRef limit)
{
   LLVMValueRef start_ok = LLVMBuildICmp(c->b, LLVMIntULE, off, limit, "");
   LLVMValueRef room = LLVMBuildSub(c->b, limit, off, "");
   LLVMValueRef size_ok = LLVMBuildICmp(c->b, LLVMIntULE, size, room, "");
   return LLVMBuildAnd(c->b, start_ok, size_ok, "");
}

static LLVMValueRef wg_ctx(struct bc *c)
{
   LLVMValueRef f = declare(c, KILN_WG_CTX_FN, c->ptr, NULL, 0);
   return call(c, f, NULL, 0);
}

/* The failure path, at the builder: report, never return. */
static void build_fail(struct bc *c, LLVMValueRef ctx, LLVMValueRef what, LLVMValueRef off,
                       LLVMValueRef size, LLVMValueRef limit, LLVMValueRef flags,
                       LLVMValueRef name)
{
   LLVMValueRef lid_fn = declare(c, "_Z12get_local_idj", c->i64, &c->i32, 1);
   LLVMValueRef lid[3];
   for (int d = 0; d < 3; d++) {
      LLVMValueRef dim = LLVMConstInt(c->i32, (unsigned long long)d, 0);
      lid[d] = call(c, lid_fn, &dim, 1);
      if (LLVMTypeOf(lid[d]) != c->i64)
         lid[d] = LLVMBuildZExt(c->b, lid[d], c->i64, "");
   }
   LLVMTypeRef pt[] = {c->ptr, c->i32, c->i64, c->i64, c->i64, c->i32, c->ptr,
                       c->i64, c->i64, c->i64};
   LLVMValueRef fail = LLVMGetNamedFunction(c->m, KILN_BOUNDS_FAIL_FN);
   if (!fail) {
      fail = declare(c, KILN_BOUNDS_FAIL_FN, c->void_t, pt, 10);
      add_fn_attr(c->c, fail, "noreturn");
      add_fn_attr(c->c, fail, "nounwind");
      add_fn_attr(c->c, fail, "cold");
   }
   LLVMValueRef args[] = {ctx, what, off, size, limit, flags, name, lid[0], lid[1], lid[2]};
   call(c, fail, args, 10);
   LLVMBuildUnreachable(c->b);
}

static LLVMValueRef new_helper(struct bc *c, const char *name, LLVMTypeRef *params, unsigned n,
                               LLVMBasicBlockRef *entry, LLVMBasicBlockRef *good,
                               LLVMBasicBlockRef *bad)
{
   LLVMValueRef fn = LLVMAddFunction(c->m, name, LLVMFunctionType(c->void_t, params, n, 0));
   LLVMSetLinkage(fn, LLVMInternalLinkage);
   add_fn_attr(c->c, fn, "alwaysinline");
   add_fn_attr(c->c, fn, "nounwind");
   *entry = LLVMAppendBasicBlockInContext(c->c, fn, "entry");
   *good = LLVMAppendBasicBlockInContext(c->c, fn, "ok");
   *bad = LLVMAppendBasicBlockInContext(c->c, fn, "out_of_bounds");
   LLVMPositionBuilderAtEnd(c->b, *good);
   LLVMBuildRetVoid(c->b);
   return fn;
}

/* void __kiln_bounds_arg(i32 arg, i64 offset, i64 size, i32 flags) */
static void build_helper_arg(struct bc *c)
{
   LLVMTypeRef pt[] = {c->i32, c->i64, c->i64, c->i32};
   LLVMBasicBlockRef entry, good, bad;
   LLVMValueRef fn = c->h_arg = new_helper(c, HELPER_ARG, pt, 4, &entry, &good, &bad);
   LLVMValueRef arg = LLVMGetParam(fn, 0), off = LLVMGetParam(fn, 1);
   LLVMValueRef size = LLVMGetParam(fn, 2), flags = LLVMGetParam(fn, 3);

   LLVMPositionBuilderAtEnd(c->b, entry);
   LLVMValueRef ctx = wg_ctx(c);
   LLVMValueRef table = load_invariant(
      c, c->ptr, byte_gep(c, ctx, const64(c, offsetof(struct kiln_wg_ctx, bounds))));
   LLVMValueRef args = load_invariant(
      c, c->ptr, byte_gep(c, table, const64(c, offsetof(struct kiln_bounds, args))));
   LLVMValueRef entry_off =
      LLVMBuildMul(c->b, LLVMBuildZExt(c->b, arg, c->i64, ""),
                   const64(c, sizeof(struct kiln_bounds_arg)), "");
   entry_off = LLVMBuildAdd(c->b, entry_off,
                            const64(c, offsetof(struct kiln_bounds_arg, size)), "");
   LLVMValueRef limit = load_invariant(c, c->i64, byte_gep(c, args, entry_off));
   LLVMBuildCondBr(c->b, in_bounds(c, off, size, limit), good, bad);

   LLVMPositionBuilderAtEnd(c->b, bad);
   build_fail(c, ctx, arg, off, size, limit, flags, LLVMConstPointerNull(c->ptr));
}

/* void __kiln_bounds_var(i64 offset, i64 size, i64 limit, ptr name, i32 flags) */
static void build_helper_var(struct bc *c)
{
   LLVMTypeRef pt[] = {c->i64, c->i64, c->i64, c->ptr, c->i32};
   LLVMBasicBlockRef entry, good, bad;
   LLVMValueRef fn = c->h_var = new_helper(c, HELPER_VAR, pt, 5, &entry, &good, &bad);
   LLVMValueRef off = LLVMGetParam(fn, 0), size = LLVMGetParam(fn, 1);
   LLVMValueRef limit = LLVMGetParam(fn, 2), name = LLVMGetParam(fn, 3);
   LLVMValueRef flags = LLVMGetParam(fn, 4);

   LLVMPositionBuilderAtEnd(c->b, entry);
   LLVMBuildCondBr(c->b, in_bounds(c, off, size, limit), good, bad);
   LLVMPositionBuilderAtEnd(c->b, bad);
   build_fail(c, wg_ctx(c), const32(c, KILN_BOUNDS_VARIABLE), off, size, limit, flags, name);
}

/* void __kiln_bounds_any(i64 address, i64 size, i32 flags, i1 known_ok) */
static void build_helper_any(struct bc *c)
{
   LLVMTypeRef pt[] = {c->i64, c->i64, c->i32, c->i1};
   LLVMBasicBlockRef entry, good, bad;
   LLVMValueRef fn = c->h_any = new_helper(c, HELPER_ANY, pt, 4, &entry, &good, &bad);
   LLVMValueRef addr = LLVMGetParam(fn, 0), size = LLVMGetParam(fn, 1);
   LLVMValueRef flags = LLVMGetParam(fn, 2), known_ok = LLVMGetParam(fn, 3);
   LLVMBasicBlockRef search = LLVMAppendBasicBlockInContext(c->c, fn, "search");

   LLVMPositionBuilderAtEnd(c->b, entry);
   LLVMBuildCondBr(c->b, known_ok, good, search);

   LLVMPositionBuilderAtEnd(c->b, search);
   LLVMValueRef ctx = wg_ctx(c);
   LLVMTypeRef ft[] = {c->ptr, c->i64, c->i64, c->i32};
   LLVMValueRef find = LLVMGetNamedFunction(c->m, KILN_BOUNDS_FIND_FN);
   if (!find) {
      find = declare(c, KILN_BOUNDS_FIND_FN, c->i32, ft, 4);
      add_fn_attr(c->c, find, "nounwind");
   }
   LLVMValueRef args[] = {ctx, addr, size, flags};
   LLVMValueRef found = call(c, find, args, 4);
   LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntNE, found, LLVMConstInt(c->i32, 0, 0), ""),
                   good, bad);

   LLVMPositionBuilderAtEnd(c->b, bad);
   build_fail(c, ctx, const32(c, KILN_BOUNDS_UNKNOWN), addr, size, const64(c, 0), flags,
              LLVMConstPointerNull(c->ptr));
}

/* ---- where a pointer comes from --------------------------------------- */

enum base_kind {
   BASE_NONE,    /* only cycles of phis so far */
   BASE_ARG,     /* a kernel argument */
   BASE_VAR,     /* a __local variable or program-scope __constant */
   BASE_SKIP,    /* an argument Kiln does not check (an image) */
   BASE_UNKNOWN,
};

struct base {
   enum base_kind kind;
   LLVMValueRef v;
   unsigned arg;
};

#define MAX_SEEN 64

struct walk {
   const struct kiln_kernel_info *kernel; /* NULL outside kernels */
   LLVMValueRef seen[MAX_SEEN];
   unsigned num_seen;
};

static struct base base_of(struct walk *wk, LLVMValueRef v, int depth)
{
   const struct base unknown = {BASE_UNKNOWN, NULL, 0};
   for (;; depth++) {
      if (depth > 256)
         return unknown;
      if (LLVMIsAArgument(v)) {
         LLVMValueRef fn = LLVMGetParamParent(v);
         if (!wk->kernel || !kiln_is_kernel(fn))
            return unknown;
         for (unsigned i = 0; i < wk->kernel->num_args && i < LLVMCountParams(fn); i++) {
            if (LLVMGetParam(fn, i) != v)
               continue;
            enum kiln_arg_kind k = wk->kernel->args[i].kind;
            if (k != KILN_ARG_GLOBAL && k != KILN_ARG_CONSTANT && k != KILN_ARG_LOCAL)
               return (struct base){BASE_SKIP, v, i};
            return (struct base){BASE_ARG, v, i};
         }
         return unknown;
      }
      if (LLVMIsAGlobalVariable(v)) {
         unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(v));
         if (as >= 1 && as <= 3 && !LLVMIsDeclaration(v))
            return (struct base){BASE_VAR, v, 0};
         return unknown;
      }
      if (LLVMIsAGetElementPtrInst(v) || LLVMIsABitCastInst(v) || LLVMIsAAddrSpaceCastInst(v)) {
         v = LLVMGetOperand(v, 0);
         continue;
      }
      if (LLVMIsAConstantExpr(v)) {
         LLVMOpcode op = LLVMGetConstOpcode(v);
         if (op != LLVMGetElementPtr && op != LLVMBitCast && op != LLVMAddrSpaceCast)
            return unknown;
         v = LLVMGetOperand(v, 0);
         continue;
      }
      if (LLVMIsASelectInst(v) || LLVMIsAPHINode(v)) {
         /* Every input must come from the same place; inputs that lead
          * back here (pointer increments in loops) add nothing. */
         for (unsigned i = 0; i < wk->num_seen; i++)
            if (wk->seen[i] == v)
               return (struct base){BASE_NONE, NULL, 0};
         if (wk->num_seen == MAX_SEEN)
            return unknown;
         wk->seen[wk->num_seen++] = v;
         bool phi = LLVMIsAPHINode(v) != NULL;
         unsigned n = phi ? LLVMCountIncoming(v) : 2;
         struct base r = {BASE_NONE, NULL, 0};
         for (unsigned i = 0; i < n; i++) {
            LLVMValueRef in = phi ? LLVMGetIncomingValue(v, i) : LLVMGetOperand(v, i + 1);
            struct base b = base_of(wk, in, depth + 1);
            if (b.kind == BASE_NONE)
               continue;
            if (b.kind == BASE_UNKNOWN || (r.kind != BASE_NONE && r.v != b.v))
               return unknown;
            r = b;
         }
         return r;
      }
      return unknown;
   }
}

/* ---- accesses ---------------------------------------------------------- */

struct site {
   LLVMValueRef inst;
   unsigned op;       /* the pointer operand */
   LLVMValueRef size; /* bytes, any integer type */
   unsigned flags;
};

struct sites {
   struct site *s;
   unsigned n, cap;
   bool oom;
};

static void add_site(struct sites *s, LLVMValueRef inst, unsigned op, LLVMValueRef size,
                     unsigned flags)
{
   if (!checked_space(LLVMTypeOf(LLVMGetOperand(inst, op))))
      return;
   if (s->n == s->cap) {
      unsigned cap = s->cap ? s->cap * 2 : 64;
      struct site *grown = kiln_realloc(s->s, cap * sizeof(*grown));
      if (!grown) {
         s->oom = true;
         return;
      }
      s->s = grown;
      s->cap = cap;
   }
   s->s[s->n++] = (struct site){inst, op, size, flags};
}

static bool has_prefix(const char *s, const char *prefix)
{
   return !strncmp(s, prefix, strlen(prefix));
}

static void collect_sites(struct bc *c, LLVMValueRef fn, struct sites *s)
{
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
         switch (LLVMGetInstructionOpcode(i)) {
         case LLVMLoad:
            add_site(s, i, 0, const64(c, LLVMStoreSizeOfType(c->td, LLVMTypeOf(i))), 0);
            break;
         case LLVMStore:
            add_site(s, i, 1,
                     const64(c, LLVMStoreSizeOfType(c->td, LLVMTypeOf(LLVMGetOperand(i, 0)))),
                     KILN_BOUNDS_WRITE);
            break;
         case LLVMAtomicRMW:
         case LLVMAtomicCmpXchg:
            add_site(s, i, 0,
                     const64(c, LLVMStoreSizeOfType(c->td, LLVMTypeOf(LLVMGetOperand(i, 1)))),
                     KILN_BOUNDS_WRITE | KILN_BOUNDS_ATOMIC);
            break;
         case LLVMCall: {
            LLVMValueRef callee = LLVMGetCalledValue(i);
            if (!callee || !LLVMIsAFunction(callee))
               break;
            size_t len;
            const char *name = LLVMGetValueName2(callee, &len);
            if (has_prefix(name, "llvm.memcpy") || has_prefix(name, "llvm.memmove")) {
               add_site(s, i, 0, LLVMGetOperand(i, 2), KILN_BOUNDS_WRITE);
               add_site(s, i, 1, LLVMGetOperand(i, 2), 0);
            } else if (has_prefix(name, "llvm.memset")) {
               add_site(s, i, 0, LLVMGetOperand(i, 2), KILN_BOUNDS_WRITE);
            }
            break;
         }
         default:
            break;
         }
      }
}

static LLVMValueRef name_string(struct bc *c, LLVMValueRef var)
{
   size_t len;
   const char *name = LLVMGetValueName2(var, &len);
   LLVMValueRef str = LLVMConstStringInContext2(c->c, name, len, 0);
   LLVMValueRef g = LLVMAddGlobal(c->m, LLVMTypeOf(str), "__kiln_bounds_name");
   LLVMSetInitializer(g, str);
   LLVMSetGlobalConstant(g, 1);
   LLVMSetLinkage(g, LLVMPrivateLinkage);
   LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
   return g;
}

/* Whether address addr of an access of size bytes through a __constant
 * or __global pointer (as) of unknown origin lies in one of the program's
 * variables of that space (program-scope __constant data, __global
 * variables): those are no object of the launch, so the run-time's search
 * cannot know them. */
static LLVMValueRef in_variable(struct bc *c, unsigned as, LLVMValueRef addr, LLVMValueRef size)
{
   LLVMValueRef ok = LLVMConstInt(c->i1, 0, 0);
   for (LLVMValueRef g = LLVMGetFirstGlobal(c->m); g; g = LLVMGetNextGlobal(g)) {
      if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != as || LLVMIsDeclaration(g))
         continue;
      LLVMValueRef off = LLVMBuildSub(c->b, addr, LLVMBuildPtrToInt(c->b, g, c->i64, ""), "");
      LLVMValueRef limit = const64(c, LLVMABISizeOfType(c->td, LLVMGlobalGetValueType(g)));
      ok = LLVMBuildOr(c->b, ok, in_bounds(c, off, size, limit), "");
   }
   return ok;
}

static void instrument_site(struct bc *c, struct walk *wk, const struct site *s)
{
   LLVMValueRef p = LLVMGetOperand(s->inst, s->op);
   unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(p));
   wk->num_seen = 0;
   struct base b = base_of(wk, p, 0);
   if (b.kind == BASE_SKIP)
      return;
   if (as == AS_GENERIC) {
      /* A generic pointer that comes from a __global, __constant or
       * __local argument or variable is checked as one of that space; any
       * other may point to private memory, which no check covers (the
       * run-time's search knows only the launch's objects), so it is left
       * alone. */
      if (b.kind != BASE_ARG && b.kind != BASE_VAR)
         return;
      as = LLVMGetPointerAddressSpace(LLVMTypeOf(b.v));
   }
   LLVMPositionBuilderBefore(c->b, s->inst);
   LLVMValueRef size = s->size;
   if (LLVMTypeOf(size) != c->i64)
      size = LLVMBuildZExt(c->b, size, c->i64, "");
   unsigned f = s->flags | as << KILN_BOUNDS_AS_SHIFT;
   if (b.kind != BASE_ARG && b.kind != BASE_VAR)
      f |= KILN_BOUNDS_SEARCHED;
   LLVMValueRef flags = LLVMConstInt(c->i32, f, 0);
   LLVMValueRef addr = LLVMBuildPtrToInt(c->b, p, c->i64, "");
   c->stats->checked++;
   if (b.kind == BASE_ARG || b.kind == BASE_VAR) {
      LLVMValueRef off = LLVMBuildSub(c->b, addr, LLVMBuildPtrToInt(c->b, b.v, c->i64, ""), "");
      if (b.kind == BASE_ARG) {
         LLVMValueRef args[] = {LLVMConstInt(c->i32, b.arg, 0), off, size, flags};
         call(c, c->h_arg, args, 4);
      } else {
         uint64_t limit = LLVMABISizeOfType(c->td, LLVMGlobalGetValueType(b.v));
         LLVMValueRef args[] = {off, size, const64(c, limit), name_string(c, b.v), flags};
         call(c, c->h_var, args, 5);
      }
      return;
   }
   c->stats->searched++;
   LLVMValueRef known =
      as == 1 || as == 2 ? in_variable(c, as, addr, size) : LLVMConstInt(c->i1, 0, 0);
   LLVMValueRef args[] = {addr, size, flags, known};
   call(c, c->h_any, args, 4);
}

bool kiln_bounds_instrument(LLVMModuleRef m, const struct kiln_kernel_info *kernels,
                            unsigned num_kernels, struct kiln_bounds_stats *stats)
{
   struct bc c = {.m = m, .c = LLVMGetModuleContext(m), .stats = stats};
   c.td = LLVMGetModuleDataLayout(m);
   c.i1 = LLVMInt1TypeInContext(c.c);
   c.i8 = LLVMInt8TypeInContext(c.c);
   c.i32 = LLVMInt32TypeInContext(c.c);
   c.i64 = LLVMInt64TypeInContext(c.c);
   c.ptr = LLVMPointerTypeInContext(c.c, 0);
   c.void_t = LLVMVoidTypeInContext(c.c);
   c.b = LLVMCreateBuilderInContext(c.c);
   memset(stats, 0, sizeof(*stats));

   /* Functions as they are now; the helpers come after them. */
   LLVMValueRef last = LLVMGetLastFunction(m);
   build_helper_arg(&c);
   build_helper_var(&c);
   build_helper_any(&c);

   bool ok = true;
   unsigned k = 0;
   struct sites s = {0};
   struct walk *wk = kiln_malloc(sizeof(*wk));
   if (!wk)
      ok = false;
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); ok && fn; fn = LLVMGetNextFunction(fn)) {
      bool is_kernel = kiln_is_kernel(fn);
      const struct kiln_kernel_info *info = NULL;
      if (is_kernel && k < num_kernels) {
         size_t len;
         const char *name = LLVMGetValueName2(fn, &len);
         if (!strcmp(kernels[k].name, name))
            info = &kernels[k];
         k++;
      }
      if (LLVMGetFirstBasicBlock(fn)) {
         s.n = 0;
         collect_sites(&c, fn, &s);
         wk->kernel = info;
         for (unsigned i = 0; i < s.n; i++)
            instrument_site(&c, wk, &s.s[i]);
         ok = !s.oom;
      }
      if (fn == last)
         break;
   }
   kiln_free(wk);
   kiln_free(s.s);
   LLVMDisposeBuilder(c.b);
   /* Helpers no access needs would keep calls the work-group pass never
    * lowers (KILN_WG_CTX_FN) in the object. */
   LLVMValueRef helpers[] = {c.h_arg, c.h_var, c.h_any};
   for (int i = 0; i < 3; i++)
      if (!LLVMGetFirstUse(helpers[i]))
         LLVMDeleteFunction(helpers[i]);
   return ok;
}
