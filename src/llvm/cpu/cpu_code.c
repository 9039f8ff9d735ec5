/* The CPU's deferred code (cpu_code.h): the container, the build's defer
 * step that fills it, and the compile of one kernel from it. */
#include "llvm/cpu/cpu_code.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>

#include "kiln/cpu_abi.h"
#include "kiln/kernel_info.h"
#include "llvm/backend.h"
#include "llvm/build_log.h"
#include "llvm/cpu/cpu_split.h"
#include "llvm/cpu/wg_round_prefetch.h"
#include "llvm/guard.h"
#include "llvm/target.h"
#include "llvm/target_table.h"
#include "util/alloc.h"
#include "util/bytes.h"

#define MAGIC "KILNCPU1"
#define MAGIC_SIZE 8

struct cpu_kernel_code {
   char *name;
   void *object; /* NULL until compiled */
   size_t object_size;
};

struct kiln_cpu_code {
   bool optimize;
   char *triple, *cpu, *features;
   void *bitcode;
   size_t bitcode_size;
   void *common;
   size_t common_size;
   unsigned num_kernels;
   struct cpu_kernel_code *kernels;
   /* The lowered module and its code generator, made at the first
    * compile and kept for the next ones. */
   LLVMContextRef ctx;
   LLVMModuleRef m;
   LLVMTargetMachineRef tm;
   bool broken; /* LLVM threw during a compile: the module is in doubt */
};

static atomic_ulong compiles;

unsigned long kiln_cpu_code_compiles(void)
{
   return atomic_load(&compiles);
}

/* ---- The container's bytes ---- */

static void put_blob(struct kiln_bytes_out *o, const void *data, size_t n)
{
   kiln_bytes_put_le(o, n, 8);
   kiln_bytes_put(o, data, n);
}

static void put_str(struct kiln_bytes_out *o, const char *s)
{
   put_blob(o, s, strlen(s));
}

static void write_all(struct kiln_bytes_out *o, const struct kiln_cpu_code *c)
{
   kiln_bytes_put(o, MAGIC, MAGIC_SIZE);
   kiln_bytes_put_le(o, c->optimize, 8);
   put_str(o, c->triple);
   put_str(o, c->cpu);
   put_str(o, c->features);
   put_blob(o, c->bitcode, c->bitcode_size);
   put_blob(o, c->common, c->common_size);
   kiln_bytes_put_le(o, c->num_kernels, 8);
   for (unsigned i = 0; i < c->num_kernels; i++) {
      put_str(o, c->kernels[i].name);
      put_blob(o, c->kernels[i].object, c->kernels[i].object ? c->kernels[i].object_size : 0);
   }
}

void *kiln_cpu_code_write(const struct kiln_cpu_code *c, size_t *size)
{
   struct kiln_bytes_out o = {0};
   write_all(&o, c);
   *size = o.pos;
   o.p = kiln_malloc(o.pos);
   if (!o.p)
      return NULL;
   o.pos = 0;
   write_all(&o, c);
   return o.p;
}

/* A copy of the next blob (a NUL after it); *oom when out of memory. */
static void *get_blob(struct kiln_bytes_in *in, size_t *size, bool *oom)
{
   uint64_t n = kiln_bytes_get_le(in, 8);
   const unsigned char *p = kiln_bytes_take(in, (size_t)n);
   if (!p)
      return NULL;
   char *copy = kiln_malloc((size_t)n + 1);
   if (!copy) {
      *oom = true;
      return NULL;
   }
   memcpy(copy, p, (size_t)n);
   copy[n] = 0;
   if (size)
      *size = (size_t)n;
   return copy;
}

bool kiln_cpu_code_recognize(const void *data, size_t size)
{
   return size >= MAGIC_SIZE && !memcmp(data, MAGIC, MAGIC_SIZE);
}

struct kiln_cpu_code *kiln_cpu_code_open(const void *data, size_t size, char **error)
{
   *error = NULL;
   struct kiln_cpu_code *c = kiln_calloc(1, sizeof(*c));
   if (!c)
      return NULL;
   struct kiln_bytes_in in = {data, size, false};
   bool oom = false;
   const unsigned char *magic = kiln_bytes_take(&in, MAGIC_SIZE);
   in.bad |= !magic || memcmp(magic, MAGIC, MAGIC_SIZE);
   c->optimize = kiln_bytes_get_le(&in, 8) != 0;
   c->triple = get_blob(&in, NULL, &oom);
   c->cpu = get_blob(&in, NULL, &oom);
   c->features = get_blob(&in, NULL, &oom);
   c->bitcode = get_blob(&in, &c->bitcode_size, &oom);
   c->common = get_blob(&in, &c->common_size, &oom);
   uint64_t n = kiln_bytes_get_le(&in, 8);
   /* Each kernel takes at least its two lengths. */
   if (!in.bad && !oom && n <= in.left / 16) {
      c->kernels = kiln_calloc(n ? (size_t)n : 1, sizeof(*c->kernels));
      oom |= !c->kernels;
      for (unsigned i = 0; c->kernels && i < n && !in.bad && !oom; i++) {
         struct cpu_kernel_code *k = &c->kernels[i];
         c->num_kernels = i + 1;
         k->name = get_blob(&in, NULL, &oom);
         k->object = get_blob(&in, &k->object_size, &oom);
         if (k->object && !k->object_size) {
            kiln_free(k->object);
            k->object = NULL;
         }
      }
   } else {
      in.bad = true;
   }
   if (!oom && (in.bad || in.left || !c->triple || !c->cpu || !c->features || !c->bitcode ||
                !c->common))
      *error = kiln_strdup("the program's CPU code container is malformed");
   if (oom || *error) {
      kiln_cpu_code_close(c);
      return NULL;
   }
   return c;
}

static void dispose_llvm(void *p)
{
   struct kiln_cpu_code *c = p;
   if (c->m)
      LLVMDisposeModule(c->m);
   if (c->tm)
      LLVMDisposeTargetMachine(c->tm);
   if (c->ctx)
      LLVMContextDispose(c->ctx);
}

void kiln_cpu_code_close(struct kiln_cpu_code *c)
{
   if (!c)
      return;
   /* Guarded: LLVM may allocate tearing down (guard.h).  A broken
    * program's LLVM objects are leaked: their destructors may crash
    * (build.c's job_close). */
   if ((c->ctx || c->tm) && !c->broken)
      kiln_llvm_guard(dispose_llvm, c, NULL, 0);
   for (unsigned i = 0; i < c->num_kernels; i++) {
      kiln_free(c->kernels[i].name);
      kiln_free(c->kernels[i].object);
   }
   kiln_free(c->kernels);
   kiln_free(c->triple);
   kiln_free(c->cpu);
   kiln_free(c->features);
   kiln_free(c->bitcode);
   kiln_free(c->common);
   kiln_free(c);
}

unsigned kiln_cpu_code_num_kernels(const struct kiln_cpu_code *c)
{
   return c->num_kernels;
}

const char *kiln_cpu_code_kernel_name(const struct kiln_cpu_code *c, unsigned i)
{
   return c->kernels[i].name;
}

const void *kiln_cpu_code_object(const struct kiln_cpu_code *c, int i, size_t *size)
{
   if (i < 0) {
      *size = c->common_size;
      return c->common;
   }
   *size = c->kernels[i].object_size;
   return c->kernels[i].object;
}

/* ---- The build's defer step ---- */

static bool has_prefix(LLVMValueRef g, const char *prefix)
{
   size_t len;
   const char *name = LLVMGetValueName2(g, &len);
   return len >= strlen(prefix) && !strncmp(name, prefix, strlen(prefix));
}

/* Variables the kernels may write are shared by all of them (a program's
 * variables, statics in functions, printf's records): one definition, in
 * the common object, which each kernel's object reaches by name.  Those
 * still internal become external (hidden, and named: unnamed ones cannot
 * be reached from another object). */
static void share_variables(LLVMModuleRef m)
{
   for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
      LLVMLinkage l = LLVMGetLinkage(g);
      if (LLVMIsDeclaration(g) || LLVMIsGlobalConstant(g) ||
          (l != LLVMInternalLinkage && l != LLVMPrivateLinkage))
         continue;
      size_t len;
      LLVMGetValueName2(g, &len);
      if (!len)
         LLVMSetValueName2(g, "__kiln_var", 10); /* LLVM makes it unique */
      LLVMSetLinkage(g, LLVMExternalLinkage);
      LLVMSetVisibility(g, LLVMHiddenVisibility);
   }
}

/* The common object: every variable defined once. */
static enum kiln_build_status common_object(struct kiln_llvm_job *job, void **object,
                                            size_t *size)
{
   unsigned n = 0, cap = 16;
   LLVMValueRef *roots = kiln_malloc(cap * sizeof(*roots));
   if (!roots)
      return KILN_BUILD_OUT_OF_MEMORY;
   for (LLVMValueRef g = LLVMGetFirstGlobal(job->m); g; g = LLVMGetNextGlobal(g)) {
      LLVMLinkage l = LLVMGetLinkage(g);
      if (LLVMIsDeclaration(g) || l == LLVMInternalLinkage || l == LLVMPrivateLinkage ||
          has_prefix(g, KILN_STACK_PREFIX) || has_prefix(g, KILN_MAX_ITEMS_PREFIX) ||
          has_prefix(g, KILN_LOCAL_PREFIX) || has_prefix(g, KILN_REGROUP_PREFIX))
         continue;
      if (n == cap) {
         LLVMValueRef *grown = kiln_realloc(roots, 2 * cap * sizeof(*roots));
         if (!grown) {
            kiln_free(roots);
            return KILN_BUILD_OUT_OF_MEMORY;
         }
         roots = grown;
         cap *= 2;
      }
      roots[n++] = g;
   }
   LLVMModuleRef part = kiln_cpu_split(job->m, roots, n, false);
   kiln_free(roots);
   if (!part) {
      kiln_build_log_append(job->log, "error: internal: the program's variables could not be "
                                      "separated from its kernels\n");
      return KILN_BUILD_FAILED;
   }
   struct kiln_build_output out = {0};
   struct kiln_llvm_job pj = *job;
   pj.m = part;
   pj.out = &out;
   pj.dump = NULL;
   enum kiln_build_status st = kiln_llvm_codegen(&pj);
   LLVMDisposeModule(part);
   *object = out.object;
   *size = out.object_size;
   return st;
}

enum kiln_build_status kiln_cpu_code_defer(struct kiln_llvm_job *job)
{
   share_variables(job->m);
   struct kiln_cpu_code c = {
      .optimize = job->optimize,
      .triple = job->machine->triple,
      .cpu = job->machine->cpu,
      .features = job->machine->features,
      .num_kernels = job->out->num_kernels,
   };
   enum kiln_build_status st = common_object(job, &c.common, &c.common_size);
   if (st)
      return st;
   LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(job->m);
   c.kernels = kiln_calloc(c.num_kernels ? c.num_kernels : 1, sizeof(*c.kernels));
   st = KILN_BUILD_OUT_OF_MEMORY;
   if (bc && kiln_llvm_take_buffer(bc, &c.bitcode, &c.bitcode_size) && c.kernels) {
      for (unsigned i = 0; i < c.num_kernels; i++)
         c.kernels[i].name = job->out->kernels[i].name; /* borrowed */
      job->out->object = kiln_cpu_code_write(&c, &job->out->object_size);
      if (job->out->object)
         st = KILN_BUILD_OK;
   }
   kiln_free(c.kernels);
   kiln_free(c.bitcode);
   kiln_free(c.common);
   return st;
}

/* ---- One kernel's compile ---- */

struct compile_call {
   struct kiln_cpu_code *c;
   unsigned i;
   struct kiln_build_log log;
   enum kiln_build_status st;
   bool caught; /* a guard caught LLVM throwing during the compile */
};

static LLVMValueRef named(LLVMModuleRef m, const char *prefix, const char *name, bool function)
{
   size_t n = strlen(prefix) + strlen(name) + 1;
   char *sym = kiln_malloc(n);
   if (!sym)
      return NULL;
   snprintf(sym, n, "%s%s", prefix, name);
   LLVMValueRef v = function ? LLVMGetNamedFunction(m, sym) : LLVMGetNamedGlobal(m, sym);
   kiln_free(sym);
   return v;
}

static void compile_steps(struct compile_call *cc)
{
   struct kiln_cpu_code *c = cc->c;
   struct kiln_llvm_machine mach = {
      .target = &kiln_llvm_target_cpu,
      .triple = c->triple,
      .cpu = c->cpu,
      .features = c->features,
   };
   cc->st = KILN_BUILD_FAILED;
   if (!c->m) {
      kiln_llvm_init_targets();
      if (!c->ctx)
         c->ctx = LLVMContextCreate();
      /* Bodies are read as kernels reach them; c->bitcode outlives c->m. */
      c->m = kiln_cpu_read_lazy(c->ctx, c->bitcode, c->bitcode_size);
      if (!c->m) {
         kiln_build_log_append(&cc->log, "the program's lowered module does not parse");
         return;
      }
   }
   if (!c->tm && !(c->tm = kiln_llvm_create_machine(&mach, c->optimize, &cc->log)))
      return;
   const char *name = c->kernels[cc->i].name;
   LLVMValueRef roots[5];
   unsigned n = 0;
   if ((roots[n] = named(c->m, KILN_WG_PREFIX, name, true)))
      n++;
   if (n && (roots[n] = named(c->m, KILN_STACK_PREFIX, name, false)))
      n++;
   /* Only kernels that call sub-group functions have one. */
   if (n && (roots[n] = named(c->m, KILN_MAX_ITEMS_PREFIX, name, false)))
      n++;
   /* Only kernels with __local variables of their own have one. */
   if (n && (roots[n] = named(c->m, KILN_LOCAL_PREFIX, name, false)))
      n++;
   /* Only kernels that may run merged work-groups have one. */
   if (n && (roots[n] = named(c->m, KILN_REGROUP_PREFIX, name, false)))
      n++;
   if (!n) {
      kiln_build_log_append(&cc->log, "kernel '%s' is missing from the program's code", name);
      return;
   }
   LLVMModuleRef part = kiln_cpu_split(c->m, roots, n, true);
   if (!part) {
      kiln_build_log_append(&cc->log, "kernel '%s' could not be separated from the program",
                            name);
      return;
   }
   kiln_wg_round_prefetch_declare(part);
   struct kiln_build_output out = {0};
   struct kiln_llvm_job job = {
      .m = part,
      .tm = c->tm,
      .machine = &mach,
      .optimize = c->optimize,
      .out = &out,
      .log = &cc->log,
   };
   cc->st = kiln_llvm_codegen(&job);
   LLVMDisposeModule(part);
   if (cc->st) {
      kiln_free(out.object);
      return;
   }
   c->kernels[cc->i].object = out.object;
   c->kernels[cc->i].object_size = out.object_size;
}

static void compile_body(void *p)
{
   struct compile_call *cc = p;
   unsigned catches = kiln_llvm_guard_catches();
   compile_steps(cc);
   cc->caught = kiln_llvm_guard_catches() != catches;
}

bool kiln_cpu_code_compile(struct kiln_cpu_code *c, unsigned i, char **error)
{
   *error = NULL;
   if (c->kernels[i].object)
      return true;
   if (c->broken) {
      *error = kiln_strdup("an earlier compile of this program failed inside LLVM");
      return false;
   }
   struct compile_call cc = {.c = c, .i = i, .st = KILN_BUILD_FAILED};
   enum kiln_build_status st = kiln_llvm_run(compile_body, &cc, &cc.log);
   /* LLVM threw (a fatal error, or out of memory): the module, read
    * lazily, may be half changed, and is neither used nor freed again. */
   if (st != KILN_BUILD_OK || cc.caught)
      c->broken = true;
   if (!st)
      st = cc.st;
   if (!st) {
      atomic_fetch_add(&compiles, 1);
      kiln_free(cc.log.text);
      return true;
   }
   if (st != KILN_BUILD_OUT_OF_MEMORY) {
      *error = cc.log.text && cc.log.len ? cc.log.text : kiln_strdup("unknown reason");
      if (*error == cc.log.text)
         cc.log.text = NULL;
   }
   kiln_free(cc.log.text);
   return false;
}
