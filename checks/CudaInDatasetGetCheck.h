//===--- CudaInDatasetGetCheck.h - torch-tidy -------------------*- C++ -*-===//

#ifndef TORCHTIDY_CHECKS_CUDAINDATASETGETCHECK_H
#define TORCHTIDY_CHECKS_CUDAINDATASETGETCHECK_H

#include "ClangTidyCheck.h"
#include "torchtidy/analysis/CudaWork.h"

#include "llvm/ADT/DenseSet.h"

#include <memory>

namespace clang::tidy::libtorch {

/// Finds CUDA work (moves to a CUDA device, CUDA factories, CUDA API calls,
/// kernel launches, reads of member tensors moved to CUDA) in a dataset's
/// get()/get_batch() or a transform's apply(), which the DataLoader runs on
/// its worker threads.
///
/// For the user-facing documentation see:
/// docs/checks/cuda-in-dataset-get.md
class CudaInDatasetGetCheck : public ClangTidyCheck {
public:
  CudaInDatasetGetCheck(StringRef Name, ClangTidyContext *Context);
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onEndOfTranslationUnit() override;
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }

private:
  void report(const CXXMethodDecl *Hook,
              const torchtidy::CudaWorkFinding &Finding);

  const unsigned MaxCallDepth;
  /// One finder per translation unit, so each body is scanned once however
  /// many hooks reach it.
  std::unique_ptr<torchtidy::CudaWorkFinder> Work;
  /// Sites already reported: a class template's instantiations share them.
  llvm::DenseSet<unsigned> Reported;
};

} // namespace clang::tidy::libtorch

#endif
