//===--- CudaErrorRecoveryCheck.cpp - torch-tidy --------------------------===//

#include "CudaErrorRecoveryCheck.h"

using torchtidy::CudaErrorRecoverySite;
using torchtidy::CudaEvidence;
using torchtidy::CudaOp;

namespace clang::tidy::libtorch {

CudaErrorRecoveryCheck::CudaErrorRecoveryCheck(StringRef Name,
                                               ClangTidyContext *Context)
    : UserCodeCheck(Name, Context),
      MaxCallDepth(Options.get("MaxCallDepth", 4U)) {}

void CudaErrorRecoveryCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "MaxCallDepth", MaxCallDepth);
}

/// What a CUDA operation does, for the notes.
static const char *describeOp(const CudaOp &Op) {
  switch (Op.K) {
  case CudaOp::MoveToDevice:
    return "moves a tensor to a CUDA device";
  case CudaOp::CudaMethod:
    return "moves a tensor to the current CUDA device";
  case CudaOp::Factory:
    return "creates a tensor on a CUDA device";
  case CudaOp::CudaLibrary:
    return "calls LibTorch's CUDA library";
  case CudaOp::CudaRuntime:
    return "calls the CUDA runtime";
  case CudaOp::KernelLaunch:
    return "launches a CUDA kernel";
  case CudaOp::CudaMemberRead:
    return "reads a CUDA tensor";
  }
  return "does CUDA work";
}

void CudaErrorRecoveryCheck::noteReceived(const CudaOp &Op) {
  if (Op.ReceivedAt && Op.ReceivedMember)
    diag(Op.ReceivedAt->getExprLoc(),
         "the device is %0, which the object's constructor sets from "
         "this argument",
         DiagnosticIDs::Note)
        << Op.ReceivedMember;
}

void CudaErrorRecoveryCheck::noteEvidence(const CudaEvidence &E, bool InHandler,
                                          SourceManager &SM) {
  for (const torchtidy::CallStep &Step : E.Chain)
    diag(Step.Call->getExprLoc(), "%0 is called here", DiagnosticIDs::Note)
        << Step.Callee;
  const char *Where = InHandler ? "in the handler" : "in the try block";
  if (E.K == CudaEvidence::Summary) {
    // What the project's summary of a function of another file says, with
    // notes in the files that hold it.
    const torchtidy::FunctionSummary::Fact *W = E.externalWork();
    if (!W || !E.External)
      return;
    for (const torchtidy::SummaryStep &S : W->Via)
      notePlace(S.At, "'" + S.Callee + "' is called here", E.Site->getExprLoc(),
                SM);
    notePlace(W->At,
              std::string("CUDA work ") + Where + ": " + W->What +
                  " (the project's summary of '" + E.External->Name + "')",
              E.Site->getExprLoc(), SM);
    // Work on the device a member keeps: the construction that gives it.
    noteReceived(E.Operation);
    noteCudaDevice(E.DeviceAt, E.DeviceExternal, E.Site->getExprLoc(), SM);
    return;
  }
  if (E.K == CudaEvidence::Op) {
    diag(E.Site->getExprLoc(), "CUDA work %0: this %1", DiagnosticIDs::Note)
        << Where << describeOp(E.Operation);
    noteReceived(E.Operation);
  } else {
    diag(E.Site->getExprLoc(), "CUDA work %0: a module of class %1",
         DiagnosticIDs::Note)
        << Where << E.Module;
    if (E.MovedAt)
      diag(E.MovedAt->getExprLoc(), "which is moved to a CUDA device here",
           DiagnosticIDs::Note);
  }
  noteCudaDevice(E.DeviceAt, E.DeviceExternal,
                 E.MovedAt ? E.MovedAt->getExprLoc() : E.Site->getExprLoc(),
                 SM);
}

void CudaErrorRecoveryCheck::checkTranslationUnit(ASTContext &Ctx) {
  // The handlers come from user code alone (torchtidy/analysis/UserCode.h).
  for (const CudaErrorRecoverySite &S :
       torchtidy::findCudaErrorRecovery(Ctx, MaxCallDepth)) {
    const std::string Caught = S.Handler->getExceptionDecl()
                                   ? "'" +
                                         S.Handler->getCaughtType().getAsString(
                                             Ctx.getPrintingPolicy()) +
                                         "'"
                                   : std::string("'...'");
    if (S.K == CudaErrorRecoverySite::CarriesOn) {
      diag(S.Handler->getCatchLoc(),
           "handler of %0 catches the CUDA errors of the work in its try "
           "block and carries on: after an illegal memory access or a "
           "device-side assert the CUDA context is dead and every later "
           "CUDA call fails; rethrow or end the program, and recover only "
           "from out-of-memory (c10::OutOfMemoryError)")
          << Caught;
    } else if (S.HandlerWork) {
      diag(S.HandlerWork->Site->getExprLoc(),
           "CUDA work in a handler of %0 that catches the CUDA errors of its "
           "try block: after an illegal memory access or a device-side "
           "assert the CUDA context is dead and this fails too (emptyCache() "
           "and retries help only after out-of-memory: catch "
           "c10::OutOfMemoryError for that)")
          << Caught;
      noteEvidence(*S.HandlerWork, /*InHandler=*/true, Ctx.getSourceManager());
    }
    noteEvidence(S.Work, /*InHandler=*/false, Ctx.getSourceManager());
  }
}

} // namespace clang::tidy::libtorch
