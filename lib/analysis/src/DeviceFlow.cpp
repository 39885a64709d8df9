//===--- DeviceFlow.cpp - Which device each tensor lives on ---------------===//

#include "DeviceFlowImpl.h"
#include "torchtidy/analysis/FunctionContext.h"
#include "torchtidy/analysis/LLVMCompat.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/OpSwitch.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchTypes.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/Analyses/PostOrderCFGView.h"
#include "clang/Analysis/CFG.h"
#include "clang/Analysis/FlowSensitive/DataflowWorklist.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>

using namespace clang;

namespace torchtidy {

using namespace deviceflow;

namespace {

using State = llvm::DenseMap<const ValueDecl *, DeviceFact>;

/// Joins \p From into \p Into; false when nothing changed.
bool joinInto(State &Into, const State &From) {
  bool Changed = false;
  llvm::SmallVector<const ValueDecl *, 8> Drop;
  for (auto &[D, F] : Into) {
    auto It = From.find(D);
    if (It == From.end()) {
      Drop.push_back(D);
      continue;
    }
    const DeviceFact J = join(F, It->second);
    if (J != F) {
      Changed = true;
      if (J.K == DeviceFact::Unknown)
        Drop.push_back(D);
      else
        F = J;
    }
  }
  for (const ValueDecl *D : Drop)
    Into.erase(D);
  return Changed || !Drop.empty();
}

bool sameState(const State &A, const State &B) {
  if (A.size() != B.size())
    return false;
  for (const auto &[D, F] : A) {
    auto It = B.find(D);
    if (It == B.end() || It->second != F)
      return false;
  }
  return true;
}

class IndexOpFinder : public RecursiveASTVisitor<IndexOpFinder> {
public:
  bool Found = false;
  bool shouldVisitLambdaBody() const { return false; }
  bool VisitCallExpr(CallExpr *Call) {
    if (matchIndexOp(Call))
      Found = true;
    return !Found;
  }
};

//===----------------------------------------------------------------------===//
// The transfer function
//===----------------------------------------------------------------------===//

class Transfer {
public:
  Transfer(ASTContext &Ctx, const llvm::DenseSet<const ValueDecl *> &Escaped,
           std::vector<IndexSiteFacts> *Sites,
           std::vector<CombineSiteFacts> *Combines = nullptr,
           std::vector<OperandFact> *Returns = nullptr,
           llvm::DenseSet<const ValueDecl *> *Assigned = nullptr)
      : Ctx(Ctx), Escaped(Escaped), Sites(Sites), Combines(Combines),
        Returns(Returns), Assigned(Assigned) {}

  void apply(const Stmt *S, State &St) {
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D))
          declare(VD, St);
      return;
    }
    if (const auto *Ret = dyn_cast<ReturnStmt>(S)) {
      if (const Expr *V = Ret->getRetValue();
          Returns && V && isTensor(V->getType()))
        Returns->push_back({V, eval(V, St)});
      return;
    }
    const auto *Call = dyn_cast<CallExpr>(S);
    if (!Call)
      return;
    if (Sites)
      recordSite(Call, St);
    if (Combines)
      recordCombine(Call, St);
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
      if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2) {
        assign(Op->getArg(0), Op->getArg(1), Op, St);
        return;
      }
    const FunctionDecl *FD = Call->getDirectCallee();
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
      if (callFacts(MC) & op::MovesToArgument &&
          formOf(MC->getMethodDecl()) == op::ModuleBase) {
        moveModule(MC, St);
        return;
      }
    }
    if (!FD || !isTorchFunction(FD))
      forgetMembers(St);
  }

private:
  //--- Updates ------------------------------------------------------------

  void declare(const VarDecl *VD, State &St) {
    const ValueKind K = kindOf(VD->getType());
    if (K == ValueKind::None || Escaped.count(VD))
      return;
    kill(VD, St);
    const Expr *Init = VD->getInit();
    DeviceFact F;
    switch (K) {
    case ValueKind::Tensor:
      F = Init ? eval(Init, St) : DeviceFact::unknown();
      break;
    case ValueKind::Device:
      F = Init ? runtimeDevice(VD, Init, evalDevice(Init, St))
               : DeviceFact::unknown();
      break;
    case ValueKind::Options:
      F = Init ? evalOptions(Init, St)
               : DeviceFact::make(DeviceFact::NoDevice, VD->getInit());
      break;
    case ValueKind::Module:
      F = Init ? evalModuleInit(Init, St) : DeviceFact::unknown();
      break;
    case ValueKind::None:
      break;
    }
    set(VD, F, St);
  }

  void assign(const Expr *LHS, const Expr *RHS, const Stmt *At, State &St) {
    const ValueDecl *D = trackedDecl(LHS);
    if (!D)
      return;
    if (Assigned)
      Assigned->insert(D);
    if (Escaped.count(D))
      return;
    DeviceFact F;
    switch (kindOf(D->getType())) {
    case ValueKind::Tensor:
      F = eval(RHS, St);
      break;
    case ValueKind::Device:
      F = runtimeDevice(D, At, evalDevice(RHS, St));
      break;
    case ValueKind::Options:
      F = evalOptions(RHS, St);
      break;
    case ValueKind::Module:
      F = evalModuleInit(RHS, St);
      break;
    case ValueKind::None:
      return;
    }
    kill(D, St);
    set(D, F, St);
  }

  /// `m->to(d)`, `impl.to(d)`, `to(d)` inside a module.
  void moveModule(const CXXMemberCallExpr *MC, State &St) {
    const Expr *Obj =
        peel::peel(MC->getImplicitObjectArgument(), peel::ParenImpCasts);
    if (const auto *Arrow = dyn_cast<CXXOperatorCallExpr>(Obj))
      if (Arrow->getOperator() == OO_Arrow && Arrow->getNumArgs() == 1)
        Obj = Arrow->getArg(0);
    const ValueDecl *D = trackedDecl(Obj);
    if (!D || kindOf(D->getType()) != ValueKind::Module) {
      // The module moves itself (or one the model cannot name): its
      // registered members move with it.
      forgetMembers(St);
      return;
    }
    if (Escaped.count(D))
      return;
    const MoveDestination Move = moveDestination(MC);
    if (Move.K != MoveDestination::Device)
      return; // to(dtype): not a device move
    DeviceFact F = evalDevice(Move.Operand, St);
    F.Origin = MC;
    F.How = DeviceFact::Moved;
    kill(D, St);
    set(D, F, St);
  }

  void set(const ValueDecl *D, DeviceFact F, State &St) {
    if (F.K == DeviceFact::Unknown || (F.K == DeviceFact::SameAs && F.Ref == D))
      St.erase(D);
    else
      St[D] = F;
  }

  /// \p D gets a new value: facts that named its old value keep the old
  /// device when it was known, else become Unknown.
  void kill(const ValueDecl *D, State &St) {
    const DeviceFact Old = lookup(D, St);
    const bool Keep = Old.K == DeviceFact::CPU || Old.K == DeviceFact::CUDA;
    llvm::SmallVector<const ValueDecl *, 4> Drop;
    for (auto &[Other, F] : St) {
      if (F.Ref != D ||
          (F.K != DeviceFact::SameAs && F.K != DeviceFact::DeviceOf))
        continue;
      if (Keep) {
        DeviceFact N = Old;
        N.ZeroDim = F.ZeroDim;
        F = N;
      } else {
        Drop.push_back(Other);
      }
    }
    for (const ValueDecl *O : Drop)
      St.erase(O);
    St.erase(D);
  }

  /// A call the model does not know may change any member.
  void forgetMembers(State &St) {
    llvm::SmallVector<const ValueDecl *, 4> Members;
    for (auto &[D, F] : St) {
      if (isa<FieldDecl>(D))
        Members.push_back(D);
      if (F.Ref && isa<FieldDecl>(F.Ref))
        Members.push_back(F.Ref);
    }
    for (const ValueDecl *D : Members)
      kill(D, St);
  }

  //--- Reading ------------------------------------------------------------

  /// The fact of a tracked value now.
  DeviceFact lookup(const ValueDecl *D, const State &St) const {
    if (Escaped.count(D))
      return DeviceFact::unknown();
    auto It = St.find(D);
    if (It != St.end())
      return It->second;
    DeviceFact F;
    switch (kindOf(D->getType())) {
    case ValueKind::Tensor:
    case ValueKind::Module:
      F.K = DeviceFact::SameAs;
      F.Ref = D;
      break;
    case ValueKind::Device:
      // A device parameter or member, or one that conflicting paths set:
      // chosen at run time.
      F.K = DeviceFact::DeviceOf;
      F.Ref = D;
      break;
    default:
      break;
    }
    return F;
  }

  /// A device variable \p D set to \p F at \p At: a value only known at run
  /// time is "the device held by D".
  DeviceFact runtimeDevice(const ValueDecl *D, const Stmt *At, DeviceFact F) {
    if (F.K == DeviceFact::CPU || F.K == DeviceFact::CUDA ||
        F.K == DeviceFact::SameAs || F.K == DeviceFact::DeviceOf)
      return F;
    DeviceFact R;
    R.K = DeviceFact::DeviceOf;
    R.Ref = D;
    R.RefOrigin = At;
    R.CudaWhenAvailable = mentionsCudaAvailability(At);
    return R;
  }

  /// The device of tensor-valued expression \p E.
  DeviceFact eval(const Expr *E, const State &St, unsigned Depth = 0) {
    if (!E || Depth > limits::DeviceExprDepth)
      return DeviceFact::unknown();
    E = strip(E);
    if (const ValueDecl *D = trackedDecl(E))
      return kindOf(D->getType()) == ValueKind::Tensor ? lookup(D, St)
                                                       : DeviceFact::unknown();
    if (const auto *CO = dyn_cast<ConditionalOperator>(E))
      return join(eval(CO->getTrueExpr(), St, Depth + 1),
                  eval(CO->getFalseExpr(), St, Depth + 1));
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call)
      return DeviceFact::unknown();

    const Expr *ModuleExpr = nullptr;
    if (moduleForwardCall(Call, &ModuleExpr)) {
      DeviceFact F = moduleDevice(ModuleExpr, St);
      F.ZeroDim = false;
      // A module's output is on its device: known, or "the device of m".
      return F.isKnown() || F.K == DeviceFact::SameAs ? F
                                                      : DeviceFact::unknown();
    }
    return evalCall(OpCall::of(Call), St, Depth);
  }

  /// The device of a call's result, as the op table's facts of the call
  /// choose: a tensor method (operators included: `a + b`, `a[i]` keep a's
  /// device) and its moves, a factory, a like-factory given options, else
  /// a free LibTorch function's first tensor argument.
  DeviceFact evalCall(const OpCall &C, const State &St, unsigned Depth) {
    using R = std::optional<DeviceFact>;
    using Switch = OpSwitch<DeviceFact, Transfer &, const State &, unsigned>;
    static const Switch Calls =
        Switch()
            .caseOf(
                form(op::Method).anyOf(op::MovesToCuda),
                [](const OpCall &C, Transfer &, const State &, unsigned) -> R {
                  return DeviceFact::make(DeviceFact::CUDA, C.Call,
                                          DeviceFact::Moved);
                })
            .caseOf(form(op::Method).anyOf(op::MovesToCpu),
                    [](const OpCall &C, Transfer &T, const State &St,
                       unsigned Depth) -> R {
                      DeviceFact F = DeviceFact::make(DeviceFact::CPU, C.Call,
                                                      DeviceFact::Moved);
                      F.ZeroDim =
                          T.eval(methodObject(C.Call), St, Depth + 1).ZeroDim;
                      return F;
                    })
            .caseOf(form(op::Method).anyOf(op::MovesToArgument),
                    [](const OpCall &C, Transfer &T, const State &St,
                       unsigned Depth) -> R {
                      return T.evalTo(C.Call, moveDestination(C.Call),
                                      methodObject(C.Call), St, Depth);
                    })
            .caseOf(form(op::Method),
                    [](const OpCall &C, Transfer &T, const State &St,
                       unsigned Depth) -> R {
                      if (!isTensor(C.Call->getType()) ||
                          (C.Facts & op::DeviceOpaque))
                        return DeviceFact::unknown();
                      DeviceFact F =
                          T.eval(methodObject(C.Call), St, Depth + 1);
                      const unsigned First =
                          isa<CXXOperatorCallExpr>(C.Call) ? 1 : 0;
                      F.ZeroDim = ((C.Facts & op::KeepsShape) && F.ZeroDim) ||
                                  ((C.Facts & op::FullReduction) &&
                                   peel::noWrittenArgs(C.Call, First));
                      return F;
                    })
            // The cases below are free LibTorch functions giving a tensor
            // (torch::nn::functional's among them); a static member of a
            // LibTorch class is none.
            .caseOf(
                OpPattern().forms({op::Aten, op::Functional}),
                [](const OpCall &C, Transfer &, const State &, unsigned) -> R {
                  if (isa<CXXMethodDecl>(C.Callee) ||
                      !isTensor(C.Call->getType()))
                    return DeviceFact::unknown();
                  return std::nullopt;
                })
            .caseOf(OpPattern()
                        .forms({op::Aten, op::Functional})
                        .anyOf(op::Factory),
                    [](const OpCall &C, Transfer &T, const State &St,
                       unsigned Depth) -> R {
                      const Expr *Options = optionsArgument(C);
                      DeviceFact F =
                          Options
                              ? T.evalOptions(Options, St, Depth + 1)
                              : DeviceFact::make(DeviceFact::NoDevice, C.Call);
                      if (F.K == DeviceFact::NoDevice)
                        F = DeviceFact::make(DeviceFact::CPU, C.Call);
                      else if (F.isKnown() || F.K == DeviceFact::SameAs) {
                        F.Origin = C.Call;
                        F.How = DeviceFact::Created;
                      }
                      F.ZeroDim = (C.Facts & op::ZeroDimResult).any();
                      return F;
                    })
            .caseOf(OpPattern()
                        .forms({op::Aten, op::Functional})
                        .anyOf(op::LikeFactory),
                    [](const OpCall &C, Transfer &T, const State &St,
                       unsigned Depth) -> R {
                      const Expr *Options = optionsArgument(C);
                      if (!Options)
                        return std::nullopt;
                      DeviceFact F = T.evalOptions(Options, St, Depth + 1);
                      if (F.K == DeviceFact::NoDevice)
                        return std::nullopt;
                      if (F.isKnown())
                        F.Origin = C.Call;
                      return F;
                    })
            // Other ops: on the device of their first tensor argument.
            .caseOf(OpPattern().forms({op::Aten, op::Functional}),
                    [](const OpCall &C, Transfer &T, const State &St,
                       unsigned Depth) -> R {
                      const Expr *First = firstTensorArgument(C.Call);
                      if (!First)
                        return std::nullopt;
                      DeviceFact F = T.eval(First, St, Depth + 1);
                      F.ZeroDim = false;
                      return F;
                    });
    return Calls(C, DeviceFact::unknown(), *this, St, Depth);
  }

  /// `x.to(device)`, `x.to(options)`, `x.to(other)`, `x.to(dtype)`.
  DeviceFact evalTo(const CallExpr *Call, const MoveDestination &Move,
                    const Expr *Obj, const State &St, unsigned Depth) {
    if (Move.K == MoveDestination::Unknown)
      return DeviceFact::unknown();
    DeviceFact Self = eval(Obj, St, Depth + 1);
    DeviceFact F;
    switch (Move.K) {
    case MoveDestination::Device:
      F = evalDevice(Move.Operand, St, Depth + 1);
      break;
    case MoveDestination::Options:
      F = evalOptions(Move.Operand, St, Depth + 1);
      if (F.K == DeviceFact::NoDevice)
        return Self; // to(dtype) spelled through options
      break;
    case MoveDestination::Like:
      F = eval(Move.Operand, St, Depth + 1);
      break;
    case MoveDestination::SameDevice:
      return Self; // a dtype conversion keeps the device
    default:
      return DeviceFact::unknown();
    }
    if (F.isKnown()) {
      F.Origin = Call;
      F.How = DeviceFact::Moved;
    }
    F.ZeroDim = Self.ZeroDim;
    return F;
  }

  /// The device a `torch::Device` / `DeviceType` expression names.
  DeviceFact evalDevice(const Expr *E, const State &St, unsigned Depth = 0) {
    if (!E || Depth > limits::DeviceExprDepth)
      return DeviceFact::unknown();
    E = strip(E);
    if (isDeviceTypeEnum(E->getType())) {
      if (std::optional<DeviceLiteral> L = deviceTypeOf(E, Ctx))
        if (std::optional<DeviceFact::Kind> K = factKind(*L))
          return DeviceFact::make(*K, E);
      if (const auto *CO = dyn_cast<ConditionalOperator>(E))
        return join(evalDevice(CO->getTrueExpr(), St, Depth + 1),
                    evalDevice(CO->getFalseExpr(), St, Depth + 1));
      return DeviceFact::unknown();
    }
    if (const ValueDecl *D = trackedDecl(E))
      return kindOf(D->getType()) == ValueKind::Device ? lookup(D, St)
                                                       : DeviceFact::unknown();
    if (const auto *CO = dyn_cast<ConditionalOperator>(E))
      return join(evalDevice(CO->getTrueExpr(), St, Depth + 1),
                  evalDevice(CO->getFalseExpr(), St, Depth + 1));
    if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
      if (!isDeviceClass(CE->getType()) || CE->getNumArgs() == 0)
        return DeviceFact::unknown();
      const Expr *A0 = strip(CE->getArg(0));
      // Device("cuda:0").
      if (std::optional<DeviceFact> Named = namedDevice(A0, CE))
        return *Named;
      return evalDevice(A0, St, Depth + 1);
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
      if (callFacts(MC) & op::DeviceOfTensor) {
        DeviceFact F = eval(MC->getImplicitObjectArgument(), St, Depth + 1);
        F.ZeroDim = false;
        return F;
      }
    }
    return DeviceFact::unknown();
  }

  /// The device a `TensorOptions` expression asks for (NoDevice: none).
  DeviceFact evalOptions(const Expr *E, const State &St, unsigned Depth = 0) {
    if (!E || Depth > limits::DeviceExprDepth)
      return DeviceFact::unknown();
    if (isa<CXXDefaultArgExpr>(E))
      return DeviceFact::make(DeviceFact::NoDevice, E);
    E = strip(E);
    if (isa<InitListExpr>(E) && cast<InitListExpr>(E)->getNumInits() == 0)
      return DeviceFact::make(DeviceFact::NoDevice, E);
    if (const ValueDecl *D = trackedDecl(E))
      return kindOf(D->getType()) == ValueKind::Options ? lookup(D, St)
                                                        : DeviceFact::unknown();
    if (const auto *CO = dyn_cast<ConditionalOperator>(E))
      return join(evalOptions(CO->getTrueExpr(), St, Depth + 1),
                  evalOptions(CO->getFalseExpr(), St, Depth + 1));
    if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
      if (!isTensorOptionsClass(CE->getType()))
        return DeviceFact::unknown();
      if (CE->getNumArgs() == 0)
        return DeviceFact::make(DeviceFact::NoDevice, E);
      const Expr *A0 = CE->getArg(0);
      if (isDeviceClass(A0->getType()) || isDeviceTypeEnum(A0->getType()))
        return evalDevice(A0, St, Depth + 1);
      if (CE->getNumArgs() == 1) {
        // A device by its name (`TensorOptions(name)`, through the
        // constructor template of what a Device is made from): what a
        // literal says, else not known; never "no device".
        if (namesDevice(A0->getType()))
          return namedDevice(A0, CE).value_or(DeviceFact::unknown());
        return DeviceFact::make(DeviceFact::NoDevice, E); // dtype, layout
      }
      return DeviceFact::unknown();
    }
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call)
      return DeviceFact::unknown();
    return evalOptionsCall(OpCall::of(Call), St, Depth);
  }

  /// The device of the options a call gives: a tensor's options, a setter
  /// of TensorOptions (the device it sets, or the options it is called on),
  /// torch::device(d) and torch::dtype(t) (options with that field alone).
  DeviceFact evalOptionsCall(const OpCall &C, const State &St, unsigned Depth) {
    using R = std::optional<DeviceFact>;
    using Switch = OpSwitch<DeviceFact, Transfer &, const State &, unsigned>;
    static const Switch Calls =
        Switch()
            .caseOf(facts(op::OptionsOfTensor),
                    [](const OpCall &C, Transfer &T, const State &St,
                       unsigned Depth) -> R {
                      const auto *MC = dyn_cast<CXXMemberCallExpr>(C.Call);
                      if (!MC)
                        return std::nullopt;
                      DeviceFact F = T.eval(MC->getImplicitObjectArgument(), St,
                                            Depth + 1);
                      F.ZeroDim = false;
                      return F;
                    })
            // .device(c10::nullopt) and the like: not a device we know.
            .caseOf(OpPattern()
                        .forms({op::Options, op::Aten})
                        .anyOf(op::OptionsDevice),
                    [](const OpCall &C, Transfer &T, const State &St,
                       unsigned Depth) -> R {
                      if (C.Call->getNumArgs() == 0)
                        return std::nullopt;
                      return T.evalDevice(C.Call->getArg(0), St, Depth + 1);
                    })
            .caseOf(form(op::Options).anyOf(op::OptionsNonDevice),
                    [](const OpCall &C, Transfer &T, const State &St,
                       unsigned Depth) -> R {
                      const auto *MC = dyn_cast<CXXMemberCallExpr>(C.Call);
                      if (!MC)
                        return std::nullopt;
                      return T.evalOptions(MC->getImplicitObjectArgument(), St,
                                           Depth + 1);
                    })
            .caseOf(
                form(op::Aten).anyOf(op::OptionsNonDevice),
                [](const OpCall &C, Transfer &, const State &, unsigned) -> R {
                  return DeviceFact::make(DeviceFact::NoDevice, C.Call);
                });
    return Calls(C, DeviceFact::unknown(), *this, St, Depth);
  }

  /// A module freshly built: LibTorch creates parameters on the CPU.
  DeviceFact evalModuleInit(const Expr *E, const State &St) {
    E = strip(E);
    if (const ValueDecl *D = trackedDecl(E))
      return kindOf(D->getType()) == ValueKind::Module ? lookup(D, St)
                                                       : DeviceFact::unknown();
    const auto *CE = dyn_cast<CXXConstructExpr>(E);
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      // std::make_shared<XImpl>(...)
      if ((callFacts(Call) & op::MakesShared) && Call->getNumArgs() > 0)
        return DeviceFact::make(DeviceFact::CPU, E);
      return DeviceFact::unknown();
    }
    if (!CE || CE->getNumArgs() == 0)
      return DeviceFact::unknown(); // default holders hold an Impl on the CPU,
                                    // but `{nullptr}` is the common spelling
    const Expr *A0 = strip(CE->getArg(0));
    if (A0->getType()->isNullPtrType() || isModuleValue(A0->getType()))
      return DeviceFact::unknown();
    return DeviceFact::make(DeviceFact::CPU, E);
  }

  DeviceFact moduleDevice(const Expr *ModuleExpr, const State &St) {
    const ValueDecl *D = trackedDecl(ModuleExpr);
    if (!D || kindOf(D->getType()) != ValueKind::Module)
      return DeviceFact::unknown();
    return lookup(D, St);
  }

  void recordSite(const CallExpr *Call, const State &St) {
    std::optional<IndexOpSite> Site = matchIndexOp(Call);
    if (!Site || !Site->Index)
      return;
    IndexSiteFacts R;
    R.Call = Call;
    R.Site = *Site;
    R.Source =
        Site->Module ? moduleDevice(Site->Module, St) : eval(Site->Source, St);
    R.Index = eval(Site->Index, St);
    R.Mismatch = classifyIndexDevices(Site->K, R.Source, R.Index);
    Sites->push_back(R);
  }

  /// The elements of a braced list argument (`{a, b}` as an
  /// initializer_list, an ArrayRef or a vector), else none.
  static llvm::SmallVector<const Expr *, 4> listElements(const Expr *E) {
    llvm::SmallVector<const Expr *, 4> Out;
    if (const InitListExpr *IL = peel::writtenList(E))
      Out.append(IL->inits().begin(), IL->inits().end());
    return Out;
  }

  /// Binary operators of two tensors that compute elementwise.
  static bool isCombiningOperator(OverloadedOperatorKind K) {
    switch (K) {
    case OO_Plus:
    case OO_Minus:
    case OO_Star:
    case OO_Slash:
    case OO_Percent:
    case OO_Amp:
    case OO_Pipe:
    case OO_Caret:
    case OO_Less:
    case OO_Greater:
    case OO_LessEqual:
    case OO_GreaterEqual:
    case OO_EqualEqual:
    case OO_ExclaimEqual:
    case OO_PlusEqual:
    case OO_MinusEqual:
    case OO_StarEqual:
    case OO_SlashEqual:
      return true;
    default:
      return false;
    }
  }

  void addOperand(CombineSiteFacts &R, const Expr *E, const State &St) {
    if (isTensor(E->getType())) {
      R.Operands.push_back({E, eval(E, St)});
      return;
    }
    for (const Expr *Element : listElements(E))
      if (isTensor(Element->getType()))
        R.Operands.push_back({Element, eval(Element, St)});
  }

  void recordCombine(const CallExpr *Call, const State &St) {
    CombineSiteFacts R;
    R.Call = Call;
    const Expr *ModuleExpr = nullptr;
    if (moduleForwardCall(Call, &ModuleExpr)) {
      R.Module = ModuleExpr;
      R.ModuleFact = moduleDevice(ModuleExpr, St);
      const unsigned First = isa<CXXOperatorCallExpr>(Call) ? 1 : 0;
      for (unsigned I = First; I < Call->getNumArgs(); ++I)
        if (!isa<CXXDefaultArgExpr>(Call->getArg(I)))
          addOperand(R, Call->getArg(I), St);
      if (!R.Operands.empty())
        Combines->push_back(std::move(R));
      return;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
      if (Op->getNumArgs() != 2 || !isCombiningOperator(Op->getOperator()) ||
          !isTensor(Op->getArg(0)->getType()) ||
          !isTensor(Op->getArg(1)->getType()))
        return;
      addOperand(R, Op->getArg(0), St);
      addOperand(R, Op->getArg(1), St);
      Combines->push_back(std::move(R));
      return;
    }
    if (!(callFacts(Call) & op::SameDevice))
      return;
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
      addOperand(R, MC->getImplicitObjectArgument(), St);
    for (const Expr *Arg : Call->arguments())
      if (!isa<CXXDefaultArgExpr>(Arg))
        addOperand(R, Arg, St);
    if (R.Operands.size() >= 2)
      Combines->push_back(std::move(R));
  }

  ASTContext &Ctx;
  const llvm::DenseSet<const ValueDecl *> &Escaped;
  std::vector<IndexSiteFacts> *Sites;
  std::vector<CombineSiteFacts> *Combines;
  std::vector<OperandFact> *Returns;
  llvm::DenseSet<const ValueDecl *> *Assigned;
};

} // namespace

bool containsIndexOp(const Stmt *Body) {
  if (!Body)
    return false;
  IndexOpFinder Finder;
  Finder.TraverseStmt(const_cast<Stmt *>(Body));
  return Finder.Found;
}

bool DeviceFlow::analyze(const FunctionDecl *FD, ASTContext &Ctx) {
  Sites.clear();
  if (!FD || !FD->hasBody() || FD->isDependentContext() || FD->isInvalidDecl())
    return false;
  Stmt *Body = FD->getBody();
  if (!Body)
    return false;

  FunctionContext *Fn = FunctionContexts::of(Ctx).get(FD);
  const CFG *G = Fn ? Fn->cfg() : nullptr;
  if (!G)
    return false;

  Escaped.clear();
  Assigned.clear();
  findEscapedValues(Body, Escaped);

  // Blocks in reverse post-order (clang's worklist): a block is visited
  // after its predecessors outside loops, so most blocks are visited once.
  const unsigned N = G->getNumBlockIDs();
  std::vector<std::optional<State>> In(N), Out(N);
  std::vector<unsigned> Visits(N, 0);
  PostOrderCFGView Order(G);
  ForwardDataflowWorklist Work(*G, &Order);
  const CFGBlock &Entry = G->getEntry();
  In[Entry.getBlockID()] = State();
  Work.enqueueBlock(&Entry);

  Transfer T(Ctx, Escaped, nullptr);
  while (const CFGBlock *B = Work.dequeue()) {
    const unsigned ID = B->getBlockID();
    if (++Visits[ID] > MaxVisitsPerBlock)
      return false;
    // The entry state is the join of the predecessors reached so far.
    std::optional<State> Entering;
    if (B == &Entry)
      Entering = State();
    for (const CFGBlock::AdjacentBlock &P : B->preds()) {
      const CFGBlock *PB = P.getReachableBlock();
      if (!PB)
        continue;
      const std::optional<State> &PredOut = Out[PB->getBlockID()];
      if (!PredOut)
        continue;
      if (Entering)
        joinInto(*Entering, *PredOut);
      else
        Entering = *PredOut;
    }
    if (!Entering)
      continue;
    State S = *Entering;
    In[ID] = std::move(Entering);
    for (const CFGElement &E : *B)
      if (std::optional<CFGStmt> CS = E.getAs<CFGStmt>())
        T.apply(CS->getStmt(), S);
    std::optional<State> &BlockOut = Out[ID];
    if (BlockOut && sameState(*BlockOut, S))
      continue;
    BlockOut = std::move(S);
    Work.enqueueSuccessors(B);
  }

  // With the fixed point known, read the facts at each index op (and, when
  // asked, at each op that needs its operands on one device).
  Combines.clear();
  Returns.clear();
  Transfer Reader(Ctx, Escaped, &Sites, CollectCombines ? &Combines : nullptr,
                  CollectCombines ? &Returns : nullptr, &Assigned);
  for (const CFGBlock *B : *G) {
    if (!B)
      continue;
    const std::optional<State> &BlockIn = In[B->getBlockID()];
    if (!BlockIn)
      continue;
    State S = *BlockIn;
    for (const CFGElement &E : *B)
      if (std::optional<CFGStmt> CS = E.getAs<CFGStmt>())
        Reader.apply(CS->getStmt(), S);
  }
  std::sort(Sites.begin(), Sites.end(),
            [](const IndexSiteFacts &A, const IndexSiteFacts &B) {
              return compat::beginLoc(A.Call).getRawEncoding() <
                     compat::beginLoc(B.Call).getRawEncoding();
            });
  Sites.erase(std::unique(Sites.begin(), Sites.end(),
                          [](const IndexSiteFacts &A, const IndexSiteFacts &B) {
                            return A.Call == B.Call;
                          }),
              Sites.end());
  // Each call once (nested operators share a begin location, so duplicates
  // need not be adjacent after sorting).
  llvm::DenseSet<const CallExpr *> SeenCombine;
  Combines.erase(std::remove_if(Combines.begin(), Combines.end(),
                                [&](const CombineSiteFacts &C) {
                                  return !SeenCombine.insert(C.Call).second;
                                }),
                 Combines.end());
  // Nested operators share a begin location: the inner one ends first.
  std::sort(Combines.begin(), Combines.end(),
            [](const CombineSiteFacts &A, const CombineSiteFacts &B) {
              return std::make_pair(compat::beginLoc(A.Call).getRawEncoding(),
                                    A.Call->getEndLoc().getRawEncoding()) <
                     std::make_pair(compat::beginLoc(B.Call).getRawEncoding(),
                                    B.Call->getEndLoc().getRawEncoding());
            });
  std::sort(Returns.begin(), Returns.end(),
            [](const OperandFact &A, const OperandFact &B) {
              return A.E->getBeginLoc().getRawEncoding() <
                     B.E->getBeginLoc().getRawEncoding();
            });
  return true;
}

bool DeviceFlow::keepsInitializer(const VarDecl *V) const {
  return V && V->getInit() && !Escaped.count(V) && !Assigned.count(V);
}

namespace {
/// One function's DeviceFlow with its combine sites, a FunctionContext
/// analysis.
struct SharedFlow {
  SharedFlow(const FunctionDecl *FD, ASTContext &Ctx) {
    Flow.setCollectCombineSites(true);
    Ok = Flow.analyze(FD, Ctx);
  }
  DeviceFlow Flow;
  bool Ok = false;
};
} // namespace

const DeviceFlow *sharedDeviceFlow(const FunctionDecl *FD, ASTContext &Ctx) {
  // What analyze declines, asked of \p FD itself (the context is its
  // definition's).
  if (!FD || !FD->hasBody() || FD->isDependentContext() || FD->isInvalidDecl())
    return nullptr;
  FunctionContext *Fn = FunctionContexts::of(Ctx).get(FD);
  if (!Fn)
    return nullptr;
  const SharedFlow &S = Fn->analysis<SharedFlow>();
  return S.Ok ? &S.Flow : nullptr;
}

} // namespace torchtidy
