/* The NVPTX build pipeline:
 *   OpenCL C --clang (nvptx64-nvidia-cuda, the device's sm), linking
 *   libclc's nvptx64 bitcode--> module --> __constant as global memory
 *   --> kernel ABI of nvptx_abi.h (__local offsets, hidden parameters,
 *   Kiln's work-item functions and 64-bit atomics) --> O3 --> PTX text.
 * The PTX is what the CUDA driver loads (cuModuleLoadDataEx JIT-compiles
 * it for the exact GPU); no cubin is made here, as no LLVM tool can. */
#include "llvm/nvptx/nvptx_compiler.h"

#include <errno.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdio.h>
#include <string.h>

#include "kiln/kernel_info.h"
#include "llvm/build_log.h"
#include "llvm/build_options.h"
#include "llvm/clc_frontend.h"
#include "llvm/metadata.h"
#include "llvm/nvptx/nvptx_abi.h"
#include "llvm/nvptx/nvptx_atomics.h"
#include "llvm/nvptx/nvptx_backend.h"
#include "llvm/nvptx/nvptx_constant.h"
#include "llvm/nvptx/nvptx_kernel_abi.h"
#include "llvm/nvptx/nvptx_target.h"
#include "llvm/printf_lower.h"
#include "llvm/target.h"
#include "util/alloc.h"

#ifndef KILN_LIBCLC_DIR
#define KILN_LIBCLC_DIR "/usr/lib/clc"
#endif
/* libclc's OpenCL flavour for 64-bit PTX (nvptx64--.bc is the same code
 * without the OpenCL work-item functions' nvidiacl mapping). */
#define LIBCLC_FILE "nvptx64--nvidiacl.bc"

char *kiln_llvm_nvptx_target_id(const char *sm)
{
   size_t n = strlen(sm) + sizeof("nvptx:" KILN_NVPTX_TRIPLE ":");
   char *id = kiln_malloc(n);
   if (id)
      snprintf(id, n, "nvptx:%s:%s", KILN_NVPTX_TRIPLE, sm);
   return id;
}

static const struct kiln_nvptx_target *find_target(const char *sm, struct kiln_build_log *log)
{
   const struct kiln_nvptx_target *t = kiln_nvptx_target_find(sm);
   if (!t)
      kiln_build_log_append(log, "error: Kiln does not compile for NVIDIA GPU '%s'\n",
                            sm ? sm : "(none)");
   return t;
}

void kiln_llvm_nvptx_clc_features(const struct kiln_nvptx_target *t, char *features, size_t size)
{
   snprintf(features, size, "+ptx%u", t->ptx);
}

/* Reads a whole file; 0 on success, else an errno value. */
static int read_file(const char *path, void **data, size_t *size)
{
   FILE *f = fopen(path, "rb");
   if (!f)
      return errno ? errno : EIO;
   int err = 0;
   long len = -1;
   if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
      err = EIO;
   void *buf = err ? NULL : kiln_malloc(len ? (size_t)len : 1);
   if (!err && !buf)
      err = ENOMEM;
   if (!err && fread(buf, 1, (size_t)len, f) != (size_t)len)
      err = EIO;
   fclose(f);
   if (err) {
      kiln_free(buf);
      return err;
   }
   *data = buf;
   *size = (size_t)len;
   return 0;
}

enum kiln_build_status kiln_llvm_nvptx_libclc(void **data, size_t *size,
                                              struct kiln_build_log *log)
{
   const char *path = KILN_LIBCLC_DIR "/" LIBCLC_FILE;
   int err = read_file(path, data, size);
   if (err == ENOMEM)
      return KILN_BUILD_OUT_OF_MEMORY;
   if (err) {
      kiln_build_log_append(log, "error: cannot read libclc's %s: %s (install libclc-19)\n",
                            path, strerror(err));
      return KILN_BUILD_FAILED;
   }
   return KILN_BUILD_OK;
}

/* A kernel may call only what libclc and Kiln define, and intrinsics:
 * anything else would be an unresolved symbol the CUDA JIT rejects with a
 * far less helpful message. */
static bool check_undefined(LLVMModuleRef m, bool linked, struct kiln_build_log *log)
{
   bool ok = true;
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
      if (LLVMGetFirstBasicBlock(fn) || !LLVMGetFirstUse(fn))
         continue;
      size_t len;
      const char *name = LLVMGetValueName2(fn, &len);
      if (!strncmp(name, "llvm.", 5))
         continue;
      kiln_build_log_append(log,
                            linked ? "error: unresolved symbol '%s': no program given to "
                                     "clLinkProgram defines it, and libclc does not\n"
                                   : "error: undefined function '%s' (not in libclc for "
                                     "NVIDIA GPUs)\n",
                            name);
      ok = false;
   }
   return ok;
}

/* What the PTX ABI has no room for yet: said once per kernel argument, so
 * that the log names what to change. */
static bool check_supported(LLVMModuleRef m, const struct kiln_kernel_info *k, unsigned n,
                            struct kiln_build_log *log)
{
   bool ok = true;
   for (unsigned i = 0; i < n; i++)
      for (uint32_t a = 0; a < k[i].num_args; a++) {
         enum kiln_arg_kind kind = k[i].args[a].kind;
         if (!kiln_arg_is_image(kind) && kind != KILN_ARG_SAMPLER)
            continue;
         kiln_build_log_append(log,
                               "error: kernel '%s', argument '%s': %s are not supported on "
                               "NVIDIA GPUs yet\n",
                               k[i].name, k[i].args[a].name ? k[i].args[a].name : "?",
                               kind == KILN_ARG_SAMPLER ? "samplers" : "images");
         ok = false;
      }
   if (kiln_printf_used(m)) {
      /* printf_lower.c's records need a hidden buffer and a host that
       * reads it back after the launch (docs/printf.md). */
      kiln_build_log_append(log, "error: printf is not supported on NVIDIA GPUs yet "
                                 "(Kiln prints only from the CPU device)\n");
      ok = false;
   }
   return ok;
}

/* Bytes of static __local variables each kernel uses itself (OpenCL 1.2
 * declares them only at kernel scope): CL_KERNEL_LOCAL_MEM_SIZE before
 * the driver has the module's own count. */
static uint64_t used_by(LLVMValueRef user, LLVMValueRef fn, unsigned depth)
{
   if (LLVMIsAInstruction(user))
      return LLVMGetBasicBlockParent(LLVMGetInstructionParent(user)) == fn;
   if (!LLVMIsAConstantExpr(user) || depth > 8)
      return 0;
   for (LLVMUseRef u = LLVMGetFirstUse(user); u; u = LLVMGetNextUse(u))
      if (used_by(LLVMGetUser(u), fn, depth + 1))
         return 1;
   return 0;
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

static bool run_passes(LLVMModuleRef m, LLVMTargetMachineRef tm, const char *passes,
                       struct kiln_build_log *log)
{
   LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
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

/* Bitcode as it is; PTX with a NUL after it (nvptx_abi.h). */
static bool copy_buffer(LLVMMemoryBufferRef buf, bool nul, void **data, size_t *size)
{
   size_t len = LLVMGetBufferSize(buf);
   *size = len + (nul ? 1 : 0);
   *data = kiln_malloc(*size ? *size : 1);
   if (*data) {
      memcpy(*data, LLVMGetBufferStart(buf), len);
      if (nul)
         ((char *)*data)[len] = 0;
   }
   LLVMDisposeMemoryBuffer(buf);
   return *data != NULL;
}

static enum kiln_build_status codegen(LLVMModuleRef front, const struct kiln_nvptx_target *t,
                                      bool optimize, bool linked, struct kiln_build_output *out,
                                      struct kiln_build_log *log)
{
   LLVMTargetRef target;
   char *msg = NULL;
   if (LLVMGetTargetFromTriple(KILN_NVPTX_TRIPLE, &target, &msg)) {
      kiln_build_log_append(log, "error: internal: no LLVM target for %s: %s\n",
                            KILN_NVPTX_TRIPLE, msg);
      LLVMDisposeMessage(msg);
      return KILN_BUILD_FAILED;
   }
   char features[16];
   kiln_llvm_nvptx_clc_features(t, features, sizeof(features));
   LLVMTargetMachineRef tm = LLVMCreateTargetMachine(
      target, KILN_NVPTX_TRIPLE, t->llvm_cpu, features,
      optimize ? LLVMCodeGenLevelAggressive : LLVMCodeGenLevelNone, LLVMRelocDefault,
      LLVMCodeModelDefault);
   if (!tm)
      return KILN_BUILD_OUT_OF_MEMORY;
   /* Work on a copy with __constant in global memory (nvptx_constant.c);
    * the caller's m stays the front end's module. */
   LLVMModuleRef own = NULL;
   enum kiln_build_status st = kiln_nvptx_constant_as_global(front, &own, log);
   if (st != KILN_BUILD_OK) {
      LLVMDisposeTargetMachine(tm);
      return st;
   }
   LLVMModuleRef m = own;
   st = KILN_BUILD_FAILED;
   kiln_nvptx_define_atomics64(m);
   kiln_nvptx_define_work_items(m);
   if (!kiln_nvptx_lower_kernels(m)) {
      st = KILN_BUILD_OUT_OF_MEMORY;
      goto done;
   }
   /* libclc arrives linkonce_odr, kernel bodies as plain functions now:
    * internal, so O3 inlines and drops them. */
   kiln_internalize_non_kernels(m);
   if (!run_passes(m, tm, "globaldce", log) || !check_undefined(m, linked, log))
      goto done;
   /* Kernel bodies and work-item functions are always-inline: once they
    * are in their entries, the hidden values come from the parameters. */
   if (!run_passes(m, tm, "always-inline", log))
      goto done;
   kiln_nvptx_forward_hidden(m);
   if (!run_passes(m, tm, optimize ? "default<O3>" : "default<O0>,globaldce", log))
      goto done;
   LLVMMemoryBufferRef ptx;
   if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMAssemblyFile, &msg, &ptx)) {
      kiln_build_log_append(log, "error: internal: PTX generation for %s failed: %s\n", t->sm,
                            msg);
      LLVMDisposeMessage(msg);
      goto done;
   }
   st = copy_buffer(ptx, true, &out->object, &out->object_size) ? KILN_BUILD_OK
                                                               : KILN_BUILD_OUT_OF_MEMORY;
done:
   LLVMDisposeModule(own);
   LLVMDisposeTargetMachine(tm);
   return st;
}

enum kiln_build_status kiln_llvm_nvptx_finish(LLVMModuleRef m, const char *sm, bool optimize,
                                              bool linked, struct kiln_build_output *out,
                                              struct kiln_build_log *log)
{
   const struct kiln_nvptx_target *t = find_target(sm, log);
   if (!t)
      return KILN_BUILD_FAILED;
   kiln_llvm_init_targets();
   out->target_id = kiln_llvm_nvptx_target_id(t->sm);
   LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(m);
   if (!bc || !copy_buffer(bc, false, &out->bitcode, &out->bitcode_size) || !out->target_id ||
       kiln_metadata_kernels(m, &out->kernels, &out->num_kernels))
      return KILN_BUILD_OUT_OF_MEMORY;
   static_local_sizes(m, out->kernels, out->num_kernels);
   if (!check_supported(m, out->kernels, out->num_kernels, log))
      return KILN_BUILD_FAILED;
   return codegen(m, t, optimize, linked, out, log);
}

static enum kiln_build_status fail(struct kiln_build_options *opts, struct kiln_build_log *log,
                                   struct kiln_build_output *out, enum kiln_build_status st)
{
   kiln_build_options_fini(opts);
   out->log = log->text;
   return st;
}

enum kiln_build_status kiln_llvm_build_nvptx(const char *source, size_t size,
                                             const char *options,
                                             const struct kiln_compile_target *target,
                                             const char *sm, struct kiln_build_output *out)
{
   memset(out, 0, sizeof(*out));
   struct kiln_build_log log = {0};
   kiln_build_log_append(&log, "%s", "");
   const struct kiln_nvptx_target *t = kiln_nvptx_target_find(sm);

   struct kiln_build_options opts;
   char reason[KILN_BUILD_OPTIONS_REASON_SIZE] = "";
   enum kiln_build_options_status ost =
      kiln_build_options_parse(options, (enum kiln_cl_std)target->opencl_version, &opts, reason,
                               sizeof(reason));
   if (ost != KILN_BUILD_OPTIONS_OK) {
      kiln_build_log_append(&log, "error: invalid build options: %s\n", reason);
      return fail(&opts, &log, out,
                  ost == KILN_BUILD_OPTIONS_INVALID ? KILN_BUILD_INVALID_OPTIONS
                                                    : KILN_BUILD_OUT_OF_MEMORY);
   }
   if (!find_target(sm, &log))
      return fail(&opts, &log, out, KILN_BUILD_FAILED);
   if (target->bounds_check) {
      kiln_build_log_append(&log,
                            "error: KILN_CHECK=bounds is not implemented for NVIDIA GPUs\n");
      return fail(&opts, &log, out, KILN_BUILD_FAILED);
   }

   void *libclc = NULL;
   size_t libclc_size = 0;
   enum kiln_build_status status = kiln_llvm_nvptx_libclc(&libclc, &libclc_size, &log);
   if (status)
      return fail(&opts, &log, out, status);

   kiln_llvm_init_targets();
   bool optimize = !(opts.flags & KILN_BUILD_OPT_DISABLE);
   char features[16];
   kiln_llvm_nvptx_clc_features(t, features, sizeof(features));
   LLVMContextRef c = LLVMContextCreate();
   LLVMModuleRef m = NULL;
   char *fe_log = NULL;
   struct kiln_clc_target ct = {
      .triple = KILN_NVPTX_TRIPLE,
      .cpu = t->llvm_cpu,
      .features = features,
      .link_bitcode = libclc,
      .link_bitcode_size = libclc_size,
      .cl_ext = target->cl_ext,
      .opencl_version = target->opencl_version,
      .image_support = target->image_support,
   };
   /* The included files go into the compile cache's key check (docs/cache.md). */
   enum kiln_clc_status fst =
      kiln_clc_compile_deps(source, size, &opts, &ct, c, &m, &fe_log, &out->deps, &out->num_deps);
   kiln_free(libclc);
   if (fe_log)
      kiln_build_log_append(&log, "%s", fe_log);
   kiln_free(fe_log);
   if (fst != KILN_CLC_OK) {
      status = fst == KILN_CLC_OUT_OF_MEMORY ? KILN_BUILD_OUT_OF_MEMORY : KILN_BUILD_FAILED;
      goto done;
   }
   if (!(opts.flags & KILN_BUILD_KERNEL_ARG_INFO))
      kiln_metadata_hide_arg_info(m);
   status = kiln_llvm_nvptx_finish(m, t->sm, optimize, false, out, &log);

done:
   if (m)
      LLVMDisposeModule(m);
   LLVMContextDispose(c);
   kiln_build_options_fini(&opts);
   if (status == KILN_BUILD_FAILED && log.len == 0)
      kiln_build_log_append(&log, "error: the build failed for a reason Kiln did not record\n");
   out->log = log.text;
   if (status != KILN_BUILD_OK) {
      char *keep = out->log;
      out->log = NULL;
      kiln_build_output_fini(out);
      out->log = keep;
   }
   return status;
}
