//===--- UnregisteredBufferCheck.cpp - torch-tidy -------------------------===//

#include "UnregisteredBufferCheck.h"
#include "torchtidy/analysis/TorchOps.h"

namespace clang::tidy::libtorch {

bool UnregisteredBufferCheck::isReportable(
    const torchtidy::MemberFacts &Facts) const {
  if (Facts.Class.K != torchtidy::MemberClass::Tensor)
    return false;
  // A tensor that the building code never writes is a cache filled later
  // (forward's last output, say), not state of the module.
  for (const torchtidy::MemberWrite &W : Facts.Writes)
    if (!W.IsNull)
      return true;
  return false;
}

void UnregisteredBufferCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  UnregisteredMemberCheckBase::storeOptions(Opts);
  Options.store(Opts, "IncludeMovedToInputDevice", IncludeMovedToInputDevice);
}

bool UnregisteredBufferCheck::harmlessByUse(const FieldDecl *Field,
                                            const torchtidy::MemberFacts &Facts,
                                            torchtidy::MemberUses &Uses) const {
  // `P.to(x.device())` at every use: no device mismatch whatever device the
  // module is moved to.
  // With methods of other files whose reads no summary counts, that cannot
  // be shown.
  return !IncludeMovedToInputDevice && !Facts.Class.InContainer &&
         !Facts.ReadsUnknown && Uses.onlyMovedToAnotherDevice(Field, Facts);
}

void UnregisteredBufferCheck::report(const FieldDecl *Field,
                                     const CXXRecordDecl *Owner,
                                     const torchtidy::MemberFacts &Facts) {
  const SourceLocation At = reportLocation(Field, Facts);
  {
    auto Diag =
        diag(At,
             "%select{tensor member|member}0 %1 of module %2 "
             "%select{is|holds tensors that are}0 never registered; "
             "module->to(device) leaves %select{it|them}0 behind and "
             "parameters(), buffers() and torch::save miss %select{it|them}0; "
             "assign %select{it|them}0 from register_buffer() or "
             "register_parameter()")
        << Facts.Class.InContainer << Field << Owner;
    if (const torchtidy::MemberWrite *W = rewritableWrite(Facts))
      addRegistrationFix(
          Diag, Field, Owner, *W,
          torchtidy::opName(torchtidy::op::Named::register_buffer));
  }
  noteWrites(Field, Facts, At);
}

} // namespace clang::tidy::libtorch
