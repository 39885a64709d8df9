//===--- DeviceEvidence.cpp - What shows a device to be CUDA --------------===//

#include "torchtidy/analysis/CudaWork.h"
#include "torchtidy/analysis/HardcodedDevice.h"
#include "torchtidy/analysis/LLVMCompat.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace torchtidy {

namespace {

/// Where a search for a CUDA device may look beyond the translation unit:
/// when not null, a call of a function of another unit whose project
/// summary has SummaryFact::CudaDevice is evidence, and the summary is set
/// here.
using ExternalDevice = std::optional<FunctionSummary> *;

/// The argument of an object's construction whose device a device member
/// of the object keeps, when a search took it.
struct Received {
  const Expr *Argument = nullptr;
  const FieldDecl *Member = nullptr;
};

/// What a search may read besides the function it is in.
struct Search {
  ExternalDevice External = nullptr;
  /// The construction of the object whose method the search is in: the
  /// arguments it gives the device members its constructor keeps; and
  /// where to say which one the search took.
  const ObjectConstruction *Receiver = nullptr;
  Received *Took = nullptr;

  /// The same search in another function, where `this` is another object.
  Search elsewhere() const { return {External, nullptr, nullptr}; }
};

const Expr *cudaEvidence(const Expr *E, const FunctionDecl *Within,
                         unsigned Depth, Search S);

/// The CUDA side of what \p FD returns.
const Expr *returnedCuda(const FunctionDecl *FD, unsigned Depth, Search S) {
  const FunctionDecl *Def = nullptr;
  if (!FD || !FD->hasBody(Def) || !Def || !isUserDecl(Def) ||
      Def->isDependentContext())
    return nullptr;
  const Expr *Found = nullptr;
  forEachOwnStmt(Def->getBody(), [&](const Stmt *St) {
    if (const auto *RS = dyn_cast<ReturnStmt>(St); RS && !Found)
      Found = cudaEvidence(RS->getRetValue(), Def, Depth + 1, S.elsewhere());
  });
  return Found;
}

/// Calls \p Take with the value of each plain assignment of \p D, a local
/// (`device = torch::kCUDA;`) or a member (`device_ = ...;`), in
/// \p Within's own statements, until it returns true; whether one did.
bool anyAssignment(const ValueDecl *D, const FunctionDecl *Within,
                   llvm::function_ref<bool(const Expr *)> Take) {
  bool Taken = false;
  if (!Within || !Within->getBody())
    return false;
  forEachOwnStmt(Within->getBody(), [&](const Stmt *St) {
    const Expr *LHS = nullptr, *RHS = nullptr;
    if (Taken || !splitAssignment(St, LHS, RHS))
      return;
    const Expr *L = peel::peel(LHS, peel::ParenImpCasts);
    const ValueDecl *Written = nullptr;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(L))
      Written = DRE->getDecl();
    else if (const auto *ME = dyn_cast<MemberExpr>(L))
      Written = ME->getMemberDecl();
    Taken = Written == D && Take(RHS);
  });
  return Taken;
}

/// The CUDA side of a value that \p Within assigns to \p D.
const Expr *assignedCuda(const ValueDecl *D, const FunctionDecl *Within,
                         unsigned Depth, Search S) {
  const Expr *Found = nullptr;
  anyAssignment(D, Within, [&](const Expr *RHS) {
    Found = cudaEvidence(RHS, Within, Depth + 1, S);
    return Found != nullptr;
  });
  return Found;
}

/// A device member set to a CUDA device on some path: by its default
/// member initialiser, a constructor's initialiser, or an assignment in a
/// member function of its class that the translation unit defines
/// (`if (gpu_id >= 0) device_ = torch::Device(torch::kCUDA, gpu_id);`).
const Expr *memberCuda(const FieldDecl *F, unsigned Depth, Search S) {
  const auto *RD = dyn_cast<CXXRecordDecl>(F->getParent());
  if (!RD || !isDeviceValued(F->getType()) || Depth > limits::DeviceValueSteps)
    return nullptr;
  if (const Expr *I = cudaEvidence(F->getInClassInitializer(), nullptr,
                                   Depth + 1, S.elsewhere()))
    return I;
  for (const CXXMethodDecl *MD : RD->methods()) {
    const FunctionDecl *Def = nullptr;
    if (!MD->hasBody(Def) || !Def || !isUserDecl(Def))
      continue;
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Def))
      for (const CXXCtorInitializer *Init : Ctor->inits())
        if (Init->isWritten() && Init->getMember() == F)
          if (const Expr *I =
                  cudaEvidence(Init->getInit(), Def, Depth + 1, S.elsewhere()))
            return I;
    if (const Expr *A = assignedCuda(F, Def, Depth, S.elsewhere()))
      return A;
  }
  return nullptr;
}

/// A member function of \p F's class that the translation unit defines
/// assigns \p F.
bool memberAssigned(const FieldDecl *F) {
  const auto *RD = dyn_cast<CXXRecordDecl>(F->getParent());
  if (!RD)
    return true;
  for (const CXXMethodDecl *MD : RD->methods()) {
    const FunctionDecl *Def = nullptr;
    if (MD->hasBody(Def) && Def &&
        anyAssignment(F, Def, [](const Expr *) { return true; }))
      return true;
  }
  return false;
}

/// The parameter of \p Ctor's definition \p Def whose value \p Init, a
/// member's initialiser, is (`device_(device)`).
std::optional<unsigned> initialisingParam(const CXXConstructorDecl *Def,
                                          const CXXCtorInitializer *Init) {
  const Expr *Value =
      peel::peel(Init->getInit(), peel::Compiler | peel::ConstructingCasts |
                                      peel::CopiesAndMoves);
  const auto *DRE = dyn_cast_or_null<DeclRefExpr>(Value);
  const auto *P = DRE ? dyn_cast<ParmVarDecl>(DRE->getDecl()) : nullptr;
  if (!P || P->getDeclContext() != Def)
    return std::nullopt;
  return P->getFunctionScopeIndex();
}

/// Whether \p F is a member that keeps a device an object is given: one
/// that carries a device and that no member function assigns.
bool keepsDevice(const FieldDecl *F) {
  return carriesDevice(F->getType().getNonReferenceType()) &&
         !memberAssigned(F);
}

/// A device member \p F (read at \p ME) of the object \p R constructs,
/// which its constructor sets from a parameter and no member function
/// assigns: the CUDA side of the argument \p R gives that parameter
/// (`Worker w(torch::kCUDA)` for `device_(d)`). For an object the search
/// does not see constructed (R.Made null), \p ME itself.
const Expr *receivedCuda(const MemberExpr *ME, const FieldDecl *F,
                         const ObjectConstruction &R, unsigned Depth,
                         Search S) {
  if (!keepsDevice(F))
    return nullptr;
  if (!R.Made) {
    if (S.Took)
      *S.Took = {nullptr, F};
    return ME;
  }
  const CXXConstructorDecl *Ctor = R.Made->getConstructor();
  if (!Ctor || !R.In || F->getParent() != Ctor->getParent())
    return nullptr;
  std::optional<unsigned> I =
      keptDeviceParam(Ctor, usrOf(F), /*FollowSummaries=*/S.External);
  if (!I || *I >= R.Made->getNumArgs())
    return nullptr;
  const Expr *Found =
      cudaEvidence(R.Made->getArg(*I), R.In, Depth + 1, S.elsewhere());
  if (Found && S.Took)
    *S.Took = {R.Made->getArg(*I), F};
  return Found;
}

/// The call \p Call of a function of another translation unit whose
/// summary says it returns a CUDA device, with that summary in \p External.
const Expr *externalCuda(const CallExpr *Call, ExternalDevice External) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!External || !Callee || !isDeclaredElsewhere(Callee))
    return nullptr;
  std::optional<FunctionSummary> Linked =
      ProjectSummaries::instance().lookup(Callee, SummaryFact::CudaDevice);
  if (!Linked || !Linked->CudaDevice)
    return nullptr;
  *External = std::move(Linked);
  return Call;
}

const Expr *cudaEvidence(const Expr *E, const FunctionDecl *Within,
                         unsigned Depth, Search S) {
  if (!E || Depth > limits::DeviceValueSteps)
    return nullptr;
  E = writtenArgument(E);
  if (classifyDevice(E) == DeviceClass::CUDA)
    return E;
  const Expr *Bare = peel::peel(E, peel::ParenImpCasts);
  if (const auto *CO = dyn_cast<AbstractConditionalOperator>(Bare)) {
    if (const Expr *T = cudaEvidence(CO->getTrueExpr(), Within, Depth + 1, S))
      return T;
    if (const Expr *F = cudaEvidence(CO->getFalseExpr(), Within, Depth + 1, S))
      return F;
    // `use_cuda ? select_device() : torch::kCPU`: a choice against the CPU
    // is the choice of a GPU, even when the other side is opaque (defined
    // in another translation unit).
    const Expr *T = writtenArgument(CO->getTrueExpr());
    const Expr *F = writtenArgument(CO->getFalseExpr());
    const DeviceClass TC = classifyDevice(T), FC = classifyDevice(F);
    if (TC == DeviceClass::CPU && FC != DeviceClass::CPU &&
        FC != DeviceClass::NotADevice)
      return F;
    if (FC == DeviceClass::CPU && TC != DeviceClass::CPU &&
        TC != DeviceClass::NotADevice)
      return T;
    return nullptr;
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Bare)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    // A local, or a static local that caches the choice
    // (`static torch::Device d = [] { ... }();`): its initialiser and the
    // assignments of the function.
    if (!V || isa<ParmVarDecl>(V) ||
        !(V->hasLocalStorage() || V->isStaticLocal()))
      return nullptr;
    if (const Expr *I = cudaEvidence(V->getInit(), Within, Depth + 1, S))
      return I;
    // An assignment in the function: `device = torch::kCUDA;`.
    return assignedCuda(V, Within, Depth, S);
  }
  if (const auto *ME = dyn_cast<MemberExpr>(Bare))
    if (const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl())) {
      if (const Expr *M = memberCuda(F, Depth, S))
        return M;
      // `device_` of the object whose method this is, constructed where
      // the search knows it.
      if (S.Receiver && peel::onThisObject(ME))
        return receivedCuda(ME, F, *S.Receiver, Depth, S);
      return nullptr;
    }
  if (const auto *Call = dyn_cast<CallExpr>(Bare)) {
    // `*device`, a pointer or shared_ptr to a device: what it points to.
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Call);
        OC && OC->getOperator() == OO_Star && OC->getNumArgs() == 1)
      return cudaEvidence(OC->getArg(0), Within, Depth + 1, S);
    const op::FactSet Facts = callFacts(Call);
    // `options.device(d)`, `torch::device(d)`: the device d; `.dtype(t)` and
    // the other setters keep the device of the options they are called on.
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
      const CXXMethodDecl *MD = MC->getMethodDecl();
      if (MD && isTensorOptionsClass(compat::recordType(MD->getParent())))
        return cudaEvidence((Facts & op::OptionsDevice) && MC->getNumArgs() > 0
                                ? MC->getArg(0)
                                : MC->getImplicitObjectArgument(),
                            Within, Depth + 1, S);
    } else if (formOf(Call->getDirectCallee()) == op::Aten &&
               (Facts & op::OptionsDevice) && Call->getNumArgs() > 0) {
      return cudaEvidence(Call->getArg(0), Within, Depth + 1, S);
    }
    // `std::make_shared<torch::Device>(d)`: the device d.
    if ((Facts & op::MakesShared) && Call->getNumArgs() > 0 &&
        carriesDevice(Call->getArg(0)->getType()))
      return cudaEvidence(Call->getArg(0), Within, Depth + 1, S);
    if (const Expr *Ext = externalCuda(Call, S.External))
      return Ext;
    return returnedCuda(Call->getDirectCallee(), Depth, S);
  }
  // `*device` with a raw pointer.
  if (const auto *UO = dyn_cast<UnaryOperator>(Bare);
      UO && UO->getOpcode() == UO_Deref)
    return cudaEvidence(UO->getSubExpr(), Within, Depth + 1, S);
  const Expr *Inner = peel::underFunctionalCast(Bare, peel::Implicit);
  if (const auto *CE = dyn_cast_or_null<CXXConstructExpr>(Inner);
      CE && CE->getNumArgs() >= 1 && carriesDevice(CE->getArg(0)->getType()))
    return cudaEvidence(CE->getArg(0), Within, Depth + 1, S);
  return nullptr;
}

} // namespace

const Expr *cudaDeviceEvidence(const Expr *E, const FunctionDecl *Within,
                               std::optional<FunctionSummary> *External) {
  return cudaEvidence(E, Within, 0, Search{External, nullptr, nullptr});
}

std::optional<CudaOp> deviceOp(const Expr *E, const FunctionDecl *Within,
                               bool FollowSummaries,
                               const ObjectConstruction *Receiver) {
  const auto *Call = dyn_cast<CallExpr>(E);
  CudaOp::Kind K = CudaOp::MoveToDevice;
  if (!Call)
    return std::nullopt;
  for (const Expr *Arg : deviceOperands(Call, K)) {
    std::optional<FunctionSummary> External;
    Received Took;
    const Expr *D = cudaEvidence(
        Arg, Within, 0,
        Search{FollowSummaries ? &External : nullptr, Receiver, &Took});
    if (!D)
      continue;
    CudaOp Op{K, E};
    Op.Callee = Call->getDirectCallee();
    Op.DeviceAt = D;
    Op.DeviceExternal = std::move(External);
    Op.ReceivedAt = Took.Argument;
    Op.ReceivedMember = Took.Member;
    return Op;
  }
  return std::nullopt;
}

llvm::SmallVector<KeptDevice, 2> keptDevices(const CXXConstructorDecl *Ctor) {
  llvm::SmallVector<KeptDevice, 2> Out;
  if (!Ctor || !Ctor->doesThisDeclarationHaveABody())
    return Out;
  for (const CXXCtorInitializer *Init : Ctor->inits()) {
    const FieldDecl *F = Init->getMember();
    if (!Init->isWritten() || !F || !keepsDevice(F))
      continue;
    if (std::optional<unsigned> I = initialisingParam(Ctor, Init))
      Out.push_back({*I, F, Init->getInit()});
  }
  return Out;
}

std::optional<unsigned> keptDeviceParam(const CXXConstructorDecl *Ctor,
                                        llvm::StringRef Member,
                                        bool FollowSummaries) {
  const FunctionDecl *Def = nullptr;
  if (Ctor && Ctor->hasBody(Def) && Def) {
    if (!isUserDecl(Def) || Member.empty())
      return std::nullopt;
    for (const KeptDevice &K : keptDevices(cast<CXXConstructorDecl>(Def)))
      if (usrOf(K.Member) == Member)
        return K.Param;
    return std::nullopt;
  }
  if (!FollowSummaries || !isDeclaredElsewhere(Ctor))
    return std::nullopt;
  std::optional<FunctionSummary> Linked =
      ProjectSummaries::instance().lookup(Ctor, SummaryFact::KeptDevices);
  if (!Linked || Member.empty())
    return std::nullopt;
  for (const FunctionSummary::KeptDevice &K : Linked->KeptDevices)
    if (K.Member == Member)
      return K.Param;
  return std::nullopt;
}

const Expr *returnedCudaDevice(const FunctionDecl *FD) {
  if (!FD || !carriesDevice(FD->getReturnType()))
    return nullptr;
  return returnedCuda(FD, 0, Search{});
}

} // namespace torchtidy
