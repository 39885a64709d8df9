//===--- DeviceEvidence.cpp - What shows a device to be CUDA --------------===//

#include "torchtidy/analysis/CudaWork.h"
#include "torchtidy/analysis/HardcodedDevice.h"
#include "torchtidy/analysis/LLVMCompat.h"
#include "torchtidy/analysis/Limits.h"
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

const Expr *cudaEvidence(const Expr *E, const FunctionDecl *Within,
                         unsigned Depth, ExternalDevice External);

/// The CUDA side of what \p FD returns.
const Expr *returnedCuda(const FunctionDecl *FD, unsigned Depth,
                         ExternalDevice External) {
  const FunctionDecl *Def = nullptr;
  if (!FD || !FD->hasBody(Def) || !Def || !isUserDecl(Def) ||
      Def->isDependentContext())
    return nullptr;
  const Expr *Found = nullptr;
  forEachOwnStmt(Def->getBody(), [&](const Stmt *S) {
    if (const auto *RS = dyn_cast<ReturnStmt>(S); RS && !Found)
      Found = cudaEvidence(RS->getRetValue(), Def, Depth + 1, External);
  });
  return Found;
}

/// The CUDA side of a value that \p Within assigns to \p D, a local
/// (`device = torch::kCUDA;`) or a member (`device_ = ...;`).
const Expr *assignedCuda(const ValueDecl *D, const FunctionDecl *Within,
                         unsigned Depth, ExternalDevice External) {
  const Expr *Found = nullptr;
  if (!Within || !Within->getBody())
    return nullptr;
  forEachOwnStmt(Within->getBody(), [&](const Stmt *S) {
    const Expr *LHS = nullptr, *RHS = nullptr;
    if (Found || !splitAssignment(S, LHS, RHS))
      return;
    const Expr *L = LHS->IgnoreParenImpCasts();
    const ValueDecl *Written = nullptr;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(L))
      Written = DRE->getDecl();
    else if (const auto *ME = dyn_cast<MemberExpr>(L))
      Written = ME->getMemberDecl();
    if (Written == D)
      Found = cudaEvidence(RHS, Within, Depth + 1, External);
  });
  return Found;
}

/// A device member set to a CUDA device on some path: by its default
/// member initialiser, a constructor's initialiser, or an assignment in a
/// member function of its class that the translation unit defines
/// (`if (gpu_id >= 0) device_ = torch::Device(torch::kCUDA, gpu_id);`).
const Expr *memberCuda(const FieldDecl *F, unsigned Depth,
                       ExternalDevice External) {
  const auto *RD = dyn_cast<CXXRecordDecl>(F->getParent());
  if (!RD || !isDeviceValued(F->getType()) || Depth > limits::DeviceValueSteps)
    return nullptr;
  if (const Expr *I = cudaEvidence(F->getInClassInitializer(), nullptr,
                                   Depth + 1, External))
    return I;
  for (const CXXMethodDecl *MD : RD->methods()) {
    const FunctionDecl *Def = nullptr;
    if (!MD->hasBody(Def) || !Def || !isUserDecl(Def))
      continue;
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Def))
      for (const CXXCtorInitializer *Init : Ctor->inits())
        if (Init->isWritten() && Init->getMember() == F)
          if (const Expr *I =
                  cudaEvidence(Init->getInit(), Def, Depth + 1, External))
            return I;
    if (const Expr *A = assignedCuda(F, Def, Depth, External))
      return A;
  }
  return nullptr;
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
                         unsigned Depth, ExternalDevice External) {
  if (!E || Depth > limits::DeviceValueSteps)
    return nullptr;
  E = writtenArgument(E);
  if (classifyDevice(E) == DeviceClass::CUDA)
    return E;
  const Expr *Bare = E->IgnoreParenImpCasts();
  if (const auto *CO = dyn_cast<AbstractConditionalOperator>(Bare)) {
    if (const Expr *T =
            cudaEvidence(CO->getTrueExpr(), Within, Depth + 1, External))
      return T;
    if (const Expr *F =
            cudaEvidence(CO->getFalseExpr(), Within, Depth + 1, External))
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
    if (const Expr *I = cudaEvidence(V->getInit(), Within, Depth + 1, External))
      return I;
    // An assignment in the function: `device = torch::kCUDA;`.
    return assignedCuda(V, Within, Depth, External);
  }
  if (const auto *ME = dyn_cast<MemberExpr>(Bare))
    if (const auto *F = dyn_cast<FieldDecl>(ME->getMemberDecl()))
      return memberCuda(F, Depth, External);
  if (const auto *Call = dyn_cast<CallExpr>(Bare)) {
    // `*device`, a pointer or shared_ptr to a device: what it points to.
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Call);
        OC && OC->getOperator() == OO_Star && OC->getNumArgs() == 1)
      return cudaEvidence(OC->getArg(0), Within, Depth + 1, External);
    const op::FactSet Facts = callFacts(Call);
    // `options.device(d)`, `torch::device(d)`: the device d; `.dtype(t)` and
    // the other setters keep the device of the options they are called on.
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
      const CXXMethodDecl *MD = MC->getMethodDecl();
      if (MD && isTensorOptionsClass(compat::recordType(MD->getParent())))
        return cudaEvidence((Facts & op::OptionsDevice) && MC->getNumArgs() > 0
                                ? MC->getArg(0)
                                : MC->getImplicitObjectArgument(),
                            Within, Depth + 1, External);
    } else if (formOf(Call->getDirectCallee()) == op::Aten &&
               (Facts & op::OptionsDevice) && Call->getNumArgs() > 0) {
      return cudaEvidence(Call->getArg(0), Within, Depth + 1, External);
    }
    // `std::make_shared<torch::Device>(d)`: the device d.
    if ((Facts & op::MakesShared) && Call->getNumArgs() > 0 &&
        carriesDevice(Call->getArg(0)->getType()))
      return cudaEvidence(Call->getArg(0), Within, Depth + 1, External);
    if (const Expr *Ext = externalCuda(Call, External))
      return Ext;
    return returnedCuda(Call->getDirectCallee(), Depth, External);
  }
  // `*device` with a raw pointer.
  if (const auto *UO = dyn_cast<UnaryOperator>(Bare);
      UO && UO->getOpcode() == UO_Deref)
    return cudaEvidence(UO->getSubExpr(), Within, Depth + 1, External);
  const Expr *Inner = Bare;
  if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(Inner))
    Inner = FC->getSubExpr()->IgnoreImplicit();
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Inner);
      CE && CE->getNumArgs() >= 1 && carriesDevice(CE->getArg(0)->getType()))
    return cudaEvidence(CE->getArg(0), Within, Depth + 1, External);
  return nullptr;
}

} // namespace

const Expr *cudaDeviceEvidence(const Expr *E, const FunctionDecl *Within,
                               std::optional<FunctionSummary> *External) {
  return cudaEvidence(E, Within, 0, External);
}

std::optional<CudaOp> deviceOp(const Expr *E, const FunctionDecl *Within,
                               bool FollowSummaries) {
  const auto *Call = dyn_cast<CallExpr>(E);
  CudaOp::Kind K = CudaOp::MoveToDevice;
  if (!Call)
    return std::nullopt;
  for (const Expr *Arg : deviceOperands(Call, K)) {
    std::optional<FunctionSummary> External;
    const Expr *D =
        cudaDeviceEvidence(Arg, Within, FollowSummaries ? &External : nullptr);
    if (!D)
      continue;
    CudaOp Op{K, E};
    Op.Callee = Call->getDirectCallee();
    Op.DeviceAt = D;
    Op.DeviceExternal = std::move(External);
    return Op;
  }
  return std::nullopt;
}

const Expr *returnedCudaDevice(const FunctionDecl *FD) {
  if (!FD || !carriesDevice(FD->getReturnType()))
    return nullptr;
  return returnedCuda(FD, 0, nullptr);
}

} // namespace torchtidy
