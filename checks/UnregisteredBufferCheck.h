//===--- UnregisteredBufferCheck.h - torch-tidy -----------------*- C++ -*-===//

#ifndef TORCHTIDY_CHECKS_UNREGISTEREDBUFFERCHECK_H
#define TORCHTIDY_CHECKS_UNREGISTEREDBUFFERCHECK_H

#include "UnregisteredMemberCheckBase.h"

namespace clang::tidy::libtorch {

/// Finds tensor data members of a `torch::nn::Module` subclass that are never
/// registered with `register_buffer` or `register_parameter`.
///
/// For the user-facing documentation see:
/// docs/checks/unregistered-buffer.md
class UnregisteredBufferCheck : public UnregisteredMemberCheckBase {
public:
  UnregisteredBufferCheck(StringRef Name, ClangTidyContext *Context)
      : UnregisteredMemberCheckBase(Name, Context),
        IncludeMovedToInputDevice(
            Options.get("IncludeMovedToInputDevice", false)) {}
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;

protected:
  bool isReportable(const torchtidy::MemberFacts &Facts) const override;
  bool isOwnKind(const torchtidy::MemberFacts &Facts) const override {
    return Facts.Class.K == torchtidy::MemberClass::Tensor;
  }
  bool harmlessByUse(const FieldDecl *Field,
                     const torchtidy::MemberFacts &Facts,
                     torchtidy::MemberUses &Uses) const override;
  void report(const FieldDecl *Field, const CXXRecordDecl *Owner,
              const torchtidy::MemberFacts &Facts) override;

private:
  /// Report members whose every use moves them to another tensor's device.
  const bool IncludeMovedToInputDevice;
};

} // namespace clang::tidy::libtorch

#endif
