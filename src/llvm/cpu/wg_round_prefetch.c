/* Prefetches of later rounds in loops the group runs in rounds (see
 * wg_round_prefetch.h). */
#include "llvm/cpu/wg_round_prefetch.h"

#include <ctype.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Target.h>

#include "util/alloc.h"

#define MARKER "kiln.prefetch.round."
#define MAX_ROUNDS 64u /* rounds ahead where a round's run is short */
#define MAX_DEPTH 8    /* operations between the round number and an address */
#define MAX_CLONES 32  /* per address */
#define MAX_ACCESSES 64 /* prefetched addresses per loop */
#define LINE 64u

/* The vector widths a marker offers the loop vectorizer (in elements). */
static const unsigned vfs[] = {2, 4, 8, 16, 32, 64};
#define NVFS (sizeof(vfs) / sizeof(vfs[0]))

static pthread_once_t once = PTHREAD_ONCE_INIT;
static unsigned setting = KILN_ROUND_PREFETCH_DEFAULT;
static const char *bad;

static void read_env(void)
{
   const char *e = getenv("KILN_ROUND_PREFETCH");
   char *end;
   unsigned long v = e && isdigit((unsigned char)*e) ? strtoul(e, &end, 10) : 0;
   if (e && isdigit((unsigned char)*e) && !*end && v <= KILN_ROUND_PREFETCH_MAX)
      setting = (unsigned)v;
   else if (e && *e)
      bad = e;
}

unsigned kiln_wg_round_prefetch_setting(const char **invalid)
{
   pthread_once(&once, read_env);
   if (invalid)
      *invalid = bad;
   return setting;
}

/* The address of a later round: the expression from the round number to
 * an address, copied with the round number `rounds` larger. */
struct later {
   LLVMBuilderRef b;
   const LLVMValueRef *iters;
   LLVMValueRef rounds; /* an i64 */
   unsigned niters, n;
   LLVMValueRef from[MAX_CLONES], to[MAX_CLONES];
};

static bool copyable(LLVMOpcode op)
{
   switch (op) {
   case LLVMAdd:
   case LLVMSub:
   case LLVMMul:
   case LLVMShl:
   case LLVMZExt:
   case LLVMSExt:
   case LLVMTrunc:
   case LLVMGetElementPtr:
      return true;
   default:
      return false;
   }
}

static LLVMValueRef later(struct later *l, LLVMValueRef v, unsigned depth)
{
   for (unsigned k = 0; k < l->n; k++)
      if (l->from[k] == v)
         return l->to[k];
   if (!LLVMIsAInstruction(v) || l->n == MAX_CLONES)
      return v;
   LLVMValueRef c = NULL;
   for (unsigned k = 0; k < l->niters && !c; k++)
      if (l->iters[k] == v)
         c = LLVMBuildAdd(l->b, v, LLVMBuildIntCast2(l->b, l->rounds, LLVMTypeOf(v), 0, ""), "round.later");
   if (!c) {
      if (depth == MAX_DEPTH || !copyable(LLVMGetInstructionOpcode(v)))
         return v;
      unsigned n = (unsigned)LLVMGetNumOperands(v);
      LLVMValueRef ops[8];
      bool changed = false;
      for (unsigned k = 0; k < n && k < 8; k++) {
         ops[k] = later(l, LLVMGetOperand(v, k), depth + 1);
         changed |= ops[k] != LLVMGetOperand(v, k);
      }
      if (!changed || n > 8 || l->n == MAX_CLONES)
         return v;
      c = LLVMInstructionClone(v);
      for (unsigned k = 0; k < n; k++)
         LLVMSetOperand(c, k, ops[k]);
      /* A later round may lie past the data: no wrap flags, no inbounds,
       * so the address is an address, not poison (a prefetch never
       * faults). */
      if (LLVMGetInstructionOpcode(v) == LLVMGetElementPtr) {
         LLVMGEPSetNoWrapFlags(c, 0);
      } else if (LLVMGetInstructionOpcode(v) != LLVMZExt && LLVMGetInstructionOpcode(v) != LLVMSExt &&
                 LLVMGetInstructionOpcode(v) != LLVMTrunc) {
         LLVMSetNUW(c, 0);
         LLVMSetNSW(c, 0);
      }
      LLVMInsertIntoBuilder(l->b, c);
   }
   l->from[l->n] = v;
   l->to[l->n++] = c;
   return c;
}

/* llvm.compiler.used keeps the vector variants' declarations, which
 * nothing calls before the loop vectorizer, through the optimiser's
 * global clean-ups (as LLVM's own InjectTLIMappings does).  `keep`
 * decides which of the old entries stay; `add` entries are appended. */
#define USED "llvm.compiler.used"

static void rewrite_used(LLVMModuleRef m, bool (*keep)(LLVMValueRef), LLVMValueRef *add, unsigned nadd)
{
   LLVMContextRef c = LLVMGetModuleContext(m);
   LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
   LLVMValueRef old = LLVMGetNamedGlobal(m, USED);
   unsigned nold = old ? (unsigned)LLVMGetArrayLength2(LLVMGlobalGetValueType(old)) : 0, n = 0;
   LLVMValueRef *v = kiln_malloc((nold + nadd + 1) * sizeof(*v));
   if (!v)
      return; /* out of memory: the loop vectorizer may then keep such loops scalar */
   LLVMValueRef init = old ? LLVMGetInitializer(old) : NULL;
   for (unsigned k = 0; k < nold; k++) {
      LLVMValueRef e = LLVMGetAggregateElement(init, k);
      if (!keep || keep(e))
         v[n++] = e;
   }
   for (unsigned k = 0; k < nadd; k++)
      v[n++] = add[k];
   if (old)
      LLVMDeleteGlobal(old);
   if (n) {
      LLVMValueRef g = LLVMAddGlobal(m, LLVMArrayType2(ptr, n), USED);
      LLVMSetInitializer(g, LLVMConstArray2(ptr, v, n));
      LLVMSetLinkage(g, LLVMAppendingLinkage);
      LLVMSetSection(g, "llvm.metadata");
   }
   kiln_free(v);
}

/* Kiln's markers and their variants: declarations named MARKER...  A
 * function with a body is the program's own (a SPIR-V module may name
 * one so) and is left alone. */
static bool is_marker(LLVMValueRef v)
{
   size_t len = 0;
   const char *name = LLVMIsAFunction(v) && !LLVMGetFirstBasicBlock(v) ? LLVMGetValueName2(v, &len) : "";
   return len > strlen(MARKER) && !strncmp(name, MARKER, strlen(MARKER));
}

static bool not_marker(LLVMValueRef v)
{
   return !is_marker(v);
}

/* The vector variants of marker fn (named after it), where m lacks them. */
static void declare_variants(LLVMModuleRef m, LLVMValueRef fn)
{
   LLVMContextRef c = LLVMGetModuleContext(m);
   LLVMTypeRef ptr = LLVMTypeOf(LLVMGetParam(fn, 0)), vd = LLVMVoidTypeInContext(c);
   size_t len;
   const char *name = LLVMGetValueName2(fn, &len);
   LLVMValueRef variants[NVFS * 4];
   unsigned n = 0;
   for (unsigned w = 0; w < NVFS; w++)
      for (unsigned kind = 0; kind < 4; kind++) {
         bool masked = kind & 1, linear = !(kind & 2);
         char vname[96];
         snprintf(vname, sizeof(vname), "%s.%c%u%c", name, masked ? 'M' : 'N', vfs[w], linear ? 'l' : 'v');
         LLVMTypeRef params[2] = {linear ? ptr : LLVMVectorType(ptr, vfs[w]),
                                  LLVMVectorType(LLVMInt1TypeInContext(c), vfs[w])};
         if (!LLVMGetNamedFunction(m, vname))
            variants[n++] = LLVMAddFunction(m, vname, LLVMFunctionType(vd, params, masked ? 2 : 1, 0));
      }
   if (n)
      rewrite_used(m, NULL, variants, n);
}

void kiln_wg_round_prefetch_declare(LLVMModuleRef m)
{
   size_t mlen = strlen(MARKER);
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
      size_t len;
      const char *name = LLVMGetValueName2(fn, &len);
      /* The markers themselves: "r4.1", not their variants "r4.1.M16l". */
      const char *dot = is_marker(fn) ? strchr(name + mlen, '.') : NULL;
      if (dot && !strchr(dot + 1, '.') && LLVMCountParams(fn) == 1 && LLVMGetFirstUse(fn))
         declare_variants(m, fn);
   }
}

/* The marker of accesses of `size` bytes, reads or writes, with its
 * vector variants: for each width, unmasked and masked, first with the
 * first lane's address (linear, step `size` bytes), then with a vector
 * of addresses.  The loop vectorizer takes the first variant that
 * fits. */
static LLVMValueRef marker(LLVMModuleRef m, LLVMTypeRef ptr, unsigned size, bool write)
{
   char name[64];
   snprintf(name, sizeof(name), MARKER "%c%u.%u", write ? 'w' : 'r', size, LLVMGetPointerAddressSpace(ptr));
   LLVMValueRef fn = LLVMGetNamedFunction(m, name);
   if (fn)
      return is_marker(fn) ? fn : NULL; /* NULL: the program's own function */
   LLVMContextRef c = LLVMGetModuleContext(m);
   fn = LLVMAddFunction(m, name, LLVMFunctionType(LLVMVoidTypeInContext(c), &ptr, 1, 0));
   static const char *const attrs[] = {"nounwind", "willreturn", "nosync", "nofree"};
   for (unsigned k = 0; k < sizeof(attrs) / sizeof(attrs[0]); k++)
      LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                              LLVMCreateEnumAttribute(c, LLVMGetEnumAttributeKindForName(attrs[k], strlen(attrs[k])), 0));
   /* memory(inaccessiblemem: readwrite): two bits per location, the
    * inaccessible memory second. */
   LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                           LLVMCreateEnumAttribute(c, LLVMGetEnumAttributeKindForName("memory", 6), 3u << 2));
   declare_variants(m, fn);
   return fn;
}

static void call_marker(LLVMBuilderRef b, LLVMValueRef fn, LLVMValueRef addr, unsigned size)
{
   LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(fn));
   LLVMValueRef call = LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, &addr, 1, "");
   size_t len;
   const char *name = LLVMGetValueName2(fn, &len);
   char variants[NVFS * 4 * 160], *p = variants;
   for (unsigned w = 0; w < NVFS; w++)
      for (unsigned kind = 0; kind < 4; kind++) {
         bool masked = kind & 1, linear = !(kind & 2);
         char param[16];
         if (linear)
            snprintf(param, sizeof(param), "l%u", size);
         else
            snprintf(param, sizeof(param), "v");
         p += snprintf(p, (size_t)(variants + sizeof(variants) - p), "%s_ZGV_LLVM_%c%u%s_%s(%s.%c%u%c)",
                       p == variants ? "" : ",", masked ? 'M' : 'N', vfs[w], param, name, name,
                       masked ? 'M' : 'N', vfs[w], linear ? 'l' : 'v');
      }
   static const char key[] = "vector-function-abi-variant";
   LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex,
                            LLVMCreateStringAttribute(c, key, sizeof(key) - 1, variants,
                                                      (unsigned)(p - variants)));
}

struct access {
   LLVMValueRef at, addr; /* the first access of addr */
   unsigned size;
   bool write;
};

/* How many rounds ahead `ahead` bytes lie for accesses of `size` bytes,
 * a round reading local size elements of each address (at least 1, at
 * most MAX_ROUNDS).  Computed in the entry block, once: in the loop the
 * division would sit under the work-item's active test, where the loop
 * vectorizer cannot widen it. */
static LLVMValueRef rounds_ahead(LLVMBuilderRef b, LLVMValueRef lsize0, unsigned size, unsigned ahead)
{
   LLVMTypeRef i64 = LLVMTypeOf(lsize0);
   LLVMValueRef round = LLVMBuildMul(b, lsize0, LLVMConstInt(i64, size, 0), "");
   LLVMValueRef r = LLVMBuildUDiv(b, LLVMBuildAdd(b, round, LLVMConstInt(i64, ahead - 1, 0), ""), round, "");
   LLVMValueRef max = LLVMConstInt(i64, MAX_ROUNDS, 0);
   return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGT, r, max, ""), max, r, "round.ahead");
}

void kiln_wg_round_prefetch(LLVMBasicBlockRef *blocks, unsigned nblocks, const LLVMValueRef *iters,
                            unsigned niters, LLVMValueRef lsize0)
{
   unsigned ahead = kiln_wg_round_prefetch_setting(NULL);
   if (!ahead || !niters || !nblocks)
      return;
   LLVMModuleRef m = LLVMGetGlobalParent(LLVMGetBasicBlockParent(blocks[0]));
   LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
   struct access acc[MAX_ACCESSES];
   unsigned n = 0;
   for (unsigned b = 0; b < nblocks; b++)
      for (LLVMValueRef i = LLVMGetFirstInstruction(blocks[b]); i; i = LLVMGetNextInstruction(i)) {
         bool load = LLVMIsALoadInst(i), store = LLVMIsAStoreInst(i);
         if (!load && !store)
            continue;
         LLVMValueRef addr = LLVMGetOperand(i, load ? 0 : 1);
         LLVMTypeRef t = load ? LLVMTypeOf(i) : LLVMTypeOf(LLVMGetOperand(i, 0));
         LLVMTypeKind k = LLVMGetTypeKind(t);
         /* Scalars only: the vectorizer widens those across work-items. */
         if (k != LLVMIntegerTypeKind && k != LLVMFloatTypeKind && k != LLVMDoubleTypeKind &&
             k != LLVMHalfTypeKind && k != LLVMPointerTypeKind)
            continue;
         unsigned size = (unsigned)LLVMStoreSizeOfType(td, t), a;
         for (a = 0; a < n && acc[a].addr != addr; a++)
            ;
         if (a < n) {
            acc[a].write |= store;
         } else if (n < MAX_ACCESSES) {
            acc[n++] = (struct access){i, addr, size, store};
         }
      }
   LLVMBuilderRef bld = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
   LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(LLVMGetBasicBlockParent(blocks[0]));
   unsigned sizes[MAX_ACCESSES], nsizes = 0;
   LLVMValueRef by_size[MAX_ACCESSES];
   for (unsigned a = 0; a < n; a++) {
      unsigned k;
      for (k = 0; k < nsizes && sizes[k] != acc[a].size; k++)
         ;
      if (k == nsizes) {
         LLVMPositionBuilderBefore(bld, LLVMGetBasicBlockTerminator(entry));
         sizes[nsizes] = acc[a].size;
         by_size[nsizes++] = rounds_ahead(bld, lsize0, acc[a].size, ahead);
      }
      LLVMPositionBuilderBefore(bld, acc[a].at);
      struct later l = {.b = bld, .iters = iters, .niters = niters, .rounds = by_size[k]};
      LLVMValueRef addr = later(&l, acc[a].addr, 0);
      LLVMValueRef fn = addr != acc[a].addr ? marker(m, LLVMTypeOf(addr), acc[a].size, acc[a].write) : NULL;
      if (fn)
         call_marker(bld, fn, addr, acc[a].size);
   }
   LLVMDisposeBuilder(bld);
}

/* Removes v and what only it used, where that only computes. */
static void erase_dead(LLVMValueRef v)
{
   if (!LLVMIsAInstruction(v) || LLVMGetFirstUse(v))
      return;
   switch (LLVMGetInstructionOpcode(v)) {
   case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMShl: case LLVMAnd: case LLVMOr:
   case LLVMZExt: case LLVMSExt: case LLVMTrunc: case LLVMGetElementPtr: case LLVMPtrToInt:
   case LLVMIntToPtr: case LLVMBitCast: case LLVMExtractElement: case LLVMInsertElement:
   case LLVMShuffleVector: case LLVMSelect: case LLVMICmp: case LLVMFreeze:
      break;
   default:
      return;
   }
   unsigned n = (unsigned)LLVMGetNumOperands(v);
   LLVMValueRef ops[8];
   if (n > 8)
      return;
   for (unsigned k = 0; k < n; k++)
      ops[k] = LLVMGetOperand(v, k);
   LLVMInstructionEraseFromParent(v);
   for (unsigned k = 0; k < n; k++)
      erase_dead(ops[k]);
}

/* Lane 0 of the vector v, computed with scalars where v is computed
 * lane by lane from splats and constants (the vectorizer's address
 * vectors: a splat of the first work-item's index plus <0, 1, ...>), so
 * that no vector of addresses is built only to be taken apart. */
static LLVMValueRef lane0(LLVMBuilderRef b, LLVMValueRef v, unsigned depth)
{
   LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(v));
   LLVMValueRef zero = LLVMConstInt(LLVMInt64TypeInContext(c), 0, 0);
   if (LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMVectorTypeKind)
      return v; /* a GEP's scalar base */
   if (LLVMIsConstant(v) && !LLVMIsAConstantExpr(v))
      return LLVMGetAggregateElement(v, 0);
   if (!LLVMIsAInstruction(v) || depth == MAX_DEPTH)
      return LLVMBuildExtractElement(b, v, zero, "");
   LLVMOpcode op = LLVMGetInstructionOpcode(v);
   if (op == LLVMShuffleVector) {
      int k = LLVMGetMaskValue(v, 0);
      unsigned n = LLVMGetVectorSize(LLVMTypeOf(LLVMGetOperand(v, 0)));
      if (k == 0)
         return lane0(b, LLVMGetOperand(v, 0), depth + 1);
      if (k == (int)n)
         return lane0(b, LLVMGetOperand(v, 1), depth + 1);
   } else if (op == LLVMInsertElement) {
      LLVMValueRef at = LLVMGetOperand(v, 2);
      if (LLVMIsAConstantInt(at) && !LLVMConstIntGetZExtValue(at))
         return LLVMGetOperand(v, 1);
      if (LLVMIsAConstantInt(at))
         return lane0(b, LLVMGetOperand(v, 0), depth + 1);
   } else if (copyable(op)) {
      unsigned n = (unsigned)LLVMGetNumOperands(v);
      LLVMValueRef ops[8];
      if (n <= 8) {
         for (unsigned k = 0; k < n; k++)
            ops[k] = lane0(b, LLVMGetOperand(v, k), depth + 1);
         LLVMValueRef s;
         if (op == LLVMGetElementPtr)
            s = LLVMBuildGEP2(b, LLVMGetGEPSourceElementType(v), ops[0], ops + 1, n - 1, "");
         else if (op == LLVMZExt || op == LLVMSExt || op == LLVMTrunc)
            s = LLVMBuildCast(b, op, ops[0], LLVMGetElementType(LLVMTypeOf(v)), "");
         else
            s = LLVMBuildBinOp(b, op, ops[0], ops[1], "");
         return s;
      }
   }
   return LLVMBuildExtractElement(b, v, zero, "");
}

/* One prefetch per cache line the `lanes` elements of `size` bytes from
 * addr (lane 0's address, or a vector of addresses) span: the first
 * line's start, then a line further each time. */
static void prefetch_lines(LLVMValueRef call, LLVMValueRef addr, unsigned lanes, unsigned size,
                           bool write)
{
   LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(addr));
   LLVMModuleRef m = LLVMGetGlobalParent(LLVMGetBasicBlockParent(LLVMGetInstructionParent(call)));
   LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
   LLVMPositionBuilderBefore(b, call);
   addr = lane0(b, addr, 0);
   LLVMTypeRef pt = LLVMTypeOf(addr), i32 = LLVMInt32TypeInContext(c), i64 = LLVMInt64TypeInContext(c);
   unsigned id = LLVMLookupIntrinsicID("llvm.prefetch", 13);
   LLVMValueRef fn = LLVMGetIntrinsicDeclaration(m, id, &pt, 1);
   LLVMTypeRef ft = LLVMIntrinsicGetType(c, id, &pt, 1);
   unsigned bytes = lanes * size, lines = (bytes + LINE - 1) / LINE;
   for (unsigned k = 0; k < lines; k++) {
      LLVMValueRef off = LLVMConstInt(i64, (unsigned long long)k * LINE, 0);
      LLVMValueRef args[4] = {
         k ? LLVMBuildGEP2(b, LLVMInt8TypeInContext(c), addr, &off, 1, "") : addr,
         LLVMConstInt(i32, write, 0),
         LLVMConstInt(i32, 3, 0), /* keep in every level */
         LLVMConstInt(i32, 1, 0), /* data */
      };
      LLVMBuildCall2(b, ft, fn, args, 4, "");
   }
   LLVMDisposeBuilder(b);
}

void kiln_wg_round_prefetch_lower(LLVMModuleRef m)
{
   size_t mlen = strlen(MARKER);
   LLVMValueRef used = LLVMGetNamedGlobal(m, USED);
   if (used) {
      LLVMValueRef init = LLVMGetInitializer(used);
      unsigned n = (unsigned)LLVMGetArrayLength2(LLVMGlobalGetValueType(used)), k;
      for (k = 0; k < n && !is_marker(LLVMGetAggregateElement(init, k)); k++)
         ;
      if (k < n)
         rewrite_used(m, not_marker, NULL, 0);
   }
   for (LLVMValueRef fn = LLVMGetFirstFunction(m), next; fn; fn = next) {
      next = LLVMGetNextFunction(fn);
      if (!is_marker(fn))
         continue;
      const char *name = LLVMGetValueName(fn);
      char rw, mask, form = 0;
      unsigned size = 0, as = 0, lanes = 1;
      int got = sscanf(name + mlen, "%c%u.%u.%c%u%c", &rw, &size, &as, &mask, &lanes, &form);
      for (LLVMUseRef u = LLVMGetFirstUse(fn), nu; u; u = nu) {
         nu = LLVMGetNextUse(u);
         LLVMValueRef call = LLVMGetUser(u);
         if (!LLVMIsACallInst(call))
            continue; /* the old llvm.compiler.used array, a dead constant */
         LLVMValueRef addr = LLVMGetOperand(call, 0);
         if (got == 6)
            prefetch_lines(call, addr, lanes, size, rw == 'w');
         unsigned nargs = (unsigned)LLVMGetNumArgOperands(call);
         LLVMValueRef args[2] = {addr, nargs > 1 ? LLVMGetOperand(call, 1) : NULL};
         LLVMInstructionEraseFromParent(call);
         erase_dead(args[0]);
         if (args[1])
            erase_dead(args[1]);
      }
      LLVMReplaceAllUsesWith(fn, LLVMGetPoison(LLVMTypeOf(fn)));
      LLVMDeleteFunction(fn);
   }
}
