// Kiln's only C++: Clang's CompilerInstance has no C API. Everything here
// stays behind the extern "C" kiln_clc_compile of clc_frontend.h; later
// stages use the LLVM-C API on the module it returns.

extern "C" {
#include "llvm/builtins.h"
#include "util/sha256.h"
}
#include "llvm/clc_frontend.h"
#include "llvm/target.h"
#include "util/alloc.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticIDs.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticBuffer.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Frontend/Utils.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassPlugin.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

#ifndef KILN_CLANG_RESOURCE_DIR
#error "meson defines KILN_CLANG_RESOURCE_DIR (clang's -resource-dir)"
#endif

namespace {

using Args = std::vector<std::string>;

void add(Args &args, std::initializer_list<const char *> words)
{
   for (const char *w : words)
      args.emplace_back(w);
}

// What clang's driver would add for this triple, so that compiling here
// gives the IR `clang -target <triple>` gives.
void add_driver_defaults(Args &args, const llvm::Triple &triple)
{
   if (triple.isAMDGPU()) {
      // Non-kernel symbols stay out of the code object's dynamic symbols;
      // clang makes kernels protected on its own.
      add(args, {"-mrelocation-model", "pic", "-pic-level", "2",
                 "-fvisibility=hidden", "-fapply-global-visibility-to-externs",
                 "-Werror=atomic-alignment"});
   } else if (triple.isNVPTX()) {
      // libclc's nvptx64 library says nvptx64-unknown-nvidiacl, Kiln
      // compiles for nvptx64-nvidia-cuda: the same code to the NVPTX back
      // end, but the linker warns about the differing triples, and an
      // application's -Werror would then fail every build.
      add(args, {"-Wno-linker-warnings"});
   } else {
      // CPU kernels end up in a shared object or a JIT; either way nothing
      // may assume the executable's static layout.  OpenCL's address
      // spaces stay distinct in the IR (global 1, constant 2, local 3):
      // Kiln finds __local variables and arguments by them, and x86 code
      // generation treats them all as ordinary pointers.
      add(args, {"-mrelocation-model", "pic", "-pic-level", "2", "-ffake-address-space-map"});
      // Kernels are compiled for a baseline CPU and given the host's
      // features after linking, consistently for every function, so the
      // vector ABI clang warns about cannot mismatch: the warning would
      // only fail correct programs built with -Werror.
      add(args, {"-Wno-psabi"});
   }
}

void add_target(Args &args, const kiln_clc_target &target)
{
   add(args, {"-triple", target.triple});
   if (target.cpu && *target.cpu)
      add(args, {"-target-cpu", target.cpu});
   // LLVM's host feature string is "+a,-b,..."; cc1 wants one per flag.
   llvm::StringRef features = target.features ? target.features : "";
   while (!features.empty()) {
      auto [feature, rest] = features.split(',');
      if (!feature.empty()) {
         args.emplace_back("-target-feature");
         args.emplace_back(feature.str());
      }
      features = rest;
   }
   if (target.cl_ext)
      args.emplace_back(std::string("-cl-ext=") + target.cl_ext);
   // §6.9 macros that depend on the device, not on the language version.
   if (target.opencl_version > 0)
      args.emplace_back("-D__OPENCL_VERSION__=" + std::to_string(target.opencl_version));
   if (target.image_support)
      args.emplace_back("-D__IMAGE_SUPPORT__=1");
}

const char *cl_std_flag(enum kiln_cl_std std)
{
   switch (std) {
   case KILN_CL_STD_1_0: return "-cl-std=CL1.0";
   case KILN_CL_STD_1_2: return "-cl-std=CL1.2";
   case KILN_CL_STD_1_1: break;
   }
   return "-cl-std=CL1.1";
}

void add_options(Args &args, const kiln_build_options &opts, bool have_headers)
{
   args.emplace_back(cl_std_flag(opts.cl_std));

   // Each option of §5.6.3 has a cc1 twin of the same name, except the two
   // below: -cl-denorms-are-zero is dropped by the driver for most targets,
   // but the IR attribute it stands for is exactly the permission the spec
   // gives (AMDGPU and NVPTX then flush; x86 ignores it).
   static const struct {
      unsigned flag;
      const char *cc1;
   } same_name[] = {
      {KILN_BUILD_OPT_DISABLE, "-cl-opt-disable"},
      {KILN_BUILD_SINGLE_PRECISION_CONSTANT, "-cl-single-precision-constant"},
      {KILN_BUILD_DENORMS_ARE_ZERO, "-fdenormal-fp-math-f32=preserve-sign,preserve-sign"},
      {KILN_BUILD_STRICT_ALIASING, "-cl-strict-aliasing"},
      {KILN_BUILD_MAD_ENABLE, "-cl-mad-enable"},
      {KILN_BUILD_NO_SIGNED_ZEROS, "-cl-no-signed-zeros"},
      {KILN_BUILD_UNSAFE_MATH, "-cl-unsafe-math-optimizations"},
      {KILN_BUILD_FINITE_MATH_ONLY, "-cl-finite-math-only"},
      {KILN_BUILD_FAST_RELAXED_MATH, "-cl-fast-relaxed-math"},
      {KILN_BUILD_NO_WARNINGS, "-w"},
      {KILN_BUILD_WERROR, "-Werror"},
   };
   for (const auto &o : same_name) {
      if (opts.flags & o.flag)
         args.emplace_back(o.cc1);
   }
   // KILN_BUILD_KERNEL_ARG_INFO needs nothing: Kiln always asks for it.

   // Separate words, so that no value can turn into a flag.
   for (size_t i = 0; i < opts.num_defines; i++) {
      const kiln_define &d = opts.defines[i];
      args.emplace_back("-D");
      args.emplace_back(d.value ? std::string(d.name) + "=" + d.value : d.name);
   }
   if (have_headers) {
      args.emplace_back("-I");
      args.emplace_back(KILN_CLC_HEADER_DIR);
   }
   for (size_t i = 0; i < opts.num_include_dirs; i++) {
      args.emplace_back("-I");
      args.emplace_back(opts.include_dirs[i]);
   }
}

Args cc1_args(const kiln_build_options &opts, const kiln_clc_target &target)
{
   Args args;
   add_target(args, target);
   add_driver_defaults(args, llvm::Triple(target.triple));
   add(args, {"-resource-dir", KILN_CLANG_RESOURCE_DIR,
              "-internal-isystem", KILN_CLANG_RESOURCE_DIR "/include",
              // Builtins declared on demand from tables, not by parsing the
              // 800 KB opencl-c.h: a small kernel compiles in milliseconds.
              "-finclude-default-header", "-fdeclare-opencl-builtins",
              // Argument names for clGetKernelArgInfo; the other kernel_arg_*
              // metadata comes regardless.
              "-cl-kernel-arg-info",
              // Front-end IR as at -O2 (TBAA, lifetime markers, no optnone or
              // noinline) but no LLVM pass run: Kiln's own pipeline
              // optimises after linking builtins, and nothing of the
              // kernels' metadata is lost before that. An explicit -O2 also
              // outranks -cl-opt-disable in clang, so that option only
              // reaches Kiln's pipeline (through options->flags);
              // -disable-O0-optnone keeps that true should clang change.
              "-O2", "-disable-llvm-passes", "-disable-O0-optnone",
              "-ffp-contract=on", "-discard-value-names", "-ferror-limit", "19"});
   add_options(args, opts, target.num_headers > 0);
   if (target.link_bitcode)
      add(args, {"-mlink-builtin-bitcode", KILN_CLC_LINK_NAME});
   add(args, {"-x", "cl", KILN_CLC_SOURCE_NAME});
   return args;
}

char *copy_log(const std::string &log)
{
   char *out = static_cast<char *>(kiln_malloc(log.size() + 1));
   if (out)
      std::memcpy(out, log.c_str(), log.size() + 1);
   return out;
}

// The files a build read besides its source: the compile cache keys on
// their contents.  Clang's resource directory (its own headers, and the
// in-memory opencl-c-base.h) and the builtins bitcode are versioned with
// LLVM and Kiln, which the key already holds.
class IncludedFiles : public clang::DependencyCollector {
public:
   bool needSystemDependencies() override { return true; }
   bool sawDependency(llvm::StringRef name, bool, bool, bool, bool missing) override
   {
      return !missing && name != KILN_CLC_SOURCE_NAME && name != KILN_CLC_LINK_NAME &&
             !name.starts_with(KILN_CLANG_RESOURCE_DIR) &&
             !name.starts_with(KILN_CLC_HEADER_DIR "/");
   }
};

struct Dep {
   std::string path;
   unsigned char sha256[KILN_SHA256_SIZE];
};

// Hashes what Clang read of each file (its source manager still holds the
// buffers), not what is on disk now: a header edited during the build must
// not be recorded with the new contents and the old code.
void hash_included(clang::CompilerInstance &ci, const IncludedFiles &files,
                   std::vector<Dep> &out)
{
   for (const std::string &name : files.getDependencies()) {
      Dep d{name, {}};
      std::optional<llvm::MemoryBufferRef> buf;
      if (ci.hasSourceManager()) {
         if (auto fe = ci.getFileManager().getOptionalFileRef(name))
            buf = ci.getSourceManager().getMemoryBufferForFileOrNone(*fe);
      }
      std::unique_ptr<llvm::MemoryBuffer> disk;
      if (!buf) {
         auto read = llvm::MemoryBuffer::getFile(name);
         if (!read)
            continue;
         disk = std::move(*read);
         buf = disk->getMemBufferRef();
      }
      kiln_sha256(buf->getBufferStart(), buf->getBufferSize(), d.sha256);
      out.push_back(std::move(d));
   }
}

// Runs Clang; true when it produced a module. Diagnostics land in `log`.
bool run_clang(const Args &args, const char *source, size_t source_size,
               const kiln_clc_target &target, llvm::LLVMContext &context,
               std::unique_ptr<llvm::Module> &module, llvm::raw_string_ostream &log,
               std::vector<Dep> *deps)
{
   std::vector<const char *> argv;
   for (const std::string &a : args)
      argv.push_back(a.c_str());

   // The source has no file; Clang reads it from memory under this name.
   // A copy, because Clang's lexer needs a NUL after the text and the
   // application's strings carry lengths instead. Kiln keeps the buffer
   // (declared before, so it outlives, the instance): Clang frees remapped
   // buffers only once its preprocessor has taken them, which a build that
   // fails earlier (bad target) never gets to.
   std::unique_ptr<llvm::MemoryBuffer> input = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(source, source_size), KILN_CLC_SOURCE_NAME);

   auto instance = std::make_unique<clang::CompilerInstance>();

   // As cc1_main: the flags themselves (-w, -Werror) configure the
   // diagnostics, so errors in them are buffered until the real engine
   // exists, then replayed into the log.
   auto *parse_buffer = new clang::TextDiagnosticBuffer;
   clang::DiagnosticsEngine parse_diags(new clang::DiagnosticIDs,
                                        new clang::DiagnosticOptions, parse_buffer);
   bool ok = clang::CompilerInvocation::CreateFromArgs(instance->getInvocation(),
                                                       argv, parse_diags);

   instance->createDiagnostics(
      new clang::TextDiagnosticPrinter(log, &instance->getDiagnosticOpts()),
      /*ShouldOwnClient=*/true);
   parse_buffer->FlushDiagnostics(instance->getDiagnostics());
   // "N errors generated." goes here, not to the application's stderr.
   instance->setVerboseOutputStream(log);
   if (!ok)
      return false;

   // The library to link and opencl-c-base.h live in memory (Kiln needs
   // no clang files installed): Clang reads them through its file manager,
   // so an in-memory file system lies over the real one, which still
   // serves the application's -I directories.
   auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(
      llvm::vfs::getRealFileSystem());
   auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
   size_t header_size;
   const char *header = kiln_builtins_base_header(&header_size);
   memory->addFile(KILN_CLANG_RESOURCE_DIR "/include/opencl-c-base.h", 0,
                   llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(header, header_size),
                                                    "opencl-c-base.h", false));
   if (target.link_bitcode)
      memory->addFile(KILN_CLC_LINK_NAME, 0,
                      llvm::MemoryBuffer::getMemBuffer(
                         llvm::StringRef(static_cast<const char *>(target.link_bitcode),
                                         target.link_bitcode_size),
                         KILN_CLC_LINK_NAME, false));
   // clCompileProgram's headers, copied: Clang's lexer wants a NUL after
   // each buffer, and the application's strings need not have one.
   for (unsigned i = 0; i < target.num_headers; i++) {
      const kiln_header &h = target.headers[i];
      memory->addFile(std::string(KILN_CLC_HEADER_DIR "/") + h.name, 0,
                      llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(h.text, h.size),
                                                           h.name));
   }
   overlay->pushOverlay(memory);
   instance->createFileManager(overlay);

   clang::PreprocessorOptions &pp = instance->getPreprocessorOpts();
   pp.addRemappedFile(KILN_CLC_SOURCE_NAME, input.get());
   pp.RetainRemappedFileBuffers = true;

   auto included = std::make_shared<IncludedFiles>();
   if (deps)
      instance->addDependencyCollector(included);

   clang::EmitLLVMOnlyAction action(&context);
   if (!instance->ExecuteAction(action))
      return false;
   module = action.takeModule();
   if (module && deps)
      hash_included(*instance, *included, *deps);
   return module != nullptr;
}

} // namespace

// Debian's LLVM lists Polly among the extensions linked into the tools
// (llvm/Support/Extension.def), so clang's BackendUtil calls
// getPollyPluginInfo(), yet no static Polly is shipped. Kiln wants no Polly:
// an extension that registers nothing satisfies the reference.
llvm::PassPluginLibraryInfo getPollyPluginInfo();
llvm::PassPluginLibraryInfo getPollyPluginInfo()
{
   return {LLVM_PLUGIN_API_VERSION, "Polly (absent)", "0", [](llvm::PassBuilder &) {}};
}

extern "C" enum kiln_clc_status
kiln_clc_compile(const char *source, size_t source_size,
                 const struct kiln_build_options *options,
                 const struct kiln_clc_target *target,
                 LLVMContextRef context, LLVMModuleRef *module, char **log)
{
   return kiln_clc_compile_deps(source, source_size, options, target, context, module, log,
                                nullptr, nullptr);
}

extern "C" enum kiln_clc_status
kiln_clc_compile_deps(const char *source, size_t source_size,
                      const struct kiln_build_options *options,
                      const struct kiln_clc_target *target,
                      LLVMContextRef context, LLVMModuleRef *module, char **log,
                      struct kiln_build_dep **deps_out, unsigned *num_deps)
{
   *module = nullptr;
   *log = nullptr;
   if (deps_out) {
      *deps_out = nullptr;
      *num_deps = 0;
   }
   std::vector<Dep> deps;
   if (!source)
      source_size = 0;

   std::string text;
   llvm::raw_string_ostream stream(text);
   std::unique_ptr<llvm::Module> result;
   bool ok = false;
   if (!options || !target || !target->triple || !*target->triple || !context) {
      stream << "kiln: internal error: compile called without options, target "
                "triple or LLVM context\n";
   } else {
      kiln_llvm_init_targets();
      ok = run_clang(cc1_args(*options, *target), source ? source : "", source_size, *target,
                     *llvm::unwrap(context), result, stream, deps_out ? &deps : nullptr);
      if (!ok && text.empty())
         stream << "kiln: clang failed on " KILN_CLC_SOURCE_NAME
                   " without reporting why\n";
   }
   stream.flush();

   *log = copy_log(text);
   if (!*log)
      return KILN_CLC_OUT_OF_MEMORY;
   if (!ok)
      return KILN_CLC_BUILD_FAILURE;
   if (deps_out && !deps.empty()) {
      auto *list = static_cast<kiln_build_dep *>(kiln_calloc(deps.size(), sizeof(kiln_build_dep)));
      bool oom = !list;
      for (size_t i = 0; list && i < deps.size(); i++) {
         list[i].path = kiln_strdup(deps[i].path.c_str());
         oom |= !list[i].path;
         std::memcpy(list[i].sha256, deps[i].sha256, KILN_SHA256_SIZE);
      }
      if (oom) {
         kiln_build_deps_free(list, list ? (unsigned)deps.size() : 0);
         return KILN_CLC_OUT_OF_MEMORY; // the module is freed with `result`
      }
      *deps_out = list;
      *num_deps = (unsigned)deps.size();
   }
   *module = llvm::wrap(result.release());
   return KILN_CLC_OK;
}
