//===--- CudaInDatasetGetCheck.cpp - torch-tidy ---------------------------===//

#include "CudaInDatasetGetCheck.h"

#include "llvm/Support/Path.h"

namespace clang::tidy::libtorch {

CudaInDatasetGetCheck::CudaInDatasetGetCheck(StringRef Name,
                                             ClangTidyContext *Context)
    : UserCodeCheck(Name, Context),
      MaxCallDepth(Options.get("MaxCallDepth", 4U)) {}

void CudaInDatasetGetCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "MaxCallDepth", MaxCallDepth);
}

void CudaInDatasetGetCheck::checkFunction(const FunctionDecl *FD,
                                          ASTContext &Ctx) {
  // The hooks are the user's methods that override one of the table's data
  // hooks (TorchOps.def).
  const auto *Hook = dyn_cast<CXXMethodDecl>(FD);
  if (!Hook || Hook->size_overridden_methods() == 0 ||
      !torchtidy::getDataHook(Hook))
    return;
  if (!Work)
    Work = std::make_unique<torchtidy::CudaWorkFinder>(MaxCallDepth);
  for (const torchtidy::CudaWorkFinding &F : Work->find(Hook))
    report(Hook, F, Ctx.getSourceManager());
}

static const char *const WhyAndWhat =
    "which the DataLoader calls on its worker threads: there it runs on the "
    "thread's current device (cuda:0, not the model's), adds a synchronous "
    "copy per sample and defeats pinned-memory transfers; keep the data on "
    "the CPU here and move each batch in the training loop: "
    "batch.data.to(device)";

void CudaInDatasetGetCheck::report(const CXXMethodDecl *Hook,
                                   const torchtidy::CudaWorkFinding &F,
                                   SourceManager &SM) {
  const Expr *At = F.Chain.empty() ? F.Op.Site : F.Chain.front().Call;
  const SourceLocation Loc = At->getExprLoc();
  if (!firstReport(Loc))
    return;
  if (F.External) {
    reportExternal(Hook, F, SM);
    return;
  }
  if (F.Chain.empty()) {
    // "reading 'x_', a tensor member ..., in 'D::get'": an apposition.
    diag(Loc, "%0%select{|,}1 in %q2, %3")
        << torchtidy::describeCudaOp(F.Op)
        << (F.Op.K == torchtidy::CudaOp::CudaMemberRead) << Hook << WhyAndWhat;
  } else {
    diag(Loc, "%q0 does CUDA work (%1) in %q2, %3")
        << F.Chain.front().Callee << torchtidy::describeCudaOp(F.Op) << Hook
        << WhyAndWhat;
    for (size_t I = 1; I < F.Chain.size(); ++I)
      diag(F.Chain[I].Call->getExprLoc(), "%q0 calls %q1 here",
           DiagnosticIDs::Note)
          << F.Chain[I - 1].Callee << F.Chain[I].Callee;
    if (F.Op.K == torchtidy::CudaOp::CudaMemberRead)
      diag(F.Op.Site->getExprLoc(), "%0 is read here", DiagnosticIDs::Note)
          << F.Op.Member;
    else
      diag(F.Op.Site->getExprLoc(), "%0 here", DiagnosticIDs::Note)
          << torchtidy::describeCudaOp(F.Op);
  }
  if (F.Op.K == torchtidy::CudaOp::CudaMemberRead && F.Op.MovedAt)
    diag(F.Op.MovedAt->getBeginLoc(), "%0 is made a CUDA tensor here",
         DiagnosticIDs::Note)
        << F.Op.Member;
  noteCudaDevice(F.Op.DeviceAt, F.Op.DeviceExternal, F.Op.Site->getExprLoc(),
                 SM);
}

/// CUDA work in a function of another translation unit, as the project's
/// summary of it says: the finding at the call in this unit, then a note
/// at each call on the way and at the work, in the files that hold them.
void CudaInDatasetGetCheck::reportExternal(const CXXMethodDecl *Hook,
                                           const torchtidy::CudaWorkFinding &F,
                                           SourceManager &SM) {
  // externalWork finds only summaries with CUDA work.
  if (!F.External || !F.External->CudaWork)
    return;
  const torchtidy::FunctionSummary &Callee = *F.External;
  const torchtidy::FunctionSummary::Fact &Work = *Callee.CudaWork;
  const SourceLocation Loc = F.Chain.front().Call->getExprLoc();
  diag(Loc, "%q0 does CUDA work (%1, in '%2') in %q3, %4")
      << F.Chain.front().Callee << Work.What
      << llvm::sys::path::filename(Work.At.File) << Hook << WhyAndWhat;
  for (size_t I = 1; I < F.Chain.size(); ++I)
    diag(F.Chain[I].Call->getExprLoc(), "%q0 calls %q1 here",
         DiagnosticIDs::Note)
        << F.Chain[I - 1].Callee << F.Chain[I].Callee;
  for (const torchtidy::SummaryStep &S : Work.Via)
    notePlace(S.At, "'" + S.Caller + "' calls '" + S.Callee + "' here", Loc,
              SM);
  notePlace(Work.At,
            Work.What + " here (the project's summary of '" + Callee.Name +
                "')",
            Loc, SM);
}

} // namespace clang::tidy::libtorch
