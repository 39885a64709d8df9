//===--- UserCode.cpp - What is the user's code ---------------------------===//

#include "torchtidy/analysis/UserCode.h"
#include "torchtidy/analysis/FunctionContext.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchTypes.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/DenseSet.h"

using namespace clang;

namespace torchtidy {

bool isUserCode(SourceLocation Loc, const SourceManager &SM) {
  return Loc.isValid() && !SM.isInSystemHeader(SM.getExpansionLoc(Loc));
}

bool isUserDecl(const Decl *D) {
  return D &&
         isUserCode(D->getLocation(), D->getASTContext().getSourceManager());
}

bool isImplicitInstantiation(const Decl *D) {
  if (const auto *FD = dyn_cast<FunctionDecl>(D))
    return FD->getTemplateSpecializationKind() == TSK_ImplicitInstantiation;
  if (const auto *RD = dyn_cast<CXXRecordDecl>(D))
    return RD->getTemplateSpecializationKind() == TSK_ImplicitInstantiation;
  if (const auto *VD = dyn_cast<VarDecl>(D))
    return VD->getTemplateSpecializationKind() == TSK_ImplicitInstantiation;
  return false;
}

bool isSkippableLibraryBody(const Decl *D) {
  const FunctionDecl *FD = D ? D->getAsFunction() : nullptr;
  if (!FD || isUserDecl(FD) || FD->isTemplated())
    return false;
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  return !MD || !(isModuleBaseClass(MD->getParent()) ||
                  isModuleClass(MD->getParent()));
}

bool isInMainFileExpansion(SourceLocation Loc, const SourceManager &SM) {
  return Loc.isValid() && SM.isInMainFile(SM.getExpansionLoc(Loc));
}

namespace {

class UserFunctionWalker : public RecursiveASTVisitor<UserFunctionWalker> {
  using Base = RecursiveASTVisitor<UserFunctionWalker>;

public:
  explicit UserFunctionWalker(
      llvm::function_ref<void(const FunctionDecl *)> Visit)
      : Visit(Visit) {}

  bool shouldVisitTemplateInstantiations() const { return true; }

  bool TraverseDecl(Decl *D) {
    if (!D)
      return true;
    // A system header's declarations are skipped whole: <torch/torch.h>
    // holds hundreds of thousands of statements.
    if (!isa<TranslationUnitDecl>(D) && !isUserDecl(D))
      return true;
    return Base::TraverseDecl(D);
  }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    consider(FD);
    return true;
  }

  bool TraverseLambdaExpr(LambdaExpr *L) {
    consider(L->getCallOperator());
    return Base::TraverseLambdaExpr(L);
  }

private:
  void consider(const FunctionDecl *FD) {
    if (!FD || !FD->doesThisDeclarationHaveABody() || !FD->getBody() ||
        FD->isDependentContext() || FD->isInvalidDecl() || FD->isDefaulted() ||
        (FD->isImplicit() && !isLambdaOperator(FD)))
      return;
    if (Seen.insert(FD).second)
      Visit(FD);
  }
  static bool isLambdaOperator(const FunctionDecl *FD) {
    const auto *MD = dyn_cast<CXXMethodDecl>(FD);
    return MD && MD->getParent()->isLambda();
  }

  llvm::function_ref<void(const FunctionDecl *)> Visit;
  llvm::DenseSet<const FunctionDecl *> Seen;
};

/// Pre-order over a body, stopping at nested functions, or, with
/// \p EnterLambdas, entering lambda bodies.
void walkOwn(const Stmt *S, llvm::function_ref<void(const Stmt *)> Visit,
             bool EnterLambdas = false) {
  // An explicit stack: deep expressions must not overflow the C++ stack.
  llvm::SmallVector<const Stmt *, 32> Stack{S};
  while (!Stack.empty()) {
    const Stmt *Cur = Stack.pop_back_val();
    if (!Cur)
      continue;
    Visit(Cur);
    // The lambda's body is its own function; its captures' initialisers
    // are evaluated here.
    if (const auto *L = dyn_cast<LambdaExpr>(Cur); L && !EnterLambdas) {
      for (const Expr *Init : L->capture_inits())
        Stack.push_back(Init);
      continue;
    }
    // A local class's methods are their own functions: a DeclStmt's
    // children are only its variables' initialisers.
    llvm::SmallVector<const Stmt *, 8> Children(Cur->child_begin(),
                                                Cur->child_end());
    // An OpenMP region (`#pragma omp parallel for`) runs the statement it
    // captures as part of this function; its children are the captures.
    if (const auto *CS = dyn_cast<CapturedStmt>(Cur))
      Children.push_back(CS->getCapturedStmt());
    for (auto It = Children.rbegin(); It != Children.rend(); ++It)
      Stack.push_back(*It);
  }
}

} // namespace

void forEachUserFunction(ASTContext &Ctx,
                         llvm::function_ref<void(const FunctionDecl *)> Visit) {
  // A copy: a Visit that asked again after changing the traversal scope
  // would otherwise free the list under this loop.
  const std::vector<const FunctionDecl *> Functions =
      FunctionContexts::of(Ctx).userFunctions();
  for (const FunctionDecl *FD : Functions)
    Visit(FD);
}

std::vector<const FunctionDecl *>
detail::collectUserFunctions(ASTContext &Ctx) {
  std::vector<const FunctionDecl *> Functions;
  // Named: the walker keeps a function_ref to it.
  auto Collect = [&](const FunctionDecl *FD) { Functions.push_back(FD); };
  UserFunctionWalker Walker(Collect);
  Walker.TraverseDecl(Ctx.getTranslationUnitDecl());
  return Functions;
}

void forEachOwnStmt(const Stmt *Body,
                    llvm::function_ref<void(const Stmt *)> Visit) {
  walkOwn(Body, Visit);
}

void forEachStmtIn(const Stmt *Body,
                   llvm::function_ref<void(const Stmt *)> Visit) {
  walkOwn(Body, Visit, /*EnterLambdas=*/true);
}

namespace {
bool exitsBy(const Stmt *S, bool LoopJumps, bool Returns, unsigned Depth) {
  if (!S || Depth > limits::SearchDepth)
    return false;
  if ((Returns && isa<ReturnStmt>(S)) || isa<CXXThrowExpr>(S) ||
      (LoopJumps && (isa<BreakStmt>(S) || isa<ContinueStmt>(S))))
    return true;
  if (const auto *E = dyn_cast<Expr>(S)) {
    E = peel::peel(E, peel::Compiler);
    if (isa<CXXThrowExpr>(E))
      return true;
    if (const auto *Call = dyn_cast<CallExpr>(E))
      if (const FunctionDecl *FD = Call->getDirectCallee())
        return FD->isNoReturn();
    return false;
  }
  if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
    for (const Stmt *Child : CS->body())
      if (exitsBy(Child, LoopJumps, Returns, Depth + 1))
        return true;
    return false;
  }
  if (const auto *Do = dyn_cast<DoStmt>(S))
    return exitsBy(Do->getBody(), LoopJumps, Returns, Depth + 1);
  if (const auto *A = dyn_cast<AttributedStmt>(S))
    return exitsBy(A->getSubStmt(), LoopJumps, Returns, Depth + 1);
  return false;
}
} // namespace

bool exits(const Stmt *S, unsigned Depth) {
  return exitsBy(S, /*LoopJumps=*/true, /*Returns=*/true, Depth);
}

bool leavesFunction(const Stmt *S) {
  return exitsBy(S, /*LoopJumps=*/false, /*Returns=*/true, 0);
}

bool neverReturns(const Stmt *S) {
  return exitsBy(S, /*LoopJumps=*/false, /*Returns=*/false, 0);
}

bool mayJumpOut(const Stmt *S) {
  bool Found = false;
  forEachOwnStmt(S, [&](const Stmt *Child) {
    Found = Found || isa<ReturnStmt, CoreturnStmt, BreakStmt, ContinueStmt,
                         GotoStmt, IndirectGotoStmt>(Child);
  });
  return Found;
}

} // namespace torchtidy
