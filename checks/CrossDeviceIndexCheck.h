//===--- CrossDeviceIndexCheck.h - torch-tidy -------------------*- C++ -*-===//

#ifndef TORCHTIDY_CHECKS_CROSSDEVICEINDEXCHECK_H
#define TORCHTIDY_CHECKS_CROSSDEVICEINDEXCHECK_H

#include "ClangTidyCheck.h"
#include "torchtidy/analysis/DeviceFlow.h"

#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::libtorch {

/// Finds index ops (index_select, gather, scatter, embedding, ...) whose
/// index tensor is certain to be on another device than the tensor it
/// indexes.
///
/// For the user-facing documentation see:
/// docs/checks/cross-device-index.md
class CrossDeviceIndexCheck : public ClangTidyCheck {
public:
  CrossDeviceIndexCheck(StringRef Name, ClangTidyContext *Context);
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void onEndOfTranslationUnit() override { Reported.clear(); }
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }

private:
  void report(const torchtidy::IndexSiteFacts &Site, ASTContext &Ctx);
  void noteFact(const torchtidy::DeviceFact &Fact, StringRef Subject);

  /// Also warn on Tensor::index / operator[] / index_put_ with a CPU index
  /// into a CUDA tensor: allowed, but a copy and a sync each call.
  const bool WarnOnImplicitIndexCopy;
  /// Call locations already reported (instantiations share them).
  llvm::DenseSet<unsigned> Reported;
};

} // namespace clang::tidy::libtorch

#endif
