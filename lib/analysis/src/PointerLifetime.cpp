//===--- PointerLifetime.cpp - Pointers that outlive their memory ---------===//

#include "PointerLifetimeImpl.h"
#include "torchtidy/analysis/FunctionContext.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <deque>
#include <optional>

using namespace clang;

namespace torchtidy {

// The analysis' helpers (PointerLifetimeImpl.h).
namespace lifetime {

bool isTensor(QualType T) { return isTensorType(T.getNonReferenceType()); }

/// The same value, seen through what the AST wraps it in.
bool sameValue(const Expr *A, const Expr *B) {
  return A && B && peelValue(A) == peelValue(B);
}

const Expr *assignmentLHS(const Stmt *S, const Expr **RHS) {
  if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
    if (BO->getOpcode() != BO_Assign)
      return nullptr;
    if (RHS)
      *RHS = BO->getRHS();
    return BO->getLHS();
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S)) {
    if (Op->getOperator() != OO_Equal || Op->getNumArgs() != 2)
      return nullptr;
    if (RHS)
      *RHS = Op->getArg(1);
    return Op->getArg(0);
  }
  return nullptr;
}

/// \p S writes variable \p V as a whole (an assignment, or the declaration
/// itself reached again in a loop); the value written in *RHS.
bool definesVar(const Stmt *S, const ValueDecl *V, const Expr **RHS) {
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls())
      if (D == V) {
        if (RHS)
          *RHS = cast<VarDecl>(D)->getInit();
        return true;
      }
    return false;
  }
  const Expr *LHS = assignmentLHS(S, RHS);
  return LHS && peel::referencedDecl(LHS) == V;
}

/// The variable whose lifetime ends at \p E (its scope's end or its
/// destructor), if \p E is such an element.
const VarDecl *lifetimeEnd(const CFGElement &E, const Stmt **Trigger) {
  if (auto L = E.getAs<CFGLifetimeEnds>()) {
    *Trigger = L->getTriggerStmt();
    return L->getVarDecl();
  }
  if (auto D = E.getAs<CFGAutomaticObjDtor>()) {
    *Trigger = D->getTriggerStmt();
    return D->getVarDecl();
  }
  return nullptr;
}

/// A class a LibTorch program keeps tensors in: torch::data::Example, and
/// the standard library's pairs, tuples, optionals and containers.
bool holdsTensors(const CXXRecordDecl *RD) {
  if (!RD)
    return false;
  if (RD->isInStdNamespace())
    return true;
  return inNamespaceOf(RD, KnownClass::Example);
}

} // namespace lifetime

using namespace lifetime;

//===----------------------------------------------------------------------===//
// The function's statements and its CFG (PointerLifetimeImpl.h)
//===----------------------------------------------------------------------===//

void PointerLifetime::Impl::index(const Stmt *Root) {
  llvm::SmallVector<const Stmt *, 32> Stack;
  Stack.push_back(Root);
  while (!Stack.empty()) {
    const Stmt *S = Stack.pop_back_val();
    if (!S)
      continue;
    Indexed.insert(S);
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
      if (rawDataObject(Call))
        RawCalls.push_back(Call);
      if (std::optional<FromBlobCall> B = matchFromBlob(Call))
        Blobs.push_back(*B);
    }
    if (const auto *L = dyn_cast<LambdaExpr>(S)) {
      for (const Expr *Init : L->capture_inits())
        Stack.push_back(Init);
      continue;
    }
    for (const Stmt *Child : S->children())
      Stack.push_back(Child);
  }
}

const Stmt *PointerLifetime::Impl::parent(const Stmt *S) const {
  return Fn && Indexed.contains(S) ? Fn->parentOf(S) : nullptr;
}

const Stmt *PointerLifetime::Impl::statementOf(const Stmt *E) const {
  const Stmt *Cur = E;
  for (unsigned I = 0; I < limits::StatementNesting * 4; ++I) {
    const Stmt *P = parent(Cur);
    if (!P || (!isa<Expr>(P) && !isa<DeclStmt>(P)))
      return isa<Expr>(Cur) || isa<DeclStmt>(Cur) ? Cur : nullptr;
    if (isa<DeclStmt>(P) || isa<ReturnStmt>(P))
      return P;
    Cur = P;
  }
  return nullptr;
}

bool PointerLifetime::Impl::isWriteOnly(const Expr *Ref) const {
  // Up the parentheses and the `.` accesses of which it is a part.
  const Expr *Top = peel::climb(Ref, peel::Parens | peel::DotMembers,
                                [this](const Stmt *S) { return parent(S); });
  const Stmt *P = Top ? parent(Top) : nullptr;
  const Expr *LHS = P ? assignmentLHS(P) : nullptr;
  return LHS && peel::peel(LHS, peel::Parens) == Top;
}

const CFG *PointerLifetime::Impl::cfg() { return Fn ? Fn->cfg() : nullptr; }

std::optional<Pos> PointerLifetime::Impl::position(const Stmt *S) {
  if (!cfg() || !S)
    return std::nullopt;
  if (const CFGPoint P = Fn->pointOf(S))
    return Pos{P.Block, P.Index};
  if (const auto *EWC = dyn_cast<ExprWithCleanups>(S))
    return position(EWC->getSubExpr());
  if (const auto *DS = dyn_cast<DeclStmt>(S))
    for (const Decl *D : DS->decls())
      if (const auto *VD = dyn_cast<VarDecl>(D))
        if (const CFGPoint P = Fn->declaredAt(VD))
          return Pos{P.Block, P.Index};
  return std::nullopt;
}

void PointerLifetime::Impl::walk(
    Pos Start, unsigned Phase,
    llvm::function_ref<Step(const CFGElement &, unsigned Phase)> Visit) {
  struct Item {
    const CFGBlock *B;
    unsigned I;
    unsigned Phase;
  };
  std::deque<Item> Work{{Start.B, Start.I + 1, Phase}};
  llvm::DenseSet<std::pair<unsigned, unsigned>> Entered;
  while (!Work.empty()) {
    Item It = Work.front();
    Work.pop_front();
    bool Ended = false;
    for (unsigned I = It.I; I < It.B->size() && !Ended; ++I) {
      switch (Visit((*It.B)[I], It.Phase)) {
      case Step::Continue:
        break;
      case Step::Stop:
        Ended = true;
        break;
      case Step::Advance:
        if (It.Phase == 0)
          It.Phase = 1;
        break;
      }
    }
    if (Ended)
      continue;
    for (const CFGBlock *Succ : It.B->succs())
      if (Succ && Entered.insert({Succ->getBlockID(), It.Phase}).second)
        Work.push_back({Succ, 0, It.Phase});
  }
}

//===----------------------------------------------------------------------===//
// Dangling raw pointers
//===----------------------------------------------------------------------===//

std::vector<DanglingPointer> PointerLifetime::Impl::danglingPointers() {
  std::vector<DanglingPointer> Out;
  for (const CallExpr *Raw : RawCalls) {
    const Expr *Obj = rawDataObject(Raw);
    // Down the views to what has the storage.
    StorageStep S;
    const Expr *E = Obj;
    for (unsigned I = 0; E && I < limits::OriginDepth; ++I) {
      S = storageStep(E);
      if (S.K != StorageStep::View || !S.Input)
        break;
      E = S.Input;
    }
    DanglingPointer D;
    D.Raw = Raw;
    D.Statement = statementOf(Raw);
    if (S.K == StorageStep::Allocates || S.K == StorageStep::MayAlias) {
      D.C = DanglingPointer::Temporary;
      D.TemporaryTensor = Obj;
      D.AllocOp = S.Op;
      D.MayAlias = S.K == StorageStep::MayAlias;
    } else if (S.K == StorageStep::Named) {
      D.Tensor = dyn_cast<VarDecl>(S.Decl);
      if (!D.Tensor || !ownsStorage(D.Tensor))
        continue;
      D.C = DanglingPointer::OutOfScope;
    } else {
      continue;
    }
    D.Kept = climb(Raw, Carried::Pointer, nullptr);
    if (D.Kept.K == Store::None)
      continue;
    if (D.Kept.escapes()) {
      // A pointer into a local tensor kept in a member outlives the tensor
      // only when the tensor's scope ends first, which it does at the
      // latest when the function returns.
      Out.push_back(D);
      continue;
    }
    // A local holds the pointer: is it used after the storage is gone?
    const ValueDecl *Holder = D.Kept.Holder;
    std::optional<Pos> Start =
        position(D.C == DanglingPointer::Temporary ? Raw : D.Kept.At);
    if (!Start)
      continue;
    const Stmt *Def = D.Kept.At;
    llvm::SmallVector<const Stmt *, 4> Uses;
    const Stmt *Kill = nullptr;
    DanglingPointer::Cause KillCause = DanglingPointer::OutOfScope;
    const bool IsTemporary = D.C == DanglingPointer::Temporary;
    const VarDecl *Tensor = D.Tensor;
    walk(*Start, 0, [&](const CFGElement &El, unsigned Phase) -> Step {
      const Stmt *Trigger = nullptr;
      if (const VarDecl *Ended = lifetimeEnd(El, &Trigger)) {
        if (Ended == Holder)
          return Step::Stop;
        if (!IsTemporary && Ended == Tensor && Phase == 0) {
          if (!Kill) {
            Kill = Trigger;
            KillCause = DanglingPointer::OutOfScope;
          }
          return Step::Advance;
        }
        return Step::Continue;
      }
      auto CS = El.getAs<CFGStmt>();
      if (!CS)
        return Step::Continue;
      const Stmt *St = CS->getStmt();
      if (IsTemporary && Phase == 0) {
        // The temporary dies once its full-expression has stored it.
        const bool IsDef =
            St == Def || (isa<DeclStmt>(Def) && isa<DeclStmt>(St) &&
                          definesVar(St, Holder, nullptr));
        return IsDef ? Step::Advance : Step::Continue;
      }
      const Expr *RHS = nullptr;
      if (definesVar(St, Holder, &RHS))
        return Step::Stop;
      if (!IsTemporary && Phase == 0 && definesVar(St, Tensor, &RHS) &&
          !derivesFrom(RHS, Tensor)) {
        if (!Kill) {
          Kill = St;
          KillCause = DanglingPointer::Reassigned;
        }
        return Step::Advance;
      }
      if (Phase == 1)
        if (const auto *DRE = dyn_cast<DeclRefExpr>(St);
            DRE && DRE->getDecl() == Holder && !isWriteOnly(DRE) &&
            Uses.size() < limits::MaxReturns)
          Uses.push_back(DRE);
      return Step::Continue;
    });
    if (Uses.empty())
      continue;
    llvm::sort(Uses, [&](const Stmt *A, const Stmt *B) {
      return Ctx.getSourceManager().isBeforeInTranslationUnit(A->getBeginLoc(),
                                                              B->getBeginLoc());
    });
    D.Use = Uses.front();
    if (!IsTemporary) {
      D.Kill = Kill;
      D.C = KillCause;
    } else {
      D.BindingFixes = D.Statement && usesFollowInBlock(D.Statement, Uses);
    }
    Out.push_back(D);
  }
  return Out;
}

//===----------------------------------------------------------------------===//
// from_blob tensors that outlive their buffers
//===----------------------------------------------------------------------===//

std::vector<BlobEscape> PointerLifetime::Impl::blobEscapes() {
  std::vector<BlobEscape> Out;
  for (const FromBlobCall &Blob : Blobs) {
    if (Blob.HasDeleter)
      continue;
    BlobEscape R;
    R.Blob = Blob;
    R.Buffer = bufferOrigin(Blob.Data, Body);
    const VarDecl *Owner = R.Buffer.Owner;
    // The buffer of a temporary is gone once the from_blob's statement ends:
    // every later use, and every escape, reads freed memory.
    const bool Temporary = R.Buffer.K == BufferOrigin::Temporary;
    // The walk starts after the temporary died: every use is after it.
    const unsigned From = Temporary ? 1 : 0;
    const bool Automatic = R.Buffer.K != BufferOrigin::Unknown &&
                           R.Buffer.K != BufferOrigin::Pointer && !Temporary &&
                           R.Buffer.Automatic;
    bool Heap = false;
    if (R.Buffer.K == BufferOrigin::Pointer && Owner)
      forEachOwnStmt(Body, [&](const Stmt *S) { Heap |= isFreeOf(S, Owner); });
    if (!Temporary && ((!Automatic && !Heap) || isHandedOn(Owner)))
      continue;

    const Store First = climb(Blob.Call, Carried::Tensor, &Blob);
    if (First.K == Store::None)
      continue;
    if (First.escapes()) {
      if (Automatic || Temporary) {
        R.Kept = First;
        Out.push_back(R);
      }
      continue;
    }
    // Locals that hold the tensor, each followed from where it gets it.
    struct Holding {
      const VarDecl *Var;
      const Stmt *At;
      Store Via;
    };
    llvm::SmallVector<Holding, 4> Holders;
    if (const auto *VD = dyn_cast_or_null<VarDecl>(First.Holder))
      Holders.push_back({VD, First.At, First});
    std::optional<BlobEscape> Found;
    for (unsigned H = 0;
         H < Holders.size() && !Found && H < limits::OriginDepth; ++H) {
      const Holding Cur = Holders[H];
      std::optional<Pos> Start = position(Cur.At);
      if (!Start)
        continue;
      const Stmt *Freed = nullptr;
      walk(*Start, From, [&](const CFGElement &El, unsigned Phase) -> Step {
        if (Found)
          return Step::Stop;
        const Stmt *Trigger = nullptr;
        if (const VarDecl *Ended = lifetimeEnd(El, &Trigger)) {
          if (Ended == Cur.Var)
            return Step::Stop;
          if (Ended == Owner && Automatic && Phase == 0) {
            Freed = Trigger;
            return Step::Advance;
          }
          return Step::Continue;
        }
        auto CS = El.getAs<CFGStmt>();
        if (!CS)
          return Step::Continue;
        const Stmt *St = CS->getStmt();
        if (Heap && Phase == 0 && isFreeOf(St, Owner)) {
          Freed = St;
          return Step::Advance;
        }
        const Expr *RHS = nullptr;
        if (definesVar(St, Cur.Var, &RHS) && St != Cur.At &&
            !derivesFrom(RHS, Cur.Var))
          return Step::Stop;
        const auto *DRE = dyn_cast<DeclRefExpr>(St);
        if (!DRE || DRE->getDecl() != Cur.Var || isWriteOnly(DRE))
          return Step::Continue;
        const Store Next = climb(DRE, Carried::Tensor, &Blob);
        if (Next.escapes() && (Automatic || Phase == 1)) {
          BlobEscape E = R;
          E.Kept = Next;
          if (!E.Kept.MayAliasOp)
            E.Kept.MayAliasOp = Cur.Via.MayAliasOp;
          E.Freed = Phase == 1 ? Freed : nullptr;
          for (const Holding &Hd : Holders)
            E.Via.push_back(Hd.Var);
          Found = E;
          return Step::Stop;
        }
        if (Phase == 1) {
          BlobEscape E = R;
          E.Kept = Cur.Via;
          E.Use = DRE;
          E.Freed = Freed;
          for (const Holding &Hd : Holders)
            E.Via.push_back(Hd.Var);
          Found = E;
          return Step::Stop;
        }
        if (Next.K == Store::Local && Next.Holder != Cur.Var)
          if (const auto *VD = dyn_cast<VarDecl>(Next.Holder);
              VD && llvm::none_of(Holders, [&](const Holding &Hd) {
                return Hd.Var == VD;
              }))
            Holders.push_back({VD, Next.At, Next});
        return Step::Continue;
      });
    }
    if (Found)
      Out.push_back(*Found);
  }
  return Out;
}

//===----------------------------------------------------------------------===//

static bool containsCall(const FunctionDecl *FD,
                         llvm::function_ref<bool(const CallExpr *)> Pred) {
  bool Found = false;
  auto Visit = [&](const Stmt *S) {
    if (!Found)
      if (const auto *Call = dyn_cast<CallExpr>(S))
        Found = Pred(Call);
  };
  if (!FD || !FD->getBody())
    return false;
  forEachOwnStmt(FD->getBody(), Visit);
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD))
    for (const CXXCtorInitializer *Init : Ctor->inits())
      if (!Found && Init->isWritten() && Init->getInit())
        forEachOwnStmt(Init->getInit(), Visit);
  return Found;
}

bool containsRawDataCall(const FunctionDecl *FD) {
  return containsCall(FD,
                      [](const CallExpr *Call) { return rawDataObject(Call); });
}

bool containsFromBlob(const FunctionDecl *FD) {
  return containsCall(FD, [](const CallExpr *Call) {
    return (callFacts(Call) & op::WrapsMemory).any();
  });
}

PointerLifetime::PointerLifetime(const FunctionDecl *FD, ASTContext &Ctx)
    : P(std::make_unique<Impl>(FD, Ctx)) {}
PointerLifetime::~PointerLifetime() = default;

std::vector<DanglingPointer> PointerLifetime::danglingPointers() {
  if (!P->Body)
    return {};
  return P->danglingPointers();
}

std::vector<BlobEscape> PointerLifetime::blobEscapes() {
  if (!P->Body)
    return {};
  return P->blobEscapes();
}

const std::vector<FromBlobCall> &PointerLifetime::blobs() const {
  return P->Blobs;
}

} // namespace torchtidy
