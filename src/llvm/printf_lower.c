/* OpenCL C printf (1.2 §6.12.13) lowered to records in a buffer.
 *
 * Each call printf(fmt, a1, ..., an) becomes a call to a new internal,
 * always-inline function __kiln_printf.<i>(a1, ..., an) that
 *   - reserves the record's bytes with one atomic add on the buffer's
 *     `used` (so work-items on different threads never share bytes),
 *   - when the record fits, stores its header (size, table entry, the
 *     work-item's linear global id) and the arguments as the call passed
 *     them (floats already promoted to double by Clang, §6.12.13.2;
 *     vectors as they are), and returns 0;
 *   - when it does not fit, lowers the buffer's drop_at to the record's
 *     offset, stores nothing and returns -1.
 * A function per call keeps the control flow out of the caller, which
 * needs no block splitting, and the inliner puts it back in place.
 *
 * The format string must be a string literal, as the spec requires: it
 * is read here and goes into the program's printf table
 * (KILN_PRINTF_TABLE_SYM), with each literal given to a %s.  Nothing of
 * the format is checked against the arguments beyond what Clang's
 * -Wformat warns about: mismatches print what the host makes of the bytes.
 */
#include "llvm/printf_lower.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kiln/cpu_abi.h"
#include "kiln/printf.h"
#include "llvm/build_log.h"
#include "util/alloc.h"
#include "util/printf_spec.h"

/* Table entries as they will be serialized, deduplicated. */
struct entries {
   unsigned char **bytes;
   size_t *len;
   unsigned n, cap;
   bool oom;
};

struct pl {
   LLVMModuleRef m;
   LLVMContextRef c;
   LLVMTargetDataRef td;
   LLVMBuilderRef b;
   LLVMTypeRef i8, i32, i64, ptr;
   struct entries e;
   struct kiln_build_log *log;
   enum kiln_printf_buffer_source source;
};

static unsigned add_entry(struct entries *e, unsigned char *bytes, size_t len)
{
   for (unsigned i = 0; i < e->n; i++)
      if (e->len[i] == len && !memcmp(e->bytes[i], bytes, len)) {
         kiln_free(bytes);
         return i;
      }
   if (e->n == e->cap) {
      unsigned cap = e->cap ? e->cap * 2 : 16;
      unsigned char **nb = kiln_realloc(e->bytes, cap * sizeof(*nb));
      if (nb)
         e->bytes = nb;
      size_t *nl = kiln_realloc(e->len, cap * sizeof(*nl));
      if (nl)
         e->len = nl;
      if (!nb || !nl) {
         kiln_free(bytes);
         e->oom = true;
         return 0;
      }
      e->cap = cap;
   }
   e->bytes[e->n] = bytes;
   e->len[e->n] = len;
   return e->n++;
}

static void put32(unsigned char *p, uint32_t v)
{
   for (int i = 0; i < 4; i++)
      p[i] = (unsigned char)(v >> (8 * i));
}

/* An entry: record size, argument count, arguments, NUL-terminated text. */
static unsigned add_text_entry(struct entries *e, uint32_t record_size,
                               const struct kiln_printf_arg *args, uint32_t num_args,
                               const char *text, size_t text_len)
{
   size_t len = 8 + (size_t)num_args * 8 + text_len + 1;
   unsigned char *b = kiln_calloc(1, len);
   if (!b) {
      e->oom = true;
      return 0;
   }
   put32(b, record_size);
   put32(b + 4, num_args);
   for (uint32_t i = 0; i < num_args; i++) {
      unsigned char *a = b + 8 + i * 8;
      a[0] = args[i].kind;
      a[1] = args[i].elem_size;
      a[2] = args[i].count;
      put32(a + 4, args[i].offset);
   }
   memcpy(b + 8 + (size_t)num_args * 8, text, text_len);
   return add_entry(e, b, len);
}

/* The bytes of a constant C string v points to (through casts and
 * constant GEPs to a constant global's initializer), without the NUL. */
static bool const_string(LLVMValueRef v, const char **s, size_t *len)
{
   uint64_t off = 0;
   for (int depth = 0; depth < 8; depth++) {
      if (LLVMIsAGlobalVariable(v)) {
         LLVMValueRef init = LLVMGetInitializer(v);
         if (!LLVMIsGlobalConstant(v) || !init)
            return false;
         /* "" comes as a zeroinitializer, not as string data. */
         if (LLVMIsAConstantAggregateZero(init) && off == 0) {
            *s = "";
            *len = 0;
            return true;
         }
         if (!LLVMIsAConstantDataSequential(init) || !LLVMIsConstantString(init))
            return false;
         size_t n;
         const char *str = LLVMGetAsString(init, &n);
         if (off >= n)
            return false;
         const char *nul = memchr(str + off, 0, n - off);
         if (!nul)
            return false;
         *s = str + off;
         *len = (size_t)(nul - (str + off));
         return true;
      }
      if (!LLVMIsAConstantExpr(v))
         return false;
      LLVMOpcode op = LLVMGetConstOpcode(v);
      if (op == LLVMAddrSpaceCast || op == LLVMBitCast) {
         v = LLVMGetOperand(v, 0);
         continue;
      }
      if (op != LLVMGetElementPtr)
         return false;
      /* Byte offsets into i8 or [N x i8]: what string literals give. */
      LLVMTypeRef src = LLVMGetGEPSourceElementType(v);
      unsigned nops = (unsigned)LLVMGetNumOperands(v);
      uint64_t stride[2] = {1, 1};
      if (LLVMGetTypeKind(src) == LLVMArrayTypeKind) {
         stride[0] = LLVMGetArrayLength2(src);
         src = LLVMGetElementType(src);
      } else if (nops > 2) {
         return false;
      }
      if (LLVMGetTypeKind(src) != LLVMIntegerTypeKind || LLVMGetIntTypeWidth(src) != 8 ||
          nops > 3)
         return false;
      for (unsigned i = 1; i < nops; i++) {
         LLVMValueRef ix = LLVMGetOperand(v, i);
         if (!LLVMIsAConstantInt(ix))
            return false;
         off += (uint64_t)LLVMConstIntGetSExtValue(ix) * stride[i - 1];
      }
      v = LLVMGetOperand(v, 0);
   }
   return false;
}

static LLVMValueRef get_fn(struct pl *p, const char *name, LLVMTypeRef ret, LLVMTypeRef *params,
                           unsigned n)
{
   LLVMValueRef f = LLVMGetNamedFunction(p->m, name);
   if (!f)
      f = LLVMAddFunction(p->m, name, LLVMFunctionType(ret, params, n, 0));
   return f;
}

static LLVMValueRef call(struct pl *p, LLVMValueRef fn, LLVMValueRef *args, unsigned n)
{
   return LLVMBuildCall2(p->b, LLVMGlobalGetValueType(fn), fn, args, n, "");
}

static LLVMValueRef byte_ptr(struct pl *p, LLVMValueRef base, LLVMValueRef off)
{
   return LLVMBuildInBoundsGEP2(p->b, p->i8, base, &off, 1, "");
}

static LLVMValueRef c64(struct pl *p, uint64_t v)
{
   return LLVMConstInt(p->i64, v, 0);
}

static void add_fn_attr(LLVMContextRef c, LLVMValueRef fn, const char *name)
{
   unsigned k = LLVMGetEnumAttributeKindForName(name, strlen(name));
   LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(c, k, 0));
}

/* The work-item's linear global id: get_global_id(0) + get_global_size(0) *
 * (get_global_id(1) + get_global_size(1) * get_global_id(2)), unique per
 * work-item whatever the global offset. */
static LLVMValueRef linear_item(struct pl *p)
{
   LLVMValueRef gid = get_fn(p, "_Z13get_global_idj", p->i64, &p->i32, 1);
   LLVMValueRef gsz = get_fn(p, "_Z15get_global_sizej", p->i64, &p->i32, 1);
   LLVMValueRef id[3], sz[2];
   for (unsigned d = 0; d < 3; d++) {
      LLVMValueRef dim = LLVMConstInt(p->i32, d, 0);
      id[d] = call(p, gid, &dim, 1);
      if (d < 2)
         sz[d] = call(p, gsz, &dim, 1);
   }
   LLVMValueRef v = LLVMBuildAdd(p->b, id[1], LLVMBuildMul(p->b, sz[1], id[2], ""), "");
   return LLVMBuildAdd(p->b, id[0], LLVMBuildMul(p->b, sz[0], v, ""), "");
}

/* Describes argument value type t; false for types printf cannot take. */
static bool describe(struct pl *p, LLVMTypeRef t, struct kiln_printf_arg *a)
{
   unsigned count = 1;
   LLVMTypeRef et = t;
   if (LLVMGetTypeKind(t) == LLVMVectorTypeKind) {
      count = LLVMGetVectorSize(t);
      et = LLVMGetElementType(t);
   }
   unsigned long long size = LLVMStoreSizeOfType(p->td, et);
   switch (LLVMGetTypeKind(et)) {
   case LLVMIntegerTypeKind:
      if (LLVMGetIntTypeWidth(et) % 8)
         return false;
      a->kind = KILN_PRINTF_ARG_INT;
      break;
   case LLVMHalfTypeKind:
   case LLVMFloatTypeKind:
   case LLVMDoubleTypeKind:
      a->kind = KILN_PRINTF_ARG_FLOAT;
      break;
   case LLVMPointerTypeKind:
      if (count != 1)
         return false;
      a->kind = KILN_PRINTF_ARG_PTR;
      size = 8;
      break;
   default:
      return false;
   }
   if (size > 8 || count > 16)
      return false;
   a->elem_size = (uint8_t)size;
   a->count = (uint8_t)count;
   return true;
}

/* The x86-64 calling convention hands small vectors to variadic
 * functions as integers or doubles of the same size (char2 as i16, short4
 * as double): a vector specification with a length modifier says what the
 * bytes are, and they are stored as they come. */
static bool vector_layout(struct pl *p, const struct kiln_printf_spec *s, LLVMTypeRef t,
                          struct kiln_printf_arg *a)
{
   if (!s->vector || s->length == KILN_PRINTF_LEN_NONE)
      return false;
   /* Vectors wider than 16 bytes come as a pointer to a private copy
    * (byval): the helper loads them. */
   bool indirect = a->kind == KILN_PRINTF_ARG_PTR && LLVMGetPointerAddressSpace(t) == 0;
   if (a->kind == KILN_PRINTF_ARG_PTR && !indirect)
      return false;
   unsigned elem = s->length == KILN_PRINTF_LEN_HH  ? 1
                   : s->length == KILN_PRINTF_LEN_H ? 2
                   : s->length == KILN_PRINTF_LEN_HL ? 4
                                                     : 8;
   /* 3-element vectors take the room of 4. */
   unsigned room = (s->vector == 3 ? 4 : s->vector) * elem;
   unsigned long long size = LLVMABISizeOfType(p->td, t);
   if (!indirect && size != room &&
       LLVMStoreSizeOfType(p->td, t) < (unsigned long long)s->vector * elem)
      return false; /* not the vector the format names: print what it is */
   a->kind = strchr("fFeEgGaA", s->conversion) ? KILN_PRINTF_ARG_FLOAT : KILN_PRINTF_ARG_INT;
   a->elem_size = (uint8_t)elem;
   a->count = (uint8_t)s->vector;
   return indirect;
}

/* The vector type an indirect argument points to. */
static LLVMTypeRef indirect_type(struct pl *p, const struct kiln_printf_arg *a)
{
   LLVMTypeRef e;
   if (a->kind == KILN_PRINTF_ARG_FLOAT)
      e = a->elem_size == 2   ? LLVMHalfTypeInContext(p->c)
          : a->elem_size == 4 ? LLVMFloatTypeInContext(p->c)
                              : LLVMDoubleTypeInContext(p->c);
   else
      e = LLVMIntTypeInContext(p->c, a->elem_size * 8u);
   return LLVMVectorType(e, a->count);
}

/* The function one call becomes (see the top of the file). */
static LLVMValueRef build_helper(struct pl *p, unsigned index, LLVMTypeRef *types, unsigned n,
                                 const struct kiln_printf_arg *args, const uint32_t *string_ids,
                                 const bool *indirect, uint32_t record_size, uint32_t entry)
{
   char name[48];
   snprintf(name, sizeof(name), "__kiln_printf.%u", index);
   LLVMValueRef fn =
      LLVMAddFunction(p->m, name, LLVMFunctionType(p->i32, types, n, 0));
   LLVMSetLinkage(fn, LLVMInternalLinkage);
   add_fn_attr(p->c, fn, "alwaysinline");
   add_fn_attr(p->c, fn, "nounwind");
   LLVMBasicBlockRef entry_bb = LLVMAppendBasicBlockInContext(p->c, fn, "entry");
   LLVMBasicBlockRef write_bb = LLVMAppendBasicBlockInContext(p->c, fn, "write");
   LLVMBasicBlockRef drop_bb = LLVMAppendBasicBlockInContext(p->c, fn, "drop");
   LLVMBasicBlockRef reserve_bb = LLVMAppendBasicBlockInContext(p->c, fn, "reserve");
   LLVMBasicBlockRef none_bb = LLVMAppendBasicBlockInContext(p->c, fn, "none");

   LLVMPositionBuilderAtEnd(p->b, entry_bb);
   LLVMValueRef buf;
   if (p->source == KILN_PRINTF_FROM_FN) {
      buf = call(p, get_fn(p, KILN_PRINTF_BUFFER_FN, p->ptr, NULL, 0), NULL, 0);
   } else {
      LLVMValueRef ctx = call(p, get_fn(p, KILN_WG_CTX_FN, p->ptr, NULL, 0), NULL, 0);
      buf = LLVMBuildLoad2(
         p->b, p->ptr, byte_ptr(p, ctx, c64(p, offsetof(struct kiln_wg_ctx, printf_buffer))), "");
   }
   /* A launch without a buffer (a driver that could not give one) makes
    * printf fail, not the kernel crash. */
   LLVMBuildCondBr(p->b, LLVMBuildIsNull(p->b, buf, ""), none_bb, reserve_bb);
   LLVMPositionBuilderAtEnd(p->b, none_bb);
   LLVMBuildRet(p->b, LLVMConstInt(p->i32, (unsigned long long)-1, 1));

   LLVMPositionBuilderAtEnd(p->b, reserve_bb);
   LLVMValueRef size = c64(p, record_size);
   LLVMValueRef used = byte_ptr(p, buf, c64(p, offsetof(struct kiln_printf_buffer, used)));
   LLVMValueRef off =
      LLVMBuildAtomicRMW(p->b, LLVMAtomicRMWBinOpAdd, used, size, LLVMAtomicOrderingMonotonic, 0);
   LLVMValueRef end = LLVMBuildAdd(p->b, off, size, "");
   LLVMValueRef cap = LLVMBuildLoad2(
      p->b, p->i64, byte_ptr(p, buf, c64(p, offsetof(struct kiln_printf_buffer, capacity))), "");
   /* end <= cap also rules out a wrapped end, as off < end then. */
   LLVMValueRef fits = LLVMBuildAnd(p->b, LLVMBuildICmp(p->b, LLVMIntULE, end, cap, ""),
                                    LLVMBuildICmp(p->b, LLVMIntULT, off, end, ""), "");
   LLVMBuildCondBr(p->b, fits, write_bb, drop_bb);

   LLVMPositionBuilderAtEnd(p->b, write_bb);
   LLVMValueRef rec = byte_ptr(p, buf, LLVMBuildAdd(p->b, off, c64(p, KILN_PRINTF_BUFFER_DATA), ""));
   LLVMSetAlignment(LLVMBuildStore(p->b, LLVMConstInt(p->i32, record_size, 0),
                                   byte_ptr(p, rec, c64(p, 0))), 8);
   LLVMSetAlignment(LLVMBuildStore(p->b, LLVMConstInt(p->i32, entry, 0),
                                   byte_ptr(p, rec, c64(p, 4))), 4);
   LLVMSetAlignment(LLVMBuildStore(p->b, linear_item(p), byte_ptr(p, rec, c64(p, 8))), 8);
   for (unsigned i = 0; i < n; i++) {
      LLVMValueRef v = LLVMGetParam(fn, i);
      LLVMValueRef at = byte_ptr(p, rec, c64(p, args[i].offset));
      if (args[i].kind == KILN_PRINTF_ARG_STRING)
         v = LLVMConstInt(p->i32, string_ids[i], 0);
      else if (indirect[i])
         LLVMSetAlignment(v = LLVMBuildLoad2(p->b, indirect_type(p, &args[i]), v, ""), 1);
      else if (args[i].kind == KILN_PRINTF_ARG_PTR)
         v = LLVMBuildPtrToInt(p->b, v, p->i64, "");
      LLVMValueRef st = LLVMBuildStore(p->b, v, at);
      /* Arguments start at multiples of 8 in 8-aligned records. */
      LLVMSetAlignment(st, args[i].kind == KILN_PRINTF_ARG_STRING ? 4 : 8);
   }
   LLVMBuildRet(p->b, LLVMConstInt(p->i32, 0, 0));

   LLVMPositionBuilderAtEnd(p->b, drop_bb);
   LLVMValueRef drop_at = byte_ptr(p, buf, c64(p, offsetof(struct kiln_printf_buffer, drop_at)));
   LLVMBuildAtomicRMW(p->b, LLVMAtomicRMWBinOpUMin, drop_at, off, LLVMAtomicOrderingMonotonic, 0);
   LLVMBuildRet(p->b, LLVMConstInt(p->i32, (unsigned long long)-1, 1));
   return fn;
}

static bool lower_call(struct pl *p, LLVMValueRef call_inst, unsigned index)
{
   unsigned nargs = LLVMGetNumArgOperands(call_inst);
   const char *fmt;
   size_t fmt_len;
   if (nargs < 1 || !const_string(LLVMGetOperand(call_inst, 0), &fmt, &fmt_len)) {
      kiln_build_log_append(p->log, "error: printf: the format must be a string literal "
                                    "(OpenCL C 1.2 §6.12.13.2)\n");
      return false;
   }
   unsigned n = nargs - 1;
   struct kiln_printf_arg *args = kiln_calloc(n ? n : 1, sizeof(*args));
   uint32_t *string_ids = kiln_calloc(n ? n : 1, sizeof(*string_ids));
   LLVMTypeRef *types = kiln_calloc(n ? n : 1, sizeof(*types));
   LLVMValueRef *vals = kiln_calloc(n ? n : 1, sizeof(*vals));
   bool *indirect = kiln_calloc(n ? n : 1, sizeof(*indirect));
   /* The format is copied: the table entries below may be added while
    * it is read (it lives in the module, which they do not change). */
   char *text = kiln_strndup(fmt, fmt_len);
   bool ok = args && string_ids && types && vals && indirect && text;
   if (!ok)
      p->e.oom = true;
   /* Which conversion each argument meets, to know the %s ones. */
   const char *cur = text;
   struct kiln_printf_spec spec;
   uint32_t offset = sizeof(struct kiln_printf_record);
   for (unsigned i = 0; ok && i < n; i++) {
      char conv = 0;
      struct kiln_printf_spec arg_spec = {0};
      while (cur && (cur = kiln_printf_spec_next(cur, &spec))) {
         cur += spec.len;
         if (kiln_printf_spec_takes_arg(&spec)) {
            conv = spec.conversion;
            arg_spec = spec;
            break;
         }
      }
      vals[i] = LLVMGetOperand(call_inst, i + 1);
      types[i] = LLVMTypeOf(vals[i]);
      if (!describe(p, types[i], &args[i])) {
         kiln_build_log_append(p->log, "error: printf(\"%s\", ...): argument %u has a type "
                                       "printf cannot print\n", text, i + 1);
         ok = false;
         break;
      }
      indirect[i] = vector_layout(p, &arg_spec, types[i], &args[i]);
      const char *str;
      size_t str_len;
      if (conv == 's' && args[i].kind == KILN_PRINTF_ARG_PTR &&
          const_string(vals[i], &str, &str_len)) {
         char *copy = kiln_strndup(str, str_len);
         if (!copy) {
            p->e.oom = true;
            ok = false;
            break;
         }
         args[i].kind = KILN_PRINTF_ARG_STRING;
         args[i].elem_size = 4;
         string_ids[i] = add_text_entry(&p->e, 0, NULL, 0, copy, str_len);
         kiln_free(copy);
      }
      args[i].offset = offset;
      uint64_t bytes = args[i].kind == KILN_PRINTF_ARG_STRING ? 4
                       : indirect[i] ? LLVMABISizeOfType(p->td, indirect_type(p, &args[i]))
                                     : LLVMABISizeOfType(p->td, types[i]);
      offset += (uint32_t)((bytes + 7) / 8 * 8);
   }
   if (ok && !p->e.oom) {
      uint32_t entry = add_text_entry(&p->e, offset, args, n, text, fmt_len);
      if (!p->e.oom) {
         LLVMValueRef helper =
            build_helper(p, index, types, n, args, string_ids, indirect, offset, entry);
         LLVMPositionBuilderBefore(p->b, call_inst);
         LLVMValueRef repl = LLVMBuildCall2(p->b, LLVMGlobalGetValueType(helper), helper,
                                            vals, n, "");
         LLVMReplaceAllUsesWith(call_inst, repl);
         LLVMInstructionEraseFromParent(call_inst);
      }
   }
   kiln_free(args);
   kiln_free(string_ids);
   kiln_free(types);
   kiln_free(vals);
   kiln_free(indirect);
   kiln_free(text);
   return ok;
}

/* The table global, from the entries (include/kiln/printf.h). */
static bool emit_table(struct pl *p)
{
   size_t head = sizeof(struct kiln_printf_table) + (size_t)p->e.n * 4;
   size_t size = head;
   for (unsigned i = 0; i < p->e.n; i++)
      size += (p->e.len[i] + 3) / 4 * 4;
   if (size > UINT32_MAX)
      return false;
   unsigned char *t = kiln_calloc(1, size);
   if (!t)
      return false;
   put32(t, KILN_PRINTF_TABLE_MAGIC);
   put32(t + 4, p->e.n);
   put32(t + 8, (uint32_t)size);
   size_t at = head;
   for (unsigned i = 0; i < p->e.n; i++) {
      put32(t + sizeof(struct kiln_printf_table) + i * 4, (uint32_t)at);
      memcpy(t + at, p->e.bytes[i], p->e.len[i]);
      at += (p->e.len[i] + 3) / 4 * 4;
   }
   LLVMValueRef init = LLVMConstStringInContext2(p->c, (const char *)t, size, 1);
   kiln_free(t);
   LLVMValueRef g = LLVMAddGlobal(p->m, LLVMTypeOf(init), KILN_PRINTF_TABLE_SYM);
   LLVMSetInitializer(g, init);
   LLVMSetGlobalConstant(g, 1);
   LLVMSetAlignment(g, 8);
   LLVMSetLinkage(g, LLVMExternalLinkage);
   LLVMSetVisibility(g, LLVMDefaultVisibility);
   return true;
}

bool kiln_printf_used(LLVMModuleRef m)
{
   LLVMValueRef f = LLVMGetNamedFunction(m, "printf");
   return f && LLVMGetFirstUse(f);
}

enum kiln_printf_lower_status kiln_printf_lower(LLVMModuleRef m, LLVMTargetDataRef td,
                                                enum kiln_printf_buffer_source source,
                                                struct kiln_build_log *log)
{
   LLVMValueRef printf_fn = LLVMGetNamedFunction(m, "printf");
   if (!printf_fn || !LLVMGetFirstUse(printf_fn))
      return KILN_PRINTF_LOWER_OK;
   struct pl p = {.m = m, .c = LLVMGetModuleContext(m), .td = td, .log = log, .source = source};
   p.i8 = LLVMInt8TypeInContext(p.c);
   p.i32 = LLVMInt32TypeInContext(p.c);
   p.i64 = LLVMInt64TypeInContext(p.c);
   p.ptr = LLVMPointerTypeInContext(p.c, 0);
   p.b = LLVMCreateBuilderInContext(p.c);
   bool ok = true;
   unsigned index = 0;
   /* Each lowering erases one use, so take the first until none is left;
    * a use that is not a call (printf's address taken) is an error. */
   for (LLVMUseRef u; ok && !p.e.oom && (u = LLVMGetFirstUse(printf_fn));) {
      LLVMValueRef user = LLVMGetUser(u);
      if (!LLVMIsACallInst(user) || LLVMGetCalledValue(user) != printf_fn) {
         kiln_build_log_append(log, "error: printf may only be called, not used as a value\n");
         ok = false;
         break;
      }
      ok = lower_call(&p, user, index++);
   }
   if (ok && !p.e.oom)
      LLVMDeleteFunction(printf_fn);
   if (ok && !p.e.oom && !emit_table(&p))
      p.e.oom = true;
   for (unsigned i = 0; i < p.e.n; i++)
      kiln_free(p.e.bytes[i]);
   kiln_free(p.e.bytes);
   kiln_free(p.e.len);
   LLVMDisposeBuilder(p.b);
   if (p.e.oom)
      return KILN_PRINTF_LOWER_OUT_OF_MEMORY;
   return ok ? KILN_PRINTF_LOWER_OK : KILN_PRINTF_LOWER_FAILED;
}
