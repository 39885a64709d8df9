//===--- DeviceEscapes.cpp - Values whose device may change unseen --------===//
//
// The locals and parameters whose device DeviceFlow cannot follow: their
// address is taken, a reference is bound to them, a lambda captures them by
// reference, a non-const reference parameter receives them, or (modules)
// they are copied anywhere.
//
//===----------------------------------------------------------------------===//

#include "DeviceFlowImpl.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include <vector>

using namespace clang;

namespace torchtidy::deviceflow {

/// A module object: a holder, a shared_ptr to a module, or the Impl itself.
bool isModuleValue(QualType T) {
  if (T.isNull())
    return false;
  const QualType NR = T.getNonReferenceType();
  if (getHolderModule(NR) || getSharedPtrModule(NR))
    return true;
  const CXXRecordDecl *RD = namedRecord(NR);
  return RD && isModuleClass(RD);
}

namespace {

class EscapeFinder : public RecursiveASTVisitor<EscapeFinder> {
public:
  explicit EscapeFinder(llvm::DenseSet<const ValueDecl *> &Escaped)
      : Escaped(Escaped) {}

  void run(const Stmt *Body) {
    TraverseStmt(const_cast<Stmt *>(Body));
    for (const DeclRefExpr *DRE : ModuleRefs)
      if (!AllowedModuleRefs.count(DRE))
        Escaped.insert(DRE->getDecl());
  }

  bool shouldVisitLambdaBody() const { return false; }

  bool VisitUnaryOperator(UnaryOperator *UO) {
    if (UO->getOpcode() == UO_AddrOf)
      escape(UO->getSubExpr());
    return true;
  }

  bool VisitVarDecl(VarDecl *VD) {
    if (VD->getType()->isReferenceType() && VD->getInit())
      if (const ValueDecl *D = directRef(VD->getInit())) {
        Escaped.insert(D);
        Escaped.insert(VD);
      }
    return true;
  }

  bool VisitLambdaExpr(LambdaExpr *LE) {
    for (const LambdaCapture &C : LE->captures())
      if (C.capturesVariable() && C.getCaptureKind() == LCK_ByRef)
        if (const auto *VD = dyn_cast<VarDecl>(C.getCapturedVar()))
          Escaped.insert(VD);
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
    if (VD && VD->hasLocalStorage() && isModuleValue(VD->getType()))
      ModuleRefs.push_back(DRE);
    return true;
  }

  bool VisitMemberExpr(MemberExpr *ME) {
    allowModuleRef(ME->getBase());
    return true;
  }

  bool VisitCallExpr(CallExpr *Call) {
    const FunctionDecl *FD = Call->getDirectCallee();
    unsigned Offset = 0;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
      if (Op->getNumArgs() >= 1 &&
          (Op->getOperator() == OO_Arrow || Op->getOperator() == OO_Call ||
           Op->getOperator() == OO_Equal))
        allowModuleRef(Op->getArg(0));
      if (isa_and_nonnull<CXXMethodDecl>(FD)) {
        Offset = 1;
        // A non-const operator of a class the model does not know.
        const auto *MD = cast<CXXMethodDecl>(FD);
        if (!MD->isConst() && Op->getOperator() != OO_Equal &&
            !isTorchFunction(MD) && Op->getNumArgs() >= 1)
          escape(Op->getArg(0));
      }
    }
    // x.set_(y): x takes y's storage, and its device.
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
      if (callFacts(MC) & op::RebindsStorage)
        escape(MC->getImplicitObjectArgument());
    // LibTorch does not move a tensor passed by reference to another
    // device (out= arguments keep theirs).
    if (FD && isTorchFunction(FD))
      return true;
    for (unsigned I = Offset; I < Call->getNumArgs(); ++I) {
      const Expr *Arg = Call->getArg(I);
      if (!FD) {
        escape(Arg);
        continue;
      }
      const unsigned P = I - Offset;
      if (P >= FD->getNumParams()) {
        escape(Arg); // variadic
        continue;
      }
      // A non-const reference, an rvalue reference or a dependent type may
      // change the argument.
      const QualType PT = FD->getParamDecl(P)->getType();
      if ((PT->isLValueReferenceType() &&
           !PT.getNonReferenceType().isConstQualified()) ||
          PT->isRValueReferenceType() || PT->isDependentType())
        escape(Arg);
    }
    return true;
  }

private:
  static const ValueDecl *directRef(const Expr *E) {
    E = peel::peel(E, peel::ParenImpCasts);
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
        if (VD->hasLocalStorage())
          return VD;
    return nullptr;
  }
  void escape(const Expr *E) {
    if (const ValueDecl *D = directRef(E))
      Escaped.insert(D);
  }
  void allowModuleRef(const Expr *E) {
    if (const DeclRefExpr *DRE = peel::declRef(E))
      AllowedModuleRefs.insert(DRE);
  }

  llvm::DenseSet<const ValueDecl *> &Escaped;
  std::vector<const DeclRefExpr *> ModuleRefs;
  llvm::DenseSet<const DeclRefExpr *> AllowedModuleRefs;
};

} // namespace

void findEscapedValues(const Stmt *Body,
                       llvm::DenseSet<const ValueDecl *> &Escaped) {
  EscapeFinder(Escaped).run(Body);
}

} // namespace torchtidy::deviceflow
