//===--- HardcodedDevice.cpp - Devices a module fixes in its code ---------===//

#include "torchtidy/analysis/HardcodedDevice.h"
#include "torchtidy/analysis/DeviceFlow.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <tuple>

using namespace clang;

namespace torchtidy {

namespace {

/// Looks through what the compiler adds: parens, implicit casts,
/// temporaries, cleanups, copies, and implicit converting constructions
/// (`kCUDA` passed as TensorOptions). A construction the user wrote
/// (`torch::Device(torch::kCUDA)`, a member initialiser) stays.
const Expr *unwrap(const Expr *E) {
  return peel::peel(E, peel::Compiler | peel::CopiesAndMoves |
                           peel::UnwrittenConstructions);
}

/// The construction under a functional cast (`torch::Device(kCUDA, 0)` is a
/// CXXTemporaryObjectExpr, `torch::Device(kCUDA)` a cast around one).
const CXXConstructExpr *writtenConstruction(const Expr *E) {
  return dyn_cast_or_null<CXXConstructExpr>(
      peel::underFunctionalCast(E, peel::Implicit));
}

/// The device-valued expression a device argument is spelled with: through
/// TensorOptions chains and constructions down to the Device or DeviceType
/// expression (or the variable) that names the device.
const Expr *deviceSpelling(const Expr *E) {
  E = unwrap(E);
  for (unsigned I = 0; E && I < limits::DeviceValueSteps; ++I) {
    if (!isTensorOptionsClass(E->getType()))
      return E;
    if (const CXXConstructExpr *CE = writtenConstruction(E)) {
      if (CE->getNumArgs() >= 1 && isDeviceValued(CE->getArg(0)->getType())) {
        E = unwrap(CE->getArg(0));
        continue;
      }
      return E;
    }
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call)
      return E;
    const op::FactSet Facts = callFacts(Call);
    if ((Facts & op::OptionsDevice) && Call->getNumArgs() >= 1) {
      // `.device(d)` of options, or the free `torch::device(d)`.
      E = unwrap(Call->getArg(0));
      continue;
    }
    const auto *MC = dyn_cast<CXXMemberCallExpr>(Call);
    if (MC && (Facts & op::OptionsNonDevice) &&
        formOf(MC->getMethodDecl()) == op::Options) {
      // `.dtype(t)`: the device is the one of the options it is called on.
      E = unwrap(MC->getImplicitObjectArgument());
      continue;
    }
    return E;
  }
  return E;
}

/// The field a plain assignment `field = value` (through `this`) writes.
const FieldDecl *assignedField(const Stmt *S, const Expr **Value) {
  const Expr *LHS = nullptr, *RHS = nullptr;
  if (!splitAssignment(S, LHS, RHS))
    return nullptr;
  const auto *ME = dyn_cast<MemberExpr>(peel::peel(LHS, peel::ParenImpCasts));
  if (!peel::onThisObject(ME))
    return nullptr;
  *Value = RHS;
  return dyn_cast<FieldDecl>(ME->getMemberDecl());
}

FixedDevice classify(const Expr *E, unsigned Depth);

/// A device member is fixed when every write of it in the TU is: its
/// default initialiser, each constructor's initialiser, each assignment in
/// a method of the class. A constructor or a non-const method that is not
/// defined in the TU may set it from outside: then nothing is known.
FixedDevice classifyMember(const FieldDecl *F, unsigned Depth) {
  const auto *RD = dyn_cast<CXXRecordDecl>(F->getParent());
  if (!RD || !isUserDecl(RD) || !carriesDevice(F->getType()))
    return {};
  llvm::SmallVector<const Expr *, 4> Writes;
  if (const Expr *Init = F->getInClassInitializer())
    Writes.push_back(Init);
  for (const CXXMethodDecl *M : RD->methods()) {
    if (M->isImplicit() || M->isDefaulted() || M->isDeleted() ||
        M->isPureVirtual())
      continue;
    const auto *Ctor = dyn_cast<CXXConstructorDecl>(M);
    if (Ctor && Ctor->isCopyOrMoveConstructor())
      continue;
    const FunctionDecl *Def = nullptr;
    if (!M->hasBody(Def) || !Def) {
      if (Ctor || !M->isConst())
        return {};
      continue;
    }
    if (Def->isDependentContext())
      return {};
    if (const auto *CtorDef = dyn_cast<CXXConstructorDecl>(Def))
      for (const CXXCtorInitializer *Init : CtorDef->inits())
        if (Init->getMember() == F && Init->isWritten())
          Writes.push_back(Init->getInit());
    forEachOwnStmt(Def->getBody(), [&](const Stmt *S) {
      const Expr *Value = nullptr;
      if (assignedField(S, &Value) == F)
        Writes.push_back(Value);
    });
  }
  if (Writes.empty())
    return {};
  FixedDevice First;
  for (const Expr *W : Writes) {
    const FixedDevice D = classify(W, Depth + 1);
    if (!D)
      return {};
    if (!First)
      First = D;
  }
  FixedDevice R;
  R.K = FixedDevice::Member;
  R.Holder = F;
  R.SetAt = unwrap(Writes.front());
  R.WhenAvailable = First.WhenAvailable;
  return R;
}

/// A global, namespace-scope, static member or static local device: one
/// for the whole process, not the module's.
FixedDevice classifyGlobal(const VarDecl *V) {
  if (!carriesDevice(V->getType()))
    return {};
  const Expr *Init = V->getAnyInitializer();
  const DeviceClass C = Init ? classifyDevice(Init) : DeviceClass::Unknown;
  // A constant CPU device, or options that carry none, is no fixed GPU.
  if (C == DeviceClass::NotADevice ||
      (C == DeviceClass::CPU && V->getType().isConstQualified()))
    return {};
  FixedDevice R;
  R.K = FixedDevice::Global;
  R.Holder = V;
  R.SetAt = C == DeviceClass::CUDA ? unwrap(Init) : nullptr;
  R.WhenAvailable = Init && mentionsCudaAvailability(Init);
  return R;
}

FixedDevice classify(const Expr *E, unsigned Depth) {
  if (!E || Depth > limits::DeviceValueSteps)
    return {};
  const Expr *S = deviceSpelling(E);
  if (!S)
    return {};
  const Expr *Bare = peel::peel(S, peel::ParenImpCasts);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Bare)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V || isa<ParmVarDecl>(V))
      return {};
    if (V->hasGlobalStorage()) {
      // torch::kCUDA itself is a constant of c10, not a user's global.
      if (!isUserDecl(V)) {
        if (classifyDevice(S) != DeviceClass::CUDA)
          return {};
        FixedDevice R;
        R.K = FixedDevice::Literal;
        R.Spelling = S;
        return R;
      }
      FixedDevice R = classifyGlobal(V);
      R.Spelling = S;
      return R;
    }
    // A local: judged by its initialiser; the fix-it replaces the name.
    FixedDevice R = classify(V->getInit(), Depth + 1);
    if (!R)
      return {};
    R.Spelling = S;
    if (R.K == FixedDevice::Literal) {
      R.Holder = V;
      R.SetAt = unwrap(V->getInit());
    }
    return R;
  }
  if (const auto *ME = dyn_cast<MemberExpr>(Bare)) {
    FixedDevice R;
    if (const auto *V = dyn_cast<VarDecl>(ME->getMemberDecl()))
      R = isUserDecl(V) ? classifyGlobal(V) : FixedDevice();
    else if (const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl()))
      R = classifyMember(F, Depth);
    if (R)
      R.Spelling = S;
    return R;
  }
  if (const auto *CO = dyn_cast<AbstractConditionalOperator>(Bare)) {
    for (const Expr *Branch : {CO->getTrueExpr(), CO->getFalseExpr()}) {
      FixedDevice R = classify(Branch, Depth + 1);
      if (!R)
        continue;
      if (R.K == FixedDevice::Literal) {
        R.Spelling = S;
        R.Holder = nullptr;
        R.SetAt = nullptr;
      }
      R.WhenAvailable |= mentionsCudaAvailability(CO->getCond());
      return R;
    }
    return {};
  }
  // A copy or a conversion the user wrote (`torch::Device(d)`, a member
  // initialiser `device_(d)`): the device is its argument's.
  if (const CXXConstructExpr *CE = writtenConstruction(Bare)) {
    unsigned Written = 0;
    for (const Expr *Arg : CE->arguments())
      if (!isa<CXXDefaultArgExpr>(Arg))
        ++Written;
    if (Written == 1 && CE->getNumArgs() >= 1 &&
        (carriesDevice(CE->getArg(0)->getType()) ||
         isTensorOptionsClass(CE->getArg(0)->getType()))) {
      FixedDevice R = classify(CE->getArg(0), Depth + 1);
      if (R && R.K == FixedDevice::Literal)
        R.Spelling = S;
      return R;
    }
  }
  const DeviceClass C = classifyDevice(S);
  if (C == DeviceClass::CUDA) {
    FixedDevice R;
    R.K = FixedDevice::Literal;
    R.Spelling = S;
    R.WhenAvailable = mentionsCudaAvailability(S);
    return R;
  }
  if (C == DeviceClass::CPU || C == DeviceClass::NotADevice)
    return {};
  // Device(type, 0): whatever the type, the index is fixed.
  if (const CXXConstructExpr *CE = writtenConstruction(Bare);
      CE && isDeviceClass(CE->getType()) && CE->getNumArgs() >= 2 &&
      !isa<CXXDefaultArgExpr>(CE->getArg(1))) {
    if (isa<IntegerLiteral>(peel::peel(CE->getArg(1), peel::ParenImpCasts))) {
      FixedDevice R;
      R.K = FixedDevice::IndexLiteral;
      R.Spelling = S;
      return R;
    }
  }
  return {};
}

} // namespace

FixedDevice classifyFixedDevice(const Expr *E) { return classify(E, 0); }

const Expr *writtenArgument(const Expr *E) { return unwrap(E); }

const CXXRecordDecl *enclosingModule(const FunctionDecl *FD) {
  for (const DeclContext *DC = FD; DC; DC = DC->getParent())
    if (const auto *RD = dyn_cast<CXXRecordDecl>(DC))
      if (!RD->isLambda() && RD->hasDefinition() && isModuleClass(RD))
        return RD;
  return nullptr;
}

namespace {

/// The member function of \p Module that \p FD is, or is written in.
const CXXMethodDecl *enclosingMethod(const FunctionDecl *FD,
                                     const CXXRecordDecl *Module) {
  for (const DeclContext *DC = FD; DC; DC = DC->getParent())
    if (const auto *MD = dyn_cast<CXXMethodDecl>(DC))
      if (MD->getParent() == Module)
        return MD;
  return nullptr;
}

/// A constructor or reset(): the module is being built, on the CPU.
bool isConstruction(const CXXMethodDecl *MD) {
  if (!MD)
    return false;
  if (isa<CXXConstructorDecl>(MD))
    return true;
  return hasOpName(MD, op::Named::reset);
}

/// The first tensor parameter of \p FD (an input whose device a fix-it can
/// name), else null.
const VarDecl *firstTensorParam(const FunctionDecl *FD) {
  for (const ParmVarDecl *P : FD->parameters())
    if (P->getIdentifier() && isTensorType(P->getType().getNonReferenceType()))
      return P;
  return nullptr;
}

/// A tensor method or a LibTorch function returning a tensor: the calls
/// whose device arguments place their result.
bool placesTensor(const CallExpr *Call, const FunctionDecl *FD) {
  if (!isTensorType(Call->getType().getNonReferenceType()))
    return false;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    return !MD->isStatic() && isTensorMethod(MD);
  return isTorchFunction(FD);
}

/// The first argument of \p Call given to a device-carrying parameter that
/// names a fixed device.
FixedDevice fixedDeviceArgument(const CallExpr *Call, const FunctionDecl *FD) {
  const unsigned Offset =
      isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(FD) ? 1 : 0;
  for (unsigned I = 0;
       I < FD->getNumParams() && I + Offset < Call->getNumArgs(); ++I) {
    if (!carriesDevice(FD->getParamDecl(I)->getType()))
      continue;
    const Expr *Arg = Call->getArg(I + Offset);
    if (isa<CXXDefaultArgExpr>(Arg))
      continue;
    if (FixedDevice D = classifyFixedDevice(Arg))
      return D;
  }
  return {};
}

/// Rule "Fixed" on the own statements (and constructor initialisers) of a
/// function of \p Module.
void findFixed(const FunctionDecl *FD, const CXXRecordDecl *Module,
               std::vector<HardcodedDeviceSite> &Out) {
  const CXXMethodDecl *Method = enclosingMethod(FD, Module);
  auto Visit = [&](const Stmt *S) {
    const auto *Call = dyn_cast<CallExpr>(S);
    if (!Call || Call->isValueDependent() || Call->isTypeDependent())
      return;
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || !placesTensor(Call, Callee))
      return;
    FixedDevice D;
    if (isa<CXXMemberCallExpr>(Call) && (callFacts(Call) & op::MovesToCuda))
      D.K = FixedDevice::CurrentCuda;
    else
      D = fixedDeviceArgument(Call, Callee);
    if (!D)
      return;
    HardcodedDeviceSite Site;
    Site.K = HardcodedDeviceSite::Fixed;
    // A lambda is named by the member function it is written in.
    Site.Function = Method ? Method : FD;
    Site.Module = Module;
    Site.Site = Call;
    Site.Device = D;
    Site.Input = firstTensorParam(FD);
    Site.InConstruction = isConstruction(Method);
    Out.push_back(std::move(Site));
  };
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD))
    for (const CXXCtorInitializer *Init : Ctor->inits())
      if (Init->isWritten())
        forEachOwnStmt(Init->getInit(), Visit);
  forEachOwnStmt(FD->getBody(), Visit);
}

//===--- NoDevice ---------------------------------------------------------===//

/// A factory call that makes a 0-dim tensor, which LibTorch accepts on the
/// CPU next to CUDA tensors as a scalar: scalar_tensor, tensor(3.0), a
/// factory given the empty size `{}`.
bool makesZeroDim(const CallExpr *Call) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD)
    return false;
  if (callFacts(Call) & op::ZeroDimResult)
    return true;
  if ((callFacts(Call) & op::LiteralTensor) && Call->getNumArgs() >= 1) {
    // Through implicit conversions: on the real headers `torch::tensor(2.0)`
    // converts the double to a TensorDataContainer.
    const QualType T = unwrap(Call->getArg(0))->getType();
    if (T->isArithmeticType())
      return true;
    if (const CXXRecordDecl *RD = namedRecord(T))
      if (isClass(RD, KnownClass::Scalar))
        return true;
  }
  for (unsigned I = 0; I < Call->getNumArgs() && I < FD->getNumParams(); ++I) {
    const CXXRecordDecl *RD = namedRecord(FD->getParamDecl(I)->getType());
    if (!isClass(RD, KnownClass::ArrayRef))
      continue;
    // `{}`: a default ArrayRef, or one made of an empty initializer_list.
    return peel::writtenEmptyList(Call->getArg(I));
  }
  return false;
}

/// The factory that made the CPU tensor of \p F, when it was made without a
/// device (or with the CPU's) and is not a scalar.
const CallExpr *cpuFactory(const DeviceFact &F) {
  if (F.K != DeviceFact::CPU || F.How != DeviceFact::Created || F.ZeroDim)
    return nullptr;
  const auto *Call = dyn_cast_or_null<CallExpr>(F.Origin);
  if (!Call || !(callFacts(Call) & op::Factory) ||
      (callFacts(Call) & op::WrapsMemory) || makesZeroDim(Call))
    return nullptr;
  return Call;
}

/// \p F is the device of a tensor of the module or of \p FD's inputs: a
/// member (a parameter, a buffer, a submodule's output), a tensor parameter
/// when \p InputsOnModuleDevice (forward's inputs are on the module's
/// device; another method's arguments may come from anywhere), or what ops
/// made of them.
bool followsModule(const DeviceFact &F, const FunctionDecl *FD,
                   bool InputsOnModuleDevice) {
  if (F.K != DeviceFact::SameAs || !F.Ref)
    return false;
  if (isa<FieldDecl>(F.Ref))
    return true;
  if (const auto *P = dyn_cast<ParmVarDecl>(F.Ref))
    return InputsOnModuleDevice && P->getDeclContext() == FD;
  return false;
}

/// An operand the dataflow knows nothing of, made by a function of the
/// user (`auto y = block(x); y + ...`) from a tensor of \p FD's inputs (when
/// \p InputsOnModuleDevice) or members: the helper keeps its input's device,
/// as ops do. The call may be the operand itself or the initialiser of the
/// local it names.
bool madeFromInputs(const Expr *E, const FunctionDecl *FD,
                    bool InputsOnModuleDevice) {
  E = unwrap(E);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
        V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) && V->getInit())
      E = unwrap(V->getInit());
  const auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || isTorchFunction(Callee) || !isUserDecl(Callee) ||
      !isTensorType(Call->getType().getNonReferenceType()))
    return false;
  for (const Expr *Arg : Call->arguments()) {
    const Expr *A = unwrap(Arg);
    if (const auto *DRE = dyn_cast<DeclRefExpr>(A))
      if (const auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl()))
        if (InputsOnModuleDevice && P->getDeclContext() == FD &&
            isTensorType(P->getType().getNonReferenceType()))
          return true;
    if (const auto *ME = dyn_cast<MemberExpr>(A))
      if (peel::onThisObject(ME) &&
          isTensorType(ME->getType().getNonReferenceType()))
        return true;
  }
  return false;
}

/// The definition of a user function a walk from forward may enter.
const FunctionDecl *userDefinition(const FunctionDecl *FD) {
  const FunctionDecl *Def = nullptr;
  if (!FD || !FD->hasBody(Def) || !Def || Def->isDependentContext() ||
      Def->isInvalidDecl() || Def->isDefaulted() || !isUserDecl(Def))
    return nullptr;
  if (Def->isImplicit()) {
    const auto *MD = dyn_cast<CXXMethodDecl>(Def);
    if (!MD || !MD->getParent()->isLambda())
      return nullptr;
  }
  return Def;
}

/// The factory whose CPU tensor every `return` of user function \p Callee
/// gives back (its own DeviceFlow), else null: `Tensor pad(...) { auto t =
/// torch::full(...); ...; return t; }`. Not a virtual method (an override
/// may return another tensor), nor one returning a reference.
const CallExpr *factoryReturnedBy(const FunctionDecl *Callee, ASTContext &Ctx) {
  const FunctionDecl *Def = userDefinition(Callee);
  if (!Def || isTorchFunction(Def) || Def->getReturnType()->isReferenceType() ||
      !isTensorType(Def->getReturnType()))
    return nullptr;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(Def);
      MD && MD->isVirtual() && !MD->hasAttr<FinalAttr>() &&
      !MD->getParent()->hasAttr<FinalAttr>())
    return nullptr;
  const DeviceFlow *Flow = sharedDeviceFlow(Def, Ctx);
  if (!Flow || Flow->returns().empty())
    return nullptr;
  const CallExpr *First = nullptr;
  for (const OperandFact &R : Flow->returns()) {
    const CallExpr *Made = cpuFactory(R.Fact);
    if (!Made)
      return nullptr;
    First = First ? First : Made;
  }
  return First;
}

/// An operand the dataflow knows nothing of that holds what a user
/// function returns, when every return of it is a CPU factory's tensor
/// (factoryReturnedBy): the call itself, or a local initialised with it
/// that keeps that value (DeviceFlow::keepsInitializer of \p Flow, FD's
/// dataflow). \p Via gets the call.
const CallExpr *returnedFactory(const OperandFact &O, const FunctionDecl *FD,
                                const DeviceFlow &Flow, ASTContext &Ctx,
                                const CallExpr *&Via) {
  if (O.Fact.K != DeviceFact::Unknown &&
      !(O.Fact.K == DeviceFact::SameAs &&
        isa_and_nonnull<VarDecl>(O.Fact.Ref) && !isa<ParmVarDecl>(O.Fact.Ref)))
    return nullptr;
  const Expr *E = unwrap(O.E);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) ||
        V->getType()->isReferenceType() || !V->getInit() ||
        V->getDeclContext() != FD || !Flow.keepsInitializer(V))
      return nullptr;
    E = unwrap(V->getInit());
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  const CallExpr *Made =
      Call ? factoryReturnedBy(Call->getDirectCallee(), Ctx) : nullptr;
  if (Made)
    Via = Call;
  return Made;
}

/// \p Body calls a user function that returns a tensor: a helper whose
/// result may be a factory's (returnedFactory).
bool callsTensorHelper(const Stmt *Body) {
  bool Found = false;
  forEachOwnStmt(Body, [&](const Stmt *S) {
    const auto *Call = dyn_cast<CallExpr>(S);
    const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
    Found |= Callee && !isTorchFunction(Callee) && isUserDecl(Callee) &&
             isTensorType(Callee->getReturnType());
  });
  return Found;
}

/// A cheap test before the dataflow: \p Body calls a LibTorch factory.
bool callsFactory(const Stmt *Body) {
  bool Found = false;
  forEachOwnStmt(Body, [&](const Stmt *S) {
    if (const auto *Call = dyn_cast<CallExpr>(S))
      if (callFacts(Call) & op::Factory)
        Found = true;
  });
  return Found;
}

const VarDecl *namedVariable(const Expr *E) {
  if (const auto *DRE = dyn_cast<DeclRefExpr>(unwrap(E)))
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
      if (V->hasLocalStorage() &&
          isTensorType(V->getType().getNonReferenceType()))
        return V;
  return nullptr;
}

/// Where a walk of the "no device" rule starts: a forward() (whose tensor
/// parameters are on the module's device), or another method of a built
/// module (whose members are).
struct NoDeviceRoot {
  const FunctionDecl *FD;
  const CXXRecordDecl *Module;
  bool InputsOnModuleDevice;
};

void findNoDevice(const FunctionDecl *FD, const NoDeviceRoot &Root,
                  const llvm::SmallVector<CallStep, 4> &Chain, ASTContext &Ctx,
                  std::vector<HardcodedDeviceSite> &Out,
                  llvm::DenseSet<const Stmt *> &Reported) {
  if (!callsFactory(FD->getBody()) && !callsTensorHelper(FD->getBody()))
    return;
  const DeviceFlow *Flow = sharedDeviceFlow(FD, Ctx);
  if (!Flow)
    return;
  // Factories already found meeting the module's tensors: what ops make of
  // them is on the module's device once they are (the dataflow keeps the
  // first operand's device for `zeros + x`, the CPU).
  llvm::DenseSet<const CallExpr *> Joined;
  const bool Inputs = Root.InputsOnModuleDevice;
  auto OnModuleDevice = [&](const OperandFact &O) {
    const CallExpr *Made = cpuFactory(O.Fact);
    return followsModule(O.Fact, FD, Inputs) || (Made && Joined.count(Made)) ||
           ((O.Fact.K == DeviceFact::Unknown ||
             (O.Fact.K == DeviceFact::SameAs && isa<VarDecl>(O.Fact.Ref) &&
              !isa<ParmVarDecl>(O.Fact.Ref))) &&
            madeFromInputs(O.E, FD, Inputs));
  };
  for (const CombineSiteFacts &C : Flow->combineSites()) {
    const OperandFact *Factory = nullptr, *Other = nullptr;
    const CallExpr *Made = nullptr, *Via = nullptr;
    for (const OperandFact &O : C.Operands) {
      if (!Other && OnModuleDevice(O)) {
        Other = &O;
      } else if (!Factory) {
        Made = cpuFactory(O.Fact);
        if (!Made)
          Made = returnedFactory(O, FD, *Flow, Ctx, Via);
        if (Made)
          Factory = &O;
      }
    }
    const Expr *OtherExpr = Other ? Other->E : nullptr;
    const bool OtherIsModule = !OtherExpr && C.Module;
    if (OtherIsModule && followsModule(C.ModuleFact, FD, Inputs))
      OtherExpr = C.Module;
    if (!Factory || !OtherExpr)
      continue;
    Joined.insert(Made);
    if (!Reported.insert(Made).second)
      continue;
    HardcodedDeviceSite Site;
    Site.K = HardcodedDeviceSite::NoDevice;
    // A helper's factory is reported in the helper, where the device goes.
    Site.Function = Via ? userDefinition(Via->getDirectCallee()) : FD;
    Site.Module = Root.Module;
    Site.Site = Made;
    Site.ReturnedBy = Via;
    Site.Receiver = FD;
    Site.Combine = C.Call;
    Site.Other = OtherExpr;
    Site.OtherIsModule = OtherIsModule;
    Site.Root = Root.FD;
    Site.RootIsForward = Inputs;
    Site.Chain = Chain;
    // A variable of FD is not in the helper's scope: no fix-it there.
    Site.Input = Other && !Via ? namedVariable(Other->E) : nullptr;
    if (!Site.Input && Inputs && !Via)
      Site.Input = firstTensorParam(FD);
    Out.push_back(std::move(Site));
  }
}

/// Calls \p F(At, Def) for each user function \p FD's own statements call
/// (a lambda written there counts as called where it is written), with the
/// definition the call runs: Function<T>::apply(x) runs the user's
/// T::forward(ctx, x).
template <typename Fn> void forEachUserCallee(const FunctionDecl *FD, Fn F) {
  forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
    const FunctionDecl *Callee = nullptr;
    const Expr *At = nullptr;
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
      Callee = Call->getDirectCallee();
      if (const CXXMethodDecl *Run = autogradFunctionForward(Callee))
        Callee = Run;
      At = Call;
    } else if (const auto *L = dyn_cast<LambdaExpr>(S)) {
      Callee = L->getCallOperator();
      At = L;
    }
    if (const FunctionDecl *Def = userDefinition(Callee))
      F(At, Def);
  });
}

/// The root and the functions it calls, MaxCallDepth calls deep, each once
/// with a shortest chain of calls from the root. \p Walked collects every
/// function the walk enters.
void walkFromRoot(const NoDeviceRoot &Root, unsigned MaxCallDepth,
                  ASTContext &Ctx, llvm::DenseSet<const FunctionDecl *> &Walked,
                  std::vector<HardcodedDeviceSite> &Out,
                  llvm::DenseSet<const Stmt *> &Reported) {
  struct Node {
    const FunctionDecl *FD;
    llvm::SmallVector<CallStep, 4> Chain;
  };
  llvm::DenseSet<const FunctionDecl *> Visited;
  std::vector<Node> Work{{Root.FD, {}}};
  Visited.insert(Root.FD);
  for (size_t I = 0; I < Work.size(); ++I) {
    const Node Cur = Work[I];
    Walked.insert(Cur.FD);
    findNoDevice(Cur.FD, Root, Cur.Chain, Ctx, Out, Reported);
    if (Cur.Chain.size() >= MaxCallDepth)
      continue;
    forEachUserCallee(Cur.FD, [&](const Expr *At, const FunctionDecl *Def) {
      // Another module's forward is analysed as its own root.
      if (Def != Root.FD && enclosingModule(Def) &&
          enclosingModule(Def) != Root.Module &&
          hasOpName(Def, op::Named::forward))
        return;
      if (!Visited.insert(Def).second)
        return;
      Node N{Def, Cur.Chain};
      N.Chain.push_back({At, Def});
      Work.push_back(std::move(N));
    });
  }
}

bool isForward(const FunctionDecl *FD, const CXXRecordDecl *Module) {
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  return MD && MD->getParent() == Module && hasOpName(MD, op::Named::forward);
}

/// A method of \p Module that runs on a built module, as forward does
/// (`history`, `sample`, `predict`): not static, not a constructor,
/// destructor or reset(). Whether construction calls it is decided by the
/// caller.
bool runsOnBuiltModule(const FunctionDecl *FD, const CXXRecordDecl *Module) {
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  return MD && MD->getParent() == Module && !MD->isStatic() &&
         !isa<CXXDestructorDecl>(MD) && !isConstruction(MD) &&
         !hasOpName(MD, op::Named::forward);
}

/// The functions that a constructor or reset() of a module calls, directly
/// or through calls of the user's functions (the module is on the CPU
/// while they run).
llvm::DenseSet<const FunctionDecl *>
calledInConstruction(llvm::ArrayRef<const FunctionDecl *> Construction) {
  llvm::DenseSet<const FunctionDecl *> Called;
  std::vector<const FunctionDecl *> Work(Construction.begin(),
                                         Construction.end());
  while (!Work.empty()) {
    const FunctionDecl *FD = Work.back();
    Work.pop_back();
    forEachUserCallee(FD, [&](const Expr *, const FunctionDecl *Def) {
      if (Called.insert(Def).second)
        Work.push_back(Def);
    });
  }
  return Called;
}

//===--- DefaultArgument --------------------------------------------------===//

void findDefaultArguments(const FunctionDecl *FD,
                          llvm::DenseSet<const ParmVarDecl *> &Seen,
                          std::vector<HardcodedDeviceSite> &Out) {
  forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
    const FunctionDecl *Callee = nullptr;
    llvm::SmallVector<const Expr *, 8> Args;
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
      Callee = Call->getDirectCallee();
      Args.append(Call->arg_begin(), Call->arg_end());
    } else if (const auto *CE = dyn_cast<CXXConstructExpr>(S)) {
      Callee = CE->getConstructor();
      Args.append(CE->arg_begin(), CE->arg_end());
    }
    const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Callee);
    if (!MD || !isUserDecl(MD) || !enclosingModule(MD))
      return;
    for (const Expr *Arg : Args) {
      const auto *DA = dyn_cast<CXXDefaultArgExpr>(Arg);
      if (!DA)
        continue;
      const ParmVarDecl *P = DA->getParam();
      if (!P || !carriesDevice(P->getType()) || !P->hasDefaultArg() ||
          P->hasUninstantiatedDefaultArg() || !isUserDecl(P))
        continue;
      const FixedDevice D = classifyFixedDevice(P->getDefaultArg());
      if (!D || !Seen.insert(P).second)
        continue;
      HardcodedDeviceSite Site;
      Site.K = HardcodedDeviceSite::DefaultArgument;
      Site.Function = MD;
      Site.Module = enclosingModule(MD);
      Site.Site = P->getDefaultArg();
      Site.Device = D;
      Site.Param = P;
      Site.Call = cast<Expr>(S);
      Out.push_back(std::move(Site));
    }
  });
}

} // namespace

std::vector<HardcodedDeviceSite> findHardcodedDevices(ASTContext &Ctx,
                                                      unsigned MaxCallDepth) {
  std::vector<HardcodedDeviceSite> Out;
  llvm::SmallVector<NoDeviceRoot, 8> Forwards, Methods;
  llvm::SmallVector<const FunctionDecl *, 8> Construction;
  llvm::DenseSet<const ParmVarDecl *> SeenParams;
  forEachUserFunction(Ctx, [&](const FunctionDecl *FD) {
    if (const CXXRecordDecl *Module = enclosingModule(FD)) {
      findFixed(FD, Module, Out);
      if (isForward(FD, Module))
        Forwards.push_back({FD, Module, /*InputsOnModuleDevice=*/true});
      else if (runsOnBuiltModule(FD, Module))
        Methods.push_back({FD, Module, /*InputsOnModuleDevice=*/false});
      else if (isConstruction(enclosingMethod(FD, Module)))
        Construction.push_back(FD);
    }
    findDefaultArguments(FD, SeenParams, Out);
  });
  // Forward first, so that a site both reach is reported with the calls
  // from forward. Then the other methods of a built module that neither
  // forward nor construction calls: their members are on the module's
  // device as forward's are.
  llvm::DenseSet<const Stmt *> Reported;
  llvm::DenseSet<const FunctionDecl *> Walked;
  for (const NoDeviceRoot &Root : Forwards)
    walkFromRoot(Root, MaxCallDepth, Ctx, Walked, Out, Reported);
  const llvm::DenseSet<const FunctionDecl *> Built =
      calledInConstruction(Construction);
  for (const NoDeviceRoot &Root : Methods)
    if (!Walked.count(Root.FD) && !Built.count(Root.FD))
      walkFromRoot(Root, MaxCallDepth, Ctx, Walked, Out, Reported);
  std::sort(Out.begin(), Out.end(),
            [](const HardcodedDeviceSite &A, const HardcodedDeviceSite &B) {
              return std::make_tuple(A.Site->getBeginLoc().getRawEncoding(),
                                     A.Site->getEndLoc().getRawEncoding(),
                                     A.K) <
                     std::make_tuple(B.Site->getBeginLoc().getRawEncoding(),
                                     B.Site->getEndLoc().getRawEncoding(), B.K);
            });
  return Out;
}

} // namespace torchtidy
