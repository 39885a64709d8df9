//===--- IndexParams.cpp - Parameters that reach an index -----------------===//
//
// The parameters of a function whose values reach an index op with no
// bounds check on the way, and the values of containers of ids: what a
// caller in another file passes is then the evidence (ProjectSummaries.h's
// indexedParams fact).
// Part of IndexRangeAnalysis (IndexRangesImpl.h).
//
//===----------------------------------------------------------------------===//

#include "IndexRangesImpl.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

using namespace clang;

namespace torchtidy {

using namespace ranges;

namespace {

/// The std container \p E reads an element of (containerOfElement: `v[i]`,
/// `v.at(i)`, `v.front()`); else null.
const Expr *elementOf(const Expr *E) {
  const auto *Call = dyn_cast_or_null<CallExpr>(unwrap(E));
  const Expr *Container = Call ? containerOfElement(Call) : nullptr;
  if (!Container || !isStdContainer(Container->getType().getNonReferenceType()))
    return nullptr;
  return Container;
}

} // namespace

bool IndexRangeAnalysis::Impl::elementsTested(const FunctionDecl *FD,
                                              const ValueDecl *V) {
  // The container and what stands for its elements: range-for variables
  // over it (or over one of its elements, for a container of containers).
  llvm::SmallPtrSet<const ValueDecl *, 4> Holders{V};
  for (unsigned Round = 0; Round < 2; ++Round)
    forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      if (const auto *For = dyn_cast<CXXForRangeStmt>(S))
        if (auto N = namedValue(For->getRangeInit());
            N && !N->second && Holders.count(N->first))
          Holders.insert(For->getLoopVariable());
    });
  auto IsElement = [&](const Expr *E) {
    for (unsigned Steps = 0; E && Steps < 3; ++Steps) {
      if (auto N = namedValue(E); N && !N->second && Holders.count(N->first))
        return Steps > 0 || N->first != V;
      E = elementOf(E);
    }
    return false;
  };
  bool Tested = false;
  forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
    if (Tested)
      return;
    if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
      if (BO->isRelationalOp() &&
          (IsElement(BO->getLHS()) || IsElement(BO->getRHS())))
        Tested = true;
      return;
    }
    // std::max_element(v.begin(), v.end()), std::all_of(...): a search of
    // its values.
    const auto *Call = dyn_cast<CallExpr>(S);
    if (!Call || !(callFacts(Call) & op::ComparesValues))
      return;
    for (const Expr *A : Call->arguments())
      forEachOwnStmt(A, [&](const Stmt *Sub) {
        if (const auto *DRE = dyn_cast<DeclRefExpr>(Sub);
            DRE && Holders.count(DRE->getDecl()))
          Tested = true;
      });
  });
  return Tested;
}

IndexRange IndexRangeAnalysis::Impl::containerRange(const FunctionDecl *FD,
                                                    const Expr *E) {
  if (!E || Depth > limits::OriginDepth)
    return IndexRange::opaque();
  const DepthGuard G(Depth);
  E = unwrap(E);
  // An element of a container of containers holds some of its values.
  while (const Expr *Whole = elementOf(E))
    E = unwrap(Whole);
  if (const auto *CO = dyn_cast<ConditionalOperator>(E)) {
    IndexRange R = containerRange(FD, CO->getTrueExpr());
    R.join(containerRange(FD, CO->getFalseExpr()));
    return R;
  }
  // `{prompt}`, `{a, b}`: a container made of these.
  if (const llvm::SmallVector<const Expr *, 4> Parts = listElements(E);
      !Parts.empty()) {
    IndexRange R;
    for (const Expr *Part : Parts)
      R.join(isIntegerContainer(Part->getType()) ? containerRange(FD, Part)
                                                 : IndexRange::opaque());
    return R;
  }
  if (auto N = namedValue(E); N && !N->second && N->first) {
    if (const auto *PVD = dyn_cast<ParmVarDecl>(N->first)) {
      IndexRange R = IndexRange::opaque();
      if (PVD->getDeclContext() == FD && isIntegerContainer(PVD->getType()) &&
          !elementsTested(FD, PVD))
        R.Params.push_back(PVD);
      return R;
    }
    if (std::optional<OutsideValues> P = parsedInto(FD, N->first))
      return outsideRange(std::move(*P));
    return IndexRange::opaque();
  }
  if (const auto *Call = dyn_cast<CallExpr>(E))
    if (std::optional<OutsideValues> P = calledOutside(FD, Call))
      return outsideRange(std::move(*P));
  return IndexRange::opaque();
}

IndexRange IndexRangeAnalysis::Impl::valuesOf(const FunctionDecl *FD,
                                              const Expr *E, const Stmt *Use) {
  if (!E)
    return IndexRange::opaque();
  const QualType T = E->getType().getNonReferenceType();
  if (isTensorType(T))
    return rangeOf(FD, E, Use);
  if (isIntegerContainer(T))
    return containerRange(FD, E);
  return IndexRange::opaque();
}

llvm::ArrayRef<IndexedParam>
IndexRangeAnalysis::Impl::indexedParams(const FunctionDecl *FD) {
  FD = definitionOf(FD);
  if (!FD || !FD->hasBody())
    return {};
  if (auto It = Indexed.find(FD); It != Indexed.end())
    return It->second;
  // A call back into a function being listed (recursion): nothing more.
  if (IndexedInProgress.size() >= limits::HelperDepth ||
      !IndexedInProgress.insert(FD).second)
    return {};
  std::vector<IndexedParam> Out;
  auto Add = [&](const ParmVarDecl *P, IndexedParam Found) {
    if (P->getDeclContext() != FD)
      return;
    Found.Param = P->getFunctionScopeIndex();
    for (const IndexedParam &Have : Out)
      if (Have.Param == Found.Param && Have.Sink == Found.Sink)
        return;
    Out.push_back(std::move(Found));
  };
  IndexGuardFinder &F = Guards.finder(FD);
  if (F.valid()) {
    // The index ops of this function.
    forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      const auto *Call = dyn_cast<CallExpr>(S);
      // Loss targets are the check's by an option: not a summary's fact.
      std::optional<IndexOpSite> Site = matchIndexSink(Call);
      if (!Site || Site->K == IndexOpSite::LossTarget)
        return;
      // Any check of the index relates it to something: not ours to judge.
      if (std::optional<IndexVar> V = indexVariable(Site->Index))
        if (F.findGuard(*V, Call) || !F.rangeTestsOf(*V).empty())
          return;
      const IndexRange R = rangeOf(FD, Site->Index, Call);
      for (const ParmVarDecl *P : R.Params)
        Add(P, IndexedParam{0, Call, *Site, {}});
    });
    // What the functions of this unit it calls do with what it passes.
    forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      const auto *Call = dyn_cast<CallExpr>(S);
      if (!Call || Call->isInstantiationDependent())
        return;
      const FunctionDecl *Callee = definitionOf(Call->getDirectCallee());
      if (!Callee || Callee == FD)
        return;
      const unsigned First =
          isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee) ? 1 : 0;
      // A copy: listing the callee's may grow the memo.
      const std::vector<IndexedParam> Theirs = indexedParams(Callee).vec();
      for (const IndexedParam &Deeper : Theirs) {
        if (Deeper.Via.size() + 1 > limits::HelperDepth - 1)
          continue;
        const unsigned I = Deeper.Param + First;
        if (I >= Call->getNumArgs())
          continue;
        if (std::optional<IndexVar> V = indexVariable(Call->getArg(I));
            V && !F.rangeTestsOf(*V).empty())
          continue;
        const IndexRange Passed = valuesOf(FD, Call->getArg(I), Call);
        for (const ParmVarDecl *P : Passed.Params) {
          IndexedParam Found = Deeper;
          Found.Via.insert(Found.Via.begin(), Call);
          Add(P, std::move(Found));
        }
      }
    });
  }
  IndexedInProgress.erase(FD);
  return Indexed[FD] = std::move(Out);
}

llvm::ArrayRef<IndexedParam>
IndexRangeAnalysis::indexedParams(const FunctionDecl *FD) {
  return P->indexedParams(FD);
}

std::optional<OutsideValues>
IndexRangeAnalysis::outsideArgument(const FunctionDecl *FD,
                                    const CallExpr *Call, const Expr *Arg) {
  const IndexRange R = P->valuesOf(FD, Arg, Call);
  if (!R.External)
    return std::nullopt;
  return OutsideValues{R.External, R.How, R.ExternalSummary};
}

} // namespace torchtidy
