//===--- CudaErrorRecovery.cpp - Handlers that outlive a CUDA error -------===//

#include "torchtidy/analysis/CudaErrorRecovery.h"
#include "torchtidy/analysis/FunctionContext.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <utility>

using namespace clang;

namespace torchtidy {

namespace {

const CXXRecordDecl *caughtRecord(const CXXCatchStmt *H) {
  QualType T = H->getCaughtType();
  if (T.isNull())
    return nullptr;
  T = T.getNonReferenceType();
  if (T->isPointerType())
    return nullptr;
  return T.getCanonicalType()->getAsCXXRecordDecl();
}

/// \p RD is class \p C or derives from it.
bool derivesFrom(const CXXRecordDecl *RD, KnownClass C, unsigned Depth = 0) {
  if (!RD || Depth > limits::HierarchyDepth)
    return false;
  if (isClass(RD, C))
    return true;
  if (!RD->hasDefinition())
    return false;
  for (const CXXBaseSpecifier &B : RD->getDefinition()->bases())
    if (derivesFrom(B.getType()->getAsCXXRecordDecl(), C, Depth + 1))
      return true;
  return false;
}

CaughtErrors classifyHandler(const CXXCatchStmt *H) {
  if (!H->getExceptionDecl())
    return CaughtErrors::LibTorch; // catch (...)
  const CXXRecordDecl *RD = caughtRecord(H);
  if (!RD)
    return CaughtErrors::None;
  if (isClass(RD, {KnownClass::exception, KnownClass::Error}))
    return CaughtErrors::LibTorch;
  if (derivesFrom(RD, KnownClass::OutOfMemoryError))
    return CaughtErrors::OutOfMemory;
  if (derivesFrom(RD, KnownClass::CUDAError))
    return CaughtErrors::LibTorch;
  // Another c10 error (IndexError, ValueError...): never a CUDA error.
  if (derivesFrom(RD, KnownClass::Error))
    return CaughtErrors::None;
  if (derivesFrom(RD, KnownClass::exception))
    return CaughtErrors::OtherStd;
  return CaughtErrors::None;
}

} // namespace

CaughtErrors classifyCatch(const CXXTryStmt *Try, unsigned HandlerIndex,
                           ASTContext &) {
  for (unsigned I = 0; I < HandlerIndex && I < Try->getNumHandlers(); ++I)
    if (classifyHandler(Try->getHandler(I)) == CaughtErrors::LibTorch)
      return CaughtErrors::None;
  return classifyHandler(Try->getHandler(HandlerIndex));
}

/// Whether \p S, run after a CUDA error, cannot use the GPU: a return, a
/// null statement, a declaration or an expression whose calls are all of
/// functions of the standard library (declared in system headers, not
/// LibTorch's at::, c10:: or torch::) on values that are no tensor or
/// module: printing a message. Any control flow, user function, LibTorch
/// call or tensor is not.
static bool isInertAfterError(const Stmt *S, unsigned Depth = 0) {
  if (!S)
    return true;
  if (Depth > limits::StatementNesting)
    return false;
  if (isa<IfStmt, ForStmt, WhileStmt, DoStmt, SwitchStmt, CXXForRangeStmt,
          CXXTryStmt, GotoStmt, LambdaExpr, CoroutineBodyStmt>(S))
    return false;
  if (const auto *E = dyn_cast<Expr>(S)) {
    const QualType T = E->getType();
    if (!T.isNull() &&
        (isTensorType(T) || getHolderModule(T) || getSharedPtrModule(T) ||
         isModuleClass(T.getNonReferenceType()->getAsCXXRecordDecl())))
      return false;
    const FunctionDecl *Callee = nullptr;
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      Callee = Call->getDirectCallee();
      if (!Callee)
        return false;
    } else if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
      Callee = CE->getConstructor();
    }
    if (Callee) {
      if (isUserDecl(Callee))
        return false;
      // The error's own message (c10::Error::what, msg).
      if (isa<CXXMethodDecl>(Callee) &&
          hasOpName(Callee, {op::Named::what, op::Named::msg,
                             op::Named::what_without_backtrace}))
        return true;
      if (inTorchNamespace(Callee, /*OrCaffe2=*/true))
        return false;
    }
  }
  for (const Stmt *Child : S->children())
    if (!isInertAfterError(Child, Depth + 1))
      return false;
  return true;
}

/// \p Try, a try statement of main, is followed by nothing that can use the
/// GPU up to the end of main: each statement after it, and after each
/// statement around it (an if, a compound, the block of an outer try or the
/// handler of one), is inert (isInertAfterError); no loop encloses it, which
/// would run its body again. Falling off the end of main returns from it.
static bool onlyEndsMainAfter(const CXXTryStmt *Try, const FunctionDecl *Main) {
  FunctionContext *FC = FunctionContexts::of(Main->getASTContext()).get(Main);
  if (!FC || !Main->getBody())
    return false;
  const Stmt *Cur = Try;
  for (unsigned Steps = 0; Steps < limits::StatementNesting; ++Steps) {
    if (Cur == Main->getBody())
      return true;
    const Stmt *Parent = FC->parentOf(Cur);
    if (!Parent)
      return false;
    if (const auto *CS = dyn_cast<CompoundStmt>(Parent)) {
      bool After = false;
      for (const Stmt *Sub : CS->body()) {
        if (After && !isInertAfterError(Sub))
          return false;
        After |= Sub == Cur;
      }
    } else if (const auto *Catch = dyn_cast<CXXCatchStmt>(Parent)) {
      // The end of an outer handler: on after its try statement.
      Parent = FC->parentOf(Catch);
      if (!Parent || !isa<CXXTryStmt>(Parent))
        return false;
    } else {
      // Out of a branch of an if (not its condition) or a try's block; a
      // loop, a switch or anything else may run it again.
      const auto *If = dyn_cast<IfStmt>(Parent);
      const bool OutOfBranch = If && If->getCond() != Cur;
      if (!OutOfBranch && !isa<CXXTryStmt>(Parent))
        return false;
    }
    Cur = Parent;
  }
  return false;
}

HandlerExit classifyHandlerExit(const CXXCatchStmt *H,
                                const FunctionDecl *Within) {
  HandlerExit R = HandlerExit::CarriesOn;
  forEachOwnStmt(H->getHandlerBlock(), [&](const Stmt *S) {
    if (isa<CXXThrowExpr>(S)) {
      R = HandlerExit::Propagates;
      return;
    }
    if (R != HandlerExit::CarriesOn)
      return;
    if (const auto *Call = dyn_cast<CallExpr>(S))
      if (const FunctionDecl *FD = Call->getDirectCallee();
          FD && FD->isNoReturn())
        R = HandlerExit::EndsProgram;
    if (isa<ReturnStmt>(S) && Within && Within->isMain())
      R = HandlerExit::EndsProgram;
  });
  // A handler of main after which nothing but printing runs to main's end
  // (falling off it returns from main): the program ends.
  if (R == HandlerExit::CarriesOn && Within && Within->isMain() &&
      Within->getBody() && isInertAfterError(H->getHandlerBlock()))
    if (FunctionContext *FC =
            FunctionContexts::of(Within->getASTContext()).get(Within))
      if (const auto *Try = dyn_cast_or_null<CXXTryStmt>(FC->parentOf(H));
          Try && onlyEndsMainAfter(Try, Within))
        R = HandlerExit::EndsProgram;
  return R;
}

bool recognisesOutOfMemory(const CXXCatchStmt *H) {
  bool Found = false;
  auto NamesOom = [](QualType T) {
    if (T.isNull())
      return false;
    T = T.getNonReferenceType();
    if (T->isPointerType())
      T = T->getPointeeType();
    return derivesFrom(T.getCanonicalType()->getAsCXXRecordDecl(),
                       KnownClass::OutOfMemoryError);
  };
  forEachOwnStmt(H->getHandlerBlock(), [&](const Stmt *S) {
    if (const auto *SL = dyn_cast<StringLiteral>(S)) {
      if (SL->getCharByteWidth() == 1 &&
          SL->getString().lower().find("out of memory") != std::string::npos)
        Found = true;
    } else if (const auto *E = dyn_cast<ExplicitCastExpr>(S)) {
      if (NamesOom(E->getTypeAsWritten()))
        Found = true;
    } else if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D); V && NamesOom(V->getType()))
          Found = true;
    }
  });
  return Found;
}

namespace {

/// The module class of an expression's type: a module, a holder, a
/// shared_ptr of a module, or a pointer to one of them.
const CXXRecordDecl *moduleOf(QualType T) {
  if (T.isNull())
    return nullptr;
  T = T.getNonReferenceType();
  if (T->isPointerType())
    T = T->getPointeeType();
  if (const CXXRecordDecl *RD = getHolderModule(T))
    return RD->getCanonicalDecl();
  if (const CXXRecordDecl *RD = getSharedPtrModule(T))
    return RD->getCanonicalDecl();
  const CXXRecordDecl *RD = T.getCanonicalType()->getAsCXXRecordDecl();
  if (RD && RD->hasDefinition() && isModuleClass(RD) && isUserDecl(RD))
    return RD->getCanonicalDecl();
  return nullptr;
}

/// `m->to(d)` / `m.to(d)` of a module: the module's class.
const CXXRecordDecl *movedModule(const CXXMemberCallExpr *MC) {
  const CXXMethodDecl *MD = MC->getMethodDecl();
  if (!MD || !hasOpName(MD, op::Named::to) ||
      !isModuleBaseClass(MD->getParent()) || MC->getNumArgs() < 1)
    return nullptr;
  // `m->to(d)` converts `m.operator->()` to `torch::nn::Module *`.
  return moduleOf(
      peel::peel(MC->getImplicitObjectArgument(), peel::ParenImpCasts)
          ->getType());
}

/// The user function a call enters, with its definition.
const FunctionDecl *userCallee(const Stmt *S, const Expr **At) {
  const FunctionDecl *Callee = nullptr;
  if (const auto *Call = dyn_cast<CallExpr>(S))
    Callee = Call->getDirectCallee();
  else if (const auto *CE = dyn_cast<CXXConstructExpr>(S))
    Callee = CE->getConstructor();
  const FunctionDecl *Def = nullptr;
  if (!Callee || !Callee->hasBody(Def) || !Def || !isUserDecl(Def) ||
      Def->isDependentContext() || Def->isDefaulted())
    return nullptr;
  *At = cast<Expr>(S);
  return Def;
}

} // namespace

CudaEvidenceFinder::CudaEvidenceFinder(ASTContext &Ctx, unsigned MaxCallDepth,
                                       bool FollowSummaries)
    : MaxCallDepth(MaxCallDepth), FollowSummaries(FollowSummaries) {
  forEachUserFunction(Ctx, [&](const FunctionDecl *FD) {
    forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      const auto *MC = dyn_cast<CXXMemberCallExpr>(S);
      if (!MC || MC->isTypeDependent())
        return;
      const CXXRecordDecl *RD = movedModule(MC);
      if (!RD || CudaModules.count(RD))
        return;
      std::optional<FunctionSummary> External;
      if (const Expr *D = cudaDeviceEvidence(
              MC->getArg(0), FD, FollowSummaries ? &External : nullptr))
        CudaModules[RD] = {MC, D, std::move(External)};
    });
  });
}

std::optional<CudaEvidence>
CudaEvidenceFinder::inOwnStmts(const clang::Stmt *Body,
                               const FunctionDecl *Within,
                               const ObjectConstruction *Receiver) {
  std::optional<CudaEvidence> R;
  forEachOwnStmt(Body, [&](const Stmt *S) {
    if (R)
      return;
    const auto *E = dyn_cast<Expr>(S);
    if (!E || E->isTypeDependent() || E->isValueDependent())
      return;
    std::optional<CudaOp> Op = classifyCudaOp(E);
    if (Op) {
      const bool OnCuda =
          (Op->K != CudaOp::MoveToDevice && Op->K != CudaOp::Factory) ||
          Op->Device == DeviceClass::CUDA;
      if (OnCuda && Op->K != CudaOp::CudaMemberRead) {
        R = CudaEvidence();
        R->K = CudaEvidence::Op;
        R->Operation = *Op;
        R->Site = Op->Site ? Op->Site : E;
        return;
      }
    }
    // `x.to(device)` with `device` set to a CUDA device where the op does
    // not show it (a local assigned one, a function's result).
    if (!Op || Op->K == CudaOp::MoveToDevice || Op->K == CudaOp::Factory)
      if (std::optional<CudaOp> D =
              deviceOp(E, Within, FollowSummaries, Receiver)) {
        R = CudaEvidence();
        R->K = CudaEvidence::Op;
        R->Site = E;
        R->DeviceAt = D->DeviceAt;
        R->DeviceExternal = D->DeviceExternal;
        R->Operation = std::move(*D);
        return;
      }
    // A module of a class moved to CUDA: run (forward, operator(), a method
    // of the user's class), or passed to a function of the user. Not its
    // moves, assignments, torch::load/save or other LibTorch bookkeeping,
    // whose errors are not the module's CUDA work.
    const auto *Call = dyn_cast<CallExpr>(E);
    const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
    if (!Callee)
      return;
    llvm::SmallVector<const Expr *, 8> Operands;
    const auto *MD = dyn_cast<CXXMethodDecl>(Callee);
    const bool Runs = MD && !MD->isStatic() &&
                      (MD->getOverloadedOperator() == OO_Call ||
                       hasOpName(MD, op::Named::forward) ||
                       // A method the user wrote in the module class
                       // (`generate`), not the holder's assignments.
                       (isUserDecl(MD) && !MD->isImplicit() &&
                        MD->getOverloadedOperator() == OO_None &&
                        isModuleClass(MD->getParent())));
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
      if (Runs)
        Operands.push_back(MC->getImplicitObjectArgument());
    } else if (isa<CXXOperatorCallExpr>(Call) && MD) {
      if (Runs && Call->getNumArgs() >= 1)
        Operands.push_back(Call->getArg(0));
    } else if (!MD && isUserDecl(Callee)) {
      Operands.append(Call->arg_begin(), Call->arg_end());
    }
    for (const Expr *O : Operands) {
      if (!O)
        continue;
      const CXXRecordDecl *RD =
          moduleOf(peel::peel(O, peel::ParenImpCasts)->getType());
      auto It = RD ? CudaModules.find(RD) : CudaModules.end();
      if (It == CudaModules.end())
        continue;
      // The move itself is not a use of the moved module.
      if (It->second.MovedAt == Call)
        continue;
      R = CudaEvidence();
      R->K = CudaEvidence::ModuleCall;
      R->Site = Call;
      R->Module = RD;
      R->MovedAt = It->second.MovedAt;
      R->DeviceAt = It->second.DeviceAt;
      R->DeviceExternal = It->second.DeviceExternal;
      return;
    }
  });
  return R;
}

/// The object that \p Call, a method call or a construction in \p In, is
/// made on, when the search saw it constructed: a local object of the
/// function (`Worker w(device); w.step()`), the object a construction
/// makes, or, for a call on `this`, the object of \p Caller (the method
/// that calls it, when that one's is known).
static std::optional<ObjectConstruction>
constructedReceiver(const Stmt *Call, const FunctionDecl *In,
                    const ObjectConstruction *Caller) {
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Call))
    return ObjectConstruction{CE, In};
  const auto *MC = dyn_cast<CXXMemberCallExpr>(Call);
  const Expr *Obj = MC ? MC->getImplicitObjectArgument() : nullptr;
  if (!Obj)
    return std::nullopt;
  Obj = peel::peel(Obj, peel::ParenImpCasts);
  if (isa<CXXThisExpr>(Obj))
    return Caller ? std::optional<ObjectConstruction>(*Caller) : std::nullopt;
  const auto *DRE = dyn_cast<DeclRefExpr>(Obj);
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!V || isa<ParmVarDecl>(V) || !V->hasLocalStorage() ||
      V->getType()->isReferenceType() || !V->getInit())
    return std::nullopt;
  const auto *Made =
      dyn_cast<CXXConstructExpr>(peel::peel(V->getInit(), peel::Implicit));
  const auto *Owner = dyn_cast<FunctionDecl>(V->getDeclContext());
  if (!Made || !Owner)
    return std::nullopt;
  return ObjectConstruction{Made, Owner};
}

std::optional<CudaEvidence>
CudaEvidenceFinder::objectWork(const Expr *Call, const FunctionDecl *Callee,
                               const FunctionDecl *Within,
                               const ObjectConstruction *Receiver) const {
  std::optional<ObjectConstruction> Obj =
      constructedReceiver(Call, Within, Receiver);
  if (!Obj || !Obj->Made || !Obj->In)
    return std::nullopt;
  const CXXConstructorDecl *Ctor = Obj->Made->getConstructor();
  std::optional<FunctionSummary> Work = ProjectSummaries::instance().lookup(
      Callee, SummaryFact::MemberDeviceWork);
  const std::string Member =
      Work && Work->MemberDeviceWork ? Work->MemberDeviceWork->Member : "";
  // Asked even without the method's summary (a project run's first pass
  // answers nothing): the next pass then has all three.
  const std::optional<unsigned> Param =
      keptDeviceParam(Ctor, Member, FollowSummaries);
  const FieldDecl *Field = nullptr;
  if (Param)
    for (const FieldDecl *F : Ctor->getParent()->fields())
      if (usrOf(F) == Member)
        Field = F;
  for (unsigned I = 0; I < Obj->Made->getNumArgs(); ++I) {
    const Expr *Arg = Obj->Made->getArg(I);
    if (Param ? I != *Param : !carriesDevice(Arg->getType()))
      continue;
    std::optional<FunctionSummary> Device;
    const Expr *D = cudaDeviceEvidence(Arg, Obj->In, &Device);
    if (!D || !Field)
      continue;
    CudaEvidence R;
    R.K = CudaEvidence::Summary;
    R.Site = Call;
    R.Chain.push_back({Call, Callee});
    R.External = std::move(Work);
    R.Operation.ReceivedAt = Arg;
    R.Operation.ReceivedMember = Field;
    R.DeviceAt = D;
    R.DeviceExternal = std::move(Device);
    return R;
  }
  return std::nullopt;
}

std::optional<CudaEvidence>
CudaEvidenceFinder::inOtherUnits(const Stmt *Body, const FunctionDecl *Within,
                                 const ObjectConstruction *Receiver) const {
  std::optional<CudaEvidence> R;
  if (!FollowSummaries)
    return R;
  forEachOwnStmt(Body, [&](const Stmt *S) {
    if (R)
      return;
    const FunctionDecl *Callee = nullptr;
    if (const auto *Call = dyn_cast<CallExpr>(S))
      Callee = Call->getDirectCallee();
    else if (const auto *CE = dyn_cast<CXXConstructExpr>(S))
      Callee = CE->getConstructor();
    if (!Callee || !isDeclaredElsewhere(Callee))
      return;
    std::optional<FunctionSummary> Linked = ProjectSummaries::instance().lookup(
        Callee, SummaryFact::DefiniteCudaWork);
    if (!Linked || !Linked->DefiniteCudaWork) {
      if (isa<CXXMethodDecl>(Callee))
        R = objectWork(cast<Expr>(S), Callee, Within, Receiver);
      return;
    }
    R = CudaEvidence();
    R->K = CudaEvidence::Summary;
    R->Site = cast<Expr>(S);
    R->Chain.push_back({R->Site, Callee});
    R->External = std::move(Linked);
  });
  return R;
}

std::optional<CudaEvidence>
CudaEvidenceFinder::find(const Stmt *S, const FunctionDecl *Within) {
  return search(S, Within, nullptr);
}

/// Whether \p RD or a base of it has a member that carries a device.
static bool hasDeviceMember(const CXXRecordDecl *RD) {
  if (!RD || !RD->hasDefinition())
    return false;
  auto Has = [](const CXXRecordDecl *C) {
    return llvm::any_of(C->fields(), [](const FieldDecl *F) {
      return carriesDevice(F->getType().getNonReferenceType());
    });
  };
  return Has(RD) || !RD->forallBases(
                        [&](const CXXRecordDecl *Base) { return !Has(Base); });
}

std::optional<CudaEvidence>
CudaEvidenceFinder::memberWork(const CXXMethodDecl *FD) {
  // Most classes keep no device: nothing to search for.
  if (!FD || FD->isStatic() || !FD->doesThisDeclarationHaveABody() ||
      !hasDeviceMember(FD->getParent()))
    return std::nullopt;
  // An object constructed where this search does not look.
  const ObjectConstruction Any;
  std::optional<CudaEvidence> E = search(FD->getBody(), FD, &Any);
  if (!E || E->K != CudaEvidence::Op || !E->Operation.ReceivedMember ||
      E->Operation.ReceivedAt)
    return std::nullopt;
  return E;
}

std::optional<CudaEvidence>
CudaEvidenceFinder::search(const Stmt *S, const FunctionDecl *Within,
                           const ObjectConstruction *Receiver) {
  if (std::optional<CudaEvidence> Own = inOwnStmts(S, Within, Receiver))
    return Own;
  if (std::optional<CudaEvidence> Other = inOtherUnits(S, Within, Receiver))
    return Other;
  // Breadth first through the user functions called, each once.
  struct Node {
    const FunctionDecl *FD;
    llvm::SmallVector<CallStep, 4> Chain;
    /// A method called on an object whose construction the search saw.
    std::optional<ObjectConstruction> Receiver;
  };
  std::vector<Node> Work;
  llvm::DenseSet<const FunctionDecl *> Visited{Within};
  auto Enqueue = [&](const Stmt *Body, const FunctionDecl *In, const Node *From,
                     const ObjectConstruction *Object) {
    forEachOwnStmt(Body, [&](const Stmt *Sub) {
      const Expr *At = nullptr;
      const FunctionDecl *Def = userCallee(Sub, &At);
      if (!Def || !Visited.insert(Def).second)
        return;
      Node N{Def, From ? From->Chain : llvm::SmallVector<CallStep, 4>(),
             constructedReceiver(Sub, In, Object)};
      N.Chain.push_back({At, Def});
      Work.push_back(std::move(N));
    });
  };
  Enqueue(S, Within, nullptr, Receiver);
  // An index, not a range: Enqueue may grow (and move) Work.
  // NOLINTNEXTLINE(modernize-loop-convert)
  for (size_t I = 0; I < Work.size(); ++I) {
    // Moved out: Enqueue may grow (and move) Work.
    const Node Cur = std::move(Work[I]);
    const ObjectConstruction *Object = Cur.Receiver ? &*Cur.Receiver : nullptr;
    if (std::optional<CudaEvidence> E =
            inOwnStmts(Cur.FD->getBody(), Cur.FD, Object)) {
      E->Chain = Cur.Chain;
      return E;
    }
    if (Cur.Chain.size() >= MaxCallDepth)
      continue;
    if (std::optional<CudaEvidence> E =
            inOtherUnits(Cur.FD->getBody(), Cur.FD, Object)) {
      E->Chain.insert(E->Chain.begin(), Cur.Chain.begin(), Cur.Chain.end());
      return E;
    }
    Enqueue(Cur.FD->getBody(), Cur.FD, &Cur, Object);
  }
  return std::nullopt;
}

std::vector<CudaErrorRecoverySite>
findCudaErrorRecovery(ASTContext &Ctx, unsigned MaxCallDepth) {
  std::vector<CudaErrorRecoverySite> Out;
  CudaEvidenceFinder Finder(Ctx, MaxCallDepth);
  forEachUserFunction(Ctx, [&](const FunctionDecl *FD) {
    forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      const auto *Try = dyn_cast<CXXTryStmt>(S);
      if (!Try)
        return;
      std::optional<CudaEvidence> Work;
      bool Searched = false;
      for (unsigned I = 0; I < Try->getNumHandlers(); ++I) {
        const CXXCatchStmt *H = Try->getHandler(I);
        const CaughtErrors Caught = classifyCatch(Try, I, Ctx);
        if (Caught == CaughtErrors::None ||
            Caught == CaughtErrors::OutOfMemory || recognisesOutOfMemory(H))
          continue;
        if (!Searched) {
          Work = Finder.find(Try->getTryBlock(), FD);
          Searched = true;
        }
        if (!Work)
          return;
        // std::runtime_error and the like: only the user's own wrapping of
        // CUDA runtime errors can reach them.
        if (Caught == CaughtErrors::OtherStd &&
            !(Work->K == CudaEvidence::Op &&
              (Work->Operation.K == CudaOp::CudaRuntime ||
               Work->Operation.K == CudaOp::KernelLaunch)))
          continue;
        CudaErrorRecoverySite Site;
        Site.Try = Try;
        Site.Handler = H;
        Site.Function = FD;
        Site.Caught = Caught;
        Site.Work = *Work;
        if (std::optional<CudaEvidence> HW =
                Finder.find(H->getHandlerBlock(), FD)) {
          Site.K = CudaErrorRecoverySite::CudaWorkInHandler;
          Site.HandlerWork = std::move(HW);
        } else if (classifyHandlerExit(H, FD) == HandlerExit::CarriesOn) {
          Site.K = CudaErrorRecoverySite::CarriesOn;
        } else {
          continue;
        }
        Out.push_back(std::move(Site));
      }
    });
  });
  std::sort(Out.begin(), Out.end(),
            [](const CudaErrorRecoverySite &A, const CudaErrorRecoverySite &B) {
              return A.Handler->getBeginLoc().getRawEncoding() <
                     B.Handler->getBeginLoc().getRawEncoding();
            });
  return Out;
}

} // namespace torchtidy
