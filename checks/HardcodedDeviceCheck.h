//===--- HardcodedDeviceCheck.h - torch-tidy --------------------*- C++ -*-===//

#ifndef TORCHTIDY_CHECKS_HARDCODEDDEVICECHECK_H
#define TORCHTIDY_CHECKS_HARDCODEDDEVICECHECK_H

#include "UserCodeCheck.h"
#include "torchtidy/analysis/HardcodedDevice.h"

namespace clang::tidy::libtorch {

/// Finds tensors that a torch::nn::Module subclass creates on, or moves to,
/// a device fixed in its code (torch::kCUDA, "cuda:0", .cuda(), a device
/// index literal, a global device), and factories without a device in
/// forward() or another method of a built module that meet the module's
/// inputs or parameters.
///
/// For the user-facing documentation see:
/// docs/checks/hardcoded-device.md
class HardcodedDeviceCheck : public UserCodeCheck {
public:
  HardcodedDeviceCheck(StringRef Name, ClangTidyContext *Context);
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;

private:
  void checkTranslationUnit(ASTContext &Ctx) override;
  void reportFixed(const torchtidy::HardcodedDeviceSite &Site, ASTContext &Ctx);
  void reportNoDevice(const torchtidy::HardcodedDeviceSite &Site,
                      ASTContext &Ctx);
  void reportDefaultArgument(const torchtidy::HardcodedDeviceSite &Site,
                             ASTContext &Ctx);
  void noteDevice(const torchtidy::FixedDevice &D);

  const unsigned MaxCallDepth;
};

} // namespace clang::tidy::libtorch

#endif
