//===--- KernelIndexBounds.cpp - What bounds an access --------------------===//
//
// What bounds an access at a loaded offset: a comparison with the
// array's size, an assert, a loop, a check before the launch.
// Part of FunctionScan (KernelIndexLoadsImpl.h).
//
//===----------------------------------------------------------------------===//

#include "KernelIndexLoadsImpl.h"
#include "torchtidy/analysis/IndexArrays.h"
#include "torchtidy/analysis/IndexGuards.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/Attr.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

using namespace clang;

namespace torchtidy {

using namespace kernelindex;

bool FunctionScan::buildCfg() {
  Fn = FunctionContexts::of(Ctx).get(FD);
  Cfg = Fn ? Fn->cfg() : nullptr;
  return Cfg != nullptr;
}

bool FunctionScan::dominates(const Stmt *A, const Stmt *B) {
  const Point PA = Fn->pointOf(A);
  const Point PB = Fn->pointOf(B);
  if (!PA.Block || !PB.Block)
    return false;
  if (PA.Block == PB.Block)
    return PA.Index < PB.Index;
  return Fn->dominates(PA.Block, PB.Block);
}

bool FunctionScan::sameExpr(const Expr *A, const Expr *B) {
  llvm::FoldingSetNodeID IA, IB;
  ignoreCasts(A)->Profile(IA, Ctx, true);
  ignoreCasts(B)->Profile(IB, Ctx, true);
  return IA == IB;
}

bool FunctionScan::compared(const UncheckedIndexLoad &U,
                            const llvm::SmallPtrSetImpl<const VarDecl *> &Vars,
                            const Expr *Load) {
  bool Found = false;
  auto Names = [&](const Expr *Side) {
    bool Mentions = false;
    llvm::SmallPtrSet<const VarDecl *, 4> In;
    taintedIn(Side, In);
    for (const VarDecl *V : In)
      Mentions |= Vars.count(V) > 0;
    walk(Side, [&](const Expr *X) {
      Mentions |= (Load && sameExpr(X, Load)) || sameExpr(X, U.Offset);
    });
    return Mentions;
  };
  auto Loaded = [&](const Expr *Side) {
    llvm::SmallPtrSet<const VarDecl *, 4> In;
    taintedIn(Side, In);
    return !In.empty() || loadIn(Side);
  };
  forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
    const auto *BO = dyn_cast<BinaryOperator>(S);
    if (Found || !BO || !BO->isRelationalOp())
      return;
    const bool Relates = (Names(BO->getLHS()) && !Loaded(BO->getRHS())) ||
                         (Names(BO->getRHS()) && !Loaded(BO->getLHS()));
    if (Relates && dominates(BO, U.Access))
      Found = true;
  });
  return Found || assertedBefore(U, Vars);
}

const VarDecl *
FunctionScan::uncovered(const UncheckedIndexLoad &U, const VarDecl *V,
                        llvm::DenseMap<const VarDecl *, bool> &Memo) {
  auto [It, New] = Memo.try_emplace(V, false);
  if (!New)
    return It->second ? nullptr : V; // in progress: a cycle bounds nothing
  const llvm::SmallPtrSet<const VarDecl *, 2> Self = {V};
  if (compared(U, Self, nullptr)) {
    Memo[V] = true;
    return nullptr;
  }
  auto TI = Taint.find(V);
  if (TI == Taint.end()) {
    Memo[V] = true; // not loaded
    return nullptr;
  }
  if (TI->second.Load && !compared(U, Self, TI->second.Load))
    return V;
  for (const VarDecl *From : TI->second.From)
    if (const VarDecl *Open = uncovered(U, From, Memo))
      return Open;
  Memo[V] = true;
  return nullptr;
}

bool FunctionScan::bounded(UncheckedIndexLoad &U) {
  const llvm::SmallPtrSet<const VarDecl *, 4> None;
  if (compared(U, None, nullptr))
    return true; // the whole offset
  llvm::SmallPtrSet<const VarDecl *, 4> Direct;
  taintedIn(U.Offset, Direct);
  std::vector<const VarDecl *> Parts(Direct.begin(), Direct.end());
  llvm::sort(Parts, [](const VarDecl *A, const VarDecl *B) {
    return A->getBeginLoc() < B->getBeginLoc();
  });
  bool All = true;
  for (const VarDecl *V : Parts) {
    llvm::DenseMap<const VarDecl *, bool> Memo;
    const VarDecl *Open = uncovered(U, V, Memo);
    if (!Open)
      continue;
    auto It = Taint.find(Open);
    U.Load = It != Taint.end() && It->second.Load ? It->second.Load
                                                  : originOf(Open).first;
    U.Holder = Open;
    All = false;
    break;
  }
  if (All) {
    std::vector<const Expr *> Loads;
    walk(U.Offset, [&](const Expr *X) {
      if (isLoad(X))
        Loads.push_back(X);
    });
    for (const Expr *L : Loads) {
      if (compared(U, None, L))
        continue;
      U.Load = L;
      U.Holder = nullptr;
      All = false;
      break;
    }
  }
  if (All)
    return true;
  U.Source = sourceOf(U.Load);
  return Device ? launchesBound(U) : hostTensorBounded(U);
}

bool FunctionScan::assertedBefore(
    const UncheckedIndexLoad &U,
    const llvm::SmallPtrSetImpl<const VarDecl *> &Vars) {
  const SourceManager &SM = Ctx.getSourceManager();
  const SourceLocation At = SM.getFileLoc(U.Access->getBeginLoc());
  llvm::StringSet<> Names;
  for (const VarDecl *V : Vars)
    Names.insert(V->getName());
  if (Names.empty())
    return false;
  llvm::StringSet<> TaintedNames;
  for (const auto &Entry : Taint)
    TaintedNames.insert(Entry.first->getName());
  for (const AssertMacroUse &M : Asserts) {
    if (!SM.isBeforeInTranslationUnit(M.Loc, At))
      continue;
    if (!llvm::any_of(M.Names,
                      [&](const std::string &N) { return Names.count(N); }))
      continue;
    // ... against a bound: a name that is not itself a loaded value, or a
    // number ("#"); `assert(idx1 <= idx2)` bounds neither.
    if (!llvm::any_of(M.Names, [&](const std::string &N) {
          return !TaintedNames.count(N);
        }))
      continue;
    // The innermost compound statement around the macro must hold the
    // access too.
    const CompoundStmt *Inner = nullptr;
    forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      const auto *CS = dyn_cast<CompoundStmt>(S);
      if (!CS)
        return;
      const SourceLocation B = SM.getFileLoc(CS->getLBracLoc());
      const SourceLocation E = SM.getFileLoc(CS->getRBracLoc());
      if (SM.isBeforeInTranslationUnit(B, M.Loc) &&
          SM.isBeforeInTranslationUnit(M.Loc, E))
        Inner = CS;
    });
    if (Inner &&
        SM.isBeforeInTranslationUnit(At, SM.getFileLoc(Inner->getRBracLoc())))
      return true;
  }
  return false;
}

bool FunctionScan::hostTensorBounded(const UncheckedIndexLoad &U) {
  if (const auto *Param = dyn_cast_or_null<ParmVarDecl>(U.Source))
    return callsBound(Param);
  auto It = HostTensor.find(U.Source);
  if (It == HostTensor.end())
    return false;
  IndexGuardFinder &F = TU.Guards.finder(FD);
  if (!F.valid())
    return false;
  return F.classify(It->second, U.Access).K == IndexOrigin::Safe;
}

bool FunctionScan::callsBound(const ParmVarDecl *Param) {
  const unsigned I = Param->getFunctionScopeIndex();
  for (const CallOf &C : TU.callsOf(FD)) {
    const Expr *Tensor = I < C.Call->getNumArgs()
                             ? rawStorageTensor(C.Call->getArg(I))
                             : nullptr;
    if (!Tensor || !boundedAt(Tensor, C.Caller, C.Call, /*Intact=*/true))
      return false;
  }
  return true;
}

bool FunctionScan::boundedAt(const Expr *Tensor, const FunctionDecl *Caller,
                             const Stmt *Call, bool Intact) {
  IndexGuardFinder &F = TU.Guards.finder(Caller);
  if (F.valid() && F.classify(Tensor, Call).K == IndexOrigin::Safe)
    return true;
  return Intact && TU.Arrays.holds(Tensor, Call);
}

bool FunctionScan::launchesBound(const UncheckedIndexLoad &U) {
  const auto *Param = dyn_cast_or_null<ParmVarDecl>(U.Source);
  if (!Param || !FD->hasAttr<CUDAGlobalAttr>())
    return false;
  const std::vector<LaunchOf> &Launches = TU.launchesOf(FD);
  if (Launches.empty())
    return false;
  const unsigned I = Param->getFunctionScopeIndex();
  // An array made in range stays so only if this kernel does not write
  // through the parameter it reads it from.
  const bool Intact = kernelOnlyReads(FD, I);
  for (const LaunchOf &L : Launches) {
    if (I >= L.Call->getNumArgs())
      return false;
    const Expr *Tensor = tensorOfArgument(L.Call->getArg(I));
    if (!Tensor || !boundedAt(Tensor, L.Caller, L.Call, Intact))
      return false;
  }
  return true;
}

const Expr *FunctionScan::tensorOfArgument(const Expr *Arg) {
  for (unsigned Steps = 0; Arg && Steps < 4; ++Steps) {
    Arg = peel::peel(Arg, peel::AsComputed | peel::SingleArgumentConstructions);
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Arg))
      if (callFacts(MC) & op::RawData)
        return MC->getImplicitObjectArgument();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(Arg))
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
          VD && VD->hasLocalStorage() && VD->getInit()) {
        Arg = VD->getInit();
        continue;
      }
    if (const auto *Call = dyn_cast<CallExpr>(Arg)) {
      for (const Expr *A : Call->arguments())
        if (isTensorType(ignoreCasts(A)->getType()))
          return A;
    }
    return nullptr;
  }
  return nullptr;
}

} // namespace torchtidy
