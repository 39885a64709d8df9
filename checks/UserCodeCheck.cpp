//===--- UserCodeCheck.cpp - torch-tidy -----------------------------------===//

#include "UserCodeCheck.h"
#include "SourceText.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::libtorch {

void UserCodeCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(translationUnitDecl().bind("tu"), this);
}

void UserCodeCheck::check(const MatchFinder::MatchResult &Result) {
  if (!Result.Nodes.getNodeAs<TranslationUnitDecl>("tu"))
    return;
  if (Result.Context->getDiagnostics().hasUncompilableErrorOccurred())
    return;
  checkTranslationUnit(*Result.Context);
}

void UserCodeCheck::checkTranslationUnit(ASTContext &Ctx) {
  torchtidy::forEachUserFunction(
      Ctx, [&](const FunctionDecl *FD) { checkFunction(FD, Ctx); });
}

void UserCodeCheck::notePlace(const torchtidy::SourcePlace &P,
                              llvm::StringRef Text, SourceLocation Fallback,
                              SourceManager &SM) {
  libtorch::notePlace(*this, P, Text, Fallback, SM);
}

void UserCodeCheck::noteCudaDevice(
    const Expr *DeviceAt,
    const std::optional<torchtidy::FunctionSummary> &External,
    SourceLocation Anchor, SourceManager &SM) {
  if (!DeviceAt)
    return;
  if (DeviceAt->getExprLoc() != Anchor)
    diag(DeviceAt->getExprLoc(), "the device is CUDA here",
         DiagnosticIDs::Note);
  if (External && External->CudaDevice)
    notePlace(External->CudaDevice->At,
              "'" + External->Name + "' returns a CUDA device here (" +
                  External->CudaDevice->What + "; the project's summary of '" +
                  External->Name + "')",
              DeviceAt->getExprLoc(), SM);
}

void UserCodeCheck::onEndOfTranslationUnit() {
  endTranslationUnit();
  Reported.clear();
}

} // namespace clang::tidy::libtorch
