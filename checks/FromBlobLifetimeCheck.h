//===--- FromBlobLifetimeCheck.h - torch-tidy -------------------*- C++ -*-===//

#ifndef TORCHTIDY_CHECKS_FROMBLOBLIFETIMECHECK_H
#define TORCHTIDY_CHECKS_FROMBLOBLIFETIMECHECK_H

#include "ClangTidyCheck.h"
#include "torchtidy/analysis/PointerLifetime.h"

#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::libtorch {

/// Finds tensors made by from_blob (without a deleter) over a local array,
/// std::vector, std::string, std::array or variable, or over a buffer freed
/// with delete[] or free, that outlive that memory: returned, stored in a
/// member, an out-parameter, the module, a container or an Example that
/// escapes, or used after the buffer is gone, with no copy in between.
///
/// For the user-facing documentation see:
/// docs/checks/from-blob-lifetime.md
class FromBlobLifetimeCheck : public ClangTidyCheck {
public:
  FromBlobLifetimeCheck(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context) {}
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onEndOfTranslationUnit() override { Reported.clear(); }
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }

private:
  void report(const torchtidy::BlobEscape &E, ASTContext &Ctx);
  /// The buffer of a temporary (`img.clone().data`), gone after its
  /// statement.
  void reportTemporary(const torchtidy::BlobEscape &E, ASTContext &Ctx);
  void addCloneFix(DiagnosticBuilder &Diag, const CallExpr *Call,
                   const ASTContext &Ctx);

  /// from_blob calls already reported: a template's instantiations share
  /// them.
  llvm::DenseSet<unsigned> Reported;
};

} // namespace clang::tidy::libtorch

#endif
