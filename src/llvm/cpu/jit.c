/* Loads a compiled CPU program (a relocatable ELF object from
 * kiln_llvm_build) into this process with ORC's LLJIT, and finds its
 * work-group functions.  One LLJIT per loaded program: unloading the
 * program disposes it and frees the code. */
#include "llvm/cpu/jit.h"

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llvm/cpu/elf_check.h"
#include "llvm/cpu/half_rt.h"
#include "llvm/cpu/perf_map.h"
#include "llvm/guard.h"
#include "llvm/target.h"
#include "util/alloc.h"

struct kiln_jit {
   LLVMOrcLLJITRef jit;
   struct kiln_perf_map *perf_map; /* KILN_PERF_MAP: functions not yet written */
};

static char *take_error(LLVMErrorRef err)
{
   char *msg = LLVMGetErrorMessage(err);
   char *copy = kiln_strdup(msg ? msg : "unknown LLVM error");
   LLVMDisposeErrorMessage(msg);
   return copy;
}

/* Only names a program may call outside itself reach the process: the
 * compiler already refused programs calling anything else. */
static int allow_process_symbol(void *ctx, LLVMOrcSymbolStringPoolEntryRef sym)
{
   (void)ctx;
   const char *name = LLVMOrcSymbolStringPoolEntryStr(sym);
   return strncmp(name, "_Z", 2) != 0 && strncmp(name, "clGet", 5) != 0;
}

/* Defines the driver's run-time functions in the program's JITDylib;
 * *oom when Kiln could not allocate the table. */
static LLVMErrorRef define_symbols(LLVMOrcLLJITRef jit, LLVMOrcJITDylibRef jd,
                                   const struct kiln_jit_symbol *symbols, unsigned n, bool *oom)
{
   if (!n)
      return NULL;
   LLVMOrcCSymbolMapPairs pairs = kiln_calloc(n, sizeof(*pairs));
   if (!pairs) {
      *oom = true;
      return NULL;
   }
   for (unsigned i = 0; i < n; i++) {
      pairs[i].Name = LLVMOrcLLJITMangleAndIntern(jit, symbols[i].name);
      pairs[i].Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)symbols[i].address;
      pairs[i].Sym.Flags.GenericFlags =
         LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
      pairs[i].Sym.Flags.TargetFlags = 0;
   }
   /* Takes over the names. */
   LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(pairs, n);
   kiln_free(pairs);
   LLVMErrorRef err = LLVMOrcJITDylibDefine(jd, mu);
   if (err)
      LLVMOrcDisposeMaterializationUnit(mu);
   return err;
}

static struct kiln_jit *jit_load(const void *object, size_t size,
                                 const struct kiln_jit_symbol *symbols, unsigned num_symbols,
                                 char **error)
{
   if (!kiln_elf_check(object, size)) {
      *error = kiln_strdup("the program's object code is malformed");
      return NULL;
   }
   kiln_llvm_init_targets();
   struct kiln_jit *j = kiln_calloc(1, sizeof(*j));
   if (!j)
      return NULL; /* *error stays NULL: out of host memory */
   LLVMErrorRef err = LLVMOrcCreateLLJIT(&j->jit, NULL);
   if (err) {
      *error = take_error(err);
      kiln_free(j);
      return NULL;
   }
   LLVMOrcJITDylibRef main = LLVMOrcLLJITGetMainJITDylib(j->jit);
   LLVMOrcDefinitionGeneratorRef gen;
   err = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
      &gen, LLVMOrcLLJITGetGlobalPrefix(j->jit), allow_process_symbol, NULL);
   if (!err) {
      LLVMOrcJITDylibAddGenerator(main, gen);
      /* The builtins leave sinf, pow & co. to the C library's libm.  The
       * ICD loader opens Kiln RTLD_LOCAL, so the libm Kiln itself links
       * is not in the process's global scope: a host program that does
       * not link libm would find no sinf there.  Search libm by name too
       * (dlopen returns the copy already loaded). */
      err = LLVMOrcCreateDynamicLibrarySearchGeneratorForPath(
         &gen, "libm.so.6", LLVMOrcLLJITGetGlobalPrefix(j->jit), allow_process_symbol, NULL);
      if (!err)
         LLVMOrcJITDylibAddGenerator(main, gen);
   }
   if (!err) {
      bool oom = false;
      /* x86's half conversions, Kiln's own (half_rt.c): found before
       * anything the process search would give. */
      err = define_symbols(j->jit, main, kiln_half_rt_symbols, kiln_half_rt_num_symbols, &oom);
      if (!err && !oom)
         err = define_symbols(j->jit, main, symbols, num_symbols, &oom);
      if (oom) {
         kiln_jit_destroy(j);
         return NULL; /* *error stays NULL: out of host memory */
      }
   }
   if (!err) {
      LLVMMemoryBufferRef buf =
         LLVMCreateMemoryBufferWithMemoryRangeCopy(object, size, "kiln-program");
      err = LLVMOrcLLJITAddObjectFile(j->jit, main, buf);
   }
   if (err) {
      *error = take_error(err);
      kiln_jit_destroy(j);
      return NULL;
   }
   if (kiln_perf_map_on())
      kiln_perf_map_note(&j->perf_map, object, size);
   return j;
}

static void *jit_add(struct kiln_jit *j, const void *object, size_t size, char **error)
{
   if (!kiln_elf_check(object, size)) {
      *error = kiln_strdup("a kernel's object code is malformed");
      return NULL;
   }
   LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(object, size, "kiln-kernel");
   LLVMErrorRef err = LLVMOrcLLJITAddObjectFile(j->jit, LLVMOrcLLJITGetMainJITDylib(j->jit), buf);
   if (err) {
      *error = take_error(err);
      return NULL;
   }
   if (kiln_perf_map_on())
      kiln_perf_map_note(&j->perf_map, object, size);
   return j;
}

/* A function of an object already linked, for the perf map. */
static void *resolve_linked(void *ctx, const char *name)
{
   LLVMOrcExecutorAddress addr = 0;
   LLVMErrorRef err = LLVMOrcLLJITLookup(ctx, &addr, name);
   if (err) {
      LLVMConsumeError(err);
      return NULL;
   }
   return (void *)(uintptr_t)addr;
}

static void *jit_lookup(struct kiln_jit *j, const char *name, char **error)
{
   LLVMOrcExecutorAddress addr = 0;
   LLVMErrorRef err = LLVMOrcLLJITLookup(j->jit, &addr, name);
   if (err) {
      *error = take_error(err);
      return NULL;
   }
   kiln_perf_map_found(j->perf_map, name, resolve_linked, j->jit);
   return (void *)(uintptr_t)addr;
}

/* Loading and looking up (which links the object) allocate in LLVM: both
 * run under kiln_llvm_guard (guard.h), so that running out of memory
 * there is an error, and an LLVM fatal error a message. */
struct jit_call {
   const void *object;
   size_t size;
   const struct kiln_jit_symbol *symbols;
   unsigned num_symbols;
   struct kiln_jit *jit;
   const char *name;
   char **error;
   void *result;
};

static void load_call(void *p)
{
   struct jit_call *c = p;
   c->result = jit_load(c->object, c->size, c->symbols, c->num_symbols, c->error);
}

static void add_call(void *p)
{
   struct jit_call *c = p;
   c->result = jit_add(c->jit, c->object, c->size, c->error);
}

static void lookup_call(void *p)
{
   struct jit_call *c = p;
   c->result = jit_lookup(c->jit, c->name, c->error);
}

static void *guarded(void (*fn)(void *), struct jit_call *c)
{
   char why[512];
   char *before = *c->error;
   enum kiln_llvm_guard_status st = kiln_llvm_guard(fn, c, why, sizeof(why));
   if (st == KILN_LLVM_GUARD_OK)
      return c->result;
   if (*c->error != before)
      kiln_free(*c->error);
   *c->error = NULL; /* out of host memory */
   if (st == KILN_LLVM_GUARD_FATAL) {
      size_t n = strlen(why) + 32;
      *c->error = kiln_malloc(n);
      if (*c->error)
         snprintf(*c->error, n, "LLVM: %s", why);
   }
   return NULL;
}

struct kiln_jit *kiln_jit_load(const void *object, size_t size,
                               const struct kiln_jit_symbol *symbols, unsigned num_symbols,
                               char **error)
{
   struct jit_call c = {.object = object, .size = size, .symbols = symbols,
                        .num_symbols = num_symbols, .error = error};
   return guarded(load_call, &c);
}

bool kiln_jit_add(struct kiln_jit *j, const void *object, size_t size, char **error)
{
   struct jit_call c = {.jit = j, .object = object, .size = size, .error = error};
   return guarded(add_call, &c) != NULL;
}

void *kiln_jit_lookup(struct kiln_jit *j, const char *name, char **error)
{
   struct jit_call c = {.jit = j, .name = name, .error = error};
   return guarded(lookup_call, &c);
}

static void dispose_call(void *p)
{
   LLVMErrorRef err = LLVMOrcDisposeLLJIT(p);
   if (err)
      LLVMConsumeError(err);
}

/* Guarded like loading: tearing the JIT down runs LLVM code that may
 * allocate, and no LLVM allocation may fail outside kiln_llvm_guard (what
 * a failed teardown held is leaked, guard.h). */
void kiln_jit_destroy(struct kiln_jit *j)
{
   if (!j)
      return;
   if (j->jit)
      kiln_llvm_guard(dispose_call, j->jit, NULL, 0);
   kiln_perf_map_free(j->perf_map);
   kiln_free(j);
}
