/* The amdgcn target: an amdgcn-mesa-mesa3d ELF relocatable with one
 * amd_kernel_code_t-headed symbol per kernel, for src/pipe/amdgpu:
 *   module (libclc linked for the processor) --> (backend.c) O2 --> ELF.
 *
 * ABI: amdgcn-mesa-mesa3d, not amdhsa.  Debian's libclc-19 reads
 * get_work_dim() and get_global_offset() as four u32s at the implicit
 * argument pointer, the layout clover defined for mesa3d; under amdhsa's
 * code object v5 that pointer leads to hidden_block_count_x instead, so
 * libclc's work-item functions would return wrong values.  docs/amdgpu.md
 * has the rest of the reasoning.
 */
#include <stdio.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "llvm/amdgpu/amdgpu_target.h"
#include "llvm/backend.h"
#include "llvm/build_log.h"
#include "llvm/metadata.h"
#include "llvm/printf_lower.h"
#include "llvm/target_table.h"
#include "util/alloc.h"

static enum kiln_build_status amdgcn_resolve(const char *processor,
                                             struct kiln_llvm_machine *m,
                                             struct kiln_build_log *log)
{
   const struct kiln_amdgpu_target *t = kiln_amdgpu_target_find(processor);
   if (!t) {
      kiln_build_log_append(log, "error: Kiln does not compile for AMD GPU '%s'\n",
                            *processor ? processor : "(none)");
      return KILN_BUILD_FAILED;
   }
   char file[64];
   snprintf(file, sizeof(file), "%s-%s.bc", t->libclc, KILN_AMDGPU_TRIPLE);
   m->triple = kiln_strdup(KILN_AMDGPU_TRIPLE);
   m->cpu = kiln_strdup(t->gfx);
   m->features = kiln_strdup("");
   m->libclc = kiln_strdup(file);
   return KILN_BUILD_OK; /* allocation failures: kiln_llvm_machine_init */
}

static enum kiln_build_status amdgcn_lower(struct kiln_llvm_job *job)
{
   /* libclc arrives linkonce_odr: internal, O2 may inline and drop it. */
   kiln_internalize_non_kernels(job->m);
   /* The records printf_lower.c writes would need a hidden buffer
    * argument and a host that reads GPU memory back (docs/printf.md). */
   if (kiln_printf_used(job->m)) {
      kiln_build_log_append(job->log, "error: printf is not supported on this device yet "
                                      "(Kiln prints only from the CPU device)\n");
      return KILN_BUILD_FAILED;
   }
   /* A kernel may call only what libclc defined and intrinsics: anything
    * else would be an unresolved symbol in the code object. */
   if (!kiln_llvm_run_passes(job, "globaldce") ||
       !kiln_llvm_check_undefined(job, NULL, "not in libclc for this GPU", "libclc does not"))
      return KILN_BUILD_FAILED;
   return KILN_BUILD_OK;
}

const struct kiln_llvm_target kiln_llvm_target_amdgcn = {
   .name = "amdgcn",
   .id_name = "amdgpu",
   .triple = KILN_AMDGPU_TRIPLE,
   .resolve = amdgcn_resolve,
   .builtins = KILN_LLVM_BUILTINS_LIBCLC,
   .frontend_cpu = true,
   .bounds_check = false,
   .lower = amdgcn_lower,
   .passes = {"default<O0>,globaldce", "default<O2>"},
   .vectorize = false,
   .codegen_opt = LLVMCodeGenLevelDefault,
   .code_model = LLVMCodeModelDefault,
   .emit = LLVMObjectFile,
   .emit_ext = "o",
};
