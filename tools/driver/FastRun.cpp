//===--- FastRun.cpp - torch-tidy's way of running clang-tidy -------------===//

#include "FastRun.h"
#include "DriverCompat.h"
#include "PreambleCache.h"

#include "ClangTidy.h"
#include "ClangTidyDiagnosticConsumer.h"
#include "ClangTidyModule.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/MultiplexConsumer.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <type_traits>

using namespace clang;
using namespace clang::tidy;
using namespace clang::tooling;

namespace torchtidy::driver {

FastRunOptions &fastRunOptions() {
  static FastRunOptions Options;
  return Options;
}

namespace {

void logLine(llvm::StringRef What, llvm::StringRef File) {
  if (fastRunOptions().CacheVerbose)
    llvm::errs() << "torch-tidy: " << What << ": " << File << "\n";
}

/// Collects the top-level declarations written outside system headers and,
/// before the checks run, makes them the AST's traversal scope. Declarations
/// of the user's own headers are kept: a module class declared in model.h is
/// checked as before.
class UserScopeConsumer : public ASTConsumer {
public:
  UserScopeConsumer(const SourceManager &SM, std::string File)
      : SM(SM), File(std::move(File)) {}

  bool HandleTopLevelDecl(DeclGroupRef Group) override {
    for (Decl *D : Group) {
      ++Seen;
      SourceLocation Loc = D->getLocation();
      if (Loc.isValid() && !SM.isInSystemHeader(SM.getExpansionLoc(Loc)) &&
          !isImplicitInstantiation(D))
        Scope.push_back(D);
    }
    return true;
  }

  void HandleTranslationUnit(ASTContext &Context) override {
    Context.setTraversalScope(Scope);
    // What the checks will traverse, read back from the context: the test
    // that the fast path is in effect (test/tools/traversal-scope.test).
    logLine("traversal scope: " +
                std::to_string(Context.getTraversalScope().size()) + " of " +
                std::to_string(Seen) + " top-level declarations",
            File);
  }

private:
  /// Sema hands each function template instantiation to the consumer as a
  /// top-level declaration too (for code generation). A whole-TU traversal
  /// reaches it from its template, or not at all (a generic lambda's call
  /// operator), so it stays out of the scope, as in clangd.
  static bool isImplicitInstantiation(const Decl *D) {
    if (const auto *FD = dyn_cast<FunctionDecl>(D))
      return FD->getTemplateSpecializationKind() == TSK_ImplicitInstantiation;
    if (const auto *RD = dyn_cast<CXXRecordDecl>(D))
      return RD->getTemplateSpecializationKind() == TSK_ImplicitInstantiation;
    if (const auto *VD = dyn_cast<VarDecl>(D))
      return VD->getTemplateSpecializationKind() == TSK_ImplicitInstantiation;
    return false;
  }

  const SourceManager &SM;
  std::string File;
  std::vector<Decl *> Scope;
  unsigned Seen = 0;
};

/// Whether every check enabled for a file is one of ours, by the file's
/// `Checks` (cached: a project has few distinct configurations).
class CheckSetFilter {
public:
  explicit CheckSetFilter(ClangTidyContext &Context) : Context(Context) {}

  bool onlyLibTorchChecks(llvm::StringRef File) {
    ClangTidyOptions Options = Context.getOptionsForFile(File);
    std::string Checks = Options.Checks.value_or("");
    auto [It, Inserted] = Known.try_emplace(Checks, false);
    if (Inserted) {
      std::vector<std::string> Names =
          compat::enabledCheckNames(Options, Context);
      It->second =
          !Names.empty() && llvm::all_of(Names, [](const std::string &N) {
            return llvm::StringRef(N).starts_with("libtorch-");
          });
    }
    return It->second;
  }

private:
  ClangTidyContext &Context;
  llvm::StringMap<bool> Known;
};

class TidyActionFactory : public FrontendActionFactory {
public:
  TidyActionFactory(
      ClangTidyContext &Context,
      llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> BaseFS,
      CheckSetFilter &Filter, bool Quiet, bool LeakAtEnd)
      : ConsumerFactory(Context, std::move(BaseFS)), Filter(Filter),
        Quiet(Quiet), LeakAtEnd(LeakAtEnd) {}

  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<Action>(*this);
  }

  bool runInvocation(std::shared_ptr<CompilerInvocation> Invocation,
                     FileManager *Files,
                     std::shared_ptr<PCHContainerOperations> PCHContainerOps,
                     DiagnosticConsumer *DiagConsumer) override {
    // As clang-tidy: code may test for __clang_analyzer__.
    Invocation->getPreprocessorOpts().SetUpStaticAnalyzer = true;
    if (Quiet)
      Invocation->getDiagnosticOpts().ShowCarets = false;
    // The process ends after its one file: leave the AST to the exit, as
    // clang's own -cc1 does (-disable-free), instead of freeing it piece by
    // piece.
    if (LeakAtEnd)
      Invocation->getFrontendOpts().DisableFree = true;
    return FrontendActionFactory::runInvocation(
        std::move(Invocation), Files, std::move(PCHContainerOps), DiagConsumer);
  }

private:
  class Action : public ASTFrontendAction {
  public:
    explicit Action(TidyActionFactory &Parent) : Parent(Parent) {}
    std::unique_ptr<ASTConsumer>
    CreateASTConsumer(CompilerInstance &Compiler,
                      llvm::StringRef File) override {
      std::unique_ptr<ASTConsumer> Tidy =
          Parent.ConsumerFactory.createASTConsumer(Compiler, File);
      if (!Tidy || !fastRunOptions().UserScope ||
          !Parent.Filter.onlyLibTorchChecks(File))
        return Tidy;
      std::vector<std::unique_ptr<ASTConsumer>> Consumers;
      Consumers.push_back(std::make_unique<UserScopeConsumer>(
          Compiler.getSourceManager(), File.str()));
      Consumers.push_back(std::move(Tidy));
      return std::make_unique<MultiplexConsumer>(std::move(Consumers));
    }

  private:
    TidyActionFactory &Parent;
  };

  ClangTidyASTConsumerFactory ConsumerFactory;
  CheckSetFilter &Filter;
  bool Quiet;
  bool LeakAtEnd;
};

/// clang-tidy's per-file ExtraArgsBefore and ExtraArgs from its options.
ArgumentsAdjuster extraArgsAdjuster(ClangTidyContext &Context) {
  return [&Context](const CommandLineArguments &Args, llvm::StringRef File) {
    ClangTidyOptions Options = Context.getOptionsForFile(File);
    CommandLineArguments Out = Args;
    if (Options.ExtraArgsBefore) {
      auto At = Out.begin();
      if (At != Out.end() && !llvm::StringRef(*At).starts_with("-"))
        ++At; // after the compiler's name
      Out.insert(At, Options.ExtraArgsBefore->begin(),
                 Options.ExtraArgsBefore->end());
    }
    if (Options.ExtraArgs)
      Out.insert(Out.end(), Options.ExtraArgs->begin(),
                 Options.ExtraArgs->end());
    return Out;
  };
}

std::vector<ClangTidyError>
runClangTidyFast(ClangTidyContext &Context,
                 const CompilationDatabase &Compilations,
                 llvm::ArrayRef<std::string> InputFiles,
                 llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> BaseFS,
                 bool ApplyAnyFix, bool EnableCheckProfile,
                 llvm::StringRef StoreCheckProfile, bool Quiet) {
  ClangTool Tool(Compilations, InputFiles,
                 std::make_shared<PCHContainerOperations>(), BaseFS);
  Tool.appendArgumentsAdjuster(extraArgsAdjuster(Context));
  Tool.appendArgumentsAdjuster(getStripPluginsAdjuster());

  CheckSetFilter Filter(Context);
  const FastRunOptions &Fast = fastRunOptions();
  std::optional<PreambleCache> Cache;
  if (!Fast.CacheDir.empty()) {
    Cache.emplace(Fast.CacheDir, BaseFS, Fast.CacheVerbose);
    Tool.appendArgumentsAdjuster([&](const CommandLineArguments &Args,
                                     llvm::StringRef File) {
      return Filter.onlyLibTorchChecks(File) ? Cache->adjust(Args, File) : Args;
    });
  }

  Context.setEnableProfiling(EnableCheckProfile);
  Context.setProfileStoragePrefix(StoreCheckProfile);

  ClangTidyDiagnosticConsumer DiagConsumer(Context, nullptr, true, ApplyAnyFix);
  compat::ContextDiagnostics Diagnostics(Context, DiagConsumer);
  Tool.setDiagnosticConsumer(&DiagConsumer);

  // The profile is written when the checks' consumer is destroyed.
  const bool LeakAtEnd = InputFiles.size() == 1 && !EnableCheckProfile &&
                         StoreCheckProfile.empty();
  TidyActionFactory Factory(Context, std::move(BaseFS), Filter, Quiet,
                            LeakAtEnd);
  Tool.run(&Factory);
  return DiagConsumer.take();
}

} // namespace

} // namespace torchtidy::driver

// The replacement of clang::tidy::runClangTidy: the linker sends
// clangTidyMain's call here (--wrap=<mangled name>, the name read from the
// clang-tidy library at configure time, tools/CMakeLists.txt).
std::vector<ClangTidyError> torchtidyRunClangTidy(
    ClangTidyContext &Context, const CompilationDatabase &Compilations,
    llvm::ArrayRef<std::string> InputFiles,
    llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> BaseFS,
    bool ApplyAnyFix, bool EnableCheckProfile,
    llvm::StringRef StoreCheckProfile
        TORCHTIDY_RUN_CLANG_TIDY_EXTRA_PARAMS) asm("__"
                                                   "wrap"
                                                   "_" TORCHTIDY_RUN_CLANG_TIDY_SYMBOL);
// The wrapped symbol is the one runClangTidy the library defines; this is
// its declared type, or the build stops here.
static_assert(std::is_same_v<decltype(&clang::tidy::runClangTidy),
                             decltype(&torchtidyRunClangTidy)>,
              "clang::tidy::runClangTidy changed: update "
              "TORCHTIDY_RUN_CLANG_TIDY_EXTRA_PARAMS (DriverCompat.h)");
std::vector<ClangTidyError> torchtidyRunClangTidy(
    ClangTidyContext &Context, const CompilationDatabase &Compilations,
    llvm::ArrayRef<std::string> InputFiles,
    llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> BaseFS,
    bool ApplyAnyFix, bool EnableCheckProfile,
    llvm::StringRef StoreCheckProfile TORCHTIDY_RUN_CLANG_TIDY_EXTRA_PARAMS) {
  return torchtidy::driver::runClangTidyFast(
      Context, Compilations, InputFiles, std::move(BaseFS), ApplyAnyFix,
      EnableCheckProfile, StoreCheckProfile, TORCHTIDY_RUN_CLANG_TIDY_QUIET);
}
