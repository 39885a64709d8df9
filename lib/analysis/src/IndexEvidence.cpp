//===--- IndexEvidence.cpp - Evidence of leaving a table ------------------===//
//
// The evidence that an index can leave its table, and the data that comes
// from outside the program (datasets, parameters).
// Part of IndexRangeAnalysis (IndexRangesImpl.h).
//
//===----------------------------------------------------------------------===//

#include "IndexRangesImpl.h"
#include "torchtidy/analysis/CudaWork.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/Lex/Lexer.h"

using namespace clang;

namespace torchtidy {

using namespace ranges;

int64_t IndexRangeAnalysis::Impl::ignoreIndexOf(const CallExpr *Call) const {
  int64_t Value = -100;
  forEachOwnStmt(Call, [&](const Stmt *S) {
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S))
      if (const CXXMethodDecl *MD = MC->getMethodDecl())
        if (hasOpName(MD, op::Named::ignore_index) && MC->getNumArgs() == 1) {
          int64_t V = 0;
          if (evaluateInt(MC->getArg(0), Ctx, V))
            Value = V;
        }
  });
  return Value;
}

bool IndexRangeAnalysis::Impl::outside(const Quantity &V,
                                       const Quantity &Rows) {
  if (V.K == Quantity::Constant && V.Offset < 0)
    return true;
  if (V.K == Quantity::Constant && Rows.K == Quantity::Constant)
    return V.Offset >= Rows.Offset;
  return V.sameBase(Rows) && V.Offset >= Rows.Offset;
}

const CallExpr *IndexRangeAnalysis::Impl::boundingWrite(const Stmt *Guard) {
  const Expr *Value = nullptr;
  if (const auto *BO = dyn_cast<BinaryOperator>(Guard);
      BO && BO->getOpcode() == BO_Assign)
    Value = BO->getRHS();
  else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Guard);
           Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2)
    Value = Op->getArg(1);
  else if (const auto *E = dyn_cast<Expr>(Guard))
    Value = E;
  const auto *Call = dyn_cast_or_null<CallExpr>(unwrap(Value));
  if (Call && (callFacts(Call) & (op::BoundsClamp | op::BoundsModulo)))
    return Call;
  return nullptr;
}

const Stmt *IndexRangeAnalysis::Impl::offByOne(const Stmt *Guard,
                                               const TableSize &T,
                                               const FunctionDecl *FD) {
  if (!T.Rows.known() || !Guard)
    return nullptr;
  const Stmt *Found = nullptr;
  forEachOwnStmt(Guard, [&](const Stmt *S) {
    const Expr *L = nullptr, *R = nullptr;
    BinaryOperatorKind K = BO_LT;
    if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
      if (!BO->isComparisonOp())
        return;
      L = BO->getLHS();
      R = BO->getRHS();
      K = BO->getOpcode();
    } else {
      return;
    }
    auto IsMax = [&](const Expr *E) {
      bool Max = false;
      forEachOwnStmt(E, [&](const Stmt *Sub) {
        if (const auto *C = dyn_cast<CallExpr>(Sub))
          if (const FunctionDecl *Callee = C->getDirectCallee())
            if (hasOpName(Callee, {op::Named::max, op::Named::amax}))
              Max = true;
      });
      return Max;
    };
    auto IsRows = [&](const Expr *E) {
      const Quantity Q = quantityOf(FD, E);
      return Q.known() && Q.sameBase(T.Rows) && Q.Offset == T.Rows.Offset;
    };
    // max <= rows (should be <), rows >= max, max > rows (should be >=).
    if ((K == BO_LE && IsMax(L) && IsRows(R)) ||
        (K == BO_GE && IsRows(L) && IsMax(R)) ||
        (K == BO_GT && IsMax(L) && IsRows(R)) ||
        (K == BO_LT && IsRows(L) && IsMax(R)))
      Found = S;
  });
  return Found;
}

IndexEvidence IndexRangeAnalysis::Impl::fromRange(
    const IndexRange &R, const TableSize &T, const IndexOpSite &Site,
    const CallExpr *Call, const FunctionDecl *FD, const Stmt *Use) {
  IndexEvidence E;
  E.Range = R;
  E.Table = T;
  const bool Loss = Site.K == IndexOpSite::LossTarget;
  const int64_t Ignore = Loss ? ignoreIndexOf(Call) : 0;
  for (const auto &[V, At] : R.Values) {
    if (!V.known())
      continue;
    if (Loss && V.K == Quantity::Constant && V.Offset == Ignore)
      continue;
    if (outside(V, T.Rows)) {
      E.K = IndexEvidence::ConstantOutOfRange;
      E.Value = V;
      E.ValueAt = At;
      return E;
    }
  }
  if (R.HasInterval) {
    if (R.Lo.K == Quantity::Constant && R.Lo.Offset < 0) {
      E.K = IndexEvidence::NegativeStart;
      return E;
    }
    const Quantity &Hi = R.Hi;
    const Quantity &Rows = T.Rows;
    if (Hi.known() && Rows.known()) {
      if ((Hi.K == Quantity::Constant && Rows.K == Quantity::Constant &&
           Hi.Offset > Rows.Offset) ||
          (Hi.K != Quantity::Constant && Hi.sameBase(Rows) &&
           Hi.Offset > Rows.Offset)) {
        E.K = IndexEvidence::PastTheEnd;
        return E;
      }
      // Only a cap by the rows bounds the length (std::min(T, rows)).
      if (Hi.K == Quantity::Runtime && !R.OpBound && !atMostRows(Hi, Rows) &&
          (Rows.K == Quantity::Constant || Rows.K == Quantity::Named) &&
          !relatesInFunction(FD, Hi, Rows, Use)) {
        const CallExpr *Unbounded = nullptr;
        const auto *Param = dyn_cast_or_null<ParmVarDecl>(Hi.Base);
        if (!Param || Hi.Field || Param->getDeclContext() != FD ||
            !callersBound(FD, Param, Hi, Rows, Unbounded, 0)) {
          E.K = IndexEvidence::UnboundedLength;
          E.UnboundedCaller = Unbounded;
          return E;
        }
      }
    }
  }
  if (R.External) {
    E.K = IndexEvidence::External;
    return E;
  }
  E.InRange = provedInRange(R, T.Size);
  E.Unproven = R.OpBound && !E.InRange && T.Size.known();
  return E;
}

bool IndexRangeAnalysis::Impl::provedInRange(const IndexRange &R,
                                             const Quantity &Rows) {
  if (R.Opaque || R.External)
    return false;
  if (!R.Produced && !R.HasInterval && R.Values.empty())
    return false;
  auto Within = [&](const Quantity &Q, int64_t Slack) {
    // Q + Slack <= Rows
    if (Q.K == Quantity::Constant && Rows.K == Quantity::Constant)
      return Q.Offset + Slack <= Rows.Offset;
    return Q.sameBase(Rows) && Q.Offset + Slack <= Rows.Offset;
  };
  if (R.HasInterval &&
      !(R.Lo.K == Quantity::Constant && R.Lo.Offset >= 0 && Within(R.Hi, 0)))
    return false;
  for (const auto &V : R.Values)
    if (!(V.first.K == Quantity::Constant && V.first.Offset >= 0 &&
          Within(V.first, 1)))
      return false;
  return true;
}

IndexEvidence IndexRangeAnalysis::Impl::evidence(const FunctionDecl *FD,
                                                 const CallExpr *Call,
                                                 const IndexOpSite &Site,
                                                 unsigned Level) {
  IndexEvidence None;
  if (!Site.Index)
    return None;
  IndexGuardFinder &F = Guards.finder(FD);
  if (!F.valid())
    return None;
  const TableSize T = tableOf(FD, Site);
  std::optional<IndexVar> V = indexVariable(Site.Index);
  if (V) {
    if (const Stmt *Guard = F.findGuard(*V, Call)) {
      if (const Stmt *Off = offByOne(Guard, T, FD)) {
        IndexEvidence E;
        E.K = IndexEvidence::OffByOneGuard;
        E.Guard = Off;
        E.Table = T;
        return E;
      }
      // `ids = ids.clamp(0, rows)`, `ids.clamp_(0, rows)`: the bound it
      // writes, against the table.
      if (const CallExpr *Bounding = boundingWrite(Guard))
        return fromRange(rangeOf(FD, Bounding, nullptr), T, Site, Call, FD,
                         Call);
      return None;
    }
  }
  const IndexRange R = rangeOf(FD, Site.Index, Call);
  IndexEvidence Here = fromRange(R, T, Site, Call, FD, Call);
  if (Here)
    return Here;
  if (Here.InRange)
    return Here;
  // A bounds check of this index that does not protect this use.
  if (V) {
    std::vector<const Stmt *> Tests = F.rangeTestsOf(*V);
    if (!Tests.empty()) {
      IndexEvidence E;
      E.K = IndexEvidence::IneffectiveGuard;
      E.Table = T;
      // The check the user meant most likely: one before the use on every
      // path (the index changed since), else one before it on some.
      const SourceManager &SM = Ctx.getSourceManager();
      auto Rank = [&](const Stmt *Test) {
        if (F.dominates(Test, Call))
          return IndexEvidence::WrittenAfter;
        if (F.dominates(Call, Test) ||
            SM.isBeforeInTranslationUnit(
                SM.getExpansionLoc(Call->getEndLoc()),
                SM.getExpansionLoc(Test->getBeginLoc())))
          return IndexEvidence::AfterTheUse;
        return IndexEvidence::SomePaths;
      };
      E.Guard = Tests.front();
      E.Problem = Rank(Tests.front());
      for (const Stmt *Test : Tests) {
        auto P = Rank(Test);
        if (P == IndexEvidence::WrittenAfter ||
            (P == IndexEvidence::SomePaths &&
             E.Problem == IndexEvidence::AfterTheUse)) {
          E.Guard = Test;
          E.Problem = P;
        }
      }
      return E;
    }
  }
  // A check of another tensor against this table's rows, and none of
  // this one: the check meant for this index tests the wrong one.
  if (V && T.Rows.known())
    if (IndexEvidence E = otherTensorChecked(F, FD, *V, T))
      return E;
  // A parameter, or ids made of scalar parameters (`torch::tensor({i})`):
  // what the callers in this TU pass, into the table as each caller sees
  // it.
  const ParmVarDecl *IndexParam =
      V && !V->Field ? dyn_cast_or_null<ParmVarDecl>(V->Base) : nullptr;
  if (IndexParam && IndexParam->getDeclContext() != FD)
    IndexParam = nullptr;
  if ((IndexParam || mentionsParameterOf(R, FD)) && Level < 2)
    for (const CallSite &CS : callersOf(FD)) {
      IndexRange Passed;
      if (IndexParam) {
        const unsigned I = IndexParam->getFunctionScopeIndex() + CS.FirstArg;
        if (I >= CS.Call->getNumArgs())
          continue;
        Passed = rangeOf(CS.Caller, CS.Call->getArg(I), CS.Call);
      } else {
        Passed = substitute(R, FD, CS.Caller, CS.Call);
      }
      const TableSize CT = tableInCaller(FD, Site, T, CS);
      if (IndexEvidence E =
              fromRange(Passed, CT, Site, Call, CS.Caller, CS.Call)) {
        if (E.K == IndexEvidence::UnboundedLength)
          continue;
        E.Caller = CS.Call;
        return E;
      }
    }
  // No evidence: what is known of the range (in range, or only bounded by
  // an op, for ReportParameters).
  return Here;
}

const CXXForRangeStmt *IndexRangeAnalysis::Impl::loopOf(const FunctionDecl *FD,
                                                        const VarDecl *VD) {
  const CXXForRangeStmt *Found = nullptr;
  forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
    if (const auto *For = dyn_cast<CXXForRangeStmt>(S);
        For && For->getLoopVariable() == VD)
      Found = For;
  });
  return Found;
}

const CXXRecordDecl *IndexRangeAnalysis::Impl::userDataset(QualType T,
                                                           unsigned Depth) {
  const CXXRecordDecl *RD = namedRecord(T);
  if (!RD || Depth > limits::OriginDepth)
    return nullptr;
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD);
      Spec && isClass(Spec, KnownClass::MapDataset)) {
    const TemplateArgumentList &Args = Spec->getTemplateArgs();
    if (Args.size() != 2 || Args[0].getKind() != TemplateArgument::Type ||
        Args[1].getKind() != TemplateArgument::Type ||
        !isClass(namedRecord(Args[1].getAsType()), KnownClass::Stack))
      return nullptr;
    return userDataset(Args[0].getAsType(), Depth + 1);
  }
  return isUserDecl(RD) ? RD : nullptr;
}

const CXXRecordDecl *
IndexRangeAnalysis::Impl::datasetOfLoop(const FunctionDecl *FD,
                                        const VarDecl *VD, unsigned Depth) {
  const CXXForRangeStmt *For =
      VD->isCXXForRangeDecl() ? loopOf(FD, VD) : nullptr;
  if (!For || Depth > limits::OriginDepth)
    return nullptr;
  const Expr *Range = unwrap(For->getRangeInit());
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Range);
      Op && Op->getOperator() == OO_Star && Op->getNumArgs() == 1)
    Range = unwrap(Op->getArg(0));
  const auto *DRE = dyn_cast<DeclRefExpr>(Range);
  const auto *Loader = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!Loader)
    return nullptr;
  if (Loader->isCXXForRangeDecl())
    return datasetOfLoop(FD, Loader, Depth + 1);
  const auto *Make = dyn_cast_or_null<CallExpr>(
      Loader->getInit() ? unwrap(Loader->getInit()) : nullptr);
  if (!Make || !Loader->hasLocalStorage())
    return nullptr;
  for (const Expr *Arg : Make->arguments())
    if (const CXXRecordDecl *D =
            userDataset(unwrap(Arg)->getType().getNonReferenceType()))
      return D;
  return nullptr;
}

std::optional<IndexRange>
IndexRangeAnalysis::Impl::batchFieldRange(const FunctionDecl *FD,
                                          const IndexVar &V) {
  const auto *VD = dyn_cast<VarDecl>(V.Base);
  if (!VD || !isDataExample(VD->getType()) ||
      !isDataExample(V.Field->getParent()))
    return std::nullopt;
  const CXXRecordDecl *Dataset = datasetOfLoop(FD, VD);
  if (!Dataset || !Dataset->hasDefinition())
    return std::nullopt;
  const unsigned Index = V.Field->getFieldIndex();
  for (const CXXMethodDecl *MD : Dataset->getDefinition()->methods()) {
    const FunctionDecl *Get = nullptr;
    if (!getDataHook(MD) || !isDataExample(MD->getReturnType()) ||
        !MD->hasBody(Get))
      continue;
    IndexRange R;
    bool All = true, Any = false;
    forEachOwnStmt(Get->getBody(), [&](const Stmt *S) {
      const auto *Ret = dyn_cast<ReturnStmt>(S);
      if (!Ret)
        return;
      const Expr *Value = unwrap(Ret->getRetValue());
      llvm::SmallVector<const Expr *, 2> Parts;
      if (const auto *Ctor = dyn_cast_or_null<CXXConstructExpr>(Value))
        Parts.append(Ctor->arg_begin(), Ctor->arg_end());
      else if (const auto *List = dyn_cast_or_null<InitListExpr>(Value))
        Parts.append(List->inits().begin(), List->inits().end());
      if (Index >= Parts.size()) {
        All = false;
        return;
      }
      R.join(rangeOf(Get, Parts[Index], nullptr));
      Any = true;
    });
    if (!All || !Any)
      return std::nullopt;
    if (R.External) {
      R.External = nullptr;
      R.How.clear();
      R.Opaque = true;
    }
    return R;
  }
  return std::nullopt;
}

bool IndexRangeAnalysis::Impl::fromOutside(const IndexVar &V,
                                           const FunctionDecl *FD) {
  if (!V.Base)
    return V.Field != nullptr;
  const auto *PVD = dyn_cast<ParmVarDecl>(V.Base);
  return PVD && PVD->getDeclContext() == FD;
}

bool IndexRangeAnalysis::Impl::comparesWithRows(const Stmt *Test,
                                                const TableSize &T,
                                                const FunctionDecl *FD) {
  auto IsRows = [&](const Expr *E) {
    const Quantity Q = quantityOf(FD, E);
    return Q.known() && Q.sameBase(T.Rows) && Q.Offset == T.Rows.Offset;
  };
  bool Found = false;
  forEachOwnStmt(Test, [&](const Stmt *S) {
    if (Found)
      return;
    if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
      Found = BO->isComparisonOp() &&
              (IsRows(BO->getLHS()) || IsRows(BO->getRHS()));
    } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S)) {
      Found = Op->isComparisonOp() && Op->getNumArgs() == 2 &&
              (IsRows(Op->getArg(0)) || IsRows(Op->getArg(1)));
    } else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S)) {
      Found = (callFacts(MC) & op::RangeTest) &&
              llvm::any_of(MC->arguments(), IsRows);
    }
  });
  return Found;
}

IndexEvidence IndexRangeAnalysis::Impl::otherTensorChecked(
    IndexGuardFinder &F, const FunctionDecl *FD, const IndexVar &V,
    const TableSize &T) {
  IndexEvidence E;
  if (!fromOutside(V, FD) || !F.rangeTestsOf(V).empty())
    return E;
  for (const IndexVar &W : F.testedVariables()) {
    if (W == V || !fromOutside(W, FD))
      continue;
    for (const Stmt *Test : F.rangeTestsOf(W))
      if (comparesWithRows(Test, T, FD)) {
        E.K = IndexEvidence::IneffectiveGuard;
        E.Problem = IndexEvidence::OtherTensor;
        E.Guard = Test;
        E.Table = T;
        E.TestedInstead =
            W.Field ? static_cast<const NamedDecl *>(W.Field) : W.Base;
        return E;
      }
  }
  return E;
}

bool IndexRangeAnalysis::Impl::mentionsParameterOf(const IndexRange &R,
                                                   const FunctionDecl *FD) {
  auto Mentions = [&](const Quantity &Q) {
    const auto *PVD = dyn_cast_or_null<ParmVarDecl>(Q.Base);
    return Q.K == Quantity::Named && PVD && !Q.Field &&
           PVD->getDeclContext() == FD;
  };
  if (R.HasInterval && (Mentions(R.Lo) || Mentions(R.Hi)))
    return true;
  return llvm::any_of(R.Values,
                      [&](const auto &V) { return Mentions(V.first); });
}

TableSize IndexRangeAnalysis::Impl::tableInCaller(const FunctionDecl *FD,
                                                  const IndexOpSite &Site,
                                                  const TableSize &T,
                                                  const CallSite &CS) {
  auto Passed = [&](const Expr *E) -> const Expr * {
    std::optional<IndexVar> Var = E ? directVariable(E) : std::nullopt;
    const auto *PVD =
        Var && !Var->Field ? dyn_cast_or_null<ParmVarDecl>(Var->Base) : nullptr;
    if (!PVD || PVD->getDeclContext() != FD)
      return nullptr;
    const unsigned I = PVD->getFunctionScopeIndex() + CS.FirstArg;
    return I < CS.Call->getNumArgs() ? CS.Call->getArg(I) : nullptr;
  };
  IndexOpSite There = Site;
  if (const Expr *A = Passed(Site.Module)) {
    There.Module = A;
    return tableOf(CS.Caller, There);
  }
  if (const Expr *A = Passed(Site.Source)) {
    There.Source = A;
    return tableOf(CS.Caller, There);
  }
  TableSize CT = T;
  CT.Rows = CT.Size = substitute(T.Rows, FD, CS.Caller, CS.Call);
  // A member's rows mean nothing in another class's code.
  if (CT.Rows.K == Quantity::Named && !CT.Rows.Base &&
      !sameClass(FD, CS.Caller))
    CT.Rows = {};
  return CT;
}

bool IndexRangeAnalysis::Impl::sameClass(const FunctionDecl *A,
                                         const FunctionDecl *B) {
  const auto *MA = dyn_cast<CXXMethodDecl>(A);
  const auto *MB = dyn_cast<CXXMethodDecl>(B);
  return MA && MB && MA->getParent() == MB->getParent();
}

} // namespace torchtidy
