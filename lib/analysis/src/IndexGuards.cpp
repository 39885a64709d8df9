//===--- IndexGuards.cpp - Is an index tensor bounded where it is used? ---===//

#include "torchtidy/analysis/IndexGuards.h"
#include "torchtidy/analysis/FunctionContext.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/OpSwitch.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/CFG.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <algorithm>

using namespace clang;

namespace torchtidy {

namespace {

bool isComparison(OverloadedOperatorKind Op) {
  return Op == OO_Less || Op == OO_LessEqual || Op == OO_Greater ||
         Op == OO_GreaterEqual;
}

/// The position of one CFG element.
using Point = CFGPoint;

/// Something that happens to a variable at one element.
struct Event {
  enum Kind : uint8_t { Write, Guard } K;
  IndexVar Var;
  unsigned Index;
  const Stmt *S;
  /// For an assignment `v = rhs`: the right-hand side (a guard when it is
  /// safe).
  const Expr *AssignedValue = nullptr;
};

/// A condition on a variable's range that branches to Successor.
struct BranchGuard {
  IndexVar Var;
  const CFGBlock *Successor;
  const Stmt *Condition;
};

/// The source location is inside an expansion of TORCHTIDY_CHECK_INDEX;
/// returns the expansion's location (to tell expansions apart).
SourceLocation checkIndexExpansion(SourceLocation Loc, const SourceManager &SM,
                                   const LangOptions &LO) {
  for (unsigned I = 0; Loc.isMacroID() && I < limits::MacroDepth; ++I) {
    if (macroFacts(Lexer::getImmediateMacroName(Loc, SM, LO)) & op::ChecksIndex)
      return SM.getExpansionLoc(Loc);
    Loc = SM.getImmediateMacroCallerLoc(Loc);
  }
  return {};
}

/// Collects the variables whose range \p S tests.
void collectRangeTests(const Stmt *S, llvm::SmallVectorImpl<IndexVar> &Out,
                       unsigned Depth = 0) {
  if (!S || Depth > limits::SearchDepth)
    return;
  auto Add = [&](const Expr *E) {
    if (auto V = indexVariable(E))
      if (llvm::find(Out, *V) == Out.end())
        Out.push_back(*V);
  };
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S)) {
    if (formOf(MC->getMethodDecl()) == op::Method &&
        (callFacts(MC) & op::RangeTest))
      Add(MC->getImplicitObjectArgument());
  } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S)) {
    if (isComparison(Op->getOperator()))
      for (const Expr *Arg : Op->arguments())
        if (isTensorType(Arg->getType()))
          Add(Arg);
  } else if (const auto *Call = dyn_cast<CallExpr>(S)) {
    if ((callFacts(Call) & op::RangeTest) && Call->getNumArgs() >= 1 &&
        !torchCalleeName(Call).empty())
      Add(Call->getArg(0));
  }
  for (const Stmt *Child : S->children())
    collectRangeTests(Child, Out, Depth + 1);
}

/// The type is a lvalue reference to a non-const tensor.
bool isMutableTensorRef(QualType T) {
  if (!T->isLValueReferenceType())
    return false;
  const QualType Pointee = T->getPointeeType();
  return !Pointee.isConstQualified() && isTensorType(Pointee);
}

bool nameMatches(const FunctionDecl *FD, StringRef Listed) {
  Listed.consume_front("::");
  if (Listed.contains("::"))
    return FD->getQualifiedNameAsString() == Listed;
  return FD->getIdentifier() && FD->getName() == Listed;
}

IndexOrigin worst(const IndexOrigin &A, const IndexOrigin &B) {
  auto Rank = [](IndexOrigin::Kind K) {
    return K == IndexOrigin::Unsafe ? 2 : K == IndexOrigin::Unknown ? 1 : 0;
  };
  if (Rank(B.K) > Rank(A.K))
    return B;
  return A;
}

IndexOrigin make(IndexOrigin::Kind K, IndexOrigin::Reason Why,
                 const Stmt *Evidence = nullptr, const Decl *D = nullptr,
                 std::string Callee = "") {
  IndexOrigin O;
  O.K = K;
  O.Why = Why;
  O.Evidence = Evidence;
  O.Decl = D;
  O.Callee = std::move(Callee);
  return O;
}

std::string calleeName(const CallExpr *Call) {
  if (const FunctionDecl *FD = Call->getDirectCallee())
    return FD->getNameAsString();
  return "";
}

} // namespace

//===----------------------------------------------------------------------===//
// IndexGuardFinder
//===----------------------------------------------------------------------===//

struct IndexGuardFinder::Impl {
  const FunctionDecl *FD;
  IndexGuardAnalysis &Owner;
  ASTContext &Ctx;
  unsigned Depth;
  /// The shared CFG (null when there is none) and its maps.
  FunctionContext *Fn = nullptr;
  const CFG *Cfg = nullptr;
  llvm::DenseMap<const CFGBlock *, std::vector<Event>> Events;
  std::vector<BranchGuard> Branches;
  /// Definitions of each local: its initialiser and assigned values.
  llvm::DenseMap<const ValueDecl *, std::vector<std::pair<const Expr *, Point>>>
      Definitions;
  /// Where each of those values is defined.
  llvm::DenseMap<const Stmt *, Point> DefinedAt;
  bool EventsBuilt = false;
  /// Variables being classified (a variable defined from itself).
  llvm::SmallPtrSet<const ValueDecl *, 8> Classifying;
  unsigned ClassifyDepth = 0;

  Impl(const FunctionDecl *FD, IndexGuardAnalysis &Owner, unsigned Depth)
      : FD(FD), Owner(Owner), Ctx(Owner.context()), Depth(Depth) {
    if (!FD || !FD->hasBody() || FD->isDependentContext())
      return;
    Fn = FunctionContexts::of(Ctx).get(FD);
    Cfg = Fn ? Fn->cfg() : nullptr;
  }

  /// Where \p S is evaluated (every expression is an element).
  Point pointOf(const Stmt *S) const { return Cfg ? Fn->pointOf(S) : Point{}; }

  /// Where the definition whose value is \p Value happens (a variable's
  /// initializer is not itself a CFG element), after buildEvents().
  Point definitionPoint(const Stmt *Value) const {
    return DefinedAt.lookup(Value);
  }

  void define(const ValueDecl *D, const Expr *Value, Point At) {
    Definitions[D].emplace_back(Value, At);
    DefinedAt.try_emplace(Value, At);
  }

  void addEvent(const CFGBlock *B, Event E) { Events[B].push_back(E); }

  /// The condition that ends \p B tests the range of \p V.
  static bool testsRange(const CFGBlock *B, const IndexVar &V) {
    llvm::SmallVector<IndexVar, 2> Vars;
    collectRangeTests(conditionOf(B), Vars);
    return llvm::is_contained(Vars, V);
  }

  /// The condition of an `if` or `?:` that ends \p B.
  static const Expr *conditionOf(const CFGBlock *B) {
    const Stmt *Term = B->getTerminatorStmt();
    if (const auto *If = dyn_cast_or_null<IfStmt>(Term))
      return If->getCond();
    if (const auto *CO = dyn_cast_or_null<ConditionalOperator>(Term))
      return CO->getCond();
    return nullptr;
  }

  void buildEvents() {
    if (EventsBuilt || !Cfg)
      return;
    EventsBuilt = true;
    const SourceManager &SM = Ctx.getSourceManager();
    const LangOptions &LO = Ctx.getLangOpts();
    for (const CFGBlock *B : *Cfg) {
      if (!B)
        continue;
      // TORCHTIDY_CHECK_INDEX: one guard per expansion, at its last element.
      llvm::DenseMap<unsigned, std::pair<unsigned, const Stmt *>> Macros;
      unsigned I = 0;
      for (const CFGElement &Elem : *B) {
        auto CS = Elem.getAs<CFGStmt>();
        const unsigned Index = I++;
        if (!CS)
          continue;
        const Stmt *S = CS->getStmt();
        if (S->getBeginLoc().isMacroID()) {
          const SourceLocation Exp =
              checkIndexExpansion(S->getBeginLoc(), SM, LO);
          if (Exp.isValid())
            Macros[Exp.getRawEncoding()] = {Index, S};
        }
        collectElementEvents(B, Index, S);
      }
      for (const auto &[Key, At] : Macros) {
        (void)Key;
        if (const Expr *Arg = firstTensorMacroArgument(At.second, SM))
          if (auto V = indexVariable(Arg))
            addEvent(B, {Event::Guard, *V, At.first, At.second});
      }
      // if (...) / cond ? : on a variable's range.
      const Expr *Cond = conditionOf(B);
      if (!Cond)
        continue;
      llvm::SmallVector<IndexVar, 2> Vars;
      collectRangeTests(Cond, Vars);
      for (const CFGBlock::AdjacentBlock &Succ : B->succs()) {
        const CFGBlock *S = Succ.getReachableBlock();
        if (!S)
          continue;
        unsigned Preds = 0;
        for (const CFGBlock::AdjacentBlock &Pred : S->preds())
          if (Pred.getReachableBlock())
            ++Preds;
        if (Preds != 1)
          continue;
        for (const IndexVar &V : Vars)
          Branches.push_back({V, S, Cond});
      }
    }
  }

  void collectElementEvents(const CFGBlock *B, unsigned Index, const Stmt *S) {
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D)) {
          addEvent(B, {Event::Write, IndexVar{VD, nullptr}, Index, S});
          if (const Expr *Init = VD->getInit()) {
            // `torch::Tensor ids;` defines nothing.
            const auto *Ctor =
                dyn_cast<CXXConstructExpr>(peel::peel(Init, peel::Implicit));
            if (!(Ctor && Ctor->getNumArgs() == 0))
              define(VD, Init, Point{B, Index});
          }
          if (const auto *DD = dyn_cast<DecompositionDecl>(VD))
            for (const BindingDecl *BD : DD->bindings())
              addEvent(B, {Event::Write, IndexVar{BD, nullptr}, Index, S});
        }
      return;
    }
    auto Assignment = [&](const Expr *LHS, const Expr *RHS, bool Plain) {
      if (auto V = directVariable(LHS)) {
        addEvent(B, {Event::Write, *V, Index, S, Plain ? RHS : nullptr});
        if (Plain && !V->Field)
          define(V->Base, RHS, Point{B, Index});
      }
    };
    if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
      if (BO->isAssignmentOp())
        Assignment(BO->getLHS(), BO->getRHS(), BO->getOpcode() == BO_Assign);
      return;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S)) {
      if (Op->isAssignmentOp() && Op->getNumArgs() == 2) {
        Assignment(Op->getArg(0), Op->getArg(1), Op->getOperator() == OO_Equal);
        return;
      }
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S)) {
      const CXXMethodDecl *MD = MC->getMethodDecl();
      if (isInPlaceTensorMethod(MD)) {
        if (auto V = directVariable(MC->getImplicitObjectArgument())) {
          addEvent(B, {Event::Write, *V, Index, S});
          if (isBoundingCall(MC, callFacts(MC)))
            addEvent(B, {Event::Guard, *V, Index, S});
        }
        return;
      }
    }
    const auto *Call = dyn_cast<CallExpr>(S);
    if (!Call)
      return;
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee)
      return;
    // Arguments, matched to parameters (an operator method's object is
    // argument 0).
    const unsigned Shift =
        isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee) ? 1 : 0;
    for (unsigned A = Shift; A < Call->getNumArgs(); ++A) {
      const unsigned ParamIndex = A - Shift;
      if (ParamIndex >= Callee->getNumParams())
        break;
      const Expr *Arg = Call->getArg(A);
      if (!isTensorType(Arg->getType().getNonReferenceType()))
        continue;
      std::optional<IndexVar> V = indexVariable(Arg);
      if (!V)
        continue;
      const QualType PT = Callee->getParamDecl(ParamIndex)->getType();
      if (isMutableTensorRef(PT) && directVariable(Arg) &&
          !isTorchFunction(Callee))
        addEvent(B, {Event::Write, *V, Index, S});
      if (Owner.callGuardsArgument(Callee, ParamIndex, Depth + 1))
        addEvent(B, {Event::Guard, *V, Index, S});
    }
  }

  bool dominates(Point G, Point U) const {
    if (G.Block == U.Block)
      return G.Index <= U.Index;
    return Fn->dominates(G.Block, U.Block);
  }

  /// Blocks reachable from \p From (forwards or backwards), never entering
  /// \p Stop.
  llvm::DenseSet<const CFGBlock *>
  reach(const CFGBlock *From, const CFGBlock *Stop, bool Forward) const {
    llvm::DenseSet<const CFGBlock *> Seen;
    llvm::SmallVector<const CFGBlock *, 16> Work;
    auto Push = [&](const CFGBlock *B) {
      if (B && B != Stop && Seen.insert(B).second)
        Work.push_back(B);
    };
    auto Expand = [&](const CFGBlock *B) {
      if (Forward)
        for (const auto &S : B->succs())
          Push(S.getReachableBlock());
      else
        for (const auto &P : B->preds())
          Push(P.getReachableBlock());
    };
    Expand(From);
    while (!Work.empty())
      Expand(Work.pop_back_val());
    return Seen;
  }

  /// Some path leads from the definition at \p G to the use \p U with no
  /// write to \p V on it.
  bool reachesUnwritten(const IndexVar &V, Point G, Point U) {
    auto WrittenIn = [&](const CFGBlock *B, unsigned From, unsigned To) {
      auto It = Events.find(B);
      if (It == Events.end())
        return false;
      for (const Event &E : It->second)
        if (E.K == Event::Write && V.isChangedBy(E.Var) && E.Index >= From &&
            E.Index < To)
          return true;
      return false;
    };
    const unsigned End = ~0U;
    if (G.Block == U.Block && G.Index < U.Index)
      return !WrittenIn(G.Block, G.Index + 1, U.Index);
    if (WrittenIn(G.Block, G.Index + 1, End))
      return false;
    llvm::DenseSet<const CFGBlock *> Seen;
    llvm::SmallVector<const CFGBlock *, 16> Work;
    auto PushSuccessors = [&](const CFGBlock *B) {
      for (const auto &S : B->succs())
        if (const CFGBlock *Next = S.getReachableBlock())
          if (Seen.insert(Next).second)
            Work.push_back(Next);
    };
    PushSuccessors(G.Block);
    while (!Work.empty()) {
      const CFGBlock *B = Work.pop_back_val();
      if (B == U.Block && !WrittenIn(B, 0, U.Index))
        return true;
      if (!WrittenIn(B, 0, End))
        PushSuccessors(B);
    }
    return false;
  }

  /// A write to \p V on some path from the guard point \p G to the use \p U.
  bool writtenBetween(const IndexVar &V, Point G, Point U) {
    auto Writes = [&](const CFGBlock *B, auto &&InRange) {
      auto It = Events.find(B);
      if (It == Events.end())
        return false;
      for (const Event &E : It->second)
        if (E.K == Event::Write && V.isChangedBy(E.Var) && InRange(E.Index))
          return true;
      return false;
    };
    if (G.Block == U.Block)
      return Writes(G.Block,
                    [&](unsigned I) { return I >= G.Index && I < U.Index; });
    if (Writes(G.Block, [&](unsigned I) { return I >= G.Index; }))
      return true;
    auto Fwd = reach(G.Block, G.Block, /*Forward=*/true);
    auto Bwd = reach(U.Block, G.Block, /*Forward=*/false);
    bool UseInLoop = reach(U.Block, G.Block, true).count(U.Block);
    if (Writes(U.Block, [&](unsigned I) { return UseInLoop || I < U.Index; }))
      return true;
    for (const CFGBlock *B : Fwd)
      if (B != U.Block && Bwd.count(B) &&
          Writes(B, [](unsigned) { return true; }))
        return true;
    return false;
  }

  const Stmt *findGuardAt(const IndexVar &V, Point U) {
    if (!U)
      return nullptr;
    buildEvents();
    for (const BranchGuard &BG : Branches) {
      if (!(BG.Var == V))
        continue;
      const Point G{BG.Successor, 0};
      if (dominates(G, U) && !writtenBetween(V, G, U))
        return BG.Condition;
    }
    for (const auto &[Block, List] : Events) {
      for (const Event &E : List) {
        if (!(E.Var == V))
          continue;
        const bool IsGuard = E.K == Event::Guard;
        const Point G{Block, E.Index + 1};
        if (!IsGuard && E.AssignedValue) {
          // `ids = ids.clamp(0, n - 1);` makes it safe from here on.
          if (!dominates(G, U) || writtenBetween(V, G, U))
            continue;
          if (classifyExpr(E.AssignedValue, Point{Block, E.Index}).K ==
              IndexOrigin::Safe)
            return E.S;
          continue;
        }
        if (IsGuard && dominates(G, U) && !writtenBetween(V, G, U))
          return E.S;
      }
    }
    return nullptr;
  }

  IndexOrigin classifyVar(const IndexVar &V, const Expr *Ref, Point P) {
    if (const Stmt *Guard = findGuardAt(V, P))
      return make(IndexOrigin::Safe, IndexOrigin::Guarded, Guard);
    if (V.Field) {
      if (!V.Base)
        return make(IndexOrigin::Unsafe, IndexOrigin::Member, Ref, V.Field);
      if (isDataExample(V.Base->getType()))
        return make(IndexOrigin::Unsafe, IndexOrigin::BatchField, Ref, V.Field);
      return make(IndexOrigin::Unsafe, IndexOrigin::Member, Ref, V.Field);
    }
    // A variable of an enclosing function, captured by a lambda: its guards
    // are in another CFG; say nothing.
    if (!isa<BindingDecl>(V.Base) &&
        !cast<VarDecl>(V.Base)->hasGlobalStorage() &&
        V.Base->getDeclContext() != FD)
      return make(IndexOrigin::Unknown, IndexOrigin::None);
    if (const auto *PVD = dyn_cast<ParmVarDecl>(V.Base))
      return make(IndexOrigin::Unsafe, IndexOrigin::Parameter, Ref, PVD);
    if (const auto *BD = dyn_cast<BindingDecl>(V.Base)) {
      const auto *DD = dyn_cast_or_null<VarDecl>(BD->getDecomposedDecl());
      if (!DD || !DD->getInit())
        return make(IndexOrigin::Unknown, IndexOrigin::None);
      const Point At = Cfg ? Fn->declaredAt(DD) : Point{};
      return classifyExpr(DD->getInit(), At ? At : P);
    }
    const auto *VD = dyn_cast<VarDecl>(V.Base);
    if (!VD)
      return make(IndexOrigin::Unknown, IndexOrigin::None);
    if (VD->hasGlobalStorage())
      return make(IndexOrigin::Unsafe, IndexOrigin::Global, Ref, VD);
    if (!(Cfg && Fn->declaredAt(VD)) && !Definitions.count(VD))
      return make(IndexOrigin::Unknown, IndexOrigin::None);
    // `for (auto &ids : all_ids)`: an element of a container.
    if (VD->isCXXForRangeDecl())
      return make(IndexOrigin::Unsafe, IndexOrigin::Element, Ref, VD);
    auto It = Definitions.find(VD);
    if (It == Definitions.end() || It->second.empty())
      return make(IndexOrigin::Unknown, IndexOrigin::None);
    if (!Classifying.insert(VD).second)
      return make(IndexOrigin::Safe, IndexOrigin::None); // neutral
    IndexOrigin Result = make(IndexOrigin::Safe, IndexOrigin::None);
    bool First = true;
    for (const auto &[Value, At] : It->second) {
      const IndexOrigin O = classifyExpr(Value, At);
      Result = First ? O : worst(Result, O);
      First = false;
    }
    Classifying.erase(VD);
    return Result;
  }

  IndexOrigin classifyExpr(const Expr *E, Point P) {
    if (!E || ClassifyDepth > limits::OriginDepth)
      return make(IndexOrigin::Unknown, IndexOrigin::None);
    struct DepthGuard {
      unsigned &D;
      DepthGuard(unsigned &D) : D(D) { ++D; }
      ~DepthGuard() { --D; }
    } const Guard(ClassifyDepth);

    E = peel::peel(E, peel::TensorValue);
    if (auto V = directVariable(E))
      return classifyVar(*V, E, P);
    if (const Expr *Inner = valuePreservingOperand(E))
      return classifyExpr(Inner, P);
    if (const auto *CO = dyn_cast<ConditionalOperator>(E))
      return worst(classifyExpr(CO->getTrueExpr(), P),
                   classifyExpr(CO->getFalseExpr(), P));
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call)
      return make(IndexOrigin::Unknown, IndexOrigin::None);
    const OpCall C = OpCall::of(Call);
    if (std::optional<IndexOrigin> O = calls().find(C, *this, P))
      return std::move(*O);
    return make(IndexOrigin::Unsafe, IndexOrigin::CallResult, Call, nullptr,
                calleeName(Call));
  }

  using R = std::optional<IndexOrigin>;
  using Switch = OpSwitch<IndexOrigin, Impl &, Point>;

  /// Where a call's values come from, as the op table says; none for a call
  /// of the program's own (a CallResult).
  static const Switch &calls() {
    static const Switch Calls =
        Switch()
            // std::get<1>(x.topk(5)).
            .caseOf(facts(op::TupleElement).args(1),
                    [](const OpCall &C, Impl &I, Point P) -> R {
                      return I.classifyExpr(C.Call->getArg(0), P);
                    })
            .caseOf(anyCall(),
                    [](const OpCall &C, Impl &I, Point P) -> R {
                      if (const Expr *Whole = wholeOfSplitPiece(C.Call))
                        return I.classifyExpr(Whole, P);
                      return std::nullopt;
                    })
            // What an index op reads from a safe index is a subset of its
            // values: `torch::randperm(n).index({Slice(None, k)})`,
            // `order.index_select(0, i)` (the op's own index is checked
            // where it is used).
            .caseOf(anyCall(),
                    [](const OpCall &C, Impl &I, Point P) -> R {
                      std::optional<IndexOpSite> Read = matchIndexOp(C.Call);
                      if (!Read || !Read->Source ||
                          (Read->K != IndexOpSite::IndexSelect &&
                           Read->K != IndexOpSite::Gather &&
                           Read->K != IndexOpSite::Take &&
                           Read->K != IndexOpSite::AdvancedIndex))
                        return std::nullopt;
                      IndexOrigin Source = I.classifyExpr(Read->Source, P);
                      if (Source.K == IndexOrigin::Safe)
                        return Source;
                      return std::nullopt;
                    })
            // LibTorch's functions and tensor methods: torchOps, else a
            // value computed (or memory wrapped) by LibTorch.
            .caseOf(anyCall(),
                    [](const OpCall &C, Impl &I, Point P) -> R {
                      const StringRef Name = torchCalleeName(C.Call);
                      if (Name.empty())
                        return std::nullopt;
                      if (R O = torchOps().find(C, I, P))
                        return O;
                      return make(IndexOrigin::Unsafe,
                                  (C.Facts & op::WrapsMemory)
                                      ? IndexOrigin::CallResult
                                      : IndexOrigin::Computed,
                                  C.Call, nullptr, Name.str());
                    })
            // Tensor arithmetic: `ids + 1`.
            .caseOf(anyCall(), [](const OpCall &C, Impl &, Point) -> R {
              const auto *Op = dyn_cast<CXXOperatorCallExpr>(C.Call);
              const auto *MD = dyn_cast_or_null<CXXMethodDecl>(C.Callee);
              if (!Op ||
                  !((MD && isTensorMethod(MD)) || isTorchFunction(C.Callee)))
                return std::nullopt;
              return make(IndexOrigin::Unsafe, IndexOrigin::Computed, C.Call,
                          nullptr, getOperatorSpelling(Op->getOperator()));
            });
    return Calls;
  }

  /// The LibTorch ops whose values the table bounds: producers of valid
  /// indices, bounding ops, literal tensors, concatenations.
  static const Switch &torchOps() {
    static const Switch Ops =
        Switch()
            .caseOf(facts(op::IndexProducer),
                    [](const OpCall &C, Impl &, Point) -> R {
                      return make(IndexOrigin::Safe, IndexOrigin::Producer,
                                  C.Call, nullptr,
                                  torchCalleeName(C.Call).str());
                    })
            .caseOf(facts(op::BoundsModulo | op::BoundsClamp),
                    [](const OpCall &C, Impl &, Point) -> R {
                      if (!isBoundingCall(C.Call, C.Facts))
                        return std::nullopt;
                      return make(IndexOrigin::Safe, IndexOrigin::Bounded,
                                  C.Call);
                    })
            .caseOf(facts(op::LiteralTensor),
                    [](const OpCall &C, Impl &I, Point) -> R {
                      if (literalIds(C.Call, I.Ctx))
                        return make(IndexOrigin::Safe, IndexOrigin::Literal,
                                    C.Call);
                      return make(IndexOrigin::Unsafe, IndexOrigin::Computed,
                                  C.Call, nullptr,
                                  torchCalleeName(C.Call).str());
                    })
            .caseOf(facts(op::Concatenates),
                    [](const OpCall &C, Impl &I, Point P) -> R {
                      const InitListExpr *IL =
                          C.Call->getNumArgs() < 1
                              ? nullptr
                              : peel::writtenList(C.Call->getArg(0));
                      if (!IL)
                        return make(IndexOrigin::Unknown, IndexOrigin::None);
                      IndexOrigin Result =
                          make(IndexOrigin::Safe, IndexOrigin::Producer, C.Call,
                               nullptr, torchCalleeName(C.Call).str());
                      for (const Expr *Part : IL->inits())
                        Result = worst(Result, I.classifyExpr(Part, P));
                      return Result;
                    });
    return Ops;
  }

  /// The normal returns: exit's predecessors that do not end in a throw or
  /// a call that does not return.
  bool guardsParameter(unsigned Index) {
    if (!Cfg || Index >= FD->getNumParams())
      return false;
    const ParmVarDecl *PVD = FD->getParamDecl(Index);
    if (!isTensorType(PVD->getType().getNonReferenceType()))
      return false;
    const IndexVar V{PVD, nullptr};
    const CFGBlock &Exit = Cfg->getExit();
    unsigned Returns = 0;
    for (const auto &Pred : Exit.preds()) {
      const CFGBlock *B = Pred.getReachableBlock();
      if (!B || B->hasNoReturnElement())
        continue;
      if (!B->empty())
        if (auto Last = B->back().getAs<CFGStmt>())
          if (isa<CXXThrowExpr>(Last->getStmt()))
            continue;
      ++Returns;
      // `TORCH_CHECK(...)` as the last statement: the check's block itself
      // branches to the exit.
      if (!findGuardAt(V, Point{B, B->size()}) && !testsRange(B, V))
        return false;
    }
    return Returns > 0;
  }
};

IndexGuardFinder::IndexGuardFinder(const FunctionDecl *FD,
                                   IndexGuardAnalysis &Owner, unsigned Depth)
    : P(std::make_unique<Impl>(FD, Owner, Depth)) {}

IndexGuardFinder::~IndexGuardFinder() = default;

bool IndexGuardFinder::valid() const { return P->Cfg != nullptr; }

IndexOrigin IndexGuardFinder::classify(const Expr *Index, const Stmt *Use) {
  if (!valid())
    return {};
  const Point U = P->pointOf(Use);
  if (!U)
    return {};
  P->buildEvents();
  return P->classifyExpr(Index, U);
}

const Stmt *IndexGuardFinder::findGuard(const IndexVar &V, const Stmt *Use) {
  if (!valid())
    return nullptr;
  return P->findGuardAt(V, P->pointOf(Use));
}

bool IndexGuardFinder::guardsParameter(unsigned Index) {
  return valid() && P->guardsParameter(Index);
}

std::vector<const Expr *> IndexGuardFinder::definitionsOf(const ValueDecl *D) {
  std::vector<const Expr *> Out;
  if (!valid())
    return Out;
  P->buildEvents();
  auto It = P->Definitions.find(D);
  if (It != P->Definitions.end())
    for (const auto &[Value, At] : It->second)
      Out.push_back(Value);
  return Out;
}

std::vector<const Expr *>
IndexGuardFinder::reachingDefinitionsOf(const ValueDecl *D, const Stmt *Use) {
  std::vector<const Expr *> Out;
  if (!valid())
    return Out;
  P->buildEvents();
  const Point U = P->pointOf(Use);
  auto It = P->Definitions.find(D);
  if (!U || It == P->Definitions.end())
    return Out;
  for (const auto &[Value, At] : It->second)
    if (P->reachesUnwritten(IndexVar{D, nullptr}, At, U))
      Out.push_back(Value);
  return Out;
}

std::vector<const Stmt *> IndexGuardFinder::writesOf(const IndexVar &V) {
  std::vector<const Stmt *> Out;
  if (!valid())
    return Out;
  P->buildEvents();
  for (const auto &[Block, List] : P->Events)
    for (const Event &E : List)
      if (E.K == Event::Write && V.isChangedBy(E.Var))
        Out.push_back(E.S);
  return Out;
}

std::vector<const Stmt *> IndexGuardFinder::rangeTestsOf(const IndexVar &V) {
  std::vector<const Stmt *> Out;
  if (!valid())
    return Out;
  P->buildEvents();
  for (const auto &[Block, List] : P->Events)
    for (const Event &E : List)
      if (E.K == Event::Guard && E.Var == V)
        Out.push_back(E.S);
  for (const BranchGuard &BG : P->Branches)
    if (BG.Var == V && llvm::find(Out, BG.Condition) == Out.end())
      Out.push_back(BG.Condition);
  // TORCH_CHECK(cond) is a branch on cond whose other side ends the
  // program; a condition of any block that tests V counts too.
  for (const CFGBlock *B : *P->Cfg) {
    if (!B)
      continue;
    const Stmt *Cond = B->getTerminatorCondition();
    if (!Cond || llvm::find(Out, Cond) != Out.end())
      continue;
    llvm::SmallVector<IndexVar, 2> Vars;
    collectRangeTests(Cond, Vars);
    if (llvm::is_contained(Vars, V))
      Out.push_back(Cond);
  }
  std::sort(Out.begin(), Out.end(), [](const Stmt *A, const Stmt *B) {
    return A->getBeginLoc().getRawEncoding() <
           B->getBeginLoc().getRawEncoding();
  });
  return Out;
}

std::vector<IndexVar> IndexGuardFinder::testedVariables() {
  std::vector<std::pair<const Stmt *, IndexVar>> Found;
  if (!valid())
    return {};
  P->buildEvents();
  for (const auto &[Block, List] : P->Events)
    for (const Event &E : List)
      if (E.K == Event::Guard)
        Found.emplace_back(E.S, E.Var);
  for (const BranchGuard &BG : P->Branches)
    Found.emplace_back(BG.Condition, BG.Var);
  for (const CFGBlock *B : *P->Cfg) {
    const Stmt *Cond = B ? B->getTerminatorCondition() : nullptr;
    if (!Cond)
      continue;
    llvm::SmallVector<IndexVar, 2> Vars;
    collectRangeTests(Cond, Vars);
    for (const IndexVar &V : Vars)
      Found.emplace_back(Cond, V);
  }
  const SourceManager &SM = P->Ctx.getSourceManager();
  std::sort(Found.begin(), Found.end(), [&](const auto &A, const auto &B) {
    return SM.isBeforeInTranslationUnit(
        SM.getExpansionLoc(A.first->getBeginLoc()),
        SM.getExpansionLoc(B.first->getBeginLoc()));
  });
  std::vector<IndexVar> Out;
  for (const auto &[S, V] : Found)
    if (!llvm::is_contained(Out, V))
      Out.push_back(V);
  return Out;
}

bool IndexGuardFinder::dominates(const Stmt *A, const Stmt *B) {
  if (!valid())
    return false;
  Point PA = P->pointOf(A), PB = P->pointOf(B);
  if (!PA) {
    P->buildEvents();
    PA = P->definitionPoint(A);
  }
  return PA && PB && P->dominates(PA, PB);
}

const FunctionDecl *IndexGuardFinder::function() const { return P->FD; }

//===----------------------------------------------------------------------===//
// IndexGuardAnalysis
//===----------------------------------------------------------------------===//

IndexGuardAnalysis::IndexGuardAnalysis(ASTContext &Ctx, IndexGuardConfig Config)
    : Ctx(Ctx), Config(std::move(Config)) {}

IndexGuardAnalysis::~IndexGuardAnalysis() = default;

IndexGuardFinder &IndexGuardAnalysis::finder(const FunctionDecl *FD) {
  std::unique_ptr<IndexGuardFinder> &Slot = Finders[{FD, 0}];
  if (!Slot)
    Slot = std::make_unique<IndexGuardFinder>(FD, *this, 0);
  return *Slot;
}

bool IndexGuardAnalysis::callGuardsArgument(const FunctionDecl *Callee,
                                            unsigned Param, unsigned Depth) {
  if (!Callee)
    return false;
  for (const std::string &Name : Config.GuardFunctions)
    if (nameMatches(Callee, Name))
      return true;
  const FunctionDecl *Def = nullptr;
  if (!Callee->hasBody(Def) || !Def || Depth > Config.MaxHelperDepth ||
      isTorchFunction(Def) || !isUserDecl(Def))
    return false;
  // What a helper guards depends on how deep it is asked (a finder follows
  // its own helpers to the depth limit only): memo and finder per depth.
  const auto Key = std::make_tuple(Def, Param, Depth);
  auto It = HelperMemo.find(Key);
  if (It != HelperMemo.end())
    return It->second;
  HelperMemo[Key] = false; // recursion: not (yet) known to guard
  // Finders may grow while the helper is analysed: keep the pointer only.
  IndexGuardFinder *Helper = Finders[{Def, Depth}].get();
  if (!Helper) {
    auto New = std::make_unique<IndexGuardFinder>(Def, *this, Depth);
    Helper = New.get();
    Finders[{Def, Depth}] = std::move(New);
  }
  const bool Guards = Helper->guardsParameter(Param);
  HelperMemo[Key] = Guards;
  return Guards;
}

} // namespace torchtidy
