/* Kernel descriptions from the metadata Clang attaches to each kernel
 * (-cl-kernel-arg-info): argument address spaces, types, qualifiers and
 * names, plus the kernel attributes. */
#include "llvm/metadata.h"

#include <CL/cl.h>
#include <llvm-c/Target.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kiln/kernel_info.h"
#include "util/alloc.h"

void kiln_kernel_info_free(struct kiln_kernel_info *info)
{
   if (!info)
      return;
   for (uint32_t i = 0; i < info->num_args && info->args; i++) {
      kiln_free(info->args[i].type_name);
      kiln_free(info->args[i].name);
   }
   kiln_free(info->args);
   kiln_free(info->name);
   kiln_free(info->vec_type_hint);
   memset(info, 0, sizeof(*info));
}

/* The operands of the function metadata `kind` of fn (at most max), 0 if
 * absent, -1 when out of host memory. */
static int md_operands(LLVMValueRef fn, const char *kind, LLVMValueRef *ops, unsigned max)
{
   LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
   unsigned id = LLVMGetMDKindIDInContext(c, kind, (unsigned)strlen(kind));
   size_t n = 0;
   LLVMValueMetadataEntry *entries = LLVMGlobalCopyAllMetadata(fn, &n);
   int count = 0;
   for (size_t i = 0; i < n; i++) {
      if (LLVMValueMetadataEntriesGetKind(entries, (unsigned)i) != id)
         continue;
      LLVMValueRef node = LLVMMetadataAsValue(c, LLVMValueMetadataEntriesGetMetadata(entries, (unsigned)i));
      unsigned total = LLVMGetMDNodeNumOperands(node);
      count = (int)(total < max ? total : max);
      LLVMValueRef *all = kiln_malloc(total * sizeof(*all) + 1);
      if (!all) {
         count = -1;
         break;
      }
      LLVMGetMDNodeOperands(node, all);
      memcpy(ops, all, (size_t)count * sizeof(*ops));
      kiln_free(all);
      break;
   }
   if (entries)
      LLVMDisposeValueMetadataEntries(entries);
   return count;
}

/* Kiln's mark on kernels compiled without -cl-kernel-arg-info: function
 * metadata, so that it follows each kernel through clLinkProgram. */
#define NO_ARG_INFO_MD "kiln.no_arg_info"
#define NON_UNIFORM_MD "kiln.non_uniform_work_groups"

static char *md_string(LLVMValueRef v)
{
   unsigned len = 0;
   const char *s = v ? LLVMGetMDString(v, &len) : NULL;
   char *out = kiln_malloc(len + 1);
   if (out) {
      if (s)
         memcpy(out, s, len);
      out[len] = 0;
   }
   return out;
}

static uint64_t md_int(LLVMValueRef v)
{
   return v && LLVMIsAConstantInt(v) ? LLVMConstIntGetZExtValue(v) : 0;
}

static uint64_t type_qualifiers(const char *q)
{
   /* A pipe argument has only CL_KERNEL_ARG_TYPE_PIPE: a qualifier of the
    * pipe's packet type does not qualify the argument (§5.9.3's table,
    * and what the CTS's kernel_arg_info expects). */
   if (strstr(q, "pipe"))
      return CL_KERNEL_ARG_TYPE_PIPE;
   uint64_t bits = 0;
   if (strstr(q, "const"))
      bits |= CL_KERNEL_ARG_TYPE_CONST;
   if (strstr(q, "restrict"))
      bits |= CL_KERNEL_ARG_TYPE_RESTRICT;
   if (strstr(q, "volatile"))
      bits |= CL_KERNEL_ARG_TYPE_VOLATILE;
   return bits;
}

static uint32_t access_qualifier(const char *q)
{
   if (!strcmp(q, "read_only"))
      return CL_KERNEL_ARG_ACCESS_READ_ONLY;
   if (!strcmp(q, "write_only"))
      return CL_KERNEL_ARG_ACCESS_WRITE_ONLY;
   if (!strcmp(q, "read_write"))
      return CL_KERNEL_ARG_ACCESS_READ_WRITE;
   return CL_KERNEL_ARG_ACCESS_NONE;
}

/* "float4", "uint", ... for vec_type_hint's type operand. */
static char *type_hint_name(LLVMValueRef undef, bool is_signed)
{
   LLVMTypeRef t = LLVMTypeOf(undef);
   unsigned n = 1;
   if (LLVMGetTypeKind(t) == LLVMVectorTypeKind) {
      n = LLVMGetVectorSize(t);
      t = LLVMGetElementType(t);
   }
   const char *base = "?";
   switch (LLVMGetTypeKind(t)) {
   case LLVMHalfTypeKind: base = "half"; break;
   case LLVMFloatTypeKind: base = "float"; break;
   case LLVMDoubleTypeKind: base = "double"; break;
   case LLVMIntegerTypeKind:
      switch (LLVMGetIntTypeWidth(t)) {
      case 8: base = is_signed ? "char" : "uchar"; break;
      case 16: base = is_signed ? "short" : "ushort"; break;
      case 32: base = is_signed ? "int" : "uint"; break;
      default: base = is_signed ? "long" : "ulong"; break;
      }
      break;
   default:
      break;
   }
   char buf[32];
   if (n > 1)
      snprintf(buf, sizeof(buf), "%s%u", base, n);
   else
      snprintf(buf, sizeof(buf), "%s", base);
   return kiln_strdup(buf);
}

/* Private memory of a work-item, as far as the front end shows it: the
 * kernel's own stack variables (helpers it calls are not counted). */
static uint64_t private_size(LLVMTargetDataRef td, LLVMValueRef fn)
{
   uint64_t total = 0;
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
         if (!LLVMIsAAllocaInst(i))
            continue;
         LLVMValueRef n = LLVMGetOperand(i, 0);
         uint64_t count = LLVMIsAConstantInt(n) ? LLVMConstIntGetZExtValue(n) : 1;
         total += LLVMABISizeOfType(td, LLVMGetAllocatedType(i)) * count;
      }
   return total;
}


/* The kind of a __global argument by its type name: an image type, else
 * a buffer.  Longer names first ("image1d_buffer_t" before
 * "image1d_t"). */
static enum kiln_arg_kind image_kind(const char *type_name)
{
   static const struct {
      const char *name;
      enum kiln_arg_kind kind;
   } images[] = {
      {"image1d_buffer_t", KILN_ARG_IMAGE1D_BUFFER}, {"image1d_array_t", KILN_ARG_IMAGE1D_ARRAY},
      {"image2d_array_t", KILN_ARG_IMAGE2D_ARRAY},   {"image1d_t", KILN_ARG_IMAGE1D},
      {"image2d_t", KILN_ARG_IMAGE2D},               {"image3d_t", KILN_ARG_IMAGE3D},
   };
   for (size_t i = 0; type_name && i < sizeof(images) / sizeof(images[0]); i++)
      if (strstr(type_name, images[i].name))
         return images[i].kind;
   return KILN_ARG_GLOBAL;
}

static int fill_kernel(LLVMModuleRef m, LLVMValueRef fn, struct kiln_kernel_info *k)
{
   LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
   LLVMContextRef c = LLVMGetModuleContext(m);
   size_t len;
   const char *name = LLVMGetValueName2(fn, &len);
   k->name = kiln_strndup(name, len);
   k->num_args = LLVMCountParams(fn);
   k->args = kiln_calloc(k->num_args ? k->num_args : 1, sizeof(*k->args));
   if (!k->name || !k->args)
      return -1;

   unsigned n = k->num_args;
   LLVMValueRef *as = kiln_calloc(n + 1, sizeof(LLVMValueRef));
   LLVMValueRef *acc = kiln_calloc(n + 1, sizeof(LLVMValueRef));
   LLVMValueRef *ty = kiln_calloc(n + 1, sizeof(LLVMValueRef));
   LLVMValueRef *tq = kiln_calloc(n + 1, sizeof(LLVMValueRef));
   LLVMValueRef *nm = kiln_calloc(n + 1, sizeof(LLVMValueRef));
   if (!as || !acc || !ty || !tq || !nm) {
      kiln_free(as), kiln_free(acc), kiln_free(ty), kiln_free(tq), kiln_free(nm);
      return -1;
   }
   /* Without these an argument's kind would be guessed wrong: no memory
    * for them fails the build. */
   int err = 0;
   if (md_operands(fn, "kernel_arg_addr_space", as, n) < 0 ||
       md_operands(fn, "kernel_arg_access_qual", acc, n) < 0 ||
       md_operands(fn, "kernel_arg_type", ty, n) < 0 ||
       md_operands(fn, "kernel_arg_type_qual", tq, n) < 0 ||
       md_operands(fn, "kernel_arg_name", nm, n) < 0)
      err = -1;
   LLVMValueRef hidden[1];
   k->no_arg_info = md_operands(fn, NO_ARG_INFO_MD, hidden, 1) > 0;
   k->non_uniform_work_groups = md_operands(fn, NON_UNIFORM_MD, hidden, 1) > 0;

   unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
   unsigned byref = LLVMGetEnumAttributeKindForName("byref", 5);
   const char *triple = LLVMGetTarget(m);
   bool amdgcn = triple && !strncmp(triple, "amdgcn", 6);
   bool nvptx = triple && !strncmp(triple, "nvptx", 5);
   uint32_t offset = 0;
   for (unsigned i = 0; i < n; i++) {
      struct kiln_arg_info *a = &k->args[i];
      a->type_name = md_string(ty[i]);
      a->name = md_string(nm[i]);
      char *acc_s = md_string(acc[i]), *tq_s = md_string(tq[i]);
      if (!a->type_name || !a->name || !acc_s || !tq_s)
         err = -1;
      a->access_qualifier = acc_s ? access_qualifier(acc_s) : CL_KERNEL_ARG_ACCESS_NONE;
      a->type_qualifier = tq_s ? type_qualifiers(tq_s) : 0;
      kiln_free(acc_s);
      kiln_free(tq_s);

      LLVMTypeRef t = LLVMTypeOf(LLVMGetParam(fn, i));
      uint32_t size, align;
      enum kiln_arg_kind image = image_kind(a->type_name);
      switch (md_int(as[i])) {
      case 1:
         /* Image objects are global-memory handles to clang. */
         a->kind = image;
         a->address_qualifier = CL_KERNEL_ARG_ADDRESS_GLOBAL;
         size = align = 8;
         break;
      case 2:
         a->kind = KILN_ARG_CONSTANT;
         a->address_qualifier = CL_KERNEL_ARG_ADDRESS_CONSTANT;
         size = align = 8;
         break;
      case 3:
         a->kind = KILN_ARG_LOCAL;
         a->address_qualifier = CL_KERNEL_ARG_ADDRESS_LOCAL;
         /* The slot holds an offset into the arena: 8 bytes on the CPU;
          * on amdgcn the 32-bit LDS pointer the kernarg segment holds, so
          * that the buffer is the hardware's layout as it is; on nvptx
          * the 32-bit offset into dynamic shared memory the PTX entry
          * takes instead of the pointer (nvptx/nvptx_abi.h). */
         size = align = amdgcn || nvptx ? 4 : 8;
         break;
      default: {
         a->kind = KILN_ARG_VALUE;
         a->address_qualifier = CL_KERNEL_ARG_ADDRESS_PRIVATE;
         /* Aggregates: byval on x86, byref on amdgcn (the kernarg
          * segment holds the value itself either way). */
         LLVMAttributeRef bv = LLVMGetEnumAttributeAtIndex(fn, i + 1, byval);
         if (!bv)
            bv = LLVMGetEnumAttributeAtIndex(fn, i + 1, byref);
         if (bv)
            t = LLVMGetTypeAttributeValue(bv);
         size = (uint32_t)LLVMABISizeOfType(td, t);
         align = LLVMABIAlignmentOfType(td, t);
         if (a->type_name && !strcmp(a->type_name, "sampler_t"))
            a->kind = KILN_ARG_SAMPLER;
         break;
      }
      }
      if (!align)
         align = 1;
      offset = (offset + align - 1) / align * align;
      a->offset = offset;
      a->size = size;
      offset += size;
   }
   k->args_size = offset;
   k->private_mem_size = private_size(td, fn);
   kiln_free(as), kiln_free(acc), kiln_free(ty), kiln_free(tq), kiln_free(nm);

   LLVMValueRef ops[3];
   int got = md_operands(fn, "reqd_work_group_size", ops, 3);
   if (got == 3)
      for (int d = 0; d < 3; d++)
         k->reqd_work_group_size[d] = md_int(ops[d]);
   if (got < 0)
      err = -1;
   got = md_operands(fn, "work_group_size_hint", ops, 3);
   if (got == 3)
      for (int d = 0; d < 3; d++)
         k->work_group_size_hint[d] = md_int(ops[d]);
   if (got < 0)
      err = -1;
   got = md_operands(fn, "vec_type_hint", ops, 2);
   if (got == 2)
      k->vec_type_hint = type_hint_name(ops[0], md_int(ops[1]) != 0);
   else
      k->vec_type_hint = kiln_strdup("");
   if (got < 0)
      err = -1;
   (void)c;
   return err || !k->vec_type_hint ? -1 : 0;
}

int kiln_metadata_kernels(LLVMModuleRef m, struct kiln_kernel_info **out, unsigned *count)
{
   unsigned n = 0;
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
      if (kiln_is_kernel(fn))
         n++;
   struct kiln_kernel_info *k = kiln_calloc(n ? n : 1, sizeof(*k));
   if (!k)
      return -1;
   unsigned i = 0;
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
      if (kiln_is_kernel(fn) && fill_kernel(m, fn, &k[i++])) {
         for (unsigned j = 0; j < i; j++)
            kiln_kernel_info_free(&k[j]);
         kiln_free(k);
         return -1;
      }
   *out = k;
   *count = n;
   return 0;
}

bool kiln_is_kernel(LLVMValueRef fn)
{
   /* spir_kernel on the CPU triple and on nvptx (clang 19 marks those
    * with nvvm.annotations as well), amdgpu_kernel on amdgcn. */
   unsigned cc = LLVMGetFunctionCallConv(fn);
   return (cc == LLVMSPIRKERNELCallConv || cc == LLVMAMDGPUKERNELCallConv) &&
          LLVMGetFirstBasicBlock(fn);
}

void kiln_internalize_non_kernels(LLVMModuleRef m)
{
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
      if (LLVMGetFirstBasicBlock(fn) && !kiln_is_kernel(fn))
         LLVMSetLinkage(fn, LLVMInternalLinkage);
   for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
      if (!LLVMIsDeclaration(g))
         LLVMSetLinkage(g, LLVMInternalLinkage);
}

static void mark_kernels(LLVMModuleRef m, const char *kind)
{
   LLVMContextRef c = LLVMGetModuleContext(m);
   unsigned id = LLVMGetMDKindIDInContext(c, kind, (unsigned)strlen(kind));
   LLVMMetadataRef one = LLVMMDStringInContext2(c, "1", 1);
   LLVMMetadataRef node = LLVMMDNodeInContext2(c, &one, 1);
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
      if (kiln_is_kernel(fn))
         LLVMGlobalSetMetadata(fn, id, node);
}

void kiln_metadata_hide_arg_info(LLVMModuleRef m)
{
   mark_kernels(m, NO_ARG_INFO_MD);
}

void kiln_metadata_allow_non_uniform(LLVMModuleRef m)
{
   mark_kernels(m, NON_UNIFORM_MD);
}
