// Clang's CompilerInstance has no C API. Everything here stays behind the
// extern "C" kiln_clc_compile of clc_frontend.h; later stages use the
// LLVM-C API on the module it returns.  Kiln's one C++ file: it also
// holds kiln_llvm_guard (guard.h, at the end).  Built with exceptions:
// when memory runs out inside Clang, the unwinding to kiln_llvm_guard runs
// the destructors of what this file made.

extern "C" {
#include "llvm/builtins.h"
#include "util/sha256.h"
}
#include "llvm/clc_frontend.h"
#include "llvm/guard.h"
#include "llvm/target.h"
#include "util/alloc.h"
#include "util/tls.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <vector>

#include <pthread.h>
#include <ucontext.h>

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticIDs.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/DiagnosticParse.h>
#include <clang/Basic/Stack.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticBuffer.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Frontend/Utils.h>
#include <clang/Lex/PPCallbacks.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Transforms/IPO/Internalize.h>
#include <llvm/Passes/PassPlugin.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
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
   case KILN_CL_STD_2_0: return "-cl-std=CL2.0";
   case KILN_CL_STD_3_0: return "-cl-std=CL3.0";
   case KILN_CL_STD_1_1: break;
   }
   return "-cl-std=CL1.1";
}

// Whether the device's -cl-ext list ("-all,+a,+b") enables name.
bool lists(const char *cl_ext, const char *name)
{
   if (!cl_ext)
      return false;
   std::string list = std::string(",") + cl_ext + ",";
   return list.find(std::string(",+") + name + ",") != std::string::npos;
}

// OpenCL C 3.0 features that Clang 19 knows only as macros of
// opencl-c-base.h, defined there for SPIR targets alone: -cl-ext leaves
// them undefined elsewhere.  Where the device's list enables one, it is
// defined here, which also declares the builtins gated on it
// (-fdeclare-opencl-builtins tests the macro: atomic_load needs
// __opencl_c_atomic_scope_device, memory_scope_all_devices the other).
// __opencl_c_fp16 Clang 19 does not know at all (half is cl_khr_fp16's,
// which -cl-ext enables); the macro is the device's promise to kernels.
// (__opencl_c_read_write_images is not one of them: -cl-ext defines it,
// and Sema needs it there to accept read_write.)
void add_header_only_features(Args &args, const kiln_build_options &opts, const char *cl_ext)
{
   static const char *const header_only[] = {
      "__opencl_c_atomic_scope_device",
      "__opencl_c_atomic_scope_all_devices",
      "__opencl_c_work_group_collective_functions",
      "__opencl_c_fp16",
   };
   if (opts.cl_std < KILN_CL_STD_3_0)
      return;
   for (const char *name : header_only) {
      if (lists(cl_ext, name)) {
         args.emplace_back("-D");
         args.emplace_back(std::string(name) + "=1");
      }
   }
}

// Extensions whose specification lets OpenCL C 1.x programs use them
// (cl_khr_subgroups: "Extension and Version Dependencies: None") but that
// Clang 19 makes available from OpenCL C 2.0 on (OpenCLExtensions.def):
// below 2.0, -cl-ext=+cl_khr_subgroups neither defines the macro nor
// declares the builtins.  Where the device lists one, the macro is
// defined here; opencl-c-base.h then defines __opencl_subgroup_builtins,
// the macro -fdeclare-opencl-builtins tests before declaring the
// sub-group functions (those of 1.x: get_enqueued_num_sub_groups and the
// memory_scope form of sub_group_barrier stay 2.0's, as memory_scope and
// enqueued sizes are).
const char *const extensions_before_20[] = {"cl_khr_subgroups"};

bool before_20(const kiln_build_options &opts)
{
   return opts.cl_std < KILN_CL_STD_2_0;
}

void add_extensions_before_20(Args &args, const kiln_build_options &opts, const char *cl_ext)
{
   if (!before_20(opts))
      return;
   for (const char *name : extensions_before_20) {
      if (lists(cl_ext, name)) {
         args.emplace_back("-D");
         args.emplace_back(std::string(name) + "=1");
      }
   }
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
   add_header_only_features(args, opts, target.cl_ext);
   add_extensions_before_20(args, opts, target.cl_ext);
   // Clang links these in this order, each only for what the module
   // needs by then.
   if (target.link_first)
      add(args, {"-mlink-builtin-bitcode", KILN_CLC_LINK_FIRST_NAME});
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
      return !missing && name != KILN_CLC_SOURCE_NAME && !name.starts_with(KILN_CLC_LINK_DIR "/") &&
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

// Stops a build whose program Clang could not get through: too deep for
// the compiler thread's stack, or expanding to more tokens than a build
// may read (docs/design.md, "Compiler limits").  Clang has no such limit
// for the nesting its parser does by recursion (unary operators, nested
// statements, declarators: only brackets are bounded, by -fbracket-depth),
// none for the chains it parses by iteration but later stages walk by
// recursion (a sum of 60,000 terms), and none for macro expansion.
//
// It watches every token the preprocessor lexes, macro arguments expanded
// and directives included (setPreprocessToken).  On a limit it reports a
// fatal error, which silences the errors that follow, and turns this and
// every later token into the end of the file: the parser unwinds at once,
// and code generation, which never runs after an error, never sees the
// half-built program.
class Limits {
public:
   explicit Limits(clang::Preprocessor &pp) : pp_(pp), floor_(kiln_llvm_stack_floor()) {}

   void install()
   {
      pp_.setPreprocessToken(true);
      pp_.setTokenWatcher([this](const clang::Token &tok) { watch(tok); });
   }

private:
   void watch(const clang::Token &ctok)
   {
      // The token Preprocessor::Lex is about to hand back: the watcher may
      // change it (see above).
      clang::Token &tok = const_cast<clang::Token &>(ctok);
      if (stopped_) {
         // End-of-directive tokens stay: the directive code loops to them.
         if (tok.isNot(clang::tok::eod))
            end(tok);
         return;
      }
      // Only on the compiler thread itself: a stack Clang moved the work
      // to lies anywhere, below the floor as often as not.
      char here;
      if (floor_ && &here < floor_ && kiln_llvm_stack_floor() == floor_)
         return stop(tok, "the program nests too deeply for Kiln's compiler (more than "
                          "%0 MiB of parser stack); split the expression or statement",
                     KILN_LLVM_PARSER_STACK >> 20);
      if (++lexed_ > KILN_CLC_MAX_TOKENS)
         return stop(tok, "the program expands to more than %0 preprocessor tokens",
                     KILN_CLC_MAX_TOKENS);
      // Preprocessor::Lex counts the tokens it gives the parser (lex level 0)
      // just before calling the watcher: the others are directives and
      // macro arguments being expanded.
      unsigned count = pp_.getTokenCount();
      if (count == parser_tokens_)
         return;
      parser_tokens_ = count;
      if (count_operator(tok) && ++operators_ > KILN_CLC_MAX_OPERATORS)
         return stop(tok, "a statement has more than %0 operators; split it",
                     KILN_CLC_MAX_OPERATORS);
   }

   // Counts what adds a level to an expression: every punctuator but
   // closing brackets, statement ends and the commas of braced lists.
   // Statements end (the count restarts) at ';', '{' and '}' outside
   // parentheses and subscripts.
   bool count_operator(const clang::Token &tok)
   {
      using namespace clang;
      switch (tok.getKind()) {
      case tok::l_paren:
      case tok::l_square:
         open_.push_back(tok.getKind());
         nested_++;
         return true;
      case tok::l_brace:
         open_.push_back(tok.getKind());
         if (!nested_)
            operators_ = 0;
         return false;
      case tok::r_paren:
      case tok::r_square:
      case tok::r_brace:
         if (!open_.empty()) {
            if (open_.back() != tok::l_brace)
               nested_--;
            open_.pop_back();
         }
         if (tok.is(tok::r_brace) && !nested_)
            operators_ = 0;
         return false;
      case tok::semi:
         if (!nested_)
            operators_ = 0;
         return false;
      case tok::comma:
         return open_.empty() || open_.back() != tok::l_brace;
      default:
         return tok::getPunctuatorSpelling(tok.getKind()) != nullptr ||
                tok.isOneOf(tok::kw_sizeof, tok::kw_vec_step);
      }
   }

   // what holds %0 for n.
   void stop(clang::Token &tok, const char *what, uint64_t n)
   {
      stopped_ = true;
      std::string text = std::string("kiln: ") + what;
      text.replace(text.find("%0"), 2, std::to_string(n));
      clang::DiagnosticsEngine &diags = pp_.getDiagnostics();
      diags.Report(tok.getLocation(),
                   diags.getCustomDiagID(clang::DiagnosticsEngine::Fatal, "%0"))
         << text;
      end(tok);
   }

   static void end(clang::Token &tok)
   {
      clang::SourceLocation loc = tok.getLocation();
      tok.startToken();
      tok.setKind(clang::tok::eof);
      tok.setLocation(loc);
   }

   clang::Preprocessor &pp_;
   const char *floor_;
   bool stopped_ = false;
   uint64_t lexed_ = 0;
   unsigned parser_tokens_ = 0;
   uint64_t operators_ = 0;
   unsigned nested_ = 0;
   std::vector<clang::tok::TokenKind> open_;
};

// `#pragma OPENCL EXTENSION cl_khr_subgroups : enable` in a 1.x program
// on a device that lists the extension asks for what the program has
// (add_extensions_before_20), but Clang, which knows the extension only
// from 2.0 on, warns that it ignores the pragma, and -Werror would fail
// the build.  That warning is silenced for such a pragma alone, as
// `#pragma clang diagnostic push`, `ignored` and `pop` around it would:
// the pragma handler calls this while lexing, before the parser reports.
// A pragma for any other extension keeps its warning.
class QuietExtensionPragmas : public clang::PPCallbacks {
public:
   QuietExtensionPragmas(clang::DiagnosticsEngine &diags, std::vector<std::string> names)
      : diags_(diags), names_(std::move(names))
   {
   }

   void PragmaOpenCLExtension(clang::SourceLocation name_loc, const clang::IdentifierInfo *name,
                              clang::SourceLocation state_loc, unsigned) override
   {
      if (!name)
         return;
      for (const std::string &n : names_) {
         if (name->getName() == n) {
            diags_.pushMappings(name_loc);
            diags_.setSeverity(clang::diag::warn_pragma_unsupported_extension,
                               clang::diag::Severity::Ignored, name_loc);
            diags_.popMappings(state_loc);
            return;
         }
      }
   }

private:
   clang::DiagnosticsEngine &diags_;
   std::vector<std::string> names_;
};

// EmitLLVMOnlyAction with Limits on its preprocessor, which exists from
// BeginSourceFileAction on, and QuietExtensionPragmas for `quiet`.
class LimitedAction : public clang::EmitLLVMOnlyAction {
public:
   LimitedAction(llvm::LLVMContext *context, std::vector<std::string> quiet)
      : clang::EmitLLVMOnlyAction(context), quiet_(std::move(quiet))
   {
   }

protected:
   bool BeginSourceFileAction(clang::CompilerInstance &ci) override
   {
      if (!clang::EmitLLVMOnlyAction::BeginSourceFileAction(ci))
         return false;
      limits_ = std::make_unique<Limits>(ci.getPreprocessor());
      limits_->install();
      if (!quiet_.empty())
         ci.getPreprocessor().addPPCallbacks(
            std::make_unique<QuietExtensionPragmas>(ci.getDiagnostics(), quiet_));
      return true;
   }

private:
   std::unique_ptr<Limits> limits_;
   std::vector<std::string> quiet_;
};

// The build log: Clang's text diagnostics, except that nothing of a file
// outside the program's own sources (input.cl, clCompileProgram's headers)
// and its -I directories is quoted.  `#include "/etc/shadow"` must not turn
// the build log into a way to read files the application did not mean to
// hand to the compiler: a diagnostic located in such a file (or in a macro
// spelled there) becomes one line naming the file, once per file.
class LogConsumer : public clang::DiagnosticConsumer {
public:
   LogConsumer(llvm::raw_ostream &os, clang::DiagnosticOptions *opts,
               const kiln_build_options &build)
      : os_(os), printer_(os, opts)
   {
      for (size_t i = 0; i < build.num_include_dirs; i++) {
         llvm::SmallString<256> real;
         if (!llvm::sys::fs::real_path(build.include_dirs[i], real))
            dirs_.push_back(std::string(real.str()) + "/");
      }
   }

   void BeginSourceFile(const clang::LangOptions &lo, const clang::Preprocessor *pp) override
   {
      printer_.BeginSourceFile(lo, pp);
   }
   void EndSourceFile() override { printer_.EndSourceFile(); }
   void finish() override { printer_.finish(); }

   void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                         const clang::Diagnostic &info) override
   {
      // Counted, for "N errors generated" and the build's result.
      clang::DiagnosticConsumer::HandleDiagnostic(level, info);
      if (level == clang::DiagnosticsEngine::Note && hid_last_) {
         return;
      }
      hid_last_ = false;
      clang::SourceLocation loc = info.getLocation();
      if (loc.isValid() && info.hasSourceManager()) {
         const clang::SourceManager &sm = info.getSourceManager();
         clang::FileID spelled = sm.getFileID(sm.getSpellingLoc(loc));
         clang::FileID shown = sm.getFileID(sm.getFileLoc(loc));
         clang::FileID foreign = is_foreign(sm, shown) ? shown
                                 : is_foreign(sm, spelled) ? spelled : clang::FileID();
         if (foreign.isValid()) {
            hid_last_ = true;
            if (reported_.insert(foreign.getHashValue()).second)
               report_hidden(sm, foreign, level);
            return;
         }
      }
      printer_.HandleDiagnostic(level, info);
   }

private:
   bool is_foreign(const clang::SourceManager &sm, clang::FileID fid)
   {
      auto fe = sm.getFileEntryRefForID(fid);
      if (!fe)
         return false; // <built-in>, <scratch space>: no file
      llvm::StringRef name = fe->getName();
      if (name == KILN_CLC_SOURCE_NAME || name.starts_with(KILN_CLC_LINK_DIR "/") ||
          name.starts_with(KILN_CLC_HEADER_DIR "/") || name.starts_with(KILN_CLANG_RESOURCE_DIR "/"))
         return false;
      llvm::SmallString<256> real;
      if (llvm::sys::fs::real_path(name, real))
         return true;
      for (const std::string &d : dirs_) {
         if (real.str().starts_with(d))
            return false;
      }
      return true;
   }

   void report_hidden(const clang::SourceManager &sm, clang::FileID fid,
                      clang::DiagnosticsEngine::Level level)
   {
      llvm::StringRef name = sm.getFileEntryRefForID(fid)->getName();
      clang::PresumedLoc from = sm.getPresumedLoc(sm.getIncludeLoc(fid));
      if (from.isValid())
         os_ << from.getFilename() << ":" << from.getLine() << ":" << from.getColumn() << ": ";
      os_ << (level >= clang::DiagnosticsEngine::Error ? "error" : "warning") << ": '" << name
          << "' does not compile as OpenCL C; Kiln quotes no diagnostic in it, as it lies "
             "outside the program's sources and -I directories\n";
   }

   llvm::raw_ostream &os_;
   clang::TextDiagnosticPrinter printer_;
   std::vector<std::string> dirs_;
   std::set<unsigned> reported_;
   bool hid_last_ = false;
};

// Runs Clang; true when it produced a module. Diagnostics land in `log`.
bool run_clang(const Args &args, const kiln_build_options &opts, const char *source,
               size_t source_size, const kiln_clc_target &target, llvm::LLVMContext &context,
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

   instance->createDiagnostics(new LogConsumer(log, &instance->getDiagnosticOpts(), opts),
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
   auto add_library = [&](const char *name, const void *data, size_t size) {
      if (data)
         memory->addFile(name, 0,
                         llvm::MemoryBuffer::getMemBuffer(
                            llvm::StringRef(static_cast<const char *>(data), size), name, false));
   };
   add_library(KILN_CLC_LINK_FIRST_NAME, target.link_first, target.link_first_size);
   add_library(KILN_CLC_LINK_NAME, target.link_bitcode, target.link_bitcode_size);
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

   std::vector<std::string> quiet;
   if (before_20(opts)) {
      for (const char *name : extensions_before_20) {
         if (lists(target.cl_ext, name))
            quiet.emplace_back(name);
      }
   }
   LimitedAction action(&context, std::move(quiet));
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

// The IL front end's builtins (docs/design.md, "SPIR-V"): what clang's
// -mlink-builtin-bitcode does for source, on a module that did not come
// from clang.  Only what the program reaches is linked, made internal.
extern "C" bool kiln_clc_link_builtins(LLVMModuleRef module, LLVMModuleRef library)
{
   llvm::Module *m = llvm::unwrap(module);
   std::unique_ptr<llvm::Module> lib(llvm::unwrap(library));
   return !llvm::Linker::linkModules(
      *m, std::move(lib), llvm::Linker::Flags::LinkOnlyNeeded,
      [](llvm::Module &linked, const llvm::StringSet<> &from_library) {
         llvm::internalizeModule(linked, [&from_library](const llvm::GlobalValue &gv) {
            return !gv.hasName() || !from_library.count(gv.getName());
         });
      });
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

namespace {

// One front-end run, as kiln_clc_compile_deps's arguments and results.
struct Compile {
   const char *source = nullptr;
   size_t source_size = 0;
   const kiln_build_options *options = nullptr;
   const kiln_clc_target *target = nullptr;
   LLVMContextRef context = nullptr;
   bool want_deps = false;
   // Results
   std::string text;
   std::unique_ptr<llvm::Module> result;
   std::vector<Dep> deps;
   bool ok = false;
   kiln_llvm_guard_status guard = KILN_LLVM_GUARD_OK;
   char why[512] = "";
};

void compile(void *p)
{
   Compile &c = *static_cast<Compile *>(p);
   llvm::raw_string_ostream stream(c.text);
   kiln_llvm_init_targets();
   c.ok = run_clang(cc1_args(*c.options, *c.target), *c.options, c.source, c.source_size,
                    *c.target, *llvm::unwrap(c.context), c.result, stream,
                    c.want_deps ? &c.deps : nullptr);
   if (!c.ok && c.text.empty())
      stream << "kiln: clang failed on " KILN_CLC_SOURCE_NAME " without reporting why\n";
}

// On the compiler thread: the guard's catch sits between Clang and Kiln.
void compile_guarded(void *p)
{
   Compile &c = *static_cast<Compile *>(p);
   c.guard = kiln_llvm_guard(compile, p, c.why, sizeof(c.why));
}

} // namespace

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
   if (!options || !target || !target->triple || !*target->triple || !context) {
      *log = copy_log("kiln: internal error: compile called without options, target "
                      "triple or LLVM context\n");
      return *log ? KILN_CLC_BUILD_FAILURE : KILN_CLC_OUT_OF_MEMORY;
   }
   // Everything C++ lives in c, so that the guard's catch, outside the
   // frames Clang unwinds, can free what a failed run left.
   Compile c;
   c.source = source ? source : "";
   c.source_size = source ? source_size : 0;
   c.options = options;
   c.target = target;
   c.context = context;
   c.want_deps = deps_out != nullptr;
   if (!kiln_llvm_on_compiler_stack(compile_guarded, &c))
      return KILN_CLC_OUT_OF_MEMORY;
   if (c.guard == KILN_LLVM_GUARD_OUT_OF_MEMORY)
      return KILN_CLC_OUT_OF_MEMORY;
   if (c.guard == KILN_LLVM_GUARD_FATAL) {
      // No std::string here: nothing outside the guard may throw.
      size_t n = c.text.size() + std::strlen(c.why) + 64;
      *log = static_cast<char *>(kiln_malloc(n));
      if (!*log)
         return KILN_CLC_OUT_OF_MEMORY;
      std::snprintf(*log, n, "%serror: internal compiler error: LLVM: %s\n", c.text.c_str(),
                    c.why);
      return KILN_CLC_BUILD_FAILURE;
   }
   *log = copy_log(c.text);
   if (!*log)
      return KILN_CLC_OUT_OF_MEMORY;
   if (!c.ok)
      return KILN_CLC_BUILD_FAILURE;
   std::vector<Dep> &deps = c.deps;
   std::unique_ptr<llvm::Module> &result = c.result;
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

// ---------------------------------------------------------------------------
// kiln_llvm_guard (guard.h): the try/catch at the boundary between Kiln's C
// and Clang/LLVM's C++, and the LLVM error handlers that throw to it.  Here
// rather than in a file of its own: Kiln keeps to one C++ file.

namespace {

// How many kiln_llvm_guard frames this thread is inside: the handlers throw
// only where something will catch.
thread_local unsigned guard_depth KILN_TLS_MODEL;
// Throws kiln_llvm_guard caught on this thread (kiln_llvm_guard_catches).
thread_local unsigned guard_catches KILN_TLS_MODEL;

// report_fatal_error's message, carried to the catch.  A fixed array: the
// handler may run because memory ran out.
struct Fatal {
   char why[512];
};

[[noreturn]] void bad_alloc_handler(void *, const char *reason, bool)
{
   if (guard_depth)
      throw std::bad_alloc();
   // Outside a guard: what LLVM does without a handler.
   std::fprintf(stderr, "LLVM ERROR: out of memory: %s\n", reason ? reason : "");
   std::abort();
}

void fatal_error_handler(void *, const char *reason, bool)
{
   if (guard_depth) {
      Fatal f;
      std::snprintf(f.why, sizeof(f.why), "%s", reason ? reason : "unknown error");
      throw f;
   }
   // Returning lets LLVM exit as it always did; it prints nothing itself
   // once a handler is installed.
   std::fprintf(stderr, "LLVM ERROR: %s\n", reason ? reason : "");
}

pthread_once_t handlers_once = PTHREAD_ONCE_INIT;

void install_handlers()
{
   llvm::install_bad_alloc_error_handler(bad_alloc_handler, nullptr);
   llvm::install_fatal_error_handler(fatal_error_handler, nullptr);
}

struct Depth {
   Depth() { guard_depth++; }
   ~Depth() { guard_depth--; }
};

} // namespace

extern "C" enum kiln_llvm_guard_status kiln_llvm_guard(void (*fn)(void *), void *arg,
                                                        char *why, size_t why_size)
{
   pthread_once(&handlers_once, install_handlers);
   if (why && why_size)
      why[0] = 0;
   try {
      Depth d;
      fn(arg);
      return KILN_LLVM_GUARD_OK;
   } catch (const std::bad_alloc &) {
      guard_catches++;
      return KILN_LLVM_GUARD_OUT_OF_MEMORY;
   } catch (const Fatal &f) {
      guard_catches++;
      if (why && why_size)
         std::snprintf(why, why_size, "%s", f.why);
      return KILN_LLVM_GUARD_FATAL;
   } catch (...) {
      // Nothing else is thrown by LLVM; a std::length_error from a string
      // that could not grow is running out of memory all the same.
      guard_catches++;
      return KILN_LLVM_GUARD_OUT_OF_MEMORY;
   }
}

extern "C" unsigned kiln_llvm_guard_catches(void)
{
   return guard_catches;
}

// Clang's own stack check (clang/Basic/Stack.h) measures from the first
// address noteBottomOfStack() saw on a thread, and assumes an 8 MiB stack:
// between 7.75 and 8 MiB from it, some of Sema's steps warn "stack nearly
// exhausted" (an error under -Werror) and move to a new thread of 8 MiB,
// where neither the compiler thread's stack nor Kiln's limit applies.
// Kiln's compiler thread notes, before Clang can, an address far (more
// than 8 MiB) from where the build runs: Clang then never considers the
// stack nearly exhausted, and Kiln's limit is the only one.  The note has
// to come from code running there, hence the small context below, on the
// memory the caller gives.  (A malloc()ed block was not far enough: a
// thread's malloc arena can sit within 8 MiB of its stack, and then a
// build now and then moved to Clang's thread and failed Kiln's limit.)
#if !defined(__SANITIZE_ADDRESS__) && !defined(KILN_ASAN_BUILD)
namespace {

void note_far_bottom()
{
   clang::noteBottomOfStack();
}

} // namespace
#endif

extern "C" void kiln_llvm_note_stack(void *stack, size_t size)
{
#if defined(__SANITIZE_ADDRESS__) || defined(KILN_ASAN_BUILD)
   // AddressSanitizer warns about every swapcontext; its builds keep
   // Clang's check (only programs nested 8 MiB deep notice).  This file
   // is not instrumented itself (src/llvm/meson.build), hence the flag.
   (void)stack;
   (void)size;
#else
   ucontext_t here, there;
   if (!getcontext(&there)) {
      there.uc_stack.ss_sp = stack;
      there.uc_stack.ss_size = size;
      there.uc_link = &here;
      makecontext(&there, note_far_bottom, 0);
      swapcontext(&here, &there);
   }
#endif
}
