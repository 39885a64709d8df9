//===--- Peel.cpp - Looking through what only wraps a value ---------------===//

#include "torchtidy/analysis/Peel.h"

#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/IgnoreExpr.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;

namespace torchtidy::peel {

namespace {

/// The argument a construction is made from, when \p Set looks through it.
const Expr *constructedFrom(const CXXConstructExpr *CE, unsigned Set) {
  const CXXConstructorDecl *CD = CE->getConstructor();
  const unsigned N = CE->getNumArgs();
  if (!CD || N == 0)
    return nullptr;
  const bool Written = isa<CXXTemporaryObjectExpr>(CE);
  if ((Set & CopiesAndMoves) && !Written && CD->isCopyOrMoveConstructor())
    return CE->getArg(0);
  if ((Set & ConvertingConstructions) && N == 1 &&
      CD->isConvertingConstructor(/*AllowExplicit=*/false))
    return CE->getArg(0);
  if ((Set & UnwrittenConstructions) && !Written &&
      CE->getParenOrBraceRange().isInvalid())
    return CE->getArg(0);
  const bool OneArgument = N == 1 || isa<CXXDefaultArgExpr>(CE->getArg(1));
  if ((Set & OneArgumentConstructions) && !Written && OneArgument)
    return CE->getArg(0);
  if ((Set & AnyOneArgumentConstructions) && OneArgument)
    return CE->getArg(0);
  if ((Set & SingleArgumentConstructions) && N == 1)
    return CE->getArg(0);
  return nullptr;
}

/// The operand a functional cast wraps, when \p Set looks through it.
const Expr *castFrom(const CXXFunctionalCastExpr *FC, unsigned Set) {
  if (Set & (ExplicitCasts | FunctionalCasts))
    return FC->getSubExpr();
  if (Set & ConstructingCasts) {
    const NamedDecl *Conv = FC->getConversionFunction();
    if (!Conv || isa<CXXConstructorDecl>(Conv))
      return FC->getSubExpr();
  }
  if ((Set & TensorCasts) && isTensorType(FC->getType()))
    return FC->getSubExpr();
  return nullptr;
}

} // namespace

const Expr *peelOne(const Expr *E, unsigned Set) {
  if (!E)
    return E;
  auto *M = const_cast<Expr *>(E);
  if (Set & Parens)
    if (const Expr *Next = IgnoreParensSingleStep(M); Next != E)
      return Next;
  if (const auto *IC = dyn_cast<ImplicitCastExpr>(E))
    return (Set & ImplicitCasts) ||
                   ((Set & ImplicitCastsButDecay) &&
                    IC->getCastKind() != CK_ArrayToPointerDecay)
               ? IC->getSubExpr()
               : E;
  if (const auto *FE = dyn_cast<FullExpr>(E))
    return (Set & FullExprs) ? FE->getSubExpr() : E;
  if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E))
    return (Set & MaterializedTemporaries) ? MT->getSubExpr() : E;
  if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(E))
    return (Set & BoundTemporaries) ? BT->getSubExpr() : E;
  if (const auto *NT = dyn_cast<SubstNonTypeTemplateParmExpr>(E))
    return (Set & TemplateArguments) ? NT->getReplacement() : E;
  if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E)) {
    const Expr *Next = castFrom(FC, Set);
    return Next ? Next : E;
  }
  if (const auto *EC = dyn_cast<ExplicitCastExpr>(E))
    return (Set & ExplicitCasts) ? EC->getSubExpr() : E;
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
    const Expr *Next = constructedFrom(CE, Set);
    return Next ? Next : E;
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return (Set & DotMembers) && !ME->isArrow() ? ME->getBase() : E;
  if (Set & SingleElementLists) {
    if (const auto *PL = dyn_cast<ParenListExpr>(E))
      return PL->getNumExprs() == 1 ? PL->getExpr(0) : E;
    if (const auto *IL = dyn_cast<InitListExpr>(E))
      return IL->getNumInits() == 1 ? IL->getInit(0) : E;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const op::FactSet Facts = callFacts(Call);
    if ((Set & PassThroughCalls) && Call->getNumArgs() == 1 &&
        (Facts & op::PassesThrough))
      return Call->getArg(0);
    if (Set & ValuePreservingMethods)
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call);
          MC && (Facts & op::ValuePreserving) &&
          formOf(MC->getMethodDecl()) == op::Method)
        return MC->getImplicitObjectArgument();
  }
  return E;
}

const Expr *peel(const Expr *E, unsigned Set) {
  for (unsigned I = 0; E && I < limits::PeeledNodes; ++I) {
    const Expr *Next = peelOne(E, Set);
    if (Next == E)
      return E;
    E = Next;
  }
  return E;
}

const Expr *peelUntil(const Expr *E, unsigned Set, unsigned Further,
                      ExprPredicate Stop) {
  for (unsigned I = 0; E && I < limits::PeeledNodes; ++I) {
    E = peel(E, Set);
    if (!E || Stop(E))
      return E;
    const Expr *Next = peelOne(E, Further);
    if (Next == E)
      return E;
    E = Next;
  }
  return E;
}

const DeclRefExpr *declRef(const Expr *E, unsigned Set) {
  return dyn_cast_or_null<DeclRefExpr>(peel(E, Set));
}

const ValueDecl *referencedDecl(const Expr *E, unsigned Set) {
  const DeclRefExpr *DRE = declRef(E, Set);
  return DRE ? DRE->getDecl() : nullptr;
}

const VarDecl *referencedVar(const Expr *E, unsigned Set) {
  return dyn_cast_or_null<VarDecl>(referencedDecl(E, Set));
}

const Expr *underFunctionalCast(const Expr *E, unsigned Set) {
  if (const auto *FC = dyn_cast_or_null<CXXFunctionalCastExpr>(E))
    return peel(FC->getSubExpr(), Set);
  return E;
}

const Expr *climb(const Expr *E, unsigned Set, ParentFn Parent) {
  for (unsigned I = 0; E && I < limits::PeeledNodes; ++I) {
    const auto *P = dyn_cast_or_null<Expr>(Parent(E));
    if (!P || peelOne(P, Set) != E)
      return E;
    E = P;
  }
  return E;
}

bool onThisObject(const MemberExpr *ME) {
  return ME && isa<CXXThisExpr>(peel(ME->getBase(), ParenImpCasts));
}

/// The braced list under \p E (writtenList), or the construction with no
/// argument that `{}` can also be (a default `ArrayRef()`).
static const Expr *listOrBareConstruction(const Expr *E) {
  for (unsigned I = 0; E && I < limits::PeeledWrappers; ++I) {
    E = peel(E, Compiler);
    if (isa<InitListExpr>(E))
      return E;
    if (const auto *Std = dyn_cast<CXXStdInitializerListExpr>(E)) {
      E = Std->getSubExpr();
      continue;
    }
    const auto *CE = dyn_cast<CXXConstructExpr>(E);
    if (CE && CE->getNumArgs() == 0)
      return CE;
    if (!CE ||
        !llvm::all_of(llvm::drop_begin(CE->arguments()),
                      [](const Expr *A) { return isa<CXXDefaultArgExpr>(A); }))
      return nullptr;
    E = CE->getArg(0);
  }
  return nullptr;
}

const InitListExpr *writtenList(const Expr *E) {
  return dyn_cast_or_null<InitListExpr>(listOrBareConstruction(E));
}

bool writtenEmptyList(const Expr *E) {
  const Expr *L = listOrBareConstruction(E);
  if (const auto *IL = dyn_cast_or_null<InitListExpr>(L))
    return IL->getNumInits() == 0;
  return L != nullptr;
}

/// Each of \p Args is a default argument.
template <typename ArgRange> static bool allDefaulted(ArgRange &&Args) {
  return llvm::all_of(Args,
                      [](const Expr *A) { return isa<CXXDefaultArgExpr>(A); });
}

bool noWrittenArgs(const CallExpr *Call, unsigned First) {
  return allDefaulted(llvm::drop_begin(Call->arguments(), First));
}

bool noWrittenArgs(const CXXConstructExpr *CE) {
  return allDefaulted(CE->arguments());
}

} // namespace torchtidy::peel
