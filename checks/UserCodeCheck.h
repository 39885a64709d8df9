//===--- UserCodeCheck.h - torch-tidy ---------------------------*- C++ -*-===//
//
// The base of the checks that analyse a translation unit's user code in one
// pass (torchtidy/analysis/UserCode.h): it binds the translation unit once,
// says nothing on code that does not compile, walks the user's function
// definitions, and keeps the per-unit set of the sites already reported.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_CHECKS_USERCODECHECK_H
#define TORCHTIDY_CHECKS_USERCODECHECK_H

#include "ClangTidyCheck.h"
#include "torchtidy/analysis/ProjectSummaries.h"

#include "llvm/ADT/DenseSet.h"

#include <utility>

namespace clang::tidy::libtorch {

class UserCodeCheck : public ClangTidyCheck {
public:
  using ClangTidyCheck::ClangTidyCheck;
  /// One match per translation unit: <torch/torch.h> holds hundreds of
  /// thousands of declarations and calls, and a per-node matcher would pay
  /// a location test for each of them; the user's code is walked instead.
  void registerMatchers(ast_matchers::MatchFinder *Finder) final;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) final;
  void onEndOfTranslationUnit() final;
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }

protected:
  /// Analyses a translation unit that compiles: code that does not may have
  /// lost the very statement a check looks for, so it gets nothing (say
  /// nothing rather than guess). By default, checkFunction on each user
  /// function definition (forEachUserFunction: a template in its
  /// instantiations, where types are known).
  virtual void checkTranslationUnit(ASTContext &Ctx);
  /// One user function definition, for checks that look at one at a time.
  virtual void checkFunction(const FunctionDecl *FD, ASTContext &Ctx) {}
  /// Drops what the check kept for one translation unit; called at its end,
  /// whether it compiled or not.
  virtual void endTranslationUnit() {}
  /// True the first time it is asked for \p Loc and \p Kind (what is
  /// reported there) in this translation unit: the instantiations of a
  /// template share the source locations of their findings, and so do the
  /// copies of a lambda that a dispatch macro makes, one per dtype; each is
  /// reported once.
  bool firstReport(SourceLocation Loc, unsigned Kind = 0) {
    return Reported.insert({Loc.getRawEncoding(), Kind}).second;
  }
  /// A note at \p P, a place in a file of the project that a summary names
  /// (ProjectSummaries.h), which \p SM loads when the translation unit did
  /// not include it; when that file cannot be read any more, the note goes
  /// at \p Fallback and names the file and line in its text.
  void notePlace(const torchtidy::SourcePlace &P, llvm::StringRef Text,
                 SourceLocation Fallback, SourceManager &SM);
  /// Where a device is shown to be CUDA (cudaDeviceEvidence): "the device
  /// is CUDA here" at \p DeviceAt unless that is \p Anchor (the note just
  /// made), and, when \p External (the summary of the function of another
  /// file that \p DeviceAt calls) says where it returns one, a note there.
  void noteCudaDevice(const Expr *DeviceAt,
                      const std::optional<torchtidy::FunctionSummary> &External,
                      SourceLocation Anchor, SourceManager &SM);

private:
  llvm::DenseSet<std::pair<unsigned, unsigned>> Reported;
};

} // namespace clang::tidy::libtorch

#endif
