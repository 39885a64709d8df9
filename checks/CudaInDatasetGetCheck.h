//===--- CudaInDatasetGetCheck.h - torch-tidy -------------------*- C++ -*-===//

#ifndef TORCHTIDY_CHECKS_CUDAINDATASETGETCHECK_H
#define TORCHTIDY_CHECKS_CUDAINDATASETGETCHECK_H

#include "UserCodeCheck.h"
#include "torchtidy/analysis/CudaWork.h"

#include <memory>

namespace clang::tidy::libtorch {

/// Finds CUDA work (moves to a CUDA device, CUDA factories, CUDA API calls,
/// kernel launches, reads of member tensors moved to CUDA) in a dataset's
/// get()/get_batch() or a transform's apply(), which the DataLoader runs on
/// its worker threads.
///
/// For the user-facing documentation see:
/// docs/checks/cuda-in-dataset-get.md
class CudaInDatasetGetCheck : public UserCodeCheck {
public:
  CudaInDatasetGetCheck(StringRef Name, ClangTidyContext *Context);
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;

private:
  void checkFunction(const FunctionDecl *FD, ASTContext &Ctx) override;
  void endTranslationUnit() override { Work.reset(); }
  void report(const CXXMethodDecl *Hook,
              const torchtidy::CudaWorkFinding &Finding, SourceManager &SM);
  void reportExternal(const CXXMethodDecl *Hook,
                      const torchtidy::CudaWorkFinding &Finding,
                      SourceManager &SM);

  const unsigned MaxCallDepth;
  /// One finder per translation unit, so each body is scanned once however
  /// many hooks reach it.
  std::unique_ptr<torchtidy::CudaWorkFinder> Work;
};

} // namespace clang::tidy::libtorch

#endif
