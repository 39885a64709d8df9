//===--- UncheckedIndexCheck.h - torch-tidy ---------------------*- C++ -*-===//

#ifndef TORCHTIDY_CHECKS_UNCHECKEDINDEXCHECK_H
#define TORCHTIDY_CHECKS_UNCHECKEDINDEXCHECK_H

#include "ClangTidyCheck.h"
#include "torchtidy/analysis/IndexGuards.h"
#include "torchtidy/analysis/TorchOps.h"
#include "utils/IncludeInserter.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace clang::tidy::libtorch {

/// Finds index tensors that come from outside the function and reach an
/// embedding, an index op or a loss target with no bounds check on every
/// path before them.
///
/// For the user-facing documentation see:
/// docs/checks/unchecked-index.md
class UncheckedIndexCheck : public ClangTidyCheck {
public:
  UncheckedIndexCheck(StringRef Name, ClangTidyContext *Context);
  void registerPPCallbacks(const SourceManager &SM, Preprocessor *PP,
                           Preprocessor *ModuleExpanderPP) override;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onEndOfTranslationUnit() override;
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }

private:
  struct Sink {
    const CallExpr *Call;
    torchtidy::IndexOpSite Site;
    /// The body of the function (or lambda) around the call.
    const Stmt *Body;
  };
  void analyze(const Sink &S, torchtidy::IndexGuardFinder &Finder);
  /// Literal ids outside a table of known size; true when reported.
  bool reportLiteral(const Sink &S, const torchtidy::IndexOrigin &Origin);
  void noteOrigin(const torchtidy::IndexOrigin &Origin);
  void addFix(DiagnosticBuilder &Diag, const Sink &S, StringRef Size);

  const bool CheckLossTargets;
  const std::string GuardFunctions;
  utils::IncludeInserter Inserter;
  ASTContext *Context = nullptr;
  /// Sinks in user code, grouped by the function (or lambda) around them,
  /// so that each function's CFG is built once.
  llvm::MapVector<const FunctionDecl *, llvm::SmallVector<Sink, 4>> Sinks;
};

} // namespace clang::tidy::libtorch

#endif
