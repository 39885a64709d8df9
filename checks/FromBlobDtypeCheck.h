//===--- FromBlobDtypeCheck.h - torch-tidy ----------------------*- C++ -*-===//

#ifndef TORCHTIDY_CHECKS_FROMBLOBDTYPECHECK_H
#define TORCHTIDY_CHECKS_FROMBLOBDTYPECHECK_H

#include "ClangTidyCheck.h"
#include "torchtidy/analysis/PointeeTypes.h"

#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::libtorch {

/// Finds from_blob calls whose dtype (float when none is given) does not
/// match the type of the elements its pointer points at: the tensor
/// reinterprets their bytes, and may read past the end of the buffer.
///
/// For the user-facing documentation see:
/// docs/checks/from-blob-dtype.md
class FromBlobDtypeCheck : public ClangTidyCheck {
public:
  FromBlobDtypeCheck(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context) {}
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onEndOfTranslationUnit() override { Reported.clear(); }
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }

private:
  void report(const torchtidy::BlobDtypeMismatch &M, ASTContext &Ctx);

  llvm::DenseSet<unsigned> Reported;
};

} // namespace clang::tidy::libtorch

#endif
