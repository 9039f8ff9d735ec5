/* The CPU target: code for this process's CPU, run by the CPU driver
 * through the JIT (jit.h).  Its lower step turns each kernel into a
 * work-group function (workgroup.h) after the IR work x86 and the CPU
 * driver's ABI need:
 *   module --host CPU attributes, safe divisions, printf records,
 *   [bounds checks]--> work-group functions --> (backend.c) kept, and per
 *   kernel at its first use: O3 --> ELF (cpu_code.h).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

#include "kiln/devq_abi.h"
#include "kiln/kernel_info.h"
#include "llvm/backend.h"
#include "llvm/dump.h"
#include "llvm/build_log.h"
#include "llvm/cpu/bounds_check.h"
#include "llvm/cpu/cpu_code.h"
#include "llvm/cpu/jam_prefetch.h"
#include "llvm/cpu/jam_width.h"
#include "llvm/cpu/safe_div.h"
#include "llvm/cpu/stream_width.h"
#include "llvm/cpu/vector_width.h"
#include "llvm/cpu/wg_denormals.h"
#include "llvm/cpu/wg_interchange.h"
#include "llvm/cpu/wg_round_prefetch.h"
#include "llvm/cpu/workgroup.h"
#include "llvm/metadata.h"
#include "llvm/printf_lower.h"
#include "llvm/target.h"
#include "llvm/target_table.h"
#include "util/alloc.h"

/* The triple the builtins library is built for (src/llvm/builtins). */
#define KILN_CPU_TRIPLE "x86_64-unknown-linux-gnu"

static enum kiln_build_status cpu_resolve(const char *processor, struct kiln_llvm_machine *m,
                                          struct kiln_build_log *log)
{
   /* The JIT runs the code in this process: only this machine's CPU. */
   if (*processor) {
      kiln_build_log_append(log, "error: Kiln compiles CPU code only for this machine's "
                                 "CPU, not '%s'\n", processor);
      return KILN_BUILD_FAILED;
   }
   struct kiln_llvm_host host = {0};
   if (!kiln_llvm_host_query(&host))
      return KILN_BUILD_OUT_OF_MEMORY;
   m->triple = host.triple;
   m->cpu = host.cpu;
   m->features = host.features;
   /* The vector width the loop vectorizer prefers (KILN_CPU_VECTOR_WIDTH,
    * docs/env.md): part of the features, so that the compile cache and
    * program binaries tell the two kinds of code apart. */
   const char *invalid;
   const char *tune = kiln_cpu_vector_width_feature(host.features, &invalid);
   if (invalid)
      kiln_build_log_append(log, "warning: KILN_CPU_VECTOR_WIDTH=%s is not 256 or 512: "
                                 "ignored\n", invalid);
   if (tune) {
      size_t n = strlen(host.features) + strlen(tune) + 2;
      char *f = kiln_malloc(n);
      if (!f) {
         kiln_llvm_host_fini(&host);
         m->triple = m->cpu = m->features = NULL;
         return KILN_BUILD_OUT_OF_MEMORY;
      }
      snprintf(f, n, "%s%s%s", host.features, *host.features ? "," : "", tune);
      kiln_free(host.features);
      m->features = f;
   }
   /* KILN_JAM_PREFETCH (docs/env.md) changes the work-group functions:
    * part of the id, so that the compile cache and program binaries tell
    * the two kinds of code apart. */
   struct kiln_jam_prefetch pf = kiln_jam_prefetch_setting(&invalid);
   if (invalid)
      kiln_build_log_append(log, "warning: KILN_JAM_PREFETCH=%s is neither \"rows\", \"rows+F\" "
                                 "nor a number of bytes (F and the number up to %u): ignored (the "
                                 "default, rows, applies)\n",
                            invalid, KILN_JAM_PREFETCH_MAX);
   /* KILN_ROUND_PREFETCH likewise; the default leaves the id as it was. */
   unsigned ahead = kiln_wg_round_prefetch_setting(&invalid);
   if (invalid)
      kiln_build_log_append(log, "warning: KILN_ROUND_PREFETCH=%s is not a number of bytes up to "
                                 "%u: ignored (the default, %u, applies)\n",
                            invalid, KILN_ROUND_PREFETCH_MAX, KILN_ROUND_PREFETCH_DEFAULT);
   /* KILN_JAM_WIDTH likewise; 8 leaves the id as it was (the CPU's name,
    * on which the default depends, is in the id already). */
   unsigned jam = kiln_jam_width(&invalid);
   if (invalid)
      kiln_build_log_append(log, "warning: KILN_JAM_WIDTH=%s is not 8 or 16: ignored (this "
                                 "CPU's default, %u, applies)\n",
                            invalid, jam);
   char id[64] = "";
   /* "rows": the distance follows the rows (jam_prefetch.h), a token of
    * its own so that code built with the former fixed default (2048) is
    * refused; "+F" where the far prefetch is not the default's.  Code of
    * the default before it had a far prefetch is still "rows": it runs
    * the same, only slower. */
   if (pf.kind == KILN_JAM_PREFETCH_ROWS && pf.far == KILN_JAM_PREFETCH_FAR_DEFAULT)
      snprintf(id, sizeof(id), "jam-prefetch=rows");
   else if (pf.kind == KILN_JAM_PREFETCH_ROWS)
      snprintf(id, sizeof(id), "jam-prefetch=rows+%u", pf.far);
   else if (pf.kind == KILN_JAM_PREFETCH_FIXED)
      snprintf(id, sizeof(id), "jam-prefetch=%u", pf.bytes);
   if (ahead != KILN_ROUND_PREFETCH_DEFAULT)
      snprintf(id + strlen(id), sizeof(id) - strlen(id), "%sround-prefetch=%u", *id ? "," : "", ahead);
   if (jam != KILN_JAM_WIDTH_MIN)
      snprintf(id + strlen(id), sizeof(id) - strlen(id), "%sjam-width=%u", *id ? "," : "", jam);
   /* kiln_llvm_machine_init frees the rest. */
   if (*id && !(m->codegen = kiln_strdup(id)))
      return KILN_BUILD_OUT_OF_MEMORY;
   return KILN_BUILD_OK;
}

/* Work-item functions are replaced by the work-group pass; C library
 * functions (sinf, pow, ...) are resolved by the JIT from the process. */
static bool cpu_provided(const char *name)
{
   /* The device-side enqueue run-time (include/kiln/devq_abi.h), which
    * the driver defines for the JIT. */
   return kiln_wg_is_work_item_function(name) ||
          !strncmp(name, KILN_DEVQ_PREFIX, strlen(KILN_DEVQ_PREFIX)) ||
          (strncmp(name, "_Z", 2) && dlsym(RTLD_DEFAULT, name));
}

/* Builtins are compiled for a generic x86-64; give every function the
 * host's CPU and features so nothing is held back to SSE2. */
static void set_target_attributes(LLVMModuleRef m, const struct kiln_llvm_machine *mach)
{
   LLVMContextRef c = LLVMGetModuleContext(m);
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
      if (!LLVMGetFirstBasicBlock(fn))
         continue;
      LLVMRemoveStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, "target-cpu", 10);
      LLVMRemoveStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, "target-features", 15);
      LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                              LLVMCreateStringAttribute(c, "target-cpu", 10, mach->cpu,
                                                        (unsigned)strlen(mach->cpu)));
      LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                              LLVMCreateStringAttribute(c, "target-features", 15, mach->features,
                                                        (unsigned)strlen(mach->features)));
   }
}

/* Work-group functions for every kernel; kernels become internal so the
 * optimiser drops them once inlined.  KILN_BUILD_FAILED has a log line. */
static enum kiln_build_status build_workgroups(struct kiln_llvm_job *job)
{
   LLVMModuleRef m = job->m;
   struct kiln_kernel_info *kernels = job->out->kernels;
   unsigned n = job->out->num_kernels;
   LLVMValueRef *kfn = kiln_calloc(n ? n : 1, sizeof(*kfn));
   LLVMValueRef *wg = kiln_calloc(n ? n : 1, sizeof(*wg));
   enum kiln_build_status st = kfn && wg ? KILN_BUILD_OK : KILN_BUILD_OUT_OF_MEMORY;
   unsigned i = 0;
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); !st && fn; fn = LLVMGetNextFunction(fn))
      if (kiln_is_kernel(fn))
         kfn[i++] = fn;
   kiln_wg_mark_inlining(m);
   /* Kernels that only stream prefer 256-bit vectors where that pays
    * (stream_width.h), judged on their own code. */
   bool narrow = kiln_cpu_stream_narrow(job->machine->cpu, job->machine->features);
   for (i = 0; !st && i < n; i++) {
      if (narrow && kiln_kernel_only_streams(kfn[i]))
         kiln_wg_prefer_256(kfn[i]);
      if (!(wg[i] = kiln_wg_create(m, kfn[i], &kernels[i])))
         st = KILN_BUILD_OUT_OF_MEMORY;
   }
   /* SROA turns the kernels' variables (argument copies, loop counters)
    * into values, which barriers then carry only where they must. */
   if (!st && !kiln_llvm_run_passes(job, "always-inline,function(sroa,early-cse)"))
      st = KILN_BUILD_FAILED;
   bool barriers = false;
   for (i = 0; !st && i < n; i++) {
      /* Marked loops get barriers in kiln_wg_finish (wg_interchange.h). */
      bool interchange = job->optimize && kiln_wg_mark_interchange(wg[i]);
      if (kiln_wg_has_barrier(wg[i]) || interchange) {
         barriers = true;
         /* Barriers first: a work-item value used after a barrier in
          * the barrier's own block (`l = get_local_id(0); barrier(...);
          * if (n > l)`) is then used in another block, and recomputed
          * there instead of carried in a slot (wg_trim.c needs the local
          * id itself in a region's test). */
         kiln_wg_isolate_barriers(wg[i]);
         kiln_wg_rematerialize(wg[i]);
      }
   }
   /* Barriers need every value that crosses a block in memory, where
    * the work-group pass can give each work-item its own copy. */
   if (!st && barriers && !kiln_llvm_run_passes(job, "function(reg2mem)"))
      st = KILN_BUILD_FAILED;
   for (i = 0; !st && i < n; i++) {
      enum kiln_wg_status ws = kiln_wg_finish(m, wg[i], &kernels[i]);
      if (ws == KILN_WG_OUT_OF_MEMORY) {
         st = KILN_BUILD_OUT_OF_MEMORY;
      } else if (ws != KILN_WG_OK) {
         kiln_llvm_dump_module(job->dump, "failed.ll", m);
         kiln_build_log_append(job->log, "error: kernel '%s': cannot arrange its barriers "
                                         "for the CPU device\n", kernels[i].name);
         st = KILN_BUILD_FAILED;
      }
   }
   for (i = 0; !st && i < n; i++)
      if (kiln_wg_prefers_256(kfn[i]))
         kiln_wg_prefer_256(wg[i]);
   /* -cl-denorms-are-zero: x86 code ignores the kernel's attribute. */
   for (i = 0; !st && i < n; i++)
      if (kiln_wg_flushes_denormals(kfn[i]))
         kiln_wg_flush_denormals(m, wg[i]);
   for (i = 0; !st && i < n; i++)
      LLVMSetLinkage(kfn[i], LLVMInternalLinkage);
   kiln_free(kfn);
   kiln_free(wg);
   return st;
}

static enum kiln_build_status cpu_lower(struct kiln_llvm_job *job)
{
   LLVMModuleRef m = job->m;
   set_target_attributes(m, job->machine);
   kiln_internalize_non_kernels(m);
   /* Before anything optimises: x86 traps on a division by zero. */
   kiln_safe_divisions(m);
   /* Before check_undefined, which would take printf for libc's. */
   enum kiln_printf_lower_status pst =
      kiln_printf_lower(m, LLVMGetModuleDataLayout(m), KILN_PRINTF_FROM_WG_CTX, job->log);
   if (pst != KILN_PRINTF_LOWER_OK)
      return pst == KILN_PRINTF_LOWER_OUT_OF_MEMORY ? KILN_BUILD_OUT_OF_MEMORY
                                                    : KILN_BUILD_FAILED;
   if (!kiln_llvm_run_passes(job, "globaldce") ||
       !kiln_llvm_check_undefined(job, cpu_provided,
                                  "not an OpenCL C 1.1 builtin Kiln provides",
                                  "it is not an OpenCL C builtin Kiln provides"))
      return KILN_BUILD_FAILED;
   if (job->target->bounds_check) {
      /* Accesses through pointer parameters move into the kernels, where
       * SROA shows which argument each pointer comes from. */
      kiln_bounds_mark_inlining(m);
      struct kiln_bounds_stats stats;
      if (!kiln_llvm_run_passes(job, "always-inline,globaldce,function(sroa)"))
         return KILN_BUILD_FAILED;
      if (!kiln_bounds_instrument(m, job->out->kernels, job->out->num_kernels, &stats))
         return KILN_BUILD_OUT_OF_MEMORY;
      job->out->bounds_checked = stats.checked;
      job->out->bounds_searched = stats.searched;
   }
   return build_workgroups(job);
}

/* The work-group functions' stack, as the optimiser left them; and stack
 * probes in every function, so that a frame larger than what is left of
 * a worker's stack faults on its guard page instead of reaching past it
 * into other memory (the driver refuses launches it knows do not fit;
 * the probes guard the rest: frames of functions outside the module). */
static enum kiln_build_status cpu_optimized(struct kiln_llvm_job *job)
{
   kiln_wg_round_prefetch_lower(job->m);
   LLVMContextRef c = LLVMGetModuleContext(job->m);
   for (LLVMValueRef fn = LLVMGetFirstFunction(job->m); fn; fn = LLVMGetNextFunction(fn))
      if (LLVMGetFirstBasicBlock(fn))
         LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                                 LLVMCreateStringAttribute(c, "probe-stack", 11, "inline-asm", 10));
   return kiln_wg_measure_stack(job->m) ? KILN_BUILD_OK : KILN_BUILD_OUT_OF_MEMORY;
}

const struct kiln_llvm_target kiln_llvm_target_cpu = {
   .name = "cpu",
   .id_name = "cpu",
   .triple = KILN_CPU_TRIPLE,
   .resolve = cpu_resolve,
   .builtins = KILN_LLVM_BUILTINS_KILN,
   .frontend_cpu = false,
   .bounds_check = true,
   .spirv = true,
   .lower = cpu_lower,
   .passes = {"default<O0>,globaldce", "default<O3>"},
   .optimized = cpu_optimized,
   .defer = kiln_cpu_code_defer,
   .vectorize = true,
   .codegen_opt = LLVMCodeGenLevelAggressive,
   .code_model = LLVMCodeModelSmall,
   .emit = LLVMObjectFile,
   .emit_ext = "o",
};
