//===--- PointerFlow.cpp - Where values go --------------------------------===//
//
// Where values go: what a raw pointer into storage or a from_blob tensor
// is stored in, returned as or passed to, for PointerLifetime.
// Part of PointerLifetime (PointerLifetimeImpl.h).
//
//===----------------------------------------------------------------------===//

#include "PointerLifetimeImpl.h"
#include "torchtidy/analysis/CudaWork.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/PointeeTypes.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;

namespace torchtidy {

using namespace lifetime;

Store PointerLifetime::Impl::holderOfVar(const VarDecl *VD) const {
  Store S;
  S.Holder = VD;
  if (VD->isStaticLocal() || VD->hasGlobalStorage())
    S.K = Store::Global;
  else if (VD->getType()->isReferenceType())
    S.K = Store::OutParam;
  else
    S.K = Store::Local;
  return S;
}

Store PointerLifetime::Impl::holderOf(const Expr *LHS, unsigned Depth) const {
  Store S;
  if (!LHS || Depth > limits::PeeledWrappers)
    return S;
  LHS = peel::peel(LHS, peel::ParenImpCasts);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(LHS)) {
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
        VD && !DRE->refersToEnclosingVariableOrCapture())
      return holderOfVar(VD);
    if (DRE->refersToEnclosingVariableOrCapture()) {
      S.K = Store::OutParam; // the enclosing function's variable
      S.Holder = DRE->getDecl();
    }
    return S;
  }
  if (const auto *ME = dyn_cast<MemberExpr>(LHS)) {
    const Expr *Base = peel::peel(ME->getBase(), peel::ParenImpCasts);
    if (isa<CXXThisExpr>(Base)) {
      S.K = Store::Member;
      S.Holder = ME->getMemberDecl();
      return S;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(Base)) {
      const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
      if (VD && !ME->isArrow() && hasAutomaticStorage(VD) &&
          !DRE->refersToEnclosingVariableOrCapture())
        return holderOfVar(VD); // a field of a local struct
      if (isa_and_nonnull<ParmVarDecl>(VD)) {
        S.K = Store::OutParam;
        S.Holder = VD;
        return S;
      }
      if (VD && VD->hasGlobalStorage()) {
        S.K = Store::Global;
        S.Holder = VD;
        return S;
      }
    }
    if (isa<MemberExpr>(Base) && !ME->isArrow())
      return holderOf(Base, Depth + 1);
    S.K = Store::Member;
    S.Holder = ME->getMemberDecl();
    return S;
  }
  if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(LHS)) {
    if (peel::peel(ASE->getBase(), peel::ParenImpCasts)
            ->getType()
            ->isArrayType() ||
        isa<MemberExpr>(peel::peel(ASE->getBase(), peel::ParenImpCasts)))
      return holderOf(ASE->getBase(), Depth + 1);
    return S;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(LHS)) {
    if (Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2)
      return holderOf(Op->getArg(0), Depth + 1);
    if (Op->getOperator() == OO_Star && Op->getNumArgs() == 1)
      return holderOf(Op->getArg(0), Depth + 1);
    return S;
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(LHS)) {
    if (callFacts(MC) & op::ContainerAccess)
      return holderOf(MC->getImplicitObjectArgument(), Depth + 1);
    return S;
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(LHS);
      UO && UO->getOpcode() == UO_Deref)
    if (const auto *VD = dyn_cast_or_null<ParmVarDecl>(
            peel::referencedDecl(UO->getSubExpr()))) {
      S.K = Store::OutParam;
      S.Holder = VD;
    }
  return S;
}

bool PointerLifetime::Impl::keepsArgument(const CXXConstructExpr *CE,
                                          const Stmt *Arg, Carried M) const {
  const CXXConstructorDecl *Ctor = CE->getConstructor();
  const CXXRecordDecl *RD = Ctor ? Ctor->getParent() : nullptr;
  if (!RD)
    return false;
  for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
    if (CE->getArg(I) != Arg)
      continue;
    if (M == Carried::Tensor)
      return holdsTensors(RD) || isTensor(CE->getType()) ||
             (I < Ctor->getNumParams() &&
              isTensor(Ctor->getParamDecl(I)->getType()));
    if (RD->isInStdNamespace() || I >= Ctor->getNumParams())
      return false;
    const QualType PT = Ctor->getParamDecl(I)->getType();
    return PT->isPointerType() && !PT->isDependentType();
  }
  return false;
}

bool PointerLifetime::Impl::certainlyCopies(const CallExpr *Call,
                                            const FromBlobCall &Blob) const {
  const MoveDestination Move = moveDestination(Call);
  const DeviceClass BlobDevice =
      Blob.Options ? classifyDevice(Blob.Options) : DeviceClass::NotADevice;
  const bool OnHost =
      BlobDevice == DeviceClass::NotADevice || BlobDevice == DeviceClass::CPU;
  if (Move.K == MoveDestination::Cuda)
    return OnHost;
  if (Move.K != MoveDestination::Device && Move.K != MoveDestination::Options &&
      Move.K != MoveDestination::SameDevice)
    return false;
  const OptionsDtype BlobDtype = dtypeOfOptions(Blob.Options, Ctx);
  for (const Expr *Arg : {Move.Operand, Move.Dtype}) {
    if (!Arg || isa<CXXDefaultArgExpr>(Arg))
      continue;
    if (OnHost && classifyDevice(Arg) == DeviceClass::CUDA)
      return true;
    const OptionsDtype To = dtypeOfOptions(Arg, Ctx);
    if (To.K == OptionsDtype::Given && BlobDtype.K != OptionsDtype::Unknown) {
      const llvm::StringRef From =
          BlobDtype.K == OptionsDtype::Given
              ? BlobDtype.D.Name
              : dtypeRow(DtypeName::Float).Name; // the default dtype
      if (To.D.Name != From)
        return true;
    }
  }
  return false;
}

Store PointerLifetime::Impl::climb(const Expr *E, Carried M,
                                   const FromBlobCall *Blob) const {
  Store Out;
  const Stmt *Cur = E;
  for (unsigned Step = 0; Step < limits::OriginDepth * 4; ++Step) {
    const Stmt *P = parent(Cur);
    // The object of a member call: its parent is the callee's MemberExpr.
    if (const auto *ME = dyn_cast_or_null<MemberExpr>(P))
      if (const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(parent(ME));
          MC && peel::peel(MC->getCallee(), peel::Parens) == ME)
        P = MC;
    if (!P) {
      if (const CXXCtorInitializer *Init = InitRoots.lookup(Cur)) {
        if (Init->isAnyMemberInitializer()) {
          Out.K = Store::Member;
          Out.Holder = Init->getAnyMember();
          Out.At = Cur;
        }
      }
      return Out;
    }
    if (isa<Expr>(P) && peel::peelOne(cast<Expr>(P), peel::Converted) == Cur) {
      Cur = peel::climb(cast<Expr>(P), peel::Converted,
                        [this](const Stmt *S) { return parent(S); });
      continue;
    }
    if (const auto *CO = dyn_cast<ConditionalOperator>(P)) {
      if (CO->getCond() == Cur)
        return Store{};
      Cur = P;
      continue;
    }
    if (M == Carried::Pointer) {
      if (const auto *BO = dyn_cast<BinaryOperator>(P);
          BO && BO->isAdditiveOp() && BO->getType()->isPointerType()) {
        Cur = P;
        continue;
      }
    }
    // An assignment (also a class's operator=, which is a call).
    const Expr *RHS = nullptr;
    if (const Expr *LHS = assignmentLHS(P, &RHS); LHS && RHS == Cur) {
      Store H = holderOf(LHS);
      if (H.K == Store::None)
        return H;
      H.At = P;
      H.Through = Out.Through;
      H.MayAliasOp = Out.MayAliasOp;
      return H;
    }
    if (const auto *Call = dyn_cast<CallExpr>(P)) {
      const op::FactSet Facts = callFacts(Call);
      const bool IsArg = llvm::is_contained(Call->arguments(), Cur);
      if (Call->getNumArgs() == 1 && IsArg && (Facts & op::PassesThrough)) {
        Cur = P; // std::move
        continue;
      }
      if (M == Carried::Pointer && Call->getNumArgs() >= 1 &&
          Call->getArg(0) == Cur && (Facts & op::WrapsMemory)) {
        // from_blob(p, ...): the tensor holds the pointer.
        Out.Through = Call;
        M = Carried::Tensor;
        Cur = P;
        continue;
      }
      if (M == Carried::Tensor) {
        const StorageStep St = storageStep(Call);
        const bool IsInput = St.Input && sameValue(St.Input, cast<Expr>(Cur));
        if (IsInput &&
            (St.K == StorageStep::View || St.K == StorageStep::MayAlias)) {
          if (St.K == StorageStep::MayAlias) {
            if (Blob && certainlyCopies(Call, *Blob))
              return Store{};
            if (!Out.MayAliasOp)
              Out.MayAliasOp = Call;
          }
          Cur = P;
          continue;
        }
        if (St.K != StorageStep::Unknown)
          return Store{}; // a copy, or another op's operand
      }
      if (IsArg || isa<CXXMemberCallExpr>(Call)) {
        const auto *MC = dyn_cast<CXXMemberCallExpr>(Call);
        // A standard container keeps what it is given; a user class's
        // insert(t) (a rollout storage) may copy it into its own tensors.
        const CXXRecordDecl *Into = MC ? MC->getRecordDecl() : nullptr;
        if (IsArg && Into && Into->isInStdNamespace() &&
            (Facts & op::ContainerInsert)) {
          Store H = holderOf(MC->getImplicitObjectArgument());
          if (H.K == Store::None)
            return H;
          H.At = MC;
          H.Through = Out.Through;
          H.MayAliasOp = Out.MayAliasOp;
          return H;
        }
        if (IsArg && M == Carried::Tensor &&
            (Facts & (op::RegistersBuffer | op::RegistersParameter))) {
          Out.K = Store::Module;
          Out.At = Call;
          return Out;
        }
      }
      return Store{};
    }
    if (const auto *CE = dyn_cast<CXXConstructExpr>(P)) {
      if (M == Carried::Tensor && isTensor(CE->getType()) &&
          peel::peelOne(CE, peel::CopiesAndMoves) == Cur) {
        Cur = P;
        continue;
      }
      if (!keepsArgument(CE, Cur, M))
        return Store{};
      if (!Out.Through)
        Out.Through = CE;
      Cur = P;
      continue;
    }
    if (isa<InitListExpr>(P) || isa<CXXStdInitializerListExpr>(P) ||
        isa<LambdaExpr>(P)) {
      if (!Out.Through)
        Out.Through = cast<Expr>(P);
      Cur = P;
      continue;
    }
    if (const auto *DS = dyn_cast<DeclStmt>(P)) {
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D); VD && VD->getInit() == Cur) {
          Store H = holderOfVar(VD);
          H.At = DS;
          H.Through = Out.Through;
          H.MayAliasOp = Out.MayAliasOp;
          return H;
        }
      return Store{};
    }
    if (isa<ReturnStmt>(P)) {
      Out.K = Store::Returned;
      Out.At = P;
      return Out;
    }
    return Store{};
  }
  return Store{};
}

bool PointerLifetime::Impl::derivesFrom(const Expr *RHS,
                                        const ValueDecl *V) const {
  const Expr *E = RHS;
  for (unsigned I = 0; E && I < limits::OriginDepth; ++I) {
    const StorageStep S = storageStep(E);
    if (S.K == StorageStep::Named)
      return S.Decl == V;
    if (S.K != StorageStep::View && S.K != StorageStep::MayAlias)
      return false;
    E = S.Input;
  }
  return false;
}

bool PointerLifetime::Impl::ownsStorage(const VarDecl *T) const {
  if (!hasAutomaticStorage(T) || isa<ParmVarDecl>(T) || !isTensor(T->getType()))
    return false;
  auto Fresh = [&](const Expr *Value) {
    const Expr *E = Value;
    for (unsigned I = 0; E && I < limits::OriginDepth; ++I) {
      const StorageStep S = storageStep(E);
      if (S.K == StorageStep::View) {
        E = S.Input;
        continue;
      }
      return S.K == StorageStep::Allocates || S.K == StorageStep::MayAlias;
    }
    return false;
  };
  if (const Expr *Init = T->getInit()) {
    const auto *CE = dyn_cast<CXXConstructExpr>(peelValue(Init));
    const bool DefaultConstructed = CE && CE->getNumArgs() == 0;
    if (!DefaultConstructed && !Fresh(Init))
      return false;
  }
  bool Owns = true;
  forEachOwnStmt(Body, [&](const Stmt *S) {
    if (!Owns)
      return;
    const Expr *RHS = nullptr;
    if (definesVar(S, T, &RHS) && !isa<DeclStmt>(S)) {
      if (!Fresh(RHS) && !derivesFrom(RHS, T))
        Owns = false;
      return;
    }
    const auto *DRE = dyn_cast<DeclRefExpr>(S);
    if (DRE && DRE->getDecl() == T && !isWriteOnly(DRE) &&
        mayKeepStorage(DRE, 0))
      Owns = false;
  });
  return Owns;
}

bool PointerLifetime::Impl::mayKeepStorage(const Expr *E,
                                           unsigned Depth) const {
  if (Depth > limits::OriginDepth)
    return true;
  const Stmt *Cur = E;
  for (unsigned I = 0; I < limits::PeeledWrappers; ++I) {
    // Up through the compiler's wrappers and member accesses.
    const Stmt *P =
        parent(peel::climb(cast<Expr>(Cur), peel::Compiler,
                           [this](const Stmt *S) { return parent(S); }));
    if (!P)
      return true;
    if (isa<MemberExpr>(P)) {
      Cur = P;
      continue;
    }
    const auto *Call = dyn_cast<CallExpr>(P);
    if (!Call)
      return true;
    const FunctionDecl *Callee = Call->getDirectCallee();
    const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Callee);
    const bool TorchCallee =
        Callee && (isTorchFunction(Callee) || isTensorMethod(MD));
    if (!TorchCallee ||
        (callFacts(Call) & (op::RegistersBuffer | op::RegistersParameter)))
      return true;
    if (!isTensor(Call->getType()))
      return false; // data_ptr, size, item, an ostream...
    const StorageStep St = storageStep(Call);
    if (St.K == StorageStep::Allocates)
      return false;
    if (St.K == StorageStep::Unknown)
      return true;
    // A view (or the same tensor): where does it go?
    return mayKeepStorage(Call, Depth + 1);
  }
  return true;
}

const Stmt *PointerLifetime::Impl::enclosingBlock(const Stmt *S) const {
  const Stmt *P = parent(S);
  return isa_and_nonnull<CompoundStmt>(P) ? P : nullptr;
}

bool PointerLifetime::Impl::usesFollowInBlock(
    const Stmt *Statement, llvm::ArrayRef<const Stmt *> Uses) const {
  const auto *Block = dyn_cast_or_null<CompoundStmt>(enclosingBlock(Statement));
  if (!Block || Uses.empty())
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  const SourceLocation After = SM.getExpansionLoc(Statement->getEndLoc());
  const SourceLocation End = SM.getExpansionLoc(Block->getRBracLoc());
  for (const Stmt *U : Uses) {
    const SourceLocation L = SM.getExpansionLoc(U->getBeginLoc());
    if (!SM.isBeforeInTranslationUnit(After, L) ||
        !SM.isBeforeInTranslationUnit(L, End))
      return false;
  }
  return true;
}

bool PointerLifetime::Impl::isFreeOf(const Stmt *S, const VarDecl *P) const {
  if (const auto *Del = dyn_cast<CXXDeleteExpr>(S))
    return peel::referencedDecl(Del->getArgument()) == P;
  if (const auto *Call = dyn_cast<CallExpr>(S))
    return (callFacts(Call) & op::FreesMemory) && Call->getNumArgs() == 1 &&
           peel::referencedDecl(peel::peel(Call->getArg(0), peel::Casts)) == P;
  return false;
}

bool PointerLifetime::Impl::isHandedOn(const VarDecl *Owner) const {
  bool Found = false;
  forEachOwnStmt(Body, [&](const Stmt *S) {
    const auto *Call = dyn_cast<CallExpr>(S);
    if (Found || !Call)
      return;
    const bool Moves = (callFacts(Call) & op::PassesThrough).any();
    const FunctionDecl *Callee = Call->getDirectCallee();
    const bool Swaps = hasOpName(Callee, op::Named::swap);
    if (!Moves && !Swaps)
      return;
    for (const Expr *Arg : Call->arguments())
      if (peel::referencedDecl(Arg) == Owner)
        Found = true;
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
      if (peel::referencedDecl(MC->getImplicitObjectArgument()) == Owner &&
          Swaps)
        Found = true;
  });
  return Found;
}

} // namespace torchtidy
