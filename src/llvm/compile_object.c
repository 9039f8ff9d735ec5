/* clCompileProgram's half of separate compilation: OpenCL C source and
 * its input headers through the same front end as a build, stopped before
 * code generation.  The compiled object is the front end's module as
 * bitcode, with the device's builtins already linked in (internal, so two
 * objects never clash over them) and every user function and global still
 * external, for clLinkProgram (link.c) to resolve. */
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <stdio.h>
#include <string.h>

#include "llvm/amdgpu_target.h"
#include "llvm/backend.h"
#include "llvm/build_log.h"
#include "llvm/build_options.h"
#include "llvm/builtins.h"
#include "llvm/clc_frontend.h"
#include "llvm/compiler.h"
#include "llvm/metadata.h"
#include "llvm/target.h"
#include "util/alloc.h"

enum kiln_build_status kiln_llvm_compile(const char *source, size_t size, const char *options,
                                         const struct kiln_header *headers,
                                         unsigned num_headers,
                                         const struct kiln_compile_target *target,
                                         const char *gfx, struct kiln_build_output *out)
{
   memset(out, 0, sizeof(*out));
   struct kiln_build_log log = {0};
   kiln_build_log_append(&log, "%s", "");
   enum kiln_build_status status = KILN_BUILD_FAILED;

   struct kiln_build_options opts;
   char reason[KILN_BUILD_OPTIONS_REASON_SIZE] = "";
   /* The device's OpenCL C version bounds -cl-std, as for builds. */
   enum kiln_cl_std max_std = (enum kiln_cl_std)target->opencl_version;
   enum kiln_build_options_status ost =
      kiln_build_options_parse(options, max_std, &opts, reason, sizeof(reason));
   if (ost != KILN_BUILD_OPTIONS_OK) {
      kiln_build_options_fini(&opts);
      kiln_build_log_append(&log, "error: invalid compile options: %s\n", reason);
      out->log = log.text;
      return ost == KILN_BUILD_OPTIONS_INVALID ? KILN_BUILD_INVALID_OPTIONS
                                               : KILN_BUILD_OUT_OF_MEMORY;
   }

   void *libclc = NULL;
   size_t lib_size = 0;
   const void *lib;
   if (gfx) {
      status = kiln_llvm_amdgpu_libclc(gfx, &libclc, &lib_size, &log);
      lib = libclc;
   } else {
      status = KILN_BUILD_OK;
      lib = kiln_builtins_bitcode(&lib_size);
   }
   if (status) {
      kiln_build_options_fini(&opts);
      out->log = log.text;
      return status;
   }
   status = KILN_BUILD_FAILED;
   kiln_llvm_init_targets();
   struct kiln_clc_target t = {
      .triple = gfx ? KILN_AMDGPU_TRIPLE : KILN_CPU_TRIPLE,
      .cpu = gfx,
      .link_bitcode = lib,
      .link_bitcode_size = lib_size,
      .cl_ext = target->cl_ext,
      .opencl_version = target->opencl_version,
      .image_support = target->image_support,
      .headers = headers,
      .num_headers = num_headers,
   };
   LLVMContextRef c = LLVMContextCreate();
   LLVMModuleRef m = NULL;
   char *fe_log = NULL;
   enum kiln_clc_status fst = kiln_clc_compile(source, size, &opts, &t, c, &m, &fe_log);
   kiln_free(libclc);
   if (fe_log)
      kiln_build_log_append(&log, "%s", fe_log);
   kiln_free(fe_log);
   if (fst != KILN_CLC_OK) {
      status = fst == KILN_CLC_OUT_OF_MEMORY ? KILN_BUILD_OUT_OF_MEMORY : KILN_BUILD_FAILED;
      goto done;
   }
   /* Whether clGetKernelArgInfo may name arguments is decided here, per
    * compiled object, as §5.9.3 (1.2) ties it to the compile options. */
   if (!(opts.flags & KILN_BUILD_KERNEL_ARG_INFO))
      kiln_metadata_hide_arg_info(m);
   out->target_id = gfx ? kiln_llvm_amdgpu_target_id(gfx)
                        : kiln_llvm_cpu_target_id(target->bounds_check);
   LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(m);
   if (bc) {
      out->bitcode_size = LLVMGetBufferSize(bc);
      out->bitcode = kiln_malloc(out->bitcode_size);
      if (out->bitcode)
         memcpy(out->bitcode, LLVMGetBufferStart(bc), out->bitcode_size);
      LLVMDisposeMemoryBuffer(bc);
   }
   status = out->bitcode && out->target_id ? KILN_BUILD_OK : KILN_BUILD_OUT_OF_MEMORY;

done:
   if (m)
      LLVMDisposeModule(m);
   LLVMContextDispose(c);
   kiln_build_options_fini(&opts);
   out->log = log.text;
   if (status != KILN_BUILD_OK) {
      char *keep = out->log;
      out->log = NULL;
      kiln_build_output_fini(out);
      out->log = keep;
   }
   return status;
}
