//===--- LaunchGuards.cpp - Guards before a launch ------------------------===//
//
// The tests and guards before a launch: what a condition, a check macro or
// a helper proves of a tensor (device, contiguity, dtype, not empty).
// Part of KernelLaunchAnalysis (KernelLaunchesImpl.h).
//
//===----------------------------------------------------------------------===//

#include "KernelLaunchesImpl.h"
#include "torchtidy/analysis/CudaWork.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/Builtins.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <tuple>

using namespace clang;

namespace torchtidy {

using namespace launches;

KernelLaunchAnalysis::Impl::Outer *
KernelLaunchAnalysis::Impl::outer(const FunctionDecl *FD) {
  const FunctionDecl *OF = outerFunctionOf(FD);
  if (!OF || !OF->getBody())
    return nullptr;
  auto &Slot = Outers[OF];
  if (!Slot) {
    Slot = std::make_unique<Outer>();
    Slot->Fn = FunctionContexts::of(Ctx).get(OF);
    llvm::SmallVector<const Stmt *, 32> Stack{OF->getBody()};
    while (!Stack.empty()) {
      const Stmt *S = Stack.pop_back_val();
      if (!S)
        continue;
      if (const auto *L = dyn_cast<LambdaExpr>(S))
        Slot->Lambdas.try_emplace(L->getLambdaClass(), L);
      for (const Stmt *Child : S->children())
        Stack.push_back(Child);
    }
  }
  return Slot.get();
}

const LambdaExpr *
KernelLaunchAnalysis::Impl::lambdaExprOf(const FunctionDecl *FD) {
  const CXXRecordDecl *RD = lambdaClassOf(FD);
  Outer *O = RD ? outer(FD) : nullptr;
  return O ? O->Lambdas.lookup(RD) : nullptr;
}

const Stmt *KernelLaunchAnalysis::Impl::parent(const FunctionDecl *FD,
                                               const Stmt *S) {
  Outer *O = outer(FD);
  return O && O->Fn ? O->Fn->parentOf(S) : nullptr;
}

bool KernelLaunchAnalysis::Impl::within(const FunctionDecl *FD, const Stmt *S,
                                        const Stmt *Tree, bool IfUnknown) {
  for (unsigned I = 0; S && I < limits::StatementNesting; ++I) {
    if (S == Tree)
      return true;
    S = parent(FD, S);
  }
  return S ? IfUnknown : false;
}

std::optional<IndexVar> KernelLaunchAnalysis::Impl::deviceOwner(const Expr *E) {
  E = unwrap(E);
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E))
    if (!isTensorMethod(MC->getMethodDecl()) &&
        isDeviceClass(MC->getImplicitObjectArgument()->getType()) &&
        isDeviceTypeEnum(MC->getType()))
      E = unwrap(MC->getImplicitObjectArgument());
  const CXXMemberCallExpr *MC = tensorMethodCall(E);
  if (!MC || !(callFacts(MC) & op::DeviceOfTensor))
    return std::nullopt;
  return directVariable(MC->getImplicitObjectArgument());
}

bool KernelLaunchAnalysis::Impl::isZero(const Expr *E, const ASTContext &Ctx) {
  Expr::EvalResult R;
  return E && !E->isValueDependent() && E->getType()->isIntegerType() &&
         E->EvaluateAsInt(R, Ctx) && R.Val.getInt() == 0;
}

bool KernelLaunchAnalysis::Impl::isOne(const Expr *E, const ASTContext &Ctx) {
  Expr::EvalResult R;
  return E && !E->isValueDependent() && E->getType()->isIntegerType() &&
         E->EvaluateAsInt(R, Ctx) && R.Val.getInt() == 1;
}

bool KernelLaunchAnalysis::Impl::isCountLike(const Expr *E, unsigned Depth) {
  if (!E || Depth > limits::SearchDepth)
    return false;
  E = unwrap(E);
  if (!E->getType()->isIntegerType() || E->getType()->isBooleanType())
    return false;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    return isa<VarDecl>(DRE->getDecl());
  if (tensorMethodCall(E))
    return true;
  for (const Stmt *Child : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(Child))
      if (isCountLike(CE, Depth + 1))
        return true;
  return false;
}

std::tuple<const Expr *, const Expr *, BinaryOperatorKind>
KernelLaunchAnalysis::Impl::binaryOperands(const Stmt *C) {
  if (const auto *BO = dyn_cast<BinaryOperator>(C))
    return {BO->getLHS(), BO->getRHS(), BO->getOpcode()};
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(C);
      OC && OC->getNumArgs() == 2 && OC->isComparisonOp())
    return {OC->getArg(0), OC->getArg(1),
            BinaryOperator::getOverloadedOpcode(OC->getOperator())};
  return {nullptr, nullptr, BO_Comma};
}

void KernelLaunchAnalysis::Impl::atomsWhen(
    const Expr *C, bool Truth,
    llvm::function_ref<void(const Expr *, bool)> Atom, unsigned Depth) {
  if (!C || Depth > limits::SearchDepth)
    return;
  C = peel::peel(C, peel::Parens | peel::FullExprs);
  // C10_LIKELY(c): `__builtin_expect(static_cast<bool>(c), 1)`, a long
  // converted to bool.
  if (const auto *Expect = dyn_cast<CallExpr>(peel::peel(C, peel::AsComputed));
      Expect && Expect->getNumArgs() == 2 &&
      Expect->getBuiltinCallee() == Builtin::BI__builtin_expect) {
    atomsWhen(peel::peel(Expect->getArg(0), peel::ParenImpCasts), Truth, Atom,
              Depth + 1);
    return;
  }
  if (const auto *Cast = dyn_cast<CastExpr>(C);
      Cast && C->getType()->isBooleanType() &&
      (Cast->getCastKind() == CK_NoOp ||
       Cast->getCastKind() == CK_LValueToRValue)) {
    atomsWhen(Cast->getSubExpr(), Truth, Atom, Depth + 1);
    return;
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(C);
      UO && UO->getOpcode() == UO_LNot) {
    atomsWhen(UO->getSubExpr(), !Truth, Atom, Depth + 1);
    return;
  }
  if (auto [L, R, Op] = binaryOperands(C);
      L && R && ((Op == BO_LAnd && Truth) || (Op == BO_LOr && !Truth))) {
    atomsWhen(L, Truth, Atom, Depth + 1);
    atomsWhen(R, Truth, Atom, Depth + 1);
    return;
  }
  Atom(C, Truth);
}

std::tuple<const Expr *, const Expr *, BinaryOperatorKind>
KernelLaunchAnalysis::Impl::comparisonWhen(const Expr *A, bool T) {
  auto [L, R, Op] = binaryOperands(A);
  if (!L || !R || !BinaryOperator::isComparisonOp(Op) || Op == BO_Cmp)
    return {nullptr, nullptr, BO_Comma};
  return {L, R, T ? Op : BinaryOperator::negateComparisonOp(Op)};
}

void KernelLaunchAnalysis::Impl::testsWhen(const Expr *C, bool Truth,
                                           llvm::SmallVectorImpl<Guard> &Out) {
  atomsWhen(C, Truth, [&](const Expr *A, bool T) {
    // The test itself is the guard's position: a call or a comparison is
    // an element of the CFG, where a condition with `!` or `&&` may be
    // none.
    auto Add = [&](std::optional<IndexVar> V, unsigned Props) {
      if (!V)
        return;
      Guard G;
      G.Props = Props;
      G.At = A;
      G.Var = *V;
      Out.push_back(G);
    };
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(A); MC && T) {
      const op::FactSet Facts = callFacts(MC);
      // Past the conversion to TensorBase, where is_cuda() is declared.
      const Expr *Obj =
          peel::peel(MC->getImplicitObjectArgument(), peel::ImpCasts);
      if (Facts & op::TestsCuda) {
        if (isTensorType(Obj->getType()))
          Add(directVariable(Obj), Guard::Cuda);
        else if (isDeviceClass(Obj->getType()))
          Add(deviceOwner(Obj), Guard::Cuda);
      }
      if ((Facts & op::Contiguity) && MC->getType()->isBooleanType() &&
          peel::noWrittenArgs(MC) && isTensorMethod(MC->getMethodDecl()))
        Add(directVariable(Obj), Guard::Contig);
    }
    // Comparisons: devices, dtypes.
    auto [L, R, Op] = comparisonWhen(A, T);
    if (!L)
      return;
    for (auto [X, Y] : {std::pair{L, R}, std::pair{R, L}}) {
      if (auto V = deviceOwner(X)) {
        const DeviceClass D = classifyDevice(Y);
        if ((Op == BO_EQ && D == DeviceClass::CUDA) ||
            (Op == BO_NE && D == DeviceClass::CPU))
          Add(V, Guard::Cuda);
      }
      if (const CXXMemberCallExpr *MC = tensorMethodCall(unwrap(X)))
        if (isScalarTypeEnum(MC->getType()) || isTypeMeta(MC->getType()))
          if (Op == BO_EQ)
            Add(directVariable(MC->getImplicitObjectArgument()), Guard::Dtype);
    }
  });
}

void KernelLaunchAnalysis::Impl::nonZeroWhen(const Expr *C, bool Truth,
                                             NonZero &Out) {
  atomsWhen(C, Truth, [&](const Expr *A, bool T) {
    if (const auto *Cast = dyn_cast<CastExpr>(A)) {
      if (Cast->getCastKind() == CK_IntegralToBoolean && T &&
          isCountLike(Cast->getSubExpr()))
        addNonZero(Cast->getSubExpr(), Out);
      return;
    }
    auto [L, R, Op] = comparisonWhen(A, T);
    if (!L)
      return;
    // count OP k, with the count on the left.
    for (auto [Count, K, O] :
         {std::tuple{L, R, Op},
          std::tuple{R, L, BinaryOperator::reverseComparisonOp(Op)}}) {
      if (!isCountLike(Count))
        continue;
      if ((isZero(K, Ctx) && (O == BO_NE || O == BO_GT || O == BO_LT)) ||
          (isOne(K, Ctx) && O == BO_GE))
        addNonZero(Count, Out);
    }
  });
}

unsigned KernelLaunchAnalysis::Impl::helperGuards(const FunctionDecl *Callee,
                                                  unsigned Param,
                                                  unsigned Depth) {
  if (!Callee || Depth > limits::HelperDepth)
    return 0;
  const FunctionDecl *Def = Callee->getDefinition();
  if (!Def || !Def->getBody() || !isUserDecl(Def) ||
      Param >= Def->getNumParams())
    return 0;
  auto Key = std::make_pair(Def, Param);
  if (auto It = HelperGuards.find(Key); It != HelperGuards.end())
    return It->second;
  HelperGuards[Key] = 0; // recursion
  const ParmVarDecl *PVD = Def->getParamDecl(Param);
  unsigned Props = 0;
  // The helper's top-level statements in order, up to the first that may
  // jump out: a check after `if (t.numel() == 0) return;` does not run on
  // every call. A test counts when its other branch never returns to the
  // caller (a throw, TORCH_CHECK's failure): after `if (!t.is_cuda())
  // return;` the caller goes on whatever t is.
  llvm::SmallVector<const Stmt *, 16> Work{Def->getBody()};
  for (unsigned Steps = 0; !Work.empty() && Steps < limits::SearchDepth * 8;
       ++Steps) {
    const Stmt *S = Work.pop_back_val();
    if (!S)
      continue;
    if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
      for (const Stmt *Child : llvm::reverse(CS->body()))
        Work.push_back(Child);
      continue;
    }
    if (const auto *Do = dyn_cast<DoStmt>(S)) {
      Work.push_back(Do->getBody());
      continue;
    }
    if (const auto *If = dyn_cast<IfStmt>(S)) {
      const bool ThenDies = neverReturns(If->getThen()),
                 ElseDies = neverReturns(If->getElse());
      if (ThenDies != ElseDies) {
        llvm::SmallVector<Guard, 4> Tests;
        testsWhen(If->getCond(), ElseDies, Tests);
        for (const Guard &G : Tests)
          if (G.Var.Base == PVD && !G.Var.Field)
            Props |= G.Props;
      }
    }
    if (mayJumpOut(S))
      break;
    if (const auto *E = dyn_cast<Expr>(S)) {
      E = unwrap(E);
      SourceLocation Exp;
      if (inMacroNamed(E->getBeginLoc(), SM, Ctx.getLangOpts(),
                       kernelArgMacros(), &Exp))
        if (const Expr *Arg = firstTensorMacroArgument(E, SM))
          if (auto V = directVariable(Arg); V && V->Base == PVD)
            Props |= Guard::Cuda | Guard::Contig | Guard::Dtype;
      if (const auto *Call = dyn_cast<CallExpr>(E))
        Props |= callGuardsOn(Call, PVD, Depth);
    }
  }
  HelperGuards[Key] = Props;
  return Props;
}

unsigned KernelLaunchAnalysis::Impl::callGuardsOn(const CallExpr *Call,
                                                  const ValueDecl *V,
                                                  unsigned Depth) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || isTorchFunction(Callee) || isa<CUDAKernelCallExpr>(Call))
    return 0;
  const unsigned Shift =
      isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee) ? 1 : 0;
  unsigned Props = 0;
  for (unsigned A = Shift; A < Call->getNumArgs(); ++A) {
    auto Var = directVariable(Call->getArg(A));
    if (Var && Var->Base == V && !Var->Field)
      Props |= helperGuards(Callee, A - Shift, Depth + 1);
  }
  return Props;
}

const Expr *KernelLaunchAnalysis::Impl::firstEvaluated(const Expr *C) {
  C = peel::peel(C, peel::Parens);
  while (const auto *BO = dyn_cast<BinaryOperator>(C)) {
    if (!BO->isLogicalOp())
      break;
    C = peel::peel(BO->getLHS(), peel::Parens);
  }
  return C;
}

const Expr *KernelLaunchAnalysis::Impl::integerDivisor(const Expr *E) {
  const auto *BO = dyn_cast_or_null<BinaryOperator>(E);
  if (!BO)
    return nullptr;
  const BinaryOperatorKind Op = BO->getOpcode();
  if (Op != BO_Div && Op != BO_Rem && Op != BO_DivAssign && Op != BO_RemAssign)
    return nullptr;
  QualType Computed = BO->getType();
  if (const auto *CA = dyn_cast<CompoundAssignOperator>(BO))
    Computed = CA->getComputationResultType();
  if (!Computed->isIntegerType() || !isCountLike(BO->getRHS()))
    return nullptr;
  return BO->getRHS();
}

const llvm::StringSet<> &KernelLaunchAnalysis::Impl::kernelArgMacros() {
  static const llvm::StringSet<> Names = [] {
    llvm::StringSet<> Names;
    for (const std::string &M : macrosWith(op::ChecksKernelArgument))
      Names.insert(M);
    return Names;
  }();
  return Names;
}

const std::vector<Guard> &
KernelLaunchAnalysis::Impl::guardsOf(const FunctionDecl *FD) {
  auto It = GuardsOf.find(FD);
  if (It != GuardsOf.end())
    return It->second;
  std::vector<Guard> &Out = GuardsOf[FD];
  llvm::DenseSet<unsigned> Expansions;
  forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
    // Past an if or a ?: with one branch that exits, the condition has
    // the value of the branch that goes on.
    const Expr *Cond = nullptr;
    const Stmt *Then = nullptr, *Else = nullptr;
    if (const auto *If = dyn_cast<IfStmt>(S)) {
      Cond = If->getCond();
      Then = If->getThen();
      Else = If->getElse();
    } else if (const auto *CO = dyn_cast<ConditionalOperator>(S)) {
      Cond = CO->getCond();
      Then = CO->getTrueExpr();
      Else = CO->getFalseExpr();
    }
    const bool ThenExits = exits(Then), ElseExits = exits(Else);
    if (Cond && (ThenExits || ElseExits)) {
      // Both exit: nothing past it runs.
      if (ThenExits == ElseExits)
        return;
      const Stmt *ExitBranch = ThenExits ? Then : Else;
      // A break or a continue leaves only its loop: past the loop the
      // condition may have been true.
      const Stmt *Scope = nullptr;
      if (!leavesFunction(ExitBranch)) {
        Scope = jumpTarget(FD, S, /*Break=*/true);
        if (!Scope)
          return;
      }
      auto Push = [&](Guard G) {
        G.Cond = Cond;
        G.CondTruth = ElseExits;
        G.ExitBranch = ExitBranch;
        G.Scope = Scope;
        Out.push_back(G);
      };
      llvm::SmallVector<Guard, 4> Tests;
      testsWhen(Cond, ElseExits, Tests);
      for (const Guard &G : Tests)
        Push(G);
      Guard G;
      G.Props = Guard::NonEmpty;
      G.At = firstEvaluated(Cond);
      Push(G);
      return;
    }
    // The guard is the call inside (a temporary's cleanups are not a
    // statement of the CFG); forEachOwnStmt visits it next.
    const auto *E = dyn_cast<Expr>(S);
    // An integer division by a count (`K = out.numel() / N`): past it the
    // count is not 0, since the host dies of the division first.
    if (const Expr *Divisor = integerDivisor(E)) {
      Guard G;
      G.Props = Guard::NonEmpty;
      G.At = E;
      G.Count = Divisor;
      Out.push_back(G);
    }
    if (!E || isa<ExprWithCleanups>(E))
      return;
    SourceLocation Exp;
    if (E->getBeginLoc().isMacroID() &&
        inMacroNamed(E->getBeginLoc(), SM, Ctx.getLangOpts(), kernelArgMacros(),
                     &Exp) &&
        Expansions.insert(Exp.getRawEncoding()).second) {
      if (const Expr *Arg = firstTensorMacroArgument(E, SM))
        if (auto V = directVariable(Arg)) {
          Guard G;
          G.Props = Guard::Cuda | Guard::Contig | Guard::Dtype;
          G.Var = *V;
          G.At = E;
          Out.push_back(G);
        }
      return;
    }
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      if (!Callee || isTorchFunction(Callee) || isa<CUDAKernelCallExpr>(Call))
        return;
      const unsigned Shift =
          isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee) ? 1 : 0;
      for (unsigned A = Shift; A < Call->getNumArgs(); ++A) {
        auto V = directVariable(Call->getArg(A));
        if (!V || V->Field)
          continue;
        if (const unsigned Props = helperGuards(Callee, A - Shift, 0)) {
          Guard G;
          G.Props = Props;
          G.Var = *V;
          G.At = Call;
          Out.push_back(G);
        }
      }
    }
  });
  return Out;
}

unsigned KernelLaunchAnalysis::Impl::provenAt(const IndexVar *V,
                                              const Stmt *Use,
                                              const FunctionDecl *UseFn,
                                              NonZero *Counts) {
  unsigned Props = 0;
  auto Matches = [&](const Guard &G) {
    return V ? G.Var == *V : (G.Props & Guard::NonEmpty) != 0;
  };
  const Stmt *At = Use;
  const FunctionDecl *Fn = UseFn;
  auto Holds = [&](const Guard &G) {
    if ((G.ExitBranch && within(Fn, At, G.ExitBranch, true)) ||
        (G.Scope && !within(Fn, At, G.Scope, false)))
      return;
    Props |= G.Props;
    if (V || !Counts)
      return;
    NonZero Proven;
    if (G.Count)
      addNonZero(G.Count, Proven);
    else if (G.Cond)
      nonZeroWhen(dyn_cast<Expr>(G.Cond), G.CondTruth, Proven);
    addUnchanged(*Counts, Proven, GuardAnalysis.finder(Fn), G.At, At);
  };
  for (unsigned I = 0; Fn && At && I < limits::StatementNesting; ++I) {
    IndexGuardFinder &Finder = GuardAnalysis.finder(Fn);
    for (const Guard &G : guardsOf(Fn))
      if (Matches(G) && Finder.valid() &&
          (Finder.dominates(G.At, At) ||
           (G.Cond && Finder.dominates(G.Cond, At))))
        Holds(G);
    const LambdaExpr *L = lambdaExprOf(Fn);
    if (!L)
      break;
    At = L;
    Fn = enclosingFunctionOf(Fn);
  }
  // Branches around the use: `if (x.is_cuda()) { launch }`.
  const Stmt *Cur = Use;
  for (unsigned I = 0; I < limits::StatementNesting; ++I) {
    const Stmt *P = parent(UseFn, Cur);
    if (!P)
      break;
    // The branch that holds the use (not an if's init-statement).
    const Expr *Cond = nullptr;
    bool InThen = false;
    if (const auto *If = dyn_cast<IfStmt>(P);
        If && (If->getThen() == Cur || If->getElse() == Cur)) {
      Cond = If->getCond();
      InThen = If->getThen() == Cur;
    } else if (const auto *CO = dyn_cast<ConditionalOperator>(P);
               CO && CO->getCond() != Cur) {
      Cond = CO->getCond();
      InThen = CO->getTrueExpr() == Cur;
    }
    if (Cond) {
      llvm::SmallVector<Guard, 4> Tests;
      testsWhen(Cond, InThen, Tests);
      for (const Guard &G : Tests)
        if (Matches(G))
          Props |= G.Props;
      if (!V && Counts) {
        NonZero Proven;
        nonZeroWhen(Cond, InThen, Proven);
        addUnchanged(*Counts, Proven, GuardAnalysis.finder(UseFn),
                     firstEvaluated(Cond), Use);
      }
    }
    Cur = P;
  }
  return V ? Props & ~static_cast<unsigned>(Guard::NonEmpty)
           : Props & Guard::NonEmpty;
}

const Expr *KernelLaunchAnalysis::Impl::singleDefinition(const VarDecl *VD) {
  if (!VD || isa<ParmVarDecl>(VD) || !VD->isLocalVarDecl() ||
      VD->getType()->isReferenceType() || VD->isStaticLocal())
    return nullptr;
  const auto *Owner =
      dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod());
  if (!Owner)
    return nullptr;
  IndexGuardFinder &Finder = GuardAnalysis.finder(Owner);
  if (!Finder.valid())
    return nullptr;
  std::vector<const Expr *> Defs = Finder.definitionsOf(VD);
  if (Defs.size() != 1 || Defs.front() != VD->getInit())
    return nullptr;
  for (const Stmt *W : Finder.writesOf(IndexVar{VD, nullptr})) {
    if (const auto *DS = dyn_cast<DeclStmt>(W)) {
      bool Declares = false;
      for (const Decl *D : DS->decls())
        Declares |= D == VD;
      if (Declares)
        continue;
    }
    if (const auto *MC = tensorMethodCall(dyn_cast<Expr>(W)))
      if (!(callFacts(MC) & (op::DeviceOpaque | op::RebindsStorage)))
        continue;
    return nullptr;
  }
  return VD->getInit();
}

} // namespace torchtidy
