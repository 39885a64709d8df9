//===--- KernelUncheckedIndexCheck.h - torch-tidy ---------------*- C++ -*-===//

#ifndef TORCHTIDY_CHECKS_KERNELUNCHECKEDINDEXCHECK_H
#define TORCHTIDY_CHECKS_KERNELUNCHECKEDINDEXCHECK_H

#include "ClangTidyCheck.h"
#include "torchtidy/analysis/KernelIndexLoads.h"

#include "llvm/ADT/DenseSet.h"

#include <string>
#include <vector>

namespace clang::tidy::libtorch {

/// Finds loads and stores in custom CUDA kernels (and in host loops over
/// raw tensor pointers) whose offset depends on a value read from an index
/// array that nothing bounds: one index out of range and the access reads or
/// writes outside its array.
///
/// For the user-facing documentation see:
/// docs/checks/kernel-unchecked-index.md
class KernelUncheckedIndexCheck : public ClangTidyCheck {
public:
  KernelUncheckedIndexCheck(StringRef Name, ClangTidyContext *Context);
  void registerPPCallbacks(const SourceManager &SM, Preprocessor *PP,
                           Preprocessor *ModuleExpanderPP) override;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onEndOfTranslationUnit() override;
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }

  /// The invocations of the assert macros seen by the preprocessor.
  std::vector<torchtidy::AssertMacroUse> Asserts;
  torchtidy::KernelIndexConfig Config;

private:
  void report(const torchtidy::UncheckedIndexLoad &U, ASTContext &Ctx);

  const std::string AssertMacros;
  llvm::DenseSet<unsigned> Reported;
};

} // namespace clang::tidy::libtorch

#endif
