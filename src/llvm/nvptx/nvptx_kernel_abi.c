/* The PTX kernel ABI (nvptx_abi.h) applied to a module.
 *
 * Why the hidden values live in shared memory: get_global_id and friends
 * may be called from helper functions that are not inlined (-cl-opt-disable,
 * recursion-free but large callees), and PTX lets only the .entry itself
 * read its parameters.  Threading extra arguments through every caller
 * would mean cloning functions; instead each kernel stores the four
 * values into .shared variables at entry, before anything else runs, and
 * the work-item functions load them.  Shared memory is per block, so
 * concurrent launches (other streams, other kernels) never see each
 * other's values; every thread of the block stores the same values, which
 * the PTX memory model allows (a racing read returns one of the values
 * written, all equal).  Once inlined into its entry, a load of a copy
 * becomes the entry's parameter (kiln_nvptx_forward_hidden), and
 * GlobalOpt drops copies no one reads: a kernel whose helpers are all
 * inlined keeps no shared memory and no stores for them. */
#include "llvm/nvptx/nvptx_kernel_abi.h"

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "llvm/metadata.h"
#include "llvm/nvptx/nvptx_abi.h"
#include "llvm/printf_lower.h"
#include "util/alloc.h"

#define ADDR_LOCAL 3
#define OFFSET_VAR "__kiln_nvptx_global_offset"
#define WORK_DIM_VAR "__kiln_nvptx_work_dim"
/* Only in modules that call printf: the launch's printf buffer. */
#define PRINTF_VAR "__kiln_nvptx_printf_buffer"

static const char *const global_id = "_Z13get_global_idj";
static const char *const global_offset = "_Z17get_global_offsetj";
static const char *const work_dim = "_Z12get_work_dimv";
static const char *const local_size = "_Z14get_local_sizej";
static const char *const global_size = "_Z15get_global_sizej";
static const char *const num_groups = "_Z14get_num_groupsj";

/* A per-block variable for the hidden values; shared memory takes no
 * initializer. */
static LLVMValueRef shared_var(LLVMModuleRef m, const char *name, LLVMTypeRef t, unsigned align)
{
   LLVMValueRef g = LLVMGetNamedGlobal(m, name);
   if (g)
      return g;
   g = LLVMAddGlobalInAddressSpace(m, t, name, ADDR_LOCAL);
   LLVMSetInitializer(g, LLVMGetUndef(t));
   LLVMSetLinkage(g, LLVMInternalLinkage);
   LLVMSetAlignment(g, align);
   return g;
}

static LLVMValueRef offset_var(LLVMModuleRef m)
{
   LLVMContextRef c = LLVMGetModuleContext(m);
   return shared_var(m, OFFSET_VAR, LLVMArrayType2(LLVMInt64TypeInContext(c), 3), 8);
}

static LLVMValueRef work_dim_var(LLVMModuleRef m)
{
   return shared_var(m, WORK_DIM_VAR, LLVMInt32TypeInContext(LLVMGetModuleContext(m)), 4);
}

static LLVMValueRef printf_var(LLVMModuleRef m)
{
   return shared_var(m, PRINTF_VAR, LLVMInt64TypeInContext(LLVMGetModuleContext(m)), 8);
}

/* Hidden parameters of the module's entries: the printf buffer's only
 * where printf_lower.c's records need it. */
static unsigned num_hidden(LLVMModuleRef m)
{
   return KILN_NVPTX_NUM_HIDDEN + (LLVMGetNamedGlobal(m, PRINTF_VAR) ? 1u : 0u);
}

void kiln_nvptx_define_printf_buffer(LLVMModuleRef m)
{
   LLVMValueRef decl = LLVMGetNamedFunction(m, KILN_PRINTF_BUFFER_FN);
   if (!decl || LLVMGetFirstBasicBlock(decl))
      return;
   LLVMContextRef c = LLVMGetModuleContext(m);
   LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
   kiln_nvptx_define_in_place(m, decl);
   LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
   LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, decl, ""));
   LLVMValueRef v = LLVMBuildLoad2(b, i64, printf_var(m), "");
   LLVMSetAlignment(v, 8);
   /* A device address of global memory: as a generic pointer, the same
    * number. */
   LLVMBuildRet(b, LLVMBuildIntToPtr(b, v, LLVMPointerTypeInContext(c, 0), ""));
   LLVMDisposeBuilder(b);
}

void kiln_nvptx_copy_target_attrs(LLVMModuleRef m, LLVMValueRef fn)
{
   static const char *const keys[] = {"target-cpu", "target-features"};
   for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
      if (f == fn)
         continue;
      LLVMAttributeRef a[2];
      for (int i = 0; i < 2; i++)
         a[i] = LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, keys[i],
                                              (unsigned)strlen(keys[i]));
      if (!LLVMGetFirstBasicBlock(f) || (!a[0] && !a[1]))
         continue;
      for (int i = 0; i < 2; i++)
         if (a[i])
            LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, a[i]);
      return;
   }
}

static void add_fn_attr(LLVMValueRef fn, const char *name)
{
   LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
   unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
   LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(c, kind, 0));
}

static void remove_fn_attr(LLVMValueRef fn, const char *name)
{
   unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
   LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, kind);
}

void kiln_nvptx_define_in_place(LLVMModuleRef m, LLVMValueRef decl)
{
   LLVMSetLinkage(decl, LLVMInternalLinkage);
   kiln_nvptx_copy_target_attrs(m, decl);
   add_fn_attr(decl, "nounwind");
   add_fn_attr(decl, "alwaysinline");
}

LLVMValueRef kiln_nvptx_redefine(LLVMModuleRef m, const char *name, LLVMTypeRef fnty)
{
   LLVMValueRef old = LLVMGetNamedFunction(m, name);
   if (old)
      LLVMSetValueName2(old, "", 0);
   LLVMValueRef fn = LLVMAddFunction(m, name, fnty);
   kiln_nvptx_define_in_place(m, fn);
   if (old) {
      LLVMReplaceAllUsesWith(old, fn);
      LLVMDeleteFunction(old);
   }
   return fn;
}

static LLVMValueRef sreg(LLVMModuleRef m, LLVMBuilderRef b, const char *reg, unsigned dim)
{
   char name[64];
   snprintf(name, sizeof(name), "llvm.nvvm.read.ptx.sreg.%s.%c", reg, "xyz"[dim]);
   unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
   LLVMValueRef fn = LLVMGetIntrinsicDeclaration(m, id, NULL, 0);
   LLVMTypeRef t = LLVMIntrinsicGetType(LLVMGetModuleContext(m), id, NULL, 0);
   LLVMValueRef v = LLVMBuildCall2(b, t, fn, NULL, 0, "");
   return LLVMBuildZExt(b, v, LLVMInt64TypeInContext(LLVMGetModuleContext(m)), "");
}

/* offset[dim] for dim < 3, else 0: a load from an index kept in range. */
static LLVMValueRef load_offset(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef dim)
{
   LLVMContextRef c = LLVMGetModuleContext(m);
   LLVMTypeRef i32 = LLVMInt32TypeInContext(c), i64 = LLVMInt64TypeInContext(c);
   LLVMValueRef var = offset_var(m);
   LLVMValueRef ok = LLVMBuildICmp(b, LLVMIntULT, dim, LLVMConstInt(i32, 3, 0), "");
   LLVMValueRef idx = LLVMBuildSelect(b, ok, dim, LLVMConstInt(i32, 0, 0), "");
   LLVMValueRef ix[2] = {LLVMConstInt(i32, 0, 0), idx};
   LLVMValueRef p = LLVMBuildInBoundsGEP2(b, LLVMGlobalGetValueType(var), var, ix, 2, "");
   LLVMValueRef v = LLVMBuildLoad2(b, i64, p, "");
   LLVMSetAlignment(v, 8);
   return LLVMBuildSelect(b, ok, v, LLVMConstInt(i64, 0, 0), "");
}

static void define_global_offset(LLVMModuleRef m, LLVMBuilderRef b, LLVMTypeRef fnty)
{
   LLVMValueRef fn = kiln_nvptx_redefine(m, global_offset, fnty);
   LLVMContextRef c = LLVMGetModuleContext(m);
   LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, fn, ""));
   LLVMBuildRet(b, load_offset(m, b, LLVMGetParam(fn, 0)));
}

static void define_work_dim(LLVMModuleRef m, LLVMBuilderRef b)
{
   LLVMContextRef c = LLVMGetModuleContext(m);
   LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
   LLVMValueRef fn = kiln_nvptx_redefine(m, work_dim, LLVMFunctionType(i32, NULL, 0, 0));
   LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, fn, ""));
   LLVMValueRef v = LLVMBuildLoad2(b, i32, work_dim_var(m), "");
   LLVMSetAlignment(v, 4);
   LLVMBuildRet(b, v);
}

/* Gives fn (a work-item function of the dimension, returning i64) a body:
 * value(d) for d < 3, `other` past that (§6.12.1). */
static void define_per_dim(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef fn,
                           LLVMValueRef (*value)(LLVMModuleRef, LLVMBuilderRef, unsigned,
                                                 const void *),
                           const void *arg, uint64_t other)
{
   LLVMContextRef c = LLVMGetModuleContext(m);
   LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
   LLVMValueRef dim = LLVMGetParam(fn, 0);
   LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c, fn, "");
   LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, fn, "");
   LLVMPositionBuilderAtEnd(b, entry);
   LLVMValueRef sw = LLVMBuildSwitch(b, dim, done, 3);
   LLVMValueRef vals[4];
   LLVMBasicBlockRef from[4];
   for (unsigned d = 0; d < 3; d++) {
      LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(c, fn, "");
      LLVMAddCase(sw, LLVMConstInt(LLVMTypeOf(dim), d, 0), bb);
      LLVMPositionBuilderAtEnd(b, bb);
      vals[d] = value(m, b, d, arg);
      from[d] = LLVMGetInsertBlock(b);
      LLVMBuildBr(b, done);
   }
   vals[3] = LLVMConstInt(i64, other, 0);
   from[3] = entry;
   LLVMPositionBuilderAtEnd(b, done);
   LLVMValueRef phi = LLVMBuildPhi(b, i64, "");
   LLVMAddIncoming(phi, vals, from, 4);
   LLVMBuildRet(b, phi);
}

/* group_id * local_size + local_id + offset, in 64 bits (a grid may hold
 * more than 2^32 work-items). */
static LLVMValueRef global_id_of(LLVMModuleRef m, LLVMBuilderRef b, unsigned d, const void *arg)
{
   (void)arg;
   LLVMValueRef g = LLVMBuildMul(b, sreg(m, b, "ctaid", d), sreg(m, b, "ntid", d), "");
   g = LLVMBuildAdd(b, g, sreg(m, b, "tid", d), "");
   LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetModuleContext(m));
   return LLVMBuildAdd(b, g, load_offset(m, b, LLVMConstInt(i32, d, 0)), "");
}

/* 0 for dim >= 3. */
static void define_global_id(LLVMModuleRef m, LLVMBuilderRef b, LLVMTypeRef fnty)
{
   define_per_dim(m, b, kiln_nvptx_redefine(m, global_id, fnty), global_id_of, NULL, 0);
}

/* ntid (local size), nctaid (groups) or their product (global size). */
static LLVMValueRef size_of(LLVMModuleRef m, LLVMBuilderRef b, unsigned d, const void *arg)
{
   const char *const *regs = arg;
   LLVMValueRef v = sreg(m, b, regs[0], d);
   return regs[1] ? LLVMBuildMul(b, v, sreg(m, b, regs[1], d), "") : v;
}

/* 1 for d >= 3, as §6.12.1 wants (libclc's return 0).  In 64 bits: a
 * global size may exceed 2^32.  Dimensions below 3 but past work_dim need
 * nothing: the driver launches them 1 wide (cuda_abi.h). */
static void define_size(LLVMModuleRef m, LLVMBuilderRef b, LLVMTypeRef fnty, const char *name,
                        const char *reg0, const char *reg1)
{
   const char *regs[2] = {reg0, reg1};
   define_per_dim(m, b, kiln_nvptx_redefine(m, name, fnty), size_of, regs, 1);
}

void kiln_nvptx_define_work_items(LLVMModuleRef m)
{
   LLVMContextRef c = LLVMGetModuleContext(m);
   LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
   LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
   LLVMTypeRef size_fn = LLVMFunctionType(LLVMInt64TypeInContext(c), &i32, 1, 0);
   if (LLVMGetNamedFunction(m, global_id))
      define_global_id(m, b, size_fn);
   if (LLVMGetNamedFunction(m, global_offset))
      define_global_offset(m, b, size_fn);
   if (LLVMGetNamedFunction(m, work_dim))
      define_work_dim(m, b);
   if (LLVMGetNamedFunction(m, local_size))
      define_size(m, b, size_fn, local_size, "ntid", NULL);
   if (LLVMGetNamedFunction(m, num_groups))
      define_size(m, b, size_fn, num_groups, "nctaid", NULL);
   if (LLVMGetNamedFunction(m, global_size))
      define_size(m, b, size_fn, global_size, "nctaid", "ntid");
   LLVMDisposeBuilder(b);
}

/* The dynamic shared memory region: `.extern .shared .align 16 .b8 x[]`. */
static LLVMValueRef dynamic_smem(LLVMModuleRef m)
{
   LLVMValueRef g = LLVMGetNamedGlobal(m, KILN_NVPTX_DYNAMIC_SMEM);
   if (g)
      return g;
   LLVMTypeRef t = LLVMArrayType2(LLVMInt8TypeInContext(LLVMGetModuleContext(m)), 0);
   g = LLVMAddGlobalInAddressSpace(m, t, KILN_NVPTX_DYNAMIC_SMEM, ADDR_LOCAL);
   LLVMSetLinkage(g, LLVMExternalLinkage);
   LLVMSetAlignment(g, KILN_NVPTX_LOCAL_ALIGN);
   return g;
}

static bool is_local_ptr(LLVMTypeRef t)
{
   return LLVMGetTypeKind(t) == LLVMPointerTypeKind && LLVMGetPointerAddressSpace(t) == ADDR_LOCAL;
}

static void copy_attrs(LLVMValueRef from, LLVMAttributeIndex i, LLVMValueRef to)
{
   unsigned n = LLVMGetAttributeCountAtIndex(from, i);
   if (!n)
      return;
   LLVMAttributeRef *attrs = kiln_calloc(n, sizeof(*attrs));
   if (!attrs)
      return; /* attributes only guide the optimiser; byval is re-added */
   LLVMGetAttributesAtIndex(from, i, attrs);
   for (unsigned k = 0; k < n; k++)
      LLVMAddAttributeAtIndex(to, i, attrs[k]);
   kiln_free(attrs);
}

/* byval must survive even when copy_attrs could not allocate: it decides
 * whether the parameter is the struct or a pointer to it. */
static void keep_byval(LLVMValueRef from, unsigned i, LLVMValueRef to)
{
   unsigned kind = LLVMGetEnumAttributeKindForName("byval", 5);
   LLVMAttributeRef a = LLVMGetEnumAttributeAtIndex(from, i, kind);
   if (a && !LLVMGetEnumAttributeAtIndex(to, i, kind))
      LLVMAddAttributeAtIndex(to, i, a);
}

/* Moves every nvvm.annotations entry about `from` (clang's "kernel") to
 * `to`: the body must not stay an .entry.  False when out of memory. */
static bool move_annotations(LLVMModuleRef m, LLVMValueRef from, LLVMValueRef to)
{
   unsigned n = LLVMGetNamedMetadataNumOperands(m, "nvvm.annotations");
   if (!n)
      return true;
   LLVMValueRef *nodes = kiln_calloc(n, sizeof(*nodes));
   if (!nodes)
      return false;
   LLVMGetNamedMetadataOperands(m, "nvvm.annotations", nodes);
   for (unsigned i = 0; i < n; i++) {
      if (LLVMGetMDNodeNumOperands(nodes[i]) < 1)
         continue;
      LLVMValueRef ops[3] = {0};
      unsigned k = LLVMGetMDNodeNumOperands(nodes[i]);
      if (k > 3)
         continue;
      LLVMGetMDNodeOperands(nodes[i], ops);
      if (ops[0] == from)
         LLVMReplaceMDNodeOperandWith(nodes[i], 0, LLVMValueAsMetadata(to));
   }
   kiln_free(nodes);
   return true;
}

static void annotate(LLVMModuleRef m, LLVMValueRef fn, const char *key, unsigned value)
{
   LLVMContextRef c = LLVMGetModuleContext(m);
   LLVMMetadataRef ops[3] = {
      LLVMValueAsMetadata(fn),
      LLVMMDStringInContext2(c, key, strlen(key)),
      LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(c), value, 0)),
   };
   LLVMAddNamedMetadataOperand(m, "nvvm.annotations",
                               LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, ops, 3)));
}

/* reqd_work_group_size(x, y, z) as .reqntid x, y, z: ptxas then knows the
 * block size (and the driver refuses other launches, as CL must). */
static void require_block_size(LLVMModuleRef m, LLVMValueRef kernel, LLVMValueRef entry)
{
   LLVMContextRef c = LLVMGetModuleContext(m);
   unsigned id = LLVMGetMDKindIDInContext(c, "reqd_work_group_size", 20);
   size_t n = 0;
   LLVMValueMetadataEntry *md = LLVMGlobalCopyAllMetadata(kernel, &n);
   for (size_t i = 0; i < n; i++) {
      if (LLVMValueMetadataEntriesGetKind(md, (unsigned)i) != id)
         continue;
      LLVMValueRef node = LLVMMetadataAsValue(c, LLVMValueMetadataEntriesGetMetadata(md, (unsigned)i));
      LLVMValueRef ops[3];
      if (LLVMGetMDNodeNumOperands(node) != 3)
         break;
      LLVMGetMDNodeOperands(node, ops);
      static const char *const keys[] = {"reqntidx", "reqntidy", "reqntidz"};
      for (int d = 0; d < 3; d++)
         if (ops[d] && LLVMIsAConstantInt(ops[d]))
            annotate(m, entry, keys[d], (unsigned)LLVMConstIntGetZExtValue(ops[d]));
      break;
   }
   if (md)
      LLVMDisposeValueMetadataEntries(md);
}

/* The body's calls (the entry's, other kernels') use the C convention. */
static void make_plain_function(LLVMValueRef body)
{
   LLVMSetFunctionCallConv(body, LLVMCCallConv);
   LLVMSetLinkage(body, LLVMInternalLinkage);
   remove_fn_attr(body, "noinline");
   remove_fn_attr(body, "optnone");
   add_fn_attr(body, "alwaysinline");
   for (LLVMUseRef u = LLVMGetFirstUse(body); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (LLVMIsACallInst(user) && LLVMGetCalledValue(user) == body)
         LLVMSetInstructionCallConv(user, LLVMCCallConv);
   }
}

/* The entry's parameter type for a by-value vector whose elements are
 * narrower than 32 bits (char2, uchar4, short3, char16 ...), else NULL:
 * an integer of the vector's size up to 8 bytes, i32 words beyond.  LLVM
 * 19's NVPTX back end misreads such vectors as .param arrays (a char2 is
 * loaded as one u32 and split into two 16-bit halves, so .y reads bytes
 * 2-3, outside the parameter), while integers and i32 vectors load right.
 * The bytes, their size and alignment are the same: core's argument
 * buffer is unchanged. */
static LLVMTypeRef word_type(LLVMTargetDataRef td, LLVMTypeRef t)
{
   if (LLVMGetTypeKind(t) != LLVMVectorTypeKind)
      return NULL;
   LLVMTypeRef e = LLVMGetElementType(t);
   LLVMContextRef c = LLVMGetTypeContext(t);
   unsigned long long bits = LLVMSizeOfTypeInBits(td, e);
   unsigned long long size = LLVMABISizeOfType(td, t);
   if (bits >= 32 || !size || (size > 8 && size % 4))
      return NULL;
   if (size <= 8)
      return LLVMIntTypeInContext(c, (unsigned)(size * 8));
   return LLVMVectorType(LLVMInt32TypeInContext(c), (unsigned)(size / 4));
}

/* The vector t back from the entry's words p: the bytes reinterpreted,
 * and for 3-element vectors (stored as 4) the first three elements. */
static LLVMValueRef from_words(LLVMTargetDataRef td, LLVMBuilderRef b, LLVMValueRef p,
                               LLVMTypeRef t)
{
   LLVMTypeRef e = LLVMGetElementType(t);
   unsigned n = LLVMGetVectorSize(t);
   unsigned stored = (unsigned)(LLVMABISizeOfType(td, t) / LLVMABISizeOfType(td, e));
   LLVMValueRef v = LLVMBuildBitCast(b, p, LLVMVectorType(e, stored), "");
   if (stored == n)
      return v;
   LLVMContextRef c = LLVMGetTypeContext(t);
   LLVMValueRef mask[16];
   for (unsigned i = 0; i < n && i < 16; i++)
      mask[i] = LLVMConstInt(LLVMInt32TypeInContext(c), i, 0);
   return LLVMBuildShuffleVector(b, v, LLVMGetPoison(LLVMTypeOf(v)), LLVMConstVector(mask, n),
                                 "");
}

/* False when out of memory (the module is then not to be used). */
static bool lower_kernel(LLVMModuleRef m, LLVMValueRef kernel, LLVMBuilderRef b)
{
   LLVMContextRef c = LLVMGetModuleContext(m);
   LLVMTypeRef i32 = LLVMInt32TypeInContext(c), i64 = LLVMInt64TypeInContext(c);
   unsigned n = LLVMCountParams(kernel);
   bool prints = LLVMGetNamedGlobal(m, PRINTF_VAR) != NULL;
   unsigned total = n + num_hidden(m);
   size_t len;
   const char *kname = LLVMGetValueName2(kernel, &len);
   LLVMTypeRef *types = kiln_calloc(total, sizeof(*types));
   LLVMValueRef *args = kiln_calloc(n + 1, sizeof(*args));
   bool *local = kiln_calloc(n + 1, sizeof(*local));
   bool *words = kiln_calloc(n + 1, sizeof(*words));
   LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
   char *name = kiln_strndup(kname, len);
   char *body_name = kiln_malloc(len + sizeof("__kiln_nvptx_body."));
   bool ok = types && args && local && words && name && body_name;
   if (!ok)
      goto out;

   for (unsigned i = 0; i < n; i++) {
      LLVMTypeRef t = LLVMTypeOf(LLVMGetParam(kernel, i));
      local[i] = is_local_ptr(t);
      LLVMTypeRef w = local[i] ? NULL : word_type(td, t);
      words[i] = w != NULL;
      types[i] = local[i] ? i32 : w ? w : t;
   }
   types[n + 0] = types[n + 1] = types[n + 2] = i64;
   types[n + 3] = i32;
   if (prints)
      types[n + KILN_NVPTX_HIDDEN_PRINTF_BUFFER] = i64;
   snprintf(body_name, len + sizeof("__kiln_nvptx_body."), "__kiln_nvptx_body.%s", name);
   LLVMSetValueName2(kernel, body_name, strlen(body_name));

   LLVMTypeRef fnty = LLVMFunctionType(LLVMVoidTypeInContext(c), types, total, 0);
   LLVMValueRef entry = LLVMAddFunction(m, name, fnty);
   LLVMSetFunctionCallConv(entry, LLVMGetFunctionCallConv(kernel));
   copy_attrs(kernel, LLVMAttributeFunctionIndex, entry);
   for (unsigned i = 0; i < n; i++)
      if (!local[i] && !words[i]) {
         copy_attrs(kernel, i + 1, entry);
         keep_byval(kernel, i + 1, entry);
      }
   /* The kernel_arg_* metadata describes the entry's arguments too. */
   size_t nmd = 0;
   LLVMValueMetadataEntry *md = LLVMGlobalCopyAllMetadata(kernel, &nmd);
   for (size_t i = 0; i < nmd; i++)
      LLVMGlobalSetMetadata(entry, LLVMValueMetadataEntriesGetKind(md, (unsigned)i),
                            LLVMValueMetadataEntriesGetMetadata(md, (unsigned)i));
   if (md)
      LLVMDisposeValueMetadataEntries(md);

   LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, entry, ""));
   LLVMValueRef off = offset_var(m);
   for (unsigned d = 0; d < 3; d++) {
      LLVMValueRef ix[2] = {LLVMConstInt(i32, 0, 0), LLVMConstInt(i32, d, 0)};
      LLVMValueRef p = LLVMBuildInBoundsGEP2(b, LLVMGlobalGetValueType(off), off, ix, 2, "");
      LLVMSetAlignment(LLVMBuildStore(b, LLVMGetParam(entry, n + d), p), 8);
   }
   LLVMSetAlignment(LLVMBuildStore(b, LLVMGetParam(entry, n + 3), work_dim_var(m)), 4);
   if (prints)
      LLVMSetAlignment(LLVMBuildStore(b, LLVMGetParam(entry, n + KILN_NVPTX_HIDDEN_PRINTF_BUFFER),
                                      printf_var(m)),
                       8);
   for (unsigned i = 0; i < n; i++) {
      LLVMValueRef p = LLVMGetParam(entry, i);
      if (words[i]) {
         args[i] = from_words(td, b, p, LLVMTypeOf(LLVMGetParam(kernel, i)));
         continue;
      }
      if (!local[i]) {
         args[i] = p;
         continue;
      }
      LLVMValueRef ix = LLVMBuildZExt(b, p, i64, "");
      args[i] = LLVMBuildInBoundsGEP2(b, LLVMInt8TypeInContext(c), dynamic_smem(m), &ix, 1, "");
   }
   LLVMBuildCall2(b, LLVMGlobalGetValueType(kernel), kernel, args, n, "");
   LLVMBuildRetVoid(b);

   ok = move_annotations(m, kernel, entry);
   require_block_size(m, kernel, entry);
   make_plain_function(kernel);
out:
   kiln_free(name);
   kiln_free(body_name);
   kiln_free(types);
   kiln_free(args);
   kiln_free(local);
   kiln_free(words);
   return ok;
}

bool kiln_nvptx_lower_kernels(LLVMModuleRef m)
{
   unsigned n = 0;
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
      n += kiln_is_kernel(fn);
   if (!n)
      return true;
   LLVMValueRef *kernels = kiln_calloc(n, sizeof(*kernels));
   if (!kernels)
      return false;
   unsigned k = 0;
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
      if (kiln_is_kernel(fn))
         kernels[k++] = fn;
   LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
   bool ok = true;
   for (unsigned i = 0; i < n && ok; i++)
      ok = lower_kernel(m, kernels[i], b);
   LLVMDisposeBuilder(b);
   kiln_free(kernels);
   return ok;
}

/* The hidden value a load from the per-block copies reads, as the entry's
 * own parameters give it; NULL when the load reads something else. */
static LLVMValueRef hidden_value(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef fn,
                                 LLVMValueRef load)
{
   LLVMValueRef off = LLVMGetNamedGlobal(m, OFFSET_VAR);
   LLVMValueRef wd = LLVMGetNamedGlobal(m, WORK_DIM_VAR);
   LLVMValueRef pf = LLVMGetNamedGlobal(m, PRINTF_VAR);
   LLVMValueRef ptr = LLVMGetOperand(load, 0);
   unsigned n = LLVMCountParams(fn) - num_hidden(m);
   LLVMValueRef v = NULL;
   if (pf && ptr == pf) {
      v = LLVMGetParam(fn, n + KILN_NVPTX_HIDDEN_PRINTF_BUFFER);
   } else if (wd && ptr == wd) {
      v = LLVMGetParam(fn, n + KILN_NVPTX_HIDDEN_WORK_DIM);
   } else if (off && ptr == off) {
      v = LLVMGetParam(fn, n + KILN_NVPTX_HIDDEN_GLOBAL_OFFSET);
   } else if (off && (LLVMIsAGetElementPtrInst(ptr) || LLVMIsAConstantExpr(ptr)) &&
              LLVMGetNumOperands(ptr) == 3 && LLVMGetOperand(ptr, 0) == off) {
      /* gep [3 x i64] @offset, 0, idx: idx is already kept below 3. */
      LLVMValueRef idx = LLVMGetOperand(ptr, 2);
      LLVMTypeRef it = LLVMTypeOf(idx);
      LLVMPositionBuilderBefore(b, load);
      LLVMValueRef base = LLVMGetParam(fn, n + KILN_NVPTX_HIDDEN_GLOBAL_OFFSET);
      LLVMValueRef is1 = LLVMBuildICmp(b, LLVMIntEQ, idx, LLVMConstInt(it, 1, 0), "");
      LLVMValueRef is2 = LLVMBuildICmp(b, LLVMIntEQ, idx, LLVMConstInt(it, 2, 0), "");
      v = LLVMBuildSelect(b, is2, LLVMGetParam(fn, n + 2),
                          LLVMBuildSelect(b, is1, LLVMGetParam(fn, n + 1), base, ""), "");
   }
   return v && LLVMTypeOf(v) == LLVMTypeOf(load) ? v : NULL;
}

void kiln_nvptx_forward_hidden(LLVMModuleRef m)
{
   if (!LLVMGetNamedGlobal(m, OFFSET_VAR) && !LLVMGetNamedGlobal(m, WORK_DIM_VAR) &&
       !LLVMGetNamedGlobal(m, PRINTF_VAR))
      return;
   LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
      if (!kiln_is_kernel(fn) || LLVMCountParams(fn) < num_hidden(m))
         continue;
      for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
         LLVMValueRef next;
         for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = next) {
            next = LLVMGetNextInstruction(i);
            if (!LLVMIsALoadInst(i) || LLVMGetVolatile(i))
               continue;
            LLVMValueRef v = hidden_value(m, b, fn, i);
            if (!v)
               continue;
            LLVMReplaceAllUsesWith(i, v);
            LLVMInstructionEraseFromParent(i);
         }
      }
   }
   LLVMDisposeBuilder(b);
}
