/* The CPU build pipeline:
 *   OpenCL C --clang, linking what it uses of Kiln's builtins--> module
 *   --> work-group functions (workgroup.c) --> O3 --> ELF object.
 */
#include "llvm/compiler.h"

#include "kiln/cl_version.h"

#include <dlfcn.h>
#include <pthread.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kiln/kernel_info.h"
#include "llvm/build_options.h"
#include "llvm/bounds_check.h"
#include "llvm/builtins.h"
#include "llvm/build_log.h"

/* The triple the builtins library is built for (src/llvm/builtins). */
#define KILN_CPU_TRIPLE "x86_64-unknown-linux-gnu"
#include "llvm/clc_frontend.h"
#include "llvm/metadata.h"
#include "llvm/printf_lower.h"
#include "llvm/safe_div.h"
#include "llvm/target.h"
#include "llvm/workgroup.h"
#include "util/alloc.h"

static char llvm_version[32];
static pthread_once_t llvm_version_once = PTHREAD_ONCE_INIT;

static void llvm_version_init(void)
{
   unsigned major, minor, patch;
   LLVMGetVersion(&major, &minor, &patch);
   snprintf(llvm_version, sizeof(llvm_version), "LLVM %u.%u.%u", major, minor, patch);
}

/* Once: concurrent builds all compute the compile cache's key. */
const char *kiln_llvm_version(void)
{
   pthread_once(&llvm_version_once, llvm_version_init);
   return llvm_version;
}

enum kiln_build_status kiln_llvm_check_options(const char *options, char **log)
{
   struct kiln_build_options opts;
   char reason[KILN_BUILD_OPTIONS_REASON_SIZE] = "";
   enum kiln_build_options_status st =
      kiln_build_options_parse(options, (enum kiln_cl_std)KILN_CL_VERSION_NUMBER, &opts, reason,
                               sizeof(reason));
   kiln_build_options_fini(&opts); /* whatever the result */
   if (st == KILN_BUILD_OPTIONS_OK)
      return KILN_BUILD_OK;
   if (st == KILN_BUILD_OPTIONS_OUT_OF_MEMORY)
      return KILN_BUILD_OUT_OF_MEMORY;
   if (log) {
      size_t n = strlen(reason) + 64;
      *log = kiln_malloc(n);
      if (*log)
         snprintf(*log, n, "error: invalid build options: %s\n", reason);
   }
   return KILN_BUILD_INVALID_OPTIONS;
}

/* Bounds checks are part of the target: checked code reads a bounds table
 * unchecked launches do not provide, and a binary built without checks
 * must not run unchecked in a process that asked for them. */
#define CHECK_SUFFIX ":check=bounds"

static char *target_id(const struct kiln_llvm_host *host, bool bounds_check)
{
   size_t n = strlen(host->triple) + strlen(host->cpu) + strlen(host->features) + 8 +
              strlen(CHECK_SUFFIX);
   char *id = kiln_malloc(n);
   if (id)
      snprintf(id, n, "cpu:%s:%s:%s%s", host->triple, host->cpu, host->features,
               bounds_check ? CHECK_SUFFIX : "");
   return id;
}

char *kiln_llvm_cpu_target_id(bool bounds_check)
{
   struct kiln_llvm_host host = {0};
   if (!kiln_llvm_host_query(&host))
      return NULL;
   char *id = target_id(&host, bounds_check);
   kiln_llvm_host_fini(&host);
   return id;
}

void kiln_build_output_fini(struct kiln_build_output *out)
{
   kiln_free(out->log);
   kiln_free(out->target_id);
   kiln_free(out->bitcode);
   kiln_free(out->object);
   for (unsigned i = 0; i < out->num_kernels; i++)
      kiln_kernel_info_free(&out->kernels[i]);
   kiln_free(out->kernels);
   kiln_build_deps_free(out->deps, out->num_deps);
   memset(out, 0, sizeof(*out));
}

void kiln_build_deps_free(struct kiln_build_dep *deps, unsigned n)
{
   for (unsigned i = 0; deps && i < n; i++)
      kiln_free(deps[i].path);
   kiln_free(deps);
}

const char *kiln_llvm_builtins_id(void)
{
   return kiln_builtins_hash();
}

bool kiln_llvm_dumping(void)
{
   const char *d = getenv("KILN_DUMP");
   return d && *d;
}

/* KILN_DUMP=<dir>: keep each build's source, IR before and after
 * optimisation, and object code, as <dir>/kiln-<pid>-<n>.{cl,ll,opt.ll,o}. */
static const char *dump_dir(void)
{
   const char *d = getenv("KILN_DUMP");
   return d && *d ? d : NULL;
}

static void dump_path(char *buf, size_t size, unsigned id, const char *ext)
{
   snprintf(buf, size, "%s/kiln-%ld-%u.%s", dump_dir(), (long)getpid(), id, ext);
}

static void dump_bytes(unsigned id, const char *ext, const void *data, size_t size)
{
   char path[4096];
   dump_path(path, sizeof(path), id, ext);
   FILE *f = fopen(path, "wb");
   if (!f)
      return;
   fwrite(data, 1, size, f);
   fclose(f);
}

static void dump_module(unsigned id, const char *ext, LLVMModuleRef m)
{
   char path[4096], *msg = NULL;
   dump_path(path, sizeof(path), id, ext);
   if (LLVMPrintModuleToFile(m, path, &msg))
      LLVMDisposeMessage(msg);
}

static bool is_intrinsic(const char *name)
{
   return !strncmp(name, "llvm.", 5);
}

/* Every function still only declared must come from the process (libm,
 * libc); anything else is a call to something that does not exist, which
 * is a build error here rather than a crash at run time. */
static bool check_undefined(LLVMModuleRef m, struct kiln_build_log *log)
{
   bool ok = true;
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
      if (LLVMGetFirstBasicBlock(fn) || !LLVMGetFirstUse(fn))
         continue;
      size_t len;
      const char *name = LLVMGetValueName2(fn, &len);
      if (is_intrinsic(name) || kiln_wg_is_work_item_function(name))
         continue;
      if (strncmp(name, "_Z", 2) && dlsym(RTLD_DEFAULT, name))
         continue;
      kiln_build_log_append(log, "error: undefined function '%s' (not an OpenCL C 1.1 builtin Kiln provides)\n",
                 name);
      ok = false;
   }
   return ok;
}

/* Builtins are compiled for a generic x86-64; give every function the
 * host's CPU and features so nothing is held back to SSE2. */
static void set_target_attributes(LLVMModuleRef m, const struct kiln_llvm_host *host)
{
   LLVMContextRef c = LLVMGetModuleContext(m);
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
      if (!LLVMGetFirstBasicBlock(fn))
         continue;
      LLVMRemoveStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, "target-cpu", 10);
      LLVMRemoveStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, "target-features", 15);
      LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                              LLVMCreateStringAttribute(c, "target-cpu", 10, host->cpu,
                                                        (unsigned)strlen(host->cpu)));
      LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                              LLVMCreateStringAttribute(c, "target-features", 15, host->features,
                                                        (unsigned)strlen(host->features)));
   }
}

static bool run_passes(LLVMModuleRef m, LLVMTargetMachineRef tm, const char *passes,
                       struct kiln_build_log *log)
{
   LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
   LLVMPassBuilderOptionsSetLoopVectorization(po, 1);
   LLVMPassBuilderOptionsSetSLPVectorization(po, 1);
   LLVMErrorRef err = LLVMRunPasses(m, passes, tm, po);
   LLVMDisposePassBuilderOptions(po);
   if (err) {
      char *msg = LLVMGetErrorMessage(err);
      kiln_build_log_append(log, "error: internal: passes '%s': %s\n", passes, msg);
      LLVMDisposeErrorMessage(msg);
      return false;
   }
   return true;
}

/* Work-group functions for every kernel; kernels become internal so the
 * optimiser drops them once inlined.  KILN_BUILD_FAILED has a log line. */
static enum kiln_build_status build_workgroups(LLVMModuleRef m, LLVMTargetMachineRef tm,
                                               struct kiln_kernel_info *kernels, unsigned n,
                                               struct kiln_build_log *log, unsigned dump_id)
{
   LLVMValueRef *kfn = kiln_calloc(n ? n : 1, sizeof(*kfn));
   LLVMValueRef *wg = kiln_calloc(n ? n : 1, sizeof(*wg));
   enum kiln_build_status st = kfn && wg ? KILN_BUILD_OK : KILN_BUILD_OUT_OF_MEMORY;
   unsigned i = 0;
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); !st && fn; fn = LLVMGetNextFunction(fn))
      if (kiln_is_kernel(fn))
         kfn[i++] = fn;
   kiln_wg_mark_inlining(m);
   for (i = 0; !st && i < n; i++)
      if (!(wg[i] = kiln_wg_create(m, kfn[i], &kernels[i])))
         st = KILN_BUILD_OUT_OF_MEMORY;
   /* SROA turns the kernels' variables (argument copies, loop counters)
    * into values, which barriers then carry only where they must. */
   if (!st && !run_passes(m, tm, "always-inline,function(sroa,early-cse)", log))
      st = KILN_BUILD_FAILED;
   bool barriers = false;
   for (i = 0; !st && i < n; i++)
      if (kiln_wg_has_barrier(wg[i])) {
         barriers = true;
         kiln_wg_rematerialize(wg[i]);
         kiln_wg_isolate_barriers(wg[i]);
      }
   /* Barriers need every value that crosses a block in memory, where
    * workgroup.c can give each work-item its own copy. */
   if (!st && barriers && !run_passes(m, tm, "function(reg2mem)", log))
      st = KILN_BUILD_FAILED;
   for (i = 0; !st && i < n; i++) {
      enum kiln_wg_status ws = kiln_wg_finish(m, wg[i], &kernels[i]);
      if (ws == KILN_WG_OUT_OF_MEMORY) {
         st = KILN_BUILD_OUT_OF_MEMORY;
      } else if (ws != KILN_WG_OK) {
         if (dump_dir())
            dump_module(dump_id, "failed.ll", m);
         kiln_build_log_append(log, "error: kernel '%s': cannot arrange its barriers for the CPU device\n",
                    kernels[i].name);
         st = KILN_BUILD_FAILED;
      }
   }
   for (i = 0; !st && i < n; i++)
      LLVMSetLinkage(kfn[i], LLVMInternalLinkage);
   kiln_free(kfn);
   kiln_free(wg);
   return st;
}

static LLVMTargetMachineRef host_machine(const struct kiln_llvm_host *host, bool opt,
                                         struct kiln_build_log *log)
{
   LLVMTargetRef t;
   char *msg = NULL;
   if (LLVMGetTargetFromTriple(host->triple, &t, &msg)) {
      kiln_build_log_append(log, "error: internal: no LLVM target for %s: %s\n", host->triple, msg);
      LLVMDisposeMessage(msg);
      return NULL;
   }
   return LLVMCreateTargetMachine(t, host->triple, host->cpu, host->features,
                                  opt ? LLVMCodeGenLevelAggressive : LLVMCodeGenLevelNone,
                                  LLVMRelocPIC, LLVMCodeModelSmall);
}

enum kiln_build_status kiln_llvm_build_cpu(const char *source, size_t size, const char *options,
                                           const struct kiln_compile_target *target,
                                           struct kiln_build_output *out)
{
   memset(out, 0, sizeof(*out));
   static atomic_uint builds;
   unsigned id = atomic_fetch_add(&builds, 1);
   if (dump_dir())
      dump_bytes(id, "cl", source, size);
   struct kiln_build_log log = {0};
   kiln_build_log_append(&log, "%s", "");
   enum kiln_build_status status = KILN_BUILD_FAILED;

   struct kiln_build_options opts;
   char reason[KILN_BUILD_OPTIONS_REASON_SIZE] = "";
   enum kiln_build_options_status ost =
      kiln_build_options_parse(options, (enum kiln_cl_std)target->opencl_version, &opts, reason,
                               sizeof(reason));
   if (ost != KILN_BUILD_OPTIONS_OK) {
      kiln_build_options_fini(&opts);
      kiln_build_log_append(&log, "error: invalid build options: %s\n", reason);
      out->log = log.text;
      return ost == KILN_BUILD_OPTIONS_INVALID ? KILN_BUILD_INVALID_OPTIONS
                                               : KILN_BUILD_OUT_OF_MEMORY;
   }

   kiln_llvm_init_targets();
   struct kiln_llvm_host host = {0};
   if (!kiln_llvm_host_query(&host)) {
      kiln_build_options_fini(&opts);
      out->log = log.text;
      return KILN_BUILD_OUT_OF_MEMORY;
   }
   bool optimize = !(opts.flags & KILN_BUILD_OPT_DISABLE);
   LLVMContextRef c = LLVMContextCreate();
   LLVMModuleRef m = NULL;
   LLVMTargetMachineRef tm = NULL;
   char *fe_log = NULL;
   /* The front end targets a baseline x86-64, like the builtins library:
    * the IR calling convention of wide vectors depends on CPU features, and
    * kernels must call the library's definitions with the signatures they
    * have.  The host's CPU and features are applied after linking. */
   size_t lib_size;
   const unsigned char *lib = kiln_builtins_bitcode(&lib_size);
   struct kiln_clc_target t = {
      .triple = KILN_CPU_TRIPLE,
      .link_bitcode = lib,
      .link_bitcode_size = lib_size,
      .cl_ext = target->cl_ext,
      .opencl_version = target->opencl_version,
      .image_support = target->image_support,
   };
   enum kiln_clc_status fst =
      kiln_clc_compile_deps(source, size, &opts, &t, c, &m, &fe_log, &out->deps, &out->num_deps);
   if (fe_log)
      kiln_build_log_append(&log, "%s", fe_log);
   kiln_free(fe_log);
   if (fst != KILN_CLC_OK) {
      status = fst == KILN_CLC_OUT_OF_MEMORY ? KILN_BUILD_OUT_OF_MEMORY : KILN_BUILD_FAILED;
      goto done;
   }

   LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(m);
   out->target_id = target_id(&host, target->bounds_check);
   out->bitcode_size = bc ? LLVMGetBufferSize(bc) : 0;
   out->bitcode = bc ? kiln_malloc(out->bitcode_size) : NULL;
   if (out->bitcode)
      memcpy(out->bitcode, LLVMGetBufferStart(bc), out->bitcode_size);
   if (bc)
      LLVMDisposeMemoryBuffer(bc);
   if (!out->bitcode || !out->target_id ||
       kiln_metadata_kernels(m, &out->kernels, &out->num_kernels)) {
      status = KILN_BUILD_OUT_OF_MEMORY;
      goto done;
   }
   tm = host_machine(&host, optimize, &log);
   if (!tm)
      goto done;
   LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
   char *dl = LLVMCopyStringRepOfTargetData(td);
   LLVMSetDataLayout(m, dl);
   LLVMDisposeMessage(dl);
   LLVMDisposeTargetData(td);

   LLVMSetTarget(m, host.triple);
   set_target_attributes(m, &host);
   kiln_internalize_non_kernels(m);
   /* Before anything optimises: x86 traps on a division by zero. */
   kiln_safe_divisions(m);
   /* Before check_undefined, which would take printf for libc's. */
   enum kiln_printf_lower_status pst =
      kiln_printf_lower(m, LLVMGetModuleDataLayout(m), KILN_PRINTF_FROM_WG_CTX, &log);
   if (pst != KILN_PRINTF_LOWER_OK) {
      status = pst == KILN_PRINTF_LOWER_OUT_OF_MEMORY ? KILN_BUILD_OUT_OF_MEMORY
                                                      : KILN_BUILD_FAILED;
      goto done;
   }
   if (!run_passes(m, tm, "globaldce", &log) || !check_undefined(m, &log))
      goto done;
   if (target->bounds_check) {
      /* Accesses through pointer parameters move into the kernels, where
       * SROA shows which argument each pointer comes from. */
      kiln_bounds_mark_inlining(m);
      struct kiln_bounds_stats stats;
      if (!run_passes(m, tm, "always-inline,globaldce,function(sroa)", &log))
         goto done;
      if (!kiln_bounds_instrument(m, out->kernels, out->num_kernels, &stats)) {
         status = KILN_BUILD_OUT_OF_MEMORY;
         goto done;
      }
      out->bounds_checked = stats.checked;
      out->bounds_searched = stats.searched;
   }
   enum kiln_build_status wst = build_workgroups(m, tm, out->kernels, out->num_kernels, &log, id);
   if (wst) {
      status = wst;
      goto done;
   }
   if (dump_dir())
      dump_module(id, "ll", m);
   if (!run_passes(m, tm, optimize ? "default<O3>" : "default<O0>,globaldce", &log))
      goto done;
   if (dump_dir())
      dump_module(id, "opt.ll", m);

   char *msg = NULL;
   LLVMMemoryBufferRef obj;
   if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMObjectFile, &msg, &obj)) {
      kiln_build_log_append(&log, "error: internal: code generation failed: %s\n", msg);
      LLVMDisposeMessage(msg);
      goto done;
   }
   out->object_size = LLVMGetBufferSize(obj);
   if (dump_dir())
      dump_bytes(id, "o", LLVMGetBufferStart(obj), out->object_size);
   out->object = kiln_malloc(out->object_size);
   if (out->object) {
      memcpy(out->object, LLVMGetBufferStart(obj), out->object_size);
      status = KILN_BUILD_OK;
   } else {
      status = KILN_BUILD_OUT_OF_MEMORY;
   }
   LLVMDisposeMemoryBuffer(obj);

done:
   if (tm)
      LLVMDisposeTargetMachine(tm);
   if (m)
      LLVMDisposeModule(m);
   LLVMContextDispose(c);
   kiln_llvm_host_fini(&host);
   kiln_build_options_fini(&opts);
   if (status == KILN_BUILD_FAILED && log.len == 0)
      kiln_build_log_append(&log, "error: the build failed for a reason Kiln did not record\n");
   if (dump_dir() && log.text)
      dump_bytes(id, "log", log.text, log.len);
   out->log = log.text;
   if (status != KILN_BUILD_OK) {
      char *keep = out->log;
      out->log = NULL;
      kiln_build_output_fini(out);
      out->log = keep;
   }
   return status;
}
