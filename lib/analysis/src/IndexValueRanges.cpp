//===--- IndexValueRanges.cpp - An index's values -------------------------===//
//
// The values an index can take: intervals, ids parsed or loaded into a
// buffer, shifts, a helper's result.
// Part of IndexRangeAnalysis (IndexRangesImpl.h).
//
//===----------------------------------------------------------------------===//

#include "IndexRangesImpl.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/OpSwitch.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/ProjectSummaries.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

using namespace clang;

namespace torchtidy {

using namespace ranges;

std::optional<int64_t>
IndexRangeAnalysis::Impl::producerDim(const CallExpr *Call) const {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee)
    return std::nullopt;
  const unsigned OwnTensor = isa<CXXMethodDecl>(Callee) ? 0 : 1;
  for (unsigned P = 0; P < Callee->getNumParams(); ++P) {
    const ParmVarDecl *Param = Callee->getParamDecl(P);
    if (!hasParamName(Param, op::Param::dim))
      continue;
    const Expr *A = P < Call->getNumArgs() ? Call->getArg(P) : nullptr;
    if (const auto *Default = dyn_cast_or_null<CXXDefaultArgExpr>(A))
      A = Default->getExpr();
    int64_t Dim = 0;
    if (A && evaluateInt(A, Ctx, Dim))
      return Dim;
    return std::nullopt;
  }
  if (Callee->getNumParams() > OwnTensor)
    return -1;
  return std::nullopt;
}

IndexRange IndexRangeAnalysis::Impl::producedRange(const FunctionDecl *FD,
                                                   const CallExpr *Call,
                                                   op::FactSet Facts) {
  if (Facts & (op::Factory | op::LikeFactory))
    return IndexRange::produced();
  const Expr *Source = argAt(Call, 0);
  Quantity Hi;
  if (Source && isTensorType(Source->getType().getNonReferenceType()))
    if (std::optional<int64_t> Dim = producerDim(Call))
      Hi = tensorDim(FD, Source, *Dim, nullptr);
  IndexRange R = interval(Quantity::constant(0, nullptr), Hi, Call);
  R.OpBound = true;
  return R;
}

IndexRange IndexRangeAnalysis::Impl::interval(const Quantity &Lo,
                                              const Quantity &Hi,
                                              const Expr *At) {
  IndexRange R;
  R.HasInterval = true;
  R.Lo = Lo;
  R.Hi = Hi;
  R.Interval = At;
  return R;
}

IndexRange IndexRangeAnalysis::Impl::values(const Quantity &V, const Expr *At,
                                            bool Sentinel) {
  IndexRange R;
  R.Values.push_back({V, At});
  R.Sentinel = Sentinel;
  return R;
}

std::optional<OutsideValues>
IndexRangeAnalysis::Impl::parsedInto(const FunctionDecl *FD,
                                     const ValueDecl *Buffer) {
  // `std::vector<int64_t> ids = read_ids(path);`, or `c ? read_ids(path)
  // : other(...)`: on some path.
  auto Called = [&](const Expr *E) -> std::optional<OutsideValues> {
    E = unwrap(E);
    if (const auto *CO = dyn_cast<ConditionalOperator>(E)) {
      for (const Expr *Arm : {CO->getTrueExpr(), CO->getFalseExpr()})
        if (const auto *Call = dyn_cast<CallExpr>(unwrap(Arm)))
          if (std::optional<OutsideValues> O = calledOutside(FD, Call))
            return O;
      return std::nullopt;
    }
    if (const auto *Call = dyn_cast<CallExpr>(E))
      return calledOutside(FD, Call);
    return std::nullopt;
  };
  if (const auto *VD = dyn_cast<VarDecl>(Buffer);
      VD && VD->isLocalVarDecl() && VD->getInit())
    if (std::optional<OutsideValues> O = Called(VD->getInit()))
      return O;
  std::optional<OutsideValues> Found;
  forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
    if (Found)
      return;
    const auto *Call = dyn_cast<CallExpr>(S);
    if (!Call)
      return;
    const op::FactSet Facts = callFacts(Call);
    bool Mentions = false;
    // `ids = read_ids(path);`
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
        Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2)
      if (auto N = namedValue(Op->getArg(0));
          N && N->first == Buffer && !N->second)
        if (std::optional<OutsideValues> O = Called(Op->getArg(1))) {
          Found = std::move(O);
          return;
        }
    // push_back(std::stoi(tok)) into the buffer, or read(buffer.data());
    // push_back(read_ids(line)) into a container of containers.
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
      if (auto N = namedValue(MC->getImplicitObjectArgument());
          N && N->first == Buffer && !N->second &&
          hasOpFact(MC->getMethodDecl()->getName(), op::AnyMember,
                    op::ContainerInsert))
        for (const Expr *A : MC->arguments()) {
          if (const Expr *P = parseCall(A))
            Found = OutsideValues{P, calleeText(P), nullptr};
          // `in >> id; ids.push_back(id);`
          else if (auto V = namedValue(A); V && !V->second) {
            if (const Expr *X = extractionInto(FD, V->first))
              Found = OutsideValues{X, "a stream (>>)", nullptr};
          } else if (isIntegerContainer(A->getType())) {
            Found = Called(A);
          }
        }
    }
    if (Facts & op::ReadsBytes)
      for (const Expr *A : Call->arguments())
        forEachOwnStmt(A, [&](const Stmt *Sub) {
          if (const auto *DRE = dyn_cast<DeclRefExpr>(Sub))
            if (DRE->getDecl() == Buffer)
              Mentions = true;
        });
    if (Mentions && !Found)
      Found = OutsideValues{cast<Expr>(Call), calleeText(Call), nullptr};
  });
  return Found;
}

std::optional<OutsideValues>
IndexRangeAnalysis::Impl::calledOutside(const FunctionDecl *FD,
                                        const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee)
    return std::nullopt;
  if (const FunctionDecl *Def = definitionOf(Callee)) {
    if (Def == FD || Depth > limits::HelperDepth * 2)
      return std::nullopt;
    const DepthGuard G(Depth);
    return returnedOutside(Def);
  }
  if (!FollowSummaries || !isDeclaredElsewhere(Callee))
    return std::nullopt;
  const QualType Ret = Callee->getReturnType();
  if (!isTensorType(Ret.getNonReferenceType()) &&
      !isIntegerContainer(Ret.getNonReferenceType()))
    return std::nullopt;
  std::optional<FunctionSummary> S =
      ProjectSummaries::instance().lookup(Callee, SummaryFact::OutsideValues);
  if (!S || !S->OutsideValues)
    return std::nullopt;
  std::string How = S->OutsideValues->What;
  return OutsideValues{Call, std::move(How),
                       std::make_shared<const FunctionSummary>(std::move(*S))};
}

bool IndexRangeAnalysis::Impl::isIntegerContainer(QualType T) {
  QualType Elem = getContainerElementType(T.getNonReferenceType());
  // A container of containers of integers (a batch of id lists) too.
  if (!Elem.isNull() && !Elem->isIntegerType())
    Elem = getContainerElementType(Elem);
  return !Elem.isNull() && Elem->isIntegerType() && !Elem->isBooleanType();
}

std::optional<OutsideValues>
IndexRangeAnalysis::Impl::returnedOutside(const FunctionDecl *Def) {
  if (!Def || !Def->hasBody())
    return std::nullopt;
  const QualType Ret = Def->getReturnType().getNonReferenceType();
  const bool Tensor = isTensorType(Ret);
  if (!Tensor && !isIntegerContainer(Ret))
    return std::nullopt;
  std::optional<OutsideValues> Found;
  forEachOwnStmt(Def->getBody(), [&](const Stmt *S) {
    const auto *Ret = dyn_cast<ReturnStmt>(S);
    if (Found || !Ret || !Ret->getRetValue())
      return;
    const Expr *V = Ret->getRetValue();
    if (Tensor) {
      const IndexRange R = rangeOf(Def, V, nullptr);
      if (R.External)
        Found = OutsideValues{R.External, R.How, R.ExternalSummary};
      return;
    }
    // A vector of integers: a local filled by parsing, or another call's.
    const Expr *Value = unwrap(V);
    if (auto N = namedValue(Value); N && !N->second && N->first)
      if (const auto *VD = dyn_cast<VarDecl>(N->first);
          VD && VD->isLocalVarDecl()) {
        Found = parsedInto(Def, VD);
        return;
      }
    if (const auto *Call = dyn_cast_or_null<CallExpr>(Value))
      Found = calledOutside(Def, Call);
  });
  return Found;
}

const Expr *IndexRangeAnalysis::Impl::extractionInto(const FunctionDecl *FD,
                                                     const ValueDecl *V) {
  const Expr *Found = nullptr;
  forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
    const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
    if (Found || !Op || Op->getOperator() != OO_GreaterGreater ||
        Op->getNumArgs() != 2)
      return;
    auto Into = namedValue(Op->getArg(1));
    if (!Into || Into->first != V || Into->second)
      return;
    // The left side is a stream: its type derives from std::basic_istream.
    const auto *RD =
        Op->getArg(0)->getType().getNonReferenceType()->getAsCXXRecordDecl();
    if (RD && RD->hasDefinition() && isInputStream(RD))
      Found = Op;
  });
  return Found;
}

bool IndexRangeAnalysis::Impl::isInputStream(const CXXRecordDecl *RD) {
  if (isClass(RD, KnownClass::basic_istream))
    return true;
  for (const CXXBaseSpecifier &B : RD->bases())
    if (const CXXRecordDecl *Base = B.getType()->getAsCXXRecordDecl())
      if (Base->hasDefinition() && isInputStream(Base))
        return true;
  return false;
}

std::optional<IndexRangeAnalysis::Impl::LoopBound>
IndexRangeAnalysis::Impl::loopRange(const FunctionDecl *FD, const VarDecl *VD) {
  std::optional<LoopBound> Found;
  forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
    const auto *For = dyn_cast<ForStmt>(S);
    if (Found || !For || !For->getInit() || !For->getCond())
      return;
    const auto *DS = dyn_cast<DeclStmt>(For->getInit());
    if (!DS || !DS->isSingleDecl() || DS->getSingleDecl() != VD ||
        !VD->getInit())
      return;
    const auto *Cond =
        dyn_cast<BinaryOperator>(peel::peel(For->getCond(), peel::Implicit));
    if (!Cond || (Cond->getOpcode() != BO_LT && Cond->getOpcode() != BO_LE))
      return;
    auto L = namedValue(Cond->getLHS());
    if (!L || L->first != VD || L->second)
      return;
    // Counting up by one or more.
    const Expr *Inc = peel::peel(For->getInc(), peel::Implicit);
    const auto *UO = dyn_cast_or_null<UnaryOperator>(Inc);
    const auto *CA = dyn_cast_or_null<CompoundAssignOperator>(Inc);
    int64_t Step = 0;
    if (!((UO && UO->isIncrementOp()) ||
          (CA && CA->getOpcode() == BO_AddAssign &&
           evaluateInt(CA->getRHS(), Ctx, Step) && Step > 0)))
      return;
    const Quantity Lo = quantityOf(FD, VD->getInit());
    Quantity Hi = quantityOf(FD, Cond->getRHS());
    if (!Lo.known() || !Hi.known())
      return;
    if (Cond->getOpcode() == BO_LE)
      Hi.Offset += 1;
    Found = LoopBound{Lo, Hi, Cond};
  });
  return Found;
}

IndexRange IndexRangeAnalysis::Impl::elementRange(const FunctionDecl *FD,
                                                  const Expr *E) {
  int64_t K = 0;
  if (evaluateInt(E, Ctx, K))
    return values(Quantity::constant(K, E), E, false);
  const Expr *Base = unwrap(E);
  int64_t Shift = 0;
  if (const auto *BO = dyn_cast<BinaryOperator>(Base);
      BO && (BO->getOpcode() == BO_Add || BO->getOpcode() == BO_Sub) &&
      evaluateInt(BO->getRHS(), Ctx, K)) {
    Shift = BO->getOpcode() == BO_Add ? K : -K;
    Base = unwrap(BO->getLHS());
  }
  if (auto N = namedValue(Base); N && !N->second)
    if (const auto *VD = dyn_cast_or_null<VarDecl>(N->first))
      if (auto Loop = loopRange(FD, VD)) {
        IndexRange R = interval(Loop->Lo, Loop->Hi, E);
        R.LoopCondition = Loop->Condition;
        return Shift ? shift(R, Shift) : R;
      }
  // A scalar parameter (`torch::tensor({id})`): the callers' values, named
  // so that a caller's argument can be put in (still unknown here).
  if (auto N = namedValue(Base); N && !N->second)
    if (const auto *PVD = dyn_cast_or_null<ParmVarDecl>(N->first);
        PVD && PVD->getDeclContext() == FD &&
        PVD->getType().getNonReferenceType()->isIntegerType()) {
      Quantity Q = quantityOf(FD, Base);
      if (Q.K == Quantity::Named && Q.Base == PVD && !Q.Field) {
        Q.Offset += Shift;
        IndexRange R = values(Q, E, false);
        R.Opaque = true;
        return R;
      }
    }
  return IndexRange::opaque();
}

const Expr *IndexRangeAnalysis::Impl::parseCall(const Expr *E) {
  const Expr *Found = nullptr;
  forEachOwnStmt(E, [&](const Stmt *S) {
    if (const auto *Call = dyn_cast<CallExpr>(S))
      if (!Found && (callFacts(Call) & op::ParsesInteger))
        Found = Call;
  });
  return Found;
}

std::string IndexRangeAnalysis::Impl::calleeText(const Expr *E) {
  const auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD)
    return "a read";
  if (FD->isInStdNamespace())
    return "std::" + FD->getNameAsString();
  if (isa<CXXMethodDecl>(FD))
    return FD->getNameAsString();
  return FD->getQualifiedNameAsString();
}

const Expr *IndexRangeAnalysis::Impl::loadInto(const FunctionDecl *FD,
                                               const ValueDecl *V) {
  const Expr *Found = nullptr;
  forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
    const auto *Call = dyn_cast<CallExpr>(S);
    if (Found || !Call || !(callFacts(Call) & op::LoadsTensor) ||
        Call->getNumArgs() < 1)
      return;
    if (auto N = namedValue(Call->getArg(0)); N && N->first == V && !N->second)
      Found = Call;
  });
  return Found;
}

IndexRange IndexRangeAnalysis::Impl::rangeOf(const FunctionDecl *FD,
                                             const Expr *E, const Stmt *Use) {
  if (!E || Depth > limits::OriginDepth)
    return IndexRange::opaque();
  const DepthGuard G(Depth);
  E = unwrap(E);
  IndexGuardFinder &F = Guards.finder(FD);
  if (std::optional<IndexVar> V = directVariable(E)) {
    if (Use && F.findGuard(*V, Use))
      return IndexRange::produced();
    // `batch.data` of a DataLoader's batch: what the dataset's get() puts
    // there.
    if (V->Field && V->Base)
      if (std::optional<IndexRange> R = batchFieldRange(FD, *V))
        return *R;
    if (V->Field || !V->Base)
      return IndexRange::opaque();
    const auto *VD = dyn_cast<VarDecl>(V->Base);
    if (!VD || !VD->hasLocalStorage() || VD->isCXXForRangeDecl())
      return IndexRange::opaque();
    IndexRange R;
    bool Any = false;
    // A parameter's own values are the caller's: opaque here, named for
    // the callers (indexedParams).
    if (const auto *PVD = dyn_cast<ParmVarDecl>(VD)) {
      R.Opaque = true;
      if (PVD->getDeclContext() == FD)
        R.Params.push_back(PVD);
    } else
      for (const Expr *Def : F.definitionsOf(VD)) {
        R.join(rangeOf(FD, Def, nullptr));
        Any = true;
      }
    // Values written into it: ids.fill_(-1), ids.masked_fill_(m, -100),
    // ids.index_put_({mask}, -1).
    for (const Stmt *W : F.writesOf(*V)) {
      const auto *Call = dyn_cast<CallExpr>(W);
      if (!Call)
        continue;
      if (const FunctionDecl *Callee = Call->getDirectCallee();
          hasOpName(Callee, op::Named::index_put_) &&
          formOf(Callee) == op::Method) {
        if (const Expr *Value = argAt(Call, 2);
            Value && !isTensorType(Value->getType().getNonReferenceType())) {
          R.join(values(quantityOf(FD, Value), Value, true));
          Any = true;
        } else if (Value) {
          // A tensor written in: its values from outside or from a
          // parameter join these (what else it holds is left as before).
          const IndexRange Written = rangeOf(FD, Value, nullptr);
          if (Written.External || !Written.Params.empty()) {
            IndexRange Kept;
            Kept.External = Written.External;
            Kept.How = Written.How;
            Kept.ExternalSummary = Written.ExternalSummary;
            Kept.Params = Written.Params;
            Kept.Opaque = !Written.Params.empty();
            R.join(Kept);
            Any = true;
          }
        }
      }
      if (!(callFacts(Call) & op::FillsValue))
        continue;
      const bool Masked =
          hasOpName(Call->getDirectCallee(),
                    {op::Named::masked_fill, op::Named::masked_fill_});
      if (const Expr *Value = argAt(Call, Masked ? 2 : 1)) {
        R.join(values(quantityOf(FD, Value), Value, true));
        Any = true;
      }
    }
    if (const Expr *Load = loadInto(FD, VD)) {
      IndexRange L;
      L.External = Load;
      L.How = "torch::load";
      R.join(L);
      Any = true;
    }
    return Any || R.Opaque ? R : IndexRange::opaque();
  }
  if (const auto *CO = dyn_cast<ConditionalOperator>(E)) {
    IndexRange R = rangeOf(FD, CO->getTrueExpr(), nullptr);
    R.join(rangeOf(FD, CO->getFalseExpr(), nullptr));
    return R;
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  if (!Call)
    return IndexRange::opaque();
  return rangeOfCall(FD, Call);
}

IndexRange IndexRangeAnalysis::Impl::rangeOfCall(const FunctionDecl *FD,
                                                 const CallExpr *Call) {
  using R = std::optional<IndexRange>;
  using Switch = OpSwitch<IndexRange, Impl &, const FunctionDecl *>;
  constexpr op::FactSet Intervals =
      op::IntervalArange | op::IntervalRandint | op::IntervalRandperm;
  static const Switch::Action Where = [](const OpCall &C, Impl &I,
                                         const FunctionDecl *FD) -> R {
    return I.whereRange(FD, C.Call);
  };
  // Each case in its place: the first that matches and gives a range
  // decides, an opaque range included.
  static const Switch Transfer =
      Switch()
          .caseOf(facts(op::PassesThrough | op::TupleElement).args(1),
                  [](const OpCall &C, Impl &I, const FunctionDecl *FD) -> R {
                    return I.rangeOf(FD, C.Call->getArg(0), nullptr);
                  })
          // An element of the pieces of a split: `ids.split(n).at(1)`, `[0]`.
          .caseOf(anyCall(),
                  [](const OpCall &C, Impl &I, const FunctionDecl *FD) -> R {
                    if (const Expr *Whole = wholeOfSplitPiece(C.Call))
                      return I.rangeOf(FD, Whole, nullptr);
                    return std::nullopt;
                  })
          .caseOf(form(op::Method).anyOf(op::ValuePreserving),
                  [](const OpCall &C, Impl &I, const FunctionDecl *FD) -> R {
                    return I.rangeOf(FD, argAt(C.Call, 0), nullptr);
                  })
          // F::pad(x, F::PadFuncOptions({0, n}).value(-1)): x's values and
          // the padding value (0 unless the options say).
          .caseOf(
              form(op::Functional)
                  .anyOf(op::FillsValue)
                  .named({op::Named::pad}),
              [](const OpCall &C, Impl &I, const FunctionDecl *FD) -> R {
                IndexRange Range = I.rangeOf(FD, argAt(C.Call, 0), nullptr);
                if (const Expr *Value =
                        optionValue(argAt(C.Call, 1), op::Named::value))
                  Range.join(I.values(I.quantityOf(FD, Value), Value, true));
                else
                  Range.join(
                      I.values(Quantity::constant(0, C.Call), C.Call, true));
                return Range;
              })
          // What an index op reads is a subset of its source's values:
          // `order.index({Slice(), Slice(0, k)})`, `sorted.gather(1, pick)`,
          // `perm[i]`.
          .caseOf(anyCall(),
                  [](const OpCall &C, Impl &I, const FunctionDecl *FD) -> R {
                    std::optional<IndexOpSite> Read = matchIndexOp(C.Call);
                    if (Read && Read->Source &&
                        (Read->K == IndexOpSite::IndexSelect ||
                         Read->K == IndexOpSite::Gather ||
                         Read->K == IndexOpSite::Take ||
                         Read->K == IndexOpSite::AdvancedIndex))
                      return I.rangeOf(FD, Read->Source, nullptr);
                    return std::nullopt;
                  })
          .caseOf(anyCall(),
                  [](const OpCall &C, Impl &I, const FunctionDecl *FD) -> R {
                    const auto *Op = dyn_cast<CXXOperatorCallExpr>(C.Call);
                    if (Op && Op->getOperator() == OO_Subscript &&
                        Op->getNumArgs() == 2 &&
                        isTensorType(
                            Op->getArg(0)->getType().getNonReferenceType()))
                      return I.rangeOf(FD, Op->getArg(0), nullptr);
                    return std::nullopt;
                  })
          .caseOf(facts(op::IndexProducer).noneOf(Intervals),
                  [](const OpCall &C, Impl &I, const FunctionDecl *FD) -> R {
                    return I.producedRange(FD, C.Call, C.Facts);
                  })
          // A bounding op: clamp(lo, hi), remainder(x, n), fmod(x, n),
          // searchsorted / bucketize.
          .caseOf(facts(op::BoundsClamp),
                  [](const OpCall &C, Impl &I, const FunctionDecl *FD) -> R {
                    return I.clampRange(FD, C.Call);
                  })
          .caseOf(facts(op::BoundsModulo),
                  [](const OpCall &C, Impl &I, const FunctionDecl *FD) -> R {
                    return I.remainderRange(FD, C.Call);
                  })
          .caseOf(facts(op::Bucketizes),
                  [](const OpCall &C, Impl &I, const FunctionDecl *FD) -> R {
                    return I.bucketRange(FD, C.Call);
                  })
          // ids + k, ids - k, k + ids (member or free operators).
          .caseOf(anyCall(),
                  [](const OpCall &C, Impl &I, const FunctionDecl *FD) -> R {
                    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(C.Call))
                      return I.shifted(FD, Op);
                    return std::nullopt;
                  })
          // arange(end) / arange(start, end), randint(high) /
          // randint(low, high): [start, end).
          .caseOf(
              form(op::Aten).anyOf(op::IntervalArange | op::IntervalRandint),
              [](const OpCall &C, Impl &I, const FunctionDecl *FD) -> R {
                const unsigned N = numericArgs(C.Call);
                if (N == 0)
                  return IndexRange::opaque();
                const Quantity Lo = N >= 2 ? I.quantityOf(FD, argAt(C.Call, 0))
                                           : Quantity::constant(0, nullptr);
                const Quantity Hi =
                    I.quantityOf(FD, argAt(C.Call, N >= 2 ? 1 : 0));
                return I.interval(Lo, Hi, C.Call);
              })
          .caseOf(form(op::Aten).anyOf(op::IntervalRandperm),
                  [](const OpCall &C, Impl &I, const FunctionDecl *FD) -> R {
                    return I.interval(Quantity::constant(0, nullptr),
                                      I.quantityOf(FD, argAt(C.Call, 0)),
                                      C.Call);
                  })
          .caseOf(form(op::Aten).anyOf(op::LiteralTensor),
                  [](const OpCall &C, Impl &I, const FunctionDecl *FD) -> R {
                    return I.literalTensorRange(FD, C.Call);
                  })
          // from_blob(v.data(), ...) / from_blob(buf, ...) over parsed data.
          .caseOf(form(op::Aten).anyOf(op::WrapsMemory),
                  [](const OpCall &C, Impl &I, const FunctionDecl *FD) -> R {
                    const ValueDecl *Buffer = nullptr;
                    forEachOwnStmt(argAt(C.Call, 0), [&](const Stmt *S) {
                      if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
                        if (!Buffer && isa<VarDecl>(DRE->getDecl()))
                          Buffer = DRE->getDecl();
                    });
                    if (Buffer)
                      if (auto P = I.parsedInto(FD, Buffer))
                        return outsideRange(std::move(*P));
                    return IndexRange::opaque();
                  })
          .caseOf(form(op::Aten).anyOf(op::Concatenates),
                  [](const OpCall &C, Impl &I, const FunctionDecl *FD) -> R {
                    const llvm::SmallVector<const Expr *, 4> Parts =
                        listElements(argAt(C.Call, 0));
                    if (Parts.empty())
                      return IndexRange::opaque();
                    IndexRange Range;
                    for (const Expr *Part : Parts)
                      Range.join(I.rangeOf(FD, Part, nullptr));
                    return Range;
                  })
          // full(sizes, v), full_like(x, v), masked_fill(x, m, v).
          .caseOf(
              form(op::Aten).anyOf(op::FillsValue),
              [](const OpCall &C, Impl &I, const FunctionDecl *FD) -> R {
                if (hasOpName(C.Callee, {op::Named::masked_fill,
                                         op::Named::masked_fill_})) {
                  IndexRange Range = I.rangeOf(FD, argAt(C.Call, 0), nullptr);
                  if (const Expr *Value = argAt(C.Call, 2))
                    Range.join(I.values(I.quantityOf(FD, Value), Value, true));
                  return Range;
                }
                if (const Expr *Value = argAt(C.Call, 1))
                  return I.values(I.quantityOf(FD, Value), Value, true);
                return IndexRange::opaque();
              })
          .caseOf(form(op::Aten).named({op::Named::where}), Where)
          // No other free LibTorch function says what its values are.
          .caseOf(form(op::Aten),
                  [](const OpCall &, Impl &, const FunctionDecl *) -> R {
                    return IndexRange::opaque();
                  })
          .caseOf(form(op::Method).anyOf(op::FillsValue),
                  [](const OpCall &C, Impl &I, const FunctionDecl *FD) -> R {
                    const bool Masked =
                        hasOpName(C.Callee, {op::Named::masked_fill,
                                             op::Named::masked_fill_});
                    IndexRange Range =
                        Masked ? I.rangeOf(FD, argAt(C.Call, 0), nullptr)
                               : IndexRange();
                    if (const Expr *Value = argAt(C.Call, Masked ? 2 : 1))
                      Range.join(
                          I.values(I.quantityOf(FD, Value), Value, true));
                    return Range;
                  })
          .caseOf(form(op::Method).named({op::Named::where}), Where)
          .caseOf(form(op::Method).named({op::Named::add, op::Named::sub}),
                  [](const OpCall &C, Impl &I, const FunctionDecl *FD) -> R {
                    int64_t K = 0;
                    const Expr *Other = argAt(C.Call, 1);
                    if (Other && !isTensorType(Other->getType()) &&
                        evaluateInt(Other, I.Ctx, K))
                      return I.shift(I.rangeOf(FD, argAt(C.Call, 0), nullptr),
                                     hasOpName(C.Callee, op::Named::add) ? K
                                                                         : -K);
                    return IndexRange::opaque();
                  })
          // A helper of this translation unit: what its returns give.
          .caseOf(OpPattern().forms(
                      {op::NoForm, op::AnyMember, op::Global, op::Thrust}),
                  [](const OpCall &C, Impl &I, const FunctionDecl *FD) -> R {
                    return I.helperRange(FD, C.Call);
                  });
  return Transfer(OpCall::of(Call), IndexRange::opaque(), *this, FD);
}

IndexRange IndexRangeAnalysis::Impl::literalTensorRange(const FunctionDecl *FD,
                                                        const CallExpr *Call) {
  if (auto Ids = literalIds(Call, Ctx)) {
    IndexRange R;
    for (const auto &[Id, At] : *Ids)
      R.Values.push_back({Quantity::constant(Id, At), At});
    return R;
  }
  // torch::tensor({i}) of loop variables.
  if (const llvm::SmallVector<const Expr *, 4> Elems =
          listElements(argAt(Call, 0));
      !Elems.empty()) {
    IndexRange R;
    for (const Expr *Elem : Elems)
      R.join(elementRange(FD, Elem));
    if (R.HasInterval || !R.Values.empty())
      return R;
  }
  // torch::tensor(v) of a vector filled by parsing, or
  // torch::tensor(read_ids(path)), or of a parameter's.
  if (const Expr *A0 = argAt(Call, 0)) {
    IndexRange C = containerRange(FD, A0);
    if (C.External || !C.Params.empty())
      return C;
  }
  return IndexRange::opaque();
}

IndexRange IndexRangeAnalysis::Impl::opBound(const Quantity &Lo,
                                             const Quantity &Hi,
                                             const CallExpr *Call) {
  IndexRange R = interval(Lo, Hi, Call);
  R.OpBound = true;
  return R;
}

IndexRange IndexRangeAnalysis::Impl::clampRange(const FunctionDecl *FD,
                                                const CallExpr *Call) {
  const Expr *Min = argAt(Call, 1), *Max = argAt(Call, 2);
  if (!Min || !Max || isNone(Min) || isNone(Max))
    return IndexRange::opaque();
  Quantity Hi = quantityOf(FD, Max);
  if (Hi.known())
    addOffset(Hi, 1);
  return opBound(quantityOf(FD, Min), Hi, Call);
}

IndexRange IndexRangeAnalysis::Impl::remainderRange(const FunctionDecl *FD,
                                                    const CallExpr *Call) {
  const Quantity N = quantityOf(FD, argAt(Call, 1));
  if (!N.known() || (N.K == Quantity::Constant && N.Offset <= 0))
    return IndexRange::opaque();
  const bool Fmod =
      hasOpName(Call->getDirectCallee(), {op::Named::fmod, op::Named::fmod_});
  if (Fmod && !nonNegative(rangeOf(FD, argAt(Call, 0), nullptr)))
    return IndexRange::opaque();
  return opBound(Quantity::constant(0, nullptr), N, Call);
}

IndexRange IndexRangeAnalysis::Impl::bucketRange(const FunctionDecl *FD,
                                                 const CallExpr *Call) {
  // searchsorted(boundaries, v) / bucketize(v, boundaries).
  const bool Search =
      hasOpName(Call->getDirectCallee(), op::Named::searchsorted);
  const Expr *Boundaries = argAt(Call, Search ? 0 : 1);
  Quantity N = Boundaries ? tensorDim(FD, Boundaries, -1, nullptr) : Quantity();
  if (N.known())
    addOffset(N, 1);
  return opBound(Quantity::constant(0, nullptr), N, Call);
}

bool IndexRangeAnalysis::Impl::nonNegative(const IndexRange &R) {
  if (R.Opaque || R.External)
    return false;
  if (!R.Produced && !R.HasInterval && R.Values.empty())
    return false;
  if (R.HasInterval && !(R.Lo.K == Quantity::Constant && R.Lo.Offset >= 0))
    return false;
  for (const auto &V : R.Values)
    if (!(V.first.K == Quantity::Constant && V.first.Offset >= 0))
      return false;
  return true;
}

const Expr *IndexRangeAnalysis::Impl::optionValue(const Expr *Options,
                                                  op::Named Name) {
  const Expr *Found = nullptr;
  if (Options)
    forEachOwnStmt(Options, [&](const Stmt *S) {
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S))
        if (const CXXMethodDecl *MD = MC->getMethodDecl())
          if (!Found && hasOpName(MD, Name) && MC->getNumArgs() == 1)
            Found = MC->getArg(0);
    });
  return Found;
}

IndexRange IndexRangeAnalysis::Impl::whereRange(const FunctionDecl *FD,
                                                const CallExpr *Call) {
  // where(cond, a, b): a or b, tensors or numbers.
  IndexRange R;
  for (unsigned I = 1; I <= 2; ++I) {
    const Expr *A = argAt(Call, I);
    if (!A)
      return IndexRange::opaque();
    if (isTensorType(A->getType().getNonReferenceType()))
      R.join(rangeOf(FD, A, nullptr));
    else
      R.join(values(quantityOf(FD, A), A, true));
  }
  return R;
}

IndexRange IndexRangeAnalysis::Impl::shift(IndexRange R, int64_t K) {
  R.Shift += K;
  if (R.HasInterval) {
    if (R.Lo.known())
      R.Lo.Offset += K;
    if (R.Hi.known())
      R.Hi.Offset += K;
  }
  for (auto &V : R.Values)
    if (V.first.known())
      V.first.Offset += K;
  // An index in range by construction, moved: no longer known.
  if (R.Produced && K != 0) {
    R.Produced = false;
    R.Opaque = true;
  }
  return R;
}

IndexRange IndexRangeAnalysis::Impl::shifted(const FunctionDecl *FD,
                                             const CXXOperatorCallExpr *Op) {
  if (Op->getNumArgs() != 2 ||
      (Op->getOperator() != OO_Plus && Op->getOperator() != OO_Minus))
    return IndexRange::opaque();
  const Expr *L = Op->getArg(0), *R = Op->getArg(1);
  int64_t K = 0;
  if (isTensorType(L->getType().getNonReferenceType()) &&
      !isTensorType(R->getType().getNonReferenceType()) &&
      evaluateInt(R, Ctx, K))
    return shift(rangeOf(FD, L, nullptr),
                 Op->getOperator() == OO_Plus ? K : -K);
  if (Op->getOperator() == OO_Plus &&
      isTensorType(R->getType().getNonReferenceType()) &&
      !isTensorType(L->getType().getNonReferenceType()) &&
      evaluateInt(L, Ctx, K))
    return shift(rangeOf(FD, R, nullptr), K);
  return IndexRange::opaque();
}

IndexRange IndexRangeAnalysis::Impl::outsideRange(OutsideValues P) {
  IndexRange R;
  R.External = P.At;
  R.How = std::move(P.How);
  R.ExternalSummary = std::move(P.Summary);
  return R;
}

IndexRange IndexRangeAnalysis::Impl::helperRange(const FunctionDecl *FD,
                                                 const CallExpr *Call) {
  const FunctionDecl *Def = definitionOf(Call->getDirectCallee());
  // A function of another file: what the project's summary says.
  if (!Def && Call->getDirectCallee() &&
      isTensorType(Call->getDirectCallee()->getReturnType()))
    if (std::optional<OutsideValues> P = calledOutside(FD, Call))
      return outsideRange(std::move(*P));
  if (!Def || Def == FD || Depth > limits::HelperDepth * 2 ||
      !isTensorType(Def->getReturnType()))
    return IndexRange::opaque();
  IndexRange R;
  bool Any = false;
  forEachOwnStmt(Def->getBody(), [&](const Stmt *S) {
    if (const auto *Ret = dyn_cast<ReturnStmt>(S))
      if (const Expr *V = Ret->getRetValue()) {
        R.join(substitute(rangeOf(Def, V, nullptr), Def, FD, Call));
        Any = true;
      }
  });
  return Any ? R : IndexRange::opaque();
}

Quantity IndexRangeAnalysis::Impl::substitute(Quantity Q,
                                              const FunctionDecl *Callee,
                                              const FunctionDecl *Caller,
                                              const CallExpr *Call) {
  if (Q.K != Quantity::Named && Q.K != Quantity::Runtime)
    return Q;
  const auto *PVD = dyn_cast_or_null<ParmVarDecl>(Q.Base);
  if (!PVD || PVD->getDeclContext() != Callee || Q.Field)
    return Q;
  const unsigned First = isa<CXXOperatorCallExpr>(Call) &&
                                 isa<CXXMethodDecl>(Call->getDirectCallee())
                             ? 1
                             : 0;
  const unsigned I = PVD->getFunctionScopeIndex() + First;
  if (I >= Call->getNumArgs())
    return {};
  if (Q.K == Quantity::Runtime) {
    Quantity R = Q;
    auto N = namedValue(Call->getArg(I));
    if (!N)
      return {};
    R.Base = N->first;
    R.Field = N->second;
    return R;
  }
  Quantity A = quantityOf(Caller, Call->getArg(I));
  if (A.known())
    A.Offset += Q.Offset;
  return A;
}

IndexRange IndexRangeAnalysis::Impl::substitute(IndexRange R,
                                                const FunctionDecl *Callee,
                                                const FunctionDecl *Caller,
                                                const CallExpr *Call) {
  if (R.HasInterval) {
    R.Lo = substitute(R.Lo, Callee, Caller, Call);
    R.Hi = substitute(R.Hi, Callee, Caller, Call);
  }
  for (auto &V : R.Values) {
    const Quantity Before = V.first;
    V.first = substitute(V.first, Callee, Caller, Call);
    // A parameter's value is written at the caller's argument.
    if (Before.K == Quantity::Named && V.first.K == Quantity::Constant &&
        V.first.Origin)
      V.second = V.first.Origin;
  }
  return R;
}

} // namespace torchtidy
