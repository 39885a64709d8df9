//===--- LaunchArguments.cpp - A kernel argument's tensor -----------------===//
//
// What a kernel argument is: the tensor behind a raw view of storage, and
// its device, strides and dtype where the launch reads it.
// Part of KernelLaunchAnalysis (KernelLaunchesImpl.h).
//
//===----------------------------------------------------------------------===//

#include "KernelLaunchesImpl.h"
#include "torchtidy/analysis/CudaWork.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/OpSwitch.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/PointeeTypes.h"
#include "torchtidy/analysis/ProjectSummaries.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/StmtCXX.h"

using namespace clang;

namespace torchtidy {

using namespace launches;

std::string KernelLaunchAnalysis::Impl::dtypeOf(const Expr *E, unsigned Depth) {
  if (!E || Depth > limits::DeviceValueSteps)
    return "";
  E = unwrap(E);
  std::string Direct = scalarTypeName(E, Ctx);
  if (!Direct.empty())
    return Direct;
  if (const auto *Ctor = dyn_cast<CXXConstructExpr>(E)) {
    for (const Expr *A : Ctor->arguments())
      if (std::string D = dtypeOf(A, Depth + 1); !D.empty())
        return D;
    return "";
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  if (!Call)
    return "";
  // The legacy type objects: at::CUDA(kFloat) names its dtype, and
  // converts to options that keep it.
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
    const Expr *Obj = MC->getImplicitObjectArgument();
    if (isa_and_nonnull<CXXConversionDecl>(MC->getMethodDecl()) && Obj &&
        isDeprecatedTypeProperties(Obj->getType()))
      return dtypeOf(Obj, Depth + 1);
  } else if (isDeprecatedTypeProperties(Call->getType())) {
    for (const Expr *A : Call->arguments())
      if (std::string D = scalarTypeName(unwrap(A), Ctx); !D.empty())
        return D;
    return "";
  }
  const op::FactSet Facts = callFacts(Call);
  // options.dtype(k), torch::dtype(k): the outermost setter wins. The
  // setter of the real headers takes an optional<ScalarType>.
  if (Facts & (op::OptionsNonDevice | op::OptionsDevice)) {
    for (const Expr *A : Call->arguments())
      if (std::string D = dtypeOf(A, Depth + 1); !D.empty())
        return D;
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
      return dtypeOf(MC->getImplicitObjectArgument(), Depth + 1);
  }
  return "";
}

const Expr *KernelLaunchAnalysis::Impl::optionsOwner(const Expr *E,
                                                     unsigned Depth) {
  if (!E || Depth > limits::DeviceValueSteps)
    return nullptr;
  E = unwrap(E);
  const auto *MC = dyn_cast<CXXMemberCallExpr>(E);
  if (!MC)
    return nullptr;
  const op::FactSet Facts = callFacts(MC);
  if ((Facts & op::OptionsOfTensor) && isTensorMethod(MC->getMethodDecl()))
    return MC->getImplicitObjectArgument();
  if (Facts & op::OptionsNonDevice)
    return optionsOwner(MC->getImplicitObjectArgument(), Depth + 1);
  return nullptr;
}

bool KernelLaunchAnalysis::Impl::optionsArgument(const CallExpr *Call,
                                                 const Expr *&Opts) {
  Opts = nullptr;
  for (unsigned I = Call->getNumArgs(); I-- > 0;) {
    const Expr *A = Call->getArg(I);
    if (isTensorOptionsClass(A->getType())) {
      Opts = isa<CXXDefaultArgExpr>(A) ? nullptr : A;
      return true;
    }
  }
  return false;
}

void KernelLaunchAnalysis::Impl::applyOptions(TensorFacts &F,
                                              const CallExpr *Call,
                                              const Expr *Opts, const Stmt *Use,
                                              const FunctionDecl *UseFn,
                                              unsigned Depth) {
  const DeviceClass D = Opts ? classifyDevice(Opts) : DeviceClass::NotADevice;
  if (const Expr *Owner = optionsOwner(Opts)) {
    const TensorFacts From = resolve(Owner, Use, UseFn, Depth + 1);
    F.Device = From.Device;
    F.Dtype = From.Dtype;
    F.DtypeAt = From.DtypeAt;
    F.DtypeVar = From.DtypeVar;
    F.DtypeFactory = From.DtypeFactory;
  } else if (D == DeviceClass::CUDA) {
    F.Device = {PropState::Proven, Call, "", nullptr};
  } else if (D == DeviceClass::CPU || D == DeviceClass::NotADevice) {
    F.Device = {PropState::Against, Call,
                D == DeviceClass::CPU ? "on the CPU" : "given no device",
                nullptr};
  } else {
    F.Device = {};
  }
  if (const std::string Dt = dtypeOf(Opts); !Dt.empty()) {
    F.Dtype = Dt;
    F.DtypeAt = Opts;
    F.DtypeVar = nullptr;
    F.DtypeFactory = Call;
  }
}

bool KernelLaunchAnalysis::Impl::bytesSizedFor(const TensorFacts &F,
                                               QualType Element) {
  // A dtype of bytes (Char, Byte) sized for the elements.
  const std::optional<Dtype> D = dtypeNamed(F.Dtype);
  if (!D || D->K != Dtype::Integer || D->Bytes != 1 || !F.DtypeFactory ||
      F.DtypeFactory->getNumArgs() == 0 || Element.isNull())
    return false;
  const QualType Want = Element.getCanonicalType().getUnqualifiedType();
  bool Sized = false;
  forEachOwnStmt(F.DtypeFactory->getArg(0), [&](const Stmt *S) {
    const auto *SizeOf = dyn_cast<UnaryExprOrTypeTraitExpr>(S);
    if (Sized || !SizeOf || SizeOf->getKind() != UETT_SizeOf)
      return;
    const QualType Of = SizeOf->getTypeOfArgument();
    Sized = !Of.isNull() && Of.getCanonicalType().getUnqualifiedType() == Want;
  });
  return Sized;
}

TensorFacts KernelLaunchAnalysis::Impl::resolve(const Expr *E, const Stmt *Use,
                                                const FunctionDecl *UseFn,
                                                unsigned Depth) {
  TensorFacts F;
  if (!E || Depth > limits::OriginDepth)
    return F;
  E = peel::peel(E, peel::Copied | peel::FunctionalCasts);
  if (std::optional<IndexVar> V = directVariable(E)) {
    if (!V->Field)
      if (const auto *VD = dyn_cast<VarDecl>(V->Base))
        if (const Expr *Def = singleDefinition(VD)) {
          F = resolve(Def, Use, UseFn, Depth + 1);
          for (PropState *P : {&F.Device, &F.Contig})
            if (P->K != PropState::Unknown && !P->Var)
              P->Var = VD;
          if (!F.Dtype.empty() && !F.DtypeVar)
            F.DtypeVar = VD;
        }
    const unsigned Checked = provenAt(&*V, Use, UseFn);
    if (Checked & Guard::Cuda)
      F.Device = {PropState::Proven, nullptr, "", nullptr};
    if (Checked & Guard::Contig)
      F.Contig = {PropState::Proven, nullptr, "", nullptr};
    if (Checked & Guard::Dtype)
      F.DtypeChecked = true;
    return F;
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  if (!Call || !isTensorType(Call->getType()))
    return F;
  return resolveCall(OpCall::of(Call), Use, UseFn, Depth);
}

TensorFacts KernelLaunchAnalysis::Impl::resolveCall(const OpCall &C,
                                                    const Stmt *Use,
                                                    const FunctionDecl *UseFn,
                                                    unsigned Depth) {
  using R = std::optional<TensorFacts>;
  using Switch = OpSwitch<TensorFacts, Impl &, const Stmt *,
                          const FunctionDecl *, unsigned>;
  static const Switch Calls =
      Switch()
          .caseOf(form(op::Method),
                  [](const OpCall &C, Impl &I, const Stmt *Use,
                     const FunctionDecl *UseFn, unsigned Depth) -> R {
                    const auto *MC = dyn_cast<CXXMemberCallExpr>(C.Call);
                    if (!MC)
                      return std::nullopt;
                    return I.resolveMethod(MC, C.Facts, Use, UseFn, Depth);
                  })
          .caseOf(facts(op::Factory),
                  [](const OpCall &C, Impl &I, const Stmt *Use,
                     const FunctionDecl *UseFn, unsigned Depth) -> R {
                    TensorFacts F;
                    F.Contig = {PropState::Proven, C.Call, "", nullptr};
                    const Expr *Opts = nullptr;
                    if (optionsArgument(C.Call, Opts))
                      I.applyOptions(F, C.Call, Opts, Use, UseFn, Depth);
                    return F;
                  })
          .caseOf(facts(op::LikeFactory),
                  [](const OpCall &C, Impl &I, const Stmt *Use,
                     const FunctionDecl *UseFn, unsigned Depth) -> R {
                    if (C.Call->getNumArgs() == 0)
                      return std::nullopt;
                    return I.resolveLike(C.Call, Use, UseFn, Depth);
                  });
  return Calls(C, TensorFacts(), *this, Use, UseFn, Depth);
}

TensorFacts KernelLaunchAnalysis::Impl::resolveLike(const CallExpr *Call,
                                                    const Stmt *Use,
                                                    const FunctionDecl *UseFn,
                                                    unsigned Depth) {
  TensorFacts F = resolve(Call->getArg(0), Use, UseFn, Depth + 1);
  const Expr *Opts = nullptr;
  if (optionsArgument(Call, Opts) && Opts) {
    const DeviceClass D = classifyDevice(Opts);
    if (D == DeviceClass::CUDA)
      F.Device = {PropState::Proven, Call, "", nullptr};
    else if (D == DeviceClass::CPU)
      F.Device = {PropState::Against, Call, "on the CPU", nullptr};
    if (const std::string Dt = dtypeOf(Opts); !Dt.empty()) {
      F.Dtype = Dt;
      F.DtypeAt = Opts;
      F.DtypeVar = nullptr;
      F.DtypeFactory = nullptr;
    }
  }
  return F;
}

TensorFacts KernelLaunchAnalysis::Impl::resolveMethod(
    const CXXMemberCallExpr *MC, op::FactSet Facts, const Stmt *Use,
    const FunctionDecl *UseFn, unsigned Depth) {
  const Expr *Obj = MC->getImplicitObjectArgument();
  TensorFacts F = resolve(Obj, Use, UseFn, Depth + 1);
  if (Facts & op::DeviceOpaque)
    F.Device = {};
  const MoveDestination Move = moveDestination(MC);
  // The dtype an argument gives (a dtype, or options that hold one).
  auto TakeDtype = [&](const Expr *A) {
    if (const std::string Dt = dtypeOf(A); !Dt.empty()) {
      F.Dtype = Dt;
      F.DtypeAt = A;
      F.DtypeVar = nullptr;
      F.DtypeChecked = false;
      F.DtypeFactory = nullptr;
    }
  };
  const Expr *Operand = Move.Operand && !isa<CXXDefaultArgExpr>(Move.Operand)
                            ? Move.Operand
                            : nullptr;
  switch (Move.K) {
  case MoveDestination::NotAMove:
    break;
  case MoveDestination::Cuda:
    F.Device = {PropState::Proven, MC, "", nullptr};
    break;
  case MoveDestination::Cpu:
    F.Device = {PropState::Against, MC, "moved to the CPU", nullptr};
    break;
  case MoveDestination::Like:
    if (Operand) {
      const TensorFacts Other = resolve(Operand, Use, UseFn, Depth + 1);
      F.Device = Other.Device;
      F.Dtype = Other.Dtype;
      F.DtypeAt = Other.DtypeAt;
      F.DtypeFactory = Other.DtypeFactory;
    }
    break;
  case MoveDestination::Unknown:
    F.Device = {};
    break;
  default:
    if (Operand) {
      const DeviceClass D = classifyDevice(Operand);
      if (D == DeviceClass::CUDA)
        F.Device = {PropState::Proven, MC, "", nullptr};
      else if (D == DeviceClass::CPU)
        F.Device = {PropState::Against, MC, "moved to the CPU", nullptr};
      else if (D == DeviceClass::Configurable)
        F.Device = {};
      TakeDtype(Operand);
    }
    if (Move.Dtype)
      TakeDtype(Move.Dtype);
    break;
  }
  if (Facts & op::StridedView)
    F.Contig = {PropState::Against, MC, "", nullptr};
  else if ((Facts & op::Contiguity) && peel::noWrittenArgs(MC))
    F.Contig = {PropState::Proven, MC, "", nullptr};
  else if (!(Facts & op::ValuePreserving) || (Facts & op::Slices))
    F.Contig = {};
  // Other methods keep the device; their dtype may change.
  if (!(Facts & (op::ValuePreserving | op::StridedView | op::Contiguity)))
    F.Dtype.clear();
  return F;
}

std::optional<RawView> KernelLaunchAnalysis::Impl::rawView(const Expr *A,
                                                           unsigned Depth) {
  QualType CastElement;
  for (unsigned I = 0; A && I < limits::OriginDepth + Depth; ++I) {
    A = unwrap(A);
    if (const auto *Cast = dyn_cast<ExplicitCastExpr>(A)) {
      if (CastElement.isNull() && Cast->getType()->isPointerType())
        CastElement = Cast->getType()->getPointeeType();
      A = Cast->getSubExpr();
      continue;
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(A);
        BO && BO->isAdditiveOp() && BO->getType()->isPointerType()) {
      A = BO->getLHS()->getType()->isPointerType() ? BO->getLHS()
                                                   : BO->getRHS();
      continue;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(A)) {
      const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
      if (!VD ||
          !(VD->getType()->isPointerType() || isAccessorType(VD->getType())))
        return std::nullopt;
      A = singleDefinition(VD);
      continue;
    }
    break;
  }
  const CXXMemberCallExpr *MC = tensorMethodCall(A);
  if (!MC || !(callFacts(MC) & op::RawDataPointer))
    return std::nullopt;
  RawView V;
  V.Call = MC;
  V.Tensor = MC->getImplicitObjectArgument();
  const QualType T = MC->getType();
  // The element type as written (`data_ptr<int64_t>`, `scalar_t`), which
  // the instantiated return type has lost.
  QualType Written;
  if (const auto *ME =
          dyn_cast<MemberExpr>(peel::peel(MC->getCallee(), peel::Parens));
      ME && ME->getNumTemplateArgs() > 0 &&
      ME->getTemplateArgs()[0].getArgument().getKind() ==
          TemplateArgument::Type)
    Written = ME->getTemplateArgs()[0].getArgument().getAsType();
  if (T->isPointerType()) {
    const QualType Pointee = T->getPointeeType();
    V.Typed = !Pointee->isVoidType();
    V.Element = !V.Typed ? CastElement : !Written.isNull() ? Written : Pointee;
  } else if (isAccessorType(T)) {
    V.Typed = V.Accessor = true;
    V.Element = !Written.isNull() ? Written : accessorElement(T);
  } else {
    return std::nullopt; // Tensor::data(): a tensor, not a pointer
  }
  return V;
}

const ParmVarDecl *
KernelLaunchAnalysis::Impl::passedParam(const Expr *A, const FunctionDecl *FD) {
  for (unsigned I = 0; A && I < limits::OriginDepth; ++I) {
    A = peel::peel(A, peel::Copied | peel::ExplicitCasts);
    if (const auto *BO = dyn_cast<BinaryOperator>(A);
        BO && BO->isAdditiveOp() && BO->getType()->isPointerType()) {
      A = BO->getLHS()->getType()->isPointerType() ? BO->getLHS()
                                                   : BO->getRHS();
      continue;
    }
    const auto *DRE = dyn_cast<DeclRefExpr>(A);
    if (!DRE)
      return nullptr;
    if (const auto *PVD = dyn_cast<ParmVarDecl>(DRE->getDecl()))
      return PVD->getDeclContext() == FD ? PVD : nullptr;
    const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
    if (!VD)
      return nullptr;
    A = singleDefinition(VD);
  }
  return nullptr;
}

KernelLaunchAnalysis::Impl::LauncherAnswer
KernelLaunchAnalysis::Impl::launcher(const FunctionDecl *Callee, unsigned Param,
                                     unsigned Depth) {
  if (!Callee || Depth > Config.MaxLauncherDepth || isTorchFunction(Callee))
    return {};
  const FunctionDecl *Def = Callee->getDefinition();
  const FunctionDecl *Decl = Def ? Def : Callee;
  if (Param >= Decl->getNumParams() || !isUserDecl(Decl))
    return {};
  const QualType PT = Decl->getParamDecl(Param)->getType();
  if (!PT->isPointerType() && !isAccessorType(PT))
    return {};
  if (!Def || !Def->getBody()) {
    // Only declared here (defined in a .cu file): a launcher when the
    // project's summary of it says it launches with the parameter, or
    // when it takes a stream.
    if (Config.FollowSummaries && isDeclaredElsewhere(Decl))
      if (std::optional<FunctionSummary> S =
              ProjectSummaries::instance().lookup(Decl,
                                                  SummaryFact::LaunchedParams))
        if (llvm::any_of(S->LaunchedParams,
                         [&](const FunctionSummary::LaunchedParam &L) {
                           return L.Param == Param;
                         }))
          return {true, nullptr,
                  std::make_shared<const FunctionSummary>(std::move(*S))};
    for (const ParmVarDecl *P : Decl->parameters())
      if (isCudaStreamType(P->getType()))
        return {true, nullptr, nullptr};
    return {};
  }
  auto Key = std::make_pair(Def, Param);
  if (auto It = Launchers.find(Key); It != Launchers.end())
    return It->second;
  Launchers[Key] = {}; // recursion
  const ParmVarDecl *PVD = Def->getParamDecl(Param);
  LauncherAnswer Answer;
  // The body and the lambdas written in it.
  llvm::SmallVector<const Stmt *, 32> Stack{Def->getBody()};
  while (!Stack.empty() && !Answer.Is) {
    const Stmt *S = Stack.pop_back_val();
    if (!S)
      continue;
    if (const auto *L = dyn_cast<CUDAKernelCallExpr>(S)) {
      for (const Expr *A : L->arguments())
        if (passedParam(A, Def) == PVD)
          Answer = {true, L};
    } else if (const auto *Call = dyn_cast<CallExpr>(S)) {
      const FunctionDecl *Next = Call->getDirectCallee();
      const unsigned Shift =
          isa<CXXOperatorCallExpr>(Call) && isa_and_nonnull<CXXMethodDecl>(Next)
              ? 1
              : 0;
      for (unsigned A = Shift; Next && A < Call->getNumArgs(); ++A)
        if (passedParam(Call->getArg(A), Def) == PVD) {
          const LauncherAnswer Inner = launcher(Next, A - Shift, Depth + 1);
          if (Inner.Is)
            Answer = {true, Inner.Launch ? Inner.Launch : Call, nullptr};
        }
    }
    for (const Stmt *Child : S->children())
      Stack.push_back(Child);
  }
  Launchers[Key] = Answer;
  return Answer;
}

const Expr *
KernelLaunchAnalysis::Impl::dispatchedTensor(QualType Element) const {
  const auto *TT = Element->getAs<TypedefType>();
  if (!TT)
    return nullptr;
  const TypedefNameDecl *Alias = TT->getDecl();
  const auto *Fn = dyn_cast<FunctionDecl>(Alias->getDeclContext());
  if (!Fn || !Fn->getBody())
    return nullptr;
  const SwitchStmt *Switch = nullptr;
  forEachOwnStmt(Fn->getBody(), [&](const Stmt *S) {
    const auto *Sw = dyn_cast<SwitchStmt>(S);
    if (Switch || !Sw || !Sw->getBody())
      return;
    forEachOwnStmt(Sw->getBody(), [&](const Stmt *Inner) {
      if (const auto *DS = dyn_cast<DeclStmt>(Inner))
        for (const Decl *D : DS->decls())
          if (D == Alias)
            Switch = Sw;
    });
  });
  if (!Switch)
    return nullptr;
  const Expr *E = Switch->getCond();
  for (unsigned I = 0; E && I < limits::DeviceValueSteps; ++I) {
    E = unwrap(E);
    if (const CXXMemberCallExpr *MC = tensorMethodCall(E)) {
      const QualType T = MC->getType();
      if (isScalarTypeEnum(T) || isTypeMeta(T) || isDeprecatedTypeProperties(T))
        return MC->getImplicitObjectArgument();
      return nullptr;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
      if (!VD || VD->getDeclContext() != Fn || !VD->getInit())
        return nullptr;
      E = VD->getInit();
      continue;
    }
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call || isa<CXXMemberCallExpr>(Call) || Call->getNumArgs() != 1)
      return nullptr;
    E = Call->getArg(0);
  }
  return nullptr;
}

void KernelLaunchAnalysis::Impl::checkDispatchedView(
    const RawView &View, const TensorFacts &F, const KernelArgIssue &Base,
    const CallExpr *Sink, const FunctionDecl *FD,
    std::vector<KernelArgIssue> &Out) {
  if (F.Dtype.empty())
    return;
  std::optional<bool> Match = elementMatches(View.Element, F.Dtype, Ctx);
  if (!Match || *Match)
    return;
  const Expr *On = dispatchedTensor(View.Element);
  if (!On)
    return;
  const TensorFacts Dispatched = resolve(On, Sink, FD);
  if (Dispatched.DtypeChecked)
    return;
  if (!Dispatched.Dtype.empty()) {
    std::optional<bool> Runs =
        elementMatches(View.Element, Dispatched.Dtype, Ctx);
    if (!Runs || !*Runs)
      return;
  }
  KernelArgIssue I = Base;
  I.P = KernelArgIssue::WrongDtype;
  I.At = F.DtypeAt;
  I.Var = F.DtypeVar;
  I.Detail = F.Dtype;
  I.DispatchOn = On;
  Out.push_back(std::move(I));
}

void KernelLaunchAnalysis::Impl::checkArgument(
    const Expr *Arg, const CallExpr *Sink, const FunctionDecl *FD,
    const FunctionDecl *Launcher, const LauncherAnswer *Answer, unsigned Param,
    std::vector<KernelArgIssue> &Out) {
  std::optional<RawView> View = rawView(Arg);
  if (!View)
    return;
  const TensorFacts F = resolve(View->Tensor, Sink, FD);
  KernelArgIssue Base;
  Base.Sink = Sink;
  Base.Launcher = Launcher;
  if (Answer) {
    Base.LauncherLaunch = Answer->Launch;
    Base.LauncherSummary = Answer->Summary;
    Base.LauncherParam = Param;
  }
  Base.Argument = Arg;
  Base.RawView = View->Call;
  Base.Tensor = View->Tensor;
  Base.TypedView = View->Typed;
  if (!View->Element.isNull())
    Base.Pointee = View->Element.getAsString(Ctx.getPrintingPolicy());
  auto Emit = [&](KernelArgIssue::Property P, const PropState &S) {
    KernelArgIssue I = Base;
    I.P = P;
    I.Evidence = S.K == PropState::Against;
    I.At = S.At;
    I.Var = S.Var;
    I.Detail = S.Why;
    Out.push_back(std::move(I));
  };
  if (F.Device.K == PropState::Against ||
      (F.Device.K == PropState::Unknown && Config.ReportUnprovenArguments))
    Emit(KernelArgIssue::NotOnCuda, F.Device);
  // An accessor carries its strides; a raw pointer is read as contiguous.
  if (!View->Accessor &&
      (F.Contig.K == PropState::Against ||
       (F.Contig.K == PropState::Unknown && Config.ReportUnprovenArguments)))
    Emit(KernelArgIssue::NotContiguous, F.Contig);
  if (View->Element.isNull() || View->Element->isVoidType() || F.DtypeChecked)
    return;
  if (isDispatchType(View->Element, SM)) {
    checkDispatchedView(*View, F, Base, Sink, FD, Out);
    return;
  }
  if (!F.Dtype.empty()) {
    std::optional<bool> Match = elementMatches(View->Element, F.Dtype, Ctx);
    // Bytes allocated for objects of the pointer's type, cast to it.
    if (Match && !*Match && !View->Typed && bytesSizedFor(F, View->Element))
      Match = true;
    if (Match && !*Match) {
      KernelArgIssue I = Base;
      I.P = KernelArgIssue::WrongDtype;
      I.At = F.DtypeAt;
      I.Var = F.DtypeVar;
      I.Detail = F.Dtype;
      Out.push_back(std::move(I));
    }
  } else if (Config.ReportUnprovenArguments && !View->Typed) {
    KernelArgIssue I = Base;
    I.P = KernelArgIssue::WrongDtype;
    I.Evidence = false;
    Out.push_back(std::move(I));
  }
}

} // namespace torchtidy
