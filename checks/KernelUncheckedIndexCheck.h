//===--- KernelUncheckedIndexCheck.h - torch-tidy ---------------*- C++ -*-===//

#ifndef TORCHTIDY_CHECKS_KERNELUNCHECKEDINDEXCHECK_H
#define TORCHTIDY_CHECKS_KERNELUNCHECKEDINDEXCHECK_H

#include "UserCodeCheck.h"
#include "torchtidy/analysis/KernelIndexLoads.h"

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
class KernelUncheckedIndexCheck : public UserCodeCheck {
public:
  KernelUncheckedIndexCheck(StringRef Name, ClangTidyContext *Context);
  void registerPPCallbacks(const SourceManager &SM, Preprocessor *PP,
                           Preprocessor *ModuleExpanderPP) override;
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;

  /// The invocations of the assert macros seen by the preprocessor.
  std::vector<torchtidy::AssertMacroUse> Asserts;
  torchtidy::KernelIndexConfig Config;

private:
  void checkTranslationUnit(ASTContext &Ctx) override;
  void endTranslationUnit() override { Asserts.clear(); }
  void report(const torchtidy::UncheckedIndexLoad &U, ASTContext &Ctx);

  const std::string AssertMacros;
};

} // namespace clang::tidy::libtorch

#endif
