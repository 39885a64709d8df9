//===--- IndexQuantities.cpp - Sizes, lengths, tables ---------------------===//
//
// Quantities: the sizes, lengths and members' dims an index is compared
// with, and the table (its rows) that an index op reads.
// Part of IndexRangeAnalysis (IndexRangesImpl.h).
//
//===----------------------------------------------------------------------===//

#include "IndexRangesImpl.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/OpSwitch.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/Registration.h"
#include "torchtidy/analysis/TorchTypes.h"

using namespace clang;

namespace torchtidy {

using namespace ranges;

Quantity IndexRangeAnalysis::Impl::named(const ValueDecl *Base,
                                         const FieldDecl *Field,
                                         const Expr *At) {
  Quantity Q;
  Q.K = Quantity::Named;
  Q.Base = Base;
  Q.Field = Field;
  Q.Origin = At;
  return Q;
}

const Expr *IndexRangeAnalysis::Impl::sizesOf(const FunctionDecl *FD,
                                              const Expr *E) {
  E = unwrap(E);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
        VD && VD->hasLocalStorage() && !isa<ParmVarDecl>(VD))
      if (const Expr *Def = singleDefinition(FD, VD))
        return unwrap(Def);
  return E;
}

Quantity IndexRangeAnalysis::Impl::fieldOf(const FunctionDecl *FD,
                                           const ValueDecl *Base,
                                           const FieldDecl *Field,
                                           const Expr *At) {
  // `cfg.n` with cfg a local copy of (or a reference to) a parameter or a
  // member: the field of that.
  if (const auto *VD = dyn_cast_or_null<VarDecl>(Base);
      VD && VD->hasLocalStorage() && !isa<ParmVarDecl>(VD))
    if (const Expr *Def = singleDefinition(FD, VD))
      if (auto Src = namedValue(Def)) {
        if (!Src->second)
          return named(Src->first, Field, At);
        if (!Src->first)
          return named(Src->second, Field, At);
      }
  return named(Base, Field, At);
}

Quantity IndexRangeAnalysis::Impl::runtime(const ValueDecl *Base,
                                           const FieldDecl *Field, int64_t Dim,
                                           bool Container, const Expr *At) {
  Quantity Q;
  Q.K = Quantity::Runtime;
  Q.Base = Base;
  Q.Field = Field;
  Q.Dim = Dim;
  Q.Container = Container;
  Q.Origin = At;
  return Q;
}

const Expr *IndexRangeAnalysis::Impl::singleDefinition(const FunctionDecl *FD,
                                                       const VarDecl *VD) {
  if (!VD->isLocalVarDecl())
    return nullptr;
  IndexGuardFinder &F = Guards.finder(FD);
  std::vector<const Expr *> Defs = F.definitionsOf(VD);
  if (Defs.size() != 1)
    return nullptr;
  // The declaration is one write; anything else changes it.
  if (F.writesOf(IndexVar{VD, nullptr}).size() > 1)
    return nullptr;
  return Defs.front();
}

void IndexRangeAnalysis::Impl::addOffset(Quantity &Q, int64_t K) {
  Q.Offset += K;
  for (Quantity &C : Q.CappedBy)
    C.Offset += K;
}

Quantity IndexRangeAnalysis::Impl::minOfConditional(
    const FunctionDecl *FD, const ConditionalOperator *CO, const Expr *At) {
  const Quantity A = quantityOf(FD, CO->getTrueExpr());
  const Quantity B = quantityOf(FD, CO->getFalseExpr());
  if (!A.known() || !B.known())
    return {};
  llvm::SmallVector<Fact, 2> Facts;
  factsOf(CO->getCond(), true, Facts);
  if (Facts.size() != 1)
    return {};
  // The condition, when it holds, says a <= b.
  const Fact &F = Facts.front();
  const Expr *Small = F.L, *Large = F.R;
  BinaryOperatorKind Op = F.Op;
  if (Op == BO_GT || Op == BO_GE) {
    std::swap(Small, Large);
    Op = Op == BO_GT ? BO_LT : BO_LE;
  }
  if (Op != BO_LT && Op != BO_LE)
    return {};
  auto Same = [](const Quantity &X, const Quantity &Y) {
    return X.known() && X.sameBase(Y) && X.Offset == Y.Offset;
  };
  const Quantity S = quantityOf(FD, Small);
  const Quantity L = quantityOf(FD, Large);
  if (!(Same(S, A) && Same(L, B)))
    return {};
  Quantity Q = A;
  Q.CappedBy.push_back(B);
  Q.Origin = At;
  return Q;
}

Quantity IndexRangeAnalysis::Impl::quantityOf(const FunctionDecl *FD,
                                              const Expr *E) {
  if (!E || Depth > limits::OriginDepth)
    return {};
  const DepthGuard G(Depth);
  const Expr *Written = E;
  E = unwrap(E);
  int64_t V = 0;
  if (evaluateInt(E, Ctx, V))
    return Quantity::constant(V, Written);
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    if (BO->getOpcode() == BO_Add || BO->getOpcode() == BO_Sub) {
      int64_t C = 0;
      if (evaluateInt(BO->getRHS(), Ctx, C)) {
        Quantity Q = quantityOf(FD, BO->getLHS());
        if (Q.known())
          addOffset(Q, BO->getOpcode() == BO_Add ? C : -C);
        Q.Origin = Written;
        return Q;
      }
      if (BO->getOpcode() == BO_Add && evaluateInt(BO->getLHS(), Ctx, C)) {
        Quantity Q = quantityOf(FD, BO->getRHS());
        if (Q.known())
          addOffset(Q, C);
        Q.Origin = Written;
        return Q;
      }
    }
    return {};
  }
  if (const auto *CO = dyn_cast<ConditionalOperator>(E))
    return minOfConditional(FD, CO, Written);
  if (const auto Named = namedValue(E)) {
    const auto [Base, Field] = *Named;
    if (!Field) {
      const auto *VD = dyn_cast<VarDecl>(Base);
      if (VD && !isa<ParmVarDecl>(VD) && VD->hasLocalStorage())
        if (const Expr *Def = singleDefinition(FD, VD)) {
          Quantity Q = quantityOf(FD, Def);
          if (Q.known()) {
            // Shown as the code names it here: `T`, not `x.size(1)`.
            Q.Origin = Written;
            return Q;
          }
        }
      return named(Base, nullptr, Written);
    }
    return fieldOf(FD, Base, Field, Written);
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  if (!Call)
    return {};
  const op::FactSet Facts = callFacts(Call);
  if ((Facts & (op::StdMin | op::StdMax)) && Call->getNumArgs() == 2) {
    const Quantity A = quantityOf(FD, Call->getArg(0));
    const Quantity B = quantityOf(FD, Call->getArg(1));
    if (Facts & op::StdMax)
      return {}; // a lower bound says nothing of the end
    // min(a, b) is capped by both: keep the first, note the second.
    Quantity Q = A.known() ? A : B;
    if (A.known() && B.known())
      Q.CappedBy.push_back(B);
    Q.Origin = Written;
    return Q;
  }
  if (Facts & op::SizeOfDim)
    return sizeQuantity(FD, Call, Written);
  // x.sizes()[d], also through a local the sizes are kept in (`auto
  // sizes = x.sizes(); ... sizes[1]`) that nothing writes again.
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
    if (Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2)
      if (const auto *Sizes = dyn_cast<CallExpr>(sizesOf(FD, Op->getArg(0))))
        if (callFacts(Sizes) & op::SizesList) {
          int64_t Dim = 0;
          if (evaluateInt(Op->getArg(1), Ctx, Dim))
            return tensorDim(FD, argAt(Sizes, 0), Dim, Written);
        }
  // v.size() of a standard container.
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (hasOpName(MD, op::Named::size) && MC->getNumArgs() == 0 &&
        isStdContainer(MC->getImplicitObjectArgument()->getType()))
      if (auto N = namedValue(MC->getImplicitObjectArgument()))
        return runtime(N->first, N->second, 0, /*Container=*/true, Written);
  }
  return {};
}

Quantity IndexRangeAnalysis::Impl::sizeQuantity(const FunctionDecl *FD,
                                                const CallExpr *Call,
                                                const Expr *Written) {
  const Expr *Tensor = argAt(Call, 0);
  const Expr *DimArg = argAt(Call, 1);
  int64_t Dim = 0;
  if (!Tensor || !DimArg || !evaluateInt(DimArg, Ctx, Dim))
    return {};
  return tensorDim(FD, Tensor, Dim, Written);
}

Quantity IndexRangeAnalysis::Impl::tensorDim(const FunctionDecl *FD,
                                             const Expr *Tensor, int64_t Dim,
                                             const Expr *Written) {
  Quantity Made = constructedDim(FD, Tensor, Dim);
  if (Made.known()) {
    Made.Origin = Written;
    return Made;
  }
  if (auto N = namedValue(Tensor))
    return runtime(N->first, N->second, Dim, false, Written);
  return {};
}

Quantity IndexRangeAnalysis::Impl::constructedDim(const FunctionDecl *FD,
                                                  const Expr *E, int64_t Dim) {
  if (!E || Depth > limits::OriginDepth)
    return {};
  const DepthGuard G(Depth);
  E = unwrap(E);
  if (auto N = namedValue(E)) {
    const auto [Base, Field] = *N;
    if (!Field) {
      const auto *VD = dyn_cast<VarDecl>(Base);
      if (VD && VD->hasLocalStorage() && !isa<ParmVarDecl>(VD))
        if (const Expr *Def = singleDefinition(FD, VD))
          return constructedDim(FD, Def, Dim);
      return {};
    }
    if (!Base)
      return memberDim(Field, Dim);
    return {};
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  if (!Call)
    return {};
  return callDim(FD, Call, Dim);
}

Quantity IndexRangeAnalysis::Impl::callDim(const FunctionDecl *FD,
                                           const CallExpr *Call, int64_t Dim) {
  using Q = std::optional<Quantity>;
  using Switch = OpSwitch<Quantity, Impl &, const FunctionDecl *, int64_t>;
  // Each case in its place: the first that matches and gives a size
  // decides, an unknown one included.
  static const Switch Transfer =
      Switch()
          // register_buffer("b", t), register_module("m", Embedding(n, d)).
          .caseOf(anyCall(),
                  [](const OpCall &C, Impl &I, const FunctionDecl *FD,
                     int64_t Dim) -> Q {
                    if (isRegistrationCall(C.Call) && C.Call->getNumArgs() >= 2)
                      return I.constructedDim(FD, C.Call->getArg(1), Dim);
                    return std::nullopt;
                  })
          // Moves, shape-keeping and element-wise ops keep the shape of their
          // tensor (a method's object; a free element-wise op's first
          // argument).
          .caseOf(form(op::Method)
                      .anyOf(op::MovesToCuda | op::MovesToCpu |
                             op::MovesToArgument | op::KeepsShape |
                             op::ElementWise),
                  [](const OpCall &C, Impl &I, const FunctionDecl *FD,
                     int64_t Dim) -> Q {
                    return I.constructedDim(FD, argAt(C.Call, 0), Dim);
                  })
          .caseOf(facts(op::ElementWise),
                  [](const OpCall &C, Impl &I, const FunctionDecl *FD,
                     int64_t Dim) -> Q {
                    return I.constructedDim(FD, argAt(C.Call, 0), Dim);
                  })
          .caseOf(facts(op::MovesToCuda | op::MovesToCpu | op::MovesToArgument |
                        op::KeepsShape),
                  [](const OpCall &, Impl &, const FunctionDecl *,
                     int64_t) -> Q { return Quantity(); })
          // Arithmetic with one tensor operand keeps its shape: `1 - betas`.
          .caseOf(
              anyCall(),
              [](const OpCall &C, Impl &I, const FunctionDecl *FD,
                 int64_t Dim) -> Q {
                const auto *Op = dyn_cast<CXXOperatorCallExpr>(C.Call);
                if (!Op)
                  return std::nullopt;
                if (Op->getNumArgs() == 2 && (Op->getOperator() == OO_Plus ||
                                              Op->getOperator() == OO_Minus ||
                                              Op->getOperator() == OO_Star ||
                                              Op->getOperator() == OO_Slash)) {
                  const bool T0 = isTensorType(Op->getArg(0)->getType());
                  const bool T1 = isTensorType(Op->getArg(1)->getType());
                  if (T0 != T1)
                    return I.constructedDim(FD, Op->getArg(T0 ? 0 : 1), Dim);
                }
                return Quantity();
              })
          // arange(end), arange(start, end): end - start elements.
          .caseOf(form(op::Aten).anyOf(op::IntervalArange),
                  [](const OpCall &C, Impl &I, const FunctionDecl *FD,
                     int64_t Dim) -> Q {
                    if (Dim != 0 && Dim != -1)
                      return Quantity();
                    const bool Two = numericArgs(C.Call) >= 2;
                    const Expr *End = argAt(C.Call, Two ? 1 : 0);
                    const Expr *Start = Two ? argAt(C.Call, 0) : nullptr;
                    Quantity Q = I.quantityOf(FD, End);
                    if (Start) {
                      int64_t S = 0;
                      if (!evaluateInt(Start, I.Ctx, S))
                        return Quantity();
                      if (Q.known())
                        Q.Offset -= S;
                    }
                    return Q;
                  })
          .caseOf(
              form(op::Aten).named({op::Named::linspace, op::Named::logspace}),
              [](const OpCall &C, Impl &I, const FunctionDecl *FD,
                 int64_t Dim) -> Q {
                if (Dim != 0 && Dim != -1)
                  return Quantity();
                return I.quantityOf(FD, argAt(C.Call, 2));
              })
          // zeros({a, b}), full({a, b}, v), randn({a, b}): sizes first.
          .caseOf(form(op::Aten).anyOf(op::Factory | op::FillsValue),
                  [](const OpCall &C, Impl &I, const FunctionDecl *FD,
                     int64_t Dim) -> Q {
                    llvm::SmallVector<const Expr *, 4> Sizes =
                        listElements(argAt(C.Call, 0));
                    if (Sizes.empty())
                      return Quantity();
                    const int64_t D =
                        Dim < 0 ? static_cast<int64_t>(Sizes.size()) + Dim
                                : Dim;
                    if (D < 0 || D >= static_cast<int64_t>(Sizes.size()))
                      return Quantity();
                    return I.quantityOf(FD, Sizes[D]);
                  });
  return Transfer(OpCall::of(Call), Quantity(), *this, FD, Dim);
}

unsigned IndexRangeAnalysis::Impl::numericArgs(const CallExpr *Call) {
  unsigned N = 0;
  for (const Expr *A : Call->arguments()) {
    if (isa<CXXDefaultArgExpr>(A))
      break;
    const QualType T = A->getType();
    if (!(T->isIntegralOrEnumerationType() || T->isRealFloatingType())) {
      const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
      if (!isClass(RD, KnownClass::Scalar))
        break;
    }
    ++N;
  }
  return N;
}

Quantity IndexRangeAnalysis::Impl::memberDim(const FieldDecl *Field,
                                             int64_t Dim) {
  const auto *RD = dyn_cast<CXXRecordDecl>(Field->getParent());
  if (!RD || !isTensorType(Field->getType()))
    return {};
  const ModuleRegistration &Reg = registrationOf(RD);
  if (!Reg.complete())
    return {};
  const auto *It = Reg.members().find(Field);
  if (It == Reg.members().end())
    return {};
  std::optional<Quantity> Result;
  for (const MemberWrite &W : It->second.Writes) {
    if (W.IsNull || !W.Value || !W.Function)
      continue;
    const Quantity Q =
        canonical(constructedDim(W.Function, W.Value, Dim), RD, W.Function);
    if (!Q.known())
      return {};
    if (Result && !(Result->sameBase(Q) && Result->Offset == Q.Offset))
      return {};
    if (!Result)
      Result = Q;
  }
  return Result ? *Result : Quantity();
}

const IndexRangeAnalysis::Impl::Aliases &
IndexRangeAnalysis::Impl::aliasesOf(const CXXRecordDecl *RD) {
  std::unique_ptr<Aliases> &Slot = ClassAliases[RD];
  if (Slot)
    return *Slot;
  Slot = std::make_unique<Aliases>();
  Aliases &A = *Slot;
  for (const CXXConstructorDecl *Ctor : RD->ctors()) {
    const FunctionDecl *Def = definitionOf(Ctor);
    if (!Def)
      continue;
    auto Note = [&](const FieldDecl *Member, const Expr *Value) {
      const Expr *V = unwrap(Value);
      // A whole parameter of record type: a config struct.
      if (const auto *DRE = dyn_cast<DeclRefExpr>(V))
        if (const auto *PVD = dyn_cast<ParmVarDecl>(DRE->getDecl()))
          if (PVD->getType().getNonReferenceType()->isRecordType()) {
            A.Structs[PVD] = Member;
            return;
          }
      const Quantity Q = quantityOf(Def, Value);
      if (Q.K != Quantity::Named || !isa_and_nonnull<ParmVarDecl>(Q.Base))
        return;
      Quantity M = named(nullptr, Member, Value);
      M.Offset = -Q.Offset;
      A.Values.try_emplace({Q.Base, Q.Field}, M);
    };
    for (const CXXCtorInitializer *Init :
         cast<CXXConstructorDecl>(Def)->inits())
      if (Init->isMemberInitializer() && Init->isWritten())
        Note(Init->getMember(), Init->getInit());
    if (const auto *Body = dyn_cast_or_null<CompoundStmt>(Def->getBody()))
      for (const Stmt *S : Body->body()) {
        const auto *E = dyn_cast<Expr>(S);
        if (!E)
          continue;
        E = unwrap(E);
        const Expr *LHS = nullptr, *RHS = nullptr;
        if (const auto *BO = dyn_cast<BinaryOperator>(E);
            BO && BO->getOpcode() == BO_Assign) {
          LHS = BO->getLHS();
          RHS = BO->getRHS();
        } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
                   Op && Op->getOperator() == OO_Equal &&
                   Op->getNumArgs() == 2) {
          LHS = Op->getArg(0);
          RHS = Op->getArg(1);
        }
        if (!LHS)
          continue;
        if (auto N = namedValue(LHS); N && !N->first && N->second)
          Note(N->second, RHS);
      }
  }
  return A;
}

Quantity IndexRangeAnalysis::Impl::canonical(Quantity Q,
                                             const CXXRecordDecl *RD,
                                             const FunctionDecl *Scope) {
  if (Q.K != Quantity::Named || !RD || !isa_and_nonnull<ParmVarDecl>(Q.Base))
    return Q;
  if (!isa<CXXConstructorDecl>(Scope))
    return Q;
  const Aliases &A = aliasesOf(RD);
  auto It = A.Values.find({Q.Base, Q.Field});
  if (It != A.Values.end()) {
    Quantity M = It->second;
    M.Offset += Q.Offset;
    M.Origin = Q.Origin;
    return M;
  }
  if (Q.Field) {
    auto S = A.Structs.find(Q.Base);
    if (S != A.Structs.end()) {
      Quantity M = named(S->second, Q.Field, Q.Origin);
      M.Offset = Q.Offset;
      return M;
    }
  }
  return Q;
}

Quantity IndexRangeAnalysis::Impl::rowsOfConstruction(const FunctionDecl *FD,
                                                      const Expr *E,
                                                      unsigned Steps) {
  if (!E || Steps > limits::HelperDepth)
    return {};
  E = unwrap(E);
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    if (isRegistrationCall(Call) && Call->getNumArgs() >= 2)
      return rowsOfConstruction(FD, Call->getArg(1), Steps + 1);
    if ((callFacts(Call) & op::MakesShared) && Call->getNumArgs() >= 1) {
      if (const auto *RD = Call->getType()->getAsCXXRecordDecl())
        if (const CXXRecordDecl *M =
                getSharedPtrModule(Call->getType().getCanonicalType()))
          if (moduleFacts(M) & (op::EmbeddingSink | op::EmbeddingBagSink)) {
            (void)RD;
            const Expr *A0 = Call->getArg(0);
            if (A0->getType()->isIntegralOrEnumerationType())
              return quantityOf(FD, A0);
            return rowsOfConstruction(FD, A0, Steps + 1);
          }
      return {};
    }
    // EmbeddingOptions(n, d).padding_idx(0): the options it was made of.
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
      if (moduleOptionsFacts(
              MC->getImplicitObjectArgument()->getType()->getAsCXXRecordDecl()))
        return rowsOfConstruction(FD, MC->getImplicitObjectArgument(),
                                  Steps + 1);
    return {};
  }
  const auto *Ctor = dyn_cast<CXXConstructExpr>(E);
  if (!Ctor || Ctor->getNumArgs() < 1)
    return {};
  const CXXRecordDecl *RD = Ctor->getType()->getAsCXXRecordDecl();
  const CXXRecordDecl *Impl = getHolderModule(Ctor->getType());
  constexpr unsigned Tables = op::EmbeddingSink | op::EmbeddingBagSink;
  if (!((moduleFacts(Impl ? Impl : RD) & Tables) ||
        (moduleOptionsFacts(RD) & Tables)))
    return {};
  const Expr *First = Ctor->getArg(0);
  if (First->getType()->isIntegralOrEnumerationType())
    return quantityOf(FD, First);
  return rowsOfConstruction(FD, First, Steps + 1);
}

TableSize IndexRangeAnalysis::Impl::tableOf(const FunctionDecl *FD,
                                            const IndexOpSite &Site) {
  TableSize T;
  if (Site.Module) {
    std::optional<IndexVar> V = directVariable(Site.Module);
    if (!V)
      return T;
    if (!V->Field) {
      const auto *VD = dyn_cast_or_null<VarDecl>(V->Base);
      if (!VD || !VD->hasLocalStorage() || isa<ParmVarDecl>(VD))
        return T;
      if (const Expr *Def = singleDefinition(FD, VD)) {
        T.Rows = T.Size = rowsOfConstruction(FD, Def);
        T.MadeAt = Def;
      }
      return T;
    }
    if (V->Base)
      return T;
    const auto *RD = dyn_cast<CXXRecordDecl>(V->Field->getParent());
    if (!RD)
      return T;
    const ModuleRegistration &Reg = registrationOf(RD);
    if (!Reg.complete())
      return T;
    const auto *It = Reg.members().find(V->Field);
    if (It == Reg.members().end())
      return T;
    std::optional<Quantity> Rows;
    for (const MemberWrite &W : It->second.Writes) {
      if (W.IsNull || !W.Value || !W.Function)
        continue;
      const Quantity Q =
          canonical(rowsOfConstruction(W.Function, W.Value), RD, W.Function);
      if (!Q.known())
        return T;
      if (Rows && !(Rows->sameBase(Q) && Rows->Offset == Q.Offset))
        return T;
      if (!Rows) {
        Rows = Q;
        T.MadeAt = W.Value;
      }
    }
    if (Rows)
      T.Rows = T.Size = *Rows;
    return T;
  }
  int64_t Dim = 0;
  switch (Site.Bound) {
  case IndexBound::Rows:
    Dim = 0;
    break;
  case IndexBound::Classes:
    Dim = 1;
    break;
  case IndexBound::DimArg:
  case IndexBound::DimArgOrNumel:
    if (!Site.BoundDim || !evaluateInt(Site.BoundDim, Ctx, Dim))
      return T;
    break;
  default:
    return T;
  }
  T.Rows = T.Size = tensorDim(FD, Site.Source, Dim, nullptr);
  // A size known only at run time is the table itself: no fixed rows.
  if (T.Rows.K == Quantity::Runtime)
    T.Rows = {};
  T.MadeAt = Site.Source;
  return T;
}

} // namespace torchtidy
