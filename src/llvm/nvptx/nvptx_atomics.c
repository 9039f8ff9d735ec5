/* 64-bit atom_* as single atomic instructions: PTX has atom.add.u64,
 * atom.min.s64 and the rest from sm_32 on, and every target Kiln compiles
 * for is newer.  Ordering as libclc gives its 32-bit atom_* (seq_cst), so
 * that a program mixing both widths sees one behaviour. */
#include "llvm/nvptx/nvptx_atomics.h"

#include <llvm-c/Core.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "llvm/nvptx/nvptx_kernel_abi.h"

enum op { OP_RMW, OP_INC, OP_DEC, OP_CMPXCHG };

/* Itanium-mangled "atom_<op>(volatile AS<n> long/ulong *, ...)": the
 * operation, and whether the integer is signed (min/max care). */
static bool parse(const char *name, enum op *op, LLVMAtomicRMWBinOp *rmw)
{
   static const struct {
      const char *name;
      enum op op;
      LLVMAtomicRMWBinOp rmw, rmw_unsigned;
   } ops[] = {
      {"atom_add", OP_RMW, LLVMAtomicRMWBinOpAdd, LLVMAtomicRMWBinOpAdd},
      {"atom_sub", OP_RMW, LLVMAtomicRMWBinOpSub, LLVMAtomicRMWBinOpSub},
      {"atom_xchg", OP_RMW, LLVMAtomicRMWBinOpXchg, LLVMAtomicRMWBinOpXchg},
      {"atom_min", OP_RMW, LLVMAtomicRMWBinOpMin, LLVMAtomicRMWBinOpUMin},
      {"atom_max", OP_RMW, LLVMAtomicRMWBinOpMax, LLVMAtomicRMWBinOpUMax},
      {"atom_and", OP_RMW, LLVMAtomicRMWBinOpAnd, LLVMAtomicRMWBinOpAnd},
      {"atom_or", OP_RMW, LLVMAtomicRMWBinOpOr, LLVMAtomicRMWBinOpOr},
      {"atom_xor", OP_RMW, LLVMAtomicRMWBinOpXor, LLVMAtomicRMWBinOpXor},
      {"atom_inc", OP_INC, LLVMAtomicRMWBinOpAdd, LLVMAtomicRMWBinOpAdd},
      {"atom_dec", OP_DEC, LLVMAtomicRMWBinOpSub, LLVMAtomicRMWBinOpSub},
      {"atom_cmpxchg", OP_CMPXCHG, LLVMAtomicRMWBinOpXchg, LLVMAtomicRMWBinOpXchg},
   };
   if (strncmp(name, "_Z", 2))
      return false;
   char *end;
   unsigned long len = strtoul(name + 2, &end, 10);
   for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
      if (len != strlen(ops[i].name) || strncmp(end, ops[i].name, len))
         continue;
      const char *rest = end + len;
      /* PU3AS1V: pointer to volatile in address space 1 (global) or 3
       * (local); then l (long) or m (ulong). */
      if (strncmp(rest, "PU3AS", 5) || (rest[5] != '1' && rest[5] != '3') || rest[6] != 'V' ||
          (rest[7] != 'l' && rest[7] != 'm'))
         return false;
      *op = ops[i].op;
      *rmw = rest[7] == 'l' ? ops[i].rmw : ops[i].rmw_unsigned;
      return true;
   }
   return false;
}

/* The body goes into the declaration itself: its calls need no rewiring. */
static void define(LLVMModuleRef m, LLVMValueRef fn, enum op op, LLVMAtomicRMWBinOp rmw,
                   LLVMBuilderRef b)
{
   LLVMContextRef c = LLVMGetModuleContext(m);
   kiln_nvptx_define_in_place(m, fn);
   LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
   LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, fn, ""));
   LLVMValueRef p = LLVMGetParam(fn, 0), v;
   switch (op) {
   case OP_CMPXCHG:
      v = LLVMBuildAtomicCmpXchg(b, p, LLVMGetParam(fn, 1), LLVMGetParam(fn, 2),
                                 LLVMAtomicOrderingSequentiallyConsistent,
                                 LLVMAtomicOrderingSequentiallyConsistent, 0);
      v = LLVMBuildExtractValue(b, v, 0, "");
      break;
   case OP_INC:
   case OP_DEC:
      v = LLVMBuildAtomicRMW(b, rmw, p, LLVMConstInt(i64, 1, 0),
                             LLVMAtomicOrderingSequentiallyConsistent, 0);
      break;
   default:
      v = LLVMBuildAtomicRMW(b, rmw, p, LLVMGetParam(fn, 1),
                             LLVMAtomicOrderingSequentiallyConsistent, 0);
      break;
   }
   LLVMBuildRet(b, v);
}

void kiln_nvptx_define_atomics64(LLVMModuleRef m)
{
   LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
      enum op op;
      LLVMAtomicRMWBinOp rmw;
      size_t len;
      if (LLVMGetFirstBasicBlock(fn) || !parse(LLVMGetValueName2(fn, &len), &op, &rmw))
         continue;
      define(m, fn, op, rmw, b);
   }
   LLVMDisposeBuilder(b);
}
