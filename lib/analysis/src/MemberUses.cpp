//===--- MemberUses.cpp - How a module's members are used -------------===//
//
// The uses of a module class's members that tell whether an unregistered
// one can do harm (MemberUses: reads, and reads that move the member to
// another tensor's device first), user modules without state, and a
// registered member replaced afterwards. The building code's walk is in
// Registration.cpp; what the two share is in RegistrationImpl.h.
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
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <functional>

using namespace clang;

namespace torchtidy {

using registration::countReads;
using registration::stripValue;

//===----------------------------------------------------------------------===//
// MemberUses
//===----------------------------------------------------------------------===//

/// `this->m` or `m` of a data member.
static const FieldDecl *memberOfThis(const Expr *E) {
  const auto *ME =
      dyn_cast_or_null<MemberExpr>(peel::peel(E, peel::ParenImpCasts));
  if (!peel::onThisObject(ME))
    return nullptr;
  return dyn_cast<FieldDecl>(ME->getMemberDecl());
}

/// The member expression \p E reads through ops that keep it the same
/// tensor or take a part of it (`P`, `P.index({i})`, `P.slice(0, 0, n)`,
/// `P[i]`), else null.
static const MemberExpr *readMember(const Expr *E) {
  for (unsigned I = 0; E && I < limits::PeeledWrappers; ++I) {
    E = stripValue(E);
    if (const auto *ME = dyn_cast<MemberExpr>(E))
      return memberOfThis(ME) ? ME : nullptr;
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call)
      return nullptr;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
      if (Op->getOperator() != OO_Subscript || Op->getNumArgs() != 2)
        return nullptr;
      E = Op->getArg(0);
      continue;
    }
    const auto *MC = dyn_cast<CXXMemberCallExpr>(Call);
    if (!MC || formOf(MC->getMethodDecl()) != op::Method)
      return nullptr;
    const op::FactSet Facts = callFacts(MC);
    if (!(Facts & (op::ValuePreserving | op::Slices)) &&
        !hasOpName(MC->getMethodDecl(), op::Named::index))
      return nullptr;
    E = MC->getImplicitObjectArgument();
  }
  return nullptr;
}

/// The argument of `.to(...)` names another tensor's device: `x.device()`,
/// `x.options()`, `x` itself.
static bool isDeviceOfTensor(const Expr *Arg) {
  bool Found = false;
  std::function<void(const Stmt *, unsigned)> Walk = [&](const Stmt *S,
                                                         unsigned Depth) {
    if (!S || Found || Depth > limits::PeeledWrappers)
      return;
    if (const auto *E = dyn_cast<Expr>(S)) {
      if (isTensorType(E->getType().getNonReferenceType()) &&
          isa<DeclRefExpr, MemberExpr>(peel::peel(E, peel::ParenImpCasts))) {
        Found = true;
        return;
      }
      if (const auto *Call = dyn_cast<CallExpr>(E))
        if (callFacts(Call) & (op::DeviceOfTensor | op::OptionsOfTensor)) {
          Found = true;
          return;
        }
    }
    for (const Stmt *Child : S->children())
      Walk(Child, Depth + 1);
  };
  Walk(Arg, 0);
  return Found;
}

void registration::countReads(
    const FunctionDecl *FD,
    llvm::DenseMap<const FieldDecl *, std::pair<unsigned, unsigned>> &Counts) {
  llvm::DenseSet<const MemberExpr *> Written, Moved;
  auto Visit = [&](const Stmt *S) {
    // `m = value`: a write, not a read.
    const Expr *LHS = nullptr;
    if (const auto *BO = dyn_cast<BinaryOperator>(S);
        BO && BO->getOpcode() == BO_Assign)
      LHS = BO->getLHS();
    else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
             Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2)
      LHS = Op->getArg(0);
    if (LHS)
      if (const auto *ME =
              dyn_cast<MemberExpr>(peel::peel(LHS, peel::ParenImpCasts)))
        Written.insert(ME);
    // `m.to(x.device())`: moved first.
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S)) {
      const MoveDestination Move = moveDestination(MC);
      if ((Move.K == MoveDestination::Device ||
           Move.K == MoveDestination::Options ||
           Move.K == MoveDestination::Like) &&
          formOf(MC->getMethodDecl()) == op::Method &&
          isDeviceOfTensor(Move.Operand))
        if (const MemberExpr *ME = readMember(MC->getImplicitObjectArgument()))
          Moved.insert(ME);
    }
    if (const auto *ME = dyn_cast<MemberExpr>(S))
      if (const FieldDecl *F = memberOfThis(ME))
        if (!Written.count(ME)) {
          auto &C = Counts[F];
          ++C.first;
          if (Moved.count(ME))
            ++C.second;
        }
  };
  // Pre-order: the assignment and the `.to` call are seen before the member
  // expressions inside them.
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD))
    for (const CXXCtorInitializer *Init : Ctor->inits())
      if (Init->isWritten())
        forEachOwnStmt(Init->getInit(), Visit);
  forEachOwnStmt(FD->getBody(), Visit);
}

void MemberUses::build() {
  if (Built)
    return;
  Built = true;
  forEachUserFunction(Ctx,
                      [&](const FunctionDecl *FD) { countReads(FD, Counts); });
}

unsigned MemberUses::reads(const FieldDecl *Field) {
  build();
  return Counts.lookup(Field).first;
}

bool MemberUses::onlyMovedToAnotherDevice(const FieldDecl *Field) {
  build();
  auto C = Counts.lookup(Field);
  return C.first > 0 && C.first == C.second;
}

unsigned MemberUses::reads(const FieldDecl *Field, const MemberFacts &Facts) {
  return reads(Field) + Facts.ReadsElsewhere;
}

bool MemberUses::onlyMovedToAnotherDevice(const FieldDecl *Field,
                                          const MemberFacts &Facts) {
  build();
  auto C = Counts.lookup(Field);
  const unsigned Reads = C.first + Facts.ReadsElsewhere;
  return Reads > 0 && Reads == C.second + Facts.MovedReadsElsewhere;
}

//===----------------------------------------------------------------------===//
// User modules without state
//===----------------------------------------------------------------------===//

static UserModuleState stateOf(const CXXRecordDecl *RD, unsigned Depth) {
  RD = RD ? RD->getDefinition() : nullptr;
  if (!RD || Depth > limits::HierarchyDepth)
    return UserModuleState::NotVisible;
  for (const FieldDecl *F : RD->fields())
    if (classifyMemberType(F->getType()).K != MemberClass::None)
      return UserModuleState::Stateful;
  const ModuleRegistration &Reg = registrationOf(RD);
  if (!Reg.complete())
    return UserModuleState::NotVisible;
  // Any registration at all, stored in a member or not, and any test of
  // the training mode in its methods.
  bool Stateful = false;
  bool ForwardSeen = false;
  for (const CXXMethodDecl *MD : RD->methods()) {
    const FunctionDecl *Def = nullptr;
    const bool IsForward = hasOpName(MD, op::Named::forward);
    if (!MD->hasBody(Def)) {
      if (IsForward)
        return UserModuleState::NotVisible;
      continue;
    }
    ForwardSeen |= IsForward;
    forEachOwnStmt(Def->getBody(), [&](const Stmt *S) {
      const auto *Call = dyn_cast<CallExpr>(S);
      if (!Call)
        return;
      if (isRegistrationCall(Call))
        Stateful = true;
      if (const FunctionDecl *Callee = Call->getDirectCallee())
        if (hasOpName(Callee, op::Named::is_training) &&
            formOf(Callee) == op::ModuleBase)
          Stateful = true;
    });
  }
  if (Stateful)
    return UserModuleState::Stateful;
  if (!ForwardSeen)
    return UserModuleState::NotVisible;
  for (const CXXBaseSpecifier &B : RD->bases()) {
    const CXXRecordDecl *Base = B.getType()->getAsCXXRecordDecl();
    if (!Base || isModuleBaseClass(Base))
      continue;
    // torch::nn::Cloneable<Self> adds clone() and no state.
    if (isClass(Base, KnownClass::Cloneable))
      continue;
    const UserModuleState S = stateOf(Base, Depth + 1);
    if (S != UserModuleState::Stateless)
      return S;
  }
  return UserModuleState::Stateless;
}

UserModuleState userModuleState(const CXXRecordDecl *Impl) {
  return stateOf(Impl, 0);
}

//===----------------------------------------------------------------------===//
// Registered, then replaced
//===----------------------------------------------------------------------===//

/// The register_* call \p E is, or holds through conversions and copies.
static const CallExpr *registrationIn(const Expr *E) {
  for (unsigned I = 0; E && I < limits::PeeledWrappers; ++I) {
    E = stripValue(E);
    if (isRegistrationCall(E))
      return cast<CallExpr>(E);
    const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(E);
    if (!MC)
      return nullptr;
    E = MC->getImplicitObjectArgument();
  }
  return nullptr;
}

/// \p W stores a new module or tensor, not a variable that may hold what
/// was registered (`rms = layer;` after `register_module("rms", layer)`).
static bool storesNewValue(const MemberWrite &W) {
  const Expr *Stored = stripValue(W.Value);
  return !(isa<DeclRefExpr, MemberExpr>(Stored) &&
           classifyMemberType(Stored->getType().getNonReferenceType()).K !=
               MemberClass::None);
}

ReplacedRegistration replacedAfterRegistration(const MemberFacts &Facts,
                                               const ASTContext &Ctx) {
  ReplacedRegistration R;
  if (!Facts.Registered || Facts.Class.InContainer)
    return R;
  const SourceManager &SM = Ctx.getSourceManager();
  for (const MemberWrite &Reg : Facts.Writes) {
    const CallExpr *Call = Reg.Value ? registrationIn(Reg.Value) : nullptr;

    if (!Call || !Reg.Function)
      continue;
    for (const MemberWrite &W : Facts.Writes) {
      if (&W == &Reg || W.IsNull || !W.Value || W.Function != Reg.Function ||
          W.How != MemberWrite::Assignment || registrationIn(W.Value))
        continue;
      if (!storesNewValue(W))
        continue;
      if (!SM.isBeforeInTranslationUnit(Reg.Site->getBeginLoc(),
                                        W.Site->getBeginLoc()))
        continue;
      R.Registration = Call;
      R.Write = &W;
      return R;
    }
  }
  // Replaced in another member function: after the building code, whatever
  // the order of the definitions.
  const CallExpr *Registration =
      Facts.RegisteredAt ? registrationIn(Facts.RegisteredAt) : nullptr;
  for (const MemberWrite &Reg : Facts.Writes)
    if (!Registration && Reg.Value)
      Registration = registrationIn(Reg.Value);
  if (!Registration)
    return R;
  for (const MemberWrite &W : Facts.LaterWrites) {
    if (W.IsNull || !W.Value || registrationIn(W.Value))
      continue;
    if (!storesNewValue(W))
      continue;
    R.Registration = Registration;
    R.Write = &W;
    R.OutsideBuilding = true;
    return R;
  }
  return R;
}

} // namespace torchtidy
