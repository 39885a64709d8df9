//===--- UncheckedIndexCheck.h - torch-tidy ---------------------*- C++ -*-===//

#ifndef TORCHTIDY_CHECKS_UNCHECKEDINDEXCHECK_H
#define TORCHTIDY_CHECKS_UNCHECKEDINDEXCHECK_H

#include "UserCodeCheck.h"
#include "torchtidy/analysis/IndexGuards.h"
#include "torchtidy/analysis/IndexRanges.h"
#include "torchtidy/analysis/TorchOps.h"
#include "utils/IncludeInserter.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace clang::tidy::libtorch {

/// Finds indices with evidence that they can leave the table they read:
/// constant ids out of range, a length known only at run time into a table
/// of fixed rows, a shift past either end, data from outside the program,
/// or a bounds check that does not protect the use.
///
/// For the user-facing documentation see:
/// docs/checks/unchecked-index.md
class UncheckedIndexCheck : public UserCodeCheck {
public:
  UncheckedIndexCheck(StringRef Name, ClangTidyContext *Context);
  void registerPPCallbacks(const SourceManager &SM, Preprocessor *PP,
                           Preprocessor *ModuleExpanderPP) override;
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
  void checkTranslationUnit(ASTContext &Ctx) override;
  void endTranslationUnit() override {
    FixedStatements.clear();
    CallsReported.clear();
    Context = nullptr;
  }
  void analyze(const FunctionDecl *FD, const Sink &S,
               torchtidy::IndexGuardFinder &Finder,
               torchtidy::IndexRangeAnalysis &Ranges);
  /// One diagnostic, with notes at the evidence, for \p E.
  void reportEvidence(const Sink &S, const torchtidy::IndexEvidence &E);
  void noteOrigin(const torchtidy::IndexOrigin &Origin);
  /// Where ids from outside the program enter: the parse, or the call of a
  /// function of another file and the place its summary names.
  void noteOutside(const torchtidy::OutsideValues &O);
  /// Ids from outside the program passed to a function that indexes with
  /// them, unchecked: one of this unit (IndexRangeAnalysis::indexedParams)
  /// or, with a project's summaries, of another file (its indexedParams
  /// fact). Reported at the call.
  void checkPassedIds(ASTContext &Ctx, torchtidy::IndexRangeAnalysis &Ranges);
  /// A tensor whose length grows in a loop passed to a function of another
  /// file whose parameter's length indexes a table of fixed rows (its
  /// project summary's lengthParams), with nothing bounding the length by
  /// the rows here. Reported at the call.
  void checkPassedLengths(ASTContext &Ctx,
                          torchtidy::IndexRangeAnalysis &Ranges);
  void addFix(DiagnosticBuilder &Diag, const Sink &S, StringRef Size);

  const bool CheckLossTargets;
  /// Report every index from outside the function that has no bounds
  /// check, not only those with evidence of going out of range.
  const bool ReportParameters;
  const std::string GuardFunctions;
  utils::IncludeInserter Inserter;
  ASTContext *Context = nullptr;
  /// Statements a fix-it already inserts a check before.
  llvm::DenseSet<const Stmt *> FixedStatements;
  /// Calls a finding found in a caller is reported at (IndexEvidence's
  /// Caller): checkPassedIds says nothing more there.
  llvm::DenseSet<const CallExpr *> CallsReported;
};

} // namespace clang::tidy::libtorch

#endif
