//===--- UnregisteredMemberCheckBase.h - torch-tidy -------------*- C++ -*-===//
//
// Shared matching and reporting of the two registration checks. A member is
// reported at the end of the translation unit, so that a derived class's
// constructor registering a member of its base (in the same TU) counts.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_CHECKS_UNREGISTEREDMEMBERCHECKBASE_H
#define TORCHTIDY_CHECKS_UNREGISTEREDMEMBERCHECKBASE_H

#include "ClangTidyCheck.h"
#include "torchtidy/analysis/Registration.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Regex.h"

#include <optional>

namespace clang::tidy::libtorch {

class UnregisteredMemberCheckBase : public ClangTidyCheck {
public:
  UnregisteredMemberCheckBase(StringRef Name, ClangTidyContext *Context);
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onEndOfTranslationUnit() override;
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }

protected:
  /// Whether this check reports members of this kind.
  virtual bool isReportable(const torchtidy::MemberFacts &Facts) const = 0;
  /// Whether how the TU reads the member makes it harmless unregistered.
  virtual bool harmlessByUse(const FieldDecl *Field,
                             const torchtidy::MemberFacts &Facts,
                             torchtidy::MemberUses &Uses) const {
    return false;
  }
  /// The members this check is about (tensors, or submodules).
  virtual bool isOwnKind(const torchtidy::MemberFacts &Facts) const = 0;
  /// Emits the warning (and fix-its) for one unregistered member.
  virtual void report(const FieldDecl *Field, const CXXRecordDecl *Owner,
                      const torchtidy::MemberFacts &Facts) = 0;

  /// The single write a fix-it may rewrite, else null.
  static const torchtidy::MemberWrite *
  rewritableWrite(const torchtidy::MemberFacts &Facts);
  /// `register_xxx("name", value)` around the value of \p W.
  void addRegistrationFix(DiagnosticBuilder &Diag, const FieldDecl *Field,
                          const CXXRecordDecl *Owner,
                          const torchtidy::MemberWrite &W, StringRef Registrar);
  /// Where to report: the member, or, when the member is declared outside
  /// the main file (in a header) and the main file writes it, the first
  /// such write: editors (clangd) show only diagnostics in the open file.
  static SourceLocation reportLocation(const FieldDecl *Field,
                                       const torchtidy::MemberFacts &Facts);
  /// Whether this translation unit reports \p Field, whose facts rest on
  /// building code of another file (the project's summaries): at the member
  /// or a write in the main file; else, when nothing writes it, in the file
  /// that defines a constructor. The other files say nothing, so that each
  /// finding is made once.
  static bool reportedHere(const FieldDecl *Field, const CXXRecordDecl *Owner,
                           const torchtidy::MemberFacts &Facts);
  /// A registered member replaced by a new, unregistered value.
  void reportReplaced(const FieldDecl *Field, const CXXRecordDecl *Owner,
                      const torchtidy::MemberFacts &Facts,
                      const torchtidy::ReplacedRegistration &Replaced);
  /// `m = replace_module("name", value)` around the value of \p W.
  void addReplaceFix(DiagnosticBuilder &Diag, const torchtidy::MemberWrite &W,
                     StringRef Name, const CXXRecordDecl *Owner);
  /// A note at each write of the member (and at the member itself when the
  /// warning is not there), a write in another file where the project's
  /// summary puts it, and a note at each building function of another file
  /// that the analysis read from its summary.
  void noteWrites(const FieldDecl *Field, const torchtidy::MemberFacts &Facts,
                  SourceLocation ReportedAt);

private:
  struct Candidate {
    const FieldDecl *Field;
    const CXXRecordDecl *Owner;
    torchtidy::MemberFacts Facts;
  };
  const std::string IgnoredMembers;
  std::optional<llvm::Regex> IgnoredMembersRegex;
  std::vector<Candidate> Candidates;
  ASTContext *Context = nullptr;
  llvm::DenseSet<const FieldDecl *> RegisteredSomewhere;
  /// Classes analysed in this TU (reached from the class itself, or from a
  /// method defined outside it).
  llvm::DenseSet<const CXXRecordDecl *> AnalysedClasses;
};

} // namespace clang::tidy::libtorch

#endif
