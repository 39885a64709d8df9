//===--- CudaInDatasetGetCheck.cpp - torch-tidy ---------------------------===//

#include "CudaInDatasetGetCheck.h"

namespace clang::tidy::libtorch {

CudaInDatasetGetCheck::CudaInDatasetGetCheck(StringRef Name,
                                             ClangTidyContext *Context)
    : UserCodeCheck(Name, Context),
      MaxCallDepth(Options.get("MaxCallDepth", 4U)) {}

void CudaInDatasetGetCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "MaxCallDepth", MaxCallDepth);
}

void CudaInDatasetGetCheck::checkFunction(const FunctionDecl *FD,
                                          ASTContext &) {
  // The hooks are the user's methods that override one of the table's data
  // hooks (TorchOps.def).
  const auto *Hook = dyn_cast<CXXMethodDecl>(FD);
  if (!Hook || Hook->size_overridden_methods() == 0 ||
      !torchtidy::getDataHook(Hook))
    return;
  if (!Work)
    Work = std::make_unique<torchtidy::CudaWorkFinder>(MaxCallDepth);
  for (const torchtidy::CudaWorkFinding &F : Work->find(Hook))
    report(Hook, F);
}

/// What the operation does, as the start of a sentence or a note.
static std::string describe(const torchtidy::CudaOp &Op) {
  using torchtidy::CudaOp;
  const bool Configurable = Op.Device == torchtidy::DeviceClass::Configurable;
  const char *Where =
      Configurable ? "a device that is not provably the CPU" : "a CUDA device";
  std::string Name;
  if (Op.Callee && Op.Callee->getDeclName())
    Name = Op.Callee->getNameAsString();
  switch (Op.K) {
  case CudaOp::MoveToDevice:
    return "'" + Name + "' moves a tensor to " + Where;
  case CudaOp::CudaMethod:
    return "'cuda' moves a tensor to the GPU";
  case CudaOp::Factory:
    return "'" + Name + "' creates a tensor on " + Where;
  case CudaOp::CudaLibrary:
    return "'" + (Op.Callee ? Op.Callee->getQualifiedNameAsString() : Name) +
           "' works on the current CUDA device";
  case CudaOp::CudaRuntime:
    return "'" + Name + "' is a CUDA runtime call";
  case CudaOp::KernelLaunch:
    return "a CUDA kernel launch";
  case CudaOp::CudaMemberRead:
    return "reading '" + Op.Member->getNameAsString() +
           "', a tensor member the class moved to CUDA";
  }
  return "CUDA work";
}

static const char *const WhyAndWhat =
    "which the DataLoader calls on its worker threads: there it runs on the "
    "thread's current device (cuda:0, not the model's), adds a synchronous "
    "copy per sample and defeats pinned-memory transfers; keep the data on "
    "the CPU here and move each batch in the training loop: "
    "batch.data.to(device)";

void CudaInDatasetGetCheck::report(const CXXMethodDecl *Hook,
                                   const torchtidy::CudaWorkFinding &F) {
  const Expr *At = F.Chain.empty() ? F.Op.Site : F.Chain.front().Call;
  SourceLocation Loc = At->getExprLoc();
  if (!firstReport(Loc))
    return;
  if (F.Chain.empty()) {
    // "reading 'x_', a tensor member ..., in 'D::get'": an apposition.
    diag(Loc, "%0%select{|,}1 in %q2, %3")
        << describe(F.Op) << (F.Op.K == torchtidy::CudaOp::CudaMemberRead)
        << Hook << WhyAndWhat;
  } else {
    diag(Loc, "%q0 does CUDA work (%1) in %q2, %3")
        << F.Chain.front().Callee << describe(F.Op) << Hook << WhyAndWhat;
    for (size_t I = 1; I < F.Chain.size(); ++I)
      diag(F.Chain[I].Call->getExprLoc(), "%q0 calls %q1 here",
           DiagnosticIDs::Note)
          << F.Chain[I - 1].Callee << F.Chain[I].Callee;
    if (F.Op.K == torchtidy::CudaOp::CudaMemberRead)
      diag(F.Op.Site->getExprLoc(), "%0 is read here", DiagnosticIDs::Note)
          << F.Op.Member;
    else
      diag(F.Op.Site->getExprLoc(), "%0 here", DiagnosticIDs::Note)
          << describe(F.Op);
  }
  if (F.Op.K == torchtidy::CudaOp::CudaMemberRead && F.Op.MovedAt)
    diag(F.Op.MovedAt->getBeginLoc(), "%0 is made a CUDA tensor here",
         DiagnosticIDs::Note)
        << F.Op.Member;
}

} // namespace clang::tidy::libtorch
