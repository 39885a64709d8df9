//===--- CrossDeviceIndexCheck.h - torch-tidy -------------------*- C++ -*-===//

#ifndef TORCHTIDY_CHECKS_CROSSDEVICEINDEXCHECK_H
#define TORCHTIDY_CHECKS_CROSSDEVICEINDEXCHECK_H

#include "UserCodeCheck.h"
#include "torchtidy/analysis/DeviceFlow.h"

namespace clang::tidy::libtorch {

/// Finds index ops (index_select, gather, scatter, embedding, ...) whose
/// index tensor is certain to be on another device than the tensor it
/// indexes.
///
/// For the user-facing documentation see:
/// docs/checks/cross-device-index.md
class CrossDeviceIndexCheck : public UserCodeCheck {
public:
  CrossDeviceIndexCheck(StringRef Name, ClangTidyContext *Context);
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;

private:
  void checkFunction(const FunctionDecl *FD, ASTContext &Ctx) override;
  void report(const torchtidy::IndexSiteFacts &Site, ASTContext &Ctx);
  void noteFact(const torchtidy::DeviceFact &Fact, StringRef Subject);

  /// Also warn on Tensor::index / operator[] / index_put_ with a CPU index
  /// into a CUDA tensor: allowed, but a copy and a sync each call.
  const bool WarnOnImplicitIndexCopy;
};

} // namespace clang::tidy::libtorch

#endif
