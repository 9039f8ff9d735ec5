/* clBuildProgram's and clCompileProgram's pipeline, for every target:
 *   OpenCL C --clang, linking what it uses of the target's builtins--> module
 *   build:   --backend.c (target's lower step, optimiser, final step)--> code
 *   compile: --> bitcode, every user function still external, for link.c
 * The target table (target_table.h) says what differs per device. */
#include "llvm/compiler.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>

#include "kiln/cl_version.h"
#include "kiln/kernel_info.h"
#include "llvm/backend.h"
#include "llvm/build_log.h"
#include "llvm/build_options.h"
#include "llvm/clc_frontend.h"
#include "llvm/dump.h"
#include "llvm/guard.h"
#include "llvm/metadata.h"
#include "llvm/spirv/spirv_frontend.h"
#include "llvm/target.h"
#include "llvm/target_table.h"
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
      kiln_build_options_parse(options, (enum kiln_cl_std)KILN_CL_VERSION_NUMBER, true, &opts, reason,
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

bool kiln_llvm_dumping(void)
{
   const char *d = getenv("KILN_DUMP");
   return d && *d;
}

/* A build or compile under way: what its two halves share. */
struct job {
   const struct kiln_compile_target *target;
   struct kiln_build_options opts;
   bool opts_parsed;
   struct kiln_llvm_machine machine;
   LLVMContextRef c;
   LLVMModuleRef m;
   struct kiln_build_log log;
   struct kiln_llvm_dump dump; /* KILN_DUMP's files */
   /* A guard caught LLVM throwing during the job (kiln_llvm_guard_catches):
    * its objects may be half built. */
   bool caught;
};

/* Options, then the target: the order clBuildProgram reports errors in
 * (CL_INVALID_BUILD_OPTIONS before any build failure). */
static enum kiln_build_status job_open(struct job *j, const char *options,
                                       const struct kiln_compile_target *target,
                                       const char *what)
{
   memset(j, 0, sizeof(*j));
   j->target = target;
   kiln_build_log_append(&j->log, "%s", "");
   char reason[KILN_BUILD_OPTIONS_REASON_SIZE] = "";
   /* The device's OpenCL C version bounds -cl-std. */
   enum kiln_build_options_status ost =
      kiln_build_options_parse(options, (enum kiln_cl_std)target->opencl_version,
                               target->opencl_c_20, &j->opts,
                               reason, sizeof(reason));
   j->opts_parsed = true;
   if (ost != KILN_BUILD_OPTIONS_OK) {
      kiln_build_log_append(&j->log, "error: invalid %s options: %s\n", what, reason);
      return ost == KILN_BUILD_OPTIONS_INVALID ? KILN_BUILD_INVALID_OPTIONS
                                               : KILN_BUILD_OUT_OF_MEMORY;
   }
   enum kiln_build_status st = kiln_llvm_machine_init(&j->machine, target, &j->log);
   if (st)
      return st;
   if (target->bounds_check && !j->machine.target->bounds_check) {
      kiln_build_log_append(&j->log, "error: KILN_CHECK=bounds is not implemented for %s "
                                     "devices\n", j->machine.target->name);
      return KILN_BUILD_FAILED;
   }
   return KILN_BUILD_OK;
}

/* The front end: source to j->m, with the builtins the program uses linked
 * in (internal, so two compiled objects never clash over them).  deps
 * non-NULL: the files the source included go there (the compile cache's
 * check, docs/cache.md). */
static enum kiln_build_status frontend(struct job *j, const char *source, size_t size,
                                       const struct kiln_header *headers, unsigned num_headers,
                                       struct kiln_build_output *deps)
{
   const void *lib;
   size_t lib_size;
   bool owned;
   enum kiln_build_status st =
      kiln_llvm_machine_builtins(&j->machine, &lib, &lib_size, &owned, &j->log);
   if (st)
      return st;
   const struct kiln_llvm_target *t = j->machine.target;
   struct kiln_clc_target ct = {
      .triple = t->triple,
      .cpu = t->frontend_cpu ? j->machine.cpu : NULL,
      .features = t->frontend_cpu && *j->machine.features ? j->machine.features : NULL,
      .link_bitcode = lib,
      .link_bitcode_size = lib_size,
      .cl_ext = j->target->cl_ext,
      .opencl_version = j->target->opencl_version,
      .image_support = j->target->image_support,
      .headers = headers,
      .num_headers = num_headers,
   };
   if (t->builtins_first)
      ct.link_first = t->builtins_first(&ct.link_first_size);
   kiln_llvm_init_targets();
   j->c = LLVMContextCreate();
   char *fe_log = NULL;
   enum kiln_clc_status fst =
      deps ? kiln_clc_compile_deps(source, size, &j->opts, &ct, j->c, &j->m, &fe_log,
                                   &deps->deps, &deps->num_deps)
           : kiln_clc_compile(source, size, &j->opts, &ct, j->c, &j->m, &fe_log);
   if (owned)
      kiln_free((void *)lib);
   if (fe_log)
      kiln_build_log_append(&j->log, "%s", fe_log);
   kiln_free(fe_log);
   if (fst != KILN_CLC_OK)
      return fst == KILN_CLC_OUT_OF_MEMORY ? KILN_BUILD_OUT_OF_MEMORY : KILN_BUILD_FAILED;
   kiln_llvm_dump_name(&j->dump, j->m);
   /* Whether clGetKernelArgInfo may name arguments is decided here, per
    * build or compiled object, as §5.9.3 (1.2) ties it to the options. */
   if (!(j->opts.flags & KILN_BUILD_KERNEL_ARG_INFO))
      kiln_metadata_hide_arg_info(j->m);
   /* So is whether its kernels may run in partial work-groups (3.0,
    * 5.10: programs of OpenCL C 2.0 and later, unless promised not to). */
   if (j->opts.cl_std >= KILN_CL_STD_2_0 && !(j->opts.flags & KILN_BUILD_UNIFORM_WORK_GROUPS))
      kiln_metadata_allow_non_uniform(j->m);
   return KILN_BUILD_OK;
}

/* The front end of IL programs: the same module, from SPIR-V. */
static enum kiln_build_status il_frontend(struct job *j, const void *il, size_t size,
                                          const char *spec_consts)
{
   kiln_llvm_init_targets();
   j->c = LLVMContextCreate();
   enum kiln_build_status st =
      kiln_spirv_frontend(&j->machine, il, size, spec_consts, j->c, &j->m, &j->log);
   if (st)
      return st;
   kiln_llvm_dump_name(&j->dump, j->m);
   /* 3.0 (5.9.3): argument information only for programs from source. */
   kiln_metadata_hide_arg_info(j->m);
   /* A 3.0 device takes partial work-groups unless the options promise
    * none; IL has no OpenCL C version to tie that to. */
   if (!(j->opts.flags & KILN_BUILD_UNIFORM_WORK_GROUPS))
      kiln_metadata_allow_non_uniform(j->m);
   /* The math options act on the code as clLinkProgram's do. */
   kiln_llvm_apply_math_options(j->m, j->opts.flags);
   return KILN_BUILD_OK;
}

/* Ends a job: out keeps only the log unless status is KILN_BUILD_OK.
 * escaped: LLVM threw during the job (guard.h: out of it, or to a guard
 * inside it), so its context may hold half-built objects whose
 * destructors crash: they are leaked instead (a build capped 380 MiB
 * above its start died in ~BitcodeReader when the context was disposed,
 * kernel_build_limits on the CUDA device). */
static enum kiln_build_status job_close(struct job *j, enum kiln_build_status status,
                                        bool escaped, struct kiln_build_output *out,
                                        const char *what)
{
   if (j->m && !escaped)
      LLVMDisposeModule(j->m);
   if (j->c && !escaped)
      LLVMContextDispose(j->c);
   if (j->opts_parsed)
      kiln_build_options_fini(&j->opts);
   kiln_llvm_machine_fini(&j->machine);
   if (status == KILN_BUILD_FAILED && j->log.len == 0)
      kiln_build_log_append(&j->log, "error: the %s failed for a reason Kiln did not record\n",
                            what);
   if (j->log.text)
      kiln_llvm_dump_bytes(&j->dump, "log", j->log.text, j->log.len);
   out->log = j->log.text;
   if (status != KILN_BUILD_OK) {
      char *keep = out->log;
      out->log = NULL;
      kiln_build_output_fini(out);
      out->log = keep;
   }
   return status;
}

/* kiln_llvm_build's and kiln_llvm_compile's arguments, and the job: the
 * job lives here, outside the compiler thread's frames, so that it is
 * closed whatever happened on that thread (guard.h). */
struct call {
   const char *source;
   size_t size;
   const char *options;
   const struct kiln_header *headers;
   unsigned num_headers;
   const struct kiln_compile_target *target;
   struct kiln_build_output *out;
   bool il;                 /* source is SPIR-V */
   const char *spec_consts; /* IL only */
   struct job j;
   enum kiln_build_status st;
};

static void build_body(void *p)
{
   struct call *c = p;
   struct job *j = &c->j;
   unsigned catches = kiln_llvm_guard_catches();
   c->st = job_open(j, c->options, c->target, "build");
   kiln_llvm_dump_begin(&j->dump, c->il ? NULL : c->source, c->il ? 0 : c->size);
   if (!c->st)
      c->st = c->il ? il_frontend(j, c->source, c->size, c->spec_consts)
                    : frontend(j, c->source, c->size, NULL, 0, c->out);
   if (!c->st)
      c->st = kiln_llvm_finish(j->m, &j->machine, c->target,
                               !(j->opts.flags & KILN_BUILD_OPT_DISABLE), false, &j->dump, c->out,
                               &j->log);
   j->caught = kiln_llvm_guard_catches() != catches;
}

static void compile_body(void *p)
{
   struct call *c = p;
   struct job *j = &c->j;
   unsigned catches = kiln_llvm_guard_catches();
   c->st = job_open(j, c->options, c->target, "compile");
   kiln_llvm_dump_begin(&j->dump, c->il ? NULL : c->source, c->il ? 0 : c->size);
   /* The files it includes from disk go to out->deps, for the cache. */
   if (!c->st)
      c->st = c->il ? il_frontend(j, c->source, c->size, c->spec_consts)
                    : frontend(j, c->source, c->size, c->headers, c->num_headers, c->out);
   if (!c->st) {
      c->out->target_id = kiln_llvm_machine_id(&j->machine, c->target->bounds_check);
      LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(j->m);
      bool copied = bc && kiln_llvm_take_buffer(bc, &c->out->bitcode, &c->out->bitcode_size);
      c->st = copied && c->out->target_id ? KILN_BUILD_OK : KILN_BUILD_OUT_OF_MEMORY;
   }
   j->caught = kiln_llvm_guard_catches() != catches;
}

/* Runs body on the compiler stack, then closes the job. */
static enum kiln_build_status run_job(struct call *c, void (*body)(void *), const char *what)
{
   memset(c->out, 0, sizeof(*c->out));
   c->st = KILN_BUILD_FAILED;
   enum kiln_build_status st = kiln_llvm_run(body, c, &c->j.log);
   if (st)
      c->st = st;
   return job_close(&c->j, c->st, st != KILN_BUILD_OK || c->j.caught, c->out, what);
}

enum kiln_build_status kiln_llvm_build(const char *source, size_t size, const char *options,
                                       const struct kiln_compile_target *target,
                                       struct kiln_build_output *out)
{
   struct call c = {.source = source, .size = size, .options = options, .target = target,
                    .out = out};
   return run_job(&c, build_body, "build");
}

enum kiln_build_status kiln_llvm_compile(const char *source, size_t size, const char *options,
                                         const struct kiln_header *headers,
                                         unsigned num_headers,
                                         const struct kiln_compile_target *target,
                                         struct kiln_build_output *out)
{
   struct call c = {.source = source, .size = size, .options = options, .headers = headers,
                    .num_headers = num_headers, .target = target, .out = out};
   return run_job(&c, compile_body, "compile");
}

enum kiln_build_status kiln_llvm_build_il(const void *il, size_t size, const char *spec_consts,
                                          const char *options,
                                          const struct kiln_compile_target *target,
                                          struct kiln_build_output *out)
{
   struct call c = {.source = il, .size = size, .options = options, .target = target,
                    .out = out, .il = true, .spec_consts = spec_consts};
   return run_job(&c, build_body, "build");
}

enum kiln_build_status kiln_llvm_compile_il(const void *il, size_t size,
                                            const char *spec_consts, const char *options,
                                            const struct kiln_compile_target *target,
                                            struct kiln_build_output *out)
{
   struct call c = {.source = il, .size = size, .options = options, .target = target,
                    .out = out, .il = true, .spec_consts = spec_consts};
   return run_job(&c, compile_body, "compile");
}
