//===--- DeviceValues.cpp - What the device flow reads of a value --------===//
//
// Which values DeviceFlow tracks (tensors, devices, options, modules held
// in a local, a parameter or a member of `this`), the devices that string
// literals name, and the parts of a call its transfer reads (the object of
// a tensor method, the options of a factory, the first tensor argument).
//
//===----------------------------------------------------------------------===//

#include "DeviceFlowImpl.h"
#include "torchtidy/analysis/OpSwitch.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace torchtidy::deviceflow {

std::optional<DeviceFact::Kind> factKind(DeviceLiteral L) {
  if (L == DeviceLiteral::CPU)
    return DeviceFact::CPU;
  if (L == DeviceLiteral::CUDA)
    return DeviceFact::CUDA;
  return std::nullopt;
}

bool isTensor(QualType T) {
  return !T.isNull() && isTensorType(T.getNonReferenceType());
}

ValueKind kindOf(QualType T) {
  if (isTensor(T))
    return ValueKind::Tensor;
  if (isDeviceClass(T))
    return ValueKind::Device;
  if (isTensorOptionsClass(T))
    return ValueKind::Options;
  if (isModuleValue(T))
    return ValueKind::Module;
  return ValueKind::None;
}

bool namesDevice(QualType T) {
  T = T.getNonReferenceType();
  if (const CXXRecordDecl *RD = T->getAsCXXRecordDecl())
    return isClass(RD, KnownClass::basic_string);
  if (const auto *AT = T->getAsArrayTypeUnsafe())
    return AT->getElementType()->isCharType();
  return T->isPointerType() && T->getPointeeType()->isCharType();
}

const Expr *strip(const Expr *E) {
  return peel::peel(E, peel::Compiler | peel::ConstructingCasts |
                           peel::CopiesAndMoves);
}

std::optional<DeviceFact> namedDevice(const Expr *Name, const Expr *At) {
  // `"cuda:0"` through the std::string made of it.
  const auto *SL = dyn_cast<StringLiteral>(peel::peel(
      Name, peel::FromLiteral | peel::Parens | peel::ConstructingCasts));
  if (!SL)
    return std::nullopt;
  if (std::optional<DeviceFact::Kind> K =
          factKind(parseDeviceString(SL->getString())))
    return DeviceFact::make(*K, At);
  return DeviceFact::unknown();
}

const ValueDecl *trackedDecl(const Expr *E) {
  E = strip(E);
  if (!E)
    return nullptr;
  const ValueDecl *D = nullptr;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
    if (VD && VD->hasLocalStorage())
      D = VD;
  } else if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    if (peel::onThisObject(ME))
      D = dyn_cast<FieldDecl>(ME->getMemberDecl());
  }
  if (!D || kindOf(D->getType()) == ValueKind::None)
    return nullptr;
  return D;
}

const Expr *methodObject(const CallExpr *Call) {
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
    return MC->getImplicitObjectArgument();
  return Call->getArg(0);
}

const Expr *optionsArgument(const OpCall &C) {
  const Expr *Options = nullptr;
  for (unsigned I = 0; I < C.Call->getNumArgs() && I < C.Callee->getNumParams();
       ++I)
    if (isTensorOptionsClass(C.Callee->getParamDecl(I)->getType()))
      Options = C.Call->getArg(I);
  return Options;
}

const Expr *firstTensorArgument(const CallExpr *Call) {
  for (const Expr *Arg : Call->arguments()) {
    if (isTensor(Arg->getType()))
      return Arg;
    if (const InitListExpr *IL = peel::writtenList(Arg);
        IL && IL->getNumInits() && isTensor(IL->getInit(0)->getType()))
      return IL->getInit(0);
  }
  return nullptr;
}

} // namespace torchtidy::deviceflow
