//===--- CudaWork.cpp - Which code does work on a CUDA device -------------===//

#include "torchtidy/analysis/CudaWork.h"
#include "torchtidy/analysis/LLVMCompat.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ASTLambda.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <algorithm>

using namespace clang;

namespace torchtidy {

//===--- Hooks ------------------------------------------------------------===//

static llvm::StringRef methodName(const CXXMethodDecl *MD) {
  if (MD->getOverloadedOperator() == OO_Call)
    return "operator()";
  return MD->getIdentifier() ? MD->getName() : "";
}

static DataHook hookDeclaredBy(const CXXMethodDecl *MD) {
  const llvm::StringRef Name = methodName(MD);
  // The DataLoader's hooks, as the table lists them.
  for (const DataHookRow &H : dataHookRows())
    if (H.Method == Name && isClass(MD->getParent(), H.Class))
      return {H.Base, H.Method};
  return {};
}

static DataHook findHook(const CXXMethodDecl *MD, unsigned Depth) {
  if (!MD || Depth > limits::OverrideDepth)
    return {};
  for (const CXXMethodDecl *O : MD->overridden_methods()) {
    if (DataHook H = hookDeclaredBy(O))
      return H;
    if (DataHook H = findHook(O, Depth + 1))
      return H;
  }
  return {};
}

DataHook getDataHook(const CXXMethodDecl *MD) {
  if (!MD || methodName(MD).empty())
    return {};
  return findHook(MD, 0);
}

//===--- Devices ----------------------------------------------------------===//

/// Looks through what the compiler adds and what only converts: parens,
/// implicit and explicit casts, temporaries and cleanups.
static const Expr *strip(const Expr *E) {
  return peel::peel(E, peel::Converted);
}

bool isDeviceValued(QualType T) {
  if (T.isNull())
    return false;
  if (isDeviceTypeEnum(T) || isDeviceClass(T))
    return true;
  const QualType V = getOptionalValueType(T.getNonReferenceType());
  return !V.isNull() && (isDeviceClass(V) || isDeviceTypeEnum(V));
}

bool carriesDevice(QualType T) {
  return isDeviceValued(T) || isTensorOptionsClass(T);
}

static bool isStringType(QualType T) {
  const CXXRecordDecl *RD = namedRecord(T);
  return isClass(RD, KnownClass::basic_string);
}

/// What a device literal names, as this model's classes (Meta, XLA,
/// MPS...: not the CUDA device the checks are about).
static DeviceClass classOf(DeviceLiteral L) {
  switch (L) {
  case DeviceLiteral::CPU:
    return DeviceClass::CPU;
  case DeviceLiteral::CUDA:
    return DeviceClass::CUDA;
  case DeviceLiteral::Other:
  case DeviceLiteral::Invalid:
    return DeviceClass::Unknown;
  }
  return DeviceClass::Unknown;
}

static DeviceClass deviceTypeValue(const Expr *E) {
  const auto *ET =
      E->getType().getNonReferenceType().getCanonicalType()->getAs<EnumType>();
  if (!ET)
    return DeviceClass::Unknown;
  std::optional<DeviceLiteral> L =
      deviceTypeOf(E, ET->getDecl()->getASTContext());
  return L ? classOf(*L) : DeviceClass::Unknown;
}

static DeviceClass classify(const Expr *E, unsigned Depth);

static DeviceClass classifyVariable(const VarDecl *VD, unsigned Depth) {
  const QualType T = VD->getType();
  if (isa<ParmVarDecl>(VD))
    return isDeviceValued(T) ? DeviceClass::Configurable : DeviceClass::Unknown;
  const Expr *Init = VD->getAnyInitializer();
  const bool Const = T.isConstQualified();
  if (VD->hasLocalStorage() || Const) {
    // A local is judged by its initialiser (later assignments are not
    // followed); so is a constant.
    if (Init)
      return classify(Init, Depth + 1);
    return DeviceClass::Unknown;
  }
  // A mutable global or static: whatever the program sets it to.
  return isDeviceValued(T) ? DeviceClass::Configurable : DeviceClass::Unknown;
}

static DeviceClass merge(DeviceClass A, DeviceClass B) {
  if (A == DeviceClass::CUDA || B == DeviceClass::CUDA)
    return DeviceClass::CUDA;
  if (A == DeviceClass::Configurable || B == DeviceClass::Configurable)
    return DeviceClass::Configurable;
  if (A == B)
    return A;
  return DeviceClass::Unknown;
}

static DeviceClass classify(const Expr *E, unsigned Depth) {
  if (!E || Depth > limits::DeviceValueSteps)
    return DeviceClass::Unknown;
  E = strip(E);
  if (!E)
    return DeviceClass::Unknown;
  const QualType T = E->getType();

  if (const auto *SL = dyn_cast<StringLiteral>(E)) {
    if (!SL->isOrdinary())
      return DeviceClass::Unknown;
    return classOf(parseDeviceString(SL->getString()));
  }
  if (const auto *CO = dyn_cast<AbstractConditionalOperator>(E))
    return merge(classify(CO->getTrueExpr(), Depth + 1),
                 classify(CO->getFalseExpr(), Depth + 1));

  if (isDeviceTypeEnum(T)) {
    const DeviceClass C = deviceTypeValue(E);
    if (C != DeviceClass::Unknown)
      return C;
  } else if (!isDeviceValued(T) && !isTensorOptionsClass(T) &&
             !isStringType(T)) {
    // A dtype, a layout, a nullopt...: says nothing about the device.
    return DeviceClass::NotADevice;
  }

  if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
    if (peel::noWrittenArgs(CE))
      // TensorOptions() and an empty optional carry no device.
      return isTensorOptionsClass(T) || !getOptionalValueType(T).isNull()
                 ? DeviceClass::NotADevice
                 : DeviceClass::Unknown;
    // Device(kCUDA, 1), Device("cuda:1"), TensorOptions(kCUDA), copies, and
    // the string made from a literal: the device is the first argument
    // (the second, after c10::in_place).
    unsigned I = 0;
    if (CE->getNumArgs() > 1) {
      const CXXRecordDecl *Tag = namedRecord(CE->getArg(0)->getType());
      if (isClass(Tag, KnownClass::in_place_t))
        I = 1;
    }
    const DeviceClass C = classify(CE->getArg(I), Depth + 1);
    // Device(name) from a string that is not a literal: not known.
    if (C == DeviceClass::NotADevice && isDeviceValued(T))
      return DeviceClass::Unknown;
    return C;
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (MD && isTensorOptionsClass(compat::recordType(MD->getParent()))) {
      if ((callFacts(MC) & op::OptionsDevice) && MC->getNumArgs() > 0)
        return classify(MC->getArg(0), Depth + 1);
      // .dtype(), .requires_grad(), .layout()...: keep the object's device.
      return classify(MC->getImplicitObjectArgument(), Depth + 1);
    }
    // t.device(), t.options(): the device of another tensor.
    return DeviceClass::Unknown;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    // torch::device(d), torch::dtype(t): the TensorOptions shortcuts.
    if (formOf(Call->getDirectCallee()) == op::Aten) {
      const op::FactSet Facts = callFacts(Call);
      if ((Facts & op::OptionsDevice) && Call->getNumArgs() > 0)
        return classify(Call->getArg(0), Depth + 1);
      if (Facts & op::OptionsNonDevice)
        return DeviceClass::NotADevice;
    }
    return DeviceClass::Unknown;
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
      return classifyVariable(VD, Depth);
    return DeviceClass::Unknown;
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    if (const auto *VD = dyn_cast<VarDecl>(ME->getMemberDecl()))
      return classifyVariable(VD, Depth);
    if (const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl()))
      return isDeviceValued(FD->getType()) ? DeviceClass::Configurable
                                           : DeviceClass::Unknown;
  }
  return DeviceClass::Unknown;
}

DeviceClass classifyDevice(const Expr *E) { return classify(E, 0); }

//===--- CUDA work --------------------------------------------------------===//

/// cudaMemcpy, cudaMalloc, cuMemcpyHtoD...: C functions at global scope
/// (the op table's CUDA runtime families).
static bool isCudaRuntimeCall(const CallExpr *Call, const FunctionDecl *FD) {
  return FD->isExternC() && (callFacts(Call) & op::CudaRuntimeCall);
}

/// The arguments (not defaults) that \p Call passes for the device-carrying
/// parameters of \p FD, its callee.
static llvm::SmallVector<const Expr *, 2>
deviceCarryingArgs(const CallExpr *Call, const FunctionDecl *FD) {
  llvm::SmallVector<const Expr *, 2> Out;
  const unsigned Offset =
      isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(FD) ? 1 : 0;
  for (unsigned I = 0;
       I < FD->getNumParams() && I + Offset < Call->getNumArgs(); ++I) {
    const Expr *Arg = Call->getArg(I + Offset);
    if (carriesDevice(FD->getParamDecl(I)->getType()) &&
        !isa<CXXDefaultArgExpr>(Arg))
      Out.push_back(Arg);
  }
  return Out;
}

/// The most definite device among \p Args.
static DeviceClass mostDefinite(llvm::ArrayRef<const Expr *> Args) {
  DeviceClass Best = DeviceClass::NotADevice;
  for (const Expr *Arg : Args) {
    const DeviceClass C = classify(Arg, 0);
    if (C == DeviceClass::CUDA)
      return C;
    if (C == DeviceClass::Configurable)
      Best = C;
  }
  return Best;
}

std::optional<CudaOp> classifyCudaOp(const Expr *E) {
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return std::nullopt;
  if (isa<CUDAKernelCallExpr>(E)) {
    CudaOp Op{CudaOp::KernelLaunch, E};
    Op.Callee = cast<CallExpr>(E)->getDirectCallee();
    return Op;
  }
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
    // c10::cuda::CUDAGuard, CUDAStreamGuard: switch the thread's device.
    const CXXConstructorDecl *Ctor = CE->getConstructor();
    if (Ctor && !Ctor->isCopyOrMoveConstructor() &&
        inTorchCudaNamespace(Ctor->getParent())) {
      CudaOp Op{CudaOp::CudaLibrary, E};
      Op.Callee = Ctor;
      return Op;
    }
    return std::nullopt;
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  if (!Call)
    return std::nullopt;
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD)
    return std::nullopt;

  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD); MD && !MD->isStatic()) {
    if (isTensorMethod(MD) &&
        moveDestination(Call).K == MoveDestination::Cuda) {
      CudaOp Op{CudaOp::CudaMethod, E};
      Op.Callee = FD;
      return Op;
    }
  } else if (inTorchCudaNamespace(FD)) {
    if (callFacts(Call) & op::CudaQuery)
      return std::nullopt;
    CudaOp Op{CudaOp::CudaLibrary, E};
    Op.Callee = FD;
    return Op;
  } else if (isCudaRuntimeCall(Call, FD)) {
    CudaOp Op{CudaOp::CudaRuntime, E};
    Op.Callee = FD;
    return Op;
  }
  // t.to(kCUDA), t.to(device_), t.new_zeros(size, options_on_cuda),
  // torch::zeros({n}, torch::kCUDA), at::empty(size, options.device(d)).
  CudaOp::Kind K = CudaOp::Factory;
  const DeviceClass C = mostDefinite(deviceOperands(Call, K));
  if (!isGpuDevice(C))
    return std::nullopt;
  CudaOp Op{K, E};
  Op.Device = C;
  Op.Callee = FD;
  return Op;
}

llvm::SmallVector<const Expr *, 2> deviceOperands(const CallExpr *Call,
                                                  CudaOp::Kind &K) {
  llvm::SmallVector<const Expr *, 2> Out;
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD || Call->isValueDependent() || Call->isTypeDependent())
    return Out;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD); MD && !MD->isStatic()) {
    if (!isTensorMethod(MD))
      return Out;
    const MoveDestination Move = moveDestination(Call);
    if (Move.K == MoveDestination::Cuda)
      return Out;
    if (Move.isMove()) {
      // `x.to(device)`, `x.to(options)`: the device it gives.
      K = CudaOp::MoveToDevice;
      if (const Expr *To = Move.givenDevice())
        Out.push_back(To);
      return Out;
    }
    K = CudaOp::Factory;
  } else if (isTorchFunction(FD) && isTensorType(FD->getReturnType()) &&
             !inTorchCudaNamespace(FD)) {
    K = CudaOp::Factory;
  } else {
    return Out;
  }
  return deviceCarryingArgs(Call, FD);
}

//===--- Member tensors moved to CUDA -------------------------------------===//

/// \p E makes a CUDA tensor: a move, a factory, or an op on one
/// (`x.cuda().float()`), or a local initialised with one.
static bool isCudaTensorExpr(const Expr *E, unsigned Depth) {
  if (!E || Depth > limits::DeviceValueSteps)
    return false;
  E = strip(E);
  if (std::optional<CudaOp> Op = classifyCudaOp(E))
    return Op->K == CudaOp::MoveToDevice || Op->K == CudaOp::CudaMethod ||
           Op->K == CudaOp::Factory;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (!MD || !isTensorMethod(MD))
      return false;
    // Back to the CPU, or to a device that is not CUDA (classifyCudaOp
    // found no move to CUDA); a dtype conversion keeps the device.
    const MoveDestination Move = moveDestination(MC);
    const Expr *To = Move.givenDevice();
    if (Move.K == MoveDestination::Cpu ||
        (To && classify(To, 0) != DeviceClass::NotADevice))
      return false;
    return isCudaTensorExpr(MC->getImplicitObjectArgument(), Depth + 1);
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
      if (VD->hasLocalStorage() && !isa<ParmVarDecl>(VD))
        return isCudaTensorExpr(VD->getInit(), Depth + 1);
  return false;
}

bool splitAssignment(const Stmt *S, const Expr *&LHS, const Expr *&RHS) {
  LHS = RHS = nullptr;
  if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
    if (BO->getOpcode() != BO_Assign)
      return false;
    LHS = BO->getLHS();
    RHS = BO->getRHS();
  } else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(S)) {
    if (OC->getOperator() != OO_Equal || OC->getNumArgs() != 2)
      return false;
    LHS = OC->getArg(0);
    RHS = OC->getArg(1);
  } else {
    return false;
  }
  return true;
}

/// The field a plain assignment `field = value` writes, with the value.
static const FieldDecl *assignedField(const Stmt *S, const Expr **Value) {
  const Expr *LHS = nullptr, *RHS = nullptr;
  if (!splitAssignment(S, LHS, RHS))
    return nullptr;
  const auto *ME = dyn_cast<MemberExpr>(peel::peel(LHS, peel::ParenImpCasts));
  if (!ME)
    return nullptr;
  *Value = RHS;
  return dyn_cast<FieldDecl>(ME->getMemberDecl());
}

static void
collectCudaAssignments(const Stmt *S, const CXXRecordDecl *RD,
                       llvm::DenseMap<const FieldDecl *, const Expr *> &Out) {
  if (!S)
    return;
  const Expr *Value = nullptr;
  if (const FieldDecl *F = assignedField(S, &Value))
    if (F->getParent() == RD && isTensorType(F->getType()) && !Out.count(F) &&
        isCudaTensorExpr(Value, 0))
      Out[F] = strip(Value);
  for (const Stmt *Child : S->children())
    collectCudaAssignments(Child, RD, Out);
}

const Expr *CudaWorkFinder::cudaWriteOf(const FieldDecl *Field) {
  if (!Field || !isTensorType(Field->getType()))
    return nullptr;
  const auto *RD = dyn_cast<CXXRecordDecl>(Field->getParent());
  if (!RD)
    return nullptr;
  // LibTorch's own classes (Example::data...) are not moved by user code.
  if (!isUserDecl(RD))
    return nullptr;
  auto [It, Inserted] = CudaFields.try_emplace(RD);
  if (Inserted) {
    // Only code that can run on a worker thread makes a member a CUDA
    // tensor that each call does GPU work with: a constructor or a
    // `to_device()` the main thread calls puts the data on the GPU once.
    const llvm::DenseSet<const FunctionDecl *> &Worker =
        workerFunctions(RD->getASTContext());
    auto &Out = It->second;
    bool CtorOnWorker = false;
    for (const CXXMethodDecl *M : RD->methods()) {
      const FunctionDecl *Def = nullptr;
      if (!M->hasBody(Def) || Def->isDependentContext() || !Worker.count(Def))
        continue;
      if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Def)) {
        CtorOnWorker = true;
        for (const CXXCtorInitializer *Init : Ctor->inits())
          if (const FieldDecl *F = Init->getMember();
              F && Init->isWritten() && isTensorType(F->getType()) &&
              !Out.count(F) && isCudaTensorExpr(Init->getInit(), 0))
            Out[F] = strip(Init->getInit());
      }
      collectCudaAssignments(Def->getBody(), RD, Out);
    }
    if (CtorOnWorker)
      for (const FieldDecl *F : RD->fields())
        if (isTensorType(F->getType()) && F->hasInClassInitializer() &&
            !Out.count(F) && isCudaTensorExpr(F->getInClassInitializer(), 0))
          Out[F] = strip(F->getInClassInitializer());
  }
  return It->second.lookup(Field);
}

//===--- The walk ---------------------------------------------------------===//

std::string describeCudaOp(const CudaOp &Op) {
  const bool Configurable = Op.Device == DeviceClass::Configurable;
  const char *Where =
      Configurable ? "a device that is not provably the CPU" : "a CUDA device";
  std::string Name;
  if (Op.Callee && Op.Callee->getDeclName())
    Name = Op.Callee->getNameAsString();
  switch (Op.K) {
  case CudaOp::MoveToDevice:
    return "'" + Name + "' moves a tensor to " + Where;
  case CudaOp::CudaMethod:
    return "'cuda' moves a tensor to the GPU";
  case CudaOp::Factory:
    return "'" + Name + "' creates a tensor on " + Where;
  case CudaOp::CudaLibrary:
    return "'" + (Op.Callee ? Op.Callee->getQualifiedNameAsString() : Name) +
           "' works on the current CUDA device";
  case CudaOp::CudaRuntime:
    return "'" + Name + "' is a CUDA runtime call";
  case CudaOp::KernelLaunch:
    return "a CUDA kernel launch";
  case CudaOp::CudaMemberRead:
    return "reading '" + Op.Member->getNameAsString() +
           "', a tensor member the class moved to CUDA";
  }
  return "CUDA work";
}

/// The definition of \p FD when it is user code the walk may enter.
static const FunctionDecl *walkableDefinition(const FunctionDecl *FD) {
  const FunctionDecl *Def = nullptr;
  if (!FD || !FD->hasBody(Def) || !Def)
    return nullptr;
  if (Def->isImplicit() || Def->isDefaulted() || Def->isInvalidDecl() ||
      Def->isDependentContext() || isa<CXXDestructorDecl>(Def))
    return nullptr;
  // A lambda's body is scanned as part of the function that writes it.
  if (const auto *MD = dyn_cast<CXXMethodDecl>(Def);
      MD && isLambdaCallOperator(MD))
    return nullptr;
  if (!isUserDecl(Def))
    return nullptr;
  return Def;
}

const llvm::DenseSet<const FunctionDecl *> &
CudaWorkFinder::workerFunctions(ASTContext &Ctx) {
  if (Worker)
    return *Worker;
  Worker.emplace();
  // The hooks of the TU, then what they call, MaxCallDepth calls deep.
  std::vector<std::pair<const FunctionDecl *, unsigned>> Work;
  forEachUserFunction(Ctx, [&](const FunctionDecl *FD) {
    if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
      if (getDataHook(MD) && Worker->insert(FD).second)
        Work.emplace_back(FD, 0);
  });
  while (!Work.empty()) {
    const FunctionDecl *FD = Work.back().first;
    const unsigned Depth = Work.back().second;
    Work.pop_back();
    if (Depth >= MaxCallDepth)
      continue;
    forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      const FunctionDecl *Callee = nullptr;
      if (const auto *Call = dyn_cast<CallExpr>(S))
        Callee = Call->getDirectCallee();
      else if (const auto *CE = dyn_cast<CXXConstructExpr>(S))
        Callee = CE->getConstructor();
      else if (const auto *L = dyn_cast<LambdaExpr>(S))
        Callee = L->getCallOperator();
      const FunctionDecl *Def = Callee;
      if (!Callee || !Callee->hasBody(Def) || !Def || !isUserDecl(Def) ||
          Def->isDependentContext())
        return;
      if (Worker->insert(Def).second)
        Work.emplace_back(Def, Depth + 1);
    });
  }
  return *Worker;
}

namespace {
/// Collects a function's own CUDA work and its calls to walkable functions.
class BodyScanner {
public:
  /// Scans \p Within's statements.
  BodyScanner(CudaWorkFinder &Finder, const FunctionDecl *Within,
              bool FollowSummaries, std::vector<CudaOp> &Ops,
              std::vector<CallStep> &Calls, std::vector<CallStep> &External)
      : Finder(Finder), Within(Within), FollowSummaries(FollowSummaries),
        Ops(Ops), Calls(Calls), External(External) {}

  void scan(const Stmt *S) {
    if (!S)
      return;
    // Unevaluated operands do no work.
    if (isa<UnaryExprOrTypeTraitExpr>(S) || isa<CXXNoexceptExpr>(S))
      return;
    if (const auto *TE = dyn_cast<CXXTypeidExpr>(S);
        TE && !TE->isPotentiallyEvaluated())
      return;
    if (const auto *E = dyn_cast<Expr>(S)) {
      if (std::optional<CudaOp> Op = classifyCudaOp(E))
        Ops.push_back(*Op);
      // `x.to(device)` with a device that a function returns, or that a
      // local is set to.
      else if (std::optional<CudaOp> D = deviceOp(E, Within, FollowSummaries))
        Ops.push_back(std::move(*D));
      noteCall(E);
      noteMemberRead(E);
    }
    // `field = value` writes the field: scan the value and the object, not
    // the field as a read.
    const Expr *Value = nullptr;
    if (assignedField(S, &Value)) {
      const Expr *LHS = isa<BinaryOperator>(S)
                            ? cast<BinaryOperator>(S)->getLHS()
                            : cast<CXXOperatorCallExpr>(S)->getArg(0);
      scan(cast<MemberExpr>(peel::peel(LHS, peel::ParenImpCasts))->getBase());
      scan(Value);
      return;
    }
    for (const Stmt *Child : S->children())
      scan(Child);
  }

private:
  void noteCall(const Expr *E) {
    const FunctionDecl *Callee = nullptr;
    if (const auto *Call = dyn_cast<CallExpr>(E))
      Callee = Call->getDirectCallee();
    else if (const auto *CE = dyn_cast<CXXConstructExpr>(E))
      Callee = CE->getConstructor();
    if (const FunctionDecl *Def = walkableDefinition(Callee))
      Calls.push_back({E, Def});
    else if (isDeclaredElsewhere(Callee))
      External.push_back({E, Callee});
  }

  void noteMemberRead(const Expr *E) {
    const auto *ME = dyn_cast<MemberExpr>(E);
    if (!ME)
      return;
    const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl());
    if (!F || !isTensorType(F->getType()) || !ReadFields.insert(F).second)
      return;
    if (const Expr *MovedAt = Finder.cudaWriteOf(F)) {
      CudaOp Op{CudaOp::CudaMemberRead, E};
      Op.Member = F;
      Op.MovedAt = MovedAt;
      Ops.push_back(Op);
    }
  }

  CudaWorkFinder &Finder;
  const FunctionDecl *Within;
  bool FollowSummaries;
  std::vector<CudaOp> &Ops;
  std::vector<CallStep> &Calls;
  std::vector<CallStep> &External;
  llvm::SmallPtrSet<const FieldDecl *, 4> ReadFields;
};
} // namespace

const CudaWorkFinder::Summary &
CudaWorkFinder::summarize(const FunctionDecl *FD) {
  auto It = Summaries.find(FD);
  if (It != Summaries.end())
    return *It->second;
  auto S = std::make_unique<Summary>();
  Summary &Ref = *S;
  Summaries[FD] = std::move(S);
  const FunctionDecl *Def = nullptr;
  if (FD->hasBody(Def) && Def && !Def->isDependentContext()) {
    BodyScanner Scanner(*this, Def, FollowSummaries, Ref.Ops, Ref.Calls,
                        Ref.External);
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Def))
      for (const CXXCtorInitializer *Init : Ctor->inits())
        if (Init->isWritten())
          Scanner.scan(Init->getInit());
    Scanner.scan(Def->getBody());
  }
  return Ref;
}

std::optional<CudaWorkFinding>
CudaWorkFinder::searchFrom(const CallStep &First, const FunctionDecl *Root) {
  // Breadth first, so that the chain reported is a shortest one; each
  // function is entered once, which ends recursion.
  struct Node {
    CallStep Step;
    unsigned Depth;
    int Parent;
  };
  std::vector<Node> Nodes{{First, 1, -1}};
  llvm::SmallPtrSet<const FunctionDecl *, 16> Visited{Root, First.Callee};
  auto ChainTo = [&](size_t I, CudaWorkFinding &F) {
    llvm::SmallVector<CallStep, 4> Steps;
    for (int N = static_cast<int>(I); N >= 0; N = Nodes[N].Parent)
      Steps.push_back(Nodes[N].Step);
    std::reverse(Steps.begin(), Steps.end());
    F.Chain.insert(F.Chain.begin(), Steps.begin(), Steps.end());
    return F;
  };
  for (size_t I = 0; I < Nodes.size(); ++I) {
    const Summary &S = summarize(Nodes[I].Step.Callee);
    if (!S.Ops.empty()) {
      CudaWorkFinding F{S.Ops.front(), {}, std::nullopt};
      return ChainTo(I, F);
    }
    if (Nodes[I].Depth < MaxCallDepth)
      if (std::optional<CudaWorkFinding> F = externalWork(S))
        return ChainTo(I, *F);
    if (Nodes[I].Depth >= MaxCallDepth)
      continue;
    for (const CallStep &C : S.Calls)
      if (Visited.insert(C.Callee).second)
        Nodes.push_back({C, Nodes[I].Depth + 1, static_cast<int>(I)});
  }
  return std::nullopt;
}

std::vector<CudaWorkFinding> CudaWorkFinder::find(const FunctionDecl *Root) {
  std::vector<CudaWorkFinding> Out;
  if (!Root)
    return Out;
  const Summary &S = summarize(Root);
  for (const CudaOp &Op : S.Ops)
    Out.push_back({Op, {}, std::nullopt});
  if (MaxCallDepth == 0)
    return Out;
  for (const CallStep &C : S.Calls)
    if (C.Callee != Root)
      if (std::optional<CudaWorkFinding> F = searchFrom(C, Root))
        Out.push_back(std::move(*F));
  if (FollowSummaries)
    for (const CallStep &C : S.External)
      if (std::optional<CudaWorkFinding> F = externalWork({{}, {}, {C}}))
        Out.push_back(std::move(*F));
  return Out;
}

std::optional<CudaWorkFinding>
CudaWorkFinder::externalWork(const Summary &S) const {
  if (!FollowSummaries)
    return std::nullopt;
  for (const CallStep &C : S.External) {
    std::optional<FunctionSummary> Linked =
        ProjectSummaries::instance().lookup(C.Callee, SummaryFact::CudaWork);
    if (!Linked || !Linked->CudaWork)
      continue;
    const CudaOp Op{CudaOp::CudaLibrary, C.Call};
    CudaWorkFinding F{Op, {C}, std::move(Linked)};
    return F;
  }
  return std::nullopt;
}

std::vector<ExternalCallChain>
CudaWorkFinder::externalCalls(const FunctionDecl *Root) {
  std::vector<ExternalCallChain> Out;
  if (!Root)
    return Out;
  struct Node {
    const FunctionDecl *FD;
    unsigned Depth;
    int Parent;
    CallStep Step; // how Parent calls FD; unset for the root
  };
  std::vector<Node> Nodes{{Root, 0, -1, {}}};
  llvm::SmallPtrSet<const FunctionDecl *, 16> Visited{Root};
  llvm::SmallPtrSet<const FunctionDecl *, 16> Reached;
  for (size_t I = 0; I < Nodes.size(); ++I) {
    const Summary &S = summarize(Nodes[I].FD);
    for (const CallStep &C : S.External) {
      if (!Reached.insert(C.Callee->getCanonicalDecl()).second)
        continue;
      ExternalCallChain Chain;
      for (int N = static_cast<int>(I); N > 0; N = Nodes[N].Parent)
        Chain.Chain.push_back(Nodes[N].Step);
      std::reverse(Chain.Chain.begin(), Chain.Chain.end());
      Chain.Chain.push_back(C);
      Out.push_back(std::move(Chain));
    }
    if (Nodes[I].Depth >= MaxCallDepth)
      continue;
    for (const CallStep &C : S.Calls)
      if (Visited.insert(C.Callee).second)
        Nodes.push_back({C.Callee, Nodes[I].Depth + 1, static_cast<int>(I), C});
  }
  return Out;
}

} // namespace torchtidy
