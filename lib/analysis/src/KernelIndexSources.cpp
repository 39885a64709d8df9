//===--- KernelIndexSources.cpp - Where index values come from ------------===//
//
// Where index values come from in a kernel (or a host loop): pointer
// parameters, data_ptr locals and what reads them; part of the scan.
// Part of FunctionScan (KernelIndexLoadsImpl.h).
//
//===----------------------------------------------------------------------===//

#include "KernelIndexLoadsImpl.h"
#include "torchtidy/analysis/FunctionContext.h"
#include "torchtidy/analysis/IndexArrays.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/Attr.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;

namespace torchtidy {

using namespace kernelindex;

void FunctionScan::findSources() {
  if (Device) {
    for (const ParmVarDecl *P : FD->parameters()) {
      const QualType T = P->getType().getNonReferenceType();
      if (pointsToIndices(T) || T->isRecordType())
        Sources.insert(P);
    }
  } else if (Config.HostLoops) {
    // A helper's pointer parameter for which a call of the file passes a
    // tensor's raw storage (`gather(indices.data<int>(), ...)`).
    for (const ParmVarDecl *P : FD->parameters()) {
      if (!P->getType()->isPointerType() || !pointsToIndices(P->getType()))
        continue;
      const unsigned I = P->getFunctionScopeIndex();
      for (const CallOf &C : TU.callsOf(FD))
        if (I < C.Call->getNumArgs() && rawStorageTensor(C.Call->getArg(I))) {
          Sources.insert(P);
          break;
        }
    }
    // A lambda (the body of an AT_DISPATCH macro) reads the locals of the
    // functions around it.
    forEachStmtAround(FD, [&](const Stmt *S) {
      const auto *DS = dyn_cast<DeclStmt>(S);
      if (!DS)
        return;
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D)) {
          const Expr *Tensor = rawDataTensor(VD->getInit());
          if (!Tensor)
            Tensor = tensorInfoTensor(VD);
          if (Tensor) {
            Sources.insert(VD);
            HostTensor[VD] = Tensor;
          }
        }
    });
  }
  // Local pointers into a source: `const int64_t *row = idx + b * n`.
  bool Changed = true;
  while (Changed) {
    Changed = false;
    forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      const auto *DS = dyn_cast<DeclStmt>(S);
      if (!DS)
        return;
      for (const Decl *D : DS->decls()) {
        const auto *VD = dyn_cast<VarDecl>(D);
        if (!VD || Sources.count(VD) || !VD->getInit() ||
            !pointsToIndices(VD->getType()))
          continue;
        const ValueDecl *Root = rootOf(VD->getInit());
        if (Root && Sources.count(Root) &&
            VD->getInit()->getType()->isPointerType()) {
          Sources.insert(VD);
          Alias[VD] = Root;
          Changed = true;
        }
      }
    });
  }
}

const Expr *FunctionScan::tensorInfoTensor(const VarDecl *VD) {
  const CXXRecordDecl *RD = VD->getType()->getAsCXXRecordDecl();
  if (!RD || !RD->hasDefinition() || !VD->getInit())
    return nullptr;
  if (!llvm::any_of(RD->fields(), [](const FieldDecl *F) {
        return pointsToIndices(F->getType()) && F->getType()->isPointerType();
      }))
    return nullptr;
  const Expr *Init = ignoreCasts(VD->getInit());
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(Init);
      Construct && Construct->getNumArgs() == 1)
    Init = ignoreCasts(Construct->getArg(0));
  const auto *Call = dyn_cast<CallExpr>(Init);
  if (!Call)
    return nullptr;
  for (const Expr *A : Call->arguments())
    if (isTensorType(ignoreCasts(A)->getType()))
      return A;
  return nullptr;
}

const Expr *FunctionScan::rawDataTensor(const Expr *Init) {
  const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(ignoreCasts(Init));
  if (!MC || !(callFacts(MC) & op::RawData))
    return nullptr;
  const QualType T = MC->getType();
  bool Indices = pointsToIndices(T);
  if (!Indices)
    if (const auto *Spec =
            T->getAs<TemplateSpecializationType>()) // an accessor
      if (!Spec->template_arguments().empty() &&
          Spec->template_arguments()[0].getKind() == TemplateArgument::Type)
        Indices = isIndexType(Spec->template_arguments()[0].getAsType());
  if (!Indices)
    if (const auto *RD = T->getAsCXXRecordDecl())
      if (const auto *CTS = dyn_cast<ClassTemplateSpecializationDecl>(RD))
        if (CTS->getTemplateArgs().size() > 0 &&
            CTS->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
          Indices = isIndexType(CTS->getTemplateArgs()[0].getAsType());
  return Indices ? MC->getImplicitObjectArgument() : nullptr;
}

bool FunctionScan::isLoad(const Expr *E) {
  E = ignoreCasts(E);
  if (!E || !isIndexType(E->getType()))
    return false;
  const Expr *Address = nullptr;
  if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E))
    Address = ASE->getBase();
  else if (const auto *UO = dyn_cast<UnaryOperator>(E);
           UO && UO->getOpcode() == UO_Deref)
    Address = UO->getSubExpr();
  else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
           Op && Op->getOperator() == OO_Subscript)
    Address = Op->getArg(0);
  else if (const auto *Call = dyn_cast<CallExpr>(E);
           Call && (callFacts(Call) & op::ReadsAddress) &&
           Call->getNumArgs() > 0)
    Address = Call->getArg(0);
  if (!Address)
    return false;
  const ValueDecl *Root = rootOf(Address);
  if (!Root || !Sources.count(Root))
    return false;
  // A struct or accessor parameter: only what its data pointer holds is
  // tensor data (TensorInfo's sizes and strides are arrays of the shape).
  if (Root->getType().getNonReferenceType()->isRecordType())
    return readsThroughPointerMember(Address);
  return true;
}

bool FunctionScan::readsThroughPointerMember(const Expr *Address) {
  for (unsigned Steps = 0; Address && Steps < 16; ++Steps) {
    Address = ignoreCasts(Address);
    if (const auto *ME = dyn_cast<MemberExpr>(Address))
      return ME->getType()->isPointerType();
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Address))
      return MC->getType()->isPointerType(); // info.data()
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Address))
      return Op->getOperator() == OO_Subscript && isAccessor(Op->getArg(0));
    if (isAccessor(Address))
      return true;
    if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(Address))
      Address = ASE->getBase();
    else if (const auto *BO = dyn_cast<BinaryOperator>(Address))
      Address = BO->getLHS()->getType()->isPointerType() ? BO->getLHS()
                                                         : BO->getRHS();
    else if (const auto *UO = dyn_cast<UnaryOperator>(Address))
      Address = UO->getSubExpr();
    else
      return false;
  }
  return false;
}

const ValueDecl *FunctionScan::sourceOf(const Expr *Load) {
  const ValueDecl *Root = nullptr;
  const Expr *E = ignoreCasts(Load);
  if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E))
    Root = rootOf(ASE->getBase());
  else if (const auto *UO = dyn_cast<UnaryOperator>(E))
    Root = rootOf(UO->getSubExpr());
  else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
    Root = rootOf(Op->getArg(0));
  else if (const auto *Call = dyn_cast<CallExpr>(E))
    Root = rootOf(Call->getArg(0));
  for (unsigned I = 0; I < 8 && Root && Alias.count(Root); ++I)
    Root = Alias.lookup(Root);
  return Root;
}

const Expr *FunctionScan::loadIn(const Expr *E) {
  const Expr *Found = nullptr;
  walk(E, [&](const Expr *X) {
    if (!Found && isLoad(X))
      Found = X;
  });
  return Found;
}

bool FunctionScan::boundsItsValue(const Expr *E) {
  const auto *Call = dyn_cast<CallExpr>(E);
  return (Call && isClamp(Call)) || boundingRemainder(E) ||
         boundedDifference(E);
}

bool FunctionScan::boundingRemainder(const Expr *E) {
  const auto *BO = dyn_cast<BinaryOperator>(peel::peel(E, peel::Parens));
  if (!BO || BO->getOpcode() != BO_Rem || !nonNegative(BO->getLHS(), Ctx))
    return false;
  llvm::SmallPtrSet<const VarDecl *, 2> Tainted;
  taintedIn(BO->getRHS(), Tainted);
  return Tainted.empty() && !loadIn(BO->getRHS());
}

bool FunctionScan::boundedDifference(const Expr *E) {
  const auto *BO = dyn_cast<BinaryOperator>(peel::peel(E, peel::Parens));
  if (!BO || BO->getOpcode() != BO_Sub)
    return false;
  const VarDecl *I = peel::referencedVar(BO->getLHS()),
                *S = peel::referencedVar(BO->getRHS());
  if (!I || !S || I == S)
    return false;
  auto Starts = [&](const Stmt *Init) {
    if (const auto *DS = dyn_cast_or_null<DeclStmt>(Init))
      return DS->isSingleDecl() && DS->getSingleDecl() == I &&
             peel::referencedVar(I->getInit()) == S;
    const auto *A = dyn_cast_or_null<BinaryOperator>(Init);
    return A && A->getOpcode() == BO_Assign &&
           peel::referencedVar(A->getLHS()) == I &&
           peel::referencedVar(A->getRHS()) == S;
  };
  auto StepsByOne = [&](const Expr *Inc) {
    const auto *UO = dyn_cast_or_null<UnaryOperator>(Inc);
    return UO && UO->isIncrementOp() &&
           peel::referencedVar(UO->getSubExpr()) == I;
  };
  // `s + k` with k not loaded.
  auto StartPlusBound = [&](const Expr *X) {
    const auto *Add =
        dyn_cast<BinaryOperator>(peel::peel(X, peel::ParenImpCasts));
    if (!Add || Add->getOpcode() != BO_Add)
      return false;
    const Expr *K = peel::referencedVar(Add->getLHS()) == S   ? Add->getRHS()
                    : peel::referencedVar(Add->getRHS()) == S ? Add->getLHS()
                                                              : nullptr;
    if (!K || loadIn(K))
      return false;
    llvm::SmallPtrSet<const VarDecl *, 2> Tainted;
    taintedIn(K, Tainted);
    return Tainted.empty();
  };
  auto Caps = [&](const Expr *Cond) {
    const auto *Lt =
        dyn_cast_or_null<BinaryOperator>(peel::peel(Cond, peel::ParenImpCasts));
    if (!Lt || Lt->getOpcode() != BO_LT ||
        peel::referencedVar(Lt->getLHS()) != I)
      return false;
    const Expr *Hi = peel::peel(Lt->getRHS(), peel::ParenImpCasts);
    if (StartPlusBound(Hi))
      return true;
    const auto *Min = dyn_cast<CallExpr>(Hi);
    if (!Min || !(callFacts(Min) & op::TakesMinimum))
      return false;
    return llvm::any_of(Min->arguments(), StartPlusBound);
  };
  FunctionContext *Fn = FunctionContexts::of(Ctx).get(FD);
  if (!ForsFound) {
    ForsFound = true;
    forEachOwnStmt(FD->getBody(), [&](const Stmt *St) {
      if (const auto *For = dyn_cast<ForStmt>(St); For && For->getBody())
        Fors.push_back(For);
    });
  }
  const SourceManager &SM = Ctx.getSourceManager();
  const SourceLocation At = SM.getFileLoc(BO->getBeginLoc());
  for (const ForStmt *For : Fors) {
    const SourceRange Body = For->getBody()->getSourceRange();
    if (SM.isBeforeInTranslationUnit(At, SM.getFileLoc(Body.getBegin())) ||
        SM.isBeforeInTranslationUnit(SM.getFileLoc(Body.getEnd()), At) ||
        !containsStmt(For->getBody(), BO))
      continue;
    if (Starts(For->getInit()) && StepsByOne(For->getInc()) &&
        Caps(For->getCond()) && Fn && !Fn->isMutatedIn(I, For->getBody()) &&
        !Fn->isMutatedIn(S, For->getBody()))
      return true;
  }
  return false;
}

void FunctionScan::valueTaintedIn(const Expr *E,
                                  llvm::SmallPtrSetImpl<const VarDecl *> &Out) {
  if (!E)
    return;
  if (isLoad(E))
    return;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
        VD && Taint.count(VD))
      Out.insert(VD);
  if (boundsItsValue(E))
    return;
  for (const Stmt *Child : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(Child))
      valueTaintedIn(CE, Out);
}

void FunctionScan::taintedIn(const Expr *E,
                             llvm::SmallPtrSetImpl<const VarDecl *> &Out) {
  walk(E, [&](const Expr *X) {
    if (const auto *DRE = dyn_cast<DeclRefExpr>(X))
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
        if (Taint.count(VD))
          Out.insert(VD);
  });
}

void FunctionScan::propagate(const Stmt *Body) {
  std::vector<std::pair<const VarDecl *, const Expr *>> Defs;
  forEachOwnStmt(Body, [&](const Stmt *S) {
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D))
          if (VD->getInit() && isIndexType(VD->getType()))
            Defs.emplace_back(VD, VD->getInit());
      return;
    }
    const auto *BO = dyn_cast<BinaryOperator>(S);
    if (!BO || !BO->isAssignmentOp())
      return;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(ignoreCasts(BO->getLHS())))
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
        if (isIndexType(VD->getType()) && !VD->getType()->isReferenceType())
          Defs.emplace_back(VD, BO->getRHS());
  });
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (const auto &[VD, Init] : Defs) {
      const Expr *Load = loadIn(Init);
      llvm::SmallPtrSet<const VarDecl *, 4> From;
      valueTaintedIn(Init, From);
      From.erase(VD);
      if (!Load && From.empty())
        continue;
      TaintInfo &TI = Taint[VD];
      const size_t Before = TI.From.size() + (TI.Load ? 1 : 0);
      if (Load && !TI.Load)
        TI.Load = Load;
      for (const VarDecl *F : From)
        if (!llvm::is_contained(TI.From, F))
          TI.From.push_back(F);
      if (TI.From.size() + (TI.Load ? 1 : 0) != Before)
        Changed = true;
    }
  }
}

std::pair<const Expr *, const VarDecl *>
FunctionScan::originOf(const VarDecl *VD) {
  llvm::SmallPtrSet<const VarDecl *, 8> Seen;
  std::vector<const VarDecl *> Work = {VD};
  while (!Work.empty()) {
    const VarDecl *V = Work.back();
    Work.pop_back();
    if (!Seen.insert(V).second)
      continue;
    auto It = Taint.find(V);
    if (It == Taint.end())
      continue;
    if (It->second.Load)
      return {It->second.Load, V};
    for (const VarDecl *F : It->second.From)
      Work.push_back(F);
  }
  return {nullptr, nullptr};
}

void FunctionScan::ancestors(llvm::SmallPtrSetImpl<const VarDecl *> &Vars) {
  std::vector<const VarDecl *> Work(Vars.begin(), Vars.end());
  while (!Work.empty()) {
    const VarDecl *V = Work.back();
    Work.pop_back();
    auto It = Taint.find(V);
    if (It == Taint.end())
      continue;
    for (const VarDecl *F : It->second.From)
      if (Vars.insert(F).second)
        Work.push_back(F);
  }
}

} // namespace torchtidy
