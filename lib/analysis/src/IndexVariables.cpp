//===--- IndexVariables.cpp - What an index expression is ----------------===//
//
// The index variable an expression reads, the whole a split piece comes
// from, the literal ids of a tensor, an Embedding's rows: the vocabulary of
// IndexGuards.h that the guard finder and the range analysis share.
//
//===----------------------------------------------------------------------===//

#include "torchtidy/analysis/IndexGuards.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/Registration.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace torchtidy {

const Expr *containerOfElement(const CallExpr *Call) {
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (MD && MD->getIdentifier() &&
        hasOpFact(MD->getName(), op::AnyMember, op::ContainerAccess))
      return MC->getImplicitObjectArgument();
  } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
    if (Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2 &&
        !isTensorType(Op->getArg(0)->getType()))
      return Op->getArg(0);
  }
  return nullptr;
}

const Expr *wholeOfSplitPiece(const CallExpr *Call) {
  const Expr *Container = containerOfElement(Call);
  if (!Container)
    return nullptr;
  const auto *Split =
      dyn_cast<CallExpr>(peel::peel(Container, peel::TensorValue));
  if (!Split || !(callFacts(Split) & op::Slices))
    return nullptr;
  // The whole: a method's object, a function's first argument.
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Split))
    return MC->getImplicitObjectArgument();
  return Split->getNumArgs() > 0 ? Split->getArg(0) : nullptr;
}

std::optional<IndexVar> directVariable(const Expr *E) {
  E = peel::peel(E, peel::TensorValue);
  if (!E)
    return std::nullopt;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    if (isa<VarDecl>(DRE->getDecl()) || isa<BindingDecl>(DRE->getDecl()))
      return IndexVar{DRE->getDecl(), nullptr};
    return std::nullopt;
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    const auto *Field = dyn_cast<FieldDecl>(ME->getMemberDecl());
    if (!Field)
      return std::nullopt;
    const Expr *Base = peel::peel(ME->getBase(), peel::TensorValue);
    if (isa<CXXThisExpr>(Base))
      return IndexVar{nullptr, Field};
    if (const auto *DRE = dyn_cast<DeclRefExpr>(Base))
      if (isa<VarDecl>(DRE->getDecl()))
        return IndexVar{DRE->getDecl(), Field};
  }
  return std::nullopt;
}

const Expr *stripValuePreserving(const Expr *E) {
  return peel::peel(E, peel::TensorValue | peel::PassThroughCalls |
                           peel::ValuePreservingMethods);
}

std::optional<IndexVar> indexVariable(const Expr *E) {
  return directVariable(stripValuePreserving(E));
}

std::optional<std::vector<std::pair<int64_t, const Expr *>>>
literalIds(const CallExpr *TensorCall, const ASTContext &Ctx) {
  if (!TensorCall || !(callFacts(TensorCall) & op::LiteralTensor) ||
      TensorCall->getNumArgs() < 1)
    return std::nullopt;
  const InitListExpr *IL = peel::writtenList(TensorCall->getArg(0));
  if (!IL)
    return std::nullopt;
  std::vector<std::pair<int64_t, const Expr *>> Ids;
  for (const Expr *Init : IL->inits()) {
    // The mock takes std::initializer_list<int64_t>; LibTorch takes a
    // TensorDataContainer converted from each element.
    const Expr *Value =
        peel::peel(Init, peel::Compiler | peel::ConvertingConstructions);
    Expr::EvalResult R;
    if (Value->isValueDependent() || !Value->getType()->isIntegerType() ||
        !Value->EvaluateAsInt(R, Ctx))
      return std::nullopt;
    Ids.emplace_back(R.Val.getInt().getExtValue(), Value);
  }
  return Ids;
}

namespace {

/// Rows of `torch::nn::Embedding(100, 64)`, `Embedding(EmbeddingOptions(100,
/// 64))`, `register_module("e", Embedding(...))`,
/// `std::make_shared<EmbeddingImpl>(100, 64)`.
std::optional<std::pair<int64_t, const Expr *>>
rowsOfConstruction(const Expr *E, ASTContext &Ctx, unsigned Depth = 0) {
  if (!E || Depth > limits::HelperDepth)
    return std::nullopt;
  E = peel::underFunctionalCast(peel::peel(E, peel::TensorValue),
                                peel::TensorValue);
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    if (isRegistrationCall(Call) && Call->getNumArgs() >= 2)
      return rowsOfConstruction(Call->getArg(1), Ctx, Depth + 1);
    if ((callFacts(Call) & op::MakesShared) && Call->getNumArgs() >= 1) {
      Expr::EvalResult R;
      if (!Call->getArg(0)->isValueDependent() &&
          Call->getArg(0)->EvaluateAsInt(R, Ctx))
        return std::make_pair(R.Val.getInt().getExtValue(), E);
      return rowsOfConstruction(Call->getArg(0), Ctx, Depth + 1);
    }
    return std::nullopt;
  }
  const auto *Ctor = dyn_cast<CXXConstructExpr>(E);
  if (!Ctor || Ctor->getNumArgs() < 1)
    return std::nullopt;
  const CXXRecordDecl *RD = Ctor->getType()->getAsCXXRecordDecl();
  if (!RD)
    return std::nullopt;
  const CXXRecordDecl *Impl = getHolderModule(Ctor->getType());
  if (!Impl)
    Impl = RD;
  constexpr unsigned Tables = op::EmbeddingSink | op::EmbeddingBagSink;
  const bool IsTable =
      (moduleFacts(Impl) & Tables) || (moduleOptionsFacts(RD) & Tables);
  if (!IsTable)
    return std::nullopt;
  const Expr *First = Ctor->getArg(0);
  Expr::EvalResult R;
  if (!First->isValueDependent() && First->getType()->isIntegralType(Ctx) &&
      First->EvaluateAsInt(R, Ctx))
    return std::make_pair(R.Val.getInt().getExtValue(), E);
  // Embedding(EmbeddingOptions(100, 64)), or a holder made from
  // register_module("e", Embedding(100, 64)).
  if (auto Rows = rowsOfConstruction(First, Ctx, Depth + 1))
    return std::make_pair(Rows->first, E);
  return std::nullopt;
}

} // namespace

std::optional<std::pair<int64_t, const Expr *>>
embeddingRows(const Expr *ModuleExpr, ASTContext &Ctx) {
  std::optional<IndexVar> V = directVariable(ModuleExpr);
  if (!V)
    return std::nullopt;
  if (!V->Field) {
    const auto *VD = dyn_cast_or_null<VarDecl>(V->Base);
    if (!VD || !VD->isLocalVarDecl() || !VD->getInit() ||
        VD->getType()->isReferenceType())
      return std::nullopt;
    // A module variable is rarely reassigned; if it is, the size may differ.
    return rowsOfConstruction(VD->getInit(), Ctx);
  }
  if (V->Base)
    return std::nullopt;
  // A member: every write in the module's building code agrees.
  const auto *RD = dyn_cast<CXXRecordDecl>(V->Field->getParent());
  if (!RD)
    return std::nullopt;
  const ModuleRegistration &Reg = registrationOf(RD);
  if (!Reg.complete())
    return std::nullopt;
  const auto *It = Reg.members().find(V->Field);
  std::optional<std::pair<int64_t, const Expr *>> Rows;
  if (const Expr *Init = V->Field->getInClassInitializer())
    Rows = rowsOfConstruction(Init, Ctx);
  if (It == Reg.members().end())
    return Rows;
  for (const MemberWrite &W : It->second.Writes) {
    if (W.IsNull)
      continue;
    auto R = rowsOfConstruction(W.Value, Ctx);
    if (!R || (Rows && Rows->first != R->first))
      return std::nullopt;
    if (!Rows)
      Rows = R;
  }
  return Rows;
}

const Expr *valuePreservingOperand(const Expr *E) {
  E = peel::peel(E, peel::TensorValue);
  const Expr *Operand =
      peel::peelOne(E, peel::PassThroughCalls | peel::ValuePreservingMethods);
  return Operand == E ? nullptr : Operand;
}

bool isBoundingCall(const CallExpr *Call, op::FactSet Facts) {
  if (Facts & op::BoundsModulo) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    return Callee && Callee->getIdentifier() &&
           !hasOpName(Callee, {op::Named::fmod, op::Named::fmod_});
  }
  if (!(Facts & op::BoundsClamp))
    return false;
  // Both bounds given explicitly (the method form has no self argument).
  const unsigned First = isa<CXXMemberCallExpr>(Call) ? 0 : 1;
  if (Call->getNumArgs() < First + 2)
    return false;
  for (unsigned I = First; I < First + 2; ++I) {
    const Expr *A = peel::peel(Call->getArg(I), peel::Implicit);
    if (isa<CXXDefaultArgExpr>(A))
      return false;
    // The lower bound: a constant >= 0.
    if (I == First) {
      const Expr *Min =
          peel::peel(A, peel::Implicit | peel::SingleArgumentConstructions);
      Expr::EvalResult R;
      if (Min->isValueDependent() ||
          !Min->getType()->isIntegralOrEnumerationType() ||
          !Min->EvaluateAsInt(R, Call->getDirectCallee()->getASTContext()) ||
          R.Val.getInt().isNegative())
        return false;
    }
    // `{}` / c10::nullopt: no bound.
    if (const auto *Ctor = dyn_cast<CXXConstructExpr>(A)) {
      if (Ctor->getNumArgs() == 0)
        return false;
      const auto *RD =
          Ctor->getArg(0)->getType().getNonReferenceType()->getAsRecordDecl();
      if (Ctor->getNumArgs() == 1 && isClass(RD, KnownClass::nullopt_t))
        return false;
    }
  }
  return true;
}

} // namespace torchtidy
