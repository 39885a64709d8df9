//===--- CudaErrorRecoveryCheck.h - torch-tidy ------------------*- C++ -*-===//

#ifndef TORCHTIDY_CHECKS_CUDAERRORRECOVERYCHECK_H
#define TORCHTIDY_CHECKS_CUDAERRORRECOVERYCHECK_H

#include "UserCodeCheck.h"
#include "torchtidy/analysis/CudaErrorRecovery.h"

namespace clang::tidy::libtorch {

/// Finds catch handlers around CUDA work that can receive a CUDA error and
/// carry on (no rethrow, no exit) or do more CUDA work, although the CUDA
/// context is dead after an illegal memory access or a device-side assert.
///
/// For the user-facing documentation see:
/// docs/checks/cuda-error-recovery.md
class CudaErrorRecoveryCheck : public UserCodeCheck {
public:
  CudaErrorRecoveryCheck(StringRef Name, ClangTidyContext *Context);
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus && LangOpts.CXXExceptions;
  }

private:
  void checkTranslationUnit(ASTContext &Ctx) override;
  void noteEvidence(const torchtidy::CudaEvidence &E, bool InHandler,
                    SourceManager &SM);
  /// The argument of a construction whose device \p Op works on, if any.
  void noteReceived(const torchtidy::CudaOp &Op);

  const unsigned MaxCallDepth;
};

} // namespace clang::tidy::libtorch

#endif
