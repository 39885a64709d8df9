//===--- RegistrationCalls.cpp - What registers a module's member ---------===//
//
// The calls that register a member of a torch::nn::Module (the table's
// Registers methods, unresolved in templates, through user helpers that
// return one), and the member a value is or holds: what the walk of a
// module's building code (Registration.cpp) reads each statement with.
//
//===----------------------------------------------------------------------===//

#include "RegistrationImpl.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/Registration.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/SmallVector.h"

using namespace clang;
using torchtidy::registration::stripValue;

namespace torchtidy {

/// A name the table gives to a registration method of torch::nn::Module
/// (dependent calls have a name and no declaration yet).
static bool isRegistrationName(DeclarationName Name) {
  return Name.isIdentifier() && hasOpFact(Name.getAsIdentifierInfo()->getName(),
                                          op::ModuleBase, op::Registers);
}

bool isRegistrationCall(const Expr *E) {
  const auto *Call = dyn_cast_or_null<CallExpr>(E);
  if (!Call)
    return false;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    return MD && isRegistrationName(MD->getDeclName()) &&
           isModuleBaseClass(MD->getParent());
  }
  // In a class template whose base is dependent the call stays unresolved
  // until instantiation: `this->register_buffer(...)`.
  const Expr *Callee = peel::peel(Call->getCallee(), peel::ParenImpCasts);
  // With a known base but dependent arguments, the callee is resolved and
  // the call is not yet a member call.
  if (const auto *ME = dyn_cast<MemberExpr>(Callee)) {
    const auto *MD = dyn_cast<CXXMethodDecl>(ME->getMemberDecl());
    return MD && isRegistrationName(MD->getDeclName()) &&
           isModuleBaseClass(MD->getParent());
  }
  if (const auto *DM = dyn_cast<CXXDependentScopeMemberExpr>(Callee))
    return isRegistrationName(DM->getMember());
  if (const auto *UM = dyn_cast<UnresolvedMemberExpr>(Callee))
    return isRegistrationName(UM->getMemberName());
  if (const auto *UL = dyn_cast<UnresolvedLookupExpr>(Callee))
    return isRegistrationName(UL->getName());
  return false;
}

const Expr *registration::stripValue(const Expr *E) {
  return peel::peel(E, peel::AsComputed | peel::FunctionalCasts |
                           peel::OneArgumentConstructions |
                           peel::PassThroughCalls | peel::SingleElementLists);
}

static bool isRegistrationExprAt(const Expr *E, unsigned Depth);

/// The `return` statements of \p S, not those of lambdas inside it; false
/// when there are too many to look at.
static bool collectReturns(const Stmt *S,
                           llvm::SmallVectorImpl<const ReturnStmt *> &Out,
                           unsigned Depth = 0) {
  if (!S)
    return true;
  if (Depth > limits::ReturnSearchDepth || Out.size() > limits::MaxReturns)
    return false;
  if (const auto *R = dyn_cast<ReturnStmt>(S)) {
    Out.push_back(R);
    return true;
  }
  if (isa<LambdaExpr>(S))
    return true;
  for (const Stmt *Child : S->children())
    if (!collectReturns(Child, Out, Depth + 1))
      return false;
  return true;
}

/// A helper whose every `return` hands back a registration, such as
/// `[this](const char *n) { return register_buffer(n, t); }`: what a call
/// to it returns is registered. Only user code is looked into.
static bool returnsRegistration(const FunctionDecl *FD, unsigned Depth) {
  const FunctionDecl *Def = nullptr;
  if (!FD || Depth > limits::HelperDepth || !FD->hasBody(Def) ||
      Def->isDependentContext())
    return false;
  if (!isUserDecl(Def))
    return false;
  llvm::SmallVector<const ReturnStmt *, 4> Returns;
  if (!collectReturns(Def->getBody(), Returns) || Returns.empty())
    return false;
  for (const ReturnStmt *R : Returns)
    if (!isRegistrationExprAt(R->getRetValue(), Depth + 1))
      return false;
  return true;
}

bool isRegistrationExpr(const Expr *E) { return isRegistrationExprAt(E, 0); }

static bool isRegistrationExprAt(const Expr *E, unsigned Depth) {
  for (unsigned I = 0; E && I < limits::PeeledWrappers; ++I) {
    E = stripValue(E);
    if (isRegistrationCall(E))
      return true;
    if (const auto *Call = dyn_cast_or_null<CallExpr>(E))
      if (returnsRegistration(Call->getDirectCallee(), Depth))
        return true;
    // A method chain on the registered tensor keeps its TensorImpl:
    // `register_parameter("w", t).set_requires_grad(true)`.
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
      E = MC->getImplicitObjectArgument();
      continue;
    }
    return false;
  }
  return false;
}

bool registration::isNullValue(const Expr *E) {
  E = stripValue(E);
  return E && (isa<CXXNullPtrLiteralExpr>(E) || isa<GNUNullExpr>(E));
}

const FieldDecl *registration::thisField(const Expr *E) {
  E = stripValue(E);
  const auto *ME = dyn_cast_or_null<MemberExpr>(E);
  if (!ME)
    return nullptr;
  if (!peel::onThisObject(ME))
    return nullptr;
  return dyn_cast<FieldDecl>(ME->getMemberDecl());
}

const FieldDecl *registration::fieldBehind(const Expr *E) {
  for (unsigned I = 0; E && I < limits::PeeledWrappers; ++I) {
    E = stripValue(E);
    if (const FieldDecl *FD = thisField(E))
      return FD;
    if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E)) {
      E = ASE->getBase();
      continue;
    }
    // `m = Linear(...)` is m: `register_module("m", m = Linear(...))`.
    if (const auto *BO = dyn_cast<BinaryOperator>(E);
        BO && BO->getOpcode() == BO_Assign) {
      E = BO->getLHS();
      continue;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
      const OverloadedOperatorKind K = Op->getOperator();
      if ((K == OO_Subscript || K == OO_Star || K == OO_Arrow ||
           K == OO_Equal) &&
          Op->getNumArgs() >= 1) {
        E = Op->getArg(0);
        continue;
      }
      return nullptr;
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
      const CXXMethodDecl *MD = MC->getMethodDecl();
      if (MD && MD->getIdentifier() &&
          hasOpFact(MD->getName(), op::AnyMember, op::ContainerAccess)) {
        E = MC->getImplicitObjectArgument();
        continue;
      }
      return nullptr;
    }
    // `std::make_shared<M>(m)` of a module held by value: the copy shares
    // m's holders, and its parameters' and buffers' TensorImpls (a Module
    // copies the handles), so registering it registers m's state.
    if (const auto *Call = dyn_cast<CallExpr>(E);
        Call && (callFacts(Call) & op::MakesShared) &&
        Call->getNumArgs() == 1) {
      const FieldDecl *FD = thisField(Call->getArg(0));
      return FD && classifyMemberType(FD->getType()).ByValue ? FD : nullptr;
    }
    return nullptr;
  }
  return nullptr;
}

bool registration::isContainerMutator(const CXXMethodDecl *MD) {
  return MD && MD->getIdentifier() &&
         hasOpFact(MD->getName(), op::AnyMember, op::ContainerInsert);
}

llvm::StringRef memberWriteWords(MemberWrite::Kind How) {
  switch (How) {
  case MemberWrite::DefaultMemberInit:
  case MemberWrite::ConstructorInit:
    return "initialised";
  case MemberWrite::Assignment:
    return "assigned";
  case MemberWrite::ContainerFill:
    return "filled";
  }
  return "assigned";
}

} // namespace torchtidy
