//===--- CrossDeviceIndexCheck.cpp - torch-tidy ---------------------------===//

#include "CrossDeviceIndexCheck.h"
#include "SourceText.h"
#include "torchtidy/analysis/LLVMCompat.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchTypes.h"

#include "clang/Lex/Lexer.h"

using torchtidy::DeviceFact;
using torchtidy::IndexDeviceMismatch;
using torchtidy::IndexSiteFacts;

namespace clang::tidy::libtorch {

CrossDeviceIndexCheck::CrossDeviceIndexCheck(StringRef Name,
                                             ClangTidyContext *Context)
    : UserCodeCheck(Name, Context),
      WarnOnImplicitIndexCopy(Options.get("WarnOnImplicitIndexCopy", false)) {}

void CrossDeviceIndexCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "WarnOnImplicitIndexCopy", WarnOnImplicitIndexCopy);
}

void CrossDeviceIndexCheck::checkFunction(const FunctionDecl *FD,
                                          ASTContext &Ctx) {
  if (!torchtidy::containsIndexOp(FD->getBody()))
    return;
  const torchtidy::DeviceFlow *Flow = torchtidy::sharedDeviceFlow(FD, Ctx);
  if (!Flow)
    return;
  for (const IndexSiteFacts &Site : Flow->sites()) {
    if (Site.Mismatch == IndexDeviceMismatch::None ||
        (Site.Mismatch == IndexDeviceMismatch::ImplicitCopy &&
         !WarnOnImplicitIndexCopy))
      continue;
    if (firstReport(torchtidy::compat::beginLoc(Site.Call)))
      report(Site, Ctx);
  }
}

/// \p E without implicit nodes and the copies LibTorch's signatures make.
static const Expr *written(const Expr *E) {
  return torchtidy::peel::peel(E, torchtidy::peel::CopiedInParens);
}

/// `idx`, `this->idx`, `(idx)`: spelled as a name the user can recognise.
static const NamedDecl *namedValue(const Expr *E) {
  if (!E)
    return nullptr;
  E = torchtidy::peel::peel(E, torchtidy::peel::Copied);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    return DRE->getDecl();
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    if (torchtidy::peel::onThisObject(ME))
      return ME->getMemberDecl();
  return nullptr;
}

static std::string quotedName(const NamedDecl *D, StringRef Otherwise) {
  if (!D || !D->getIdentifier())
    return Otherwise.str();
  return "'" + D->getName().str() + "'";
}

/// The written text of \p E when it is a name or a member access that can
/// be repeated without side effects, else "".
static std::string plainText(const Expr *E, const ASTContext &Ctx) {
  E = written(E);
  if (!namedValue(E) || E->getBeginLoc().isMacroID() ||
      E->getEndLoc().isMacroID())
    return "";
  return Lexer::getSourceText(
             CharSourceRange::getTokenRange(E->getSourceRange()),
             Ctx.getSourceManager(), Ctx.getLangOpts())
      .str();
}

/// What `.device()` of the source is spelled as, or "".
static std::string sourceDeviceText(const torchtidy::IndexOpSite &Site,
                                    const ASTContext &Ctx) {
  if (Site.Module) {
    const std::string Text = plainText(Site.Module, Ctx);
    if (Text.empty())
      return "";
    const QualType T = Site.Module->getType().getNonReferenceType();
    const bool Pointer = torchtidy::getHolderModule(T) ||
                         torchtidy::getSharedPtrModule(T) || T->isPointerType();
    return Text + (Pointer ? "->" : ".") + "weight." +
           opCallText(torchtidy::op::Named::device);
  }
  const std::string Text = plainText(Site.Source, Ctx);
  return Text.empty() ? ""
                      : Text + "." + opCallText(torchtidy::op::Named::device);
}

/// The index may take `.to(...)` as written: a primary or postfix
/// expression outside a macro.
static bool isPlainIndex(const Expr *Index) {
  const Expr *E = written(Index);
  if (E->getBeginLoc().isMacroID() || E->getEndLoc().isMacroID())
    return false;
  E = torchtidy::peel::peel(E, torchtidy::peel::Parens);
  return isa<DeclRefExpr, MemberExpr, ParenExpr>(E) ||
         isa<CXXMemberCallExpr>(E) ||
         (isa<CallExpr>(E) && !isa<CXXOperatorCallExpr>(E));
}

void CrossDeviceIndexCheck::report(const IndexSiteFacts &Site,
                                   ASTContext &Ctx) {
  const torchtidy::IndexOpSite &Op = Site.Site;
  const NamedDecl *IndexName = namedValue(Op.Index);
  const std::string IndexSubject =
      IndexName ? "index tensor " + quotedName(IndexName, "")
                : std::string("the index tensor");
  std::string SourceSubject;
  if (Op.Module)
    SourceSubject =
        "the weight of " + quotedName(namedValue(Op.Module), "the module");
  else
    SourceSubject = quotedName(namedValue(Op.Source), "the indexed tensor");
  const std::string Device = sourceDeviceText(Op, Ctx);
  const std::string MoveHint = Device.empty()
                                   ? std::string("move both to one device")
                                   : "move the index with .to(" + Device + ")";

  {
    auto Diag =
        Site.Mismatch == IndexDeviceMismatch::Error
            ? diag(torchtidy::compat::beginLoc(Site.Call),
                   "%0 is on %1 but %2 is on %3; '%4' throws \"Expected all "
                   "tensors to be on the same device\" at run time; %5")
            : diag(torchtidy::compat::beginLoc(Site.Call),
                   "%0 is on %1 but %2 is on %3; '%4' copies the index to "
                   "the device and synchronises on every call; create the "
                   "index on the device once");
    Diag << IndexSubject << Site.Index.describe() << SourceSubject
         << Site.Source.describe() << Op.Name;
    if (Site.Mismatch == IndexDeviceMismatch::Error) {
      Diag << MoveHint;
      if (!Device.empty() && isPlainIndex(Op.Index))
        Diag << FixItHint::CreateInsertion(
            Lexer::getLocForEndOfToken(written(Op.Index)->getEndLoc(), 0,
                                       Ctx.getSourceManager(),
                                       Ctx.getLangOpts()),
            "." + opCallText(torchtidy::op::Named::to, Device));
    }
  }
  noteFact(Site.Index, IndexName ? quotedName(IndexName, "")
                                 : std::string("the index tensor"));
  noteFact(Site.Source,
           Op.Module ? quotedName(namedValue(Op.Module), "the module")
                     : quotedName(namedValue(Op.Source), "the indexed tensor"));
}

void CrossDeviceIndexCheck::noteFact(const DeviceFact &Fact,
                                     StringRef Subject) {
  if (Fact.Origin)
    diag(Fact.Origin->getBeginLoc(),
         Fact.How == DeviceFact::Moved ? "%0 is moved to %1 here"
                                       : "%0 is created on %1 here",
         DiagnosticIDs::Note)
        << Subject << Fact.describe();
  if (Fact.K == DeviceFact::DeviceOf && Fact.Ref) {
    if (Fact.RefOrigin)
      diag(Fact.RefOrigin->getBeginLoc(), "%0 is chosen at run time here",
           DiagnosticIDs::Note)
          << Fact.Ref;
    else
      diag(Fact.Ref->getLocation(),
           "the device %0 holds is only known at "
           "run time",
           DiagnosticIDs::Note)
          << Fact.Ref;
  }
}

} // namespace clang::tidy::libtorch
