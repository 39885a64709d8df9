//===--- IndexRanges.cpp - Can an index leave its table? ------------------===//

#include "IndexRangesImpl.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace torchtidy {

//===----------------------------------------------------------------------===//
// Quantities and ranges
//===----------------------------------------------------------------------===//

bool Quantity::sameBase(const Quantity &O) const {
  if (K != O.K)
    return false;
  switch (K) {
  case Unknown:
    return false;
  case Constant:
    return true;
  case Named:
    return Base == O.Base && Field == O.Field;
  case Runtime:
    return Base == O.Base && Field == O.Field && Dim == O.Dim &&
           Container == O.Container;
  }
  return false;
}

/// Lo of a join: the smaller, when the two can be compared.
static Quantity lower(const Quantity &A, const Quantity &B) {
  if (A.sameBase(B))
    return A.Offset <= B.Offset ? A : B;
  return {};
}

/// Hi of a join: the larger, when the two can be compared.
static Quantity upper(const Quantity &A, const Quantity &B) {
  if (A.sameBase(B))
    return A.Offset >= B.Offset ? A : B;
  return {};
}

void IndexRange::join(const IndexRange &O) {
  Produced |= O.Produced;
  Opaque |= O.Opaque;
  if (O.HasInterval) {
    if (!HasInterval) {
      HasInterval = true;
      Lo = O.Lo;
      Hi = O.Hi;
      Interval = O.Interval;
      LoopCondition = O.LoopCondition;
      OpBound = O.OpBound;
    } else {
      Lo = lower(Lo, O.Lo);
      Hi = upper(Hi, O.Hi);
      OpBound &= O.OpBound;
    }
  }
  for (const auto &V : O.Values)
    Values.push_back(V);
  Sentinel |= O.Sentinel;
  if (!External && O.External) {
    External = O.External;
    How = O.How;
    ExternalSummary = O.ExternalSummary;
  }
  for (const clang::ParmVarDecl *P : O.Params)
    if (!llvm::is_contained(Params, P))
      Params.push_back(P);
}

// The analysis' helpers (IndexRangesImpl.h).
namespace ranges {

const Expr *unwrap(const Expr *E) { return peel::peel(E, UnwrappedSteps); }

bool evaluateInt(const Expr *E, const ASTContext &Ctx, int64_t &Out) {
  E = unwrap(E);
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return false;
  if (!E->getType()->isIntegralOrEnumerationType() &&
      !E->getType()->isRealFloatingType())
    return false;
  Expr::EvalResult R;
  if (E->getType()->isIntegralOrEnumerationType()) {
    if (!E->EvaluateAsInt(R, Ctx))
      return false;
    Out = R.Val.getInt().getExtValue();
    return true;
  }
  return false;
}

/// The arguments of \p Call as the free function numbers them (self = 0).
const Expr *argAt(const CallExpr *Call, unsigned FreeIndex) {
  unsigned Index = FreeIndex;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
    if (FreeIndex == 0)
      return MC->getImplicitObjectArgument();
    Index -= 1;
  } else if (isa<CXXOperatorCallExpr>(Call) &&
             isa_and_nonnull<CXXMethodDecl>(Call->getDirectCallee())) {
    // An operator method's object is argument 0 already.
  }
  if (Index >= Call->getNumArgs() ||
      isa<CXXDefaultArgExpr>(Call->getArg(Index)))
    return nullptr;
  return Call->getArg(Index);
}

/// The elements of `{a, b}` passed as a braced list, else empty.
llvm::SmallVector<const Expr *, 4> listElements(const Expr *E) {
  llvm::SmallVector<const Expr *, 4> Out;
  if (const InitListExpr *IL = peel::writtenList(E))
    Out.append(IL->inits().begin(), IL->inits().end());
  return Out;
}

bool isStdContainer(QualType T) {
  return !getContainerElementType(T.getNonReferenceType()).isNull();
}

/// `(Base, Field)` of a named value written as \p E: `n`, `this->n_`,
/// `cfg.n`, `this->cfg_.n`.
std::optional<std::pair<const ValueDecl *, const FieldDecl *>>
namedValue(const Expr *E) {
  E = unwrap(E);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    if (isa<VarDecl>(DRE->getDecl()) || isa<BindingDecl>(DRE->getDecl()))
      return std::make_pair(DRE->getDecl(), nullptr);
  const auto *ME = dyn_cast<MemberExpr>(E);
  if (!ME)
    return std::nullopt;
  const auto *Field = dyn_cast<FieldDecl>(ME->getMemberDecl());
  if (!Field)
    return std::nullopt;
  const Expr *Base = unwrap(ME->getBase());
  if (isa<CXXThisExpr>(Base))
    return std::make_pair(nullptr, Field);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Base))
    if (isa<VarDecl>(DRE->getDecl()))
      return std::make_pair(DRE->getDecl(), Field);
  if (const auto *Inner = dyn_cast<MemberExpr>(Base))
    if (isa<CXXThisExpr>(unwrap(Inner->getBase())))
      if (const auto *Outer = dyn_cast<FieldDecl>(Inner->getMemberDecl()))
        return std::make_pair(Outer, Field);
  return std::nullopt;
}

const FunctionDecl *definitionOf(const FunctionDecl *FD) {
  const FunctionDecl *Def = nullptr;
  if (!FD || !FD->hasBody(Def) || !Def || Def->isDependentContext() ||
      !isUserDecl(Def))
    return nullptr;
  return Def;
}

/// A call that copies a sub-range of a tensor: slice, narrow, chunk...,
/// and `x.index({Slice(...), ...})`.
bool isCropCall(const Expr *E) {
  const auto *Call = dyn_cast_or_null<CallExpr>(unwrap(E));
  if (!Call)
    return false;
  const op::FactSet Facts = callFacts(Call);
  if (Facts & op::Slices)
    return true;
  // Tensor::index with a Slice among its indices.
  if (formOf(Call->getDirectCallee()) == op::Method &&
      hasOpName(Call->getDirectCallee(), op::Named::index))
    for (const Expr *Part : listElements(argAt(Call, 1))) {
      bool IsSlice = false;
      forEachOwnStmt(Part, [&](const Stmt *S) {
        if (const auto *E = dyn_cast<Expr>(S))
          if (const auto *RD =
                  E->getType().getNonReferenceType()->getAsCXXRecordDecl())
            if (isClass(RD, KnownClass::Slice))
              IsSlice = true;
      });
      if (IsSlice)
        return true;
    }
  return false;
}

} // namespace ranges

using namespace ranges;

static std::string withOffset(std::string Text, int64_t Offset) {
  if (Offset > 0)
    Text += " + " + std::to_string(Offset);
  else if (Offset < 0)
    Text += " - " + std::to_string(-Offset);
  return Text;
}

static std::string nameOf(const ValueDecl *D) {
  const auto *ND = dyn_cast_or_null<NamedDecl>(D);
  return ND ? ND->getNameAsString() : std::string("?");
}

std::string describeQuantity(const Quantity &Q, const ASTContext &Ctx,
                             int64_t Delta) {
  switch (Q.K) {
  case Quantity::Unknown:
    return "?";
  case Quantity::Constant:
    return std::to_string(Q.Offset + Delta);
  case Quantity::Named: {
    const std::string Name = Q.Field && Q.Base
                                 ? nameOf(Q.Base) + "." + nameOf(Q.Field)
                             : Q.Field ? nameOf(Q.Field)
                                       : nameOf(Q.Base);
    return withOffset(Name, Q.Offset + Delta);
  }
  case Quantity::Runtime:
    break;
  }
  if (Q.Origin) {
    const CharSourceRange Range = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(Q.Origin->getSourceRange()),
        Ctx.getSourceManager(), Ctx.getLangOpts());
    if (Range.isValid()) {
      const std::string Text =
          Lexer::getSourceText(Range, Ctx.getSourceManager(), Ctx.getLangOpts())
              .trim()
              .str();
      if (!Text.empty())
        return withOffset(Text, Delta);
    }
  }
  std::string Name = Q.Field && Q.Base ? nameOf(Q.Base) + "." + nameOf(Q.Field)
                     : Q.Field         ? nameOf(Q.Field)
                                       : nameOf(Q.Base);
  Name += Q.Container ? ".size()" : ".size(" + std::to_string(Q.Dim) + ")";
  return withOffset(Name, Q.Offset + Delta);
}

//===----------------------------------------------------------------------===//
// The analysis (IndexRangesImpl.h)
//===----------------------------------------------------------------------===//

IndexRangeAnalysis::IndexRangeAnalysis(ASTContext &Ctx,
                                       IndexGuardAnalysis &Guards,
                                       bool NoCallerIsUnbounded,
                                       bool FollowSummaries)
    : P(std::make_unique<Impl>(Ctx, Guards, NoCallerIsUnbounded,
                               FollowSummaries)) {}

IndexRangeAnalysis::~IndexRangeAnalysis() = default;

IndexEvidence IndexRangeAnalysis::evidence(const FunctionDecl *FD,
                                           const CallExpr *Call,
                                           const IndexOpSite &Site) {
  return P->evidence(FD, Call, Site);
}

IndexRange IndexRangeAnalysis::rangeOf(const FunctionDecl *FD, const Expr *E,
                                       const Stmt *Use) {
  return P->rangeOf(FD, E, Use);
}

Quantity IndexRangeAnalysis::quantityOf(const FunctionDecl *FD, const Expr *E) {
  return P->quantityOf(FD, E);
}

TableSize IndexRangeAnalysis::tableOf(const FunctionDecl *FD,
                                      const IndexOpSite &Site) {
  return P->tableOf(FD, Site);
}

std::optional<OutsideValues>
IndexRangeAnalysis::returnedOutsideValues(const FunctionDecl *FD) {
  return P->returnedOutside(FD);
}

} // namespace torchtidy
