//===--- IndexRelations.cpp - Callers; what guards prove ------------------===//
//
// Who calls each function, and what a comparison, a clamp or a guard
// proves of a length against a table's rows.
// Part of IndexRangeAnalysis (IndexRangesImpl.h).
//
//===----------------------------------------------------------------------===//

#include "IndexRangesImpl.h"
#include "torchtidy/analysis/FunctionContext.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/Basic/Builtins.h"

using namespace clang;

namespace torchtidy {

using namespace ranges;

void IndexRangeAnalysis::Impl::buildCallers() {
  if (Callers)
    return;
  Callers.emplace();
  for (const auto &[Call, Caller] : FunctionContexts::of(Ctx).callSites()) {
    // `model(x)` through a holder: the module's forward.
    const Expr *ModuleExpr = nullptr;
    if (const CXXRecordDecl *M = moduleForwardCall(Call, &ModuleExpr)) {
      if (isa<CXXOperatorCallExpr>(Call)) {
        for (const CXXMethodDecl *MD : M->methods())
          if (hasOpName(MD, op::Named::forward))
            if (const FunctionDecl *Def = definitionOf(MD))
              (*Callers)[Def].push_back({Caller, Call, 1});
        continue;
      }
    }
    if (const FunctionDecl *Def = definitionOf(Call->getDirectCallee())) {
      const unsigned First =
          isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Def) ? 1 : 0;
      (*Callers)[Def].push_back({Caller, Call, First});
    }
  }
}

llvm::ArrayRef<IndexRangeAnalysis::Impl::CallSite>
IndexRangeAnalysis::Impl::callersOf(const FunctionDecl *FD) {
  buildCallers();
  if (!Callers)
    return {};
  auto It = Callers->find(FD);
  if (It == Callers->end())
    return {};
  return It->second;
}

BinaryOperatorKind IndexRangeAnalysis::Impl::negated(BinaryOperatorKind Op) {
  switch (Op) {
  case BO_LT:
    return BO_GE;
  case BO_LE:
    return BO_GT;
  case BO_GT:
    return BO_LE;
  case BO_GE:
    return BO_LT;
  case BO_EQ:
    return BO_NE;
  default:
    return BO_EQ;
  }
}

void IndexRangeAnalysis::Impl::factsOf(const Expr *Cond, bool Holds,
                                       llvm::SmallVectorImpl<Fact> &Out,
                                       unsigned Depth) {
  if (!Cond || Depth > limits::SearchDepth)
    return;
  Cond = unwrap(Cond);
  if (const auto *UO = dyn_cast<UnaryOperator>(Cond)) {
    if (UO->getOpcode() == UO_LNot)
      factsOf(UO->getSubExpr(), !Holds, Out, Depth + 1);
    return;
  }
  if (const auto *Call = dyn_cast<CallExpr>(Cond)) {
    if (Call->getBuiltinCallee() == Builtin::BI__builtin_expect &&
        Call->getNumArgs() == 2)
      factsOf(Call->getArg(0), Holds, Out, Depth + 1);
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
        Op && Op->isComparisonOp() && Op->getNumArgs() == 2) {
      const BinaryOperatorKind K =
          BinaryOperator::getOverloadedOpcode(Op->getOperator());
      if (K != BO_Cmp)
        Out.push_back({Op->getArg(0), Holds ? K : negated(K), Op->getArg(1)});
    }
    return;
  }
  const auto *BO = dyn_cast<BinaryOperator>(Cond);
  if (!BO)
    return;
  if ((BO->getOpcode() == BO_LAnd && Holds) ||
      (BO->getOpcode() == BO_LOr && !Holds)) {
    factsOf(BO->getLHS(), Holds, Out, Depth + 1);
    factsOf(BO->getRHS(), Holds, Out, Depth + 1);
    return;
  }
  if (BO->isComparisonOp() && BO->getOpcode() != BO_Cmp)
    Out.push_back({BO->getLHS(),
                   Holds ? BO->getOpcode() : negated(BO->getOpcode()),
                   BO->getRHS()});
}

bool IndexRangeAnalysis::Impl::boundedBy(const Quantity &Q,
                                         const Quantity &Bound, int64_t Slack,
                                         const Quantity &Len,
                                         const Quantity &Rows) const {
  if (!Q.known() || !Bound.known() || !Q.sameBase(Len))
    return false;
  // Without the rows, a bound of the length by anything.
  if (AnyRows)
    return true;
  if (!Bound.sameBase(Rows))
    return false;
  // Q.base + q <= Bound.base + b + Slack, so Len.base + l <= Rows.base +
  // (b + Slack - q + l): within the rows when that is at most r.
  return Bound.Offset + Slack - Q.Offset + Len.Offset <= Rows.Offset;
}

bool IndexRangeAnalysis::Impl::implies(const FunctionDecl *FD, const Fact &F,
                                       const Quantity &Len,
                                       const Quantity &Rows) {
  const Expr *Small = F.L, *Large = F.R;
  BinaryOperatorKind Op = F.Op;
  if (Op == BO_GT || Op == BO_GE) {
    std::swap(Small, Large);
    Op = Op == BO_GT ? BO_LT : BO_LE;
  }
  if (Op != BO_LT && Op != BO_LE && Op != BO_EQ)
    return false;
  const Quantity S = quantityOf(FD, Small);
  const Quantity L = quantityOf(FD, Large);
  const int64_t Slack = Op == BO_LT ? -1 : 0;
  if (boundedBy(S, L, Slack, Len, Rows))
    return true;
  return Op == BO_EQ && boundedBy(L, S, 0, Len, Rows);
}

bool IndexRangeAnalysis::Impl::holds(const Stmt *S, const Stmt *Target) {
  if (!S || !Target)
    return false;
  bool Found = false;
  forEachOwnStmt(S, [&](const Stmt *Sub) { Found |= Sub == Target; });
  return Found;
}

bool IndexRangeAnalysis::Impl::conditionBounds(const FunctionDecl *FD,
                                               const Quantity &Len,
                                               const Quantity &Rows,
                                               const Stmt *Use) {
  bool Found = false;
  auto Check = [&](const Expr *Cond, bool Holds) {
    llvm::SmallVector<Fact, 4> Facts;
    factsOf(Cond, Holds, Facts);
    for (const Fact &F : Facts)
      if (implies(FD, F, Len, Rows))
        Found = true;
  };
  auto Branches = [&](const Expr *Cond, const Stmt *Then, const Stmt *Else) {
    if (exits(Then) || holds(Else, Use))
      Check(Cond, false);
    if ((Else && exits(Else)) || holds(Then, Use))
      Check(Cond, true);
  };
  forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
    if (Found)
      return;
    if (const auto *If = dyn_cast<IfStmt>(S))
      Branches(If->getCond(), If->getThen(), If->getElse());
    else if (const auto *CO = dyn_cast<ConditionalOperator>(S))
      Branches(CO->getCond(), CO->getTrueExpr(), CO->getFalseExpr());
  });
  return Found;
}

Quantity IndexRangeAnalysis::Impl::keptByCrop(const FunctionDecl *FD,
                                              const CallExpr *Call,
                                              int64_t Dim) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || !Callee->getIdentifier() || formOf(Callee) != op::Method)
    return {};
  auto Span = [&](const Expr *Start, const Expr *End) -> Quantity {
    int64_t A = 0;
    const bool HasStart = Start && !isNone(Start);
    const bool HasEnd = End && !isNone(End);
    if (!HasEnd && HasStart) {
      // slice(d, -n): the last n (all of them when there are fewer).
      if (evaluateInt(Start, Ctx, A))
        return A < 0 ? Quantity::constant(-A, Start) : Quantity{};
      // An optional<int64_t> start: the value it was made from.
      const Expr *Value =
          peel::peel(Start, UnwrappedSteps | peel::SingleArgumentConstructions);
      const auto *Neg = dyn_cast<UnaryOperator>(Value);
      if (Neg && Neg->getOpcode() == UO_Minus)
        return quantityOf(FD, Neg->getSubExpr());
      return {};
    }
    if (!HasEnd || (HasStart && !evaluateInt(Start, Ctx, A)))
      return {};
    if (A < 0)
      return {};
    Quantity Q = quantityOf(FD, End);
    if (Q.known()) {
      Q.Offset -= A;
      for (Quantity &C : Q.CappedBy)
        C.Offset -= A;
    }
    return Q;
  };
  auto SameDim = [&](const Expr *D) {
    int64_t V = 0;
    return D ? evaluateInt(D, Ctx, V) && V == Dim : Dim == 0;
  };
  if (hasOpName(Callee, op::Named::slice) && SameDim(argAt(Call, 1)))
    return Span(argAt(Call, 2), argAt(Call, 3));
  if (hasOpName(Callee, op::Named::narrow) && SameDim(argAt(Call, 1)))
    return quantityOf(FD, argAt(Call, 3));
  if (hasOpName(Callee, op::Named::index)) {
    llvm::SmallVector<const Expr *, 4> Parts = listElements(argAt(Call, 1));
    if (Dim < 0 || Dim >= static_cast<int64_t>(Parts.size()))
      return {};
    // unwrap looks through the functional cast of `Slice(...)` too.
    const Expr *Part = unwrap(Parts[Dim]);
    const auto *Ctor = dyn_cast<CXXConstructExpr>(Part);
    const CXXRecordDecl *RD =
        Ctor ? Ctor->getType()->getAsCXXRecordDecl() : nullptr;
    if (!isClass(RD, KnownClass::Slice))
      return {};
    auto Arg = [&](unsigned I) -> const Expr * {
      return I < Ctor->getNumArgs() && !isa<CXXDefaultArgExpr>(Ctor->getArg(I))
                 ? Ctor->getArg(I)
                 : nullptr;
    };
    return Span(Arg(0), Arg(1));
  }
  return {};
}

bool IndexRangeAnalysis::Impl::isNone(const Expr *E) {
  E = peel::peel(E, peel::Implicit);
  if (const auto *Ctor = dyn_cast<CXXConstructExpr>(E)) {
    if (Ctor->getNumArgs() == 0)
      return true;
    const auto *RD =
        Ctor->getArg(0)->getType().getNonReferenceType()->getAsRecordDecl();
    if (isClass(RD, {KnownClass::nullopt_t, KnownClass::NoneType}))
      return true;
  }
  return isClass(E->getType().getNonReferenceType()->getAsRecordDecl(),
                 {KnownClass::nullopt_t, KnownClass::NoneType});
}

bool IndexRangeAnalysis::Impl::atMostRows(const Quantity &Kept,
                                          const Quantity &Rows) const {
  if (AnyRows)
    return Kept.known() || !Kept.CappedBy.empty();
  if (Kept.known() && Kept.sameBase(Rows) && Kept.Offset <= Rows.Offset)
    return true;
  for (const Quantity &C : Kept.CappedBy)
    if (C.sameBase(Rows) && C.Offset <= Rows.Offset)
      return true;
  return false;
}

bool IndexRangeAnalysis::Impl::definitionWithinRows(const FunctionDecl *FD,
                                                    const Expr *Def,
                                                    const Quantity &Len,
                                                    const Quantity &Rows) {
  auto Crop = [&](const Expr *E) {
    const auto *Call = dyn_cast<CallExpr>(unwrap(E));
    // Without the rows, any crop: what it keeps cannot be compared.
    return Call && isCropCall(Call) &&
           (AnyRows || atMostRows(keptByCrop(FD, Call, Len.Dim), Rows));
  };
  if (Crop(Def))
    return true;
  const auto *CO = dyn_cast<ConditionalOperator>(unwrap(Def));
  if (!CO)
    return false;
  auto Arm = [&](const Expr *A, bool CondHolds) {
    if (Crop(A))
      return true;
    // A tensor taken as it is: its size, bounded by the condition.
    auto N = namedValue(A);
    if (!N)
      return false;
    Quantity Taken = Len;
    Taken.Base = N->first;
    Taken.Field = N->second;
    llvm::SmallVector<Fact, 4> Facts;
    factsOf(CO->getCond(), CondHolds, Facts);
    for (const Fact &F : Facts)
      if (implies(FD, F, Taken, Rows))
        return true;
    return false;
  };
  return Arm(CO->getTrueExpr(), true) && Arm(CO->getFalseExpr(), false);
}

bool IndexRangeAnalysis::Impl::relatesInFunction(const FunctionDecl *FD,
                                                 const Quantity &Len,
                                                 const Quantity &Rows,
                                                 const Stmt *Use) {
  if (!Len.known() || !Rows.known())
    return false;
  if (conditionBounds(FD, Len, Rows, Use))
    return true;
  if (Len.K != Quantity::Runtime || Len.Field)
    return false;
  const auto *VD = dyn_cast_or_null<VarDecl>(Len.Base);
  if (!VD)
    return false;
  IndexGuardFinder &F = Guards.finder(FD);
  const std::vector<const Expr *> Defs = F.definitionsOf(VD);
  if (Defs.empty())
    return false;
  bool Before = false, AllWithin = true;
  for (const Expr *Def : Defs) {
    if (!definitionWithinRows(FD, Def, Len, Rows)) {
      AllWithin = false;
      break;
    }
    Before |= !Use || F.dominates(Def, Use);
  }
  // A parameter's incoming value is not among its definitions.
  if (AllWithin && (Before || !isa<ParmVarDecl>(VD)))
    return true;
  return Use && croppedBeforeUse(FD, Len, Rows, Use, Defs);
}

bool IndexRangeAnalysis::Impl::croppedBeforeUse(
    const FunctionDecl *FD, const Quantity &Len, const Quantity &Rows,
    const Stmt *Use, llvm::ArrayRef<const Expr *> Defs) {
  IndexGuardFinder &F = Guards.finder(FD);
  for (const Expr *Crop : Defs)
    if (F.dominates(Crop, Use) && definitionWithinRows(FD, Crop, Len, Rows) &&
        llvm::all_of(Defs, [&](const Expr *D) {
          return D == Crop || F.dominates(D, Crop) ||
                 laterInLoop(FD, D, Use, Crop);
        }))
      return true;
  auto AssignsFrom = [](const Stmt *C, const Expr *Def) {
    const auto *E = dyn_cast<Expr>(C);
    if (!E)
      return false;
    E = peel::peel(E, peel::Implicit);
    if (const auto *BO = dyn_cast<BinaryOperator>(E))
      return BO->getOpcode() == BO_Assign && holds(BO->getRHS(), Def);
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E))
      return OC->getOperator() == OO_Equal && OC->getNumArgs() == 2 &&
             holds(OC->getArg(1), Def);
    return false;
  };
  bool Found = false;
  forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
    const auto *If = dyn_cast<IfStmt>(S);
    if (Found || !If || If->getElse() || If->getInit() ||
        If->getConditionVariable() || holds(If, Use))
      return;
    const Stmt *Then = If->getThen();
    bool Jumps = false;
    forEachOwnStmt(Then, [&](const Stmt *Sub) {
      Jumps |= isa<BreakStmt, ContinueStmt, GotoStmt, IndirectGotoStmt>(Sub);
    });
    if (Jumps)
      return;
    // The branch's last statement assigns the crop.
    const Stmt *Last = Then;
    if (const auto *CS = dyn_cast<CompoundStmt>(Then))
      Last = CS->body_empty() ? nullptr : CS->body_back();
    bool EndsInCrop = false;
    for (const Expr *Def : Defs) {
      if (holds(Then, Def)) {
        if (!definitionWithinRows(FD, Def, Len, Rows))
          return;
        EndsInCrop |= Last && AssignsFrom(Last, Def);
      } else if (!F.dominates(Def, If->getCond()) &&
                 !laterInLoop(FD, Def, Use, If)) {
        return;
      }
    }
    if (!EndsInCrop || !F.dominates(If->getCond(), Use))
      return;
    llvm::SmallVector<Fact, 4> Facts;
    factsOf(If->getCond(), false, Facts);
    for (const Fact &Fa : Facts)
      if (implies(FD, Fa, Len, Rows))
        Found = true;
  });
  return Found;
}

bool IndexRangeAnalysis::Impl::keepsIncoming(const FunctionDecl *FD,
                                             const ParmVarDecl *PVD) {
  for (const Expr *Def : Guards.finder(FD).definitionsOf(PVD)) {
    const auto *Call = dyn_cast<CallExpr>(unwrap(Def));
    if (!Call || formOf(Call->getDirectCallee()) != op::Method ||
        !(callFacts(Call) & (op::MovesToCuda | op::MovesToCpu |
                             op::MovesToArgument | op::KeepsShape)))
      return false;
    auto N = namedValue(argAt(Call, 0));
    if (!N || N->first != PVD || N->second)
      return false;
  }
  return true;
}

bool IndexRangeAnalysis::Impl::callersBound(
    const FunctionDecl *FD, const ParmVarDecl *Param, const Quantity &Hi,
    const Quantity &Rows, const CallExpr *&Unbounded, unsigned Level) {
  const llvm::ArrayRef<CallSite> Sites = callersOf(FD);
  if (Sites.empty())
    return !NoCallerIsUnbounded;
  for (const CallSite &CS : Sites) {
    const unsigned I = Param->getFunctionScopeIndex() + CS.FirstArg;
    if (I >= CS.Call->getNumArgs()) {
      Unbounded = CS.Call;
      return false;
    }
    const Expr *Arg = CS.Call->getArg(I);
    if (const auto *Crop = dyn_cast<CallExpr>(unwrap(Arg));
        Crop && isCropCall(Crop) &&
        atMostRows(keptByCrop(CS.Caller, Crop, Hi.Dim), Rows))
      continue;
    auto N = namedValue(Arg);
    if (!N) {
      Unbounded = CS.Call;
      return false;
    }
    Quantity Passed = Hi;
    Passed.Base = N->first;
    Passed.Field = N->second;
    if (relatesInFunction(CS.Caller, Passed, Rows, CS.Call))
      continue;
    // The caller passes its own parameter as it came: ask its callers,
    // once more. One it writes (`idx = cat({idx, next})`) is its own.
    if (const auto *PP = dyn_cast_or_null<ParmVarDecl>(N->first);
        PP && !N->second && Level < 2 && keepsIncoming(CS.Caller, PP)) {
      const CallExpr *Deeper = nullptr;
      if (callersBound(CS.Caller, PP, Passed, Rows, Deeper, Level + 1))
        continue;
    }
    Unbounded = CS.Call;
    return false;
  }
  return true;
}

} // namespace torchtidy
