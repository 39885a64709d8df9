//===--- FunctionContext.cpp - One function's CFG, shared -----------------===//

#include "torchtidy/analysis/FunctionContext.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseMap.h"

#include <mutex>

using namespace clang;

namespace torchtidy {

FunctionContext::FunctionContext(const FunctionDecl *FD, ASTContext &Ctx)
    : FD(FD), Ctx(Ctx) {}

FunctionContext::~FunctionContext() = default;

const CFG *FunctionContext::cfg() {
  if (CfgTried)
    return Cfg.get();
  CfgTried = true;
  if (!FD || !FD->getBody() || FD->isDependentContext())
    return nullptr;
  CFG::BuildOptions Options;
  Options.setAllAlwaysAdd();
  Options.AddImplicitDtors = true;
  Options.AddLifetime = true;
  Options.AddInitializers = true;
  Cfg = CFG::buildCFG(FD, FD->getBody(), &Ctx, Options);
  if (!Cfg)
    return nullptr;
  for (const CFGBlock *B : *Cfg) {
    if (!B)
      continue;
    unsigned I = 0;
    for (const CFGElement &E : *B) {
      if (auto CS = E.getAs<CFGStmt>()) {
        const Stmt *S = CS->getStmt();
        Where.try_emplace(S, CFGPoint{B, I});
        if (const auto *DS = dyn_cast<DeclStmt>(S))
          for (const Decl *D : DS->decls())
            if (const auto *VD = dyn_cast<VarDecl>(D))
              Declared.try_emplace(VD, CFGPoint{B, I});
      }
      ++I;
    }
  }
  return Cfg.get();
}

CFGPoint FunctionContext::pointOf(const Stmt *S) {
  return cfg() ? Where.lookup(S) : CFGPoint{};
}

CFGPoint FunctionContext::declaredAt(const VarDecl *VD) {
  return cfg() ? Declared.lookup(VD) : CFGPoint{};
}

bool FunctionContext::dominates(const CFGBlock *A, const CFGBlock *B) {
  if (!A || !B || !cfg())
    return false;
  if (!DomTree) {
    DomTree.emplace();
    DomTree->buildDominatorTree(Cfg.get());
  }
  return DomTree->dominates(A, B);
}

const Stmt *FunctionContext::parentOf(const Stmt *S) {
  if (!S || !FD || !FD->getBody())
    return nullptr;
  if (!Parents) {
    Parents = std::make_unique<ParentMap>(FD->getBody());
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD))
      for (const CXXCtorInitializer *Init : Ctor->inits())
        if (Init->getInit())
          Parents->addStmt(Init->getInit());
  }
  return Parents->getParent(S);
}

ExprMutationAnalyzer *FunctionContext::mutations() {
  if (!FD || !FD->getBody())
    return nullptr;
  if (!Mutations)
    Mutations = std::make_unique<ExprMutationAnalyzer>(*FD->getBody(), Ctx);
  return Mutations.get();
}

bool FunctionContext::isMutated(const VarDecl *VD) {
  ExprMutationAnalyzer *M = VD ? mutations() : nullptr;
  return M && M->isMutated(VD);
}

namespace {
/// \p Arg is an argument of \p Parent, a call, given to a non-const lvalue
/// reference parameter of the callee as instantiated (`pass(v)` of
/// `template <class T> void pass(T &&)` takes an `int &`).
bool boundToMutableReference(const Expr *Arg, const Stmt *Parent) {
  const auto *Call = dyn_cast_or_null<CallExpr>(Parent);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee)
    return false;
  // An operator method's object is argument 0.
  const unsigned Shift =
      isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee) ? 1 : 0;
  for (unsigned I = Shift; I < Call->getNumArgs(); ++I) {
    if (Call->getArg(I) != Arg)
      continue;
    if (I - Shift >= Callee->getNumParams())
      return false;
    const QualType T = Callee->getParamDecl(I - Shift)->getType();
    return T->isLValueReferenceType() &&
           !T.getNonReferenceType().isConstQualified();
  }
  return false;
}
} // namespace

const Stmt *FunctionContext::mutationOf(const Expr *E) {
  ExprMutationAnalyzer *M = E ? mutations() : nullptr;
  if (!M)
    return nullptr;
  if (const Stmt *By = M->findMutation(E))
    return By;
  // Given to a forwarding reference, the analyzer follows the argument into
  // the callee's body, and calls it a change when there is none: torch-clangd
  // builds its preamble without the headers' function bodies, the driver
  // with them. A non-const reference counts as a change whatever the body,
  // so that every frontend answers alike.
  const Expr *Arg = peel::climb(E, peel::Parens,
                                [this](const Stmt *S) { return parentOf(S); });
  const Stmt *Parent = parentOf(Arg);
  return boundToMutableReference(Arg, Parent) ? Parent : nullptr;
}

bool FunctionContext::isMutatedIn(const VarDecl *VD, const Stmt *Within,
                                  llvm::ArrayRef<const Stmt *> Except) {
  if (!VD || !Within)
    return false;
  bool Found = false;
  forEachStmtIn(Within, [&](const Stmt *S) {
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S);
        !Found && DRE && DRE->getDecl() == VD) {
      const Stmt *By = mutationOf(DRE);
      Found = By && !llvm::is_contained(Except, By);
    }
  });
  return Found;
}

namespace {
/// The live translation units' contexts. Each ASTContext frees its own
/// entry when it dies (AddDeallocation), so that a later ASTContext at the
/// same address starts empty.
///
/// A static object, not one on the heap: clang-tidy dlcloses a --load plugin
/// at exit, and a heap registry whose only pointer lived in the plugin's data
/// is then a leak (LeakSanitizer reports it). An ASTContext that dies after
/// the registry (during static destruction) finds it gone and only frees its
/// own entry.
struct Registry {
  std::mutex Mutex;
  llvm::DenseMap<const ASTContext *, FunctionContexts *> Map;
  /// Trivially destructible, so still readable once the registry is gone.
  static inline bool Gone = false;
  ~Registry() { Gone = true; }
};

Registry &registry() {
  static Registry R;
  return R;
}
} // namespace

FunctionContexts &FunctionContexts::of(ASTContext &Ctx) {
  Registry &R = registry();
  const std::lock_guard<std::mutex> Lock(R.Mutex);
  FunctionContexts *&Slot = R.Map[&Ctx];
  if (!Slot) {
    Slot = new FunctionContexts(Ctx);
    Ctx.AddDeallocation(
        [](void *P) {
          auto *Contexts = static_cast<FunctionContexts *>(P);
          if (!Registry::Gone) {
            Registry &R = registry();
            const std::lock_guard<std::mutex> Lock(R.Mutex);
            R.Map.erase(&Contexts->Ctx);
          }
          delete Contexts;
        },
        Slot);
  }
  return *Slot;
}

FunctionContext *FunctionContexts::get(const FunctionDecl *FD) {
  if (!FD)
    return nullptr;
  const FunctionDecl *Def = FD->getDefinition();
  if (!Def || !Def->getBody())
    return nullptr;
  std::unique_ptr<FunctionContext> &Slot = Contexts[Def];
  if (!Slot)
    Slot = std::make_unique<FunctionContext>(Def, Ctx);
  return Slot.get();
}

const std::vector<const FunctionDecl *> &FunctionContexts::userFunctions() {
  std::vector<Decl *> Scope = Ctx.getTraversalScope();
  if (!UserFunctions || Scope != UserFunctionsScope) {
    UserFunctions = detail::collectUserFunctions(Ctx);
    UserFunctionsScope = std::move(Scope);
    ++UserFunctionWalks;
  }
  return *UserFunctions;
}

const std::vector<CallSite> &FunctionContexts::callSites() {
  // userFunctions first: it walks again where the traversal scope changed.
  // The statement walk below does not ask it again, so no copy is needed.
  const std::vector<const FunctionDecl *> &Functions = userFunctions();
  if (!CallSites || CallSitesWalk != UserFunctionWalks) {
    CallSites.emplace();
    for (const FunctionDecl *FD : Functions)
      forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
        if (const auto *Call = dyn_cast<CallExpr>(S))
          CallSites->push_back({Call, FD});
      });
    CallSitesWalk = UserFunctionWalks;
  }
  return *CallSites;
}

unsigned FunctionContexts::builtCFGs() const {
  unsigned N = 0;
  for (const auto &[FD, C] : Contexts) {
    (void)FD;
    N += C->hasCFG() ? 1 : 0;
  }
  return N;
}

} // namespace torchtidy
