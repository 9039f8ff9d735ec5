/* Block kernels (block_kernels.h).  Clang emits, for each block passed
 * to enqueue_kernel or a get_kernel_* query, a spir_kernel wrapper that
 * calls the block's invoke function; the parent passes that wrapper's
 * address.  On the CPU device a kernel is reached through its work-group
 * function, compiled when first launched (llvm/cpu/cpu_code.h), so the
 * parent passes the name instead, which the driver resolves like
 * clCreateKernel's. */
#include "llvm/block_kernels.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "kiln/kernel_info.h"
#include "util/alloc.h"

static LLVMMetadataRef node(LLVMContextRef c, LLVMMetadataRef *ops, unsigned n)
{
   return LLVMMDNodeInContext2(c, ops, n);
}

static bool has_md(LLVMValueRef fn, unsigned kind)
{
   size_t n = 0;
   LLVMValueMetadataEntry *e = LLVMGlobalCopyAllMetadata(fn, &n);
   bool found = false;
   for (size_t i = 0; i < n && !found; i++)
      found = LLVMValueMetadataEntriesGetKind(e, (unsigned)i) == kind;
   if (e)
      LLVMDisposeValueMetadataEntries(e);
   return found;
}

static void set_md(LLVMValueRef fn, const char *kind, LLVMMetadataRef md)
{
   LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
   LLVMGlobalSetMetadata(fn, LLVMGetMDKindIDInContext(c, kind, (unsigned)strlen(kind)), md);
}

/* The kernel_arg_* metadata Clang gives kernels it compiles from source:
 * argument 0 the block literal (a private pointer, passed by value),
 * the rest __local pointers. */
static bool describe(LLVMValueRef fn)
{
   LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
   unsigned n = LLVMCountParams(fn);
   LLVMMetadataRef *as = kiln_calloc(n + 1, sizeof(*as));
   LLVMMetadataRef *acc = kiln_calloc(n + 1, sizeof(*acc));
   LLVMMetadataRef *ty = kiln_calloc(n + 1, sizeof(*ty));
   LLVMMetadataRef *tq = kiln_calloc(n + 1, sizeof(*tq));
   LLVMMetadataRef *nm = kiln_calloc(n + 1, sizeof(*nm));
   bool ok = as && acc && ty && tq && nm;
   LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
   for (unsigned i = 0; ok && i < n; i++) {
      bool local = LLVMGetPointerAddressSpace(LLVMTypeOf(LLVMGetParam(fn, i))) == 3 && i > 0;
      as[i] = LLVMValueAsMetadata(LLVMConstInt(i32, local ? 3 : 0, 0));
      acc[i] = LLVMMDStringInContext2(c, "none", 4);
      ty[i] = LLVMMDStringInContext2(c, "void*", 5);
      tq[i] = LLVMMDStringInContext2(c, "", 0);
      char name[32];
      int len = i ? snprintf(name, sizeof(name), "local%u", i) : snprintf(name, sizeof(name), "block");
      nm[i] = LLVMMDStringInContext2(c, name, (size_t)len);
   }
   if (ok) {
      set_md(fn, "kernel_arg_addr_space", node(c, as, n));
      set_md(fn, "kernel_arg_access_qual", node(c, acc, n));
      set_md(fn, "kernel_arg_type", node(c, ty, n));
      set_md(fn, "kernel_arg_base_type", node(c, ty, n));
      set_md(fn, "kernel_arg_type_qual", node(c, tq, n));
      set_md(fn, "kernel_arg_name", node(c, nm, n));
   }
   kiln_free(as), kiln_free(acc), kiln_free(ty), kiln_free(tq), kiln_free(nm);
   return ok;
}

/* Uses of fn's address become uses of a string of its name. */
static void name_uses(LLVMModuleRef m, LLVMValueRef fn, const char *name, size_t len)
{
   if (!LLVMGetFirstUse(fn))
      return;
   LLVMContextRef c = LLVMGetModuleContext(m);
   LLVMValueRef str = LLVMConstStringInContext2(c, name, len, 0);
   LLVMValueRef g = LLVMAddGlobal(m, LLVMTypeOf(str), "__kiln_block_kernel_name");
   LLVMSetInitializer(g, str);
   LLVMSetGlobalConstant(g, 1);
   LLVMSetLinkage(g, LLVMPrivateLinkage);
   LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
   /* Both are pointers of address space 0: the types agree. */
   LLVMReplaceAllUsesWith(fn, g);
}

/* The block literal also holds the address of the block's invoke
 * function (Clang's layout: size, alignment, invoke, captures), which
 * nothing of Kiln's calls through: the run-time finds the kernel by name,
 * and OpenCL C calls a block directly (6.12).  Left there, it would keep
 * a copy of the function that is not inlined into a kernel, whose
 * work-item calls nothing lowers; a null takes its place. */
static void drop_address_uses(LLVMValueRef fn)
{
   LLVMUseRef u = LLVMGetFirstUse(fn);
   while (u) {
      LLVMUseRef next = LLVMGetNextUse(u);
      LLVMValueRef user = LLVMGetUser(u);
      if (LLVMIsAConstantExpr(user)) {
         LLVMReplaceAllUsesWith(user, LLVMConstPointerNull(LLVMTypeOf(user)));
      } else if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 0) == fn) {
         LLVMSetOperand(user, 0, LLVMConstPointerNull(LLVMTypeOf(fn)));
      }
      u = next;
   }
}

static bool is_invoke_name(const char *name)
{
   size_t n = strlen(name);
   return !strncmp(name, "__", 2) && strstr(name, "_block_invoke") &&
          !(n > 7 && !strcmp(name + n - 7, "_kernel"));
}

bool kiln_block_kernels_prepare(LLVMModuleRef m)
{
   LLVMContextRef c = LLVMGetModuleContext(m);
   unsigned as_kind = LLVMGetMDKindIDInContext(c, "kernel_arg_addr_space", 21);
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
      size_t len;
      const char *name = LLVMGetValueName2(fn, &len);
      if (LLVMGetFirstBasicBlock(fn) && is_invoke_name(name)) {
         drop_address_uses(fn);
         continue;
      }
      if (LLVMGetFunctionCallConv(fn) != LLVMSPIRKERNELCallConv || !LLVMGetFirstBasicBlock(fn) ||
          !kiln_is_block_kernel_name(name))
         continue;
      if (!has_md(fn, as_kind) && !describe(fn))
         return false;
      name_uses(m, fn, name, len);
   }
   return true;
}
