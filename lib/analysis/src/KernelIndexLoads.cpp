//===--- KernelIndexLoads.cpp - Indices loaded from another array ---------===//

#include "KernelIndexLoadsImpl.h"
#include "torchtidy/analysis/FunctionContext.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <algorithm>

using namespace clang;

namespace torchtidy {

// The analysis' helpers (KernelIndexLoadsImpl.h).
namespace kernelindex {

const Expr *ignoreCasts(const Expr *E) {
  return peel::peel(E, peel::AsComputed);
}

/// `int`, `int64_t`, `unsigned`...: a type an index value has.
bool isIndexType(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  return T->isIntegerType() && !T->isBooleanType() && !T->isCharType();
}

/// A pointer (or an array) to index values.
bool pointsToIndices(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  if (const auto *P = T->getAs<PointerType>())
    return isIndexType(P->getPointeeType());
  if (const auto *A = T->getAsArrayTypeUnsafe())
    return isIndexType(A->getElementType());
  return false;
}

/// A call that bounds its operands' result to a range: std::min/max, CUDA's
/// device min/max/fmin/fmax, a clamp (the op table's BoundsByArguments).
bool isClamp(const CallExpr *Call) {
  return (callFacts(Call) & op::BoundsByArguments).any();
}

/// \p Arg is a tensor's raw storage (`t.data_ptr<int>()`, `t.data<int>()`):
/// that tensor.
const Expr *rawStorageTensor(const Expr *Arg) {
  const auto *MC =
      dyn_cast_or_null<CXXMemberCallExpr>(peel::peel(Arg, peel::ParenImpCasts));
  if (!MC || !(callFacts(MC) & op::RawData) || !MC->getType()->isPointerType())
    return nullptr;
  return MC->getImplicitObjectArgument();
}

/// A kernel's pattern: a template's instantiations share one.
const FunctionDecl *patternOf(const FunctionDecl *K) {
  if (const FunctionDecl *P = K->getTemplateInstantiationPattern())
    K = P;
  return K->getCanonicalDecl();
}

} // namespace kernelindex

using namespace kernelindex;

//===----------------------------------------------------------------------===//
// The scan of one function, and the accesses at a loaded offset
// (KernelIndexLoadsImpl.h)
//===----------------------------------------------------------------------===//

bool FunctionScan::device() const { return Device; }

void FunctionScan::run(std::vector<UncheckedIndexLoad> &Out) {
  const Stmt *Body = FD->getBody();
  if (!Body)
    return;
  findSources();
  if (Sources.empty())
    return;
  propagate(Body);
  std::vector<UncheckedIndexLoad> Found;
  forEachOwnStmt(Body, [&](const Stmt *S) { visitAccess(S, Found); });
  if (Found.empty())
    return;
  if (!buildCfg())
    return;
  for (UncheckedIndexLoad &U : Found)
    if (!bounded(U)) { // names the part that nothing bounds
      U.Statement = statementOf(U.Access);
      U.LaunchArgument = launchArgumentOf(U);
      Out.push_back(U);
    }
}

void FunctionScan::visitAccess(const Stmt *S,
                               std::vector<UncheckedIndexLoad> &Out) {
  const auto *E = dyn_cast<Expr>(S);
  if (!E)
    return;
  const Expr *Array = nullptr;
  const Expr *Offset = nullptr;
  if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E)) {
    Array = ASE->getBase();
    Offset = ASE->getIdx();
  } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
             Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2 &&
             isAccessor(Op->getArg(0))) {
    Array = Op->getArg(0);
    Offset = Op->getArg(1);
  } else if (const auto *BO = dyn_cast<BinaryOperator>(E);
             BO && BO->isAdditiveOp() && BO->getType()->isPointerType()) {
    // `p + e`, whatever reads or writes through it (`*(p + e)`,
    // `atomicAdd(p + e, v)`, a helper given the address). The offset is
    // the whole sum: `out + b * N + idx * K + k`.
    Array = BO;
    while (const auto *Inner = dyn_cast<BinaryOperator>(ignoreCasts(Array)))
      if (Inner->isAdditiveOp() && Inner->getType()->isPointerType())
        Array = Inner->getLHS()->getType()->isPointerType() ? Inner->getLHS()
                                                            : Inner->getRHS();
      else
        break;
    Offset = BO;
  }
  if (!Array || !Offset)
    return;
  if (!Device && !inLoop(E))
    return;
  llvm::SmallPtrSet<const VarDecl *, 4> Vars;
  taintedIn(Offset, Vars);
  const Expr *Load = loadIn(Offset);
  if (!Load && Vars.empty())
    return;
  UncheckedIndexLoad U;
  U.Function = FD;
  U.Access = E;
  U.Offset = Offset;
  U.Array = Array;
  U.Device = Device;
  if (Load) {
    U.Load = Load;
  } else {
    // The tainted local the offset reads whose load comes first.
    for (const VarDecl *V : Vars) {
      auto [L, Holder] = originOf(V);
      if (L && (!U.Load || L->getBeginLoc() < U.Load->getBeginLoc())) {
        U.Load = L;
        U.Holder = Holder;
      }
    }
    if (!U.Load)
      return;
  }
  U.Source = sourceOf(U.Load);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(ignoreCasts(Array)))
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
      if (const auto *CAT = Ctx.getAsConstantArrayType(VD->getType()))
        U.ArrayExtent = CAT->getSize().getSExtValue();
  Out.push_back(U);
}

bool FunctionScan::isAccessor(const Expr *E) {
  return isClass(
      namedRecord(ignoreCasts(E)->getType()),
      {KnownClass::TensorAccessor, KnownClass::GenericPackedTensorAccessor});
}

bool FunctionScan::inLoop(const Expr *E) {
  if (!LoopsFound) {
    LoopsFound = true;
    forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S))
        Loops.push_back(S->getSourceRange());
    });
  }
  const SourceManager &SM = Ctx.getSourceManager();
  const SourceLocation L = SM.getFileLoc(E->getBeginLoc());
  for (const SourceRange R : Loops)
    if (!SM.isBeforeInTranslationUnit(L, SM.getFileLoc(R.getBegin())) &&
        !SM.isBeforeInTranslationUnit(SM.getFileLoc(R.getEnd()), L))
      return true;
  return false;
}

const Stmt *FunctionScan::statementOf(const Expr *E) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation At = SM.getFileLoc(E->getBeginLoc());
  const Stmt *Best = nullptr;
  forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
    const auto *CS = dyn_cast<CompoundStmt>(S);
    if (!CS)
      return;
    for (const Stmt *Child : CS->body()) {
      const SourceLocation B = SM.getFileLoc(Child->getBeginLoc());
      const SourceLocation End = SM.getFileLoc(Child->getEndLoc());
      if (!SM.isBeforeInTranslationUnit(At, B) &&
          !SM.isBeforeInTranslationUnit(End, At))
        Best = Child; // pre-order: inner statements come later
    }
  });
  return Best;
}

const Expr *FunctionScan::launchArgumentOf(const UncheckedIndexLoad &U) {
  const auto *Param = dyn_cast_or_null<ParmVarDecl>(U.Source);
  if (Param && !Device) {
    // A host helper: the call that passes a tensor's storage for it.
    for (const CallOf &C : TU.callsOf(FD))
      if (Param->getFunctionScopeIndex() < C.Call->getNumArgs() &&
          rawStorageTensor(C.Call->getArg(Param->getFunctionScopeIndex())))
        return C.Call->getArg(Param->getFunctionScopeIndex());
    return nullptr;
  }
  if (!Param || !FD->hasAttr<CUDAGlobalAttr>())
    return nullptr;
  for (const LaunchOf &L : TU.launchesOf(FD))
    if (Param->getFunctionScopeIndex() < L.Call->getNumArgs())
      return L.Call->getArg(Param->getFunctionScopeIndex());
  return nullptr;
}

std::vector<UncheckedIndexLoad>
findUncheckedIndexLoads(ASTContext &Ctx, const KernelIndexConfig &Config,
                        const std::vector<AssertMacroUse> &Asserts) {
  std::vector<UncheckedIndexLoad> Out;
  Shared TU(Ctx);
  FunctionContexts &Contexts = FunctionContexts::of(Ctx);
  for (const auto &[Call, FD] : Contexts.callSites()) {
    if (const auto *L = dyn_cast<CUDAKernelCallExpr>(Call)) {
      if (const FunctionDecl *K = L->getDirectCallee())
        TU.Launches[patternOf(K)].push_back({L, FD});
      continue;
    }
    if (!isa<CXXOperatorCallExpr, CXXMemberCallExpr>(Call))
      if (const FunctionDecl *Callee = Call->getDirectCallee();
          Callee && isUserDecl(Callee) && !Callee->hasAttr<CUDAGlobalAttr>() &&
          !Callee->hasAttr<CUDADeviceAttr>())
        TU.Calls[patternOf(Callee)].push_back({Call, FD});
  }
  // A copy, as forEachUserFunction makes.
  const std::vector<const FunctionDecl *> Functions = Contexts.userFunctions();
  for (const FunctionDecl *FD : Functions) {
    FunctionScan Scan(FD, Ctx, TU, Config, Asserts);
    if (Scan.device() || Config.HostLoops)
      Scan.run(Out);
  }
  // One finding per access (a template's instantiations share its source).
  const SourceManager &SM = Ctx.getSourceManager();
  llvm::DenseSet<unsigned> Seen;
  std::vector<UncheckedIndexLoad> Unique;
  for (const UncheckedIndexLoad &U : Out)
    if (Seen.insert(SM.getFileLoc(U.Access->getBeginLoc()).getRawEncoding())
            .second)
      Unique.push_back(U);
  std::sort(Unique.begin(), Unique.end(),
            [&](const UncheckedIndexLoad &A, const UncheckedIndexLoad &B) {
              return SM.isBeforeInTranslationUnit(
                  SM.getFileLoc(A.Access->getBeginLoc()),
                  SM.getFileLoc(B.Access->getBeginLoc()));
            });
  return Unique;
}

} // namespace torchtidy
