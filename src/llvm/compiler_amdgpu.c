/* The AMDGPU build pipeline:
 *   OpenCL C --clang, linking libclc's bitcode for the processor--> module
 *   --> O2 --> amdgcn ELF relocatable (one amd_kernel_code_t per kernel).
 *
 * ABI: amdgcn-mesa-mesa3d, not amdhsa.  Debian's libclc-19 reads
 * get_work_dim() and get_global_offset() as four u32s at the implicit
 * argument pointer, the layout clover defined for mesa3d; under amdhsa's
 * code object v5 that pointer leads to hidden_block_count_x instead, so
 * libclc's work-item functions would return wrong values.  docs/amdgpu.md
 * has the rest of the reasoning.
 */
#include "llvm/compiler.h"

#include <errno.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdio.h>
#include <string.h>

#include "kiln/kernel_info.h"
#include "llvm/amdgpu_target.h"
#include "llvm/build_log.h"
#include "llvm/build_options.h"
#include "llvm/clc_frontend.h"
#include "llvm/metadata.h"
#include "llvm/printf_lower.h"
#include "llvm/target.h"
#include "util/alloc.h"

#ifndef KILN_LIBCLC_DIR
#define KILN_LIBCLC_DIR "/usr/lib/clc"
#endif

char *kiln_llvm_amdgpu_target_id(const char *gfx)
{
   size_t n = strlen(gfx) + sizeof("amdgpu:" KILN_AMDGPU_TRIPLE ":");
   char *id = kiln_malloc(n);
   if (id)
      snprintf(id, n, "amdgpu:%s:%s", KILN_AMDGPU_TRIPLE, gfx);
   return id;
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

/* A kernel may call only what libclc defined and intrinsics: anything
 * else would be an unresolved symbol in the code object. */
static bool check_undefined(LLVMModuleRef m, struct kiln_build_log *log)
{
   bool ok = true;
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
      if (LLVMGetFirstBasicBlock(fn) || !LLVMGetFirstUse(fn))
         continue;
      size_t len;
      const char *name = LLVMGetValueName2(fn, &len);
      if (!strncmp(name, "llvm.", 5))
         continue;
      kiln_build_log_append(log, "error: undefined function '%s' (not in libclc for this GPU)\n",
                            name);
      ok = false;
   }
   return ok;
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

static bool copy_buffer(LLVMMemoryBufferRef buf, void **data, size_t *size)
{
   *size = LLVMGetBufferSize(buf);
   *data = kiln_malloc(*size ? *size : 1);
   if (*data)
      memcpy(*data, LLVMGetBufferStart(buf), *size);
   LLVMDisposeMemoryBuffer(buf);
   return *data != NULL;
}

/* Code generation for a loaded, linked module; status and log as the
 * build reports them. */
static enum kiln_build_status codegen(LLVMModuleRef m, const struct kiln_amdgpu_target *t,
                                      bool optimize, struct kiln_build_output *out,
                                      struct kiln_build_log *log)
{
   LLVMTargetRef target;
   char *msg = NULL;
   if (LLVMGetTargetFromTriple(KILN_AMDGPU_TRIPLE, &target, &msg)) {
      kiln_build_log_append(log, "error: internal: no LLVM target for %s: %s\n",
                            KILN_AMDGPU_TRIPLE, msg);
      LLVMDisposeMessage(msg);
      return KILN_BUILD_FAILED;
   }
   LLVMTargetMachineRef tm = LLVMCreateTargetMachine(
      target, KILN_AMDGPU_TRIPLE, t->gfx, "",
      optimize ? LLVMCodeGenLevelDefault : LLVMCodeGenLevelNone, LLVMRelocPIC,
      LLVMCodeModelDefault);
   if (!tm)
      return KILN_BUILD_OUT_OF_MEMORY;
   enum kiln_build_status st = KILN_BUILD_FAILED;
   /* libclc arrives linkonce_odr: internal, O2 may inline and drop it. */
   kiln_internalize_non_kernels(m);
   /* The records printf_lower.c writes would need a hidden buffer
    * argument and a host that reads GPU memory back (docs/printf.md). */
   if (kiln_printf_used(m)) {
      kiln_build_log_append(log, "error: printf is not supported on this device yet "
                                 "(Kiln prints only from the CPU device)\n");
      goto done;
   }
   if (!run_passes(m, tm, "globaldce", log) || !check_undefined(m, log))
      goto done;
   if (!run_passes(m, tm, optimize ? "default<O2>" : "default<O0>,globaldce", log))
      goto done;
   LLVMMemoryBufferRef obj;
   if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMObjectFile, &msg, &obj)) {
      kiln_build_log_append(log, "error: internal: code generation for %s failed: %s\n",
                            t->gfx, msg);
      LLVMDisposeMessage(msg);
      goto done;
   }
   st = copy_buffer(obj, &out->object, &out->object_size) ? KILN_BUILD_OK
                                                          : KILN_BUILD_OUT_OF_MEMORY;
done:
   LLVMDisposeTargetMachine(tm);
   return st;
}

enum kiln_build_status kiln_llvm_build_amdgpu(const char *source, size_t size,
                                              const char *options,
                                              const struct kiln_compile_target *target,
                                              const char *gfx, struct kiln_build_output *out)
{
   memset(out, 0, sizeof(*out));
   struct kiln_build_log log = {0};
   kiln_build_log_append(&log, "%s", "");
   enum kiln_build_status status = KILN_BUILD_FAILED;
   const struct kiln_amdgpu_target *t = kiln_amdgpu_target_find(gfx);

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
   if (!t) {
      kiln_build_options_fini(&opts);
      kiln_build_log_append(&log, "error: Kiln does not compile for AMD GPU '%s'\n",
                            gfx ? gfx : "(none)");
      out->log = log.text;
      return KILN_BUILD_FAILED;
   }
   if (target->bounds_check) {
      kiln_build_options_fini(&opts);
      kiln_build_log_append(&log, "error: KILN_CHECK=bounds is not implemented for AMD GPUs\n");
      out->log = log.text;
      return KILN_BUILD_FAILED;
   }

   char path[4096];
   snprintf(path, sizeof(path), "%s/%s-%s.bc", KILN_LIBCLC_DIR, t->libclc, KILN_AMDGPU_TRIPLE);
   void *libclc = NULL;
   size_t libclc_size = 0;
   int rerr = read_file(path, &libclc, &libclc_size);
   if (rerr) {
      kiln_build_options_fini(&opts);
      if (rerr == ENOMEM)
         status = KILN_BUILD_OUT_OF_MEMORY;
      else
         kiln_build_log_append(&log, "error: cannot read libclc's %s: %s (install libclc-19)\n",
                               path, strerror(rerr));
      out->log = log.text;
      return status;
   }

   kiln_llvm_init_targets();
   bool optimize = !(opts.flags & KILN_BUILD_OPT_DISABLE);
   LLVMContextRef c = LLVMContextCreate();
   LLVMModuleRef m = NULL;
   char *fe_log = NULL;
   struct kiln_clc_target ct = {
      .triple = KILN_AMDGPU_TRIPLE,
      .cpu = t->gfx,
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
   out->target_id = kiln_llvm_amdgpu_target_id(t->gfx);
   LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(m);
   if (!bc || !copy_buffer(bc, &out->bitcode, &out->bitcode_size) || !out->target_id ||
       kiln_metadata_kernels(m, &out->kernels, &out->num_kernels)) {
      status = KILN_BUILD_OUT_OF_MEMORY;
      goto done;
   }
   status = codegen(m, t, optimize, out, &log);

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
