//===--- HardcodedDeviceCheck.cpp - torch-tidy ----------------------------===//

#include "HardcodedDeviceCheck.h"
#include "SourceText.h"
#include "torchtidy/analysis/FunctionContext.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"

#include "clang/Basic/OperatorKinds.h"
#include "clang/Lex/Lexer.h"

using torchtidy::FixedDevice;
using torchtidy::HardcodedDeviceSite;

namespace clang::tidy::libtorch {

HardcodedDeviceCheck::HardcodedDeviceCheck(StringRef Name,
                                           ClangTidyContext *Context)
    : UserCodeCheck(Name, Context),
      MaxCallDepth(Options.get("MaxCallDepth", 4U)) {}

void HardcodedDeviceCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "MaxCallDepth", MaxCallDepth);
}

void HardcodedDeviceCheck::checkTranslationUnit(ASTContext &Ctx) {
  // The module classes come from user code alone
  // (torchtidy/analysis/UserCode.h).
  for (const HardcodedDeviceSite &Site :
       torchtidy::findHardcodedDevices(Ctx, MaxCallDepth)) {
    if (!firstReport(Site.Site->getBeginLoc()))
      continue;
    switch (Site.K) {
    case HardcodedDeviceSite::Fixed:
      reportFixed(Site, Ctx);
      break;
    case HardcodedDeviceSite::NoDevice:
      reportNoDevice(Site, Ctx);
      break;
    case HardcodedDeviceSite::DefaultArgument:
      reportDefaultArgument(Site, Ctx);
      break;
    }
  }
}

/// The op as the user calls it: `to`, `zeros`, `+`.
static std::string opName(const Expr *E) {
  const auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD)
    return "the call";
  if (FD->getOverloadedOperator() != OO_None)
    return getOperatorSpelling(FD->getOverloadedOperator());
  return FD->getNameAsString();
}

/// The text of \p E when it lies in one file outside macros, else "".
static std::string quotedUnexpanded(const Expr *E, const ASTContext &Ctx) {
  if (!E || E->getBeginLoc().isMacroID() || E->getEndLoc().isMacroID())
    return "";
  return quotedText(E, Ctx);
}

/// "a fixed device ('torch::kCUDA')", "the global device 'g_device'"...
static std::string describeDevice(const FixedDevice &D, const ASTContext &Ctx) {
  const std::string Text = quotedUnexpanded(D.Spelling, Ctx);
  const std::string Quoted = Text.empty() ? "" : " ('" + Text + "'";
  const std::string WhenAvailable =
      D.WhenAvailable ? " when CUDA is available" : "";
  switch (D.K) {
  case FixedDevice::CurrentCuda:
    return "the current CUDA device (cuda:0 unless a guard says otherwise)";
  case FixedDevice::Literal:
    return "a fixed device" +
           (Quoted.empty() ? "" : Quoted + WhenAvailable + ")");
  case FixedDevice::IndexLiteral:
    return "a device with a fixed index" + (Quoted.empty() ? "" : Quoted + ")");
  case FixedDevice::Global:
    return "the process-wide device '" + D.Holder->getNameAsString() +
           "' (a global or static variable)";
  case FixedDevice::Member:
    return "'" + D.Holder->getNameAsString() +
           "', a device member only ever set to a fixed device";
  case FixedDevice::None:
    break;
  }
  return "a fixed device";
}

void HardcodedDeviceCheck::noteDevice(const FixedDevice &D) {
  if (!D.Holder || !D.SetAt)
    return;
  diag(D.SetAt->getBeginLoc(), "%0 is set to a fixed device here",
       DiagnosticIDs::Note)
      << D.Holder;
}

/// The call whose argument \p E (a statement of \p Fn) is, through the
/// compiler's wrappers and conversions to the parameter's type.
static const CallExpr *enclosingCallArgument(const Expr *E,
                                             torchtidy::FunctionContext *Fn) {
  if (!Fn)
    return nullptr;
  auto Parent = [&](const Stmt *S) { return Fn->parentOf(S); };
  using namespace torchtidy::peel;
  const Expr *Arg =
      climb(E, Compiler | CopiesAndMoves | ConvertingConstructions, Parent);
  return dyn_cast_or_null<CallExpr>(Parent(Arg));
}

static CharSourceRange fileRange(SourceLocation Begin, SourceLocation End,
                                 const ASTContext &Ctx) {
  return Lexer::makeFileCharRange(CharSourceRange::getCharRange(Begin, End),
                                  Ctx.getSourceManager(), Ctx.getLangOpts());
}

static SourceLocation afterToken(SourceLocation Loc, const ASTContext &Ctx) {
  return Lexer::getLocForEndOfToken(Loc, 0, Ctx.getSourceManager(),
                                    Ctx.getLangOpts());
}

/// In a constructor: the edit that removes the device from a tensor that is
/// registered right away (`register_buffer("m", m.cuda())`): module->to()
/// moves it from the CPU.
static std::optional<FixItHint> removeDeviceFix(const HardcodedDeviceSite &S,
                                                ASTContext &Ctx) {
  const auto *Call = cast<CallExpr>(S.Site);
  const CallExpr *Outer = enclosingCallArgument(
      Call, torchtidy::FunctionContexts::of(Ctx).get(S.Function));
  if (!Outer ||
      !(torchtidy::callFacts(Outer) &
        (torchtidy::op::RegistersBuffer | torchtidy::op::RegistersParameter)))
    return std::nullopt;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
    // `t.cuda()`, `t.to(torch::kCUDA)`: drop the call.
    const Expr *Obj = MC->getImplicitObjectArgument();
    unsigned Written = 0;
    for (const Expr *Arg : MC->arguments())
      if (!isa<CXXDefaultArgExpr>(Arg))
        ++Written;
    if (!(torchtidy::callFacts(MC) &
          (torchtidy::op::MovesToCuda | torchtidy::op::MovesToArgument)) ||
        Written > 1 || Obj->getSourceRange().isInvalid())
      return std::nullopt;
    const CharSourceRange R =
        fileRange(afterToken(Obj->getEndLoc(), Ctx),
                  afterToken(MC->getRParenLoc(), Ctx), Ctx);
    if (R.isInvalid())
      return std::nullopt;
    return FixItHint::CreateRemoval(R);
  }
  // `torch::zeros({n}, torch::kCUDA)`: drop the device argument when it is
  // the options argument itself.
  const FunctionDecl *FD = Call->getDirectCallee();
  for (unsigned I = 1; FD && I < Call->getNumArgs() && I < FD->getNumParams();
       ++I) {
    if (!torchtidy::carriesDevice(FD->getParamDecl(I)->getType()))
      continue;
    const Expr *Arg = Call->getArg(I);
    if (isa<CXXDefaultArgExpr>(Arg) || !S.Device.Spelling ||
        torchtidy::peel::peel(Arg, torchtidy::peel::Implicit)
                ->getSourceRange() != S.Device.Spelling->getSourceRange())
      continue;
    const CharSourceRange R =
        fileRange(afterToken(Call->getArg(I - 1)->getEndLoc(), Ctx),
                  afterToken(Arg->getEndLoc(), Ctx), Ctx);
    if (R.isInvalid())
      return std::nullopt;
    return FixItHint::CreateRemoval(R);
  }
  return std::nullopt;
}

void HardcodedDeviceCheck::reportFixed(const HardcodedDeviceSite &S,
                                       ASTContext &Ctx) {
  const auto *Call = cast<CallExpr>(S.Site);
  const std::string Op = opName(Call);
  const bool Moves =
      (torchtidy::callFacts(Call) &
       (torchtidy::op::MovesToCuda | torchtidy::op::MovesToArgument))
          .any();
  const std::string What =
      "'" + Op + "' " +
      (Moves ? "moves a tensor to " : "creates a tensor on ") +
      describeDevice(S.Device, Ctx);
  const SourceLocation Loc = Call->getExprLoc();
  if (S.InConstruction) {
    auto D = diag(Loc, "%0 in %q1, where the module is built: this fails on "
                       "a machine without that device, and module->to(device) "
                       "moves only registered tensors, so the module's "
                       "tensors end up on two devices; create it on the CPU "
                       "and register it (register_buffer / "
                       "register_parameter): module->to(device) moves it")
             << What << S.Function;
    if (std::optional<FixItHint> Fix = removeDeviceFix(S, Ctx))
      D << *Fix;
  } else {
    const std::string Input = S.Input
                                  ? S.Input->getNameAsString() + "." +
                                        opCallText(torchtidy::op::Named::device)
                                  : "";
    auto D = diag(Loc, "%0 in %q1: when the module is moved to another "
                       "device (module->to(device)) or replicated by "
                       "data_parallel, its inputs and parameters are "
                       "elsewhere and ops on this tensor throw \"Expected "
                       "all tensors to be on the same device\"; %2")
             << What << S.Function
             << (Input.empty() ? std::string("take the device of an input or a "
                                             "parameter instead (x.device())")
                               : "take the input's device: " + Input);
    if (!Input.empty()) {
      if (S.Device.K == FixedDevice::CurrentCuda) {
        // `t.cuda()` -> `t.to(x.device())`.
        const auto *MC = cast<CXXMemberCallExpr>(Call);
        const auto *ME = dyn_cast<MemberExpr>(
            torchtidy::peel::peel(MC->getCallee(), torchtidy::peel::Implicit));
        if (ME) {
          const CharSourceRange R = fileRange(
              ME->getMemberLoc(), afterToken(MC->getRParenLoc(), Ctx), Ctx);
          if (R.isValid())
            D << FixItHint::CreateReplacement(
                R, opCallText(torchtidy::op::Named::to, Input));
        }
      } else if (S.Device.Spelling &&
                 !quotedUnexpanded(S.Device.Spelling, Ctx).empty()) {
        const CharSourceRange R = Lexer::makeFileCharRange(
            CharSourceRange::getTokenRange(S.Device.Spelling->getSourceRange()),
            Ctx.getSourceManager(), Ctx.getLangOpts());
        if (R.isValid())
          D << FixItHint::CreateReplacement(R, Input);
      }
    }
  }
  noteDevice(S.Device);
}

/// The edit that gives factory \p Call the device of \p Input, if one is
/// safe: appended options when they are left out, the device of written
/// options replaced or added.
static std::optional<FixItHint> addDeviceFix(const CallExpr *Call,
                                             const std::string &Device,
                                             const ASTContext &Ctx) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD || Call->getBeginLoc().isMacroID() || Call->getEndLoc().isMacroID())
    return std::nullopt;
  for (unsigned I = 0; I < Call->getNumArgs() && I < FD->getNumParams(); ++I) {
    if (!torchtidy::carriesDevice(FD->getParamDecl(I)->getType()))
      continue;
    const Expr *Arg = Call->getArg(I);
    if (isa<CXXDefaultArgExpr>(Arg)) {
      // Left out: append it, when it is the first argument left out.
      if (I == 0 || isa<CXXDefaultArgExpr>(Call->getArg(I - 1)))
        return std::nullopt;
      const SourceLocation End =
          afterToken(Call->getArg(I - 1)->getEndLoc(), Ctx);
      if (End.isInvalid() || End.isMacroID())
        return std::nullopt;
      return FixItHint::CreateInsertion(End, ", " + Device);
    }
    const Expr *Written = torchtidy::writtenArgument(Arg);
    const std::string Text = quotedUnexpanded(Written, Ctx);
    if (Text.empty())
      return std::nullopt;
    const CharSourceRange R = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(Written->getSourceRange()),
        Ctx.getSourceManager(), Ctx.getLangOpts());
    if (R.isInvalid())
      return std::nullopt;
    const QualType T = Written->getType();
    const auto *ET = T.getCanonicalType()->getAs<EnumType>();
    if (ET &&
        torchtidy::isClass(ET->getDecl(), torchtidy::KnownClass::ScalarType))
      // `torch::kLong` -> the input's options with that dtype.
      return FixItHint::CreateReplacement(
          R, Device.substr(
                 0, Device.size() -
                        opCallText(torchtidy::op::Named::device).size()) +
                 opCallText(torchtidy::op::Named::options) + "." +
                 opCallText(torchtidy::op::Named::dtype, Text));
    if (torchtidy::classifyDevice(Written) == torchtidy::DeviceClass::CPU &&
        torchtidy::isDeviceValued(T))
      return FixItHint::CreateReplacement(R, Device);
    if (torchtidy::classifyDevice(Written) ==
            torchtidy::DeviceClass::NotADevice &&
        isa<CallExpr, CXXConstructExpr, CXXFunctionalCastExpr, DeclRefExpr>(
            Written))
      return FixItHint::CreateInsertion(
          R.getEnd(), "." + opCallText(torchtidy::op::Named::device, Device));
    return std::nullopt;
  }
  return std::nullopt;
}

void HardcodedDeviceCheck::reportNoDevice(const HardcodedDeviceSite &S,
                                          ASTContext &Ctx) {
  const auto *Made = cast<CallExpr>(S.Site);
  const std::string Device = S.Input
                                 ? S.Input->getNameAsString() + "." +
                                       opCallText(torchtidy::op::Named::device)
                                 : "";
  std::string Meets;
  const std::string OtherText = quotedUnexpanded(S.Other, Ctx);
  const std::string Other =
      OtherText.empty() ? "a tensor of the module" : "'" + OtherText + "'";
  if (S.OtherIsModule)
    Meets = "it is passed to " + Other + ", whose parameters are";
  else
    Meets =
        "'" + opName(S.Combine) + "' combines it with " + Other + ", which is";
  // Without a tensor to take the device from: forward's is its input, a
  // method's without one is the module's (a parameter's or buffer's).
  const std::string Whose =
      Device.empty() && !S.RootIsForward ? "the module" : "the input";
  if (S.ReturnedBy) {
    // The factory is in a helper whose return value meets the module's
    // tensor in its caller: the device has to be passed in.
    diag(Made->getExprLoc(),
         "'%0' creates a tensor on the CPU (no device given) in %q1, which "
         "returns it to %q2, and %3 on the module's device: once the module "
         "is moved to CUDA this throws \"Expected all tensors to be on the "
         "same device\"; pass %q1 the device of %4 and create it there")
        << opName(Made) << S.Function << S.Receiver << Meets << Whose;
    diag(S.ReturnedBy->getExprLoc(), "%q0 returns it here", DiagnosticIDs::Note)
        << S.Function;
  } else {
    auto D = diag(Made->getExprLoc(),
                  "'%0' creates a tensor on the CPU (no device given) in %q1, "
                  "and %2 on the module's device: once the module is moved "
                  "to CUDA this throws \"Expected all tensors to be on the "
                  "same device\"; create it on the device of %3%4")
             << opName(Made) << S.Function << Meets << Whose
             << (Device.empty() ? std::string() : ": " + Device);
    if (!Device.empty())
      if (std::optional<FixItHint> Fix = addDeviceFix(Made, Device, Ctx))
        D << *Fix;
  }
  const SourceManager &SM = Ctx.getSourceManager();
  if (S.Combine &&
      (S.ReturnedBy || SM.getPresumedLineNumber(S.Combine->getExprLoc()) !=
                           SM.getPresumedLineNumber(Made->getExprLoc())))
    diag(S.Combine->getExprLoc(), "it meets %0 here", DiagnosticIDs::Note)
        << Other;
  for (size_t I = 0; I < S.Chain.size(); ++I)
    diag(S.Chain[I].Call->getExprLoc(), "%q0 calls %q1 here",
         DiagnosticIDs::Note)
        << (I == 0 ? S.Root : S.Chain[I - 1].Callee) << S.Chain[I].Callee;
}

void HardcodedDeviceCheck::reportDefaultArgument(const HardcodedDeviceSite &S,
                                                 ASTContext &Ctx) {
  {
    diag(S.Site->getBeginLoc(),
         "the default argument of %0 in %q1 is %2: a call that leaves it out "
         "puts tensors there whatever device the module was moved to "
         "(\"Expected all tensors to be on the same device\"); pass the "
         "module's device at each call, or give the parameter no default")
        << S.Param << S.Function << describeDevice(S.Device, Ctx);
  }
  diag(S.Call->getExprLoc(), "%0 is called here without %1",
       DiagnosticIDs::Note)
      << S.Function << S.Param;
  noteDevice(S.Device);
}

} // namespace clang::tidy::libtorch
