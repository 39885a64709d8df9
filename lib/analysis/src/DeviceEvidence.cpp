//===--- DeviceEvidence.cpp - What shows a device to be CUDA --------------===//

#include "torchtidy/analysis/CudaWork.h"
#include "torchtidy/analysis/HardcodedDevice.h"
#include "torchtidy/analysis/Limits.h"
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
    const Expr *Found = nullptr;
    if (Within && Within->getBody())
      forEachOwnStmt(Within->getBody(), [&](const Stmt *S) {
        const Expr *LHS = nullptr, *RHS = nullptr;
        if (Found || !splitAssignment(S, LHS, RHS))
          return;
        if (const auto *L = dyn_cast<DeclRefExpr>(LHS->IgnoreParenImpCasts());
            L && L->getDecl() == V)
          Found = cudaEvidence(RHS, Within, Depth + 1, External);
      });
    return Found;
  }
  if (const auto *Call = dyn_cast<CallExpr>(Bare)) {
    if (const Expr *Ext = externalCuda(Call, External))
      return Ext;
    return returnedCuda(Call->getDirectCallee(), Depth, External);
  }
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
