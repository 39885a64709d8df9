//===--- IndexArrays.cpp - Index arrays and index values in range ---------===//

#include "torchtidy/analysis/IndexArrays.h"
#include "torchtidy/analysis/IndexGuards.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TensorStorage.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <vector>

using namespace clang;

namespace torchtidy {

/// The declaration \p E is rooted at: `p`, `p + i`, `&p[i]`, `info.data`,
/// `acc[i]` (an accessor's operator[]) -> p / info / acc.
const ValueDecl *rootOf(const Expr *E) {
  for (unsigned Steps = 0; E && Steps < 16; ++Steps) {
    E = peel::peel(E, peel::ParenImpCasts);
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      return DRE->getDecl();
    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      E = ME->getBase();
      continue;
    }
    if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E)) {
      E = ASE->getBase();
      continue;
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
      if (UO->getOpcode() == UO_AddrOf || UO->getOpcode() == UO_Deref) {
        E = UO->getSubExpr();
        continue;
      }
      return nullptr;
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
      if (BO->isAdditiveOp()) {
        E = BO->getLHS()->getType()->isPointerType() ? BO->getLHS()
                                                     : BO->getRHS();
        continue;
      }
      return nullptr;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
      if (Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2) {
        E = Op->getArg(0);
        continue;
      }
      return nullptr;
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
      // info.data(), acc.data()
      E = MC->getImplicitObjectArgument();
      continue;
    }
    return nullptr;
  }
  return nullptr;
}

/// \p E is below \p Limit as an unsigned value: a remainder by a constant
/// of at most the limit, or a mask below it.
bool unsignedBelow(const Expr *E, const ASTContext &Ctx, uint64_t Limit) {
  E = peel::peel(E, peel::Parens);
  const auto *BO = dyn_cast<BinaryOperator>(E);
  if (!BO || !E->getType()->isUnsignedIntegerType())
    return false;
  Expr::EvalResult R;
  if (BO->getOpcode() == BO_Rem)
    return BO->getRHS()->EvaluateAsInt(R, Ctx) &&
           R.Val.getInt().getLimitedValue() <= Limit;
  if (BO->getOpcode() == BO_And)
    return (BO->getRHS()->EvaluateAsInt(R, Ctx) ||
            BO->getLHS()->EvaluateAsInt(R, Ctx)) &&
           R.Val.getInt().getLimitedValue() < Limit;
  return false;
}

/// \p E cannot be negative: a value of unsigned type, a constant >= 0, a
/// conversion that keeps such a value (an unsigned value into a wider
/// signed type, or one below the signed type's limit), a sum, product,
/// quotient or remainder of such values, or a call of a function of this
/// file whose every return value is such a value.
bool nonNegative(const Expr *E, const ASTContext &Ctx, unsigned Depth) {
  if (!E || Depth > 4)
    return false;
  E = peel::peel(E, peel::Parens);
  if (!E->getType()->isIntegerType())
    return false;
  if (E->getType()->isUnsignedIntegerType())
    return true;
  Expr::EvalResult R;
  if (!E->isValueDependent() && E->EvaluateAsInt(R, Ctx))
    return !R.Val.getInt().isNegative();
  if (const auto *Cast = dyn_cast<CastExpr>(E)) {
    const Expr *Sub = peel::peel(Cast->getSubExpr(), peel::Parens);
    if (Cast->getCastKind() != CK_IntegralCast)
      return Cast->getCastKind() == CK_LValueToRValue ||
                     Cast->getCastKind() == CK_NoOp
                 ? nonNegative(Sub, Ctx, Depth + 1)
                 : false;
    const uint64_t To = Ctx.getIntWidth(E->getType());
    const uint64_t From = Ctx.getIntWidth(Sub->getType());
    if (Sub->getType()->isUnsignedIntegerType())
      return From < To ||
             unsignedBelow(Sub, Ctx, static_cast<uint64_t>(1) << (To - 1));
    return From <= To && nonNegative(Sub, Ctx, Depth + 1);
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    switch (BO->getOpcode()) {
    case BO_Rem: // the sign of the dividend
      return nonNegative(BO->getLHS(), Ctx, Depth + 1);
    case BO_Add:
    case BO_Mul:
    case BO_Div:
      return nonNegative(BO->getLHS(), Ctx, Depth + 1) &&
             nonNegative(BO->getRHS(), Ctx, Depth + 1);
    default:
      return false;
    }
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *Def = nullptr;
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || !Callee->hasBody(Def) || !Def || !isUserDecl(Def))
      return false;
    bool Any = false, All = true;
    forEachOwnStmt(Def->getBody(), [&](const Stmt *S) {
      if (const auto *Ret = dyn_cast<ReturnStmt>(S)) {
        Any = true;
        All = All && nonNegative(Ret->getRetValue(), Ctx, Depth + 1);
      }
    });
    return Any && All;
  }
  return false;
}

/// \p Root is or holds \p Target.
bool containsStmt(const Stmt *Root, const Stmt *Target) {
  bool Found = false;
  forEachStmtIn(Root, [&](const Stmt *S) { Found |= S == Target; });
  return Found;
}

namespace {

/// The reference to the storage \p E reaches, through casts, pointer
/// arithmetic, a thrust::device_ptr made from it and raw-data calls:
/// `p + n`, `device_ptr<T>(t.data_ptr<T>())` -> p / t.
const DeclRefExpr *storageRef(const Expr *E) {
  for (unsigned Steps = 0; E && Steps < 8; ++Steps) {
    // Through a wrapper made from it (`thrust::device_ptr<T>(p)`).
    E = peel::peel(E, peel::CopiedAsComputed | peel::FunctionalCasts |
                          peel::SingleArgumentConstructions);
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      return DRE;
    if (const auto *BO = dyn_cast<BinaryOperator>(E);
        BO && BO->isAdditiveOp()) {
      E = BO->getLHS()->getType()->isIntegerType() ? BO->getRHS()
                                                   : BO->getLHS();
      continue;
    }
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E);
        OC && (OC->getOperator() == OO_Plus || OC->getOperator() == OO_Minus) &&
        OC->getNumArgs() == 2) {
      E = OC->getArg(0);
      continue;
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E);
        MC && (callFacts(MC) & op::RawData)) {
      E = MC->getImplicitObjectArgument();
      continue;
    }
    return nullptr;
  }
  return nullptr;
}

const ValueDecl *storageOf(const Expr *E) {
  const DeclRefExpr *Ref = storageRef(E);
  return Ref ? Ref->getDecl() : nullptr;
}

/// A counting iterator from a constant >= 0:
/// `thrust::counting_iterator<T>(0)`, `thrust::make_counting_iterator(0)`,
/// or a local made from one, possibly advanced (`it + n`).
bool isCountingFromNonNegative(const Expr *E, const ASTContext &Ctx,
                               unsigned Depth = 0) {
  if (!E || Depth > 4)
    return false;
  E = peel::peel(E, peel::CopiedAsComputed | peel::FunctionalCasts);
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E);
      OC && OC->getOperator() == OO_Plus && OC->getNumArgs() == 2)
    return isCountingFromNonNegative(OC->getArg(0), Ctx, Depth + 1);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
    return VD && VD->hasLocalStorage() &&
           isCountingFromNonNegative(VD->getInit(), Ctx, Depth + 1);
  }
  const Expr *Start = nullptr;
  if (const auto *Call = dyn_cast<CallExpr>(E);
      Call && (callFacts(Call) & op::CountsUp) && Call->getNumArgs() == 1)
    Start = Call->getArg(0);
  const CXXRecordDecl *RD = E->getType()->getAsCXXRecordDecl();
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E);
      CE && RD && isClass(RD, KnownClass::counting_iterator)) {
    if (CE->getNumArgs() == 1 &&
        CE->getArg(0)->getType()->getAsCXXRecordDecl() == RD)
      return isCountingFromNonNegative(CE->getArg(0), Ctx, Depth + 1);
    if (CE->getNumArgs() >= 1)
      Start = CE->getArg(0);
  }
  Expr::EvalResult R;
  return Start && !Start->isValueDependent() && Start->EvaluateAsInt(R, Ctx) &&
         !R.Val.getInt().isNegative();
}

} // namespace

/// Index arrays that host code makes with values kept in an index range:
/// a local made by an index producer of the op table (arange, randperm,
/// argsort...) or a tensor filled over its whole length from a counting
/// iterator that starts at a constant >= 0 (`thrust::copy(count, count + n,
/// p)`, `thrust::sequence(p, p + n)`), whose storage is afterwards only
/// permuted by Thrust's sorts, read by its shape, and passed to kernels that
/// never write through that parameter; or a call of a function of this file
/// whose every return value is such a local. Every use of the tensor and of
/// the pointers made from its storage must be one of these, else nothing is
/// known.
/// Kernel \p K never writes through, or hands on, parameter \p I.
bool kernelOnlyReads(const FunctionDecl *K, unsigned I) {
  const FunctionDecl *Def = nullptr;
  if (!K || I >= K->getNumParams() || !K->hasBody(Def) || !Def)
    return false;
  const ParmVarDecl *P = Def->getParamDecl(I);
  bool Writes = false;
  forEachStmtIn(Def->getBody(), [&](const Stmt *S) {
    if (Writes)
      return;
    if (const auto *BO = dyn_cast<BinaryOperator>(S))
      Writes = BO->isAssignmentOp() && rootOf(BO->getLHS()) == P &&
               !peel::declRef(BO->getLHS());
    else if (const auto *UO = dyn_cast<UnaryOperator>(S))
      Writes = UO->isIncrementDecrementOp() && rootOf(UO->getSubExpr()) == P &&
               !peel::declRef(UO->getSubExpr());
    else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(S))
      Writes = OC->isAssignmentOp() && OC->getNumArgs() >= 1 &&
               rootOf(OC->getArg(0)) == P;
    else if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      // An alias of the storage: `T *q = p + i`, `auto &row = acc[i]`.
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D);
            VD && VD->getInit() &&
            (VD->getType()->isPointerType() ||
             VD->getType()->isReferenceType() ||
             VD->getType()->isRecordType()) &&
            rootOf(VD->getInit()) == P)
          Writes = !VD->getType()->isReferenceType() ||
                   !VD->getType().getNonReferenceType().isConstQualified();
    } else if (const auto *Call = dyn_cast<CallExpr>(S);
               Call && !isa<CXXOperatorCallExpr>(Call) &&
               !(callFacts(Call) & op::ReadsAddress)) {
      // The storage handed to another function (atomics included).
      for (const Expr *A : Call->arguments())
        if (rootOf(A) == P &&
            (A->getType()->isPointerType() || A->getType()->isReferenceType() ||
             A->getType()->isRecordType()))
          Writes = true;
    }
  });
  return !Writes;
}

class IndexArrayProof::Impl {
public:
  Impl(ASTContext &Ctx, IndexGuardAnalysis &Guards)
      : Ctx(Ctx), Guards(Guards) {}

  /// \p Tensor, an expression of host code used by \p At, holds such an
  /// index array there.
  bool holds(const Expr *Tensor, const Stmt *At, unsigned Depth = 0) {
    if (!Tensor || !At || Depth > 2)
      return false;
    const auto *DRE = dyn_cast<DeclRefExpr>(peelTemporaries(Tensor));
    const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
    if (!V || isa<ParmVarDecl>(V) || !V->hasLocalStorage() ||
        V->getType()->isReferenceType() || !isTensorType(V->getType()))
      return false;
    auto [It, New] = Memo.try_emplace(DRE, false);
    if (New)
      It->second = localHolds(V, DRE, At, Depth);
    return Memo[DRE];
  }

private:
  struct Count {
    enum Kind { None, Const, Numel, Size, Var } K = None;
    const ValueDecl *D = nullptr;
    int64_t N = 0;
    bool operator==(const Count &O) const {
      return K != None && K == O.K && D == O.D && N == O.N;
    }
  };

  /// The only definition of local \p VD in \p Fn, if it has one.
  const Expr *onlyDefinition(const VarDecl *VD, const FunctionDecl *Fn) {
    if (!VD->hasLocalStorage() || isa<ParmVarDecl>(VD) || !VD->getInit())
      return nullptr;
    const std::vector<const Expr *> Defs = Guards.finder(Fn).definitionsOf(VD);
    return Defs.size() == 1 ? VD->getInit() : nullptr;
  }

  /// An element count, described so that two descriptions of the same
  /// count compare equal: a constant, `s.numel()` (also `s.size(0)` of a
  /// flattened `s`), `s.size(k)`, or a variable, through locals defined once.
  Count countOf(const Expr *E, const FunctionDecl *Fn, unsigned Depth = 0) {
    Count C;
    if (!E || Depth > 4)
      return C;
    E = peel::peel(E, peel::ParenImpCasts);
    Expr::EvalResult R;
    if (!E->isValueDependent() && E->EvaluateAsInt(R, Ctx)) {
      C.K = Count::Const;
      C.N = R.Val.getInt().getExtValue();
      return C;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
        if (const Expr *Init = onlyDefinition(VD, Fn))
          return countOf(Init, Fn, Depth + 1);
      C.K = Count::Var;
      C.D = DRE->getDecl();
      return C;
    }
    const auto *MC = dyn_cast<CXXMemberCallExpr>(E);
    const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
    if (!MD || !MD->getIdentifier())
      return C;
    const DeclRefExpr *Obj = peel::declRef(MC->getImplicitObjectArgument());
    if (!Obj)
      return C;
    C.D = Obj->getDecl();
    if (hasOpName(MD, op::Named::numel) && MC->getNumArgs() == 0) {
      C.K = Count::Numel;
      return C;
    }
    Expr::EvalResult DimValue;
    if (!hasOpName(MD, op::Named::size) || MC->getNumArgs() != 1 ||
        MC->getArg(0)->isValueDependent() ||
        !MC->getArg(0)->EvaluateAsInt(DimValue, Ctx))
      return {};
    const int64_t Dim = DimValue.Val.getInt().getExtValue();
    C.K = Count::Size;
    C.N = Dim;
    // size(0) of a flattened tensor is all of it.
    if (const auto *S = dyn_cast<VarDecl>(C.D); S && Dim == 0)
      if (const auto *Flat = dyn_cast_or_null<CXXMemberCallExpr>(
              peelTemporaries(onlyDefinition(S, Fn))))
        if (const CXXMethodDecl *FM = Flat->getMethodDecl();
            hasOpName(FM, op::Named::flatten) &&
            llvm::all_of(Flat->arguments(), [&](const Expr *A) {
              // flatten(), flatten(0), flatten(0, -1): all dimensions.
              Expr::EvalResult R;
              return isa<CXXDefaultArgExpr>(A) ||
                     (!A->isValueDependent() && A->EvaluateAsInt(R, Ctx) &&
                      (A == Flat->getArg(0) ? R.Val.getInt() == 0
                                            : R.Val.getInt() == -1));
            })) {
          C.K = Count::Numel;
          C.N = 0;
        }
    return C;
  }

  /// The element count of a tensor made by factory call \p Make.
  Count madeCount(const CallExpr *Make, const FunctionDecl *Fn) {
    const op::FactSet Facts = callFacts(Make);
    if (!(Facts & (op::Factory | op::LikeFactory)) || Make->getNumArgs() == 0)
      return {};
    const Expr *First = Make->getArg(0);
    if (Facts & op::LikeFactory) {
      const auto *Like = dyn_cast<DeclRefExpr>(peelTemporaries(First));
      Count C;
      if (Like) {
        C.K = Count::Numel;
        C.D = Like->getDecl();
      }
      return C;
    }
    // `{n}`: one dimension.
    if (const InitListExpr *IL = peel::writtenList(First))
      return IL->getNumInits() == 1 ? countOf(IL->getInit(0), Fn) : Count{};
    return {};
  }

  /// The count a `[first, first + n)` range covers: n.
  Count rangeCount(const Expr *Last, const FunctionDecl *Fn) {
    Last = peelTemporaries(Last);
    if (const auto *BO = dyn_cast<BinaryOperator>(Last);
        BO && BO->getOpcode() == BO_Add)
      return countOf(BO->getRHS(), Fn);
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Last);
        OC && OC->getOperator() == OO_Plus && OC->getNumArgs() == 2)
      return countOf(OC->getArg(1), Fn);
    return {};
  }

  bool localHolds(const VarDecl *V, const DeclRefExpr *Query, const Stmt *At,
                  unsigned Depth) {
    const auto *Fn =
        dyn_cast_or_null<FunctionDecl>(V->getParentFunctionOrMethod());
    if (!Fn || !Fn->getBody())
      return false;
    IndexGuardFinder &F = Guards.finder(Fn);
    if (!F.valid() || F.definitionsOf(V).size() != 1)
      return false;
    const auto *Make =
        dyn_cast_or_null<CallExpr>(peelTemporaries(V->getInit()));
    if (!Make)
      return false;
    enum { Produced, NeedsFill } Kind = Produced;
    Count Whole;
    if (callFacts(Make) & op::IndexProducer) {
      Kind = Produced;
    } else if (const FunctionDecl *Callee = Make->getDirectCallee();
               Callee && !isTorchFunction(Callee) && !isThrustCall(Make)) {
      // A function of this file whose every return value is such a local.
      const FunctionDecl *Def = nullptr;
      if (!Callee->hasBody(Def) || !Def || !isUserDecl(Def))
        return false;
      bool Any = false, All = true;
      forEachOwnStmt(Def->getBody(), [&](const Stmt *S) {
        if (const auto *Ret = dyn_cast<ReturnStmt>(S)) {
          Any = true;
          All = All && holds(Ret->getRetValue(), Ret, Depth + 1);
        }
      });
      if (!Any || !All)
        return false;
      Kind = Produced;
    } else {
      Whole = madeCount(Make, Fn);
      if (Whole.K == Count::None)
        return false;
      Kind = NeedsFill;
    }

    // The pointers made from the storage: `T *p = v.data_ptr<T>()`,
    // `auto p = thrust::device_ptr<T>(v.data_ptr<T>())`.
    llvm::SmallPtrSet<const ValueDecl *, 4> Storage = {V};
    forEachStmtIn(Fn->getBody(), [&](const Stmt *S) {
      if (const auto *DS = dyn_cast<DeclStmt>(S))
        for (const Decl *D : DS->decls())
          if (const auto *VD = dyn_cast<VarDecl>(D);
              VD && VD != V && VD->getInit() && !isTensorType(VD->getType()) &&
              storageOf(VD->getInit()) == V)
            Storage.insert(VD);
    });
    // Every reference to the tensor or to those pointers is accounted for.
    llvm::SmallPtrSet<const DeclRefExpr *, 16> Refs, Accounted;
    std::vector<const Stmt *> Fills, Uses;
    forEachStmtIn(Fn->getBody(), [&](const Stmt *S) {
      if (const auto *DRE = dyn_cast<DeclRefExpr>(S)) {
        if (Storage.count(DRE->getDecl()))
          Refs.insert(DRE);
        return;
      }
      if (const auto *DS = dyn_cast<DeclStmt>(S)) {
        for (const Decl *D : DS->decls())
          if (const auto *VD = dyn_cast<VarDecl>(D);
              VD && Storage.count(VD) && VD != V)
            account(VD->getInit(), Storage, Accounted);
        return;
      }
      if (const auto *L = dyn_cast<LambdaExpr>(S)) {
        // Captures: the uses in the body are checked themselves.
        for (const Expr *Init : L->capture_inits())
          account(Init, Storage, Accounted);
        return;
      }
      if (const auto *Ret = dyn_cast<ReturnStmt>(S)) {
        if (Kind == Produced && account(Ret->getRetValue(), Storage, Accounted))
          Uses.push_back(Ret);
        return;
      }
      if (const auto *Launch = dyn_cast<CUDAKernelCallExpr>(S)) {
        const FunctionDecl *K = Launch->getDirectCallee();
        for (unsigned I = 0; I < Launch->getNumArgs(); ++I)
          if (storageOf(Launch->getArg(I)) &&
              Storage.count(storageOf(Launch->getArg(I))) &&
              kernelOnlyReads(K, I))
            account(Launch->getArg(I), Storage, Accounted);
        Uses.push_back(Launch);
        return;
      }
      const auto *Call = dyn_cast<CallExpr>(S);
      if (!Call)
        return;
      const op::FactSet Facts = callFacts(Call);
      if (Facts & op::PermutesRange) {
        // A sort permutes the ranges it is given: every value stays one the
        // range held.
        for (const Expr *A : Call->arguments())
          account(A, Storage, Accounted);
        return;
      }
      if (Kind == NeedsFill && (Facts & op::CopiesRange) &&
          Call->getNumArgs() >= 3) {
        const unsigned N = Call->getNumArgs();
        const Expr *Out = Call->getArg(N - 1);
        if (isCountingFromNonNegative(Call->getArg(N - 3), Ctx) &&
            storageOf(Out) && Storage.count(storageOf(Out)) &&
            rangeCount(Call->getArg(N - 2), Fn) == Whole) {
          account(Out, Storage, Accounted);
          Fills.push_back(Call);
        }
        return;
      }
      if (Kind == NeedsFill && (Facts & op::FillsSequence) &&
          Call->getNumArgs() >= 2) {
        // sequence([policy,] first, last): 0, 1, 2...
        const unsigned N = Call->getNumArgs();
        const Expr *First = Call->getArg(N - 2), *Last = Call->getArg(N - 1);
        if (storageOf(First) && Storage.count(storageOf(First)) &&
            storageOf(Last) == storageOf(First) &&
            rangeCount(Last, Fn) == Whole) {
          account(First, Storage, Accounted);
          account(Last, Storage, Accounted);
          Fills.push_back(Call);
        }
        return;
      }
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
        const CXXMethodDecl *MD = MC->getMethodDecl();
        using op::Named;
        static const Named Shape[] = {
            Named::size,         Named::sizes,       Named::numel,
            Named::dim,          Named::stride,      Named::strides,
            Named::options,      Named::device,      Named::get_device,
            Named::dtype,        Named::scalar_type, Named::is_cuda,
            Named::is_contiguous};
        const DeclRefExpr *Obj = peel::declRef(MC->getImplicitObjectArgument());
        if (Obj && Obj->getDecl() == V &&
            llvm::any_of(Shape, [&](Named N) { return hasOpName(MD, N); }))
          Accounted.insert(Obj);
      }
    });
    // The use asked about is the caller's to judge.
    Accounted.insert(Query);
    Uses.push_back(At);
    for (const DeclRefExpr *R : Refs)
      if (!Accounted.count(R))
        return false;
    if (Kind == Produced)
      return true;
    // The fill comes before every launch that reads the array, and the
    // array is not returned half made.
    if (Fills.empty())
      return false;
    for (const Stmt *U : Uses) {
      if (isa<ReturnStmt>(U))
        return false;
      // A use in a lambda happens where the lambda is.
      const Stmt *Point = U;
      forEachStmtIn(Fn->getBody(), [&](const Stmt *S) {
        if (const auto *L = dyn_cast<LambdaExpr>(S))
          if (Point == U && L->getBody() && containsStmt(L->getBody(), U))
            Point = L;
      });
      if (!llvm::any_of(Fills, [&](const Stmt *Fill) {
            return F.dominates(Fill, Point);
          }))
        return false;
    }
    return true;
  }

  static bool isThrustCall(const CallExpr *Call) {
    return (callFacts(Call) &
            (op::PermutesRange | op::CopiesRange | op::FillsSequence))
        .any();
  }

  /// Marks the reference to the storage \p E reaches as accounted for.
  static bool account(const Expr *E,
                      const llvm::SmallPtrSetImpl<const ValueDecl *> &Storage,
                      llvm::SmallPtrSetImpl<const DeclRefExpr *> &Accounted) {
    const DeclRefExpr *Ref = storageRef(E);
    if (!Ref || !Storage.count(Ref->getDecl()))
      return false;
    Accounted.insert(Ref);
    return true;
  }

  ASTContext &Ctx;
  IndexGuardAnalysis &Guards;
  llvm::DenseMap<const DeclRefExpr *, bool> Memo;
};

IndexArrayProof::IndexArrayProof(ASTContext &Ctx, IndexGuardAnalysis &Guards)
    : P(std::make_unique<Impl>(Ctx, Guards)) {}

IndexArrayProof::~IndexArrayProof() = default;

bool IndexArrayProof::holds(const Expr *Tensor, const Stmt *At) {
  return P->holds(Tensor, At);
}

} // namespace torchtidy
