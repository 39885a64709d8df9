//===--- FromBlobDtypeCheck.cpp - torch-tidy ------------------------------===//

#include "FromBlobDtypeCheck.h"
#include "SourceText.h"
#include "torchtidy/analysis/TensorStorage.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"

using torchtidy::BlobDtypeMismatch;
using torchtidy::OptionsDtype;

namespace clang::tidy::libtorch {

void FromBlobDtypeCheck::checkTranslationUnit(ASTContext &Ctx) {
  // The user's code changes the default dtype: from_blob without one is
  // then not float.
  bool DefaultChanged = false;
  std::vector<std::pair<const FunctionDecl *, torchtidy::FromBlobCall>> Blobs;
  torchtidy::forEachUserFunction(Ctx, [&](const FunctionDecl *FD) {
    torchtidy::forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      const auto *Call = dyn_cast<CallExpr>(S);
      if (!Call)
        return;
      if (torchtidy::callFacts(Call) & torchtidy::op::SetsDefaultDtype)
        DefaultChanged = true;
      if (std::optional<torchtidy::FromBlobCall> B =
              torchtidy::matchFromBlob(Call))
        Blobs.emplace_back(FD, *B);
    });
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD))
      for (const CXXCtorInitializer *Init : Ctor->inits())
        if (Init->isWritten() && Init->getInit())
          torchtidy::forEachOwnStmt(Init->getInit(), [&](const Stmt *S) {
            if (std::optional<torchtidy::FromBlobCall> B =
                    torchtidy::matchFromBlob(dyn_cast<CallExpr>(S)))
              Blobs.emplace_back(FD, *B);
          });
  });
  for (const auto &[FD, Blob] : Blobs)
    if (std::optional<BlobDtypeMismatch> M =
            torchtidy::checkBlobDtype(Blob, FD->getBody(), Ctx, DefaultChanged))
      report(*M, Ctx);
}

void FromBlobDtypeCheck::report(const BlobDtypeMismatch &M, ASTContext &Ctx) {
  const CallExpr *Call = M.Blob.Call;
  const SourceLocation Loc = Call->getBeginLoc();
  if (!firstReport(Loc))
    return;
  const QualType Element = M.Buffer.Element.getUnqualifiedType();
  const std::string ElementName = Element.getAsString(Ctx.getPrintingPolicy());
  const std::string What = M.Buffer.Owner
                               ? "'" + M.Buffer.Owner->getNameAsString() + "'"
                               : "'" + quotedText(M.Blob.Data, Ctx) + "'";
  const bool Default = M.Given.K == OptionsDtype::Default;
  const uint64_t ElementBytes = Ctx.getTypeSizeInChars(Element).getQuantity();
  const bool IsClass = Element->getAsCXXRecordDecl() && !M.Matching;
  std::string Given = M.Given.D.Pretty.str();
  if (Default)
    Given += ", the default dtype";

  std::string Effect;
  if (IsClass)
    Effect = "the tensor reads the bytes of these objects as " +
             M.Given.D.Pretty.str() + " values";
  else if (ElementBytes < M.Given.D.Bytes)
    Effect = "the bytes are reinterpreted, so the values are wrong, and the "
             "tensor reads " +
             std::to_string(M.Given.D.Bytes / ElementBytes) +
             " times the buffer's size, past its end";
  else
    Effect = "the bytes are reinterpreted, so the values are wrong";
  std::string Fix;
  if (M.Matching && !M.Matching->Spelling.empty())
    Fix = std::string(Default ? "pass " : "use ") + M.Matching->Spelling.str();
  else
    Fix = "copy the elements into a buffer of the dtype's type first";

  const DiagnosticBuilder Diag =
      diag(Loc, "'from_blob' wraps %0, whose elements are '%1'%2, as %3: %4; "
                "%5")
      << What << ElementName
      << (IsClass ? std::string(" (not a class of ") + M.Given.D.Pretty.str() +
                        " fields only)"
                  : " (" + std::to_string(ElementBytes) +
                        (ElementBytes == 1 ? " byte)" : " bytes)"))
      << Given << Effect << Fix;
  if (!Default || !M.Matching || M.Matching->Spelling.empty())
    return;
  // The dtype is missing: add it.
  const SourceManager &SM = Ctx.getSourceManager();
  if (!M.Blob.Options && M.Blob.OptionsParamFollows && M.Blob.LastWritten &&
      !M.Blob.LastWritten->getEndLoc().isMacroID()) {
    const SourceLocation After = Lexer::getLocForEndOfToken(
        M.Blob.LastWritten->getEndLoc(), 0, SM, getLangOpts());
    if (After.isValid())
      Diag << FixItHint::CreateInsertion(After,
                                         (", " + M.Matching->Spelling).str());
    return;
  }
  // Options without a dtype, written as TensorOptions: set it on them.
  const Expr *Options =
      M.Blob.Options ? torchtidy::peelValue(M.Blob.Options) : nullptr;
  // Not a Device or ScalarType converted to options.
  const bool Converted = isa_and_nonnull<CXXConstructExpr>(Options) &&
                         !isa<CXXTemporaryObjectExpr>(Options);
  if (Options && !Converted &&
      torchtidy::isTensorOptionsClass(Options->getType()) &&
      !Options->getBeginLoc().isMacroID() &&
      !Options->getEndLoc().isMacroID()) {
    const SourceLocation After =
        Lexer::getLocForEndOfToken(Options->getEndLoc(), 0, SM, getLangOpts());
    if (After.isValid()) {
      if (needsParensForMember(Options))
        Diag << FixItHint::CreateInsertion(Options->getBeginLoc(), "(")
             << FixItHint::CreateInsertion(
                    After, ")." + opCallText(torchtidy::op::Named::dtype,
                                             M.Matching->Spelling));
      else
        Diag << FixItHint::CreateInsertion(
            After, "." + opCallText(torchtidy::op::Named::dtype,
                                    M.Matching->Spelling));
    }
  }
}

} // namespace clang::tidy::libtorch
