//===--- UnregisteredSubmoduleCheck.h - torch-tidy --------------*- C++ -*-===//

#ifndef TORCHTIDY_CHECKS_UNREGISTEREDSUBMODULECHECK_H
#define TORCHTIDY_CHECKS_UNREGISTEREDSUBMODULECHECK_H

#include "UnregisteredMemberCheckBase.h"

namespace clang::tidy::libtorch {

/// Finds submodule members of a `torch::nn::Module` subclass that never go
/// through `register_module`.
///
/// For the user-facing documentation see:
/// docs/checks/unregistered-submodule.md
class UnregisteredSubmoduleCheck : public UnregisteredMemberCheckBase {
public:
  UnregisteredSubmoduleCheck(StringRef Name, ClangTidyContext *Context)
      : UnregisteredMemberCheckBase(Name, Context),
        IncludeStateless(Options.get("IncludeStateless", false)) {}
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;

protected:
  bool isReportable(const torchtidy::MemberFacts &Facts) const override;
  bool isOwnKind(const torchtidy::MemberFacts &Facts) const override {
    return Facts.Class.K == torchtidy::MemberClass::Submodule;
  }
  bool harmlessByUse(const FieldDecl *Field,
                     const torchtidy::MemberFacts &Facts,
                     torchtidy::MemberUses &Uses) const override;
  void report(const FieldDecl *Field, const CXXRecordDecl *Owner,
              const torchtidy::MemberFacts &Facts) override;

private:
  const bool IncludeStateless;
};

} // namespace clang::tidy::libtorch

#endif
