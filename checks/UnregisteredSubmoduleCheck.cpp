//===--- UnregisteredSubmoduleCheck.cpp - torch-tidy ----------------------===//

#include "UnregisteredSubmoduleCheck.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/UserCode.h"

namespace clang::tidy::libtorch {

void UnregisteredSubmoduleCheck::storeOptions(
    ClangTidyOptions::OptionMap &Opts) {
  UnregisteredMemberCheckBase::storeOptions(Opts);
  Options.store(Opts, "IncludeStateless", IncludeStateless);
}

bool UnregisteredSubmoduleCheck::isReportable(
    const torchtidy::MemberFacts &Facts) const {
  if (Facts.Class.K != torchtidy::MemberClass::Submodule)
    return false;
  if (!IncludeStateless && torchtidy::isStatelessModule(Facts.Class.Module))
    return false;
  // A module class of the user's: stateless ones are as harmless as a ReLU,
  // and one whose code is not in this TU may be either: say nothing.
  if (Facts.Class.Module && torchtidy::isUserDecl(Facts.Class.Module)) {
    switch (torchtidy::userModuleState(Facts.Class.Module)) {
    case torchtidy::UserModuleState::NotVisible:
      return false;
    case torchtidy::UserModuleState::Stateless:
      if (!IncludeStateless)
        return false;
      break;
    case torchtidy::UserModuleState::Stateful:
      break;
    }
  }
  bool Constructed = false, AnyWrite = false;
  for (const torchtidy::MemberWrite &W : Facts.Writes) {
    AnyWrite = true;
    Constructed |= !W.IsNull;
  }
  // A holder that nothing initialises default-constructs its module; a
  // `{nullptr}` holder or an empty shared_ptr holds nothing.
  if (!AnyWrite && !Facts.Class.IsSharedPtr && !Facts.Class.InContainer)
    Constructed = true;
  return Constructed;
}

bool UnregisteredSubmoduleCheck::harmlessByUse(
    const FieldDecl *Field, const torchtidy::MemberFacts &Facts,
    torchtidy::MemberUses &Uses) const {
  // Never written and never read: a member left over, that holds nothing
  // anyone uses (`torch::nn::Sequential features;`).
  for (const torchtidy::MemberWrite &W : Facts.Writes)
    if (!W.IsNull)
      return false;
  return !Facts.ReadsUnknown && Uses.reads(Field, Facts) == 0;
}

void UnregisteredSubmoduleCheck::report(const FieldDecl *Field,
                                        const CXXRecordDecl *Owner,
                                        const torchtidy::MemberFacts &Facts) {
  const SourceLocation At = reportLocation(Field, Facts);
  if (Facts.Class.ByValue && !Facts.Class.InContainer) {
    // register_module takes a shared_ptr or a holder: no fix-it rewrites a
    // member held by value into one.
    diag(At, "submodule %0 of module %1 is held by value and never "
             "registered; the optimizer, module->to(device), torch::save and "
             "eval() do not reach its parameters and state; register_module() "
             "takes a std::shared_ptr or a module holder: hold it as one "
             "(TORCH_MODULE) and assign it from register_module()")
        << Field << Owner;
    noteWrites(Field, Facts, At);
    return;
  }
  {
    auto Diag =
        diag(At,
             "%select{submodule %1|member %1, a container of submodules,}0 of "
             "module %2 is never registered; the optimizer, "
             "module->to(device), torch::save and eval() do not reach "
             "%select{its|their}0 parameters and state; assign "
             "%select{it|them}0 from register_module()")
        << Facts.Class.InContainer << Field << Owner;
    if (const torchtidy::MemberWrite *W = rewritableWrite(Facts))
      addRegistrationFix(
          Diag, Field, Owner, *W,
          torchtidy::opName(torchtidy::op::Named::register_module));
  }
  noteWrites(Field, Facts, At);
}

} // namespace clang::tidy::libtorch
