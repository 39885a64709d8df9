//===--- IndexLengths.cpp - A run-time length across files ----------------===//
//
// Kind 2 of libtorch-unchecked-index (a length known only at run time into
// a table of fixed rows) when the length and the table are in two files:
// a function whose parameter's length is where an index made from it ends
// (`pos(torch::arange(idx.size(1)))`), with nothing relating the length to
// the rows, says so in its project summary (lengthParams), with the rows as
// a caller can name them; a caller in another file that passes a tensor
// whose length grows in a loop (`idx = torch::cat({idx, next}, 1)`) and
// does not bound it by the rows is the evidence.
// Part of IndexRangeAnalysis (IndexRangesImpl.h).
//
//===----------------------------------------------------------------------===//

#include "IndexRangesImpl.h"
#include "torchtidy/analysis/FunctionContext.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/ProjectSummaries.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/SaveAndRestore.h"

#include <tuple>

using namespace clang;

namespace torchtidy {

using namespace ranges;

namespace {

/// The loop statements around \p S in \p Fn's body, innermost first, each
/// with the body \p S is in.
llvm::SmallVector<std::pair<const Stmt *, const Stmt *>, 2>
loopsAround(FunctionContext &Fn, const Stmt *S) {
  llvm::SmallVector<std::pair<const Stmt *, const Stmt *>, 2> Out;
  const Stmt *Child = S;
  for (const Stmt *P = Fn.parentOf(S); P; Child = P, P = Fn.parentOf(P)) {
    const Stmt *Body = nullptr;
    if (const auto *For = dyn_cast<ForStmt>(P))
      Body = For->getBody();
    else if (const auto *While = dyn_cast<WhileStmt>(P))
      Body = While->getBody();
    else if (const auto *Do = dyn_cast<DoStmt>(P))
      Body = Do->getBody();
    else if (const auto *Range = dyn_cast<CXXForRangeStmt>(P))
      Body = Range->getBody();
    if (Body && Body == Child)
      Out.push_back({P, Body});
  }
  return Out;
}

/// The field of \p RD whose USR is \p USR.
const FieldDecl *fieldByUSR(const CXXRecordDecl *RD, llvm::StringRef USR) {
  if (!RD || !RD->hasDefinition())
    return nullptr;
  for (const FieldDecl *F : RD->getDefinition()->fields())
    if (usrOf(F) == USR)
      return F;
  return nullptr;
}

} // namespace

llvm::ArrayRef<LengthParam>
IndexRangeAnalysis::Impl::lengthParams(const FunctionDecl *FD) {
  if (auto It = Lengths.find(FD); It != Lengths.end())
    return It->second;
  std::vector<LengthParam> Out;
  IndexGuardFinder &F = Guards.finder(FD);
  if (F.valid())
    forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      const auto *Call = dyn_cast<CallExpr>(S);
      std::optional<IndexOpSite> Site = matchIndexSink(Call);
      if (!Site || !Site->Index || Site->K == IndexOpSite::LossTarget)
        return;
      if (std::optional<IndexVar> V = indexVariable(Site->Index);
          V && F.findGuard(*V, Call))
        return;
      const IndexRange R = rangeOf(FD, Site->Index, Call);
      // An interval from 0 (or more) up to a length, and nothing else: the
      // other kinds are reported in this file.
      if (!R.HasInterval || R.OpBound || R.External || R.Opaque ||
          !R.Values.empty() || R.Lo.K != Quantity::Constant || R.Lo.Offset < 0)
        return;
      const Quantity &Hi = R.Hi;
      const auto *Param = dyn_cast_or_null<ParmVarDecl>(Hi.Base);
      if (Hi.K != Quantity::Runtime || Hi.Field || Hi.Container || !Param ||
          Param->getDeclContext() != FD)
        return;
      const TableSize T = tableOf(FD, *Site);
      if (T.Rows.K != Quantity::Constant && T.Rows.K != Quantity::Named)
        return;
      // Related here, or a length the function makes its own (`x =
      // torch::cat({x, y}, 1)`): not the callers' to say.
      if (atMostRows(Hi, T.Rows) || relatesInFunction(FD, Hi, T.Rows, Call) ||
          !keepsIncoming(FD, Param))
        return;
      LengthParam L;
      L.Param = Param->getFunctionScopeIndex();
      L.Dim = Hi.Dim;
      L.Offset = Hi.Offset;
      L.Sink = Call;
      L.Site = *Site;
      L.Made = R.Interval ? R.Interval : Site->Index;
      L.Table = T;
      Out.push_back(std::move(L));
    });
  auto &Slot = Lengths[FD];
  Slot = std::move(Out);
  return Slot;
}

bool IndexRangeAnalysis::Impl::loopBounds(const FunctionDecl *FD,
                                          const Quantity &Len,
                                          const Quantity &Rows, const Stmt *Use,
                                          const ValueDecl *Var) {
  FunctionContext *Fn = FunctionContexts::of(Ctx).get(FD);
  if (!Fn || !Use)
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  IndexGuardFinder &F = Guards.finder(FD);
  const std::vector<const Expr *> Defs = F.definitionsOf(Var);
  for (const auto &LoopAndBody : loopsAround(*Fn, Use)) {
    const Stmt *Loop = LoopAndBody.first, *Body = LoopAndBody.second;
    // A do-while tests its condition after the body.
    const Expr *Cond = nullptr;
    if (const auto *For = dyn_cast<ForStmt>(Loop))
      Cond = For->getCond();
    else if (const auto *While = dyn_cast<WhileStmt>(Loop))
      Cond = While->getCond();
    if (!Cond)
      continue;
    // Written in the body before the use: the condition held before that.
    const bool WrittenBefore = llvm::any_of(Defs, [&](const Expr *D) {
      return holds(Body, D) &&
             SM.isBeforeInTranslationUnit(D->getBeginLoc(), Use->getBeginLoc());
    });
    if (WrittenBefore)
      continue;
    llvm::SmallVector<Fact, 4> Facts;
    factsOf(Cond, true, Facts);
    for (const Fact &Fa : Facts)
      if (implies(FD, Fa, Len, Rows))
        return true;
  }
  return false;
}

bool IndexRangeAnalysis::Impl::laterInLoop(const FunctionDecl *FD,
                                           const Expr *Def, const Stmt *Use,
                                           const Stmt *Point) {
  FunctionContext *Fn = FunctionContexts::of(Ctx).get(FD);
  if (!Fn || !Def || !Use || !Point)
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  for (const auto &LoopAndBody : loopsAround(*Fn, Use)) {
    const Stmt *Body = LoopAndBody.second;
    if (!holds(Body, Def))
      continue; // an outer loop may hold it
    return holds(Body, Point) &&
           SM.isBeforeInTranslationUnit(Use->getEndLoc(), Def->getBeginLoc());
  }
  return false;
}

llvm::ArrayRef<LengthParam>
IndexRangeAnalysis::lengthParams(const FunctionDecl *FD) {
  return P->lengthParams(FD);
}

std::optional<GrowingLength>
IndexRangeAnalysis::growingArgument(const FunctionDecl *FD, const Expr *Arg) {
  Impl &I = *P;
  auto N = namedValue(Arg);
  const auto *VD =
      N && !N->second ? dyn_cast_or_null<VarDecl>(N->first) : nullptr;
  FunctionContext *Fn = FunctionContexts::of(I.Ctx).get(FD);
  if (!VD || !VD->hasLocalStorage() || !Fn)
    return std::nullopt;
  IndexGuardFinder &F = I.Guards.finder(FD);
  if (!F.valid())
    return std::nullopt;
  for (const Expr *Def : F.definitionsOf(VD)) {
    const auto *Cat = dyn_cast<CallExpr>(unwrap(Def));
    if (!Cat || !(callFacts(Cat) & op::Concatenates))
      continue;
    const bool OfItself =
        llvm::any_of(listElements(argAt(Cat, 0)), [&](const Expr *Part) {
          auto Src = namedValue(Part);
          return Src && Src->first == VD && !Src->second;
        });
    int64_t Dim = 0;
    if (const Expr *D = argAt(Cat, 1);
        D && !isa<CXXDefaultArgExpr>(D) && !evaluateInt(D, I.Ctx, Dim))
      continue;
    if (OfItself && !loopsAround(*Fn, Cat).empty())
      return GrowingLength{Cat, VD, Dim};
  }
  return std::nullopt;
}

bool IndexRangeAnalysis::lengthBoundAtCall(
    const FunctionDecl *FD, const CallExpr *Call, const GrowingLength &G,
    int64_t Offset, const std::optional<Quantity> &Rows) {
  Impl &I = *P;
  Quantity Len = I.runtime(G.Var, nullptr, G.Dim, false, nullptr);
  Len.Offset = Offset;
  // Without the rows, any bound: a placeholder that the relations do not
  // compare with.
  const Quantity Against = Rows ? *Rows : Quantity::constant(0, nullptr);
  const llvm::SaveAndRestore<bool> Guard(I.AnyRows, !Rows);
  return I.relatesInFunction(FD, Len, Against, Call) ||
         I.loopBounds(FD, Len, Against, Call, G.Var);
}

SummaryRows IndexRangeAnalysis::summaryRows(const FunctionDecl *FD,
                                            const TableSize &Table) {
  Impl &I = *P;
  SummaryRows Out;
  const Quantity &Rows = Table.Rows;
  Out.Offset = Rows.Offset;
  if (Rows.K == Quantity::Constant) {
    Out.Constant = Rows.Offset;
    Out.Offset = 0;
    return Out;
  }
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  if (Rows.K != Quantity::Named || !MD)
    return Out;
  const CXXRecordDecl *Class = MD->getParent();
  auto CtorOf = [&](const ValueDecl *Param) -> const CXXConstructorDecl * {
    const auto *PVD = dyn_cast_or_null<ParmVarDecl>(Param);
    const auto *Ctor =
        PVD ? dyn_cast<CXXConstructorDecl>(PVD->getDeclContext()) : nullptr;
    return Ctor && Ctor->getParent()->getCanonicalDecl() ==
                       Class->getCanonicalDecl()
               ? Ctor
               : nullptr;
  };
  auto Add = [&](const ValueDecl *Param, const FieldDecl *Field,
                 int64_t Offset) {
    if (const CXXConstructorDecl *Ctor = CtorOf(Param))
      Out.Constructors.push_back(
          {usrOf(Ctor), cast<ParmVarDecl>(Param)->getFunctionScopeIndex(),
           Field ? usrOf(Field) : "", Offset});
  };
  // A constructor's parameter itself (`Embedding(block, d)` in the
  // constructor, with no member that keeps it).
  if (CtorOf(Rows.Base)) {
    Add(Rows.Base, Rows.Field, 0);
    return Out;
  }
  const auto *Outer = dyn_cast_or_null<FieldDecl>(Rows.Base);
  if (!Rows.Field || (Rows.Base && !Outer))
    return Out;
  const Impl::Aliases &A = I.aliasesOf(Class);
  if (!Outer) {
    // `block_`, set from a parameter (or a field of one): member = that
    // - the alias' offset.
    Out.Members.push_back(usrOf(Rows.Field));
    for (const auto &[Key, Member] : A.Values)
      if (!Member.Base && Member.Field == Rows.Field)
        Add(Key.first, Key.second, -Member.Offset);
  } else {
    // `config_.block_size`, with `config_(config)`.
    Out.Members = {usrOf(Outer), usrOf(Rows.Field)};
    for (const auto &[Param, Member] : A.Structs)
      if (Member == Outer)
        Add(Param, Rows.Field, 0);
  }
  // DenseMap order is not the source's: one order for the summary.
  llvm::sort(Out.Constructors, [](const SummaryRows::FromConstructor &L,
                                  const SummaryRows::FromConstructor &R) {
    return std::tie(L.Ctor, L.Param, L.Field, L.Offset) <
           std::tie(R.Ctor, R.Param, R.Field, R.Offset);
  });
  return Out;
}

std::optional<Quantity>
IndexRangeAnalysis::rowsAtCall(const FunctionDecl *FD, const CallExpr *Call,
                               const SummaryRows &Rows) {
  Impl &I = *P;
  if (Rows.Constant)
    return Quantity::constant(*Rows.Constant, nullptr);
  // The object the method is called on, and its class.
  const Expr *Object = nullptr;
  const CXXRecordDecl *Class = nullptr;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
    Object = MC->getImplicitObjectArgument();
    Class = MC->getMethodDecl() ? MC->getMethodDecl()->getParent() : nullptr;
  } else {
    const Expr *ModuleExpr = nullptr;
    Class = moduleForwardCall(Call, &ModuleExpr);
    Object = ModuleExpr;
  }
  if (!Object || !Class)
    return std::nullopt;
  Object = peel::peel(Object, peel::ParenImpCasts);
  if (const auto *Arrow = dyn_cast<CXXOperatorCallExpr>(Object);
      Arrow && Arrow->getOperator() == OO_Arrow && Arrow->getNumArgs() == 1)
    Object = peel::peel(Arrow->getArg(0), peel::ParenImpCasts);

  // A method of the class called on `this`: its members.
  if (isa<CXXThisExpr>(Object) && !Rows.Members.empty()) {
    const FieldDecl *Member = fieldByUSR(Class, Rows.Members[0]);
    if (!Member)
      return std::nullopt;
    Quantity Q;
    if (Rows.Members.size() == 1) {
      Q = I.named(nullptr, Member, nullptr);
    } else if (const FieldDecl *Field = fieldByUSR(
                   Member->getType()->getAsCXXRecordDecl(), Rows.Members[1]);
               Field && Rows.Members.size() == 2) {
      Q = I.named(Member, Field, nullptr);
    } else {
      return std::nullopt;
    }
    Q.Offset = Rows.Offset;
    return Q;
  }

  // A local this function constructs: the argument of the constructor
  // parameter the rows come from.
  const auto *DRE = dyn_cast<DeclRefExpr>(Object);
  const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!VD || !VD->isLocalVarDecl() || !VD->getInit() ||
      Rows.Constructors.empty())
    return std::nullopt;
  llvm::SmallVector<const Expr *, 4> Args;
  llvm::SmallVector<const CXXConstructorDecl *, 2> Candidates;
  // What only carries the construction: the compiler's wrappers, a
  // functional cast (`Gpt(cfg)`), a copy or move of a temporary.
  const Expr *Made =
      peel::peel(VD->getInit(), peel::Copied | peel::FunctionalCasts);
  auto TakeArgs = [&](auto Range) {
    for (const Expr *A : Range)
      if (!isa<CXXDefaultArgExpr>(A))
        Args.push_back(A);
  };
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Made)) {
    TakeArgs(CE->arguments());
    if (CE->getConstructor()->getParent()->getCanonicalDecl() ==
        Class->getCanonicalDecl())
      Candidates.push_back(CE->getConstructor());
    else if (getHolderModule(VD->getType()) &&
             getHolderModule(VD->getType())->getCanonicalDecl() ==
                 Class->getCanonicalDecl())
      Candidates.append(Class->ctor_begin(), Class->ctor_end());
  } else if (const auto *MakeShared = dyn_cast<CallExpr>(Made);
             MakeShared && getSharedPtrModule(MakeShared->getType()) &&
             getSharedPtrModule(MakeShared->getType())->getCanonicalDecl() ==
                 Class->getCanonicalDecl()) {
    if (callFacts(MakeShared) & op::MakesShared) {
      TakeArgs(MakeShared->arguments());
      Candidates.append(Class->ctor_begin(), Class->ctor_end());
    }
  }
  // The one constructor of the summary the arguments can call.
  const SummaryRows::FromConstructor *From = nullptr;
  const CXXConstructorDecl *Chosen = nullptr;
  for (const SummaryRows::FromConstructor &C : Rows.Constructors)
    for (const CXXConstructorDecl *D : Candidates) {
      if (D->getMinRequiredArguments() > Args.size() ||
          D->getNumParams() < Args.size() || usrOf(D) != C.Ctor)
        continue;
      if (Chosen && Chosen != D)
        return std::nullopt;
      Chosen = D;
      From = &C;
    }
  if (!From || From->Param >= Args.size())
    return std::nullopt;
  const Expr *Arg = Args[From->Param];
  Quantity Q;
  if (From->Field.empty()) {
    Q = I.quantityOf(FD, Arg);
  } else if (const FieldDecl *Field = fieldByUSR(
                 Arg->getType().getNonReferenceType()->getAsCXXRecordDecl(),
                 From->Field)) {
    auto N = namedValue(Arg);
    if (!N || (N->first && N->second))
      return std::nullopt;
    Q = N->second ? I.named(N->second, Field, Arg)
                  : I.fieldOf(FD, N->first, Field, Arg);
  }
  if (Q.K != Quantity::Constant && Q.K != Quantity::Named)
    return std::nullopt;
  Q.Offset += From->Offset + Rows.Offset;
  return Q;
}

} // namespace torchtidy
