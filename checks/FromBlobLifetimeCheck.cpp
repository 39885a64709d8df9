//===--- FromBlobLifetimeCheck.cpp - torch-tidy ---------------------------===//

#include "FromBlobLifetimeCheck.h"
#include "MemoryText.h"
#include "SourceText.h"
#include "torchtidy/analysis/FunctionContext.h"

#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"

using torchtidy::BlobEscape;
using torchtidy::BufferOrigin;

namespace clang::tidy::libtorch {

void FromBlobLifetimeCheck::checkFunction(const FunctionDecl *FD,
                                          ASTContext &Ctx) {
  if (!torchtidy::containsFromBlob(FD))
    return;
  torchtidy::FunctionContext *Fn = torchtidy::FunctionContexts::of(Ctx).get(FD);
  if (!Fn)
    return;
  auto &Lifetime = Fn->analysis<torchtidy::PointerLifetime>();
  for (const BlobEscape &E : Lifetime.blobEscapes())
    report(E, Ctx);
}

void FromBlobLifetimeCheck::report(const BlobEscape &E, ASTContext &Ctx) {
  const CallExpr *Call = E.Blob.Call;
  const SourceLocation Loc = Call->getBeginLoc();
  if (!firstReport(Loc))
    return;
  if (E.Buffer.K == BufferOrigin::Temporary) {
    reportTemporary(E, Ctx);
    return;
  }
  const std::string Owner = E.Buffer.Owner->getNameAsString();
  const std::string Buffer =
      E.Buffer.K == BufferOrigin::Pointer
          ? describeBuffer(E.Buffer, Ctx)
          : "'" + Owner + "' (" + describeBuffer(E.Buffer, Ctx) + ")";
  const bool Heap = E.Buffer.K == BufferOrigin::Pointer;
  const char *Dies = Heap ? "freed" : "destroyed";
  const char *Consequence =
      "the tensor then reads freed memory (garbage values, or an illegal "
      "memory access once it is copied to CUDA); append .clone() so that the "
      "tensor owns a copy";
  {
    DiagnosticBuilder Diag =
        E.Use ? diag(Loc, "tensor from 'from_blob' over %0 is used after '%1' "
                          "is %2: %3")
                    << Buffer << Owner << Dies << Consequence
        : E.Freed
            ? diag(Loc, "tensor from 'from_blob' over %0 is %1 after '%2' "
                        "is %3: %4")
                  << Buffer << describeStore(E.Kept, Ctx) << Owner << Dies
                  << Consequence
            : diag(Loc, "tensor from 'from_blob' over %0 is %1 without a "
                        "copy, but '%2' is destroyed when its scope ends, "
                        "at the latest when the function returns: %3")
                  << Buffer << describeStore(E.Kept, Ctx) << Owner
                  << Consequence;
    addCloneFix(Diag, Call, Ctx);
  }
  if (E.Kept.MayAliasOp)
    if (const auto *Op = dyn_cast<CallExpr>(E.Kept.MayAliasOp))
      diag(Op->getExprLoc(),
           "'%0' does not copy when the tensor already has that device and "
           "dtype",
           DiagnosticIDs::Note)
          << opName(Op);
  for (const VarDecl *Via : E.Via)
    diag(Via->getLocation(), "the tensor is kept in '%0'", DiagnosticIDs::Note)
        << Via->getName();
  if (E.Freed) {
    const bool ScopeEnd = isa<CompoundStmt>(E.Freed);
    diag(ScopeEnd ? cast<CompoundStmt>(E.Freed)->getRBracLoc()
                  : E.Freed->getBeginLoc(),
         "'%0' is %1 here", DiagnosticIDs::Note)
        << Owner << Dies;
  }
  if (E.Use)
    diag(E.Use->getBeginLoc(), "the tensor is used here", DiagnosticIDs::Note);
}

void FromBlobLifetimeCheck::addCloneFix(DiagnosticBuilder &Diag,
                                        const CallExpr *Call,
                                        const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  if (Call->getEndLoc().isMacroID() || Call->getBeginLoc().isMacroID())
    return;
  const SourceLocation After =
      Lexer::getLocForEndOfToken(Call->getEndLoc(), 0, SM, getLangOpts());
  if (After.isValid())
    Diag << FixItHint::CreateInsertion(
        After, "." + opCallText(torchtidy::op::Named::clone));
}

void FromBlobLifetimeCheck::reportTemporary(const BlobEscape &E,
                                            ASTContext &Ctx) {
  const CallExpr *Call = E.Blob.Call;
  const std::string Text = quotedOrSpelledText(E.Buffer.OwnerRef, Ctx);
  const std::string Temporary =
      Text.empty() ? "a temporary" : "temporary '" + Text + "'";
  const char *Consequence =
      "the tensor then reads freed memory (garbage values, or an illegal "
      "memory access once it is copied to CUDA); append .clone() so that the "
      "tensor owns a copy";
  {
    DiagnosticBuilder Diag =
        E.Use ? diag(Call->getBeginLoc(),
                     "tensor from 'from_blob' over the buffer of %0 is used "
                     "after the temporary is destroyed at the end of "
                     "its statement: %1")
                    << Temporary << Consequence
              : diag(Call->getBeginLoc(),
                     "tensor from 'from_blob' over the buffer of %0 is %1 "
                     "without a copy, but the temporary is destroyed at "
                     "the end of its statement: %2")
                    << Temporary << describeStore(E.Kept, Ctx) << Consequence;
    addCloneFix(Diag, Call, Ctx);
  }
  diag(E.Buffer.OwnerRef->getBeginLoc(),
       "the temporary that owns the buffer is made here", DiagnosticIDs::Note);
  for (const VarDecl *Via : E.Via)
    diag(Via->getLocation(), "the tensor is kept in '%0'", DiagnosticIDs::Note)
        << Via->getName();
  if (E.Use)
    diag(E.Use->getBeginLoc(), "the tensor is used here", DiagnosticIDs::Note);
}

} // namespace clang::tidy::libtorch
