//===--- DanglingDataPtrCheck.h - torch-tidy --------------------*- C++ -*-===//

#ifndef TORCHTIDY_CHECKS_DANGLINGDATAPTRCHECK_H
#define TORCHTIDY_CHECKS_DANGLINGDATAPTRCHECK_H

#include "ClangTidyCheck.h"
#include "torchtidy/analysis/PointerLifetime.h"

#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::libtorch {

/// Finds raw pointers into tensor storage (`data_ptr<T>()`, `data<T>()`,
/// accessors) that are used after that storage is freed: taken on a
/// temporary tensor an op may have freshly allocated and kept past the end
/// of the statement, or taken on a local tensor that goes out of scope or
/// is reassigned before the pointer's last use.
///
/// For the user-facing documentation see:
/// docs/checks/dangling-data-ptr.md
class DanglingDataPtrCheck : public ClangTidyCheck {
public:
  DanglingDataPtrCheck(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context) {}
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onEndOfTranslationUnit() override { Reported.clear(); }
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }

private:
  void report(const torchtidy::DanglingPointer &D, const FunctionDecl *FD,
              ASTContext &Ctx);

  /// Sites already reported: a template's instantiations share them.
  llvm::DenseSet<unsigned> Reported;
};

} // namespace clang::tidy::libtorch

#endif
