/* The nvptx target: PTX text for src/pipe/cuda, whose driver JIT-compiles
 * it for the exact GPU (cuModuleLoadDataEx; no LLVM tool makes a cubin):
 *   module (libclc's nvptx64--nvidiacl linked) --> __constant as global
 *   memory --> kernel ABI of nvptx_abi.h (__local offsets, hidden
 *   parameters, Kiln's work-item functions, 64-bit atomics, mad_hi,
 *   native_* math as PTX's approximate instructions, signed zeros of odd
 *   functions) --> (backend.c) O3 --> no intrinsic the code generator
 *   cannot select (nvptx_math.c), no load it compiles wrongly
 *   (nvptx_loads.c) --> PTX.
 * printf calls become records in a buffer (printf_lower.c, a hidden
 * parameter) and the format table a global the driver reads back.
 * Images are linear memory read through a struct kiln_image_desc in
 * device memory (the CPU's image.cl, compiled for nvptx64 and linked
 * before libclc); samplers are their CLK_* bits.  KILN_CHECK=bounds is
 * refused by the table (bounds_check). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

#include "kiln/kernel_info.h"
#include "kiln/printf.h"
#include "llvm/builtins.h"
#include "llvm/backend.h"
#include "llvm/build_log.h"
#include "llvm/metadata.h"
#include "llvm/nvptx/nvptx_abi.h"
#include "llvm/nvptx/nvptx_atomics.h"
#include "llvm/nvptx/nvptx_builtins.h"
#include "llvm/nvptx/nvptx_constant.h"
#include "llvm/nvptx/nvptx_kernel_abi.h"
#include "llvm/nvptx/nvptx_compare.h"
#include "llvm/nvptx/nvptx_loads.h"
#include "llvm/nvptx/nvptx_math.h"
#include "llvm/nvptx/nvptx_target.h"
#include "llvm/printf_lower.h"
#include "llvm/target_table.h"
#include "util/alloc.h"

/* libclc's OpenCL flavour for 64-bit PTX (nvptx64--.bc is the same code
 * without the OpenCL work-item functions' nvidiacl mapping). */
#define LIBCLC_FILE "nvptx64--nvidiacl.bc"

/* The device's sm to LLVM's processor and the PTX ISA as a feature
 * ("+ptx78"): both are in the target id, so two sm that get the same PTX
 * (sm_100 and sm_120 both get sm_90's) share binaries and cache entries. */
static enum kiln_build_status nvptx_resolve(const char *processor, struct kiln_llvm_machine *m,
                                            struct kiln_build_log *log)
{
   const struct kiln_nvptx_target *t = kiln_nvptx_target_find(processor);
   if (!t) {
      kiln_build_log_append(log, "error: Kiln does not compile for NVIDIA GPU '%s'\n",
                            *processor ? processor : "(none)");
      return KILN_BUILD_FAILED;
   }
   char features[16];
   snprintf(features, sizeof(features), "+ptx%u", t->ptx);
   m->triple = kiln_strdup(KILN_NVPTX_TRIPLE);
   m->cpu = kiln_strdup(t->llvm_cpu);
   m->features = kiln_strdup(features);
   m->libclc = kiln_strdup(LIBCLC_FILE);
   return KILN_BUILD_OK; /* allocation failures: kiln_llvm_machine_init */
}

/* Bytes of static __local variables each kernel uses itself (OpenCL 1.2
 * declares them only at kernel scope): CL_KERNEL_LOCAL_MEM_SIZE before
 * the driver has the module's own count. */
static bool used_by(LLVMValueRef user, LLVMValueRef fn, unsigned depth)
{
   if (LLVMIsAInstruction(user))
      return LLVMGetBasicBlockParent(LLVMGetInstructionParent(user)) == fn;
   if (!LLVMIsAConstantExpr(user) || depth > 8)
      return false;
   for (LLVMUseRef u = LLVMGetFirstUse(user); u; u = LLVMGetNextUse(u))
      if (used_by(LLVMGetUser(u), fn, depth + 1))
         return true;
   return false;
}

static void static_local_sizes(LLVMModuleRef m, struct kiln_kernel_info *k, unsigned n)
{
   LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
   for (unsigned i = 0; i < n; i++) {
      LLVMValueRef fn = LLVMGetNamedFunction(m, k[i].name);
      if (!fn)
         continue;
      uint64_t total = 0;
      for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
         if (LLVMIsDeclaration(g) || LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != 3)
            continue;
         for (LLVMUseRef u = LLVMGetFirstUse(g); u; u = LLVMGetNextUse(u))
            if (used_by(LLVMGetUser(u), fn, 0)) {
               total += LLVMABISizeOfType(td, LLVMGlobalGetValueType(g));
               break;
            }
      }
      k[i].local_mem_size = total;
   }
}

static enum kiln_build_status nvptx_lower(struct kiln_llvm_job *job)
{
   struct kiln_build_output *out = job->out;
   static_local_sizes(job->m, out->kernels, out->num_kernels);
   /* Code generation works on a copy with __constant in global memory
    * (nvptx_constant.c); backend.c disposes of it. */
   LLVMModuleRef own = NULL;
   enum kiln_build_status st = kiln_nvptx_constant_as_global(job->m, &own, job->log);
   if (st)
      return st;
   job->m = own;
   /* printf calls become records in a buffer a hidden parameter gives
    * (nvptx_abi.h); before the work-item functions are defined, since the
    * records call get_global_id. */
   enum kiln_printf_lower_status pst =
      kiln_printf_lower(own, LLVMGetModuleDataLayout(own), KILN_PRINTF_FROM_FN, job->log);
   if (pst != KILN_PRINTF_LOWER_OK)
      return pst == KILN_PRINTF_LOWER_OUT_OF_MEMORY ? KILN_BUILD_OUT_OF_MEMORY : KILN_BUILD_FAILED;
   kiln_nvptx_define_printf_buffer(own);
   kiln_nvptx_define_atomics64(own);
   kiln_nvptx_define_builtins(own);
   kiln_nvptx_lower_native_math(own);
   kiln_nvptx_keep_signed_zeros(own);
   kiln_nvptx_fix_libclc_results(own);
   kiln_nvptx_define_work_items(own);
   if (!kiln_nvptx_lower_kernels(own))
      return KILN_BUILD_OUT_OF_MEMORY;
   /* libclc arrives linkonce_odr, kernel bodies as plain functions now:
    * internal, so O3 inlines and drops them. */
   kiln_internalize_non_kernels(own);
   /* ... except the printf table, which the driver reads from the module
    * (cuModuleGetGlobal) and no code refers to. */
   LLVMValueRef table = LLVMGetNamedGlobal(own, KILN_PRINTF_TABLE_SYM);
   if (table)
      LLVMSetLinkage(table, LLVMExternalLinkage);
   /* A kernel may call only what libclc and Kiln define, and intrinsics:
    * anything else would be an unresolved symbol the CUDA JIT rejects
    * with a far less helpful message. */
   if (!kiln_llvm_run_passes(job, "globaldce") ||
       !kiln_llvm_check_undefined(job, NULL, "not in libclc for NVIDIA GPUs", "libclc does not"))
      return KILN_BUILD_FAILED;
   /* Kernel bodies and work-item functions are always-inline: once they
    * are in their entries, the hidden values come from the parameters. */
   if (!kiln_llvm_run_passes(job, "always-inline"))
      return KILN_BUILD_FAILED;
   kiln_nvptx_forward_hidden(own);
   return KILN_BUILD_OK;
}

/* After the optimiser: nothing the code generator would abort on or
 * compile wrongly. */
static enum kiln_build_status nvptx_check(struct kiln_llvm_job *job)
{
   kiln_nvptx_split_byte_vector_loads(job->m);
   kiln_nvptx_scalarize_i16_compares(job->m);
   return kiln_nvptx_check_selectable(job->m, job->log) ? KILN_BUILD_OK : KILN_BUILD_FAILED;
}

const struct kiln_llvm_target kiln_llvm_target_nvptx = {
   .name = "nvptx",
   .id_name = "nvptx",
   .triple = KILN_NVPTX_TRIPLE,
   .resolve = nvptx_resolve,
   .builtins = KILN_LLVM_BUILTINS_LIBCLC,
   .builtins_first = kiln_builtins_nvptx_bitcode,
   .frontend_cpu = true,
   .bounds_check = false,
   .lower = nvptx_lower,
   .passes = {"default<O0>,globaldce", "default<O3>"},
   .optimized = nvptx_check,
   .vectorize = false,
   .codegen_opt = LLVMCodeGenLevelAggressive,
   .code_model = LLVMCodeModelDefault,
   .emit = LLVMAssemblyFile,
   .emit_ext = "ptx",
};
